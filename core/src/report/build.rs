//! Running the searches a set of levels needs, and assembling the report.
//!
//! Searches are grouped by the graph they run on: the dependency graph, the dependency graph
//! with session or real-time order (only when a requested level needs it), and each requested
//! weak level's saturated graph. Each search result is shared by every level that proscribes it.

use super::text::{cycle_report, finding_report, initial_read_report};
use super::{AnomalyReport, CheckOptions, CycleReport, LevelReport, Levels, RegisterMode, Report};
use crate::anomaly::AnomalyKind;
use crate::graph::orders::{realtime_edges, session_edges};
use crate::graph::search::{components, Budget, Cycle, Outcome, Pattern, Searcher};
use crate::graph::{DependencyGraph, EdgeType};
use crate::hash::Map;
use crate::history::{History, Model};
use crate::infer::{infer, Inference};
use crate::level::weak::{self, classify, initial_kind};
use crate::level::{pattern, violated_by, violated_with, Level, Order, Weak};
use crate::polygraph::{Mode, Verdict as PolyVerdict};

/// Build the graph and check the levels.
pub fn check(h: &History, opts: &CheckOptions) -> Report {
    if opts.white_box == crate::timestamps::WhiteBoxMode::Only {
        return crate::timestamps::check_only(h, opts);
    }
    check_inferred(h, &infer(h), opts, None)
}

/// What one search found, named.
struct Found {
    component: usize,
    /// The anomaly's name: the kind, with Elle's `-process`/`-realtime` suffix when the cycle
    /// needs order edges.
    name: String,
    levels: Vec<Level>,
    cycle: CycleReport,
}

/// The result of one search: its key, outcome, and the cycles found.
struct Search {
    graph: usize,
    /// The cycle anomaly searched for (weak graphs: any cycle, classified after).
    kind: Option<AnomalyKind>,
    outcome: Outcome,
    found: Vec<Found>,
}

fn graph_id(order: Order) -> usize {
    match order {
        Order::None => 0,
        Order::Session => 1,
        Order::Realtime => 2,
    }
}

fn weak_id(w: Weak) -> usize {
    3 + w as usize
}

fn comp_index(comps: &[Vec<u32>]) -> Map<u32, usize> {
    let mut m = Map::default();
    for (i, c) in comps.iter().enumerate() {
        for &v in c {
            m.insert(v, i);
        }
    }
    m
}

