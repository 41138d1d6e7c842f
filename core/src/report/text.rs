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
    if o as usize >= h.ops.len() {
        return OpRef { txn: 0, index: 0, op: String::new() };
    }
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

/// Why an order edge holds.
fn why_order(h: &History, e: &Edge) -> String {
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let (a, b) = (&h.txns[e.from as usize], &h.txns[e.to as usize]);
    let time = |t: Option<i64>| t.map_or_else(|| "?".to_string(), |t| t.to_string());
    match e.ty {
        EdgeType::So => format!("{from} and {to} ran in process {}, {from} first", a.process.unwrap_or_default()),
        _ => format!(
            "{from} completed (time {}) before {to} was invoked (time {})",
            time(a.complete_time),
            time(b.invoke_time)
        ),
    }
}

/// How `reader` had observed `t2` when it made the read `read_op`, as a phrase.
fn observed(h: &History, g: &DependencyGraph, t2: TxnId, reader: TxnId, read_op: u32) -> String {
    use crate::level::weak::{premise, Premise};
    let from = txn_name(h, t2);
    match premise(h, g, t2, reader, read_op) {
        Premise::EarlierRead => format!("after reading {from}'s writes"),
        Premise::Direct if h.txns[t2 as usize].process == h.txns[reader as usize].process => {
            format!("after {from} ran earlier in its process")
        }
        Premise::Direct => format!("though it read from {from}"),
        Premise::Causal => format!("though {from} is in its causal past"),
    }
}

/// Why an inferred commit-order edge holds: the reader, what it had observed, what it read.
fn why_co(h: &History, g: &DependencyGraph, e: &Edge) -> String {
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let reader = txn_of_op(h, e.to_op);
    let r = txn_name(h, reader);
    let k = key_text(h, e.key);
    let seen = observed(h, g, e.from, reader, e.to_op);
    format!(
        "{r} read key {k} = {} from {to} {seen}, which wrote {}: {from}'s write must precede {to}'s",
        read_text(h, e.to_op),
        op_text(h, e.from_op)
    )
}

/// Why an edge holds, in one sentence.
pub fn why(h: &History, e: &Edge) -> String {
    why_in(h, None, e)
}

/// Why an edge of graph `g` holds (inferred commit-order edges need the graph they are in).
pub fn why_in(h: &History, g: Option<&DependencyGraph>, e: &Edge) -> String {
    if e.key == crate::graph::CLAIMED {
        return crate::timestamps::why_claimed(h, e);
    }
    match (e.ty, g) {
        (EdgeType::So | EdgeType::Rt, _) => return why_order(h, e),
        (EdgeType::Co, Some(g)) => return why_co(h, g, e),
        _ => {}
    }
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let k = key_text(h, e.key);
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
        (EdgeType::So | EdgeType::Rt | EdgeType::Co, _) => format!("{from} precedes {to}"),
    }
}

/// One "Then:" line of an explanation: `from < to (label), because why`; the last one closes the
/// cycle ("However, ...: a contradiction!").
pub fn step_line(text: &mut String, h: &History, last: bool, from: TxnId, to: TxnId, label: &str, why: &str) {
    let (lead, tail) = if last { ("However, ", ": a contradiction!") } else { ("", ".") };
    let _ = writeln!(text, "  - {lead}{} < {} ({label}), because {why}{tail}", txn_name(h, from), txn_name(h, to));
}

