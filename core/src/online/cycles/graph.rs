//! The windowed graph: adjacency of the committed transactions still in memory, and eviction.
//!
//! Takes candidate edges ([`Cand`]) and transactions in completion order, each numbered by its
//! sequence ([`Seq`]); keeps the last `window` of them, oldest first, with their out- and
//! in-edges (a mask of edge types per pair, settled in the low four bits and provisional in the
//! high four, and a few (type, key) pairs). Gives the pairs that had no edge before (each new
//! pair is linked on its own, so that the search finds each cycle once, by its last edge), the
//! shape of a cycle as the window has it now, and, on eviction, what left.

use super::infer::Cand;
use super::Seq;
use crate::graph::EdgeType;
use std::collections::VecDeque;

/// The edges from one transaction to another.
#[derive(Debug, Clone)]
pub(super) struct Adj {
    pub to: Seq,
    /// [`EdgeType::bit`]s: settled edges in the low four bits, provisional ones shifted by four.
    pub mask: u8,
    /// (type, key serial) of the edges between the two, a few at most.
    pub keys: EdgeKeys,
}

/// A pair's (type, key serial)s, in the order added: two inline, the rest (up to
/// `MAX_EDGE_KEYS`) on the heap. Most pairs have one or two: a vector for each cost an
/// allocation and a free per pair, a tenth of a stream's time.
#[derive(Debug, Clone, Default)]
pub(super) struct EdgeKeys {
    n: u8,
    inline: [(u8, u32); 2],
    more: Vec<(u8, u32)>,
}

impl EdgeKeys {
    pub fn iter(&self) -> impl Iterator<Item = &(u8, u32)> {
        self.inline[..self.n as usize].iter().chain(self.more.iter())
    }

    fn len(&self) -> usize {
        self.n as usize + self.more.len()
    }

    fn push(&mut self, k: (u8, u32)) {
        if (self.n as usize) < self.inline.len() {
            self.inline[self.n as usize] = k;
            self.n += 1;
        } else {
            self.more.push(k);
        }
    }
}

const MAX_EDGE_KEYS: usize = 8;

impl Adj {
    fn add(&mut self, c: &Cand) {
        self.mask |= if c.provisional { c.ty.bit() << 4 } else { c.ty.bit() };
        let kt = (c.ty as u8, c.key);
        if self.keys.len() < MAX_EDGE_KEYS && !self.keys.iter().any(|k| *k == kt) {
            self.keys.push(kt);
        }
    }
}

/// A committed transaction in the window.
#[derive(Debug)]
pub(super) struct Node {
    pub id: u64,
    pub label: Option<Box<str>>,
    pub process: Option<i64>,
    /// Invocation and completion times, as recorded.
    pub times: (Option<i64>, Option<i64>),
    pub out: Vec<Adj>,
    pub inn: Vec<Seq>,
    /// Appends of this transaction no read has ordered yet.
    pub unordered: u32,
}

/// A cycle as the window has it: each step's type (the lowest, settled or not), its keys, and
/// whether some step has provisional edges only.
pub(super) struct Shape {
    pub types: Vec<EdgeType>,
    pub keys: Vec<Vec<u32>>,
    pub provisional: bool,
}

/// The last `window` committed transactions.
#[derive(Debug, Default)]
pub(super) struct Window {
    nodes: VecDeque<Node>,
    /// Sequence number of `nodes[0]`.
    base: Seq,
    /// Emptied edge lists of evicted transactions, for the next ones: a stream evicts one
    /// transaction per arrival, and allocating new lists for each cost a tenth of its time.
    spare: Vec<(Vec<Adj>, Vec<Seq>)>,
}

/// Emptied edge lists kept for reuse, and the largest capacity kept.
const SPARE: usize = 64;
const SPARE_CAPACITY: usize = 8;

/// What left the window.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Evicted {
    pub transactions: u64,
    /// Of them, those with an append no read had ordered yet.
    pub unordered: u64,
}