/// Check an already inferred graph; `interrupt` is polled during long searches.
pub fn check_inferred(
    h: &History,
    inf: &Inference,
    opts: &CheckOptions,
    interrupt: Option<&mut dyn FnMut() -> bool>,
) -> Report {
    let levels: Vec<Level> = if opts.levels.is_empty() {
        Level::CLASSIC.to_vec()
    } else {
        let mut l = opts.levels.clone();
        l.sort();
        l.dedup();
        l
    };
    let mut budget = Budget::new(opts.max_steps.unwrap_or(u64::MAX), interrupt);
    let max_cycles = opts.max_cycles.max(1);
    let mut notes = inf.notes.clone();
    let mut searches: Vec<Search> = Vec::new();

    // Register histories without a version order: the levels that need one decided exactly on
    // the generalized polygraph instead (PolySI; `crate::polygraph`).
    let poly = polygraph_levels(h, opts, &levels, &inf.graph.is_vertex, &mut budget, &mut notes);
    let by_poly = |l: Level| poly.iter().any(|p| p.0 == l);
    version_order_note(h, &levels, &poly, &mut notes);

    // Dependency graphs, plain and with each order some level needs.
    for order in [Order::None, Order::Session, Order::Realtime] {
        let here: Vec<Level> = levels
            .iter()
            .copied()
            .filter(|l| l.spec().weak.is_none() && l.spec().order == order && !by_poly(*l))
            .collect();
        if here.is_empty() {
            continue;
        }
        let augmented;
        let g: &DependencyGraph = match order {
            Order::None => &inf.graph,
            _ => {
                augmented = with_order(h, inf, order, &mut notes);
                &augmented
            }
        };
        let comps = components(g);
        let comp_of = comp_index(&comps);
        let mut searcher = Searcher::new(g);
        let kinds = AnomalyKind::ALL.into_iter().filter(|k| k.is_cycle() && here.iter().any(|l| l.proscribes(*k)));
        for k in kinds {
            let Some(mut p) = pattern(k) else { continue };
            p.allowed |= order.bit();
            let outcome = searcher.search(&comps, &p, &mut budget, max_cycles);
            let found = cycles_of(&outcome)
                .iter()
                .map(|c| {
                    let used = if c.types.contains(&EdgeType::So) || c.types.contains(&EdgeType::Rt) {
                        order
                    } else {
                        Order::None
                    };
                    let name = format!("{}{}", k.name(), used.suffix());
                    let cycle = cycle_report(h, g, k, &name, c);
                    Found {
                        component: comp_of.get(&c.txns[0]).copied().unwrap_or(0),
                        name,
                        levels: violated_with(k, used),
                        cycle,
                    }
                })
                .collect();
            searches.push(Search { graph: graph_id(order), kind: Some(k), outcome, found });
        }
    }

    // Weak levels: one saturated graph each (from one shared reading), any cycle, classified.
    let mut initial: Vec<(usize, AnomalyKind, AnomalyReport)> = Vec::new();
    let mut weak_input = None;
    for w in levels.iter().filter_map(|l| l.spec().weak) {
        let wg = weak::graph(weak_input.get_or_insert_with(|| weak::Input::new(h, inf)), w);
        let g = &wg.graph;
        let comps = components(g);
        let comp_of = comp_index(&comps);
        let p = Pattern {
            allowed: EdgeType::Ww.bit() | EdgeType::Wr.bit() | EdgeType::So.bit() | EdgeType::Co.bit(),
            must: 0,
            once: 0,
            no_adjacent: 0,
        };
        let outcome = Searcher::new(g).search(&comps, &p, &mut budget, max_cycles);
        let txn_of = |o: u32| super::text::txn_of_op(h, o);
        let found = cycles_of(&outcome)
            .iter()
            .map(|c| {
                let edges: Vec<_> = (0..c.txns.len())
                    .filter_map(|i| g.edge(c.txns[i], c.txns[(i + 1) % c.txns.len()], c.types[i]).copied())
                    .collect();
                let k = classify(h, g, &edges, txn_of);
                Found {
                    component: comp_of.get(&c.txns[0]).copied().unwrap_or(0),
                    name: k.name().into(),
                    levels: violated_by(k),
                    cycle: cycle_report(h, g, k, k.name(), c),
                }
            })
            .collect();
        searches.push(Search { graph: weak_id(w), kind: None, outcome, found });
        for r in wg.initial_reads.iter().take(max_cycles) {
            let k = initial_kind(h, g, r, txn_of);
            initial.push((weak_id(w), k, initial_read_report(h, g, k, r)));
        }
        if !wg.sessions && !notes.iter().any(|n| n.contains("no process")) {
            notes.push(
                "the history records no process for any transaction: RC, RA and CC were checked without session order"
                    .into(),
            );
        }
    }

    let mut anomalies: Vec<AnomalyReport> = inf.findings.iter().map(|f| finding_report(h, f)).collect();
    let mut listed = std::collections::HashSet::new();
    for (_, (v, c), _) in &poly {
        if let (PolyVerdict::Violated(cx), Some(c)) = (v, c) {
            if listed.insert(("dependency".to_string(), c.txns.clone())) {
                anomalies.push(cycle_anomaly(cx, c));
            }
        }
    }
    for s in &searches {
        for f in &s.found {
            // The same cycle matches several patterns and graphs; list it once under its most
            // specific name (searches run strongest pattern first), once more if a weak level
            // names it in its own terms.
            let group = if s.graph >= 3 { "weak" } else { "dependency" };
            if !listed.insert((group.to_string(), f.cycle.txns.clone())) {
                continue;
            }
            anomalies.push(AnomalyReport {
                kind: f.name.clone(),
                name: f.cycle.name.clone(),
                levels: f.levels.clone(),
                key: None,
                value: None,
                txns: f.cycle.txns.clone(),
                ops: Vec::new(),
                cycle: Some(f.cycle.clone()),
                explanation: f.cycle.explanation.clone(),
            });
        }
    }
    for (_, _, a) in &initial {
        if listed.insert((a.kind.clone(), a.txns.clone())) {
            anomalies.push(a.clone());
        }
    }

    let mut level_reports = Vec::new();
    for l in levels {
        let spec = l.spec();
        let graph = match spec.weak {
            Some(w) => weak_id(w),
            None => graph_id(spec.order),
        };
        let mut names: Vec<String> = Vec::new();
        let mut add = |n: &str| {
            if !names.iter().any(|x| x == n) {
                names.push(n.to_string());
            }
        };
        for f in &inf.findings {
            // Read committed allows a second read of a key to see a newer version.
            if l.proscribes(f.kind) && !(l == Level::Rc && super::text::is_reread(h, f)) {
                add(f.kind.name());
            }
        }
        let mut best: Map<usize, &CycleReport> = Map::default();
        let mut reason = None;
        let by_polygraph = poly.iter().find(|p| p.0 == l).map(|x| &x.1);
        if let Some((verdict, cycle)) = by_polygraph {
            match verdict {
                PolyVerdict::Violated(_) => add(cycle.as_ref().map_or("G2-item", |c| c.anomaly.as_str())),
                PolyVerdict::Unknown(why) => reason = Some(format!("polygraph undecided: {why}")),
                PolyVerdict::Holds => {}
            }
            if let Some(c) = cycle {
                best.insert(0, c);
            }
        }
        let searched = searches.iter().filter(|s| s.graph == graph && s.kind.is_none_or(|k| l.proscribes(k)));
        for s in searched.filter(|_| by_polygraph.is_none()) {
            if let Outcome::Unknown(why) = &s.outcome {
                let what = s.kind.map_or_else(|| l.name().to_string(), |k| k.name().to_string());
                reason = Some(format!("{what} undecided: {why}"));
            }
            for f in &s.found {
                add(&f.name);
                let e = best.entry(f.component).or_insert(&f.cycle);
                if f.cycle.txns.len() < e.txns.len() {
                    *e = &f.cycle;
                }
            }
        }
        for (_, k, a) in initial.iter().filter(|i| i.0 == graph) {
            if l.proscribes(*k) {
                add(&a.kind);
            }
        }
        let mut cycles: Vec<(usize, CycleReport)> = best.into_iter().map(|(i, c)| (i, c.clone())).collect();
        cycles.sort_by_key(|c| c.0);
        if reason.is_none() && names.is_empty() && unproven(h, opts, l, by_polygraph.is_some()) {
            reason = Some(
                "no version order was given and the register mode is sure-edges: no forbidden cycle among the edges sure without one, which does not rule out a cycle under the real version order".into(),
            );
        }
        let (valid, verdict) = match (names.is_empty(), &reason) {
            (false, _) => (Some(false), "violated"),
            (true, Some(_)) => (None, "unknown"),
            (true, None) => (Some(true), "holds"),
        };
        // Findings that break the model's assumptions and this level does not proscribe: its
        // verdict was computed with those reads and writes set aside.
        let mut set_aside: Vec<String> = Vec::new();
        for f in inf.findings.iter().filter(|f| breaks_assumption(h, f) && !l.proscribes(f.kind)) {
            if !set_aside.iter().any(|x| x == f.kind.name()) {
                set_aside.push(f.kind.name().into());
            }
        }
        // The level the polygraph's verdict came from, while the findings leave it standing.
        let implied_by = poly.iter().find(|p| p.0 == l).and_then(|p| match p.1 .0 {
            PolyVerdict::Holds if valid == Some(true) => p.2,
            PolyVerdict::Violated(_) => p.2,
            _ => None,
        });
        level_reports.push((
            l,
            LevelReport {
                valid,
                verdict: verdict.into(),
                anomalies: names,
                cycles: cycles.into_iter().map(|c| c.1).collect(),
                reason: if valid.is_none() { reason } else { None },
                implied_by,
                set_aside,
            },
        ));
    }
    let white_box = crate::timestamps::apply(h, inf, opts, &mut level_reports, &mut anomalies, &mut notes, &mut budget);
    super::lattice::close(&mut level_reports, &mut notes);
    let mut broken: Vec<String> =
        inf.findings.iter().filter(|f| breaks_assumption(h, f)).map(|f| f.kind.name().to_string()).collect();
    broken.dedup();
    let valid = if !broken.is_empty() || level_reports.iter().any(|(_, r)| r.valid == Some(false)) {
        Some(false)
    } else if level_reports.iter().any(|(_, r)| r.valid.is_none()) {
        None
    } else {
        Some(true)
    };
    if let Some(why) = &budget.exhausted {
        notes.push(format!("search cut short ({why}): some witnesses may not be minimal"));
    }
    let (weakest_violated, also_violated, strongest_satisfied) = super::lattice::summary(&level_reports);
    let analysis = opts.analyze.as_ref().map(|a| crate::analysis::analyze(h, &inf.graph, a, budget.interrupt.take()));
    Report {
        valid,
        model: match h.model {
            Model::ListAppend => "list-append",
            Model::RwRegister => "rw-register",
            Model::Empty => "empty",
        }
        .into(),
        levels: Levels(level_reports),
        weakest_violated,
        also_violated,
        strongest_satisfied,
        broken_assumptions: broken,
        anomalies,
        stats: inf.graph.stats(h),
        notes,
        analysis,
        white_box,
    }
}

