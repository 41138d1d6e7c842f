//! The polygraph mode (PolySI) on generated register histories without a version order, in the
//! shapes of PolySI's six benchmarks (Table 3; `GenOptions::preset`): TPC-C, GeneralRH, RUBiS,
//! C-Twitter, GeneralRW, GeneralWH, each serializable and under snapshot isolation, written as
//! Cobra's client logs (a session a file, so the transactions are listed a session at a time,
//! as real logs are) and read back. For 10k and 30k transactions (`GRAIL_POLY_SIZES`; shapes in
//! `GRAIL_POLY_SHAPES`; `GRAIL_POLY_ISO` and `GRAIL_POLY_LEVELS` filter), prints the time, the peak memory (VmHWM, reset before each check), the
//! constraints (pairs of versions of a key) before compaction, after compaction (pairs of
//! read-modify-write chains: PolySI 4.2) and after pruning, and the search's guesses, for SER
//! and SI and their strong-session forms (session order among the known edges, as PolySI and
//! Cobra check), beside PolySI's Table 3 (whose histories ran under SI). `GRAIL_POLY_TIMEOUT` (seconds, default 120) bounds each
//! check. Then the searches on small contended random histories (`GRAIL_POLY_RANDOM`).
//!
//! `cargo bench -p grail-core --bench polygraph`

use grail_core::generate::{generate, GenOptions, Isolation, Output};
use grail_core::graph::orders::Order;
use grail_core::graph::search::Budget;
use grail_core::polygraph::{self, Decision, Mode, SearchMode};
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

