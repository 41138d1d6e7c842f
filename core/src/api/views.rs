//! What the front ends show besides a report, as data: the graph, statistics without a check,
//! the transactions as the demo lists them, the option defaults, the levels and the edge colours.

use crate::explain::{finding_report, op_ref, op_text, AnomalyReport, OpRef};
use crate::graph::{EdgeType, Stats};
use crate::history::{History, Model, Span, TxnId};
use crate::infer::Inference;
use crate::level::Level;
use serde::Serialize;

/// At most this many cycles per anomaly, unless asked otherwise ([`crate::CheckOptions`]).
pub use crate::engine::DEFAULT_MAX_CYCLES;

/// An edge of the dependency graph as data.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EdgeView {
    pub from: u64,
    pub to: u64,
    #[serde(rename = "type")]
    pub ty: EdgeType,
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::key_or_null"))]
    pub key: serde_json::Value,
    pub from_op: OpRef,
    pub to_op: OpRef,
}

/// The dependency graph as `grail graph --json`, the JS `History.graph()` and Python give it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphView {
    /// Transaction ids of the vertices.
    pub vertices: Vec<u64>,
    /// One edge per (from, to, type, key): more than `stats.edges` where a pair of
    /// transactions depends on several keys (`stats` counts each (from, to, type) once).
    pub edges: Vec<EdgeView>,
    pub stats: Stats,
    pub notes: Vec<String>,
}

pub fn graph_view(h: &History, inf: &Inference) -> GraphView {
    let g = &inf.graph;
    let vertices = (0..h.txns.len()).filter(|&t| g.is_vertex[t]).map(|t| h.txns[t].id).collect();
    let edges = g
        .edges
        .iter()
        .map(|e| EdgeView {
            from: h.txns[e.from as usize].id,
            to: h.txns[e.to as usize].id,
            ty: e.ty,
            key: h.value_json(h.key(e.key(h))),
            from_op: op_ref(h, &inf.index, e.from, e.from_op),
            to_op: op_ref(h, &inf.index, e.to, e.to_op),
        })
        .collect();
    GraphView { vertices, edges, stats: g.stats(h), notes: inf.notes.clone() }
}

/// Statistics and the anomalies found while building the graph, without a cycle search.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatsView {
    pub model: Model,
    pub stats: Stats,
    pub anomalies: Vec<AnomalyReport>,
    pub notes: Vec<String>,
}

pub fn stats_view(h: &History, inf: &Inference) -> StatsView {
    StatsView {
        model: h.model,
        stats: inf.stats(h),
        anomalies: inf.findings.iter().map(|f| finding_report(h, &inf.index, f)).collect(),
        notes: inf.notes.clone(),
    }
}

/// A transaction as the demo and the notebooks list it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TxnView<'h> {
    pub id: u64,
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::status"))]
    pub status: &'static str,
    /// Whether it is a vertex of the graph (committed, or indeterminate and observed).
    pub vertex: bool,
    pub process: Option<i64>,
    pub invoke_time: Option<i64>,
    pub complete_time: Option<i64>,
    pub label: Option<&'h str>,
    pub line: Option<u32>,
    /// Its operations in the input's notation (Jepsen's, or Plume's), long lists shortened.
    pub ops: Vec<String>,
    /// Where it is in the input (its completion's map), when the reader recorded it.
    pub span: Option<Span>,
    /// Where each operation is in the input, when the reader recorded it.
    pub op_spans: Vec<Option<Span>>,
    /// The key of each operation.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::values"))]
    pub op_keys: Vec<serde_json::Value>,
}

pub fn transactions<'h>(h: &'h History, inf: &Inference) -> Vec<TxnView<'h>> {
    (0..h.txns.len() as TxnId).map(|t| transaction(h, inf, t)).collect()
}

/// Transaction `t` (an index into [`History::txns`]) as the demo lists it.
pub fn transaction<'h>(h: &'h History, inf: &Inference, t: TxnId) -> TxnView<'h> {
    let txn = &h.txns[t as usize];
    let ops = txn.ops_start..txn.ops_end;
    TxnView {
        id: txn.id,
        status: txn.status.as_str(),
        vertex: inf.graph.is_vertex.get(t as usize).copied().unwrap_or(false),
        process: txn.process(),
        invoke_time: txn.invoke_time(),
        complete_time: txn.complete_time(),
        label: h.label(t),
        line: (txn.line > 0).then_some(txn.line),
        ops: ops.clone().map(|o| op_text(h, o)).collect(),
        span: h.txn_span(t),
        op_spans: ops.clone().map(|o| h.op_span(o)).collect(),
        op_keys: ops.map(|o| h.value_json(h.key(h.ops[o as usize].key))).collect(),
    }
}

/// A level as the front ends list it.
#[derive(Debug, Clone, Serialize)]
pub struct LevelInfo {
    pub name: &'static str,
    /// One of the five levels checked by default.
    pub classic: bool,
}

pub fn levels() -> Vec<LevelInfo> {
    Level::ALL.iter().map(|&l| LevelInfo { name: l.name(), classic: Level::CLASSIC.contains(&l) }).collect()
}

/// The colour of each edge type in every drawing (DOT, SVG, the demo, the notebooks).
pub fn edge_colours() -> Vec<(&'static str, &'static str)> {
    EdgeType::ALL.iter().map(|&t| (t.as_str(), crate::render::palette::edge(t))).collect()
}
