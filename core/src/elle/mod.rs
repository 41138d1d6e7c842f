//! Elle's meaning for Elle's names: `grail elle` (and the `elle-cli` binary) check a history
//! with grail's engine and answer as Elle's checkers do (`elle.list-append/check`,
//! `elle.rw-register/check`): Elle's result map (`valid?`, `anomaly-types`, `anomalies`, `not`,
//! `also-not`), decided by Elle's tables of what each consistency model proscribes
//! ([`model`]), with Elle's anomaly names and Elle's explanations ([`explain`]).
//!
//! How it is computed: grail decides the classic levels whose cycles Elle's cycle-exists specs
//! name (PL-1, PL-2, SI, SER; with strict-SER and strong-SI when a requested model forbids
//! real-time anomalies, or their session-order variants when it forbids process ones, as Elle's
//! `additional-graphs` picks the realtime or the process graph). Every counterexample cycle is
//! then named by Elle's classification of its edges (`G-single-item`, `G2-item-realtime`, ...),
//! per strongly connected component, leaving out those another one found in the component
//! implies (Elle skips searching for them). Findings keep Elle's names (`G1a`, `internal`,
//! `future-read`, `incompatible-order`); lost updates, dirty updates and duplicate elements are
//! found here as Elle finds them ([`extra`]). Where grail and Elle differ: `docs/elle.md`.

pub mod explain;
pub mod extra;
pub mod json;
pub mod model;
pub mod versions;

use crate::graph::orders::{realtime_edges, session_edges};
use crate::graph::search::components;
use crate::graph::{DependencyGraph, EdgeType};
use crate::hash::Map;
use crate::history::{History, Model, OpKind, TxnId};
use crate::infer::Inference;
use crate::level::{Level, Order};
use crate::report::{AnomalyReport, CheckOptions, CycleReport, RegisterMode, Report, Step};
use explain::{cycle_text, mop_j, op_j, step_j, value_j, Ids};
use json::J;
use std::collections::{BTreeMap, BTreeSet};

/// What `grail elle` checks: Elle's `:consistency-models` and `:anomalies` options.
#[derive(Debug, Clone)]
pub struct ElleOptions {
    /// Elle's model names (default `strict-serializable`).
    pub consistency_models: Vec<String>,
    /// Specific anomalies to look for besides (default `G0`).
    pub anomalies: Vec<String>,
    /// A bound on grail's search steps; undecided levels make the verdict unknown.
    pub max_steps: Option<u64>,
    /// At most this many cycles per anomaly and component search.
    pub max_cycles: usize,
    /// Registers: Elle's sources of version order besides the initial `nil` (`:wfr-keys?`,
    /// `:sequential-keys?`, `:linearizable-keys?`; [`versions`]).
    pub versions: versions::VersionSources,
    /// Registers: decide on Elle's inferred version order alone, or over every version order.
    pub version_order: VersionOrder,
}

impl Default for ElleOptions {
    fn default() -> Self {
        ElleOptions {
            consistency_models: vec!["strict-serializable".into()],
            anomalies: vec!["G0".into()],
            max_steps: None,
            max_cycles: 1000,
            versions: versions::VersionSources::default(),
            version_order: VersionOrder::Elle,
        }
    }
}

/// How a register history's version order is decided (list-append histories show theirs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionOrder {
    /// As Elle: only the order [`versions::version_graphs`] infers gives WW and RW edges, and a
    /// model holds when they close none of its cycles (Elle's verdict, cycles it cannot see
    /// missed).
    Elle,
    /// Over every version order (the generalized polygraph) that extends the order Elle's
    /// options beyond the initial state assume: a model holds only when some such order closes
    /// none of its cycles. More assumed order, fewer orders to choose from: a model that
    /// holds with assumptions holds without.
    Complete,
}

impl VersionOrder {
    /// `elle` or `complete`.
    pub fn parse(s: &str) -> Option<VersionOrder> {
        match s {
            "elle" => Some(VersionOrder::Elle),
            "complete" => Some(VersionOrder::Complete),
            _ => None,
        }
    }
}

