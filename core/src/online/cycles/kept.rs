//! The stream's transactions kept as a history, for what the offline engine (`engine::run`,
//! the one `grail check` runs) decides over the window:
//!
//! - register streams, whose version order no read reveals as a list does: checked in rounds,
//!   each over the last `window` transactions, every level; each violation is reported by the
//!   round that finds it, and at the end of a stream that fit the window the last round is the
//!   offline check of the whole stream.
//! - list-append streams, while no transaction has left: RC, RA and CC, the levels the cycle
//!   search does not decide (their commit order, Biswas & Enea, is computed offline), in rounds
//!   at the pauses of the input and at its end.
//!
//! A round over a window that lost older transactions, or before the stream ended (a writer may
//! complete after its reader), drops each read of a value no kept transaction wrote or two kept
//! transactions wrote (a list read, when one of its elements is such a value), and each register
//! write no kept read saw that is its transaction's only operation on the key. What it then finds violated is violated by the whole stream: a witness
//! order of the whole stream (a serial order, a commit order, a version order), restricted to
//! the kept transactions, is one of the reduced history, since each kept read still reads the
//! same kept writer (or the initial value) with nothing kept in between, and such a write taken
//! away only takes constraints away (a conflict, a version to order) and changes no read. This
//! assumes, as offline does, that a value is written once per key: a value written again after
//! its first writer left the window is not seen to be a duplicate (offline, `grail check` reports
//! duplicate-write and sets it aside). A write-ahead log's order and the timestamps transactions
//! claim are restricted the same way (the log's writes of transactions not kept are skipped; a
//! claim only orders the kept transactions that make it), so the argument holds with them. A
//! round may miss a violation that reaches past the window
//! or runs through a write it left out (the last round of a stream that fit the window keeps
//! them all); after one transaction left, no level holds.

use super::txn::{OnlineOp, OnlineTxn};
use super::OnlineAnomaly;
use crate::analysis::classify::{classify, Classes};
use crate::analysis::{ClassifiedCycle, NO_LABEL};
use crate::anomaly::AnomalyKind;
use crate::engine::GraphId;
use crate::engine::{run, CheckOptions, Evidence, Outcome, Verdict};
use crate::error::Error;
use crate::graph::search::Budget;
use crate::graph::EdgeType;
use crate::hash::Set;
use crate::history::builder::{HistoryBuilder, Place, TxnMeta};
use crate::history::{Atom, History, OpKind, TxnId, Value};
use crate::infer::{infer, infer_without_rw, Inference};
use crate::level::{violated_by, violated_with, Level};
use crate::polygraph::graph::Origin;
use std::collections::VecDeque;

/// The kept transactions, oldest first.
#[derive(Debug, Default)]
pub(super) struct Kept {
    txns: VecDeque<OnlineTxn>,
    /// Transactions that left (a full window) or were never kept (a list-append stream stops
    /// keeping at the first that leaves).
    pub dropped: u64,
}

impl Kept {
    /// Keep `t`; at most `limit` are kept: the oldest leave (`sliding`), or all are let go and
    /// no more kept (not sliding: only the whole stream is of use).
    pub fn push(&mut self, t: &OnlineTxn, limit: usize, sliding: bool) {
        if !sliding && self.dropped > 0 {
            self.dropped += 1;
            return;
        }
        self.txns.push_back(t.clone());
        if self.txns.len() > limit {
            if sliding {
                self.txns.pop_front();
                self.dropped += 1;
            } else {
                self.dropped += self.txns.len() as u64;
                self.txns = VecDeque::new();
            }
        }
    }

    /// Keep nothing more (a list-append stream whose window lost a transaction).
    pub fn let_go(&mut self) {
        if !self.txns.is_empty() || self.dropped == 0 {
            self.dropped += self.txns.len() as u64 + 1;
            self.txns = VecDeque::new();
        }
    }

    pub fn len(&self) -> usize {
        self.txns.len()
    }

    /// Some kept transaction recorded its invocation or completion time: real-time order is
    /// drawn from times, as offline (without any, offline orders by input positions).
    pub fn timed(&self) -> bool {
        self.txns.iter().any(|t| t.times.0.is_some() || t.times.1.is_some())
    }

