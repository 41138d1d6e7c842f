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
mod explain;
pub mod mixed;
pub mod online;
mod ts;

pub use explain::{render, why_claimed};
pub use ts::Ts;

use crate::error::{Error, ErrorKind};
use crate::graph::search::Budget;
use crate::history::{History, Status, TxnId};
use crate::infer::Inference;
use crate::level::Level;
use crate::report::{AnomalyReport, CheckOptions, CycleReport, LevelReport};
use serde::{Deserialize, Serialize};

/// How a check uses the orders a history claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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

/// The white-box section of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhiteBoxReport {
    /// How SI was checked with the claims: `full` (the axioms), `mixed` (claimed edges in the
    /// graph) or `none` (no transaction carries both timestamps).
    pub si: String,
    /// How SER was checked: `full` (every committed transaction has a commit position),
    /// `mixed` or `none`.
    pub ser: String,
    /// Where the commit order comes from: `commit_order` (the list) or `commit_ts`.
    pub order: String,
    /// Committed transactions (and indeterminate ones the claims or the reads say committed).
    pub transactions: usize,
    /// Those with both a start and a commit timestamp.
    pub timestamped: usize,
    /// Those with a place in the claimed commit order.
    pub ordered: usize,
    /// Violations of the claims, each with the transactions' timestamps (the first
    /// [`MAX_FINDINGS`]; `counts` has them all).
    pub findings: Vec<WhiteBoxFinding>,
    /// How many violations of each kind were found.
    pub counts: std::collections::BTreeMap<String, usize>,
}

/// At most this many findings are explained; the rest are counted.
pub const MAX_FINDINGS: usize = 1000;

/// One violation of the claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhiteBoxFinding {
    /// `snapshot-read`, `write-conflict`, `session-order`, `commit-order-read` or `claimed-order`.
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub levels: Vec<Level>,
    /// The transactions involved with their claims (the one that broke the axiom first).
    pub txns: Vec<TxnClaim>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<serde_json::Value>,
    /// What was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<serde_json::Value>,
    /// What the claims say should have been read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<serde_json::Value>,
    pub explanation: String,
}

/// A transaction's claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TxnClaim {
    pub id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_ts: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_ts: Option<serde_json::Value>,
    /// Its place (0-based) in the claimed `commit_order`, when one is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_position: Option<usize>,
}

/// A timestamp in JSON: an integer, a string holding one, or `{"p": .., "l": ..}` (each part an
/// integer or a string holding one; `l` 0 when absent).
pub fn ts_from_json(v: &serde_json::Value) -> Result<Ts, String> {
    fn part(v: &serde_json::Value) -> Option<i64> {
        match v {
            serde_json::Value::Number(n) => n.as_i64(),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    match v {
        serde_json::Value::Object(o) => {
            let p =
                o.get("p").and_then(part).ok_or("expected a hybrid logical clock {\"p\": integer, \"l\": integer}")?;
            let l = match o.get("l") {
                None | Some(serde_json::Value::Null) => 0,
                Some(l) => part(l).ok_or("expected \"l\" to be an integer")?,
            };
            Ok(Ts::new(p, l))
        }
        _ => part(v).map(Ts::int).ok_or_else(|| "expected an integer timestamp or {\"p\": .., \"l\": ..}".to_string()),
    }
}

/// The native `"commit_order": [ids]` as transactions, placed at the key in `text` on error.
pub(crate) fn commit_order_from_json(h: &History, v: &serde_json::Value, text: &[u8]) -> Result<Vec<TxnId>, Error> {
    let at = find(text, b"\"commit_order\"").unwrap_or(0);
    let ids =
        v.as_array().and_then(|a| a.iter().map(|x| x.as_u64()).collect::<Option<Vec<u64>>>()).ok_or_else(|| {
            Error::at_offset(ErrorKind::Shape, text, at, "expected \"commit_order\" to be an array of transaction ids")
        })?;
    resolve_commit_order(h, &ids, text, at)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Transaction ids to transactions: each must name a transaction, once.
pub(crate) fn resolve_commit_order(h: &History, ids: &[u64], text: &[u8], at: usize) -> Result<Vec<TxnId>, Error> {
    let by_id: crate::hash::Map<u64, TxnId> = h.txns.iter().enumerate().map(|(i, t)| (t.id, i as TxnId)).collect();
    let mut seen = crate::hash::Set::default();
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        let Some(&t) = by_id.get(&id) else {
            return Err(Error::at_offset(
                ErrorKind::Shape,
                text,
                at,
                format!("the commit order lists {id}, which is no transaction's id"),
            ));
        };
        if !seen.insert(t) {
            return Err(Error::at_offset(ErrorKind::Shape, text, at, format!("the commit order lists {id} twice")));
        }
        out.push(t);
    }
    Ok(out)
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
        let mut order: Vec<Option<Ts>> = h.txns.iter().map(|t| t.commit_ts).collect();
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
                    is_vertex.is_some_and(|v| v[t]) || order[t].is_some() || h.txns[t].commit_ts.is_some()
                }
            })
            .collect();
        let subjects = subject.iter().filter(|&&s| s).count();
        let timestamped = (0..n).filter(|&t| subject[t] && Self::both(h, t as TxnId)).count();
        let ordered = (0..n).filter(|&t| subject[t] && order[t].is_some()).count();
        Claims { subject, order, from_list, subjects, timestamped, ordered }
    }

    fn both(h: &History, t: TxnId) -> bool {
        let txn = &h.txns[t as usize];
        txn.start_ts.is_some() && txn.commit_ts.is_some()
    }

    /// Whether the history claims anything.
    pub fn any(h: &History) -> bool {
        h.commit_order.is_some() || h.txns.iter().any(|t| t.start_ts.is_some() || t.commit_ts.is_some())
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

fn mode_name(full: bool, some: bool) -> &'static str {
    match (full, some) {
        (true, _) => "full",
        (false, true) => "mixed",
        _ => "none",
    }
}

