//! A history in grail's native JSON (`docs/formats.md`, read by `read::json`): one object per
//! transaction with its `id`, `session`, `status`, `start`/`end` times, `ops` and
//! `predicate_reads`, the one format that holds predicate reads.

use crate::history::{Arg, History, OpKind, Status};
use serde_json::{json, Value as Json};

/// Every transaction of `h`, as `{"transactions": [...]}`, one transaction a line.
pub fn history(h: &History) -> String {
    let mut out = String::from("{\"transactions\": [\n");
    for t in 0..h.txns.len() as u32 {
        let txn = &h.txns[t as usize];
        let ops: Vec<Json> = h
            .ops_of(t)
            .iter()
            .map(|op| {
                let key = h.value_json(h.key(op.key));
                match op.kind {
                    OpKind::Read if h.model == crate::history::Model::ListAppend => {
                        let list: Vec<Json> = h.list(op).iter().map(|&v| h.value_json(v)).collect();
                        json!(["r", key, list])
                    }
                    OpKind::Read => match op.arg {
                        Arg::Val(v) => json!(["r", key, h.value_json(v)]),
                        _ => json!(["r", key, null]),
                    },
                    OpKind::Write | OpKind::Append => {
                        let f = if op.kind == OpKind::Write { "w" } else { "append" };
                        let v = if let Arg::Val(v) = op.arg { h.value_json(v) } else { Json::Null };
                        json!([f, key, v])
                    }
                }
            })
            .collect();
        let mut obj = json!({
            "id": txn.id,
            "status": match txn.status {
                Status::Committed => "committed",
                Status::Aborted => "aborted",
                Status::Indeterminate => "indeterminate",
            },
            "ops": ops,
        });
        let m = obj.as_object_mut().expect("an object");
        if let Some(p) = txn.process {
            m.insert("session".into(), json!(p));
        }
        if let Some(s) = txn.invoke_time {
            m.insert("start".into(), json!(s));
        }
        if let Some(e) = txn.complete_time {
            m.insert("end".into(), json!(e));
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
        if (t as usize) + 1 < h.txns.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("]}\n");
    out
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
