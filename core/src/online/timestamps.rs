//! Online checking with timestamps, as Aion does (TimeKiller's online mode: `checker/
//! OnlineChecker.java` and `checker/si/SIOnlineChecker.java` at
//! <https://github.com/FertileFragrance/TimeKiller>, commits 0cd992d1811a6534d10818a0907d8954bec9a28b
//! and 575cef94a99bddcef1fc84dce59ab85ed376ffd8): committed transactions arrive with their start
//! and commit timestamps, in any order, and are checked against the versions of the
//! transactions around them.
//!
//! * A read is compared with the last version committed at or before its start (SI; before its
//!   commit, for SER) among the transactions that have arrived. A later arrival that commits
//!   before the read's start changes what it should have seen, so the read is checked again (a
//!   verdict that changes is a *flip*, Aion's flip-flop). A read's verdict is final when its
//!   transaction leaves the window; only then is a violation reported.
//! * Two transactions that wrote one key and overlap (NOCONFLICT, SI) and a transaction that
//!   started before its session's previous one committed (SESSION) are reported at once.
//!
//! Memory is bounded by a window of `window` transactions: the transaction with the smallest
//! commit timestamp leaves first, its versions folded into each key's *base* (a register's
//! version; a list's length and last writer). A transaction that arrives committing before the
//! last one that left (the watermark) is *late*: it cannot be checked exactly and is counted,
//! not checked. A list read is checked against the base's length and the appends in the
//! window; elements that left the window are not compared.

use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::{Arg, Atom, History, OpKind, Status, TxnId, Value};
use crate::timestamps::axioms::Kind;
use crate::timestamps::Ts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which claims are checked online.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum TsLevel {
    /// Snapshot reads at the start timestamp, no conflicts, sessions.
    #[default]
    #[serde(rename = "SI")]
    Si,
    /// Reads of the last version before the commit, in commit order; sessions.
    #[serde(rename = "SER")]
    Ser,
}

/// Options of the timestamped online checker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TsOnlineOptions {
    /// How many transactions stay in memory.
    pub window: usize,
    pub level: TsLevel,
    /// Check SESSION (TimeKiller's `--enable_session`, on by default).
    pub session: bool,
}

impl Default for TsOnlineOptions {
    fn default() -> Self {
        TsOnlineOptions { window: 100_000, level: TsLevel::Si, session: true }
    }
}

/// What a read returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadValue {
    /// A register read: a value, or `None` for the initial value.
    Register(Option<Atom>),
    /// A list read (the empty list for nothing).
    List(Vec<Atom>),
}

/// A micro-operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TsOp {
    Read { key: Atom, value: ReadValue },
    Write { key: Atom, value: Atom },
    Append { key: Atom, value: Atom },
}

/// A committed transaction with its timestamps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TsTxn {
    pub id: u64,
    pub session: Option<i64>,
    pub start_ts: Ts,
    pub commit_ts: Ts,
    pub ops: Vec<TsOp>,
}

fn shape(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Shape, msg)
}

fn atom(v: &serde_json::Value) -> Option<Atom> {
    match v {
        serde_json::Value::Number(n) => n.as_i64().map(Atom::Int),
        serde_json::Value::String(s) => Some(Atom::Str(s.clone())),
        _ => None,
    }
}

fn show(a: &Atom) -> String {
    match a {
        Atom::Int(i) => i.to_string(),
        Atom::Str(s) => s.clone(),
    }
}

