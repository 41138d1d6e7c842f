//! Which cycles a level forbids, as a product graph with one bit of state, and a growable graph
//! with undo and a cycle test for one new edge.
//!
//! SER forbids every cycle. SI forbids a cycle of `(SO ∪ WR ∪ WW) ; RW?` (PolySI Theorem 6,
//! after Cerone and Gotsman): a cycle in which every RW edge follows a non-RW edge, that is one
//! without two adjacent RW edges. Product node `2v + s`: `s = 1` when an RW edge may be taken
//! next (the last edge was not RW), `s = 0` after an RW edge. Under SER only `s = 1` is used.
//! PL-2 forbids cycles of non-RW edges and PL-1 cycles of WW edges: one state, the other edges
//! left out. PSI forbids a cycle with at most one RW edge (GRAIL thesis Table 2.1): `s` counts
//! the RW edges taken (0 or 1). That product graph is acyclic exactly when no cycle lacks RW
//! edges; a cycle with one RW edge `u -> v` is a path from `(v, 1)` to `(u, 1)`, which
//! [`DynGraph::closes`] finds for a new edge and [`one_rw_cycle`] for edges already there.
//!
//! The growable graph keeps a topological order of its product nodes up to date as edges come
//! (Pearce and Kelly's dynamic topological sort, JEA 2006): an edge that goes forward in the
//! order closes no cycle and costs nothing; one that goes backward is tested by a breadth-first
//! search bounded by the order, and the order is repaired locally when it is added. Removing
//! edges (undo) keeps an order valid.

use super::constraints::Polygraph;
use super::edges::{EdgeList, Edges};
use crate::graph::search::Budget;
use crate::graph::{Edge, EdgeType};

/// The level a polygraph is checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Ser,
    Si,
    Psi,
    Pl2,
    Pl1,
}

/// The product states a mode uses.
pub fn states(mode: Mode) -> &'static [u32] {
    match mode {
        Mode::Ser | Mode::Pl2 | Mode::Pl1 => &[1],
        Mode::Si | Mode::Psi => &[0, 1],
    }
}

/// The state after taking an edge of this kind from state `s`, if allowed.
pub fn step(mode: Mode, s: u32, kind: EdgeType) -> Option<u32> {
    match (mode, kind) {
        (Mode::Si, EdgeType::Rw) => (s == 1).then_some(0),
        (Mode::Psi, EdgeType::Rw) => (s == 0).then_some(1),
        (Mode::Psi, _) => Some(s),
        (Mode::Pl2, EdgeType::Rw) => None,
        (Mode::Pl1, k) => (k == EdgeType::Ww).then_some(1),
        _ => Some(1),
    }
}

