//! Operations and cycles the way Elle shows them: an operation as Jepsen's op map (`{:index 7,
//! :time -1, :type :ok, :process 1, :f :txn, :value [...]}` in text, the same keys in JSON), each
//! step of a cycle as Elle's explainers word it (`T1 did not observe T2's append of 3 to 5`), and
//! a cycle in Elle's "Let: ... Then: ... a contradiction!" form (Elle's `elle/core.clj`,
//! `render-cycle-explanation`; `elle/list_append.clj` and `elle/rw_register.clj` for the
//! wording of each relation).

use super::json::J;
pub use crate::explain::Ids;
use crate::explain::{LetThen, Wording};
use crate::history::{Arg, History, Model, OpKind, TxnId, Value};
use crate::report::Step;

pub fn value_j(h: &History, v: Value) -> J {
    match v {
        Value::Int(i) => J::Int(i),
        Value::Str(s) => J::Str(h.strings.get(s).to_string()),
    }
}

/// A value as Clojure's `pr-str` shows it (strings bare, as grail reads keywords and strings alike).
pub fn value_edn(h: &History, v: Value) -> String {
    h.plain(v)
}

/// What a read returned, as JSON: a list for a list read (`[]` for nil), the value or null.
fn read_j(h: &History, o: u32) -> J {
    let op = &h.ops[o as usize];
    match (h.model, op.arg()) {
        (Model::RwRegister, Arg::Nil) => J::Null,
        (_, Arg::Val(v)) => value_j(h, v),
        _ => J::Arr(h.list(op).iter().map(|&v| value_j(h, v)).collect()),
    }
}

fn read_edn(h: &History, o: u32) -> String {
    let op = &h.ops[o as usize];
    match (h.model, op.arg()) {
        (Model::RwRegister, Arg::Nil) => "nil".into(),
        (_, Arg::Val(v)) => value_edn(h, v),
        _ => format!("[{}]", h.list(op).iter().map(|&v| value_edn(h, v)).collect::<Vec<_>>().join(" ")),
    }
}

/// A micro-operation as JSON: `["append", 5, 3]`, `["r", 5, [1, 2]]`.
pub fn mop_j(h: &History, o: u32) -> J {
    let op = &h.ops[o as usize];
    let v = match (op.kind(), op.arg()) {
        (OpKind::Read, _) => read_j(h, o),
        (_, Arg::Val(v)) => value_j(h, v),
        _ => J::Null,
    };
    J::Arr(vec![J::str(op.kind().jepsen()), value_j(h, h.key(op.key)), v])
}

/// A micro-operation in EDN: `[:append 5 3]`, `[:r 5 [1 2]]`, every element shown.
pub fn mop_edn(h: &History, o: u32) -> String {
    let op = &h.ops[o as usize];
    let v = match (op.kind(), op.arg()) {
        (OpKind::Read, _) => read_edn(h, o),
        (_, Arg::Val(v)) => value_edn(h, v),
        _ => "nil".into(),
    };
    format!("[:{} {} {}]", op.kind().jepsen(), value_edn(h, h.key(op.key)), v)
}

/// A transaction as Jepsen's op map in JSON, with the keys in Elle's order.
pub fn op_j(h: &History, t: TxnId) -> J {
    let txn = &h.txns[t as usize];
    J::obj([
        ("index", J::from(txn.id)),
        ("time", J::Int(txn.complete_time().unwrap_or(-1))),
        ("type", J::str(txn.status.jepsen())),
        ("process", txn.process().map_or(J::Null, J::Int)),
        ("f", J::str(h.label(t).unwrap_or("txn"))),
        ("value", J::Arr((txn.ops_start..txn.ops_end).map(|o| mop_j(h, o)).collect())),
    ])
}

/// A transaction as Jepsen's op map in EDN.
pub fn op_edn(h: &History, t: TxnId) -> String {
    let txn = &h.txns[t as usize];
    let ops: Vec<String> = (txn.ops_start..txn.ops_end).map(|o| mop_edn(h, o)).collect();
    format!(
        "{{:index {}, :time {}, :type :{}, :process {}, :f :{}, :value [{}]}}",
        txn.id,
        txn.complete_time().unwrap_or(-1),
        txn.status.jepsen(),
        txn.process().map_or("nil".to_string(), |p| p.to_string()),
        h.label(t).unwrap_or("txn"),
        ops.join(" ")
    )
}