/// A finding that makes the history invalid whatever the levels say; a second read of a key
/// that saw a newer version is a non-repeatable read instead, which read committed allows.
fn breaks_assumption(h: &History, f: &crate::anomaly::Finding) -> bool {
    f.kind.breaks_assumption() && !super::text::is_reread(h, f)
}

fn cycles_of(o: &Outcome) -> &[Cycle] {
    match o {
        Outcome::Violated(cs) => cs,
        _ => &[],
    }
}

/// The dependency graph plus one order's edges.
fn with_order(h: &History, inf: &Inference, order: Order, notes: &mut Vec<String>) -> DependencyGraph {
    let g = &inf.graph;
    let extra = match order {
        Order::Session => {
            let (e, any) = session_edges(h, &g.is_vertex);
            if !any {
                notes.push("the history records no process for any transaction: strong-session levels were checked without session order".into());
            }
            e
        }
        _ => {
            let (e, untimed) = realtime_edges(h, &g.is_vertex);
            if untimed > 0 {
                notes.push(format!(
                    "{untimed} committed transactions have no invocation time: they take no part in real-time order"
                ));
            }
            e
        }
    };
    let mut edges = g.edges.clone();
    edges.extend(extra);
    DependencyGraph::new(g.is_vertex.clone(), edges)
}

