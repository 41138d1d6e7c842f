//! Where the search starts when the level's cycles do not use session order but the history
//! has sessions, and the level is violated with session order among the edges (SER on a
//! snapshot-isolation history: strong-session-SER fails on its write skews, SER itself may
//! hold under another version order). The first guess and the search's preferences follow a
//! topological order that breaks ties by rank ([`super::chain::by_rank`]), and a session's
//! place is a poor clock: a session whose transactions abort falls behind the others (on
//! general-wh's SI history at 10k transactions, places drift up to 15 turns of the 25 sessions
//! from the commit order), and the WR edges alone barely correct it. A clock good to a
//! transaction's length decides it at once (measured with the generator's timestamps).
//!
//! SI with session order among the edges usually holds on such histories, and its pruning
//! (PolySI 4.3) settles almost every constraint (96% on general-wh); the greedy pass settles
//! the rest. A topological order of the known edges, session order and those choices orders
//! the versions of each key nearly as the database did, and its positions become the ranks.
//! A heuristic only: the verdict is still decided on the polygraph without session order, and
//! `holds` still needs an acyclic resolution.

use super::constraints::Polygraph;
use super::graph::{DynGraph, Mode};
use super::prune::{self, positions, Arcs, PruneOutcome};
use crate::graph::search::Budget;

pub enum Ranks {
    /// Each transaction's position in that order.
    Si(Vec<u32>),
    /// No sessions, or SI with session order closes a cycle in pruning: no better order known.
    None,
    OutOfBudget,
}

/// The ranks SI with session order gives ([`Ranks`]).
pub fn si_ranks(pg: &Polygraph, budget: &mut Budget) -> Ranks {
    if pg.session.is_empty() {
        return Ranks::None;
    }
    let pruned = prune::prune(pg, Mode::Si, &pg.session, budget);
    match pruned.outcome {
        PruneOutcome::Open => {}
        PruneOutcome::Unknown => return Ranks::OutOfBudget,
        PruneOutcome::Cycle(_) | PruneOutcome::Conflict(_) => return Ranks::None,
    }
    let nodes = 2 * pg.n;
    if !budget.spend((pruned.edges.len() + nodes) as u64) {
        return Ranks::OutOfBudget;
    }
    let by_rank = |p: u32| super::chain::by_rank(&pg.rank, p);
    let Some(order) = Arcs::new(&pruned.edges, Mode::Si, nodes).topo_by(nodes, &by_rank) else {
        return Ranks::None;
    };
    // The open constraints, earliest first, each as this order puts its chains, unless that
    // closes a cycle (the greedy pass of the search; at 30k transactions this cut the SER
    // search's conflicts on the first 15k twentyfold against the pruned order alone).
    let pos = positions(&order);
    let mut g = DynGraph::from_edges(Mode::Si, pruned.edges);
    g.set_order(pos.clone());
    let place = |ci: usize| {
        let c = pg.cons[ci];
        let k = &pg.keys[c.key as usize];
        let at = |chain: u32| k.chain(chain).first().map_or(0, |v| pos[(2 * v.txn + 1) as usize]);
        (at(c.a), at(c.b))
    };
    let mut open: Vec<u32> = (0..pg.cons.len()).filter(|&c| pruned.resolved[c].is_none()).map(|c| c as u32).collect();
    crate::par::sort::sort_by_cached_key(&mut open, |&c| {
        let (a, b) = place(c as usize);
        a.min(b)
    });
    let prefer: Vec<bool> = (0..pg.cons.len())
        .map(|c| {
            let (a, b) = place(c);
            a < b
        })
        .collect();
    let order = match super::greedy(pg, &mut g, &open, &prefer, budget) {
        None => return Ranks::OutOfBudget,
        Some(true) => Arcs::new(g.edges(), Mode::Si, nodes).topo_by(nodes, &by_rank).unwrap_or(order),
        Some(false) => order,
    };
    // The SI product graph orders the state-1 nodes by every non-RW edge (an RW edge enters
    // state 0): WW, WR and session order go forward in this rank.
    let mut rank = vec![0u32; pg.n];
    for (i, &p) in order.iter().enumerate() {
        if p % 2 == 1 {
            if let Some(r) = rank.get_mut((p / 2) as usize) {
                *r = i as u32;
            }
        }
    }
    Ranks::Si(rank)
}
