//! The verdicts the history's claimed orders add (white-box checking, `crate::timestamps`):
//! a level a claim violates is violated; an undecided level the full axioms decide holds.
//! Merged before the lattice closure, so that no verdict contradicts the lattice.

use super::{Evidence, LevelOutcome, Outcome, Verdict, Witness};
use crate::graph::search::Budget;
use crate::history::History;
use crate::level::{Level, Order};
use crate::timestamps::{ser_family, si_family, Checked};

/// Merge what the claims say into the levels' outcomes; `witnesses` are the black-box
/// search's cycles, so that a claimed cycle already shown is not shown twice.
pub fn merge(levels: &mut [LevelOutcome], checked: &Checked, witnesses: &[Witness]) {
    let names = checked.names();
    for lo in levels.iter_mut() {
        let l = lo.level;
        let mine: Vec<_> = names.iter().filter(|(x, _)| *x == l).map(|(_, n)| *n).collect();
        if mine.is_empty() {
            if checked.decides(l) && lo.verdict == Verdict::Unknown {
                lo.decide(Verdict::Holds);
            }
            continue;
        }
        if lo.verdict != Verdict::Violated {
            lo.implied_by = None;
            lo.evidence.clear();
        }
        lo.decide(Verdict::Violated);
        for n in mine {
            if !lo.claims.contains(&n) {
                lo.claims.push(n);
            }
        }
        for (i, c) in checked.cycles.iter().enumerate().filter(|(_, c)| c.levels.contains(&l)) {
            let shown = lo.evidence.iter().any(|e| match *e {
                Evidence::Cycle(w) => witnesses.get(w).is_some_and(|w| w.cycle.txns == c.cycle.txns),
                _ => false,
            });
            if !shown {
                lo.evidence.push(Evidence::Claimed(i));
            }
        }
    }
}

/// A check from the claims alone ([`crate::timestamps::WhiteBoxMode::Only`]): no dependency
/// graph is inferred; the claims decide SI, SER and their strong-session variants, every other
/// level is unknown.
pub fn only(h: &History, levels: &[Level], max_cycles: usize) -> Outcome {
    let mut budget = Budget::unlimited();
    let checked =
        crate::timestamps::check(h, None, crate::timestamps::WhiteBoxMode::Only, levels, max_cycles, &mut budget);
    let full_ser = checked.as_ref().is_some_and(|c| c.full_ser);
    let (si_family, ser_family) = (si_family(), ser_family());
    let mut outcomes: Vec<LevelOutcome> = levels
        .iter()
        .map(|&l| {
            let reason = if !si_family.contains(&l) || l.spec().order == Order::Realtime {
                "white-box only: the claimed timestamps decide SI, SER and their strong-session variants, not this level"
            } else if ser_family.contains(&l) && !full_ser {
                "white-box only: SER needs every committed transaction's commit timestamp or place in the commit order"
            } else {
                "white-box only: not every committed transaction carries start and commit timestamps"
            };
            LevelOutcome {
                level: l,
                verdict: Verdict::Unknown,
                reason: Some(reason.into()),
                anomalies: Vec::new(),
                claims: Vec::new(),
                evidence: Vec::new(),
                implied_by: None,
                cycle_from: None,
                set_aside: Vec::new(),
            }
        })
        .collect();
    let mut notes = Vec::new();
    if let Some(c) = &checked {
        merge(&mut outcomes, c, &[]);
        notes.extend(c.notes.iter().cloned());
    }
    super::verdicts::nothing_committed(h, &mut outcomes);
    if !crate::infer::maybe_initial_values(h).is_empty() {
        super::verdicts::maybe_initial_unknown(
            &mut outcomes,
            "some reads are of values no transaction wrote, which may be their keys' initial value (the history leaves it open: --initial-value) or thin-air reads, which this level forbids",
        );
    }
    notes.push("white-box only: the dependency graph was not inferred; levels were decided from the claimed timestamps and commit order alone".into());
    super::lattice::close(&mut outcomes, &mut notes);
    Outcome {
        levels: outcomes,
        witnesses: Vec::new(),
        poly: Vec::new(),
        pairs: Vec::new(),
        initial: Vec::new(),
        graphs: Default::default(),
        broken: Vec::new(),
        notes,
        white_box: checked,
    }
}
