//! Exact checking of register histories without a version order, as PolySI does it for SER and SI
//! (Huang et al., VLDB 2023): the generalized polygraph (Def. 9; [`constraints`]), pruning to
//! a fixpoint (4.3; [`prune`]), a search for an acyclic resolution ([`solve`]; pure Rust,
//! where PolySI calls MonoSAT), and counterexamples as PolySI explains them (5.3, Appendices C
//! and E; rendered by `crate::explain`). PSI, PL-2 and PL-1 are decided the same way with their own cycle
//! patterns ([`graph`]): a level holds exactly when some version order of every key gives a
//! dependency graph without the cycles it forbids. Deciding SI or SER here is NP-complete; the
//! budget bounds the work and a level the budget cuts short is `unknown`.
//!
//! Session order is part of the known edges when asked for: PolySI checks (strong session)
//! SI, in which a session's transactions are ordered; so does this mode for SER and SI.

pub mod appends;
pub mod chain;
pub mod clauses;
pub mod compact;
pub mod constraints;
pub mod edges;
pub mod graph;
pub mod learn;
pub mod name;
pub mod prune;
pub mod rank;
pub mod reach;
pub mod reasons;
pub mod repair;
#[cfg(feature = "batsat")]
pub mod sat;
pub mod solve;
pub mod transitivity;

pub use constraints::{build, build_for, build_with_order, Constraint, Polygraph};
pub use graph::{Mode, Origin};

/// The memory the constraints of one check may take by default. Not a cap on the history:
/// compaction leaves far fewer constraints than pairs of versions, and a history whose
/// constraints would need more still gets the first guess and a search for a certain cycle,
/// then `unknown` with the reason. 4 GB natively (about 57 million constraints); 2 GB in
/// WebAssembly, whose 32-bit memory ends at 4 GB (about 28 million).
#[cfg(not(target_arch = "wasm32"))]
pub const MEMORY_BUDGET: u64 = 4 << 30;
#[cfg(target_arch = "wasm32")]
pub const MEMORY_BUDGET: u64 = 2 << 30;

/// What a constraint costs once its edges are drawn. Measured as the peak resident memory less
/// that of the same check with the constraints left unbuilt: 69 bytes on general-wh at 145,000
/// transactions (28.8M constraints, SER decided by a first guess repaired: 2,182,032 KB against
/// 241,876 KB). PolySI's general shapes at 30,000 (0.7-1.4M constraints, pruning and the search
/// that learns) peak at 118-173 MB a check, the history included. By the sizes of its arrays,
/// the search that learns adds about 70 bytes for each constraint pruning leaves open (not
/// measured: these histories leave few open; its learned clauses have their own bound, 512 MB).
/// It was 300 while the search's edges took 32 bytes, pruning's were copied into the search and
/// each arc kept its edge (13.7M constraints then took 2.2 GB).
pub const BYTES_PER_CONSTRAINT: u64 = 75;

/// The most constraints [`build`] materializes within a memory budget.
pub const fn max_constraints(memory: u64) -> u64 {
    memory / BYTES_PER_CONSTRAINT
}

/// The constraints the default memory budget affords.
pub const MAX_CONSTRAINTS: u64 = max_constraints(MEMORY_BUDGET);

/// Steps DPLL may spend to explain a violation the SAT search proved.
#[cfg(feature = "batsat")]
const EXPLAIN_STEPS: u64 = 50_000_000;

use crate::graph::search::Budget;
use crate::graph::{Edge, EdgeType};
use graph::{Closes, DynGraph};
use prune::PruneOutcome;
use serde::{Deserialize, Serialize};

