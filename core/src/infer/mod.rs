//! Workload inference: from a history to dependency edges and the non-cycle anomalies.
//!
//! One module per data model, as Elle keeps them; the graph and search code knows no workload.
//! Rules common to both: only committed transactions are vertices, plus indeterminate ones
//! whose writes some committed transaction observed (or the version order lists): those must
//! have committed. Aborted writes never create edges; reading them is G1a.

mod list_append;
mod rw_register;

use crate::anomaly::{AnomalyKind, Finding};
use crate::graph::{DependencyGraph, Edge, EdgeType, Pair};
use crate::history::{Arg, History, Index, KeyId, Model, OpKind, Status, TxnId, Value};
pub(crate) use crate::history::{WriteInfo, Writes};

/// How many readers a finding lists by name; the rest are counted.
const MAX_READERS: usize = 8;

/// The graph, the anomalies found while building it, and notes on what could not be inferred.
#[derive(Debug, Clone)]
pub struct Inference {
    pub graph: DependencyGraph,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    /// Every external read between vertices as (read op, write op it read from), sorted by read
    /// op: the reads-from relation of the weak levels (the graph keeps one edge per key). `None`
    /// from [`infer_without_reads_from`].
    pub reads_from: Option<Vec<(u32, u32)>>,
    /// The history's index, built once and read by every later stage.
    pub index: Index,
    /// List-append: per key, the committed read whose list is the key's version order (its
    /// longest); `None` when no committed transaction read the key. Empty for registers.
    pub list_order: Vec<Option<u32>>,
    /// When the graph was built without its RW edges ([`infer_without_rw`]): how many distinct
    /// (from, to) pairs they would have joined, for the statistics.
    pub rw_left_out: Option<usize>,
    /// List-append: the committed appends no read observed, as (key, transaction), on keys
    /// with two or more of them (their order is open: [`crate::engine::open_pairs`]).
    pub open_appends: Vec<(KeyId, TxnId)>,
    /// Registers: orders of versions a caller assumes beyond what the history shows (Elle's
    /// version-order sources, [`crate::elle::versions::assumed_order`]); the polygraph takes
    /// them as known edges, and explanations name them. Empty from the inference itself.
    pub assumed_order: Vec<AssumedOrder>,
    /// Whether the inference made an indeterminate transaction a vertex (its write was observed).
    pub(crate) promoted: bool,
}

/// A register version assumed to precede another: the writes (ops) that installed them, and
/// the assumption's name (Elle's option, e.g. `linearizable-keys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssumedOrder {
    pub key: KeyId,
    pub first: u32,
    pub second: u32,
    pub source: &'static str,
}

impl Inference {
    /// The graph's statistics, counting RW edges left out of it.
    pub fn stats(&self, h: &History) -> crate::graph::Stats {
        let mut s = self.graph.stats(h);
        if let Some(rw) = self.rw_left_out {
            s.rw = rw;
            s.edges += rw;
            s.density = if s.vertices == 0 { 0.0 } else { s.edges as f64 / s.vertices as f64 };
        }
        s
    }

    /// A list key's version order, as inference took it.
    pub fn version_list<'h>(&self, h: &'h History, k: KeyId) -> &'h [Value] {
        match self.list_order.get(k as usize).copied().flatten() {
            Some(o) => h.ops.get(o as usize).map_or(&[], |op| h.list(op)),
            None => &[],
        }
    }
}

/// What a check needs of an inference: everything, or all but the RW edges (the weak levels), or
/// all but the list of reads-from (every level but the weak ones). Each holds less than the full
/// one and costs less to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Full = 0,
    WithoutRw = 1,
    WithoutReadsFrom = 2,
    /// As `WithoutReadsFrom`, but the graph keeps only its adjacency, not its edges: for levels
    /// whose check reads no more than the edges of its counterexamples ([`provenance`]).
    Search = 3,
}

