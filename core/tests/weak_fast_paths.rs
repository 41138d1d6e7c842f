//! The weak levels' fast path reports what the full graph does: the inference without RW edges
//! (`infer_for` when only RC, RA and CC are asked for) gives the same report, witnesses and
//! statistics included, as the whole dependency graph. (Causal saturation's pruning is checked
//! against the axioms by brute force in `more_levels.rs` and against AWDIT in `peers.rs`.)

mod common;

use grail_core::generate::{DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::{check_inferred, infer, infer_for, CheckOptions, Level};

fn history(isolation: Isolation, model: DataModel, seed: u64, inject: Vec<(Injection, usize)>) -> grail_core::History {
    common::generated(&GenOptions {
        transactions: 1500,
        sessions: 9,
        keys: 10,
        isolation,
        model,
        seed,
        inject,
        output: Output::Edn,
        ..GenOptions::default()
    })
}

#[test]
fn weak_levels_without_rw_edges_report_the_same() {
    let weak = CheckOptions { levels: vec![Level::Rc, Level::Ra, Level::Cc], ..Default::default() };
    let mut violated = 0;
    for iso in [Isolation::Causal, Isolation::ReadCommitted, Isolation::ParallelSnapshotIsolation] {
        for model in [DataModel::ListAppend, DataModel::RwRegister] {
            for seed in 1..=3 {
                let inject = if seed == 3 { vec![(Injection::LongFork, 2), (Injection::ReadSkew, 2)] } else { vec![] };
                let h = history(iso, model, seed, inject);
                let fast = infer_for(&h, &weak);
                assert!(fast.rw_left_out.is_some());
                let full = infer(&h);
                let a = check_inferred(&h, &fast, &weak, None).to_json();
                let b = check_inferred(&h, &full, &weak, None).to_json();
                assert_eq!(a, b, "{iso:?} {model:?} seed {seed}");
                violated += usize::from(a.contains("\"violated\""));
            }
        }
    }
    assert!(violated > 3, "too few violations to exercise the witnesses: {violated}");
}

#[test]
fn strong_levels_keep_rw_edges() {
    let h = history(Isolation::Serializable, DataModel::ListAppend, 1, vec![]);
    let opts = CheckOptions { levels: vec![Level::Cc, Level::Ser], ..Default::default() };
    assert!(infer_for(&h, &opts).rw_left_out.is_none());
}

/// Plume's text (AWDIT's benchmark shape): every key's initial value is read widely and most
/// writes follow no read, so the RW pairs (readers of the initial value times a key's first
/// writers) are counted without being listed; the count must be the full graph's.
#[test]
fn rw_pairs_counted_without_listing_them_equal_the_full_graphs() {
    use grail_core::generate::KeyDistribution;
    for (seed, distribution) in [(1, KeyDistribution::Zipfian(1.0)), (2, KeyDistribution::Uniform)] {
        let h = common::generated(&GenOptions {
            transactions: 3000,
            sessions: 20,
            keys: 60,
            min_ops: 5,
            max_ops: 5,
            read_ratio: 0.8,
            distribution,
            isolation: Isolation::Causal,
            model: DataModel::RwRegister,
            output: Output::Polysi,
            seed,
            ..GenOptions::default()
        });
        let weak = CheckOptions { levels: vec![Level::Rc, Level::Ra], ..Default::default() };
        let fast = infer_for(&h, &weak);
        let full = infer(&h);
        let (a, b) = (fast.stats(&h), full.stats(&h));
        assert!(fast.rw_left_out.is_some_and(|n| n > 1000), "seed {seed}: {:?}", fast.rw_left_out);
        assert_eq!((a.rw, a.edges), (b.rw, b.edges), "seed {seed}");
    }
}

/// The strong levels' inference leaves out the reads-from list (only RC, RA and CC read it); the
/// report is the full inference's, and a weak level asked of that inference all the same is
/// checked on a full one made again.
#[test]
fn strong_levels_without_reads_from_report_the_same() {
    let strong = CheckOptions { levels: vec![Level::Ser, Level::Si, Level::Psi, Level::Pl2], ..Default::default() };
    let all = CheckOptions { levels: vec![Level::Ser, Level::Rc, Level::Ra, Level::Cc], ..Default::default() };
    let mut violated = 0;
    for iso in [Isolation::Causal, Isolation::ReadCommitted, Isolation::SnapshotIsolation] {
        for model in [DataModel::ListAppend, DataModel::RwRegister] {
            let h = history(iso, model, 4, vec![(Injection::LongFork, 2), (Injection::ReadSkew, 2)]);
            let lean = infer_for(&h, &strong);
            assert!(lean.reads_from.is_none() && lean.rw_left_out.is_none());
            let full = infer(&h);
            assert!(full.reads_from.as_ref().is_some_and(|r| !r.is_empty()), "{iso:?} {model:?}");
            for opts in [&strong, &all] {
                let a = check_inferred(&h, &lean, opts, None).to_json();
                let b = check_inferred(&h, &full, opts, None).to_json();
                assert_eq!(a, b, "{iso:?} {model:?} {:?}", opts.levels);
                violated += usize::from(a.contains("\"violated\""));
            }
        }
    }
    assert!(violated > 3, "too few violations to exercise the witnesses: {violated}");
}
