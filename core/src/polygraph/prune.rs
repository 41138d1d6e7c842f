//! Pruning to a fixpoint (PolySI 4.3): a choice whose edges would close a forbidden cycle with
//! the known edges is impossible, so the other choice is forced and its edges become known.
//! Rounds repeat until nothing changes. Each round computes reachability in the product graph
//! of the known edges (a DAG, else the history is already violated) as bit sets over the
//! queried targets, in chunks of columns so that memory stays bounded.

use super::constraints::Polygraph;
use super::edges::{EdgeList, Edges};
use super::graph::{query, step, Mode};
use super::reach::Chains;
use crate::graph::search::Budget;
use crate::graph::{Edge, EdgeType};

/// Memory for one chunk of reachability bits.
const CHUNK_BYTES: usize = 96 << 20;

/// The most chains a chain cover may have ([`Chains`]).
const MAX_CHAINS: usize = 256;

pub enum PruneOutcome {
    /// Every remaining constraint has two possible choices so far.
    Open,
    /// The known edges (with the forced choices) close a forbidden cycle: indices into `edges`.
    Cycle(Vec<usize>),
    /// Both choices of this constraint close a cycle.
    Conflict(u32),
    Unknown,
}

pub struct Pruned<'p> {
    /// Known edges, then the edges of forced choices.
    pub edges: Edges<'p>,
    /// Per constraint: the forced choice (`Some(true)`: `a` before `b`), or `None`.
    pub resolved: Vec<Option<bool>>,
    pub rounds: u32,
    pub outcome: PruneOutcome,
}

/// `extra`: edges taken as known besides the polygraph's own.
pub fn prune<'p>(pg: &'p Polygraph, mode: Mode, extra: &[Edge], budget: &mut Budget) -> Pruned<'p> {
    let mut edges = Edges::of(pg, &pg.certain(extra));
    let mut resolved: Vec<Option<bool>> = vec![None; pg.cons.len()];
    let nodes = 2 * pg.n;
    let mut rounds = 0;
    loop {
        rounds += 1;
        let arcs = Arcs::new(&edges, mode, nodes);
        let Some(order) = arcs.topo(nodes) else {
            let cycle = arcs.cycle(&edges, mode, nodes);
            return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Cycle(cycle) };
        };
        if !budget.spend(arcs.to.len() as u64 + nodes as u64) {
            return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Unknown };
        }
        // Targets: the accepted tail states of every side edge of an open constraint.
        let mut col: Vec<u32> = vec![u32::MAX; nodes];
        let mut targets: Vec<u32> = Vec::new();
        for (ci, c) in pg.cons.iter().enumerate() {
            if resolved[ci].is_some() {
                continue;
            }
            for first in [true, false] {
                for e in pg.side(*c, first) {
                    let (_, acc) = query(mode, e.ty);
                    for s in 0..2u32 {
                        let p = (2 * e.from + s) as usize;
                        if acc[s as usize] && p < nodes && col[p] == u32::MAX {
                            col[p] = targets.len() as u32;
                            targets.push(p as u32);
                        }
                    }
                }
            }
        }
        if targets.is_empty() {
            return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Open };
        }
        let words = (CHUNK_BYTES / 8 / nodes.max(1)).clamp(1, targets.len().div_ceil(64));
        let chunk_cols = words * 64;
        // infeasible[ci][first]
        let mut infeasible: Vec<[bool; 2]> = vec![[false; 2]; pg.cons.len()];
        // A chain cover is cheaper when it needs fewer chains than the bit sets need words
        // (or few at all).
        let max_chains = MAX_CHAINS.min(targets.len().div_ceil(64).max(16));
        let chains = Chains::new(&arcs, &order, mode, nodes, max_chains);
        if let Some(chains) = &chains {
            if !budget.spend((arcs.to.len() * max_chains + nodes) as u64) {
                return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Unknown };
            }
            for (ci, c) in pg.cons.iter().enumerate() {
                if resolved[ci].is_none() {
                    for (si, first) in [true, false].into_iter().enumerate() {
                        infeasible[ci][si] = pg.side(*c, first).any(|e| {
                            let (start, acc) = query(mode, e.ty);
                            let from = (2 * e.to + start) as usize;
                            let to = |s: u32| (2 * e.from + s) as usize;
                            from < nodes && (0..2u32).any(|s| acc[s as usize] && chains.reaches(from, to(s)))
                        });
                    }
                }
            }
        }
        let chunks = if chains.is_some() { 0 } else { targets.len() };
        let mut bits: Vec<u64> = Vec::new();
        for chunk_start in (0..chunks).step_by(chunk_cols) {
            let chunk_end = (chunk_start + chunk_cols).min(targets.len());
            bits.clear();
            bits.resize(nodes * words, 0);
            if !budget.spend(((arcs.to.len() + nodes) * words) as u64) {
                return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Unknown };
            }
            for &p in order.iter().rev() {
                let p = p as usize;
                let (row_start, row_end) = (p * words, (p + 1) * words);
                let c = col[p] as usize;
                if col[p] != u32::MAX && (chunk_start..chunk_end).contains(&c) {
                    let c = c - chunk_start;
                    bits[row_start + c / 64] |= 1 << (c % 64);
                }
                for &q in arcs.of(p) {
                    let q = q as usize;
                    // Rows of successors are complete: they come later in topological order.
                    let (lo, hi) = bits.split_at_mut(row_start.max(q * words));
                    let (row, other) = if q * words > row_start {
                        (&mut lo[row_start..row_end], &hi[..words])
                    } else {
                        (&mut hi[..words], &lo[q * words..q * words + words])
                    };
                    for (a, b) in row.iter_mut().zip(other) {
                        *a |= *b;
                    }
                }
            }
            let reach = |from: usize, to: usize| -> bool {
                let c = col[to] as usize;
                if col[to] == u32::MAX || !(chunk_start..chunk_end).contains(&c) {
                    return false;
                }
                let c = c - chunk_start;
                bits[from * words + c / 64] >> (c % 64) & 1 == 1
            };
            for (ci, c) in pg.cons.iter().enumerate() {
                if resolved[ci].is_some() {
                    continue;
                }
                for (si, first) in [true, false].into_iter().enumerate() {
                    if infeasible[ci][si] {
                        continue;
                    }
                    infeasible[ci][si] = pg.side(*c, first).any(|e| {
                        let (start, acc) = query(mode, e.ty);
                        let from = (2 * e.to + start) as usize;
                        from < nodes && (0..2u32).any(|s| acc[s as usize] && reach(from, (2 * e.from + s) as usize))
                    });
                }
            }
        }
        let mut changed = false;
        for (ci, inf) in infeasible.iter().enumerate() {
            if resolved[ci].is_some() {
                continue;
            }
            match *inf {
                [true, true] => return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Conflict(ci as u32) },
                [true, false] | [false, true] => {
                    let first = !inf[0];
                    resolved[ci] = Some(first);
                    changed = true;
                    for (e, place) in pg.side_at(pg.cons[ci], first) {
                        edges.push_side(e, ci as u32, first, place);
                    }
                }
                _ => {}
            }
        }
        if !changed {
            return Pruned { edges, resolved, rounds, outcome: PruneOutcome::Open };
        }
    }
}

