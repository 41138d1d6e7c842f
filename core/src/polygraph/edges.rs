//! The edges of a polygraph's graphs (pruning's and the search's), 16 bytes each where an
//! `(Edge, Origin)` takes 32: an edge of a constraint's choice keeps its ends, its type, the
//! constraint and its place in the choice ([`Polygraph::side_at`]), and its key and operations
//! are read again from the polygraph when asked. Other edges (the known ones, and a choice's
//! edge pushed without its place) are kept whole beside. On general-wh at 100k transactions
//! (13.7M constraints, SER) these edges were most of the check's memory.

use super::constraints::Polygraph;
use super::graph::Origin;
use crate::graph::{Edge, EdgeType};

/// What the cycle searches read of an edge: its ends and its type.
pub trait EdgeList {
    fn count(&self) -> usize;
    /// Edge `i`'s tail, head and type.
    fn arc(&self, i: usize) -> (u32, u32, EdgeType);
    /// Edge `i` whole, and where it comes from.
    fn whole(&self, i: usize) -> (Edge, Origin);
}

/// One list after another. (Lists are read through `dyn`: one copy of each reader of them in
/// the WebAssembly module, where a generic one took one a list type.)
pub struct Joined<'a>(pub &'a dyn EdgeList, pub &'a dyn EdgeList);

impl EdgeList for Joined<'_> {
    fn count(&self) -> usize {
        self.0.count() + self.1.count()
    }
    fn arc(&self, i: usize) -> (u32, u32, EdgeType) {
        let n = self.0.count();
        if i < n {
            self.0.arc(i)
        } else {
            self.1.arc(i - n)
        }
    }
    fn whole(&self, i: usize) -> (Edge, Origin) {
        let n = self.0.count();
        if i < n {
            self.0.whole(i)
        } else {
            self.1.whole(i - n)
        }
    }
}

impl EdgeList for Vec<(Edge, Origin)> {
    fn count(&self) -> usize {
        self.len()
    }
    fn arc(&self, i: usize) -> (u32, u32, EdgeType) {
        let e = self[i].0;
        (e.from, e.to, e.ty)
    }
    fn whole(&self, i: usize) -> (Edge, Origin) {
        self[i]
    }
}

/// `bits`: the type in the low 3 bits, then whether the edge is kept whole (`at` indexes
/// `whole`), the choice's side, and the place in the side (0: its WW edge; `r + 1`: the RW
/// edge from the earlier version's `r`-th reader).
#[derive(Debug, Clone, Copy)]
struct Slim {
    from: u32,
    to: u32,
    at: u32,
    bits: u32,
}

const WHOLE: u32 = 1 << 3;
const FIRST: u32 = 1 << 4;
const PLACE: u32 = 5;
/// Places beyond this are kept whole.
const MAX_PLACE: u32 = u32::MAX >> PLACE;

fn type_of(bits: u32) -> EdgeType {
    match bits & 7 {
        0 => EdgeType::Ww,
        1 => EdgeType::Wr,
        2 => EdgeType::Rw,
        3 => EdgeType::So,
        4 => EdgeType::Rt,
        _ => EdgeType::Co,
    }
}

/// A growable list of edges with LIFO removal, as the graphs use them.
#[derive(Clone)]
pub struct Edges<'p> {
    pg: &'p Polygraph,
    slim: Vec<Slim>,
    whole: Vec<(Edge, Origin)>,
}

impl<'p> Edges<'p> {
    pub fn new(pg: &'p Polygraph) -> Self {
        Edges { pg, slim: Vec::new(), whole: Vec::new() }
    }

    /// These edges, kept whole.
    pub fn of(pg: &'p Polygraph, edges: &[(Edge, Origin)]) -> Self {
        let mut out = Edges::new(pg);
        out.slim.reserve_exact(edges.len());
        for &(e, o) in edges {
            out.push(e, o);
        }
        out
    }

    pub fn polygraph(&self) -> &'p Polygraph {
        self.pg
    }

    pub fn len(&self) -> usize {
        self.slim.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slim.is_empty()
    }

    /// Keep `e` whole.
    pub fn push(&mut self, e: Edge, origin: Origin) {
        self.slim.push(Slim { from: e.from, to: e.to, at: self.whole.len() as u32, bits: e.ty as u32 | WHOLE });
        self.whole.push((e, origin));
    }

    /// Edge `e`, at `place` of side `first` of constraint `cons` ([`Polygraph::side_at`]).
    pub fn push_side(&mut self, e: Edge, cons: u32, first: bool, place: u32) {
        if place > MAX_PLACE {
            return self.push(e, Origin::Chosen { cons, first });
        }
        let side = if first { FIRST } else { 0 };
        self.slim.push(Slim { from: e.from, to: e.to, at: cons, bits: e.ty as u32 | side | place << PLACE });
    }

    /// Remove edges until `len` remain (the most recent first).
    pub fn truncate(&mut self, len: usize) {
        while self.slim.len() > len {
            if let Some(s) = self.slim.pop() {
                if s.bits & WHOLE != 0 {
                    self.whole.pop();
                }
            }
        }
    }

    /// The first `len` edges.
    pub fn prefix(&self, len: usize) -> Edges<'p> {
        let slim: Vec<Slim> = self.slim[..len.min(self.slim.len())].to_vec();
        let wholes = slim.iter().filter(|s| s.bits & WHOLE != 0).count();
        Edges { pg: self.pg, slim, whole: self.whole[..wholes].to_vec() }
    }

    pub fn origin(&self, i: usize) -> Origin {
        let s = self.slim[i];
        if s.bits & WHOLE != 0 {
            return self.whole[s.at as usize].1;
        }
        Origin::Chosen { cons: s.at, first: s.bits & FIRST != 0 }
    }

    /// Edge `i` and where it comes from.
    pub fn get(&self, i: usize) -> (Edge, Origin) {
        let s = self.slim[i];
        if s.bits & WHOLE != 0 {
            return self.whole[s.at as usize];
        }
        let first = s.bits & FIRST != 0;
        let c = self.pg.cons[s.at as usize];
        let (vx, vy) = self.pg.ends(c, first);
        let key = self.pg.keys[c.key as usize].key;
        let from_op = match s.bits >> PLACE {
            0 => vx.op,
            r => vx.readers[r as usize - 1].1,
        };
        let e = Edge { from: s.from, to: s.to, ty: type_of(s.bits), key, from_op, to_op: vy.op };
        (e, Origin::Chosen { cons: s.at, first })
    }

    pub fn iter(&self) -> impl Iterator<Item = (Edge, Origin)> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl EdgeList for Edges<'_> {
    fn count(&self) -> usize {
        self.len()
    }
    fn arc(&self, i: usize) -> (u32, u32, EdgeType) {
        let s = self.slim[i];
        (s.from, s.to, type_of(s.bits))
    }
    fn whole(&self, i: usize) -> (Edge, Origin) {
        self.get(i)
    }
}