impl TsTxn {
    /// A transaction in grail's native JSON (`{"id", "session", "start_ts", "commit_ts", "ops":
    /// [["r", k, v], ["w", k, v], ["append", k, v]]}`) or TimeKiller's (`{"tid", "sid", "sts",
    /// "cts", "ops": [{"t", "k", "v"}]}`); `id` defaults to `default_id`.
    pub fn from_json(v: &serde_json::Value, default_id: u64) -> Result<TsTxn, Error> {
        let obj = v.as_object().ok_or_else(|| shape("expected a transaction object"))?;
        let get = |names: &[&str]| names.iter().find_map(|n| obj.get(*n).filter(|x| !x.is_null()));
        let id = match get(&["id", "tid"]) {
            None => default_id,
            Some(x) => x
                .as_u64()
                .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
                .ok_or_else(|| shape("expected \"id\" to be a non-negative integer"))?,
        };
        let session = match get(&["session", "process", "sid"]) {
            None => None,
            Some(x) => Some(
                x.as_i64()
                    .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
                    .ok_or_else(|| shape("expected the session to be an integer"))?,
            ),
        };
        let ts = |names: &[&str]| -> Result<Ts, Error> {
            let v = get(names).ok_or_else(|| shape(format!("expected \"{}\", a timestamp", names[0])))?;
            crate::read::ts_from_json(v).map_err(|m| shape(format!("\"{}\": {m}", names[0])))
        };
        let (start_ts, commit_ts) = (ts(&["start_ts", "sts"])?, ts(&["commit_ts", "cts"])?);
        if start_ts > commit_ts {
            return Err(shape(format!("expected start_ts ({start_ts}) to be at most commit_ts ({commit_ts})")));
        }
        let ops = obj.get("ops").and_then(|o| o.as_array()).ok_or_else(|| shape("expected \"ops\" to be an array"))?;
        let mut out = Vec::with_capacity(ops.len());
        for op in ops {
            let (f, k, v) = match op {
                serde_json::Value::Array(a) if a.len() == 3 => {
                    (a[0].as_str().map(str::to_ascii_lowercase), &a[1], &a[2])
                }
                serde_json::Value::Object(o) => (
                    o.get("t").and_then(|t| t.as_str()).map(str::to_ascii_lowercase),
                    o.get("k").unwrap_or(&serde_json::Value::Null),
                    o.get("v").unwrap_or(&serde_json::Value::Null),
                ),
                _ => return Err(shape("expected an op [f, key, value] or {\"t\", \"k\", \"v\"}")),
            };
            let key = atom(k).ok_or_else(|| shape("expected a key to be an integer or a string"))?;
            let value = || atom(v).ok_or_else(|| shape("expected a written value to be an integer or a string"));
            out.push(match f.as_deref() {
                Some("w" | "write") => TsOp::Write { key, value: value()? },
                Some("a" | "append") => TsOp::Append { key, value: value()? },
                Some("r" | "read") => TsOp::Read {
                    key,
                    value: match v {
                        serde_json::Value::Array(xs) => ReadValue::List(
                            xs.iter()
                                .map(atom)
                                .collect::<Option<Vec<_>>>()
                                .ok_or_else(|| shape("expected list elements to be integers or strings"))?,
                        ),
                        serde_json::Value::Null => ReadValue::Register(None),
                        x => ReadValue::Register(Some(atom(x).ok_or_else(|| {
                            shape("expected a read value to be an integer, a string, a list or null")
                        })?)),
                    },
                },
                _ => return Err(shape("expected an op's type to be r, w or append")),
            });
        }
        Ok(TsTxn { id, session, start_ts, commit_ts, ops: out })
    }

    /// A committed transaction of a parsed history with both timestamps (`None` otherwise).
    pub fn from_history(h: &History, t: TxnId) -> Option<TsTxn> {
        TsTxn::from_history_as(h, t, h.model)
    }

    /// As [`TsTxn::from_history`], its reads of `nil` read as `model` has them (a record of a
    /// stream that only reads `nil` says nothing of its model: the stream's other records do).
    pub fn from_history_as(h: &History, t: TxnId, model: crate::history::Model) -> Option<TsTxn> {
        let txn = &h.txns[t as usize];
        let (Status::Committed, Some(start_ts), Some(commit_ts)) = (txn.status, txn.start_ts(), txn.commit_ts()) else {
            return None;
        };
        let a = |v: Value| Atom::of(h, v);
        let list = model != crate::history::Model::RwRegister;
        let ops = h
            .ops_of(t)
            .iter()
            .filter_map(|op| {
                let key = a(h.key(op.key));
                Some(match (op.kind(), op.arg()) {
                    (OpKind::Read, Arg::Nil) if !list => TsOp::Read { key, value: ReadValue::Register(None) },
                    (OpKind::Read, Arg::Val(v)) => TsOp::Read { key, value: ReadValue::Register(Some(a(v))) },
                    (OpKind::Read, _) => {
                        TsOp::Read { key, value: ReadValue::List(h.list(op).iter().map(|&v| a(v)).collect()) }
                    }
                    (OpKind::Write, Arg::Val(v)) => TsOp::Write { key, value: a(v) },
                    (OpKind::Append, Arg::Val(v)) => TsOp::Append { key, value: a(v) },
                    _ => return None,
                })
            })
            .collect();
        Some(TsTxn { id: txn.id, session: txn.process(), start_ts, commit_ts, ops })
    }
}