/// Counts PolySI reports (Table 3): constraints before and after pruning, and the work done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolyStats {
    /// Known edges (WR, SO, RW from readers of initial values).
    pub known_edges: usize,
    /// Pairs of versions of a key: the constraints without compaction.
    pub version_pairs: u64,
    /// Pairs of chains of a key: the constraints after compaction (PolySI 4.2).
    pub constraints: usize,
    /// Whether pruning ran (the first guess, a repair, a cycle of known edges or the budget can
    /// decide before it), and the constraints it left open.
    #[serde(default)]
    pub pruned: bool,
    pub after_pruning: usize,
    pub pruning_rounds: u32,
    /// Guesses the search made.
    pub decisions: u64,
    /// Conflicts the search met (each one learned clause).
    #[serde(default)]
    pub conflicts: u64,
    /// Conflicts after which the search went back more than one level (non-chronologically).
    #[serde(default)]
    pub backjumps: u64,
    /// Whether the first guess (a version order from the known edges, [`chain`]) proved the
    /// level, so that no constraint was needed.
    pub chain_guess: bool,
    /// Rounds of [`repair`] (fixing the constraints at the first guess's choices, freeing
    /// those on cycles), and the constraints its last round searched.
    #[serde(default)]
    pub repair_rounds: u32,
    #[serde(default)]
    pub freed: usize,
    /// Whether it held with session order among the known edges (which the level's cycles
    /// need not use: holding with them, it holds without).
    pub with_session: bool,
}

/// A counterexample: a forbidden cycle, and when it goes through a choice of a constraint, the
/// cycle the other choice closes (together, an adjoining cycle set: PolySI Appendix E.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    pub cycle: Vec<(Edge, Origin)>,
    /// The constraint both of whose choices close a cycle, and the other choice's cycle.
    pub other: Option<(Constraint, Vec<(Edge, Origin)>)>,
    /// Why the forced choices on these cycles were forced ([`reasons`]).
    pub reasons: Vec<reasons::Reason>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Holds,
    Violated(Counterexample),
    Unknown(String),
}

/// How the open constraints are resolved after pruning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    /// The version-order guess of [`chain`] first, then pruning, the guess again, then the
    /// search that learns ([`learn`]; its first descent is a greedy pass, enough for most
    /// histories that hold).
    Fast,
    /// Pruning, a greedy pass, then the search that learns (to see the constraints pruning
    /// leaves).
    NoChain,
    /// The search that learns alone: no pruning, and choices tested only when taken (no sweep
    /// over every open constraint), so that its learning must make it complete (for tests).
    LearnOnly,
    /// [`SearchMode::LearnOnly`] going back one level after every conflict (chronological
    /// backtracking, which the default does only for long jumps; for tests).
    LearnChrono,
    /// The first guess [`repair`]ed before anything is pruned, whatever the history's size and
    /// where its rank came from (which the fast search does only for SER on a history with
    /// sessions, from SI's order); then as [`SearchMode::NoChain`] (for tests: a `holds` from
    /// the repair must be right).
    RepairFirst,
    /// Pruning, then DPLL with chronological backtracking only ([`solve`]; for tests of the
    /// searches against each other).
    DpllOnly,
    /// Pruning, then CDCL modulo acyclicity (`sat`, feature `batsat`) only.
    #[cfg(feature = "batsat")]
    SatOnly,
}

