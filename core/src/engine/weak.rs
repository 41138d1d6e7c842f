//! The weak levels of Biswas and Enea ("On the complexity of checking transactional consistency",
//! OOPSLA 2019), as Plume (OOPSLA 2024) and AWDIT (PLDI 2025) check them: read committed, read
//! atomic and causal consistency.
//!
//! Each level is an axiom "if a transaction t3 read key x from t1, and t3 observed another writer
//! t2 of x, then t2 commits before t1"; the levels differ in what "observed" means (an earlier
//! read of t3; a direct session-order or reads-from predecessor; any causal predecessor). The
//! premises depend on session order and reads-from only, so one round of saturation decides the
//! level: it holds iff session order, reads-from, the known version order (WW) and the inferred
//! commit-order (`co`) edges form no cycle. The cycle search is the one every level uses.
//!
//! Only the latest observed writer per session (or per causal chain) is linked: earlier ones
//! reach it through session order, so the closure, and the verdict, are the same. Causal
//! consistency's saturation is in [`super::causal`].

use crate::anomaly::AnomalyKind;
use crate::graph::orders::{in_session_order, session_edges, session_place};
use crate::graph::search::components;
use crate::graph::{DependencyGraph, Edge, EdgeType};
use crate::hash::Map;
use crate::history::{Arg, History, KeyId, OpKind, TxnId};
use crate::infer::Inference;
use crate::level::Weak;

/// A read of a key's initial value by a transaction that had observed a writer of that key: the
/// axiom would put the writer before the initial state, so there is no cycle to show, only this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitialRead {
    /// The observed writer's write of the key.
    pub write_op: u32,
    /// The read of the initial value.
    pub read_op: u32,
}

/// The graph of one weak level, and the violations that are not cycles.
pub struct WeakGraph {
    pub graph: DependencyGraph,
    pub initial_reads: Vec<InitialRead>,
    /// Whether any transaction had a session (process).
    pub sessions: bool,
}

/// An external read of a vertex: its op, key, and the write op it read from (`None`: the initial
/// value).
#[derive(Clone, Copy)]
pub(crate) struct ExtRead {
    pub(crate) op: u32,
    pub(crate) key: KeyId,
    pub(crate) from: Option<u32>,
}

/// What the weak levels read of a history, built once and shared by RC, RA and CC.
pub struct Input<'a> {
    pub(super) h: &'a History,
    pub(super) inf: &'a Inference,
    pub(super) op_txn: &'a [TxnId],
    /// External reads of each vertex, in program order: `reads[starts[t]..starts[t+1]]`.
    pub(super) reads: Vec<ExtRead>,
    starts: Vec<u32>,
    /// Session order, and whether any transaction had a process.
    pub(super) so: Vec<Edge>,
    sessions: bool,
    /// Each transaction's writes, for RC and RA (built by the first of them that asks).
    writes: std::sync::OnceLock<TxnWrites>,
}

impl<'a> Input<'a> {
    pub fn new(h: &'a History, inf: &'a Inference) -> Self {
        let is_vertex = &inf.graph.is_vertex;
        let n = h.txns.len();
        let mut reads = Vec::new();
        let mut starts = Vec::with_capacity(n + 1);
        for t in 0..n as TxnId {
            starts.push(reads.len() as u32);
            // An indeterminate transaction's reads are unknown (its `nil`s are the invocation's).
            let committed = h.txns[t as usize].status == crate::history::Status::Committed;
            if committed && is_vertex.get(t as usize).copied().unwrap_or(false) {
                reads.extend(external_reads(h, inf, t));
            }
        }
        starts.push(reads.len() as u32);
        let (so, sessions) = session_edges(h, is_vertex);
        Input { h, inf, op_txn: &inf.index.op_txn, reads, starts, so, sessions, writes: Default::default() }
    }

    pub(super) fn reads_of(&self, t: TxnId) -> &[ExtRead] {
        &self.reads[self.starts[t as usize] as usize..self.starts[t as usize + 1] as usize]
    }

    fn writes(&self) -> &TxnWrites {
        self.writes.get_or_init(|| TxnWrites::new(self.h))
    }
}

