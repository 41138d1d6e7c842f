//! White-box orders: the start and commit timestamps, or the commit order, a database reports.
//!
//! Databases under test often know more than a black-box checker sees: hybrid logical clocks
//! (CockroachDB, TiDB, YugabyteDB), a commit order. Where a history carries them
//! ([`Transaction::start_ts`](crate::history::Transaction::start_ts), `commit_ts`,
//! [`History::commit_order`]), grail checks the claimed execution, as a write-ahead log's
//! version order is trusted and checked:
//!
//! * **Full** (every committed transaction carries what a level needs): Chronos's axioms
//!   (Ye et al., "Chronos: a fast SI checker", ICDE 2025; TimeKiller, the tool, cited below),
//!   checked in one sweep after sorting ([`axioms`]): SI's *snapshot read* (EXT: a
//!   transaction's first read of a key returns the last version committed at or before its
//!   start), *no conflict* (NOCONFLICT: two transactions that wrote one key do not overlap),
//!   *session* (SESSION: a transaction starts after its session's previous one committed; for
//!   the strong-session levels), and SER by commit order (a read returns the last version
//!   committed before the transaction, in commit order). Each violation is explained with the
//!   timestamps involved and with who wrote what was read instead.
//! * **Mixed** (only some transactions carry them): the claimed order adds edges to the
//!   inferred dependency graph ([`mixed`]): `T1 -> T2` when T1 committed at or before T2's
//!   start (SI, SER) and between consecutive transactions of the commit order (SER). Cycles
//!   through them are reported with their claimed steps marked `claimed: true`, and every
//!   dependency the history proves that a claim contradicts is a `claimed-order` violation.
//!   With no timestamps at all nothing changes: the black-box verdict.
//!
//! SER's claim includes SI's where start timestamps are given (a serializable database that
//! reads at its snapshot must keep its snapshot reads), so SER's verdict is never weaker than
//! SI's. PSI and the weaker levels are left to the black-box check: a claimed total order says
//! nothing about them.
//!
//! TimeKiller: <https://github.com/FertileFragrance/TimeKiller>, `src/main/java/checker/si/
//! SIFastChecker.java` at 575cef94a99bddcef1fc84dce59ab85ed376ffd8 (EXT and NOCONFLICT),
//! `reader/KVFastReader.java` at 31e0c643b995c331935f2fa043640270290bd900 (SESSION, checked
//! while loading), `checker/ser/SERFastGcChecker.java` at 575cef94a99bddcef1fc84dce59ab85ed376ffd8
//! (SER: EXT against the frontier in commit order; grail does not require TimeKiller's
//! TRANSVIS, that each transaction starts after the previous one committed).

pub mod axioms;
pub mod mixed;
#[cfg(feature = "schema")]
pub mod schema;

pub use crate::history::Ts;
pub use mixed::ClaimedCycle;

use crate::error::{Error, ErrorKind};
use crate::graph::search::Budget;
use crate::history::{History, Status, TxnId};
use crate::infer::Inference;
use crate::level::Level;
use serde::{Deserialize, Serialize};

/// At most this many violations are explained; the rest are counted.
pub const MAX_FINDINGS: usize = 1000;

/// How a check uses the orders a history claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum WhiteBoxMode {
    /// Use them where present (full or mixed), beside the black-box check.
    #[default]
    Auto,
    /// Ignore them: the black-box verdict only.
    Ignore,
    /// Only them, without inferring the dependency graph: SI and SER (and their session
    /// variants) from the axioms, in linear time after sorting; every other level unknown.
    Only,
}

impl WhiteBoxMode {
    pub fn parse(s: &str) -> Result<WhiteBoxMode, Error> {
        match s {
            "auto" => Ok(WhiteBoxMode::Auto),
            "ignore" | "off" | "black-box" => Ok(WhiteBoxMode::Ignore),
            "only" => Ok(WhiteBoxMode::Only),
            _ => Err(Error::new(
                ErrorKind::Usage,
                format!("unknown white-box mode {s:?}: expected auto, ignore or only"),
            )),
        }
    }
}

