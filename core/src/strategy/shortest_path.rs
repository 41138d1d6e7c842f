//! GRAIL's SP checker (thesis 4.2, Algorithm 4, Listings E.16-E.20; Neo4j-APOC likewise): for
//! every edge `u -t0-> v`, a shortest back-path from `v` to `u` closes a cycle. GRAIL filtered
//! the k shortest paths afterwards; here the BFS runs on the product with the level's automaton,
//! so the first back-path found is the shortest one whose cycle matches, and no matching cycle
//! through the edge is missed. Edges with the same head and the same automaton state after
//! their label share one BFS (its result does not depend on the tail); the BFS stops at the
//! first tail it reaches in a state that closes the cycle.

use super::{simple_cycle, Automaton, Bfs, Counters};
use crate::graph::{DependencyGraph, EdgeType};
use crate::history::TxnId;
use crate::level::Level;

pub(super) fn search(g: &DependencyGraph, l: Level, c: &mut Counters) -> Option<Vec<(TxnId, EdgeType)>> {
    let a = Automaton::of_level(l);
    let n = g.is_vertex.len();
    // In-edges per head: (tail, mask).
    let mut rin: Vec<Vec<(TxnId, u8)>> = vec![Vec::new(); n];
    for u in 0..n as TxnId {
        for &crate::graph::Succ { to: v, mask } in g.out(u) {
            rin[v as usize].push((u, mask));
        }
    }
    let mut bfs = Bfs::new();
    // For the current BFS: the first labels t0 (bits) of the in-edges from each tail.
    let mut tails: Vec<u8> = vec![0; n];
    let closing = |tails: &[u8], w: TxnId, s: u8| {
        EdgeType::ALL.into_iter().find(|&t0| tails[w as usize] & t0.bit() != 0 && a.closes(t0, s))
    };
    for v in 0..n as TxnId {
        for s0 in 0..a.states() {
            let mut any = false;
            for &(u, mask) in &rin[v as usize] {
                for t0 in a.labels(mask).iter() {
                    if a.step(0, t0) == Some(s0) {
                        tails[u as usize] |= t0.bit();
                        any = true;
                    }
                }
            }
            if !any {
                continue;
            }
            let found = bfs.run(g, &a, (v, s0), &|_| true, &|w, s| closing(&tails, w, s).is_some(), c);
            // The BFS stops only at a closing tail, so `closing` answers here.
            if let Some((path, u, t0)) = found.and_then(|(p, u, s)| Some((p, u, closing(&tails, u, s)?))) {
                let mut walk = vec![(u, t0)];
                walk.extend(path);
                if let Some(cycle) = simple_cycle(l, walk) {
                    return Some(cycle);
                }
            }
            for &(u, _) in &rin[v as usize] {
                tails[u as usize] = 0;
            }
        }
    }
    None
}
