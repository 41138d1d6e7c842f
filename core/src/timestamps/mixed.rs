//! Mixed mode: where only some transactions carry timestamps (or a place in the commit order),
//! their claims join the inferred dependency graph as edges, and every dependency the history
//! proves is compared with them.
//!
//! * `T1 -rt-> T2` (claimed) when T1 committed at or before T2's start timestamp (and before
//!   T2's commit): T2's snapshot holds T1's writes. In a valid SI execution every WW and WR edge
//!   goes from a commit to a later-or-equal start and every RW edge from a start to a later
//!   commit, so a cycle without two adjacent RW edges through these edges cannot happen: the
//!   timestamps would have to increase strictly around it. SI's patterns (G0, G1c, G-single,
//!   G-nonadjacent) are searched with them; SER's claims include SI's, so SER's too.
//! * `T1 -co-> T2` (claimed) between consecutive transactions of the commit order. A serial
//!   commit order puts every dependency forward, so any cycle through them breaks SER's claim.
//!   SI allows RW edges against the commit order (write skew), so SI's searches leave them out.
//!
//! Edges are transitively reduced as they are made (the frontier of `graph::orders`), about one
//! per transaction times the concurrency. Contradictions are checked per dependency edge:
//! WW and WR must follow the commit order (and WR start after the writer committed), RW must
//! point at a writer that committed after the reader's start. List-append edges to appends
//! that no read observed are the inference's assumption, not a proof, and are not compared.

use super::axioms::{Found, Kind, Violation};
use super::{Claims, Ts};
use crate::anomaly::AnomalyKind;
use crate::graph::search::{components, Budget, Cycle, Searched, Searcher};
use crate::graph::{DependencyGraph, Edge, EdgeType, CLAIMED};
use crate::history::{History, Model, TxnId};
use crate::infer::Inference;
use crate::level::{pattern, Level};

/// A claimed edge: the last operation of `from` and the first of `to`.
fn claimed_edge(h: &History, ty: EdgeType, from: TxnId, to: TxnId) -> Edge {
    let (a, b) = (&h.txns[from as usize], &h.txns[to as usize]);
    let from_op = if a.ops_end > a.ops_start { a.ops_end - 1 } else { u32::MAX };
    let to_op = if b.ops_end > b.ops_start { b.ops_start } else { u32::MAX };
    Edge { from, to, ty, key: CLAIMED, from_op, to_op }
}

/// `T1 -rt-> T2` when T1 committed at or before T2 started, transitively reduced, among the
/// vertices with both timestamps.
pub fn start_order_edges(h: &History, is: &[bool]) -> Vec<Edge> {
    // (timestamp, 0 = commit / 1 = start, txn): a commit before a start at one timestamp.
    let mut events: Vec<(Ts, u8, TxnId)> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if let (true, Some(s), Some(c)) = (is[t], txn.start_ts(), txn.commit_ts()) {
            events.push((s, 1, t as TxnId));
            events.push((c, 0, t as TxnId));
        }
    }
    crate::par::sort::sort_unstable(&mut events);
    let mut started = vec![false; h.txns.len()];
    let mut frontier: Vec<TxnId> = Vec::new();
    let mut preds: Vec<TxnId> = Vec::new();
    let mut range: crate::hash::Map<TxnId, (u32, u32)> = Default::default();
    let mut covered: crate::hash::Set<TxnId> = Default::default();
    let mut edges = Vec::new();
    let mut open = 0usize;
    for (_, kind, t) in events {
        if !std::mem::replace(&mut started[t as usize], true) {
            // Its start (before its own commit when the two timestamps are equal).
            let start = preds.len() as u32;
            preds.extend_from_slice(&frontier);
            range.insert(t, (start, preds.len() as u32));
            open += 1;
            for &p in &frontier {
                edges.push(claimed_edge(h, EdgeType::Rt, p, t));
            }
        }
        if kind == 0 {
            let (a, b) = range.remove(&t).unwrap_or((0, 0));
            open = open.saturating_sub(1);
            covered.clear();
            covered.extend(preds[a as usize..b as usize].iter().copied());
            frontier.retain(|p| !covered.contains(p));
            frontier.push(t);
            if open == 0 {
                preds.clear();
            }
        }
    }
    edges
}

