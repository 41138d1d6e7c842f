//! Operations and transactions as text, in Jepsen notation, and as report data ([`OpRef`]).

use super::OpRef;
use crate::history::{Arg, History, Index, Model, OpKind, TxnId, Value};
use std::fmt::Write;

/// Lists longer than this are shown as their first and last elements.
const LIST_SHOWN: usize = 6;

pub fn txn_name(h: &History, t: TxnId) -> String {
    format!("T{}", h.txns[t as usize].id)
}

pub fn list_text(h: &History, list: &[Value]) -> String {
    let show = |vs: &[Value]| vs.iter().map(|&v| h.show(v)).collect::<Vec<_>>().join(" ");
    if list.len() <= LIST_SHOWN {
        format!("[{}]", show(list))
    } else {
        let n = list.len();
        format!("[{} ... {}] ({} elements)", show(&list[..2]), show(&list[n - 2..]), n)
    }
}

pub fn key_text(h: &History, k: u32) -> String {
    h.show(h.key(k))
}

/// What a read returned, as text.
pub fn read_text(h: &History, o: u32) -> String {
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

/// An operation as report data: its place, its text, and what it did. An order edge's
/// missing operation (`u32::MAX`) is `t`'s transaction with no operation.
pub fn op_ref(h: &History, idx: &Index, t: TxnId, o: u32) -> OpRef {
    let Some(op) = h.ops.get(o as usize) else {
        let txn = h.txns.get(t as usize).map_or(0, |x| x.id);
        return OpRef { txn, index: 0, op: String::new(), kind: None, key: None, value: None, span: None };
    };
    let txn = &h.txns[idx.txn_of(o) as usize];
    let value = match (op.kind, op.arg) {
        (_, Arg::Val(v)) => h.value_json(v),
        (OpKind::Read, Arg::Nil) if h.model == Model::RwRegister => serde_json::Value::Null,
        (OpKind::Read, _) => h.list(op).iter().map(|&v| h.value_json(v)).collect(),
        _ => serde_json::Value::Null,
    };
    OpRef {
        txn: txn.id,
        index: o - txn.ops_start,
        op: op_text(h, o),
        kind: Some(op.kind),
        key: Some(h.value_json(h.key(op.key))),
        value: Some(value),
        span: h.op_span(o),
    }
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
        s.push_str(", :f ");
        crate::history::write_edn_str(&mut s, l);
    }
    let ops: Vec<String> = (txn.ops_start..txn.ops_end).map(|o| op_text(h, o)).collect();
    let _ = write!(s, ", :value [{}]}}", ops.join(" "));
    if txn.line > 0 {
        let _ = write!(s, " (line {})", txn.line);
    }
    s
}
