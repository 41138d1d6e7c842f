//! EDN integers read the same through the scanner's one-pass fast path (plain digits ending at a
//! delimiter) and its general path (signs, `N`, overflow), at the edges of the 64-bit range.

use grail_core::history::Value;
use grail_core::{read, Format};

fn appended(v: &str) -> Result<Option<Value>, String> {
    let text = format!(
        "{{:type :invoke, :f :txn, :value [[:append 1 {v}]], :process 0, :index 0}}\n\
         {{:type :ok, :f :txn, :value [[:append 1 {v}]], :process 0, :index 1}}\n"
    );
    let h = read(text.as_bytes(), Format::Edn).map_err(|e| e.to_string())?;
    Ok(h.written(h.txns[0].ops_start))
}

#[test]
fn integers_at_the_edges() {
    assert_eq!(appended("0").unwrap(), Some(Value::Int(0)));
    assert_eq!(appended("007").unwrap(), Some(Value::Int(7)));
    assert_eq!(appended("12N").unwrap(), Some(Value::Int(12)));
    assert_eq!(appended("+5").unwrap(), Some(Value::Int(5)));
    assert_eq!(appended("-5").unwrap(), Some(Value::Int(-5)));
    assert_eq!(appended("9223372036854775807").unwrap(), Some(Value::Int(i64::MAX)));
    assert_eq!(appended("-9223372036854775808").unwrap(), Some(Value::Int(i64::MIN)));
    for big in ["9223372036854775808", "-9223372036854775809", "99999999999999999999"] {
        let e = appended(big).unwrap_err();
        assert!(e.contains("64-bit range"), "{big}: {e}");
    }
}
