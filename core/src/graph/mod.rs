//! The dependency graph between transactions (Adya's DSG): WW, WR and RW edges with provenance.

pub mod orders;
pub mod search;

use crate::history::{History, KeyId, TxnId};
use serde::{Deserialize, Serialize};

/// The type of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum EdgeType {
    /// Write dependency: `to` installed the version after `from`'s.
    Ww = 0,
    /// Read dependency: `to` read the version `from` installed.
    Wr = 1,
    /// Anti-dependency: `from` read a version that `to` overwrote.
    Rw = 2,
    /// Session order: `from` came before `to` in the same process (added only for levels that
    /// need it, [`orders`]).
    #[serde(rename = "so")]
    So = 3,
    /// Real-time order: `from` completed before `to` was invoked ([`orders`]).
    #[serde(rename = "rt")]
    Rt = 4,
    /// Commit order inferred by a weak level's axiom (Biswas and Enea): `from`'s write of the key
    /// must come before `to`'s, since a reader that observed `from` read `to`'s value
    /// ([`crate::engine::weak`]).
    #[serde(rename = "co")]
    Co = 5,
}

/// An edge type equals its name (`ww`, `wr`, `rw`, `so`, `rt`, `co`).
impl PartialEq<&str> for EdgeType {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for EdgeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EdgeType {
    pub const ALL: [EdgeType; 6] = [EdgeType::Ww, EdgeType::Wr, EdgeType::Rw, EdgeType::So, EdgeType::Rt, EdgeType::Co];
    /// The dependency types of Adya's graph.
    pub const DEPENDENCIES: [EdgeType; 3] = [EdgeType::Ww, EdgeType::Wr, EdgeType::Rw];
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeType::Ww => "ww",
            EdgeType::Wr => "wr",
            EdgeType::Rw => "rw",
            EdgeType::So => "so",
            EdgeType::Rt => "rt",
            EdgeType::Co => "co",
        }
    }
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A dependency with its provenance: the two micro-operations that justify it (indices into
/// [`History::ops`]); the key and the values follow from them. Packed into 21 bytes, not 24:
/// tens of millions are held at once on large histories. Fields are read by copy: a reference
/// to one (`assert_eq!(e.to, x)`, `format!("{}", e.to)`) does not compile; copy it first
/// (`{ e.to }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C, packed)]
pub struct Edge {
    pub from: TxnId,
    pub to: TxnId,
    pub ty: EdgeType,
    /// The key both operations are on ([`NO_KEY`] for session and real-time order).
    pub key: KeyId,
    pub from_op: u32,
    pub to_op: u32,
}

impl Edge {
    /// The order edges are kept in: by (from, to, type, key), then the first by operation order.
    /// Two u64 words, not a u128: wasm32 emulates 128-bit arithmetic.
    pub fn rank(&self) -> (u64, u64, u32, u32) {
        ((self.from as u64) << 32 | self.to as u64, (self.ty as u64) << 32 | self.key as u64, self.from_op, self.to_op)
    }
}

/// The key of an edge that is about no key (session and real-time order).
pub const NO_KEY: KeyId = KeyId::MAX;

/// The key of an edge a database's claimed order gives (white-box checking,
/// [`crate::timestamps`]): `rt` when one transaction committed at or before the other's start
/// timestamp, `co` between consecutive transactions of the claimed commit order.
pub const CLAIMED: KeyId = KeyId::MAX - 1;

impl Edge {
    /// The key (kept as a method for callers that have the history at hand).
    pub fn key(&self, _h: &History) -> KeyId {
        self.key
    }
}

/// Graph statistics as in the GRAIL thesis, Table 5.3.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Stats {
    pub transactions: usize,
    pub committed: usize,
    pub aborted: usize,
    pub indeterminate: usize,
    /// Committed transactions, plus indeterminate ones whose writes were observed.
    pub vertices: usize,
    /// Dependencies counted once per (from, to, type), however many keys induce them (GRAIL's
    /// count): `ww + wr + rw`. The graph view (`grail graph --json`, `History.graph()`) lists
    /// one edge per (from, to, type, key), so it has at least this many ww, wr and rw edges
    /// (and may add session, real-time and claimed orders, not counted here). A report counts
    /// as well the rw pairs inference left out of the graph (its notes say so).
    pub edges: usize,
    /// Distinct (from, to) pairs with a ww edge.
    pub ww: usize,
    /// Distinct (from, to) pairs with a wr edge.
    pub wr: usize,
    /// Distinct (from, to) pairs with an rw edge.
    pub rw: usize,
    /// Edges per vertex.
    pub density: f64,
    /// No dependency graph was inferred (`--white-box only`: levels from the claims alone): the
    /// counts of edges mean nothing, and `vertices` counts the transactions the claims cover.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_inferred: bool,
}

