//! Read-write register inference.
//!
//! With a version order (a write-ahead log; GRAIL thesis Appendix D, Algorithm 15): WW between
//! consecutive versions, RW from the readers of a version (the initial `nil` included) to the
//! writer of the next. A version is a transaction's last write to a key; earlier writes are
//! intermediate, and reading one is G1b. Without a version order only what is sure is drawn: the
//! initial value precedes every version, and a transaction that read v1 and then wrote v2 puts
//! v1 before v2. Such edges may skip versions in between; that keeps every cycle found real
//! (it stands for a longer real cycle with the same RW count and adjacency), but can miss some.

use super::{Ctx, WriteInfo, Writes};
use crate::anomaly::AnomalyKind;
use crate::graph::EdgeType;
use crate::hash::Set;
use crate::history::{Arg, History, KeyId, OpKind, Status, TxnId, Value};

/// Each version's external readers, as (reader, read op) in operation order: one flat list where
/// a map of lists cost an allocation per version. Versions are numbered in their order (key by
/// key, the initial value first, then the written values as [`Writes`] orders them), and the
/// readers, met in operation order, are counted into place, in the order a sort of (version,
/// reader, op) gave. That sort, with each version's write looked up again, made RC's build on
/// AWDIT's 200k history 1.54 G instructions on one thread; counted, 1.00 G.
struct Readers<'w> {
    writes: &'w Writes,
    /// `list[starts[i]..starts[i + 1]]`: version i's readers.
    starts: Vec<u32>,
    list: Vec<(TxnId, u32)>,
}

impl<'w> Readers<'w> {
    /// The reads met, in operation order (those of no version left out).
    fn new(writes: &'w Writes, nkeys: usize, met: &[Scanned]) -> Self {
        let met = || met.iter().filter(|r| r.number != NO_VERSION);
        let mut starts = vec![0u32; writes.len() + nkeys + 1];
        for r in met() {
            starts[r.number as usize + 1] += 1;
        }
        crate::bucket_sort::starts_from_counts(&mut starts);
        let mut next = starts.clone();
        let mut list = vec![(0, 0); starts.last().map_or(0, |&n| n as usize)];
        for r in met() {
            list[next[r.number as usize] as usize] = (r.t, r.o);
            next[r.number as usize] += 1;
        }
        Readers { writes, starts, list }
    }

    /// The number of key `k`'s initial version.
    fn initial(writes: &Writes, k: KeyId) -> Option<u32> {
        Some((writes.positions(k)?.start + k as usize) as u32)
    }

    /// The number of the version a write installs, from its [`Writes::position`].
    fn written(k: KeyId, position: usize) -> u32 {
        (position + k as usize + 1) as u32
    }

    fn number(&self, (k, v): Version) -> Option<u32> {
        match v {
            None => Self::initial(self.writes, k),
            Some(v) => self.writes.position(&(k, v)).map(|p| Self::written(k, p)),
        }
    }

    fn of(&self, number: u32) -> &[(TxnId, u32)] {
        crate::bucket_sort::bucket(&self.list, &self.starts, number as usize)
    }

    fn get(&self, version: Version) -> impl Iterator<Item = (TxnId, u32)> + '_ {
        self.number(version).map_or(&[][..], |n| self.of(n)).iter().copied()
    }
}

pub(crate) fn infer(h: &History, cx: &mut Ctx) {
    let index = cx.index;
    let writes = &index.writes;
    let nkeys = h.keys.len();
    let (readers, read_then_write) = scan_reads(h, cx);
    // WR from each version's writer to its readers, in version order.
    let readers = Readers::new(writes, nkeys, &readers);
    for k in 0..nkeys as KeyId {
        for p in writes.positions(k).unwrap_or(0..0) {
            let w = writes.at(p);
            for &(_, o) in readers.of(Readers::written(k, p)) {
                cx.edge(EdgeType::Wr, w.op, o);
            }
        }
    }
    match &h.version_order {
        Some(vo) => with_order(cx, writes, &readers, vo),
        None => without_order(cx, writes, &readers, &read_then_write),
    }
}

/// A committed read as the scan leaves it: the version it read (its number, [`NO_VERSION`] when
/// no edge comes of it), the reader and the read.
#[derive(Debug, Clone, Copy, Default)]
struct Scanned {
    number: u32,
    t: TxnId,
    o: u32,
}

const NO_VERSION: u32 = u32::MAX;

/// What the scan of one range of transactions found besides its reads: findings (in a fork of
/// the context, made at the first), reads followed by a write of their key, and the
/// indeterminate writers read from (promoted once the ranges are done: nothing in the scan
/// looks at which transactions are vertices).
#[derive(Default)]
struct RangeOut<'h> {
    fork: Option<Ctx<'h>>,
    read_then_write: Vec<ReadThenWrite>,
    promote: Vec<TxnId>,
}

