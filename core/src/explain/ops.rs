//! Operations and transactions as text, in the input's notation (Jepsen's; PolySI's and
//! Plume's `r(key,value,session,txn)`; the JSON formats' own objects and arrays), and as report
//! data ([`OpRef`]).

use super::OpRef;
use crate::history::{Arg, History, Index, Model, Notation, OpKind, TxnId, Value};
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

/// A key's initial value as the input writes it: `nil`, 0 in Plume's notation, `null` in JSON.
pub fn initial_text(h: &History) -> &'static str {
    match h.notation {
        Notation::Plume => "0",
        Notation::Jepsen => "nil",
        Notation::Native | Notation::ElleJson | Notation::TimeKiller => "null",
    }
}

/// Whether the input is one of the JSON formats (operations shown as JSON).
fn json_notation(h: &History) -> bool {
    matches!(h.notation, Notation::Native | Notation::ElleJson | Notation::TimeKiller)
}

/// A value as the JSON formats write it (strings quoted).
fn json_text(h: &History, v: Value) -> String {
    h.value_json(v).to_string()
}

/// A list as the JSON formats write it, long ones shortened as [`list_text`] does.
fn json_list_text(h: &History, list: &[Value]) -> String {
    let show = |vs: &[Value]| vs.iter().map(|&v| json_text(h, v)).collect::<Vec<_>>().join(", ");
    if list.len() <= LIST_SHOWN {
        format!("[{}]", show(list))
    } else {
        let n = list.len();
        format!("[{}, ..., {}] ({} elements)", show(&list[..2]), show(&list[n - 2..]), n)
    }
}

/// What a read returned, as text.
pub fn read_text(h: &History, o: u32) -> String {
    let op = h.ops[o as usize];
    match (h.model, op.arg()) {
        (Model::RwRegister, Arg::Nil) => initial_text(h).into(),
        (_, Arg::Val(v)) if json_notation(h) => json_text(h, v),
        (_, Arg::Val(v)) => h.show(v),
        _ if json_notation(h) => json_list_text(h, h.list(&op)),
        _ => list_text(h, h.list(&op)),
    }
}

/// An operation in the input's notation: `[:append 5 3]`; `r(5,3,1,7)` (Plume); `["append",
/// 5, 3]` (grail's native JSON, elle-cli's JSON); `{"t": "w", "k": 5, "v": 3}` (TimeKiller).
pub fn op_text(h: &History, o: u32) -> String {
    let op = h.ops[o as usize];
    match h.notation {
        Notation::Plume => plume_op_text(h, o, "_"),
        Notation::Jepsen => format!("[:{} {} {}]", op.kind().jepsen(), key_text(h, op.key), arg_text(h, o)),
        Notation::Native | Notation::ElleJson => {
            format!("[\"{}\", {}, {}]", op.kind().jepsen(), json_text(h, h.key(op.key)), arg_text(h, o))
        }
        Notation::TimeKiller => {
            let t = match op.kind() {
                OpKind::Read => "r",
                OpKind::Write => "w",
                OpKind::Append => "a",
            };
            format!("{{\"t\": \"{t}\", \"k\": {}, \"v\": {}}}", json_text(h, h.key(op.key)), arg_text(h, o))
        }
    }
}

/// What an operation wrote or read, as text.
fn arg_text(h: &History, o: u32) -> String {
    let op = h.ops[o as usize];
    match (op.kind(), op.arg()) {
        (OpKind::Read, _) => read_text(h, o),
        (_, Arg::Val(v)) if json_notation(h) => json_text(h, v),
        (_, Arg::Val(v)) => h.show(v),
        _ => initial_text(h).into(),
    }
}

/// An operation in Plume's notation, `r(key,value,session,txn)`. The aborted writes (the lines
/// of `txn = -1`, grail's one aborted transaction of such a history) are written with -1 and
/// `aborted_session` as their session, which their loaders ignore and grail does not keep.
pub fn plume_op_text(h: &History, o: u32, aborted_session: &str) -> String {
    let op = h.ops[o as usize];
    let arg = arg_text(h, o);
    let f = if op.kind() == OpKind::Read { 'r' } else { 'w' };
    let (session, id) = match h.txn_of_op(o).map(|t| &h.txns[t as usize]) {
        Some(t) if t.status == crate::history::Status::Aborted => (aborted_session.to_string(), "-1".to_string()),
        // Plume's ids are signed: an id read from a negative number is shown as that number.
        Some(t) => (t.process().unwrap_or(0).to_string(), (t.id as i64).to_string()),
        None => ("0".into(), "0".into()),
    };
    format!("{f}({},{arg},{session},{id})", key_text(h, op.key))
}

