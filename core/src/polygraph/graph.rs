//! Which cycles a level forbids, as a product graph with one bit of state, and a growable graph
//! with undo and a cycle test for one new edge (breadth-first, so the cycle is a shortest one).
//!
//! SER forbids every cycle. SI forbids a cycle of `(SO ∪ WR ∪ WW) ; RW?` (PolySI Theorem 6,
//! after Cerone and Gotsman): a cycle in which every RW edge follows a non-RW edge, that is one
//! without two adjacent RW edges. Product node `2v + s`: `s = 1` when an RW edge may be taken
//! next (the last edge was not RW), `s = 0` after an RW edge (or at the start of a search).

use super::constraints::{Kind, PEdge};
use crate::graph::search::Budget;
use crate::history::TxnId;

/// The level a polygraph is checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Ser,
    Si,
}

/// The state after taking an edge of this kind from state `s`, if allowed.
pub fn step(mode: Mode, s: u32, kind: Kind) -> Option<u32> {
    match (mode, kind) {
        (Mode::Si, Kind::Rw) => (s == 1).then_some(0),
        _ => Some(1),
    }
}

/// For a new edge: the state its head starts in, and the states of its tail that close a cycle.
/// (A non-RW edge `a -> b` closes a cycle when `(b, 1)` reaches `a` in any state; an RW edge
/// when `(b, 0)` reaches `(a, 1)`: the RW must follow a non-RW edge and precede one.)
pub fn query(mode: Mode, kind: Kind) -> (u32, [bool; 2]) {
    match (mode, kind) {
        (Mode::Si, Kind::Rw) => (0, [false, true]),
        // Under SER every search stays in state 1.
        (mode, _) => (1, [mode == Mode::Si, true]),
    }
}

/// Where an edge comes from: the history itself, or a choice of a constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Certain,
    /// Side `first` of constraint `cons` (forced by pruning or chosen by the search).
    Chosen {
        cons: u32,
        first: bool,
    },
}

/// A growable graph over transactions with LIFO removal.
pub struct DynGraph {
    pub mode: Mode,
    pub edges: Vec<(PEdge, Origin)>,
    out: Vec<Vec<u32>>,
    seen: Vec<u32>,
    parent: Vec<(u32, u32)>,
    epoch: u32,
    queue: Vec<u32>,
}

/// The outcome of a cycle test.
pub enum Closes {
    No,
    /// The edge ids of a path from the new edge's head back to its tail.
    Yes(Vec<u32>),
    /// The budget ran out.
    Unknown,
}

impl DynGraph {
    pub fn new(mode: Mode, n: usize) -> Self {
        DynGraph {
            mode,
            edges: Vec::new(),
            out: vec![Vec::new(); n],
            seen: vec![0; 2 * n],
            parent: vec![(0, 0); 2 * n],
            epoch: 0,
            queue: Vec::new(),
        }
    }

    pub fn push(&mut self, e: PEdge, origin: Origin) {
        if let Some(o) = self.out.get_mut(e.from as usize) {
            o.push(self.edges.len() as u32);
            self.edges.push((e, origin));
        }
    }

    /// Remove edges until `len` remain (the most recent first).
    pub fn truncate(&mut self, len: usize) {
        while self.edges.len() > len {
            if let Some((e, _)) = self.edges.pop() {
                self.out[e.from as usize].pop();
            }
        }
    }

    /// Would adding `e` close a forbidden cycle? The path returned, with `e`, is a shortest one.
    pub fn closes(&mut self, e: &PEdge, budget: &mut Budget) -> Closes {
        let (start, accept) = query(self.mode, e.kind);
        let (n2, from) = (self.seen.len() as u32, e.from);
        if e.from == e.to || 2 * e.to >= n2 || 2 * e.from >= n2 {
            return Closes::No;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.fill(0);
            self.epoch = 1;
        }
        self.queue.clear();
        let s0 = 2 * e.to + start;
        self.seen[s0 as usize] = self.epoch;
        self.queue.push(s0);
        let mut head = 0;
        while head < self.queue.len() {
            let p = self.queue[head];
            head += 1;
            let (v, s) = (p / 2, p % 2);
            if v == from && accept[s as usize] {
                let mut path = Vec::new();
                let mut q = p;
                while q != s0 {
                    let (edge, prev) = self.parent[q as usize];
                    path.push(edge);
                    q = prev;
                }
                path.reverse();
                return Closes::Yes(path);
            }
            if !budget.spend(1 + self.out[v as usize].len() as u64) {
                return Closes::Unknown;
            }
            for &id in &self.out[v as usize] {
                let (f, _) = self.edges[id as usize];
                let Some(s2) = step(self.mode, s, f.kind) else { continue };
                let q = 2 * f.to + s2;
                if self.seen[q as usize] != self.epoch {
                    self.seen[q as usize] = self.epoch;
                    self.parent[q as usize] = (id, p);
                    self.queue.push(q);
                }
            }
        }
        Closes::No
    }
}

/// A transaction id as the product node of state `s`.
pub fn node(v: TxnId, s: u32) -> u32 {
    2 * v + s
}