/// The inference to check registers on: as Elle ([`VersionOrder::Elle`]), Elle's inferred
/// version order gives its only WW and RW edges (WR edges kept between ok transactions, as
/// Elle's `wr-graph`); for the complete check, the inferred order is assumed order
/// ([`versions::assumed_order`]: known edges to the polygraph, named in explanations). With
/// Elle's `cyclic-versions` cases. `None` when there is nothing to change or report (the
/// complete check without a source besides the initial state, which the polygraph has).
fn register_inference(
    h: &History,
    inf: &Inference,
    opts: &ElleOptions,
) -> Option<(Inference, versions::VersionGraphs)> {
    let assumed = opts.versions != versions::VersionSources::default();
    if h.model != Model::RwRegister || (opts.version_order == VersionOrder::Complete && !assumed) {
        return None;
    }
    let vg = versions::version_graphs(h, opts.versions);
    let mut out = inf.clone();
    match opts.version_order {
        VersionOrder::Elle => {
            let ok = |t: TxnId| h.txns[t as usize].status == crate::history::Status::Committed;
            let mut edges: Vec<crate::graph::Edge> =
                inf.graph.edges.iter().filter(|e| e.ty == EdgeType::Wr && ok(e.from) && ok(e.to)).copied().collect();
            edges.extend(versions::transaction_edges(h, &vg));
            out.graph = DependencyGraph::new(inf.graph.is_vertex.clone(), edges);
        }
        VersionOrder::Complete => out.assumed_order = versions::assumed_order(h, &inf.index.writes, &vg),
    }
    Some((out, vg))
}

/// Whether [`check`] decides `h`'s registers on Elle's inferred version order alone (a register
/// history checked as Elle): a `true` then misses cycles that every version order closes.
pub fn inferred_order_only(h: &History, opts: &ElleOptions) -> bool {
    h.model == Model::RwRegister && opts.version_order == VersionOrder::Elle
}

/// Elle's three-valued verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Valid {
    True,
    False,
    Unknown,
}

impl Valid {
    /// As elle-cli prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Valid::True => "true",
            Valid::False => "false",
            Valid::Unknown => "unknown",
        }
    }
}

/// A cycle named as Elle names it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElleCycle {
    /// Elle's type: `G0`, `G1c`, `G-single-item`, `G-nonadjacent-item`, `G2-item`, with
    /// `-process` or `-realtime` when it uses that order.
    pub ty: String,
    /// Transaction ids in cycle order.
    pub txns: Vec<u64>,
    /// The steps, as grail's report gives them.
    pub steps: Vec<Step>,
    /// The strongly connected component of [`Checked::sccs`] it lies in.
    pub scc: Option<usize>,
}

/// What [`check`] gives: Elle's verdict and result map, the cycles, and the graph they lie in.
pub struct Checked {
    pub valid: Valid,
    /// Elle's result map, keys in Elle's order.
    pub result: J,
    /// grail's report of the levels it decided to answer.
    pub report: Report,
    /// Every cycle found, named by Elle (all types, reportable or not), by type then component.
    pub cycles: Vec<ElleCycle>,
    /// Elle's reportable anomaly types for these options.
    pub reportable: BTreeSet<String>,
    /// The graph analysed: dependencies, with the order Elle's options call for.
    pub graph: DependencyGraph,
    /// Its strongly connected components (more than one transaction), by first transaction.
    pub sccs: Vec<Vec<TxnId>>,
    /// The order edges added: none, process or real time.
    pub order: Order,
    /// Keys with an incompatible order (list-append).
    pub incompatible_keys: Vec<u32>,
}

const BASE_CYCLES: [&str; 8] =
    ["G0", "G1c", "G-single-item", "G-single", "G-nonadjacent-item", "G-nonadjacent", "G2-item", "G2"];

/// Elle's cycle types (`cycle-types`): the base ones with their process and realtime variants.
pub fn cycle_types() -> Vec<String> {
    let mut out = Vec::new();
    for suffix in ["", "-process", "-realtime"] {
        out.extend(BASE_CYCLES.iter().map(|b| format!("{b}{suffix}")));
    }
    out
}

