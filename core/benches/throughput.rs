//! Throughput of parse, graph build and each level's check: on the largest corpus history and
//! on synthetic list-append histories (1M transactions by default; `GRAIL_BENCH_TXNS` to change).
//! Prints numbers; asserts nothing about time.

use grail_core::{CheckOptions, Format, Level};
use std::fmt::Write;
use std::io::Read;
use std::time::Instant;

/// A Jepsen-like list-append history: `clients` concurrent clients, each transaction of 4
/// micro-operations over a rotating set of 64 active keys (a key retires after 16 appends, as
/// Jepsen's max-writes-per-key does). A transaction reads the state as of a slightly earlier
/// commit, so the history has the anomalies of a snapshot-isolated database (write skew).
fn synthetic(n: usize, seed: u64) -> String {
    let mut rng = seed;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut active: Vec<u64> = (0..64).collect();
    let mut next_key = 64u64;
    let mut lists: std::collections::HashMap<u64, Vec<u64>> = std::collections::HashMap::new();
    // Committed appends with their commit index, to serve stale reads.
    let mut log: std::collections::HashMap<u64, Vec<(usize, u64)>> = std::collections::HashMap::new();
    let mut out = String::with_capacity(n * 300);
    let mut index = 0usize;
    for i in 0..n {
        let process = next() % 20;
        // Mostly serial; one transaction in a hundred works on a snapshot up to 2 commits old,
        // which gives lost updates and write skew, as a database with weak isolation would.
        let lag = if next() % 100 == 0 { 1 + (next() % 2) as usize } else { 0 };
        let mut inv = String::new();
        let mut ok = String::new();
        let mut appended: Vec<(u64, u64)> = Vec::new();
        for _ in 0..4 {
            let slot = (next() % 64) as usize;
            let k = active[slot];
            if next() % 2 == 0 {
                let v = lists.get(&k).map_or(0, |l| l.len()) as u64
                    + appended.iter().filter(|a| a.0 == k).count() as u64
                    + 1;
                let v = v * 1000 + (i as u64 % 1000); // unique per key
                let _ = write!(inv, "[:append {k} {v}] ");
                let _ = write!(ok, "[:append {k} {v}] ");
                appended.push((k, v));
            } else {
                let visible = i.saturating_sub(lag);
                let mut seen: Vec<u64> =
                    log.get(&k).map_or(Vec::new(), |l| l.iter().filter(|(c, _)| *c < visible).map(|x| x.1).collect());
                seen.extend(appended.iter().filter(|a| a.0 == k).map(|a| a.1));
                let _ = write!(inv, "[:r {k} nil] ");
                let body: Vec<String> = seen.iter().map(|v| v.to_string()).collect();
                let _ = write!(ok, "[:r {k} [{}]] ", body.join(" "));
            }
        }
        for (k, v) in &appended {
            lists.entry(*k).or_default().push(*v);
            log.entry(*k).or_default().push((i, *v));
        }
        for key in active.iter_mut() {
            if lists.get(key).is_some_and(|l| l.len() >= 16) {
                lists.remove(key);
                log.remove(key);
                *key = next_key;
                next_key += 1;
            }
        }
        let _ = writeln!(
            out,
            "{{:type :invoke, :f :txn, :value [{}], :time {}, :process {process}, :index {index}}}",
            inv.trim_end(),
            i * 1000
        );
        index += 1;
        let _ = writeln!(
            out,
            "{{:type :ok, :f :txn, :value [{}], :time {}, :process {process}, :index {index}}}",
            ok.trim_end(),
            i * 1000 + 500
        );
        index += 1;
    }
    out
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn bench(name: &str, text: &[u8]) {
    let t = Instant::now();
    let h = grail_core::read(text, Format::Auto).expect("history parses");
    let parse = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let inf = grail_core::infer(&h);
    let build = t.elapsed().as_secs_f64();
    let n = h.txns.len() as f64;
    let s = inf.graph.stats(&h);
    println!(
        "{name}: {} transactions, {:.1} MB, {} vertices, {} edges",
        h.txns.len(),
        text.len() as f64 / 1e6,
        s.vertices,
        s.edges
    );
    println!("  parse  {parse:>7.3} s  {:>12.0} txn/s  {:>6.0} MB/s", n / parse, text.len() as f64 / 1e6 / parse);
    println!("  build  {build:>7.3} s  {:>12.0} txn/s", n / build);
    let mut all = 0.0;
    for l in Level::ALL {
        let t = Instant::now();
        let r = grail_core::check_inferred(&h, &inf, &CheckOptions { levels: vec![l], ..Default::default() }, None);
        let dt = t.elapsed().as_secs_f64();
        all += dt;
        println!("  {:<5}  {dt:>7.3} s  {}", l.name(), r.levels.0[0].1.verdict);
    }
    let t = Instant::now();
    let r = grail_core::check_inferred(&h, &inf, &CheckOptions::default(), None);
    let five = t.elapsed().as_secs_f64();
    println!(
        "  all five levels in one check {five:.3} s (sum of single-level checks {all:.3} s); valid = {:?}",
        r.valid
    );
    println!(
        "  parse + build + check {:.3} s  ({:.0} txn/s end to end); peak RSS so far {:.0} MB",
        parse + build + five,
        n / (parse + build + five),
        peak_rss_mb()
    );
}

fn main() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/grail/anti-patterns/lost-update/history.edn.gz");
    if let Ok(raw) = std::fs::read(&corpus) {
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut text).unwrap();
        bench("largest corpus history (anti-patterns/lost-update)", &text);
    } else {
        println!("corpus not found at {}: skipping the corpus benchmark", corpus.display());
    }
    let n: usize = std::env::var("GRAIL_BENCH_TXNS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let t = Instant::now();
    let text = synthetic(n, 0x9e3779b97f4a7c15);
    println!("\n(generated {n} synthetic transactions in {:.1} s)", t.elapsed().as_secs_f64());
    if let Ok(path) = std::env::var("GRAIL_BENCH_SAVE") {
        std::fs::write(&path, &text).expect("writing GRAIL_BENCH_SAVE");
    }
    bench(&format!("synthetic list-append, {n} transactions"), text.as_bytes());
}