/// A cycle as reported; `anomaly` is the kind's name, with an order suffix if any.
pub fn cycle_report(h: &History, g: &DependencyGraph, kind: AnomalyKind, anomaly: &str, c: &Cycle) -> CycleReport {
    let n = c.txns.len();
    let edges: Vec<Edge> = (0..n).filter_map(|i| g.edge(c.txns[i], c.txns[(i + 1) % n], c.types[i]).copied()).collect();
    let steps: Vec<Step> = edges
        .iter()
        .map(|e| Step {
            from: h.txns[e.from as usize].id,
            to: h.txns[e.to as usize].id,
            ty: e.ty.as_str().into(),
            // Session and real-time order, and claimed orders, are about no key.
            key: if e.key >= crate::graph::CLAIMED { serde_json::Value::Null } else { h.value_json(h.key(e.key)) },
            from_op: op_ref(h, e.from_op),
            to_op: op_ref(h, e.to_op),
            why: why_in(h, Some(g), e),
            certain: None,
            claimed: (e.key == crate::graph::CLAIMED).then_some(true),
        })
        .collect();
    // A transaction that read one key twice, seeing a newer version the second time.
    let rereads = (0..edges.len()).any(|i| {
        let (a, b) = (&edges[(i + edges.len() - 1) % edges.len()], &edges[i]);
        a.ty == EdgeType::Wr && b.ty == EdgeType::Rw && h.ops[a.to_op as usize].key == h.ops[b.from_op as usize].key
    });
    let name = kind.plain().unwrap_or_else(|| plain_name(&c.types, rereads));
    let mut text = String::from("Let:\n");
    for &t in &c.txns {
        let _ = writeln!(text, "  {} = {}", txn_name(h, t), txn_text(h, t));
    }
    text.push_str("\nThen:\n");
    for (i, e) in edges.iter().enumerate() {
        step_line(&mut text, h, i + 1 == edges.len(), e.from, e.to, e.ty.as_str(), &why_in(h, Some(g), e));
    }
    let _ = write!(text, "\nThe cycle is {anomaly} ({name}).");
    CycleReport {
        anomaly: anomaly.into(),
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
        AnomalyKind::Internal if future_read(f) => {
            format!("{last} read {} of key {key}, which already contains its own later {}: it read its own future write", op(1), op(0))
        }
        AnomalyKind::Internal if f.txns.len() > 1 => format!("{last} read {} of key {key}, which disagrees with its own earlier {} and the writes it made since", op(1), op(0)),
        AnomalyKind::Internal => format!("{last} read {} of key {key}, which disagrees with its own earlier writes", op(0)),
        AnomalyKind::GarbageRead => format!("{} read {value} of key {key}, which no transaction wrote{more}", names.join(", ")),
        AnomalyKind::DuplicateWrite => format!("{first} and {last} both wrote {value} to key {key}: values must be unique per key, so reads of it are ambiguous"),
        AnomalyKind::IncompatibleOrder => format!("{last} read {} and {first} read {}: neither is a prefix of the other, so key {key} has no single version order", op(1), op(0)),
        k => format!("{} on key {key}", k.name()),
    };
    let name = match f.kind {
        AnomalyKind::Internal => internal_name(h, f),
        k => k.plain().unwrap_or(k.name()),
    };
    AnomalyReport {
        kind: f.kind.name().into(),
        name: name.into(),
        levels: violated_by(f.kind)
            .into_iter()
            .filter(|&l| !(l == crate::level::Level::Rc && is_reread(h, f)))
            .collect(),
        key: f.key.map(|k| h.value_json(h.key(k))),
        value: f.value.map(|v| h.value_json(v)),
        txns: f.txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        ops: f.ops.iter().map(|&o| op_ref(h, o)).collect(),
        cycle: None,
        explanation,
    }
}

/// Whether an internal finding is a read of the transaction's own later write.
fn future_read(f: &Finding) -> bool {
    f.ops.len() > 1 && f.ops[0] > f.ops[1]
}

/// Whether an internal finding is a second read of a key that saw other transactions' newer
/// writes (and, for a list, its own appends since on top): allowed by read committed, a
/// non-repeatable read for the stronger levels.
pub fn is_reread(h: &History, f: &Finding) -> bool {
    let (Some(&first), Some(&last)) = (f.ops.first(), f.ops.last()) else { return false };
    if f.kind != AnomalyKind::Internal
        || f.ops.len() != 2
        || first >= last
        || h.ops[first as usize].kind != OpKind::Read
    {
        return false;
    }
    let key = h.ops[last as usize].key;
    let own: Vec<Value> = h.ops[first as usize..last as usize]
        .iter()
        .filter(|o| o.kind != OpKind::Read && o.key == key)
        .filter_map(|o| match o.arg {
            Arg::Val(v) => Some(v),
            _ => None,
        })
        .collect();
    match h.model {
        Model::RwRegister => own.is_empty(),
        _ => {
            let (a, b) = (h.list(&h.ops[first as usize]), h.list(&h.ops[last as usize]));
            b.len() > a.len() + own.len() && b.starts_with(a) && b.ends_with(&own)
        }
    }
}

