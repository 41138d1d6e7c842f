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

    let t = Instant::now();
    let h = grail_core::read(edn.as_bytes(), Format::Auto).expect("generated history");
    let parse_edn = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let htk = grail_core::read(tk.as_bytes(), Format::Auto).expect("generated TimeKiller history");
    let parse_tk = t.elapsed().as_secs_f64();
    let committed = h.count(grail_core::Status::Committed);

    // The axioms alone: claims, one sort, one sweep.
    let mut best = f64::MAX;
    let mut found = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let claims = Claims::new(&h, None);
        let v = axioms::check_si(&h, &claims);
        best = best.min(t.elapsed().as_secs_f64());
        found = v.total();
    }
    assert_eq!(found, 0, "the snapshot-isolation history is valid");

    // The whole check, claims only (`grail check --white-box only --levels SI`).
    let only = CheckOptions { levels: vec![Level::Si], white_box: WhiteBoxMode::Only, ..Default::default() };
    let t = Instant::now();
    let r = grail_core::check(&h, &only);
    let check_only = t.elapsed().as_secs_f64();
    assert_eq!(r.levels["SI"].verdict, "holds");
    let t = Instant::now();
    let r = grail_core::check(&htk, &only);
    let check_only_tk = t.elapsed().as_secs_f64();
    assert_eq!(r.levels["SI"].verdict, "holds");

    // Black box and claims together (`grail check --levels SI`).
    let both = CheckOptions { levels: vec![Level::Si], ..Default::default() };
    let t = Instant::now();
    let r = grail_core::check(&h, &both);
    let check_both = t.elapsed().as_secs_f64();
    assert_eq!(r.levels["SI"].verdict, "holds");

    println!("timestamps: {n} transactions ({committed} committed), {model:?}, SI");
    println!("  parse EDN {:>10.3} s   ({:.0} MB)", parse_edn, edn.len() as f64 / 1e6);
    println!("  parse TimeKiller JSON {:>.3} s   ({:.0} MB)", parse_tk, tk.len() as f64 / 1e6);
    println!("  SI axioms (claims, sort, sweep) {best:.3} s = {:.0} transactions/s", committed as f64 / best);
    println!("  check --white-box only --levels SI: {check_only:.3} s (EDN), {check_only_tk:.3} s (TimeKiller)");
    println!("  check --levels SI (black box and claims): {check_both:.3} s");
    println!("  TimeKiller JSON end to end (parse + check --white-box only): {:.3} s", parse_tk + check_only_tk);
}
