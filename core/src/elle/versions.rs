//! Elle's version-order inference for registers, as `elle.rw-register` does it (`jepsen-io/elle`,
//! `src/elle/rw_register.clj`, the copy at commit 05fd530b9a0abfcf12766b28c0689de6380b23fc):
//! `version-graphs` joins the version graphs of its sources, each kept only when the union
//! stays acyclic (else the cycle is a `cyclic-versions` anomaly and the source is left out):
//!
//! * `initial-state` (always): `nil` precedes every other version a transaction wrote (ok or
//!   info) or read (ok) externally;
//! * `:wfr-keys?`: in an ok transaction, the version it read of a key precedes the one it wrote;
//! * `:sequential-keys?` (process order) and `:linearizable-keys?` (real-time order):
//!   `transaction-graph->version-graphs`: the last version a transaction interacted with
//!   precedes the first one of each next transaction on the order's graph that interacts with
//!   the key. Only ok transactions are in these graphs here: so is Elle's `process-graph`, but its
//!   `realtime-graph` also leads to info (crashed) transactions, whose writes it then orders.
//!   grail leaves them out (an info transaction's write stays unordered by real time), so with
//!   `:linearizable-keys?` it may miss a `cyclic-versions` or a cycle Elle finds through one.
//! * Where a transaction reads a value and writes the same value back, Elle's `:wfr-keys?` links
//!   the version to itself; grail draws no such loop.
//!
//! `version-graphs->transaction-graph` then draws, for each edge `v1 -> v2` of a key's graph, WW
//! from the ok transactions that wrote `v1` to those that wrote `v2`, and RW from those that read
//! `v1` to those that wrote `v2` (externally: a transaction's first read of a key before its own
//! write, its last write). Only these edges are Elle's ww and rw: a register's other version
//! pairs stay unordered, and cycles through them go unseen.
//!
//! grail's complete check (`--version-order complete`) takes this graph, when a source besides
//! the initial state is asked for, as assumed order ([`assumed_order`]): the polygraph's known
//! edges, each step that rests on one marked with the source that assumed it.

use crate::graph::orders::{realtime_edges, session_edges};
use crate::graph::{Edge, EdgeType};
use crate::hash::Map;
use crate::history::{Arg, History, KeyId, OpKind, Status, TxnId, Value, Writes};
use crate::infer::AssumedOrder;
use petgraph::graphmap::DiGraphMap;
use std::collections::{BTreeMap, BTreeSet};

/// A register version: `None` is `nil`, the initial state.
pub type Version = Option<Value>;

/// Elle's options for inferring a register's version order (`elle.rw-register/check`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VersionSources {
    /// `:wfr-keys?`: within a transaction, writes follow reads.
    pub wfr_keys: bool,
    /// `:sequential-keys?`: each key is sequentially consistent (process order).
    pub sequential_keys: bool,
    /// `:linearizable-keys?`: each key is linearizable (real-time order).
    pub linearizable_keys: bool,
}

/// Versions of a key on a cycle when a source was added (Elle's `:cyclic-versions` case).
#[derive(Debug, Clone, PartialEq)]
pub struct CyclicVersions {
    pub key: KeyId,
    pub scc: Vec<Version>,
    /// The sources whose union had the cycle (the last one was then left out).
    pub sources: Vec<&'static str>,
}

/// Elle's version graphs: per key, `v1 -> v2` edges.
#[derive(Debug, Clone, Default)]
pub struct VersionGraphs {
    /// (key, v1, v2), sorted, each once.
    pub edges: Vec<(KeyId, Version, Version)>,
    /// Each edge's source (the first of [`VersionGraphs::sources`] that gave it), beside
    /// `edges`.
    pub edge_sources: Vec<&'static str>,
    /// The sources used, in Elle's order and names.
    pub sources: Vec<&'static str>,
    pub cyclic: Vec<CyclicVersions>,
}

/// A transaction's external reads (first read of a key before its own write) and writes (last
/// write of a key), as `jepsen.txn`'s `ext-reads` and `ext-writes`: (key, version, op).
struct Ext {
    reads: Vec<Access>,
    writes: Vec<Access>,
}

/// A transaction's access to a key: (key, version, op).
type Access = (KeyId, Version, u32);

