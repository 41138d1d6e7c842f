//! The polygraph mode (PolySI) on generated register histories without a version order, with
//! PolySI's workload parameters (5.1): 24 sessions, 8-15 operations per transaction, 10k keys,
//! zipfian access, a read ratio of 50% (`GRAIL_POLY_READS` to change), snapshot isolation.
//! For 1k, 10k and 100k transactions (`GRAIL_POLY_SIZES`), prints the time, the peak memory
//! (VmHWM, reset before each size) and the constraint counts before and after pruning, for SI
//! and SER. `GRAIL_POLY_TIMEOUT` (seconds, default 600) bounds each check.
//!
//! `cargo bench -p grail-core --bench polygraph`

use grail_core::generate::{generate, DataModel, GenOptions, Isolation, KeyDistribution};
use grail_core::graph::search::Budget;
use grail_core::polygraph::{self, Mode, Search, Verdict};
use grail_core::Format;
use std::time::{Duration, Instant};

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("GRAIL_POLY_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let reads: f64 = env("GRAIL_POLY_READS", 0.5);
    let timeout: f64 = env("GRAIL_POLY_TIMEOUT", 600.0);
    println!("polygraph benchmark: 24 sessions, 8-15 ops/txn, {:.0}% reads, 10k keys, zipfian(1.0), SI", reads * 100.0);
    println!(
        "{:>7} {:>5} {:>8} {:>8} {:>8} {:>10} {:>8} {:>6} {:>7} {:>9} {:>9} {:>8}",
        "txns",
        "level",
        "search",
        "verdict",
        "known",
        "cons",
        "pruned",
        "rounds",
        "guesses",
        "build s",
        "check s",
        "peak MB"
    );
    for n in sizes {
        let o = GenOptions {
            transactions: n,
            sessions: 24,
            keys: 10_000,
            min_ops: 8,
            max_ops: 15,
            read_ratio: reads,
            distribution: KeyDistribution::Zipfian(1.0),
            abort_rate: 0.0,
            model: DataModel::RwRegister,
            isolation: Isolation::SnapshotIsolation,
            seed: 42,
            ..Default::default()
        };
        let text = generate(&o).history;
        let h = grail_core::read(text.as_bytes(), Format::Auto).expect("generated history reads");
        drop(text);
        for (name, mode, search) in [
            ("SI", Mode::Si, Search::Fast),
            ("SI", Mode::Si, Search::NoChain),
            ("SER", Mode::Ser, Search::Fast),
            ("SER", Mode::Ser, Search::NoChain),
        ] {
            reset_peak();
            let t0 = Instant::now();
            let inf = grail_core::infer(&h);
            let pg = polygraph::build(&h, &inf.graph.is_vertex, true, polygraph::MAX_CONSTRAINTS);
            let build = t0.elapsed().as_secs_f64();
            let deadline = Instant::now() + Duration::from_secs_f64(timeout);
            let mut past = move || Instant::now() >= deadline;
            let mut budget = Budget::new(u64::MAX, Some(&mut past));
            let t1 = Instant::now();
            let (v, st) = polygraph::decide_with(&pg, mode, &mut budget, search);
            let check = t1.elapsed().as_secs_f64();
            let verdict = match &v {
                Verdict::Holds => "holds",
                Verdict::Violated(_) => "violated",
                Verdict::Unknown(_) => "unknown",
            };
            let search = match (search, st.chain_guess) {
                (Search::Fast, true) => "guess",
                (Search::Fast, false) => "fast",
                _ => "full",
            };
            println!(
                "{:>7} {:>5} {:>8} {:>8} {:>8} {:>10} {:>8} {:>6} {:>7} {:>9.3} {:>9.3} {:>8.0}",
                h.txns.len(),
                name,
                search,
                verdict,
                st.known_edges,
                st.constraints,
                st.after_pruning,
                st.pruning_rounds,
                st.decisions,
                build,
                check,
                peak_rss_mb()
            );
            if let Verdict::Unknown(why) = &v {
                println!("        ({why})");
            }
        }
    }
}
