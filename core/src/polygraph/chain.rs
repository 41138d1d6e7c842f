//! A first guess that needs no constraints: order each key's versions as a topological order
//! of the known edges orders their writers (the smallest transaction first where the edges
//! leave a choice, which follows the history's order), draw the graph that version order
//! gives (WW between consecutive versions, RW from a version's readers to the next version:
//! the other edges of the full order are implied by paths, PolySI Def. 9 with a total order),
//! and test it. Acyclic: the level holds, with this version order as the certificate. On
//! histories from databases that keep their promise, this is usually right, and costs a
//! graph's worth of work instead of a constraint per pair of versions.

use super::constraints::Polygraph;
use super::graph::{one_rw_cycle, DynGraph, Mode, Origin};
use super::prune::{positions, Arcs};
use crate::graph::search::Budget;
use crate::graph::{Edge, EdgeType};

/// `Some(true)`: the guess is acyclic (the level holds). `Some(false)`: it is not (or the known
/// edges already have a cycle). `None`: the budget ran out.
pub fn guess(pg: &Polygraph, mode: Mode, budget: &mut Budget) -> Option<bool> {
    let nodes = 2 * pg.n;
    let mut edges: Vec<(Edge, Origin)> = pg.known.iter().map(|&e| (e, Origin::Certain)).collect();
    if !budget.spend((edges.len() + nodes) as u64) {
        return None;
    }
    let Some(order) = Arcs::new(&edges, mode, nodes).topo_min(nodes) else { return Some(false) };
    let pos = positions(&order);
    for k in &pg.keys {
        let mut vs: Vec<usize> = (0..k.versions.len()).collect();
        vs.sort_unstable_by_key(|&i| pos[(2 * k.versions[i].txn + 1) as usize]);
        for w in vs.windows(2) {
            let (a, b) = (&k.versions[w[0]], &k.versions[w[1]]);
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
    if !budget.spend((edges.len() + nodes) as u64) {
        return None;
    }
    let Some(order) = Arcs::new(&edges, mode, nodes).topo(nodes) else { return Some(false) };
    if mode != Mode::Psi {
        return Some(true);
    }
    // PSI's product graph is acyclic also when a cycle has one RW edge: test those.
    let mut g = DynGraph::new(mode, pg.n);
    g.set_order(positions(&order));
    for &(e, o) in &edges {
        g.push(e, o);
    }
    match one_rw_cycle(&mut g, budget) {
        Ok(found) => Some(found.is_none()),
        Err(()) => None,
    }
}