/// An operation as report data: its place, its text, and what it did. An order edge's
/// missing operation (`u32::MAX`) is `t`'s transaction with no operation.
pub fn op_ref(h: &History, idx: &Index, t: TxnId, o: u32) -> OpRef {
    let Some(op) = h.ops.get(o as usize) else {
        let txn = h.txns.get(t as usize).map_or(0, |x| x.id);
        return OpRef { txn, index: 0, op: String::new(), kind: None, key: None, value: None, span: None };
    };
    let txn = &h.txns[idx.txn_of(o) as usize];
    let value = match (op.kind(), op.arg()) {
        (_, Arg::Val(v)) => h.value_json(v),
        (OpKind::Read, Arg::Nil) if h.model == Model::RwRegister => serde_json::Value::Null,
        (OpKind::Read, _) => h.list(op).iter().map(|&v| h.value_json(v)).collect(),
        _ => serde_json::Value::Null,
    };
    OpRef {
        txn: txn.id,
        index: o - txn.ops_start,
        op: op_text(h, o),
        kind: Some(op.kind()),
        key: Some(h.value_json(h.key(op.key))),
        value: Some(value),
        span: h.op_span(o),
    }
}

/// A transaction as its input writes it: Jepsen's completion map, operations shortened,
/// Plume's lines, or the JSON formats' transaction objects.
pub fn txn_text(h: &History, t: TxnId) -> String {
    match h.notation {
        Notation::Plume => return plume_txn_text(h, t),
        Notation::Native | Notation::ElleJson | Notation::TimeKiller => return json_txn_text(h, t),
        Notation::Jepsen => {}
    }
    let txn = &h.txns[t as usize];
    let mut s = format!("{{:index {}, :type :{}", txn.id, txn.status.jepsen());
    if let Some(p) = txn.process() {
        let _ = write!(s, ", :process {p}");
    }
    if let Some(l) = h.label(t) {
        // Jepsen's `:f` is a keyword (`:f :deposit`); a label a symbol cannot write, a string.
        s.push_str(", :f ");
        crate::history::write_edn_keyword(&mut s, l);
    }
    let ops: Vec<String> = (txn.ops_start..txn.ops_end).map(|o| op_text(h, o)).collect();
    let _ = write!(s, ", :value [{}]}}", ops.join(" "));
    // Not the line's text: the transaction as grail read it from there (a completion's
    // `:index` and `:type`, an invocation never completed as `:info`).
    if txn.line > 0 {
        let _ = write!(s, " (from line {})", txn.line);
    }
    s
}

/// A transaction as a JSON format writes it, its operations shortened: grail's native
/// `{"id": 3, "session": 1, "status": "committed", "ops": [...]}`, elle-cli's completion
/// `{"index": 3, "type": "ok", "process": 1, "value": [...]}`, or TimeKiller's
/// `{"tid": 3, "sid": 1, "ops": [...]}`; then its line.
fn json_txn_text(h: &History, t: TxnId) -> String {
    let txn = &h.txns[t as usize];
    let ops: Vec<String> = (txn.ops_start..txn.ops_end).map(|o| op_text(h, o)).collect();
    let ops = format!("[{}]", ops.join(", "));
    let mut fields: Vec<(&str, String)> = Vec::new();
    let label = h.label(t).map(|l| serde_json::Value::from(l).to_string());
    match h.notation {
        Notation::ElleJson => {
            fields.extend([("index", txn.id.to_string()), ("type", format!("\"{}\"", txn.status.jepsen()))]);
            fields.extend(txn.process().map(|p| ("process", p.to_string())));
            fields.push(("value", ops));
        }
        Notation::TimeKiller => {
            fields.push(("tid", label.unwrap_or_else(|| txn.id.to_string())));
            fields.extend(txn.process().map(|p| ("sid", p.to_string())));
            fields.push(("ops", ops));
        }
        _ => {
            fields.push(("id", txn.id.to_string()));
            fields.extend(txn.process().map(|p| ("session", p.to_string())));
            fields.push(("status", format!("\"{}\"", txn.status.as_str())));
            fields.extend(label.map(|l| ("label", l)));
            fields.push(("ops", ops));
        }
    }
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
    let mut s = format!("{{{}}}", body.join(", "));
    if txn.line > 0 {
        let _ = write!(s, " (from line {})", txn.line);
    }
    s
}

/// A transaction in Plume's notation: its operations' lines, and where they are.
fn plume_txn_text(h: &History, t: TxnId) -> String {
    let range = h.op_range(t);
    let ops: Vec<String> = range.clone().map(|o| op_text(h, o as u32)).collect();
    let lines: Vec<u32> = range.filter_map(|o| h.op_span(o as u32)).map(|s| s.line).filter(|&l| l > 0).collect();
    let at = match (lines.iter().min(), lines.iter().max()) {
        (Some(a), Some(b)) if a == b => format!(" (line {a})"),
        (Some(a), Some(b)) if lines.len() == (b - a + 1) as usize => format!(" (lines {a}-{b})"),
        (Some(_), Some(_)) => format!(" (lines {})", lines.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        _ if h.txns[t as usize].line > 0 => format!(" (from line {})", h.txns[t as usize].line),
        _ => String::new(),
    };
    format!("{}{at}", ops.join(" "))
}