/// PL-2 or PL-1 on a polygraph without compaction, with no search and no budget: the level
/// holds exactly when the known edges its cycles may use (PL-2: all but RW, that is WR and any
/// WW an assumed order gives; PL-1: WW) form no cycle, since a topological order of them, taken
/// as every key's version order, draws each WW edge forward; else every version order keeps
/// that cycle, and it is the counterexample (not the shortest). Linear in the known edges.
/// `None` for another mode or a compacted polygraph (whose chains assume no lost update).
pub fn decide_without_search(pg: &Polygraph, mode: Mode) -> Option<Decision> {
    let used = |t: EdgeType| match mode {
        Mode::Pl2 => t != EdgeType::Rw,
        Mode::Pl1 => t == EdgeType::Ww,
        _ => false,
    };
    if pg.compact || !matches!(mode, Mode::Pl2 | Mode::Pl1) {
        return None;
    }
    let edges: Vec<&Edge> = pg.known.iter().filter(|e| used(e.ty)).collect();
    let n = pg.n;
    let mut indeg = vec![0u32; n];
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        indeg[e.to as usize] += 1;
        out[e.from as usize].push(i as u32);
    }
    let mut stack: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    let mut left = vec![true; n];
    while let Some(v) = stack.pop() {
        left[v] = false;
        for &i in &out[v] {
            let w = edges[i as usize].to as usize;
            indeg[w] -= 1;
            if indeg[w] == 0 {
                stack.push(w);
            }
        }
    }
    let Some(start) = (0..n).find(|&v| left[v]) else { return Some(Decision::Holds) };
    // Each vertex left has an edge in from another vertex left: walk them back to a repeat.
    let mut into: Vec<Option<u32>> = vec![None; n];
    for (i, e) in edges.iter().enumerate() {
        if left[e.from as usize] && left[e.to as usize] {
            into[e.to as usize] = Some(i as u32);
        }
    }
    let mut at = vec![usize::MAX; n];
    let mut path: Vec<u32> = Vec::new();
    let mut v = start;
    while at[v] == usize::MAX {
        at[v] = path.len();
        let i = into[v]?;
        path.push(i);
        v = edges[i as usize].from as usize;
    }
    let mut cycle: Vec<(Edge, Origin)> = path[at[v]..].iter().map(|&i| (*edges[i as usize], Origin::Certain)).collect();
    cycle.reverse();
    Some(Decision::Violated(Counterexample { cycle, other: None, reasons: Vec::new() }))
}

/// Decide `mode` for a polygraph.
pub fn decide(pg: &Polygraph, mode: Mode, budget: &mut Budget) -> (Decision, PolyStats) {
    decide_with(pg, mode, budget, SearchMode::Fast)
}

/// [`decide`], choosing how open constraints are searched.
///
/// When the level's cycles do not use session order but the history has sessions, the fast
/// search first decides with session order among the known edges (as PolySI and Cobra check):
/// a resolution acyclic with more edges is acyclic with fewer, so `holds` there holds here, and
/// session order's edges make pruning far stronger (PolySI Table 3's counts are with them).
/// Anything else is decided again without them.
pub fn decide_with(pg: &Polygraph, mode: Mode, budget: &mut Budget, search: SearchMode) -> (Decision, PolyStats) {
    if search == SearchMode::Fast && !pg.session.is_empty() {
        // Its counterexample is never shown (a violation is decided again without session order):
        // not explained, which would copy the graph once a reason.
        let (v, mut st) =
            decide_from(pg, mode, &pg.session, &pg.rank, budget, Run { search, guided: false, explain: false });
        match v {
            Decision::Holds => {
                st.with_session = true;
                return (v, st);
            }
            Decision::Unknown(_) => return (v, st),
            Decision::Violated(_) => {}
        }
        // Without session order, session ranks are a poor clock: start from the order SI with
        // session order gives, when it holds there ([`rank`]).
        if matches!(mode, Mode::Ser | Mode::Psi) {
            match rank::si_ranks(pg, budget) {
                rank::Ranks::OutOfBudget => return (unknown(budget), st),
                rank::Ranks::Si(r) => {
                    return decide_from(pg, mode, &[], &r, budget, Run { search, guided: true, explain: true })
                }
                rank::Ranks::None => {}
            }
        }
    }
    decide_from(pg, mode, &[], &pg.rank, budget, Run { search, guided: false, explain: true })
}

