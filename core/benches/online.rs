//! Online checking throughput on a generated stream (Zellag & Kemme 2014, Sect. 10.5.2: 300k
//! transactions, 1M edges, graph built in 7 s and searched in 0.16-0.86 s).
//!
//! `cargo bench -p grail-core --bench online [-- TXNS WINDOW MAX_LENGTH ISOLATION]`: generates a
//! list-append history (default 1,000,000 transactions under snapshot isolation, with lost
//! updates, write skews and read skews injected), parses it, then streams it through the online
//! checker, printing transactions per second and the checker's peak heap (a counting allocator).

use grail_core::generate::{generate, GenOptions, Injection, Isolation};
use grail_core::online::cycles::{OnlineChecker, OnlineOptions, OnlineTxn};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

#[path = "../tests/common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{NOW, PEAK};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let window: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let max_length: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    let isolation = match args.get(3).map(String::as_str) {
        Some("serializable") => Isolation::Serializable,
        Some("read-committed") => Isolation::ReadCommitted,
        _ => Isolation::SnapshotIsolation,
    };
    let t0 = Instant::now();
    let o = GenOptions {
        transactions: n,
        isolation,
        inject: vec![(Injection::LostUpdate, 100), (Injection::WriteSkew, 100), (Injection::ReadSkew, 100)],
        ..Default::default()
    };
    let h = grail_core::read(generate(&o).history.as_bytes(), grail_core::Format::Auto).expect("generated history");
    let txns: Vec<OnlineTxn> = (0..h.txns.len() as u32).map(|t| OnlineTxn::from_history(&h, t)).collect();
    drop(h);
    eprintln!("generated and parsed {} transactions in {:.1} s", txns.len(), t0.elapsed().as_secs_f64());
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut c = OnlineChecker::new(OnlineOptions { window, max_length, ..Default::default() });
    let t1 = Instant::now();
    let mut found = 0usize;
    for t in &txns {
        found += c.push(t).len();
    }
    let secs = t1.elapsed().as_secs_f64();
    let peak = PEAK.load(Relaxed) - base;
    let s = c.summary().stats;
    println!(
        "online: {} transactions ({} committed) in {secs:.3} s = {:.0} transactions/s; {found} cycles (max length {max_length}); \
         window {window}: peak {} live, peak checker heap {:.1} MB ({} B per window slot); {} evicted, {} evicted unordered",
        s.transactions,
        s.committed,
        s.transactions as f64 / secs,
        s.peak_live,
        peak as f64 / 1e6,
        peak / window.max(1),
        s.evicted,
        s.evicted_unordered
    );
}