impl Window {
    /// The sequence number of the oldest transaction in the window.
    pub fn base(&self) -> Seq {
        self.base
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Add the next transaction; its sequence number.
    pub fn push(
        &mut self,
        id: u64,
        label: Option<&str>,
        process: Option<i64>,
        times: (Option<i64>, Option<i64>),
    ) -> Seq {
        let t = self.base + self.nodes.len() as Seq;
        let (out, inn) = self.spare.pop().unwrap_or_default();
        self.nodes.push_back(Node { id, label: label.map(Box::from), process, times, out, inn, unordered: 0 });
        t
    }

    pub fn node(&self, s: Seq) -> Option<&Node> {
        s.checked_sub(self.base).and_then(|i| self.nodes.get(i as usize))
    }

    pub fn node_mut(&mut self, s: Seq) -> Option<&mut Node> {
        s.checked_sub(self.base).and_then(|i| self.nodes.get_mut(i as usize))
    }

    /// Add the candidates between pairs that have edges already; return the others grouped by
    /// pair, in order of first appearance, for [`Window::link`], and how many candidates
    /// reached a transaction out of the window.
    pub fn merge(&mut self, cands: &[Cand], new_pairs: &mut Vec<(Seq, Adj)>) -> u64 {
        new_pairs.clear();
        let mut gone = 0;
        for c in cands {
            if c.from == c.to {
                continue;
            }
            if c.from < self.base || c.to < self.base {
                gone += 1;
                continue;
            }
            if let Some((_, a)) = new_pairs.iter_mut().find(|(f, a)| *f == c.from && a.to == c.to) {
                a.add(c);
                continue;
            }
            let Some(n) = self.node_mut(c.from) else { continue };
            if let Some(a) = n.out.iter_mut().find(|a| a.to == c.to) {
                a.add(c);
                continue;
            }
            let mut a = Adj { to: c.to, mask: 0, keys: EdgeKeys::default() };
            a.add(c);
            new_pairs.push((c.from, a));
        }
        gone
    }

    /// Link a new pair.
    pub fn link(&mut self, from: Seq, a: Adj) {
        let to = a.to;
        if let Some(n) = self.node_mut(from) {
            n.out.push(a);
        }
        if let Some(n) = self.node_mut(to) {
            n.inn.push(from);
        }
    }

    /// The shape of a cycle of transactions in the window now.
    pub fn shape(&self, cyc: &[Seq]) -> Shape {
        let n = cyc.len();
        let mut types = Vec::with_capacity(n);
        let mut keys: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut provisional = false;
        for i in 0..n {
            let a = self.node(cyc[i]).and_then(|x| x.out.iter().find(|a| a.to == cyc[(i + 1) % n]));
            let mask = a.map_or(0, |a| a.mask);
            provisional |= mask & 0x0f == 0;
            let mask = (mask | mask >> 4) & 0x0f;
            let ty = EdgeType::ALL.into_iter().find(|t| mask & t.bit() != 0).unwrap_or(EdgeType::Rw);
            types.push(ty);
            keys.push(a.map_or(Vec::new(), |a| a.keys.iter().filter(|k| k.0 == ty as u8).map(|k| k.1).collect()));
        }
        Shape { types, keys, provisional }
    }

    /// The window's graph for the offline cycle search: its edges between indices `0..len`
    /// (settled and provisional alike, one per type with its first key), and each index's
    /// transaction id.
    pub fn graph(&self) -> (Vec<crate::graph::Edge>, Vec<u64>) {
        (self.edges(), self.nodes.iter().map(|n| n.id).collect())
    }

    /// Session order over the window: each transaction to the next committed one of its
    /// process, in arrival order (a Jepsen process runs one transaction at a time, so that is
    /// its invocation order, as `graph::orders::in_session_order` has it offline).
    pub fn session_edges(&self) -> Vec<crate::graph::Edge> {
        let mut last: crate::hash::Map<i64, u32> = crate::hash::Map::default();
        let mut out = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(p) = n.process else { continue };
            if let Some(prev) = last.insert(p, i as u32) {
                out.push(crate::graph::Edge {
                    from: prev,
                    to: i as u32,
                    ty: EdgeType::So,
                    key: crate::graph::NO_KEY,
                    from_op: 0,
                    to_op: 0,
                });
            }
        }
        out
    }

    /// Real-time order over the window (`graph::orders::realtime_pairs`, as offline with recorded
    /// times), or `None` unless every transaction of the window recorded both times: one
    /// without is not fully placed in the order, so that a level could hold that it violates
    /// (offline orders by input positions when none are recorded, which a stream does not keep).
    pub fn realtime_edges(&self) -> Option<Vec<crate::graph::Edge>> {
        if !self.nodes.iter().all(|n| n.times.0.is_some() && n.times.1.is_some()) {
            return None;
        }
        let times = self.nodes.iter().enumerate().map(|(i, n)| (i as u32, n.times.0, n.times.1));
        let (pairs, _) = crate::graph::orders::realtime_pairs(times);
        Some(
            pairs
                .into_iter()
                .map(|(from, to)| crate::graph::Edge {
                    from,
                    to,
                    ty: EdgeType::Rt,
                    key: crate::graph::NO_KEY,
                    from_op: 0,
                    to_op: 0,
                })
                .collect(),
        )
    }

    fn edges(&self) -> Vec<crate::graph::Edge> {
        let mut edges = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            for a in &n.out {
                let Some(to) = a.to.checked_sub(self.base).filter(|&j| (j as usize) < self.nodes.len()) else {
                    continue;
                };
                let mask = (a.mask | a.mask >> 4) & 0x0f;
                for ty in EdgeType::ALL.into_iter().filter(|t| mask & t.bit() != 0) {
                    let key = a.keys.iter().find(|k| k.0 == ty as u8).map_or(0, |k| k.1);
                    edges.push(crate::graph::Edge { from: i as u32, to: to as u32, ty, key, from_op: 0, to_op: 0 });
                }
            }
        }
        edges
    }

    /// Drop the oldest transactions beyond `window`, with their edges.
    pub fn evict(&mut self, window: usize) -> Evicted {
        let mut e = Evicted::default();
        while self.nodes.len() > window {
            let Some(old) = self.nodes.pop_front() else { break };
            self.base += 1;
            e.transactions += 1;
            if old.unordered > 0 {
                e.unordered += 1;
            }
            // The edges of newer transactions to it stay in their lists, below `base`: every
            // reader skips those, and removing them cost a tenth of a stream's time.
            // Only small lists: a reused list keeps its capacity, and a hub's would ratchet up.
            if self.spare.len() < SPARE && old.out.capacity() <= SPARE_CAPACITY && old.inn.capacity() <= SPARE_CAPACITY
            {
                let (mut out, mut inn) = (old.out, old.inn);
                out.clear();
                inn.clear();
                self.spare.push((out, inn));
            }
        }
        e
    }

    /// An estimate of the heap memory held (bytes).
    pub fn memory(&self) -> usize {
        use std::mem::size_of;
        let mut b = self.nodes.capacity() * size_of::<Node>();
        for n in &self.nodes {
            b += n.out.capacity() * size_of::<Adj>() + n.inn.capacity() * 8;
            b += n.out.iter().map(|a| a.keys.more.capacity() * 8).sum::<usize>();
        }
        b
    }
}