/// Every committed read checked against its transaction's own operations and looked up among
/// the writes: each read's version, in operation order, and the reads followed by a write of
/// their key. Ranges of transactions on the pool, each writing its reads into its own slice of
/// one vector and gathering the rest in range order, so that the result is the one of a single
/// pass: on AWDIT's 200k history this scan, a binary search and a cache miss or two a read, was
/// half of RC's profile on one thread.
fn scan_reads(h: &History, cx: &mut Ctx) -> (Vec<Scanned>, Vec<ReadThenWrite>) {
    let base: &Ctx = cx;
    let (all, outs) = crate::par::fill_ranges(
        h.txns.len(),
        crate::history::index::PARALLEL_TXNS,
        |txns| super::committed_reads(h, txns),
        |txns, slots| {
            let mut out = RangeOut::default();
            let mut slots = slots.iter_mut();
            for t in txns {
                if h.txns[t].status != Status::Committed {
                    continue;
                }
                let range = h.op_range(t as TxnId);
                let ops = &h.ops[range.clone()];
                for (i, op) in ops.iter().enumerate() {
                    if op.kind() == OpKind::Read {
                        let read = scan_read(h, base, &mut out, t as TxnId, range.start as u32, ops, i);
                        if let Some(slot) = slots.next() {
                            *slot = read;
                        }
                    }
                }
            }
            out
        },
    );
    let mut read_then_write = Vec::new();
    for out in outs {
        if let Some(f) = out.fork {
            cx.findings.extend(f.findings);
        }
        read_then_write.extend(out.read_then_write);
        for t in out.promote {
            cx.promote(t);
        }
    }
    (all, read_then_write)
}

/// Check the read `ops[i]` of committed transaction `t` (whose first operation is `start`)
/// against the transaction's earlier operations on its key and against the writes.
fn scan_read<'h>(
    h: &History,
    base: &Ctx<'h>,
    out: &mut RangeOut<'h>,
    t: TxnId,
    start: u32,
    ops: &[crate::history::Op],
    i: usize,
) -> Scanned {
    let writes = &base.index.writes;
    let op = ops[i];
    let o = start + i as u32;
    let none = Scanned { number: NO_VERSION, t, o };
    let mut finding = |kind, value, writer| {
        let cx = out.fork.get_or_insert_with(|| base.fork_findings());
        cx.finding(kind, Some(op.key), value, writer, &[(t, o)]);
    };
    let read = match op.arg() {
        Arg::Val(v) => Some(v),
        _ => None,
    };
    let mut own: Option<Option<Value>> = None; // the last own write before this read
    let mut prev: Option<(u32, Option<Value>)> = None;
    for (j, p) in ops[..i].iter().enumerate() {
        if p.key != op.key {
            continue;
        }
        let val = match p.arg() {
            Arg::Val(v) => Some(v),
            _ => None,
        };
        if p.kind() == OpKind::Write {
            own = Some(val);
        } else if own.is_none() {
            prev = Some((start + j as u32, val));
        }
    }
    if let Some(own) = own {
        if own != read {
            finding(AnomalyKind::Internal, read, None);
        }
        return none; // internal: checked, no edge
    }
    if let Some((p, pv)) = prev {
        if pv != read {
            finding(AnomalyKind::Internal, read, Some((t, p)));
        }
    } else if let Some(w) = last_write_after(ops, i, op.key) {
        out.read_then_write.push((op.key, read, start + w as u32));
    }
    let Some(v) = read else {
        let number = Readers::initial(writes, op.key).unwrap_or(NO_VERSION);
        return Scanned { number, t, o };
    };
    let Some(position) = writes.position(&(op.key, v)) else {
        finding(AnomalyKind::GarbageRead, Some(v), None);
        return none;
    };
    let w = writes.at(position);
    match h.txns[w.txn as usize].status {
        Status::Aborted => finding(AnomalyKind::G1a, Some(v), Some((w.txn, w.op))),
        _ if w.txn == t => finding(AnomalyKind::Internal, Some(v), Some((w.txn, w.op))),
        _ if !w.last => finding(AnomalyKind::G1b, Some(v), Some((w.txn, w.op))),
        status => {
            if status == Status::Indeterminate {
                out.promote.push(w.txn);
            }
            return Scanned { number: Readers::written(op.key, position), t, o };
        }
    }
    none
}

fn last_write_after(ops: &[crate::history::Op], i: usize, key: KeyId) -> Option<usize> {
    (i + 1..ops.len()).rev().find(|&j| ops[j].key == key && ops[j].kind() == OpKind::Write)
}

fn rw_from(cx: &mut Ctx, readers: &Readers, version: Version, to_op: u32) {
    for (_, o) in readers.get(version) {
        cx.edge(EdgeType::Rw, o, to_op);
    }
}

