//! The level engine: the searches a set of levels needs, each run once, and a typed verdict per
//! level with its witnesses.
//!
//! Takes the history, its [`Inference`] and the [`CheckOptions`]; gives an [`Outcome`], which
//! `crate::report` turns into data with `crate::explain`. Searches are grouped by the graph they
//! run on: the dependency graph, the dependency graph with session or real-time order (only when
//! a requested level needs it), each requested weak level's saturated graph, and for register
//! histories without a version order the generalized polygraph (PolySI). Each search result is
//! shared by every level that proscribes it; verdicts are then closed under the levels'
//! implications ([`lattice`]), after the history's claimed orders, when it has any, are
//! merged in ([`claims`]).

mod causal;
pub mod claims;
pub mod lattice;
pub mod open_pairs;
pub mod weak;

use crate::anomaly::AnomalyKind;
use crate::graph::orders::{realtime_edges, session_edges};
use crate::graph::search::{components, Budget, Cycle, Pattern, Searched, Searcher};
use crate::graph::{DependencyGraph, EdgeType};
use crate::hash::Map;
use crate::history::{History, Model};
use crate::infer::Inference;
use crate::level::{pattern, Level, Order, Weak};
use crate::polygraph::{Counterexample, Decision, Mode, Polygraph};
use crate::timestamps::{Checked, ClaimName, WhiteBoxMode};
use serde::{Deserialize, Serialize};
use weak::{classify, initial_kind, InitialRead, WeakGraph};

/// At most this many cycles per anomaly, unless asked otherwise.
pub const DEFAULT_MAX_CYCLES: usize = 8;

/// What to analyze, and how far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnalyzeOptions {
    /// Count cycles of at most this many transactions.
    pub max_length: usize,
    /// Stop after this many cycles (the counts are then lower bounds).
    pub max_cycles: usize,
    /// Bound on enumeration steps (edge visits); `None` for none. The check's interrupt (a
    /// timeout) applies too.
    pub max_steps: Option<u64>,
    /// How many cycles, and read anomalies of each class, to list with their evidence.
    pub examples: usize,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions { max_length: 8, max_cycles: 100_000, max_steps: Some(100_000_000), examples: 20 }
    }
}

/// Options of a check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckOptions {
    /// Levels to check; the five classic ones (SER, SI, PSI, PL-2, PL-1) when empty.
    pub levels: Vec<Level>,
    /// Bound on search steps (edge visits); `None` for no bound. When it runs out, undecided
    /// levels are `unknown`, and witnesses found so far may not be minimal.
    pub max_steps: Option<u64>,
    /// At most this many cycles (one per strongly connected component) per anomaly.
    pub max_cycles: usize,
    /// Classify and count cycles, and find the read anomalies (`docs/analysis.md`); the result
    /// is `Report::analysis`. Off when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analyze: Option<AnalyzeOptions>,
    /// How register histories are checked for SER and SI (see [`RegisterMode`]).
    pub register_mode: RegisterMode,
    /// How the start and commit timestamps and the commit order a history claims are used
    /// ([`crate::timestamps`]).
    pub white_box: WhiteBoxMode,
    /// List append: order appends only as reads observed them, as Elle does, so that two
    /// unobserved appends after one read version are no lost update ([`open_pairs`]).
    /// Off by default: grail decides every order of them, as the polygraph does for registers.
    pub observed_order_only: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            levels: Vec::new(),
            max_steps: None,
            max_cycles: DEFAULT_MAX_CYCLES,
            register_mode: RegisterMode::Auto,
            analyze: None,
            white_box: WhiteBoxMode::Auto,
            observed_order_only: false,
        }
    }
}

impl CheckOptions {
    /// Whether the check infers a dependency graph: not when it checks the history's claimed
    /// orders alone (`white_box: only`). Front ends that keep an inference to reuse ask this
    /// before building one.
    pub fn needs_graph(&self) -> bool {
        self.white_box != crate::timestamps::WhiteBoxMode::Only
    }

    /// The levels to check, strongest first, each once.
    pub fn levels(&self) -> Vec<Level> {
        if self.levels.is_empty() {
            return Level::CLASSIC.to_vec();
        }
        let mut l = self.levels.clone();
        l.sort();
        l.dedup();
        l
    }
}

