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
    // The fast path takes at most 18 digits; 19 and more go the general way.
    assert_eq!(appended("999999999999999999").unwrap(), Some(Value::Int(999_999_999_999_999_999)));
    assert_eq!(appended("1000000000000000000").unwrap(), Some(Value::Int(1_000_000_000_000_000_000)));
    assert_eq!(appended("0000000000000000000042").unwrap(), Some(Value::Int(42)));
    for big in ["9223372036854775808", "18446744073709551617", "-9223372036854775809", "99999999999999999999"] {
        let e = appended(big).unwrap_err();
        assert!(e.contains("64-bit range"), "{big}: {e}");
    }
}

/// Elements of a read list take the list's own fast path: the same values, the same errors.
#[test]
fn integers_in_read_lists() {
    let read_list = |v: &str| -> Result<Vec<Value>, String> {
        let text = format!(
            "{{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 0, :index 0}}\n\
             {{:type :ok, :f :txn, :value [[:r 1 [{v}]]], :process 0, :index 1}}\n"
        );
        let h = read(text.as_bytes(), Format::Edn).map_err(|e| e.to_string())?;
        Ok(h.list(&h.ops_of(0)[0]).to_vec())
    };
    let with = |x: i64| read_list(&x.to_string()).unwrap();
    for x in [0, 7, 999_999_999_999_999_999, 1_000_000_000_000_000_000, i64::MAX] {
        assert_eq!(with(x), [Value::Int(x)]);
    }
    assert_eq!(read_list("0000000000000000000042").unwrap(), with(42));
    for big in ["9223372036854775808", "18446744073709551617", "99999999999999999999"] {
        let e = read_list(big).unwrap_err();
        assert!(e.contains("64-bit range"), "{big}: {e}");
    }
}
