//! Building a [`History`] operation by operation; every reader goes through it.

use super::{
    Arg, History, Interner, KeyId, Model, Op, OpKind, ReadAt, Span, SpanMode, Status, Sym, Transaction, Value,
};
use crate::error::{Error, ErrorKind};
use crate::hash::Map;

/// Where a reader saw something, for errors found after the fact.
#[derive(Debug, Clone, Copy, Default)]
pub struct Place {
    pub line: u32,
    pub column: u32,
}

/// Each key's id. Small non-negative integer keys (what Jepsen's generators write) are found
/// in a table indexed by the integer: with millions of keys, a hash map's lookups missed the
/// cache and its growth rehashed them all, a third of the multi-threaded reader's one-thread
/// replay. Other keys go to the map.
#[derive(Debug, Default)]
struct KeyIds {
    /// `dense[i]`: the id of key `Int(i)`, or `NONE`.
    dense: Vec<KeyId>,
    map: Map<Value, KeyId>,
}

impl KeyIds {
    const NONE: KeyId = KeyId::MAX;

    fn get(&self, v: Value) -> Option<KeyId> {
        if let Value::Int(i) = v {
            if let Some(&k) = usize::try_from(i).ok().and_then(|i| self.dense.get(i)) {
                if k != Self::NONE {
                    return Some(k);
                }
            }
        }
        // A key below the table's end may have come before the table reached it.
        self.map.get(&v).copied()
    }

    /// Record a new key; `keys` is how many there are with it. The table grows only while it
    /// stays within a few words per key, so that one huge integer key cannot allocate gigabytes.
    fn insert(&mut self, v: Value, k: KeyId, keys: usize) {
        if let Value::Int(i) = v {
            if let Ok(i) = usize::try_from(i) {
                if i < self.dense.len() || i < (1 << 16).max(4 * keys) {
                    if i >= self.dense.len() {
                        self.dense.resize((i + 1).max(2 * self.dense.len()), Self::NONE);
                    }
                    self.dense[i] = k;
                    return;
                }
            }
        }
        self.map.insert(v, k);
    }
}

/// Metadata of a transaction being finished.
#[derive(Debug, Clone, Default)]
pub struct TxnMeta {
    pub id: Option<u64>,
    pub process: Option<i64>,
    pub invoke_time: Option<i64>,
    pub complete_time: Option<i64>,
    pub invoke_pos: Option<u64>,
    pub complete_pos: Option<u64>,
    pub label: Option<Sym>,
    pub line: u32,
    /// Where the transaction is in the input, for readers that record spans.
    pub span: Option<Span>,
    pub start_ts: Option<crate::history::Ts>,
    pub commit_ts: Option<crate::history::Ts>,
}

/// Accumulates transactions; see [`HistoryBuilder::finish`].
#[derive(Debug, Default)]
pub struct HistoryBuilder {
    h: Option<History>,
    key_index: KeyIds,
    txn_start: u32,
    first_list: Option<Place>,
    first_register: Option<Place>,
    /// The same for the transaction being built; they count only once it is finished, so that
    /// operations abandoned (a nemesis value, a client operation that is not a transaction)
    /// cannot make a history look mixed.
    txn_list: Option<Place>,
    txn_register: Option<Place>,
    /// What is recorded of where things are ([`HistoryBuilder::set_span_mode`]).
    spans: SpanMode,
    /// With [`SpanMode::Located`], where the transaction being built read its operations.
    read_at: ReadAt,
}

impl HistoryBuilder {
    // Not inlined: every reader calls it once, and its many fields would be copied into each
    // (2 kB of the web demo's module).
    #[inline(never)]
    pub fn new() -> Self {
        HistoryBuilder {
            h: Some(History {
                txns: Vec::new(),
                ops: Vec::new(),
                elems: Vec::new(),
                canon: Vec::new(),
                keys: Vec::new(),
                strings: Interner::default(),
                model: Model::Empty,
                version_order: None,
                predicate_reads: Vec::new(),
                op_spans: Vec::new(),
                txn_spans: Vec::new(),
                ops_read_at: Vec::new(),
                op_span_finder: None,
                commit_order: None,
                initial_open: false,
                aborted_writes: None,
                notation: super::Notation::Jepsen,
            }),
            ..Default::default()
        }
    }

    /// What of [`HistoryBuilder::set_op_span`] and [`TxnMeta::span`] is kept (all, by default).
    pub fn set_span_mode(&mut self, mode: SpanMode) {
        self.spans = mode;
    }

    /// Whether transactions' spans are kept.
    pub fn records_spans(&self) -> bool {
        self.spans.txn_spans()
    }