/// How SER and SI are decided for read/write register histories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum RegisterMode {
    /// The polygraph when the history has no version order, else the version order's graph.
    #[default]
    Auto,
    /// Always the polygraph (PolySI): exact, NP-complete; a version order, if given, is ignored
    /// for SER and SI.
    Polygraph,
    /// Only the edges sure without a version order (fast, may miss cycles), as before.
    SureEdges,
}

impl RegisterMode {
    pub fn parse(s: &str) -> Result<RegisterMode, crate::error::Error> {
        match s {
            "auto" => Ok(RegisterMode::Auto),
            "polygraph" => Ok(RegisterMode::Polygraph),
            "sure-edges" => Ok(RegisterMode::SureEdges),
            _ => Err(crate::error::Error::new(
                crate::error::ErrorKind::Usage,
                format!("unknown register mode {s:?}: expected auto, polygraph or sure-edges"),
            )),
        }
    }
}

/// The graph a witness is a cycle of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphId {
    /// The dependency graph, with the edges of this order added.
    Dependency(Order),
    /// A weak level's saturated graph.
    Weak(Weak),
}

/// An anomaly as levels name it: the kind, and the order its cycle needs (Elle's
/// `G-single-process`); findings and weak-level cycles use no order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Named {
    pub kind: AnomalyKind,
    pub order: Order,
}

impl Named {
    pub fn name(self) -> String {
        format!("{}{}", self.kind.name(), self.order.suffix())
    }
}

/// A cycle found by a search.
#[derive(Debug, Clone)]
pub struct Witness {
    pub graph: GraphId,
    pub component: usize,
    pub named: Named,
    pub cycle: Cycle,
}

/// A counterexample the polygraph gave, and the polygraph it refers to.
#[derive(Debug, Clone)]
pub struct PolyWitness {
    pub polygraph: usize,
    pub named: Named,
    pub counterexample: Counterexample,
}

/// A read of a key's initial value after observing a writer of it (a weak level's violation
/// that is not a cycle).
#[derive(Debug, Clone)]
pub struct InitialWitness {
    pub graph: Weak,
    pub kind: AnomalyKind,
    pub read: InitialRead,
}

/// What shows a level violated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// `Outcome::witnesses[i]`.
    Cycle(usize),
    /// `Outcome::poly[i]`.
    Poly(usize),
    /// A cycle through claimed edges: `Outcome::white_box`'s `cycles[i]`.
    Claimed(usize),
    /// `Outcome::pairs[i]`: two unobserved appends whose every order closes a G-single.
    Pair(usize),
}

/// A level's verdict: holds, violated, or not decided with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    Violated,
    Unknown(String),
}

impl Verdict {
    pub fn valid(&self) -> Option<bool> {
        match self {
            Verdict::Holds => Some(true),
            Verdict::Violated => Some(false),
            Verdict::Unknown(_) => None,
        }
    }
}

/// One level's verdict and what it rests on.
#[derive(Debug, Clone)]
pub struct LevelOutcome {
    pub level: Level,
    pub verdict: Verdict,
    /// The anomalies found that this level proscribes, in the order found.
    pub anomalies: Vec<Named>,
    /// The claims' violations this level proscribes (white-box checking), after `anomalies`.
    pub claims: Vec<ClaimName>,
    /// The shortest proscribed cycle per violating component.
    pub evidence: Vec<Evidence>,
    /// The level this verdict follows from when it was not searched for.
    pub implied_by: Option<Level>,
    /// Findings that break the model's assumptions and this level does not proscribe.
    pub set_aside: Vec<AnomalyKind>,
}

/// The graphs the witnesses are cycles of, beyond the inference's own.
#[derive(Default)]
pub struct Graphs {
    pub session: Option<DependencyGraph>,
    pub realtime: Option<DependencyGraph>,
    pub weak: Vec<(Weak, WeakGraph)>,
    /// Polygraphs with a counterexample (the others are dropped when decided).
    pub polygraphs: Vec<Polygraph>,
}

impl Graphs {
    /// The graph of a witness, `dependency` being the inference's.
    pub fn get<'a>(&'a self, dependency: &'a DependencyGraph, id: GraphId) -> Option<&'a DependencyGraph> {
        match id {
            GraphId::Dependency(Order::None) => Some(dependency),
            GraphId::Dependency(Order::Session) => self.session.as_ref(),
            GraphId::Dependency(Order::Realtime) => self.realtime.as_ref(),
            GraphId::Weak(w) => self.weak.iter().find(|x| x.0 == w).map(|x| &x.1.graph),
        }
    }
}

