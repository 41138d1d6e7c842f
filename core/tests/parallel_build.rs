//! The graph built on several threads (feature `parallel`: the index's scan, the bucket sorts,
//! the reads' scan and the appenders' lookup by ranges) equals the one built on one thread:
//! same index, edges, findings (in order), reads-from, version orders and report, on generated
//! histories large enough to take every parallel path, with anomalies and findings.
#![cfg(feature = "parallel")]

use grail_core::generate::{generate, GenOptions, Injection, Isolation};
use grail_core::read::read_edn;
use grail_core::{check, infer, CheckOptions, Inference, Level};

fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool").install(f)
}

fn assert_same(a: &Inference, b: &Inference, what: &str) {
    assert_eq!(a.index.op_txn, b.index.op_txn, "{what}: transaction of each operation");
    assert!(a.index.writes.iter().eq(b.index.writes.iter()), "{what}: writes");
    assert_eq!(a.index.duplicates, b.index.duplicates, "{what}: duplicate writes");
    assert_eq!(a.graph.is_vertex, b.graph.is_vertex, "{what}: vertices");
    assert_eq!(a.graph.edges, b.graph.edges, "{what}: edges");
    assert_eq!(a.graph.offsets, b.graph.offsets, "{what}: adjacency offsets");
    assert_eq!(a.graph.adj, b.graph.adj, "{what}: adjacency");
    assert_eq!(a.findings, b.findings, "{what}: findings");
    assert_eq!(a.notes, b.notes, "{what}: notes");
    assert_eq!(a.reads_from, b.reads_from, "{what}: reads-from");
    assert_eq!(a.list_order, b.list_order, "{what}: version orders");
    assert_eq!(a.rw_left_out, b.rw_left_out, "{what}: RW edges left out");
}

#[test]
fn parallel_build_equals_one_thread() {
    let cases = [
        ("serializable", GenOptions { transactions: 40_000, max_writes_per_key: 8, ..Default::default() }),
        (
            "read committed, injected anomalies",
            GenOptions {
                transactions: 40_000,
                min_ops: 4,
                max_ops: 8,
                max_writes_per_key: 4,
                isolation: Isolation::ReadCommitted,
                inject: vec![
                    (Injection::LostUpdate, 4),
                    (Injection::AbortedRead, 3),
                    (Injection::IntermediateRead, 3),
                    (Injection::WriteCycle, 3),
                ],
                seed: 7,
                ..Default::default()
            },
        ),
        (
            "snapshot isolation, many aborts",
            GenOptions {
                transactions: 30_000,
                abort_rate: 0.3,
                max_writes_per_key: 4,
                isolation: Isolation::SnapshotIsolation,
                seed: 3,
                ..Default::default()
            },
        ),
    ];
    let mut findings = 0;
    for (what, o) in cases {
        let h = read_edn(generate(&o).history.as_bytes()).expect("a generated history reads");
        assert!(h.keys.len() >= 4096, "{what}: {} keys, too few for the parallel paths", h.keys.len());
        let one = on_threads(1, || infer(&h));
        let many = on_threads(4, || infer(&h));
        assert_same(&one, &many, what);
        findings += one.findings.len();
        let opts = CheckOptions { levels: Level::CLASSIC.to_vec(), ..Default::default() };
        let (r1, r4) = (on_threads(1, || check(&h, &opts)), on_threads(4, || check(&h, &opts)));
        assert_eq!(r1, r4, "{what}: report");
    }
    assert!(findings > 0, "no case has findings to keep in order");
}
