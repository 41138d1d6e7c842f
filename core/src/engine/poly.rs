//! Register histories without a version order: the levels that need one decided exactly on the
//! generalized polygraph instead (PolySI; [`crate::polygraph`]), and the notes that say, once the
//! verdicts are final, how each level was decided.

use super::{Check, CheckOptions, Graphs, LevelOutcome, Named, PolyWitness, RegisterMode, Verdict};
use crate::graph::search::Budget;
use crate::history::{History, Model};
use crate::level::{Level, Order};
use crate::polygraph::{Counterexample, Decision, Mode};
use crate::words::{count, counted};

/// The levels decided on a polygraph (of a register's versions, or of unobserved appends'
/// orders), their counterexamples and what to note of each.
#[derive(Default)]
pub(super) struct Poly {
    pub(super) levels: Vec<PolyLevel>,
    /// `Outcome::poly`.
    pub(super) witnesses: Vec<PolyWitness>,
    pub(super) notes: Vec<PolyNote>,
}

impl Poly {
    /// Whether `l` was decided on a polygraph.
    pub(super) fn decides(&self, l: Level) -> bool {
        self.levels.iter().any(|p| p.level == l)
    }
}

/// A level decided on the polygraph.
pub(super) struct PolyLevel {
    pub(super) level: Level,
    pub(super) verdict: Decision,
    /// Its counterexample, in `Outcome::poly`.
    pub(super) witness: Option<usize>,
    pub(super) implied_by: Option<Level>,
}

/// What the polygraph did for a level, written as a note once the verdicts are final.
pub(super) struct PolyNote {
    pub(super) level: Level,
    pub(super) decided: bool,
    /// "on the generalized polygraph (PolySI): ..." with its counts.
    pub(super) text: String,
}

/// The levels the polygraph decides, in the order they are tried: weaker ones are often
/// implied by a stronger one that holds, and stronger ones by a weaker one that is violated.
const POLYGRAPH_LEVELS: [(Level, Mode, Order); 9] = [
    (Level::Si, Mode::Si, Order::None),
    (Level::Ser, Mode::Ser, Order::None),
    (Level::Psi, Mode::Psi, Order::None),
    (Level::Pl2, Mode::Pl2, Order::None),
    (Level::Pl1, Mode::Pl1, Order::None),
    (Level::StrongSessionSi, Mode::Si, Order::Session),
    (Level::StrongSessionSer, Mode::Ser, Order::Session),
    (Level::StrongSi, Mode::Si, Order::Realtime),
    (Level::StrictSer, Mode::Ser, Order::Realtime),
];

/// Whether the polygraph decides levels of this history under these options.
pub(super) fn polygraph_applies(h: &History, opts: &CheckOptions) -> bool {
    h.model == Model::RwRegister
        && match opts.register_mode {
            RegisterMode::Auto => h.version_order.is_none(),
            RegisterMode::Polygraph => true,
            RegisterMode::SureEdges => false,
        }
}