impl Needs {
    pub fn infer(self, h: &History) -> Inference {
        match self {
            Needs::Full => infer(h),
            Needs::WithoutRw => infer_without_rw(h),
            Needs::WithoutReadsFrom => infer_without_reads_from(h),
            Needs::Search => infer_with(h, true, false, !cfg!(feature = "compact-graph")),
        }
    }
}

/// Build the dependency graph of a history.
pub fn infer(h: &History) -> Inference {
    infer_with(h, true, true, false)
}

/// The inference without the graph's RW edges (they are only counted): all the weak levels (RC,
/// RA, CC) need, since their axioms use session order, reads-from and WW alone. On a history of
/// many reads most edges are RW (6.3M of AWDIT's 200k-transaction history).
pub fn infer_without_rw(h: &History) -> Inference {
    infer_with(h, false, true, false)
}

/// The inference for levels other than RC, RA and CC, which alone read the reads-from list: 160
/// MB and half a second less at ten million transactions.
pub fn infer_without_reads_from(h: &History) -> Inference {
    infer_with(h, true, false, false)
}

/// `rw`: RW edges in the graph (else only counted); `reads_from`: WR edges also listed;
/// `adjacency_only`: the graph without its edges ([`Needs::Search`]).
fn infer_with(h: &History, rw: bool, reads_from: bool, adjacency_only: bool) -> Inference {
    let index = Index::new(h);
    let mut cx = Ctx::new(h, &index);
    cx.rw_pairs = (!rw).then(Vec::new);
    cx.reads_from = reads_from.then(Vec::new);
    cx.pairs = adjacency_only.then(Vec::new);
    for &(first, dup) in &index.duplicates {
        let op = h.ops[dup.op as usize];
        let value = match op.arg() {
            Arg::Val(v) => Some(v),
            _ => None,
        };
        cx.finding(AnomalyKind::DuplicateWrite, Some(op.key), value, Some((first.txn, first.op)), &[(dup.txn, dup.op)]);
    }
    match h.model {
        Model::ListAppend | Model::Empty => list_append::infer(h, &mut cx),
        Model::RwRegister => rw_register::infer(h, &mut cx),
    }
    for f in cx.findings.iter_mut() {
        f.reread = is_reread(h, f);
    }
    if h.initial_open && h.model == Model::RwRegister {
        mark_maybe_initial(h, &mut cx.findings);
    }
    crate::par::sort::sort_by(&mut cx.findings, |a, b| (a.kind, &a.txns, a.key).cmp(&(b.kind, &b.txns, b.key)));
    if let Some(r) = cx.reads_from.as_mut() {
        crate::par::sort_unstable(r);
    }
    let rw_left_out = cx.rw_pairs.take().map(|mut p| {
        crate::par::sort_unstable(&mut p);
        p.dedup();
        p.len() + cx.rw_counted
    });
    let graph = match cx.pairs {
        Some(pairs) if !cfg!(feature = "compact-graph") => DependencyGraph::from_pairs(cx.is_vertex, pairs),
        _ => DependencyGraph::new(cx.is_vertex, cx.raw),
    };
    Inference {
        rw_left_out,
        graph,
        findings: cx.findings,
        notes: cx.notes,
        reads_from: cx.reads_from,
        list_order: cx.list_order,
        open_appends: cx.open_appends,
        promoted: cx.promotions > 0,
        index,
        assumed_order: Vec::new(),
    }
}