/// An acyclic resolution of `pg` for `mode` (SER or SI) with `extra` edges known: the known
/// edges and the chosen ones, for a certificate's witness; `None` when there is none or the
/// budget ran out. The first guess ([`chain`]), else pruning and the search that learns, as
/// [`decide`] tries them (without its detours, which only make a `holds` faster).
pub fn resolve(pg: &Polygraph, mode: Mode, extra: &[Edge], budget: &mut Budget) -> Option<Vec<Edge>> {
    let known = pg.certain(extra);
    if let Some(found) = chain::guess_edges(pg, mode, &known, &pg.rank, budget)? {
        return Some(found.into_iter().map(|(e, _)| e).collect());
    }
    // Pruning and the search need every constraint at hand.
    if pg.cons.len() as u64 != pg.pairs {
        return None;
    }
    let pruned = prune::prune(pg, mode, extra, budget);
    if !matches!(pruned.outcome, PruneOutcome::Open) {
        return None;
    }
    // The first guess again, with the choices pruning forced.
    if let Some(found) = chain::guess_edges(pg, mode, &pruned.edges, &pg.rank, budget)? {
        return Some(found.into_iter().map(|(e, _)| e).collect());
    }
    let mut open: Vec<u32> =
        pruned.resolved.iter().enumerate().filter(|(_, r)| r.is_none()).map(|(i, _)| i as u32).collect();
    let mut g = DynGraph::from_edges(mode, pruned.edges);
    let prefer = match preferences(pg, g.edges(), mode, &pg.rank) {
        Some((pos, prefer)) => {
            crate::par::sort::sort_by_cached_key(&mut open, |&c| earliest(pg, &pos, c));
            g.set_order(pos);
            prefer
        }
        None => vec![true; pg.cons.len()],
    };
    match solve_open(
        pg,
        &mut g,
        &open,
        &prefer,
        budget,
        PolyStats::default(),
        Run { search: SearchMode::Fast, guided: false, explain: false },
    ) {
        (Decision::Holds, _) => Some(g.edges().iter().map(|(e, _)| e).collect()),
        _ => None,
    }
}

/// How [`decide_from`] runs. `guided`: the rank is the order SI with session order resolves to
/// ([`rank`]), wrong only around write skews, so that its first guess is [`repair`]ed before
/// anything is pruned. `explain`: a violation's counterexample is shown, so its forced choices
/// get their reasons.
#[derive(Clone, Copy)]
struct Run {
    search: SearchMode,
    guided: bool,
    explain: bool,
}

/// `unknown`, with the reason the budget gives.
fn unknown(b: &Budget) -> Decision {
    Decision::Unknown(b.exhausted.clone().unwrap_or_else(|| "the step budget ran out".into()))
}