/// The levels of a register history without a version order, decided on the polygraph (PolySI)
/// with the order their cycles may use among the known edges; the weak levels need no version
/// order and keep their own graphs.
pub(super) fn polygraph_levels(cx: Check, budget: &mut Budget, graphs: &mut Graphs) -> Poly {
    let Check { h, inf, opts, levels, .. } = cx;
    let (mut out, mut witnesses): (Vec<PolyLevel>, Vec<PolyWitness>) = (Vec::new(), Vec::new());
    let mut notes = Vec::new();
    if !polygraph_applies(h, opts) {
        return Poly::default();
    }
    let realtime = match levels.iter().any(|l| l.spec().order == Order::Realtime) {
        true => cx.realtime_included(),
        false => String::new(),
    };
    for order in [Order::None, Order::Session, Order::Realtime] {
        // Two polygraphs: compacted for the levels without lost updates, plain for PL-2 and PL-1.
        let mut pgs: [Option<crate::polygraph::Polygraph>; 2] = [None, None];
        let mut violated_here = [false; 2];
        let first_witness = witnesses.len();
        let mut slot_of: Vec<usize> = Vec::new();
        for &(l, mode, _) in POLYGRAPH_LEVELS.iter().filter(|p| p.2 == order && levels.contains(&p.0)) {
            // Implied by a level decided before: a stronger one holds, or a weaker is violated.
            let implied = out.iter().find_map(|d| match d.verdict {
                Decision::Holds if d.level.weaker().contains(&l) => Some((d.level, Decision::Holds, None)),
                Decision::Violated(_) if l.weaker().contains(&d.level) => Some((d.level, d.verdict.clone(), d.witness)),
                _ => None,
            });
            if let Some((d, verdict, witness)) = implied {
                out.push(PolyLevel { level: l, verdict, witness, implied_by: Some(d) });
                continue;
            }
            let slot = usize::from(matches!(mode, Mode::Pl2 | Mode::Pl1));
            let pg = pgs[slot].get_or_insert_with(|| {
                crate::polygraph::build_for(h, inf, order, mode, crate::polygraph::MAX_CONSTRAINTS)
            });
            let (mut verdict, st) = crate::polygraph::decide(pg, mode, budget);
            // PL-2 and PL-1 need no search (docs/polygraph.md): when the polygraph's did not
            // decide them (the budget ran out), a topological sort of the known edges does.
            if let Decision::Unknown(why) = &verdict {
                if let Some(v) = crate::polygraph::decide_without_search(pg, mode) {
                    notes.push(PolyNote {
                        level: l,
                        decided: true,
                        text: without_search_text(&v, mode, why, st.known_edges),
                    });
                    verdict = v;
                    let witness = record(&verdict, l, slot, &mut violated_here, &mut slot_of, &mut witnesses);
                    out.push(PolyLevel { level: l, verdict, witness, implied_by: None });
                    continue;
                }
            }
            notes.push(PolyNote {
                level: l,
                decided: !matches!(verdict, Decision::Unknown(_)),
                text: format!(
                "on the generalized polygraph (PolySI){}: {}, {} ({} before compaction), {}{}, {}, learning from {}",
                match (order, st.with_session) {
                    (Order::None, false) => "",
                    (Order::None, true) => " (it holds even with session order among the known edges)",
                    (Order::Session, _) => ", session order included",
                    (Order::Realtime, _) => &realtime,
                },
                counted(st.known_edges as u64, "known edge"),
                counted(st.constraints as u64, "constraint"),
                count(st.version_pairs, "pair of versions", "pairs of versions"),
                if st.pruned {
                    format!("{} after pruning ({})", st.after_pruning, counted(st.pruning_rounds, "round"))
                } else {
                    "not pruned".to_string()
                },
                if st.repair_rounds > 0 {
                    format!(
                        ", a first guess repaired in {} ({} of its choices freed and searched)",
                        counted(st.repair_rounds, "round"),
                        st.freed
                    )
                } else {
                    String::new()
                },
                counted(st.decisions, "guess"),
                counted(st.conflicts, "conflict")
            ),
            });
            let witness = record(&verdict, l, slot, &mut violated_here, &mut slot_of, &mut witnesses);
            out.push(PolyLevel { level: l, verdict, witness, implied_by: None });
        }
        // Keep a polygraph only while a counterexample refers to it.
        let mut index = [usize::MAX; 2];
        for (slot, pg) in pgs.into_iter().enumerate() {
            if let (Some(pg), true) = (pg, violated_here[slot]) {
                index[slot] = graphs.polygraphs.len();
                graphs.polygraphs.push(pg);
            }
        }
        for (w, &slot) in witnesses[first_witness..].iter_mut().zip(&slot_of) {
            w.polygraph = index[slot];
        }
    }
    Poly { levels: out, witnesses, notes }
}

/// A violation's counterexample kept as a witness of polygraph `slot`: its index in `witnesses`.
fn record(
    verdict: &Decision,
    l: Level,
    slot: usize,
    violated_here: &mut [bool; 2],
    slot_of: &mut Vec<usize>,
    witnesses: &mut Vec<PolyWitness>,
) -> Option<usize> {
    let Decision::Violated(cx) = verdict else { return None };
    violated_here[slot] = true;
    slot_of.push(slot);
    let (named, covered) = poly_named(cx, l);
    witnesses.push(PolyWitness { polygraph: slot, named, covered, counterexample: cx.clone() });
    Some(witnesses.len() - 1)
}

/// How PL-2 or PL-1 was decided without the search that left it undecided (the budget cut it
/// short, or the constraints were over the memory budget), after "was decided ".
fn without_search_text(v: &Decision, mode: Mode, why: &str, known: usize) -> String {
    let cycle = if mode == Mode::Pl1 { "cycle of WW edges" } else { "cycle without RW edges" };
    let how = match v {
        Decision::Holds => format!(
            "they have no {cycle}, so a topological order of them, taken as every key's version order, gives a graph without one"
        ),
        _ => format!("they close a {cycle}, which every version order keeps"),
    };
    format!(
        "without a search, on the generalized polygraph's {} (its search did not decide: {why}): {how}",
        counted(known as u64, "known edge")
    )
}

/// A polygraph counterexample's anomaly, named by all its cycles (`name::of_counterexample`).
pub(super) fn poly_named(cx: &Counterexample, level: Level) -> (Named, bool) {
    let (kind, order, covered) = crate::polygraph::name::of_counterexample(cx, level);
    (Named { kind, order }, covered)
}

