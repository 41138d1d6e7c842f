//! The JSON reader's short path (`read::json_fast`) gives what serde_json's reader gives: the
//! same history, spans and numbering included, with spans and without, on the corpus's and the
//! conformance cases' JSON files, on generated native and elle-cli histories of several shapes,
//! on variants of them (other whitespace, keys in another order, nemesis and client operations,
//! completions without values, strings with escapes, floats, repeated keys), and on broken text,
//! where it must give up so that the error is serde_json's reader's.

mod common;

use common::corpus;
use grail_core::export::{elle_json, native};
use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::read::{read_json, read_json_fast, read_json_serde};
use grail_core::History;
use proptest::prelude::*;
use std::path::Path;

/// The short path on several threads in chunks of 1, 100 and 4096 bytes (a split at every
/// line, and inside entries), where it reads the text: it must give the serde reader's history.
#[cfg(feature = "parallel")]
fn chunked(text: &[u8], spans: bool, slow: &Result<History, grail_core::Error>, what: &str) -> usize {
    let mut read = 0;
    for chunk in [1, 100, 4096] {
        if let Some(h) = grail_core::read::read_json_in_chunks(text, spans, chunk) {
            let slow = slow.as_ref().unwrap_or_else(|e| panic!("{what}: chunks read what serde_json's refused: {e}"));
            common::assert_same_history(&h, slow, &format!("{what}, chunks of {chunk}"));
            read += 1;
        }
    }
    read
}

#[cfg(not(feature = "parallel"))]
fn chunked(_: &[u8], _: bool, _: &Result<History, grail_core::Error>, _: &str) -> usize {
    0
}

/// Texts read in chunks, by the check in [`compare`].
static CHUNKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Compare both readers on `text`, with and without spans; true when the short path read it.
fn compare(text: &[u8], what: &str) -> bool {
    let mut fast_read = false;
    for spans in [true, false] {
        let what = format!("{what} (spans {spans})");
        let slow = read_json_serde(text, spans);
        CHUNKED.fetch_add(chunked(text, spans, &slow, &what), std::sync::atomic::Ordering::Relaxed);
        match read_json_fast(text, spans) {
            Some(fast) => {
                let slow =
                    slow.unwrap_or_else(|e| panic!("{what}: the short path read what serde_json's refused: {e}"));
                common::assert_same_history(&fast, &slow, &what);
                fast_read = true;
            }
            None => {
                // Given up: the reader as a user calls it gives serde_json's reader's answer.
                let full = read_json(text);
                match (&full, &slow) {
                    (Ok(a), Ok(b)) if spans => common::assert_same_history(a, b, &what),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
                    (Ok(_), Ok(_)) => {}
                    _ => panic!("{what}: read_json and serde_json's reader disagree"),
                }
            }
        }
    }
    fast_read
}

#[test]
fn conformance_and_corpus_json_files_read_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    common::files_under(&root.join("tests"), &["json", "jsonl"], &mut files);
    common::files_under(&root.join("bindings/cli/tests"), &["json", "jsonl"], &mut files);
    if let Some(c) = corpus() {
        common::files_under(&c, &["json", "jsonl"], &mut files);
    }
    let (mut fast, mut histories, mut left) = (0, 0, Vec::new());
    for f in &files {
        let text = std::fs::read(f).unwrap();
        // Expected-verdict files and other JSON that is not a history are compared too: both
        // readers must refuse them alike.
        let read = compare(&text, &f.display().to_string());
        if read_json_serde(&text, true).is_ok() {
            histories += 1;
            fast += read as usize;
            if !read {
                left.push(f.display().to_string());
            }
        }
    }
    assert!(files.len() > 40 && histories > 8, "found only {} JSON files, {histories} histories", files.len());
    // Every history there is in a form the short path reads.
    assert!(left.is_empty(), "the short path read {fast} of {histories} histories; not {left:?}");
}