/// Everything a check found, typed.
pub struct Outcome {
    pub levels: Vec<LevelOutcome>,
    /// Cycles, in search order (strongest pattern first).
    pub witnesses: Vec<Witness>,
    pub poly: Vec<PolyWitness>,
    /// Lost updates every order of two unobserved appends closes ([`open_pairs`]).
    pub pairs: Vec<open_pairs::OpenPair>,
    pub initial: Vec<InitialWitness>,
    pub graphs: Graphs,
    /// Kinds of the findings that break the data model's assumptions, in the order found.
    pub broken: Vec<AnomalyKind>,
    pub notes: Vec<String>,
    /// What the history's claimed orders say, when it has any and they were not ignored.
    pub white_box: Option<Checked>,
}

/// The result of one search.
struct PatternSearch {
    graph: GraphId,
    /// The cycle anomaly searched for (weak graphs: any cycle, classified after).
    kind: Option<AnomalyKind>,
    outcome: Searched,
    /// Indices into `Outcome::witnesses`.
    found: Vec<usize>,
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

fn cycles_of(o: &Searched) -> &[Cycle] {
    match o {
        Searched::Violated(cs) => cs,
        _ => &[],
    }
}

/// Decide the levels `opts` asks for.
pub fn run(h: &History, inf: &Inference, opts: &CheckOptions, budget: &mut Budget) -> Outcome {
    let levels = opts.levels();
    let max_cycles = opts.max_cycles.max(1);
    let mut notes = inf.notes.clone();
    let mut searches: Vec<PatternSearch> = Vec::new();
    let mut witnesses: Vec<Witness> = Vec::new();
    let mut graphs = Graphs::default();

    // Register histories without a version order: the levels that need one decided exactly on
    // the generalized polygraph instead (PolySI; `crate::polygraph`).
    let mut poly_notes: Vec<PolyNote> = Vec::new();
    let (mut poly_levels, mut poly) = polygraph_levels(h, inf, opts, &levels, budget, &mut poly_notes, &mut graphs);
    let by_poly = |l: Level| poly_levels.iter().any(|p| p.level == l);
    // Its note is written once the verdicts are final, in this place.
    let version_note_at = notes.len();

    // The plain graph's components, kept for the search of unobserved appends' orders.
    let mut plain_comps: Option<Vec<Vec<u32>>> = None;
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
        match order {
            Order::None => {}
            Order::Session => graphs.session = Some(with_order(h, inf, order, &mut notes)),
            Order::Realtime => graphs.realtime = Some(with_order(h, inf, order, &mut notes)),
        }
        let graph = GraphId::Dependency(order);
        let Some(g) = graphs.get(&inf.graph, graph) else { continue };
        let comps = components(g);
        let comp_of = comp_index(&comps);
        let mut searcher = Searcher::new(g);
        let kinds = AnomalyKind::ALL.into_iter().filter(|k| k.is_cycle() && here.iter().any(|l| l.proscribes(*k)));
        for k in kinds {
            let Some(mut p) = pattern(k) else { continue };
            p.allowed |= order.bit();
            let outcome = searcher.search(&comps, &p, budget, max_cycles);
            let mut found = Vec::new();
            for c in cycles_of(&outcome) {
                let used = if c.types.contains(&EdgeType::So) || c.types.contains(&EdgeType::Rt) {
                    order
                } else {
                    Order::None
                };
                found.push(witnesses.len());
                witnesses.push(Witness {
                    graph,
                    component: comp_of.get(&c.txns[0]).copied().unwrap_or(0),
                    named: Named { kind: k, order: used },
                    cycle: c.clone(),
                });
            }
            searches.push(PatternSearch { graph, kind: Some(k), outcome, found });
        }
        if order == Order::None {
            plain_comps = Some(comps);
        }
    }

