//! How a weak level's reader had observed a writer (the premise of Biswas and Enea's axiom, as
//! `engine::weak` saturates it), written as the steps of session order and reads-from that
//! `grail verify` re-derives (`verify::weak`): an earlier read from the writer (RC), one step
//! (RA), or the shortest chain (CC).

use crate::engine::weak::{external_reads, ExtRead};
use crate::graph::orders::{in_session_order, session_place};
use crate::hash::Map;
use crate::history::{History, TxnId};
use crate::infer::Inference;
use crate::level::Weak;
use crate::verify::format::{CycleStep, ReadRef};

const NONE: u32 = u32::MAX;

pub(super) struct Observer<'a> {
    h: &'a History,
    inf: &'a Inference,
    /// Each vertex's predecessor in its session, or [`NONE`].
    prev: Vec<u32>,
    by_id: Map<u64, TxnId>,
}

impl<'a> Observer<'a> {
    pub(super) fn new(h: &'a History, inf: &'a Inference) -> Observer<'a> {
        let mut prev = vec![NONE; h.txns.len()];
        let order = in_session_order(h, &inf.graph.is_vertex);
        for w in order.windows(2).filter(|w| w[0].0 == w[1].0) {
            prev[w[1].1 as usize] = w[0].1;
        }
        let by_id = h.txns.iter().enumerate().map(|(t, x)| (x.id, t as TxnId)).collect();
        Observer { h, inf, prev, by_id }
    }

    fn txn(&self, id: u64) -> Option<TxnId> {
        self.by_id.get(&id).copied()
    }

    /// The steps by which transaction `reader` (an id) had observed `writer` before its
    /// operation `index`, as `level` needs them; none when not found (the verifier then says
    /// so).
    pub(super) fn observed(&self, level: Weak, writer: u64, reader: u64, index: u32) -> Vec<CycleStep> {
        let (Some(w), Some(r)) = (self.txn(writer), self.txn(reader)) else { return Vec::new() };
        self.chain(level, w, r, self.h.txns[r as usize].ops_start + index).unwrap_or_default()
    }

    /// The steps by which `reader` had observed `writer` before its operation `read_op` (an
    /// index into the history's operations), as `level` needs them; `None` when not found.
    fn chain(&self, level: Weak, writer: TxnId, reader: TxnId, read_op: u32) -> Option<Vec<CycleStep>> {
        let reads = self.sources(reader);
        let read_from = |r: &&ExtRead| r.from.is_some_and(|w| self.inf.index.txn_of(w) == writer);
        match level {
            Weak::ReadCommitted => {
                reads.iter().filter(|r| r.op < read_op).find(read_from).map(|r| vec![self.wr(writer, reader, r)])
            }
            Weak::ReadAtomic if self.session(writer, reader) => Some(vec![self.so(writer, reader)]),
            Weak::ReadAtomic => reads.iter().find(read_from).map(|r| vec![self.wr(writer, reader, r)]),
            Weak::Causal => self.causal(writer, reader),
        }
    }

    /// The shortest chain from `writer` to `reader`, searched backwards from `reader`.
    fn causal(&self, writer: TxnId, reader: TxnId) -> Option<Vec<CycleStep>> {
        // For each transaction met, the step from it towards `reader`.
        let mut next: Map<TxnId, CycleStep> = Map::default();
        let mut queue = std::collections::VecDeque::from([reader]);
        while let Some(u) = queue.pop_front() {
            let mut steps: Vec<(TxnId, CycleStep)> = Vec::new();
            let p = self.prev[u as usize];
            if p != NONE {
                steps.push((p, self.so(p, u)));
            }
            for r in self.sources(u) {
                let w = r.from.map(|o| self.inf.index.txn_of(o));
                if let Some(w) = w.filter(|&w| w != u) {
                    steps.push((w, self.wr(w, u, &r)));
                }
            }
            for (p, s) in steps {
                if p == reader || next.contains_key(&p) {
                    continue;
                }
                next.insert(p, s);
                if p == writer {
                    let mut chain = Vec::new();
                    let mut at = writer;
                    while at != reader {
                        let s = next.get(&at)?.clone();
                        at = self.txn(s.to)?;
                        chain.push(s);
                    }
                    return Some(chain);
                }
                queue.push_back(p);
            }
        }
        None
    }

    /// `t`'s reads from other transactions; none when it did not commit (its reads are unknown).
    fn sources(&self, t: TxnId) -> Vec<ExtRead> {
        if self.h.txns[t as usize].status != crate::history::Status::Committed {
            return Vec::new();
        }
        external_reads(self.h, self.inf, t)
    }

    fn session(&self, a: TxnId, b: TxnId) -> bool {
        let (x, y) = (&self.h.txns[a as usize], &self.h.txns[b as usize]);
        x.process().is_some() && x.process() == y.process() && session_place(self.h, a) < session_place(self.h, b)
    }

    fn so(&self, a: TxnId, b: TxnId) -> CycleStep {
        let id = |t: TxnId| self.h.txns[t as usize].id;
        CycleStep { from: id(a), to: id(b), ty: "so".into(), ..Default::default() }
    }

    fn wr(&self, a: TxnId, b: TxnId, r: &ExtRead) -> CycleStep {
        let (x, y) = (&self.h.txns[a as usize], &self.h.txns[b as usize]);
        CycleStep {
            from: x.id,
            to: y.id,
            ty: "wr".into(),
            key: self.h.value_json(self.h.key(r.key)),
            read: Some(ReadRef { txn: y.id, index: r.op - y.ops_start }),
            observed: Vec::new(),
        }
    }
}
