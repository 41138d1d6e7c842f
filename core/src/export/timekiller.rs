//! Transactions written back as TimeKiller's JSON (read by `read::timekiller`): one array,
//! a transaction a line, `{"tid": 67, "sid": 19, "sts": {"p": .., "l": ..}, "cts": {..},
//! "ops": [{"t": "w", "k": 7, "v": 2}]}`, in the order they were read (each session's in its
//! order). The tid is the transaction's label when it had a text one, else its id.

use crate::history::{Arg, History, OpKind, TxnId};
use serde_json::{json, Map, Value as Json};

/// The transactions `txns` (indices into [`History::txns`]; out of range and repeated ones are
/// skipped), in the history's order.
pub fn sub_history(h: &History, txns: &[TxnId]) -> String {
    let order = super::invocation_order(h, txns);
    let mut out = String::from("[\n");
    for (i, &t) in order.iter().enumerate() {
        let txn = &h.txns[t as usize];
        let mut m = Map::new();
        m.insert("tid".into(), h.label(t).map_or_else(|| json!(txn.id), |l| json!(l)));
        if let Some(p) = txn.process() {
            m.insert("sid".into(), json!(p));
        }
        for (name, ts) in [("sts", txn.start_ts()), ("cts", txn.commit_ts())] {
            if let Some(ts) = ts {
                m.insert(name.into(), json!({"p": ts.p, "l": ts.l}));
            }
        }
        let ops: Vec<Json> = h
            .ops_of(t)
            .iter()
            .map(|op| {
                let k = h.value_json(h.key(op.key));
                let val = |a: Arg| if let Arg::Val(v) = a { h.value_json(v) } else { Json::Null };
                match op.kind() {
                    OpKind::Read if h.model == crate::history::Model::ListAppend => {
                        let list: Vec<Json> = h.list(op).iter().map(|&v| h.value_json(v)).collect();
                        json!({"t": "r", "k": k, "v": list})
                    }
                    OpKind::Read => json!({"t": "r", "k": k, "v": val(op.arg())}),
                    OpKind::Write => json!({"t": "w", "k": k, "v": val(op.arg())}),
                    OpKind::Append => json!({"t": "a", "k": k, "v": val(op.arg())}),
                }
            })
            .collect();
        m.insert("ops".into(), Json::Array(ops));
        out.push_str("  ");
        out.push_str(&Json::Object(m).to_string());
        if i + 1 < order.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("]\n");
    out
}

#[cfg(test)]
mod tests {
    use crate::read::{read, Format};

    #[test]
    fn reads_back_as_the_same_history() {
        for text in [
            r#"[{"tid": 3, "sid": 1, "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 5}, "ops": [{"t": "w", "k": 7, "v": 2}]},
                {"tid": 4, "sid": 2, "sts": {"p": 3, "l": 0}, "cts": {"p": 4, "l": 0}, "ops": [{"t": "r", "k": 7, "v": 2}, {"t": "r", "k": 8, "v": null}]}]"#,
            r#"[{"tid": "a", "sid": "s", "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 0}, "ops": [{"t": "a", "k": 1, "v": 5}]},
                {"tid": "b", "sid": "s", "sts": {"p": 3, "l": 0}, "cts": {"p": 4, "l": 0}, "ops": [{"t": "r", "k": 1, "v": [5]}]}]"#,
        ] {
            let h = read(text.as_bytes(), Format::TimeKiller).unwrap();
            assert_eq!(h.notation, crate::history::Notation::TimeKiller);
            let all: Vec<u32> = (0..h.txns.len() as u32).collect();
            let out = super::sub_history(&h, &all);
            let back = read(out.as_bytes(), Format::Auto).unwrap_or_else(|e| panic!("{e}: {out}"));
            assert_eq!(back.notation, crate::history::Notation::TimeKiller);
            assert_eq!(back.ops, h.ops, "{out}");
            let meta = |h: &crate::history::History| {
                h.txns
                    .iter()
                    .enumerate()
                    .map(|(t, x)| (x.id, x.process(), x.start_ts(), x.commit_ts(), h.label(t as u32).map(String::from)))
                    .collect::<Vec<_>>()
            };
            assert_eq!(meta(&back), meta(&h), "{out}");
            assert_eq!(super::sub_history(&back, &all), out);
        }
    }
}