/// CPU time of this thread (the check runs on one), in seconds: the machine is shared, so wall
/// time alone can mislead.
fn cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// PolySI's Table 3: constraints before and after pruning (SI, 10k transactions).
fn table3(shape: &str) -> &'static str {
    match shape {
        "tpcc" => "386k / 0",
        "general-rh" => "4k / 29",
        "rubis" => "14k / 149",
        "twitter" => "59k / 277",
        "general-rw" => "90k / 2565",
        "general-wh" => "167k / 6962",
        _ => "",
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::var("GRAIL_POLY_SIZES")
        .unwrap_or_else(|_| "10000,30000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let shapes: Vec<String> = std::env::var("GRAIL_POLY_SHAPES")
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect())
        .unwrap_or_else(|_| GenOptions::PRESETS.iter().map(|s| s.to_string()).collect());
    let timeout: f64 = env("GRAIL_POLY_TIMEOUT", 120.0);
    // Optional filters: levels (SER, SI, SS-SER, SS-SI) and isolations (ser, si), comma-separated.
    let only = |var: &str, name: &str| std::env::var(var).map_or(true, |v| v.split(',').any(|x| x.trim() == name));
    let search = match std::env::var("GRAIL_POLY_SEARCH").as_deref() {
        Ok("dpll") => SearchMode::DpllOnly,
        Ok("learn") => SearchMode::LearnOnly,
        #[cfg(feature = "batsat")]
        Ok("sat") => SearchMode::SatOnly,
        _ => SearchMode::Fast,
    };
    println!("polygraph benchmark: PolySI's six benchmark shapes as Cobra logs, search {search:?}");
    println!(
        "{:>10} {:>5} {:>6} {:>6} {:>8} {:>7} {:>10} {:>9} {:>7} {:>6} {:>9} {:>7} {:>6} {:>8} {:>8} {:>7} {:>7}  PolySI T3 (before/after P)",
        "shape",
        "iso",
        "txns",
        "level",
        "verdict",
        "known",
        "cons",
        "compact",
        "pruned",
        "rounds",
        "repair",
        "guesses",
        "confl",
        "build s",
        "check s",
        "cpu s",
        "peak MB",
    );
    for &n in &sizes {
        for shape in &shapes {
            for (iso, isolation) in [("ser", Isolation::Serializable), ("si", Isolation::SnapshotIsolation)] {
                if !only("GRAIL_POLY_ISO", iso) {
                    continue;
                }
                let Some(p) = GenOptions::preset(shape) else {
                    println!("unknown shape {shape}");
                    continue;
                };
                let o = GenOptions { transactions: n, isolation, output: Output::Cobra, seed: 42, ..p };
                let g = generate(&o);
                let logs: Vec<&[u8]> = g.logs.iter().map(|l| l.as_slice()).collect();
                let h = grail_core::read::read_cobra(&logs).expect("generated logs read back");
                drop(g);
                for (name, mode, order) in [
                    ("SER", Mode::Ser, Order::None),
                    ("SI", Mode::Si, Order::None),
                    ("SS-SER", Mode::Ser, Order::Session),
                    ("SS-SI", Mode::Si, Order::Session),
                ] {
                    if !only("GRAIL_POLY_LEVELS", name) {
                        continue;
                    }
                    reset_peak();
                    let t0 = Instant::now();
                    let inf = grail_core::infer(&h);
                    let pg = polygraph::build_for(&h, &inf, order, mode, polygraph::MAX_CONSTRAINTS);
                    let build = t0.elapsed().as_secs_f64();
                    let deadline = Instant::now() + Duration::from_secs_f64(timeout);
                    let mut past = move || Instant::now() >= deadline;
                    let mut budget = Budget::new(u64::MAX, Some(&mut past));
                    let (t1, c1) = (Instant::now(), cpu_s());
                    let (v, st) = polygraph::decide_with(&pg, mode, &mut budget, search);
                    let check = t1.elapsed().as_secs_f64();
                    let cpu = cpu_s() - c1;
                    let verdict = match &v {
                        Decision::Holds if st.chain_guess && st.with_session => "holds*s",
                        Decision::Holds if st.with_session => "holds s",
                        Decision::Holds if st.chain_guess => "holds*",
                        Decision::Holds => "holds",
                        Decision::Violated(_) => "violated",
                        Decision::Unknown(_) => "unknown",
                    };
                    println!(
                        "{:>10} {:>5} {:>6} {:>6} {:>8} {:>7} {:>10} {:>9} {:>7} {:>6} {:>9} {:>7} {:>6} {:>8.3} {:>8.3} {:>7.3} {:>7.0}  {}",
                        shape,
                        iso,
                        h.txns.len(),
                        name,
                        verdict,
                        st.known_edges,
                        st.version_pairs,
                        st.constraints,
                        st.after_pruning,
                        st.pruning_rounds,
                        if st.repair_rounds == 0 { "-".to_string() } else { format!("{}/{}", st.repair_rounds, st.freed) },
                        st.decisions,
                        st.conflicts,
                        build,
                        check,
                        cpu,
                        peak_rss_mb(),
                        if name == "SS-SI" && iso == "si" { table3(shape) } else { "" }
                    );
                    if let Decision::Unknown(why) = &v {
                        println!("        ({why})");
                    }
                }
            }
        }
    }
    println!("(holds*: a guess of a version order decided, before any constraint was searched; s: it held with session order among the known edges, as PolySI and Cobra check, so it holds without; repair: rounds/constraints freed in the last round, when the first guess was repaired)");
    search_comparison();
}

