//! A search on few constraints when a good order is known (SER on a snapshot-isolation
//! history, started from the order SI resolves to, [`super::rank`]): every open constraint is
//! fixed at its preferred choice, only those whose choice closes a cycle are freed, and the
//! search that learns ([`super::learn`]) decides the freed ones with the fixed ones as facts.
//! The fixed constraints on the cycles it meets, and on the cycles each freed choice closes with
//! the facts alone, are freed in turn, and it runs again (counterexample-guided refinement,
//! Clarke et al., CAV 2000). The order SI gives is wrong
//! only around write skews, so few are freed; the full search over hundreds of thousands of
//! open constraints meets its conflicts thousands of decisions after their cause.
//!
//! A heuristic for `holds` only: an acyclic resolution found is one of the whole polygraph (every
//! edge was tested as it was added). When the freed constraints have no acyclic resolution with
//! the facts, the rounds run out or too many are freed, pruning and the full search decide.

use super::constraints::Polygraph;
use super::graph::{Closes, DynGraph, Mode, Origin};
use super::learn;
use super::PolyStats;
use crate::graph::search::Budget;
use crate::graph::Edge;

/// Rounds of freeing and searching before the full search takes over (each round about
/// doubles the constraints freed).
const ROUNDS: u32 = 16;

/// The share of the open constraints (one in this many, and at least [`FREE_MIN`]) beyond which
/// freeing more is given up: the guess is then wrong far beyond a few write skews, and pruning
/// and the full search do better (general-rw SI at 30k, seed 12: the repair still failing at
/// 33k of 661k freed after 13.6 s, where pruning and the search take 20 s in all; general-wh
/// at 30k, seed 11, repaired with 14k of 1.2M freed).
const FREE_SHARE: usize = 50;
const FREE_MIN: usize = 2000;
/// And at most this many: each round probes every freed constraint with a search of the graph
/// (general-wh SI at 30k with zipfian keys, 4M constraints, SER violated: 9 rounds, 73k freed,
/// 50 s, where pruning and the search decide in 8.8 s).
const FREE_MAX: usize = 20_000;

/// Steps one round's search may take (a share of the caller's budget, whichever is smaller).
const ROUND_STEPS: u64 = 200_000_000;

pub enum Repaired {
    /// The graph holds an acyclic resolution of every open constraint.
    Acyclic,
    /// Not found; the graph is as it was.
    GaveUp,
    OutOfBudget,
}

/// [`repair`] from the known edges (and `extra`): every constraint open, each preferring the
/// order of its writers in a topological order of those edges that breaks ties by `rank`.
pub fn first_guess(
    pg: &Polygraph,
    mode: Mode,
    extra: &[Edge],
    rank: &[u32],
    budget: &mut Budget,
    stats: &mut PolyStats,
) -> Repaired {
    let known: Vec<(Edge, Origin)> = pg.certain(extra);
    let Some((pos, prefer)) = super::preferences(pg, &known, mode, rank) else { return Repaired::GaveUp };
    let mut g = DynGraph::with_edges(pg, mode, &known);
    g.set_order(pos.clone());
    let mut open: Vec<u32> = (0..pg.cons.len() as u32).collect();
    crate::par::sort::sort_by_cached_key(&mut open, |&c| super::earliest(pg, &pos, c));
    repair(pg, &mut g, &open, &prefer, budget, stats)
}

