//! The verdict: per level valid / violated / unknown, anomalies with evidence, minimal cycles.
//!
//! A report is plain data (serde), the same schema for the CLI's `--json`, Python's
//! `Report.to_dict()` and the JS package; text and DOT are rendered from it.

mod build;

pub use crate::engine::{CheckOptions, RegisterMode, Verdict};
pub use crate::explain::{AnomalyReport, CycleReport, OpRef, Step, TxnClaim, WhiteBoxFinding, WhiteBoxReport};
pub use build::{check, check_inferred, infer_for, needs};

use crate::graph::Stats;
use crate::history::Model;
use crate::level::Level;
use serde::{Deserialize, Serialize};

/// The verdict for one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LevelReport {
    /// `true` holds, `false` violated, `null` unknown (budget ran out).
    pub valid: Option<bool>,
    pub verdict: Verdict,
    /// Names of the anomalies found that this level proscribes.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::anomaly_types"))]
    pub anomalies: Vec<String>,
    /// The shortest cycle proscribed by this level, per violating component.
    pub cycles: Vec<CycleReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The level this verdict follows from, when it was not searched for: a stronger level
    /// that holds, or a weaker one that is violated (whose counterexample is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implied_by: Option<Level>,
    /// The level whose counterexample shows this one violated, when this level's own check did
    /// not decide it (its search was cut short, say): a cycle of certain edges only, which this
    /// level forbids too (`cycles` gives it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle_from: Option<Level>,
    /// Findings that break the model's assumptions (thin-air reads, duplicate writes, ...)
    /// which this level does not proscribe: its verdict was computed with them set aside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::anomaly_types"))]
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

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Levels {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Levels".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let level = g.subschema_for::<LevelReport>();
        schemars::json_schema!({ "type": "object", "additionalProperties": level })
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// Every checked level holds and no finding breaks the model's assumptions (`null` when a
    /// level is unknown and nothing is violated).
    pub valid: Option<bool>,
    /// `list-append`, `rw-register` or `empty`.
    pub model: Model,
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
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::anomaly_types"))]
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
    pub white_box: Option<WhiteBoxReport>,
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report's cycle (a level's or a finding's) of this anomaly through these transactions
    /// with this explanation (which names every step, so two cycles through the same
    /// transactions on other keys are told apart), so that a front end holding only its data
    /// can ask core to draw it.
    pub fn cycle(&self, anomaly: &str, txns: &[u64], explanation: &str) -> Option<&CycleReport> {
        let of_levels = self.levels.0.iter().flat_map(|(_, l)| &l.cycles);
        let of_findings = self.anomalies.iter().filter_map(|a| a.cycle.as_ref());
        of_levels.chain(of_findings).find(|c| c.anomaly == anomaly && c.txns == txns && c.explanation == explanation)
    }
}