/// A polygraph counterexample as an anomaly, named from its edges (`G-single`, or
/// `G-single-process` when a strong-session level's cycle needs session order).
fn cycle_anomaly(cx: &crate::polygraph::Counterexample, c: &CycleReport) -> AnomalyReport {
    let kinds: Vec<crate::polygraph::Kind> = cx.cycle.iter().map(|(e, _)| e.kind).collect();
    let (kind, used) = (crate::polygraph::explain::anomaly_of(&kinds), crate::polygraph::explain::order_of(&kinds));
    AnomalyReport {
        kind: c.anomaly.clone(),
        name: c.name.clone(),
        levels: violated_with(kind, used),
        key: None,
        value: None,
        txns: c.txns.clone(),
        ops: Vec::new(),
        cycle: Some(c.clone()),
        explanation: c.explanation.clone(),
    }
}

/// A polygraph verdict and its counterexample.
type PolyResult = (PolyVerdict, Option<CycleReport>);

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
fn polygraph_applies(h: &History, opts: &CheckOptions) -> bool {
    h.model == Model::RwRegister
        && match opts.register_mode {
            RegisterMode::Auto => h.version_order.is_none(),
            RegisterMode::Polygraph => true,
            RegisterMode::SureEdges => false,
        }
}

/// A level whose "holds" would rest on the sure edges of a register history without a version
/// order (register mode sure-edges): they prove cycles, not their absence. PL-2 and PL-1 are
/// the exception: their cycles have no RW edges, so when the sure WR and WW edges have none, a
/// topological order of them is a version order without any.
fn unproven(h: &History, opts: &CheckOptions, l: Level, by_polygraph: bool) -> bool {
    h.model == Model::RwRegister
        && h.version_order.is_none()
        && !by_polygraph
        && opts.register_mode == RegisterMode::SureEdges
        && l.spec().weak.is_none()
        && !matches!(l, Level::Pl2 | Level::Pl1)
}

