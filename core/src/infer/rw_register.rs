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
use crate::hash::{Map, Set};
use crate::history::{Arg, History, KeyId, OpKind, Status, TxnId, Value};

type Readers = Map<(KeyId, Option<Value>), Vec<(TxnId, u32)>>;

pub(crate) fn infer(h: &History, cx: &mut Ctx) {
    let index = cx.index;
    let writes = &index.writes;
    let mut readers: Readers = Map::default();
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
                readers.entry((op.key, None)).or_default().push((t, o));
                continue;
            };
            match writes.get(&(op.key, v)) {
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
                    readers.entry((op.key, Some(v))).or_default().push((t, o));
                }
            }
        }
    }
    // WR from each version's writer to its readers.
    let mut keys: Vec<&(KeyId, Option<Value>)> = readers.keys().collect();
    keys.sort_unstable();
    for &(k, v) in keys {
        let Some(v) = v else { continue };
        if let Some(w) = writes.get(&(k, v)) {
            for &(_, o) in &readers[&(k, Some(v))] {
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

fn rw_from(cx: &mut Ctx, readers: &Readers, version: (KeyId, Option<Value>), to_op: u32) {
    if let Some(rs) = readers.get(&version) {
        for &(_, o) in rs {
            cx.edge(EdgeType::Rw, o, to_op);
        }
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
            let Some(&w) = writes.get(&(k, v)) else {
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
    let mut has_pred: Set<u32> = Set::default();
    for &(k, v1, wop) in read_then_write {
        let Some(v1) = v1 else { continue };
        if let Some(w1) = writes.get(&(k, v1)).filter(|w| w.last) {
            has_pred.insert(wop);
            cx.edge(EdgeType::Ww, w1.op, wop);
            rw_from(cx, readers, (k, Some(v1)), wop);
        }
    }
    let mut firsts: Vec<(KeyId, u32)> = writes
        .iter()
        .filter(|(_, w)| w.last && cx.is_vertex[w.txn as usize] && !has_pred.contains(&w.op))
        .map(|(&(k, _), w)| (k, w.op))
        .collect();
    firsts.sort_unstable();
    for (k, op) in firsts {
        rw_from(cx, readers, (k, None), op);
    }
}
