//! The levels online: what the cycles and reads seen so far say of each of the twelve levels.
//!
//! Takes each anomaly as it is found (a cycle's edge types, a read of an aborted or an
//! intermediate append) and, at the end, what only the end can tell (reads of values nobody
//! appended, appends no read ordered); gives a verdict per level, as the summary prints it.
//!
//! - `violated` as soon as an anomaly a level proscribes arrives: a cycle matching one of Adya's
//!   anti-patterns (G0, G1c, G-single, G-nonadjacent, G2-item: `level::pattern`, the offline
//!   search's own patterns), a read that disagrees with its own transaction (internal), a read
//!   of an aborted append (G1a) or of an intermediate one
//!   (G1b). Each is sound when reported: an edge drawn to an append no read ordered yet is
//!   implied by the edges of the order read later, with at least as many WW steps between its
//!   RW steps, so the cycle it closes stands for one of the same anti-pattern or a weaker one
//!   (GRAIL thesis Table 2.1). Stronger levels are violated with it (the lattice: `implies`).
//! - `holds` only for the five classic levels and the two strong-session ones (the window's
//!   graph with each process's order, `Window::session_edges`), only at the end of a stream that fit the window
//!   (nothing evicted, no search cut short, every read consistent with its key's order), and
//!   only after the one cycle search (`graph::search`) over the window's whole graph found none
//!   of the level's anti-patterns: the searches as transactions arrive stop at `max_length`.
//!   SI and PSI also need the order of the appends no read observed settled (two of them on one
//!   key leave it open; the offline check decides them over every order, PolySI 4.1).
//! - `unknown` otherwise, with the reason: what eviction could have missed, or that the level's
//!   real-time or commit orders are not kept online.

use super::kept::Decided;
use crate::analysis::classify::ADYA;
use crate::anomaly::AnomalyKind;
use crate::engine::Verdict;
use crate::graph::search::{components, matches, Budget, Searched, Searcher};
use crate::graph::{DependencyGraph, EdgeType};
use crate::level::{pattern, violated_with, Level, Order};
use serde::{Deserialize, Serialize};

/// One level's verdict online.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineLevel {
    /// The level's name (`SER`, `PL-2`, ...).
    pub level: String,
    pub verdict: Verdict,
    /// The anomalies seen that the level proscribes, as `grail check` names them (Adya's, with
    /// `-process` or `-realtime` for a cycle through that order; the weak levels' Plume names).
    pub anomalies: Vec<String>,
    /// The transactions of the first of them (a cycle's, or the reader and the writer).
    pub witness: Vec<u64>,
    /// The level this verdict follows from: a weaker one violated, or a stronger one that holds.
    pub implied_by: Option<String>,
    /// Why an `unknown` is not decided.
    pub reason: Option<String>,
    /// For a level that holds, the findings that break the model's assumptions and that it
    /// does not proscribe (as `grail check`'s "holds (with garbage-read set aside)").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<String>,
}

/// An anomaly as first seen: its kind, the order its cycle needed (session order, or none),
/// and its transactions.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Seen {
    pub kind: AnomalyKind,
    pub order: Order,
    /// A second read seeing newer versions (an internal finding read committed allows).
    pub reread: bool,
    pub txns: Vec<u64>,
    /// Decided by the offline engine over the kept transactions (`kept`): the level it found
    /// violated and its anomalies' names, rather than the kind's entry in the level table.
    pub level: Option<(Level, Vec<String>)>,
}

impl Seen {
    /// The levels it violates (`level::violated_with`: one that needed session order counts
    /// only for the levels whose cycles may use it; a reread not for one that allows rereads).
    fn violates(&self, l: Level) -> bool {
        if let Some((v, _)) = &self.level {
            return l == *v || l.weaker().contains(v);
        }
        violated_with(self.kind, self.order).contains(&l) && !(self.reread && l.spec().allows_rereads)
    }

    fn names(&self) -> Vec<String> {
        match &self.level {
            Some((_, names)) => names.clone(),
            // As the offline engine names it: `G-single-process` when it needed session order.
            None => vec![crate::engine::Named { kind: self.kind, order: self.order }.name()],
        }
    }
}

/// The first anomaly of each kind seen so far.
#[derive(Debug, Default, Clone)]
pub(super) struct Watch {
    seen: Vec<Seen>,
}

impl Watch {
    /// A cycle of these edge types through these transactions: every anti-pattern it matches.
    pub fn cycle(&mut self, types: &[EdgeType], txns: &[u64]) {
        for k in ADYA {
            if pattern(k).is_some_and(|p| matches(&p, types)) {
                self.add(k, txns);
            }
        }
    }