/// What the history claims, per transaction.
pub struct Claims {
    /// The transactions the claims are about: committed ones, and indeterminate ones that
    /// the reads (a vertex of the graph) or a claimed commit say committed.
    pub subject: Vec<bool>,
    /// Each transaction's place in the commit order: its index in `commit_order` when the
    /// history gives one, else its commit timestamp.
    pub order: Vec<Option<Ts>>,
    /// Whether `order` comes from the `commit_order` list.
    pub from_list: bool,
    pub subjects: usize,
    pub timestamped: usize,
    pub ordered: usize,
}

impl Claims {
    /// `is_vertex`: the graph's vertices, when it was inferred.
    pub fn new(h: &History, is_vertex: Option<&[bool]>) -> Claims {
        let n = h.txns.len();
        let mut order: Vec<Option<Ts>> = h.txns.iter().map(|t| t.commit_ts()).collect();
        let from_list = h.commit_order.is_some();
        if let Some(co) = &h.commit_order {
            order = vec![None; n];
            for (i, &t) in co.iter().enumerate() {
                if let Some(o) = order.get_mut(t as usize) {
                    *o = Some(Ts::int(i as i64));
                }
            }
        }
        let subject: Vec<bool> = (0..n)
            .map(|t| match h.txns[t].status {
                Status::Committed => true,
                Status::Aborted => false,
                Status::Indeterminate => {
                    is_vertex.is_some_and(|v| v[t]) || order[t].is_some() || h.txns[t].commit_ts().is_some()
                }
            })
            .collect();
        let subjects = subject.iter().filter(|&&s| s).count();
        let timestamped = (0..n).filter(|&t| subject[t] && Self::both(h, t as TxnId)).count();
        let ordered = (0..n).filter(|&t| subject[t] && order[t].is_some()).count();
        Claims { subject, order, from_list, subjects, timestamped, ordered }
    }

    /// Where the commit order comes from: the `commit_order` list or the commit timestamps.
    pub fn order_source(&self) -> &'static str {
        if self.from_list {
            "commit_order"
        } else {
            "commit_ts"
        }
    }

    fn both(h: &History, t: TxnId) -> bool {
        let txn = &h.txns[t as usize];
        txn.start_ts().is_some() && txn.commit_ts().is_some()
    }

    /// Whether the history claims anything.
    pub fn any(h: &History) -> bool {
        h.commit_order.is_some() || h.txns.iter().any(|t| t.start_ts().is_some() || t.commit_ts().is_some())
    }

    /// Every subject carries both timestamps: SI by the axioms.
    pub fn full_si(&self) -> bool {
        self.subjects > 0 && self.timestamped == self.subjects
    }

    /// Every subject has a place in the commit order: SER by the axioms.
    pub fn full_ser(&self) -> bool {
        self.subjects > 0 && self.ordered == self.subjects
    }
}

/// The SI family: the levels whose claims include SI's (SI and every level that implies it,
/// strongest first), from the level table, so that a new level implying SI is checked too.
pub fn si_family() -> Vec<Level> {
    Level::Si.and_stronger()
}

/// The SER family: SER and every level that implies it, strongest first.
pub fn ser_family() -> Vec<Level> {
    Level::Ser.and_stronger()
}

/// What checking the claims found, typed: violations of the axioms, and cycles through
/// claimed edges with the graphs they are cycles of. `crate::explain` renders it.
pub struct Checked {
    pub claims: Claims,
    pub found: axioms::Found,
    pub cycles: Vec<ClaimedCycle>,
    /// The dependency graphs with claimed edges that [`ClaimedCycle::graph`] indexes.
    pub graphs: Vec<crate::graph::DependencyGraph>,
    pub notes: Vec<String>,
    /// Whether SI and SER were decided by the axioms (every subject carries the claim).
    pub full_si: bool,
    pub full_ser: bool,
}

/// What a claim violation is called where levels list their anomalies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimName {
    /// An axiom broken.
    Axiom(axioms::Kind),
    /// A cycle through claimed edges: `G-single-claimed`.
    Cycle(crate::anomaly::AnomalyKind),
}

impl ClaimName {
    pub fn name(self) -> String {
        match self {
            ClaimName::Axiom(k) => k.name().to_string(),
            ClaimName::Cycle(k) => format!("{}-claimed", k.name()),
        }
    }
}

