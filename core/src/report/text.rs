//! Text: operations in Jepsen notation, the reason for each edge, explanations, a verdict table.

use super::{AnomalyReport, CycleReport, OpRef, Report, Step};
use crate::anomaly::{AnomalyKind, Finding};
use crate::graph::search::Cycle;
use crate::graph::{DependencyGraph, Edge, EdgeType};
use crate::history::{Arg, History, Model, OpKind, TxnId, Value};
use crate::level::{plain_name, violated_by};
use std::fmt::Write;

/// Lists longer than this are shown as their first and last elements.
const LIST_SHOWN: usize = 6;

pub fn txn_name(h: &History, t: TxnId) -> String {
    format!("T{}", h.txns[t as usize].id)
}

fn list_text(h: &History, list: &[Value]) -> String {
    let show = |vs: &[Value]| vs.iter().map(|&v| h.show(v)).collect::<Vec<_>>().join(" ");
    if list.len() <= LIST_SHOWN {
        format!("[{}]", show(list))
    } else {
        let n = list.len();
        format!("[{} ... {}] ({} elements)", show(&list[..2]), show(&list[n - 2..]), n)
    }
}

fn key_text(h: &History, k: u32) -> String {
    h.show(h.key(k))
}

/// What a read returned, as text.
fn read_text(h: &History, o: u32) -> String {
    let op = h.ops[o as usize];
    match (h.model, op.arg) {
        (Model::RwRegister, Arg::Nil) => "nil".into(),
        (_, Arg::Val(v)) => h.show(v),
        _ => list_text(h, h.list(&op)),
    }
}

/// An operation in Jepsen notation: `[:append 5 3]`.
pub fn op_text(h: &History, o: u32) -> String {
    let op = h.ops[o as usize];
    let arg = match (op.kind, op.arg) {
        (OpKind::Read, _) => read_text(h, o),
        (_, Arg::Val(v)) => h.show(v),
        _ => "nil".into(),
    };
    format!("[:{} {} {}]", op.kind.jepsen(), key_text(h, op.key), arg)
}

pub fn txn_of_op(h: &History, o: u32) -> TxnId {
    h.txns.partition_point(|t| t.ops_end <= o) as TxnId
}

pub fn op_ref(h: &History, o: u32) -> OpRef {
    let t = txn_of_op(h, o);
    let txn = &h.txns[t as usize];
    OpRef { txn: txn.id, index: o - txn.ops_start, op: op_text(h, o) }
}

/// A transaction as Jepsen prints it, operations shortened.
pub fn txn_text(h: &History, t: TxnId) -> String {
    let txn = &h.txns[t as usize];
    let mut s = format!(
        "{{:index {}, :type :{}",
        txn.id,
        match txn.status {
            crate::history::Status::Committed => "ok",
            crate::history::Status::Aborted => "fail",
            crate::history::Status::Indeterminate => "info",
        }
    );
    if let Some(p) = txn.process {
        let _ = write!(s, ", :process {p}");
    }
    if let Some(l) = h.label(t) {
        let _ = write!(s, ", :f {l}");
    }
    let ops: Vec<String> = (txn.ops_start..txn.ops_end).map(|o| op_text(h, o)).collect();
    let _ = write!(s, ", :value [{}]}}", ops.join(" "));
    if txn.line > 0 {
        let _ = write!(s, " (line {})", txn.line);
    }
    s
}

/// Why an edge holds, in one sentence.
pub fn why(h: &History, e: &Edge) -> String {
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let k = key_text(h, h.ops[e.to_op as usize].key);
    let written = |o: u32| h.written(o).map_or_else(|| "nil".to_string(), |v| h.show(v));
    let list = h.model != Model::RwRegister;
    match (e.ty, list) {
        (EdgeType::Ww, true) => format!(
            "{to}'s append of {} to key {k} comes after {from}'s append of {} in the key's version order",
            written(e.to_op),
            written(e.from_op)
        ),
        (EdgeType::Ww, false) => {
            format!("{to} wrote key {k} = {}, a version after {from}'s {}", written(e.to_op), written(e.from_op))
        }
        (EdgeType::Wr, true) => format!(
            "{to} read key {k} = {}, which ends with {from}'s append of {}",
            read_text(h, e.to_op),
            written(e.from_op)
        ),
        (EdgeType::Wr, false) => format!("{to} read key {k} = {}, written by {from}", written(e.from_op)),
        (EdgeType::Rw, true) => format!(
            "{from} read key {k} = {}, which does not include {to}'s append of {}",
            read_text(h, e.from_op),
            written(e.to_op)
        ),
        (EdgeType::Rw, false) => {
            let r = read_text(h, e.from_op);
            let r = if r == "nil" { "nil (the initial value)".to_string() } else { r };
            format!("{from} read key {k} = {r}, and {to} wrote a later version, {}", written(e.to_op))
        }
    }
}