/// Elle's name for a cycle from its edge types (Elle's `cycle-explainer`, `elle/txn.clj`): one rw
/// edge is G-single-item, several are G2-item when two are adjacent (cyclically) and
/// G-nonadjacent-item otherwise; no rw: G1c with a wr edge, else G0; then `-realtime` if a
/// real-time edge is used, else `-process` if a process edge is.
pub fn elle_type(types: &[&str]) -> String {
    let n = types.len();
    let count = |t: &str| types.iter().filter(|x| **x == t).count();
    let rw = count("rw");
    let adjacent = (0..n).any(|i| types[i] == "rw" && types[(i + 1) % n] == "rw");
    let base = match rw {
        1 => "G-single-item",
        r if r > 1 && adjacent => "G2-item",
        r if r > 1 => "G-nonadjacent-item",
        _ if count("wr") > 0 => "G1c",
        _ => "G0",
    };
    let suffix = if count("rt") > 0 {
        "-realtime"
    } else if count("so") > 0 {
        "-process"
    } else {
        ""
    };
    format!("{base}{suffix}")
}

fn is_cycle_name(n: &str) -> bool {
    let base = n.trim_end_matches("-process").trim_end_matches("-realtime");
    matches!(base, "G0" | "G1c" | "G-single" | "G-nonadjacent" | "G2-item")
}

/// A level's counterexample when it is violated by a cycle (not only by findings).
fn cycle_violation(r: &Report, l: Level, wanted: &[&str]) -> Option<Option<CycleReport>> {
    let lr = r.levels.get(l)?;
    let hit = lr.anomalies.iter().any(|a| {
        is_cycle_name(a)
            && (wanted.is_empty() || wanted.contains(&a.trim_end_matches("-process").trim_end_matches("-realtime")))
    });
    hit.then(|| {
        lr.cycles
            .iter()
            .find(|c| {
                wanted.is_empty()
                    || wanted.contains(&c.anomaly.trim_end_matches("-process").trim_end_matches("-realtime"))
            })
            .cloned()
    })
}