/// Each transaction's writes (and appends) as (key, op), in program order:
/// `list[starts[t]..starts[t + 1]]`. RC and RA ask, for each read, whether each writer observed
/// wrote its key. Asked of the history, each question missed the cache twice (the transaction,
/// then its operations): on AWDIT's 200k history, RC took a sixth more time.
struct TxnWrites {
    starts: Vec<u32>,
    list: Vec<(KeyId, u32)>,
}

impl TxnWrites {
    fn new(h: &History) -> Self {
        let mut starts = Vec::with_capacity(h.txns.len() + 1);
        let mut list = Vec::new();
        for txn in &h.txns {
            starts.push(list.len() as u32);
            let ops = h.ops.get(txn.ops_start as usize..txn.ops_end as usize).unwrap_or_default();
            for (o, op) in (txn.ops_start..).zip(ops) {
                if op.kind() != OpKind::Read {
                    list.push((op.key, o));
                }
            }
        }
        starts.push(list.len() as u32);
        TxnWrites { starts, list }
    }

    /// `t`'s last write (or append) to `key`, if it wrote it.
    fn last(&self, t: TxnId, key: KeyId) -> Option<u32> {
        let (a, b) = (*self.starts.get(t as usize)?, *self.starts.get(t as usize + 1)?);
        self.list.get(a as usize..b as usize)?.iter().rev().find(|w| w.0 == key).map(|w| w.1)
    }
}

/// What the saturation concludes: commit-order edges, and reads of an initial value.
#[derive(Default)]
pub(super) struct Out {
    edges: Vec<Edge>,
    initial: Vec<InitialRead>,
}

impl Out {
    /// The axiom's conclusion: `t2`'s write `w2` precedes the version `r` read.
    pub(super) fn infer(&mut self, inp: &Input, w2: u32, r: &ExtRead) {
        let t2 = inp.op_txn[w2 as usize];
        match r.from {
            Some(w1) => {
                let t1 = inp.op_txn[w1 as usize];
                if t1 != t2 {
                    self.edges.push(Edge { from: t2, to: t1, ty: EdgeType::Co, key: r.key, from_op: w2, to_op: r.op });
                }
            }
            None => self.initial.push(InitialRead { write_op: w2, read_op: r.op }),
        }
    }

    /// A commit-order edge `t2 -> t1` of `key`, from `t2`'s write `w2`, for the read `read_op`.
    pub(super) fn co(&mut self, t2: TxnId, t1: TxnId, key: KeyId, w2: u32, read_op: u32) {
        if t1 != t2 {
            self.edges.push(Edge { from: t2, to: t1, ty: EdgeType::Co, key, from_op: w2, to_op: read_op });
        }
    }
}

/// Build the saturated graph of a weak level.
pub fn graph(inp: &Input, level: Weak) -> WeakGraph {
    let g = &inp.inf.graph;
    let mut out = Out::default();
    let mut causal = None;
    match level {
        Weak::ReadCommitted => read_committed(inp, &mut out),
        Weak::ReadAtomic => read_atomic(inp, &mut out),
        Weak::Causal => causal = Some(super::causal::Causal::new(inp)),
    }
    if let Some(c) = &causal {
        c.saturate(inp, &mut out, &Redundant::Drop);
    }
    let mut graph = saturated(inp, out.edges);
    if let Some(causal) = &causal {
        // Commit-order edges already implied by causality were left out, and of those into one
        // transaction only the latest per chain drawn; they change no reachability, so the
        // components are the same, but a cycle inside one may use them: draw every edge into a
        // transaction of a component again, so the witnesses are the full graph's.
        let comps = components(&graph);
        if !comps.is_empty() {
            let mut comp = vec![u32::MAX; g.is_vertex.len()];
            for (i, c) in comps.iter().enumerate() {
                c.iter().for_each(|&v| comp[v as usize] = i as u32);
            }
            let mut again = Out::default();
            causal.saturate(inp, &mut again, &Redundant::KeepWithin(comp));
            let mut edges = std::mem::take(&mut graph.edges);
            edges.extend(again.edges);
            graph = DependencyGraph::new(g.is_vertex.clone(), edges);
        }
    }
    WeakGraph { graph, initial_reads: out.initial, sessions: inp.sessions }
}

