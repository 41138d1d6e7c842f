//! The Plume reader gives what it gave before it read line by line into the builder (the oracle
//! in `common/plume_oracle.rs`): the same history, spans and numbering included, and the same
//! error, on the corpus's Plume files, on generated histories, on the forms the short path
//! leaves to the general one (spaces, `\r`, 19-digit numbers, interleaved transactions), and on
//! broken text; on one thread and on several; with every operation's span recorded, or where to
//! find it (the spans found in the input then).

mod common;
#[path = "common/plume_oracle.rs"]
mod plume_oracle;

use common::{corpus, slurp};
use grail_core::generate::{generate, GenOptions, Injection, Isolation, Output};
use grail_core::history::{Span, SpanMode};
use grail_core::read::{attach_input, read_with, Format, ReadOptions};
use grail_core::{Error, History};
use plume_oracle::read_plume_oracle;
use proptest::prelude::*;
use std::sync::Arc;

/// Chunk sizes of the reader on several threads: a split at every line, and inside runs of
/// a transaction's lines.
#[cfg(feature = "parallel")]
const CHUNKS: [usize; 3] = [1, 100, 4_096];

fn options(spans: SpanMode) -> ReadOptions {
    ReadOptions { spans: spans != SpanMode::None, locate_op_spans: spans == SpanMode::Located }
}

/// The reader on several threads in chunks of each size, where it takes the text.
#[cfg(feature = "parallel")]
fn chunked(text: &[u8], spans: SpanMode) -> Vec<(String, Result<History, Error>)> {
    // A split at every line of a large text would be a million chunks.
    CHUNKS
        .into_iter()
        .filter(|&c| c >= text.len() / 10_000)
        .filter_map(|c| Some((format!("chunks of {c} bytes"), grail_core::read::read_plume_in_chunks(text, spans, c)?)))
        .collect()
}

#[cfg(not(feature = "parallel"))]
fn chunked(_: &[u8], _: SpanMode) -> Vec<(String, Result<History, Error>)> {
    Vec::new()
}

/// A history read with operations' spans located: with its input attached, each operation's
/// span is the oracle's; they are then put in place, to compare the rest. (A text whose
/// transactions' lines are not together records them all.)
fn find_located(a: &mut History, text: &[u8], want: &History, what: &str) {
    if a.ops_read_at.is_empty() {
        return;
    }
    assert!(a.op_spans.is_empty(), "{what}: located, yet recorded");
    assert_eq!(a.ops_read_at.len(), a.txns.len(), "{what}: where each transaction was read");
    attach_input(a, Arc::new(text.to_vec()));
    let found: Vec<Span> = (0..a.ops.len() as u32).map(|o| a.op_span(o).unwrap_or_default()).collect();
    assert_eq!(found, want.op_spans, "{what}: operations' spans found in the input");
    a.op_spans = found;
    a.ops_read_at.clear();
}

/// The reader (as `read_with` runs it, and on several threads in chunks of each size) and the
/// oracle on `text`, recording every span, none, or where to find them: each reads it to the
/// same history, or fails with the same error. Returns whether it read.
fn compare(text: &[u8], what: &str) -> bool {
    let mut ok = false;
    for spans in [SpanMode::Every, SpanMode::None, SpanMode::Located] {
        let want = read_plume_oracle(text, spans != SpanMode::None);
        let mut readings = vec![("read".to_string(), read_with(text, Format::Plume, options(spans)))];
        readings.extend(chunked(text, spans));
        for (how, got) in readings {
            let what = format!("{what} ({how}, spans {spans:?})");
            match (got, &want) {
                (Ok(mut a), Ok(b)) => {
                    if spans == SpanMode::Located {
                        find_located(&mut a, text, b, &what);
                    }
                    common::assert_same_history(&a, b, &what);
                    ok = true;
                }
                (Err(a), Err(b)) => assert_eq!(&a, b, "{what}: error"),
                (a, b) => panic!("{what}: reader {:?}, oracle {:?}", a.err(), b.as_ref().err()),
            }
        }
    }
    ok
}

fn polysi(o: GenOptions) -> String {
    generate(&GenOptions { output: Output::Polysi, ..o }).history
}

/// Generated texts: aborted writes (`txn = -1`), an explicit initialising transaction, weak
/// isolation with injected anomalies, PolySI's presets.
fn generated() -> Vec<(String, String)> {
    let base = GenOptions { transactions: 2_000, sessions: 9, keys: 30, abort_rate: 0.1, ..Default::default() };
    let mut out = vec![
        ("default".to_string(), polysi(base.clone())),
        ("explicit init".into(), polysi(GenOptions { explicit_init: true, seed: 2, ..base.clone() })),
        (
            "read committed with anomalies".into(),
            polysi(GenOptions {
                isolation: Isolation::ReadCommitted,
                inject: vec![(Injection::AbortedRead, 3), (Injection::IntermediateRead, 2), (Injection::LostUpdate, 2)],
                seed: 3,
                ..base.clone()
            }),
        ),
        ("causal".into(), polysi(GenOptions { isolation: Isolation::Causal, seed: 4, ..base.clone() })),
    ];
    for name in ["general-rh", "tpcc", "twitter"] {
        let o = GenOptions::preset(name).unwrap();
        out.push((name.to_string(), polysi(GenOptions { transactions: 1_000, seed: 5, ..o })));
    }
    out
}

/// `text` rewritten line by line by `f` (the line without its `\n`, its 0-based number).
fn each_line(text: &str, f: impl Fn(&str, usize) -> String) -> String {
    text.lines().enumerate().map(|(i, l)| f(l, i) + "\n").collect()
}