/// Check `h` as Elle would with these options. Fails (as Elle does) on an unknown model name.
pub fn check(
    h: &History,
    inf: &Inference,
    opts: &ElleOptions,
    interrupt: Option<&mut dyn FnMut() -> bool>,
) -> Result<Checked, String> {
    model::validate_models(&opts.consistency_models)?;
    let prohibited = model::prohibited_anomaly_types(&opts.consistency_models, &opts.anomalies);
    let reportable = model::reportable_anomaly_types(&opts.consistency_models, &opts.anomalies);
    let wants = |suffix: &str| cycle_types().iter().any(|t| t.ends_with(suffix) && reportable.contains(t));
    // Elle's `additional-graphs`: the realtime graph covers process anomalies too.
    let order = if wants("-realtime") {
        Order::Realtime
    } else if wants("-process") {
        Order::Session
    } else {
        Order::None
    };
    let mut levels = vec![Level::Ser, Level::Si, Level::Pl2, Level::Pl1];
    match order {
        Order::Realtime => levels.extend([Level::StrictSer, Level::StrongSi]),
        Order::Session => levels.extend([Level::StrongSessionSer, Level::StrongSessionSi]),
        Order::None => {}
    }
    let registers = register_inference(h, inf, opts);
    let inferred_only = registers.is_some() && opts.version_order == VersionOrder::Elle;
    let inf = registers.as_ref().map_or(inf, |r| &r.0);
    let copts = CheckOptions {
        levels,
        max_steps: opts.max_steps,
        max_cycles: opts.max_cycles.max(1),
        analyze: None,
        register_mode: if inferred_only { RegisterMode::SureEdges } else { RegisterMode::Auto },
        inferred_order_only: inferred_only,
        // Elle knows nothing of claimed timestamps: its verdict is the black-box one.
        white_box: crate::timestamps::WhiteBoxMode::Ignore,
        // Elle orders appends only as reads observed them.
        observed_order_only: true,
    };
    let report = crate::report::check_inferred(h, inf, &copts, interrupt);

    // The graph Elle would analyse, and its components.
    let mut edges = inf.graph.edges.clone();
    match order {
        Order::Realtime => edges.extend(realtime_edges(h, &inf.graph.is_vertex).0),
        Order::Session => edges.extend(session_edges(h, &inf.graph.is_vertex).0),
        Order::None => {}
    }
    let graph = DependencyGraph::new(inf.graph.is_vertex.clone(), edges);
    let sccs = components(&graph);
    let mut comp_of: Map<TxnId, usize> = Map::default();
    for (i, c) in sccs.iter().enumerate() {
        for &t in c {
            comp_of.insert(t, i);
        }
    }
    let ids = Ids::new(h);
    let cycles = elle_cycles(&report, &ids, &comp_of);

    let mut anomalies: BTreeMap<String, Vec<J>> = BTreeMap::new();
    let mut push = |ty: &str, j: J| anomalies.entry(ty.to_string()).or_default().push(j);
    for c in &cycles {
        let mut ops: Vec<J> = c.txns.iter().filter_map(|&id| ids.txn(id)).map(|t| op_j(h, t)).collect();
        if let Some(first) = ops.first().cloned() {
            ops.push(first);
        }
        push(
            &c.ty,
            J::obj([
                ("cycle", J::Arr(ops)),
                ("steps", J::Arr(c.steps.iter().map(|s| step_j(h, &ids, s)).collect())),
                ("type", J::str(c.ty.clone())),
            ]),
        );
    }
    for (ty, j) in cycle_exists(&report, order) {
        push(&ty, j);
    }
    // Elle's `cyclic-versions`: a source whose order closed a cycle of versions (left out).
    for c in registers.iter().flat_map(|r| &r.1.cyclic) {
        let version = |v: &versions::Version| v.map_or(J::Null, |v| value_j(h, v));
        push(
            "cyclic-versions",
            J::obj([
                ("key", value_j(h, h.key(c.key))),
                ("scc", J::Arr(c.scc.iter().map(version).collect())),
                ("sources", J::Arr(c.sources.iter().map(|s| J::str(*s)).collect())),
            ]),
        );
    }
    let mut incompatible_keys = Vec::new();
    for a in report.anomalies.iter().filter(|a| a.cycle.is_none()) {
        if let Some((ty, j)) = finding(h, &ids, a) {
            if ty == "incompatible-order" {
                if let Some(k) = a.ops.last().and_then(|o| ids.op(h, o.txn, o.index)) {
                    incompatible_keys.push(h.ops[k as usize].key);
                }
            }
            for j in j {
                push(&ty, j);
            }
        }
    }
    crate::par::sort::sort_unstable(&mut incompatible_keys);
    incompatible_keys.dedup();
    for lu in extra::lost_updates(h) {
        push(
            "lost-update",
            J::obj([
                ("key", value_j(h, h.key(lu.key))),
                ("value", lu.value.to_j(h)),
                ("txns", J::Arr(lu.txns.iter().map(|&t| op_j(h, t)).collect())),
            ]),
        );
    }
    for du in extra::dirty_updates(h) {
        push(
            "dirty-update",
            J::obj([
                ("key", value_j(h, h.key(du.key))),
                ("values", J::Arr(du.values.iter().map(|&v| value_j(h, v)).collect())),
                ("txns", J::Arr(vec![op_j(h, du.txns.0), J::str("..."), op_j(h, du.txns.1)])),
            ]),
        );
    }
    for d in extra::duplicate_elements(h) {
        push(
            "duplicate-elements",
            J::obj([
                ("op", op_j(h, d.txn)),
                ("mop", mop_j(h, d.op)),
                ("duplicates", J::Obj(d.counts.iter().map(|(v, n)| (h.plain(*v), J::from(*n))).collect())),
            ]),
        );
    }
    let undecided: Vec<&str> =
        report.levels.0.iter().filter(|(_, r)| r.valid.is_none()).map(|(l, _)| l.name()).collect();
    if !undecided.is_empty() {
        let reason = report.levels.0.iter().find_map(|(_, r)| r.reason.clone()).unwrap_or_default();
        push(
            "cycle-search-timeout",
            J::obj([
                ("type", J::str("cycle-search-timeout")),
                ("levels", J::Arr(undecided.iter().map(|l| J::str(*l)).collect())),
                ("reason", J::str(reason)),
            ]),
        );
    }
    let mut map: Vec<(String, J)> = anomalies.into_iter().map(|(k, v)| (k, J::Arr(v))).collect();
    if graph.edges.is_empty() {
        map.push(("empty-transaction-graph".into(), J::Bool(true)));
        crate::par::sort::sort_by(&mut map, |a, b| a.0.cmp(&b.0));
    }
    let (valid, result) = result_map(&prohibited, &reportable, map);
    Ok(Checked { valid, result, report, cycles, reportable, graph, sccs, order, incompatible_keys })
}

