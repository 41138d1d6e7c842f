//! The engine against a brute-force oracle: enumerate every simple cycle of small random
//! multigraphs, every choice of one label per step, and classify each word by the definitions
//! of `../shared/LEVELS.md` written out afresh here (not the engine's `matches`).

mod common;

use common::label_words;
use grail_core::anomaly::AnomalyKind;
use grail_core::graph::search::{components, Budget, Searched, Searcher};
use grail_core::graph::{DependencyGraph, Edge, EdgeType};
use grail_core::level::pattern;
use proptest::prelude::*;

const KINDS: [AnomalyKind; 5] =
    [AnomalyKind::G0, AnomalyKind::G1c, AnomalyKind::GSingle, AnomalyKind::GNonadjacent, AnomalyKind::G2Item];

/// Adya's definitions on a cyclic word.
fn oracle(kind: AnomalyKind, w: &[EdgeType]) -> bool {
    let n = w.len();
    let rw = w.iter().filter(|&&t| t == EdgeType::Rw).count();
    let wr = w.iter().filter(|&&t| t == EdgeType::Wr).count();
    let adjacent = (0..n).any(|i| w[i] == EdgeType::Rw && w[(i + 1) % n] == EdgeType::Rw);
    match kind {
        AnomalyKind::G0 => rw == 0 && wr == 0,
        AnomalyKind::G1c => rw == 0 && wr > 0,
        AnomalyKind::GSingle => rw == 1,
        AnomalyKind::GNonadjacent => rw >= 1 && !adjacent,
        AnomalyKind::G2Item => rw >= 1,
        _ => unreachable!(),
    }
}

fn graph(n: usize, edges: &[(u32, u32, u8)]) -> DependencyGraph {
    let mut raw = Vec::new();
    for &(a, b, mask) in edges {
        for t in EdgeType::ALL {
            if mask & t.bit() != 0 {
                raw.push(Edge { from: a, to: b, ty: t, key: 0, from_op: 0, to_op: 0 });
            }
        }
    }
    DependencyGraph::new(vec![true; n], raw)
}

/// Every simple cycle (as a vertex list starting at its least vertex), each with every word.
fn brute(g: &DependencyGraph, n: usize) -> Vec<(Vec<u32>, Vec<EdgeType>)> {
    let mut out = Vec::new();
    fn dfs(g: &DependencyGraph, start: u32, path: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        let v = *path.last().unwrap();
        for &grail_core::graph::Succ { to: w, mask: _ } in g.out(v) {
            if w == start {
                out.push(path.clone());
            } else if w > start && !path.contains(&w) {
                path.push(w);
                dfs(g, start, path, out);
                path.pop();
            }
        }
    }
    let mut cycles = Vec::new();
    for s in 0..n as u32 {
        dfs(g, s, &mut vec![s], &mut cycles);
    }
    for c in cycles {
        let masks: Vec<u8> =
            (0..c.len()).map(|i| g.out(c[i]).iter().find(|x| x.to == c[(i + 1) % c.len()]).unwrap().mask).collect();
        let words = label_words(&masks);
        for w in words {
            out.push((c.clone(), w));
        }
    }
    out
}

fn arb_graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, u8)>)> {
    (2usize..7).prop_flat_map(|n| {
        let edge = (0..n as u32, 0..n as u32, 1u8..8).prop_filter("no self-loop", |(a, b, _)| a != b);
        (Just(n), prop::collection::vec(edge, 0..(n * 3)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_brute_force((n, edges) in arb_graph()) {
        let g = graph(n, &edges);
        let all = brute(&g, n);
        let comps = components(&g);
        let mut searcher = Searcher::new(&g);
        for kind in KINDS {
            let p = pattern(kind).unwrap();
            let matching: Vec<&(Vec<u32>, Vec<EdgeType>)> = all.iter().filter(|(_, w)| oracle(kind, w)).collect();
            let out = searcher.search(&comps, &p, &mut Budget::unlimited(), 100);
            match out {
                Searched::Holds => prop_assert!(matching.is_empty(), "{kind:?}: engine says holds, brute force found {:?}", matching[0]),
                Searched::Unknown(why) => prop_assert!(false, "unknown without a budget: {why}"),
                Searched::Violated(cycles) => {
                    prop_assert!(!matching.is_empty(), "{kind:?}: engine found {cycles:?}, brute force none");
                    for c in &cycles {
                        // A real simple cycle of the graph, matching the anomaly.
                        let k = c.txns.len();
                        prop_assert_eq!(k, c.types.len());
                        let mut sorted = c.txns.clone();
                        sorted.sort_unstable();
                        sorted.dedup();
                        prop_assert_eq!(sorted.len(), k, "not simple: {:?}", c);
                        for i in 0..k {
                            let m = g.out(c.txns[i]).iter().find(|x| x.to == c.txns[(i + 1) % k]).map(|x| x.mask).unwrap_or(0);
                            prop_assert!(m & c.types[i].bit() != 0, "edge {:?} not in graph", c);
                        }
                        prop_assert!(oracle(kind, &c.types), "{kind:?} does not match {:?}", c.types);
                        // Minimal within its component.
                        let comp = comps.iter().find(|cc| cc.contains(&c.txns[0])).unwrap();
                        let best = matching.iter().filter(|(cy, _)| comp.contains(&cy[0])).map(|(cy, _)| cy.len()).min().unwrap();
                        prop_assert!(c.minimal);
                        prop_assert_eq!(k, best, "{:?}: not the shortest ({} < {})", kind, best, k);
                    }
                    // One cycle per component that has a matching cycle.
                    let violating = comps.iter().filter(|cc| matching.iter().any(|(cy, _)| cc.contains(&cy[0]))).count();
                    prop_assert_eq!(cycles.len(), violating);
                }
            }
        }
    }
}

#[test]
fn budget_makes_verdicts_unknown_not_guesses() {
    // A long ring of WR edges with one RW chord: G-single needs a reachability search.
    let n = 200u32;
    let mut edges: Vec<(u32, u32, u8)> = (0..n).map(|i| (i, (i + 1) % n, EdgeType::Wr.bit())).collect();
    edges.push((5, 3, EdgeType::Rw.bit()));
    let g = graph(n as usize, &edges);
    let comps = components(&g);
    let p = pattern(AnomalyKind::GSingle).unwrap();
    let mut s = Searcher::new(&g);
    match s.search(&comps, &p, &mut Budget::new(10, None), 8) {
        Searched::Unknown(why) => assert!(why.contains("budget"), "{why}"),
        other => panic!("expected unknown under a 10-step budget, got {other:?}"),
    }
    match s.search(&comps, &p, &mut Budget::unlimited(), 8) {
        Searched::Violated(c) => assert_eq!(c[0].txns.len(), 3), // 5 -rw-> 3 -wr-> 4 -wr-> 5
        other => panic!("expected a violation, got {other:?}"),
    }
}

/// A case proptest found: the cycle 0 -rw-> 1 -rw-> 2 -ww-> 0 has adjacent RW edges, and the
/// only other cycle (1 -ww-> 3 -ww-> 1) has none, so there is no G-nonadjacent.
#[test]
fn adjacent_rw_edges_are_no_g_nonadjacent() {
    let g = graph(5, &[(1, 3, 1), (3, 1, 1), (1, 2, 4), (0, 1, 4), (2, 0, 1)]);
    let p = pattern(AnomalyKind::GNonadjacent).unwrap();
    let out = Searcher::new(&g).search(&components(&g), &p, &mut Budget::unlimited(), 100);
    assert!(matches!(out, Searched::Holds), "{out:?}");
}