/// The edges between the pairs `wanted` asks for ((from, to, type)), each as the full
/// inference keeps it (the same key and operations: the first by operation order), found by
/// making the model's inference again and keeping only those; with the inference's vertices.
/// For a graph built without its edges ([`Needs::Search`]): a report shows a few of them.
pub fn provenance(h: &History, inf: &Inference, wanted: &[(TxnId, TxnId, EdgeType)]) -> DependencyGraph {
    let set: crate::hash::Set<(u64, u8)> = wanted.iter().map(|&(a, b, ty)| (pair_key(a, b), ty as u8)).collect();
    if set.is_empty() {
        return DependencyGraph::new(inf.graph.is_vertex.clone(), Vec::new());
    }
    let mut cx = Ctx::new(h, &inf.index);
    cx.wanted = Some(&set);
    match h.model {
        Model::ListAppend | Model::Empty if !inf.promoted => {
            let mut txns: Vec<TxnId> = wanted.iter().flat_map(|&(a, b, _)| [a, b]).collect();
            crate::par::sort_unstable(&mut txns);
            txns.dedup();
            list_append::wanted_edges(h, &mut cx, &inf.list_order, &txns);
        }
        Model::ListAppend | Model::Empty => list_append::infer(h, &mut cx),
        Model::RwRegister => rw_register::infer(h, &mut cx),
    }
    DependencyGraph::new(cx.is_vertex, cx.raw)
}

fn pair_key(from: TxnId, to: TxnId) -> u64 {
    (from as u64) << 32 | to as u64
}

pub(crate) struct Ctx<'h> {
    h: &'h History,
    pub raw: Vec<Edge>,
    /// When the graph keeps only its adjacency: the edges' pairs, in place of `raw`.
    pub pairs: Option<Vec<Pair>>,
    /// When only some pairs' edges are asked for ([`provenance`]): those pairs.
    wanted: Option<&'h crate::hash::Set<(u64, u8)>>,
    /// WR edges as (read op, write op), when listed.
    pub reads_from: Option<Vec<(u32, u32)>>,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub is_vertex: Vec<bool>,
    pub index: &'h Index,
    pub list_order: Vec<Option<u32>>,
    pub open_appends: Vec<(KeyId, TxnId)>,
    /// When RW edges are left out: their (from, to) pairs, to count.
    rw_pairs: Option<Vec<u64>>,
    /// RW pairs a workload counted itself (distinct from those in `rw_pairs`).
    rw_counted: usize,
    /// Indeterminate transactions made vertices by [`Ctx::promote`].
    pub promotions: usize,
}

impl<'h> Ctx<'h> {
    fn new(h: &'h History, index: &'h Index) -> Self {
        let is_vertex = h.txns.iter().map(|t| t.status == Status::Committed).collect();
        Ctx { is_vertex, ..Ctx::empty(h, index) }
    }

    /// No vertices, edges or findings yet.
    fn empty(h: &'h History, index: &'h Index) -> Self {
        Ctx {
            h,
            raw: Vec::new(),
            pairs: None,
            wanted: None,
            reads_from: None,
            findings: Vec::new(),
            notes: Vec::new(),
            is_vertex: Vec::new(),
            index,
            list_order: Vec::new(),
            open_appends: Vec::new(),
            rw_pairs: None,
            rw_counted: 0,
            promotions: 0,
        }
    }

