//! Certificates (`docs/certificates.md`): for the levels a check found to hold, executions that
//! [`crate::verify`] checks from the history alone, sharing nothing with the engine.
//!
//! A `serial` witness is a topological order of the dependency graph (Adya 1999, Theorem 1: an
//! acyclic DSG with its version order is a serial execution with the same reads), with session
//! or real-time order among its edges when the levels it proves need them. A `snapshot`
//! witness orders starts and commits: each transaction's start goes after the commits of its WR
//! and WW predecessors and before the commits of its RW successors, a topological order of the
//! graph where a transaction is two nodes (start, commit), WR, WW, session and real-time edges
//! run from a commit to a start, and RW from a start to a commit. Its cycles are those of
//! `(WR ∪ WW) ; RW?`, the graph whose acyclicity is SI (Cerone and Gotsman 2016, Theorem 10;
//! PolySI §3).
//!
//! Where the history leaves a version order open (list appends no read observed; a register
//! history without one), the witness takes the order a first topological order gives their
//! writers, as the polygraph's first guess does: a witness that this misses is reported as
//! not certified, never written wrong, since each witness is verified before it is written.

mod edges;
mod premise;
mod topo;

use crate::history::{History, TxnId};
use crate::infer::Inference;
use crate::report::{Report, Verdict};
use crate::verify::format::{proves, Certificate, NotCertified, Respect, Witness, WitnessKind, FORMAT, VERSION};
use crate::verify::kind_name;
use edges::Edges;

