//! The TimeKiller reader's short path (`read::timekiller_fast`) gives what serde_json's reader
//! gives: the same history, spans, lines, ids and labels included, with spans and without, with
//! and without `--initial_value`, on the conformance cases' and the corpus's TimeKiller files,
//! on generated key-value and list histories, on variants of them (other whitespace, keys in
//! another order, string tids and sids, clocks as strings or without `l`, unknown keys), and on
//! broken text, where it must give up so that the error is serde_json's reader's.

mod common;

use common::corpus;
use grail_core::generate::{generate, DataModel, GenOptions, Output};
use grail_core::read::TimeKillerOptions;
use grail_core::read::{detect, read_timekiller_fast, read_timekiller_serde, read_timekiller_with, Format};
use grail_core::History;
use proptest::prelude::*;
use std::path::Path;

/// The short path on several threads in chunks of 1, 100 and 4096 bytes (a split at every
/// line, and inside transactions), where it reads the text: it must give the serde reader's
/// history. How many of the three read it.
#[cfg(feature = "parallel")]
fn chunked(text: &[u8], opts: TimeKillerOptions, slow: &Result<History, grail_core::Error>, what: &str) -> usize {
    let mut read = 0;
    for chunk in [1, 100, 4096] {
        if let Some(h) = grail_core::read::read_timekiller_in_chunks(text, opts, chunk) {
            let slow = slow.as_ref().unwrap_or_else(|e| panic!("{what}: chunks read what serde_json's refused: {e}"));
            common::assert_same_history(&h, slow, &format!("{what}, chunks of {chunk}"));
            read += 1;
        }
    }
    read
}

#[cfg(not(feature = "parallel"))]
fn chunked(_: &[u8], _: TimeKillerOptions, _: &Result<History, grail_core::Error>, _: &str) -> usize {
    0
}

/// Texts read in chunks, by the check in [`compare`].
static CHUNKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Compare both readers on `text`, with and without spans and with and without an initial
/// value; true when the short path read it (it must decide alike in all four).
fn compare(text: &[u8], what: &str) -> bool {
    let mut taken = Vec::new();
    for spans in [true, false] {
        for initial_value in [None, Some(0)] {
            let opts = TimeKillerOptions { spans, initial_value };
            let what = format!("{what} ({opts:?})");
            let slow = read_timekiller_serde(text, opts);
            CHUNKED.fetch_add(chunked(text, opts, &slow, &what), std::sync::atomic::Ordering::Relaxed);
            match read_timekiller_fast(text, opts) {
                Some(fast) => {
                    let slow =
                        slow.unwrap_or_else(|e| panic!("{what}: the short path read what serde_json's refused: {e}"));
                    common::assert_same_history(&fast, &slow, &what);
                    taken.push(true);
                }
                None => {
                    // Given up: the reader as a user calls it gives serde_json's reader's answer.
                    match (&read_timekiller_with(text, opts), &slow) {
                        (Ok(a), Ok(b)) => common::assert_same_history(a, b, &what),
                        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
                        _ => panic!("{what}: read_timekiller_with and serde_json's reader disagree"),
                    }
                    taken.push(false);
                }
            }
        }
    }
    // Spans change nothing of what is read (an initial value can: a list history's read of 0
    // mixes models without it).
    assert_eq!((taken[0], taken[1]), (taken[2], taken[3]), "{what}: short path taken with spans and without");
    taken[0]
}

#[test]
fn conformance_and_corpus_timekiller_files_read_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    common::files_under(&root.join("tests"), &["json"], &mut files);
    if let Some(c) = corpus() {
        common::files_under(&c, &["json"], &mut files);
    }
    let (mut histories, mut left) = (0, Vec::new());
    for f in &files {
        let text = common::slurp(f);
        if detect(&text) != Format::TimeKiller {
            continue;
        }
        histories += 1;
        if !compare(&text, &f.display().to_string()) {
            left.push(f.display().to_string());
        }
    }
    // tests/cases/timestamps/timekiller-{kv,list}.json; the corpus holds none today.
    assert!(histories >= 2, "found only {histories} TimeKiller histories in {} JSON files", files.len());
    assert!(left.is_empty(), "not on the short path: {left:?}");
}

