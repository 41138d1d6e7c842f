//! White-box checking with timestamps (issue 18): a generated snapshot-isolation history whose
//! transactions carry the simulated clock's start and commit timestamps, checked for SI from the
//! claims alone (Chronos's axioms: one sort, one sweep), then with the black-box check beside.
//! TimeKiller's README: 100k transactions in about 1 s (Java, loading included).
//!
//! `cargo bench -p grail-core --bench timestamps [-- TXNS MODEL]` (default 1,000,000 list-append
//! transactions; MODEL `rw-register` for registers). Prints numbers; asserts nothing but that
//! the valid history is found valid.

use grail_core::generate::{generate, DataModel, GenOptions, Isolation, Output};
use grail_core::timestamps::{axioms, Claims, WhiteBoxMode};
use grail_core::{CheckOptions, Format, Level};
use std::time::Instant;

/// This thread's CPU time in seconds (Linux: /proc/thread-self/schedstat), to report work apart
/// from waiting on a busy machine; `None` elsewhere.
fn cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// Wall and CPU seconds of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (t, c) = (Instant::now(), cpu().unwrap_or(0.0));
    let r = f();
    (r, t.elapsed().as_secs_f64(), cpu().map_or(f64::NAN, |x| x - c))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let model = match args.get(1).map(String::as_str) {
        Some("rw-register") => DataModel::RwRegister,
        _ => DataModel::ListAppend,
    };
    let t0 = Instant::now();
    let o = GenOptions {
        transactions: n,
        model,
        isolation: Isolation::SnapshotIsolation,
        timestamps: true,
        // Enough keys that first-committer-wins rarely aborts: about n committed transactions.
        keys: 10_000,
        abort_rate: 0.0,
        ..Default::default()
    };
    let edn = generate(&o).history;
    let tk = generate(&GenOptions { output: Output::Timekiller, ..o.clone() }).history;
    eprintln!("generated {n} {model:?} transactions (EDN and TimeKiller JSON) in {:.1} s", t0.elapsed().as_secs_f64());

    let (h, parse_edn, parse_edn_cpu) =
        timed(|| grail_core::read(edn.as_bytes(), Format::Auto).expect("generated history"));
    let (htk, parse_tk, parse_tk_cpu) =
        timed(|| grail_core::read(tk.as_bytes(), Format::Auto).expect("generated TimeKiller history"));
    let committed = h.count(grail_core::Status::Committed);

    // The axioms alone: claims, one sort, one sweep (best of three).
    let (mut best, mut best_cpu) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let (found, wall, cpu) = timed(|| axioms::check_si(&h, &Claims::new(&h, None)).total());
        assert_eq!(found, 0, "the snapshot-isolation history is valid");
        best = best.min(wall);
        best_cpu = best_cpu.min(cpu);
    }

    // The whole check, claims only (`grail check --white-box only --levels SI`).
    let only = CheckOptions { levels: vec![Level::Si], white_box: WhiteBoxMode::Only, ..Default::default() };
    let (r, check_only, check_only_cpu) = timed(|| grail_core::check(&h, &only));
    assert_eq!(r.levels["SI"].verdict, "holds");
    let (r, check_only_tk, check_only_tk_cpu) = timed(|| grail_core::check(&htk, &only));
    assert_eq!(r.levels["SI"].verdict, "holds");

    // Black box and claims together (`grail check --levels SI`).
    let both = CheckOptions { levels: vec![Level::Si], ..Default::default() };
    let (r, check_both, check_both_cpu) = timed(|| grail_core::check(&h, &both));
    assert_eq!(r.levels["SI"].verdict, "holds");

    println!("timestamps: {n} transactions ({committed} committed), {model:?}, SI; seconds wall (CPU)");
    println!("  parse EDN ({:.0} MB): {parse_edn:.3} ({parse_edn_cpu:.3})", edn.len() as f64 / 1e6);
    println!("  parse TimeKiller JSON ({:.0} MB): {parse_tk:.3} ({parse_tk_cpu:.3})", tk.len() as f64 / 1e6);
    println!(
        "  SI axioms (claims, sort, sweep): {best:.3} ({best_cpu:.3}) = {:.0} transactions per CPU second",
        committed as f64 / best_cpu
    );
    println!(
        "  check --white-box only --levels SI: {check_only:.3} ({check_only_cpu:.3}) from EDN, {check_only_tk:.3} ({check_only_tk_cpu:.3}) from TimeKiller"
    );
    println!("  check --levels SI (black box and claims): {check_both:.3} ({check_both_cpu:.3})");
    println!(
        "  TimeKiller JSON end to end (parse + check --white-box only): {:.3} ({:.3})",
        parse_tk + check_only_tk,
        parse_tk_cpu + check_only_tk_cpu
    );
}