/// The certificate of `report`'s levels that hold: a witness for each that can be found, the
/// others listed as not certified with the reason. `inf` must hold the reads-from relation
/// (a full inference) for register histories without a version order.
pub fn certificate(h: &History, inf: &Inference, report: &Report) -> Certificate {
    let mut cert = empty(h);
    (cert.counterexamples, cert.violations_not_certified) = counterexamples(h, inf, report);
    let mut holds: Vec<&'static str> = Vec::new();
    // A level that holds with reads set aside that no execution has (garbage reads, internal
    // inconsistencies) is proved by a witness that names them; other assumptions broken (an
    // incompatible list order) leave it without one.
    let set_aside_of =
        |l: &str| report.levels.0.iter().find(|(x, _)| x.name() == l).map_or(&[][..], |(_, r)| &r.set_aside[..]);
    for (l, r) in report.levels.0.iter().filter(|(_, r)| r.verdict == Verdict::Holds) {
        if r.set_aside.iter().all(|k| k == "garbage-read" || k == "internal") {
            holds.push(l.name());
        } else {
            let why = format!(
                "it holds with {} set aside, and a certificate sets aside only reads no execution has (garbage reads, internal inconsistencies)",
                r.set_aside.join(", ")
            );
            cert.not_certified.push(NotCertified { level: l.name().into(), reason: why });
        }
    }
    if holds.is_empty() {
        return cert;
    }
    if let Some(why) = unfit(h) {
        cert.not_certified.extend(holds.iter().map(|l| NotCertified { level: l.to_string(), reason: why.clone() }));
        return cert;
    }
    let mut builder = Builder::new(h, inf);
    let mut needed = holds.clone();
    let mut why_not: Vec<(WitnessKind, &'static [Respect], String)> = Vec::new();
    for (kind, respects) in COMBINATIONS {
        let proven = proves(kind, respects);
        let wanted = |r: &[Respect]| -> Vec<&str> {
            let p = proves(kind, r);
            needed.iter().copied().filter(|l| p.contains(l)).collect()
        };
        let gives = wanted(respects);
        // A witness respecting fewer orders that proves as much is tried instead: each order
        // costs edges (real time, about a transaction's concurrency per transaction).
        let smaller = COMBINATIONS.iter().any(|&(k, r)| {
            k == kind && r.len() < respects.len() && r.iter().all(|x| respects.contains(x)) && wanted(r) == gives
        });
        if gives.is_empty() || smaller || !own_levels(kind, respects).iter().all(|l| holds.contains(l)) {
            continue;
        }
        // The verifier checks causal consistency with a clock per transaction and session, up
        // to a bound: beyond it a commit order proves the weaker levels only.
        let cc = kind == WitnessKind::CommitOrder && needed.contains(&"CC");
        let (txns, sessions) = if cc { builder.sessions() } else { (0, 0) };
        let no_cc = cc && txns.saturating_mul(sessions) > crate::verify::MAX_CLOCKS;
        if no_cc {
            let why = format!(
                "its causal check needs a clock per transaction and session, {txns} × {sessions}: more than the verifier keeps ({})",
                crate::verify::MAX_CLOCKS
            );
            why_not.push((kind, respects, why));
        }
        let found = match kind {
            WitnessKind::Versions => builder.versions(needed.contains(&"PL-2")),
            WitnessKind::CommitOrder if no_cc => {
                builder.commit_order(&needed.iter().copied().filter(|l| *l != "CC").collect::<Vec<_>>())
            }
            WitnessKind::CommitOrder => builder.commit_order(&needed),
            _ => builder.witness(kind, respects),
        };
        let order = match found {
            Ok(order) => order,
            Err(why) => {
                why_not.push((kind, respects, why));
                continue;
            }
        };
        let mut levels: Vec<&str> =
            holds.iter().copied().filter(|l| proven.contains(l) && !(no_cc && *l == "CC")).collect();
        // The reads its levels hold with set aside; then it proves only the levels that do.
        let kinds: Vec<&String> = levels.iter().flat_map(|l| set_aside_of(l)).collect();
        let set_aside = if kinds.is_empty() {
            Vec::new()
        } else {
            levels.retain(|l| !set_aside_of(l).is_empty());
            let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
            crate::verify::reads_set_aside(h, &levels, &kinds)
        };
        let levels: Vec<String> = levels.iter().map(|l| l.to_string()).collect();
        let w = Witness { kind, respects: respects.to_vec(), levels, order, set_aside };
        // Checked as `grail verify` checks it, and not written if it fails: a witness of a level
        // the check found to hold is one by construction (an order of an acyclic graph that
        // holds the level's constraints: Adya's, Cerone and Gotsman's, Biswas and Enea's
        // theorems), unless the check is wrong; one that serves a weaker level only (a serial
        // order for PL-1 where a read of an overwritten version broke SER) may not be.
        let checked = check_one(h, &w);
        match checked {
            None => {
                needed.retain(|l| !w.levels.iter().any(|x| x == l));
                cert.witnesses.push(w);
            }
            Some(f) => why_not.push((kind, respects, f)),
        }
    }
    let proved: Vec<&str> = cert.witnesses.iter().flat_map(|w| w.levels.iter().map(|s| s.as_str())).collect();
    for l in holds.iter().filter(|l| !proved.contains(l)) {
        cert.not_certified.push(NotCertified { level: l.to_string(), reason: reason(l, &why_not) });
    }
    cert
}

/// For each violated level, the first of its cycles that the history shows step by step: not
/// one that rests on a chosen version order (a register without a log, appends no read
/// observed), nor a claimed timestamp's order; a weak level's (RC, RA, CC) `co` steps with how
/// their reader had observed the writer ([`premise`]), or its read of an initial value after
/// observing a writer. Each is checked as `grail verify` checks it. The violated levels left
/// without one, and why.
fn counterexamples(
    h: &History,
    inf: &Inference,
    report: &Report,
) -> (Vec<crate::verify::format::Counterexample>, Vec<NotCertified>) {
    use crate::verify::format::{Counterexample, CycleStep, ReadRef};
    let (mut found, mut without) = (Vec::new(), Vec::new());
    let mut observer: Option<premise::Observer> = None;
    for (l, r) in report.levels.0.iter().filter(|(_, r)| r.verdict == Verdict::Violated) {
        let level = l.name().to_string();
        let weak = l.spec().weak;
        let certain = |c: &&crate::explain::CycleReport| {
            c.steps.iter().all(|s| s.certain != Some(false) && s.claimed != Some(true))
        };
        // Else a cycle through one order of two writes, whose other order closes another
        // (PolySI's case split), with no other order forced by pruning.
        let split = |c: &&crate::explain::CycleReport| {
            c.other_order.as_ref().is_some_and(|o| o.forced == 0) && c.steps.iter().all(|s| s.claimed != Some(true))
        };
        let shown = r.cycles.iter().find(certain).or_else(|| r.cycles.iter().find(split));
        // A read that violates the level, when no cycle is shown: aborted or intermediate, or
        // one no execution explains (a garbage read, an internal inconsistency).
        let read = report
            .anomalies
            .iter()
            .filter(|a| ["G1a", "G1b", "garbage-read", "internal"].contains(&a.kind.as_str()) && a.levels.contains(l))
            .find_map(|a| a.ops.last().map(|o| (a.kind.clone(), ReadRef { txn: o.txn, index: o.index })));
        // A weak level's read of the initial value after observing a writer of the key.
        let initial = report.anomalies.iter().find(|a| {
            let kinds = ["non-monotonic-read", "fractured-read", "non-repeatable-read", "causal-violation"];
            weak.is_some()
                && a.cycle.is_none()
                && a.levels.contains(l)
                && a.ops.len() == 2
                && kinds.contains(&a.kind.as_str())
        });
        let reason = if read.is_some() {
            String::new()
        } else if !report.broken_assumptions.is_empty() && shown.is_none() {
            format!(
                "the history breaks the data model's assumptions ({}), and no cycle shown is re-derived",
                report.broken_assumptions.join(", ")
            )
        } else if weak.is_some() && (shown.is_some() || initial.is_some()) {
            String::new()
        } else if r.cycles.is_empty() {
            format!(
                "violated by {} (not a cycle, nor an aborted or intermediate read): not re-derived yet",
                r.anomalies.join(", ")
            )
        } else if shown.is_none() {
            "every cycle shown rests on a chosen version order (a step marked certain: false) or a claimed timestamp's order, and no case split over two writes' orders alone shows the level violated (other orders forced by pruning, or chains of read-modify-writes, are not carried)".to_string()
        } else {
            String::new()
        };
        if !reason.is_empty() {
            without.push(NotCertified { level, reason });
            continue;
        }
        let cx = match (shown, read, weak) {
            (_, Some((anomaly, read)), _)
                if shown.is_none() || weak.is_some() || !report.broken_assumptions.is_empty() =>
            {
                Counterexample { level: level.clone(), anomaly, read: Some(read), ..Default::default() }
            }
            (Some(c), _, _) => {
                // Each step as the verifier reads it; a weak level's `co` step with its read and
                // how that read's transaction had observed the writer.
                let mut convert = |steps: &[crate::explain::Step]| -> Vec<CycleStep> {
                    let step = |s: &crate::explain::Step| {
                        let mut step = CycleStep {
                            from: s.from,
                            to: s.to,
                            ty: s.ty.as_str().into(),
                            key: s.key.clone(),
                            ..Default::default()
                        };
                        if let (crate::graph::EdgeType::Co, Some(w)) = (s.ty, weak) {
                            let o = observer.get_or_insert_with(|| premise::Observer::new(h, inf));
                            step.read = Some(ReadRef { txn: s.to_op.txn, index: s.to_op.index });
                            step.observed = o.observed(w, s.from, s.to_op.txn, s.to_op.index);
                        }
                        step
                    };
                    steps.iter().map(step).collect()
                };
                let steps = convert(&c.steps);
                let split = match &c.other_order {
                    Some(o) if !certain(&c) => Some(crate::verify::format::Split {
                        key: o.key.clone(),
                        first: o.first,
                        second: o.second,
                        other: convert(&o.steps),
                    }),
                    _ => None,
                };
                Counterexample { level: level.clone(), anomaly: c.anomaly.clone(), steps, split, ..Default::default() }
            }
            (None, None, Some(w)) => {
                let Some(a) = initial else { continue };
                let (wo, ro) = (&a.ops[0], &a.ops[1]);
                let o = observer.get_or_insert_with(|| premise::Observer::new(h, inf));
                Counterexample {
                    level: level.clone(),
                    anomaly: a.kind.clone(),
                    read: Some(ReadRef { txn: ro.txn, index: ro.index }),
                    observed: o.observed(w, wo.txn, ro.txn, ro.index),
                    ..Default::default()
                }
            }
            _ => continue,
        };
        found.push(cx);
    }
    // All checked at once, as `grail verify` checks them; one that fails is not written.
    let all = Certificate { counterexamples: found, ..empty(h) };
    let checked = crate::verify::verify(h, &all).counterexamples;
    let mut out = Vec::new();
    for (cx, c) in all.counterexamples.into_iter().zip(checked) {
        match c.failure {
            None => out.push(cx),
            // A split the verifier does not re-derive (a chosen RW edge from a reader of a
            // version before the chosen one) is left out, not a bug.
            Some(f) if cx.split.is_some() => without.push(NotCertified {
                level: cx.level,
                reason: format!("the case split the report shows is not re-derived ({f}): it is left out"),
            }),
            // The cycles of a history that breaks the model's assumptions may rest on them.
            Some(f) if !report.broken_assumptions.is_empty() => without.push(NotCertified {
                level: cx.level,
                reason: format!(
                    "the history breaks the data model's assumptions ({}), and the cycle the report shows is not re-derived ({f})",
                    report.broken_assumptions.join(", ")
                ),
            }),
            Some(f) => without.push(NotCertified {
                level: cx.level,
                reason: format!(
                    "the counterexample the report shows does not verify ({f}): a bug of grail's, please report it"
                ),
            }),
        }
    }
    (out, without)
}

/// A certificate of `h` with nothing in it yet.
fn empty(h: &History) -> Certificate {
    Certificate {
        format: FORMAT.into(),
        version: VERSION,
        transactions: h.txns.len(),
        witnesses: Vec::new(),
        not_certified: Vec::new(),
        counterexamples: Vec::new(),
        violations_not_certified: Vec::new(),
    }
}

/// Why a witness grail built does not verify, or `None` when it does. It does not when the
/// graph left out what its replay meets: a read of an intermediate or aborted write, where a
/// weaker level holds; where the witness's own level holds, that is a bug of grail's.
fn check_one(h: &History, w: &Witness) -> Option<String> {
    let failure = crate::verify::check_witness(h, w)?;
    let bug = if proves_own_level(w) {
        ": the check's verdict and the history disagree, a bug of grail's: please report it"
    } else {
        ""
    };
    Some(format!("the {} witness grail built does not verify ({failure}){bug}", kind_name(w.kind)))
}

/// The levels a witness of this kind respecting these orders is the execution of: it exists
/// only where they hold (a serial order respecting sessions only where strong-session SER
/// does), so it is sought only there.
fn own_levels(kind: WitnessKind, respects: &[Respect]) -> Vec<&'static str> {
    // The kind's level, and its variants with session and with real-time order.
    let (plain, session, realtime) = match kind {
        WitnessKind::Serial => ("SER", "strong-session-SER", "strict-SER"),
        WitnessKind::Snapshot => ("SI", "strong-session-SI", "strong-SI"),
        // The weakest of their levels: the witness serves the strongest that holds.
        WitnessKind::CommitOrder => return vec!["RC"],
        WitnessKind::Versions => return vec!["PL-1"],
    };
    let mut out = vec![plain];
    if respects.contains(&Respect::Session) {
        out.push(session);
    }
    if respects.contains(&Respect::RealTime) {
        out.push(realtime);
    }
    out
}

