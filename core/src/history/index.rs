//! The history's index: facts every later stage looks up, computed once from the history alone.
//!
//! Takes a [`History`]; gives the transaction of each operation, every write (or append) by
//! (key, value), the duplicate writes, and each transaction's external reads (reads of a key
//! before its own first write to it). Inference keeps it ([`crate::infer::Inference::index`]);
//! the weak levels, the polygraph, the analysis and the explanations read it from there.

use super::{Arg, History, KeyId, OpKind, TxnId, Value};

/// A write (or append) of a value to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    entries: Vec<((KeyId, Value), WriteInfo)>,
    /// `entries[starts[k]..starts[k + 1]]` are key k's writes.
    starts: Vec<u32>,
}

impl Writes {
    pub fn get(&self, kv: &(KeyId, Value)) -> Option<&WriteInfo> {
        let r = self.of_key(kv.0);
        r.binary_search_by(|e| e.0 .1.cmp(&kv.1)).ok().map(|i| &r[i].1)
    }

    pub fn of_key(&self, k: KeyId) -> &[((KeyId, Value), WriteInfo)] {
        match (self.starts.get(k as usize), self.starts.get(k as usize + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&(KeyId, Value), &WriteInfo)> {
        self.entries.iter().map(|(kv, w)| (kv, w))
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
    /// External reads of every transaction, in program order: `external[ext_starts[t]..ext_starts[t + 1]]`.
    external: Vec<u32>,
    ext_starts: Vec<u32>,
}

impl Index {
    pub fn new(h: &History) -> Index {
        let mut op_txn = vec![0 as TxnId; h.ops.len()];
        for (t, txn) in h.txns.iter().enumerate() {
            let (start, end) = (txn.ops_start as usize, (txn.ops_end as usize).min(h.ops.len()));
            op_txn.get_mut(start..end).into_iter().for_each(|s| s.fill(t as TxnId));
        }
        let parts = crate::par::map_ranges(h.txns.len(), PARALLEL_TXNS, |txns| scan(h, txns));
        let mut external: Vec<u32> = Vec::with_capacity(parts.iter().map(|p| p.external.len()).sum());
        let mut ext_starts: Vec<u32> = Vec::with_capacity(h.txns.len() + 1);
        let mut kept: Vec<((KeyId, Value), WriteInfo)> =
            Vec::with_capacity(parts.iter().map(|p| p.entries.len()).sum());
        for p in parts {
            let base = external.len() as u32;
            ext_starts.extend(p.ext_starts.iter().map(|s| s + base));
            external.extend_from_slice(&p.external);
            kept.extend_from_slice(&p.entries);
        }
        ext_starts.push(external.len() as u32);
        crate::bucket_sort::sort_by_bucket(&mut kept, h.keys.len(), |((k, _), _)| *k as usize, |(kv, w)| (*kv, w.op));
        let mut duplicates = Vec::new();
        let mut first: Option<((KeyId, Value), WriteInfo)> = None;
        kept.retain(|&(kv, w)| match first {
            Some((fkv, f)) if fkv == kv => {
                duplicates.push((f, w));
                false
            }
            _ => {
                first = Some((kv, w));
                true
            }
        });
        let starts = crate::bucket_sort::starts(h.keys.len(), kept.iter().map(|((k, _), _)| *k as usize));
        Index { op_txn, writes: Writes { entries: kept, starts }, duplicates, external, ext_starts }
    }

    /// The transaction of an operation (0 for an operation out of range).
    pub fn txn_of(&self, op: u32) -> TxnId {
        self.op_txn.get(op as usize).copied().unwrap_or(0)
    }

    /// A transaction's external reads (reads of a key before its own first write to it), in
    /// program order.
    pub fn external_reads(&self, t: TxnId) -> &[u32] {
        match (self.ext_starts.get(t as usize), self.ext_starts.get(t as usize + 1)) {
            (Some(&a), Some(&b)) => &self.external[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Transaction `t`'s last write (or append) to `key`, if it wrote it.
    pub fn last_write(&self, h: &History, t: TxnId, key: KeyId) -> Option<u32> {
        let txn = h.txns.get(t as usize)?;
        (txn.ops_start..txn.ops_end).rev().find(|&o| {
            let op = h.ops[o as usize];
            op.key == key && op.kind != OpKind::Read
        })
    }
}

/// Below this many transactions the index is built on one thread.
const PARALLEL_TXNS: usize = 1 << 14;

/// What [`scan`] finds in a range of transactions.
struct Part {
    /// The range's external reads, and where each transaction's start among them.
    external: Vec<u32>,
    ext_starts: Vec<u32>,
    entries: Vec<((KeyId, Value), WriteInfo)>,
}

/// The external reads and the writes of transactions `txns`.
fn scan(h: &History, txns: std::ops::Range<usize>) -> Part {
    let mut p = Part { external: Vec::new(), ext_starts: Vec::with_capacity(txns.len()), entries: Vec::new() };
    let mut written: Vec<KeyId> = Vec::new();
    for t in txns {
        let txn = &h.txns[t];
        let (start, end) = (txn.ops_start as usize, (txn.ops_end as usize).min(h.ops.len()));
        p.ext_starts.push(p.external.len() as u32);
        written.clear();
        for o in start..end {
            let op = h.ops[o];
            if op.kind == OpKind::Read {
                if !written.contains(&op.key) {
                    p.external.push(o as u32);
                }
            } else if !written.contains(&op.key) {
                written.push(op.key);
            }
        }
        // Backwards, so the first write met per key is the transaction's last.
        written.clear();
        for o in (start..end).rev() {
            let op = h.ops[o];
            let (OpKind::Write | OpKind::Append, Arg::Val(v)) = (op.kind, op.arg) else { continue };
            let last = !written.contains(&op.key);
            if last {
                written.push(op.key);
            }
            p.entries.push(((op.key, v), WriteInfo { txn: t as TxnId, op: o as u32, last }));
        }
    }
    p
}
