//! Verdicts closed under the levels' implications (`implies` in [`crate::level`]), and the
//! summary Elle gives of them (`not`, `also-not`) with the strongest levels that hold.
//!
//! Each level is decided on its own; a level the budget left `unknown` takes the verdict a
//! checked level forces on it: violated when a weaker one is violated (with that level's
//! counterexample), holds when a stronger one holds. A decided verdict that contradicts
//! another is a defect; it is resolved towards the violation, whose counterexample is a proof,
//! and said in a note that starts with `lattice:`.

use super::{LevelOutcome, Verdict};
use crate::level::Level;

pub(super) fn close(reports: &mut [LevelOutcome], notes: &mut Vec<String>) {
    loop {
        let mut changed = false;
        for i in 0..reports.len() {
            let l = reports[i].level;
            if reports[i].verdict == Verdict::Violated {
                continue;
            }
            let weaker = l.weaker();
            if let Some(j) = (0..reports.len())
                .find(|&j| reports[j].verdict == Verdict::Violated && weaker.contains(&reports[j].level))
            {
                let (w, wr) = (reports[j].level, reports[j].clone());
                if reports[i].verdict == Verdict::Holds {
                    notes.push(format!(
                        "lattice: {} was found to hold although {}, which it implies, is violated; reported violated",
                        l.name(),
                        w.name()
                    ));
                }
                let r = &mut reports[i];
                r.decide(Verdict::Violated);
                r.anomalies = wr.anomalies;
                r.evidence = wr.evidence;
                r.implied_by = Some(w);
                changed = true;
            } else if reports[i].verdict == Verdict::Unknown {
                let stronger = (0..reports.len())
                    .find(|&j| reports[j].verdict == Verdict::Holds && reports[j].level.weaker().contains(&l))
                    .map(|j| reports[j].level);
                if let Some(s) = stronger {
                    let r = &mut reports[i];
                    r.decide(Verdict::Holds);
                    r.implied_by = Some(s);
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Elle's `not` and `also-not`, and the strongest levels that hold (with nothing set aside),
/// from the levels' implications.
pub fn summary(reports: &[LevelOutcome]) -> (Vec<Level>, Vec<Level>, Vec<Level>) {
    let violated: Vec<Level> = reports.iter().filter(|r| r.verdict == Verdict::Violated).map(|r| r.level).collect();
    let holds: Vec<Level> =
        reports.iter().filter(|r| r.verdict == Verdict::Holds && r.set_aside.is_empty()).map(|r| r.level).collect();
    let weakest: Vec<Level> =
        violated.iter().copied().filter(|v| !v.weaker().iter().any(|w| violated.contains(w))).collect();
    let mut also: Vec<Level> = weakest.iter().flat_map(|v| v.stronger()).filter(|l| !weakest.contains(l)).collect();
    crate::par::sort::sort(&mut also);
    also.dedup();
    let strongest: Vec<Level> =
        holds.iter().copied().filter(|s| !s.stronger().iter().any(|t| holds.contains(t))).collect();
    (weakest, also, strongest)
}
