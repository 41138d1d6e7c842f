//! The EDN reader on several threads gives what the one-thread reader gives: the same history
//! (spans, key and string numbering included) and the same error, on generated histories, on
//! broken ones, and on the corpus.
#![cfg(feature = "parallel")]

mod common;

use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation};
use grail_core::read::{read_edn_in_chunks, read_edn_sequential};
use grail_core::{Error, History};

/// Chunk sizes down to one byte: a split at every map, and so inside any multi-line form.
const CHUNKS: [usize; 3] = [1, 2_000, 64_000];

/// Compare both readers on `text` with every chunk size; returns how many chunked readings
/// were not left to the sequential reader.
fn compare(text: &[u8], what: &str) -> usize {
    let mut parallel = 0;
    for spans in [true, false] {
        let one: Result<History, Error> = read_edn_sequential(text, spans);
        for chunk in CHUNKS {
            let Some(many) = read_edn_in_chunks(text, spans, chunk) else { continue };
            parallel += 1;
            let what = format!("{what} (chunks of {chunk} bytes, spans {spans})");
            match (&one, &many) {
                (Ok(a), Ok(b)) => common::assert_same_history(a, b, &what),
                (Err(a), Err(b)) => assert_eq!(a, b, "{what}: error"),
                (a, b) => panic!("{what}: sequential {:?}, parallel {:?}", a.as_ref().err(), b.as_ref().err()),
            }
        }
    }
    parallel
}

fn edn(o: GenOptions) -> String {
    generate(&o).history
}

fn generated() -> Vec<(String, String)> {
    let base = GenOptions { transactions: 600, sessions: 7, ..Default::default() };
    vec![
        ("list-append".into(), edn(base.clone())),
        (
            "rw-register, read committed, timestamps".into(),
            edn(GenOptions {
                model: DataModel::RwRegister,
                isolation: Isolation::ReadCommitted,
                timestamps: true,
                ..base.clone()
            }),
        ),
        (
            "list-append with anomalies".into(),
            edn(GenOptions {
                inject: vec![(Injection::LostUpdate, 3), (Injection::AbortedRead, 2), (Injection::WriteCycle, 2)],
                seed: 7,
                ..base.clone()
            }),
        ),
    ]
}

#[test]
fn generated_histories_read_the_same() {
    // The rayon pool needs two threads for the parallel reader to run at all.
    if rayon_threads() < 2 {
        eprintln!("SKIPPED: one thread");
        return;
    }
    for (what, text) in generated() {
        assert!(compare(text.as_bytes(), &what) > 0, "{what}: never read in chunks");
    }
}

fn rayon_threads() -> usize {
    rayon::current_num_threads()
}

/// Lines that take the reader's rarer paths, spliced between the generated ones.
const ODD_LINES: [&str; 8] = [
    // A nemesis operation, and a client operation that is not a transaction.
    "{:type :info, :f :kill, :value nil, :process :nemesis, :time 5, :index 900001}",
    "{:type :invoke, :f :read, :value nil, :process 99, :time 6, :index 900002}\n{:type :ok, :f :read, :value 3, :process 99, :time 7, :index 900003}",
    // A completion without a value takes its invocation's (read again, new keys and strings).
    "{:type :invoke, :f :txn, :value [[:append \"fresh\" 1] [:r :kw nil]], :process 98, :index 900004}\n{:type :ok, :f :txn, :process 98, :index 900005}",
    // A label, string values, and a string holding a line break and a map's opening.
    "{:type :invoke, :f :txn, :value [[:append 1 \"a\nb\"]], :process 97, :label \"x\n{:type :ok}\", :index 900009}",
    "{:type :fail, :f :txn, :value [[:append 1 \"a\nb\"]], :process 97, :label \"x\n{:type :ok}\", :index 900010}",
    // A comment, a discarded form, and a value read before :type.
    "; a comment {:type :ok}\n#_{:type :ok, :value [[:r 1 [1]]]}",
    "{:value [[:r 5 nil]], :type :invoke, :process 96, :index 900006}\n{:value [[:r 5 []]], :type :ok, :process 96, :index 900007}",
    // An invocation that never completes (indeterminate).
    "{:type :invoke, :f :txn, :value [[:append 77 1]], :process 95, :index 900008}",
];

/// Ways to break a history, each at a place: the earliest error must be the one reported.
const BREAKS: [&str; 5] =
    ["]", "{:type :ok, :value [[:r 1 [1", "\"", "{:type :bogus}", "{:type :ok, :value [[:w 1 2]]}"];

fn splice(text: &str, at_line: usize, insert: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let at = at_line.min(lines.len());
    lines.insert(at, insert);
    lines.join("\n") + "\n"
}