/// No pruning: the known edges, every constraint open (for tests of a search on its own).
pub fn known<'p>(pg: &'p Polygraph, mode: Mode, extra: &[Edge]) -> Pruned<'p> {
    let edges = Edges::of(pg, &pg.certain(extra));
    let resolved = vec![None; pg.cons.len()];
    let nodes = 2 * pg.n;
    let arcs = Arcs::new(&edges, mode, nodes);
    let outcome = match arcs.topo(nodes) {
        Some(_) => PruneOutcome::Open,
        None => PruneOutcome::Cycle(arcs.cycle(&edges, mode, nodes)),
    };
    Pruned { edges, resolved, rounds: 0, outcome }
}

/// The product graph of a set of edges, as CSR: each arc's head, and whether its edge is
/// session or real-time order (what [`Chains`] follows first). Which edge an arc comes from is
/// found again only for a cycle ([`Arcs::cycle`]): 4 bytes an arc that pruning's rounds on
/// tens of millions of arcs do not keep.
pub struct Arcs {
    start: Vec<u32>,
    pub(super) to: Vec<u32>,
    pub(super) order: Vec<bool>,
}

/// Each arc of the product graph of `edges`, in edge order: its tail, head and edge.
fn each_arc(edges: &dyn EdgeList, mode: Mode, nodes: usize, f: &mut dyn FnMut(u32, u32, u32)) {
    let states = super::graph::states(mode);
    for i in 0..edges.count() {
        let (from, to, ty) = edges.arc(i);
        if (2 * from.max(to) as usize) >= nodes || from == to {
            continue;
        }
        for &s in states {
            if let Some(s2) = step(mode, s, ty) {
                f(2 * from + s, 2 * to + s2, i as u32);
            }
        }
    }
}

impl Arcs {
    pub fn new(edges: &dyn EdgeList, mode: Mode, nodes: usize) -> Arcs {
        // Counting sort by tail (a comparison sort of millions of arcs took a quarter of a check).
        let mut start = vec![0u32; nodes + 1];
        each_arc(edges, mode, nodes, &mut |p, _, _| start[p as usize + 1] += 1);
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let mut to = vec![0u32; start[nodes] as usize];
        let mut order = vec![false; to.len()];
        each_arc(edges, mode, nodes, &mut |p, q, i| {
            let slot = fill[p as usize] as usize;
            to[slot] = q;
            order[slot] = matches!(edges.arc(i as usize).2, EdgeType::So | EdgeType::Rt);
            fill[p as usize] += 1;
        });
        Arcs { start, to, order }
    }

