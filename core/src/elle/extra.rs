//! The anomalies Elle finds without a cycle search and grail's inference does not name: lost
//! updates (Elle's `elle/txn.clj`, `lost-update-cases`), dirty updates and duplicate elements
//! (`elle/list_append.clj`), and the state an internal read was expected to see
//! (`op-int-case`).

use super::explain::value_j;
use super::json::J;
use crate::hash::Map;
use crate::history::{Arg, History, Model, OpKind, Status, TxnId, Value};

/// What a read returned, comparable: a list's elements, or a register's value (None for nil).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Read {
    List(Vec<Value>),
    Reg(Option<Value>),
}

impl Read {
    fn of(h: &History, o: u32) -> Read {
        let op = &h.ops[o as usize];
        match (h.model, op.arg()) {
            (Model::RwRegister, Arg::Nil) => Read::Reg(None),
            (_, Arg::Val(v)) => Read::Reg(Some(v)),
            _ => Read::List(h.list(op).to_vec()),
        }
    }

    pub fn to_j(&self, h: &History) -> J {
        match self {
            Read::List(l) => J::Arr(l.iter().map(|&v| value_j(h, v)).collect()),
            Read::Reg(None) => J::Null,
            Read::Reg(Some(v)) => value_j(h, *v),
        }
    }
}

/// A lost update: committed transactions that read the same version of a key and all wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostUpdate {
    pub key: u32,
    pub value: Read,
    pub txns: Vec<TxnId>,
}

/// Elle's `lost-update-cases`: for each committed transaction, its first (external) read of a
/// key, if it later writes that key; two or more transactions on one (key, value) are a lost
/// update. Linear in the history.
pub fn lost_updates(h: &History) -> Vec<LostUpdate> {
    let mut by: Map<(u32, Read), Vec<TxnId>> = Map::default();
    let mut reads: Map<u32, Read> = Map::default();
    let mut writes: Vec<u32> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Committed {
            continue;
        }
        reads.clear();
        writes.clear();
        for o in txn.ops_start..txn.ops_end {
            let op = &h.ops[o as usize];
            if op.kind() == OpKind::Read {
                reads.entry(op.key).or_insert_with(|| Read::of(h, o));
            } else if !writes.contains(&{ op.key }) {
                writes.push(op.key);
                if let Some(r) = reads.get(&{ op.key }) {
                    by.entry((op.key, r.clone())).or_default().push(t as TxnId);
                }
            }
        }
    }
    let mut out: Vec<LostUpdate> = by
        .into_iter()
        .filter(|(_, ts)| ts.len() > 1)
        .map(|((key, value), txns)| LostUpdate { key, value, txns })
        .collect();
    crate::par::sort::sort_by(&mut out, |a, b| (a.txns[0], a.key).cmp(&(b.txns[0], b.key)));
    out
}

/// A dirty update: in a key's version order, a committed append right after aborted ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirtyUpdate {
    pub key: u32,
    /// The versions from the first aborted append to the committed one.
    pub values: Vec<Value>,
    /// The first aborted writer and the committed one.
    pub txns: (TxnId, TxnId),
}

/// Elle's `dirty-update-cases` (list-append): walk each key's version order (its longest read)
/// and report every committed append that follows an aborted one.
pub fn dirty_updates(h: &History) -> Vec<DirtyUpdate> {
    if h.model != Model::ListAppend {
        return Vec::new();
    }
    let mut writer: Map<(u32, Value), TxnId> = Map::default();
    for (t, txn) in h.txns.iter().enumerate() {
        for o in txn.ops_start..txn.ops_end {
            let op = &h.ops[o as usize];
            if let (OpKind::Append, Arg::Val(v)) = (op.kind(), op.arg()) {
                writer.entry((op.key, v)).or_insert(t as TxnId);
            }
        }
    }
    let mut out = Vec::new();
    for (k, order) in h.canon.iter().enumerate() {
        let k = k as u32;
        // (first aborted writer, versions since it) while the state is aborted.
        let mut dirty: Option<(TxnId, Vec<Value>)> = None;
        for &v in order {
            let Some(&t) = writer.get(&(k, v)) else { continue };
            match (h.txns[t as usize].status, dirty.as_mut()) {
                (Status::Aborted, None) => dirty = Some((t, vec![v])),
                (Status::Aborted, Some((_, vs))) => vs.push(v),
                (Status::Committed, Some(_)) => {
                    if let Some((t1, mut vs)) = dirty.take() {
                        vs.push(v);
                        out.push(DirtyUpdate { key: k, values: vs, txns: (t1, t) });
                    }
                }
                (Status::Committed, None) => {}
                (Status::Indeterminate, Some((_, vs))) => vs.push(v),
                (Status::Indeterminate, None) => {}
            }
        }
    }
    out
}

/// A list read that holds an element more than once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicates {
    pub txn: TxnId,
    pub op: u32,
    /// Each repeated element and how often it appears.
    pub counts: Vec<(Value, usize)>,
}

/// Elle's `duplicates` (list-append): reads of committed or indeterminate transactions with a
/// repeated element.
pub fn duplicate_elements(h: &History) -> Vec<Duplicates> {
    if h.model != Model::ListAppend {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut sorted: Vec<Value> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status == Status::Aborted {
            continue;
        }
        for o in txn.ops_start..txn.ops_end {
            let op = &h.ops[o as usize];
            if op.kind() != OpKind::Read {
                continue;
            }
            sorted.clear();
            sorted.extend_from_slice(h.list(op));
            crate::par::sort::sort_unstable(&mut sorted);
            let mut counts: Vec<(Value, usize)> = Vec::new();
            for w in sorted.chunk_by(|a, b| a == b) {
                if w.len() > 1 {
                    counts.push((w[0], w.len()));
                }
            }
            if !counts.is_empty() {
                out.push(Duplicates { txn: t as TxnId, op: o, counts });
            }
        }
    }
    out
}

/// The state a transaction's own earlier operations on the read's key lead it to expect, as
/// Elle's `op-int-case` computes it: a list whose unknown prefix is `"..."`, or a register value.
pub fn expected_state(h: &History, t: crate::history::TxnId, read_op: u32) -> J {
    let Some(read) = h.ops.get(read_op as usize) else { return J::Null };
    let start = h.txns.get(t as usize).map_or(read_op, |x| x.ops_start);
    let mut state: Option<J> = None;
    for o in start..read_op {
        let op = &h.ops[o as usize];
        if op.key != read.key {
            continue;
        }
        state = Some(match (op.kind(), op.arg()) {
            (OpKind::Append, Arg::Val(v)) => {
                let mut items = match state.take() {
                    Some(J::Arr(items)) => items,
                    _ => vec![J::str("...")],
                };
                items.push(value_j(h, v));
                J::Arr(items)
            }
            (OpKind::Write, Arg::Val(v)) => value_j(h, v),
            (OpKind::Read, _) => Read::of(h, o).to_j(h),
            _ => J::Null,
        });
    }
    state.unwrap_or(J::Null)
}

impl Read {
    /// What the read operation `o` returned, as JSON.
    pub fn of_op(h: &History, o: u32) -> J {
        Read::of(h, o).to_j(h)
    }
}
