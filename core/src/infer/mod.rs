//! Workload inference: from a history to dependency edges and the non-cycle anomalies.
//!
//! One module per data model, as Elle keeps them; the graph and search code knows no workload.
//! Rules common to both: only committed transactions are vertices, plus indeterminate ones
//! whose writes some committed transaction observed (or the version order lists): those must
//! have committed. Aborted writes never create edges; reading them is G1a.

mod list_append;
mod rw_register;

use crate::anomaly::{AnomalyKind, Finding};
use crate::graph::{DependencyGraph, Edge, EdgeType};
use crate::history::{History, KeyId, Model, OpKind, Status, TxnId, Value};

/// How many readers a finding lists by name; the rest are counted.
const MAX_READERS: usize = 8;

/// The graph, the anomalies found while building it, and notes on what could not be inferred.
#[derive(Debug, Clone)]
pub struct Inference {
    pub graph: DependencyGraph,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    /// Every external read between vertices as (read op, write op it read from), sorted by read
    /// op: the reads-from relation of the weak levels (the graph keeps one edge per key).
    pub reads_from: Vec<(u32, u32)>,
}

/// Build the dependency graph of a history.
pub fn infer(h: &History) -> Inference {
    let mut cx = Ctx::new(h);
    match h.model {
        Model::ListAppend | Model::Empty => list_append::infer(h, &mut cx),
        Model::RwRegister => rw_register::infer(h, &mut cx),
    }
    cx.findings.sort_by(|a, b| (a.kind, &a.txns, a.key).cmp(&(b.kind, &b.txns, b.key)));
    cx.reads_from.sort_unstable();
    Inference {
        graph: DependencyGraph::new(cx.is_vertex, cx.raw),
        findings: cx.findings,
        notes: cx.notes,
        reads_from: cx.reads_from,
    }
}

/// Writes sorted by (key, value), looked up by binary search within a key's range: a hash map
/// of millions of entries costs a cache miss per insert (about 250 ns here), a sort far less.
pub(crate) struct Writes {
    entries: Vec<((KeyId, Value), WriteInfo)>,
    /// `entries[starts[k]..starts[k + 1]]` are key k's writes.
    starts: Vec<u32>,
}

impl Writes {
    pub fn get(&self, kv: &(KeyId, Value)) -> Option<&WriteInfo> {
        let r = self.of_key(kv.0);
        r.binary_search_by(|e| e.0 .1.cmp(&kv.1)).ok().map(|i| &r[i].1)
    }

    pub fn of_key(&self, k: KeyId) -> &[((KeyId, Value), WriteInfo)] {
        match (self.starts.get(k as usize), self.starts.get(k as usize + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&(KeyId, Value), &WriteInfo)> {
        self.entries.iter().map(|(kv, w)| (kv, w))
    }
}

/// A write (or append) of a value to a key.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WriteInfo {
    pub txn: TxnId,
    pub op: u32,
    /// Whether it is the transaction's last write to the key (the version it installs).
    pub last: bool,
}

pub(crate) struct Ctx<'h> {
    h: &'h History,
    pub raw: Vec<Edge>,
    pub reads_from: Vec<(u32, u32)>,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub is_vertex: Vec<bool>,
    /// The transaction of each operation.
    pub op_txn: Vec<TxnId>,
}

impl<'h> Ctx<'h> {
    fn new(h: &'h History) -> Self {
        let mut op_txn = vec![0; h.ops.len()];
        for (t, txn) in h.txns.iter().enumerate() {
            op_txn[txn.ops_start as usize..txn.ops_end as usize].fill(t as TxnId);
        }
        let is_vertex = h.txns.iter().map(|t| t.status == Status::Committed).collect();
        Ctx { h, raw: Vec::new(), reads_from: Vec::new(), findings: Vec::new(), notes: Vec::new(), is_vertex, op_txn }
    }

    pub fn status(&self, t: TxnId) -> Status {
        self.h.txns[t as usize].status
    }

    /// An indeterminate transaction whose write was observed: it committed.
    pub fn promote(&mut self, t: TxnId) {
        if self.status(t) == Status::Indeterminate {
            self.is_vertex[t as usize] = true;
        }
    }

    pub fn edge(&mut self, ty: EdgeType, from_op: u32, to_op: u32) {
        let (from, to) = (self.op_txn[from_op as usize], self.op_txn[to_op as usize]);
        if from != to && self.is_vertex[from as usize] && self.is_vertex[to as usize] {
            if ty == EdgeType::Wr {
                self.reads_from.push((to_op, from_op));
            }
            self.raw.push(Edge { from, to, ty, key: self.h.ops[to_op as usize].key, from_op, to_op });
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
        self.findings.push(Finding { kind, txns, ops, key, value, readers: readers.len() });
    }

    /// Every write or append of a committed, aborted or indeterminate transaction, by (key, value).
    /// A value written twice to one key is a `duplicate-write`; the first write is kept.
    pub fn writes(&mut self, kind: OpKind) -> Writes {
        let h = self.h;
        let mut entries: Vec<((KeyId, Value), WriteInfo)> =
            Vec::with_capacity(h.ops.iter().filter(|o| o.kind == kind).count());
        let mut seen_keys: Vec<KeyId> = Vec::new();
        for (t, txn) in h.txns.iter().enumerate() {
            seen_keys.clear();
            // Backwards, so the first write met per key is the transaction's last.
            for o in (txn.ops_start..txn.ops_end).rev() {
                let op = h.ops[o as usize];
                let (true, crate::history::Arg::Val(v)) = (op.kind == kind, op.arg) else {
                    continue;
                };
                let last = !seen_keys.contains(&op.key);
                if last {
                    seen_keys.push(op.key);
                }
                entries.push(((op.key, v), WriteInfo { txn: t as TxnId, op: o, last }));
            }
        }
        entries.sort_unstable_by_key(|(kv, w)| (*kv, w.op));
        // Keep the earliest write of each (key, value); report the others.
        let mut kept: Vec<((KeyId, Value), WriteInfo)> = Vec::with_capacity(entries.len());
        for (kv, w) in entries {
            match kept.last() {
                Some(&(pkv, first)) if pkv == kv => self.finding(
                    AnomalyKind::DuplicateWrite,
                    Some(kv.0),
                    Some(kv.1),
                    Some((first.txn, first.op)),
                    &[(w.txn, w.op)],
                ),
                _ => kept.push((kv, w)),
            }
        }
        let mut starts = vec![0u32; h.keys.len() + 1];
        for ((k, _), _) in &kept {
            starts[*k as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Writes { entries: kept, starts }
    }
}