/// Whether a witness claims the level its kind is the execution of (SER for a serial one,
/// SI for a snapshot, a weak level for a commit order, PL-2 for versions).
fn proves_own_level(w: &Witness) -> bool {
    let own: &[&str] = match w.kind {
        WitnessKind::Serial => &["SER"],
        WitnessKind::Snapshot => &["SI"],
        WitnessKind::CommitOrder => &["CC", "RA", "RC"],
        WitnessKind::Versions => &["PL-2"],
    };
    w.levels.iter().any(|l| own.contains(&l.as_str()))
}

/// Witnesses tried, each proving more than the next of its kind: an order that respects
/// sessions and real time proves every level its kind can.
const COMBINATIONS: [(WitnessKind, &[Respect]); 10] = [
    (WitnessKind::Serial, &[Respect::Session, Respect::RealTime]),
    (WitnessKind::Serial, &[Respect::Session]),
    (WitnessKind::Serial, &[Respect::RealTime]),
    (WitnessKind::Serial, &[]),
    (WitnessKind::Snapshot, &[Respect::Session, Respect::RealTime]),
    (WitnessKind::Snapshot, &[Respect::Session]),
    (WitnessKind::Snapshot, &[Respect::RealTime]),
    (WitnessKind::Snapshot, &[]),
    (WitnessKind::CommitOrder, &[]),
    (WitnessKind::Versions, &[]),
];