/// `T1 -co-> T2` between consecutive places of the commit order (every transaction of one place
/// to every one of the next, when commit timestamps tie).
pub fn commit_order_edges(h: &History, claims: &Claims, is: &[bool]) -> Vec<Edge> {
    let mut placed: Vec<(Ts, TxnId)> =
        (0..h.txns.len()).filter(|&t| is[t]).filter_map(|t| claims.order[t].map(|o| (o, t as TxnId))).collect();
    crate::par::sort::sort_unstable(&mut placed);
    let mut edges = Vec::new();
    let (mut prev, mut g) = (0..0, 0);
    while g < placed.len() {
        let end = g + placed[g..].iter().take_while(|p| p.0 == placed[g].0).count();
        for &(_, a) in &placed[prev.clone()] {
            for &(_, b) in &placed[g..end] {
                edges.push(claimed_edge(h, EdgeType::Co, a, b));
            }
        }
        prev = g..end;
        g = end;
    }
    edges
}

/// The dependencies the history proves that a claim contradicts. Claims the full axioms check
/// are left to them, but a write-ahead log's order (register histories) is always compared
/// with the commit order: no read shows it.
pub fn contradictions(h: &History, inf: &Inference, claims: &Claims, full_si: bool, full_ser: bool) -> Found {
    let mut out = Found::default();
    let logged = h.model == Model::RwRegister && h.version_order.is_some();
    if full_si && full_ser && !logged {
        return out;
    }
    // List appends some read observed (a key's canonical list): edges to others are assumed.
    let observed: crate::hash::Set<(u32, crate::history::Value)> = if h.model == Model::RwRegister {
        Default::default()
    } else {
        h.canon.iter().enumerate().flat_map(|(k, l)| l.iter().map(move |&v| (k as u32, v))).collect()
    };
    let proven = |e: &Edge| {
        e.ty == EdgeType::Wr
            || h.model == Model::RwRegister
            || h.written(e.to_op).is_some_and(|v| observed.contains(&(e.key, v)))
    };
    let mut seen: crate::hash::Set<(TxnId, TxnId, EdgeType)> = Default::default();
    for e in &inf.graph.edges {
        let (a, b) = (e.from as usize, e.to as usize);
        if !matches!(e.ty, EdgeType::Ww | EdgeType::Wr | EdgeType::Rw) || !claims.subject[a] || !claims.subject[b] {
            continue;
        }
        if seen.contains(&(e.from, e.to, e.ty)) || !proven(e) {
            continue;
        }
        let (ta, tb) = (&h.txns[a], &h.txns[b]);
        let (oa, ob) = (claims.order[a], claims.order[b]);
        let by_order = |ok: fn(Ts, Ts) -> bool| matches!((oa, ob), (Some(x), Some(y)) if !ok(x, y));
        // (contradicted, with start timestamps)
        let found = match e.ty {
            EdgeType::Ww if !full_ser || logged => by_order(|x, y| x < y).then_some(false),
            EdgeType::Wr => match (ta.commit_ts(), tb.start_ts()) {
                (Some(c), Some(s)) if !full_si => (c > s).then_some(true),
                _ if !full_ser => by_order(|x, y| x < y).then_some(false),
                _ => None,
            },
            EdgeType::Rw => match (ta.start_ts(), tb.commit_ts()) {
                (Some(s), Some(c)) if !full_si => (c <= s).then_some(true),
                (None, _) if !full_ser => by_order(|x, y| x < y).then_some(false),
                _ => None,
            },
            _ => None,
        };
        if let Some(with_start) = found {
            seen.insert((e.from, e.to, e.ty));
            out.push(Violation {
                other: Some(e.to),
                key: Some(e.key),
                op: Some(e.from_op),
                other_op: Some(e.to_op),
                edge: Some((e.ty, with_start)),
                ..Violation::new(Kind::ClaimedOrder, e.from)
            });
        }
    }
    out
}

