//! The claims' violations as counterexamples (`crate::timestamps` finds them): each explained
//! with the timestamps involved and with who wrote what was read instead; the report's
//! white-box section.

use super::{cycle_report, op_ref, op_text, txn_name, why, AnomalyReport, CycleReport};
use crate::graph::{Edge, EdgeType};
use crate::history::{Arg, History, Index, KeyId, Model, Status, TxnId, Value};
use crate::level::Level;
use crate::timestamps::axioms::{Expected, Kind, Violation};
use crate::timestamps::{Checked, Claims, MAX_FINDINGS};
use serde::{Deserialize, Serialize};

/// The white-box section of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WhiteBoxReport {
    /// How SI was checked with the claims: `full` (the axioms), `mixed` (claimed edges in the
    /// graph) or `none` (no transaction carries both timestamps).
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::claim_use"))]
    pub si: String,
    /// How SER was checked: `full` (every committed transaction has a commit position),
    /// `mixed` or `none`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::claim_use"))]
    pub ser: String,
    /// Where the commit order comes from: `commit_order` (the list) or `commit_ts`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::commit_order_source"))]
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

/// One violation of the claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WhiteBoxFinding {
    /// `snapshot-read`, `write-conflict`, `session-order`, `commit-order-read` or `claimed-order`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::timestamps::schema::white_box_finding_type"))]
    pub kind: String,
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::finding_name"))]
    pub name: String,
    pub levels: Vec<Level>,
    /// The transactions involved with their claims (the one that broke the axiom first).
    pub txns: Vec<TxnClaim>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub key: Option<serde_json::Value>,
    /// What was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::read_value"))]
    pub read: Option<serde_json::Value>,
    /// What the claims say should have been read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::read_value"))]
    pub expected: Option<serde_json::Value>,
    pub explanation: String,
}

/// A transaction's claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TxnClaim {
    pub id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::timestamp"))]
    pub start_ts: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::timestamp"))]
    pub commit_ts: Option<serde_json::Value>,
    /// Its place (0-based) in the claimed `commit_order`, when one is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_position: Option<usize>,
}

/// Lists longer than this are shown by their ends.
const SHOWN: usize = 8;

struct Ctx<'a> {
    h: &'a History,
    /// The inference's index, when a graph was inferred.
    given: Option<&'a Index>,
    /// Built on first need otherwise: a check from the claims alone that finds nothing to
    /// explain (the linear-time path) builds none.
    built: std::cell::OnceCell<Index>,
    claims: &'a Claims,
}

