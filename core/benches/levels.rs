//! The levels beyond the classic five on a generated history of many sessions (AWDIT's setting:
//! about 200k transactions, 1,000 sessions): time to build each level's graph and decide it.
//! `GRAIL_BENCH_TXNS` and `GRAIL_BENCH_SESSIONS` change the size. Prints numbers; asserts
//! nothing about time.

use grail_core::generate::{generate, DataModel, GenOptions, Isolation, KeyDistribution, Output};
use grail_core::{infer, read, read_wal, CheckOptions, Format, Level};
use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let n = env("GRAIL_BENCH_TXNS", 200_000);
    let sessions = env("GRAIL_BENCH_SESSIONS", 1_000);
    for (model, iso) in
        [(DataModel::RwRegister, Isolation::SnapshotIsolation), (DataModel::ListAppend, Isolation::SnapshotIsolation)]
    {
        let t = Instant::now();
        let g = generate(&GenOptions {
            transactions: n,
            sessions,
            keys: 10_000,
            min_ops: 8,
            max_ops: 15,
            read_ratio: 0.5,
            distribution: KeyDistribution::Zipfian(0.8),
            abort_rate: 0.0,
            model,
            isolation: iso,
            output: Output::Edn,
            seed: 42,
            ..GenOptions::default()
        });
        let gen = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut h = read(g.history.as_bytes(), Format::Edn).unwrap();
        if let Some(wal) = &g.wal {
            read_wal(&mut h, wal.as_bytes()).unwrap();
        }
        let parse = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let inf = infer(&h);
        let build = t.elapsed().as_secs_f64();
        println!(
            "{model:?} under {iso:?}: {} transactions, {sessions} sessions, {} ops, {:.1} MB; generate {gen:.2} s, parse {parse:.2} s, build {build:.2} s",
            h.txns.len(),
            h.ops.len(),
            g.history.len() as f64 / 1e6
        );
        for l in [
            Level::Rc,
            Level::Ra,
            Level::Cc,
            Level::StrongSessionSi,
            Level::StrongSessionSer,
            Level::StrictSer,
            Level::Ser,
        ] {
            let t = Instant::now();
            let r = grail_core::check_inferred(
                &h,
                &inf,
                &CheckOptions { levels: vec![l], ..CheckOptions::default() },
                None,
            );
            println!("  {:<20} {:>7.3} s  {}", l.name(), t.elapsed().as_secs_f64(), r.levels.get(l).unwrap().verdict);
        }
    }
}
