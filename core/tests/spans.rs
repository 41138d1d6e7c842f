//! The readers record where every operation and transaction is: each span slices exactly the
//! operation's form (`[:append :x 1]`, `["append", "x", 1]`) or the transaction's map out of the
//! input, and its line and column are where it starts, counted as errors count them.

use grail_core::history::{History, Span};
use grail_core::{read, Format};

fn text_of(input: &str, s: Span) -> &str {
    &input[s.start as usize..s.end as usize]
}

/// The line and column of a byte offset, in characters, as errors give them.
fn line_col(input: &str, offset: usize) -> (u32, u32) {
    let before = &input[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
    (line, column)
}

/// Every operation's span, as (text, line, column), checking that line and column match the
/// start offset.
fn op_texts<'a>(input: &'a str, h: &History) -> Vec<&'a str> {
    assert_eq!(h.op_spans.len(), h.ops.len(), "one span per operation");
    (0..h.ops.len() as u32)
        .map(|o| {
            let s = h.op_span(o).unwrap_or_else(|| panic!("operation {o} has no span"));
            assert_eq!(line_col(input, s.start as usize), (s.line, s.column), "place of {}", text_of(input, s));
            text_of(input, s)
        })
        .collect()
}

fn txn_texts<'a>(input: &'a str, h: &History) -> Vec<&'a str> {
    assert_eq!(h.txn_spans.len(), h.txns.len(), "one span per transaction");
    (0..h.txns.len() as u32)
        .map(|t| {
            let s = h.txn_span(t).unwrap_or_else(|| panic!("transaction {t} has no span"));
            assert_eq!(line_col(input, s.start as usize), (s.line, s.column));
            text_of(input, s)
        })
        .collect()
}

#[test]
fn edn_one_map_per_line() {
    let input = "; comment [:append x 0]\n\
        {:index 0, :type :invoke, :process 0, :value [[:r x nil] [:append x 1]]}\n\
        {:index 1, :type :ok, :process 0, :value [[:r x []]  [:append x 1]]}\n\
        {:index 2, :type :invoke, :process :nemesis, :value [[:append x 9]]}\n\
        {:index 3, :type :ok, :process 1, :value [( :r \"é x\" [1] ) [:append :y 2]]}\n";
    let h = read(input.as_bytes(), Format::Edn).unwrap();
    assert_eq!(op_texts(input, &h), ["[:r x []]", "[:append x 1]", "( :r \"é x\" [1] )", "[:append :y 2]"]);
    let txns = txn_texts(input, &h);
    assert_eq!(txns.len(), 2);
    assert!(txns[0].starts_with("{:index 1, :type :ok") && txns[0].ends_with(":append x 1]]}"));
    assert!(txns[1].starts_with("{:index 3,") && txns[1].ends_with('}'));
}

#[test]
fn edn_vector_of_maps_across_lines_after_multibyte_text() {
    // Characters of 2, 3 and 4 bytes before the operations, on their lines and on earlier ones.
    let input = "[{:index 0, :type :ok, :label \"ünïcødé €\", :process 0,\n  :value [[:append \"ключ\" 1]\n          [:r \"ключ\" [1]]]}\n {:index 1, :type :ok, :f \"😀\", :value [[:r \"ключ\" [1]] [:append \"ключ\" 2]]}\n {:index 2, :type :ok, :value\n  [[:append k 3]]}]";
    let h = read(input.as_bytes(), Format::Edn).unwrap();
    assert_eq!(
        op_texts(input, &h),
        ["[:append \"ключ\" 1]", "[:r \"ключ\" [1]]", "[:r \"ключ\" [1]]", "[:append \"ключ\" 2]", "[:append k 3]"]
    );
    let after_emoji = h.op_span(2).unwrap();
    assert_eq!((after_emoji.line, after_emoji.column), (4, 40), "the emoji is one character");
    let txns = txn_texts(input, &h);
    assert!(txns[0].starts_with("{:index 0") && txns[0].ends_with("[1]]]}"));
    assert_eq!(txns[2], "{:index 2, :type :ok, :value\n  [[:append k 3]]}");
}

