//! Per-phase timings of one check, for `scripts/bench/run.py` (`make bench`).
//!
//!     grail-bench-phases HISTORY [--wal LOG]
//!
//! Reads HISTORY (unzipping gzip) with grail-core, as the CLI does, and prints one JSON object
//! on standard output: for each phase (`load`: the file into memory; `parse`; `build`: inference
//! and the dependency graph; each level's check alone; `all`: the five levels in one check, which
//! is what `grail check` runs) its wall time and the CPU time of this process, both in seconds;
//! the verdicts and anomaly names of the five-level check; the history's and graph's sizes; and
//! the peak resident set size (VmHWM) at the end. Asserts nothing about time.
//!
//! CPU time is the process's (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, nanoseconds), all threads
//! together: on a shared machine it is far steadier than wall time. grail-core reads large EDN
//! histories and builds the graph on several threads (feature `parallel`), so a phase's CPU time
//! may exceed its wall time; RAYON_NUM_THREADS=1 gives the one-thread numbers.

use grail_core::{CheckOptions, Format, Level};
use serde_json::{json, Map, Value};
use std::io::Read;
use std::time::Instant;

/// Nanoseconds this process has run on a CPU (user + system), from the scheduler's exact
/// count (`/proc/*/schedstat` and `getrusage` are only brought up to date at scheduler ticks).
fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A `/proc/self/status` field in kB (VmHWM: peak resident set size).
fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

/// Run `f`, recording its wall and CPU seconds under `name`.
fn timed<T>(phases: &mut Map<String, Value>, name: &str, f: impl FnOnce() -> T) -> T {
    let (c0, t0) = (cpu_ns(), Instant::now());
    let out = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_ns().saturating_sub(c0) as f64 / 1e9;
    phases.insert(name.to_string(), json!({"wall": wall, "cpu": cpu}));
    out
}

fn slurp(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| die(&format!("{path}: {e}")));
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(raw.len() * 8);
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| die(&format!("{path}: not a valid gzip file: {e}")));
        out
    } else {
        raw
    }
}

fn die(msg: &str) -> ! {
    eprintln!("grail-bench-phases: {msg}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, wal) = match args.as_slice() {
        [p] => (p.clone(), None),
        [p, flag, w] if flag == "--wal" => (p.clone(), Some(w.clone())),
        _ => die("usage: grail-bench-phases HISTORY [--wal LOG]"),
    };
    let mut phases = Map::new();
    let text = timed(&mut phases, "load", || slurp(&path));
    let h = timed(&mut phases, "parse", || {
        let mut h = grail_core::read(&text, Format::Auto).unwrap_or_else(|e| die(&format!("{path}: {e}")));
        if let Some(w) = &wal {
            grail_core::read_wal(&mut h, &slurp(w)).unwrap_or_else(|e| die(&format!("{w}: {e}")));
        }
        h
    });
    let bytes = text.len();
    drop(text);
    let inf = timed(&mut phases, "build", || grail_core::infer(&h));
    for l in Level::CLASSIC {
        let opts = CheckOptions { levels: vec![l], ..Default::default() };
        timed(&mut phases, l.name(), || grail_core::check_inferred(&h, &inf, &opts, None));
    }
    let report = timed(&mut phases, "all", || grail_core::check_inferred(&h, &inf, &CheckOptions::default(), None));
    let levels: Map<String, Value> = report
        .levels
        .0
        .iter()
        .map(|(l, r)| (l.name().to_string(), json!({"verdict": r.verdict, "anomalies": r.anomalies})))
        .collect();
    let s = &report.stats;
    let out = json!({
        "history": path,
        "bytes": bytes,
        "transactions": s.transactions,
        "committed": s.committed,
        "aborted": s.aborted,
        "indeterminate": s.indeterminate,
        "vertices": s.vertices,
        "edges": s.edges,
        "phases": phases,
        "levels": levels,
        "peak_rss_kb": status_kb("VmHWM:"),
    });
    println!("{out}");
}