fn with_order(cx: &mut Ctx, writes: &Writes, readers: &Readers, vo: &crate::history::VersionOrder) {
    // Which writes the log lists, by their place among the writes: a set of (key, value) pairs
    // took a fifth of a 1M-transaction native history's time.
    let mut listed = vec![false; writes.len()];
    let mut keys: Vec<&KeyId> = vo.per_key.keys().collect();
    crate::par::sort::sort_unstable(&mut keys);
    // Each version's write, looked up once: (key, value, its place among the writes, u32::MAX
    // when nobody wrote it; writes are operations, which u32 numbers).
    let place = |k, v| writes.position(&(k, v)).map_or(u32::MAX, |i| i as u32);
    let versions: Vec<(KeyId, Value, u32)> =
        keys.iter().flat_map(|&&k| vo.per_key[&k].iter().map(move |&v| (k, v, place(k, v)))).collect();
    for &(_, _, i) in versions.iter().filter(|x| x.2 != u32::MAX) {
        cx.promote(writes.at(i as usize).txn); // the log lists only committed writes
    }
    for run in versions.chunk_by(|a, b| a.0 == b.0) {
        let mut prev: Option<(Value, WriteInfo)> = None;
        for &(k, v, i) in run.iter().filter(|x| x.2 != u32::MAX) {
            let i = i as usize;
            let w = writes.at(i);
            if !w.last || !cx.is_vertex[w.txn as usize] || std::mem::replace(&mut listed[i], true) {
                continue; // intermediate writes are not versions
            }
            rw_from(cx, readers, (k, prev.map(|p| p.0)), w.op);
            if let Some((_, pw)) = prev {
                cx.edge(EdgeType::Ww, pw.op, w.op);
            }
            prev = Some((v, w));
        }
    }
    let missing = (0..writes.len())
        .filter(|&i| !listed[i])
        .map(|i| writes.at(i))
        .filter(|w| w.last && cx.is_vertex[w.txn as usize])
        .count();
    if missing > 0 {
        cx.notes.push(format!(
            "{missing} committed writes are absent from the version order; they are left unordered (no WW or RW edges to them)"
        ));
    }
}

fn without_order(cx: &mut Ctx, writes: &Writes, readers: &Readers, read_then_write: &[ReadThenWrite]) {
    // Each version and a write sure to follow it: RW from the version's readers to that write.
    let mut after: Vec<(Version, u32)> = Vec::new();
    let mut has_pred: Set<u32> = Set::default();
    for &(k, v1, wop) in read_then_write {
        let Some(v1) = v1 else { continue };
        if let Some(w1) = writes.get(&(k, v1)).filter(|w| w.last) {
            has_pred.insert(wop);
            cx.edge(EdgeType::Ww, w1.op, wop);
            after.push(((k, Some(v1)), wop));
        }
    }
    let mut firsts: Vec<(KeyId, u32)> = writes
        .iter()
        .filter(|(_, w)| w.last && cx.is_vertex[w.txn as usize] && !has_pred.contains(&w.op))
        .map(|((k, _), w)| (k, w.op))
        .collect();
    // Key by key already (as the writes are): each key's by operation.
    for run in firsts.chunk_by_mut(|a, b| a.0 == b.0) {
        crate::par::sort::sort_unstable(run);
    }
    after.extend(firsts.into_iter().map(|(k, op)| ((k, None), op)));
    if cx.counts_rw() {
        let n = count_rw(cx, readers, &after);
        cx.rw_counted(n);
    } else {
        for (version, op) in after {
            rw_from(cx, readers, version, op);
        }
    }
}

type Version = (KeyId, Option<Value>);

/// A read followed by a write of its key in its transaction: (key, value read, the
/// transaction's last write to the key).
type ReadThenWrite = (KeyId, Option<Value>, u32);

/// The distinct (reader, writer) pairs the RW edges of `after` would join, counted a reader at
/// a time: the initial value's readers times a key's first writers run to millions of pairs
/// (8.9M on AWDIT's 200k-transaction history), too many to list only to count them.
fn count_rw(cx: &Ctx, readers: &Readers, after: &[(Version, u32)]) -> usize {
    // Each version's writers that follow it, as vertices: (version, writer txn).
    let mut next: Vec<(Version, TxnId)> =
        after.iter().map(|&(v, op)| (v, cx.index.txn_of(op))).filter(|&(_, t)| cx.is_vertex[t as usize]).collect();
    crate::par::sort::sort_unstable(&mut next);
    let mut reads: Vec<(TxnId, u32, u32)> = Vec::new(); // (reader, range of `next`)
    let mut i = 0;
    while i < next.len() {
        let version = next[i].0;
        let j = i + next[i..].partition_point(|a| a.0 == version);
        reads.extend(readers.get(version).map(|(t, _)| (t, i as u32, j as u32)));
        i = j;
    }
    crate::par::sort::sort_unstable(&mut reads);
    // Distinct targets of a reader by stamping them with the reader: no sort of the targets.
    let mut stamp = vec![TxnId::MAX; cx.is_vertex.len()];
    let mut count = 0;
    for &(t, a, b) in &reads {
        if !cx.is_vertex[t as usize] {
            continue;
        }
        for &(_, to) in &next[a as usize..b as usize] {
            if to != t && stamp[to as usize] != t {
                stamp[to as usize] = t;
                count += 1;
            }
        }
    }
    count
}