    /// Every kept transaction recorded both its times: real-time order places each of them.
    pub fn all_timed(&self) -> bool {
        self.txns.iter().all(|t| t.times.0.is_some() && t.times.1.is_some())
    }

    /// The kept transactions as a history; `partial` (some left, or more may come: a writer may
    /// complete after its reader), without the reads of values no kept transaction wrote or two
    /// did, and without the register writes no kept read saw that are their transaction's only
    /// operation on the key (unread, they would only multiply the orders the polygraph weighs;
    /// see the module's note).
    /// Kept ids, processes, labels and times.
    ///
    /// `wal`: the write-ahead log as much as has arrived, read against the kept transactions
    /// ([`crate::read::LogStream::order_for`]) as their version order, once the writes of
    /// transactions that left are let go; its writes of transactions not kept are skipped, as
    /// offline skips a logged write the history lacks, so a round sees the log's order
    /// restricted to the kept writes (less of it where writes were let go or wait for their
    /// commit). With it, no write is left out: the polygraph is not needed.
    pub fn history(&self, partial: bool, wal: Option<&mut crate::read::LogStream>) -> Result<History, Error> {
        let ops = || self.txns.iter().flat_map(|t| &t.ops);
        let (written, read, twice): (Pairs, Pairs, Pairs) = if partial {
            let (mut written, mut twice) = (Set::default(), Set::default());
            for op in ops() {
                if let OnlineOp::Write { key, value } | OnlineOp::Append { key, value } = op {
                    if !written.insert((key, value)) {
                        twice.insert((key, value));
                    }
                }
            }
            let read = ops()
                .filter_map(|op| match op {
                    OnlineOp::ReadValue { key, value } => Some((key, value)),
                    _ => None,
                })
                .collect();
            (written, read, twice)
        } else {
            (Set::default(), Set::default(), Set::default())
        };
        // A register write no kept read saw, the transaction's only operation on its key: taken
        // away, it takes constraints away and changes no read (a second write of the key would
        // make the first look final: an intermediate read a read of the final one).
        let blind_unread = |t: &OnlineTxn, key: &Atom, value: &Atom| {
            partial
                && wal.is_none()
                && !read.contains(&(key, value))
                && t.ops
                    .iter()
                    .filter(|o| match o {
                        OnlineOp::Read { key: k, .. }
                        | OnlineOp::ReadValue { key: k, .. }
                        | OnlineOp::Write { key: k, .. }
                        | OnlineOp::Append { key: k, .. } => k == key,
                    })
                    .count()
                    == 1
        };
        let mut b = HistoryBuilder::new();
        let place = Place::default();
        for (arrival, t) in self.txns.iter().enumerate() {
            for op in &t.ops {
                match op {
                    OnlineOp::Write { key, value } if blind_unread(t, key, value) => {}
                    OnlineOp::Append { key, value } | OnlineOp::Write { key, value } => {
                        let kind = if matches!(op, OnlineOp::Append { .. }) { OpKind::Append } else { OpKind::Write };
                        let (k, v) = (value_of(&mut b, key), value_of(&mut b, value));
                        let k = b.key(k);
                        b.push_write(kind, k, v, place);
                    }
                    OnlineOp::Read { key, list: None } => {
                        let k = value_of(&mut b, key);
                        let k = b.key(k);
                        b.push_read_nil(k);
                    }
                    // Which kept writer appended each element must be known, as for a register.
                    OnlineOp::Read { key, list: Some(list) }
                        if partial
                            && list.iter().any(|v| !written.contains(&(key, v)) || twice.contains(&(key, v))) => {}
                    OnlineOp::Read { key, list: Some(list) } => {
                        let k = value_of(&mut b, key);
                        let k = b.key(k);
                        let elems: Vec<Value> = list.iter().map(|a| value_of(&mut b, a)).collect();
                        b.push_read_list(k, &elems, place);
                    }
                    OnlineOp::ReadValue { key, value } => {
                        // Which of two kept writers of the value it read is not known.
                        if partial && (!written.contains(&(key, value)) || twice.contains(&(key, value))) {
                            continue;
                        }
                        let (k, v) = (value_of(&mut b, key), value_of(&mut b, value));
                        let k = b.key(k);
                        b.push_read_scalar(k, v, place);
                    }
                }
            }
            let label = t.label.as_deref().map(|l| b.intern(l));
            let meta = TxnMeta {
                id: Some(t.id),
                process: t.process,
                invoke_time: t.times.0,
                complete_time: t.times.1,
                // Session order follows arrival, as a stream delivers invocations (an unfinished
                // one with its process's next): the builder stores an indeterminate transaction
                // after the committed ones, and by that place a transaction invoked first came
                // last in its session. No completion place: arrival is no real time.
                invoke_pos: Some(arrival as u64),
                label,
                start_ts: t.ts.0,
                commit_ts: t.ts.1,
                ..Default::default()
            };
            b.finish_txn(t.status, meta);
        }
        let mut h = b.finish()?;
        // A build without the log's reader never has a log (`crate::read::wal_available`).
        if let Some(wal) = wal.filter(|_| !cfg!(feature = "compact-log")) {
            wal.forget_gone(&h);
            h.version_order = Some(wal.order_for(&h));
        }
        Ok(h)
    }
}

