//! Reachability in the product graph of the known edges through a chain cover (Jagadish,
//! "A compression technique to materialize transitive closure", TODS 1990): the state-1 nodes
//! are split into chains, each node linked to the next by an arc, and every node keeps, per
//! chain, the first position on it that it reaches. A node reaches a chain's node exactly when
//! that first position is not after it. With session order among the edges the sessions make
//! the chains, so a round of pruning costs the arcs times the sessions instead of the arcs
//! times the nodes queried (the bit sets of [`super::prune`]), which is quadratic.
//!
//! Only SER and SI: under SER every node used is in state 1; under SI a state-0 node `(x, 0)`
//! is entered only by an RW arc from some `(r, 1)`, so reaching it is reaching one of those.

use super::graph::Mode;
use super::prune::Arcs;

const NONE: u32 = u32::MAX;

pub struct Chains {
    /// Per node: its chain and position on it (`NONE` off every chain).
    chain: Vec<u32>,
    index: Vec<u32>,
    /// Per node, per chain: the first position it reaches (`NONE`: none).
    first: Vec<u32>,
    k: usize,
    /// Sources of the arcs into each node (CSR), for state-0 nodes.
    rev_start: Vec<u32>,
    rev: Vec<u32>,
}

impl Chains {
    /// The cover and index for these arcs in topological `order`, or `None` when the mode is
    /// not SER or SI, or the cover needs `max_chains` chains or more (the bit sets are cheaper).
    pub fn new(arcs: &Arcs, order: &[u32], mode: Mode, nodes: usize, max_chains: usize) -> Option<Chains> {
        if !matches!(mode, Mode::Ser | Mode::Si) {
            return None;
        }
        // Arcs into each node.
        let mut rev_start = vec![0u32; nodes + 1];
        for p in 0..nodes {
            for &q in arcs.of(p) {
                rev_start[q as usize + 1] += 1;
            }
        }
        for i in 1..rev_start.len() {
            rev_start[i] += rev_start[i - 1];
        }
        let mut fill = rev_start.clone();
        let mut rev = vec![0u32; rev_start[nodes] as usize];
        // Whether each arc in is session or real-time order (the cover follows those first).
        let mut rev_order = vec![false; rev.len()];
        for p in 0..nodes {
            for a in arcs.range(p) {
                let q = arcs.to[a];
                let slot = fill[q as usize] as usize;
                rev[slot] = p as u32;
                rev_order[slot] = arcs.order[a];
                fill[q as usize] += 1;
            }
        }
        // Greedy cover of the state-1 nodes with arcs, in topological order: each joins a
        // chain whose last node has an arc to it, by session order where it can.
        let mut chain = vec![NONE; nodes];
        let mut index = vec![NONE; nodes];
        let mut tail: Vec<u32> = Vec::new();
        let mut pos = vec![0u32; nodes];
        for (i, &p) in order.iter().enumerate() {
            pos[p as usize] = i as u32;
        }
        for &p in order {
            let p = p as usize;
            if p % 2 == 0 && mode == Mode::Si {
                continue;
            }
            let ins = rev_start[p] as usize..rev_start[p + 1] as usize;
            if ins.is_empty() && arcs.of(p).is_empty() {
                continue;
            }
            let best = ins
                .filter(|&a| {
                    let q = rev[a] as usize;
                    chain[q] != NONE && tail[chain[q] as usize] == q as u32
                })
                .max_by_key(|&a| {
                    let q = rev[a] as usize;
                    (rev_order[a], pos[q])
                });
            let c = match best {
                Some(a) => chain[rev[a] as usize],
                None => {
                    if tail.len() + 1 >= max_chains {
                        return None;
                    }
                    tail.push(NONE);
                    tail.len() as u32 - 1
                }
            };
            index[p] = if tail[c as usize] == NONE { 0 } else { index[tail[c as usize] as usize] + 1 };
            chain[p] = c;
            tail[c as usize] = p as u32;
        }
        let k = tail.len();
        let mut first = vec![NONE; nodes * k];
        for &p in order.iter().rev() {
            let p = p as usize;
            for &q in arcs.of(p) {
                let q = q as usize;
                let (lo, hi) = first.split_at_mut(p.max(q) * k);
                let (row, other) =
                    if q > p { (&mut lo[p * k..p * k + k], &hi[..k]) } else { (&mut hi[..k], &lo[q * k..q * k + k]) };
                for (a, b) in row.iter_mut().zip(other) {
                    *a = (*a).min(*b);
                }
                if chain[q] != NONE {
                    let a = &mut row[chain[q] as usize];
                    *a = (*a).min(index[q]);
                }
            }
        }
        Some(Chains { chain, index, first, k, rev_start, rev })
    }

    /// Whether product node `p` reaches node `q` by one arc or more.
    pub fn reaches(&self, p: usize, q: usize) -> bool {
        if self.chain[q] != NONE {
            return self.first[p * self.k + self.chain[q] as usize] <= self.index[q];
        }
        // A state-0 node (SI): through one of the nodes with an arc into it.
        q % 2 == 0
            && self.rev[self.rev_start[q] as usize..self.rev_start[q + 1] as usize].iter().any(|&r| {
                let r = r as usize;
                r == p || (self.chain[r] != NONE && self.first[p * self.k + self.chain[r] as usize] <= self.index[r])
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, EdgeType};
    use crate::polygraph::prune::Arcs;
    use crate::polygraph::Origin;

    /// Every pair of product nodes: the chain index answers as a breadth-first search does.
    #[test]
    fn chains_answer_as_search_does() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut checked = 0;
        for _ in 0..200 {
            let n = 3 + next(12) as u32;
            let kinds = [EdgeType::Ww, EdgeType::Wr, EdgeType::Rw, EdgeType::So];
            // Edges forward in 0..n (a DAG in every state), some of them session order.
            let edges: Vec<(Edge, Origin)> = (0..next(3 * n as u64) + 1)
                .filter_map(|_| {
                    let (a, b) = (next(n as u64) as u32, next(n as u64) as u32);
                    let ty = kinds[next(4) as usize];
                    (a < b).then_some((Edge { from: a, to: b, ty, key: 0, from_op: 0, to_op: 0 }, Origin::Certain))
                })
                .collect();
            for mode in [Mode::Ser, Mode::Si] {
                let nodes = 2 * n as usize;
                let arcs = Arcs::new(&edges, mode, nodes);
                let order = arcs.topo(nodes).expect("forward edges have no cycle");
                let Some(ch) = Chains::new(&arcs, &order, mode, nodes, 64) else { panic!("cover refused") };
                for p in 0..nodes {
                    // Breadth-first search from p.
                    let mut seen = vec![false; nodes];
                    let mut queue: Vec<usize> = arcs.of(p).iter().map(|&q| q as usize).collect();
                    while let Some(q) = queue.pop() {
                        if !seen[q] {
                            seen[q] = true;
                            queue.extend(arcs.of(q).iter().map(|&r| r as usize));
                        }
                    }
                    for (q, &reached) in seen.iter().enumerate() {
                        assert_eq!(ch.reaches(p, q), reached, "{mode:?} {p} -> {q}: {edges:?}");
                        checked += usize::from(reached);
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} reachable pairs");
    }
}
