//! The search for an acyclic resolution of the constraints pruning left open: DPLL with
//! chronological backtracking, where unit propagation is the pruning rule applied to the graph
//! of the current partial choice (a choice that closes a forbidden cycle is impossible, so the
//! other is forced) and the theory check is an incremental cycle test per added edge
//! (breadth-first search in the product graph of [`super::graph`]). Complete: it answers
//! acyclic or not for every input, within the budget.

use super::constraints::Polygraph;
use super::graph::{Closes, DynGraph};
use crate::graph::search::Budget;

pub enum Solved {
    /// An acyclic resolution exists (the graph holds it).
    Acyclic,
    /// Every resolution has a cycle; both choices of this constraint close one given the
    /// choices forced so far (all of them implied, none guessed).
    Conflict(u32),
    Unknown,
}

struct Frame {
    cons: u32,
    first: bool,
    /// A guess whose other choice is still to try.
    decision: bool,
    edges_before: usize,
}

/// `g` holds the known and forced edges; `open` the constraints left. On `Acyclic` and
/// `Conflict` the graph is left with the choices made (for explaining a conflict).
pub fn solve(
    pg: &Polygraph,
    g: &mut DynGraph,
    open: &[u32],
    prefer: &[bool],
    budget: &mut Budget,
    decisions: &mut u64,
) -> Solved {
    let mut assigned: Vec<Option<bool>> = vec![None; pg.cons.len()];
    let mut trail: Vec<Frame> = Vec::new();
    loop {
        // Propagate to a fixpoint.
        let conflict = loop {
            let mut changed = false;
            let mut conflict = None;
            for &c in open {
                if assigned[c as usize].is_some() {
                    continue;
                }
                let ok_first = match feasible(pg, g, c, true, budget) {
                    Some(b) => b,
                    None => return Solved::Unknown,
                };
                let ok_second = match feasible(pg, g, c, false, budget) {
                    Some(b) => b,
                    None => return Solved::Unknown,
                };
                match (ok_first, ok_second) {
                    (false, false) => {
                        conflict = Some(c);
                        break;
                    }
                    (true, false) | (false, true) => {
                        assign(g, &mut assigned, &mut trail, c, ok_first, false);
                        changed = true;
                    }
                    _ => {}
                }
            }
            if conflict.is_some() || !changed {
                break conflict;
            }
        };
        if let Some(c) = conflict {
            // Undo to the last guess with its other choice untried, and take that.
            loop {
                let Some(f) = trail.pop() else { return Solved::Conflict(c) };
                g.truncate(f.edges_before);
                assigned[f.cons as usize] = None;
                if f.decision {
                    assign(g, &mut assigned, &mut trail, f.cons, !f.first, false);
                    break;
                }
            }
            continue;
        }
        let Some(&c) = open.iter().find(|&&c| assigned[c as usize].is_none()) else {
            return Solved::Acyclic;
        };
        *decisions += 1;
        if !budget.spend(1) {
            return Solved::Unknown;
        }
        assign(g, &mut assigned, &mut trail, c, prefer.get(c as usize).copied().unwrap_or(true), true);
    }
}

fn assign(
    g: &mut DynGraph,
    assigned: &mut [Option<bool>],
    trail: &mut Vec<Frame>,
    c: u32,
    first: bool,
    decision: bool,
) {
    trail.push(Frame { cons: c, first, decision, edges_before: g.len() });
    assigned[c as usize] = Some(first);
    g.push_choice(c, first);
}

/// Can this choice be added without closing a cycle? `None` when the budget ran out.
pub fn feasible(pg: &Polygraph, g: &mut DynGraph, c: u32, first: bool, budget: &mut Budget) -> Option<bool> {
    // Edges forward in the kept order close no cycle, together or alone: no search, no push.
    if pg.side(pg.cons[c as usize], first).all(|e| g.forward(&e)) {
        return Some(true);
    }
    let before = g.len();
    let mut ok = true;
    for (e, place) in pg.side_at(pg.cons[c as usize], first) {
        match g.closes(&e, budget) {
            Closes::No => g.push_side(e, c, first, place),
            Closes::Yes(_) => {
                ok = false;
                break;
            }
            Closes::Unknown => {
                g.truncate(before);
                return None;
            }
        }
    }
    g.truncate(before);
    Some(ok)
}