/// [`decide_with`] with `extra` edges taken as known; `rank` orders the transactions where the
/// edges leave a choice (the first guess, the search's preferences and its order).
fn decide_from(
    pg: &Polygraph,
    mode: Mode,
    extra: &[Edge],
    rank: &[u32],
    budget: &mut Budget,
    run: Run,
) -> (Decision, PolyStats) {
    let Run { search, guided, explain } = run;
    let mut stats = PolyStats {
        known_edges: pg.known.len() + extra.len(),
        version_pairs: pg.version_pairs,
        constraints: pg.pairs as usize,
        ..Default::default()
    };
    if pg.compact && matches!(mode, Mode::Pl2 | Mode::Pl1) {
        // Compaction assumes no lost update, which these levels allow.
        return (
            Decision::Unknown(
                "this polygraph was compacted for SER, SI or PSI; PL-2 and PL-1 need one built without compaction"
                    .into(),
            ),
            stats,
        );
    }
    let all = pg.cons.len() as u64 == pg.pairs;
    if search == SearchMode::Fast || !all {
        match chain::guess(pg, mode, extra, rank, budget) {
            Some(true) => {
                stats.chain_guess = true;
                return (Decision::Holds, stats);
            }
            Some(false) => {}
            None => return (unknown(budget), stats),
        }
    }
    let repair_first =
        (guided && search == SearchMode::Fast && pg.cons.len() > learn::SWEEP_MAX) || search == SearchMode::RepairFirst;
    if repair_first && all && mode != Mode::Psi {
        // Pruning without session order is slow on large histories (quadratic in the
        // transactions) and weak (half the constraints stay open on general-wh at 30k).
        match repair::first_guess(pg, mode, extra, rank, budget, &mut stats) {
            repair::Repaired::Acyclic => return (Decision::Holds, stats),
            repair::Repaired::OutOfBudget => return (unknown(budget), stats),
            repair::Repaired::GaveUp => {}
        }
    }
    let pruned = match search {
        SearchMode::LearnOnly | SearchMode::LearnChrono => prune::known(pg, mode, extra),
        _ => prune::prune(pg, mode, extra, budget),
    };
    let (outcome, rounds, resolved) = (pruned.outcome, pruned.rounds, pruned.resolved);
    let mut g = DynGraph::from_edges(mode, pruned.edges);
    // Pruning sees product-graph cycles only; PSI's cycles with one RW edge are tested here.
    if mode == Mode::Psi && matches!(outcome, PruneOutcome::Open | PruneOutcome::Conflict(_)) {
        if let Some(pos) = prune::order(g.edges(), mode, 2 * pg.n) {
            g.set_order(pos);
        }
        match graph::one_rw_cycle(&mut g, budget) {
            Err(graph::OutOfBudget) => return (unknown(budget), stats),
            Ok(Some(cycle)) => {
                let cx = Counterexample { cycle, other: None, reasons: Vec::new() };
                return (Decision::Violated(explained(explain, pg, &g, cx, budget)), stats);
            }
            Ok(None) => {}
        }
    }
    if !all && matches!(outcome, PruneOutcome::Open) {
        let why = format!(
            "the history has {} constraints (pairs of a key's chains of versions, whose order it leaves open: read-modify-write chains of a register, or appends no read observed; {} pairs of versions), which would take about {} MB, more than the memory budget of {} MB ({} constraints), and the first guess of a version order has a cycle",
            pg.pairs,
            pg.version_pairs,
            pg.pairs.saturating_mul(BYTES_PER_CONSTRAINT) >> 20,
            pg.limit.saturating_mul(BYTES_PER_CONSTRAINT) >> 20,
            pg.limit
        );
        return (Decision::Unknown(why), stats);
    }
    stats.pruned = true;
    stats.pruning_rounds = rounds;
    let open: Vec<u32> = resolved.iter().enumerate().filter(|(_, r)| r.is_none()).map(|(i, _)| i as u32).collect();
    stats.after_pruning = open.len();
    match outcome {
        PruneOutcome::Unknown => (unknown(budget), stats),
        PruneOutcome::Cycle(ids) => {
            let cycle = shortest_through(&mut g, &ids, budget)
                .unwrap_or_else(|| ids.iter().map(|&i| g.edge(i as u32)).collect());
            (
                Decision::Violated(explained(
                    explain,
                    pg,
                    &g,
                    Counterexample { cycle, other: None, reasons: Vec::new() },
                    budget,
                )),
                stats,
            )
        }
        PruneOutcome::Conflict(c) => {
            if let Some(pos) = prune::order(g.edges(), mode, 2 * pg.n) {
                g.set_order(pos);
            }
            match conflict(pg, &mut g, c, budget) {
                Some(cx) => (Decision::Violated(explained(explain, pg, &g, cx, budget)), stats),
                None => (unknown(budget), stats),
            }
        }
        PruneOutcome::Open => {
            let mut open = open;
            let prefer = match preferences(pg, g.edges(), mode, rank) {
                Some((pos, prefer)) => {
                    crate::par::sort::sort_by_cached_key(&mut open, |&c| earliest(pg, &pos, c));
                    g.set_order(pos);
                    prefer
                }
                None => vec![true; pg.cons.len()],
            };
            if search == SearchMode::Fast && pg.cons.len() > 64 {
                // The first guess again, now with the choices pruning forced.
                match chain::guess_from(pg, mode, g.edges(), rank, budget) {
                    Some(true) => {
                        stats.chain_guess = true;
                        return (Decision::Holds, stats);
                    }
                    Some(false) => {}
                    None => return (unknown(budget), stats),
                }
            }
            if matches!(search, SearchMode::NoChain | SearchMode::RepairFirst) {
                let before = g.len();
                match greedy(pg, &mut g, &open, &prefer, budget) {
                    Some(true) => return (Decision::Holds, stats),
                    Some(false) => g.truncate(before),
                    None => return (unknown(budget), stats),
                }
            }
            #[cfg(feature = "batsat")]
            if search == SearchMode::SatOnly {
                return match sat::solve(pg, &mut g, &open, &prefer, budget) {
                    sat::SatOutcome::Acyclic => (Decision::Holds, stats),
                    sat::SatOutcome::Unknown => (unknown(budget), stats),
                    sat::SatOutcome::Unsat(last) => {
                        // The counterexample: DPLL's conflict with every choice implied, if DPLL
                        // finds it within a bounded effort; else the last cycle the SAT search met.
                        let mut bounded = Budget::new(budget.steps.min(EXPLAIN_STEPS), None);
                        match solve_open(
                            pg,
                            &mut g,
                            &open,
                            &prefer,
                            &mut bounded,
                            stats,
                            Run { search: SearchMode::DpllOnly, ..run },
                        ) {
                            (v @ Decision::Violated(_), st) => (v, st),
                            (_, st) => (
                                Decision::Violated(Counterexample { cycle: last, other: None, reasons: Vec::new() }),
                                st,
                            ),
                        }
                    }
                };
            }
            solve_open(pg, &mut g, &open, &prefer, budget, stats, run)
        }
    }
}

