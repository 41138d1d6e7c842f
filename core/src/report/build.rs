//! The report from the engine's typed outcome: witnesses turned into counterexamples with
//! `crate::explain`, verdicts into data. Nothing here decides a verdict.

use super::{AnomalyReport, CheckOptions, CycleReport, LevelReport, Levels, Report, Verdict, WhiteBoxReport};
use crate::engine::{self, Evidence, GraphId, Named, Outcome};
use crate::explain::{
    cycle_report, finding_report, initial_read_report, pair_report, poly_cycle_report, white_box_report,
};
use crate::graph::search::Budget;
use crate::history::History;
use crate::infer::{Inference, Needs};
use crate::level::{violated_by, violated_with};

/// Build the graph and check the levels.
pub fn check(h: &History, opts: &CheckOptions) -> Report {
    if !opts.needs_graph() {
        return check_claims_only(h, opts);
    }
    check_inferred(h, &infer_for(h, opts), opts, None)
}

/// The inference the options need: without RW edges when every level asked for is a weak one
/// (RC, RA, CC), no analysis is asked for and no claimed order (white-box) will be checked
/// against the graph; without the reads-from list when none is weak; the full one otherwise.
pub fn needs(h: &History, opts: &CheckOptions) -> Needs {
    let claims = opts.white_box != crate::timestamps::WhiteBoxMode::Ignore && crate::timestamps::Claims::any(h);
    let levels = opts.levels();
    if opts.analyze.is_none() && !claims && levels.iter().all(|l| l.spec().weak.is_some()) {
        Needs::WithoutRw
    } else if engine::search_only(h, opts) {
        Needs::Search
    } else if levels.iter().all(|l| l.spec().weak.is_none()) {
        Needs::WithoutReadsFrom
    } else {
        Needs::Full
    }
}

/// The inference the options need ([`needs`]).
pub fn infer_for(h: &History, opts: &CheckOptions) -> Inference {
    needs(h, opts).infer(h)
}

/// Check from the history's claimed orders alone: no dependency graph is inferred.
fn check_claims_only(h: &History, opts: &CheckOptions) -> Report {
    let out = crate::engine::claims::only(h, &opts.levels(), opts.max_cycles.max(1));
    let (white_box, anomalies, claimed) = match &out.white_box {
        Some(c) => {
            let (w, a, cs) = white_box_report(h, None, c);
            (Some(w), a, cs)
        }
        None => (None, Vec::new(), Vec::new()),
    };
    let explained = Counterexamples { witnesses: Vec::new(), poly: Vec::new(), pairs: Vec::new(), claimed };
    let [committed, aborted, indeterminate] = h.count_by_status();
    let stats = crate::graph::Stats {
        transactions: h.txns.len(),
        committed,
        aborted,
        indeterminate,
        vertices: out.white_box.as_ref().map_or(0, |c| c.claims.subjects),
        not_inferred: true,
        ..Default::default()
    };
    assemble(h, &out, &explained, anomalies, stats, white_box)
}

/// Check an already inferred graph; `interrupt` is polled during long searches.
pub fn check_inferred(
    h: &History,
    inf: &Inference,
    opts: &CheckOptions,
    interrupt: Option<&mut dyn FnMut() -> bool>,
) -> Report {
    let mut budget = Budget::new(opts.max_steps.unwrap_or(u64::MAX), interrupt);
    let out = engine::run(h, inf, opts, &mut budget);
    let analysis = opts.analyze.as_ref().map(|a| crate::analysis::analyze(h, inf, a, budget.interrupt.take()));
    let mut r = report(h, inf, &out);
    r.analysis = analysis;
    r
}

/// The counterexamples of the outcome, each explained once.
struct Counterexamples {
    witnesses: Vec<Option<CycleReport>>,
    poly: Vec<Option<CycleReport>>,
    pairs: Vec<CycleReport>,
    /// Cycles through claimed edges, as `Checked::cycles`.
    claimed: Vec<CycleReport>,
}

fn counterexamples(h: &History, inf: &Inference, out: &Outcome) -> Counterexamples {
    let witnesses = out
        .witnesses
        .iter()
        .map(|w| {
            let g = out.graphs.get(&inf.graph, w.graph)?;
            Some(cycle_report(h, &inf.index, g, w.named.kind, &w.named.name(), &w.cycle))
        })
        .collect();
    let poly = out
        .poly
        .iter()
        .map(|p| {
            let pg = out.graphs.polygraphs.get(p.polygraph)?;
            Some(poly_cycle_report(h, &inf.index, pg, &p.counterexample, &p.named.name(), p.covered))
        })
        .collect();
    let pairs = out.pairs.iter().map(|p| pair_report(h, &inf.index, p)).collect();
    Counterexamples { witnesses, poly, pairs, claimed: Vec::new() }
}

/// A cycle's anomaly, listing the levels it shows violated: of those its kind violates, none
/// this check left `unknown`. A polygraph's counterexample through chosen versions (a step not
/// certain: it rests on a choice of version order) whose cycles do not cover every choice on
/// them (`covered`: then its name is only the level's least specific anomaly,
/// `polygraph::name::of_counterexample`) shows violated only the levels it is the evidence of,
/// and those stronger: for them alone was every choice shown wrong (`evidence`: the polygraph
/// counterexamples of this cycle, by their index in `Outcome::poly`).
fn cycle_anomaly(
    kind: String,
    levels: Vec<crate::level::Level>,
    c: &CycleReport,
    out: &Outcome,
    covered: bool,
    evidence: &[Evidence],
) -> AnomalyReport {
    let chosen = c.steps.iter().any(|s| s.certain == Some(false));
    let verdict = |l: crate::level::Level| out.levels.iter().find(|o| o.level == l).map(|o| o.verdict);
    let of_it: Vec<crate::level::Level> =
        out.levels.iter().filter(|o| o.evidence.iter().any(|e| evidence.contains(e))).map(|o| o.level).collect();
    let shown = |l: &crate::level::Level| {
        let proven = covered || !chosen || of_it.iter().any(|b| *b == *l || l.weaker().contains(b));
        proven && verdict(*l) != Some(engine::Verdict::Unknown)
    };
    AnomalyReport {
        kind,
        name: c.name.clone(),
        levels: levels.into_iter().filter(shown).collect(),
        key: None,
        value: None,
        txns: c.txns.clone(),
        ops: Vec::new(),
        cycle: Some(c.clone()),
        explanation: c.explanation.clone(),
    }
}