/// Elle's `result-map`: `valid?` false when a prohibited anomaly is present, unknown when only
/// reportable ones (a search cut short, an empty graph) are; `not` and `also-not` from every
/// anomaly found.
fn result_map(prohibited: &BTreeSet<String>, reportable: &BTreeSet<String>, all: Vec<(String, J)>) -> (Valid, J) {
    let bad = all.iter().any(|(k, _)| prohibited.contains(k));
    let mut rep: Vec<&(String, J)> = all.iter().filter(|(k, _)| reportable.contains(k)).collect();
    // Elle's `remove-redundant-cycle-exists`: a cycle-exists anomaly says nothing once other
    // anomalies rule its model out.
    let others: Vec<String> =
        rep.iter().filter(|(k, _)| !k.ends_with("-cycle-exists")).map(|(k, _)| k.clone()).collect();
    let impossible = model::anomalies_to_impossible_models(&others);
    rep.retain(|(k, _)| match k.strip_suffix("-cycle-exists") {
        Some(m) => !impossible.contains(model::canonical(m)),
        None => true,
    });
    if rep.is_empty() {
        return (Valid::True, J::obj([("valid?", J::Bool(true))]));
    }
    let valid = if bad { Valid::False } else { Valid::Unknown };
    let keys: Vec<String> = all.iter().map(|(k, _)| k.clone()).collect();
    let (not, also) = model::friendly_boundary(&keys);
    let strs = |v: &[String]| J::Arr(v.iter().map(|s| J::str(s.clone())).collect());
    let result = J::obj([
        ("valid?", if bad { J::Bool(false) } else { J::str("unknown") }),
        ("anomaly-types", J::Arr(rep.iter().map(|(k, _)| J::str(k.clone())).collect())),
        ("anomalies", J::Obj(rep.iter().map(|(k, v)| (k.clone(), v.clone())).collect())),
        ("not", strs(&not)),
        ("also-not", strs(&also)),
    ]);
    (valid, result)
}

/// Every distinct cycle of the report, named by Elle, one per type and component, leaving out
/// those a type found in the same component implies (Elle does not search for them).
fn elle_cycles(report: &Report, ids: &Ids, comp_of: &Map<TxnId, usize>) -> Vec<ElleCycle> {
    let mut all: Vec<&CycleReport> = report.anomalies.iter().filter_map(|a| a.cycle.as_ref()).collect();
    for (_, lr) in &report.levels.0 {
        all.extend(lr.cycles.iter());
    }
    let mut seen = BTreeSet::new();
    let mut found: Vec<ElleCycle> = Vec::new();
    for c in all {
        let types: Vec<&str> = c.steps.iter().map(|s| s.ty.as_str()).collect();
        if types.is_empty() || !seen.insert((c.txns.clone(), types.join(","))) {
            continue;
        }
        let scc = c.txns.first().and_then(|&id| ids.txn(id)).and_then(|t| comp_of.get(&t).copied());
        found.push(ElleCycle { ty: elle_type(&types), txns: c.txns.clone(), steps: c.steps.clone(), scc });
    }
    // Per component: the shortest cycle of each type, unless another type found there implies it.
    let mut best: BTreeMap<(Option<usize>, String), ElleCycle> = BTreeMap::new();
    for c in found {
        let k = (c.scc, c.ty.clone());
        match best.get(&k) {
            Some(b) if b.txns.len() <= c.txns.len() => {}
            _ => {
                best.insert(k, c);
            }
        }
    }
    let mut by_scc: BTreeMap<Option<usize>, BTreeSet<String>> = BTreeMap::new();
    for (scc, ty) in best.keys() {
        by_scc.entry(*scc).or_default().insert(ty.clone());
    }
    // What each type found implies, computed once per type.
    let implied: BTreeMap<String, BTreeSet<String>> =
        by_scc.values().flatten().map(|t| (t.clone(), model::all_implied_anomalies(std::slice::from_ref(t)))).collect();
    let mut out: Vec<ElleCycle> = best
        .into_values()
        .filter(|c| {
            let others = by_scc.get(&c.scc).into_iter().flatten();
            !others.filter(|o| **o != c.ty).any(|o| implied.get(o).is_some_and(|i| i.contains(&c.ty)))
        })
        .collect();
    let rank = |t: &str| cycle_types().iter().position(|x| x == t).unwrap_or(usize::MAX);
    crate::par::sort::sort_by_key(&mut out, |c| (rank(&c.ty), c.scc));
    out
}

