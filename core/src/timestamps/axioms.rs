//! Chronos's axioms, checked in one sweep after sorting (Ye et al., ICDE 2025; TimeKiller's
//! `SIFastChecker`, cited in [`super`]).
//!
//! SI: the transactions' start and commit events, sorted by timestamp (a commit before a start
//! at the same timestamp: a version committed at `t` is in the snapshot taken at `t`, as
//! TimeKiller compares `cts <= sts`). At a commit the transaction's writes are installed; at a
//! start its external reads (a key's first access, when it is a read) are compared with the
//! installed versions: EXT. At a commit each key written is compared with the key's last
//! writer: if that one committed after this one started, the two overlap: NOCONFLICT.
//! Sessions: each transaction against the one before it in its session: SESSION.
//! SER: the commits in commit order; a transaction's external reads are compared with the
//! versions installed by the commits before it (those at the same place, ties of commit
//! timestamps, are not before it).
//!
//! A list key's state is the appends installed, in commit order; a read must equal it (TimeKiller
//! compares the last element only; grail the whole list). Reads that are canonical prefixes
//! (almost all) compare in O(1) by tracking how much of the installed list matches the key's
//! canonical list. Everything else is linear: O(n log n) with the sort.

use super::{Claims, Ts};
use crate::history::{Arg, History, KeyId, Model, OpKind, Status, TxnId, Value};

/// Which axiom a violation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// EXT at the start timestamp (SI).
    SnapshotRead,
    /// NOCONFLICT.
    WriteConflict,
    /// SESSION.
    SessionOrder,
    /// EXT in commit order (SER).
    CommitOrderRead,
    /// A claimed order contradicts a dependency the history proves.
    ClaimedOrder,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::SnapshotRead => "snapshot-read",
            Kind::WriteConflict => "write-conflict",
            Kind::SessionOrder => "session-order",
            Kind::CommitOrderRead => "commit-order-read",
            Kind::ClaimedOrder => "claimed-order",
        }
    }

    pub fn plain(self) -> &'static str {
        match self {
            Kind::SnapshotRead => "read outside its snapshot",
            Kind::WriteConflict => "concurrent writes (no first committer wins)",
            Kind::SessionOrder => "session order not kept",
            Kind::CommitOrderRead => "read out of commit order",
            Kind::ClaimedOrder => "claimed order contradicts the history",
        }
    }
}

/// What a read should have returned by the claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Nothing,
    /// A register: the version's writer and write operation, or the initial value.
    Register(Option<(TxnId, u32)>),
    /// A list: the elements installed.
    List(Vec<Value>),
}

/// One violation of the claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub kind: Kind,
    /// The reader; the later writer; the later transaction of the session; a contradicted
    /// dependency's source.
    pub txn: TxnId,
    /// The writer it overlaps; the session's earlier transaction; the dependency's target.
    pub other: Option<TxnId>,
    pub key: Option<KeyId>,
    /// The read (EXT), or the dependency's source operation.
    pub op: Option<u32>,
    pub other_op: Option<u32>,
    pub expected: Expected,
    /// ClaimedOrder: the dependency's type, and whether the contradiction is with timestamps
    /// (start/commit) rather than only the order of commits.
    pub edge: Option<(crate::graph::EdgeType, bool)>,
}

impl Violation {
    pub(crate) fn new(kind: Kind, txn: TxnId) -> Violation {
        Violation {
            kind,
            txn,
            other: None,
            key: None,
            op: None,
            other_op: None,
            expected: Expected::Nothing,
            edge: None,
        }
    }

    /// The levels this violation breaks.
    pub fn levels(&self) -> Vec<crate::level::Level> {
        use crate::graph::EdgeType;
        use crate::level::Level;
        match (self.kind, self.edge) {
            (Kind::SnapshotRead | Kind::WriteConflict, _) => Level::Si.and_stronger(),
            (Kind::SessionOrder, _) => Level::StrongSessionSi.and_stronger(),
            (Kind::CommitOrderRead, _) => Level::Ser.and_stronger(),
            (Kind::ClaimedOrder, Some((EdgeType::Rw, false))) => Level::Ser.and_stronger(),
            (Kind::ClaimedOrder, _) => Level::Si.and_stronger(),
        }
    }
}

/// Keep at most this many violations' details; all are counted.
const KEEP: usize = super::MAX_FINDINGS * 4;

/// Violations found, the first [`KEEP`] kept, all counted by kind.
#[derive(Debug, Default)]
pub struct Found {
    pub list: Vec<Violation>,
    pub counts: std::collections::BTreeMap<Kind, usize>,
}

impl Found {
    pub fn push(&mut self, v: Violation) {
        *self.counts.entry(v.kind).or_default() += 1;
        if self.list.len() < KEEP {
            self.list.push(v);
        }
    }