fn generated(o: GenOptions) -> History {
    let text = generate(&GenOptions { output: Output::Edn, ..o }).history;
    grail_core::read::read(text.as_bytes(), grail_core::read::Format::Edn).unwrap()
}

fn shapes() -> Vec<(String, History)> {
    let base = GenOptions { transactions: 1_500, sessions: 7, keys: 25, abort_rate: 0.1, ..Default::default() };
    vec![
        ("list-append".into(), generated(base.clone())),
        ("register".into(), generated(GenOptions { model: DataModel::RwRegister, seed: 2, ..base.clone() })),
        (
            "injected".into(),
            generated(GenOptions {
                isolation: Isolation::ReadCommitted,
                inject: vec![
                    (Injection::parse("lost-update").unwrap(), 3),
                    (Injection::parse("aborted-read").unwrap(), 2),
                ],
                seed: 3,
                ..base.clone()
            }),
        ),
        ("timestamps".into(), generated(GenOptions { timestamps: true, seed: 4, ..base.clone() })),
        (
            "twitter".into(),
            generated(GenOptions { transactions: 800, seed: 5, ..GenOptions::preset("twitter").unwrap() }),
        ),
    ]
}

fn all(h: &History) -> Vec<u32> {
    (0..h.txns.len() as u32).collect()
}