/// `g` holds the known and forced edges, `open` the constraints left in the order to decide
/// them, `prefer` each constraint's preferred choice. The rounds, the constraints freed and the
/// searches' work are added to `stats`.
fn repair(
    pg: &Polygraph,
    g: &mut DynGraph,
    open: &[u32],
    prefer: &[bool],
    budget: &mut Budget,
    stats: &mut PolyStats,
) -> Repaired {
    let base = g.len();
    let mut freed = vec![false; pg.cons.len()];
    let mut is_open = vec![false; pg.cons.len()];
    let mut quiet = vec![false; pg.cons.len()];
    for &c in open {
        is_open[c as usize] = true;
    }
    for _ in 0..ROUNDS {
        // Fix every constraint not freed, freeing those that close a cycle, until none does.
        loop {
            g.truncate(base);
            let mut more = false;
            for &c in open {
                if freed[c as usize] {
                    continue;
                }
                let first = prefer.get(c as usize).copied().unwrap_or(true);
                match fix(pg, g, c, first, budget) {
                    None => {
                        g.truncate(base);
                        return Repaired::OutOfBudget;
                    }
                    Some(Ok(())) => {}
                    Some(Err(on_cycle)) => {
                        freed[c as usize] = true;
                        more = true;
                        for d in on_cycle {
                            if is_open.get(d as usize) == Some(&true) {
                                freed[d as usize] = true;
                            }
                        }
                    }
                }
            }
            if !more {
                break;
            }
        }
        let free: Vec<u32> = open.iter().copied().filter(|&c| freed[c as usize]).collect();
        if free.len() > FREE_MIN.max(open.len() / FREE_SHARE).min(FREE_MAX) {
            break;
        }
        stats.repair_rounds += 1;
        stats.freed = free.len();
        // The round runs on the caller's budget cut to its share; running out of that share
        // ends the round, not the check.
        let (total, cap) = (budget.steps, budget.steps.min(ROUND_STEPS));
        budget.steps = cap;
        let facts = g.len();
        let mut work = learn::Work::default();
        let options = learn::Options { sweep: false, chrono_jump: learn::CHRONO_JUMP };
        let out = learn::solve(pg, g, &free, prefer, options, budget, &mut work);
        stats.decisions += work.decisions;
        stats.conflicts += work.conflicts;
        stats.backjumps += work.backjumps;
        budget.steps = total - (cap - budget.steps);
        if budget.exhausted.is_some() && cap < total && budget.steps > 0 && !budget.interrupted() {
            budget.exhausted = None;
        }
        if budget.exhausted.is_some() {
            g.truncate(base);
            return Repaired::OutOfBudget;
        }
        if matches!(out, learn::Learned::Acyclic) {
            return Repaired::Acyclic;
        }
        // The search's own choices out: the probe below is against the facts alone.
        g.truncate(facts);
        let before = freed.iter().filter(|&&f| f).count();
        // The search stops at its first conflict that needs no choice; the other freed
        // constraints' cycles with the facts alone are found here, so that a round frees them all.
        // Facts only go, so a constraint neither of whose choices closed a cycle with them
        // closes none later: it is probed no more (one that did may close another cycle once
        // those facts are freed: the probe finds one cycle at a time).
        let mut grow = work.facts_on_cycles;
        for &c in &free {
            if quiet[c as usize] {
                continue;
            }
            let mut closed = false;
            for first in [true, false] {
                let mark = g.len();
                match fix(pg, g, c, first, budget) {
                    None => {
                        g.truncate(base);
                        return Repaired::OutOfBudget;
                    }
                    Some(Ok(())) => g.truncate(mark),
                    Some(Err(on_cycle)) => {
                        closed = true;
                        grow.extend(on_cycle);
                    }
                }
            }
            quiet[c as usize] = !closed;
        }
        for c in grow {
            if is_open.get(c as usize) == Some(&true) {
                freed[c as usize] = true;
            }
        }
        if freed.iter().filter(|&&f| f).count() == before {
            break;
        }
    }
    g.truncate(base);
    Repaired::GaveUp
}

/// Add the edges of choice `first` of `c`, or none if one closes a cycle: then the other
/// constraints on that cycle.
fn fix(pg: &Polygraph, g: &mut DynGraph, c: u32, first: bool, budget: &mut Budget) -> Option<Result<(), Vec<u32>>> {
    let cons = pg.cons[c as usize];
    if pg.side(cons, first).all(|e| g.forward(&e)) {
        g.push_choice(c, first);
        return Some(Ok(()));
    }
    let before = g.len();
    for (e, place) in pg.side_at(cons, first) {
        match g.closes(&e, budget) {
            Closes::No => g.push_side(e, c, first, place),
            Closes::Unknown => {
                g.truncate(before);
                return None;
            }
            Closes::Yes(path) => {
                let on = path
                    .iter()
                    .filter_map(|&id| match g.origin(id) {
                        Origin::Chosen { cons, .. } if cons != c => Some(cons),
                        _ => None,
                    })
                    .collect();
                g.truncate(before);
                return Some(Err(on));
            }
        }
    }
    Some(Ok(()))
}