impl Checked {
    /// Which levels the claims violate, and under what names, in the order found.
    pub fn names(&self) -> Vec<(Level, ClaimName)> {
        let mut names: Vec<(Level, ClaimName)> = Vec::new();
        let mut add = |l: Level, n: ClaimName| {
            if !names.contains(&(l, n)) {
                names.push((l, n));
            }
        };
        for v in &self.found.list {
            for l in v.levels() {
                add(l, ClaimName::Axiom(v.kind));
            }
        }
        for &k in self.found.counts.keys() {
            if !self.found.list.iter().any(|v| v.kind == k) {
                for l in axioms::Violation::new(k, 0).levels() {
                    add(l, ClaimName::Axiom(k));
                }
            }
        }
        for c in &self.cycles {
            for &l in &c.levels {
                add(l, ClaimName::Cycle(c.kind));
            }
        }
        names
    }

    /// Whether the claims decide level `l` (when nothing violates it): the axioms decide SI
    /// (and its session variant, with SESSION) and SER exactly; a valid serial commit order is
    /// a serializable, so snapshot, execution.
    pub fn decides(&self, l: Level) -> bool {
        let (si, ser) = (self.full_si, self.full_ser);
        match l {
            Level::Si => si || ser,
            Level::StrongSessionSi => si,
            Level::Ser => ser,
            Level::StrongSessionSer => ser && si,
            _ => false,
        }
    }
}

/// Check the claims, unless told to ignore them or there are none: the axioms where they are
/// full, claimed edges in the inferred graph (when given) where not.
pub fn check(
    h: &History,
    inf: Option<&Inference>,
    mode: WhiteBoxMode,
    wanted: &[Level],
    max_cycles: usize,
    budget: &mut Budget,
) -> Option<Checked> {
    if mode == WhiteBoxMode::Ignore || (mode == WhiteBoxMode::Auto && !Claims::any(h)) {
        return None;
    }
    let claims = Claims::new(h, inf.map(|i| &i.graph.is_vertex[..]));
    let (full_si, full_ser) = (claims.full_si(), claims.full_ser());
    let mut found = axioms::Found::default();
    let (si_family, ser_family) = (si_family(), ser_family());
    // SER's claims include SI's: the SI axioms run for either family, SER's for its own.
    if full_si && wanted.iter().any(|l| si_family.contains(l)) {
        found.extend(axioms::check_si(h, &claims));
    }
    if full_ser && (!full_si || wanted.iter().any(|l| ser_family.contains(l))) {
        found.extend(axioms::check_ser(h, &claims));
    }
    found.extend(axioms::aborted_in_order(h));
    let (mut cycles, mut graphs) = (Vec::new(), Vec::new());
    let mut notes = Vec::new();
    if let Some(inf) = inf {
        found.extend(mixed::contradictions(h, inf, &claims, full_si, full_ser));
        if !(full_si && full_ser) && wanted.iter().any(|l| si_family.contains(l)) {
            (cycles, graphs) = mixed::claimed_cycles(h, inf, &claims, full_si, max_cycles.max(1), budget);
        }
    }
    let order = claims.order_source();
    if !full_si && claims.timestamped > 0 {
        notes.push(format!(
            "white-box: {} of {} committed transactions carry start and commit timestamps: SI's claims were checked as edges of the dependency graph (mixed mode), not by the axioms",
            claims.timestamped, claims.subjects
        ));
    }
    if !full_ser && claims.ordered > 0 {
        notes.push(format!(
            "white-box: {} of {} committed transactions have a place in the claimed commit order ({order}): SER's claims were checked as edges of the dependency graph (mixed mode)",
            claims.ordered, claims.subjects
        ));
    }
    let explained = found.list.len().min(MAX_FINDINGS);
    if found.total() > explained {
        notes.push(format!(
            "white-box: {} violations of the claims were found; the first {explained} are explained",
            found.total()
        ));
    }
    Some(Checked { claims, found, cycles, graphs, notes, full_si, full_ser })
}

#[cfg(test)]
mod tests {
    use super::{ser_family, si_family};
    use crate::level::Level::*;

    /// The families the level table gives today (they were written out by hand before).
    #[test]
    fn the_families_come_from_the_level_table() {
        assert_eq!(si_family(), [StrictSer, StrongSessionSer, Ser, StrongSi, StrongSessionSi, Si]);
        assert_eq!(ser_family(), [StrictSer, StrongSessionSer, Ser]);
    }
}
