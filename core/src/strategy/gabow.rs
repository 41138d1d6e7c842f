//! SCC-based checking (GRAIL's Pregel and Neo4j-GDS checkers, thesis 4.3 and Appendix C) with
//! Gabow's path-based strong component algorithm (thesis Algorithm 8), made iterative.
//!
//! SER, PL-2 and PL-1: a strongly connected component of two or more vertices in the subgraph of
//! allowed labels is a violation (Appendix C). SI: the same on the product of the graph with
//! "was the last label rw" (a cycle of the product is a closed walk without adjacent rw, the
//! wrap-around included). PSI: a PL-2 cycle, or an rw edge `u -> v` inside a component of the
//! whole graph with a ww/wr back-path from `v` to `u` in that component (one BFS per such edge).
//! Like Algorithm 8, the search stops at the first component of two or more vertices.

use super::{labels, simple_cycle, step, Bfs, Counters};
use crate::graph::{DependencyGraph, EdgeType};
use crate::history::TxnId;
use crate::level::Level;

const NONE: u32 = u32::MAX;

/// Strongly connected components of the product graph of `l` (nodes `2 v + s`; only state 0
/// unless `l` is SI). Returns the component id of each node (`NONE` for unreached) and the
/// first component with two or more nodes, if `stop_at_first`, or every such component.
fn components(g: &DependencyGraph, l: Level, stop_at_first: bool, c: &mut Counters) -> (Vec<u32>, Vec<Vec<u32>>) {
    let n = g.is_vertex.len();
    let states: u32 = if l == Level::Si { 2 } else { 1 };
    let mut pre = vec![NONE; 2 * n];
    let mut comp = vec![NONE; 2 * n];
    let mut s_stack: Vec<u32> = Vec::new();
    let mut b_stack: Vec<u32> = Vec::new();
    // Call stack: (node, next pair index, next label slot).
    let mut call: Vec<(u32, u32, u8)> = Vec::new();
    let (mut counter, mut ncomp) = (0u32, 0u32);
    let mut found: Vec<Vec<u32>> = Vec::new();
    for v in (0..n as u32).filter(|&v| g.is_vertex[v as usize]) {
        for s in 0..states {
            let root = 2 * v + s;
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
                let (xv, xs) = (x / 2, (x % 2) as u8);
                let out = g.out(xv);
                if (i as usize) < out.len() {
                    let (w, mask) = out[i as usize];
                    let lab = labels(l, mask)[k as usize];
                    *top = if k == 1 { (x, i + 1, 0) } else { (x, i, 1) };
                    let Some(t) = lab else { continue };
                    c.edges_visited += 1;
                    let Some(s2) = step(l, xs, t) else { continue };
                    let y = 2 * w + s2 as u32;
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
    let n = g.is_vertex.len();
    let mut bfs = Bfs::new(n);
    if l == Level::Psi {
        if let Some(cycle) = search(g, Level::Pl2, c) {
            return Some(cycle);
        }
        let (comp, _) = components(g, Level::Ser, false, c);
        for u in 0..n as TxnId {
            let cu = comp[2 * u as usize];
            if cu == NONE {
                continue;
            }
            for &(v, mask) in g.out(u) {
                if mask & EdgeType::Rw.bit() == 0 || comp[2 * v as usize] != cu {
                    continue;
                }
                c.edges_visited += 1;
                let within = |w: TxnId| comp[2 * w as usize] == cu;
                if let Some((path, _, _)) = bfs.run(g, Level::Pl2, (v, 0), &within, &|w, _| w == u, c) {
                    let mut walk = vec![(u, EdgeType::Rw)];
                    walk.extend(path);
                    if let Some(cycle) = simple_cycle(l, walk) {
                        return Some(cycle);
                    }
                }
            }
        }
        return None;
    }
    let (comp, found) = components(g, l, true, c);
    let members = found.into_iter().next()?;
    // A witness: a shortest closed walk in the product from one member back to itself.
    let x = members[0];
    let id = comp[x as usize];
    let within = |w: TxnId| comp[2 * w as usize] == id || comp[2 * w as usize + 1] == id;
    let (walk, _, _) = bfs.run(g, l, (x / 2, (x % 2) as u8), &within, &|w, s| 2 * w + s as u32 == x, c)?;
    simple_cycle(l, walk)
}
