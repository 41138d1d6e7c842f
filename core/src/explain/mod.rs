//! Counterexamples as data and as text: operations in the input's notation, why each edge holds,
//! cycles and findings with their steps and a "Let / Then" explanation (Elle's form).
//!
//! Takes the history, its index and the graphs (or a polygraph's counterexample); gives the
//! report's [`CycleReport`] and [`AnomalyReport`]. Used by the report, the analysis and the
//! exports; imports nothing after it in the pipeline.

mod cycle;
mod finding;
mod ids;
mod let_then;
mod ops;
mod pair;
mod polygraph;
#[cfg(feature = "schema")]
pub mod schema;
mod white_box;
mod why;

pub use cycle::cycle_report;
pub use finding::{finding_report, initial_read_report};
pub use ids::Ids;
pub use let_then::{LetThen, Wording};
pub use ops::{key_text, list_text, op_ref, op_text, plume_op_text, read_text, txn_name, txn_text};
pub use pair::pair_report;
pub use polygraph::poly_cycle_report;
pub use white_box::{white_box_report, why_claimed, TxnClaim, WhiteBoxFinding, WhiteBoxReport};
pub use why::{why, why_in};

use crate::graph::EdgeType;
use crate::history::{OpKind, Span};
use crate::level::Level;
use serde::{Deserialize, Serialize};

/// A micro-operation as reports show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpRef {
    /// The transaction's id.
    pub txn: u64,
    /// Position of the operation in its transaction (0-based).
    pub index: u32,
    /// The input's notation ([`crate::history::Notation`]), long lists shortened: Jepsen's
    /// `[:append 5 3]`, `[:r 5 [1 2 3]]`, or Plume's `r(5,3,1,7)`.
    pub op: String,
    /// `r`, `w` or `append` (absent for an order edge's missing operation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<OpKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub key: Option<serde_json::Value>,
    /// The value written or appended, or what a read returned (a list, or `null` for nil).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::read_value"))]
    pub value: Option<serde_json::Value>,
    /// Where the operation is in the input, when the reader recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

/// One edge of a cycle, with the micro-operations that justify it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Step {
    pub from: u64,
    pub to: u64,
    #[serde(rename = "type")]
    pub ty: EdgeType,
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::key_or_null"))]
    pub key: serde_json::Value,
    /// The operation of `from` the edge starts at.
    pub from_op: OpRef,
    /// The operation of `to` the edge ends at; for a weak level's inferred `co` step, the read
    /// that forces it, of the transaction `to_op.txn` (which read `key` from `to` after observing
    /// `from`).
    pub to_op: OpRef,
    /// Why the edge holds, in one sentence.
    pub why: String,
    /// Counterexamples that rest on a choice of order only (register histories without a
    /// version order; list appends no read observed): `true` when the history itself fixes the
    /// edge, `false` when it follows from a choice of version order (PolySI 5.3: certain and
    /// uncertain dependencies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certain: Option<bool>,
    /// White-box checking only: `true` when the edge is the database's claim (its timestamps
    /// or commit order, `crate::timestamps`), not a dependency the history shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed: Option<bool>,
    /// A chosen `rw` edge only: the transaction whose version `from` read. The edge stands for
    /// that transaction's `wr` edge to `from` and a chosen `ww` edge from it to `to` (PolySI
    /// 5.3: an uncertain anti-dependency comes from a choice of version order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_from: Option<u64>,
    /// An edge that rests on an order of versions assumed, not shown by the history: the
    /// assumption's name (Elle's version-order option, e.g. `linearizable-keys`, which a
    /// register history's complete check under `grail elle` takes as known order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumed: Option<String>,
}

/// A cycle in the dependency graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CycleReport {
    /// Adya's name: G0, G1c, G-single, G-nonadjacent or G2-item.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::cycle_anomaly"))]
    pub anomaly: String,
    /// The plain-language name (write skew, lost update, ...).
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::cycle_name"))]
    pub name: String,
    pub txns: Vec<u64>,
    pub steps: Vec<Step>,
    /// No shorter cycle of this anomaly exists in its strongly connected component.
    pub minimal: bool,
    pub explanation: String,
    /// Where the cycle rests on one order of two writes the history leaves open (a register's
    /// versions without a log, appends no read observed): the other order, and the cycle it
    /// closes (PolySI's case split, 5.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_order: Option<OtherOrder>,
    /// Orders of two writes the cycle's chosen edges use that are forced, each with the cycle
    /// its other order closes (pruning's reason, PolySI 4.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forced: Vec<ForcedOrder>,
    /// The anomaly of the cycle alone, where it is more specific than `anomaly`: a cycle through
    /// forced choices (two ww steps that read-skew cycles forced), which names the counterexample
    /// with the cycles that forced them (`polygraph::name::of_counterexample`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::cycle_anomaly_or_null"))]
    pub cycle_anomaly: Option<String>,
}

impl CycleReport {
    /// What the counterexample is, as headings say it: `G-single cycle (lost update, minimal)`,
    /// or, where its cycle alone is more specific, `G-single counterexample: a G0 cycle (write
    /// cycle) through chosen versions`.
    pub fn heading(&self) -> String {
        let minimal = if self.minimal { ", minimal" } else { "" };
        match &self.cycle_anomaly {
            Some(own) => {
                format!(
                    "{} counterexample: a {own} cycle ({}{minimal}) through chosen versions",
                    self.anomaly, self.name
                )
            }
            None => format!("{} cycle ({}{minimal})", self.anomaly, self.name),
        }
    }
}

/// An order of two writes of a key that is forced: `first`'s version before `second`'s, as
/// the other order closes the cycle of `steps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForcedOrder {
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub key: serde_json::Value,
    pub first: u64,
    pub second: u64,
    pub steps: Vec<Step>,
}

/// The other order of two writes of a key, and the cycle it closes: `steps` (the cycle's) put
/// `first`'s version before `second`'s, these steps the reverse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OtherOrder {
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub key: serde_json::Value,
    pub first: u64,
    pub second: u64,
    pub steps: Vec<Step>,
    /// How many other orders the two cycles use that pruning forced (each explained in the
    /// text: its other order closes a cycle); 0 when only these two writes' order is chosen.
    pub forced: usize,
}

/// An anomaly: a cycle, or a finding on reads and writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnomalyReport {
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::anomaly_type"))]
    pub kind: String,
    /// Its plain-language name: a cycle's (write skew, lost update, ...), or a read's as Plume
    /// names them (aborted read, thin-air read, future read, not my own write, ...).
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::anomaly_name"))]
    pub name: String,
    /// Levels this anomaly violates (empty: it breaks an assumption of the model instead, or it
    /// is a read that may be of a key's initial value, which leaves those levels unknown).
    pub levels: Vec<Level>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub key: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub value: Option<serde_json::Value>,
    /// Transactions involved (for a read anomaly: the writer, if known, first).
    pub txns: Vec<u64>,
    pub ops: Vec<OpRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<CycleReport>,
    pub explanation: String,
}