    /// Whether operations' spans are kept ([`HistoryBuilder::set_op_span`]).
    pub fn records_op_spans(&self) -> bool {
        self.spans.op_spans()
    }

    /// Where the transaction being built read its operations (the form's byte offset, line and
    /// column: 0 where the reader does not keep it, see [`ReadAt`]), kept with
    /// [`SpanMode::Located`].
    pub fn ops_read_at(&mut self, offset: usize, line: u32, column: u32) {
        self.read_at = ReadAt { offset: offset as u64, line, column };
    }

    /// Room for a whole text of `total` bytes at the density of its first `read` bytes, which
    /// held `ops` operations and `txns` transactions (a little over, not to grow): growing by
    /// doubling copies what is there (3% of a check in WebAssembly, whose allocator moves what
    /// it grows), and pages never touched cost nothing. Only tried: a skewed text (dense maps,
    /// then megabytes of blanks) asks for far too much, and that must not fail the read.
    pub fn reserve_at_density(&mut self, read: usize, total: usize, ops: usize, txns: usize) {
        if read == 0 {
            return;
        }
        let scale = |n: usize| (n as f64 * total as f64 / read as f64 * 1.05) as usize;
        let (ops, txns) = (scale(ops), scale(txns));
        let spans = self.spans;
        let h = self.h();
        fn room<T>(v: &mut Vec<T>, want: usize) {
            let _ = v.try_reserve(want.saturating_sub(v.len()));
        }
        room(&mut h.ops, ops);
        room(&mut h.txns, txns);
        if spans.op_spans() {
            room(&mut h.op_spans, ops);
        }
        if spans.txn_spans() {
            room(&mut h.txn_spans, txns);
        }
        if spans == SpanMode::Located {
            room(&mut h.ops_read_at, txns);
        }
    }

    /// Operations and transactions so far.
    pub fn sizes(&mut self) -> (usize, usize) {
        let h = self.h();
        (h.ops.len(), h.txns.len())
    }

    fn h(&mut self) -> &mut History {
        self.h.as_mut().expect("builder used after finish")
    }

    pub fn intern(&mut self, s: &str) -> Sym {
        self.h().strings.intern(s)
    }

    pub fn str_value(&mut self, s: &str) -> Value {
        Value::Str(self.intern(s))
    }

    pub fn key(&mut self, v: Value) -> KeyId {
        if let Some(k) = self.key_index.get(v) {
            return k;
        }
        let h = self.h.as_mut().expect("builder used after finish");
        let k = h.keys.len() as KeyId;
        h.keys.push(v);
        h.canon.push(Vec::new());
        self.key_index.insert(v, k, h.keys.len());
        k
    }

    fn note(&mut self, list: bool, place: Place) {
        let slot = if list { &mut self.txn_list } else { &mut self.txn_register };
        if slot.is_none() {
            *slot = Some(place);
        }
    }

    /// The earliest place of each model among finished transactions.
    fn keep_notes(&mut self) {
        fn earliest(first: &mut Option<Place>, txn: Option<Place>) {
            if let Some(p) = txn {
                if first.is_none_or(|f| (p.line, p.column) < (f.line, f.column)) {
                    *first = Some(p);
                }
            }
        }
        earliest(&mut self.first_list, self.txn_list.take());
        earliest(&mut self.first_register, self.txn_register.take());
    }

    pub fn push_write(&mut self, kind: OpKind, key: KeyId, value: Value, place: Place) {
        self.note(kind == OpKind::Append, place);
        self.h().ops.push(Op::new(kind, key, Arg::Val(value)));
    }

    /// A read whose result is `nil` (unknown, initial, or empty).
    pub fn push_read_nil(&mut self, key: KeyId) {
        self.h().ops.push(Op::new(OpKind::Read, key, Arg::Nil));
    }

    pub fn push_read_scalar(&mut self, key: KeyId, value: Value, place: Place) {
        self.note(false, place);
        self.h().ops.push(Op::new(OpKind::Read, key, Arg::Val(value)));
    }

    /// A list read; stored as a prefix of the key's canonical list when it is one.
    pub fn push_read_list(&mut self, key: KeyId, elems: &[Value], place: Place) {
        self.note(true, place);
        let h = self.h.as_mut().expect("builder used after finish");
        let canon = &mut h.canon[key as usize];
        let common = canon.iter().zip(elems).take_while(|(a, b)| a == b).count();
        let arg = if common == elems.len() {
            Arg::Prefix(elems.len() as u32)
        } else if common == canon.len() {
            canon.extend_from_slice(&elems[common..]);
            Arg::Prefix(elems.len() as u32)
        } else {
            let start = h.elems.len() as u32;
            h.elems.extend_from_slice(elems);
            Arg::List { start, len: elems.len() as u32 }
        };
        h.ops.push(Op::new(OpKind::Read, key, arg));
    }

