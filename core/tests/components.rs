//! The strongly connected components of `graph::search::components` (an iterative Pearce on the
//! graph's own arrays) are petgraph's, on random graphs.

use grail_core::graph::search::components;
use grail_core::{DependencyGraph, Edge, EdgeType};
use petgraph::graph::{DiGraph, NodeIndex};
use proptest::prelude::*;

fn kosaraju(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let mut g: DiGraph<(), (), u32> = DiGraph::new();
    (0..n).for_each(|_| {
        g.add_node(());
    });
    for &(a, b) in edges.iter().filter(|(a, b)| a != b) {
        g.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
    }
    let mut comps: Vec<Vec<u32>> = petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut c: Vec<u32> = c.into_iter().map(|i| i.index() as u32).collect();
            c.sort_unstable();
            c
        })
        .collect();
    comps.sort_unstable_by_key(|c| c[0]);
    comps
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn pearce_agrees_with_kosaraju(n in 1usize..40, raw in prop::collection::vec((0u32..40, 0u32..40, 0u8..3), 0..120)) {
        let edges: Vec<(u32, u32)> = raw.iter().map(|&(a, b, _)| (a % n as u32, b % n as u32)).collect();
        let ty = [EdgeType::Ww, EdgeType::Wr, EdgeType::Rw];
        let raw_edges: Vec<Edge> = edges
            .iter()
            .zip(&raw)
            .map(|(&(from, to), r)| Edge { from, to, ty: ty[r.2 as usize], key: 0, from_op: 0, to_op: 0 })
            .collect();
        let g = DependencyGraph::new(vec![true; n], raw_edges);
        prop_assert_eq!(components(&g), kosaraju(n, &edges));
    }
}

#[test]
fn a_long_path_closed_into_one_cycle_does_not_overflow() {
    let n = 300_000u32;
    let edges: Vec<Edge> =
        (0..n).map(|v| Edge { from: v, to: (v + 1) % n, ty: EdgeType::Ww, key: 0, from_op: 0, to_op: 0 }).collect();
    let g = DependencyGraph::new(vec![true; n as usize], edges);
    let c = components(&g);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].len(), n as usize);
}