/// A violation, reported when it is final.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TsViolation {
    /// `snapshot-read`, `commit-order-read`, `write-conflict` or `session-order`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::timestamps::schema::ts_violation_type"))]
    pub kind: String,
    /// The transactions (the reader, the later writer or the later one of the session first).
    pub txns: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value"))]
    pub key: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::read_value"))]
    pub read: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::read_value"))]
    pub expected: Option<serde_json::Value>,
    pub explanation: String,
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TsOnlineStats {
    /// Committed transactions taken (the checker takes no others).
    pub transactions: u64,
    pub reads_checked: u64,
    /// Reads checked again because a later arrival changed their snapshot.
    pub rechecks: u64,
    /// Read verdicts that changed on a recheck (Aion's flip-flops).
    pub flips: u64,
    pub violations: u64,
    /// Transactions that arrived committing before the watermark: not checked.
    pub late: u64,
    /// Reads whose snapshot had left the window when they arrived: not checked.
    pub unchecked_reads: u64,
    pub live: usize,
    pub peak_live: usize,
    pub evicted: u64,
}

/// A key's versions in the window, keyed by (commit timestamp, arrival).
#[derive(Debug, Default)]
struct KeyState {
    versions: BTreeMap<(Ts, u64), Version>,
    /// The reads of this key in the window, by (read point, arrival).
    reads: BTreeMap<(Ts, u64), Pending>,
    /// What left the window: the last register version, the list's length, the last writer.
    base_value: Option<Atom>,
    base_len: usize,
    base_writer: Option<(u64, Ts, Ts)>,
}

#[derive(Debug)]
struct Version {
    id: u64,
    sts: Ts,
    /// The register value, or the elements appended.
    value: Vec<Atom>,
}

#[derive(Debug)]
struct Pending {
    id: u64,
    sts: Ts,
    cts: Ts,
    value: ReadValue,
    /// The current verdict when it fails: the expected value, and how many elements before it
    /// had left the window when it was evaluated (a list's; eviction grows the key's count).
    failing: Option<(ReadValue, usize)>,
}

#[derive(Debug)]
struct Live {
    /// The keys it wrote and read (read points).
    wrote: Vec<Atom>,
    read: Vec<(Atom, Ts)>,
}

/// The checker.
#[derive(Debug)]
pub struct TsOnlineChecker {
    opts: TsOnlineOptions,
    keys: Map<Atom, KeyState>,
    live: BTreeMap<(Ts, u64), Live>,
    sessions: Map<i64, (u64, Ts, Ts)>,
    watermark: Option<Ts>,
    seq: u64,
    stats: TsOnlineStats,
    /// Whether a list or register model was seen (`None` yet).
    list: Option<bool>,
}

impl TsOnlineChecker {
    pub fn new(opts: TsOnlineOptions) -> TsOnlineChecker {
        let opts = TsOnlineOptions { window: opts.window.max(1), ..opts };
        TsOnlineChecker {
            opts,
            keys: Map::default(),
            live: BTreeMap::new(),
            sessions: Map::default(),
            watermark: None,
            seq: 0,
            stats: TsOnlineStats::default(),
            list: None,
        }
    }

    pub fn options(&self) -> &TsOnlineOptions {
        &self.opts
    }

    pub fn stats(&self) -> TsOnlineStats {
        self.stats
    }

    /// The point a read is checked at: its start (SI) or its commit (SER).
    fn point(&self, t: &TsTxn) -> Ts {
        match self.opts.level {
            TsLevel::Si => t.start_ts,
            TsLevel::Ser => t.commit_ts,
        }
    }