#[test]
fn generated_native_and_elle_histories_read_as_before() {
    for (name, h) in shapes() {
        let nat = native::history(&h);
        assert!(compare(nat.as_bytes(), &format!("{name}, native")), "{name}: native not on the short path");
        let elle = elle_json::sub_history(&h, &all(&h));
        assert!(compare(elle.as_bytes(), &format!("{name}, elle-cli")), "{name}: elle-cli not on the short path");
        // The same events as one array, pretty-printed over several lines.
        let events: Vec<serde_json::Value> = elle.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let arr = serde_json::to_string_pretty(&events).unwrap();
        assert!(compare(arr.as_bytes(), &format!("{name}, elle-cli array")), "{name}: array not on the short path");
        // Native as a bare array of transactions.
        let doc: serde_json::Value = serde_json::from_str(&nat).unwrap();
        let bare = serde_json::to_string(&doc["transactions"]).unwrap();
        assert!(compare(bare.as_bytes(), &format!("{name}, native array")));
        // One entry a line is read in chunks (as the native document and elle-cli lines are).
        #[cfg(feature = "parallel")]
        for text in [&nat, &elle] {
            assert!(
                grail_core::read::read_json_in_chunks(text.as_bytes(), true, 4096).is_some(),
                "{name}: not chunked"
            );
        }
    }
    #[cfg(feature = "parallel")]
    assert!(CHUNKED.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

/// Variants of a small elle-cli history: forms the short path reads and forms it gives up on.
#[test]
fn variants_read_as_before() {
    let base = r#"{"type": "invoke", "f": "txn", "process": 0, "time": 1, "index": 0, "value": [["append", "x", 1], ["r", "y", null]]}
{"type": "invoke", "f": "start", "process": "nemesis", "value": {"a": [1.5, true, "q\"\n"]}}
{"type": "invoke", "f": "txn", "process": 1, "index": 2, "value": [["r", "x", null]]}
{"type": "ok", "f": "txn", "process": 0, "time": 3, "index": 3, "value": [["append", "x", 1], ["r", "y", [2, "é"]]]}
{"type": "invoke", "f": "read", "process": 2, "value": null}
{"type": "ok", "f": "read", "process": 2, "value": 7}
{"type": "info", "f": "txn", "process": 1, "index": 6, "value": null}
{"type": "invoke", "f": "txn", "process": 3, "value": [["append", 5, 6]], "label": "ü"}
{"type": "invoke", "process": 4, "value": [["r", 5, [6]]], "extra": {"nested": [[1], {"k": null}]}}
"#;
    let mut cases: Vec<(String, String, bool)> = vec![("base".into(), base.into(), true)];
    let mut add = |name: &str, text: String, fast: bool| {
        assert_ne!(text, base, "{name}: the variant changed nothing");
        cases.push((name.into(), text, fast))
    };
    add("crlf and tabs", base.replace('\n', "\r\n").replace(", ", ",\t"), true);
    add("no spaces", base.replace(", ", ",").replace(": ", ":"), true);
    add("one line array", format!("[{}]", base.trim_end().replace('\n', ",")), true);
    add(
        "keys in another order",
        base.replace(
            r#"{"type": "invoke", "f": "txn", "process": 0,"#,
            r#"{"process": 0, "f": "txn", "type": "invoke","#,
        ),
        true,
    );
    // Characters of several bytes before operations on their line: columns count characters.
    add(
        "label before value",
        base.replace(r#""value": [["append", 5, 6]], "label": "ü""#, r#""label": "ü€", "value": [["append", 5, 6]]"#),
        true,
    );
    add(
        "skipped text before value",
        base.replace(
            r#"{"type": "invoke", "process": 4,"#,
            r#"{"note": ["ñ\"ß", {"x": "€"}], "type": "invoke", "process": 4,"#,
        ),
        true,
    );
    add("escaped key string", base.replace(r#"["r", "x", null]"#, r#"["r", "x\"", null]"#), false);
    add("unicode escape", base.replace(r#""label": "ü""#, r#""label": "\u00fc""#), false);
    add("float time", base.replace(r#""time": 3"#, r#""time": 3.0"#), false);
    add("19-digit index past i64", base.replace(r#""index": 6"#, r#""index": 9999999999999999999"#), false);
    add("20-digit index", base.replace(r#""index": 6"#, r#""index": 10000000000000000000"#), false);
    add("largest index", base.replace(r#""index": 6"#, r#""index": 9223372036854775807"#), true);
    add("smallest time", base.replace(r#""time": 3"#, r#""time": -9223372036854775808"#), true);
    add("big index", base.replace(r#""index": 6"#, r#""index": 18446744073709551615"#), false);
    add("negative index", base.replace(r#""index": 6"#, r#""index": -6"#), false);
    add("repeated key", base.replace(r#""time": 1,"#, r#""time": 1, "time": 2,"#), false);
    add("mixed model", base.replace(r#"["append", 5, 6]"#, r#"["w", 5, 6]"#), false);
    add("truncated", base[..base.len() - 30].to_string(), false);
    add("trailing comma", base.replace(r#"[2, "é"]"#, r#"[2, "é",]"#), false);
    add("bad type", base.replace(r#""type": "info""#, r#""type": "done""#), false);
    add("null key", base.replace(r#"["r", "x", null]"#, r#"["r", null, null]"#), false);
    add("append of null", base.replace(r#"["append", 5, 6]"#, r#"["append", 5, null]"#), false);
    add("client op of a list", base.replace(r#""value": 7"#, r#""value": [["x", 1]]"#), false);
    // serde_json's tree refuses a number past f64's range anywhere, even in a field not read.
    let huge = format!(r#""big": 1{}, "extra": {{"nested""#, "0".repeat(400));
    add("huge number in another field", base.replace(r#""extra": {"nested""#, &huge), false);
    let long = format!(r#""big": 1{}.5, "extra": {{"nested""#, "0".repeat(30));
    add("long number in another field", base.replace(r#""extra": {"nested""#, &long), false);
    add("leading zero", base.replace(r#""index": 2"#, r#""index": 02"#), false);
    add("minus zero", base.replace(r#""index": 2"#, r#""index": -0"#), false);
    add("control character", base.replace("é", "\u{1}"), false);
    add("empty array", "[]".into(), true);
    add("empty", "".into(), false);
    add(
        "document",
        r#"{"transactions": [{"id": 1, "ops": [["w", "x", 1]], "start_ts": 1, "commit_ts": 2}, {"id": 2, "status": "ok", "session": 3, "ops": [["r", "x", 1]], "label": "t"}],
 "version_order": {"x": [1]}, "commit_order": [1, 2], "params": {"n": [1, 2]}}"#
            .into(),
        true,
    );
    add(
        "document, order first",
        r#"{"version_order": {"x": [1]}, "transactions": [{"ops": [["w", "x", 1]]}]}"#.into(),
        false,
    );
    // Version orders are read without serde_json's tree: the same order, or left to it.
    let doc = |order: &str| {
        format!(
            r#"{{"transactions": [{{"ops": [["w", "x", 1], ["w", 7, "a"], ["w", "é", 2]]}}, {{"ops": [["w", "x", 2], ["w", 7, "b"]]}}],
 "version_order": {order}}}"#
        )
    };
    add("order of ints and strings", doc(r#"{"x": [2, 1], "7": ["b", "a"], "é": [2]}"#), true);
    add("order of unknown keys and values", doc(r#"{"y": [1], "x": [3, 2, "nobody", 1], "7": []}"#), true);
    add("empty order", doc("{}"), true);
    add("order, spaced", doc("{ \"x\" :\n [ 1 ,\t2 ] }"), true);
    add("order, repeated key", doc(r#"{"x": [1, 2], "x": [2, 1]}"#), false);
    add("order, float", doc(r#"{"x": [1.0, 2]}"#), false);
    add("order, nested", doc(r#"{"x": [[1], 2]}"#), false);
    add("order, not an object", doc("[1, 2]"), false);
    add("order, escaped key", doc(r#"{"\u0078": [2, 1]}"#), false);
    add("document, trailing", r#"{"transactions": [{"ops": [["w", "x", 1]]}]} 5"#.into(), false);
    add("document, bad order", r#"{"transactions": [{"ops": [["w", "x", 1]]}], "commit_order": [9]}"#.into(), false);
    add(
        "document, start after commit",
        r#"{"transactions": [{"ops": [], "start_ts": 3, "commit_ts": 2}]}"#.into(),
        false,
    );
    // Entries of both forms, sharing keys and strings: numbered in the order the text gives them.
    add(
        "native and elle entries",
        r#"{"ops": [["append", "k", 1], ["r", "j", null]], "label": "L1"}
{"type": "invoke", "f": "txn", "process": 0, "value": [["append", "j", "s"], ["r", "q", null]]}
{"id": 50, "status": "ok", "ops": [["r", "m", ["a", "s"]]]}
{"type": "ok", "f": "txn", "process": 0, "value": [["append", "j", "s"], ["r", "q", ["b"]]], "label": "L3"}
{"ops": [["append", "n", "z"], ["append", "k", "b"]], "label": "L2"}
{"type": "invoke", "f": "txn", "process": 1, "value": [["append", "p", "y"]]}
"#
        .into(),
        true,
    );
    add("predicate reads", r#"[{"ops": [], "predicate_reads": [{"predicate": "p", "matches": [1]}]}]"#.into(), false);
    add("hybrid clock", r#"[{"ops": [], "start_ts": {"p": 1, "l": 0}}]"#.into(), false);
    add("status null", r#"[{"ops": [], "status": null}]"#.into(), false);
    for (name, text, fast) in cases {
        assert_eq!(compare(text.as_bytes(), &name), fast, "{name}: short path taken");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Generated histories cut at any byte, and with any byte changed, read alike (mostly
    /// errors, which the short path must leave to serde_json's reader).
    #[test]
    fn damaged_histories_read_as_before(seed in 0u64..1000, cut in 0usize..4000, at in 0usize..4000, byte in 0u8..128, elle in any::<bool>()) {
        let h = generated(GenOptions { transactions: 40, sessions: 3, keys: 4, abort_rate: 0.2, seed, ..Default::default() });
        let text = if elle { elle_json::sub_history(&h, &all(&h)) } else { native::history(&h) };
        let mut bytes = text.into_bytes();
        bytes.truncate(cut.max(1).min(bytes.len()));
        let n = bytes.len();
        bytes[at % n] = byte;
        compare(&bytes, &format!("seed {seed}, cut {cut}, byte {byte} at {at}"));
    }
}