impl Ext {
    fn of(h: &History, t: TxnId) -> Ext {
        let range = h.op_range(t);
        let start = range.start as u32;
        let (mut reads, mut writes): (Vec<Access>, Vec<Access>) = (vec![], vec![]);
        for (i, op) in h.ops[range].iter().enumerate() {
            let v = match op.arg() {
                Arg::Val(v) => Some(v),
                _ => None,
            };
            let o = start + i as u32;
            match op.kind() {
                OpKind::Read => {
                    let key = op.key;
                    if !reads.iter().any(|r| r.0 == key) && !writes.iter().any(|w| w.0 == key) {
                        reads.push((key, v, o));
                    }
                }
                _ => {
                    let key = op.key;
                    writes.retain(|w| w.0 != key);
                    writes.push((key, v, o));
                }
            }
        }
        Ext { reads, writes }
    }

    fn read(&self, k: KeyId) -> Option<(Version, u32)> {
        self.reads.iter().find(|r| r.0 == k).map(|r| (r.1, r.2))
    }

    fn write(&self, k: KeyId) -> Option<(Version, u32)> {
        self.writes.iter().find(|w| w.0 == k).map(|w| (w.1, w.2))
    }

    fn keys(&self) -> BTreeSet<KeyId> {
        self.reads.iter().chain(&self.writes).map(|x| x.0).collect()
    }
}

type Edges = BTreeSet<(KeyId, Version, Version)>;

fn exts(h: &History) -> Vec<Ext> {
    (0..h.txns.len() as TxnId).map(|t| Ext::of(h, t)).collect()
}

/// `initial-state-version-graphs`: nil before every other version written (ok, info) or read (ok).
fn initial_state(h: &History, ext: &[Ext]) -> Edges {
    let mut out = Edges::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status == Status::Aborted {
            continue;
        }
        let reads = ext[t].reads.iter().filter(|_| txn.status == Status::Committed);
        for &(k, v, _) in ext[t].writes.iter().chain(reads) {
            if v.is_some() {
                out.insert((k, None, v));
            }
        }
    }
    out
}

/// `wfr-version-graphs`: in an ok transaction, a (non-nil) version read before the write.
fn wfr(h: &History, ext: &[Ext]) -> Edges {
    let mut out = Edges::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Committed {
            continue;
        }
        for &(k, v, _) in &ext[t].reads {
            if let (Some(_), Some((w, _))) = (v, ext[t].write(k)) {
                if w != v {
                    out.insert((k, v, w));
                }
            }
        }
    }
    out
}

/// `transaction-graph->version-graphs` over an order's edges among ok transactions: each
/// transaction's last version of a key before the first version of each next transaction on
/// the graph that interacts with the key (Elle's `ext-key-graph`: the search stops at those).
fn from_order(h: &History, ext: &[Ext], order: &[Edge]) -> Edges {
    let n = h.txns.len();
    let mut out_edges: Vec<Vec<TxnId>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for e in order {
        out_edges[e.from as usize].push(e.to);
        indegree[e.to as usize] += 1;
    }
    // Kahn's order; the orders are acyclic (invocation before completion).
    let mut topo: Vec<TxnId> = (0..n as TxnId).filter(|&t| indegree[t as usize] == 0).collect();
    let mut i = 0;
    while i < topo.len() {
        let t = topo[i] as usize;
        for &b in &out_edges[t] {
            indegree[b as usize] -= 1;
            if indegree[b as usize] == 0 {
                topo.push(b);
            }
        }
        i += 1;
    }
    let keys: Vec<BTreeSet<KeyId>> = ext.iter().map(Ext::keys).collect();
    // Per transaction: key -> the next transactions downstream that interact with it.
    let mut downstream: Vec<Map<KeyId, BTreeSet<TxnId>>> = vec![Map::default(); n];
    for &a in topo.iter().rev() {
        let mut d: Map<KeyId, BTreeSet<TxnId>> = Map::default();
        for &b in &out_edges[a as usize] {
            for (&k, bs) in &downstream[b as usize] {
                if !keys[b as usize].contains(&k) {
                    d.entry(k).or_default().extend(bs.iter().copied());
                }
            }
            for &k in &keys[b as usize] {
                d.entry(k).or_default().insert(b);
            }
        }
        downstream[a as usize] = d;
    }
    let mut out = Edges::new();
    for (a, d) in downstream.iter().enumerate() {
        for (&k, bs) in d {
            // Elle's `(or ext-write ext-read)` and `(or ext-read ext-write)` on values: a read of
            // nil is no value, so it gives way to the write; nil when neither has one (a
            // transaction that only read nil: `v1 -> nil`, which the initial state's order
            // then closes into a cycle of versions).
            let value = |x: Option<(Version, u32)>| x.and_then(|x| x.0);
            let v1 = value(ext[a].write(k)).or(value(ext[a].read(k)));
            for &b in bs {
                let b = &ext[b as usize];
                if b.read(k).is_none() && b.write(k).is_none() {
                    continue;
                }
                let v2 = value(b.read(k)).or(value(b.write(k)));
                if v2 != v1 {
                    out.insert((k, v1, v2));
                }
            }
        }
    }
    out
}

