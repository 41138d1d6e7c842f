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
//!
//! [`run`] only orders the passes, one per family of levels, each in its own file: `poly.rs` the
//! register levels decided on the polygraph, and their notes; `cycles.rs` the searches on the
//! dependency graphs and on the weak levels' saturated graphs ([`weak`]); `appends.rs` list
//! append's unobserved appends ([`open_pairs`], else every order of them); `verdicts.rs` each
//! level's verdict from what they found, and the rules applied once all are in.

mod appends;
mod causal;
pub mod claims;
mod cycles;
pub mod lattice;
pub mod open_pairs;
mod poly;
mod verdicts;
pub mod weak;

pub use verdicts::NOTHING_COMMITTED;

use crate::anomaly::AnomalyKind;
use crate::graph::search::{Budget, Cycle};
use crate::graph::DependencyGraph;
use crate::history::History;
use crate::infer::Inference;
use crate::level::{Level, Order, Weak};
use crate::polygraph::{Counterexample, Polygraph};
use crate::timestamps::{Checked, ClaimName, WhiteBoxMode};
use serde::{Deserialize, Serialize};
use weak::{InitialRead, WeakGraph};

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
    /// Registers without a version order: the inference's edges are all that is known of it,
    /// and a level holds when they close none of its cycles (no polygraph, no "unknown" for
    /// want of a version order). Elle's way with the version order it infers
    /// ([`crate::elle::versions`]); set by [`crate::elle::check`], not part of the options' data.
    #[serde(skip)]
    pub inferred_order_only: bool,
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
            inferred_order_only: false,
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
        crate::par::sort::sort(&mut l);
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
    /// The counterexample's cycles cover every choice on them, so that they name it
    /// (`polygraph::name::of_counterexample`); else `named` is the level's least specific.
    pub covered: bool,
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

/// A level's verdict: decided (holds or violated), or not decided, with the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Holds,
    Violated,
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Unknown => "unknown",
        }
    }

    /// `true` holds, `false` violated, `None` unknown.
    pub fn valid(self) -> Option<bool> {
        match self {
            Verdict::Holds => Some(true),
            Verdict::Violated => Some(false),
            Verdict::Unknown => None,
        }
    }
}

/// A verdict equals its name (`holds`, `violated`, `unknown`), as tests and reports spell it.
impl PartialEq<&str> for Verdict {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One level's verdict and what it rests on.
#[derive(Debug, Clone)]
pub struct LevelOutcome {
    pub level: Level,
    /// Set with [`LevelOutcome::decide`] or [`LevelOutcome::leave_unknown`], which keep `reason`
    /// beside it.
    pub verdict: Verdict,
    /// Why the level is not decided: `Some` exactly when `verdict` is unknown.
    pub reason: Option<String>,
    /// The anomalies found that this level proscribes, in the order found.
    pub anomalies: Vec<Named>,
    /// The claims' violations this level proscribes (white-box checking), after `anomalies`.
    pub claims: Vec<ClaimName>,
    /// The shortest proscribed cycle per violating component.
    pub evidence: Vec<Evidence>,
    /// The level this verdict follows from when it was not searched for.
    pub implied_by: Option<Level>,
    /// The level whose counterexample shows this one violated although this level's own check
    /// did not decide it: a cycle of certain edges only (none chosen from a version order), each
    /// of them an edge of this level's graph too, that this level forbids
    /// ([`verdicts::certain_cycles`]).
    pub cycle_from: Option<Level>,
    /// Findings that break the model's assumptions and this level does not proscribe.
    pub set_aside: Vec<AnomalyKind>,
}

impl LevelOutcome {
    /// The level holds or is violated (`verdict` is not [`Verdict::Unknown`]): no reason left.
    pub fn decide(&mut self, verdict: Verdict) {
        debug_assert!(verdict != Verdict::Unknown, "an unknown verdict needs its reason");
        self.verdict = verdict;
        self.reason = None;
    }

    /// The level is not decided, for `why`.
    pub fn leave_unknown(&mut self, why: impl Into<String>) {
        self.verdict = Verdict::Unknown;
        self.reason = Some(why.into());
    }
}

/// The graphs the witnesses are cycles of, beyond the inference's own.
#[derive(Default)]
pub struct Graphs {
    /// When the inference's graph kept no edges ([`search_only`]): its edges the witnesses and
    /// the open pairs read ([`crate::infer::provenance`]).
    pub dependency: Option<DependencyGraph>,
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
            GraphId::Dependency(Order::None) => Some(self.dependency.as_ref().unwrap_or(dependency)),
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

/// The history, its inference, the options and the levels they ask for: what every pass reads.
#[derive(Clone, Copy)]
struct Check<'a> {
    h: &'a History,
    inf: &'a Inference,
    opts: &'a CheckOptions,
    levels: &'a [Level],
    max_cycles: usize,
    /// Committed transactions with no place in real-time order
    /// ([`crate::graph::orders::realtime_gaps`]), counted once when a level with real-time
    /// order is asked for (0 otherwise).
    realtime_gaps: usize,
}

impl Check<'_> {
    /// How a polygraph's note says real-time order is among its known edges: all of it, or
    /// the part the history records, leaving out the committed transactions with no place in
    /// it ([`crate::graph::orders::realtime_gaps`]; their levels are `unknown` for it).
    fn realtime_included(&self) -> String {
        let gaps = self.realtime_gaps;
        if gaps == 0 {
            return ", real-time order included".into();
        }
        let committed = self.h.txns.iter().zip(&self.inf.graph.is_vertex);
        let committed = committed.filter(|(t, &v)| v && t.status == crate::history::Status::Committed).count();
        let left_out = match gaps == committed {
            true => format!("all {committed} committed transactions"),
            false => crate::words::count(gaps as u64, "committed transaction", "committed transactions"),
        };
        format!(", with the real-time order the history records, which leaves out {left_out}")
    }
}