/// A cycle through claimed edges, with the levels it violates.
#[derive(Debug, Clone)]
pub struct ClaimedCycle {
    pub levels: Vec<Level>,
    pub kind: AnomalyKind,
    pub cycle: Cycle,
    /// Index of the graph (the dependency graph with claimed edges) it is a cycle of.
    pub graph: usize,
}

/// Search SI's patterns on the graph with the claimed start order, and every pattern on the
/// graph with the commit order too, reporting the cycles that use a claimed edge (the others
/// are the black-box check's).
pub fn claimed_cycles(
    h: &History,
    inf: &Inference,
    claims: &Claims,
    full_si: bool,
    max_cycles: usize,
    budget: &mut Budget,
) -> (Vec<ClaimedCycle>, Vec<DependencyGraph>) {
    let is: Vec<bool> = (0..h.txns.len()).map(|t| inf.graph.is_vertex[t] && claims.subject[t]).collect();
    let start = if full_si || claims.timestamped == 0 { Vec::new() } else { start_order_edges(h, &is) };
    let order = if claims.full_ser() || claims.ordered == 0 { Vec::new() } else { commit_order_edges(h, claims, &is) };
    let mut out: Vec<ClaimedCycle> = Vec::new();
    let mut graphs: Vec<DependencyGraph> = Vec::new();
    // The cycle anomalies a level proscribes, and its family weakest first (as reports list a
    // claimed cycle's levels), from the level table.
    let kinds = |l: Level| -> Vec<AnomalyKind> {
        AnomalyKind::ALL.into_iter().filter(|&k| l.proscribes(k) && pattern(k).is_some()).collect()
    };
    let (si_kinds, all_kinds) = (kinds(Level::Si), kinds(Level::Ser));
    let si_levels: Vec<Level> = super::si_family().into_iter().rev().collect();
    let ser_levels: Vec<Level> = super::ser_family().into_iter().rev().collect();
    // (claimed edges, their type bits, the patterns searched, the levels they violate)
    type Run<'a> = (Vec<Edge>, u8, &'a [AnomalyKind], &'a [Level]);
    let mut runs: Vec<Run> = Vec::new();
    if !start.is_empty() {
        runs.push((start.clone(), EdgeType::Rt.bit(), &si_kinds[..], &si_levels[..]));
    }
    if !order.is_empty() {
        let mut extra = start;
        extra.extend(order);
        runs.push((extra, EdgeType::Rt.bit() | EdgeType::Co.bit(), &all_kinds[..], &ser_levels[..]));
    }
    for (extra, bits, kinds, levels) in runs {
        let mut edges = inf.graph.edges.clone();
        edges.extend(extra);
        let g = DependencyGraph::new(inf.graph.is_vertex.clone(), edges);
        let comps = components(&g);
        let mut searcher = Searcher::new(&g);
        for &k in kinds {
            let Some(mut p) = pattern(k) else { continue };
            p.allowed |= bits;
            let Searched::Violated(cycles) = searcher.search(&comps, &p, budget, max_cycles) else { continue };
            for c in cycles {
                let claimed = (0..c.txns.len()).any(|i| {
                    matches!(c.types[i], EdgeType::Rt | EdgeType::Co)
                        && g.edge(c.txns[i], c.txns[(i + 1) % c.txns.len()], c.types[i])
                            .is_some_and(|e| e.key == CLAIMED)
                });
                let mut set = c.txns.clone();
                crate::par::sort::sort_unstable(&mut set);
                let seen = |x: &ClaimedCycle| {
                    let mut y = x.cycle.txns.clone();
                    crate::par::sort::sort_unstable(&mut y);
                    y == set
                };
                if !claimed || out.iter().any(seen) {
                    continue;
                }
                let levels = levels.iter().copied().filter(|l| l.proscribes(k)).collect();
                out.push(ClaimedCycle { levels, kind: k, cycle: c, graph: graphs.len() });
            }
        }
        if out.last().is_some_and(|c| c.graph == graphs.len()) {
            graphs.push(g);
        }
    }
    (out, graphs)
}
