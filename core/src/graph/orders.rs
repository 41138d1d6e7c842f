//! Session and real-time order edges, added to the graph only for levels that need them (Elle's
//! `process` and `realtime` relations; Adya's strong-session and strict levels).
//!
//! Both are transitively reduced as they are built, so they cost about one edge per transaction
//! (session) or per transaction times the concurrency (real time), never the quadratic closure.

use super::{Edge, EdgeType, NO_KEY};
use crate::history::{History, TxnId};

/// Extra order a level's cycles may use besides the dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Order {
    None,
    /// Session (process) order: Elle's strong-session levels (Daudjee and Salem's strong session SI).
    Session,
    /// Real-time order: Elle's strict serializability and strong SI.
    Realtime,
}

impl Order {
    /// The edge type the order adds, as a mask.
    pub fn bit(self) -> u8 {
        match self {
            Order::None => 0,
            Order::Session => EdgeType::So.bit(),
            Order::Realtime => EdgeType::Rt.bit(),
        }
    }

    /// The suffix Elle gives a cycle that needs this order (`G-single-process`).
    pub fn suffix(self) -> &'static str {
        match self {
            Order::None => "",
            Order::Session => "-process",
            Order::Realtime => "-realtime",
        }
    }
}

/// The operations an order edge points at: the last operation of `from` and the first of `to`
/// (`u32::MAX` when a transaction has none).
fn order_edge(h: &History, ty: EdgeType, from: TxnId, to: TxnId) -> Edge {
    let (a, b) = (&h.txns[from as usize], &h.txns[to as usize]);
    let from_op = if a.ops_end > a.ops_start { a.ops_end - 1 } else { u32::MAX };
    let to_op = if b.ops_end > b.ops_start { b.ops_start } else { u32::MAX };
    Edge { from, to, ty, key: NO_KEY, from_op, to_op }
}

/// Where a transaction stands in its process: invocation order (Jepsen processes are
/// sequential: a process's next transaction starts after its last one ended). The invocation's
/// position in the input decides, then its time, then the input order: a transaction that never
/// completed is stored after the completed ones, yet may have come first.
pub fn session_place(h: &History, t: TxnId) -> SessionPlace {
    let txn = &h.txns[t as usize];
    (txn.first_pos(), txn.invoke_time(), t)
}

/// Where a transaction falls in its session: invocation position, time, then id.
type SessionPlace = (Option<u64>, Option<i64>, TxnId);

/// The vertices that have a process, as (process, transaction), each process's in session order.
pub fn in_session_order(h: &History, is_vertex: &[bool]) -> Vec<(i64, TxnId)> {
    let mut order: Vec<(i64, SessionPlace)> = (0..h.txns.len() as TxnId)
        .filter(|&t| is_vertex[t as usize])
        .filter_map(|t| h.txns[t as usize].process().map(|p| (p, session_place(h, t))))
        .collect();
    // Each element differs (it holds the transaction), so the compact sort gives this order too.
    // In the web demo's module it is used here as well, for size, although a check of 100k
    // register transactions took 8% longer through it when it came (issue 37).
    crate::par::sort::sort_unstable(&mut order);
    order.into_iter().map(|(p, (_, _, t))| (p, t)).collect()
}

/// Session order: each vertex to the next vertex of the same process ([`in_session_order`]).
/// Returns the edges and whether any transaction had a process.
pub fn session_edges(h: &History, is_vertex: &[bool]) -> (Vec<Edge>, bool) {
    let any = h.txns.iter().any(|t| t.process().is_some());
    let order = in_session_order(h, is_vertex);
    let edges =
        order.windows(2).filter(|w| w[0].0 == w[1].0).map(|w| order_edge(h, EdgeType::So, w[0].1, w[1].1)).collect();
    (edges, any)
}