/// Why a history gets no witnesses at all.
fn unfit(h: &History) -> Option<String> {
    if !h.predicate_reads.is_empty() {
        return Some("the history has predicate reads, which certificates do not cover yet".into());
    }
    // Ids mostly come in increasing order: sorted only when they do not.
    let increasing = h.txns.windows(2).all(|w| w[0].id < w[1].id);
    let mut ids: Vec<u64> = if increasing { Vec::new() } else { h.txns.iter().map(|t| t.id).collect() };
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Some(format!("two transactions have the id {}, and a certificate names transactions by id", w[0]));
    }
    None
}

/// Why no witness proves `level`: for each kind that could, what its weakest try met (the
/// one with the fewest orders that still proves the level).
fn reason(level: &str, why_not: &[(WitnessKind, &'static [Respect], String)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for kind in [WitnessKind::Serial, WitnessKind::Snapshot, WitnessKind::CommitOrder, WitnessKind::Versions] {
        let tried = why_not.iter().rfind(|(k, r, _)| *k == kind && proves(*k, r).contains(&level));
        if let Some((_, _, why)) = tried {
            parts.push(format!("no {} execution: {why}", kind_name(kind)));
        }
    }
    let only = match level {
        "PSI" => "; PSI is certified only by a snapshot (SI) execution",
        "PL-1" => "; PL-1 is certified by an order of the versions that list reads agree with (appends no read observed, or an aborted append read, can leave none)",
        _ => "",
    };
    if parts.is_empty() {
        format!("no witness was tried{only}")
    } else {
        format!("{}{only}", parts.join("; "))
    }
}

/// What every witness of one history starts from, found once.
struct Builder<'a> {
    h: &'a History,
    inf: &'a Inference,
    is_vertex: &'a [bool],
    /// The inference's edges as pairs, made when first needed.
    deps: std::cell::OnceCell<Edges>,
    session: Option<Vec<(TxnId, TxnId)>>,
    realtime: Option<Vec<(TxnId, TxnId)>>,
    open: Vec<edges::OpenKey>,
    /// Each transaction's place in its session, found when first needed.
    rank: std::cell::OnceCell<Vec<u32>>,
}