    /// Record where the operation pushed last is in the input. Readers that record spans call it
    /// after each push; operations pushed without one get the zero span, so that
    /// [`History::op_spans`] stays parallel to the operations.
    pub fn set_op_span(&mut self, span: Span) {
        if !self.spans.op_spans() {
            return;
        }
        let h = self.h();
        let n = h.ops.len();
        if n == 0 {
            return;
        }
        if h.op_spans.len() != n - 1 {
            h.op_spans.resize(n - 1, Span::default());
        }
        h.op_spans.push(span);
    }

    /// A predicate read of the transaction being built (after its operations, in order).
    pub fn push_predicate_read(&mut self, predicate: &str, matches: Vec<Value>) {
        let predicate = self.intern(predicate);
        let h = self.h();
        let txn = h.txns.len() as u32;
        h.predicate_reads.push(super::PredicateRead { txn, predicate, matches });
    }

    /// Close the transaction made of the operations pushed since the last one.
    pub fn finish_txn(&mut self, status: Status, meta: TxnMeta) -> u32 {
        let start = self.txn_start;
        let h = self.h.as_mut().expect("builder used after finish");
        let end = h.ops.len() as u32;
        let tid = h.txns.len() as u32;
        if self.spans.txn_spans() && (meta.span.is_some() || !h.txn_spans.is_empty()) {
            h.txn_spans.resize(tid as usize, Span::default());
            h.txn_spans.push(meta.span.unwrap_or_default());
        }
        let read_at = std::mem::take(&mut self.read_at);
        if self.spans == SpanMode::Located {
            h.ops_read_at.resize(tid as usize, ReadAt::default());
            h.ops_read_at.push(read_at);
        }
        let mut txn = Transaction::new(meta.id.unwrap_or(tid as u64), start..end, meta.line, status);
        txn.set_positions(meta.invoke_pos, meta.complete_pos);
        txn.set_timestamps(meta.start_ts, meta.commit_ts);
        txn.set_process(meta.process);
        txn.set_invoke_time(meta.invoke_time);
        txn.set_complete_time(meta.complete_time);
        txn.set_label(meta.label);
        h.txns.push(txn);
        self.txn_start = end;
        self.keep_notes();
        tid
    }

    /// Discard operations pushed since the last finished transaction.
    pub fn abandon_txn(&mut self) {
        self.read_at = ReadAt::default();
        let start = self.txn_start as usize;
        self.h().ops.truncate(start);
        self.h().op_spans.truncate(start);
        let txn = self.h().txns.len() as u32;
        let h = self.h();
        while h.predicate_reads.last().is_some_and(|p| p.txn == txn) {
            h.predicate_reads.pop();
        }
        self.txn_list = None;
        self.txn_register = None;
    }

    pub fn txn_count(&self) -> usize {
        self.h.as_ref().map_or(0, |h| h.txns.len())
    }

    /// The history, with its data model decided. Fails when list and register operations mix.
    pub fn finish(self) -> Result<History, Error> {
        self.finish_with(|p| p)
    }

    /// [`HistoryBuilder::finish`], for a reader whose places are cheap to take but not final:
    /// `place` turns one into the line and column errors show (the EDN reader counts columns in
    /// bytes while it reads, and in characters only for an error).
    pub fn finish_with(mut self, place: impl Fn(Place) -> Place) -> Result<History, Error> {
        let mut h = self.h.take().expect("builder finished twice");
        // Spans stay parallel to what they describe (empty when none was recorded).
        if !h.op_spans.is_empty() {
            h.op_spans.resize(h.ops.len(), Span::default());
        }
        if !h.txn_spans.is_empty() {
            h.txn_spans.resize(h.txns.len(), Span::default());
        }
        if !h.ops_read_at.is_empty() {
            h.ops_read_at.resize(h.txns.len(), ReadAt::default());
        }
        h.model = match (self.first_list, self.first_register) {
            (Some(l), Some(r)) => {
                let (a, b, what) = if (l.line, l.column) > (r.line, r.column) {
                    (l, r, "a list operation (append or list read)")
                } else {
                    (r, l, "a register operation (write or scalar read)")
                };
                let (a, b) = (place(a), place(b));
                return Err(Error::at(
                    ErrorKind::MixedModel,
                    a.line,
                    a.column,
                    format!(
                        "expected the same data model throughout, found {what} after the other model's first operation at line {}, column {}",
                        b.line, b.column
                    ),
                ));
            }
            (Some(_), None) => Model::ListAppend,
            (None, Some(_)) => Model::RwRegister,
            (None, None) => Model::Empty,
        };
        // Reports name transactions by id, so two with one id would make them ambiguous (a
        // history where some operations have an :index and others do not can do that). Ids
        // that rise in input order, as Jepsen's do, are unique without a sort.
        if h.txns.windows(2).all(|w| w[0].id < w[1].id) || unique_in_bitmap(&h.txns) {
            return Ok(h);
        }
        let mut ids: Vec<(u64, u32)> = h.txns.iter().map(|t| (t.id, t.line)).collect();
        crate::par::sort::sort_unstable(&mut ids);
        if let Some(w) = ids.windows(2).find(|w| w[0].0 == w[1].0) {
            let (id, (a, b)) = (w[0].0, (w[0].1, w[1].1));
            let mut e = Error::new(ErrorKind::Shape, format!("expected unique transaction ids, but two transactions have id {id}{}: give every operation an :index (or an \"id\"), or none", if a > 0 { format!(" (lines {a} and {b})") } else { String::new() }));
            if b > 0 {
                e.line = Some(b);
                e.column = Some(1);
            }
            return Err(e.with_txn(id));
        }
        Ok(h)
    }
}