/// Elle's cycle-exists anomalies (`cycle-exists-cases`), from grail's exact verdicts: for each
/// spec in Elle's order, unless a weaker model's already covers it, whether the model's
/// subgraph has a cycle.
fn cycle_exists(r: &Report, order: Order) -> Vec<(String, J)> {
    let mut out = Vec::new();
    let mut redundant: BTreeSet<String> = BTreeSet::new();
    for &(m, rels) in model::CYCLE_EXISTS {
        if redundant.contains(m) {
            continue;
        }
        let session = m.starts_with("strong-session");
        let realtime = !session && (m.starts_with("strong-") || m == "PL-SS");
        let (level, wanted): (Level, &[&str]) =
            match (rels, session && order == Order::Session, realtime && order == Order::Realtime) {
                (model::Rels::Ww, true, _) => (Level::StrongSessionSer, &["G0"]),
                (model::Rels::WwWr, true, _) => (Level::StrongSessionSer, &["G0", "G1c"]),
                (model::Rels::Extension, true, _) => (Level::StrongSessionSi, &[]),
                (model::Rels::All, true, _) => (Level::StrongSessionSer, &[]),
                (model::Rels::Ww, _, true) => (Level::StrictSer, &["G0"]),
                (model::Rels::WwWr, _, true) => (Level::StrictSer, &["G0", "G1c"]),
                (model::Rels::Extension, _, true) => (Level::StrongSi, &[]),
                (model::Rels::All, _, true) => (Level::StrictSer, &[]),
                (model::Rels::Ww, _, _) => (Level::Pl1, &["G0"]),
                (model::Rels::WwWr, _, _) => (Level::Pl2, &["G0", "G1c"]),
                (model::Rels::Extension, _, _) => (Level::Si, &[]),
                (model::Rels::All, _, _) => (Level::Ser, &[]),
            };
        let Some(witness) = cycle_violation(r, level, wanted) else { continue };
        let used = match (session, realtime, order) {
            (true, _, Order::Session) => Some("process"),
            (_, true, Order::Realtime) => Some("realtime"),
            _ => None,
        };
        let scc: Vec<J> = witness.as_ref().map_or(Vec::new(), |c| c.txns.iter().map(|&t| J::from(t)).collect());
        let ty = format!("{m}-cycle-exists");
        out.push((
            ty.clone(),
            J::obj([
                ("type", J::str(ty)),
                ("not", J::str(model::friendly(m))),
                ("subgraph", J::from(&rels.subgraph(used))),
                ("scc-size", J::from(scc.len())),
                ("scc", J::Arr(scc)),
            ]),
        ));
        redundant.extend(model::all_impossible_models(&[m.to_string()]));
    }
    out
}