    pub fn add(&mut self, kind: AnomalyKind, txns: &[u64]) {
        self.add_with(kind, Order::None, false, txns);
    }

    /// A read finding: a reread is kept apart, since read committed allows it.
    pub fn add_read(&mut self, kind: AnomalyKind, reread: bool, txns: &[u64]) {
        self.add_with(kind, Order::None, reread, txns);
    }

    fn add_with(&mut self, kind: AnomalyKind, order: Order, reread: bool, txns: &[u64]) {
        if !self.seen.iter().any(|s| s.level.is_none() && s.kind == kind && s.order == order && s.reread == reread) {
            self.seen.push(Seen { kind, order, reread, txns: txns.to_vec(), level: None });
        }
    }

    /// A level the offline engine found violated over the kept transactions (`kept`), with its
    /// anomalies' names and first witness.
    pub fn add_level(&mut self, level: Level, names: &[String], txns: &[u64]) {
        if !self.seen.iter().any(|s| s.level.as_ref().is_some_and(|(l, _)| *l == level)) {
            let kind = AnomalyKind::G0; // not read: `level` decides
            let level = Some((level, names.to_vec()));
            self.seen.push(Seen { kind, order: Order::None, reread: false, txns: txns.to_vec(), level });
        }
    }
}

/// The levels a cycle of these edge types violates: those that proscribe an anti-pattern it
/// matches, and (as each proscribes what the levels it implies proscribe) every stronger one.
pub fn violated_by(types: &[EdgeType]) -> Vec<String> {
    let kinds: Vec<AnomalyKind> =
        ADYA.into_iter().filter(|k| pattern(*k).is_some_and(|p| matches(&p, types))).collect();
    Level::ALL.into_iter().filter(|l| kinds.iter().any(|&k| l.proscribes(k))).map(|l| l.name().to_string()).collect()
}

/// What the end of a stream that fit the window tells, for the verdicts that need it.
pub(super) struct Complete {
    /// Keys with two or more appends no read ordered, from different transactions.
    pub open_orders: usize,
    /// Transactions that claim timestamps: SI and SER are checked against those claims
    /// offline (white-box), not here.
    pub timed: u64,
    /// The window's transactions recorded invocation and completion times: strict-SER and
    /// strong-SI are decided too.
    pub realtime: bool,
    /// RC, RA and CC as the offline engine decided them over the kept transactions (`kept`);
    /// empty when it did not run (why: `weak_why`).
    pub engine: Vec<Decided>,
    pub weak_why: Option<String>,
}

/// The search of each anti-pattern not seen yet over the window's graph (`edges` between
/// indices `0..n`, `ids` their transactions), its cycles allowed to use `order`'s edges as
/// offline (`engine::cycles::dependency`): the ones found are added to `watch`.
pub(super) fn search_window(watch: &mut Watch, n: usize, edges: Vec<crate::graph::Edge>, ids: &[u64], order: Order) {
    let g = DependencyGraph::new(vec![true; n], edges);
    let comps = components(&g);
    let mut searcher = Searcher::new(&g);
    let mut found: Vec<Vec<u64>> = Vec::new();
    for k in ADYA {
        if watch.seen.iter().any(|s| s.level.is_none() && s.kind == k) {
            continue; // seen without the order: it violates every level this search is for
        }
        let Some(mut p) = pattern(k) else { continue };
        p.allowed |= order.bit();
        if let Searched::Violated(cycles) = searcher.search(&comps, &p, &mut Budget::unlimited(), 1) {
            if let Some(c) = cycles.first() {
                let txns: Vec<u64> = c.txns.iter().map(|&t| ids.get(t as usize).copied().unwrap_or(0)).collect();
                // A cycle a more specific pattern found already is listed once, under that
                // name, as `grail check` lists it (a G-single-process is no G2-item-process too).
                let mut key = txns.clone();
                crate::par::sort::sort_unstable(&mut key);
                if found.contains(&key) {
                    continue;
                }
                found.push(key);
                let used = if c.types.contains(&EdgeType::So) || c.types.contains(&EdgeType::Rt) {
                    order
                } else {
                    Order::None
                };
                watch.add_with(k, used, false, &txns);
            }
        }
    }
}

