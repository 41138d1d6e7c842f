//! The history's index: facts every later stage looks up, computed once from the history alone.
//!
//! Takes a [`History`]; gives the transaction of each operation, every write (or append) by
//! (key, value) and the duplicate writes. Inference keeps it ([`crate::infer::Inference::index`]);
//! the weak levels, the polygraph, the analysis and the explanations read it from there. (A
//! transaction's external reads are found from its own operations when asked,
//! [`History::external_reads`].)

use super::{Arg, History, KeyId, OpKind, Sym, TxnId, Value};

/// A write (or append) of a value to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteInfo {
    pub txn: TxnId,
    pub op: u32,
    /// Whether it is the transaction's last write to the key (the version it installs).
    pub last: bool,
}

/// Writes sorted by (key, value), looked up by binary search within a key's range: a hash map
/// of millions of entries costs a cache miss per insert (about 250 ns here), a sort far less.
#[derive(Debug, Clone, Default)]
pub struct Writes {
    entries: Vec<WriteEntry>,
    /// `entries[starts[k]..starts[k + 1]]` are key k's writes.
    starts: Vec<u32>,
    /// Bit i: whether entry i is its transaction's last write to the key.
    last: Vec<u64>,
    /// Bit i: whether entry i's value is a string (its `value` the symbol).
    strs: Vec<u64>,
}

/// One write as [`Writes`] keeps it, in 16 bytes (17.5M of them at 10M transactions of the
/// series' shape; a `Value` field made it 24): its key is its place among the keys' ranges, its
/// `last` and whether its value is a string are bits beside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WriteEntry {
    /// The integer's bits, or the string's symbol.
    value: u64,
    txn: TxnId,
    op: u32,
}

fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// A write as the scan finds it, with what sorting it needs: 32 bytes, for the build only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    value: Value,
    key: KeyId,
    info: WriteInfo,
}

impl Default for Found {
    fn default() -> Self {
        Found { value: Value::Int(0), key: 0, info: WriteInfo::default() }
    }
}

impl Writes {
    /// The writes found, sorted by (key, value, operation), of keys below `nkeys`: each
    /// (key, value)'s first kept, the later ones returned as duplicates (first, later). One pass
    /// (it was four: the duplicates, the keys' starts, the `last` bits, the 24-byte entries).
    fn new(found: Vec<Found>, nkeys: usize) -> (Writes, Vec<(WriteInfo, WriteInfo)>) {
        let mut duplicates = Vec::new();
        let mut first: Option<Found> = None;
        let mut starts = vec![0u32; nkeys + 1];
        let mut last = vec![0u64; found.len().div_ceil(64)];
        let mut strs = vec![0u64; found.len().div_ceil(64)];
        let mut i = 0;
        let firsts = found.into_iter().filter(|&f| match first {
            Some(p) if (p.key, p.value) == (f.key, f.value) => {
                duplicates.push((p.info, f.info));
                false
            }
            _ => {
                first = Some(f);
                true
            }
        });
        // Collected in place: the 24-byte entries reuse the 32-byte records' room.
        let mut entries: Vec<WriteEntry> = firsts
            .map(|f| {
                if let Some(s) = starts.get_mut(f.key as usize + 1) {
                    *s += 1;
                }
                last[i / 64] |= u64::from(f.info.last) << (i % 64);
                let value = match f.value {
                    Value::Int(v) => v as u64,
                    Value::Str(s) => {
                        strs[i / 64] |= 1 << (i % 64);
                        u64::from(s)
                    }
                };
                i += 1;
                WriteEntry { value, txn: f.info.txn, op: f.info.op }
            })
            .collect();
        // Give back the room of the duplicates and of the difference in size.
        entries.shrink_to_fit();
        last.truncate(entries.len().div_ceil(64));
        strs.truncate(entries.len().div_ceil(64));
        crate::bucket_sort::starts_from_counts(&mut starts);
        (Writes { entries, starts, last, strs }, duplicates)
    }

    fn info(&self, i: usize) -> WriteInfo {
        let e = self.entries[i];
        WriteInfo { txn: e.txn, op: e.op, last: bit(&self.last, i) }
    }

