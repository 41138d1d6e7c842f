//! Transactions written back as elle-cli's JSON (`read::json`'s first form): one Jepsen
//! operation a line, `{"type": "invoke", "f": "txn", "process": 0, "value": [["r", 1, null]]}`,
//! each invocation (reads unknown) and completion in the history's order, with `time` when
//! known, so that real-time and session order read back as the history's.

use super::native::op_json;
use crate::history::{Arg, History, OpKind, TxnId};
use serde_json::{json, Map, Value as Json};

/// The transactions `txns` (indices into [`History::txns`]; out of range and repeated ones are
/// skipped), one event a line.
pub fn sub_history(h: &History, txns: &[TxnId]) -> String {
    let (_, events) = super::edn::events_in_order(h, txns);
    let mut out = String::new();
    for (_, done, t) in events {
        let txn = &h.txns[t as usize];
        let mut e = Map::new();
        let ty = if done { txn.status.jepsen() } else { "invoke" };
        e.insert("type".into(), json!(ty));
        e.insert("f".into(), json!("txn"));
        if let Some(p) = txn.process() {
            e.insert("process".into(), json!(p));
        }
        let time = if done { txn.complete_time() } else { txn.invoke_time() };
        if let Some(t) = time {
            e.insert("time".into(), json!(t));
        }
        if done {
            e.insert("index".into(), json!(txn.id));
        }
        let ops: Vec<Json> = h
            .ops_of(t)
            .iter()
            .map(|op| {
                let mut op = *op;
                if !done && op.kind() == OpKind::Read {
                    op = op.with_arg(Arg::Nil); // an invocation does not know what it will read
                }
                op_json(h, &op)
            })
            .collect();
        e.insert("value".into(), Json::Array(ops));
        out.push_str(&Json::Object(e).to_string());
        out.push('\n');
    }
    out
}
