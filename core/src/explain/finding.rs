//! Findings on reads and writes (aborted, intermediate, garbage, internal, ...) as anomalies.

use super::ops::{key_text, op_ref, op_text, txn_name};
use super::why::observed;
use super::AnomalyReport;
use crate::anomaly::{AnomalyKind, Finding};
use crate::graph::DependencyGraph;
use crate::history::{Arg, History, Index, Model, OpKind};
use crate::level::{violated_by, Level};

pub fn finding_report(h: &History, idx: &Index, f: &Finding) -> AnomalyReport {
    let key = f.key.map(|k| key_text(h, k)).unwrap_or_default();
    let value = f.value.map(|v| h.show(v)).unwrap_or_default();
    let names: Vec<String> = f.txns.iter().map(|&t| txn_name(h, t)).collect();
    let op = |i: usize| f.ops.get(i).map(|&o| op_text(h, o)).unwrap_or_default();
    let more = if f.readers > 1 { format!(" ({} readers in all)", f.readers) } else { String::new() };
    let last = names.last().cloned().unwrap_or_default();
    let first = names.first().cloned().unwrap_or_default();
    let explanation = match f.kind {
        // The writes a format lists outside any transaction, gathered by the reader: say so,
        // or the id grail gave them reads as one the input has.
        AnomalyKind::G1a if f.txns.first().is_some_and(|&t| h.aborted_writes == Some(t)) => format!(
            "{} read {value} of key {key}, an aborted write, which the history gives no transaction of its own (grail gathers such writes into one aborted transaction, {first}){more}: {} then {}",
            names[1..].join(", "),
            op(0),
            op(1)
        ),
        AnomalyKind::G1a => format!("{} read {value} of key {key}, written by {first}, which aborted{more}: {} then {}", names[1..].join(", "), op(0), op(1)),
        AnomalyKind::G1b => format!("{} read {value} of key {key}, an intermediate value: {first} wrote it ({}) and later overwrote it in the same transaction{more}", names[1..].join(", "), op(0)),
        AnomalyKind::Internal if future_read(f) => {
            format!("{last} read {} of key {key}, which already contains its own later {}: it read its own future write", op(1), op(0))
        }
        AnomalyKind::Internal if f.txns.len() > 1 => {
            let since = if wrote_between(h, f) { " and the writes it made to the key since" } else { "" };
            format!("{last} read {} of key {key}, which disagrees with its own earlier {}{since}", op(1), op(0))
        }
        AnomalyKind::Internal => format!("{last} read {} of key {key}, which disagrees with its own earlier writes", op(0)),
        AnomalyKind::GarbageRead if f.maybe_initial => format!("{} read {value} of key {key}, which no transaction wrote{more}: a thin-air read, unless {value} is the key's initial value, which the history leaves open", names.join(", ")),
        AnomalyKind::GarbageRead => format!("{} read {value} of key {key}, which no transaction wrote{more}", names.join(", ")),
        AnomalyKind::DuplicateWrite => format!("{first} and {last} both wrote {value} to key {key}: values must be unique per key, so reads of it are ambiguous"),
        // The writer's append, not a read: a list holding it without the writer's earlier append.
        AnomalyKind::IncompatibleOrder if f.ops.first().is_some_and(|&o| h.ops.get(o as usize).is_some_and(|x| x.kind() == OpKind::Append)) => {
            format!("{} read {} of key {key}, which holds {first}'s {} but not, just before it, {first}'s earlier append to the key: no version of key {key} is so{more}", names[1..].join(", "), op(1), op(0))
        }
        AnomalyKind::IncompatibleOrder => format!("{last} read {} and {first} read {}: neither is a prefix of the other, so key {key} has no single version order", op(1), op(0)),
        k => format!("{} on key {key}", k.name()),
    };
    let name = match f.kind {
        AnomalyKind::Internal => internal_name(h, idx, f),
        k => k.plain().unwrap_or(k.name()),
    };
    AnomalyReport {
        kind: f.kind.name().into(),
        name: name.into(),
        levels: Level::ALL.into_iter().filter(|&l| l.forbids(f)).collect(),
        key: f.key.map(|k| h.value_json(h.key(k))),
        value: f.value.map(|v| h.value_json(v)),
        txns: f.txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        ops: f.ops.iter().map(|&o| op_ref(h, idx, idx.txn_of(o), o)).collect(),
        cycle: None,
        explanation,
    }
}

/// Whether the transaction wrote the finding's key between its two operations.
fn wrote_between(h: &History, f: &Finding) -> bool {
    let (Some(&a), Some(&b), Some(key)) = (f.ops.first(), f.ops.get(1), f.key) else { return false };
    let between = h.ops.get(a as usize + 1..b as usize).unwrap_or_default();
    between.iter().any(|o| o.key == key && o.kind() != OpKind::Read)
}

/// Whether an internal finding is a read of the transaction's own later write.
fn future_read(f: &Finding) -> bool {
    f.ops.len() > 1 && f.ops[0] > f.ops[1]
}

/// Plume's name for an internal finding (TAPs c-e), or a non-repeatable read.
fn internal_name(h: &History, idx: &Index, f: &Finding) -> &'static str {
    if future_read(f) {
        return "future read";
    }
    if f.reread {
        return "non-repeatable read";
    }
    // The read saw a value the transaction wrote itself earlier, just not its last one.
    let Some(&read) = f.ops.last() else { return "internal" };
    let t = idx.txn_of(read);
    let start = h.txns[t as usize].ops_start;
    let key = h.ops[read as usize].key;
    let own_earlier = |v| {
        h.ops[start as usize..read as usize]
            .iter()
            .any(|o| o.kind() != OpKind::Read && o.key == key && o.arg() == Arg::Val(v))
    };
    match (f.value, h.model) {
        (Some(v), Model::RwRegister) if own_earlier(v) => "not my last write",
        _ => "not my own write",
    }
}

/// A read of the initial value by a transaction that had observed a writer of the key.
pub fn initial_read_report(
    h: &History,
    idx: &Index,
    g: &DependencyGraph,
    k: AnomalyKind,
    r: &crate::engine::weak::InitialRead,
) -> AnomalyReport {
    let (w, t) = (idx.txn_of(r.write_op), idx.txn_of(r.read_op));
    let key = h.ops[r.read_op as usize].key;
    let how = observed(h, g, w, t, r.read_op);
    AnomalyReport {
        kind: k.name().into(),
        name: k.plain().unwrap_or(k.name()).into(),
        levels: violated_by(k),
        key: Some(h.value_json(h.key(key))),
        value: None,
        txns: vec![h.txns[w as usize].id, h.txns[t as usize].id],
        ops: vec![op_ref(h, idx, w, r.write_op), op_ref(h, idx, t, r.read_op)],
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
