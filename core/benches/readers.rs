//! Readers' throughput on files: `GRAIL_READ_FILES` (paths, comma-separated; `.gz` unzipped
//! first), each read `GRAIL_READ_RUNS` times (default 5), the files in turn (A B A B ...) so
//! that a drift of the machine's speed touches all alike, as the CLI reads a mapped file
//! (spans; operations' spans located where the format can). Prints each file's median, minimum
//! and maximum seconds and its MB/s at the median, and each file's MB/s over the first's;
//! asserts nothing about time. `GRAIL_READ_SPANS=0` reads without spans, `every` records every
//! operation's span instead of locating it. With `GRAIL_READ_RUNS=1`, the run to give
//! `valgrind --tool=callgrind` or `/usr/bin/time -v`. A folder stands for Cobra's per-session
//! logs, its files read in name order as the sessions (`read_cobra`).

use grail_core::read::{detect, read_cobra, read_with, Format, ReadOptions};
use std::io::Read;
use std::time::Instant;

fn bytes(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if !path.ends_with(".gz") {
        return raw;
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&raw[..]).read_to_end(&mut out).unwrap_or_else(|e| panic!("{path}: {e}"));
    out
}

struct File {
    path: String,
    /// The file, or a folder's logs.
    parts: Vec<Vec<u8>>,
    format: Format,
    secs: Vec<f64>,
    shape: (usize, usize),
}

fn main() {
    let paths = std::env::var("GRAIL_READ_FILES").unwrap_or_default();
    let runs: usize = std::env::var("GRAIL_READ_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    let mode = std::env::var("GRAIL_READ_SPANS").unwrap_or_default();
    let spans = mode != "0";
    let opts = ReadOptions { spans, locate_op_spans: spans && mode != "every" };
    let mut files: Vec<File> = paths
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (parts, format) = if std::path::Path::new(p).is_dir() {
                let mut names: Vec<_> = std::fs::read_dir(p)
                    .unwrap_or_else(|e| panic!("{p}: {e}"))
                    .map(|e| e.expect("a folder entry").path())
                    .collect();
                names.sort();
                (names.iter().map(|n| bytes(&n.display().to_string())).collect(), Format::Cobra)
            } else {
                let text = bytes(p);
                let format = detect(&text);
                (vec![text], format)
            };
            File { path: p.to_string(), format, parts, secs: Vec::new(), shape: (0, 0) }
        })
        .collect();
    for _ in 0..runs {
        for f in &mut files {
            let t = Instant::now();
            let h = if f.parts.len() == 1 {
                read_with(&f.parts[0], f.format, opts)
            } else {
                read_cobra(&f.parts.iter().map(|p| p.as_slice()).collect::<Vec<_>>())
            };
            let h = h.unwrap_or_else(|e| panic!("{}: {e}", f.path));
            f.secs.push(t.elapsed().as_secs_f64());
            f.shape = (h.txns.len(), h.ops.len());
        }
    }
    let mut first = None;
    for f in &mut files {
        f.secs.sort_by(f64::total_cmp);
        let median = f.secs[f.secs.len() / 2];
        let mb = f.parts.iter().map(|p| p.len()).sum::<usize>() as f64 / 1e6;
        let rate = mb / median;
        let ratio = first.map_or(String::new(), |r: f64| format!(", {:.2}x the first's MB/s", rate / r));
        first.get_or_insert(rate);
        println!(
            "{} ({}, {mb:.1} MB, {} transactions, {} operations): median {median:.3} s (min {:.3}, max {:.3}), {rate:.0} MB/s{ratio}",
            f.path,
            f.format.name(),
            f.shape.0,
            f.shape.1,
            f.secs[0],
            f.secs[f.secs.len() - 1],
        );
    }
}
