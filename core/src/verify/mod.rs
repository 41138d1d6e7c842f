//! The verifier of certificates ([`format`]): given a history and a certificate, it checks each
//! witness from the history alone, and says which levels the witnesses that hold prove.
//!
//! A witness is an execution of the history's transactions. It is checked by replaying it:
//! * `serial`: one transaction at a time from the initial state (registers `nil`, lists empty),
//!   every read of a committed transaction equal to what the replay has (Adya 1999: a serial
//!   order consistent with the reads proves PL-3, that is SER);
//! * `snapshot`: starts and commits; each transaction reads the state its start saw, overlaid
//!   with its own writes, and installs its writes at its commit; no two transactions whose
//!   intervals overlap write one key (Cerone, Bernardi, Gotsman CONCUR 2015: SI as a start and
//!   commit order; Adya's PL-SI);
//! * `versions`: each key's versions installed in the order of their writers; every read returns
//!   a version installed before its reader, or its own write (Adya's PL-2: no G1a, G1b, G1c);
//!   for PL-1 alone, list reads are prefixes of the order their appends are installed in (no G0);
//! * and the orders it says it respects: each session's order (Daudjee and Salem: strong session
//!   SI), real time (a transaction that completed before another was invoked commits before it
//!   starts).
//!
//! A counterexample is a cycle a level forbids; each of its steps is re-derived from the
//! history ([`cycles`]).
//!
//! When the history has a write-ahead log (a version order it states), every witness installs
//! each key's versions in the log's order.
//!
//! Every committed transaction must be in the witness and no aborted one; an indeterminate one
//! may be, taken as committed (its writes apply, its reads, whose results are unknown, are not
//! checked). Which levels a witness proves is [`format::proves`], a fact of the definitions.
//!
//! The verifier shares nothing with the engine that writes certificates: it imports only the
//! history model, and no graph, inference or level table. It is kept small enough to be read
//! whole, so that trusting a certificate means trusting this module and the reader.

mod broken;
mod commit_order;
mod cycles;
pub mod format;
mod orders;
mod replay;
#[cfg(test)]
mod tests;
mod versions;
mod weak;

use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::{History, Status};
pub use commit_order::MAX_CLOCKS;
use format::{Certificate, NotCertified, Respect, Witness, WitnessKind};
use serde::Serialize;

/// What [`verify`] found: each witness and counterexample, checked, and the levels the
/// certificate leaves uncertified.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Verification {
    pub witnesses: Vec<Checked>,
    pub not_certified: Vec<NotCertified>,
    pub counterexamples: Vec<CheckedCycle>,
    pub violations_not_certified: Vec<NotCertified>,
    /// The levels the witnesses that verify prove, each once, in the order met (those that
    /// set no read aside).
    pub proved: Vec<String>,
    /// The levels proved only of the history without some reads (garbage reads, internal
    /// inconsistencies the witness sets aside), and not in `proved`.
    pub proved_with_set_aside: Vec<String>,
    /// The levels the counterexamples that verify show violated, each once.
    pub disproved: Vec<String>,
    /// Levels both proved and disproved: none unless the verifier is wrong.
    pub contradictions: Vec<String>,
}

/// One counterexample and its verdict.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckedCycle {
    /// The level it shows violated.
    pub level: String,
    pub anomaly: String,
    /// The first step the history does not show, or why the cycle is not one the level
    /// forbids; `None` when it shows the level violated.
    pub failure: Option<String>,
}

/// One witness and its verdict.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Checked {
    pub kind: WitnessKind,
    pub respects: Vec<Respect>,
    /// The levels the witness claims to prove.
    pub levels: Vec<String>,
    /// How many reads it sets aside (garbage reads, internal inconsistencies): its levels are
    /// proved of the history without them.
    pub set_aside: usize,
    /// The first problem found, or `None` when the witness holds.
    pub failure: Option<String>,
}

impl Verification {
    /// Whether every witness and counterexample holds, and none contradicts another.
    pub fn ok(&self) -> bool {
        self.witnesses.iter().all(|w| w.failure.is_none())
            && self.counterexamples.iter().all(|c| c.failure.is_none())
            && self.contradictions.is_empty()
    }