/// Real-time order: `a -> b` when `a` completed before `b` was invoked, reduced as Elle does: each
/// transaction links from the "frontier" of completed transactions not yet implied by a later
/// one. Times are the recorded ones (`:time`, native `start`/`end`), or, when the history records
/// none, the positions of invocation and completion in the input (Elle's choice). Vertices
/// without an invocation get outgoing edges only; those without a completion (an indeterminate
/// transaction whose write was seen) incoming edges only. Returns the edges and how many
/// vertices had no invocation.
pub fn realtime_edges(h: &History, is_vertex: &[bool]) -> (Vec<Edge>, usize) {
    let times = realtime_times(h);
    let vertices = h.txns.iter().enumerate().filter(|(t, _)| is_vertex[*t]).map(|(t, txn)| {
        let (inv, done) = times(txn);
        (t as TxnId, inv, done)
    });
    let (pairs, untimed) = realtime_pairs(vertices);
    (pairs.into_iter().map(|(p, t)| order_edge(h, EdgeType::Rt, p, t)).collect(), untimed)
}

/// How real-time order reads a transaction's invocation and completion: the recorded times, or,
/// when the history records none, the positions of its operations in the input (Elle's choice).
fn realtime_times(h: &History) -> impl Fn(&crate::history::Transaction) -> (Option<i64>, Option<i64>) {
    let timed = h.txns.iter().any(|t| t.invoke_time().is_some() || t.complete_time().is_some());
    move |t: &crate::history::Transaction| match timed {
        true => (t.invoke_time(), t.complete_time()),
        false => (t.invoke_pos().map(|p| p as i64), t.complete_pos().map(|p| p as i64)),
    }
}

/// The committed vertices real-time order cannot place: without an invocation or a completion
/// (time, or position when the history records no time). Nothing is known to precede one
/// without an invocation; one without a completion precedes nothing: either way the order among
/// them is not fully known, and a level with real-time order cannot be shown to hold.
pub fn realtime_gaps(h: &History, is_vertex: &[bool]) -> usize {
    let times = realtime_times(h);
    h.txns
        .iter()
        .zip(is_vertex)
        .filter(|(t, &v)| v && t.status == crate::history::Status::Committed)
        .filter(|(t, _)| {
            let (i, c) = times(t);
            i.is_none() || c.is_none()
        })
        .count()
}

/// The reduced real-time order of transactions given as (id, invocation, completion) times
/// ([`realtime_edges`]; the online checker's window uses it too): the pairs `(a, b)`, and how
/// many had no invocation. One without an invocation still precedes what was invoked after its
/// completion (as Elle's realtime graph links a completion to later invocations), but nothing
/// is known to precede it.
pub fn realtime_pairs(txns: impl Iterator<Item = (TxnId, Option<i64>, Option<i64>)>) -> (Vec<(TxnId, TxnId)>, usize) {
    // (time, 0 = invoke / 1 = complete, txn): at equal times an invocation comes first, so that
    // touching intervals are concurrent, not ordered.
    let mut events: Vec<(i64, u8, TxnId)> = Vec::new();
    let mut untimed = 0;
    for (t, inv, done) in txns {
        match inv {
            Some(inv) => events.push((inv, 0, t)),
            None => untimed += 1,
        }
        if let Some(done) = done {
            events.push((inv.map_or(done, |i| done.max(i)), 1, t));
        }
    }
    crate::par::sort::sort_unstable(&mut events);
    let mut frontier: Vec<TxnId> = Vec::new();
    // Predecessors recorded at each invocation: one arena, a range per transaction.
    let mut preds: Vec<TxnId> = Vec::new();
    let mut range: crate::hash::Map<TxnId, (u32, u32)> = Default::default();
    let mut edges = Vec::new();
    let mut covered: crate::hash::Set<TxnId> = Default::default();
    for (_, kind, t) in events {
        if kind == 0 {
            let start = preds.len() as u32;
            preds.extend_from_slice(&frontier);
            range.insert(t, (start, preds.len() as u32));
            for &p in &frontier {
                edges.push((p, t));
            }
        } else {
            let (a, b) = range.remove(&t).unwrap_or((0, 0));
            covered.clear();
            covered.extend(preds[a as usize..b as usize].iter().copied());
            frontier.retain(|p| !covered.contains(p));
            frontier.push(t);
        }
        if range.is_empty() {
            preds.clear();
        }
    }
    (edges, untimed)
}