/// The verdict of every level from what was seen; `complete` when the stream ended within the
/// window, else `lost`, what the window could not judge (the summary's notes, in short).
pub(super) fn verdicts(watch: &Watch, complete: Option<&Complete>, lost: &str, committed: u64) -> Vec<OnlineLevel> {
    let mut out: Vec<OnlineLevel> = Level::ALL
        .into_iter()
        .map(|l| {
            let own: Vec<&Seen> = watch.seen.iter().filter(|s| s.violates(l)).collect();
            let realtime = matches!(l, Level::StrictSer | Level::StrongSi);
            let engine = complete.and_then(|c| c.engine.iter().find(|d| d.level == l));
            let (verdict, reason) = if !own.is_empty() {
                (Verdict::Violated, None)
            } else if !DECIDED.contains(&l) && !realtime {
                match (complete, engine) {
                    (_, _) if committed == 0 => (Verdict::Unknown, Some(crate::engine::NOTHING_COMMITTED.to_string())),
                    (None, _) => (Verdict::Unknown, Some(lost.to_string())),
                    (Some(_), Some(d)) => (d.verdict, d.reason.clone()),
                    (Some(c), None) => {
                        (Verdict::Unknown, Some(c.weak_why.clone().unwrap_or_else(|| NOT_ONLINE_WEAK.to_string())))
                    }
                }
            } else if committed == 0 {
                (Verdict::Unknown, Some(crate::engine::NOTHING_COMMITTED.to_string()))
            } else {
                match complete {
                    None => (Verdict::Unknown, Some(lost.to_string())),
                    Some(c) if realtime && !c.realtime => (Verdict::Unknown, Some(NOT_ONLINE.to_string())),
                    Some(c)
                        if c.open_orders > 0
                            && matches!(l, Level::Si | Level::Psi | Level::StrongSessionSi | Level::StrongSi) =>
                    (
                        Verdict::Unknown,
                        Some(format!(
                            "{} keys end with two or more appends no read ordered: {} is decided over every order of them offline (grail check), not online",
                            c.open_orders,
                            l.name()
                        )),
                    ),
                    Some(c)
                        if c.timed > 0
                            && matches!(
                                l,
                                Level::Ser
                                    | Level::Si
                                    | Level::StrongSessionSer
                                    | Level::StrongSessionSi
                                    | Level::StrictSer
                                    | Level::StrongSi
                            ) =>
                    (
                        Verdict::Unknown,
                        Some(format!(
                            "{} transactions claim start or commit timestamps: {} is also checked against the order they claim, by grail online --timestamps (Aion's axioms) or grail check, not by the cycle checker",
                            c.timed,
                            l.name()
                        )),
                    ),
                    Some(_) => (Verdict::Holds, None),
                }
            };
            let (anomalies, witness) = match engine {
                Some(d) if own.is_empty() && verdict == Verdict::Violated => (d.anomalies.clone(), d.witness.clone()),
                _ => (names(&own), own.first().map_or(Vec::new(), |s| s.txns.clone())),
            };
            OnlineLevel {
                level: l.name().to_string(),
                verdict,
                anomalies,
                witness,
                implied_by: None,
                reason,
                set_aside: Vec::new(),
            }
        })
        .collect();
    close(&mut out, complete.is_some() && committed > 0);
    set_aside(&mut out, watch, complete.map_or(&[][..], |c| &c.engine[..]));
    out
}

/// Mark each level that holds with the findings seen (by the watch, or set aside by the offline
/// engine's `decided` levels) that break the model's assumptions and that it does not
/// proscribe, as the offline engine does (`engine::verdicts`).
fn set_aside(out: &mut [OnlineLevel], watch: &Watch, decided: &[Decided]) {
    let seen = watch.seen.iter().filter(|s| s.level.is_none() && !s.reread).map(|s| s.kind);
    let mut breaking: Vec<AnomalyKind> = Vec::new();
    for k in seen.chain(decided.iter().flat_map(|d| d.set_aside.iter().copied())).filter(|k| k.breaks_assumption()) {
        if !breaking.contains(&k) {
            breaking.push(k);
        }
    }
    for l in Level::ALL {
        let o = &mut out[l as usize];
        if o.verdict == Verdict::Holds {
            o.set_aside = breaking.iter().filter(|&&k| !l.proscribes(k)).map(|k| k.name().to_string()).collect();
        }
    }
}

