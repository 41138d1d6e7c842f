//! A check of SER, PL-2 and PL-1 builds the graph without its edges (`Needs::Search`: the
//! adjacency alone) and finds the edges its report shows again (`infer::provenance`). The
//! adjacency is the full graph's, the edges found are the full graph's (same keys, same
//! operations), and so the reports are those of a check on the full graph.

use grail_core::engine::CheckOptions;
use grail_core::generate::{generate, DataModel, GenOptions, Isolation};
use grail_core::graph::{DependencyGraph, Edge, EdgeType};
use grail_core::history::History;
use grail_core::infer::{infer, provenance, Needs};
use grail_core::{read, read_wal, Format, Level};

/// Generated histories: list append (some with indeterminate transactions whose appends were
/// read, which the inference promotes) and registers with their version order.
fn histories() -> Vec<(String, History)> {
    let mut out = Vec::new();
    for (seed, isolation) in
        [(1, Isolation::ReadCommitted), (2, Isolation::SnapshotIsolation), (3, Isolation::Serializable)]
    {
        let g = generate(&GenOptions { transactions: 2_000, isolation, seed, ..Default::default() });
        out.push((format!("list {seed}"), read(g.history.as_bytes(), Format::Edn).unwrap()));
        // Every 13th completion indeterminate: appends of some are read, and promoted.
        let mut n = 0;
        let info: String = g
            .history
            .lines()
            .map(|l| {
                n += usize::from(l.contains(":type :ok"));
                if n % 13 == 0 && l.contains(":type :ok") {
                    l.replacen(":type :ok", ":type :info", 1) + "\n"
                } else {
                    l.to_string() + "\n"
                }
            })
            .collect();
        out.push((format!("list {seed}, indeterminate"), read(info.as_bytes(), Format::Edn).unwrap()));
        let g = generate(&GenOptions {
            transactions: 2_000,
            isolation,
            seed,
            model: DataModel::RwRegister,
            ..Default::default()
        });
        let mut h = read(g.history.as_bytes(), Format::Edn).unwrap();
        read_wal(&mut h, g.wal.as_deref().unwrap_or_default().as_bytes()).unwrap();
        out.push((format!("registers {seed}"), h));
    }
    out
}

fn adjacency(g: &DependencyGraph) -> Vec<(u32, u32, u8)> {
    (0..g.is_vertex.len() as u32).flat_map(|v| g.out(v).iter().map(move |s| (v, { s.to }, { s.mask }))).collect()
}

fn pairs(edges: &[Edge]) -> Vec<(u32, u32, EdgeType)> {
    let mut p: Vec<_> = edges.iter().map(|e| ({ e.from }, { e.to }, { e.ty })).collect();
    p.dedup();
    p
}

#[test]
fn the_search_graph_is_the_full_graph_without_its_edges() {
    let mut promoted = 0;
    for (name, h) in histories() {
        let full = infer(&h);
        let search = Needs::Search.infer(&h);
        assert!(full.graph.edges_kept && !search.graph.edges_kept, "{name}");
        assert!(search.graph.edges.is_empty(), "{name}");
        assert_eq!(adjacency(&search.graph), adjacency(&full.graph), "{name}");
        assert_eq!(search.graph.counts(), full.graph.counts(), "{name}");
        assert_eq!(search.graph.is_vertex, full.graph.is_vertex, "{name}");
        promoted += usize::from(full.graph.vertex_count() > h.count_by_status()[0]);
        // Every pair's edges, and some pairs' alone (plus pairs without any edge).
        let all = pairs(&full.graph.edges);
        assert!(all.len() > 100, "{name}: {} pairs", all.len());
        assert_eq!(provenance(&h, &search, &all).edges, full.graph.edges, "{name}");
        let mut some: Vec<_> = all.iter().copied().step_by(7).collect();
        some.extend([(0, 1, EdgeType::Rw), (1, 0, EdgeType::Ww), (5, 5, EdgeType::Wr)]);
        let found = provenance(&h, &search, &some).edges;
        let expected: Vec<Edge> =
            full.graph.edges.iter().filter(|e| some.contains(&({ e.from }, { e.to }, { e.ty }))).copied().collect();
        assert_eq!(found, expected, "{name}");
    }
    assert!(promoted > 0, "some history promotes an indeterminate transaction");
}

#[test]
fn reports_of_the_search_graph_are_those_of_the_full_graph() {
    let level_sets = [vec![Level::Ser], vec![Level::Pl2, Level::Pl1], vec![Level::Ser, Level::Pl2]];
    let mut violated = 0;
    for (name, h) in histories() {
        let full = infer(&h);
        for levels in &level_sets {
            let opts = CheckOptions { levels: levels.clone(), ..Default::default() };
            assert_eq!(grail_core::report::needs(&h, &opts), Needs::Search, "{name}");
            let r = grail_core::check(&h, &opts);
            violated += usize::from(r.valid == Some(false));
            let expected = grail_core::check_inferred(&h, &full, &opts, None);
            assert_eq!(r.to_json(), expected.to_json(), "{name}, {levels:?}");
        }
    }
    assert!(violated > 0, "some history violates a level checked");
}