    /// An empty context with this one's vertices, for one thread's share of the work; its
    /// edges and findings are added back by [`Ctx::join`].
    #[cfg(feature = "parallel")]
    pub fn fork(&self) -> Ctx<'h> {
        Ctx {
            is_vertex: self.is_vertex.clone(),
            reads_from: self.reads_from.as_ref().map(|_| Vec::new()),
            rw_pairs: self.rw_pairs.as_ref().map(|_| Vec::new()),
            pairs: self.pairs.as_ref().map(|_| Vec::new()),
            wanted: self.wanted,
            ..Ctx::empty(self.h, self.index)
        }
    }

    /// Add a fork's edges and findings after this context's (forks joined in order give the
    /// order one thread would have). Promotions are not carried over: callers redo the work
    /// on one thread when a fork made any.
    #[cfg(feature = "parallel")]
    pub fn join(&mut self, fork: Ctx<'h>) {
        // Copied on the pool: the copy's time is the page faults of fresh memory, which the
        // kernel takes on both cores. The fork goes right after, so the peak stays.
        use rayon::prelude::*;
        self.raw.par_extend(fork.raw.par_iter().copied());
        drop(fork.raw);
        if let (Some(p), Some(f)) = (self.pairs.as_mut(), fork.pairs) {
            p.par_extend(f.par_iter().copied());
        }
        if let (Some(r), Some(f)) = (self.reads_from.as_mut(), fork.reads_from) {
            r.extend(f);
        }
        self.findings.extend(fork.findings);
        self.notes.extend(fork.notes);
        self.open_appends.extend(fork.open_appends);
        if let (Some(p), Some(f)) = (self.rw_pairs.as_mut(), fork.rw_pairs) {
            p.extend(f);
        }
        self.rw_counted += fork.rw_counted;
    }

    /// An empty context without vertices, for findings alone (one thread's share of a scan);
    /// the caller adds its findings back in order.
    pub fn fork_findings(&self) -> Ctx<'h> {
        Ctx::empty(self.h, self.index)
    }

    pub fn status(&self, t: TxnId) -> Status {
        self.h.txns[t as usize].status
    }

    /// An indeterminate transaction whose write was observed: it committed.
    pub fn promote(&mut self, t: TxnId) {
        if self.status(t) == Status::Indeterminate && !self.is_vertex[t as usize] {
            self.is_vertex[t as usize] = true;
            self.promotions += 1;
        }
    }

    /// Whether RW edges are only counted: a workload may then count its distinct pairs itself
    /// ([`Ctx::rw_counted`]) instead of listing them, when no other of its RW pairs can repeat them.
    pub fn counts_rw(&self) -> bool {
        self.rw_pairs.is_some()
    }

    pub fn rw_counted(&mut self, distinct_pairs: usize) {
        self.rw_counted += distinct_pairs;
    }

    pub fn edge(&mut self, ty: EdgeType, from_op: u32, to_op: u32) {
        let (from, to) = (self.index.txn_of(from_op), self.index.txn_of(to_op));
        let key = self.h.ops.get(to_op as usize).map_or(crate::graph::NO_KEY, |op| op.key);
        self.edge_on(ty, key, (from, from_op), (to, to_op));
    }

    /// [`Ctx::edge`] where the caller has the key of `to_op` and both operations' transactions
    /// at hand: list-append's keys' edges, where looking them up was a cache miss each.
    pub fn edge_on(&mut self, ty: EdgeType, key: KeyId, (from, from_op): (TxnId, u32), (to, to_op): (TxnId, u32)) {
        debug_assert_eq!((self.index.txn_of(from_op), self.index.txn_of(to_op)), (from, to));
        debug_assert!(self.h.ops.get(to_op as usize).is_none_or(|op| op.key == key));
        if from != to && self.is_vertex[from as usize] && self.is_vertex[to as usize] {
            if let (EdgeType::Wr, Some(r)) = (ty, self.reads_from.as_mut()) {
                r.push((to_op, from_op));
            }
            if let (EdgeType::Rw, Some(pairs)) = (ty, self.rw_pairs.as_mut()) {
                pairs.push((from as u64) << 32 | to as u64);
                return;
            }
            if let Some(p) = self.pairs.as_mut() {
                p.push(Pair { from, to, ty });
                return;
            }
            if self.wanted.is_some_and(|w| !w.contains(&(pair_key(from, to), ty as u8))) {
                return;
            }
            self.raw.push(Edge { from, to, ty, key, from_op, to_op });
        }
    }

    pub fn finding(
        &mut self,
        kind: AnomalyKind,
        key: Option<KeyId>,
        value: Option<Value>,
        writer: Option<(TxnId, u32)>,
        readers: &[(TxnId, u32)],
    ) {
        let mut txns: Vec<TxnId> = writer.iter().map(|w| w.0).collect();
        let mut ops: Vec<u32> = writer.iter().map(|w| w.1).collect();
        for &(t, o) in readers.iter().take(MAX_READERS) {
            txns.push(t);
            ops.push(o);
        }
        self.findings.push(Finding {
            kind,
            txns,
            ops,
            key,
            value,
            readers: readers.len(),
            reread: false,
            maybe_initial: false,
        });
    }
}