/// The saturated graph: the inferred commit-order edges, session order, WW and WR.
fn saturated(inp: &Input, co: Vec<Edge>) -> DependencyGraph {
    let g = &inp.inf.graph;
    // The inference's edges are sorted already: a merging sort finds that run and sorts only the
    // others, where a sort from scratch cost as much as the rest of the check.
    let mut edges: Vec<Edge> =
        g.edges.iter().filter(|e| matches!(e.ty, EdgeType::Ww | EdgeType::Wr)).copied().collect();
    edges.extend_from_slice(&inp.so);
    edges.extend(co);
    crate::par::sort::sort_by_key(&mut edges, Edge::rank);
    DependencyGraph::new(g.is_vertex.clone(), edges)
}

/// What causal saturation does with an edge t2 -> t1 where t2 is already a causal predecessor
/// of t1 (the path of session order and reads-from is in the graph).
pub(super) enum Redundant {
    /// Leave it out: the closure is the same.
    Drop,
    /// Keep it when both ends are in one component (indexed by transaction; `u32::MAX`: none).
    KeepWithin(Vec<u32>),
}

impl Redundant {
    /// Whether the reads from `t1` are saturated again: all of them at first; then (the edges
    /// not implied being drawn already) those from a transaction in a component, whose every
    /// edge is drawn.
    pub(super) fn wanted(&self, t1: Option<TxnId>) -> bool {
        match (self, t1) {
            (Redundant::Drop, _) => true,
            (Redundant::KeepWithin(comp), Some(t1)) => comp.get(t1 as usize).is_some_and(|&c| c != u32::MAX),
            (Redundant::KeepWithin(_), None) => false,
        }
    }

    /// Whether an implied edge t2 -> t1 is kept.
    pub(super) fn keeps(&self, t2: TxnId, t1: Option<TxnId>) -> bool {
        match (self, t1) {
            (Redundant::KeepWithin(comp), Some(t1)) => {
                let c = comp.get(t2 as usize).copied().unwrap_or(u32::MAX);
                c != u32::MAX && comp.get(t1 as usize) == Some(&c)
            }
            _ => false,
        }
    }
}

/// A vertex's external reads that saw another transaction's write, or the initial value, in
/// program order. A list read after the transaction's own appends to the key shows, before
/// them, the version it observed: that version's writer is read from too (a register read
/// after its own write shows nothing else, and is checked as `internal`).
pub(crate) fn external_reads<'a>(h: &'a History, inf: &'a Inference, t: TxnId) -> Vec<ExtRead> {
    let mut out: Vec<ExtRead> = outside_reads(h, inf, t).collect();
    if h.model == crate::history::Model::ListAppend {
        out.extend(after_own_appends(h, inf, t));
        // One read per op (a read is before or after the transaction's own appends to the
        // key), so the compact sort's order is the same.
        crate::par::sort::sort_unstable_by_key(&mut out, |r| r.op);
    }
    out
}

/// Transaction `t`'s list reads after its own appends to the key, each as (read op, key, the
/// version it saw before them); a read that does not end with its own appends is left out
/// (checked as `internal`).
fn seen_before_own_appends(h: &History, t: TxnId) -> impl Iterator<Item = (u32, KeyId, &[crate::history::Value])> + '_ {
    let range = h.op_range(t);
    let start = range.start;
    let ops = &h.ops[range];
    ops.iter().enumerate().filter_map(move |(i, op)| {
        let k = op.key;
        if op.kind() != OpKind::Read {
            return None;
        }
        let own: Vec<crate::history::Value> = ops[..i]
            .iter()
            .filter(|o| o.key == k && o.kind() == OpKind::Append)
            .filter_map(|o| if let Arg::Val(v) = o.arg() { Some(v) } else { None })
            .collect();
        if own.is_empty() {
            return None;
        }
        Some(((start + i) as u32, k, h.list(op).strip_suffix(&own[..])?))
    })
}

/// List reads after the reader's own appends to the key, as reads of the version before them:
/// its last element's writer, or the initial (empty) list.
fn after_own_appends<'a>(h: &'a History, inf: &'a Inference, t: TxnId) -> impl Iterator<Item = ExtRead> + 'a {
    seen_before_own_appends(h, t).filter_map(move |(o, k, seen)| {
        let Some(&last) = seen.last() else { return Some(ExtRead { op: o, key: k, from: None }) };
        let w = inf.index.writes.get(&(k, last))?;
        let vertex = inf.graph.is_vertex.get(w.txn as usize).copied().unwrap_or(false);
        (vertex && w.txn != t).then_some(ExtRead { op: o, key: k, from: Some(w.op) })
    })
}