    fn value(&self, i: usize) -> Value {
        let v = self.entries[i].value;
        if bit(&self.strs, i) {
            Value::Str(v as Sym)
        } else {
            Value::Int(v as i64)
        }
    }

    pub fn get(&self, kv: &(KeyId, Value)) -> Option<WriteInfo> {
        self.position(kv).map(|i| self.info(i))
    }

    /// Where the write of (key, value) is among all writes, which are in (key, value) order.
    pub fn position(&self, kv: &(KeyId, Value)) -> Option<usize> {
        let r = crate::bucket_sort::range(&self.starts, kv.0 as usize);
        self.entries.get(r.clone())?;
        // A key's values are distinct and in order.
        let (mut lo, mut hi) = (r.start, r.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.value(mid).cmp(&kv.1) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The write at a [`Writes::position`].
    pub fn at(&self, i: usize) -> WriteInfo {
        self.info(i)
    }

    /// The positions of key `k`'s writes (`None` past the keys indexed).
    pub fn positions(&self, k: KeyId) -> Option<std::ops::Range<usize>> {
        (k as usize + 1 < self.starts.len()).then(|| crate::bucket_sort::range(&self.starts, k as usize))
    }

    /// How many writes there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Key `k`'s writes, by value.
    pub fn of_key(&self, k: KeyId) -> impl Iterator<Item = (Value, WriteInfo)> + '_ {
        let r = crate::bucket_sort::range(&self.starts, k as usize);
        let r = if r.end <= self.entries.len() { r } else { 0..0 };
        r.map(|i| (self.value(i), self.info(i)))
    }

    pub fn iter(&self) -> impl Iterator<Item = ((KeyId, Value), WriteInfo)> + '_ {
        (0..self.starts.len().saturating_sub(1) as KeyId)
            .flat_map(move |k| self.of_key(k).map(move |(v, w)| ((k, v), w)))
    }
}

/// The index of a history (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// The transaction of each operation.
    pub op_txn: Vec<TxnId>,
    /// Every write or append of a committed, aborted or indeterminate transaction, by (key,
    /// value); of a value written twice to one key, the first write (in input order).
    pub writes: Writes,
    /// Each later write of a value already written to its key: (the first write, this one).
    pub duplicates: Vec<(WriteInfo, WriteInfo)>,
}

impl Index {
    pub fn new(h: &History) -> Index {
        let op_txn = op_txn(h);
        let (mut kept, _) = crate::par::fill_ranges(
            h.txns.len(),
            PARALLEL_TXNS,
            |txns| count_writes(h, txns),
            |txns, out| scan(h, txns, out),
        );
        crate::bucket_sort::sort_by_bucket(
            &mut kept,
            h.keys.len(),
            |e| e.key as usize,
            |e| (e.key, e.value, e.info.op),
        );
        let (writes, duplicates) = Writes::new(kept, h.keys.len());
        Index { op_txn, writes, duplicates }
    }

    /// The transaction of an operation (0 for an operation out of range).
    pub fn txn_of(&self, op: u32) -> TxnId {
        self.op_txn.get(op as usize).copied().unwrap_or(0)
    }

    /// Transaction `t`'s last write (or append) to `key`, if it wrote it.
    pub fn last_write(&self, h: &History, t: TxnId, key: KeyId) -> Option<u32> {
        let txn = h.txns.get(t as usize)?;
        (txn.ops_start..txn.ops_end).rev().find(|&o| {
            let op = h.ops[o as usize];
            op.key == key && op.kind() != OpKind::Read
        })
    }
}