    /// The levels the counterexamples that hold show violated, each once.
    pub fn disproved(&self) -> Vec<String> {
        self.disproved.clone()
    }

    /// The levels of the witnesses that hold and set no read aside, each once, in the order met.
    pub fn proved(&self) -> Vec<String> {
        self.proved.clone()
    }

    /// The first witness's or counterexample's failure, when one fails.
    pub fn first_failure(&self) -> Option<&str> {
        self.witnesses
            .iter()
            .find_map(|w| w.failure.as_deref())
            .or_else(|| self.counterexamples.iter().find_map(|c| c.failure.as_deref()))
            .or_else(|| self.contradictions.first().map(String::as_str))
    }
}

/// A certificate from its JSON text. Errors: `syntax` or `shape` (with the line and column),
/// and `usage` when the file is not a certificate of this format's version.
pub fn parse(text: &[u8]) -> Result<Certificate, Error> {
    let cert: Certificate = serde_json::from_slice(text).map_err(|e| {
        let kind = match e.classify() {
            serde_json::error::Category::Data => ErrorKind::Shape,
            _ => ErrorKind::Syntax,
        };
        // serde_json's message ends with the place, which the error gives apart.
        let place = format!(" at line {} column {}", e.line(), e.column());
        let full = e.to_string();
        let message = full.strip_suffix(&place).unwrap_or(&full);
        let message = format!(
            "expected a grail certificate (a JSON object with format, version, transactions and witnesses): {message}"
        );
        let place = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).max(1);
        Error::at(kind, place(e.line()), place(e.column()), message)
    })?;
    if cert.format != format::FORMAT {
        let message =
            format!("expected a certificate (\"format\": \"{}\"), found \"format\": {:?}", format::FORMAT, cert.format);
        return Err(Error::new(ErrorKind::Usage, message));
    }
    if cert.version != format::VERSION {
        let message = format!(
            "this grail reads certificates of version {}, the file is of version {}",
            format::VERSION,
            cert.version
        );
        return Err(Error::new(ErrorKind::Usage, message));
    }
    Ok(cert)
}

/// Check every witness of `cert` against `h`.
pub fn verify(h: &History, cert: &Certificate) -> Verification {
    if cert.witnesses.is_empty() && cert.counterexamples.is_empty() {
        return summed(cert, Vec::new(), Vec::new());
    }
    let ids = ids(h);
    let witnesses = cert
        .witnesses
        .iter()
        .enumerate()
        .map(|(n, w)| Checked {
            kind: w.kind,
            respects: w.respects.clone(),
            levels: w.levels.clone(),
            set_aside: w.set_aside.len(),
            failure: check(h, &ids, n + 1, w).err(),
        })
        .collect();
    // Keys by the name steps give them, for counterexamples only.
    let keys: Map<String, crate::history::KeyId> = match cert.counterexamples.is_empty() {
        true => Map::default(),
        false => (0..h.keys.len() as u32).map(|k| (h.value_json(h.key(k)).to_string(), k)).collect(),
    };
    // Steps name writers by the values read: a value written twice to a key names neither.
    let steps = |cx: &format::Counterexample| !cx.steps.is_empty() || !cx.observed.is_empty();
    let duplicate = if cert.counterexamples.iter().any(steps) { versions::duplicate(h).err() } else { None };
    let broken = |cx: &format::Counterexample| matches!(cx.anomaly.as_str(), "garbage-read" | "internal");
    let written = if cert.counterexamples.iter().any(broken) { versions::writes(h) } else { Default::default() };
    let counterexamples = cert
        .counterexamples
        .iter()
        .map(|cx| CheckedCycle {
            level: cx.level.clone(),
            anomaly: cx.anomaly.clone(),
            failure: match (&ids, &duplicate) {
                (Err(e), _) => Some(e.clone()),
                (_, Some(d)) if steps(cx) => Some(d.clone()),
                (Ok(ids), _) => cycles::check(h, ids, &keys, &written, cx),
            },
        })
        .collect();
    summed(cert, witnesses, counterexamples)
}