    pub fn extend(&mut self, other: Found) {
        for (k, n) in other.counts {
            *self.counts.entry(k).or_default() += n;
        }
        for v in other.list {
            if self.list.len() < KEEP {
                self.list.push(v);
            }
        }
    }

    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }
}

/// One key's installed state, in one place (one cache line) for the sweep.
#[derive(Debug, Clone, Default)]
struct KeyState {
    /// Lists: the elements installed, in commit order.
    elems: Vec<Value>,
    /// Registers: the last installed version (writer, op); None is the initial value.
    reg: Option<(TxnId, u32)>,
    /// How many of `elems` equal the start of the key's canonical list.
    canon_match: u32,
    /// The key's last writer in the sweep (`u32::MAX`: none), and its commit timestamp (kept
    /// here: looking it up in the history is a cache miss per write).
    last_writer: TxnId,
    last_cts: Ts,
}

/// The installed state of every key.
struct State<'h> {
    h: &'h History,
    list: bool,
    /// Values read of keys that may be their initial version ([`crate::infer::maybe_initial_values`]).
    maybe_initial: crate::hash::Map<KeyId, Value>,
    keys: Vec<KeyState>,
    touched: Vec<KeyId>,
}

impl<'h> State<'h> {
    fn new(h: &'h History) -> State<'h> {
        let list = h.model != Model::RwRegister;
        let empty = KeyState { last_writer: TxnId::MAX, ..Default::default() };
        let maybe_initial = crate::infer::maybe_initial_values(h);
        State { h, list, maybe_initial, keys: vec![empty; h.keys.len()], touched: Vec::new() }
    }

    fn last_writer(&self, k: KeyId) -> Option<TxnId> {
        Some(self.keys[k as usize].last_writer).filter(|&w| w != TxnId::MAX)
    }

    /// The external reads of `t` that disagree with the state.
    fn check_reads(&mut self, t: TxnId, kind: Kind, out: &mut Found) {
        let h = self.h;
        let txn = &h.txns[t as usize];
        self.touched.clear();
        for o in txn.ops_start..txn.ops_end {
            let op = h.ops[o as usize];
            if self.touched.contains(&{ op.key }) {
                continue;
            }
            self.touched.push(op.key);
            if op.kind() != OpKind::Read {
                continue;
            }
            let ks = &self.keys[op.key as usize];
            let ok = if self.list {
                let installed = &ks.elems;
                let arg = op.arg();
                match arg {
                    Arg::Prefix(len) if ks.canon_match as usize == installed.len() => len as usize == installed.len(),
                    _ => h.list(&op) == &installed[..],
                }
            } else {
                match (op.arg(), ks.reg) {
                    (Arg::Nil, None) => true,
                    // Possibly the key's initial value: the dependency graph's verdict says so.
                    (Arg::Val(v), None) => self.maybe_initial.get(&{ op.key }) == Some(&v),
                    (Arg::Val(v), Some((_, w))) => ({ h.ops[w as usize].arg() }) == Arg::Val(v),
                    _ => false,
                }
            };
            if !ok {
                let expected = if out.list.len() >= KEEP {
                    Expected::Nothing
                } else if self.list {
                    Expected::List(ks.elems.clone())
                } else {
                    Expected::Register(ks.reg)
                };
                out.push(Violation { key: Some(op.key), op: Some(o), expected, ..Violation::new(kind, t) });
            }
        }
    }

    /// Install `t`'s writes (its last write of each register key; every append in order).
    fn install(&mut self, t: TxnId) {
        let h = self.h;
        let txn = &h.txns[t as usize];
        for o in txn.ops_start..txn.ops_end {
            let op = h.ops[o as usize];
            let Arg::Val(v) = op.arg() else { continue };
            let ks = &mut self.keys[op.key as usize];
            match op.kind() {
                OpKind::Read => continue,
                OpKind::Write if !self.list => ks.reg = Some((t, o)),
                _ if self.list => {
                    let n = ks.elems.len();
                    if ks.canon_match as usize == n && h.canon[op.key as usize].get(n).is_some_and(|c| *c == v) {
                        ks.canon_match += 1;
                    }
                    ks.elems.push(v);
                }
                _ => {}
            }
            ks.last_writer = t;
            ks.last_cts = txn.commit_ts().unwrap_or_default();
        }
    }
}

fn writes_any(h: &History, t: TxnId) -> bool {
    h.ops_of(t).iter().any(|o| o.kind() != OpKind::Read)
}

/// Chronos's SI axioms (EXT, NOCONFLICT, SESSION) over every subject transaction with both
/// timestamps (all of them, in full mode).
pub fn check_si(h: &History, claims: &Claims) -> Found {
    let mut starts: Vec<(Ts, TxnId)> = Vec::new();
    let mut commits: Vec<(Ts, TxnId)> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if let (true, Some(s), Some(c)) = (claims.subject[t], txn.start_ts(), txn.commit_ts()) {
            starts.push((s, t as TxnId));
            commits.push((c, t as TxnId));
        }
    }
    crate::par::sort::sort_unstable(&mut starts);
    crate::par::sort::sort_unstable(&mut commits);
    let mut state = State::new(h);
    let mut started = vec![false; h.txns.len()];
    let mut out = Found::default();
    let (mut i, mut j) = (0, 0);
    while j < commits.len() {
        // A commit at or before the next start goes first: cts <= sts is visible.
        if i < starts.len() && starts[i].0 < commits[j].0 {
            let t = starts[i].1;
            i += 1;
            if !std::mem::replace(&mut started[t as usize], true) {
                state.check_reads(t, Kind::SnapshotRead, &mut out);
            }
            continue;
        }
        let (cts, t) = commits[j];
        j += 1;
        // A transaction that starts at its own commit timestamp reads before it installs.
        if !std::mem::replace(&mut started[t as usize], true) {
            state.check_reads(t, Kind::SnapshotRead, &mut out);
        }
        if writes_any(h, t) {
            let sts = h.txns[t as usize].start_ts().unwrap_or(cts);
            state.touched.clear();
            for o in h.ops_of(t) {
                if o.kind() == OpKind::Read || state.touched.contains(&{ o.key }) {
                    continue;
                }
                state.touched.push(o.key);
                if let Some(w) = state.last_writer(o.key) {
                    if state.keys[o.key as usize].last_cts > sts {
                        out.push(Violation {
                            other: Some(w),
                            key: Some(o.key),
                            ..Violation::new(Kind::WriteConflict, t)
                        });
                    }
                }
            }
            state.install(t);
        }
    }
    // SESSION: each transaction against the one before it in its session.
    let is = |t: usize| claims.subject[t] && h.txns[t].start_ts().is_some() && h.txns[t].commit_ts().is_some();
    let mut check = |a: TxnId, b: TxnId| {
        if h.txns[a as usize].commit_ts() > h.txns[b as usize].start_ts() {
            out.push(Violation { other: Some(a), ..Violation::new(Kind::SessionOrder, b) });
        }
    };
    // A process runs one transaction at a time, so its committed transactions are usually
    // stored in session order: then one pass in storage order, else the sort.
    let mut last: crate::hash::Map<i64, TxnId> = Default::default();
    let mut pairs: Vec<(TxnId, TxnId)> = Vec::new();
    let in_order = (0..h.txns.len()).filter(|&t| is(t)).all(|t| {
        let Some(p) = h.txns[t].process() else { return true };
        match last.insert(p, t as TxnId) {
            Some(a)
                if crate::graph::orders::session_place(h, a) < crate::graph::orders::session_place(h, t as TxnId) =>
            {
                pairs.push((a, t as TxnId));
                true
            }
            Some(_) => false,
            None => true,
        }
    });
    if in_order {
        for (a, b) in pairs {
            check(a, b);
        }
    } else {
        let is: Vec<bool> = (0..h.txns.len()).map(is).collect();
        let order = crate::graph::orders::in_session_order(h, &is);
        for w in order.windows(2) {
            if w[0].0 == w[1].0 {
                check(w[0].1, w[1].1);
            }
        }
    }
    out
}

/// SER by commit order: each subject with a place in the order reads what the commits before
/// it installed.
pub fn check_ser(h: &History, claims: &Claims) -> Found {
    let mut commits: Vec<(Ts, TxnId)> = (0..h.txns.len())
        .filter(|&t| claims.subject[t])
        .filter_map(|t| claims.order[t].map(|o| (o, t as TxnId)))
        .collect();
    crate::par::sort::sort_unstable(&mut commits);
    let mut state = State::new(h);
    let mut out = Found::default();
    let mut g = 0;
    while g < commits.len() {
        let end = g + commits[g..].iter().take_while(|c| c.0 == commits[g].0).count();
        for &(_, t) in &commits[g..end] {
            state.check_reads(t, Kind::CommitOrderRead, &mut out);
        }
        for &(_, t) in &commits[g..end] {
            state.install(t);
        }
        g = end;
    }
    out
}

/// Transactions the claimed commit order lists that the client saw abort.
pub fn aborted_in_order(h: &History) -> Found {
    let mut out = Found::default();
    for &t in h.commit_order.iter().flatten() {
        if h.txns[t as usize].status == Status::Aborted {
            out.push(Violation::new(Kind::ClaimedOrder, t));
        }
    }
    out
}