/// The list reads of `t3` after its own appends whose version before them ends with an append
/// of `t2`'s: reads from `t2` the graph does not draw.
fn reads_before_own_appends_from(h: &History, t2: TxnId, t3: TxnId) -> Vec<u32> {
    if h.model != crate::history::Model::ListAppend || t2 == t3 {
        return Vec::new();
    }
    let appended = |k: KeyId, v: crate::history::Value| {
        h.ops_of(t2).iter().any(|o| o.key == k && o.kind() == OpKind::Append && o.arg() == Arg::Val(v))
    };
    seen_before_own_appends(h, t3)
        .filter(|(_, k, seen)| seen.last().is_some_and(|&v| appended(*k, v)))
        .map(|(o, ..)| o)
        .collect()
}

/// A vertex's reads before its own writes of their keys that saw another transaction's write,
/// or the initial value.
fn outside_reads<'a>(h: &'a History, inf: &'a Inference, t: TxnId) -> impl Iterator<Item = ExtRead> + 'a {
    h.external_reads(t).filter_map(move |o| {
        let op = h.ops[o as usize];
        let initial = match op.arg() {
            Arg::Nil | Arg::Prefix(0) => true,
            Arg::List { len, .. } => len == 0,
            _ => false,
        };
        let reads_from = inf.reads_from.as_deref().unwrap_or_default();
        let from = reads_from.binary_search_by_key(&o, |e| e.0).ok().map(|i| reads_from[i].1);
        (from.is_some() || initial).then_some(ExtRead { op: o, key: op.key, from })
    })
}

/// MonoAtomicView: a writer seen by an earlier read of the same transaction.
fn read_committed(inp: &Input, out: &mut Out) {
    let writes = inp.writes();
    let mut seen: Vec<TxnId> = Vec::new();
    for t in 0..inp.h.txns.len() as TxnId {
        seen.clear();
        for r in inp.reads_of(t) {
            for &t2 in &seen {
                if let Some(w2) = writes.last(t2, r.key) {
                    out.infer(inp, w2, r);
                }
            }
            if let Some(w1) = r.from {
                let t1 = inp.op_txn[w1 as usize];
                if !seen.contains(&t1) {
                    seen.push(t1);
                }
            }
        }
    }
}

/// ReadAtomic: a writer that is a direct predecessor, by session order or reads-from.
fn read_atomic(inp: &Input, out: &mut Out) {
    let h = inp.h;
    let writes = inp.writes();
    // The latest write of each key by each process so far, visiting each process's
    // transactions in session order; transactions without a process have no session premise.
    let mut session_last: Map<(i64, KeyId), u32> = Map::default();
    let mut sources: Vec<TxnId> = Vec::new();
    let in_session = in_session_order(h, &inp.inf.graph.is_vertex);
    let alone = (0..h.txns.len() as TxnId)
        .filter(|&t| inp.inf.graph.is_vertex[t as usize] && h.txns[t as usize].process().is_none())
        .map(|t| (None, t));
    for (process, t) in in_session.into_iter().map(|(p, t)| (Some(p), t)).chain(alone) {
        let reads = inp.reads_of(t);
        sources.clear();
        for r in reads {
            if let Some(w1) = r.from {
                let t1 = inp.op_txn[w1 as usize];
                if !sources.contains(&t1) {
                    sources.push(t1);
                }
            }
        }
        for r in reads {
            if let Some(&w2) = process.and_then(|p| session_last.get(&(p, r.key))) {
                out.infer(inp, w2, r);
            }
            for &t2 in &sources {
                if let Some(w2) = writes.last(t2, r.key) {
                    out.infer(inp, w2, r);
                }
            }
        }
        if let Some(p) = process {
            let txn = &h.txns[t as usize];
            for o in txn.ops_start..txn.ops_end {
                let op = h.ops[o as usize];
                if op.kind() != OpKind::Read {
                    session_last.insert((p, op.key), o);
                }
            }
        }
    }
}

/// How a transaction observed a writer, for naming a cycle and explaining an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Premise {
    /// In an earlier read of its own.
    EarlierRead,
    /// As a direct predecessor: the same process earlier, or a writer it read from.
    Direct,
    /// Only through a chain of session order and reads-from.
    Causal,
}