/// What Elle's explainers know of one step, resolved against the history.
struct Resolved {
    a: Option<TxnId>,
    b: Option<TxnId>,
    from_op: Option<u32>,
    to_op: Option<u32>,
}

fn resolve(h: &History, ids: &Ids, s: &Step) -> Resolved {
    Resolved {
        a: ids.txn(s.from),
        b: ids.txn(s.to),
        from_op: ids.op(h, s.from_op.txn, s.from_op.index),
        to_op: ids.op(h, s.to_op.txn, s.to_op.index),
    }
}

fn written_j(h: &History, o: Option<u32>) -> J {
    o.and_then(|o| h.written(o)).map_or(J::Null, |v| value_j(h, v))
}

fn written_edn(h: &History, o: Option<u32>) -> String {
    o.and_then(|o| h.written(o)).map_or("nil".into(), |v| value_edn(h, v))
}

/// The last element of a list read, or None for the initial (empty) state.
fn last_read(h: &History, o: Option<u32>) -> Option<Value> {
    let op = &h.ops[o? as usize];
    match op.arg() {
        Arg::Val(v) => Some(v),
        _ => h.list(op).last().copied(),
    }
}

fn step_key(s: &Step) -> J {
    J::from(&s.key)
}

fn key_edn(s: &Step) -> String {
    match &s.key {
        serde_json::Value::String(x) => x.clone(),
        v => v.to_string(),
    }
}

fn mop_index(o: &crate::report::OpRef) -> J {
    J::Int(o.index as i64)
}

/// One step as Elle's explainers give it as data (`{"type": "rw", "key": 5, "value": "init",
/// "value'": 1, "a-mop-index": 1, "b-mop-index": 0}`).
pub fn step_j(h: &History, ids: &Ids, s: &Step) -> J {
    let j = elle_step_j(h, ids, s);
    // grail's addition: the Elle option whose assumed order the step rests on.
    match (&s.assumed, j) {
        (Some(source), J::Obj(mut fields)) => {
            fields.push(("assumed".into(), J::str(source.clone())));
            J::Obj(fields)
        }
        (_, j) => j,
    }
}

fn elle_step_j(h: &History, ids: &Ids, s: &Step) -> J {
    let r = resolve(h, ids, s);
    let list = h.model != Model::RwRegister;
    match s.ty.as_str() {
        "so" => J::obj([
            ("type", J::str("process")),
            ("process", r.a.and_then(|a| h.txns[a as usize].process()).map_or(J::Null, J::Int)),
        ]),
        "rt" => J::obj([
            ("type", J::str("realtime")),
            ("a'", r.a.map_or(J::Null, |a| op_j(h, a))),
            ("b", r.b.map_or(J::Null, |b| op_j(h, b))),
        ]),
        "wr" => {
            let value =
                if list { last_read(h, r.to_op).map_or(J::Null, |v| value_j(h, v)) } else { written_j(h, r.from_op) };
            J::obj([
                ("type", J::str("wr")),
                ("key", step_key(s)),
                ("value", value),
                ("a-mop-index", mop_index(&s.from_op)),
                ("b-mop-index", mop_index(&s.to_op)),
            ])
        }
        "rw" => {
            let value = if list {
                last_read(h, r.from_op).map_or(J::str("init"), |v| value_j(h, v))
            } else {
                r.from_op.map_or(J::Null, |o| read_j(h, o))
            };
            J::obj([
                ("type", J::str("rw")),
                ("key", step_key(s)),
                ("value", value),
                ("value'", written_j(h, r.to_op)),
                ("a-mop-index", mop_index(&s.from_op)),
                ("b-mop-index", mop_index(&s.to_op)),
            ])
        }
        ty => J::obj([
            ("type", J::str(ty)),
            ("key", step_key(s)),
            ("value", written_j(h, r.from_op)),
            ("value'", written_j(h, r.to_op)),
            ("a-mop-index", mop_index(&s.from_op)),
            ("b-mop-index", mop_index(&s.to_op)),
        ]),
    }
}