    /// The edge of each arc, in the arcs' order (the same counting sort again).
    fn edge_of_arcs(&self, edges: &dyn EdgeList, mode: Mode, nodes: usize) -> Vec<u32> {
        let mut fill = self.start.clone();
        let mut edge = vec![0u32; self.to.len()];
        each_arc(edges, mode, nodes, &mut |p, _, i| {
            edge[fill[p as usize] as usize] = i;
            fill[p as usize] += 1;
        });
        edge
    }

    /// Where node `p`'s arcs are in `to` and `order`.
    pub(super) fn range(&self, p: usize) -> std::ops::Range<usize> {
        self.start[p] as usize..self.start[p + 1] as usize
    }

    pub(super) fn of(&self, p: usize) -> &[u32] {
        &self.to[self.range(p)]
    }

    /// Kahn's topological order taking the ready node with the smallest `key` first, or
    /// `None` when there is a cycle.
    pub fn topo_by(&self, nodes: usize, key: &dyn Fn(u32) -> u64) -> Option<Vec<u32>> {
        use std::cmp::Reverse;
        let mut indeg = vec![0u32; nodes];
        for &q in &self.to {
            indeg[q as usize] += 1;
        }
        let mut ready: std::collections::BinaryHeap<Reverse<(u64, u32)>> =
            (0..nodes as u32).filter(|&p| indeg[p as usize] == 0).map(|p| Reverse((key(p), p))).collect();
        let mut order = Vec::with_capacity(nodes);
        while let Some(Reverse((_, p))) = ready.pop() {
            order.push(p);
            for &q in self.of(p as usize) {
                indeg[q as usize] -= 1;
                if indeg[q as usize] == 0 {
                    ready.push(Reverse((key(q), q)));
                }
            }
        }
        (order.len() == nodes).then_some(order)
    }

    /// Kahn's topological order, or `None` when there is a cycle.
    pub(super) fn topo(&self, nodes: usize) -> Option<Vec<u32>> {
        let mut indeg = vec![0u32; nodes];
        for &q in &self.to {
            indeg[q as usize] += 1;
        }
        let mut order: Vec<u32> = (0..nodes as u32).filter(|&p| indeg[p as usize] == 0).collect();
        let mut head = 0;
        while head < order.len() {
            let p = order[head] as usize;
            head += 1;
            for &q in self.of(p) {
                indeg[q as usize] -= 1;
                if indeg[q as usize] == 0 {
                    order.push(q);
                }
            }
        }
        (order.len() == nodes).then_some(order)
    }

    /// Some cycle, as edge indices, when `topo` failed: walk back through nodes Kahn left.
    fn cycle(&self, edges: &dyn EdgeList, mode: Mode, nodes: usize) -> Vec<usize> {
        let edge = self.edge_of_arcs(edges, mode, nodes);
        let mut indeg = vec![0u32; nodes];
        for &q in &self.to {
            indeg[q as usize] += 1;
        }
        let mut stack: Vec<u32> = (0..nodes as u32).filter(|&p| indeg[p as usize] == 0).collect();
        while let Some(p) = stack.pop() {
            for &q in self.of(p as usize) {
                indeg[q as usize] -= 1;
                if indeg[q as usize] == 0 {
                    stack.push(q);
                }
            }
        }
        // A left node has a left predecessor: walk predecessors until a node repeats.
        let mut pred: Vec<(u32, u32)> = vec![(u32::MAX, 0); nodes];
        for p in 0..nodes {
            if indeg[p] == 0 {
                continue;
            }
            for a in self.range(p) {
                let q = self.to[a];
                if indeg[q as usize] > 0 && pred[q as usize].0 == u32::MAX {
                    pred[q as usize] = (p as u32, edge[a]);
                }
            }
        }
        let Some(mut x) = (0..nodes).find(|&p| indeg[p] > 0 && pred[p].0 != u32::MAX) else {
            return Vec::new();
        };
        let mut on: Vec<u32> = vec![u32::MAX; nodes];
        let mut walk: Vec<usize> = Vec::new();
        while on[x] == u32::MAX {
            on[x] = walk.len() as u32;
            let (p, i) = pred[x];
            if p == u32::MAX {
                return Vec::new();
            }
            walk.push(i as usize);
            x = p as usize;
        }
        // `walk` goes backwards; the cycle is its part from where `x` was first met.
        let mut cycle: Vec<usize> = walk[on[x] as usize..].to_vec();
        cycle.reverse();
        cycle
    }
}

/// The position of each product node in a topological order of these edges, or `None` when
/// they close a forbidden cycle.
pub fn order(edges: &dyn EdgeList, mode: Mode, nodes: usize) -> Option<Vec<u32>> {
    Some(positions(&Arcs::new(edges, mode, nodes).topo(nodes)?))
}

/// Each node's position in a topological order (node -> position).
pub fn positions(order: &[u32]) -> Vec<u32> {
    let mut pos = vec![0u32; order.len()];
    for (i, &p) in order.iter().enumerate() {
        pos[p as usize] = i as u32;
    }
    pos
}