impl<'a> Builder<'a> {
    fn new(h: &'a History, inf: &'a Inference) -> Builder<'a> {
        let is_vertex = &inf.graph.is_vertex[..];
        let open = edges::open_keys(h, inf);
        Builder {
            h,
            inf,
            is_vertex,
            deps: Default::default(),
            session: None,
            realtime: None,
            open,
            rank: Default::default(),
        }
    }

    /// The transactions a witness orders, and their sessions (a transaction without a process
    /// is a session of its own), as the verifier counts them.
    fn sessions(&self) -> (usize, usize) {
        let vertices = (0..self.h.txns.len()).filter(|&t| self.is_vertex.get(t).copied().unwrap_or(false));
        let mut processes = crate::hash::Set::default();
        let (mut n, mut alone) = (0, 0);
        for t in vertices {
            n += 1;
            match self.h.txns[t].process() {
                Some(p) => {
                    processes.insert(p);
                }
                None => alone += 1,
            }
        }
        (n, processes.len() + alone)
    }

    /// The first order runs sessions side by side where a version order is chosen from it (a
    /// register's, or a snapshot's open appends): each transaction's place in its session.
    fn rank(&self) -> &[u32] {
        self.rank.get_or_init(|| edges::session_rank(self.h, self.is_vertex))
    }

    fn vertex(&self, t: u32) -> bool {
        self.is_vertex.get(t as usize).copied().unwrap_or(false)
    }

    /// The edges of a witness that respects these orders, before open version orders are chosen.
    fn deps(&self) -> &Edges {
        self.deps.get_or_init(|| edges::dependencies(self.inf))
    }

    fn known(&mut self, respects: &[Respect]) -> Edges {
        let mut e = self.deps().clone();
        if respects.contains(&Respect::Session) {
            let (h, v) = (self.h, self.is_vertex);
            e.dep.extend(self.session.get_or_insert_with(|| edges::session(h, v)).iter().copied());
        }
        if respects.contains(&Respect::RealTime) {
            let (h, v) = (self.h, self.is_vertex);
            e.dep.extend(self.realtime.get_or_insert_with(|| edges::realtime(h, v)).iter().copied());
        }
        e
    }

    /// A witness's order of transaction ids, or why none was found.
    fn witness(&mut self, kind: WitnessKind, respects: &[Respect]) -> Result<Vec<u64>, String> {
        let n = self.h.txns.len();
        // Lists' open appends are read by no one: in a serial order they follow in it without
        // a cycle, whatever it is (registers' open versions have readers, and are ordered).
        let lists = self.h.model == crate::history::Model::ListAppend;
        let choose = !(self.open.is_empty() || (lists && kind != WitnessKind::Snapshot));
        if !choose && kind == WitnessKind::Serial {
            // The graph's own adjacency, with the orders' edges beside it.
            let mut extra = Vec::new();
            if respects.contains(&Respect::Session) {
                let (h, v) = (self.h, self.is_vertex);
                extra.extend(self.session.get_or_insert_with(|| edges::session(h, v)).iter().copied());
            }
            if respects.contains(&Respect::RealTime) {
                let (h, v) = (self.h, self.is_vertex);
                extra.extend(self.realtime.get_or_insert_with(|| edges::realtime(h, v)).iter().copied());
            }
            let mut order = topo::order_of_graph(&self.inf.graph, &extra).ok_or_else(|| serial_cycle(respects))?;
            order.retain(|&v| self.vertex(v));
            return Ok(self.ids(order.into_iter()));
        }
        let mut e = self.known(respects);
        let rank: &[u32] = if choose { self.rank() } else { &[] };
        // Sessions side by side; in a snapshot witness, a commit before any start that is ready
        // too, so that transactions run as briefly as the edges allow and the open versions'
        // writers, ordered by commit, rarely overlap.
        let by_rank = |v: u32| {
            let (t, start) = match kind {
                WitnessKind::Snapshot => (v / 2, v % 2 == 0),
                _ => (v, false),
            };
            let r = u64::from(rank.get(t as usize).copied().unwrap_or(0).min(0x7fff_ffff));
            (u64::from(start) << 63) | (r << 32) | u64::from(t)
        };
        let order_of = |e: &Edges, prio: Option<&dyn Fn(u32) -> u64>| match kind {
            WitnessKind::Snapshot => topo::order(2 * n, &split_graph(e, n, self.is_vertex), prio),
            _ => topo::order(n, &serial_graph(e), prio),
        };
        let cycle = |what: &str| {
            let orders = orders_phrase(respects);
            let graph = match kind {
                WitnessKind::Snapshot => "the graph of (WR ∪ WW) ; RW?",
                _ => "the dependency graph",
            };
            format!("{graph}{orders} has a cycle{what}")
        };
        let mut order = if !choose {
            order_of(&e, None).ok_or_else(|| cycle(""))?
        } else {
            let first =
                order_of(&e, Some(&by_rank)).ok_or_else(|| cycle(" before the open version orders are chosen"))?;
            // Each transaction's place: its (commit) node's in the first order.
            let mut pos = vec![u32::MAX; n];
            for (i, &v) in first.iter().enumerate() {
                match kind {
                    WitnessKind::Snapshot if v % 2 == 1 => pos[(v / 2) as usize] = i as u32,
                    WitnessKind::Snapshot => {}
                    _ => pos[v as usize] = i as u32,
                }
            }
            let size = 2 * n + e.dep.len() + e.rw.len();
            if kind == WitnessKind::Snapshot && self.open.len().saturating_mul(size) <= Reach::BUDGET {
                // Key by key, each searched with the orders chosen before it among the edges.
                let share = Reach::BUDGET / self.open.len().max(1);
                for k in &self.open {
                    let mut reach = Reach::new(2 * n, &split_graph(&e, n, self.is_vertex), share);
                    edges::version_edges_by(
                        std::slice::from_ref(k),
                        &mut |k| snapshot_versions(k, &pos, &mut reach),
                        &mut e,
                    );
                }
            } else if kind == WitnessKind::Snapshot {
                let mut reach = Reach::new(2 * n, &split_graph(&e, n, self.is_vertex), Reach::BUDGET);
                edges::version_edges_by(&self.open, &mut |k| snapshot_versions(k, &pos, &mut reach), &mut e);
            } else {
                edges::version_edges(&self.open, &pos, &mut e);
            }
            match order_of(&e, Some(&by_rank)) {
                Some(order) => order,
                None => {
                    let solved = self.solved(kind, respects).ok_or_else(|| {
                        cycle(" once the open version orders follow a first topological order of the rest, and the polygraph's search found no other")
                    })?;
                    order_of(&solved, None).ok_or_else(|| cycle(" with the polygraph's resolution"))?
                }
            }
        };
        let t = |v: u32| if kind == WitnessKind::Snapshot { v / 2 } else { v };
        order.retain(|&v| self.vertex(t(v)));
        Ok(self.ids(order.into_iter().map(t)))
    }

    fn ids(&self, order: impl Iterator<Item = u32>) -> Vec<u64> {
        order.map(|t| self.h.txns[t as usize].id).collect()
    }

    /// A register history without a version order whose first guess has a cycle: the
    /// resolution the polygraph's search finds (PolySI), as `grail check` decides SER and SI,
    /// with the witness's orders among the known edges.
    fn solved(&self, kind: WitnessKind, respects: &[Respect]) -> Option<Edges> {
        use crate::graph::orders::{realtime_edges, session_edges};
        use crate::graph::EdgeType;
        use crate::polygraph::Mode;
        if self.h.model != crate::history::Model::RwRegister || self.h.version_order.is_some() {
            return None;
        }
        let mode = if kind == WitnessKind::Snapshot { Mode::Si } else { Mode::Ser };
        let mut extra = Vec::new();
        if respects.contains(&Respect::Session) {
            extra.extend(session_edges(self.h, self.is_vertex).0);
        }
        if respects.contains(&Respect::RealTime) {
            extra.extend(realtime_edges(self.h, self.is_vertex).0);
        }
        let order = crate::level::Order::None;
        let pg = crate::polygraph::build_for(self.h, self.inf, order, mode, crate::polygraph::MAX_CONSTRAINTS);
        // As unbounded as the check that found the level to hold without a bound.
        let mut budget = crate::graph::search::Budget::unlimited();
        let resolved = crate::polygraph::resolve(&pg, mode, &extra, &mut budget)?;
        let mut e = Edges::default();
        for x in resolved {
            match x.ty {
                EdgeType::Rw => e.rw.push((x.from, x.to)),
                _ => e.dep.push((x.from, x.to)),
            }
        }
        Some(e)
    }

    /// A `commit-order` witness for the strongest of CC, RA and RC still `needed`: a
    /// topological order of the level's saturated graph (session order, WR, the known WW and
    /// the commit-order edges its axiom forces: Biswas and Enea 2019, Theorem 3.3), which
    /// satisfies the axiom since every edge it forces is respected.
    fn commit_order(&self, needed: &[&str]) -> Result<Vec<u64>, String> {
        use crate::level::Weak;
        let level = [("CC", Weak::Causal), ("RA", Weak::ReadAtomic), ("RC", Weak::ReadCommitted)]
            .into_iter()
            .find(|(l, _)| needed.contains(l))
            .map_or(Weak::ReadCommitted, |(_, w)| w);
        if self.inf.reads_from.is_none() {
            return Err("the inference was built without its reads-from list".into());
        }
        let input = crate::engine::weak::Input::new(self.h, self.inf);
        let wg = crate::engine::weak::graph(&input, level);
        if !wg.initial_reads.is_empty() {
            return Err("a read of the initial value after observing a writer of the key".into());
        }
        let edges: Vec<(u32, u32)> = wg.graph.edges.iter().map(|e| (e.from, e.to)).collect();
        let Some(mut order) = topo::order(self.h.txns.len(), &edges, None) else {
            return Err(
                "the saturated graph (session order, WR, WW and the commit order its axiom forces) has a cycle".into(),
            );
        };
        order.retain(|&v| self.vertex(v));
        Ok(self.ids(order.into_iter()))
    }

    /// A `versions` witness: a topological order of WW and WR (PL-2) or of WW alone (PL-1).
    /// Where a version order is open, the witness's order is the one it takes, so the first
    /// order (sessions side by side) is the witness.
    fn versions(&mut self, pl2: bool) -> Result<Vec<u64>, String> {
        // A register history without a version order leaves every version order open, and
        // PL-1 constrains it by nothing else (the WW edges of a read and then a write are sure
        // only where a read must see a version before its reader, PL-2).
        let open_registers = self.h.model == crate::history::Model::RwRegister && self.h.version_order.is_none();
        let edges: &[(u32, u32)] = match (pl2, open_registers) {
            (true, _) => &self.deps().dep,
            (false, true) => &[],
            (false, false) => &self.deps().ww,
        };
        let rank: &[u32] = if self.open.is_empty() { &[] } else { self.rank() };
        let by_rank = |v: u32| (u64::from(rank.get(v as usize).copied().unwrap_or(0)) << 32) | u64::from(v);
        let prio: Option<&dyn Fn(u32) -> u64> = if self.open.is_empty() { None } else { Some(&by_rank) };
        let Some(mut order) = topo::order(self.h.txns.len(), edges, prio) else {
            return Err(format!("the graph of {} has a cycle", if pl2 { "WW and WR" } else { "WW" }));
        };
        order.retain(|&v| self.vertex(v));
        Ok(self.ids(order.into_iter()))
    }
}