#[test]
fn edn_completion_without_value_takes_the_invocation_and_its_spans() {
    let input = "{:type :invoke, :process 0, :value [[:append x 1]]}\n{:type :invoke, :process 1, :value [[:r x nil]]}\n{:type :ok, :process 0, :value nil}\n{:type :info, :process 1}\n{:type :invoke, :process 2, :value [[:append x 2]]}\n";
    let h = read(input.as_bytes(), Format::Edn).unwrap();
    assert_eq!(op_texts(input, &h), ["[:append x 1]", "[:r x nil]", "[:append x 2]"]);
    // The transaction's span is its completion's map, or its invocation's when it never completed.
    assert_eq!(
        txn_texts(input, &h),
        [
            "{:type :ok, :process 0, :value nil}",
            "{:type :info, :process 1}",
            "{:type :invoke, :process 2, :value [[:append x 2]]}"
        ]
    );
}

#[test]
fn json_native_elle_and_lines() {
    let native = "{\"transactions\": [\n  {\"id\": 1, \"label\": \"€ [\\\"x\\\"]\", \"status\": \"committed\", \"ops\": [[\"r\", \"x\", null], [\"w\", \"x\", 1]]},\n  {\"id\": 2, \"session\": 2, \"ops\": [ [\"r\", \"x\", 1] ]}\n], \"version_order\": {\"x\": [1]}}";
    let h = read(native.as_bytes(), Format::Json).unwrap();
    assert_eq!(op_texts(native, &h), ["[\"r\", \"x\", null]", "[\"w\", \"x\", 1]", "[\"r\", \"x\", 1]"]);
    let txns = txn_texts(native, &h);
    assert!(txns[0].starts_with("{\"id\": 1") && txns[0].ends_with("]]}"));
    assert_eq!(txns[1], "{\"id\": 2, \"session\": 2, \"ops\": [ [\"r\", \"x\", 1] ]}");

    let elle = "[{\"type\": \"invoke\", \"process\": 0, \"value\": [[\"append\", \"ü\", 1], [\"r\", \"ü\", null]]},\n {\"type\": \"ok\", \"process\": 0, \"value\": null},\n {\"type\": \"invoke\", \"process\": \"nemesis\", \"value\": [[\"append\", 1, 1]]},\n {\"type\": \"ok\", \"process\": 1, \"index\": 7, \"value\": [[\"r\", \"ü\", [1]]]}]";
    let h = read(elle.as_bytes(), Format::Json).unwrap();
    assert_eq!(op_texts(elle, &h), ["[\"append\", \"ü\", 1]", "[\"r\", \"ü\", null]", "[\"r\", \"ü\", [1]]"]);
    let txns = txn_texts(elle, &h);
    assert_eq!(txns[0], "{\"type\": \"ok\", \"process\": 0, \"value\": null}");

    let lines =
        "{\"type\": \"ok\", \"value\": [[\"append\", 1, 2]]}\n{\"type\": \"ok\", \"value\": [[\"r\", 1, [2]]]}\n";
    let h = read(lines.as_bytes(), Format::Json).unwrap();
    assert_eq!(op_texts(lines, &h), ["[\"append\", 1, 2]", "[\"r\", 1, [2]]"]);
    assert_eq!(h.op_span(1).unwrap().line, 2);
}

#[test]
fn plume_operations_have_their_lines_spans() {
    // Each operation is its `r(...)`/`w(...)` (spaces around it left out); a transaction's lines
    // need not be together, so transactions have no span. A write of 0 is left out (Plume's
    // initial value), and so has no operation.
    let text = "r(1,0,1,1)\n  w(1,1,1,1)  \nw(2,0,1,1)\nr(1,1,2,2)\n";
    let h = read(text.as_bytes(), Format::Plume).unwrap();
    assert_eq!(op_texts(text, &h), ["r(1,0,1,1)", "w(1,1,1,1)", "r(1,1,2,2)"]);
    assert_eq!((0..3).map(|o| h.op_span(o).unwrap().line).collect::<Vec<_>>(), [1, 2, 4]);
    assert_eq!(h.op_span(1).unwrap().column, 3);
    assert!(h.txn_spans.is_empty());
}

#[test]
fn other_readers_leave_spans_empty() {
    let h = grail_core::read::read_dbcop(
        b"[[{\"events\": [{\"write\": true, \"variable\": 1, \"value\": 1, \"success\": true}], \"success\": true}]]",
    )
    .unwrap();
    assert!(h.op_spans.is_empty() && h.txn_spans.is_empty() && h.op_span(0).is_none());
}