    // Weak levels: one saturated graph each (from one shared reading), any cycle, classified.
    let mut initial: Vec<InitialWitness> = Vec::new();
    let mut weak_input = None;
    // An inference made without the reads-from list (for other levels) is made again with it.
    let full;
    let weak_inf = match inf.reads_from {
        None if levels.iter().any(|l| l.spec().weak.is_some()) => {
            full = crate::infer::infer(h);
            &full
        }
        _ => inf,
    };
    let mut no_sessions_noted = false;
    for w in levels.iter().filter_map(|l| l.spec().weak) {
        let wg = weak::graph(weak_input.get_or_insert_with(|| weak::Input::new(h, weak_inf)), w);
        let g = &wg.graph;
        let comps = components(g);
        let comp_of = comp_index(&comps);
        let p = Pattern {
            allowed: EdgeType::Ww.bit() | EdgeType::Wr.bit() | EdgeType::So.bit() | EdgeType::Co.bit(),
            must: 0,
            once: 0,
            no_adjacent: 0,
        };
        let outcome = Searcher::new(g).search(&comps, &p, budget, max_cycles);
        let txn_of = |o: u32| inf.index.txn_of(o);
        let mut found = Vec::new();
        for c in cycles_of(&outcome) {
            let edges: Vec<_> = (0..c.txns.len())
                .filter_map(|i| g.edge(c.txns[i], c.txns[(i + 1) % c.txns.len()], c.types[i]).copied())
                .collect();
            let k = classify(h, g, &edges, txn_of);
            found.push(witnesses.len());
            witnesses.push(Witness {
                graph: GraphId::Weak(w),
                component: comp_of.get(&c.txns[0]).copied().unwrap_or(0),
                named: Named { kind: k, order: Order::None },
                cycle: c.clone(),
            });
        }
        searches.push(PatternSearch { graph: GraphId::Weak(w), kind: None, outcome, found });
        for r in wg.initial_reads.iter().take(max_cycles) {
            initial.push(InitialWitness { graph: w, kind: initial_kind(h, g, r, txn_of), read: *r });
        }
        if !wg.sessions && !no_sessions_noted {
            no_sessions_noted = true;
            notes.push(
                "the history records no process for any transaction: RC, RA and CC were checked without session order"
                    .into(),
            );
        }
        graphs.weak.push((w, wg));
    }

