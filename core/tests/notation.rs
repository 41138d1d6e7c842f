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
        let arg = |h: &grail_core::History, op: &grail_core::history::Op| match op.arg {
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