#[test]
fn spans_can_be_left_out() {
    let opts = grail_core::ReadOptions { spans: false, ..Default::default() };
    for input in [
        "{:type :ok, :value [[:append x 1]]}\n{:type :invoke, :process 3, :value [[:r x nil]]}",
        "[{\"type\": \"ok\", \"value\": [[\"append\", 1, 2]]}]",
    ] {
        let h = grail_core::read_with(input.as_bytes(), Format::Auto, opts).unwrap();
        assert!(!h.ops.is_empty() && h.op_spans.is_empty() && h.txn_spans.is_empty());
        assert_eq!(h.txns.len(), read(input.as_bytes(), Format::Auto).unwrap().txns.len());
    }
}

/// Spans located from the input afterwards ([`grail_core::ReadOptions::locate_op_spans`]) are the
/// ones recorded while reading, for every operation and transaction: on one thread (small
/// inputs: multi-line maps, multibyte text, values taken from invocations) and in chunks on
/// several (a generated history of 6 MB with injected anomalies).
#[test]
fn located_op_spans_equal_recorded_ones() {
    let generated = grail_core::generate::generate(&grail_core::generate::GenOptions {
        transactions: 20_000,
        inject: ["lost-update", "write-skew", "aborted-read"]
            .map(|name| (grail_core::generate::Injection::parse(name).unwrap(), 3))
            .to_vec(),
        ..Default::default()
    })
    .history;
    let inputs = [
        "{:index 0, :type :invoke, :process 0, :value [[:r x nil] [:append x 1]]}\n\
         {:index 1, :type :ok, :process 0, :value [[:r x []]  [:append x 1]]}\n\
         {:index 3, :type :ok, :process 1, :value [( :r \"é x\" [1] ) [:append :y 2]]}\n",
        "[{:index 0, :type :ok, :label \"ünïcødé €\", :process 0,\n  :value [[:append \"ключ\" 1]\n          [:r \"ключ\" [1]]]}\n {:index 1, :type :ok, :f \"😀\", :value [[:r \"ключ\" [1]] [:append \"ключ\" 2]]}\n {:index 2, :type :ok, :value\n  [[:append k 3]]}]",
        "{:type :invoke, :process 0, :value [[:append x 1]]}\n{:type :invoke, :process 1, :value [[:r x nil]]}\n{:type :ok, :process 0, :value nil}\n{:type :info, :process 1}\n{:type :invoke, :process 2, :value [[:append x 2]]}\n",
        &generated,
    ];
    let located = grail_core::ReadOptions { spans: true, locate_op_spans: true };
    for input in inputs {
        let recorded = read(input.as_bytes(), Format::Edn).unwrap();
        let mut h = grail_core::read_with(input.as_bytes(), Format::Edn, located).unwrap();
        assert!(h.op_spans.is_empty() && h.ops.len() == recorded.ops.len() && !h.ops.is_empty());
        assert_eq!(h.txn_spans, recorded.txn_spans);
        assert!(h.op_span(0).is_none(), "no span before the input is attached");
        grail_core::read::attach_input(&mut h, std::sync::Arc::new(input.as_bytes().to_vec()));
        for o in 0..h.ops.len() as u32 {
            assert_eq!(h.op_span(o), recorded.op_span(o), "operation {o}");
            assert!(h.op_span(o).is_some(), "operation {o}");
        }
    }
}

/// The input read by range, counting what it gave: as the CLI's file, which is not in memory.
struct Counted {
    text: Vec<u8>,
    read: std::sync::atomic::AtomicUsize,
    asked: std::sync::atomic::AtomicUsize,
}

impl grail_core::read::InputText for Counted {
    fn len(&self) -> usize {
        self.text.len()
    }
    fn bytes(&self, start: usize, end: usize) -> std::borrow::Cow<'_, [u8]> {
        let end = end.min(self.text.len());
        let start = start.min(end);
        self.read.fetch_add(end - start, std::sync::atomic::Ordering::Relaxed);
        self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::borrow::Cow::Owned(self.text[start..end].to_vec())
    }
}