    let maybe_initial = maybe_initial_reads(h, inf, &mut notes);
    let pairs = if !opts.observed_order_only && levels.iter().any(|&l| open_pairs::violates(l) && !by_poly(l)) {
        open_pairs::open_pairs(&inf.graph, &inf.open_appends, max_cycles)
    } else {
        Vec::new()
    };
    if pairs.is_empty() && !opts.observed_order_only && !inf.open_appends.is_empty() {
        let plain = plain_comps.as_deref();
        append_orders(
            h,
            inf,
            &levels,
            &searches,
            plain,
            budget,
            &mut poly_levels,
            &mut poly,
            &mut poly_notes,
            &mut graphs,
        );
    }
    let mut outcomes = Vec::new();
    for &l in &levels {
        let spec = l.spec();
        let graph = match spec.weak {
            Some(w) => GraphId::Weak(w),
            None => GraphId::Dependency(spec.order),
        };
        let mut names: Vec<Named> = Vec::new();
        let mut add = |n: Named| {
            if !names.contains(&n) {
                names.push(n);
            }
        };
        for f in inf.findings.iter().filter(|f| l.forbids(f)) {
            add(Named { kind: f.kind, order: Order::None });
        }
        let mut best: Map<usize, (usize, Evidence)> = Map::default();
        let mut reason = None;
        let by_polygraph = poly_levels.iter().find(|p| p.level == l);
        if let Some(p) = by_polygraph {
            match &p.verdict {
                Decision::Violated(_) => {
                    if let Some(i) = p.witness {
                        add(poly[i].named);
                        best.insert(0, (0, Evidence::Poly(i)));
                    }
                }
                Decision::Unknown(why) => reason = Some(format!("polygraph undecided: {why}")),
                Decision::Holds => {}
            }
        }
        let searched = searches.iter().filter(|s| s.graph == graph && s.kind.is_none_or(|k| l.proscribes(k)));
        for s in searched.filter(|_| by_polygraph.is_none()) {
            if let Searched::Unknown(why) = &s.outcome {
                let what = s.kind.map_or_else(|| l.name().to_string(), |k| k.name().to_string());
                reason = Some(format!("{what} undecided: {why}"));
            }
            for &i in &s.found {
                let wi = &witnesses[i];
                add(wi.named);
                let len = wi.cycle.txns.len();
                let e = best.entry(wi.component).or_insert((len, Evidence::Cycle(i)));
                if len < e.0 {
                    *e = (len, Evidence::Cycle(i));
                }
            }
        }
        for iw in initial.iter().filter(|i| GraphId::Weak(i.graph) == graph && l.proscribes(i.kind)) {
            add(Named { kind: iw.kind, order: Order::None });
        }
        let mut evidence: Vec<(usize, Evidence)> = best.into_iter().map(|(c, (_, e))| (c, e)).collect();
        evidence.sort_by_key(|e| e.0);
        if !pairs.is_empty() && open_pairs::violates(l) && by_polygraph.is_none() {
            add(Named { kind: AnomalyKind::GSingle, order: Order::None });
            if evidence.is_empty() {
                evidence.extend((0..pairs.len()).map(|i| (0, Evidence::Pair(i))));
            }
        }
        if reason.is_none() && names.is_empty() && unproven(h, opts, l, by_polygraph.is_some()) {
            reason = Some(
                "no version order was given and the register mode is sure-edges: no forbidden cycle among the edges sure without one, which does not rule out a cycle under the real version order".into(),
            );
        }
        let verdict = match (names.is_empty(), reason) {
            (false, _) => Verdict::Violated,
            (true, Some(why)) => Verdict::Unknown(why),
            (true, None) => Verdict::Holds,
        };
        let mut set_aside: Vec<AnomalyKind> = Vec::new();
        for f in inf.findings.iter().filter(|f| f.breaks_assumption() && !l.proscribes(f.kind)) {
            if !set_aside.contains(&f.kind) {
                set_aside.push(f.kind);
            }
        }
        // The level the polygraph's verdict came from, while the findings leave it standing.
        let implied_by = by_polygraph.and_then(|p| match p.verdict {
            Decision::Holds if verdict == Verdict::Holds => p.implied_by,
            Decision::Violated(_) => p.implied_by,
            _ => None,
        });
        outcomes.push(LevelOutcome {
            level: l,
            verdict,
            anomalies: names,
            evidence: evidence.into_iter().map(|e| e.1).collect(),
            implied_by,
            set_aside,
            claims: Vec::new(),
        });
    }
    let white_box = crate::timestamps::check(h, Some(inf), opts.white_box, &levels, max_cycles, budget);
    if let Some(c) = &white_box {
        claims::merge(&mut outcomes, c, &witnesses);
        notes.extend(c.notes.iter().cloned());
    }
    // After the claims, which read those values as the initial version and may decide a level.
    if let Some(why) = &maybe_initial {
        maybe_initial_unknown(&mut outcomes, why);
    }
    lattice::close(&mut outcomes, &mut notes);
    consistent_implied_by(&mut outcomes);
    nothing_committed(h, &mut outcomes);
    let mut written = poly_note_text(&poly_notes, &poly_levels, &outcomes);
    written.extend(version_order_note(h, &levels, &poly_levels, &outcomes));
    notes.splice(version_note_at..version_note_at, written);
    let mut broken: Vec<AnomalyKind> = inf.findings.iter().filter(|f| f.breaks_assumption()).map(|f| f.kind).collect();
    broken.dedup();
    if let Some(why) = &budget.exhausted {
        notes.push(format!("search cut short ({why}): some witnesses may not be minimal"));
    }
    Outcome { levels: outcomes, witnesses, poly, pairs, initial, graphs, broken, notes, white_box }
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

/// What the polygraph did for a level, written as a note once the verdicts are final.
struct PolyNote {
    level: Level,
    decided: bool,
    /// "on the generalized polygraph (PolySI): ..." with its counts.
    text: String,
}

/// The polygraph's notes: "decided" only of a level the table shows decided.
fn poly_note_text(poly: &[PolyNote], levels: &[PolyLevel], outcomes: &[LevelOutcome]) -> Vec<String> {
    let unknown = |l: Level| outcomes.iter().any(|o| o.level == l && matches!(o.verdict, Verdict::Unknown(_)));
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

/// A polygraph counterexample's anomaly, named by its cycle's edge types.
fn poly_named(cx: &Counterexample) -> Named {
    let types: Vec<EdgeType> = cx.cycle.iter().map(|(e, _)| e.ty).collect();
    Named { kind: crate::polygraph::name::anomaly_of(&types), order: crate::polygraph::name::order_of(&types) }
}

/// A level decided on the polygraph.
struct PolyLevel {
    level: Level,
    verdict: Decision,
    /// Its counterexample, in `Outcome::poly`.
    witness: Option<usize>,
    implied_by: Option<Level>,
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
fn version_order_note(h: &History, levels: &[Level], poly: &[PolyLevel], outcomes: &[LevelOutcome]) -> Vec<String> {
    let mut notes = Vec::new();
    if h.model != Model::RwRegister || h.version_order.is_some() {
        return notes;
    }
    let names = |ls: &[Level]| ls.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
    let on_poly: Vec<Level> = poly.iter().map(|p| p.level).collect();
    let unknown_now = |l: Level| outcomes.iter().any(|o| o.level == l && matches!(o.verdict, Verdict::Unknown(_)));
    let left: Vec<Level> = on_poly.iter().copied().filter(|&l| unknown_now(l)).collect();
    let (implied, decided): (Vec<&PolyLevel>, Vec<&PolyLevel>) =
        poly.iter().filter(|p| !unknown_now(p.level)).partition(|p| matches!(p.verdict, Decision::Unknown(_)));
    let (found, exact): (Vec<&PolyLevel>, Vec<&PolyLevel>) =
        decided.into_iter().partition(|p| held_then_violated(p.level, poly, outcomes));
    let found: Vec<Level> = found.iter().map(|p| p.level).collect();
    let implied: Vec<Level> = implied.iter().map(|p| p.level).collect();
    let exact: Vec<Level> = exact.iter().map(|p| p.level).collect();
    let sure: Vec<Level> = levels.iter().copied().filter(|l| l.spec().weak.is_none() && !on_poly.contains(l)).collect();
    if !on_poly.is_empty() {
        let mut parts = Vec::new();
        if !exact.is_empty() {
            parts.push(format!(
                "{} decided exactly on the generalized polygraph (PolySI), over every version order",
                names(&exact)
            ));
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

/// Reads of values nobody wrote that may be their keys' initial version (the history leaves it
/// open): the reason a level that forbids thin-air reads is not decided, and a note that says
/// which `--initial-value` would decide them when they all read one value.
fn maybe_initial_reads(h: &History, inf: &Inference, notes: &mut Vec<String>) -> Option<String> {
    let reads: Vec<&crate::anomaly::Finding> = inf.findings.iter().filter(|f| f.maybe_initial).collect();
    let first = reads.first()?;
    let value = first.value.map_or_else(|| "nil".into(), |v| h.show(v));
    let key = first.key.map_or_else(String::new, |k| h.show(h.key(k)));
    let reader = first.txns.first().map_or_else(String::new, |&t| format!("T{}", h.txns[t as usize].id));
    let mut keys: Vec<_> = reads.iter().filter_map(|f| f.key).collect();
    keys.sort_unstable();
    keys.dedup();
    let one_value = reads.iter().all(|f| f.value == first.value);
    if one_value {
        notes.push(format!(
            "{} read{} of {} key{} read {value}, which no transaction wrote, and no read saw the initial value of {}: if the keys start at {value}, check again with --initial-value {value} (TimeKiller's --initial_value); otherwise they are thin-air reads",
            reads.len(),
            if reads.len() == 1 { "" } else { "s" },
            keys.len(),
            if keys.len() == 1 { "" } else { "s" },
            if keys.len() == 1 { "that key" } else { "those keys" }
        ));
    }
    Some(format!(
        "{reader} read {value} of key {key}, which no transaction wrote ({} such read{} on {} key{}): a thin-air read, which this level forbids, unless it is the key's initial value, which the history leaves open (--initial-value)",
        reads.len(),
        if reads.len() == 1 { "" } else { "s" },
        keys.len(),
        if keys.len() == 1 { "" } else { "s" },
    ))
}

/// A level that forbids thin-air reads does not hold over reads that may be of the initial
/// version or thin-air: it is unknown, with `why`.
pub(super) fn maybe_initial_unknown(outcomes: &mut [LevelOutcome], why: &str) {
    for o in outcomes.iter_mut().filter(|o| o.verdict == Verdict::Holds && o.level.proscribes(AnomalyKind::GarbageRead))
    {
        o.verdict = Verdict::Unknown(why.into());
        o.implied_by = None;
    }
}

/// Why no level holds over a history without a committed transaction.
pub const NOTHING_COMMITTED: &str = "the history has no committed transaction, so there was nothing to check: an empty capture, or one whose operations are not transactions (grail checks operations whose :f is :txn or absent; a register history of :f :read and :write operations is not one), is no evidence that a level holds";

/// A level cannot hold over a history without a committed transaction: it says nothing of
/// the database (Elle's `:empty-transaction-graph` answers `unknown` too).
pub(super) fn nothing_committed(h: &History, outcomes: &mut [LevelOutcome]) {
    if h.txns.iter().any(|t| t.status == crate::history::Status::Committed) {
        return;
    }
    for o in outcomes.iter_mut().filter(|o| o.verdict == Verdict::Holds) {
        o.verdict = Verdict::Unknown(NOTHING_COMMITTED.into());
        o.implied_by = None;
    }
}

/// A level's `implied_by` stays only while the level it names ended with the same verdict: the
/// polygraph's "SI holds" (with aborted reads set aside) implies nothing once G1a violates SI.
fn consistent_implied_by(outcomes: &mut [LevelOutcome]) {
    let verdicts: Vec<(Level, Verdict)> = outcomes.iter().map(|o| (o.level, o.verdict.clone())).collect();
    for o in outcomes.iter_mut() {
        if let Some(by) = o.implied_by {
            if !verdicts.iter().any(|(l, v)| *l == by && *v == o.verdict) {
                o.implied_by = None;
            }
        }
    }
}

/// The levels of a register history without a version order, decided on the polygraph (PolySI)
/// with the order their cycles may use among the known edges; the weak levels need no version
/// order and keep their own graphs.
fn polygraph_levels(
    h: &History,
    inf: &Inference,
    opts: &CheckOptions,
    levels: &[Level],
    budget: &mut Budget,
    notes: &mut Vec<PolyNote>,
    graphs: &mut Graphs,
) -> (Vec<PolyLevel>, Vec<PolyWitness>) {
    let (mut out, mut witnesses): (Vec<PolyLevel>, Vec<PolyWitness>) = (Vec::new(), Vec::new());
    if !polygraph_applies(h, opts) {
        return (out, witnesses);
    }
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
            let (verdict, st) = crate::polygraph::decide(pg, mode, budget);
            notes.push(PolyNote { level: l, decided: !matches!(verdict, Decision::Unknown(_)), text: format!(
                "on the generalized polygraph (PolySI){}: {} known edges, {} constraints ({} pairs of versions before compaction), {} after pruning ({}){}, {}, {} learned from",
                match (order, st.with_session) {
                    (Order::None, false) => "",
                    (Order::None, true) => " (it holds even with session order among the known edges)",
                    (Order::Session, _) => ", session order included",
                    (Order::Realtime, _) => ", real-time order included",
                },
                st.known_edges,
                st.constraints,
                st.version_pairs,
                st.after_pruning,
                counted(st.pruning_rounds, "round"),
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
            ) });
            let witness = match &verdict {
                Decision::Violated(cx) => {
                    violated_here[slot] = true;
                    slot_of.push(slot);
                    witnesses.push(PolyWitness { polygraph: slot, named: poly_named(cx), counterexample: cx.clone() });
                    Some(witnesses.len() - 1)
                }
                _ => None,
            };
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
    (out, witnesses)
}

/// List append: SI and PSI decided over every order of the appends no read observed, when the
/// observed orders alone leave them holding (PolySI's polygraph, of those appends' choices:
/// [`crate::polygraph::appends`]). SER needs no such search: a topological order of an acyclic
/// graph orders the appends without a cycle.
#[allow(clippy::too_many_arguments)]
fn append_orders(
    h: &History,
    inf: &Inference,
    levels: &[Level],
    searches: &[PatternSearch],
    plain_comps: Option<&[Vec<u32>]>,
    budget: &mut Budget,
    poly_levels: &mut Vec<PolyLevel>,
    poly: &mut Vec<PolyWitness>,
    notes: &mut Vec<PolyNote>,
    graphs: &mut Graphs,
) {
    // A level whose own searches (on its own graph) found nothing, nor a finding.
    let needs = |l: Level| {
        levels.contains(&l)
            && !inf.findings.iter().any(|f| l.forbids(f))
            && searches
                .iter()
                .filter(|s| s.graph == GraphId::Dependency(l.spec().order) && s.kind.is_none_or(|k| l.proscribes(k)))
                .all(|s| s.found.is_empty() && !matches!(s.outcome, Searched::Unknown(_)))
    };
    let todo: Vec<(Level, Mode, Order)> = [
        (Level::Si, Mode::Si, Order::None),
        (Level::Psi, Mode::Psi, Order::None),
        (Level::StrongSessionSi, Mode::Si, Order::Session),
        (Level::StrongSi, Mode::Si, Order::Realtime),
    ]
    .into_iter()
    .filter(|&(l, _, _)| needs(l))
    .collect();
    if todo.is_empty() {
        return;
    }
    // One polygraph per graph (plain, with session order, with real-time order), on its own
    // components: a level's cycles may use its order's edges.
    let mut built: Vec<(Order, Option<usize>)> = Vec::new();
    let mut pgs: Vec<crate::polygraph::Polygraph> = Vec::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut si: Option<(Decision, Option<usize>)> = None;
    for (l, mode, order) in todo {
        // Implied by SI: a violation without order edges is one with them, and PSI holds when
        // SI does.
        if let Some((v, w)) = &si {
            let implied = matches!(
                (l, v),
                (Level::Psi, Decision::Holds) | (Level::StrongSessionSi | Level::StrongSi, Decision::Violated(_))
            );
            if implied {
                poly_levels.push(PolyLevel { level: l, verdict: v.clone(), witness: *w, implied_by: Some(Level::Si) });
                continue;
            }
        }
        let slot = match built.iter().find(|b| b.0 == order) {
            Some(b) => b.1,
            None => {
                let g = graphs.get(&inf.graph, GraphId::Dependency(order));
                let pg = g.and_then(|g| {
                    let own;
                    let comps = match (order, plain_comps) {
                        (Order::None, Some(c)) => c,
                        _ => {
                            own = components(g);
                            &own[..]
                        }
                    };
                    crate::polygraph::appends::build(h, g, comps, &inf.open_appends, crate::polygraph::MAX_CONSTRAINTS)
                });
                let slot = pg.map(|pg| {
                    pgs.push(pg);
                    pgs.len() - 1
                });
                built.push((order, slot));
                slot
            }
        };
        // No two unobserved appends of a key share a component: no order of them closes a cycle.
        let Some(slot) = slot else { continue };
        let pg = &pgs[slot];
        let (verdict, st) = crate::polygraph::decide(pg, mode, budget);
        let decided = !matches!(verdict, Decision::Unknown(_));
        notes.push(PolyNote {
            level: l,
            decided,
            text: format!(
                "over every order of the appends no read observed (a generalized polygraph, as PolySI's of a register's versions{}): {} of such appends in one strongly connected component{}",
                match order {
                    Order::None => "",
                    Order::Session => ", session order included",
                    Order::Realtime => ", real-time order included",
                },
                counted(st.constraints as u64, "pair"),
                if decided {
                    format!(", {} open after pruning, {}", st.after_pruning, counted(st.decisions, "guess"))
                } else {
                    String::new()
                }
            ),
        });
        let witness = match &verdict {
            Decision::Violated(cx) => {
                let index = match kept.iter().find(|k| k.0 == slot) {
                    Some(k) => k.1,
                    None => {
                        graphs.polygraphs.push(pg.clone());
                        kept.push((slot, graphs.polygraphs.len() - 1));
                        graphs.polygraphs.len() - 1
                    }
                };
                poly.push(PolyWitness { polygraph: index, named: poly_named(cx), counterexample: cx.clone() });
                Some(poly.len() - 1)
            }
            _ => None,
        };
        if l == Level::Si {
            si = Some((verdict.clone(), witness));
        }
        poly_levels.push(PolyLevel { level: l, verdict, witness, implied_by: None });
    }
}

/// "1 round", "2 rounds", "1 guess", "0 guesses".
fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    match (n, noun.ends_with('s')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!(super::counted(1u32, "round"), "1 round");
        assert_eq!(super::counted(6u32, "round"), "6 rounds");
        assert_eq!(super::counted(1u64, "guess"), "1 guess");
        assert_eq!(super::counted(0u64, "guess"), "0 guesses");
        assert_eq!(super::counted(2u64, "conflict"), "2 conflicts");
    }
}
