//! Running the searches a set of levels needs, and assembling the report.

use super::text::{cycle_report, finding_report};
use super::{AnomalyReport, CheckOptions, CycleReport, LevelReport, Levels, RegisterMode, Report};
use crate::anomaly::AnomalyKind;
use crate::graph::search::{components, Budget, Outcome, Searcher};
use crate::hash::Map;
use crate::history::{History, Model};
use crate::infer::{infer, Inference};
use crate::level::{pattern, violated_by, Level};
use crate::polygraph::{Mode, Verdict as PolyVerdict};

/// Build the graph and check the levels.
pub fn check(h: &History, opts: &CheckOptions) -> Report {
    check_inferred(h, &infer(h), opts, None)
}

/// Check an already inferred graph; `interrupt` is polled during long searches.
pub fn check_inferred(
    h: &History,
    inf: &Inference,
    opts: &CheckOptions,
    interrupt: Option<&mut dyn FnMut() -> bool>,
) -> Report {
    let levels: Vec<Level> = if opts.levels.is_empty() {
        Level::ALL.to_vec()
    } else {
        let mut l = opts.levels.clone();
        l.sort();
        l.dedup();
        l
    };
    let mut budget = Budget::new(opts.max_steps.unwrap_or(u64::MAX), interrupt);
    let g = &inf.graph;
    let comps = components(g);
    let mut comp_of: Map<u32, usize> = Map::default();
    for (i, c) in comps.iter().enumerate() {
        for &v in c {
            comp_of.insert(v, i);
        }
    }
    let mut searcher = Searcher::new(g);
    // Each cycle anomaly some requested level proscribes, searched once.
    let kinds: Vec<AnomalyKind> =
        AnomalyKind::ALL.into_iter().filter(|k| k.is_cycle() && levels.iter().any(|l| l.proscribes(*k))).collect();
    let mut outcomes: Vec<(AnomalyKind, Outcome, Vec<(usize, CycleReport)>)> = Vec::new();
    for k in kinds {
        let Some(p) = pattern(k) else { continue };
        let out = searcher.search(&comps, &p, &mut budget, opts.max_cycles.max(1));
        let cycles = match &out {
            Outcome::Violated(cs) => {
                cs.iter().map(|c| (comp_of.get(&c.txns[0]).copied().unwrap_or(0), cycle_report(h, g, k, c))).collect()
            }
            _ => Vec::new(),
        };
        outcomes.push((k, out, cycles));
    }

    let mut anomalies: Vec<AnomalyReport> = inf.findings.iter().map(|f| finding_report(h, f)).collect();
    let mut seen_cycles = std::collections::HashSet::new();
    let mut notes = inf.notes.clone();
    let poly = polygraph_levels(h, opts, &levels, &inf.graph.is_vertex, &mut budget, &mut notes);
    for (_, v) in &poly {
        if let Some(c) = &v.1 {
            seen_cycles.insert(c.txns.clone());
            anomalies.push(cycle_anomaly(c));
        }
    }
    for (_, _, cycles) in &outcomes {
        for (_, c) in cycles {
            // The same cycle matches several patterns; list it once, under its most specific name.
            if seen_cycles.insert(c.txns.clone()) {
                anomalies.push(cycle_anomaly(c));
            }
        }
    }

    let mut level_reports = Vec::new();
    for l in levels {
        let mut names: Vec<&'static str> = Vec::new();
        for f in &inf.findings {
            if l.proscribes(f.kind) && !names.contains(&f.kind.name()) {
                names.push(f.kind.name());
            }
        }
        let mut best: Map<usize, &CycleReport> = Map::default();
        let mut reason = None;
        let by_polygraph = poly.iter().find(|(pl, _)| *pl == l).map(|x| &x.1);
        if let Some((verdict, cycle)) = by_polygraph {
            match verdict {
                PolyVerdict::Violated(_) => names.push(cycle.as_ref().map_or("G2-item", |c| anomaly_name(&c.anomaly))),
                PolyVerdict::Unknown(why) => reason = Some(format!("polygraph undecided: {why}")),
                PolyVerdict::Holds => {}
            }
            if let Some(c) = cycle {
                best.insert(0, c);
            }
        }
        for (k, out, cycles) in &outcomes {
            if by_polygraph.is_some() {
                break;
            }
            if !l.proscribes(*k) {
                continue;
            }
            match out {
                Outcome::Violated(_) => names.push(k.name()),
                Outcome::Unknown(why) => reason = Some(format!("{} undecided: {why}", k.name())),
                Outcome::Holds => {}
            }
            for (comp, c) in cycles {
                let e = best.entry(*comp).or_insert(c);
                if c.txns.len() < e.txns.len() {
                    *e = c;
                }
            }
        }
        let mut cycles: Vec<(usize, CycleReport)> = best.into_iter().map(|(i, c)| (i, c.clone())).collect();
        cycles.sort_by_key(|c| c.0);
        let (valid, verdict) = match (names.is_empty(), &reason) {
            (false, _) => (Some(false), "violated"),
            (true, Some(_)) => (None, "unknown"),
            (true, None) => (Some(true), "holds"),
        };
        level_reports.push((
            l,
            LevelReport {
                valid,
                verdict: verdict.into(),
                anomalies: names.into_iter().map(String::from).collect(),
                cycles: cycles.into_iter().map(|c| c.1).collect(),
                reason: if valid.is_none() { reason } else { None },
            },
        ));
    }
    let valid = if level_reports.iter().any(|(_, r)| r.valid == Some(false)) {
        Some(false)
    } else if level_reports.iter().any(|(_, r)| r.valid.is_none()) {
        None
    } else {
        Some(true)
    };
    if let Some(why) = &budget.exhausted {
        notes.push(format!("search cut short ({why}): some witnesses may not be minimal"));
    }
    Report {
        valid,
        model: match h.model {
            Model::ListAppend => "list-append",
            Model::RwRegister => "rw-register",
            Model::Empty => "empty",
        }
        .into(),
        levels: Levels(level_reports),
        anomalies,
        stats: g.stats(h),
        notes,
    }
}