#[test]
fn odd_and_broken_histories_read_the_same() {
    if rayon_threads() < 2 {
        eprintln!("SKIPPED: one thread");
        return;
    }
    let (_, text) = generated().swap_remove(0);
    let n = text.lines().count();
    let mut odd = text.clone();
    for (i, line) in ODD_LINES.iter().enumerate() {
        odd = splice(&odd, (i + 1) * n / (ODD_LINES.len() + 1), line);
    }
    assert!(compare(odd.as_bytes(), "odd lines") > 0, "the odd lines were never read in chunks");
    let h = read_edn_sequential(odd.as_bytes(), true).expect("the odd lines are a valid history");
    assert!(h.strings.len() >= 3, "the odd lines' strings were read");
    for (b, broken) in BREAKS.iter().enumerate() {
        for at in [1, n / 3, n - 2] {
            let text = splice(&odd, at, broken);
            let what = format!("break {b} at line {at}");
            assert!(read_edn_sequential(text.as_bytes(), true).is_err(), "{what}: not broken");
            compare(text.as_bytes(), &what);
            // Two breaks: the earlier must be the one reported.
            let twice = splice(&text, at + n / 2, BREAKS[(b + 1) % BREAKS.len()]);
            compare(twice.as_bytes(), &format!("{what}, and another after"));
        }
    }
}

/// Integer keys that share a slot of a chunk's recent keys (equal modulo 4096, negative ones,
/// past 2^32) and string keys, in and across chunks: numbered as one thread numbers them.
#[test]
fn keys_sharing_a_recent_slot_read_the_same() {
    if rayon_threads() < 2 {
        eprintln!("SKIPPED: one thread");
        return;
    }
    let keys = ["1", "4097", "-4095", "8193", "1", "\"k\"", "4294967297", "4097", "-1", "4095", "1"];
    let mut text = String::new();
    for (i, w) in keys.iter().cycle().take(300).enumerate() {
        let r = keys[(i * 7 + 3) % keys.len()];
        let v = format!("[[:append {w} {i}] [:r {r} [{i}]] [:r {w} nil]]");
        text += &format!("{{:type :invoke, :f :txn, :value {v}, :process {p}, :index {}}}\n", 2 * i, p = i % 5);
        text += &format!("{{:type :ok, :f :txn, :value {v}, :process {p}, :index {}}}\n", 2 * i + 1, p = i % 5);
    }
    let h = read_edn_sequential(text.as_bytes(), false).expect("a valid history");
    assert_eq!(h.keys.len(), 8, "distinct keys");
    assert!(compare(text.as_bytes(), "keys sharing a slot") > 0, "never read in chunks");
}

#[test]
fn corpus_histories_read_the_same() {
    let Some(dir) = common::corpus() else { return };
    if rayon_threads() < 2 {
        eprintln!("SKIPPED: one thread");
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".edn") || p.to_string_lossy().ends_with(".edn.gz") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 10, "the corpus has EDN histories");
    let mut chunked = 0;
    for f in &files {
        chunked += compare(&common::slurp(f), &f.display().to_string());
    }
    assert!(chunked > 0, "no corpus history was read in chunks");
}

#[test]
fn releasing_reads_the_same_and_releases_in_order() {
    if rayon_threads() < 2 {
        eprintln!("SKIPPED: one thread");
        return;
    }
    // Over a megabyte: the public reader's chunks.
    let text = edn(GenOptions { transactions: 8000, sessions: 7, ..Default::default() });
    let mut released = Vec::new();
    let read = grail_core::read_releasing(
        text.as_bytes(),
        grail_core::Format::Edn,
        grail_core::ReadOptions::default(),
        &mut |n| released.push(n),
    );
    let one = read_edn_sequential(text.as_bytes(), true).unwrap();
    common::assert_same_history(&one, &read.unwrap(), "released");
    assert!(released.len() > 1, "{} releases", released.len());
    assert!(released.is_sorted() && released.last() <= Some(&text.len()), "{released:?}");
}

/// Both readers estimate the rest of a text from its start (the one-thread reader after 4,096
/// maps, the chunked one from its first chunk) and reserve room for it. A text whose start is
/// dense and whose rest is blank asks for far more than it holds; it still reads, the same way.
#[test]
fn a_dense_start_and_a_blank_rest_read_the_same() {
    let mut text = edn(GenOptions { transactions: 5_000, sessions: 7, ..Default::default() });
    let maps = text.lines().count();
    assert!(maps > 4_096, "the one-thread reader estimates after 4,096 maps: {maps}");
    text += &" ".repeat(24 << 20);
    text += "\n{:type :invoke, :f :txn, :value [[:append 1 77]], :process 99, :index 999998}\n";
    text += "{:type :ok, :f :txn, :value [[:append 1 77]], :process 99, :index 999999}\n";
    let one = read_edn_sequential(text.as_bytes(), true).expect("a valid history");
    assert_eq!(one.txns.len(), 5_001);
    assert!(compare(text.as_bytes(), "a dense start, a blank rest") > 0, "never read in chunks");
}
