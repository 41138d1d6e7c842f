//! SCC-based checking (GRAIL's Pregel and Neo4j-GDS checkers, thesis 4.3 and Appendix C) with
//! Gabow's path-based strong component algorithm (thesis Algorithm 8), made iterative.
//!
//! On the product of the graph with the level's automaton ([`Automaton`]), a cycle is a closed
//! walk that returns to its state, which is what a pattern without at-most-once or must types
//! asks: SER, PL-2 and PL-1 (no state: a strongly connected component of two or more vertices
//! in the subgraph of allowed labels is a violation, Appendix C) and SI (was the last label rw: a
//! cycle of the product has no adjacent rw, the wrap-around included). A pattern with
//! at-most-once types (PSI: one rw) is decided as a cycle without them, or an edge of such a
//! type `u -> v` inside a component of the allowed graph with a back-path from `v` to `u`
//! without them in that component (one BFS per such edge). A pattern with must types, or with a
//! type both at-most-once and no-adjacent (no level's pattern has either), is left to the
//! shortest-path search. Like Algorithm 8, the search stops at the first
//! component of two or more vertices.

use super::{shortest_path, simple_cycle, Automaton, Bfs, Counters};
use crate::graph::{DependencyGraph, EdgeType};
use crate::history::TxnId;
use crate::level::Level;

const NONE: u32 = u32::MAX;

/// Strongly connected components of the product graph of `a` (nodes `k v + s` for `k`
/// states). Returns the component id of each node (`NONE` for unreached) and the first
/// component with two or more nodes, if `stop_at_first`, or every such component.
fn components(g: &DependencyGraph, a: &Automaton, stop_at_first: bool, c: &mut Counters) -> (Vec<u32>, Vec<Vec<u32>>) {
    let n = g.is_vertex.len();
    let states = a.states() as u32;
    let mut pre = vec![NONE; states as usize * n];
    let mut comp = vec![NONE; states as usize * n];
    let mut s_stack: Vec<u32> = Vec::new();
    let mut b_stack: Vec<u32> = Vec::new();
    // Call stack: (node, next pair index, next label slot).
    let mut call: Vec<(u32, u32, u8)> = Vec::new();
    let (mut counter, mut ncomp) = (0u32, 0u32);
    let mut found: Vec<Vec<u32>> = Vec::new();
    for v in (0..n as u32).filter(|&v| g.is_vertex[v as usize]) {
        for s in 0..states {
            let root = states * v + s;
            if pre[root as usize] != NONE {
                continue;
            }
            c.traversals += 1;
            pre[root as usize] = counter;
            counter += 1;
            s_stack.push(root);
            b_stack.push(pre[root as usize]);
            call.push((root, 0, 0));
            while let Some(top) = call.last_mut() {
                let (x, i, k) = *top;
                let (xv, xs) = (x / states, (x % states) as u8);
                let out = g.out(xv);
                if (i as usize) < out.len() {
                    let crate::graph::Succ { to: w, mask } = out[i as usize];
                    let Some(t) = a.labels(mask).get(k as usize) else {
                        *top = (x, i + 1, 0);
                        continue;
                    };
                    *top = (x, i, k + 1);
                    c.edges_visited += 1;
                    let Some(s2) = a.step(xs, t) else { continue };
                    let y = states * w + s2 as u32;
                    if pre[y as usize] == NONE {
                        pre[y as usize] = counter;
                        counter += 1;
                        s_stack.push(y);
                        b_stack.push(pre[y as usize]);
                        call.push((y, 0, 0));
                    } else if comp[y as usize] == NONE {
                        // Contract the path: everything above y's preorder joins y's component.
                        while b_stack.last().is_some_and(|&b| pre[y as usize] < b) {
                            b_stack.pop();
                        }
                    }
                    continue;
                }
                call.pop();
                if b_stack.last() == Some(&pre[x as usize]) {
                    b_stack.pop();
                    let mut members = Vec::new();
                    while let Some(y) = s_stack.pop() {
                        comp[y as usize] = ncomp;
                        members.push(y);
                        if y == x {
                            break;
                        }
                    }
                    ncomp += 1;
                    if members.len() > 1 {
                        found.push(members);
                        if stop_at_first {
                            return (comp, found);
                        }
                    }
                }
            }
        }
    }
    (comp, found)
}

pub(super) fn search(g: &DependencyGraph, l: Level, c: &mut Counters) -> Option<Vec<(TxnId, EdgeType)>> {
    search_with(g, &Automaton::of_level(l), l, c)
}

/// A cycle of `a`'s pattern, checked against `l` ([`simple_cycle`]).
fn search_with(g: &DependencyGraph, a: &Automaton, l: Level, c: &mut Counters) -> Option<Vec<(TxnId, EdgeType)>> {
    let p = a.pattern();
    if p.must != 0 || p.once & p.no_adjacent != 0 {
        return shortest_path::search(g, l, c);
    }
    let mut bfs = Bfs::new();
    if p.once & p.allowed != 0 {
        let free = a.without_once();
        if let Some(cycle) = search_with(g, &free, l, c) {
            return Some(cycle);
        }
        let (comp, _) = components(g, &a.any_cycle(), false, c);
        for u in 0..g.is_vertex.len() as TxnId {
            let cu = comp[u as usize];
            if cu == NONE {
                continue;
            }
            for &crate::graph::Succ { to: v, mask } in g.out(u) {
                let Some(t) = EdgeType::ALL.into_iter().find(|t| mask & p.once & t.bit() != 0) else { continue };
                if comp[v as usize] != cu {
                    continue;
                }
                c.edges_visited += 1;
                let within = |w: TxnId| comp[w as usize] == cu;
                if let Some((path, _, _)) = bfs.run(g, &free, (v, 0), &within, &|w, _| w == u, c) {
                    let mut walk = vec![(u, t)];
                    walk.extend(path);
                    if let Some(cycle) = simple_cycle(l, walk) {
                        return Some(cycle);
                    }
                }
            }
        }
        return None;
    }
    let (comp, found) = components(g, a, true, c);
    let members = found.into_iter().next()?;
    // A witness: a shortest closed walk in the product from one member back to itself.
    let k = a.states() as u32;
    let x = members[0];
    let id = comp[x as usize];
    let within = |w: TxnId| (0..k).any(|s| comp[(k * w + s) as usize] == id);
    let (walk, _, _) = bfs.run(g, a, (x / k, (x % k) as u8), &within, &|w, s| k * w + s as u32 == x, c)?;
    simple_cycle(l, walk)
}
