//! `stats.edges` and the graph view's edges count different things, as their docs say: the
//! view lists one edge per (from, to, type, key); `stats` counts each (from, to, type) once.

use grail_core::api::graph_view;
use grail_core::generate::{generate, DataModel, GenOptions, Injection, Output};
use grail_core::graph::EdgeType;
use grail_core::{infer, read, Format};
use std::collections::BTreeSet;

/// The relation the docs state, on one history; returns (view edges, stats.edges).
fn relate(text: &str) -> (usize, usize) {
    let h = read(text.as_bytes(), Format::Auto).unwrap();
    let inf = infer(&h);
    let v = graph_view(&h, &inf);
    let mut per_type = [BTreeSet::new(), BTreeSet::new(), BTreeSet::new()];
    for e in v.edges.iter().filter(|e| EdgeType::DEPENDENCIES.contains(&e.ty)) {
        per_type[e.ty as usize].insert((e.from, e.to));
    }
    let [ww, wr, rw] = per_type.map(|s| s.len());
    assert_eq!((v.stats.ww, v.stats.wr, v.stats.rw), (ww, wr, rw));
    assert_eq!(v.stats.edges, ww + wr + rw);
    assert!(v.edges.len() >= v.stats.edges);
    // A report's statistics are the view's, plus rw pairs left out of the graph.
    let report = grail_core::check_inferred(&h, &inf, &grail_core::CheckOptions::default(), None);
    assert_eq!(report.stats.edges - v.stats.edges, inf.rw_left_out.map_or(0, |n| n - v.stats.rw));
    (v.edges.len(), v.stats.edges)
}

#[test]
fn generated_histories_relate_as_documented() {
    let mut more = 0;
    for model in [DataModel::ListAppend, DataModel::RwRegister] {
        let o = GenOptions {
            transactions: 400,
            keys: 3,
            model,
            output: Output::Edn,
            inject: vec![(Injection::LostUpdate, 2), (Injection::WriteSkew, 1)],
            ..GenOptions::default()
        };
        let (view, stats) = relate(&generate(&o).history);
        more += view - stats;
    }
    assert!(more > 0, "a few keys and many transactions: some pair depends on two keys");
}

#[test]
fn two_keys_between_one_pair_are_two_view_edges_and_one_triple() {
    let (view, stats) = relate(
        "{:type :ok, :value [[:append x 1] [:append y 1]]}\n{:type :ok, :value [[:append x 2] [:append y 2]]}\n{:type :ok, :value [[:r x [1 2]] [:r y [1 2]]]}",
    );
    assert_eq!((view, stats), (4, 2), "ww and wr on x and on y");
}

#[cfg(feature = "schema")]
#[test]
fn the_schema_says_what_edges_count() {
    let s = grail_core::api::report_schema().to_string();
    assert!(s.contains("once per (from, to, type)"), "the schema's Stats.edges");
}