/// How many reads the committed transactions among `txns` made: the records the scans of the
/// reads (list-append's and register's) write for those transactions.
fn committed_reads(h: &History, txns: std::ops::Range<usize>) -> usize {
    let committed = txns.filter(|&t| h.txns[t].status == Status::Committed);
    committed.flat_map(|t| h.ops_of(t as TxnId)).filter(|op| op.kind() == OpKind::Read).count()
}

/// Register keys whose reads of values nobody wrote may read the key's initial version, with
/// that value: the history leaves the initial value open ([`History::initial_open`]), the key's
/// reads of unwritten values all read one value, and no read of the key saw the initial value
/// (`nil`) itself. Empty for every other history.
pub fn maybe_initial_values(h: &History) -> crate::hash::Map<KeyId, Value> {
    let mut out = crate::hash::Map::default();
    if !h.initial_open || h.model != Model::RwRegister {
        return out;
    }
    let written: crate::hash::Set<(KeyId, Value)> = h
        .ops
        .iter()
        .filter(|o| o.kind() != OpKind::Read)
        .filter_map(|o| match o.arg() {
            Arg::Val(v) => Some((o.key, v)),
            _ => None,
        })
        .collect();
    let mut per_key: crate::hash::Map<KeyId, Option<Value>> = crate::hash::Map::default();
    for op in h.ops.iter().filter(|o| o.kind() == OpKind::Read) {
        let (key, arg) = (op.key, op.arg());
        match arg {
            Arg::Val(v) if written.contains(&(key, v)) => {}
            Arg::Val(v) => {
                per_key
                    .entry(key)
                    .and_modify(|x| {
                        if *x != Some(v) {
                            *x = None
                        }
                    })
                    .or_insert(Some(v));
            }
            _ => {
                per_key.insert(key, None);
            }
        }
    }
    out.extend(per_key.into_iter().filter_map(|(k, v)| Some((k, v?))));
    out
}

/// Thin-air reads that may be their key's initial version ([`maybe_initial_values`]).
fn mark_maybe_initial(h: &History, findings: &mut [Finding]) {
    let maybe = maybe_initial_values(h);
    for f in findings.iter_mut().filter(|f| f.kind == AnomalyKind::GarbageRead) {
        f.maybe_initial = matches!((f.key, f.value), (Some(k), Some(v)) if maybe.get(&k) == Some(&v));
    }
}

/// Whether an internal finding is a second read of a key that saw other transactions' newer
/// writes (and, for a list, its own appends since on top): allowed by read committed, a
/// non-repeatable read for the stronger levels.
fn is_reread(h: &History, f: &Finding) -> bool {
    let (Some(&first), Some(&last)) = (f.ops.first(), f.ops.last()) else { return false };
    if f.kind != AnomalyKind::Internal
        || f.ops.len() != 2
        || first >= last
        || h.ops[first as usize].kind() != OpKind::Read
    {
        return false;
    }
    let key = h.ops[last as usize].key;
    let own: Vec<Value> = h.ops[first as usize..last as usize]
        .iter()
        .filter(|o| o.kind() != OpKind::Read && o.key == key)
        .filter_map(|o| match o.arg() {
            Arg::Val(v) => Some(v),
            _ => None,
        })
        .collect();
    match h.model {
        Model::RwRegister => own.is_empty(),
        _ => {
            let (a, b) = (h.list(&h.ops[first as usize]), h.list(&h.ops[last as usize]));
            b.len() > a.len() + own.len() && b.starts_with(a) && b.ends_with(&own)
        }
    }
}