/// (key, value) pairs of the kept operations.
type Pairs<'a> = Set<(&'a Atom, &'a Atom)>;

fn value_of(b: &mut HistoryBuilder, a: &Atom) -> Value {
    match a {
        Atom::Int(i) => Value::Int(*i),
        Atom::Str(s) => b.str_value(s),
    }
}

/// What the engine found over the kept transactions.
pub(super) struct Checked {
    pub levels: Vec<Decided>,
    pub cycles: Vec<ClassifiedCycleAt>,
    pub findings: Vec<(AnomalyKind, bool, Option<u64>, Option<u64>)>,
}

/// A cycle the engine found, with the levels it violates.
pub(super) struct ClassifiedCycleAt {
    pub cycle: ClassifiedCycle,
    /// The steps whose order the polygraph chose.
    pub chosen: Vec<usize>,
    /// The engine's name of it (`Named::name`).
    pub anomaly: String,
    pub classes: Classes,
    pub violates: Vec<String>,
}

/// One level's verdict from the engine, with its anomalies' names and its first witness.
#[derive(Debug, Clone)]
pub(super) struct Decided {
    pub level: Level,
    pub verdict: Verdict,
    pub anomalies: Vec<String>,
    pub witness: Vec<u64>,
    pub reason: Option<String>,
    /// Findings that break the model's assumptions and the level does not proscribe.
    pub set_aside: Vec<AnomalyKind>,
}

/// Check `levels` of `h` with the offline engine.
pub(super) fn check(h: &History, levels: &[Level]) -> Checked {
    let weak_only = levels.iter().all(|l| l.spec().weak.is_some());
    let inf = if weak_only { infer_without_rw(h) } else { infer(h) };
    let opts = CheckOptions { levels: levels.to_vec(), ..Default::default() };
    let out = run(h, &inf, &opts, &mut Budget::new(u64::MAX, None));
    let id = |t: TxnId| h.txns.get(t as usize).map_or(0, |x| x.id);
    let decided = out
        .levels
        .iter()
        .map(|o| Decided {
            level: o.level,
            verdict: o.verdict,
            anomalies: o.anomalies.iter().map(|n| n.name()).chain(o.claims.iter().map(|c| c.name())).collect(),
            witness: match o.evidence.first() {
                Some(e) => evidence_txns(&out, e).into_iter().map(id).collect(),
                // A read, not a cycle: its writer and reader (a finding, or a read of the initial
                // value after observing a writer of the key, in a weak level's graph).
                None => match inf.findings.iter().find(|f| o.level.forbids(f)) {
                    Some(f) => {
                        let mut t: Vec<u64> = f.txns.iter().map(|&t| id(t)).collect();
                        t.dedup();
                        t
                    }
                    None => {
                        out.initial.iter().find(|i| Some(i.graph) == o.level.spec().weak).map_or_else(Vec::new, |i| {
                            vec![id(inf.index.txn_of(i.read.write_op)), id(inf.index.txn_of(i.read.read_op))]
                        })
                    }
                },
            },
            reason: o.reason.clone(),
            set_aside: o.set_aside.clone(),
        })
        .collect();
    let cycles = cycles(h, &inf, &out);
    let findings = inf
        .findings
        .iter()
        .filter(|f| levels.iter().any(|l| l.forbids(f)))
        .filter_map(|f| {
            let first = *f.txns.first()?;
            let (writer, reader) = match f.kind {
                AnomalyKind::G1a | AnomalyKind::G1b => (Some(first), f.txns.get(1).copied()),
                // No other writer: the reader itself (internal), or none (a value nobody wrote).
                AnomalyKind::GarbageRead => (None, Some(first)),
                _ => (Some(first), Some(first)),
            };
            Some((f.kind, f.reread, reader.map(id), writer.map(id)))
        })
        .collect();
    Checked { levels: decided, cycles, findings }
}

