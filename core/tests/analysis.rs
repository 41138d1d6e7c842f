//! Anomaly analysis: injected anomalies are counted exactly by class, hand-made cycles get
//! their classes, label patterns are counted, and the online checker finds what the offline
//! count finds when its window is large, and notes what a small window evicted.

use grail_core::analysis::{Analysis, AnalyzeOptions};
use grail_core::online::cycles::{OnlineChecker, OnlineOptions, OnlineTxn};
mod common;

use grail_core::generate::{DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::{CheckOptions, Format, History};
use std::collections::{BTreeMap, BTreeSet};

fn load(o: &GenOptions) -> History {
    common::generated(o)
}

fn analyze(h: &History, max_length: usize, examples: usize) -> Analysis {
    let opts = CheckOptions {
        analyze: Some(AnalyzeOptions { max_length, examples, ..Default::default() }),
        ..Default::default()
    };
    grail_core::check(h, &opts).analysis.expect("analysis requested")
}

fn count(a: &Analysis, scheme: &str, class: &str) -> usize {
    a.classes
        .iter()
        .find(|c| c.scheme == scheme && c.class == class)
        .unwrap_or_else(|| panic!("no row for {scheme} {class}"))
        .count
}

fn gen(model: DataModel, inject: Vec<(Injection, usize)>, n: usize, seed: u64) -> GenOptions {
    GenOptions {
        transactions: n,
        keys: 20,
        seed,
        model,
        isolation: Isolation::Serializable,
        inject,
        ..Default::default()
    }
}

#[test]
fn injected_anomalies_are_counted_exactly_by_class() {
    for model in [DataModel::ListAppend, DataModel::RwRegister] {
        // One injection kind at a time, then all of them together.
        let mut runs: Vec<Vec<(Injection, usize)>> = Injection::ALL.iter().map(|&i| vec![(i, 3)]).collect();
        runs.push(Injection::ALL.iter().enumerate().map(|(n, &i)| (i, n % 4 + 1)).collect());
        for inject in runs {
            let h = load(&gen(model, inject.clone(), 1500, 11));
            let a = analyze(&h, 8, 1000);
            assert!(a.complete, "{model:?} {inject:?}: {:?}", a.reason);
            let mut want: BTreeMap<&str, usize> = BTreeMap::new();
            let mut want_reads: BTreeMap<&str, usize> = BTreeMap::new();
            for &(inj, n) in &inject {
                let (cycles, reads) = inj.analysis();
                for c in cycles {
                    *want.entry(c).or_default() += n;
                }
                for r in reads {
                    *want_reads.entry(r).or_default() += n;
                }
            }
            for c in a.classes.iter().filter(|c| c.scheme == "zellag") {
                assert_eq!(
                    c.count,
                    want.get(c.class.as_str()).copied().unwrap_or(0),
                    "{model:?} {inject:?}: Zellag class {}",
                    c.class
                );
            }
            for r in ["IMP", "OTV", "FR", "PMP"] {
                assert_eq!(count(&a, "ldbc", r), want_reads.get(r).copied().unwrap_or(0), "{model:?} {inject:?}: {r}");
            }
            let total: usize = want.values().sum();
            assert_eq!(a.cycles, total, "{model:?} {inject:?}");
            // Each scheme partitions the cycles; lengths too.
            for scheme in ["zellag", "adya"] {
                let s: usize = a.classes.iter().filter(|c| c.scheme == scheme).map(|c| c.count).sum();
                assert_eq!(s, total, "{scheme}");
            }
            assert_eq!(a.lengths.iter().map(|l| l.count).sum::<usize>(), total);
            let p = a.participation;
            assert_eq!(p.none + p.one + p.many, p.transactions);
            assert_eq!(p.transactions, h.count(grail_core::Status::Committed));
        }
    }
}

#[test]
fn participation_counts_transactions_on_several_cycles() {
    let h = load(&gen(DataModel::ListAppend, vec![(Injection::VLostUpdate, 4), (Injection::LostUpdate, 2)], 800, 3));
    let a = analyze(&h, 8, 0);
    // v-lost update: T2 and T3 lie on both of its cycles, T1 on one; a lost update: 2 on one.
    assert_eq!(a.participation.many, 4 * 2);
    assert_eq!(a.participation.one, 4 + 2 * 2);
    assert_eq!(count(&a, "ldbc", "LU"), 4 * 2 + 2);
    assert_eq!(a.lengths.iter().map(|l| (l.length, l.count)).collect::<Vec<_>>(), vec![(2, 6), (3, 4)]);
}

fn edn(text: &str) -> History {
    grail_core::read(text.as_bytes(), Format::Auto).unwrap()
}

#[test]
fn hand_made_cycles_get_their_classes() {
    // (history, expected Zellag, LDBC and Adya classes of its one cycle)
    let cases = [
        // Read skew: T1 reads x before T2, y after T2.
        (
            "{:type :ok, :f :pay, :value [[:append x 1] [:append y 1]]}\n{:type :ok, :f :audit, :value [[:r x []] [:r y [1]]]}",
            ("read skew", "WS", "G-single"),
        ),
        // Lost update.
        (
            "{:type :ok, :value [[:r x []] [:append x 1]]}\n{:type :ok, :value [[:r x []] [:append x 2]]}\n{:type :ok, :value [[:r x [1 2]]]}",
            ("lost update", "LU", "G-single"),
        ),
        // Write skew.
        (
            "{:type :ok, :value [[:r x []] [:r y []] [:append x 1]]}\n{:type :ok, :value [[:r x []] [:r y []] [:append y 1]]}",
            ("write skew", "WS", "G2-item"),
        ),
        // Write cycle.
        (
            "{:type :ok, :value [[:append x 1] [:append y 1]]}\n{:type :ok, :value [[:append x 2] [:append y 2]]}\n{:type :ok, :value [[:r x [1 2]] [:r y [2 1]]]}",
            ("other", "G0", "G0"),
        ),
        // Circular information flow.
        (
            "{:type :ok, :value [[:append x 1] [:r y [1]]]}\n{:type :ok, :value [[:append y 1] [:r x [1]]]}",
            ("other", "G1c", "G1c"),
        ),
    ];
    for (text, (z, l, ad)) in cases {
        let a = analyze(&edn(text), 8, 10);
        assert_eq!(a.cycles, 1, "{text}");
        let c = &a.examples[0];
        assert_eq!((c.zellag.as_str(), c.ldbc.as_str(), c.adya.as_str()), (z, l, ad), "{text}");
    }
}

#[test]
fn label_patterns_are_counted_ordered_and_unordered() {
    // Two write skews between :a and :b transactions, and one lost update between two :c.
    let text = "\
{:type :ok, :f :a, :value [[:r x []] [:r y []] [:append x 1]]}
{:type :ok, :f :b, :value [[:r x []] [:r y []] [:append y 1]]}
{:type :ok, :f :b, :value [[:r u []] [:r v []] [:append u 1]]}
{:type :ok, :label \"a\", :value [[:r u []] [:r v []] [:append v 1]]}
{:type :ok, :f :c, :value [[:r z []] [:append z 1]]}
{:type :ok, :f :c, :value [[:r z []] [:append z 2]]}
{:type :ok, :value [[:r z [1 2]]]}";
    let a = analyze(&edn(text), 8, 10);
    assert_eq!(a.cycles, 3);
    let pat = |ordered: bool, labels: &[&str]| {
        a.patterns.iter().find(|p| p.ordered == ordered && p.labels == labels).map_or(0, |p| p.count)
    };
    assert_eq!(pat(true, &["a", "b"]), 2);
    assert_eq!(pat(false, &["a", "b"]), 2);
    assert_eq!(pat(true, &["c", "c"]), 1);
    assert_eq!(pat(false, &["c"]), 1);
    assert_eq!(a.patterns[0].count, 2, "most frequent first");
}

#[test]
fn enumeration_respects_its_bounds() {
    let h = load(&GenOptions {
        transactions: 3000,
        keys: 8,
        isolation: Isolation::ReadCommitted,
        seed: 5,
        ..Default::default()
    });
    let short = analyze(&h, 2, 0);
    assert!(short.lengths.iter().all(|l| l.length <= 2));
    let long = analyze(&h, 4, 0);
    assert!(long.cycles > short.cycles, "{} vs {}", long.cycles, short.cycles);
    let opts = CheckOptions {
        analyze: Some(AnalyzeOptions { max_length: 4, max_cycles: 10, ..Default::default() }),
        ..Default::default()
    };
    let capped = grail_core::check(&h, &opts).analysis.unwrap();
    assert_eq!(capped.cycles, 10);
    assert!(!capped.complete && capped.reason.is_some());
    let opts = CheckOptions {
        analyze: Some(AnalyzeOptions { max_length: 6, max_steps: Some(1000), ..Default::default() }),
        ..Default::default()
    };
    let budget = grail_core::check(&h, &opts).analysis.unwrap();
    assert!(!budget.complete);
}

#[test]
fn analysis_is_absent_unless_asked() {
    let h = load(&gen(DataModel::ListAppend, vec![(Injection::LostUpdate, 1)], 100, 1));
    let r = grail_core::check(&h, &CheckOptions::default());
    assert!(r.analysis.is_none());
    assert!(!r.to_json().contains("\"analysis\""));
}

/// A cycle as a canonical string: transaction ids from the least, around the cycle.
fn canon(txns: &[u64]) -> Vec<u64> {
    grail_core::analysis::classify::min_rotation(txns)
}

fn online(h: &History, opts: OnlineOptions) -> (Vec<grail_core::online::cycles::OnlineAnomaly>, OnlineChecker) {
    let mut c = OnlineChecker::new(opts);
    let mut found = Vec::new();
    for t in 0..h.txns.len() as u32 {
        found.extend(c.push(&OnlineTxn::from_history(h, t)));
    }
    (found, c)
}

#[test]
fn online_with_a_large_window_finds_what_the_offline_count_finds() {
    for (isolation, inject, seed) in [
        (Isolation::Serializable, Injection::ALL.iter().map(|&i| (i, 5)).collect::<Vec<_>>(), 2),
        (Isolation::SnapshotIsolation, vec![(Injection::LostUpdate, 3)], 3),
        (Isolation::ReadCommitted, vec![], 4),
    ] {
        let o = GenOptions { transactions: 20_000, keys: 30, isolation, inject, seed, ..Default::default() };
        let h = load(&o);
        let a = analyze(&h, 4, usize::MAX);
        assert!(a.complete);
        let offline: BTreeSet<Vec<u64>> = a.examples.iter().map(|c| canon(&c.txns)).collect();
        let (found, c) = online(&h, OnlineOptions { window: 1_000_000, max_length: 4, ..Default::default() });
        let on: BTreeSet<Vec<u64>> = found.iter().map(|c| canon(&c.cycle.txns)).collect();
        assert_eq!(on.len(), found.len(), "{isolation:?}: each cycle reported once");
        let missing: Vec<_> = offline.difference(&on).collect();
        assert!(missing.is_empty(), "{isolation:?}: missing {missing:?}");
        // Every extra cycle went through an append no read had ordered when it closed.
        let extra: Vec<_> = found
            .iter()
            .filter(|f| !offline.contains(&canon(&f.cycle.txns)) && !f.provisional)
            .map(|f| &f.cycle.txns)
            .collect();
        assert!(extra.is_empty(), "{isolation:?}: extra {extra:?}");
        let provisional = found.iter().filter(|f| f.provisional).count();
        eprintln!("{isolation:?}: {} offline, {} online ({provisional} provisional)", offline.len(), found.len());
        assert!(!offline.is_empty() || isolation == Isolation::Serializable);
        assert_eq!(c.stats().evicted, 0);
        // The classes agree too.
        let off_classes: BTreeMap<Vec<u64>, String> =
            a.examples.iter().map(|c| (canon(&c.txns), c.zellag.clone())).collect();
        // (A class is judged when the cycle closes; an edge of a lower type between two of its
        // transactions may arrive later, and the offline count sees that one.)
        let common: Vec<_> = found.iter().filter(|f| off_classes.contains_key(&canon(&f.cycle.txns))).collect();
        let same = common.iter().filter(|f| off_classes.get(&canon(&f.cycle.txns)) == Some(&f.cycle.zellag)).count();
        assert!(same * 10 >= common.len() * 9, "{isolation:?}: {same} of {} classes agree", common.len());
        // The summary counts settled classes: the same as the offline count where the cycles agree.
        if isolation == Isolation::Serializable {
            let s = c.summary();
            for row in a.classes.iter().filter(|r| r.scheme == "zellag") {
                let online = s.classes.iter().find(|x| x.scheme == "zellag" && x.class == row.class).unwrap();
                assert_eq!(online.count, row.count, "{isolation:?}: {}", row.class);
            }
        }
    }
}

#[test]
fn online_reports_a_cycle_when_its_last_transaction_arrives() {
    let text = "{:type :ok, :value [[:r x []] [:append x 1]]}\n{:type :ok, :value [[:r x []] [:append x 2]]}\n{:type :ok, :value [[:r x [1 2]]]}";
    let h = edn(text);
    let mut c = OnlineChecker::new(OnlineOptions::default());
    let per: Vec<usize> = (0..3).map(|t| c.push(&OnlineTxn::from_history(&h, t)).len()).collect();
    // The two writers' reads of [] already close a cycle (each missed the other's append).
    assert_eq!(per, vec![0, 1, 0]);
    let s = c.summary();
    assert_eq!(s.stats.cycles, 1);
    // Reported through provisional edges (two anti-dependencies), counted as the lost update
    // it is once the reader ordered the appends.
    let zellag = |s: &grail_core::online::cycles::OnlineSummary, class: &str| {
        s.classes.iter().find(|c| c.scheme == "zellag" && c.class == class).map_or(0, |c| c.count)
    };
    assert_eq!(zellag(&s, "lost update"), 1);
    assert_eq!(zellag(&s, "other"), 0);
    assert_eq!(s.classes.iter().filter(|c| c.scheme == "ldbc" && c.class == "LU").map(|c| c.count).sum::<usize>(), 1);
}

#[test]
fn online_small_window_evicts_and_says_so() {
    // T0 appends x; forty fillers; then a reader orders x: T0 is gone by then.
    let mut lines = vec!["{:type :ok, :value [[:r x []] [:append x 1]]}".to_string()];
    for i in 0..40 {
        lines.push(format!("{{:type :ok, :value [[:append k{i} 1]]}}"));
    }
    lines.push("{:type :ok, :value [[:r x []] [:append x 2]]}".into());
    lines.push("{:type :ok, :value [[:r x [1 2]]]}".into());
    let h = edn(&lines.join("\n"));
    let (small, c) = online(&h, OnlineOptions { window: 10, ..Default::default() });
    assert!(small.is_empty());
    let s = c.summary();
    assert!(s.stats.peak_live <= 10);
    assert!(s.stats.evicted_unordered >= 1 && s.stats.edges_to_evicted >= 1, "{:?}", s.stats);
    assert!(s.notes.iter().any(|n| n.contains("left the window")), "{:?}", s.notes);
    let (large, c) = online(&h, OnlineOptions { window: 100, ..Default::default() });
    assert_eq!(large.len(), 1);
    assert!(c.summary().notes.is_empty());
}

#[test]
fn online_reads_native_json_transactions() {
    let t =
        serde_json::json!({"id": 7, "label": "pay", "ops": [["append", "x", 1], ["r", "y", null], ["r", 3, [1, "a"]]]});
    // One record, read by the offline JSON reader.
    let from_json = |v: &serde_json::Value, first: u64| {
        OnlineTxn::read(v.to_string().as_bytes(), Format::Json, first).map(|ts| ts.into_iter().next())
    };
    let txn = from_json(&t, 0).unwrap().unwrap();
    assert_eq!((txn.id, txn.label.as_deref(), txn.ops.len()), (7, Some("pay"), 3));
    // Register transactions are read too (checked in rounds); a stream keeps to one model.
    let write = from_json(&serde_json::json!({"ops": [["w", "x", 1]]}), 0).unwrap().unwrap();
    assert_eq!(
        write.ops,
        vec![grail_core::online::cycles::OnlineOp::Write {
            key: grail_core::history::Atom::Str("x".into()),
            value: grail_core::history::Atom::Int(1)
        }]
    );
    assert!(from_json(&serde_json::json!([1]), 0).is_err());
    let mut c = OnlineChecker::new(OnlineOptions::default());
    c.push(&txn);
    let e = c.push_text(br#"{"id": 8, "ops": [["r", "x", 5]]}"#, Format::Json).unwrap_err();
    assert!(e.to_string().contains("one data model") && e.txn == Some(8), "{e}");
    assert_eq!(c.stats().transactions, 1);
}

#[test]
fn native_format_labels_are_read() {
    let text = r#"{"transactions": [{"id": 1, "label": "pay", "ops": [["r", "x", []], ["append", "x", 1]]},
        {"id": 2, "label": "pay", "ops": [["r", "x", []], ["append", "x", 2]]},
        {"id": 3, "ops": [["r", "x", [1, 2]]]}]}"#;
    let a = analyze(&grail_core::read(text.as_bytes(), Format::Auto).unwrap(), 8, 10);
    assert_eq!(a.examples[0].labels, vec!["pay", "pay"]);
    let _ = Output::Native;
}

#[test]
fn predicate_many_preceders_from_native_predicate_reads() {
    // LDBC's PMP test: a reader counts a post's likes twice while a writer adds one.
    let text = r#"{"transactions": [
        {"id": 1, "ops": [["append", "likes", 1]]},
        {"id": 2, "label": "count-likes", "ops": [],
         "predicate_reads": [{"predicate": "likes of post 7", "matches": ["p1@1"]},
                             {"predicate": "likes of post 7", "matches": ["p1@1", "p2@1"]},
                             {"predicate": "likes of post 8", "matches": [3, 4]},
                             {"predicate": "likes of post 8", "matches": [4, 3]}]},
        {"id": 3, "status": "aborted", "ops": [],
         "predicate_reads": [{"predicate": "q", "matches": [1]}, {"predicate": "q", "matches": [2]}]}
    ]}"#;
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    assert_eq!(h.predicate_reads.len(), 6);
    let a = analyze(&h, 8, 10);
    assert_eq!(count(&a, "ldbc", "PMP"), 1, "same sets in another order are no PMP; aborted readers are not judged");
    let r = a.reads.iter().find(|r| r.class == "PMP").unwrap();
    assert_eq!((r.txn, r.predicate.as_deref()), (2, Some("likes of post 7")));
    assert!(r.explanation.contains(r#"["p1@1"], then ["p1@1" "p2@1"]"#), "{}", r.explanation);
    // A malformed predicate read is a shape error with its entry.
    let bad = r#"{"transactions": [{"ops": [], "predicate_reads": [{"predicate": 3, "matches": []}]}]}"#;
    let e = grail_core::read(bad.as_bytes(), Format::Auto).unwrap_err();
    assert_eq!(e.kind, grail_core::ErrorKind::Shape);
}

#[test]
fn online_takes_any_transactions_without_panicking() {
    use grail_core::online::cycles::{Atom, OnlineOp};
    // xorshift: arbitrary (mostly nonsensical) transactions over a few keys and values.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut cycles = 0;
    for (window, max_length, n) in [(2, 2, 3000u64), (7, 5, 3000), (50, 255, 300), (1000, usize::MAX, 200)] {
        let mut c = OnlineChecker::new(OnlineOptions { window, max_length, max_steps: 2_000 });
        for id in 0..n {
            let mut ops = Vec::new();
            for _ in 0..next(5) {
                let key = if next(2) == 0 { Atom::Int(next(4) as i64) } else { Atom::Str(format!("k{}", next(3))) };
                if next(2) == 0 {
                    ops.push(OnlineOp::Append { key, value: Atom::Int(next(30) as i64) });
                } else {
                    let list = (next(4) != 0).then(|| (0..next(6)).map(|_| Atom::Int(next(30) as i64)).collect());
                    ops.push(OnlineOp::Read { key, list });
                }
            }
            let status = match next(10) {
                0 => grail_core::Status::Aborted,
                1 => grail_core::Status::Indeterminate,
                _ => grail_core::Status::Committed,
            };
            let label = (next(3) == 0).then(|| format!("f{}", next(3)));
            for a in c.push(&OnlineTxn { id, label, status, ops, ts: (None, None), process: None, times: (None, None) })
            {
                assert!(a.cycle.txns.len() >= 2 && a.cycle.txns.len() <= max_length.min(255));
                assert_eq!(a.cycle.types.len(), a.cycle.txns.len());
            }
        }
        let s = c.summary();
        assert!(s.stats.peak_live <= window.max(2));
        assert_eq!(
            s.classes.iter().filter(|r| r.scheme == "adya").map(|r| r.count as u64).sum::<u64>(),
            s.stats.cycles
        );
        cycles += s.stats.cycles;
    }
    assert!(cycles > 0, "the random streams should close some cycles");
}

/// Whether the dependency graph has an edge `from -> to` of this type (ids as users see them).
fn has_edge(h: &History, from: u64, to: u64, ty: grail_core::EdgeType) -> bool {
    let inf = grail_core::infer(h);
    let idx = |id: u64| h.txns.iter().position(|t| t.id == id).unwrap() as u32;
    inf.graph.edges.iter().any(|e| e.from == idx(from) && e.to == idx(to) && e.ty == ty)
}

#[test]
fn fractured_reads_agree_with_the_graph_whatever_aborted_and_indeterminate_readers_saw() {
    // T3 read x = [5] from T2, and y = [6] without T2's append of 7: a fractured read, and in the
    // graph WR T2 -> T3 and RW T3 -> T2. An aborted (then an indeterminate) reader saw y in
    // another order first; versions come from committed reads, as inference takes them, so the
    // finding and the graph agree whatever the other readers saw.
    for status in [":fail", ":info"] {
        let text = format!(
            "{{:index 0, :type {status}, :value [[:r :y [7 6]]]}}\n\
             {{:index 1, :type :ok, :value [[:append :y 6]]}}\n\
             {{:index 2, :type :ok, :value [[:append :x 5] [:append :y 7]]}}\n\
             {{:index 3, :type :ok, :value [[:r :x [5]] [:r :y [6]]]}}\n"
        );
        let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
        assert!(has_edge(&h, 2, 3, grail_core::EdgeType::Wr), "{status}");
        assert!(has_edge(&h, 3, 2, grail_core::EdgeType::Rw), "{status}");
        let a = analyze(&h, 8, 10);
        assert_eq!(count(&a, "ldbc", "FR"), 1, "{status}: {:?}", a.reads);
        let fr = a.reads.iter().find(|r| r.class == "FR").unwrap();
        assert_eq!(fr.txn, 3, "{status}");
        // Without the other reader the same finding stands.
        let alone: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let b = analyze(&grail_core::read(alone.as_bytes(), Format::Auto).unwrap(), 8, 10);
        assert_eq!(count(&b, "ldbc", "FR"), 1);
    }
}
