//! The generalized polygraph of a register history without a version order (PolySI, Def. 9).
//!
//! Known edges: WR (writer to reader), SO (consecutive transactions of one session) or RT
//! (real-time order), when a level's cycles may use them, and RW from
//! each reader of a key's initial value to every writer of the key (the initial value precedes
//! every version). Per key, each pair of versions `a`, `b` is one constraint: either `a` before
//! `b` (WW a->b, and RW from every reader of `a` to `b`) or `b` before `a` (symmetrically). The
//! RW edges ride along with the WW edge they follow from, which is what makes the encoding
//! compact (PolySI 4.4): one boolean per constraint, never one per RW edge.
//!
//! Compaction (PolySI 4.2; Cobra's "combining writes", Tan et al., OSDI 2020, 4.2): when a
//! transaction reads a version of a key and writes the key (read-modify-write), and no other
//! writer read that version, its version comes right after the one it read in every version
//! order without a lost update: a third version between them would close the cycle
//! `reader -rw-> third -ww-> reader`, which SER, SI and PSI all forbid. Such versions form one
//! chain, whose WW and RW edges are known; a constraint is then a pair of chains of a key, the
//! last version of one before the first of the other. PL-2 and PL-1 allow lost updates, so
//! their polygraph keeps every version a chain of its own.

use super::graph::Mode;
use crate::graph::orders::Order;
use crate::graph::{Edge, EdgeType};
use crate::hash::Map;
use crate::history::{Arg, History, KeyId, OpKind, Status, TxnId};
use crate::infer::Inference;

/// One version of a key: the last write of a committed transaction to it, and its readers.
#[derive(Debug, Clone)]
pub struct Version {
    pub txn: TxnId,
    pub op: u32,
    /// External reads of this version: (reader, read op).
    pub readers: Vec<(TxnId, u32)>,
}

#[derive(Debug, Clone)]
pub struct KeyInfo {
    pub key: KeyId,
    /// Versions, each chain's together and in its order.
    pub versions: Vec<Version>,
    /// Where each chain ends in `versions` (exclusive); chain `i` starts where `i - 1` ends.
    pub chain_ends: Vec<u32>,
    /// External reads of the initial value.
    pub initial_readers: Vec<(TxnId, u32)>,
}

/// Either chain `a` before chain `b` of key `keys[key]` or the reverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constraint {
    pub key: u32,
    pub a: u32,
    pub b: u32,
}

/// The generalized polygraph: known edges and constraints (PolySI Def. 9).
#[derive(Debug, Clone)]
pub struct Polygraph {
    /// Transactions (vertices are those with `is_vertex`).
    pub n: usize,
    pub known: Vec<Edge>,
    pub keys: Vec<KeyInfo>,
    /// Every pair of versions of a key, unless there are more than the limit given to
    /// [`build`]: then none (see `pairs`).
    pub cons: Vec<Constraint>,
    /// How many constraints the polygraph has (materialized in `cons` or not).
    pub pairs: u64,
    /// How many it would have without compaction (pairs of versions of a key).
    pub version_pairs: u64,
    /// Whether read-modify-write chains were compacted (only for levels without lost updates).
    pub compact: bool,
    /// The most constraints [`build`] was allowed to materialize.
    pub limit: u64,
    /// Each transaction's place in its session (its index when it has none): the first guess
    /// of a version order runs sessions side by side by it ([`super::chain`]).
    pub rank: Vec<u32>,
    /// Session order when it is not among the known edges: a resolution acyclic with it is
    /// acyclic without it, so the search tries it first ([`super::decide_with`]).
    pub session: Vec<Edge>,
    /// Known edges that rest on an order of versions a caller assumed
    /// ([`Inference::assumed_order`]), with the assumption's name: certain to the search, not
    /// to the explanation.
    pub assumed: Vec<(Edge, &'static str)>,
}

impl KeyInfo {
    /// The versions of chain `i`, in order.
    pub fn chain(&self, i: u32) -> &[Version] {
        let end = self.chain_ends.get(i as usize).map_or(0, |&e| e as usize);
        let start = if i == 0 { 0 } else { self.chain_ends.get(i as usize - 1).map_or(end, |&e| e as usize) };
        &self.versions[start.min(end)..end]
    }
}

impl Polygraph {
    /// The assumption an edge among the known ones rests on, if any.
    pub fn assumption(&self, e: &Edge) -> Option<&'static str> {
        self.assumed.iter().find(|(a, _)| a == e).map(|&(_, s)| s)
    }