/// The searches on contended random histories, where pruning leaves many constraints open:
/// DPLL (chronological backtracking) against CDCL modulo acyclicity (batsat with the
/// incremental-order theory), and the default (guess, greedy, then CDCL).
fn search_comparison() {
    let cases: usize = env("GRAIL_POLY_RANDOM", 300);
    let max_steps: u64 = env("GRAIL_POLY_RANDOM_STEPS", 50_000_000);
    let base: usize = env("GRAIL_POLY_RANDOM_TXNS", 10);
    if cases == 0 {
        return;
    }
    println!("\nsearch on {cases} random histories ({base}-{} serial transactions, 1-3 keys, no sessions, half with one read changed), budget {max_steps} steps each", 2 * base);
    println!(
        "{:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}",
        "level", "search", "total s", "max ms", "violated", "unknown", "open"
    );
    let mut rng = 0x2545f4914f6cdd1du64;
    let hs: Vec<String> = (0..cases).map(|_| random_history(&mut rng, base)).collect();
    for (name, mode) in [("SER", Mode::Ser), ("SI", Mode::Si)] {
        let mut verdicts: Vec<Vec<Option<bool>>> = Vec::new();
        #[allow(unused_mut)]
        let mut searches = vec![("dpll", SearchMode::DpllOnly), ("default", SearchMode::Fast)];
        #[cfg(feature = "batsat")]
        searches.insert(1, ("cdcl", SearchMode::SatOnly));
        for (sname, search) in searches {
            let (mut total, mut max, mut violated, mut unknown, mut open) = (0.0f64, 0.0f64, 0, 0, 0usize);
            let mut vs = Vec::new();
            for text in &hs {
                let h = grail_core::read(text.as_bytes(), Format::Json).expect("random history reads");
                let inf = grail_core::infer(&h);
                let pg = polygraph::build(&h, &inf, false, u64::MAX);
                let mut budget = Budget::new(max_steps, None);
                let t = Instant::now();
                let (v, st) = polygraph::decide_with(&pg, mode, &mut budget, search);
                let dt = t.elapsed().as_secs_f64();
                total += dt;
                max = max.max(dt);
                open += st.after_pruning;
                vs.push(match v {
                    Decision::Holds => Some(true),
                    Decision::Violated(_) => {
                        violated += 1;
                        Some(false)
                    }
                    Decision::Unknown(_) => {
                        unknown += 1;
                        None
                    }
                });
            }
            println!("{name:>5} {sname:>9} {total:>9.3} {:>9.1} {violated:>9} {unknown:>9} {open:>8}", max * 1000.0);
            verdicts.push(vs);
        }
        let disagree = (0..hs.len())
            .filter(|&i| {
                let known: Vec<bool> = verdicts.iter().filter_map(|v| v[i]).collect();
                known.windows(2).any(|w| w[0] != w[1])
            })
            .count();
        println!("{name:>5} searches disagree on {disagree} histories");
    }
}

/// A contended register history in native JSON: transactions run one after another (so the
/// history is serializable), reading the current value or writing a fresh one; most writes are
/// never read, which leaves their order open. In half of the histories one read is then
/// changed to another value of its key (or nil), which may or may not break SER and SI.
fn random_history(rng: &mut u64, base: usize) -> String {
    let mut next = |n: u64| {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        (*rng % n.max(1)) as usize
    };
    let txns = base + next(base as u64 + 1);
    let keys = 1 + next(3);
    let mut current: Vec<Option<usize>> = vec![None; keys];
    let mut values: Vec<Vec<usize>> = vec![Vec::new(); keys];
    let mut txn_ops: Vec<Vec<(bool, usize, Option<usize>)>> = Vec::new();
    for t in 0..txns {
        let mut ops = Vec::new();
        for _ in 0..1 + next(3) {
            let k = next(keys as u64);
            if next(10) < 3 && !ops.iter().any(|&(w, k2, _)| w && k2 == k) {
                ops.push((false, k, current[k]));
            } else if !ops.iter().any(|&(w, k2, _)| w && k2 == k) {
                let v = t * 10 + k + 1;
                values[k].push(v);
                current[k] = Some(v);
                ops.push((true, k, Some(v)));
            }
        }
        txn_ops.push(ops);
    }
    if next(2) == 0 {
        let reads: Vec<(usize, usize)> = txn_ops
            .iter()
            .enumerate()
            .flat_map(|(t, ops)| ops.iter().enumerate().filter(|(_, o)| !o.0).map(move |(i, _)| (t, i)))
            .collect();
        if let Some(&(t, i)) = reads.get(next(reads.len() as u64 + 1)) {
            let k = txn_ops[t][i].1;
            let others: Vec<usize> = values[k].iter().copied().filter(|&v| v / 10 != t).collect();
            txn_ops[t][i].2 = others.get(next(others.len() as u64 + 1)).copied();
        }
    }
    let out: Vec<String> = txn_ops
        .iter()
        .enumerate()
        .map(|(t, ops)| {
            let ops: Vec<String> = ops
                .iter()
                .map(|&(w, k, v)| {
                    let v = v.map_or("null".to_string(), |v| v.to_string());
                    format!("[\"{}\", \"k{k}\", {v}]", if w { "w" } else { "r" })
                })
                .collect();
            format!("{{\"id\": {}, \"ops\": [{}]}}", t + 1, ops.join(", "))
        })
        .collect();
    format!("[{}]", out.join(",\n"))
}