/// Searches of the split graph, visiting at most [`Reach::BUDGET`] nodes and edges in all.
struct Reach {
    start: Vec<u32>,
    succ: Vec<u32>,
    left: usize,
}

impl Reach {
    /// Open versions ordered by searches, one per writer, on keys with at most this many.
    const MAX_WRITERS: usize = 16;
    /// Nodes and edges visited by the searches at most (and drawn, when the graph is drawn
    /// again for each key).
    const BUDGET: usize = 50_000_000;

    fn new(n: usize, edges: &[(u32, u32)], budget: usize) -> Reach {
        let (start, succ) = topo::adjacency(n, edges, &mut []);
        Reach { start, succ, left: budget }
    }

    /// The nodes reachable from `from`, or `None` once the budget is spent.
    fn from(&mut self, from: u32) -> Option<std::collections::HashSet<u32>> {
        let mut seen = std::collections::HashSet::from([from]);
        let mut todo = vec![from];
        while let Some(v) = todo.pop() {
            let r = self.start[v as usize] as usize..self.start[v as usize + 1] as usize;
            self.left = self.left.checked_sub(r.len() + 1)?;
            for &w in &self.succ[r] {
                if seen.insert(w) {
                    todo.push(w);
                }
            }
        }
        Some(seen)
    }
}