/// Whether a check of `h` with `opts` reads no edge of the dependency graph beyond those of its
/// counterexamples, so that the graph may keep only its adjacency ([`crate::infer::Needs::Search`]):
/// SER, PL-2 and PL-1 (no order, no weak level, no polygraph; SI's and PSI's search over the
/// orders of unobserved appends reads whole components), without analysis or claimed orders.
pub fn search_only(h: &History, opts: &CheckOptions) -> bool {
    // The web demo's module leaves this path out, for its size (feature `compact-graph`).
    if cfg!(feature = "compact-graph") {
        return false;
    }
    let claims = opts.white_box != crate::timestamps::WhiteBoxMode::Ignore && crate::timestamps::Claims::any(h);
    opts.analyze.is_none()
        && !claims
        && !poly::polygraph_applies(h, opts)
        && opts.levels().iter().all(|l| matches!(l, Level::Ser | Level::Pl2 | Level::Pl1))
}

/// Decide the levels `opts` asks for.
pub fn run(h: &History, inf: &Inference, opts: &CheckOptions, budget: &mut Budget) -> Outcome {
    let levels = opts.levels();
    let realtime_gaps = match levels.iter().any(|l| l.spec().order == Order::Realtime) {
        true => crate::graph::orders::realtime_gaps(h, &inf.graph.is_vertex),
        false => 0,
    };
    let cx = Check { h, inf, opts, levels: &levels, max_cycles: opts.max_cycles.max(1), realtime_gaps };
    let mut notes = inf.notes.clone();
    let mut graphs = Graphs::default();
    // Register histories without a version order: the levels that need one decided exactly on
    // the generalized polygraph instead (PolySI; `crate::polygraph`).
    let mut poly = poly::polygraph_levels(cx, budget, &mut graphs);
    // Its note is written once the verdicts are final, in this place.
    let version_note_at = notes.len();
    let mut found = cycles::Found::default();
    cycles::dependency(cx, &poly, budget, &mut found, &mut notes, &mut graphs);
    cycles::saturated(cx, budget, &mut found, &mut notes, &mut graphs);
    if !cfg!(feature = "compact-graph") && !inf.graph.edges_kept {
        let mut wanted = open_pairs::candidates(&inf.graph, &inf.open_appends);
        for w in found.witnesses.iter().filter(|w| w.graph == GraphId::Dependency(Order::None)) {
            let n = w.cycle.txns.len();
            wanted.extend((0..n).map(|i| (w.cycle.txns[i], w.cycle.txns[(i + 1) % n], w.cycle.types[i])));
        }
        graphs.dependency = Some(crate::infer::provenance(h, inf, &wanted));
    }
    let maybe_initial = verdicts::maybe_initial_reads(h, inf, &mut notes);
    let pairs = appends::unobserved(cx, &found, budget, &mut poly, &mut graphs);
    let mut outcomes: Vec<LevelOutcome> =
        levels.iter().map(|&l| verdicts::level_outcome(cx, l, &found, &poly, &pairs)).collect();
    let white_box = crate::timestamps::check(h, Some(inf), opts.white_box, &levels, cx.max_cycles, budget);
    if let Some(c) = &white_box {
        claims::merge(&mut outcomes, c, &found.witnesses);
        notes.extend(c.notes.iter().cloned());
    }
    // After the claims, which read those values as the initial version and may decide a level.
    if let Some(why) = &maybe_initial {
        verdicts::maybe_initial_unknown(&mut outcomes, why);
    }
    if cx.realtime_gaps > 0 {
        verdicts::realtime_unknown(&mut outcomes, cx.realtime_gaps);
    }
    lattice::close(&mut outcomes, &mut notes);
    // A level still undecided that another level's cycle of certain edges violates; then the
    // levels that imply it.
    if verdicts::certain_cycles(&mut outcomes, &found.witnesses, &poly.witnesses, &graphs) {
        lattice::close(&mut outcomes, &mut notes);
    }
    verdicts::consistent_implied_by(&mut outcomes);
    verdicts::nothing_committed(h, &mut outcomes);
    let mut written = poly::poly_note_text(&poly.notes, &poly.levels, &outcomes);
    written.extend(poly::version_order_note(h, &levels, &poly.levels, &outcomes));
    notes.splice(version_note_at..version_note_at, written);
    let mut broken: Vec<AnomalyKind> = inf.findings.iter().filter(|f| f.breaks_assumption()).map(|f| f.kind).collect();
    broken.dedup();
    if let Some(why) = &budget.exhausted {
        notes.push(format!("search cut short ({why}): some witnesses may not be minimal"));
    }
    let cycles::Found { witnesses, initial, .. } = found;
    Outcome { levels: outcomes, witnesses, poly: poly.witnesses, pairs, initial, graphs, broken, notes, white_box }
}