    /// The known edges, and `extra` taken as known (session order, say), as certain edges.
    pub fn certain(&self, extra: &[Edge]) -> Vec<(Edge, super::graph::Origin)> {
        self.known.iter().chain(extra).map(|&e| (e, super::graph::Origin::Certain)).collect()
    }

    /// The versions one choice puts next to each other: the last of the chain it puts first,
    /// and the first of the chain it puts second.
    pub fn ends(&self, c: Constraint, first: bool) -> (&Version, &Version) {
        let k = &self.keys[c.key as usize];
        let (x, y) = if first { (c.a, c.b) } else { (c.b, c.a) };
        let (cx, cy) = (k.chain(x), k.chain(y));
        (&cx[cx.len() - 1], &cy[0])
    }

    /// The edges of one choice: `first` puts chain `a` before chain `b` (the WW edge between
    /// them, and RW from the readers of the earlier chain's last version to the later's first;
    /// the other edges of the order follow by paths, as in [`super::chain`]).
    pub fn side(&self, c: Constraint, first: bool) -> impl Iterator<Item = Edge> + '_ {
        self.side_at(c, first).map(|(e, _)| e)
    }

    /// [`Polygraph::side`], each edge with its place: 0 for the WW edge, `r + 1` for the RW
    /// edge from the earlier version's `r`-th reader ([`super::edges`] keeps only that).
    pub fn side_at(&self, c: Constraint, first: bool) -> impl Iterator<Item = (Edge, u32)> + '_ {
        let k = &self.keys[c.key as usize];
        let (vx, vy) = self.ends(c, first);
        let ww = Edge { from: vx.txn, to: vy.txn, ty: EdgeType::Ww, key: k.key, from_op: vx.op, to_op: vy.op };
        let rw = vx.readers.iter().enumerate().filter(move |(_, r)| r.0 != vy.txn).map(move |(i, &(r, o))| {
            (Edge { from: r, to: vy.txn, ty: EdgeType::Rw, key: k.key, from_op: o, to_op: vy.op }, i as u32 + 1)
        });
        std::iter::once((ww, 0)).chain(rw)
    }
}

/// Build the polygraph. `is_vertex` says which transactions are in the graph (committed ones,
/// and indeterminate ones whose writes were read: see `infer`). Reads the inference reports as
/// anomalies (garbage, aborted, intermediate, internal) give no edge here either.
/// Every version is a chain of its own (as PL-2 and PL-1 need): [`build_for`] compacts.
pub fn build(h: &History, inf: &Inference, session_order: bool, max_constraints: u64) -> Polygraph {
    let order = if session_order { Order::Session } else { Order::None };
    build_with_order(h, inf, order, max_constraints)
}

/// [`build`], with the known edges of any order a level's cycles may use: session order
/// (strong-session levels) or real-time order (strict SER, strong SI).
pub fn build_with_order(h: &History, inf: &Inference, order: Order, max_constraints: u64) -> Polygraph {
    build_inner(h, inf, order, false, max_constraints)
}

/// The polygraph for deciding `mode`: compacted when the mode forbids lost updates.
pub fn build_for(h: &History, inf: &Inference, order: Order, mode: Mode, max_constraints: u64) -> Polygraph {
    build_inner(h, inf, order, matches!(mode, Mode::Ser | Mode::Si | Mode::Psi), max_constraints)
}

/// The share of the constraint budget (one in this many) that the keys with a lost update may
/// take when the history's constraints are over it.
const LOST_UPDATE_SHARE: u64 = 8;

/// Whether two writers of the key read the same version of it (or both its initial value).
fn two_writers_read_one_version(k: &KeyInfo) -> bool {
    let writers: crate::hash::Set<TxnId> = k.versions.iter().map(|v| v.txn).collect();
    let two = |readers: &mut dyn Iterator<Item = TxnId>| {
        let mut first = None;
        readers.filter(|t| writers.contains(t)).any(|t| first.replace(t).is_some_and(|f| f != t))
    };
    two(&mut k.initial_readers.iter().map(|r| r.0))
        || k.versions.iter().any(|v| two(&mut v.readers.iter().map(|r| r.0)))
}