fn generated(model: DataModel, seed: u64) -> String {
    let o = GenOptions {
        // Past the 2048 transactions after which the short path reserves room for the rest.
        transactions: 2_500,
        sessions: 7,
        keys: 25,
        abort_rate: 0.1,
        model,
        seed,
        output: Output::Timekiller,
        ..Default::default()
    };
    generate(&o).history
}

#[test]
fn generated_histories_read_as_before() {
    for model in [DataModel::ListAppend, DataModel::RwRegister] {
        for seed in [1, 2, 3] {
            let text = generated(model, seed);
            let h = read_timekiller_fast(text.as_bytes(), TimeKillerOptions::default()).unwrap();
            assert!(h.txns.len() > 2_048 && h.ops.len() > 5_000, "{model:?} {seed}: a small history");
            assert!(compare(text.as_bytes(), &format!("{model:?}, seed {seed}")), "{model:?} {seed}: not taken");
            // One transaction a line: read in chunks of any size.
            #[cfg(feature = "parallel")]
            for chunk in [1, 100, 4096, 1 << 20] {
                let opts = TimeKillerOptions::default();
                assert!(
                    grail_core::read::read_timekiller_in_chunks(text.as_bytes(), opts, chunk).is_some(),
                    "{model:?} {seed}: not read in chunks of {chunk}"
                );
            }
        }
    }
}