/// Elle's `version-graphs` for these options.
pub fn version_graphs(h: &History, s: VersionSources) -> VersionGraphs {
    let ext = exts(h);
    let committed: Vec<bool> = h.txns.iter().map(|t| t.status == Status::Committed).collect();
    let mut analyzers: Vec<(&'static str, Edges)> = vec![("initial-state", initial_state(h, &ext))];
    if s.wfr_keys {
        analyzers.push(("wfr-keys", wfr(h, &ext)));
    }
    if s.sequential_keys {
        analyzers.push(("sequential-keys", from_order(h, &ext, &session_edges(h, &committed).0)));
    }
    if s.linearizable_keys {
        analyzers.push(("linearizable-keys", from_order(h, &ext, &realtime_edges(h, &committed).0)));
    }
    let mut out = VersionGraphs::default();
    let mut kept: BTreeMap<(KeyId, Version, Version), &'static str> = BTreeMap::new();
    for (name, edges) in analyzers {
        let mut union = kept.clone();
        for e in edges {
            union.entry(e).or_insert(name);
        }
        let mut sources = out.sources.clone();
        sources.push(name);
        let cycles = cyclic(&union.keys().copied().collect());
        if cycles.is_empty() {
            kept = union;
            out.sources = sources;
        } else {
            out.cyclic.extend(cycles.into_iter().map(|(key, scc)| CyclicVersions {
                key,
                scc,
                sources: sources.clone(),
            }));
        }
    }
    (out.edges, out.edge_sources) = kept.into_iter().unzip();
    out
}

/// Elle's inferred order as assumptions for grail's complete check: each edge `v1 -> v2`
/// between two versions written by committed transactions (their last writes of the key), as
/// the writes' ops with the edge's source. Edges from `nil` are left out (the polygraph already
/// puts the initial version first), and so are versions no committed transaction installed.
pub fn assumed_order(h: &History, writes: &Writes, vg: &VersionGraphs) -> Vec<AssumedOrder> {
    let installed = |k: KeyId, v: Version| {
        let w = writes.get(&(k, v?))?;
        (w.last && h.txns[w.txn as usize].status == Status::Committed).then_some(w.op)
    };
    vg.edges
        .iter()
        .zip(&vg.edge_sources)
        .filter_map(|(&(key, v1, v2), &source)| {
            Some(AssumedOrder { key, first: installed(key, v1)?, second: installed(key, v2)?, source })
        })
        .collect()
}

/// Elle's `cyclic-version-cases`: the strongly connected components (two or more versions) of
/// each key's graph.
fn cyclic(edges: &Edges) -> Vec<(KeyId, Vec<Version>)> {
    let mut out = Vec::new();
    let mut i = 0;
    let all: Vec<&(KeyId, Version, Version)> = edges.iter().collect();
    while i < all.len() {
        let k = all[i].0;
        let j = i + all[i..].partition_point(|e| e.0 == k);
        let g: DiGraphMap<Version, (), foldhash::fast::FixedState> = all[i..j].iter().map(|e| (e.1, e.2)).collect();
        let mut sccs: Vec<Vec<Version>> = petgraph::algo::tarjan_scc(&g).into_iter().filter(|c| c.len() > 1).collect();
        for c in &mut sccs {
            crate::par::sort::sort(c);
        }
        crate::par::sort::sort(&mut sccs);
        out.extend(sccs.into_iter().map(|c| (k, c)));
        i = j;
    }
    out
}

/// Elle's `version-graphs->transaction-graph`: WW from the ok writers of `v1` to those of `v2`,
/// RW from the ok readers of `v1` to the writers of `v2`, for each edge (no self-edges).
pub fn transaction_edges(h: &History, vg: &VersionGraphs) -> Vec<Edge> {
    let ext = exts(h);
    let mut writers: Map<(KeyId, Version), Vec<(TxnId, u32)>> = Map::default();
    let mut readers: Map<(KeyId, Version), Vec<(TxnId, u32)>> = Map::default();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Committed {
            continue;
        }
        for &(k, v, o) in &ext[t].writes {
            writers.entry((k, v)).or_default().push((t as TxnId, o));
        }
        for &(k, v, o) in &ext[t].reads {
            readers.entry((k, v)).or_default().push((t as TxnId, o));
        }
    }
    let mut out = Vec::new();
    let none = Vec::new();
    for &(k, v1, v2) in &vg.edges {
        let to = writers.get(&(k, v2)).unwrap_or(&none);
        for (ty, from) in [(EdgeType::Ww, writers.get(&(k, v1))), (EdgeType::Rw, readers.get(&(k, v1)))] {
            for &(a, ao) in from.unwrap_or(&none) {
                for &(b, bo) in to.iter().filter(|b| b.0 != a) {
                    out.push(Edge { from: a, to: b, ty, key: k, from_op: ao, to_op: bo });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(text: &str) -> History {
        crate::read::read(text.as_bytes(), crate::read::Format::Auto).unwrap()
    }

    // T1 writes x=1; T2 reads x=1 and writes x=2 (process 1, after T1 in real time); T3 reads nil.
    const H: &str = "{:type :invoke, :process 0, :value [[:w :x 1]], :index 0}\n{:type :ok, :process 0, :value [[:w :x 1]], :index 1}\n{:type :invoke, :process 0, :value [[:r :x nil] [:w :x 2]], :index 2}\n{:type :ok, :process 0, :value [[:r :x 1] [:w :x 2]], :index 3}\n{:type :invoke, :process 1, :value [[:r :x nil]], :index 4}\n{:type :ok, :process 1, :value [[:r :x nil]], :index 5}\n";

    #[test]
    fn initial_state_alone_orders_nil_first() {
        let h = hist(H);
        let vg = version_graphs(&h, VersionSources::default());
        assert_eq!(vg.sources, ["initial-state"]);
        let v = |i: i64| Some(Value::Int(i));
        let x = vg.edges[0].0;
        assert_eq!(vg.edges, [(x, None, v(1)), (x, None, v(2))]);
        // RW from the reader of nil (T3) to both writers; no WW (nobody wrote nil).
        let e = transaction_edges(&h, &vg);
        assert_eq!(e.iter().filter(|e| e.ty == EdgeType::Rw).count(), 2);
        assert!(e.iter().all(|e| e.ty == EdgeType::Rw));
    }

    #[test]
    fn wfr_and_process_order_add_versions() {
        let h = hist(H);
        let v = |i: i64| Some(Value::Int(i));
        let wfr = version_graphs(&h, VersionSources { wfr_keys: true, ..Default::default() });
        assert!(wfr.edges.iter().any(|e| (e.1, e.2) == (v(1), v(2))));
        let seq = version_graphs(&h, VersionSources { sequential_keys: true, ..Default::default() });
        // Process 0 wrote 1, then read 1 (same version: no edge) and wrote 2.
        assert!(!seq.edges.iter().any(|e| (e.1, e.2) == (v(1), v(2))));
        // Real time: T3 was invoked after T2 ended, so T2's 2 precedes T3's nil, which closes a
        // cycle with nil -> 2: the source is left out, and the cycle reported.
        let lin = version_graphs(&h, VersionSources { linearizable_keys: true, ..Default::default() });
        assert_eq!(lin.sources, ["initial-state"]);
        assert_eq!(lin.cyclic.len(), 1);
        assert_eq!(lin.cyclic[0].sources, ["initial-state", "linearizable-keys"]);
    }

    #[test]
    fn a_read_of_nil_gives_way_to_the_write() {
        // Process 0 writes 1, then reads nil and writes 2: Elle's v2 is 2 (`(or ext-read
        // ext-write)`, nil being no value), so 1 -> 2, not 1 -> nil (a cycle with nil -> 1).
        let h = hist("{:type :invoke, :process 0, :value [[:w :x 1]], :index 0}\n{:type :ok, :process 0, :value [[:w :x 1]], :index 1}\n{:type :invoke, :process 0, :value [[:r :x nil] [:w :x 2]], :index 2}\n{:type :ok, :process 0, :value [[:r :x nil] [:w :x 2]], :index 3}\n");
        let v = |i: i64| Some(Value::Int(i));
        let seq = version_graphs(&h, VersionSources { sequential_keys: true, ..Default::default() });
        assert_eq!(seq.sources, ["initial-state", "sequential-keys"]);
        assert!(seq.cyclic.is_empty());
        assert!(seq.edges.iter().any(|e| (e.1, e.2) == (v(1), v(2))));
    }
}