/// Plume's name for an internal finding (TAPs c-e), or a non-repeatable read.
fn internal_name(h: &History, f: &Finding) -> &'static str {
    if future_read(f) {
        return "future read";
    }
    if is_reread(h, f) {
        return "non-repeatable read";
    }
    // The read saw a value the transaction wrote itself earlier, just not its last one.
    let Some(&read) = f.ops.last() else { return "internal" };
    let t = txn_of_op(h, read);
    let start = h.txns[t as usize].ops_start;
    let key = h.ops[read as usize].key;
    let own_earlier = |v| {
        h.ops[start as usize..read as usize]
            .iter()
            .any(|o| o.kind != OpKind::Read && o.key == key && o.arg == Arg::Val(v))
    };
    match (f.value, h.model) {
        (Some(v), Model::RwRegister) if own_earlier(v) => "not my last write",
        _ => "not my own write",
    }
}

/// A read of the initial value by a transaction that had observed a writer of the key.
pub fn initial_read_report(
    h: &History,
    g: &DependencyGraph,
    k: AnomalyKind,
    r: &crate::level::weak::InitialRead,
) -> AnomalyReport {
    let (w, t) = (txn_of_op(h, r.write_op), txn_of_op(h, r.read_op));
    let key = h.ops[r.read_op as usize].key;
    let how = observed(h, g, w, t, r.read_op);
    AnomalyReport {
        kind: k.name().into(),
        name: k.plain().unwrap_or(k.name()).into(),
        levels: violated_by(k),
        key: Some(h.value_json(h.key(key))),
        value: None,
        txns: vec![h.txns[w as usize].id, h.txns[t as usize].id],
        ops: vec![op_ref(h, r.write_op), op_ref(h, r.read_op)],
        cycle: None,
        explanation: format!(
            "{} read the initial value of key {} ({}) {how}, which wrote it ({}): {} must have seen that write",
            txn_name(h, t),
            key_text(h, key),
            op_text(h, r.read_op),
            op_text(h, r.write_op),
            txn_name(h, t)
        ),
    }
}

/// How many findings that break the model's assumptions lead the text.
const LEAD: usize = 3;

/// The verdict as a table, for terminals.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    // A history that breaks the model's assumptions is invalid whatever the levels say: first.
    if !r.broken_assumptions.is_empty() {
        let _ = writeln!(
            s,
            "INVALID HISTORY: it breaks the data model's assumptions ({}); levels that do not proscribe these were checked with them set aside",
            r.broken_assumptions.join(", ")
        );
        for a in r.anomalies.iter().filter(|a| r.broken_assumptions.contains(&a.kind)).take(LEAD) {
            let _ = writeln!(s, "  {} ({}): {}", a.kind, a.name, a.explanation);
        }
        s.push('\n');
    }
    let w = r.levels.0.iter().map(|(l, _)| l.name().len()).max().unwrap_or(6).max(6);
    let _ = writeln!(s, "{:<w$} {:<9} anomalies", "level", "verdict");
    for (l, lr) in &r.levels.0 {
        let mut extra = String::new();
        if let Some(by) = lr.implied_by {
            let _ =
                write!(extra, " (as {} {})", by.name(), if lr.valid == Some(true) { "holds" } else { "is violated" });
        }
        if !lr.set_aside.is_empty() {
            let _ = write!(extra, " (with {} set aside)", lr.set_aside.join(", "));
        }
        let _ = writeln!(s, "{:<w$} {:<9} {}{extra}", l.name(), lr.verdict, lr.anomalies.join(", "));
    }
    let names = |ls: &[crate::level::Level]| ls.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
    if !r.weakest_violated.is_empty() {
        let _ = writeln!(s, "\nweakest violated: {}", names(&r.weakest_violated));
        if !r.also_violated.is_empty() {
            let _ = writeln!(s, "so also violated: {}", names(&r.also_violated));
        }
    }
    if !r.strongest_satisfied.is_empty() && r.levels.0.len() > 1 {
        let _ = writeln!(s, "strongest satisfied: {}", names(&r.strongest_satisfied));
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
    // Every finding, but the first few of the assumption breaks, shown at the top.
    let mut led = 0;
    for a in r.anomalies.iter().filter(|a| a.cycle.is_none()) {
        if r.broken_assumptions.contains(&a.kind) && led < LEAD {
            led += 1;
            continue;
        }
        let _ = writeln!(s, "\n{}: {}", a.kind, a.explanation);
    }
    if let Some(w) = &r.white_box {
        s.push_str(&crate::timestamps::render(w));
    }
    for n in &r.notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    s
}