/// The dependency graph of a history's committed transactions.
#[derive(Debug, Clone)]
pub struct DependencyGraph {
    /// Whether each transaction is a vertex (indexed by [`TxnId`]).
    pub is_vertex: Vec<bool>,
    /// One edge per (from, to, type, key), sorted; the provenance kept is the first found.
    /// Empty when [`DependencyGraph::edges_kept`] is false.
    pub edges: Vec<Edge>,
    /// Whether `edges` holds every edge. A graph built for a search alone keeps only the
    /// adjacency; the edges a report shows are found again ([`crate::infer::provenance`]).
    pub edges_kept: bool,
    /// CSR adjacency over distinct (from, to) pairs: `adj[offsets[v]..offsets[v+1]]` are
    /// v's successors.
    pub offsets: Vec<u32>,
    pub adj: Vec<Succ>,
    /// Distinct (from, to, type) pairs of each dependency type (ww, wr, rw), counted as the
    /// adjacency is made.
    counts: [usize; 3],
}

/// Add an edge type to a successor's mask, counting it when new (dependency types only).
fn add_type(s: &mut Succ, ty: EdgeType, counts: &mut [usize; 3]) {
    if s.mask & ty.bit() == 0 && (ty as usize) < counts.len() {
        counts[ty as usize] += 1;
    }
    s.mask |= ty.bit();
}

/// A dependency without its provenance (no key, no operations): what a cycle search reads.
/// 9 bytes, where an [`Edge`] takes 21.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed)]
pub struct Pair {
    pub from: TxnId,
    pub to: TxnId,
    pub ty: EdgeType,
}

impl Pair {
    fn rank(&self) -> (u64, u8) {
        ((self.from as u64) << 32 | self.to as u64, self.ty as u8)
    }
}

/// Pairs made into adjacency at a time by [`DependencyGraph::from_pairs`].
const PAIRS_RANGE: usize = 1 << 20;

/// The CSR adjacency and type counts, made from edges sorted by (from, to, type).
struct Adjacency {
    n: usize,
    per_vertex: Vec<u32>,
    adj: Vec<Succ>,
    counts: [usize; 3],
}

impl Adjacency {
    fn new(n: usize, edges: usize) -> Adjacency {
        Adjacency { n, per_vertex: vec![0u32; n + 1], adj: Vec::with_capacity(edges), counts: [0; 3] }
    }

    /// The next edge kept; `same_pair`: the one before it joined the same two transactions.
    #[inline]
    fn add(&mut self, from: TxnId, to: TxnId, ty: EdgeType, same_pair: bool) {
        if from as usize >= self.n {
            return;
        }
        if same_pair {
            if let Some(s) = self.adj.last_mut() {
                add_type(s, ty, &mut self.counts);
            }
        } else {
            let mut s = Succ { to, mask: 0 };
            add_type(&mut s, ty, &mut self.counts);
            self.adj.push(s);
            self.per_vertex[from as usize + 1] += 1;
        }
    }

    fn into_graph(self, is_vertex: Vec<bool>, edges: Vec<Edge>, edges_kept: bool) -> DependencyGraph {
        let Adjacency { mut per_vertex, mut adj, counts, .. } = self;
        adj.shrink_to_fit();
        crate::bucket_sort::starts_from_counts(&mut per_vertex);
        DependencyGraph { is_vertex, edges, edges_kept, offsets: per_vertex, adj, counts }
    }
}

/// A successor in the adjacency: the transaction and the mask of [`EdgeType`] bits to it.
/// Packed into 5 bytes (a `(TxnId, u8)` took 8): one per distinct pair, tens of millions on
/// large histories. Read fields by copy, as [`Edge`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed)]
pub struct Succ {
    pub to: TxnId,
    pub mask: u8,
}

impl DependencyGraph {
    /// Build from raw edges (any order, duplicates allowed; self-loops dropped), keeping one
    /// edge per (from, to, type, key): the first by operation order.
    pub fn new(is_vertex: Vec<bool>, mut raw: Vec<Edge>) -> DependencyGraph {
        let n = is_vertex.len();
        if !raw.is_sorted_by_key(Edge::rank) {
            crate::bucket_sort::sort_by_bucket(&mut raw, n, |e| e.from as usize, Edge::rank);
        }
        // One pass drops self-loops and duplicates (compacting in place) and makes the adjacency
        // and the type counts, on one thread: 50 ms at 1M transactions in issue 20's shape.
        let mut kept = 0usize;
        let mut adj = Adjacency::new(n, raw.len());
        // The last edge kept, in a local: read back from `raw`, the packed edge just written
        // came through memory (the pass took 75 ms so, and the adjacency grew by doubling).
        let mut last: Option<Edge> = None;
        for i in 0..raw.len() {
            let e = raw[i];
            if e.from == e.to {
                continue;
            }
            let same_pair = last.is_some_and(|l| l.from == e.from && l.to == e.to);
            if same_pair && last.is_some_and(|l| l.ty == e.ty && l.key == e.key) {
                continue;
            }
            raw[kept] = e;
            kept += 1;
            last = Some(e);
            adj.add(e.from, e.to, e.ty, same_pair);
        }
        raw.truncate(kept);
        // Before the graph is kept: the duplicates' room is a tenth of the edges.
        raw.shrink_to_fit();
        adj.into_graph(is_vertex, raw, true)
    }