/// The verification of `cert` from its checked witnesses and counterexamples: with the levels
/// proved, proved with reads set aside, and disproved, and any level both proved and disproved.
fn summed(cert: &Certificate, witnesses: Vec<Checked>, counterexamples: Vec<CheckedCycle>) -> Verification {
    let mut v = Verification {
        witnesses,
        not_certified: cert.not_certified.clone(),
        counterexamples,
        violations_not_certified: cert.violations_not_certified.clone(),
        proved: Vec::new(),
        proved_with_set_aside: Vec::new(),
        disproved: Vec::new(),
        contradictions: Vec::new(),
    };
    let add = |out: &mut Vec<String>, l: &String| {
        if !out.contains(l) {
            out.push(l.clone())
        }
    };
    for w in v.witnesses.iter().filter(|w| w.failure.is_none()) {
        for l in &w.levels {
            add(if w.set_aside == 0 { &mut v.proved } else { &mut v.proved_with_set_aside }, l);
        }
    }
    let proved = v.proved.clone();
    v.proved_with_set_aside.retain(|l| !proved.contains(l));
    for c in v.counterexamples.iter().filter(|c| c.failure.is_none()) {
        add(&mut v.disproved, &c.level);
    }
    v.contradictions = v
        .proved
        .iter()
        .filter(|l| v.disproved.contains(l))
        .map(|l| format!("{l} is both proved by a witness and disproved by a counterexample: a bug of the verifier's, please report it"))
        .collect();
    v
}

/// The reads a witness of `levels` sets aside where they hold with reads of `kinds` set aside
/// (`garbage-read`, `internal`): those of the history's broken reads ([`broken`]) of these kinds
/// that every one of the levels forbids. A non-repeatable read, which RC, PL-2 and PL-1 allow,
/// is left for their witness to account for.
pub fn reads_set_aside(h: &History, levels: &[&str], kinds: &[&str]) -> Vec<format::ReadRef> {
    let written = versions::writes(h);
    let mut out = Vec::new();
    for (t, x) in h.txns.iter().enumerate().filter(|(_, x)| x.status == Status::Committed) {
        for (i, op) in h.ops_of(t as u32).iter().enumerate() {
            if op.kind() != crate::history::OpKind::Read {
                continue;
            }
            if let Ok(k) = broken::kind_at(h, t as u32, i, &written) {
                if kinds.contains(&k.name()) && levels.iter().all(|l| k.violates(l)) {
                    out.push(format::ReadRef { txn: x.id, index: i as u32 });
                }
            }
        }
    }
    out
}

/// One witness checked against `h` as [`verify`] checks it: the first problem found, or `None`.
pub fn check_witness(h: &History, w: &Witness) -> Option<String> {
    check(h, &ids(h), 1, w).err()
}

/// Transactions by id: found by binary search when the history lists them in increasing id
/// order (as readers mostly give them), starting with the one after the last found (a witness
/// names them mostly in that order), else in a map.
enum Ids<'h> {
    Increasing(&'h History, std::cell::Cell<usize>),
    Map(Map<u64, u32>),
}

impl Ids<'_> {
    /// The transaction with id `id`, or the error that names it.
    fn named(&self, id: u64) -> Result<u32, String> {
        self.get(id).ok_or_else(|| format!("T{id} is not a transaction of this history"))
    }

    fn get(&self, id: u64) -> Option<u32> {
        match self {
            Ids::Increasing(h, next) => {
                let at = match h.txns.get(next.get()) {
                    Some(t) if t.id == id => next.get(),
                    _ => h.txns.binary_search_by_key(&id, |t| t.id).ok()?,
                };
                next.set(at + 1);
                Some(at as u32)
            }
            Ids::Map(m) => m.get(&id).copied(),
        }
    }
}

