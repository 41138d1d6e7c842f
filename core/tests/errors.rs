//! Bad input gets an error that names the place and what was expected; never a panic.

use grail_core::{ErrorKind, Format};

fn err(text: &str) -> grail_core::Error {
    grail_core::read(text.as_bytes(), Format::Auto).expect_err("should not parse")
}

#[test]
fn syntax_errors_name_line_and_column() {
    let e = err("{:type :ok, :value [[:r 1 nil]]}\n{:type :ok, :value [[:r 1 [1 2}\n");
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.line, Some(2));
    assert!(e.column.is_some());
    assert!(e.to_string().starts_with("line 2, column "), "{e}");
}

#[test]
fn unknown_micro_op_is_a_shape_error_at_its_place() {
    let e = err("{:type :ok, :value [[:r 1 nil]]}\n{:type :ok, :value [[:frob 1 2]]}\n");
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!((e.line, e.column), (Some(2), Some(22)));
    assert!(e.message.contains(":r, :w or :append"), "{}", e.message);
}

#[test]
fn a_second_value_in_one_map_is_refused_at_its_key() {
    // EDN has no duplicate keys (clojure.edn refuses them, as Elle reads histories); found by
    // fuzzing, where the second value's operations joined the first's.
    let e = err("{:type :ok, :value [[:r x nil]]}\n{:type :ok, :value [[:r x 0]], :process 0, :value [[:w x 1]]}\n");
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!((e.line, e.column), (Some(2), Some(44)));
    assert!(e.message.contains("one :value"), "{}", e.message);
}

#[test]
fn bad_type_is_named() {
    let e = err("{:type :okay, :value []}");
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.message.contains(":invoke, :ok, :fail or :info"));
    assert_eq!(e.line, Some(1));
}

#[test]
fn mixed_models_are_refused() {
    let e = err("{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:w 2 1]]}\n");
    assert_eq!(e.kind, ErrorKind::MixedModel);
    assert_eq!(e.line, Some(2));
}

#[test]
fn json_errors_name_the_place() {
    let e =
        err("[{\"type\": \"ok\", \"value\": [[\"r\", 1, null]]},\n {\"type\": \"ok\", \"value\": [[\"r\", 1 null]]}]");
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.line, Some(2));
    let e = err("[{\"id\": 1, \"ops\": [[\"x\", 1, 2]]}]");
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.message.contains("entry 0") && e.message.contains("\"r\", \"w\" or \"append\""), "{}", e.message);
}

#[test]
fn wal_errors_name_the_line() {
    let mut h = grail_core::read(b"{:type :ok, :value [[:w 1 1]]}", Format::Edn).unwrap();
    let e = grail_core::read_wal(&mut h, b"{\"type\": 2300, \"data\": {\"_key\": \"1\", \"rwAttr\": 1}}\nnot json\n")
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Wal);
    assert_eq!(e.line, Some(2));
}

#[test]
fn indeterminate_and_pending_invocations() {
    // An :info completion and an invocation that never completes are both indeterminate.
    let h = grail_core::read(
        b"{:type :invoke, :process 0, :value [[:append 1 1]]}\n{:type :info, :process 0, :value [[:append 1 1]]}\n{:type :invoke, :process 1, :value [[:append 1 2]]}\n{:type :invoke, :process 2, :value [[:r 1 nil]]}\n{:type :ok, :process 2, :value [[:r 1 [1]]]}\n",
        Format::Auto,
    )
    .unwrap();
    use grail_core::Status::*;
    let st: Vec<_> = h.txns.iter().map(|t| t.status).collect();
    assert_eq!(st, vec![Indeterminate, Committed, Indeterminate]);
    // The :info append was observed, so it committed: it becomes a vertex with a WR edge.
    let inf = grail_core::infer(&h);
    assert_eq!(inf.graph.stats(&h).vertices, 2);
    assert_eq!(inf.graph.stats(&h).wr, 1);
}

#[test]
fn duplicate_transaction_ids_are_refused_with_both_places() {
    // The second completion has no :index: its id is its position (1), which the first took.
    let e = err("{:type :ok, :index 1, :value [[:append 1 1]]}\n{:type :ok, :value [[:r 1 [1]]]}\n");
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!(e.txn, Some(1));
    assert!(e.message.contains("unique transaction ids") && e.message.contains("lines 1 and 2"), "{}", e.message);
    let e = err("[{\"id\": 7, \"ops\": []}, {\"id\": 7, \"ops\": []}]");
    assert_eq!(e.txn, Some(7));
}

#[test]
fn a_read_of_the_transactions_own_later_append_is_internal() {
    let h = grail_core::read(
        b"{:type :ok, :value [[:r x [1]] [:append x 1]]}\n{:type :ok, :value [[:r x [1]]]}",
        Format::Auto,
    )
    .unwrap();
    let r = grail_core::check(&h, &grail_core::CheckOptions::default());
    let internal: Vec<_> = r.anomalies.iter().filter(|a| a.kind == "internal").collect();
    assert_eq!(internal.len(), 1, "{:?}", r.anomalies);
    assert_eq!(internal[0].txns, vec![0, 0]);
    assert!(internal[0].explanation.contains("its own future write"), "{}", internal[0].explanation);
}

#[test]
fn json_shape_errors_name_the_entrys_line_and_column() {
    let text = "{\"transactions\": [\n  {\"id\": 1, \"ops\": [[\"w\", \"x\", 1]]},\n  {\"id\": 2, \"ops\": [[\"q\", \"x\", 1]]}\n],\n \"version_order\": {\"x\": [1]}}\n";
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!((e.line, e.column), (Some(3), Some(3)), "{e}");
    assert!(e.message.contains("entry 1"), "{}", e.message);
    // elle-cli JSON, a string with a brace and an escaped quote before the bad entry.
    let text = "[{\"type\": \"ok\", \"index\": 0, \"value\": [[\"r\", \"{\\\"\", null]]},\n {\"type\": \"okay\", \"value\": []}]";
    let e = err(text);
    assert_eq!((e.line, e.column), (Some(2), Some(2)), "{e}");
    // Transactions read from JSON know their line, for explanations.
    let h = grail_core::read(
        b"[\n{\"id\": 5, \"ops\": [[\"w\", 1, 1]]},\n{\"id\": 6, \"ops\": [[\"r\", 1, 1]]}\n]",
        Format::Auto,
    )
    .unwrap();
    assert_eq!(h.txns.iter().map(|t| t.line).collect::<Vec<_>>(), vec![2, 3]);
    // A mixed-model error points at the entries themselves.
    let e = err("[\n{\"id\": 1, \"ops\": [[\"append\", 1, 1]]},\n{\"id\": 2, \"ops\": [[\"w\", 2, 1]]}\n]");
    assert_eq!(e.kind, ErrorKind::MixedModel);
    assert_eq!((e.line, e.column), (Some(3), Some(1)), "{e}");
}