/// Variants of a small history: forms the short path reads and forms it gives up on.
#[test]
fn variants_read_as_before() {
    let kv = r#"[
  {"tid": 67, "sid": 19, "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 0}, "ops": [{"t": "w", "k": 7, "v": 2}, {"t": "r", "k": 8, "v": null}]},
  {"tid": 68, "sid": 20, "sts": {"p": 2, "l": 1}, "cts": {"p": 3, "l": 0}, "ops": [{"t": "R", "k": 7, "v": 2}, {"t": "read", "k": 9, "v": 0}]},
  {"tid": 70, "sid": 19, "sts": {"p": 4, "l": 0}, "cts": {"p": 5, "l": 0}, "ops": [{"t": "Write", "k": 8, "v": 3}, {"t": "r", "k": 7}]},
  {"tid": 69, "sid": 21, "sts": {"p": 6, "l": 0}, "cts": {"p": 6, "l": 0}, "ops": []}
]
"#;
    let list = r#"[{"tid": 1, "sid": 1, "sts": {"p": 1, "l": 0}, "cts": {"p": 3, "l": 0}, "ops": [{"t": "a", "k": 7, "v": 1}]},
 {"tid": 2, "sid": 2, "sts": {"p": 2, "l": 0}, "cts": {"p": 4, "l": 0}, "ops": [{"t": "r", "k": 7, "v": []}, {"t": "APPEND", "k": 7, "v": 2}, {"t": "r", "k": 8}]},
 {"tid": 3, "sid": 1, "sts": {"p": 5, "l": 0}, "cts": {"p": 5, "l": 1}, "ops": [{"t": "r", "k": 7, "v": [1, 2]}, {"t": "r", "k": 8, "v": null}]}]"#;
    let mut cases: Vec<(String, String, bool)> =
        vec![("kv".into(), kv.into(), true), ("list".into(), list.into(), true)];
    let mut add = |name: &str, text: String, fast: bool| cases.push((name.into(), text, fast));
    // Read by the short path.
    add("crlf and tabs", kv.replace('\n', "\r\n").replace(", ", ",\t"), true);
    add("no spaces", kv.replace(", ", ",").replace(": ", ":"), true);
    add("one line", kv.replace('\n', ""), true);
    add("list, one line per op", list.replace("}, {", "},\n    {"), true);
    add(
        "keys in another order",
        kv.replace(
            r#"{"tid": 67, "sid": 19, "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 0}, "ops": [{"t": "w", "k": 7, "v": 2}, {"t": "r", "k": 8, "v": null}]}"#,
            r#"{"ops": [{"v": 2, "k": 7, "t": "w"}, {"k": 8, "v": null, "t": "r"}], "cts": {"l": 0, "p": 2}, "sid": 19, "sts": {"l": 0, "p": 1}, "tid": 67}"#,
        ),
        true,
    );
    let every = |text: &str, key: &str, f: &dyn Fn(&str) -> String| {
        ["1", "19", "2", "20", "21", "3", "67", "68", "69", "70"]
            .iter()
            .rev()
            .fold(text.to_string(), |t, n| t.replace(&format!("\"{key}\": {n},"), &format!("\"{key}\": {},", f(n))))
    };
    add("string tids", every(kv, "tid", &|n| format!("\"t{n}\"")), true);
    add("string tids, list", every(list, "tid", &|n| format!("\"t{n}\"")), true);
    add("one string tid", kv.replace(r#""tid": 68"#, r#""tid": "x""#), true);
    add("tid as a string of digits", kv.replace(r#""tid": 68"#, r#""tid": "068""#), true);
    add("negative tid", kv.replace(r#""tid": 68"#, r#""tid": -68"#), true);
    add("missing tid", kv.replace(r#""tid": 68, "#, ""), true);
    add("null tid", kv.replace(r#""tid": 68"#, r#""tid": null"#), true);
    add("string sids", every(kv, "sid", &|n| format!("\"s{n}\"")), true);
    add(
        "string sids and tids as digits",
        every(&every(kv, "sid", &|n| format!("\"{n}\"")), "tid", &|n| format!("\"{n}\"")),
        true,
    );
    add("sid as a string of digits", kv.replace(r#""sid": 20"#, r#""sid": "+20""#), true);
    add("missing sid", kv.replace(r#""sid": 20, "#, ""), true);
    add("p as string", kv.replace(r#""p": 2,"#, r#""p": " 2","#), true);
    add("l as string", kv.replace(r#""l": 1"#, r#""l": "1""#), true);
    add("missing l", kv.replace(r#", "l": 0"#, ""), true);
    add("null l", kv.replace(r#""l": 0"#, r#""l": null"#), true);
    add("k and v as strings", kv.replace(r#""k": 7, "v": 2"#, r#""k": "7", "v": "2""#), true);
    add("unknown keys", kv.replace(r#""sid": 19,"#, r#""sid": 19, "x": [{"y": 1.5, "z": "é"}, true],"#), true);
    add("unknown op key", kv.replace(r#""v": 3}"#, r#""v": 3, "note": {"a": null}}"#), true);
    add("null ops", kv.replace(r#""ops": []"#, r#""ops": null"#), true);
    add("no ops", kv.replace(r#", "ops": []"#, ""), true);
    add("unicode in a string tid", kv.replace(r#""tid": 68"#, r#""tid": "ü68""#), true);
    add("big key", kv.replace(r#""k": 9"#, r#""k": -9223372036854775808"#), true);
    add("empty", "[]".into(), true);
    add("empty with blanks", " \n[ \r\n]\n ".into(), true);
    // Left to serde_json's reader.
    add("escaped string tid", kv.replace(r#""tid": 68"#, r#""tid": "6\u0038""#), false);
    add("float v", kv.replace(r#""v": 2}"#, r#""v": 2.0}"#), false);
    add("exponent", kv.replace(r#""v": 2}"#, r#""v": 2e0}"#), false);
    add("big tid", kv.replace(r#""tid": 68"#, r#""tid": 18446744073709551615"#), false);
    add("bool sid", kv.replace(r#""sid": 20"#, r#""sid": true"#), false);
    add("repeated tid", kv.replace(r#""tid": 70"#, r#""tid": 68"#), false);
    add("repeated key", kv.replace(r#""sid": 20,"#, r#""sid": 20, "sid": 21,"#), false);
    add("repeated op key", kv.replace(r#""k": 9,"#, r#""k": 9, "k": 10,"#), false);
    add("start after commit", kv.replace(r#""p": 6, "l": 0}, "cts""#, r#""p": 7, "l": 0}, "cts""#), false);
    add("missing cts", kv.replace(r#", "cts": {"p": 5, "l": 0}"#, ""), false);
    add("null sts", kv.replace(r#""sts": {"p": 4, "l": 0}"#, r#""sts": null"#), false);
    add("missing p", kv.replace(r#""p": 2, "#, ""), false);
    add("clock as array", kv.replace(r#"{"p": 4, "l": 0}"#, "[4, 0]"), false);
    add("unknown op type", kv.replace(r#""t": "w""#, r#""t": "x""#), false);
    add("numeric op type", kv.replace(r#""t": "w""#, r#""t": 1"#), false);
    add("write of null", kv.replace(r#""k": 7, "v": 2}"#, r#""k": 7, "v": null}"#), false);
    add("mixed models", kv.replace(r#""t": "w""#, r#""t": "a""#), false);
    add("list of null", list.replace("[1, 2]", "[1, null]"), false);
    add("append of a list", list.replace(r#""v": 1}"#, r#""v": [1]}"#), false);
    add("bad byte", kv.replace(r#""k": 8,"#, r#""k": 8;"#), false);
    add("truncated", kv[..kv.len() - 40].to_string(), false);
    add("trailing comma", kv.replace("]}\n]", "]},\n]"), false);
    add("trailing text", format!("{kv} 5"), false);
    add("an object", r#"{"tid": 1}"#.into(), false);
    add("empty text", "".into(), false);
    let before = CHUNKED.load(std::sync::atomic::Ordering::Relaxed);
    for (name, text, fast) in cases {
        assert_eq!(compare(text.as_bytes(), &name), fast, "{name}: short path taken");
    }
    // Most variants are one transaction a line, which chunks read.
    #[cfg(feature = "parallel")]
    assert!(CHUNKED.load(std::sync::atomic::Ordering::Relaxed) - before > 100, "few variants read in chunks");
    let _ = before;
}

/// Labels and numbering that only show when the ids are not all integers.
#[test]
fn string_tids_label_and_sessions_number_alike() {
    let text = br#"[{"tid": "a", "sid": "s", "sts": {"p": 1}, "cts": {"p": 2}, "ops": [{"t": "w", "k": 1, "v": 1}]},
{"tid": 7, "sid": "u", "sts": {"p": 1}, "cts": {"p": 2}, "ops": []},
{"tid": "+8", "sid": "s", "sts": {"p": "3"}, "cts": {"p": 4, "l": "2"}, "ops": [{"t": "r", "k": 1, "v": 0}]}]"#;
    let opts = TimeKillerOptions { initial_value: Some(0), spans: true };
    let h = read_timekiller_fast(text, opts).unwrap();
    let labels: Vec<_> = h.txns.iter().map(|t| t.label().map(|l| h.strings.get(l).to_string())).collect();
    assert_eq!(labels, [Some("a".into()), Some("7".into()), Some("8".into())]);
    assert_eq!(
        h.txns.iter().map(|t| (t.id, t.process())).collect::<Vec<_>>(),
        [(0, Some(-1)), (1, Some(-2)), (2, Some(-1))]
    );
    assert!(!h.initial_open);
    common::assert_same_history(&h, &read_timekiller_serde(text, opts).unwrap(), "string tids");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Generated histories (about 4 kB) cut at any byte or not at all, and with any byte changed
    /// (often to a digit or a blank, which keeps many of them histories the short path reads),
    /// read alike; errors the short path must leave to serde_json's reader.
    #[test]
    fn damaged_histories_read_as_before(
        seed in 0u64..1000,
        cut in 0usize..10_000,
        at in 0usize..10_000,
        byte in prop_oneof![0u8..128, prop::sample::select(b"0123456789 \n".to_vec())],
        list in any::<bool>(),
    ) {
        let o = GenOptions {
            transactions: 30,
            sessions: 3,
            keys: 4,
            model: if list { DataModel::ListAppend } else { DataModel::RwRegister },
            seed,
            output: Output::Timekiller,
            ..Default::default()
        };
        let mut bytes = generate(&o).history.into_bytes();
        bytes.truncate(cut.max(1).min(bytes.len()));
        let n = bytes.len();
        bytes[at % n] = byte;
        compare(&bytes, &format!("seed {seed}, cut {cut}, byte {byte} at {at}"));
    }
}