/// Each transaction's index by its id, or why the ids cannot name transactions.
fn ids(h: &History) -> Result<Ids<'_>, String> {
    if h.txns.windows(2).all(|w| w[0].id < w[1].id) {
        return Ok(Ids::Increasing(h, std::cell::Cell::new(0)));
    }
    let mut ids = Map::default();
    for (t, txn) in h.txns.iter().enumerate() {
        if ids.insert(txn.id, t as u32).is_some() {
            return Err(format!("the history has two transactions with id {}: a certificate cannot name them", txn.id));
        }
    }
    Ok(Ids::Map(ids))
}

/// One witness: the first problem found.
fn check(h: &History, ids: &Result<Ids, String>, n: usize, w: &Witness) -> Result<(), String> {
    levels(n, w)?;
    let ids = ids.as_ref().map_err(Clone::clone)?;
    let mut ex = execution(h, ids, w)?;
    if !w.set_aside.is_empty() {
        let written = versions::writes(h);
        for &r in &w.set_aside {
            let k = broken::kind(h, ids, &written, r)
                .map_err(|e| format!("witness {n} sets aside a read an execution may have: {e}"))?;
            // Only a read every claimed level forbids: a non-repeatable read is one RC, PL-2 and
            // PL-1 executions have.
            if let Some(l) = w.levels.iter().find(|l| !k.violates(l)) {
                return Err(format!(
                    "witness {n} sets aside T{}'s operation {}, a read {l} allows ({k:?}): it must account for it",
                    r.txn, r.index
                ));
            }
            ex.skip.insert((ids.get(r.txn).unwrap_or(u32::MAX), r.index));
        }
    }
    if !h.predicate_reads.is_empty() {
        return Err("the history has predicate reads, which this verifier does not evaluate".to_string());
    }
    // A commit order and a versions witness name a read's writer by its value: a value written
    // twice to a key names neither. (A replay compares values and names no writer.)
    if matches!(w.kind, WitnessKind::Versions | WitnessKind::CommitOrder) {
        versions::duplicate(h)?;
    }
    let claims = |l: &str| w.levels.iter().any(|x| x == l);
    match w.kind {
        WitnessKind::Versions => versions::replay(h, &ex, claims("PL-2"))?,
        WitnessKind::CommitOrder => {
            use commit_order::Axiom;
            let axiom = [("CC", Axiom::Causal), ("RA", Axiom::ReadAtomic), ("RC", Axiom::ReadCommitted)]
                .into_iter()
                .find(|(l, _)| claims(l))
                .map_or(Axiom::None, |(_, a)| a);
            commit_order::check(h, &ex, axiom)?
        }
        _ => replay::replay(h, &ex)?,
    }
    versions::log_order(h, &ex)?;
    if w.respects.contains(&Respect::Session) {
        orders::session(h, &ex, w.kind)?;
    }
    if w.respects.contains(&Respect::RealTime) {
        orders::real_time(h, &ex, w.kind)?;
    }
    Ok(())
}

/// Every level the witness claims is one its kind and orders prove; else what it lacks.
fn levels(n: usize, w: &Witness) -> Result<(), String> {
    let proved = format::proves(w.kind, &w.respects);
    let Some(level) = w.levels.iter().find(|l| !proved.contains(&l.as_str())) else { return Ok(()) };
    use {Respect::*, WitnessKind::Serial};
    let lacks: [(WitnessKind, &[Respect], &str); 5] = [
        (w.kind, &[RealTime], "it does not respect real-time"),
        (w.kind, &[Session], "it does not respect sessions"),
        (Serial, &[], "it is not serial"),
        (Serial, &[RealTime], "it is not serial and does not respect real-time"),
        (Serial, &[Session], "it is not serial and does not respect sessions"),
    ];
    let why = lacks
        .iter()
        .find(|(kind, more, _)| format::proves(*kind, &[&w.respects[..], more].concat()).contains(&level.as_str()))
        .map_or("no witness proves it", |l| l.2);
    let kind = match w.kind {
        Serial => "serial",
        WitnessKind::Snapshot => "snapshot",
        WitnessKind::Versions => "versions",
        WitnessKind::CommitOrder => "commit-order",
    };
    Err(format!("witness {n} ({kind}) cannot prove {level}: {why}"))
}

/// Where a transaction's start or commit is not (it is not in the witness).
const ABSENT: usize = usize::MAX;