/// Prefer, for each constraint, the order of its writers in a topological order of `edges`
/// that breaks ties by `rank` (as the first guess): on histories that hold this is usually
/// right. The order's positions (product node -> place), and each constraint's preference.
pub(super) fn preferences(
    pg: &Polygraph,
    edges: &dyn edges::EdgeList,
    mode: Mode,
    rank: &[u32],
) -> Option<(Vec<u32>, Vec<bool>)> {
    let nodes = 2 * pg.n;
    let by_rank = |p: u32| chain::by_rank(rank, p);
    let pos = prune::positions(&prune::Arcs::new(edges, mode, nodes).topo_by(nodes, &by_rank)?);
    let first_txn = |c: Constraint, chain: u32| pg.keys[c.key as usize].chain(chain)[0].txn;
    let prefer = pg
        .cons
        .iter()
        .map(|&c| pos[(2 * first_txn(c, c.a) + 1) as usize] < pos[(2 * first_txn(c, c.b) + 1) as usize])
        .collect();
    Some((pos, prefer))
}

/// Where a constraint's earlier writer stands in these positions: deciding the earliest
/// choices first, the greedy pass builds the order front to back.
pub(super) fn earliest(pg: &Polygraph, pos: &[u32], c: u32) -> u32 {
    let c = pg.cons[c as usize];
    let k = &pg.keys[c.key as usize];
    let (a, b) = (k.chain(c.a)[0].txn, k.chain(c.b)[0].txn);
    pos[(2 * a + 1) as usize].min(pos[(2 * b + 1) as usize])
}

/// Greedily, each open constraint its preferred choice unless that closes a cycle with the
/// edges so far, else the other; every edge added is tested, so success proves acyclicity.
/// `Some(false)` when some constraint had no choice left (the search decides then).
fn greedy(pg: &Polygraph, g: &mut DynGraph, open: &[u32], prefer: &[bool], budget: &mut Budget) -> Option<bool> {
    for &c in open {
        let first = prefer[c as usize];
        let pick = match solve::feasible(pg, g, c, first, budget)? {
            true => first,
            false if solve::feasible(pg, g, c, !first, budget)? => !first,
            false => return Some(false),
        };
        g.push_choice(c, pick);
    }
    Some(true)
}

