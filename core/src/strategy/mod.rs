//! GRAIL's cycle checkers as selectable strategies (GRAIL thesis chapter 4, Appendices B and E).
//!
//! Each strategy decides the five levels on the same dependency graph and counts its work
//! (traversals started, edges visited) so that the thesis's plots can be redrawn:
//!
//! | strategy | GRAIL counterpart | complete? |
//! |---|---|---|
//! | [`Strategy::Scc`] | the default engine of [`crate::check`] (unchanged) | yes |
//! | [`Strategy::Dfs`] | ArangoDB-Cycle: `FOR v, e, p IN 2..max OUTBOUND start` from every vertex (Listing E.1) | no: finds cycles of at most `max_depth` edges (= transactions) |
//! | [`Strategy::ShortestPath`] | ArangoDB-SP / Neo4j-APOC: a shortest back-path from every edge (Listing E.16) | yes |
//! | [`Strategy::Gabow`] | SCC checkers (Pregel, Neo4j-GDS) with Gabow's path-based SCC (Algorithm 8), iterative | yes |
//!
//! A level is decided on cycles only (GRAIL's checkers know no G1a/G1b). A cycle violates a
//! level when its word of labels matches one of the level's cycle anti-patterns
//! ([`crate::level::pattern`], checked with [`crate::graph::search::matches`]).
//!
//! Multi-labelled pairs: between two transactions the graph may hold ww, wr and rw at once. A
//! cycle may choose any label per step; labels the level's pattern treats alike are
//! interchangeable, so each step tries one label per class (for the five levels: SER one, SI
//! and PSI one non-rw label, ww before wr, and rw). The searches run on the product of the graph
//! with the level's automaton, derived from its pattern ([`automaton`]: SI remembers whether the
//! last label was rw, PSI whether an rw was used), so a found closed walk matches; it is then
//! cut into a simple cycle that still matches (`../shared/LEVELS.md`).

pub mod automaton;
mod dfs;
mod gabow;
mod shortest_path;

pub use automaton::{level_pattern, Automaton};

use crate::anomaly::AnomalyKind;
use crate::error::{Error, ErrorKind};
use crate::graph::search::matches;
use crate::graph::{DependencyGraph, EdgeType};
use crate::history::{History, TxnId};
use crate::infer::Inference;
use crate::level::{pattern, Level};
use serde::Serialize;
use std::collections::VecDeque;

/// Which checker decides the levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The default engine (strongly connected components, product search).
    Scc,
    /// Depth-bounded traversal from every vertex: cycles of 2 to `max_depth` transactions.
    Dfs { max_depth: usize },
    /// A shortest matching back-path from the head to the tail of every edge.
    ShortestPath,
    /// Gabow's path-based SCC algorithm (iterative) on the level's product graph.
    Gabow,
}

/// GRAIL's default maximum depth for the Cycle checker (thesis 4.1: "at least 4").
pub const DEFAULT_MAX_DEPTH: usize = 4;