/// The SI family (levels whose claims are SI's) and the SER family.
const SI_FAMILY: [Level; 6] =
    [Level::Si, Level::StrongSessionSi, Level::StrongSi, Level::Ser, Level::StrongSessionSer, Level::StrictSer];
const SER_FAMILY: [Level; 3] = [Level::Ser, Level::StrongSessionSer, Level::StrictSer];

/// A level and every stronger one.
pub(crate) fn and_stronger(l: Level) -> Vec<Level> {
    let mut v = vec![l];
    v.extend(l.stronger());
    v.sort();
    v
}

/// Everything the claims found, ready to merge into a report.
pub(crate) struct Outcome {
    pub white_box: WhiteBoxReport,
    /// One anomaly per finding (the first [`MAX_FINDINGS`]) and per claimed cycle.
    pub anomalies: Vec<AnomalyReport>,
    /// Names of what violates each level.
    pub names: Vec<(Level, String)>,
    /// Claimed cycles per level.
    pub cycles: Vec<(Level, CycleReport)>,
    pub notes: Vec<String>,
}

/// The hook where levels are decided: check the claims (if any, and unless told to ignore them)
/// and merge what they say into the level reports. Returns the report's white-box section.
pub(crate) fn apply(
    h: &History,
    inf: &Inference,
    opts: &CheckOptions,
    levels: &mut [(Level, LevelReport)],
    anomalies: &mut Vec<AnomalyReport>,
    notes: &mut Vec<String>,
    budget: &mut Budget,
) -> Option<WhiteBoxReport> {
    if opts.white_box == WhiteBoxMode::Ignore || !Claims::any(h) {
        return None;
    }
    let claims = Claims::new(h, Some(&inf.graph.is_vertex));
    let wanted: Vec<Level> = levels.iter().map(|l| l.0).collect();
    let out = evaluate(h, Some(inf), &claims, &wanted, opts.max_cycles.max(1), budget);
    merge(levels, &out, &claims);
    anomalies.extend(out.anomalies);
    notes.extend(out.notes);
    Some(out.white_box)
}

/// Check the claims: the axioms where they are full, claimed edges (with the graph) where not.
pub(crate) fn evaluate(
    h: &History,
    inf: Option<&Inference>,
    claims: &Claims,
    wanted: &[Level],
    max_cycles: usize,
    budget: &mut Budget,
) -> Outcome {
    let (full_si, full_ser) = (claims.full_si(), claims.full_ser());
    let mut violations = axioms::Found::default();
    // SER's claims include SI's: the SI axioms run for either family, SER's for its own.
    if full_si && wanted.iter().any(|l| SI_FAMILY.contains(l)) {
        violations.extend(axioms::check_si(h, claims));
    }
    if full_ser && (!full_si || wanted.iter().any(|l| SER_FAMILY.contains(l))) {
        violations.extend(axioms::check_ser(h, claims));
    }
    violations.extend(axioms::aborted_in_order(h));
    let mut cycles = Vec::new();
    let mut notes = Vec::new();
    if let Some(inf) = inf {
        violations.extend(mixed::contradictions(h, inf, claims, full_si, full_ser));
        if !(full_si && full_ser) && wanted.iter().any(|l| SI_FAMILY.contains(l)) {
            cycles = mixed::claimed_cycles(h, inf, claims, full_si, max_cycles, budget);
        }
    }
    let order = if claims.from_list { "commit_order" } else { "commit_ts" };
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
    explain::outcome(h, claims, violations, cycles, notes, (full_si, full_ser), order)
}