    /// Take one transaction as JSON text (grail's native form or TimeKiller's); the violations
    /// that became final. A transaction without an id is numbered by its arrival.
    pub fn push_json(&mut self, text: &[u8]) -> Result<Vec<TsViolation>, Error> {
        let v: serde_json::Value =
            serde_json::from_slice(text).map_err(|e| Error::new(ErrorKind::Syntax, format!("transaction: {e}")))?;
        let t = TsTxn::from_json(&v, self.seq)?;
        Ok(self.push(&t))
    }

    /// Take one committed transaction; returns the violations that became final.
    pub fn push(&mut self, t: &TsTxn) -> Vec<TsViolation> {
        let mut out = Vec::new();
        self.stats.transactions += 1;
        let seq = self.seq;
        self.seq += 1;
        if self.watermark.is_some_and(|w| t.commit_ts < w) {
            self.stats.late += 1;
            return out;
        }
        if self.opts.session {
            if let Some(s) = t.session {
                if let Some(&(pid, _, pcts)) = self.sessions.get(&s) {
                    if pcts > t.start_ts {
                        out.push(TsViolation {
                            kind: Kind::SessionOrder.name().into(),
                            txns: vec![t.id, pid],
                            key: None,
                            read: None,
                            expected: None,
                            explanation: format!(
                                "T{} (start {}) follows T{pid} in session {s}, but started before T{pid} committed at {pcts}",
                                t.id, t.start_ts
                            ),
                        });
                    }
                }
                self.sessions.insert(s, (t.id, t.start_ts, t.commit_ts));
            }
        }
        // External reads, and the versions it installs.
        let mut touched: Vec<&Atom> = Vec::new();
        let mut reads: Vec<(&Atom, &ReadValue)> = Vec::new();
        let mut writes: Vec<(&Atom, Vec<Atom>)> = Vec::new();
        for op in &t.ops {
            match op {
                TsOp::Read { key, value } => {
                    if !touched.contains(&key) {
                        touched.push(key);
                        reads.push((key, value));
                    }
                    if matches!(value, ReadValue::List(_)) {
                        self.list.get_or_insert(true);
                    }
                }
                TsOp::Write { key, value } | TsOp::Append { key, value } => {
                    touched.push(key);
                    let append = matches!(op, TsOp::Append { .. });
                    if append {
                        self.list.get_or_insert(true);
                    } else {
                        self.list.get_or_insert(false);
                    }
                    match writes.iter_mut().find(|w| w.0 == key) {
                        Some(w) if append => w.1.push(value.clone()),
                        Some(w) => w.1 = vec![value.clone()],
                        None => writes.push((key, vec![value.clone()])),
                    }
                }
            }
        }
        let point = self.point(t);
        let mut live = Live { wrote: Vec::new(), read: Vec::new() };
        for (key, value) in reads {
            let mut p = Pending { id: t.id, sts: t.start_ts, cts: t.commit_ts, value: value.clone(), failing: None };
            match self.evaluate(key, point, seq, &p.value) {
                Some(f) => {
                    self.stats.reads_checked += 1;
                    p.failing = f;
                    self.keys.entry(key.clone()).or_default().reads.insert((point, seq), p);
                    live.read.push((key.clone(), point));
                }
                None => self.stats.unchecked_reads += 1,
            }
        }
        for (key, value) in writes {
            let k = self.keys.entry(key.clone()).or_default();
            if self.opts.level == TsLevel::Si {
                // NOCONFLICT: a writer of the key whose interval overlaps this one's.
                let overlapping = k
                    .versions
                    .range((t.start_ts, u64::MAX)..)
                    .filter(|(_, v)| v.sts < t.commit_ts)
                    .map(|((c, _), v)| (v.id, v.sts, *c))
                    .chain(k.base_writer.filter(|b| b.2 > t.start_ts && b.1 < t.commit_ts));
                for (id, s, c) in overlapping.collect::<Vec<_>>() {
                    out.push(TsViolation {
                        kind: Kind::WriteConflict.name().into(),
                        txns: vec![t.id, id],
                        key: Some(key.json()),
                        read: None,
                        expected: None,
                        explanation: format!(
                            "T{id} (start {s}, commit {c}) and T{} (start {}, commit {}) both wrote key {} and overlap",
                            t.id,
                            t.start_ts,
                            t.commit_ts,
                            show(key)
                        ),
                    });
                }
            }
            k.versions.insert((t.commit_ts, seq), Version { id: t.id, sts: t.start_ts, value });
            live.wrote.push(key.clone());
            self.recheck(key, t.commit_ts, seq);
        }
        self.live.insert((t.commit_ts, seq), live);
        self.stats.live = self.live.len();
        self.stats.peak_live = self.stats.peak_live.max(self.live.len());
        while self.live.len() > self.opts.window {
            self.evict(&mut out);
        }
        self.stats.violations += out.len() as u64;
        out
    }