impl Ctx<'_> {
    fn idx(&self) -> &Index {
        match self.given {
            Some(i) => i,
            None => self.built.get_or_init(|| Index::new(self.h)),
        }
    }

    fn name(&self, t: TxnId) -> String {
        txn_name(self.h, t)
    }

    fn sts(&self, t: TxnId) -> String {
        self.h.txns[t as usize].start_ts().map_or_else(|| "?".into(), |s| s.to_string())
    }

    fn cts(&self, t: TxnId) -> String {
        self.h.txns[t as usize].commit_ts().map_or_else(|| "?".into(), |s| s.to_string())
    }

    /// Where a transaction stands in the commit order: `commit 12`, or `position 3 of the
    /// commit order`.
    fn place(&self, t: TxnId) -> String {
        match self.claims.order[t as usize] {
            Some(o) if self.claims.from_list => format!("position {} of the commit order", o.p),
            Some(o) => format!("commit {o}"),
            None => "no place in the commit order".into(),
        }
    }

    fn claim(&self, t: TxnId) -> TxnClaim {
        let txn = &self.h.txns[t as usize];
        TxnClaim {
            id: txn.id,
            start_ts: txn.start_ts().map(|s| s.json()),
            commit_ts: txn.commit_ts().map(|c| c.json()),
            commit_position: self.claims.order[t as usize].filter(|_| self.claims.from_list).map(|o| o.p as usize),
        }
    }

    /// The first write of `v` to key `k`.
    fn writer(&self, k: KeyId, v: Value) -> Option<(TxnId, u32)> {
        self.idx().writes.get(&(k, v)).map(|w| (w.txn, w.op))
    }

    fn show(&self, v: Value) -> String {
        self.h.show(v)
    }

    fn list(&self, l: &[Value]) -> String {
        let s = |vs: &[Value]| vs.iter().map(|&v| self.show(v)).collect::<Vec<_>>().join(" ");
        if l.len() <= SHOWN {
            format!("[{}]", s(l))
        } else {
            format!("[{} ... {}] ({} elements)", s(&l[..3]), s(&l[l.len() - 3..]), l.len())
        }
    }

    /// Who wrote `v` to key `k`, relative to the reader's read point.
    fn source(&self, k: KeyId, v: Value, reader: TxnId, ser: bool, verb: &str) -> (String, Option<(TxnId, u32)>) {
        let Some((w, o)) = self.writer(k, v) else {
            return (format!("which no transaction {verb}"), None);
        };
        let (wn, rn) = (self.name(w), self.name(reader));
        let txn = &self.h.txns[w as usize];
        let text = if w == reader {
            format!("{verb} by {rn} itself later")
        } else if txn.status == Status::Aborted {
            format!("{verb} by {wn}, which aborted")
        } else if !self.claims.subject[w as usize] {
            format!("{verb} by {wn}, which may not have committed")
        } else if ser {
            match (self.claims.order[w as usize], self.claims.order[reader as usize]) {
                (Some(a), Some(b)) if a >= b => format!("{verb} by {wn} ({}), not before {rn}", self.place(w)),
                (Some(_), _) => format!("{verb} by {wn} ({}), an older version", self.place(w)),
                (None, _) => format!("{verb} by {wn}, which has no place in the commit order"),
            }
        } else {
            match (txn.commit_ts(), self.h.txns[reader as usize].start_ts()) {
                (Some(c), Some(s)) if c > s => format!("{verb} by {wn}, which committed at {c}, after {rn} started"),
                (Some(c), _) => format!("{verb} by {wn} (commit {c}), an older version"),
                (None, _) => format!("{verb} by {wn}, which carries no commit timestamp"),
            }
        };
        (text, Some((w, o)))
    }
}