pub fn cycle_report(h: &History, g: &DependencyGraph, kind: AnomalyKind, c: &Cycle) -> CycleReport {
    let n = c.txns.len();
    let edges: Vec<Edge> = (0..n).filter_map(|i| g.edge(c.txns[i], c.txns[(i + 1) % n], c.types[i]).copied()).collect();
    let steps: Vec<Step> = edges
        .iter()
        .map(|e| Step {
            from: h.txns[e.from as usize].id,
            to: h.txns[e.to as usize].id,
            ty: e.ty.as_str().into(),
            key: h.value_json(h.key(h.ops[e.to_op as usize].key)),
            from_op: op_ref(h, e.from_op),
            to_op: op_ref(h, e.to_op),
            why: why(h, e),
            certain: None,
        })
        .collect();
    // A transaction that read one key twice, seeing a newer version the second time.
    let rereads = (0..edges.len()).any(|i| {
        let (a, b) = (&edges[(i + edges.len() - 1) % edges.len()], &edges[i]);
        a.ty == EdgeType::Wr && b.ty == EdgeType::Rw && h.ops[a.to_op as usize].key == h.ops[b.from_op as usize].key
    });
    let name = plain_name(&c.types, rereads);
    let mut text = String::from("Let:\n");
    for &t in &c.txns {
        let _ = writeln!(text, "  {} = {}", txn_name(h, t), txn_text(h, t));
    }
    text.push_str("\nThen:\n");
    for (i, e) in edges.iter().enumerate() {
        let lead = if i + 1 == edges.len() { "However, " } else { "" };
        let tail = if i + 1 == edges.len() { ": a contradiction!" } else { "." };
        let _ = writeln!(
            text,
            "  - {lead}{} < {} ({}), because {}{tail}",
            txn_name(h, e.from),
            txn_name(h, e.to),
            e.ty.as_str(),
            why(h, e)
        );
    }
    let _ = write!(text, "\nThe cycle is {} ({name}).", kind.name());
    CycleReport {
        anomaly: kind.name().into(),
        name: name.into(),
        txns: c.txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        steps,
        minimal: c.minimal,
        explanation: text,
    }
}

pub fn finding_report(h: &History, f: &Finding) -> AnomalyReport {
    let key = f.key.map(|k| key_text(h, k)).unwrap_or_default();
    let value = f.value.map(|v| h.show(v)).unwrap_or_default();
    let names: Vec<String> = f.txns.iter().map(|&t| txn_name(h, t)).collect();
    let op = |i: usize| f.ops.get(i).map(|&o| op_text(h, o)).unwrap_or_default();
    let more = if f.readers > 1 { format!(" ({} readers in all)", f.readers) } else { String::new() };
    let last = names.last().cloned().unwrap_or_default();
    let first = names.first().cloned().unwrap_or_default();
    let explanation = match f.kind {
        AnomalyKind::G1a => format!("{} read {value} of key {key}, written by {first}, which aborted{more}: {} then {}", names[1..].join(", "), op(0), op(1)),
        AnomalyKind::G1b => format!("{} read {value} of key {key}, an intermediate value: {first} wrote it ({}) and later overwrote it in the same transaction{more}", names[1..].join(", "), op(0)),
        AnomalyKind::Internal if f.ops.len() > 1 && f.ops[0] > f.ops[1] => {
            format!("{last} read {} of key {key}, which already contains its own later {}: it read its own future write", op(1), op(0))
        }
        AnomalyKind::Internal if f.txns.len() > 1 => format!("{last} read {} of key {key}, which disagrees with its own earlier {} and the writes it made since", op(1), op(0)),
        AnomalyKind::Internal => format!("{last} read {} of key {key}, which disagrees with its own earlier writes", op(0)),
        AnomalyKind::GarbageRead => format!("{} read {value} of key {key}, which no transaction wrote{more}", names.join(", ")),
        AnomalyKind::DuplicateWrite => format!("{first} and {last} both wrote {value} to key {key}: values must be unique per key, so reads of it are ambiguous"),
        AnomalyKind::IncompatibleOrder => format!("{last} read {} and {first} read {}: neither is a prefix of the other, so key {key} has no single version order", op(1), op(0)),
        k => format!("{} on key {key}", k.name()),
    };
    AnomalyReport {
        kind: f.kind.name().into(),
        levels: violated_by(f.kind),
        key: f.key.map(|k| h.value_json(h.key(k))),
        value: f.value.map(|v| h.value_json(v)),
        txns: f.txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        ops: f.ops.iter().map(|&o| op_ref(h, o)).collect(),
        cycle: None,
        explanation,
    }
}

/// The verdict as a table, for terminals.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<6} {:<9} anomalies", "level", "verdict");
    for (l, lr) in &r.levels.0 {
        let _ = writeln!(s, "{:<6} {:<9} {}", l.name(), lr.verdict, lr.anomalies.join(", "));
    }
    let st = &r.stats;
    let _ = writeln!(
        s,
        "\n{} transactions ({} committed, {} aborted, {} indeterminate); graph: {} vertices, {} edges ({} ww, {} wr, {} rw)",
        st.transactions, st.committed, st.aborted, st.indeterminate, st.vertices, st.edges, st.ww, st.wr, st.rw
    );
    let mut shown = std::collections::BTreeSet::new();
    for (l, lr) in &r.levels.0 {
        if let Some(c) = lr.cycles.first() {
            if shown.insert(c.txns.clone()) {
                let _ = writeln!(
                    s,
                    "\n{} is violated by this {} cycle ({}{}):\n{}",
                    l.name(),
                    c.anomaly,
                    c.name,
                    if c.minimal { ", minimal" } else { "" },
                    c.explanation
                );
            }
        }
    }
    for a in r.anomalies.iter().filter(|a| a.cycle.is_none()) {
        let _ = writeln!(s, "\n{}: {}", a.kind, a.explanation);
    }
    for n in &r.notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    s
}
