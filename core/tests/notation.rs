//! Keys and values in explanations and operation texts are shown as EDN that reads back as
//! the same value: a string key with a space keeps its quotes, a string of digits is not shown
//! as an integer.

use grail_core::explain::op_text;
use grail_core::history::{Arg, Value};
use grail_core::{check, read, CheckOptions, Format};

/// A lost update on the string key "a b", with the string value "12" beside the integer 12.
const LOST_UPDATE: &str = r#"{:index 0, :type :ok, :process 0, :value [[:r "a b" nil] [:append "a b" 1] [:append k "12"]]}
{:index 1, :type :ok, :process 1, :value [[:r "a b" nil] [:append "a b" 2] [:append k 12]]}
{:index 2, :type :ok, :process 2, :value [[:r "a b" [2 1]] [:r k ["12" 12]]]}
"#;

#[test]
fn explanations_quote_string_keys() {
    let h = read(LOST_UPDATE.as_bytes(), Format::Edn).unwrap();
    let r = check(&h, &CheckOptions::default());
    let c = r
        .anomalies
        .iter()
        .filter_map(|a| a.cycle.as_ref())
        .find(|c| c.steps.iter().any(|st| st.key == "a b"))
        .expect("a cycle on \"a b\"");
    assert!(c.explanation.contains("[:append \"a b\" 1]"), "{}", c.explanation);
    assert!(c.explanation.contains("key \"a b\""), "{}", c.explanation);
    assert!(!c.explanation.contains("[:r a b"), "{}", c.explanation);
    for st in c.steps.iter().filter(|st| st.key == "a b") {
        assert!(st.from_op.op.contains("\"a b\""), "{}", st.from_op.op);
    }
}

#[test]
fn every_operation_text_reads_back_as_itself() {
    let h = read(LOST_UPDATE.as_bytes(), Format::Edn).unwrap();
    let mut texts = Vec::new();
    for o in 0..h.ops.len() as u32 {
        let text = op_text(&h, o);
        // One transaction of this one operation, read again: the same key and argument.
        let back = read(format!("{{:type :ok, :value [{text}]}}").as_bytes(), Format::Edn).unwrap();
        let (a, b) = (h.ops[o as usize], back.ops[0]);
        assert_eq!(h.value_json(h.key(a.key)), back.value_json(back.key(b.key)), "{text}");
        let arg = |h: &grail_core::History, op: &grail_core::history::Op| match op.arg() {
            Arg::Val(v) => vec![h.value_json(v)],
            _ => h.list(op).iter().map(|&v| h.value_json(v)).collect(),
        };
        assert_eq!(arg(&h, &a), arg(&back, &b), "{text}");
        texts.push(text);
    }
    assert!(texts.contains(&"[:append k \"12\"]".to_string()), "{texts:?}");
    assert!(texts.contains(&"[:append k 12]".to_string()), "{texts:?}");
    assert_eq!(h.show(Value::Int(12)), "12");
}

/// JSON inputs are explained in their own notation: grail's native JSON and elle-cli's JSON
/// operations as `["r", "x", null]`, TimeKiller's as `{"t": "r", "k": 1, "v": null}`, each
/// transaction as its format's object; the initial value is `null`. Each operation's text
/// parses as JSON and gives the operation back.
#[test]
fn json_inputs_are_explained_in_their_own_json() {
    let native = r#"{"transactions": [
      {"id": 1, "session": 1, "status": "committed", "ops": [["r", "x", null], ["w", "y", 1]]},
      {"id": 2, "session": 2, "status": "committed", "ops": [["r", "y", null], ["w", "x", 1]]}]}"#;
    let elle = r#"{"type": "invoke", "f": "txn", "process": 0, "value": [["r", "x", null], ["w", "y", 1]], "index": 0}
{"type": "invoke", "f": "txn", "process": 1, "value": [["r", "y", null], ["w", "x", 1]], "index": 1}
{"type": "ok", "f": "txn", "process": 0, "value": [["r", "x", null], ["w", "y", 1]], "index": 2}
{"type": "ok", "f": "txn", "process": 1, "value": [["r", "y", null], ["w", "x", 1]], "index": 3}
"#;
    let timekiller = r#"[{"tid": 1, "sid": 1, "sts": {"p": 1, "l": 0}, "cts": {"p": 3, "l": 0}, "ops": [{"t": "r", "k": 1, "v": null}, {"t": "w", "k": 2, "v": 1}]},
      {"tid": 2, "sid": 2, "sts": {"p": 2, "l": 0}, "cts": {"p": 4, "l": 0}, "ops": [{"t": "r", "k": 2, "v": null}, {"t": "w", "k": 1, "v": 1}]}]"#;
    for (text, format, first_op, txn_start) in [
        (native, Format::Json, r#"["r", "x", null]"#, r#"{"id": "#),
        (elle, Format::Json, r#"["r", "x", null]"#, r#"{"index": "#),
        (timekiller, Format::TimeKiller, r#"{"t": "r", "k": 1, "v": null}"#, r#"{"tid": "#),
    ] {
        let h = read(text.as_bytes(), format).unwrap();
        assert_eq!(op_text(&h, 0), first_op);
        for o in 0..h.ops.len() as u32 {
            let j: serde_json::Value =
                serde_json::from_str(&op_text(&h, o)).unwrap_or_else(|e| panic!("{e}: {}", op_text(&h, o)));
            let op = h.ops[o as usize];
            let (key, value) = match (&j, format) {
                (serde_json::Value::Array(a), _) => (a[1].clone(), a[2].clone()),
                (serde_json::Value::Object(m), _) => (m["k"].clone(), m["v"].clone()),
                _ => panic!("{j}"),
            };
            assert_eq!(key, h.value_json(h.key(op.key)));
            match op.arg() {
                Arg::Val(v) => assert_eq!(value, h.value_json(v)),
                _ => assert_eq!(value, serde_json::Value::Null),
            }
        }
        let r = check(&h, &CheckOptions { levels: vec![grail_core::Level::Ser], ..Default::default() });
        let c = &r.levels.get(grail_core::Level::Ser).unwrap().cycles[0];
        assert!(c.explanation.contains(&format!("= {txn_start}")), "{}", c.explanation);
        assert!(c.explanation.contains("= null") && c.explanation.contains("initial value"), "{}", c.explanation);
        assert!(!c.explanation.contains("nil") && !c.explanation.contains("[:"), "{}", c.explanation);
    }
}