/// For a new edge: the state its head starts in, and the states of its tail that close a cycle.
/// (A non-RW edge `a -> b` closes a cycle when `(b, 1)` reaches `a` in any state; an RW edge
/// when `(b, 0)` reaches `(a, 1)`: the RW must follow a non-RW edge and precede one. Under PSI a
/// non-RW edge closes one when `(b, 0)` reaches `a` in any state, an RW edge when `(b, 1)`
/// reaches `(a, 1)`. An edge the mode leaves out closes none.)
pub fn query(mode: Mode, kind: EdgeType) -> (u32, [bool; 2]) {
    match (mode, kind) {
        (Mode::Si, EdgeType::Rw) => (0, [false, true]),
        (Mode::Psi, EdgeType::Rw) => (1, [false, true]),
        (Mode::Psi, _) => (0, [true, true]),
        (Mode::Pl2, EdgeType::Rw) => (1, [false, false]),
        (Mode::Pl1, k) if k != EdgeType::Ww => (1, [false, false]),
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

/// A growable graph over a polygraph's transactions with LIFO removal.
pub struct DynGraph<'p> {
    pub mode: Mode,
    edges: Edges<'p>,
    out: Vec<Vec<u32>>,
    inn: Vec<Vec<u32>>,
    /// Position of each product node in a topological order, when `ordered`.
    ord: Vec<u32>,
    ordered: bool,
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

impl<'p> DynGraph<'p> {
    pub fn new(pg: &'p Polygraph, mode: Mode) -> Self {
        let n = pg.n;
        DynGraph {
            mode,
            edges: Edges::new(pg),
            out: vec![Vec::new(); n],
            inn: vec![Vec::new(); n],
            ord: Vec::new(),
            ordered: false,
            seen: vec![0; 2 * n],
            parent: vec![(0, 0); 2 * n],
            epoch: 0,
            queue: Vec::new(),
        }
    }

    /// A graph of these edges (which must close no forbidden cycle), without an order yet.
    pub fn with_edges(pg: &'p Polygraph, mode: Mode, edges: &[(Edge, Origin)]) -> Self {
        Self::from_edges(mode, Edges::of(pg, edges))
    }

    /// [`DynGraph::with_edges`], keeping the caller's edges: pruning's edges are most of the
    /// memory of a large polygraph, and a copy would hold them twice.
    pub fn from_edges(mode: Mode, edges: Edges<'p>) -> Self {
        let pg = edges.polygraph();
        let n = pg.n;
        let fits = |i: usize| {
            let (from, to, _) = edges.arc(i);
            (from as usize) < n && (to as usize) < n
        };
        if !(0..edges.len()).all(fits) {
            // Edges outside the graph are left out, as `push` leaves them.
            let kept: Vec<(Edge, Origin)> = (0..edges.len()).filter(|&i| fits(i)).map(|i| edges.get(i)).collect();
            return Self::from_edges(mode, Edges::of(pg, &kept));
        }
        let mut g = DynGraph::new(pg, mode);
        let (mut outs, mut ins) = (vec![0u32; n], vec![0u32; n]);
        for i in 0..edges.len() {
            let (from, to, _) = edges.arc(i);
            outs[from as usize] += 1;
            ins[to as usize] += 1;
        }
        for (v, (&o, &i)) in outs.iter().zip(&ins).enumerate() {
            g.out[v].reserve_exact(o as usize);
            g.inn[v].reserve_exact(i as usize);
        }
        for id in 0..edges.len() {
            let (from, to, _) = edges.arc(id);
            g.out[from as usize].push(id as u32);
            g.inn[to as usize].push(id as u32);
        }
        g.edges = edges;
        g
    }

    pub fn edges(&self) -> &Edges<'p> {
        &self.edges
    }

    /// How many edges the graph has.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// Edge `id` and where it comes from.
    pub fn edge(&self, id: u32) -> (Edge, Origin) {
        self.edges.get(id as usize)
    }

    pub fn origin(&self, id: u32) -> Origin {
        self.edges.origin(id as usize)
    }

    /// Adopt a topological order of the product graph of the current edges (node -> position).
    pub fn set_order(&mut self, pos: Vec<u32>) {
        self.ordered = pos.len() == self.seen.len();
        self.ord = pos;
    }

    /// Add an edge, which must not close a forbidden cycle (else the order is dropped and
    /// later tests search unbounded).
    pub fn push(&mut self, e: Edge, origin: Origin) {
        if self.fits(&e) {
            self.edges.push(e, origin);
            self.link(&e);
        }
    }

    /// [`DynGraph::push`] for edge `e` at `place` of side `first` of constraint `cons`
    /// ([`Polygraph::side_at`]): kept in 16 bytes.
    pub fn push_side(&mut self, e: Edge, cons: u32, first: bool, place: u32) {
        if self.fits(&e) {
            self.edges.push_side(e, cons, first, place);
            self.link(&e);
        }
    }

    /// Side `first` of constraint `cons`, every edge.
    pub fn push_choice(&mut self, cons: u32, first: bool) {
        let pg = self.edges.polygraph();
        for (e, place) in pg.side_at(pg.cons[cons as usize], first) {
            self.push_side(e, cons, first, place);
        }
    }

    fn fits(&self, e: &Edge) -> bool {
        let n = self.out.len();
        (e.from as usize) < n && (e.to as usize) < n
    }

    /// The adjacency of the edge just added, and the order repaired.
    fn link(&mut self, e: &Edge) {
        let id = self.edges.len() as u32 - 1;
        self.out[e.from as usize].push(id);
        self.inn[e.to as usize].push(id);
        if self.ordered {
            for &s in states(self.mode) {
                if let Some(s2) = step(self.mode, s, e.ty) {
                    let (x, y) = (2 * e.from + s, 2 * e.to + s2);
                    if self.ord[x as usize] > self.ord[y as usize] {
                        self.reorder(x, y);
                    }
                }
            }
        }
    }

    /// Whether `e` goes forward in the kept topological order in every state: then it closes
    /// no cycle, and neither does any set of such edges (the order stays topological).
    /// Not under PSI: its cycles with one RW edge are no cycles of the product graph.
    pub fn forward(&self, e: &Edge) -> bool {
        if !self.ordered || e.from == e.to || self.mode == Mode::Psi {
            return false;
        }
        let n2 = self.ord.len() as u32;
        states(self.mode).iter().all(|&s| match step(self.mode, s, e.ty) {
            None => true,
            Some(s2) => {
                let (x, y) = (2 * e.from + s, 2 * e.to + s2);
                x < n2 && y < n2 && self.ord[x as usize] < self.ord[y as usize]
            }
        })
    }

    /// Remove edges until `len` remain (the most recent first).
    pub fn truncate(&mut self, len: usize) {
        for i in (len..self.edges.len()).rev() {
            let (from, to, _) = self.edges.arc(i);
            self.out[from as usize].pop();
            self.inn[to as usize].pop();
        }
        self.edges.truncate(len);
    }

    fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.fill(0);
            self.epoch = 1;
        }
        self.epoch
    }

    /// Pearce-Kelly: after arc `x -> y` with `ord[x] > ord[y]` (and no cycle), move the nodes
    /// `y` reaches below `ord[x]` after the nodes reaching `x` above `ord[y]`, in the same slots.
    fn reorder(&mut self, x: u32, y: u32) {
        let (lb, ub) = (self.ord[y as usize], self.ord[x as usize]);
        let mode = self.mode;
        let epoch = self.next_epoch();
        let mut fwd: Vec<u32> = vec![y];
        self.seen[y as usize] = epoch;
        let mut i = 0;
        while i < fwd.len() {
            let p = fwd[i];
            i += 1;
            let (v, s) = (p / 2, p % 2);
            for &id in &self.out[v as usize] {
                let (_, to, ty) = self.edges.arc(id as usize);
                let Some(s2) = step(mode, s, ty) else { continue };
                let q = 2 * to + s2;
                if q == x {
                    self.ordered = false; // a cycle: the caller broke the contract
                    return;
                }
                if self.seen[q as usize] != epoch && self.ord[q as usize] < ub {
                    self.seen[q as usize] = epoch;
                    fwd.push(q);
                }
            }
        }
        let mut back: Vec<u32> = vec![x];
        self.seen[x as usize] = epoch;
        let mut i = 0;
        while i < back.len() {
            let q = back[i];
            i += 1;
            let (v, s2) = (q / 2, q % 2);
            for &id in &self.inn[v as usize] {
                let (from, _, ty) = self.edges.arc(id as usize);
                for &s in states(mode) {
                    if step(mode, s, ty) != Some(s2) {
                        continue;
                    }
                    let p = 2 * from + s;
                    if self.seen[p as usize] != epoch && self.ord[p as usize] > lb {
                        self.seen[p as usize] = epoch;
                        back.push(p);
                    }
                }
            }
        }
        crate::par::sort::sort_unstable_by_key(&mut fwd, |&p| self.ord[p as usize]);
        crate::par::sort::sort_unstable_by_key(&mut back, |&p| self.ord[p as usize]);
        let mut slots: Vec<u32> = fwd.iter().chain(&back).map(|&p| self.ord[p as usize]).collect();
        crate::par::sort::sort_unstable(&mut slots);
        for (p, slot) in back.iter().chain(&fwd).zip(slots) {
            self.ord[*p as usize] = slot;
        }
    }

    /// Would adding `e` close a forbidden cycle? The path returned, with `e`, is a shortest one.
    pub fn closes(&mut self, e: &Edge, budget: &mut Budget) -> Closes {
        let (start, accept) = query(self.mode, e.ty);
        let (n2, from) = (self.seen.len() as u32, e.from);
        if e.from == e.to || 2 * e.to >= n2 || 2 * e.from >= n2 || accept == [false, false] {
            return Closes::No;
        }
        let s0 = 2 * e.to + start;
        // With an order, only nodes between the head and the tail can be on the way back.
        let bound = if self.ordered {
            let b = (0..2).filter(|&s| accept[s]).map(|s| self.ord[(2 * from + s as u32) as usize]).max().unwrap_or(0);
            if self.ord[s0 as usize] > b {
                return Closes::No;
            }
            b
        } else {
            u32::MAX
        };
        let epoch = self.next_epoch();
        self.queue.clear();
        self.seen[s0 as usize] = epoch;
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
                let (_, to, ty) = self.edges.arc(id as usize);
                let Some(s2) = step(self.mode, s, ty) else { continue };
                let q = 2 * to + s2;
                let in_bound = !self.ordered || self.ord[q as usize] <= bound;
                if self.seen[q as usize] != epoch && in_bound {
                    self.seen[q as usize] = epoch;
                    self.parent[q as usize] = (id, p);
                    self.queue.push(q);
                }
            }
        }
        Closes::No
    }
}

/// The budget ran out before the search could answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBudget;

/// Under PSI, a cycle with exactly one RW edge among edges already in `g` (which has no cycle of
/// non-RW edges): an RW edge `u -> v` with a path of non-RW edges from `v` back to `u`.
/// `Ok(None)` when there is none; `Err` when the budget ran out.
pub fn one_rw_cycle(g: &mut DynGraph, budget: &mut Budget) -> Result<Option<Vec<(Edge, Origin)>>, OutOfBudget> {
    if g.mode != Mode::Psi {
        return Ok(None);
    }
    for i in 0..g.len() as u32 {
        let (e, o) = g.edge(i);
        if e.ty != EdgeType::Rw {
            continue;
        }
        match g.closes(&e, budget) {
            Closes::No => {}
            Closes::Yes(path) => {
                let mut cycle = vec![(e, o)];
                cycle.extend(path.iter().map(|&id| g.edge(id)));
                return Ok(Some(cycle));
            }
            Closes::Unknown => return Err(OutOfBudget),
        }
    }
    Ok(None)
}