/// Spans found from windows of an input read by range equal the recorded ones, in EDN, Plume
/// text and JSON: where the window grows back to a line's start far behind (an EDN history
/// written on one line), and on to a value that runs far ahead (a read of a list of 3,000
/// elements); a history of a transaction a line is read a few kilobytes a look-up, not whole,
/// and so is a JSON history on one line (its arrays' columns are kept, not found again).
#[test]
fn located_spans_read_windows_of_the_input() {
    let one_line = format!(
        "[{}]",
        (0..3000)
            .map(|i| format!("{{:index {i}, :type :ok, :process 0, :value [[:append x {i}]]}}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let long_read = format!(
        "{}{{:index 3000, :type :ok, :process 1, :value [[:r x [{}]] [:append y 1]]}}\n{{:index 3001, :type :ok, :process 1, :value [[:r y [1]]]}}\n",
        (0..3000).map(|i| format!("{{:index {i}, :type :ok, :process 0, :value [[:append x {i}]]}}\n")).collect::<String>(),
        (0..3000).map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
    );
    let generated =
        grail_core::generate::generate(&grail_core::generate::GenOptions { transactions: 5_000, ..Default::default() })
            .history;
    let plume: String = (0..2000)
        .map(|t| format!("w({},{},{},{t})\nr({},{},{},{t})\n", t % 7, t + 1, t % 3, (t + 3) % 7, t / 2, t % 3))
        .collect();
    // JSON: native transactions on one line (a string key with letters beyond ASCII before
    // each array, for the columns), a read of 3,000 elements, generated native histories on
    // the pool in chunks (over 2 MB) and elle-cli operations whose completions carry no value
    // (their invocations' arrays are read again) or never come (indeterminate).
    let json_one_line = format!(
        "[{}]",
        (0..3000)
            .map(|i| format!(r#"{{"id": {i}, "label": "é{i}", "ops": [["append", "ключ", {i}], ["r", "x", [{i}]]]}}"#))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let json_long_read = format!(
        "[{},\n{{\"ops\": [[\"r\", \"x\", [{}]], [\"append\", \"y\", 1]]}}]",
        (0..3000).map(|i| format!("{{\"ops\": [[\"append\", \"x\", {i}]]}}")).collect::<Vec<_>>().join(",\n"),
        (0..3000).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
    );
    let big = grail_core::generate::generate(&grail_core::generate::GenOptions {
        transactions: 30_000,
        output: grail_core::generate::Output::Native,
        ..Default::default()
    })
    .history;
    assert!(big.len() > 2 << 20, "read in chunks");
    let elle: String = (0..500)
        .map(|i| {
            let p = i % 5;
            let invoke = format!(
                r#"{{"type": "invoke", "process": {p}, "f": "txn", "value": [["append", "x", {i}], ["r", "x", null]]}}"#
            );
            if i % 50 == 49 {
                return format!("{invoke}\n"); // never completed
            }
            let value =
                if i % 2 == 0 { "null".to_string() } else { format!(r#"[["append", "x", {i}], ["r", "x", [{i}]]]"#) };
            format!("{invoke}\n{{\"type\": \"ok\", \"process\": {p}, \"f\": \"txn\", \"value\": {value}}}\n")
        })
        .collect();
    let located = grail_core::ReadOptions { spans: true, locate_op_spans: true };
    for (input, format, per_lookup) in [
        (&one_line, Format::Edn, None),
        (&long_read, Format::Edn, None),
        (&generated, Format::Edn, Some(8 << 10)),
        (&plume, Format::Plume, Some(8 << 10)),
        (&json_one_line, Format::Json, Some(8 << 10)),
        (&json_long_read, Format::Json, None),
        (&big, Format::Json, Some(8 << 10)),
        (&elle, Format::Json, Some(8 << 10)),
    ] {
        // Under `compact-read` (the demo's build) JSON is read by serde's reader alone, which
        // records each operation's span as it reads.
        if cfg!(feature = "compact-read") && format == Format::Json {
            continue;
        }
        let recorded = grail_core::read_with(input.as_bytes(), format, grail_core::ReadOptions::default()).unwrap();
        let mut h = grail_core::read_with(input.as_bytes(), format, located).unwrap();
        assert!(h.op_spans.is_empty() && !h.ops_read_at.is_empty(), "{format:?}: spans located");
        let counted = std::sync::Arc::new(Counted { text: input.as_bytes().to_vec(), read: 0.into(), asked: 0.into() });
        grail_core::read::attach_input(&mut h, counted.clone());
        for o in 0..h.ops.len() as u32 {
            let found = h.op_span(o);
            assert!(found.is_some(), "{format:?}: operation {o}");
            assert_eq!(found, recorded.op_span(o), "{format:?}: operation {o}");
        }
        let read = counted.read.load(std::sync::atomic::Ordering::Relaxed);
        let lookups = h.ops.len();
        assert!(read > 0);
        if let Some(most) = per_lookup {
            let asked = counted.asked.load(std::sync::atomic::Ordering::Relaxed);
            assert!(read / lookups <= most, "{format:?}: {read} bytes read for {lookups} look-ups in {asked} windows");
        }
    }
}
