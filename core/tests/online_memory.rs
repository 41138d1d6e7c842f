//! The online checker's memory stays bounded by its window (Zellag & Kemme 2014, Sect. 6),
//! measured with a counting allocator: its own test binary, one test, so nothing else allocates
//! meanwhile.

use grail_core::generate::{generate, GenOptions, Injection, Isolation};
use grail_core::online::cycles::{OnlineChecker, OnlineOptions, OnlineTxn};
use grail_core::Format;
use std::sync::atomic::Ordering::Relaxed;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{NOW, PEAK};

/// Stream `txns` through a checker with this window; the peak heap held by the checker (bytes,
/// above what the input holds) and the checker's own estimate at the end.
fn stream(txns: &[OnlineTxn], window: usize) -> (usize, usize, grail_core::online::cycles::OnlineSummary) {
    let before = NOW.load(Relaxed);
    PEAK.store(before, Relaxed);
    let mut c = OnlineChecker::new(OnlineOptions { window, max_length: 6, ..Default::default() });
    for t in txns {
        let found = c.push(t);
        drop(found);
    }
    let peak = PEAK.load(Relaxed) - before;
    (peak, c.memory_estimate(), c.summary())
}

#[test]
fn memory_is_bounded_by_the_window_not_the_stream() {
    let o = GenOptions {
        transactions: 120_000,
        keys: 40,
        isolation: Isolation::SnapshotIsolation,
        inject: vec![(Injection::LostUpdate, 50), (Injection::WriteSkew, 50)],
        seed: 9,
        ..Default::default()
    };
    let h = grail_core::read(generate(&o).history.as_bytes(), Format::Auto).unwrap();
    let txns: Vec<OnlineTxn> = (0..h.txns.len() as u32).map(|t| OnlineTxn::from_history(&h, t)).collect();
    drop(h);
    let window = 2_000;
    let (p_short, _, s_short) = stream(&txns[..30_000], window);
    let (p_long, est, s_long) = stream(&txns, window);
    eprintln!(
        "window {window}: peak {p_short} B over 30k transactions, {p_long} B over {} ({} B/txn of window); estimate {est} B",
        txns.len(),
        p_long / window
    );
    assert!(s_long.stats.peak_live <= window);
    assert_eq!(s_long.stats.evicted, s_long.stats.committed - s_long.stats.live as u64);
    assert!(s_long.stats.evicted > 50_000, "{:?}", s_long.stats);
    // Four times the stream, not four times the memory.
    assert!(p_long < p_short * 3 / 2, "{p_long} vs {p_short}");
    // A fixed budget per transaction of the window (measured: well under it).
    assert!(p_long < window * 4096, "{p_long} bytes for a window of {window}");
    // The checker's estimate is of the same order as the measurement.
    assert!(est * 10 > p_long / 10 && est < p_long * 10, "estimate {est}, measured {p_long}");
    // A small window still finds anomalies injected whole (their transactions are adjacent).
    assert!(s_long.stats.cycles >= 100 && s_short.stats.cycles > 0);
}
