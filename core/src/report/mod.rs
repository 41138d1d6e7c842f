//! The verdict: per level valid / violated / unknown, anomalies with evidence, minimal cycles.
//!
//! A report is plain data (serde), the same schema for the CLI's `--json`, Python's
//! `Report.to_dict()` and the JS package; text and DOT are rendered from it.

mod build;
pub mod dot;
mod lattice;
pub mod text;

pub use build::{check, check_inferred};

use crate::graph::Stats;
use crate::level::Level;
use serde::{Deserialize, Serialize};

/// Options of a check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckOptions {
    /// Levels to check; the five classic ones (SER, SI, PSI, PL-2, PL-1) when empty.
    pub levels: Vec<Level>,
    /// Bound on search steps (edge visits); `None` for no bound. When it runs out, undecided
    /// levels are `unknown`, and witnesses found so far may not be minimal.
    pub max_steps: Option<u64>,
    /// At most this many cycles (one per strongly connected component) per anomaly.
    pub max_cycles: usize,
    /// Classify and count cycles, and find the read anomalies (`docs/analysis.md`); the result
    /// is [`Report::analysis`]. Off when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analyze: Option<crate::analysis::AnalyzeOptions>,
    /// How register histories are checked for SER and SI (see [`RegisterMode`]).
    pub register_mode: RegisterMode,
    /// How the start and commit timestamps and the commit order a history claims are used
    /// ([`crate::timestamps`]).
    pub white_box: crate::timestamps::WhiteBoxMode,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            levels: Vec::new(),
            max_steps: None,
            max_cycles: 8,
            register_mode: RegisterMode::Auto,
            analyze: None,
            white_box: crate::timestamps::WhiteBoxMode::Auto,
        }
    }
}

/// How SER and SI are decided for read/write register histories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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

/// A micro-operation as reports show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpRef {
    /// The transaction's id.
    pub txn: u64,
    /// Position of the operation in its transaction (0-based).
    pub index: u32,
    /// Jepsen notation, long lists shortened: `[:append 5 3]`, `[:r 5 [1 2 3]]`.
    pub op: String,
}

/// One edge of a cycle, with the micro-operations that justify it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub from: u64,
    pub to: u64,
    #[serde(rename = "type")]
    pub ty: String,
    pub key: serde_json::Value,
    pub from_op: OpRef,
    pub to_op: OpRef,
    /// Why the edge holds, in one sentence.
    pub why: String,
    /// Polygraph mode only (register histories without a version order): `true` when the
    /// history itself fixes the edge, `false` when it follows from a choice of version order
    /// (PolySI 5.3: certain and uncertain dependencies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certain: Option<bool>,
    /// White-box checking only: `true` when the edge is the database's claim (its timestamps
    /// or commit order, [`crate::timestamps`]), not a dependency the history shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed: Option<bool>,
}

/// A cycle in the dependency graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CycleReport {
    /// Adya's name: G0, G1c, G-single, G-nonadjacent or G2-item.
    pub anomaly: String,
    /// The plain-language name (write skew, lost update, ...).
    pub name: String,
    pub txns: Vec<u64>,
    pub steps: Vec<Step>,
    /// No shorter cycle of this anomaly exists in its strongly connected component.
    pub minimal: bool,
    pub explanation: String,
}

/// An anomaly: a cycle, or a finding on reads and writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnomalyReport {
    #[serde(rename = "type")]
    pub kind: String,
    /// Its plain-language name: a cycle's (write skew, lost update, ...), or a read's as Plume
    /// names them (aborted read, thin-air read, future read, not my own write, ...).
    pub name: String,
    /// Levels this anomaly violates (empty: it breaks an assumption of the model instead).
    pub levels: Vec<Level>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// Transactions involved (for a read anomaly: the writer, if known, first).
    pub txns: Vec<u64>,
    pub ops: Vec<OpRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<CycleReport>,
    pub explanation: String,
}

/// The verdict for one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelReport {
    /// `true` holds, `false` violated, `null` unknown (budget ran out).
    pub valid: Option<bool>,
    /// `holds`, `violated` or `unknown`.
    pub verdict: String,
    /// Names of the anomalies found that this level proscribes.
    pub anomalies: Vec<String>,
    /// The shortest cycle proscribed by this level, per violating component.
    pub cycles: Vec<CycleReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The level this verdict follows from, when it was not searched for: a stronger level
    /// that holds, or a weaker one that is violated (whose counterexample is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implied_by: Option<Level>,
    /// Findings that break the model's assumptions (thin-air reads, duplicate writes, ...)
    /// which this level does not proscribe: its verdict was computed with them set aside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<String>,
}

/// Levels in strength order, serialized as an object keyed by level name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Levels(pub Vec<(Level, LevelReport)>);

impl std::ops::Index<&str> for Levels {
    type Output = LevelReport;
    fn index(&self, name: &str) -> &LevelReport {
        &self.0.iter().find(|(l, _)| l.name() == name).unwrap_or_else(|| panic!("level {name} was not checked")).1
    }
}

impl Levels {
    pub fn get(&self, l: Level) -> Option<&LevelReport> {
        self.0.iter().find(|(x, _)| *x == l).map(|x| &x.1)
    }
}

impl Serialize for Levels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (l, r) in &self.0 {
            m.serialize_entry(l.name(), r)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Levels {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m: std::collections::BTreeMap<Level, LevelReport> = Deserialize::deserialize(d)?;
        Ok(Levels(m.into_iter().collect()))
    }
}

/// The whole verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Every checked level holds and no finding breaks the model's assumptions (`null` when a
    /// level is unknown and nothing is violated).
    pub valid: Option<bool>,
    /// `list-append`, `rw-register` or `empty`.
    pub model: String,
    pub levels: Levels,
    /// The weakest checked levels violated (Elle's `not`): no weaker checked level is violated.
    pub weakest_violated: Vec<Level>,
    /// Every level stronger than those, checked or not: they are violated too (Elle's `also-not`).
    pub also_violated: Vec<Level>,
    /// The strongest checked levels that hold with nothing set aside: no stronger checked
    /// level holds.
    pub strongest_satisfied: Vec<Level>,
    /// Kinds of the findings that break the data model's assumptions (`garbage-read`,
    /// `duplicate-write`, `internal`, `incompatible-order`): the history is invalid whatever
    /// the levels say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken_assumptions: Vec<String>,
    /// Every anomaly found, cycles and findings alike.
    pub anomalies: Vec<AnomalyReport>,
    pub stats: Stats,
    /// What could not be inferred, and other caveats.
    pub notes: Vec<String>,
    /// Cycle classes and counts, read anomalies: only when [`CheckOptions::analyze`] asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<crate::analysis::Analysis>,
    /// What the history's claimed timestamps and commit order say, when it has any
    /// ([`crate::timestamps`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_box: Option<crate::timestamps::WhiteBoxReport>,
}

/// Weakest violated, also violated, strongest satisfied (for reports built elsewhere).
pub(crate) fn lattice_summary(reports: &[(Level, LevelReport)]) -> (Vec<Level>, Vec<Level>, Vec<Level>) {
    lattice::summary(reports)
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