/// The transactions of a piece of evidence, in the order of its cycle.
fn evidence_txns(out: &Outcome, e: &Evidence) -> Vec<TxnId> {
    match *e {
        Evidence::Cycle(i) => out.witnesses.get(i).map_or_else(Vec::new, |w| w.cycle.txns.clone()),
        Evidence::Poly(i) => {
            out.poly.get(i).map_or_else(Vec::new, |p| p.counterexample.cycle.iter().map(|(e, _)| e.from).collect())
        }
        Evidence::Pair(i) => out.pairs.get(i).map_or_else(Vec::new, |p| vec![p.a_reads.from, p.b_reads.from]),
        Evidence::Claimed(_) => Vec::new(),
    }
}

/// The engine's cycles (the dependency graph's, the weak levels' saturated graphs', the
/// polygraph's counterexamples), as the cycle checker reports its own.
fn cycles(h: &History, inf: &Inference, out: &Outcome) -> Vec<ClassifiedCycleAt> {
    // The levels each cycle is evidence against (the engine's own verdicts, not the cycle's
    // name: a weak level's cycle runs through its commit order), and every stronger level.
    let mut of_cycle = vec![Vec::new(); out.witnesses.len()];
    let mut of_poly = vec![Vec::new(); out.poly.len()];
    for o in out.levels.iter().filter(|o| o.verdict == Verdict::Violated) {
        for e in &o.evidence {
            let slot = match *e {
                Evidence::Cycle(i) => of_cycle.get_mut(i),
                Evidence::Poly(i) => of_poly.get_mut(i),
                _ => None,
            };
            if let Some(ls) = slot {
                ls.push(o.level);
            }
        }
    }
    // With the levels the cycle's anomaly violates (as `grail check` lists them: a G-single
    // found as SI's evidence violates PSI too, which another cycle may have been evidence for).
    let with_stronger = |ls: &Vec<Level>, named: Vec<Level>| -> Vec<Level> {
        let ls: Vec<Level> = ls.iter().copied().chain(named).collect();
        Level::ALL.into_iter().filter(|l| ls.contains(l) || ls.iter().any(|w| l.weaker().contains(w))).collect()
    };
    let mut v = Vec::new();
    let key_json = |k: u32| Atom::of(h, h.key(k)).json();
    for (w, ls) in out.witnesses.iter().zip(&of_cycle) {
        if ls.is_empty() {
            continue;
        }
        let Some(g) = out.graphs.get(&inf.graph, w.graph) else { continue };
        let n = w.cycle.txns.len();
        let keys: Vec<Vec<serde_json::Value>> = (0..n)
            .map(|i| {
                let (a, b) = (w.cycle.txns[i], w.cycle.txns[(i + 1) % n]);
                let mut ks: Vec<u32> = g
                    .edges_of(a, b, w.cycle.types[i])
                    .iter()
                    .map(|e| e.key)
                    .filter(|&k| (k as usize) < h.keys.len())
                    .collect();
                ks.dedup();
                ks.into_iter().map(key_json).collect()
            })
            .collect();
        let named = match w.graph {
            GraphId::Weak(_) => violated_by(w.named.kind),
            GraphId::Dependency(_) => violated_with(w.named.kind, w.named.order),
        };
        v.push(classified(
            h,
            &w.cycle.txns,
            &w.cycle.types,
            keys,
            w.named.name(),
            Vec::new(),
            with_stronger(ls, named),
        ));
    }
    for (p, ls) in out.poly.iter().zip(&of_poly) {
        if ls.is_empty() {
            continue;
        }
        let txns: Vec<TxnId> = p.counterexample.cycle.iter().map(|(e, _)| e.from).collect();
        let types: Vec<EdgeType> = p.counterexample.cycle.iter().map(|(e, _)| e.ty).collect();
        let keys = p
            .counterexample
            .cycle
            .iter()
            // A session or real-time step is on no key, whatever its edge carries.
            .map(|(e, _)| match (e.key as usize) < h.keys.len() && !matches!(e.ty, EdgeType::So | EdgeType::Rt) {
                true => vec![key_json(e.key)],
                false => Vec::new(),
            })
            .collect();
        let chosen: Vec<usize> = (p.counterexample.cycle.iter().enumerate())
            .filter(|(_, (_, o))| matches!(o, Origin::Chosen { .. }))
            .map(|(i, _)| i)
            .collect();
        let named = violated_with(p.named.kind, p.named.order);
        v.push(classified(h, &txns, &types, keys, p.named.name(), chosen, with_stronger(ls, named)));
    }
    v
}