fn cycle_anomaly(c: &CycleReport) -> AnomalyReport {
    let kind = AnomalyKind::ALL.into_iter().find(|k| k.name() == c.anomaly).unwrap_or(AnomalyKind::G2Item);
    AnomalyReport {
        kind: kind.name().into(),
        levels: violated_by(kind),
        key: None,
        value: None,
        txns: c.txns.clone(),
        ops: Vec::new(),
        cycle: Some(c.clone()),
        explanation: c.explanation.clone(),
    }
}

fn anomaly_name(s: &str) -> &'static str {
    AnomalyKind::ALL.into_iter().find(|k| k.name() == s).map_or("G2-item", |k| k.name())
}

type PolyResult = (PolyVerdict, Option<CycleReport>);

/// SER and SI of a register history by the polygraph (PolySI), when the options and the
/// history call for it; other levels keep the graph of `infer`.
fn polygraph_levels(
    h: &History,
    opts: &CheckOptions,
    levels: &[Level],
    is_vertex: &[bool],
    budget: &mut Budget,
    notes: &mut Vec<String>,
) -> Vec<(Level, PolyResult)> {
    let applies = h.model == Model::RwRegister
        && match opts.register_mode {
            RegisterMode::Auto => h.version_order.is_none(),
            RegisterMode::Polygraph => true,
            RegisterMode::SureEdges => false,
        };
    let wanted: Vec<(Level, Mode)> = levels
        .iter()
        .filter_map(|&l| match l {
            Level::Ser => Some((l, Mode::Ser)),
            Level::Si => Some((l, Mode::Si)),
            _ => None,
        })
        .collect();
    if !applies || wanted.is_empty() {
        return Vec::new();
    }
    for n in notes.iter_mut().filter(|n| n.starts_with("no version order (write-ahead log) was given")) {
        *n = format!(
            "no version order (write-ahead log) was given for this register history: {} {} decided exactly on the generalized polygraph (PolySI); for the other levels only the order sure from the history itself is used (the initial value first; a value read before a transaction's own write precedes it), so some cycles may be missed",
            wanted.iter().map(|(l, _)| l.name()).collect::<Vec<_>>().join(" and "),
            if wanted.len() > 1 { "were" } else { "was" }
        );
    }
    let pg = crate::polygraph::build(h, is_vertex, true, crate::polygraph::MAX_CONSTRAINTS);
    let mut out: Vec<(Level, PolyResult)> = Vec::new();
    // SI first: a history that violates SI violates SER, and SI's counterexample (every choice
    // closes a cycle without two adjacent RW edges) is one for SER too, and names the
    // anomaly as the version order's graph would (a lost update is G-single, not two RW edges).
    for (l, mode) in wanted.into_iter().rev() {
        if l == Level::Ser {
            if let Some((_, (v @ PolyVerdict::Violated(_), c))) = out.iter().find(|(x, _)| *x == Level::Si) {
                let r = (v.clone(), c.clone());
                notes.push("SER is violated because SI is: the SI counterexample stands for both".into());
                out.push((l, r));
                continue;
            }
        }
        let (verdict, st) = crate::polygraph::decide(&pg, mode, budget);
        notes.push(format!(
            "{} was decided on the generalized polygraph (PolySI), session order included: {} known edges, {} constraints, {} after pruning ({} rounds), {} guesses",
            l.name(),
            st.known_edges,
            st.constraints,
            st.after_pruning,
            st.pruning_rounds,
            st.decisions
        ));
        let cycle = match &verdict {
            PolyVerdict::Violated(cx) => Some(crate::polygraph::explain::cycle_report(h, &pg, cx)),
            _ => None,
        };
        out.push((l, (verdict, cycle)));
    }
    out.reverse();
    out
}