/// The forms the short path leaves to the general one, and the orders the streaming reader
/// leaves to the gathering one.
fn variants(text: &str) -> Vec<(&'static str, String)> {
    let lines: Vec<&str> = text.lines().collect();
    // Two transactions' lines interleaved: each line swapped with the next when their
    // transactions differ, every 50 lines.
    let mut interleaved = lines.clone();
    for i in (1..interleaved.len() - 1).step_by(50) {
        interleaved.swap(i, i + 1);
    }
    // Ids that do not rise: each transaction id `t` becomes `1_000_000 - t` (aborted ones stay -1).
    let falling = each_line(text, |l, _| {
        let (head, txn) = l.rsplit_once(',').unwrap();
        let t: i64 = txn.trim_end_matches(')').parse().unwrap();
        format!("{head},{})", if t == -1 { -1 } else { 1_000_000 - t })
    });
    vec![
        (
            "spaces",
            each_line(text, |l, i| if i % 3 == 0 { format!(" \t{} ", l.replace(',', " , ")) } else { l.into() }),
        ),
        ("crlf", each_line(text, |l, i| if i % 2 == 0 { format!("{l}\r") } else { l.into() })),
        ("blank lines", each_line(text, |l, i| if i % 7 == 0 { format!("\n  \n{l}") } else { l.into() })),
        ("no final newline", text.trim_end().to_string()),
        (
            "19-digit keys",
            each_line(text, |l, i| if i % 5 == 0 { l.replacen('(', "(100000000000000000", 1) } else { l.into() }),
        ),
        ("negative values", each_line(text, |l, i| if i % 4 == 0 { l.replacen(',', ",-", 1) } else { l.into() })),
        ("interleaved", interleaved.iter().map(|l| format!("{l}\n")).collect()),
        ("falling ids", falling),
        ("a tail after a line", each_line(text, |l, i| if i == lines.len() / 2 { format!("{l} x") } else { l.into() })),
        ("a bad line", each_line(text, |l, i| if i == lines.len() / 3 { l.replace(',', ";") } else { l.into() })),
    ]
}

#[test]
fn generated_histories_read_as_before() {
    for (name, text) in generated() {
        assert!(compare(text.as_bytes(), &name), "{name}: reads");
        for (variant, t) in variants(&text) {
            compare(t.as_bytes(), &format!("{name}, {variant}"));
        }
    }
}

#[test]
fn corpus_plume_files_read_as_before() {
    let Some(c) = corpus() else { return };
    let dir = c.join("peers/awdit");
    let mut files: Vec<_> = std::fs::read_dir(dir.join("plume"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.push(dir.join("big/causal-1000000.txt.gz"));
    files.retain(|p| p.is_file());
    files.sort();
    if files.is_empty() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("the peers corpus is required under CI=true but {} has no Plume files", dir.display());
        }
        eprintln!("SKIPPED: no Plume files under {}", dir.display());
        return;
    }
    for path in &files {
        let text = slurp(path);
        assert!(compare(&text, &path.display().to_string()), "{}: reads", path.display());
        // The interleaved and spaced forms of the small ones.
        if text.len() < 1 << 20 {
            for (variant, t) in variants(std::str::from_utf8(&text).unwrap()) {
                compare(t.as_bytes(), &format!("{}, {variant}", path.display()));
            }
        }
    }
}

#[test]
fn streams_and_gathering_agree_on_edge_cases() {
    let cases: &[&str] = &[
        "",
        "\n\n",
        "w(1,0,0,1)\nw(2,0,0,1)\n",
        "w(1,7,0,-1)\nr(1,9,0,-1)\nw(1,1,3,1)\nr(1,7,4,2)\n",
        "w(1,0,0,-1)\nw(1,1,3,1)\n",
        "r(1,0,0,1)\nr(2,0,0,1)\n",
        "w(1,1,0,9007199254740991)\nw(1,2,0,-1)\n",
        "w(1,1,0,9007199254740991)\nw(1,2,0,9007199254740990)\nw(1,3,0,-1)\n",
        "w(1,1,1,7)\nw(2,1,2,7)\n",
        "w(1,1,1,7)\nw(1,2,1,8)\nw(2,1,2,7)\n",
        "w(1,1,1,7)\nw(1,2,1,8)\nw(2,1,1,7)\nx\n",
        "w(1,1,1,8)\nw(1,2,1,7)\nw(2,3,1,8)\n",
        "w(1,1,1,1)\nw(1,2,1,-5)\nw(1,3,1,1)\n",
        "r(1,-0,0,1)\n",
        "r(1,000000000000000007,0,1)\nr(1,0000000000000000007,0,1)\n",
        "r(1,99999999999999999999,3,4)\n",
        "r(1,-9223372036854775808,3,4)\n",
        "r(1,2,3,4)\r\r\n",
        "r(1,2,3,4))\n",
        "r(1,2,3,4\n",
        "r(1,2,3,4)",
        "r(1,2,3,)\n",
        "r (1,2,3,4)\n",
    ];
    for (i, text) in cases.iter().enumerate() {
        compare(text.as_bytes(), &format!("case {i}: {text:?}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn plume_like_text_reads_as_before(lines in proptest::collection::vec(
        (prop::sample::select(vec!["r", "w", "w", " w", "x"]), -1i8..4, -1i8..3, 0u8..3, -1i8..6,
         prop::sample::select(vec!["", "", "", " ", ")", ",", "\r", "\r\r"])), 0..24)) {
        let text: String = lines.iter().map(|(op, k, v, s, t, tail)| format!("{op}({k},{v},{s},{t}){tail}\n")).collect();
        compare(text.as_bytes(), &format!("{text:?}"));
    }
}