/// A witness's execution: the transactions (indices) in its order, and where each starts and
/// commits in it (one place for both in a serial witness; [`ABSENT`] when left out).
struct Execution {
    order: Vec<u32>,
    start: Vec<usize>,
    /// A snapshot witness's commits; empty for the others, which commit where they start.
    commit: Vec<usize>,
    /// The reads set aside (transaction, operation's place in it), not replayed.
    skip: crate::hash::Set<(u32, u32)>,
}

impl Execution {
    fn contains(&self, t: usize) -> bool {
        self.start.get(t).is_some_and(|&s| s != ABSENT)
    }

    /// Whether transaction `t`'s operation `i` is a read set aside.
    fn skips(&self, t: u32, i: usize) -> bool {
        !self.skip.is_empty() && self.skip.contains(&(t, i as u32))
    }

    /// Where transaction `t` commits: its one place, or a snapshot witness's second.
    fn commit_at(&self, t: u32) -> Option<usize> {
        if self.commit.is_empty() { self.start.get(t as usize) } else { self.commit.get(t as usize) }.copied()
    }

    /// Whether `a` commits before `b` starts.
    fn before(&self, a: u32, b: u32) -> bool {
        let (Some(c), Some(&s)) = (self.commit_at(a), self.start.get(b as usize)) else { return false };
        c < s
    }
}

/// The name of a witness's kind, as the file writes it.
pub fn kind_name(k: WitnessKind) -> &'static str {
    match k {
        WitnessKind::Serial => "serial",
        WitnessKind::Snapshot => "snapshot",
        WitnessKind::Versions => "versions",
        WitnessKind::CommitOrder => "commit-order",
    }
}

/// A list as EDN, as messages show a list read: `[1 2]`.
fn show_list(h: &History, list: &[crate::history::Value]) -> String {
    let items: Vec<String> = list.iter().map(|&v| h.show(v)).collect();
    format!("[{}]", items.join(" "))
}

/// The transaction `T<id>`, as messages name it.
fn name(h: &History, t: u32) -> String {
    h.txns.get(t as usize).map_or_else(|| format!("#{t}"), |x| format!("T{}", x.id))
}

/// The witness's order as an execution: known ids, none aborted, each committed one present,
/// each once (serial) or twice (snapshot).
fn execution(h: &History, ids: &Ids, w: &Witness) -> Result<Execution, String> {
    let n = h.txns.len();
    // A snapshot witness places a start and a commit; the others one place for both.
    let two = w.kind == WitnessKind::Snapshot;
    let mut start = vec![ABSENT; n];
    let mut commit = if two { vec![ABSENT; n] } else { Vec::new() };
    let mut order = Vec::with_capacity(w.order.len());
    for (i, &id) in w.order.iter().enumerate() {
        let t = ids.named(id)?;
        let (Some(txn), Some(s)) = (h.txns.get(t as usize), start.get_mut(t as usize)) else {
            return Err(format!("T{id} is not a transaction of this history"));
        };
        if txn.status == Status::Aborted {
            return Err(format!("T{id} aborted: it cannot be in the execution"));
        }
        if *s == ABSENT {
            *s = i;
        } else if !two {
            return Err(format!("T{id} appears twice: a {} witness names each transaction once", kind_name(w.kind)));
        } else {
            match commit.get_mut(t as usize) {
                Some(c) if *c == ABSENT => *c = i,
                _ => {
                    return Err(format!(
                    "T{id} appears three times: a snapshot witness names each transaction twice, its start and its commit"
                ))
                }
            }
        }
        order.push(t);
    }
    for (t, (txn, &s)) in h.txns.iter().zip(&start).enumerate() {
        if s == ABSENT && txn.status == Status::Committed {
            return Err(format!("T{} committed but the witness leaves it out", txn.id));
        }
        if two && s != ABSENT && commit.get(t) == Some(&ABSENT) {
            return Err(format!(
                "T{} appears once: a snapshot witness names each transaction twice, its start and its commit",
                txn.id
            ));
        }
    }
    Ok(Execution { order, start, commit, skip: Default::default() })
}