/// Merge the claims' verdicts into the level reports: a level a claim violates is violated
/// (with the claim's names and cycles); an undecided level the full axioms decide holds.
fn merge(levels: &mut [(Level, LevelReport)], out: &Outcome, claims: &Claims) {
    for (l, r) in levels.iter_mut() {
        let names: Vec<&String> = out.names.iter().filter(|(x, _)| x == l).map(|(_, n)| n).collect();
        if !names.is_empty() {
            if r.valid != Some(false) {
                r.implied_by = None;
                r.cycles.clear();
            }
            r.valid = Some(false);
            r.verdict = "violated".into();
            r.reason = None;
            for n in names {
                if !r.anomalies.contains(n) {
                    r.anomalies.push(n.clone());
                }
            }
            for (_, c) in out.cycles.iter().filter(|(x, _)| x == l) {
                if !r.cycles.iter().any(|x| x.txns == c.txns) {
                    r.cycles.push(c.clone());
                }
            }
            continue;
        }
        // The axioms decide SI (and its session variant, with SESSION) and SER exactly: a
        // valid serial commit order is a serializable (so snapshot) execution.
        let decided = match l {
            Level::Si => claims.full_si() || claims.full_ser(),
            Level::StrongSessionSi => claims.full_si(),
            Level::Ser => claims.full_ser(),
            Level::StrongSessionSer => claims.full_ser() && claims.full_si(),
            _ => false,
        };
        if decided && r.valid.is_none() {
            r.valid = Some(true);
            r.verdict = "holds".into();
            r.reason = None;
        }
    }
}

/// A check from the claims alone ([`WhiteBoxMode::Only`]): no dependency graph is inferred.
pub(crate) fn check_only(h: &History, opts: &CheckOptions) -> crate::report::Report {
    let levels: Vec<Level> = if opts.levels.is_empty() {
        Level::CLASSIC.to_vec()
    } else {
        let mut l = opts.levels.clone();
        l.sort();
        l.dedup();
        l
    };
    let claims = Claims::new(h, None);
    let mut budget = Budget::unlimited();
    let out = evaluate(h, None, &claims, &levels, opts.max_cycles.max(1), &mut budget);
    let mut reports: Vec<(Level, LevelReport)> = levels
        .iter()
        .map(|&l| {
            let reason = if !SI_FAMILY.contains(&l) || matches!(l, Level::StrongSi | Level::StrictSer) {
                "white-box only: the claimed timestamps decide SI, SER and their strong-session variants, not this level"
            } else if SER_FAMILY.contains(&l) && !claims.full_ser() {
                "white-box only: SER needs every committed transaction's commit timestamp or place in the commit order"
            } else {
                "white-box only: not every committed transaction carries start and commit timestamps"
            };
            let r = LevelReport {
                valid: None,
                verdict: "unknown".into(),
                anomalies: Vec::new(),
                cycles: Vec::new(),
                reason: (!reason.is_empty()).then(|| reason.to_string()),
                implied_by: None,
                set_aside: Vec::new(),
            };
            (l, r)
        })
        .collect();
    merge(&mut reports, &out, &claims);
    for (_, r) in reports.iter_mut() {
        if r.valid.is_some() {
            r.reason = None;
        }
    }
    let valid = if reports.iter().any(|(_, r)| r.valid == Some(false)) {
        Some(false)
    } else if reports.iter().any(|(_, r)| r.valid.is_none()) {
        None
    } else {
        Some(true)
    };
    let (weakest_violated, also_violated, strongest_satisfied) = crate::report::lattice_summary(&reports);
    let mut notes = out.notes;
    notes.push("white-box only: the dependency graph was not inferred; levels were decided from the claimed timestamps and commit order alone".into());
    crate::report::Report {
        valid,
        model: match h.model {
            crate::history::Model::ListAppend => "list-append",
            crate::history::Model::RwRegister => "rw-register",
            crate::history::Model::Empty => "empty",
        }
        .into(),
        levels: crate::report::Levels(reports),
        weakest_violated,
        also_violated,
        strongest_satisfied,
        broken_assumptions: Vec::new(),
        anomalies: out.anomalies,
        stats: crate::graph::Stats {
            transactions: h.txns.len(),
            committed: h.count(Status::Committed),
            aborted: h.count(Status::Aborted),
            indeterminate: h.count(Status::Indeterminate),
            vertices: claims.subjects,
            ..Default::default()
        },
        notes,
        analysis: None,
        white_box: Some(out.white_box),
    }
}