fn solve_open(
    pg: &Polygraph,
    g: &mut DynGraph,
    open: &[u32],
    prefer: &[bool],
    budget: &mut Budget,
    mut stats: PolyStats,
    run: Run,
) -> (Decision, PolyStats) {
    let Run { search, explain, .. } = run;
    if search == SearchMode::DpllOnly {
        return match solve::solve(pg, g, open, prefer, budget, &mut stats.decisions) {
            solve::Solved::Acyclic => (Decision::Holds, stats),
            solve::Solved::Unknown => (unknown(budget), stats),
            solve::Solved::Conflict(c) => match conflict(pg, g, c, budget) {
                Some(cx) => (Decision::Violated(explained(explain, pg, g, cx, budget)), stats),
                None => (unknown(budget), stats),
            },
        };
    }
    let mut work = learn::Work::default();
    let out = learn::solve(
        pg,
        g,
        open,
        prefer,
        learn::Options {
            sweep: !matches!(search, SearchMode::LearnOnly | SearchMode::LearnChrono),
            chrono_jump: if search == SearchMode::LearnChrono { 0 } else { learn::CHRONO_JUMP },
        },
        budget,
        &mut work,
    );
    stats.decisions += work.decisions;
    stats.conflicts += work.conflicts;
    stats.backjumps += work.backjumps;
    match out {
        learn::Learned::Acyclic => (Decision::Holds, stats),
        learn::Learned::Unknown => (unknown(budget), stats),
        learn::Learned::Conflict { cons, cycle } => {
            // Explained best by a constraint both of whose choices close a cycle with the
            // choices every resolution makes; else by the last cycle the search met.
            // The scan has its own bounded budget (the verdict is known; only its display is
            // looked for), shared by all the constraints tried.
            let mut own = Budget::new(budget.steps.min(REASON_STEPS), None);
            let both = cons.and_then(|c| conflict(pg, g, c, budget)).or_else(|| {
                open.iter().find_map(|&c| match own.exhausted {
                    None => conflict(pg, g, c, &mut own),
                    Some(_) => None,
                })
            });
            let cx = both.unwrap_or(Counterexample { cycle, other: None, reasons: Vec::new() });
            if cx.cycle.is_empty() {
                return (Decision::Unknown("the search found no cycle to show".into()), stats);
            }
            (Decision::Violated(explained(explain, pg, g, cx, budget)), stats)
        }
    }
}

/// The shortest cycle through one of these edges (which close a cycle in `g`).
fn shortest_through(g: &mut DynGraph, ids: &[usize], budget: &mut Budget) -> Option<Vec<(Edge, Origin)>> {
    let mut best: Option<Vec<(Edge, Origin)>> = None;
    for &i in ids {
        if i >= g.len() {
            continue;
        }
        let (e, o) = g.edge(i as u32);
        if let Closes::Yes(path) = g.closes(&e, budget) {
            if best.as_ref().is_none_or(|b| path.len() + 1 < b.len()) {
                let mut c = vec![(e, o)];
                c.extend(path.iter().map(|&id| g.edge(id)));
                best = Some(c);
            }
        }
    }
    best
}

/// The cycle each choice of `c` closes in `g`.
fn conflict(pg: &Polygraph, g: &mut DynGraph, c: u32, budget: &mut Budget) -> Option<Counterexample> {
    let mut cycles = Vec::new();
    for first in [true, false] {
        let before = g.len();
        let mut found = None;
        for (e, place) in pg.side_at(pg.cons[c as usize], first) {
            let o = Origin::Chosen { cons: c, first };
            match g.closes(&e, budget) {
                Closes::Yes(path) => {
                    let mut cyc = vec![(e, o)];
                    cyc.extend(path.iter().map(|&id| g.edge(id)));
                    found = Some(cyc);
                    break;
                }
                Closes::No => g.push_side(e, c, first, place),
                Closes::Unknown => break,
            }
        }
        g.truncate(before);
        cycles.push(found?);
    }
    let other = cycles.pop()?;
    let cycle = cycles.pop()?;
    Some(Counterexample { cycle, other: Some((pg.cons[c as usize], other)), reasons: Vec::new() })
}

/// Steps the reasons of a counterexample may take (their own budget: the verdict is known).
const REASON_STEPS: u64 = 10_000_000;

/// Add the reasons of the forced choices on the counterexample's cycles (unless its caller
/// only needs the verdict).
fn explained(explain: bool, pg: &Polygraph, g: &DynGraph, mut cx: Counterexample, budget: &Budget) -> Counterexample {
    if !explain {
        return cx;
    }
    let mut own = Budget::new(budget.steps.min(REASON_STEPS), None);
    let conflict = cx.other.as_ref().and_then(|(c, _)| pg.cons.iter().position(|x| x == c)).map(|i| i as u32);
    let mut cycles: Vec<&[(Edge, Origin)]> = vec![&cx.cycle];
    if let Some((_, other)) = &cx.other {
        cycles.push(other);
    }
    cx.reasons = reasons::reasons(pg, g, &cycles, conflict, &mut own);
    cx
}