/// Whether ids within a range of at most 64 times their number (as Cobra's, rising in each
/// session) are unique, told by a bitmap of at most one word a transaction instead of a sort
/// (the sort was 5% of reading Cobra's logs in the profile). `false` also when it cannot tell:
/// the sort decides, and names a repeated id.
fn unique_in_bitmap(txns: &[super::Transaction]) -> bool {
    let (min, max) = txns.iter().fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t.id), hi.max(t.id)));
    let Some(range) = max.checked_sub(min) else { return false };
    if range / 64 >= txns.len() as u64 {
        return false;
    }
    let mut seen = vec![0u64; (range / 64 + 1) as usize];
    for t in txns {
        let i = t.id - min;
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        match seen.get_mut(word) {
            Some(w) if *w & bit == 0 => *w |= bit,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{HistoryBuilder, Map, Value};

    /// The table and the map together number keys as one map would, whatever the integers:
    /// negative, huge, past the table's end before it grew there, and strings.
    #[test]
    fn key_ids_are_those_of_a_map() {
        let mut x: u64 = 7;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        let mut b = HistoryBuilder::new();
        let mut oracle: Map<Value, u32> = Map::default();
        for step in 0..400_000u64 {
            let r = next();
            let v = match r % 8 {
                0 => Value::Int(-((r % 50) as i64)),
                1 => Value::Int((r % 3) as i64 * (1 << 40)),
                2 => Value::Str((r % 40) as u32),
                // Past the table's end at first (in the map), inside it once it has grown.
                3 => Value::Int(300_000 + (r % 100) as i64),
                _ => Value::Int(step as i64),
            };
            let n = oracle.len() as u32;
            let want = *oracle.entry(v).or_insert(n);
            assert_eq!(b.key(v), want, "key {v:?} at step {step}");
        }
        let t = &b.key_index;
        assert!(t.dense.len() > 300_100 && t.map.keys().any(|v| matches!(v, Value::Int(300_000..))));
        assert!(t.dense.len() <= 8 * oracle.len(), "{} for {} keys", t.dense.len(), oracle.len());
    }

    /// Ids told unique by the bitmap are unique, and the builder's answer is the sort's: for
    /// dense ids (unique or with a repeat), sparse ones, and ids at the ends of `u64`.
    #[test]
    fn the_bitmap_tells_unique_ids_as_the_sort_does() {
        use crate::history::builder::TxnMeta;
        use crate::history::Status;
        let mut x: u64 = 11;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        for case in 0..3000u64 {
            let n = 1 + next() % 200;
            let spread = [1, 2, 64, 65, 1 << 40][(case % 5) as usize];
            let base = [0, u64::MAX - n * spread][(case / 5 % 2) as usize];
            let ids: Vec<u64> = (0..n).map(|_| base + next() % (n * spread)).collect();
            let mut b = HistoryBuilder::new();
            for &id in &ids {
                b.finish_txn(Status::Committed, TxnMeta { id: Some(id), ..Default::default() });
            }
            let mut sorted = ids.clone();
            crate::par::sort::sort_unstable(&mut sorted);
            let unique = sorted.windows(2).all(|w| w[0] != w[1]);
            assert_eq!(b.finish().is_ok(), unique, "case {case}: {ids:?}");
            let txns = HistoryBuilder::new().finish().unwrap().txns;
            assert!(!super::unique_in_bitmap(&txns));
        }
    }
}