/// An open key's versions in a snapshot witness: `b` goes before `a` when `b`'s start reaches
/// `a`'s commit (`a` first would need `a`'s commit before `b`'s start, a cycle); else by
/// commit. Without searches left, or with a cycle among these, by commit.
fn snapshot_versions(k: &edges::OpenKey, pos: &[u32], reach: &mut Reach) -> Vec<usize> {
    let by_commit = edges::by_position(k, pos);
    let w = k.writers.len();
    if !(2..=Reach::MAX_WRITERS).contains(&w) {
        return by_commit;
    }
    let mut before: Vec<(u32, u32)> = Vec::new();
    for b in 0..w {
        let Some(seen) = reach.from(2 * k.writers[b]) else { return by_commit };
        for a in (0..w).filter(|&a| a != b && seen.contains(&(2 * k.writers[a] + 1))) {
            before.push((b as u32, a as u32));
        }
    }
    let place: Vec<u64> = {
        let mut p = vec![0u64; w];
        for (i, &v) in by_commit.iter().enumerate() {
            p[v] = i as u64;
        }
        p
    };
    let prio = |v: u32| place[v as usize];
    match topo::order(w, &before, Some(&prio)) {
        Some(order) => order.into_iter().map(|v| v as usize).collect(),
        None => by_commit,
    }
}