/// The note on a register history without a version order: which levels the polygraph
/// decided, and which rest on the edges sure without one. None when no checked level needs it.
fn version_order_note(
    h: &History,
    levels: &[Level],
    poly: &[(Level, PolyResult, Option<Level>)],
    notes: &mut Vec<String>,
) {
    if h.model != Model::RwRegister || h.version_order.is_some() {
        return;
    }
    let names = |ls: &[Level]| ls.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
    let exact: Vec<Level> = poly.iter().map(|p| p.0).collect();
    let sure: Vec<Level> = levels.iter().copied().filter(|l| l.spec().weak.is_none() && !exact.contains(l)).collect();
    if !exact.is_empty() {
        notes.push(format!(
            "no version order (write-ahead log) was given for this register history: {} decided exactly on the generalized polygraph (PolySI), over every version order",
            names(&exact)
        ));
    }
    if !sure.is_empty() {
        notes.push(format!(
            "no version order (write-ahead log) was given for this register history: {} checked on the order sure from the history itself (the initial value first; a value read before a transaction's own write precedes it): a cycle found is real, but some may be missed",
            names(&sure)
        ));
    }
}

/// The levels of a register history without a version order, decided on the polygraph (PolySI)
/// with the order their cycles may use among the known edges; the weak levels need no version
/// order and keep their own graphs.
fn polygraph_levels(
    h: &History,
    opts: &CheckOptions,
    levels: &[Level],
    is_vertex: &[bool],
    budget: &mut Budget,
    notes: &mut Vec<String>,
) -> Vec<(Level, PolyResult, Option<Level>)> {
    if !polygraph_applies(h, opts) {
        return Vec::new();
    }
    let mut out: Vec<(Level, PolyResult, Option<Level>)> = Vec::new();
    for order in [Order::None, Order::Session, Order::Realtime] {
        let mut pg = None;
        for &(l, mode, _) in POLYGRAPH_LEVELS.iter().filter(|p| p.2 == order && levels.contains(&p.0)) {
            // Implied by a level decided before: a stronger one holds, or a weaker is violated.
            let implied = out.iter().find_map(|(d, (v, c), _)| match v {
                PolyVerdict::Holds if d.weaker().contains(&l) => Some((*d, (PolyVerdict::Holds, None))),
                PolyVerdict::Violated(_) if l.weaker().contains(d) => Some((*d, (v.clone(), c.clone()))),
                _ => None,
            });
            if let Some((d, r)) = implied {
                out.push((l, r, Some(d)));
                continue;
            }
            let pg = pg.get_or_insert_with(|| {
                crate::polygraph::build_with_order(h, is_vertex, order, crate::polygraph::MAX_CONSTRAINTS)
            });
            let (verdict, st) = crate::polygraph::decide(pg, mode, budget);
            notes.push(format!(
                "{} was decided on the generalized polygraph (PolySI){}: {} known edges, {} constraints, {} after pruning ({} rounds), {} guesses",
                l.name(),
                match order {
                    Order::None => "",
                    Order::Session => ", session order included",
                    Order::Realtime => ", real-time order included",
                },
                st.known_edges,
                st.constraints,
                st.after_pruning,
                st.pruning_rounds,
                st.decisions
            ));
            let cycle = match &verdict {
                PolyVerdict::Violated(cx) => Some(crate::polygraph::explain::cycle_report(h, pg, cx)),
                _ => None,
            };
            out.push((l, (verdict, cycle), None));
        }
    }
    out
}