/// The transaction of each operation: on the pool, each range of transactions filling its own
/// operations' slots, when the transactions' operations follow one another from the first
/// (as every reader lays them out); on one thread otherwise.
fn op_txn(h: &History) -> Vec<TxnId> {
    let (op_txn, ranges) = crate::par::fill_ranges(
        h.txns.len(),
        PARALLEL_TXNS,
        // Exact when the operations are laid out as checked below (else the slots are thrown away).
        |txns| match (txns.start, txns.end.checked_sub(1)) {
            (first, Some(last)) if first <= last => {
                h.op_range(last as TxnId).end.saturating_sub(h.op_range(first as TxnId).start)
            }
            _ => 0,
        },
        |txns, out| {
            // (first operation, end of the last, whether each starts where the one before ended)
            let mut laid: Option<(usize, usize, bool)> = None;
            let mut at = 0;
            for t in txns {
                let r = h.op_range(t as TxnId);
                laid = Some(match laid {
                    None => (r.start, r.end, true),
                    Some((first, end, follows)) => (first, r.end, follows && end == r.start),
                });
                if let Some(slots) = out.get_mut(at..at + r.len()) {
                    slots.fill(t as TxnId);
                }
                at += r.len();
            }
            laid
        },
    );
    let mut end = 0;
    let mut laid_out = true;
    for &(first, last, follows) in ranges.iter().flatten() {
        laid_out &= follows && first == end;
        end = last;
    }
    if laid_out && end == h.ops.len() && op_txn.len() == end {
        return op_txn;
    }
    let mut op_txn = vec![0 as TxnId; h.ops.len()];
    for t in 0..h.txns.len() as TxnId {
        op_txn[h.op_range(t)].fill(t);
    }
    op_txn
}

/// Below this many transactions the index is built on one thread (and register inference's
/// scan of the reads runs on one).
pub(crate) const PARALLEL_TXNS: usize = 1 << 14;

/// The writes (or appends) of a value among transactions `txns`: as many as [`scan`] gives.
fn count_writes(h: &History, txns: std::ops::Range<usize>) -> usize {
    txns.flat_map(|t| h.ops_of(t as TxnId))
        .filter(|op| matches!((op.kind(), op.arg()), (OpKind::Write | OpKind::Append, Arg::Val(_))))
        .count()
}

/// The writes of transactions `txns` into `out` (exactly [`count_writes`] of them).
fn scan(h: &History, txns: std::ops::Range<usize>, out: &mut [Found]) {
    let mut slots = out.iter_mut();
    let mut written: Vec<KeyId> = Vec::new();
    for t in txns {
        // Backwards, so the first write met per key is the transaction's last.
        written.clear();
        for o in h.op_range(t as TxnId).rev() {
            let op = h.ops[o];
            let (OpKind::Write | OpKind::Append, Arg::Val(v)) = (op.kind(), op.arg()) else { continue };
            let last = !written.contains(&{ op.key });
            if last {
                written.push(op.key);
            }
            if let Some(slot) = slots.next() {
                *slot = Found { value: v, key: op.key, info: WriteInfo { txn: t as TxnId, op: o as u32, last } };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries stay 16 bytes, and values of both kinds, negative integers and symbols past
    /// `i32::MAX` included, are found again and listed in order.
    #[test]
    fn writes_keep_values_of_both_kinds_in_16_bytes() {
        assert_eq!(std::mem::size_of::<WriteEntry>(), 16);
        let values = [
            Value::Int(i64::MIN),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(i64::MAX),
            Value::Str(0),
            Value::Str(u32::MAX),
        ];
        let found: Vec<Found> = (0..2u32)
            .flat_map(|k| {
                values.iter().enumerate().map(move |(i, &value)| Found {
                    value,
                    key: k,
                    info: WriteInfo { txn: k * 10 + i as u32, op: i as u32, last: i % 2 == 0 },
                })
            })
            .collect();
        let (w, dups) = Writes::new(found, 2);
        assert!(dups.is_empty());
        for k in 0..2u32 {
            for (i, &v) in values.iter().enumerate() {
                let info = w.get(&(k, v)).unwrap_or_else(|| panic!("{k} {v:?}"));
                assert_eq!(info, WriteInfo { txn: k * 10 + i as u32, op: i as u32, last: i % 2 == 0 });
            }
            assert_eq!(w.of_key(k).map(|(v, _)| v).collect::<Vec<_>>(), values);
            assert!(w.get(&(k, Value::Int(1))).is_none() && w.get(&(k, Value::Str(1))).is_none());
        }
    }
}
