//! The edges a witness must respect, from the inference: its dependency edges, the session and
//! real-time orders, and the version orders it leaves open (list appends no read observed;
//! every key of a register history without a version order), completed by a first order of
//! the transactions as PolySI's and grail's first guess does ([`crate::polygraph`]'s `chain`).

use crate::graph::{orders, EdgeType};
use crate::hash::Map;
use crate::history::{Arg, History, KeyId, Model, OpKind, Status, TxnId};
use crate::infer::Inference;

/// Edges between transactions: `dep` are followed by the reader's start (ww, wr, session,
/// real time), `rw` only by the writer's commit.
#[derive(Debug, Clone, Default)]
pub struct Edges {
    pub dep: Vec<(TxnId, TxnId)>,
    pub rw: Vec<(TxnId, TxnId)>,
    /// The WW edges among `dep` (PL-1's graph).
    pub ww: Vec<(TxnId, TxnId)>,
}

/// One key's versions whose order the history leaves open, with their external readers.
#[derive(Debug, Default)]
pub struct OpenKey {
    pub writers: Vec<TxnId>,
    pub readers: Vec<Vec<TxnId>>,
    /// Readers of the initial value (registers) or of the last observed version (lists): each
    /// precedes every open version.
    pub before: Vec<TxnId>,
    /// The writer of the last observed version (lists), which precedes every open one.
    pub after: Option<TxnId>,
}

/// The inference's dependency edges between vertices.
pub fn dependencies(inf: &Inference) -> Edges {
    let g = &inf.graph;
    let mut e = Edges::default();
    let (dep_bits, rw_bit) = (EdgeType::Ww.bit() | EdgeType::Wr.bit(), EdgeType::Rw.bit());
    for v in 0..g.is_vertex.len() as TxnId {
        if !g.is_vertex[v as usize] {
            continue;
        }
        for s in g.out(v) {
            let (to, mask) = ({ s.to }, { s.mask });
            if !g.is_vertex.get(to as usize).copied().unwrap_or(false) {
                continue;
            }
            if mask & dep_bits != 0 {
                e.dep.push((v, to));
            }
            if mask & EdgeType::Ww.bit() != 0 {
                e.ww.push((v, to));
            }
            if mask & rw_bit != 0 {
                e.rw.push((v, to));
            }
        }
    }
    e
}

/// Session order between vertices (each to the next of its process).
pub fn session(h: &History, is_vertex: &[bool]) -> Vec<(TxnId, TxnId)> {
    orders::session_edges(h, is_vertex).0.iter().map(|e| (e.from, e.to)).collect()
}

/// Real-time order between vertices, reduced.
pub fn realtime(h: &History, is_vertex: &[bool]) -> Vec<(TxnId, TxnId)> {
    orders::realtime_edges(h, is_vertex).0.iter().map(|e| (e.from, e.to)).collect()
}

/// Each vertex's place in its session (its index when it has no process): the first order
/// runs sessions side by side, as they ran.
pub fn session_rank(h: &History, is_vertex: &[bool]) -> Vec<u32> {
    let mut rank: Vec<u32> = (0..h.txns.len() as u32).collect();
    let mut last: Option<(i64, u32)> = None;
    for (p, t) in orders::in_session_order(h, is_vertex) {
        let r = match last {
            Some((q, r)) if q == p => r + 1,
            _ => 0,
        };
        rank[t as usize] = r;
        last = Some((p, r));
    }
    rank
}

/// The keys whose version order is open: every key of a register history without a version
/// order, and the appends no read observed of a list key with two or more of them.
pub fn open_keys(h: &History, inf: &Inference) -> Vec<OpenKey> {
    let isv = &inf.graph.is_vertex;
    let vertex = |t: TxnId| isv.get(t as usize).copied().unwrap_or(false);
    match h.model {
        Model::ListAppend => {
            let mut by_key: Map<KeyId, OpenKey> = Map::default();
            for &(k, t) in &inf.open_appends {
                let ok = by_key.entry(k).or_default();
                ok.writers.push(t);
                ok.readers.push(Vec::new());
            }
            // Their predecessors (the last observed writer, the readers of the whole order) are
            // edges of the inference already: a chain among them is all that is missing.
            by_key.into_values().collect()
        }
        Model::RwRegister if h.version_order.is_none() => {
            let mut keys: Vec<OpenKey> = (0..h.keys.len()).map(|_| OpenKey::default()).collect();
            let mut at: Map<u32, (KeyId, usize)> = Map::default();
            for ((k, _), w) in inf.index.writes.iter() {
                if w.last && vertex(w.txn) {
                    if let Some(ok) = keys.get_mut(k as usize) {
                        at.insert(w.op, (k, ok.writers.len()));
                        ok.writers.push(w.txn);
                        ok.readers.push(Vec::new());
                    }
                }
            }
            for &(r, w) in inf.reads_from.as_deref().unwrap_or(&[]) {
                if let Some(&(k, i)) = at.get(&w) {
                    keys[k as usize].readers[i].push(inf.index.txn_of(r));
                }
            }
            for (t, txn) in h.txns.iter().enumerate() {
                if txn.status != Status::Committed || !vertex(t as TxnId) {
                    continue;
                }
                for o in h.external_reads(t as TxnId) {
                    let op = h.ops[o as usize];
                    let initial = match op.arg() {
                        Arg::Nil => true,
                        Arg::Val(v) => h.initial_open && inf.index.writes.get(&(op.key, v)).is_none(),
                        _ => false,
                    };
                    if op.kind() == OpKind::Read && initial {
                        if let Some(ok) = keys.get_mut(op.key as usize) {
                            ok.before.push(t as TxnId);
                        }
                    }
                }
            }
            keys.retain(|k| !k.writers.is_empty());
            keys
        }
        Model::RwRegister | Model::Empty => Vec::new(),
    }
}

/// The edges that order each open key's versions as `pos` orders their writers: WW between
/// consecutive versions, RW from a version's readers to the next one's writer, and from the
/// readers before every open version to the first.
pub fn version_edges(keys: &[OpenKey], pos: &[u32], out: &mut Edges) {
    version_edges_by(keys, &mut |k: &OpenKey| by_position(k, pos), out)
}

/// A key's versions (indices into its writers) as `pos` orders their writers.
pub fn by_position(k: &OpenKey, pos: &[u32]) -> Vec<usize> {
    let at = |t: TxnId| pos.get(t as usize).copied().unwrap_or(u32::MAX);
    let mut vs: Vec<usize> = (0..k.writers.len()).collect();
    vs.sort_by_key(|&i| (at(k.writers[i]), k.writers[i]));
    vs
}

/// [`version_edges`] with each key's order of versions given.
pub fn version_edges_by(keys: &[OpenKey], order: &mut dyn FnMut(&OpenKey) -> Vec<usize>, out: &mut Edges) {
    for k in keys {
        let vs = order(k);
        if let Some(&first) = vs.first() {
            let w = k.writers[first];
            out.rw.extend(k.before.iter().filter(|&&r| r != w).map(|&r| (r, w)));
            out.dep.extend(k.after.filter(|&a| a != w).map(|a| (a, w)));
        }
        for pair in vs.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let wb = k.writers[b];
            out.dep.push((k.writers[a], wb));
            out.rw.extend(k.readers[a].iter().filter(|&&r| r != wb).map(|&r| (r, wb)));
        }
    }
}