/// The verdicts of a register stream: violated by what the rounds found; at the end of a stream
/// that fit the window, the offline engine's verdicts over it (`decided`: claimed timestamps
/// checked as offline), except that a level that needs real-time order holds only when times
/// were recorded; else unknown (`lost`).
pub(super) fn from_engine(
    watch: &Watch,
    decided: Option<&[Decided]>,
    lost: &str,
    committed: u64,
    realtime: bool,
) -> Vec<OnlineLevel> {
    let mut out: Vec<OnlineLevel> = Level::ALL
        .into_iter()
        .map(|l| {
            let own: Vec<&Seen> = watch.seen.iter().filter(|s| s.violates(l)).collect();
            let d = decided.and_then(|ds| ds.iter().find(|d| d.level == l));
            let unknown = |why: String| (Verdict::Unknown, Some(why), Vec::new(), Vec::new());
            // Its own violation first, else the weaker level's it follows from.
            let first = own.iter().find(|s| s.level.as_ref().is_none_or(|(v, _)| *v == l)).or(own.first());
            let (verdict, reason, anomalies, witness) = if let Some(s) = first {
                (Verdict::Violated, None, names(&own), s.txns.clone())
            } else if committed == 0 {
                unknown(crate::engine::NOTHING_COMMITTED.to_string())
            } else {
                match d {
                    None => unknown(lost.to_string()),
                    Some(d) if d.verdict == Verdict::Violated => {
                        (Verdict::Violated, None, d.anomalies.clone(), d.witness.clone())
                    }
                    Some(_) if matches!(l, Level::StrictSer | Level::StrongSi) && !realtime => {
                        unknown(NOT_ONLINE.to_string())
                    }
                    Some(d) => (d.verdict, d.reason.clone(), d.anomalies.clone(), d.witness.clone()),
                }
            };
            let implied_by =
                first.and_then(|s| s.level.as_ref()).filter(|(v, _)| *v != l).map(|(v, _)| v.name().to_string());
            OnlineLevel {
                level: l.name().to_string(),
                verdict,
                anomalies,
                witness,
                implied_by,
                reason,
                set_aside: Vec::new(),
            }
        })
        .collect();
    close(&mut out, decided.is_some() && committed > 0);
    set_aside(&mut out, watch, decided.unwrap_or_default());
    out
}

/// The anomalies' names, each once, in the order seen.
fn names(seen: &[&Seen]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in seen.iter().flat_map(|s| s.names()) {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Close the verdicts under the lattice; a level may hold as a stronger one does only when
/// `may_hold` (the stream ended within the window).
fn close(out: &mut [OnlineLevel], may_hold: bool) {
    // The lattice: a level holds with every stronger level that holds (SER's graph without
    // the open appends' order is acyclic, so a topological order of it orders them without
    // any cycle: SI and PSI hold too), and is violated with every weaker level it implies.
    for l in Level::ALL {
        if out[l as usize].verdict != Verdict::Unknown || !may_hold {
            continue;
        }
        // The weakest stronger level that holds on its own (SI holds as SER does).
        let holds = |s: &Level| out[*s as usize].verdict == Verdict::Holds && out[*s as usize].implied_by.is_none();
        if let Some(s) = l.stronger().into_iter().rev().find(holds) {
            let o = &mut out[l as usize];
            o.verdict = Verdict::Holds;
            o.implied_by = Some(s.name().to_string());
            o.reason = None;
        }
    }
    for l in Level::ALL {
        if out[l as usize].verdict == Verdict::Violated {
            continue;
        }
        if let Some(w) = l.weaker().into_iter().find(|w| out[*w as usize].verdict == Verdict::Violated) {
            let o = &mut out[l as usize];
            o.verdict = Verdict::Violated;
            o.implied_by = Some(w.name().to_string());
            o.reason = None;
        }
    }
}

/// The levels decided at the end of a stream: the five classic ones and the two that add
/// session order (the processes' order, kept with each transaction of the window); the two that
/// add real-time order are too when the stream recorded times (`Complete::realtime`).
pub const DECIDED: [Level; 7] =
    [Level::StrongSessionSer, Level::Ser, Level::StrongSessionSi, Level::Si, Level::Psi, Level::Pl2, Level::Pl1];

/// Why a level needing real-time order is not decided online.
pub const NOT_ONLINE: &str = "not decided online: the stream did not record invocation and completion times for every committed transaction, which real-time order needs (grail check orders by input positions when none are recorded); online it is violated when a weaker level it implies is, or by a round of the offline engine over a register stream's kept transactions, never shown to hold";

/// Why read committed, read atomic and causal consistency are not decided online.
pub const NOT_ONLINE_WEAK: &str = "not decided online: the commit order its axioms force (Biswas and Enea) is computed by the offline engine (grail check's) only, over the transactions so far while none has left the window and over the whole stream at its end; online it holds only as a stronger level does, and is violated by what it forbids that is found online (G0 and G1c cycles, G1a, G1b, internal and thin-air reads) or by those checks";
