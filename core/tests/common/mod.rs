//! Shared helpers for tests that read `../shared/corpus` in place.
#![allow(dead_code)]

pub mod txns;

use grail_core::{CheckOptions, Format, History, Report};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The corpus folder, or `None` (with a message) when it is absent outside CI.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAIL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if dir.join("grail").is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("the corpus is required under CI=true but {} is absent", dir.display());
    }
    eprintln!(
        "SKIPPED: corpus not found at {} (set GRAIL_CORPUS or place ../shared beside the checkout)",
        dir.display()
    );
    None
}

pub fn slurp(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out).unwrap();
        out
    } else {
        raw
    }
}

pub fn load(path: &Path, wal: Option<&Path>) -> History {
    let mut h = grail_core::read(&slurp(path), Format::Auto).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if let Some(w) = wal {
        grail_core::read_wal(&mut h, &slurp(w)).unwrap_or_else(|e| panic!("{}: {e}", w.display()));
    }
    h
}

/// A generated history read back as a user would read it, with its write-ahead log if any.
pub fn generated(o: &grail_core::generate::GenOptions) -> History {
    let g = grail_core::generate::generate(o);
    let mut h = grail_core::read(g.history.as_bytes(), Format::Auto).unwrap_or_else(|e| panic!("generated: {e}"));
    if let Some(wal) = &g.wal {
        grail_core::read_wal(&mut h, wal.as_bytes()).unwrap();
    }
    h
}

pub fn check(h: &History) -> Report {
    grail_core::check(h, &CheckOptions::default())
}

pub const LEVELS: [&str; 5] = ["SER", "SI", "PSI", "PL-2", "PL-1"];

/// Rows of a CSV file as maps from column to value.
pub fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| headers.iter().zip(rec.unwrap().iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect())
        .collect()
}

pub fn violated(r: &Report, level: &str) -> bool {
    r.levels[level].valid == Some(false)
}

pub fn kinds(r: &Report) -> std::collections::BTreeSet<String> {
    r.anomalies.iter().map(|a| a.kind.clone()).collect()
}

/// Every choice of one edge type per step, for a cycle whose steps carry these type masks.
pub fn label_words(masks: &[u8]) -> Vec<Vec<grail_core::graph::EdgeType>> {
    use grail_core::graph::EdgeType;
    let mut words: Vec<Vec<EdgeType>> = vec![vec![]];
    for &m in masks {
        words = words
            .into_iter()
            .flat_map(|w| {
                EdgeType::ALL.into_iter().filter(move |t| m & t.bit() != 0).map(move |t| [w.clone(), vec![t]].concat())
            })
            .collect();
    }
    words
}

/// Two readings of one text give the same history: every field a reader fills, spans and the
/// numbering of keys and strings included.
pub fn assert_same_history(a: &History, b: &History, what: &str) {
    assert_eq!(a.txns, b.txns, "{what}: transactions");
    assert_eq!(a.ops, b.ops, "{what}: operations");
    assert_eq!(a.elems, b.elems, "{what}: list elements");
    assert_eq!(a.canon, b.canon, "{what}: canonical lists");
    assert_eq!(a.keys, b.keys, "{what}: keys");
    assert_eq!(a.strings.len(), b.strings.len(), "{what}: strings");
    for s in 0..a.strings.len() as u32 {
        assert_eq!(a.strings.get(s), b.strings.get(s), "{what}: string {s}");
    }
    assert_eq!(a.model, b.model, "{what}: model");
    assert_eq!(a.notation, b.notation, "{what}: notation");
    assert_eq!(a.version_order, b.version_order, "{what}: version order");
    assert_eq!(a.commit_order, b.commit_order, "{what}: commit order");
    assert_eq!(a.predicate_reads, b.predicate_reads, "{what}: predicate reads");
    assert_eq!(a.initial_open, b.initial_open, "{what}: initial open");
    assert_eq!(a.aborted_writes, b.aborted_writes, "{what}: aborted writes");
    assert_eq!(a.op_spans, b.op_spans, "{what}: operation spans");
    assert_eq!(a.txn_spans, b.txn_spans, "{what}: transaction spans");
    assert_eq!(a.ops_read_at, b.ops_read_at, "{what}: where operations were read");
}

/// The files under `dir` (recursively; nothing when it is absent) whose extension is one of `exts`.
pub fn files_under(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, exts, out);
        } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
            out.push(p);
        }
    }
}

/// One dbcop event in its bincode form: write, variable, value, success.
pub type DbcopEvent = (bool, u64, u64, bool);
/// One dbcop session: transactions as (events, success).
pub type DbcopSession = Vec<(Vec<DbcopEvent>, bool)>;

/// dbcop's `History` in bincode 1.x, written by hand (not through the reader's types): params
/// (`id`, the sessions' number, then `rest`), `info`, start, end, then the sessions.
pub fn dbcop_bincode(id: u64, rest: [u64; 3], info: &str, sessions: &[DbcopSession]) -> Vec<u8> {
    let mut b = Vec::new();
    let u = |b: &mut Vec<u8>, x: u64| b.extend_from_slice(&x.to_le_bytes());
    for x in [id, sessions.len() as u64, rest[0], rest[1], rest[2]] {
        u(&mut b, x);
    }
    for s in [info, "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:01+00:00"] {
        u(&mut b, s.len() as u64);
        b.extend_from_slice(s.as_bytes());
    }
    u(&mut b, sessions.len() as u64);
    for s in sessions {
        u(&mut b, s.len() as u64);
        for (events, ok) in s {
            u(&mut b, events.len() as u64);
            for &(w, k, v, success) in events {
                b.push(w as u8);
                u(&mut b, k);
                u(&mut b, v);
                b.push(success as u8);
            }
            b.push(*ok as u8);
        }
    }
    b
}

/// The levels an anomaly's name says are violated (`G-single-process`: the strong-session
/// ones; `internal` not those that allow re-reads, as it names a re-read too), or `None` for a
/// name of no anomaly kind (a claimed order's).
pub fn levels_named(name: &str) -> Option<Vec<grail_core::Level>> {
    use grail_core::anomaly::AnomalyKind;
    use grail_core::level::{violated_with, Order};
    let (base, order) = match (name.strip_suffix("-process"), name.strip_suffix("-realtime")) {
        (Some(b), _) => (b, Order::Session),
        (_, Some(b)) => (b, Order::Realtime),
        _ => (name, Order::None),
    };
    let k = AnomalyKind::parse(base)?;
    let rereads = k == AnomalyKind::Internal;
    Some(violated_with(k, order).into_iter().filter(|l| !(rereads && l.spec().allows_rereads)).collect())
}
