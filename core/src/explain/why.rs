//! Why each edge holds, in one sentence.

use super::ops::{key_text, op_text, read_text, txn_name};
use crate::graph::{DependencyGraph, Edge, EdgeType};
use crate::history::{History, Index, Model, TxnId};

/// Why an order edge (session or real time) from `f` to `t` holds.
pub(crate) fn why_order(h: &History, ty: EdgeType, f: TxnId, t: TxnId) -> String {
    let (from, to) = (txn_name(h, f), txn_name(h, t));
    let (a, b) = (&h.txns[f as usize], &h.txns[t as usize]);
    match (ty, a.complete_time(), b.invoke_time()) {
        (EdgeType::So, ..) => {
            format!("{from} and {to} ran in process {}, {from} first", a.process().unwrap_or_default())
        }
        (_, Some(x), Some(y)) => format!("{from} completed (time {x}) before {to} was invoked (time {y})"),
        // A history without times is ordered by its operations' places in the input, as Elle
        // does (`graph::orders::realtime_edges`).
        _ => format!("{from} completed before {to} was invoked, in the input's order (the history records no times)"),
    }
}

/// How `reader` had observed `t2` when it made the read `read_op`, as a phrase.
pub(crate) fn observed(h: &History, g: &DependencyGraph, t2: TxnId, reader: TxnId, read_op: u32) -> String {
    use crate::engine::weak::{premise, Premise};
    let from = txn_name(h, t2);
    match premise(h, g, t2, reader, read_op) {
        Premise::EarlierRead => format!("after reading {from}'s writes"),
        Premise::Direct if h.txns[t2 as usize].process() == h.txns[reader as usize].process() => {
            format!("after {from} ran earlier in its process")
        }
        Premise::Direct => format!("though it read from {from}"),
        Premise::Causal => format!("though {from} is in its causal past"),
    }
}

/// Why an inferred commit-order edge holds: the reader, what it had observed, what it read.
fn why_co(h: &History, idx: &Index, g: &DependencyGraph, e: &Edge) -> String {
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let reader = idx.txn_of(e.to_op);
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
pub fn why(h: &History, idx: &Index, e: &Edge) -> String {
    why_in(h, idx, None, e)
}

/// Why an edge of graph `g` holds (inferred commit-order edges need the graph they are in).
pub fn why_in(h: &History, idx: &Index, g: Option<&DependencyGraph>, e: &Edge) -> String {
    if e.key == crate::graph::CLAIMED {
        return super::why_claimed(h, e);
    }
    match (e.ty, g) {
        (EdgeType::So | EdgeType::Rt, _) => return why_order(h, e.ty, e.from, e.to),
        (EdgeType::Co, Some(g)) => return why_co(h, idx, g, e),
        _ => {}
    }
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let k = key_text(h, e.key);
    let written = |o: u32| h.written(o).map_or_else(|| super::ops::initial_text(h).to_string(), |v| h.show(v));
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
            let initial = h.ops.get(e.from_op as usize).is_some_and(|op| matches!(op.arg(), crate::history::Arg::Nil));
            let r = read_text(h, e.from_op);
            let r = if initial { format!("{r} (the initial value)") } else { r };
            format!("{from} read key {k} = {r}, and {to} wrote a later version, {}", written(e.to_op))
        }
        (EdgeType::So | EdgeType::Rt | EdgeType::Co, _) => format!("{from} precedes {to}"),
    }
}