fn classified(
    h: &History,
    txns: &[TxnId],
    types: &[EdgeType],
    keys: Vec<Vec<serde_json::Value>>,
    anomaly: String,
    chosen: Vec<usize>,
    violates: Vec<Level>,
) -> ClassifiedCycleAt {
    let same = keys.first().is_some_and(|f| f.iter().any(|k| keys.iter().all(|ks| ks.contains(k))));
    // A cycle through version-order choices the polygraph made is none of the dependency
    // graph's (as `grail check --analyze` counts them): its word's class could name an anomaly
    // a weaker level that holds forbids (a G0 of forced choices while PL-1 holds). `anomaly`
    // names it.
    let c = if chosen.is_empty() { classify(types, same) } else { Classes::UNCLASSED };
    ClassifiedCycleAt {
        anomaly,
        chosen,
        classes: c,
        cycle: ClassifiedCycle {
            txns: txns.iter().map(|&t| h.txns[t as usize].id).collect(),
            types: types.iter().map(|t| t.as_str().to_string()).collect(),
            keys,
            labels: txns.iter().map(|&t| h.label(t).unwrap_or(NO_LABEL).to_string()).collect(),
            zellag: c.zellag.into(),
            ldbc: c.ldbc.into(),
            adya: c.adya.into(),
        },
        violates: violates.iter().map(|l| l.name().to_string()).collect(),
    }
}

/// What the rounds reported, so that a cycle or a read found again by a later round over an
/// overlapping window is reported once.
#[derive(Debug, Default)]
pub(super) struct Reported {
    cycles: Set<Vec<(u64, u16)>>,
    findings: Set<(String, Option<u64>, Option<u64>)>,
    /// Arrivals since the last round.
    pub since: usize,
}

/// At most this many reported cycles and reads are remembered (then forgotten, all at once).
const REMEMBERED: usize = 100_000;

impl Reported {
    /// Whether this cycle is new (by its transactions and the type of the step out of each,
    /// whatever the rotation: a cycle through session order is not the dependency cycle of the
    /// same transactions).
    pub fn new_cycle<'a>(&mut self, txns: &[u64], types: impl Iterator<Item = &'a str>) -> bool {
        let code = |t: &str| t.bytes().fold(0u16, |c, b| c << 8 | b as u16);
        let mut k: Vec<(u64, u16)> = txns.iter().copied().zip(types.map(code)).collect();
        crate::par::sort::sort_unstable(&mut k);
        if self.cycles.len() >= REMEMBERED {
            self.cycles.clear();
        }
        self.cycles.insert(k)
    }

    pub fn new_finding(&mut self, anomaly: &str, reader: Option<u64>, writer: Option<u64>) -> bool {
        if self.findings.len() >= REMEMBERED {
            self.findings.clear();
        }
        self.findings.insert((anomaly.to_string(), reader, writer))
    }
}

/// A cycle of a round as the checker reports it, closed by the round's last arrival.
pub(super) fn anomaly(c: ClassifiedCycleAt, closed_by: u64, found: super::Found) -> OnlineAnomaly {
    OnlineAnomaly {
        cycle: c.cycle,
        anomaly: c.anomaly,
        closed_by,
        found,
        provisional: false,
        violates: c.violates,
        chosen: c.chosen,
    }
}