impl Strategy {
    /// Parse `scc`, `dfs`, `shortest-path` (or `sp`) or `gabow`; `max_depth` applies to `dfs`.
    pub fn parse(name: &str, max_depth: Option<usize>) -> Result<Strategy, Error> {
        let s = match name.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "scc" => Strategy::Scc,
            "dfs" | "cycle" => Strategy::Dfs { max_depth: max_depth.unwrap_or(DEFAULT_MAX_DEPTH) },
            "shortest-path" | "sp" => Strategy::ShortestPath,
            "gabow" => Strategy::Gabow,
            _ => {
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!("unknown strategy {name:?}: expected scc, dfs, shortest-path or gabow"),
                ))
            }
        };
        if max_depth.is_some() && !matches!(s, Strategy::Dfs { .. }) {
            return Err(Error::new(ErrorKind::Usage, "--max-depth applies to the dfs strategy only"));
        }
        if let Strategy::Dfs { max_depth } = s {
            if max_depth < 2 {
                return Err(Error::new(
                    ErrorKind::Usage,
                    "the maximum depth must be at least 2 (a cycle has two edges)",
                ));
            }
        }
        Ok(s)
    }

    /// The levels this strategy decides when asked for `levels`: the five classic ones when
    /// none is given. GRAIL's checkers know those only: another level is an error.
    pub fn levels(self, levels: &[Level]) -> Result<Vec<Level>, Error> {
        if let Some(l) = levels.iter().find(|l| !Level::CLASSIC.contains(l)) {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "strategy {} decides the classic levels (SER, SI, PSI, PL-2, PL-1) only, not {}",
                    self.name(),
                    l.name()
                ),
            ));
        }
        Ok(if levels.is_empty() { Level::CLASSIC.to_vec() } else { levels.to_vec() })
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Scc => "scc",
            Strategy::Dfs { .. } => "dfs",
            Strategy::ShortestPath => "shortest-path",
            Strategy::Gabow => "gabow",
        }
    }
}

/// A strategy's answer for one level: a verdict, or "not detected" by a bounded search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "StrategyVerdict"))]
pub enum Answer {
    /// A cycle of the level's anti-pattern was found.
    Violated,
    /// The search was complete and found none.
    Holds,
    /// A bounded search found none; longer cycles were not searched (GRAIL's "no anti-pattern
    /// detected" with a maximum depth), so the level may still be violated.
    NotDetected,
    /// The default engine ran out of budget.
    Unknown,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Violated => "violated",
            Answer::Holds => "holds",
            Answer::NotDetected => "not detected",
            Answer::Unknown => "unknown",
        }
    }
}

/// Work done, for plots like the thesis's (traversals per history, edges per traversal).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Counters {
    /// Traversals started: DFS starts (dfs), BFS runs (shortest-path), DFS roots plus
    /// back-path BFS runs (gabow).
    pub traversals: u64,
    /// Edge visits, one per (pair, label) examined.
    pub edges_visited: u64,
}

/// A cycle as transaction ids (the Jepsen `:index`) and labels: `txns[i] -types[i]-> txns[i+1]`,
/// the last edge closing back to `txns[0]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FoundCycle {
    pub txns: Vec<u64>,
    pub types: Vec<EdgeType>,
}