/// The versions the caller assumes ordered ([`Inference::assumed_order`]) as known edges: the
/// earlier version's chain before the later's (the WW edge and the RW edges that choice of their
/// constraint draws, so that pruning settles the constraint at once), or, within one chain
/// against its order, the WW edge that closes a cycle with the chain's edges (the assumption
/// contradicts the history under the levels that compact chains).
fn assumed_edges(inf: &Inference, key_idx: &Map<KeyId, u32>, keys: &[KeyInfo]) -> Vec<(Edge, &'static str)> {
    let mut out = Vec::new();
    if inf.assumed_order.is_empty() {
        return out;
    }
    // Each assumed key's versions' places.
    let mut place: Map<u32, usize> = Map::default();
    for a in &inf.assumed_order {
        let Some(&ki) = key_idx.get(&a.key) else { continue };
        let k = &keys[ki as usize];
        if k.versions.first().is_some_and(|v| place.contains_key(&v.op)) {
            continue;
        }
        place.extend(k.versions.iter().enumerate().map(|(i, v)| (v.op, i)));
    }
    for a in &inf.assumed_order {
        let (Some(&ki), Some(&pa), Some(&pb)) = (key_idx.get(&a.key), place.get(&a.first), place.get(&a.second)) else {
            continue;
        };
        let k = &keys[ki as usize];
        let chain_of = |p: usize| k.chain_ends.partition_point(|&e| e as usize <= p) as u32;
        let (ca, cb) = (chain_of(pa), chain_of(pb));
        let (vx, vy) = if ca != cb {
            (&k.chain(ca)[k.chain(ca).len() - 1], &k.chain(cb)[0])
        } else if pb < pa {
            (&k.versions[pa], &k.versions[pb])
        } else {
            continue;
        };
        let ww = Edge { from: vx.txn, to: vy.txn, ty: EdgeType::Ww, key: a.key, from_op: vx.op, to_op: vy.op };
        out.push((ww, a.source));
        if ca != cb {
            out.extend(vx.readers.iter().filter(|r| r.0 != vy.txn).map(|&(r, o)| {
                (Edge { from: r, to: vy.txn, ty: EdgeType::Rw, key: a.key, from_op: o, to_op: vy.op }, a.source)
            }));
        }
    }
    // Which of two assumptions that draw one edge stays (and names it) is the standard library's
    // unstable sort's choice. The web demo's module (feature `compact-sort`) never sorts here:
    // only `grail elle` assumes orders, so its compact sort instead of a copy of that sort.
    #[cfg(not(feature = "compact-sort"))]
    out.sort_unstable_by_key(|(e, _)| (e.from_op, e.to_op, e.ty as u8));
    #[cfg(feature = "compact-sort")]
    crate::par::sort::sort_by_key(&mut out, |(e, _)| (e.from_op, e.to_op, e.ty as u8));
    out.dedup_by_key(|(e, _)| (e.from_op, e.to_op, e.ty as u8));
    out
}