    /// Build from raw pairs (any order, duplicates allowed; self-loops dropped) the adjacency
    /// alone: no edge is kept ([`DependencyGraph::edges_kept`] is false).
    pub fn from_pairs(is_vertex: Vec<bool>, mut raw: Vec<Pair>) -> DependencyGraph {
        let n = is_vertex.len();
        if !raw.is_sorted_by_key(Pair::rank) {
            crate::bucket_sort::sort_by_bucket(&mut raw, n, |e| e.from as usize, Pair::rank);
        }
        // Made from the back a range at a time, each range's pairs given back before the next
        // (holding the pairs and the whole adjacency at once put the 10M check 47 MB higher).
        let mut adj = Adjacency::new(n, 0);
        let mut made: Vec<Vec<Succ>> = Vec::new();
        let mut end = raw.len();
        while end > 0 {
            let mut start = end.saturating_sub(PAIRS_RANGE);
            // A range starts at a new (from, to): a pair's types are merged within one.
            while start > 0 && (raw[start - 1].from, raw[start - 1].to) == (raw[start].from, raw[start].to) {
                start -= 1;
            }
            let mut last: Option<Pair> = None;
            for &e in &raw[start..end] {
                if e.from == e.to || last == Some(e) {
                    continue;
                }
                let same_pair = last.is_some_and(|l| l.from == e.from && l.to == e.to);
                last = Some(e);
                adj.add(e.from, e.to, e.ty, same_pair);
            }
            made.push(std::mem::take(&mut adj.adj));
            raw.truncate(start);
            raw.shrink_to_fit();
            end = start;
        }
        drop(raw);
        adj.adj.reserve_exact(made.iter().map(Vec::len).sum());
        for part in made.into_iter().rev() {
            adj.adj.extend_from_slice(&part);
        }
        adj.into_graph(is_vertex, Vec::new(), false)
    }

    pub fn vertex_count(&self) -> usize {
        self.is_vertex.iter().filter(|&&v| v).count()
    }

    /// Successors of `v` with the mask of edge types to each.
    pub fn out(&self, v: TxnId) -> &[Succ] {
        &self.adj[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// The mask of edge types from `from` to `to` (0 for none).
    pub fn mask(&self, from: TxnId, to: TxnId) -> u8 {
        if from as usize + 1 >= self.offsets.len() {
            return 0;
        }
        let out = self.out(from);
        out.binary_search_by_key(&to, |s| s.to).map_or(0, |i| out[i].mask)
    }

    /// Distinct (from, to, type) counts of the dependency types (ww, wr, rw).
    pub fn counts(&self) -> [usize; 3] {
        self.counts
    }

    /// The first edge (by provenance order) of a type between two transactions.
    pub fn edge(&self, from: TxnId, to: TxnId, ty: EdgeType) -> Option<&Edge> {
        self.edges_of(from, to, ty).first()
    }

    /// Every edge of a type between two transactions (one per key), by provenance order.
    pub fn edges_of(&self, from: TxnId, to: TxnId, ty: EdgeType) -> &[Edge] {
        let i = self.edges.partition_point(|e| (e.from, e.to, e.ty) < (from, to, ty));
        let n = self.edges[i..].iter().take_while(|e| e.from == from && e.to == to && e.ty == ty).count();
        &self.edges[i..i + n]
    }

    pub fn stats(&self, h: &History) -> Stats {
        let [ww, wr, rw] = self.counts();
        let vertices = self.vertex_count();
        let edges = ww + wr + rw;
        let [committed, aborted, indeterminate] = h.count_by_status();
        Stats {
            transactions: h.txns.len(),
            committed,
            aborted,
            indeterminate,
            vertices,
            edges,
            ww,
            wr,
            rw,
            density: if vertices == 0 { 0.0 } else { edges as f64 / vertices as f64 },
            not_inferred: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Edge, Succ};

    /// Seventy million edges (in fifty million adjacent pairs) stay in memory for the whole
    /// check at ten million transactions: a field that grows either costs gigabytes (issue 20).
    #[test]
    fn edges_stay_small() {
        assert!(std::mem::size_of::<Edge>() <= 21, "{}", std::mem::size_of::<Edge>());
        assert!(std::mem::size_of::<Succ>() <= 5, "{}", std::mem::size_of::<Succ>());
    }
}
