//! Why each forced choice of a counterexample was forced: the cycle its other choice closes
//! with the edges known when it was forced (PolySI Appendix E.3 restores these "adjoining"
//! cycles, so that the counterexample is a complete adjoining cycle set, E.2). Edges are kept
//! in the order they were added, so the edges known when a choice was forced are those
//! before its first edge; its other choice closed a cycle with them (that is why it was
//! forced), and that cycle's own forced edges are explained the same way, a bounded number of
//! times.

use super::constraints::Polygraph;
use super::graph::{Closes, DynGraph, Origin};
use crate::graph::search::Budget;
use crate::graph::Edge;

/// At most this many reasons per counterexample.
const MAX_REASONS: usize = 6;

/// A forced choice and the cycle its other choice would close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub cons: u32,
    /// The choice that was forced.
    pub first: bool,
    /// The cycle through the other choice.
    pub cycle: Vec<(Edge, Origin)>,
}

/// Reasons for the forced choices on `cycles` (other than `conflict`'s), in the order met.
pub fn reasons(
    pg: &Polygraph,
    g: &DynGraph,
    cycles: &[&[(Edge, Origin)]],
    conflict: Option<u32>,
    budget: &mut Budget,
) -> Vec<Reason> {
    let mut todo: Vec<(u32, bool)> = Vec::new();
    let mut seen: Vec<u32> = conflict.into_iter().collect();
    let note = |cycle: &[(Edge, Origin)], todo: &mut Vec<(u32, bool)>, seen: &mut Vec<u32>| {
        for (_, o) in cycle {
            if let Origin::Chosen { cons, first } = *o {
                if !seen.contains(&cons) {
                    seen.push(cons);
                    todo.push((cons, first));
                }
            }
        }
    };
    for c in cycles {
        note(c, &mut todo, &mut seen);
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < todo.len() && out.len() < MAX_REASONS {
        let (cons, first) = todo[i];
        i += 1;
        let chosen = Origin::Chosen { cons, first };
        let Some(start) = (0..g.len() as u32).position(|id| g.origin(id) == chosen) else { continue };
        let mut before = DynGraph::from_edges(g.mode, g.edges().prefix(start));
        let mut found = None;
        for (e, place) in pg.side_at(pg.cons[cons as usize], !first) {
            let o = Origin::Chosen { cons, first: !first };
            match before.closes(&e, budget) {
                Closes::Yes(path) => {
                    let mut cyc = vec![(e, o)];
                    cyc.extend(path.iter().map(|&id| before.edge(id)));
                    found = Some(cyc);
                    break;
                }
                Closes::No => before.push_side(e, cons, !first, place),
                Closes::Unknown => return out,
            }
        }
        if let Some(cycle) = found {
            note(&cycle, &mut todo, &mut seen);
            out.push(Reason { cons, first, cycle });
        }
    }
    out
}