fn build_inner(h: &History, inf: &Inference, order: Order, compact: bool, max_constraints: u64) -> Polygraph {
    let n = h.txns.len();
    let is_vertex = &inf.graph.is_vertex[..];
    let vertex = |t: TxnId| is_vertex.get(t as usize).copied().unwrap_or(false);
    let writes = &inf.index.writes;
    let mut key_idx: Map<KeyId, u32> = Map::default();
    let mut keys: Vec<KeyInfo> = Vec::new();
    let mut slot = |keys: &mut Vec<KeyInfo>, k: KeyId| -> usize {
        *key_idx.entry(k).or_insert_with(|| {
            keys.push(KeyInfo { key: k, versions: Vec::new(), chain_ends: Vec::new(), initial_readers: Vec::new() });
            keys.len() as u32 - 1
        }) as usize
    };
    // Versions first, so that reads can find them.
    let mut version_of: Map<(TxnId, KeyId), (usize, usize)> = Map::default();
    for (t, txn) in h.txns.iter().enumerate() {
        if !vertex(t as TxnId) {
            continue;
        }
        for o in txn.ops_start..txn.ops_end {
            let op = h.ops[o as usize];
            if let (OpKind::Write, Arg::Val(v)) = (op.kind(), op.arg()) {
                if writes.get(&(op.key, v)).is_some_and(|w| w.op == o && w.last) {
                    let ki = slot(&mut keys, op.key);
                    version_of.insert((t as TxnId, op.key), (ki, keys[ki].versions.len()));
                    keys[ki].versions.push(Version { txn: t as TxnId, op: o, readers: Vec::new() });
                }
            }
        }
    }
    let mut known: Vec<Edge> = Vec::new();
    for t in 0..n as TxnId {
        // An indeterminate transaction's reads are unknown (an `:info` completion repeats the
        // invocation's `nil`s): only a committed one's reads are edges, as the inference takes them.
        if !vertex(t) || h.txns[t as usize].status != Status::Committed {
            continue;
        }
        // Reads after the transaction's own write are internal: checked by the inference, no edge.
        for o in h.external_reads(t) {
            let op = h.ops[o as usize];
            match op.arg() {
                Arg::Val(v) => {
                    let Some(w) = writes.get(&(op.key, v)) else { continue };
                    if !w.last || w.txn == t || !vertex(w.txn) {
                        continue;
                    }
                    let Some(&(ki, vi)) = version_of.get(&(w.txn, op.key)) else { continue };
                    keys[ki].versions[vi].readers.push((t, o));
                    known.push(Edge { from: w.txn, to: t, ty: EdgeType::Wr, key: op.key, from_op: w.op, to_op: o });
                }
                _ => {
                    let ki = slot(&mut keys, op.key);
                    keys[ki].initial_readers.push((t, o));
                }
            }
        }
    }
    for k in &mut keys {
        super::compact::chains(k, compact, &mut known);
    }
    let assumed = assumed_edges(inf, &key_idx, &keys);
    known.extend(assumed.iter().map(|a| a.0));
    for k in &keys {
        for &(r, o) in &k.initial_readers {
            for v in k.versions.iter().filter(|v| v.txn != r) {
                known.push(Edge { from: r, to: v.txn, ty: EdgeType::Rw, key: k.key, from_op: o, to_op: v.op });
            }
        }
    }
    // The same orders as the other levels' (invocation order within a process; Elle's
    // reduced real-time order).
    let (extra, kind) = match order {
        Order::None => (Vec::new(), EdgeType::So),
        Order::Session => (crate::graph::orders::session_edges(h, is_vertex).0, EdgeType::So),
        Order::Realtime => (crate::graph::orders::realtime_edges(h, is_vertex).0, EdgeType::Rt),
    };
    for e in extra {
        known.push(Edge { from: e.from, to: e.to, ty: kind, key: 0, from_op: e.from_op, to_op: e.to_op });
    }
    let choose2 = |m: u64| m * m.saturating_sub(1) / 2;
    let version_pairs: u64 = keys.iter().map(|k| choose2(k.versions.len() as u64)).sum();
    let pairs: u64 = keys.iter().map(|k| choose2(k.chain_ends.len() as u64)).sum();
    let mut cons = Vec::new();
    let key_cons = |ki: usize, cons: &mut Vec<Constraint>| {
        let m = keys[ki].chain_ends.len() as u32;
        for a in 0..m {
            for b in a + 1..m {
                cons.push(Constraint { key: ki as u32, a, b });
            }
        }
    };
    if pairs <= max_constraints {
        (0..keys.len()).for_each(|ki| key_cons(ki, &mut cons));
    } else {
        // Over the budget, still the keys where two writers read the same version: a lost
        // update under every version order, which pruning then proves whatever the rest holds
        // (a cycle or conflict among some constraints is one among all).
        let mut shared: Vec<(u64, usize)> = (0..keys.len())
            .filter(|&ki| two_writers_read_one_version(&keys[ki]))
            .map(|ki| (choose2(keys[ki].chain_ends.len() as u64), ki))
            .collect();
        crate::par::sort::sort_unstable(&mut shared);
        let mut taken = 0u64;
        for (c, ki) in shared {
            if taken + c > max_constraints / LOST_UPDATE_SHARE {
                break;
            }
            taken += c;
            key_cons(ki, &mut cons);
        }
    }
    let mut rank: Vec<u32> = (0..n as u32).collect();
    let in_session = crate::graph::orders::in_session_order(h, is_vertex);
    let mut place = 0u32;
    for (i, w) in in_session.iter().enumerate() {
        place = if i > 0 && in_session[i - 1].0 == w.0 { place + 1 } else { 0 };
        rank[w.1 as usize] = place;
    }
    let session = match order {
        Order::None => crate::graph::orders::session_edges(h, is_vertex).0,
        _ => Vec::new(),
    };
    Polygraph { n, known, keys, cons, pairs, version_pairs, compact, limit: max_constraints, rank, session, assumed }
}
