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
    /// The readers met, as (version number, reader, read op), in operation order.
    fn new(writes: &'w Writes, nkeys: usize, met: Vec<(u32, TxnId, u32)>) -> Self {
        let mut starts = vec![0u32; writes.len() + nkeys + 1];
        for &(i, _, _) in &met {
            starts[i as usize + 1] += 1;
        }
        crate::bucket_sort::starts_from_counts(&mut starts);
        let mut next = starts.clone();
        let mut list = vec![(0, 0); met.len()];
        for (i, t, o) in met {
            list[next[i as usize] as usize] = (t, o);
            next[i as usize] += 1;
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
    // (version number, reader, read op), in operation order.
    let mut readers: Vec<(u32, TxnId, u32)> = Vec::new();
    // (key, value first read externally, op of the transaction's last write to the key after it)
    let mut read_then_write: Vec<(KeyId, Option<Value>, u32)> = Vec::new();

    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Committed {
            continue;
        }
        let t = t as TxnId;
        let ops = &h.ops[txn.ops_start as usize..txn.ops_end as usize];
        for (i, op) in ops.iter().enumerate() {
            let o = txn.ops_start + i as u32;
            match op.kind {
                OpKind::Read => {}
                _ => continue,
            }
            let read = match op.arg {
                Arg::Val(v) => Some(v),
                _ => None,
            };
            let mut own: Option<Option<Value>> = None; // the last own write before this read
            let mut prev: Option<(u32, Option<Value>)> = None;
            for (j, p) in ops[..i].iter().enumerate() {
                if p.key != op.key {
                    continue;
                }
                let val = match p.arg {
                    Arg::Val(v) => Some(v),
                    _ => None,
                };
                if p.kind == OpKind::Write {
                    own = Some(val);
                } else if own.is_none() {
                    prev = Some((txn.ops_start + j as u32, val));
                }
            }
            if let Some(own) = own {
                if own != read {
                    cx.finding(AnomalyKind::Internal, Some(op.key), read, None, &[(t, o)]);
                }
                continue; // internal: checked, no edge
            }
            if let Some((p, pv)) = prev {
                if pv != read {
                    cx.finding(AnomalyKind::Internal, Some(op.key), read, Some((t, p)), &[(t, o)]);
                }
            } else if let Some(w) = last_write_after(ops, i, op.key) {
                read_then_write.push((op.key, read, txn.ops_start + w as u32));
            }
            let Some(v) = read else {
                if let Some(n) = Readers::initial(writes, op.key) {
                    readers.push((n, t, o));
                }
                continue;
            };
            let position = writes.position(&(op.key, v));
            match position.map(|p| writes.at(p)) {
                None => cx.finding(AnomalyKind::GarbageRead, Some(op.key), Some(v), None, &[(t, o)]),
                Some(w) if cx.status(w.txn) == Status::Aborted => {
                    cx.finding(AnomalyKind::G1a, Some(op.key), Some(v), Some((w.txn, w.op)), &[(t, o)])
                }
                Some(w) if w.txn == t => {
                    cx.finding(AnomalyKind::Internal, Some(op.key), Some(v), Some((w.txn, w.op)), &[(t, o)])
                }
                Some(w) if !w.last => {
                    cx.finding(AnomalyKind::G1b, Some(op.key), Some(v), Some((w.txn, w.op)), &[(t, o)])
                }
                Some(w) => {
                    cx.promote(w.txn);
                    if let Some(p) = position {
                        readers.push((Readers::written(op.key, p), t, o));
                    }
                }
            }
        }
    }
    // WR from each version's writer to its readers, in version order.
    let readers = Readers::new(writes, nkeys, readers);
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

fn last_write_after(ops: &[crate::history::Op], i: usize, key: KeyId) -> Option<usize> {
    (i + 1..ops.len()).rev().find(|&j| ops[j].key == key && ops[j].kind == OpKind::Write)
}

fn rw_from(cx: &mut Ctx, readers: &Readers, version: Version, to_op: u32) {
    for (_, o) in readers.get(version) {
        cx.edge(EdgeType::Rw, o, to_op);
    }
}

fn with_order(cx: &mut Ctx, writes: &Writes, readers: &Readers, vo: &crate::history::VersionOrder) {
    let mut listed: Set<(KeyId, Value)> = Set::default();
    let mut keys: Vec<&KeyId> = vo.per_key.keys().collect();
    keys.sort_unstable();
    for &k in &keys {
        for &v in &vo.per_key[k] {
            if let Some(w) = writes.get(&(*k, v)) {
                cx.promote(w.txn); // the log lists only committed writes
            }
        }
    }
    for &k in keys {
        let mut prev: Option<(Value, WriteInfo)> = None;
        for &v in &vo.per_key[&k] {
            let Some(w) = writes.get(&(k, v)) else {
                continue;
            };
            if !w.last || !cx.is_vertex[w.txn as usize] || !listed.insert((k, v)) {
                continue; // intermediate writes are not versions
            }
            rw_from(cx, readers, (k, prev.map(|p| p.0)), w.op);
            if let Some((_, pw)) = prev {
                cx.edge(EdgeType::Ww, pw.op, w.op);
            }
            prev = Some((v, w));
        }
    }
    let missing =
        writes.iter().filter(|(kv, w)| w.last && cx.is_vertex[w.txn as usize] && !listed.contains(kv)).count();
    if missing > 0 {
        cx.notes.push(format!(
            "{missing} committed writes are absent from the version order; they are left unordered (no WW or RW edges to them)"
        ));
    }
}

fn without_order(cx: &mut Ctx, writes: &Writes, readers: &Readers, read_then_write: &[(KeyId, Option<Value>, u32)]) {
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
        run.sort_unstable();
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

/// The distinct (reader, writer) pairs the RW edges of `after` would join, counted a reader at
/// a time: the initial value's readers times a key's first writers run to millions of pairs
/// (8.9M on AWDIT's 200k-transaction history), too many to list only to count them.
fn count_rw(cx: &Ctx, readers: &Readers, after: &[(Version, u32)]) -> usize {
    // Each version's writers that follow it, as vertices: (version, writer txn).
    let mut next: Vec<(Version, TxnId)> =
        after.iter().map(|&(v, op)| (v, cx.index.txn_of(op))).filter(|&(_, t)| cx.is_vertex[t as usize]).collect();
    next.sort_unstable();
    let mut reads: Vec<(TxnId, u32, u32)> = Vec::new(); // (reader, range of `next`)
    let mut i = 0;
    while i < next.len() {
        let version = next[i].0;
        let j = i + next[i..].partition_point(|a| a.0 == version);
        reads.extend(readers.get(version).map(|(t, _)| (t, i as u32, j as u32)));
        i = j;
    }
    reads.sort_unstable();
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
