//! Topological order of a small directed graph given as an edge list (Kahn's algorithm), with
//! ties broken by a priority when one is given.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A topological order of nodes `0..n` under `edges`, or `None` when they have a cycle. With
/// `prio`, among the nodes ready the one of least priority goes first; else input order.
pub fn order(n: usize, edges: &[(u32, u32)], prio: Option<&dyn Fn(u32) -> u64>) -> Option<Vec<u32>> {
    let mut indeg = vec![0u32; n];
    let (start, succ) = adjacency(n, edges, &mut indeg);
    let mut out = Vec::with_capacity(n);
    let ready = (0..n as u32).filter(|&v| indeg[v as usize] == 0);
    match prio {
        None => {
            let mut queue: std::collections::VecDeque<u32> = ready.collect();
            while let Some(v) = queue.pop_front() {
                out.push(v);
                for &w in &succ[start[v as usize] as usize..start[v as usize + 1] as usize] {
                    indeg[w as usize] -= 1;
                    if indeg[w as usize] == 0 {
                        queue.push_back(w);
                    }
                }
            }
        }
        Some(p) => {
            let mut heap: BinaryHeap<Reverse<(u64, u32)>> = ready.map(|v| Reverse((p(v), v))).collect();
            while let Some(Reverse((_, v))) = heap.pop() {
                out.push(v);
                for &w in &succ[start[v as usize] as usize..start[v as usize + 1] as usize] {
                    indeg[w as usize] -= 1;
                    if indeg[w as usize] == 0 {
                        heap.push(Reverse((p(w), w)));
                    }
                }
            }
        }
    }
    (out.len() == n).then_some(out)
}

/// A topological order of the dependency graph's vertices with `extra` edges, or `None` when
/// they have a cycle: [`order`] without copying the graph's edges (a serial witness of a large
/// history, where the copy cost as much as the sort).
pub fn order_of_graph(g: &crate::graph::DependencyGraph, extra: &[(u32, u32)]) -> Option<Vec<u32>> {
    let n = g.is_vertex.len();
    let vertex = |v: u32| g.is_vertex.get(v as usize).copied().unwrap_or(false);
    // Where every edge runs forward in the history (dependencies mostly follow completion
    // order), the history's own order is one: a pass over the edges, not Kahn's two.
    let forward = (0..n as u32).all(|v| !vertex(v) || g.out(v).iter().all(|s| s.to > v || !vertex(s.to)))
        && extra.iter().all(|&(a, b)| a < b);
    if forward {
        return Some((0..n as u32).collect());
    }
    let mut indeg = vec![0u32; n];
    for v in (0..n as u32).filter(|&v| vertex(v)) {
        for s in g.out(v) {
            let to = { s.to };
            if vertex(to) {
                indeg[to as usize] += 1;
            }
        }
    }
    // Extra edges as a second adjacency.
    let (start, succ) = adjacency(n, extra, &mut indeg);
    // Kahn's algorithm visiting the ready nodes in index order as far as the edges allow: a
    // scan emits each node whose predecessors are out, and a node made ready behind the scan
    // goes out at once. The order stays near the history's, which a replay reads in order
    // (a queue of all sources first jumped across the history and cost the replay its caches).
    let mut out = Vec::with_capacity(n);
    let mut behind: Vec<u32> = Vec::new();
    for i in 0..n as u32 {
        if indeg[i as usize] != 0 {
            continue;
        }
        behind.push(i);
        while let Some(v) = behind.pop() {
            out.push(v);
            let dep = g.out(v).iter().map(|s| s.to).filter(|&w| vertex(w) && vertex(v));
            for w in dep.chain(succ[start[v as usize] as usize..start[v as usize + 1] as usize].iter().copied()) {
                indeg[w as usize] -= 1;
                if indeg[w as usize] == 0 && w < i {
                    behind.push(w);
                }
            }
        }
    }
    (out.len() == n).then_some(out)
}

/// The edges among nodes `0..n` as an adjacency (each node's successors are
/// `succ[start[v]..start[v + 1]]`), counting each edge into `indeg`; edges out of range dropped.
pub fn adjacency(n: usize, edges: &[(u32, u32)], indeg: &mut [u32]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for &(a, b) in edges {
        if (a as usize) < n && (b as usize) < n {
            start[a as usize + 1] += 1;
            if let Some(d) = indeg.get_mut(b as usize) {
                *d += 1;
            }
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let mut succ = vec![0u32; start[n] as usize];
    for &(a, b) in edges {
        if (a as usize) < n && (b as usize) < n {
            succ[next[a as usize] as usize] = b;
            next[a as usize] += 1;
        }
    }
    (start, succ)
}

#[cfg(test)]
mod tests {
    use super::order;

    #[test]
    fn orders_and_finds_cycles() {
        assert_eq!(order(3, &[(2, 1), (1, 0)], None), Some(vec![2, 1, 0]));
        assert_eq!(order(3, &[(0, 1), (1, 0)], None), None);
        let p = |v: u32| u64::from(2 - v);
        assert_eq!(order(3, &[], Some(&p)), Some(vec![2, 1, 0]));
    }

    #[test]
    fn orders_a_graph_near_its_own_order() {
        use super::order_of_graph;
        use crate::graph::{DependencyGraph, Edge, EdgeType};
        let e = |from, to| Edge { from, to, ty: EdgeType::Wr, key: 0, from_op: 0, to_op: 0 };
        let g = |edges: Vec<Edge>| DependencyGraph::new(vec![true; 4], edges);
        // Every edge forward: the history's order.
        assert_eq!(order_of_graph(&g(vec![e(0, 2), e(1, 3)]), &[]), Some(vec![0, 1, 2, 3]));
        // One edge back (3 before 1): 1 waits for 3, the rest keep their places.
        assert_eq!(order_of_graph(&g(vec![e(0, 2), e(3, 1)]), &[]), Some(vec![0, 2, 3, 1]));
        // An extra edge back, and a cycle.
        assert_eq!(order_of_graph(&g(vec![]), &[(2, 0)]), Some(vec![1, 2, 0, 3]));
        assert_eq!(order_of_graph(&g(vec![e(0, 1), e(1, 0)]), &[]), None);
    }
}
