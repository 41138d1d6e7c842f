//! A cycle of the dependency graph (or of a weak level's graph) as a counterexample.

use super::let_then::{LetThen, Wording};
use super::ops::{op_ref, txn_name, txn_text};
use super::why::why_in;
use super::{CycleReport, Step};
use crate::anomaly::AnomalyKind;
use crate::graph::search::Cycle;
use crate::graph::{DependencyGraph, Edge, EdgeType};
use crate::history::{History, Index, TxnId};
use crate::level::plain_name;

/// A cycle as reported; `anomaly` is the kind's name, with an order suffix if any.
pub fn cycle_report(
    h: &History,
    idx: &Index,
    g: &DependencyGraph,
    kind: AnomalyKind,
    anomaly: &str,
    c: &Cycle,
) -> CycleReport {
    let n = c.txns.len();
    let edges: Vec<Edge> = (0..n).filter_map(|i| g.edge(c.txns[i], c.txns[(i + 1) % n], c.types[i]).copied()).collect();
    let steps: Vec<Step> = edges
        .iter()
        .map(|e| Step {
            from: h.txns[e.from as usize].id,
            to: h.txns[e.to as usize].id,
            ty: e.ty,
            // Session and real-time order, and claimed orders, are about no key.
            key: if e.key >= crate::graph::CLAIMED { serde_json::Value::Null } else { h.value_json(h.key(e.key)) },
            from_op: op_ref(h, idx, e.from, e.from_op),
            to_op: op_ref(h, idx, e.to, e.to_op),
            why: why_in(h, idx, Some(g), e),
            certain: None,
            claimed: (e.key == crate::graph::CLAIMED).then_some(true),
            read_from: None,
            assumed: None,
        })
        .collect();
    // A transaction that read one key twice, seeing a newer version the second time.
    let rereads = (0..edges.len()).any(|i| {
        let (a, b) = (&edges[(i + edges.len() - 1) % edges.len()], &edges[i]);
        a.ty == EdgeType::Wr && b.ty == EdgeType::Rw && h.ops[a.to_op as usize].key == h.ops[b.from_op as usize].key
    });
    let name = kind.plain().unwrap_or_else(|| {
        if super::polygraph::overwrote_each_other(&edges) {
            "lost update"
        } else {
            plain_name(&c.types, rereads, super::polygraph::overwrites(&edges))
        }
    });
    let mut text = LetThen::new(Wording::GRAIL);
    // The cycle's transactions, then the readers a commit-order step names (its read is the
    // step's `to_op`), so that every transaction the text names is given.
    let mut named: Vec<TxnId> = c.txns.clone();
    // (A claimed commit order, `crate::timestamps`, names no reader.)
    let inferred_co =
        |e: &&Edge| e.ty == EdgeType::Co && e.key != crate::graph::CLAIMED && (e.to_op as usize) < h.ops.len();
    for e in edges.iter().filter(inferred_co) {
        let reader = idx.txn_of(e.to_op);
        if !named.contains(&reader) {
            named.push(reader);
        }
    }
    for &t in &named {
        text.bind(&txn_name(h, t), txn_text(h, t));
    }
    text.then();
    for (i, (e, s)) in edges.iter().zip(&steps).enumerate() {
        text.step(&txn_name(h, e.from), &txn_name(h, e.to), e.ty.as_str(), &s.why, i + 1 == edges.len());
    }
    CycleReport {
        anomaly: anomaly.into(),
        name: name.into(),
        txns: c.txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        steps,
        minimal: c.minimal,
        explanation: text.close(anomaly, name),
        other_order: None,
        forced: Vec::new(),
        cycle_anomaly: None,
    }
}