/// Seconds between two nanosecond times, as Elle prints them.
fn secs(dt: i64) -> String {
    format!("{:.3}", dt as f64 / 1e9)
}

/// Why `a` precedes `b`, in the words of Elle's explainer for the step's relation.
pub fn step_text(h: &History, ids: &Ids, s: &Step, a: &str, b: &str) -> String {
    let r = resolve(h, ids, s);
    let k = key_edn(s);
    let list = h.model != Model::RwRegister;
    let mut text = match s.ty.as_str() {
        "so" => {
            let p = r.a.and_then(|a| h.txns[a as usize].process()).map_or("nil".to_string(), |p| p.to_string());
            format!("process {p} executed {a} before {b}")
        }
        "rt" => {
            let (ta, tb) = (r.a.map(|x| &h.txns[x as usize]), r.b.map(|x| &h.txns[x as usize]));
            let done = ta.map_or(0, |t| t.id);
            let invoked = tb.and_then(|t| t.invoke_pos()).unwrap_or(0);
            let gap = match (ta.and_then(|t| t.complete_time()), tb.and_then(|t| t.invoke_time())) {
                (Some(x), Some(y)) if y > x => format!(" {} seconds", secs(y - x)),
                (Some(_), Some(_)) => " just".to_string(),
                _ => String::new(),
            };
            format!("{a} completed at index {done},{gap} before the invocation of {b}, at index {invoked}")
        }
        "ww" if list => {
            format!("{b} appended {} after {a} appended {} to {k}", written_edn(h, r.to_op), written_edn(h, r.from_op))
        }
        "wr" if list => format!("{b} observed {a}'s append of {} to key {k}", written_edn(h, r.from_op)),
        "rw" if list => match last_read(h, r.from_op) {
            None => format!(
                "{a} observed the initial (nil) state of {k}, which {b} created by appending {}",
                written_edn(h, r.to_op)
            ),
            Some(_) => format!("{a} did not observe {b}'s append of {} to {k}", written_edn(h, r.to_op)),
        },
        "ww" => format!(
            "{a} set key {k} to {}, and {b} set it to {}, which came later in the version order",
            written_edn(h, r.from_op),
            written_edn(h, r.to_op)
        ),
        "wr" => format!("{a} wrote {k} = {}, which was read by {b}", written_edn(h, r.from_op)),
        "rw" => format!(
            "{a} read key {k} = {}, and {b} set it to {}, which came later in the version order",
            r.from_op.map_or("nil".to_string(), |o| read_edn(h, o)),
            written_edn(h, r.to_op)
        ),
        other => format!("{a} precedes {b} ({other})"),
    };
    if let Some(source) = &s.assumed {
        text.push_str(&format!(" ({source} assumes this order; the history does not show it)"));
    } else if s.certain == Some(false) {
        text.push_str(" (in the version order grail chose; no version order avoids a cycle)");
    }
    text
}

/// A cycle in Elle's form: the transactions bound to T1, T2, ... in cycle order, then one line per
/// step, the last one "However, ...: a contradiction!" (no trailing newline, as Elle).
pub fn cycle_text(h: &History, ids: &Ids, txns: &[u64], steps: &[Step]) -> String {
    let name = |id: u64| txns.iter().position(|&x| x == id).map_or(format!("T{id}?"), |i| format!("T{}", i + 1));
    let mut text = LetThen::new(Wording::ELLE);
    for (i, &id) in txns.iter().enumerate() {
        let op = ids.txn(id).map_or_else(|| format!("{{:index {id}}}"), |t| op_edn(h, t));
        text.bind(&format!("T{}", i + 1), op);
    }
    text.then();
    for (i, st) in steps.iter().enumerate() {
        let (a, b) = (name(st.from), name(st.to));
        text.step(&a, &b, st.ty.as_str(), &step_text(h, ids, st, &a, &b), i + 1 == steps.len());
    }
    text.finish()
}