    /// Every pending read's verdict, final: call at the end of the stream.
    pub fn finish(&mut self) -> Vec<TsViolation> {
        let mut out = Vec::new();
        while !self.live.is_empty() {
            self.evict(&mut out);
        }
        self.stats.violations += out.len() as u64;
        out
    }

    /// Check again the reads of `key` a version committed at `cts` (by arrival `seq`) is visible to.
    fn recheck(&mut self, key: &Atom, cts: Ts, seq: u64) {
        let Some(k) = self.keys.get(key) else { return };
        let affected: Vec<((Ts, u64), ReadValue)> =
            k.reads.range((cts, 0)..).filter(|(p, _)| p.1 != seq).map(|(p, r)| (*p, r.value.clone())).collect();
        for (p, value) in affected {
            let Some(verdict) = self.evaluate(key, p.0, p.1, &value) else { continue };
            self.stats.rechecks += 1;
            if let Some(r) = self.keys.get_mut(key).and_then(|k| k.reads.get_mut(&p)) {
                if r.failing.is_some() != verdict.is_some() {
                    self.stats.flips += 1;
                }
                r.failing = verdict;
            }
        }
    }

    /// `Some(None)` when the read is right, `Some(Some((expected, earlier)))` when not (`earlier`:
    /// the elements before a list's `expected` that had left the window), `None` when what it
    /// should have seen left the window.
    fn evaluate(&self, key: &Atom, point: Ts, seq: u64, value: &ReadValue) -> Option<Option<(ReadValue, usize)>> {
        let k = self.keys.get(key);
        let visible = |c: Ts, s: u64| match self.opts.level {
            TsLevel::Si => c <= point && s != seq,
            TsLevel::Ser => c < point,
        };
        let versions: Vec<&Version> = k
            .map(|k| {
                k.versions.range(..=(point, u64::MAX)).filter(|((c, s), _)| visible(*c, *s)).map(|(_, v)| v).collect()
            })
            .unwrap_or_default();
        if self.watermark.is_some_and(|w| w > point) && k.is_some_and(|k| k.base_writer.is_some_and(|b| b.2 > point)) {
            return None;
        }
        let list = matches!(value, ReadValue::List(_)) || self.list == Some(true);
        let base = k.map_or(0, |k| k.base_len);
        let expected = if list {
            let window: Vec<Atom> = versions.iter().flat_map(|v| v.value.iter().cloned()).collect();
            let got = match value {
                ReadValue::List(l) => l.as_slice(),
                ReadValue::Register(None) => &[],
                ReadValue::Register(Some(_)) => return Some(Some((ReadValue::List(window), base))),
            };
            if got.len() == base + window.len() && got[base..] == window[..] {
                return Some(None);
            }
            ReadValue::List(window)
        } else {
            let last =
                versions.last().and_then(|v| v.value.last().cloned()).or_else(|| k.and_then(|k| k.base_value.clone()));
            if *value == ReadValue::Register(last.clone()) {
                return Some(None);
            }
            ReadValue::Register(last)
        };
        Some(Some((expected, base)))
    }