/// How `t3` had observed `t2` when it made the read `read_op`, judged on the weak graph `g`.
pub fn premise(h: &History, g: &DependencyGraph, t2: TxnId, t3: TxnId, read_op: u32) -> Premise {
    let reads = reads_from(h, g, t2, t3);
    if reads.iter().any(|&o| o < read_op) {
        return Premise::EarlierRead;
    }
    let (a, b) = (&h.txns[t2 as usize], &h.txns[t3 as usize]);
    let earlier = session_place(h, t2) < session_place(h, t3);
    if !reads.is_empty() || (a.process().is_some() && a.process() == b.process() && earlier) {
        return Premise::Direct;
    }
    Premise::Causal
}

/// `t3`'s reads from `t2`: the graph's WR edges, and list reads after `t3`'s own appends that
/// saw `t2`'s version before them ([`after_own_appends`], which the graph does not draw).
fn reads_from(h: &History, g: &DependencyGraph, t2: TxnId, t3: TxnId) -> Vec<u32> {
    let i = g.edges.partition_point(|e| (e.from, e.to, e.ty) < (t2, t3, EdgeType::Wr));
    let mut reads: Vec<u32> = g.edges[i..]
        .iter()
        .take_while(|e| e.from == t2 && e.to == t3 && e.ty == EdgeType::Wr)
        .map(|e| e.to_op)
        .collect();
    reads.extend(reads_before_own_appends_from(h, t2, t3));
    reads
}

/// The anomaly a cycle of a weak graph shows (Plume's TAP names): by the weakest observation
/// its commit-order steps need (an earlier read, a direct predecessor, a causal one); with a
/// direct one, a non-repeatable read when each such step's reader read the step's key from both
/// writers (`docs/levels.md`), else a fractured read.
pub fn classify(h: &History, g: &DependencyGraph, cycle: &[Edge], txn_of: impl Fn(u32) -> TxnId + Copy) -> AnomalyKind {
    let cos: Vec<&Edge> = cycle.iter().filter(|e| e.ty == EdgeType::Co).collect();
    if cos.is_empty() {
        return if cycle.iter().any(|e| e.ty == EdgeType::So) {
            AnomalyKind::CausalityCycle
        } else if cycle.iter().all(|e| e.ty == EdgeType::Ww) {
            AnomalyKind::G0
        } else {
            AnomalyKind::G1c
        };
    }
    let premises: Vec<Premise> = cos.iter().map(|e| premise(h, g, e.from, txn_of(e.to_op), e.to_op)).collect();
    let worst = premises.iter().copied().max().unwrap_or(Premise::EarlierRead);
    // Each step that needs a direct observation: its reader read the step's key from both
    // writers (the one it read and the one it observed by reading from it).
    premise_kind(worst, || {
        cos.iter()
            .zip(&premises)
            .filter(|(_, &p)| p == worst)
            .all(|(e, _)| read_key_from(h, g, e.from, txn_of(e.to_op), e.key))
    })
}

/// Whether `t3` read `key` from `t2` ([`reads_from`]).
fn read_key_from(h: &History, g: &DependencyGraph, t2: TxnId, t3: TxnId, key: KeyId) -> bool {
    reads_from(h, g, t2, t3).iter().any(|&o| h.ops.get(o as usize).is_some_and(|op| op.key == key))
}

/// The anomaly of a read of the initial value after observing a writer of the key.
/// A `t3` that also read this key from the observed writer read one key from two writers (the
/// initial value and that writer's): a non-repeatable read.
pub fn initial_kind(h: &History, g: &DependencyGraph, r: &InitialRead, txn_of: impl Fn(u32) -> TxnId) -> AnomalyKind {
    let (t2, t3, key) = (txn_of(r.write_op), txn_of(r.read_op), h.ops[r.read_op as usize].key);
    premise_kind(premise(h, g, t2, t3, r.read_op), || read_key_from(h, g, t2, t3, key))
}

fn premise_kind(worst: Premise, same_read_twice: impl Fn() -> bool) -> AnomalyKind {
    match worst {
        Premise::EarlierRead => AnomalyKind::NonMonotonicRead,
        Premise::Direct if same_read_twice() => AnomalyKind::NonRepeatableRead,
        Premise::Direct => AnomalyKind::FracturedRead,
        Premise::Causal => AnomalyKind::CausalViolation,
    }
}