/// A finding of grail's report under Elle's name, with Elle's fields.
fn finding(h: &History, ids: &Ids, a: &AnomalyReport) -> Option<(String, Vec<J>)> {
    let op_of = |i: usize| a.ops.get(i).and_then(|o| ids.op(h, o.txn, o.index));
    let txn_of = |i: usize| a.txns.get(i).and_then(|&id| ids.txn(id));
    let value = a.value.as_ref().map_or(J::Null, J::from);
    let key = a.key.as_ref().map_or(J::Null, J::from);
    let reader = |i: usize, extra: Vec<(&str, J)>| -> Option<J> {
        let (t, o) = (txn_of(i)?, op_of(i)?);
        let mut kv: Vec<(String, J)> = vec![("op".into(), op_j(h, t)), ("mop".into(), mop_j(h, o))];
        kv.extend(extra.into_iter().map(|(k, v)| (k.to_string(), v)));
        Some(J::Obj(kv))
    };
    let out = match a.kind.as_str() {
        "G1a" | "G1b" => {
            // The writer first, then the readers.
            let writer = txn_of(0).map_or(J::Null, |t| op_j(h, t));
            let js = (1..a.txns.len())
                .filter_map(|i| reader(i, vec![("writer", writer.clone()), ("element", value.clone())]))
                .collect();
            (a.kind.clone(), js)
        }
        "internal" if a.name == "future read" => {
            let element = op_of(0).and_then(|o| h.written(o)).map_or(J::Null, |v| value_j(h, v));
            let last = a.ops.len().saturating_sub(1);
            ("future-read".into(), reader(last, vec![("element", element)]).into_iter().collect())
        }
        "internal" => {
            let last = a.ops.len().saturating_sub(1);
            let expected = match (txn_of(last), op_of(last)) {
                (Some(t), Some(o)) => extra::expected_state(h, t, o),
                _ => J::Null,
            };
            ("internal".into(), reader(last, vec![("expected", expected)]).into_iter().collect())
        }
        "garbage-read" => {
            let js = (0..a.txns.len()).filter_map(|i| reader(i, vec![("element", value.clone())])).collect();
            ("garbage-read".into(), js)
        }
        "incompatible-order" => {
            let read = |i: usize| op_of(i).map_or(J::Null, |o| extra::Read::of_op(h, o));
            ("incompatible-order".into(), vec![J::obj([("key", key), ("values", J::Arr(vec![read(1), read(0)]))])])
        }
        "duplicate-write" => {
            let ty = if h.model == Model::ListAppend { "duplicate-appends" } else { "duplicate-writes" };
            let op = txn_of(a.txns.len().saturating_sub(1)).map_or(J::Null, |t| op_j(h, t));
            let verb = if h.model == Model::ListAppend { "appended to" } else { "written to" };
            let message = format!(
                "value {} {verb} key {} multiple times!",
                a.value.as_ref().map_or("nil".to_string(), |v| v.to_string()),
                a.key.as_ref().map_or("nil".to_string(), |v| v.to_string())
            );
            (ty.into(), vec![J::obj([("op", op), ("key", key), ("value", value), ("message", J::str(message))])])
        }
        _ => return None,
    };
    Some(out)
}

/// Whether a history's operations fit an Elle model (`list-append`: reads and appends;
/// `rw-register`: reads and writes): the first transaction id with an operation that does not,
/// and that operation's Elle name.
pub fn misfit(h: &History, model: &str) -> Option<(u64, &'static str)> {
    let bad = match model {
        "list-append" => OpKind::Write,
        "rw-register" => OpKind::Append,
        _ => return None,
    };
    h.txns.iter().find_map(|t| {
        h.ops[t.ops_start as usize..t.ops_end as usize]
            .iter()
            .find(|o| o.kind() == bad)
            .map(|o| (t.id, o.kind().jepsen()))
    })
}

/// elle-cli's model check (`ligurio/elle-cli` 040d9dc): the message for a history whose
/// operations do not fit `model`, or whose operations are not transactions at all (`text` is the
/// history's text, scanned for its first non-transactional operation when no transaction was read).
pub fn mismatch(h: &History, text: &[u8], model: &str) -> Option<String> {
    let other = if model == "list-append" { "rw-register" } else { "list-append" };
    if let Some((index, f)) = misfit(h, model) {
        return Some(format!(
            "Model \"{model}\" does not match this history: op at :index {index} contains a micro-operation with key :{f}, which is not supported by this model. This history looks like a \"{other}\" workload - wrong model selected?"
        ));
    }
    if h.txns.is_empty() {
        let scan = crate::read::nemesis::scan(text);
        if let Some(op) = scan.first_non_txn {
            let index = op.index.map_or("nil".to_string(), |i| i.to_string());
            return Some(format!(
                "Model \"{model}\" does not match this history: op at :index {index} is a non-transactional operation with a scalar value, but this model expects a transaction (:f :txn) over micro-operations - wrong model selected?"
            ));
        }
    }
    None
}

/// The whole cycle search's time bound for elle-cli's `--cycle-search-timeout` (milliseconds):
/// Elle gives each strongly connected component that timeout; grail's search runs over all of
/// them at once, with that many timeouts (at least ten) in all.
pub fn search_timeout_ms(g: &DependencyGraph, per_component_ms: u64) -> u64 {
    let sccs = components(g).len().max(10) as u64;
    per_component_ms.saturating_mul(sccs)
}