/// Why a serial witness respecting these orders was not found.
fn serial_cycle(respects: &[Respect]) -> String {
    format!("the dependency graph{} has a cycle", orders_phrase(respects))
}

/// The orders a witness respects, as a reason names them.
fn orders_phrase(respects: &[Respect]) -> &'static str {
    match (respects.contains(&Respect::Session), respects.contains(&Respect::RealTime)) {
        (true, true) => " with session and real-time order",
        (true, false) => " with session order",
        (false, true) => " with real-time order",
        (false, false) => "",
    }
}

/// Every edge as is.
fn serial_graph(e: &Edges) -> Vec<(u32, u32)> {
    e.dep.iter().chain(&e.rw).copied().collect()
}

/// Transaction `t` as two nodes, start `2t` and commit `2t + 1`: start before commit, a
/// dependency from commit to start, an anti-dependency from start to commit.
fn split_graph(e: &Edges, n: usize, is_vertex: &[bool]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(n + e.dep.len() + e.rw.len());
    out.extend(
        (0..n as u32).filter(|&t| is_vertex.get(t as usize).copied().unwrap_or(false)).map(|t| (2 * t, 2 * t + 1)),
    );
    out.extend(e.dep.iter().map(|&(a, b)| (2 * a + 1, 2 * b)));
    out.extend(e.rw.iter().map(|&(a, b)| (2 * a, 2 * b + 1)));
    out
}