/// The polygraph's notes: "decided" only of a level the table shows decided.
pub(super) fn poly_note_text(poly: &[PolyNote], levels: &[PolyLevel], outcomes: &[LevelOutcome]) -> Vec<String> {
    let unknown = |l: Level| outcomes.iter().any(|o| o.level == l && o.verdict == Verdict::Unknown);
    poly.iter()
        .map(|p| match (p.decided, unknown(p.level)) {
            (true, false) if held_then_violated(p.level, levels, outcomes) => format!(
                "{} holds {}, with the reads the table lists set aside; those reads violate it",
                p.level.name(),
                p.text
            ),
            (true, false) => format!("{} was decided {}", p.level.name(), p.text),
            (true, true) => format!(
                "{} was searched {}; it is unknown all the same, for the reason the table gives",
                p.level.name(),
                p.text
            ),
            (false, _) => format!("{} was not decided {}", p.level.name(), p.text),
        })
        .collect()
}

/// Whether the polygraph found `l` holding and a finding (a thin-air or aborted read, ...)
/// violates it all the same.
fn held_then_violated(l: Level, levels: &[PolyLevel], outcomes: &[LevelOutcome]) -> bool {
    levels.iter().any(|p| p.level == l && p.verdict == Decision::Holds)
        && outcomes.iter().any(|o| o.level == l && o.verdict == Verdict::Violated)
}

/// The note on a register history without a version order: which levels the polygraph
/// decided, and which rest on the edges sure without one. None when no checked level needs it.
pub(super) fn version_order_note(
    h: &History,
    levels: &[Level],
    poly: &[PolyLevel],
    outcomes: &[LevelOutcome],
) -> Vec<String> {
    let mut notes = Vec::new();
    if h.model != Model::RwRegister || h.version_order.is_some() {
        return notes;
    }
    let names = |ls: &[Level]| Level::join_names(ls, ", ");
    let on_poly: Vec<Level> = poly.iter().map(|p| p.level).collect();
    let unknown_now = |l: Level| outcomes.iter().any(|o| o.level == l && o.verdict == Verdict::Unknown);
    let left: Vec<Level> = on_poly.iter().copied().filter(|&l| unknown_now(l)).collect();
    let (implied, decided): (Vec<&PolyLevel>, Vec<&PolyLevel>) =
        poly.iter().filter(|p| !unknown_now(p.level)).partition(|p| matches!(p.verdict, Decision::Unknown(_)));
    let (found, exact): (Vec<&PolyLevel>, Vec<&PolyLevel>) =
        decided.into_iter().partition(|p| held_then_violated(p.level, poly, outcomes));
    let found: Vec<Level> = found.iter().map(|p| p.level).collect();
    // Of those not decided there, the ones another level's cycle of certain edges violates.
    let by_cycle = |l: Level| outcomes.iter().any(|o| o.level == l && o.cycle_from.is_some());
    let (by_cycle, implied): (Vec<Level>, Vec<Level>) = implied.iter().map(|p| p.level).partition(|&l| by_cycle(l));
    // Of those decided there, the ones whose verdict follows from another level's (the table
    // says "as SI holds"): not searched themselves.
    let follows = |l: &Level| outcomes.iter().any(|o| o.level == *l && o.implied_by.is_some());
    let (follow, exact): (Vec<Level>, Vec<Level>) = exact.iter().map(|p| p.level).partition(follows);
    let sure: Vec<Level> = levels.iter().copied().filter(|l| l.spec().weak.is_none() && !on_poly.contains(l)).collect();
    if !on_poly.is_empty() {
        let mut parts = Vec::new();
        if !exact.is_empty() {
            parts.push(format!(
                "{} decided exactly on the generalized polygraph (PolySI), over every version order",
                names(&exact)
            ));
        }
        if !follow.is_empty() {
            parts.push(format!("{} following from another level's verdict there (the table names it)", names(&follow)));
        }
        if !found.is_empty() {
            parts.push(format!(
                "{} hold there with the reads the table lists set aside, and those reads violate them",
                names(&found)
            ));
        }
        if !left.is_empty() {
            parts.push(format!("{} unknown (the table gives the reason)", names(&left)));
        }
        if !implied.is_empty() {
            parts.push(format!(
                "{} not decided on the generalized polygraph, but following from another level's verdict (the table names it)",
                names(&implied)
            ));
        }
        if !by_cycle.is_empty() {
            parts.push(format!(
                "{} not decided on the generalized polygraph, but violated by another level's cycle of certain edges (the table names it)",
                names(&by_cycle)
            ));
        }
        // The search stops at its first contradiction: one counterexample a level.
        if poly.iter().any(|p| p.implied_by.is_none() && matches!(p.verdict, Decision::Violated(_))) {
            parts.push("a level violated there shows the one counterexample its search met, and there may be others (with a version order, from a write-ahead log, each strongly connected component shows its own)".into());
        }
        notes.push(format!(
            "no version order (write-ahead log) was given for this register history: {}",
            parts.join("; ")
        ));
    }
    if !sure.is_empty() {
        notes.push(format!(
            "no version order (write-ahead log) was given for this register history: {} checked on the order sure from the history itself (the initial value first; a value read before a transaction's own write precedes it): a cycle found is real, but some may be missed",
            names(&sure)
        ));
    }
    notes
}