fn finding(c: &Ctx, v: &Violation) -> (WhiteBoxFinding, AnomalyReport) {
    let h = c.h;
    let key = v.key.map(|k| h.value_json(h.key(k)));
    let mut txns = vec![v.txn];
    let mut ops: Vec<u32> = Vec::new();
    let (mut read, mut expected) = (None, None);
    let explanation = match v.kind {
        Kind::SnapshotRead | Kind::CommitOrderRead => {
            let ser = v.kind == Kind::CommitOrderRead;
            let (o, k) = (v.op.unwrap_or(0), v.key.unwrap_or(0));
            let op = h.ops[o as usize];
            let r = c.name(v.txn);
            let kt = c.show(h.key(k));
            let (when, by) = if ser {
                (format!("{r} ({})", c.place(v.txn)), "before it".to_string())
            } else {
                (format!("{r} (start {})", c.sts(v.txn)), format!("by {}", c.sts(v.txn)))
            };
            ops.push(o);
            match (&v.expected, h.model) {
                (Expected::List(exp), _) => {
                    let got = h.list(&op);
                    read = Some(serde_json::Value::Array(got.iter().map(|&x| h.value_json(x)).collect()));
                    expected = Some(serde_json::Value::Array(exp.iter().map(|&x| h.value_json(x)).collect()));
                    let i = got.iter().zip(exp).take_while(|(a, b)| a == b).count();
                    let mut detail = String::new();
                    if let Some(&e) = got.get(i) {
                        let (src, w) = c.source(k, e, v.txn, ser, "appended");
                        detail.push_str(&format!("; it holds {}, {src}", c.show(e)));
                        if let Some((w, _)) = w {
                            txns.push(w);
                        }
                    }
                    if let Some(&e) = exp.get(i) {
                        match c.writer(k, e) {
                            Some((w, _)) => {
                                let at = if ser { c.place(w) } else { format!("commit {}", c.cts(w)) };
                                detail.push_str(&format!("; it misses {}'s append of {} ({at})", c.name(w), c.show(e)));
                                txns.push(w);
                            }
                            None => detail.push_str(&format!("; it misses {}", c.show(e))),
                        }
                    }
                    format!(
                        "{when} read key {kt} = {}, but the appends committed {by} make it {}{detail}",
                        c.list(got),
                        c.list(exp)
                    )
                }
                (Expected::Register(exp), _) => {
                    read = Some(match op.arg() {
                        Arg::Val(x) => h.value_json(x),
                        _ => serde_json::Value::Null,
                    });
                    let got = match op.arg() {
                        Arg::Val(x) => {
                            let (src, w) = c.source(k, x, v.txn, ser, "written");
                            if let Some((w, wo)) = w {
                                txns.insert(0, w);
                                ops.insert(0, wo);
                            }
                            format!("{}, {src}", c.show(x))
                        }
                        _ => "nil (the initial value)".into(),
                    };
                    let should = match exp {
                        Some((w, wo)) => {
                            let val = h.written(*wo).map(|x| c.show(x)).unwrap_or_default();
                            expected = h.written(*wo).map(|x| h.value_json(x));
                            if !txns.contains(w) {
                                txns.push(*w);
                            }
                            let at = if ser { c.place(*w) } else { format!("commit {}", c.cts(*w)) };
                            format!("the last version of key {kt} committed {by} is {}'s {val} ({at})", c.name(*w))
                        }
                        None => {
                            expected = Some(serde_json::Value::Null);
                            format!("no write of key {kt} committed {by}: {r} should have read the initial value")
                        }
                    };
                    format!("{when} read key {kt} = {got}, but {should}")
                }
                (Expected::Nothing, Model::RwRegister | Model::ListAppend | Model::Empty) => {
                    format!("{when} read key {kt} = {}, which the claims do not allow", op_text(h, o))
                }
            }
        }
        Kind::WriteConflict => {
            let (t, w) = (v.txn, v.other.unwrap_or(v.txn));
            txns.insert(0, w);
            let kt = v.key.map(|k| c.show(h.key(k))).unwrap_or_default();
            let (tn, wn) = (c.name(t), c.name(w));
            format!(
                "{wn} (start {}, commit {}) and {tn} (start {}, commit {}) both wrote key {kt} and overlap: {wn} committed at {}, after {tn} started at {}; under SI the first committer wins, so {tn} should have aborted",
                c.sts(w), c.cts(w), c.sts(t), c.cts(t), c.cts(w), c.sts(t)
            )
        }
        Kind::SessionOrder => {
            let (b, a) = (v.txn, v.other.unwrap_or(v.txn));
            txns.insert(0, a);
            let p = h.txns[b as usize].process().unwrap_or_default();
            format!(
                "{} (start {}) follows {} in process {p}, but started before {} committed at {}",
                c.name(b),
                c.sts(b),
                c.name(a),
                c.name(a),
                c.cts(a)
            )
        }
        Kind::ClaimedOrder => match (v.edge, v.other) {
            (Some((ty, with_start)), Some(b)) => {
                let a = v.txn;
                txns.push(b);
                let e = Edge {
                    from: a,
                    to: b,
                    ty,
                    key: v.key.unwrap_or(0),
                    from_op: v.op.unwrap_or(0),
                    to_op: v.other_op.unwrap_or(0),
                };
                ops.extend([e.from_op, e.to_op]);
                let because = why(h, c.idx(), &e);
                let (an, bn) = (c.name(a), c.name(b));
                match (ty, with_start) {
                    (EdgeType::Wr, true) => format!(
                        "{bn} (start {}) read {an}'s write, which committed at {}, after {bn} started: {because}",
                        c.sts(b),
                        c.cts(a)
                    ),
                    (EdgeType::Rw, true) => format!(
                        "{an} (start {}) did not see {bn}'s write, which committed at {}, at or before {an} started: {because}",
                        c.sts(a),
                        c.cts(b)
                    ),
                    (EdgeType::Rw, false) => format!(
                        "the claimed order puts {bn} ({}) before {an} ({}), but {because}: a serial order puts {an} first",
                        c.place(b),
                        c.place(a)
                    ),
                    _ => format!(
                        "the claimed order puts {bn} ({}) before {an} ({}), but {because} ({})",
                        c.place(b),
                        c.place(a),
                        ty.as_str()
                    ),
                }
            }
            _ => format!("the claimed commit order lists {} ({}), which aborted", c.name(v.txn), c.place(v.txn)),
        },
    };
    let levels = v.levels();
    let f = WhiteBoxFinding {
        kind: v.kind.name().into(),
        name: v.kind.plain().into(),
        levels: levels.clone(),
        txns: txns.iter().map(|&t| c.claim(t)).collect(),
        key: key.clone(),
        read: read.clone(),
        expected,
        explanation: explanation.clone(),
    };
    let a = AnomalyReport {
        kind: v.kind.name().into(),
        name: v.kind.plain().into(),
        levels,
        key,
        value: read,
        txns: txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        ops: ops.iter().map(|&o| op_ref(h, c.idx(), c.idx().txn_of(o), o)).collect(),
        cycle: None,
        explanation,
    };
    (f, a)
}