fn violated(n: Named) -> Vec<crate::level::Level> {
    violated_with(n.kind, n.order)
}

fn report(h: &History, inf: &Inference, out: &Outcome) -> Report {
    let mut explained = counterexamples(h, inf, out);
    let mut anomalies: Vec<AnomalyReport> = inf.findings.iter().map(|f| finding_report(h, &inf.index, f)).collect();
    // The same cycle matches several patterns and graphs; list it once under its most specific
    // name (searches run strongest pattern first), once more if a weak level names it in its
    // own terms.
    let mut listed = std::collections::HashSet::new();
    for (p, c) in out.poly.iter().zip(&explained.poly) {
        if let Some(c) = c {
            if listed.insert(("dependency", c.txns.clone())) {
                // Every level's polygraph whose counterexample is this cycle.
                let same =
                    explained.poly.iter().enumerate().filter(|(_, d)| d.as_ref().is_some_and(|d| d.txns == c.txns));
                let evidence: Vec<Evidence> = same.map(|(j, _)| Evidence::Poly(j)).collect();
                anomalies.push(cycle_anomaly(c.anomaly.clone(), violated(p.named), c, out, p.covered, &evidence));
            }
        }
    }
    let lost_update = Named { kind: crate::anomaly::AnomalyKind::GSingle, order: crate::level::Order::None };
    for c in &explained.pairs {
        if listed.insert(("dependency", c.txns.clone())) {
            // Every order of the pair closes the cycle: a proof for every level it violates.
            anomalies.push(cycle_anomaly(c.anomaly.clone(), violated(lost_update), c, out, true, &[]));
        }
    }
    for (w, c) in out.witnesses.iter().zip(&explained.witnesses) {
        let Some(c) = c else { continue };
        let (group, levels) = match w.graph {
            GraphId::Weak(_) => ("weak", violated_by(w.named.kind)),
            GraphId::Dependency(_) => ("dependency", violated(w.named)),
        };
        if listed.insert((group, c.txns.clone())) {
            anomalies.push(cycle_anomaly(w.named.name(), levels, c, out, true, &[]));
        }
    }
    let mut initial_listed = std::collections::HashSet::new();
    for iw in &out.initial {
        let Some(g) = out.graphs.get(&inf.graph, GraphId::Weak(iw.graph)) else { continue };
        let a = initial_read_report(h, &inf.index, g, iw.kind, &iw.read);
        if initial_listed.insert((a.kind.clone(), a.txns.clone())) {
            anomalies.push(a);
        }
    }

    let mut white_box = None;
    if let Some(c) = &out.white_box {
        let (w, a, cs) = white_box_report(h, Some(&inf.index), c);
        white_box = Some(w);
        anomalies.extend(a);
        explained.claimed = cs;
    }
    assemble(h, out, &explained, anomalies, inf.stats(h), white_box)
}

/// The report from the outcome and its explained counterexamples.
fn assemble(
    h: &History,
    out: &Outcome,
    explained: &Counterexamples,
    anomalies: Vec<AnomalyReport>,
    stats: crate::graph::Stats,
    white_box: Option<WhiteBoxReport>,
) -> Report {
    let levels: Vec<_> = out
        .levels
        .iter()
        .map(|lo| {
            let cycles = lo
                .evidence
                .iter()
                .filter_map(|e| match *e {
                    Evidence::Cycle(i) => explained.witnesses.get(i).cloned().flatten(),
                    Evidence::Poly(i) => explained.poly.get(i).cloned().flatten(),
                    Evidence::Claimed(i) => explained.claimed.get(i).cloned(),
                    Evidence::Pair(i) => explained.pairs.get(i).cloned(),
                })
                .collect();
            let report = LevelReport {
                valid: lo.verdict.valid(),
                verdict: lo.verdict,
                anomalies: lo.anomalies.iter().map(|n| n.name()).chain(lo.claims.iter().map(|c| c.name())).collect(),
                cycles,
                reason: lo.reason.clone(),
                implied_by: lo.implied_by,
                cycle_from: lo.cycle_from,
                set_aside: lo.set_aside.iter().map(|k| k.name().to_string()).collect(),
            };
            (lo.level, report)
        })
        .collect();
    let valid = if !out.broken.is_empty() || out.levels.iter().any(|l| l.verdict == Verdict::Violated) {
        Some(false)
    } else if out.levels.iter().any(|l| l.verdict == Verdict::Unknown) {
        None
    } else {
        Some(true)
    };
    let (weakest_violated, also_violated, strongest_satisfied) = crate::engine::lattice::summary(&out.levels);
    Report {
        valid,
        model: h.model,
        levels: Levels(levels),
        weakest_violated,
        also_violated,
        strongest_satisfied,
        broken_assumptions: out.broken.iter().map(|k| k.name().to_string()).collect(),
        anomalies,
        stats,
        notes: out.notes.clone(),
        analysis: None,
        white_box,
    }
}
