//! A first guess that needs no constraints: order each key's versions as a topological order
//! of the known edges orders their writers, draw the graph that version order
//! gives (WW between consecutive versions, RW from a version's readers to the next version:
//! the other edges of the full order are implied by paths, PolySI Def. 9 with a total order),
//! and test it. Acyclic: the level holds, with this version order as the certificate. On
//! histories from databases that keep their promise, this is usually right, and costs a
//! graph's worth of work instead of a constraint per pair of versions.
//!
//! Where the edges leave a choice, the topological order takes first the transaction earliest
//! in its session, then in the history: sessions advance side by side, as they ran (logs
//! written a session at a time, as Cobra's are, list a session's transactions together, and
//! the history's order alone would run one session ahead of the others). With session order
//! among the edges first (databases that keep their promise mostly keep it), then without,
//! then in the history's order.

use super::constraints::Polygraph;
use super::edges::{EdgeList, Joined};
use super::graph::{one_rw_cycle, DynGraph, Mode, Origin, OutOfBudget};
use super::prune::{positions, Arcs};
use crate::graph::search::Budget;
use crate::graph::{Edge, EdgeType};

/// `Some(true)`: the guess is acyclic (the level holds). `Some(false)`: it is not (or the known
/// edges already have a cycle). `None`: the budget ran out.
/// `rank`: each transaction's place, which breaks ties ([`by_rank`]; `pg.rank` or
/// [`super::rank`]'s estimate).
pub fn guess(pg: &Polygraph, mode: Mode, extra: &[Edge], rank: &[u32], budget: &mut Budget) -> Option<bool> {
    let known: Vec<(Edge, Origin)> = pg.certain(extra);
    guess_from(pg, mode, &known, rank, budget)
}

/// Known edges to try a topological order of, and the rank that breaks its ties.
type Try<'a> = (&'a dyn EdgeList, &'a dyn Fn(u32) -> u64);

/// [`guess`] from these edges (the known edges, and after pruning the forced choices too:
/// a topological order that respects them is much nearer to a version order that works).
pub fn guess_from(pg: &Polygraph, mode: Mode, known: &dyn EdgeList, rank: &[u32], budget: &mut Budget) -> Option<bool> {
    guess_edges(pg, mode, known, rank, budget).map(|found| found.is_some())
}

/// [`guess_from`], giving the acyclic graph's edges (the known ones and the guessed version
/// order's) when a guess is acyclic: a resolution a certificate can be built from.
pub fn guess_edges(
    pg: &Polygraph,
    mode: Mode,
    known: &dyn EdgeList,
    rank: &[u32],
    budget: &mut Budget,
) -> Option<Option<Vec<(Edge, Origin)>>> {
    let nodes = 2 * pg.n;
    let session: Vec<(Edge, Origin)> = pg.session.iter().map(|&e| (e, Origin::Certain)).collect();
    let with_session = Joined(known, &session);
    let by_rank = |p: u32| by_rank(rank, p);
    let by_index = |p: u32| u64::from(p);
    let mut tries: Vec<Try> = Vec::new();
    if !pg.session.is_empty() {
        tries.push((&with_session, &by_rank));
    }
    tries.push((known, &by_rank));
    tries.push((known, &by_index));
    for (edges, key) in tries {
        if !budget.spend((edges.count() + nodes) as u64) {
            return None;
        }
        let Some(order) = Arcs::new(edges, mode, nodes).topo_by(nodes, key) else { continue };
        if let Some(found) = test(pg, mode, known, &positions(&order), budget)? {
            return Some(Some(found));
        }
    }
    Some(None)
}

/// The key of product node `p` in a topological order that runs sessions side by side: its
/// transaction's rank (its place in its session, `pg.rank`, or an estimate of its place in the
/// execution, [`super::rank`]), then its index.
pub(super) fn by_rank(rank: &[u32], p: u32) -> u64 {
    (u64::from(rank.get((p / 2) as usize).copied().unwrap_or(0)) << 32) | u64::from(p / 2)
}

/// The graph of the version order these positions of the writers give with the known edges,
/// when it is acyclic.
fn test(
    pg: &Polygraph,
    mode: Mode,
    known: &dyn EdgeList,
    pos: &[u32],
    budget: &mut Budget,
) -> Option<Option<Vec<(Edge, Origin)>>> {
    let nodes = 2 * pg.n;
    // The guessed order's edges, after the known ones (kept where they are).
    let mut edges: Vec<(Edge, Origin)> = Vec::new();
    for k in &pg.keys {
        // Chains by where their first writer stands; a chain's versions stay together. The
        // compact sort's order too: a key's versions are of distinct transactions, and `pos`
        // is a permutation.
        let mut cs: Vec<u32> = (0..k.chain_ends.len() as u32).collect();
        crate::par::sort::sort_unstable_by_key(&mut cs, |&i| pos[(2 * k.chain(i)[0].txn + 1) as usize]);
        let vs: Vec<&super::constraints::Version> = cs.iter().flat_map(|&i| k.chain(i)).collect();
        for w in vs.windows(2) {
            let (a, b) = (w[0], w[1]);
            edges.push((
                Edge { from: a.txn, to: b.txn, ty: EdgeType::Ww, key: k.key, from_op: a.op, to_op: b.op },
                Origin::Certain,
            ));
            for &(r, o) in a.readers.iter().filter(|r| r.0 != b.txn) {
                edges.push((
                    Edge { from: r, to: b.txn, ty: EdgeType::Rw, key: k.key, from_op: o, to_op: b.op },
                    Origin::Certain,
                ));
            }
        }
    }
    let all = Joined(known, &edges);
    if !budget.spend((all.count() + nodes) as u64) {
        return None;
    }
    let Some(order) = Arcs::new(&all, mode, nodes).topo(nodes) else { return Some(None) };
    let whole = || (0..all.count()).map(|i| all.whole(i)).collect::<Vec<_>>();
    if mode != Mode::Psi {
        return Some(Some(whole()));
    }
    // PSI's product graph is acyclic also when a cycle has one RW edge: test those.
    let mut g = DynGraph::new(pg, mode);
    g.set_order(positions(&order));
    for i in 0..all.count() {
        let (e, o) = all.whole(i);
        g.push(e, o);
    }
    match one_rw_cycle(&mut g, budget) {
        Ok(found) => Some(found.is_none().then(whole)),
        Err(OutOfBudget) => None,
    }
}