/// The claims' counterexamples: the report's white-box section, one anomaly per explained
/// finding and per claimed cycle, and each claimed cycle rendered (indexed as
/// [`Checked::cycles`]). `idx` is the inference's index; without one (the claims alone), one
/// is built only if something needs explaining.
pub fn white_box_report(
    h: &History,
    idx: Option<&Index>,
    checked: &Checked,
) -> (WhiteBoxReport, Vec<AnomalyReport>, Vec<CycleReport>) {
    let (claims, found) = (&checked.claims, &checked.found);
    let c = Ctx { h, given: idx, built: Default::default(), claims };
    let mut findings = Vec::new();
    let mut anomalies = Vec::new();
    for v in found.list.iter().take(MAX_FINDINGS) {
        let (f, a) = finding(&c, v);
        findings.push(f);
        anomalies.push(a);
    }
    let mut cycles = Vec::new();
    for cc in &checked.cycles {
        let Some(g) = checked.graphs.get(cc.graph) else { continue };
        let name = crate::timestamps::ClaimName::Cycle(cc.kind).name();
        let cycle = cycle_report(h, c.idx(), g, cc.kind, &name, &cc.cycle);
        anomalies.push(AnomalyReport {
            kind: cycle.anomaly.clone(),
            name: cycle.name.clone(),
            levels: cc.levels.clone(),
            key: None,
            value: None,
            txns: cycle.txns.clone(),
            ops: Vec::new(),
            cycle: Some(cycle.clone()),
            explanation: cycle.explanation.clone(),
        });
        cycles.push(cycle);
    }
    // Inserted one by one, not collected: collecting sorts first with a stable sort, a copy of
    // it for this element type alone (the same map either way: the last value of a key stays).
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for (k, n) in &found.counts {
        counts.insert(k.name().to_string(), *n);
    }
    for c in &cycles {
        *counts.entry(c.anomaly.clone()).or_default() += 1;
    }
    let white_box = WhiteBoxReport {
        si: mode_name(checked.full_si, claims.timestamped > 0).into(),
        ser: mode_name(checked.full_ser, claims.ordered > 0).into(),
        order: claims.order_source().into(),
        transactions: claims.subjects,
        timestamped: claims.timestamped,
        ordered: claims.ordered,
        findings,
        counts,
    };
    (white_box, anomalies, cycles)
}

fn mode_name(full: bool, some: bool) -> &'static str {
    match (full, some) {
        (true, _) => "full",
        (false, true) => "mixed",
        _ => "none",
    }
}

/// Why a claimed edge holds ([`crate::graph::CLAIMED`]), in one sentence.
pub fn why_claimed(h: &History, e: &Edge) -> String {
    let (a, b) = (&h.txns[e.from as usize], &h.txns[e.to as usize]);
    let (an, bn) = (txn_name(h, e.from), txn_name(h, e.to));
    let ts = |t: Option<crate::history::Ts>| t.map_or_else(|| "?".to_string(), |t| t.to_string());
    match (e.ty, &h.commit_order) {
        (EdgeType::Co, Some(co)) => {
            let pos = |t: TxnId| co.iter().position(|&x| x == t).map_or_else(|| "?".into(), |p| p.to_string());
            format!("{an} comes before {bn} in the claimed commit order (positions {} and {})", pos(e.from), pos(e.to))
        }
        (EdgeType::Co, None) => format!(
            "{an} committed at {}, before {bn} at {} (claimed commit timestamps)",
            ts(a.commit_ts()),
            ts(b.commit_ts())
        ),
        _ => format!(
            "{an} committed at {}, at or before {bn} started at {} (claimed timestamps)",
            ts(a.commit_ts()),
            ts(b.start_ts())
        ),
    }
}