impl FoundCycle {
    /// `T1 (rw) T2 (ww) T1`, as GRAIL's text output.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (t, ty) in self.txns.iter().zip(&self.types) {
            s.push_str(&format!("T{t} ({}) ", ty.as_str()));
        }
        if let Some(t) = self.txns.first() {
            s.push_str(&format!("T{t}"));
        }
        s
    }
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LevelAnswer {
    pub level: Level,
    pub verdict: Answer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<FoundCycle>,
    pub counters: Counters,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StrategyReport {
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::strategy::schema_strategy"))]
    pub strategy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
    pub levels: Vec<LevelAnswer>,
    pub notes: Vec<String>,
}

impl StrategyReport {
    pub fn level(&self, l: Level) -> Option<&LevelAnswer> {
        self.levels.iter().find(|o| o.level == l)
    }
}

/// Decide `levels` (strongest first in the output) with strategy `s`.
pub fn run(h: &History, inf: &Inference, s: Strategy, levels: &[Level]) -> StrategyReport {
    let mut notes = Vec::new();
    // GRAIL's checkers know the five classic levels only.
    let mut levels: Vec<Level> = levels.iter().copied().filter(|l| Level::CLASSIC.contains(l)).collect();
    levels.sort();
    levels.dedup();
    let g = &inf.graph;
    let id = |c: Option<Vec<(TxnId, EdgeType)>>| {
        c.map(|w| FoundCycle {
            txns: w.iter().map(|&(t, _)| h.txns[t as usize].id).collect(),
            types: w.iter().map(|&(_, ty)| ty).collect(),
        })
    };
    let outcomes: Vec<LevelAnswer> = match s {
        Strategy::Scc => {
            let opts = crate::report::CheckOptions {
                levels: levels.clone(),
                max_steps: None,
                max_cycles: 1,
                register_mode: crate::report::RegisterMode::SureEdges,
                analyze: None,
                white_box: crate::timestamps::WhiteBoxMode::Ignore,
                // GRAIL's checkers order appends as reads observed them.
                observed_order_only: true,
                inferred_order_only: false,
            };
            let r = crate::report::check_inferred(h, inf, &opts, None);
            notes.push("scc is the default engine; it does not count its work here".into());
            levels
                .iter()
                .map(|&l| {
                    let lr = &r.levels[l.name()];
                    let verdict = match lr.valid {
                        Some(true) => Answer::Holds,
                        Some(false) => Answer::Violated,
                        None => Answer::Unknown,
                    };
                    LevelAnswer { level: l, verdict, cycle: None, counters: Counters::default() }
                })
                .collect()
        }
        _ => levels
            .iter()
            .map(|&l| {
                let (verdict, found, counters) = decide(g, s, l);
                LevelAnswer { level: l, verdict, cycle: id(found), counters }
            })
            .collect(),
    };
    if let Strategy::Dfs { max_depth } = s {
        if outcomes.iter().any(|o| o.verdict == Answer::NotDetected) {
            notes.push(format!(
                "dfs searched cycles of at most {max_depth} transactions: \"not detected\" means no such short \
                 cycle exists, not that the level holds (GRAIL's Cycle checker has the same limit)"
            ));
        }
    }
    if s != Strategy::Scc {
        notes.push("decided on dependency cycles only, as GRAIL's checkers (no G1a/G1b)".into());
    }
    StrategyReport {
        strategy: s.name(),
        max_depth: match s {
            Strategy::Dfs { max_depth } => Some(max_depth),
            _ => None,
        },
        levels: outcomes,
        notes,
    }
}

/// Decide one level on a graph with a cycle strategy (not [`Strategy::Scc`], which needs the
/// inference and is answered [`Answer::Unknown`] here). The cycle is in [`TxnId`]s.
pub fn decide(g: &DependencyGraph, s: Strategy, l: Level) -> (Answer, Option<Vec<(TxnId, EdgeType)>>, Counters) {
    let mut c = Counters::default();
    let (found, complete) = match s {
        Strategy::Dfs { max_depth } => (dfs::search(g, l, max_depth, &mut c), max_depth >= g.vertex_count()),
        Strategy::ShortestPath => (shortest_path::search(g, l, &mut c), true),
        Strategy::Gabow => (gabow::search(g, l, &mut c), true),
        Strategy::Scc => return (Answer::Unknown, None, c),
    };
    let verdict = match (&found, complete) {
        (Some(_), _) => Answer::Violated,
        (None, true) => Answer::Holds,
        (None, false) => Answer::NotDetected,
    };
    (verdict, found, c)
}

// ---------------------------------------------------------------------------------------------
// What the strategies share: the level's truth, simple cycles, the product BFS.

/// Whether a cycle's word of labels violates the level: it matches one of the cycle patterns
/// of the anomalies the level proscribes.
pub fn violates(l: Level, types: &[EdgeType]) -> bool {
    l.spec().proscribes.iter().filter_map(|&k: &AnomalyKind| pattern(k)).any(|p| matches(&p, types))
}

/// A closed walk `(vertex, label of the edge leaving it)` cut into a simple cycle that still
/// violates `l`, or `None` if the walk does not violate it. Splitting at a repeated vertex
/// gives two closed walks; for the five levels one of them still violates.
pub(crate) fn simple_cycle(l: Level, mut walk: Vec<(TxnId, EdgeType)>) -> Option<Vec<(TxnId, EdgeType)>> {
    let types = |w: &[(TxnId, EdgeType)]| w.iter().map(|&(_, t)| t).collect::<Vec<_>>();
    if !violates(l, &types(&walk)) {
        return None;
    }
    loop {
        let n = walk.len();
        let mut seen = std::collections::HashMap::with_capacity(n);
        let mut split = None;
        for (j, &(v, _)) in walk.iter().enumerate() {
            if let Some(i) = seen.insert(v, j) {
                split = Some((i, j));
                break;
            }
        }
        let Some((i, j)) = split else { return Some(walk) };
        let inner = walk[i..j].to_vec();
        let mut outer = walk[j..].to_vec();
        outer.extend_from_slice(&walk[..i]);
        walk = if violates(l, &types(&inner)) {
            inner
        } else if violates(l, &types(&outer)) {
            outer
        } else {
            return None; // cannot happen for the five levels
        };
    }
}

/// A walk as `(vertex, label of the edge leaving it)`.
pub(crate) type Walk = Vec<(TxnId, EdgeType)>;

/// Reusable BFS buffers over the product graph (vertex, automaton state), node = k v + s for an
/// automaton of k states.
pub(crate) struct Bfs {
    stamp: Vec<u32>,
    parent: Vec<(u32, EdgeType)>,
    queue: VecDeque<u32>,
    epoch: u32,
}

impl Bfs {
    pub(crate) fn new() -> Bfs {
        Bfs { stamp: Vec::new(), parent: Vec::new(), queue: VecDeque::new(), epoch: 0 }
    }

    /// Shortest walk in the product from `start` (vertex, state) along allowed labels, staying
    /// in `within`, to the first edge `(x, s) -t-> (w, s')` with `target(w, s')`. Returns the
    /// walk as `(vertex, label leaving it)`, from `start.0` to the vertex before the target,
    /// and the target `(w, s')`.
    pub(crate) fn run(
        &mut self,
        g: &DependencyGraph,
        a: &Automaton,
        start: (TxnId, u8),
        within: &dyn Fn(TxnId) -> bool,
        target: &dyn Fn(TxnId, u8) -> bool,
        c: &mut Counters,
    ) -> Option<(Walk, TxnId, u8)> {
        c.traversals += 1;
        let k = a.states() as u32;
        let nodes = g.is_vertex.len() * k as usize;
        if self.stamp.len() < nodes {
            self.stamp.resize(nodes, 0);
            self.parent.resize(nodes, (0, EdgeType::Ww));
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|x| *x = 0);
            self.epoch = 1;
        }
        let node = |v: TxnId, s: u8| k * v + s as u32;
        let root = node(start.0, start.1);
        self.stamp[root as usize] = self.epoch;
        self.queue.clear();
        self.queue.push_back(root);
        while let Some(x) = self.queue.pop_front() {
            let (v, s) = (x / k, (x % k) as u8);
            for &crate::graph::Succ { to: w, mask } in g.out(v) {
                if !within(w) {
                    continue;
                }
                for t in a.labels(mask).iter() {
                    c.edges_visited += 1;
                    let Some(s2) = a.step(s, t) else { continue };
                    if target(w, s2) {
                        let mut walk = vec![(v, t)];
                        let mut y = x;
                        while y != root {
                            let (p, pt) = self.parent[y as usize];
                            walk.push((p / k, pt));
                            y = p;
                        }
                        walk.reverse();
                        return Some((walk, w, s2));
                    }
                    let y = node(w, s2);
                    if self.stamp[y as usize] != self.epoch {
                        self.stamp[y as usize] = self.epoch;
                        self.parent[y as usize] = (x, t);
                        self.queue.push_back(y);
                    }
                }
            }
        }
        None
    }
}

#[cfg(feature = "schema")]
/// A strategy's name.
pub fn schema_strategy(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names = [Strategy::Scc, Strategy::Dfs { max_depth: 0 }, Strategy::ShortestPath, Strategy::Gabow];
    let s = crate::history::schema::strings(
        "A strategy: the default engine or one of GRAIL's checkers.",
        names.map(|s| s.name().to_string()),
    );
    crate::history::schema::def(g, "Strategy", s)
}