/// The Elle type of a cycle of edge types, for callers holding [`EdgeType`]s.
pub fn elle_type_of(types: &[EdgeType]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
    elle_type(&names)
}

/// The text of `<TYPE>.txt` in Elle's `--directory`: each cycle of the type as `TYPE #i` and its
/// explanation, separated by two blank lines (Elle's `write-cycles!`).
pub fn cycles_file(h: &History, cycles: &[&ElleCycle]) -> String {
    let ids = Ids::new(h);
    cycles
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} #{}\n{}", c.ty, i, cycle_text(h, &ids, &c.txns, &c.steps)))
        .collect::<Vec<_>>()
        .join("\n\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elle_names_cycles_by_their_edges() {
        assert_eq!(elle_type(&["ww", "ww"]), "G0");
        assert_eq!(elle_type(&["ww", "wr"]), "G1c");
        assert_eq!(elle_type(&["rw", "ww"]), "G-single-item");
        assert_eq!(elle_type(&["rw", "wr", "rw", "wr"]), "G-nonadjacent-item");
        assert_eq!(elle_type(&["rw", "rw"]), "G2-item");
        // Adjacent across the wrap-around.
        assert_eq!(elle_type(&["rw", "wr", "rw"]), "G2-item");
        assert_eq!(elle_type(&["rw", "so"]), "G-single-item-process");
        assert_eq!(elle_type(&["rw", "so", "rt"]), "G-single-item-realtime");
    }

    fn check_text(text: &str, models: &[&str]) -> Checked {
        let h = crate::read::read(text.as_bytes(), crate::read::Format::Auto).unwrap();
        let inf = crate::infer::infer(&h);
        let opts =
            ElleOptions { consistency_models: models.iter().map(|s| s.to_string()).collect(), ..Default::default() };
        check(&h, &inf, &opts, None).unwrap()
    }

    const LOST_UPDATE: &str = "{:type :ok, :value [[:r :x [1]] [:append :x 2]], :process 0, :index 1}\n{:type :ok, :value [[:append :x 1]], :process 1, :index 0}\n{:type :ok, :value [[:r :x [1]] [:append :x 3]], :process 2, :index 2}\n{:type :ok, :value [[:r :x [1 2]]], :process 3, :index 3}\n";

    #[test]
    fn a_g_single_violates_elle_si_not_elle_psi() {
        let si = check_text(LOST_UPDATE, &["snapshot-isolation"]);
        assert_eq!(si.valid, Valid::False);
        let types = si.result.get("anomaly-types").unwrap().to_compact();
        assert!(types.contains("G-single-item") && types.contains("lost-update"), "{types}");
        // Elle's PSI forbids the lost update (through ROLA), not the G-single cycle.
        let psi = check_text(LOST_UPDATE, &["parallel-snapshot-isolation"]);
        assert_eq!(psi.valid, Valid::False);
        assert_eq!(psi.result.get("anomaly-types").unwrap().to_compact(), r#"["lost-update"]"#);
        let rc = check_text(LOST_UPDATE, &["read-committed"]);
        assert_eq!(rc.valid, Valid::True);
        assert_eq!(rc.result.to_compact(), r#"{"valid?":true}"#);
    }

    #[test]
    fn an_empty_graph_is_unknown() {
        let h = "{:type :invoke, :process 0, :value [[:r :x nil]], :index 0}\n{:type :ok, :process 0, :value [[:r :x []]], :index 1}\n";
        let a = check_text(h, &["strict-serializable"]);
        assert_eq!(a.valid, Valid::Unknown);
        assert_eq!(
            a.result.to_compact(),
            r#"{"valid?":"unknown","anomaly-types":["empty-transaction-graph"],"anomalies":{"empty-transaction-graph":true},"not":[],"also-not":[]}"#
        );
    }

    #[test]
    fn unknown_models_are_an_error() {
        let h = crate::read::read(LOST_UPDATE.as_bytes(), crate::read::Format::Auto).unwrap();
        let inf = crate::infer::infer(&h);
        let opts = ElleOptions { consistency_models: vec!["snapshot".into()], ..Default::default() };
        assert!(check(&h, &inf, &opts, None).is_err());
    }
}
