//! A history in grail's native JSON (read by `read::json`): one object per transaction with its
//! `id`, `session`, `status`, `start`/`end` times, `label`, `start_ts`/`commit_ts`, `ops` and
//! `predicate_reads` (the one format that holds predicate reads), and the claimed
//! `commit_order`.

use crate::history::{Arg, History, Op, OpKind, TxnId};
use serde_json::{json, Value as Json};

/// Every transaction of `h`, as `{"transactions": [...]}`, one transaction a line.
pub fn history(h: &History) -> String {
    let all: Vec<TxnId> = (0..h.txns.len() as TxnId).collect();
    sub_history(h, &all)
}

/// The transactions `txns` (indices into [`History::txns`]; out of range and repeated ones are
/// skipped), in the order they were invoked, as [`history`] writes them: read back, their
/// times give the real-time order.
pub fn sub_history(h: &History, txns: &[TxnId]) -> String {
    let order = super::invocation_order(h, txns);
    let mut out = String::from("{\"transactions\": [\n");
    for (i, &t) in order.iter().enumerate() {
        let txn = &h.txns[t as usize];
        let ops: Vec<Json> = h.ops_of(t).iter().map(|op| op_json(h, op)).collect();
        let mut obj = json!({
            "id": txn.id,
            "status": txn.status.as_str(),
            "ops": ops,
        });
        let Some(m) = obj.as_object_mut() else { continue };
        if let Some(p) = txn.process() {
            m.insert("session".into(), json!(p));
        }
        if let Some(s) = txn.invoke_time() {
            m.insert("start".into(), json!(s));
        }
        if let Some(e) = txn.complete_time() {
            m.insert("end".into(), json!(e));
        }
        if let Some(l) = h.label(t) {
            m.insert("label".into(), json!(l));
        }
        for (name, ts) in [("start_ts", txn.start_ts()), ("commit_ts", txn.commit_ts())] {
            if let Some(ts) = ts {
                m.insert(name.into(), if ts.l == 0 { json!(ts.p) } else { json!({"p": ts.p, "l": ts.l}) });
            }
        }
        let preds: Vec<Json> = h
            .predicate_reads
            .iter()
            .filter(|p| p.txn == t)
            .map(|p| {
                let matches: Vec<Json> = p.matches.iter().map(|&v| h.value_json(v)).collect();
                json!({"predicate": h.strings.get(p.predicate), "matches": matches})
            })
            .collect();
        if !preds.is_empty() {
            m.insert("predicate_reads".into(), Json::Array(preds));
        }
        out.push_str("  ");
        out.push_str(&obj.to_string());
        if i + 1 < order.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push(']');
    // The version order, restricted to these transactions' writes.
    if let Some(vo) = &h.version_order {
        let written = crate::read::written_pairs_by(order.iter().flat_map(|&t| h.ops_of(t)));
        let mut keys: Vec<u32> = vo.per_key.keys().copied().collect();
        crate::par::sort::sort_unstable(&mut keys);
        let mut obj = serde_json::Map::new();
        for k in keys {
            let vals: Vec<Json> =
                vo.per_key[&k].iter().filter(|&&v| written.contains(&(k, v))).map(|&v| h.value_json(v)).collect();
            if !vals.is_empty() {
                obj.insert(h.plain(h.key(k)), Json::Array(vals));
            }
        }
        out.push_str(&format!(",\n\"version_order\": {}", Json::Object(obj)));
    }
    // The claimed commit order, restricted to these transactions.
    if let Some(co) = &h.commit_order {
        let mut kept = vec![false; h.txns.len()];
        order.iter().for_each(|&t| kept[t as usize] = true);
        let ids: Vec<u64> =
            co.iter().filter(|&&t| kept.get(t as usize) == Some(&true)).map(|&t| h.txns[t as usize].id).collect();
        out.push_str(&format!(",\n\"commit_order\": {}", json!(ids)));
    }
    out.push_str("}\n");
    out
}

/// One operation as `[f, key, value]`: `["r", 1, 10]`, `["append", 1, 2]`.
pub(super) fn op_json(h: &History, op: &Op) -> Json {
    let key = h.value_json(h.key(op.key));
    match op.kind() {
        // A read of nothing (an invocation's, or a completion's `nil`) stays `null`, not `[]`.
        OpKind::Read if h.model == crate::history::Model::ListAppend && op.arg() != Arg::Nil => {
            let list: Vec<Json> = h.list(op).iter().map(|&v| h.value_json(v)).collect();
            json!(["r", key, list])
        }
        OpKind::Read => match op.arg() {
            Arg::Val(v) => json!(["r", key, h.value_json(v)]),
            _ => json!(["r", key, null]),
        },
        OpKind::Write | OpKind::Append => {
            let f = if op.kind() == OpKind::Write { "w" } else { "append" };
            let v = if let Arg::Val(v) = op.arg() { h.value_json(v) } else { Json::Null };
            json!([f, key, v])
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_back_as_the_same_history() {
        let text = r#"{"transactions": [
          {"id": 0, "status": "committed", "ops": [["w", 1, 10]], "start": 1, "end": 2},
          {"id": 1, "session": 0, "status": "aborted", "ops": [["r", 1, 10], ["w", 1, 11], ["r", 2, null]], "start": 3, "end": 6,
           "predicate_reads": [{"predicate": "value % 3 = 0", "matches": ["3=30"]}]},
          {"id": 2, "session": 1, "status": "indeterminate", "ops": [], "start": 4}]}"#;
        let h = crate::read::read(text.as_bytes(), crate::read::Format::Json).unwrap();
        let out = super::history(&h);
        let back = crate::read::read(out.as_bytes(), crate::read::Format::Json).unwrap();
        let unlined = |h: &crate::history::History| {
            let mut txns = h.txns.clone();
            txns.iter_mut().for_each(|t| t.line = 0);
            txns
        };
        assert_eq!(unlined(&back), unlined(&h), "{out}");
        assert_eq!(back.ops, h.ops);
        assert_eq!(super::history(&back), out);
        assert!(out.contains(r#""predicate_reads":[{"matches":["3=30"],"predicate":"value % 3 = 0"}]"#), "{out}");
    }
}