    /// The transaction with the smallest commit timestamp leaves; its failing reads are final.
    fn evict(&mut self, out: &mut Vec<TsViolation>) {
        let Some(((cts, seq), live)) = self.live.pop_first() else { return };
        self.stats.evicted += 1;
        self.stats.live = self.live.len();
        self.watermark = Some(self.watermark.map_or(cts, |w| w.max(cts)));
        for (key, point) in &live.read {
            let Some(r) = self.keys.get_mut(key).and_then(|k| k.reads.remove(&(*point, seq))) else { continue };
            if let Some((expected, earlier)) = &r.failing {
                out.push(self.read_violation(key, &r, expected, *earlier));
            }
        }
        for key in &live.wrote {
            if let Some(k) = self.keys.get_mut(key) {
                if let Some(v) = k.versions.remove(&(cts, seq)) {
                    k.base_len += v.value.len();
                    k.base_value = v.value.last().cloned();
                    k.base_writer = Some((v.id, v.sts, cts));
                }
            }
        }
        for key in live.wrote.iter().chain(live.read.iter().map(|r| &r.0)) {
            if self
                .keys
                .get(key)
                .is_some_and(|k| k.versions.is_empty() && k.reads.is_empty() && k.base_writer.is_none())
            {
                self.keys.remove(key);
            }
        }
    }

    /// The violation of read `r` of `key`, which expected `expected` after `base` elements.
    fn read_violation(&self, key: &Atom, r: &Pending, expected: &ReadValue, base: usize) -> TsViolation {
        let (got, id, sts, cts) = (&r.value, r.id, r.sts, r.cts);
        let json = |v: &ReadValue| match v {
            ReadValue::Register(None) => serde_json::Value::Null,
            ReadValue::Register(Some(a)) => a.json(),
            ReadValue::List(l) => serde_json::Value::Array(l.iter().map(Atom::json).collect()),
        };
        let text = |v: &ReadValue| match v {
            ReadValue::Register(None) => "nil (the initial value)".to_string(),
            ReadValue::Register(Some(a)) => show(a),
            ReadValue::List(l) => format!("[{}]", l.iter().map(show).collect::<Vec<_>>().join(" ")),
        };
        let (kind, when, by) = match self.opts.level {
            TsLevel::Si => (Kind::SnapshotRead, format!("T{id} (start {sts})"), format!("by {sts}")),
            TsLevel::Ser => (Kind::CommitOrderRead, format!("T{id} (commit {cts})"), format!("before {cts}")),
        };
        let should = match expected {
            ReadValue::List(l) if base > 0 => {
                format!(
                    "the appends committed {by} end with {} after {base} earlier element{}",
                    text(&ReadValue::List(l.clone())),
                    if base == 1 { "" } else { "s" }
                )
            }
            ReadValue::List(_) => format!("the appends committed {by} make it {}", text(expected)),
            ReadValue::Register(_) => format!("the last version committed {by} is {}", text(expected)),
        };
        TsViolation {
            kind: kind.name().into(),
            txns: vec![id],
            key: Some(key.json()),
            read: Some(json(got)),
            expected: Some(json(expected)),
            explanation: format!("{when} read key {} = {}, but {should}", show(key), text(got)),
        }
    }

    /// An estimate of the heap memory held, in bytes.
    pub fn memory_estimate(&self) -> usize {
        let per_key: usize = self
            .keys
            .values()
            .map(|k| 96 + k.versions.values().map(|v| 64 + v.value.len() * 32).sum::<usize>() + k.reads.len() * 96)
            .sum();
        per_key
            + self.live.values().map(|l| 64 + (l.wrote.len() + l.read.len()) * 48).sum::<usize>()
            + self.sessions.len() * 48
    }
}

/// A violation as one line of text.
pub fn render_violation(v: &TsViolation) -> String {
    format!("{}: {}", v.kind, v.explanation)
}

/// The counters as text.
pub fn render_stats(s: &TsOnlineStats) -> String {
    format!(
        "{} committed transaction{}, {} reads checked ({} rechecks, {} flips), {} violation{}; {} late, {} reads unchecked; window: peak {} live, {} evicted\n",
        s.transactions,
        if s.transactions == 1 { "" } else { "s" },
        s.reads_checked,
        s.rechecks,
        s.flips,
        s.violations,
        if s.violations == 1 { "" } else { "s" },
        s.late,
        s.unchecked_reads,
        s.peak_live,
        s.evicted
    )
}
