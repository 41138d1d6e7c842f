//! What sessions did, statement by statement, into a [`History`]. Each session runs one
//! transaction at a time; a transaction is numbered when it begins (the setup is `T0`, then 1,
//! 2, ... in the order transactions began, as Hermitage names them), and its invocation and
//! completion take places in one sequence of events, so real-time order is the order in which
//! the runner saw them happen.

use super::{sql, Cell, Outcome, Row, Statement, Workload};
use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, OpKind, Status, Value};

/// One operation as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Write(i64, i64),
    Append(i64, i64),
    /// A register read: the value, or `None` for no row.
    Read(i64, Option<i64>),
    ReadList(i64, Vec<i64>),
    /// A predicate read of a register table and the rows it returned.
    Predicate {
        pred: Pred,
        rows: Vec<(i64, i64)>,
    },
}

/// The predicates statements read by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pred {
    /// `value % m = 0`
    Multiple(i64),
    /// `value = v` (a `delete ... where`)
    Equals(i64),
}

impl Pred {
    fn matches(self, v: i64) -> bool {
        match self {
            Pred::Multiple(m) => v.checked_rem(m) == Some(0),
            Pred::Equals(x) => v == x,
        }
    }

    fn text(self) -> String {
        match self {
            Pred::Multiple(m) => format!("value % {m} = 0"),
            Pred::Equals(x) => format!("value = {x}"),
        }
    }
}

#[derive(Debug, Clone)]
struct Txn {
    id: u64,
    session: Option<usize>,
    invoke: (i64, u64),
    complete: Option<(i64, u64)>,
    status: Status,
    ops: Vec<Op>,
    /// What it did that the history cannot hold.
    unsupported: Vec<String>,
}

/// Builds a history from what each session's statements returned.
#[derive(Debug)]
pub struct Recorder {
    workload: Workload,
    txns: Vec<Txn>,
    /// Per session, its open transaction's index in `txns`.
    open: Vec<Option<usize>>,
    events: u64,
}

impl Recorder {
    /// Sessions a recorder takes (connections of one run).
    pub const MAX_SESSIONS: usize = 1 << 16;

    pub fn new(workload: Workload) -> Recorder {
        Recorder { workload, txns: Vec::new(), open: Vec::new(), events: 0 }
    }

    fn event(&mut self) -> u64 {
        self.events += 1;
        self.events - 1
    }

    /// The table's first rows, as a transaction `T0` that committed before anything else
    /// (at time `at`, in nanoseconds).
    pub fn setup(&mut self, rows: &[(i64, i64)], at: i64) {
        let ops = rows
            .iter()
            .map(|&(k, v)| match self.workload {
                Workload::RwRegister => Op::Write(k, v),
                Workload::ListAppend => Op::Append(k, v),
            })
            .collect();
        let (invoke, complete) = ((at, self.event()), (at, self.event()));
        let id = self.txns.len() as u64;
        self.txns.push(Txn {
            id,
            session: None,
            invoke,
            complete: Some(complete),
            status: Status::Committed,
            ops,
            unsupported: Vec::new(),
        });
    }

    /// Session `session` begins a transaction at `at`; returns its id. Sessions are numbered
    /// from 0, below [`Recorder::MAX_SESSIONS`].
    pub fn begin(&mut self, session: usize, at: i64) -> Result<u64, Error> {
        if session >= Self::MAX_SESSIONS {
            return Err(Error::new(
                ErrorKind::Usage,
                format!("session {session}: expected a session below {}", Self::MAX_SESSIONS),
            ));
        }
        if self.open.len() <= session {
            self.open.resize(session + 1, None);
        }
        let invoke = (at, self.event());
        let id = self.txns.len() as u64;
        self.open[session] = Some(self.txns.len());
        self.txns.push(Txn {
            id,
            session: Some(session),
            invoke,
            complete: None,
            status: Status::Indeterminate,
            ops: Vec::new(),
            unsupported: Vec::new(),
        });
        Ok(id)
    }

    /// The open transaction of `session`, if any.
    pub fn open_txn(&self, session: usize) -> Option<u64> {
        self.open.get(session).copied().flatten().map(|i| self.txns[i].id)
    }

    /// What `stmt` did in `session`'s open transaction. A failed statement did nothing; a
    /// write whose outcome is unknown is kept (its transaction will be indeterminate), a read's
    /// is not. Fails on a row that does not fit the workload, naming the transaction.
    pub fn record(&mut self, session: usize, stmt: &Statement, outcome: &Outcome) -> Result<(), Error> {
        let Some(i) = self.open.get(session).copied().flatten() else {
            return Err(Error::new(ErrorKind::Usage, format!("session {session} has no open transaction")));
        };
        let workload = self.workload;
        let id = self.txns[i].id;
        let bad = |e: Error| Error { txn: Some(id), ..e };
        let ops = &mut self.txns[i].ops;
        let (rows, changed) = match outcome {
            Outcome::Done { rows, changed } => (rows.as_slice(), *changed),
            Outcome::Failed { .. } => return Ok(()),
            Outcome::Unknown { .. } => (&[][..], 1),
        };
        let done = matches!(outcome, Outcome::Done { .. });
        match stmt {
            Statement::Read { keys } if done => {
                for &k in keys {
                    let row = rows.iter().find(|r| r.0 == k);
                    ops.push(read_op(workload, k, row.map(|r| &r.1)).map_err(bad)?);
                }
            }
            Statement::Scan if done => {
                for (k, v) in rows {
                    ops.push(read_op(workload, *k, Some(v)).map_err(bad)?);
                }
            }
            Statement::Predicate { modulus } if done => {
                let mut found = Vec::with_capacity(rows.len());
                for (k, v) in rows {
                    match read_op(workload, *k, Some(v)).map_err(bad)? {
                        Op::Read(k, Some(v)) => found.push((k, v)),
                        _ => return Err(bad(Error::new(ErrorKind::Shape, "predicate reads need a register table"))),
                    }
                }
                ops.push(Op::Predicate { pred: Pred::Multiple(*modulus), rows: found });
            }
            // A delete that deleted nothing read that no row matched; one that deleted rows
            // wrote what grail's registers cannot say (an absent row), so it is not decided.
            Statement::DeleteWhere { value } if done && changed == 0 => {
                ops.push(Op::Predicate { pred: Pred::Equals(*value), rows: Vec::new() })
            }
            Statement::DeleteWhere { value } => {
                let t = &mut self.txns[i];
                t.unsupported.push(format!("T{id} deleted rows with value {value}: grail's registers have no deletes"));
            }
            // An update of no row wrote nothing.
            Statement::Update { key, value } if changed > 0 => ops.push(Op::Write(*key, *value)),
            Statement::Insert { key, value } | Statement::Upsert { key, value } => ops.push(match workload {
                Workload::RwRegister => Op::Write(*key, *value),
                Workload::ListAppend => Op::Append(*key, *value),
            }),
            Statement::Append { key, value } => ops.push(Op::Append(*key, *value)),
            _ => {}
        }
        Ok(())
    }

    /// `session`'s open transaction ends at `at` with `status`.
    pub fn end(&mut self, session: usize, status: Status, at: i64) {
        if let Some(i) = self.open.get_mut(session).and_then(Option::take) {
            // An indeterminate transaction has no completion: it may take effect any time later
            // (`graph::orders`), so it orders nothing after it in real time.
            let complete = (status != Status::Indeterminate).then(|| (at, self.event()));
            let t = &mut self.txns[i];
            t.complete = complete;
            t.status = status;
        }
    }

    /// Every version of each key: the setup's and every write's (aborted ones too: a read may
    /// have seen one), and whether the key was in the setup.
    fn versions(&self) -> std::collections::BTreeMap<i64, (bool, Vec<i64>)> {
        let mut out: std::collections::BTreeMap<i64, (bool, Vec<i64>)> = Default::default();
        for (i, t) in self.txns.iter().enumerate() {
            for op in &t.ops {
                if let Op::Write(k, v) | Op::Append(k, v) = op {
                    let e = out.entry(*k).or_default();
                    e.0 |= i == 0 && t.session.is_none();
                    e.1.push(*v);
                }
            }
        }
        out
    }

    /// The item reads a predicate read implies: each row it returned, and each key it did not
    /// return whose version it saw is the only candidate: the one version of the key that does
    /// not match the predicate (for a key the setup did not create, no row counts as one).
    /// The setup's rows are the initial state: a reader cannot have seen a key before its
    /// setup row. Also the keys whose version is not decided (several candidates).
    fn implied_reads(
        &self,
        versions: &std::collections::BTreeMap<i64, (bool, Vec<i64>)>,
        pred: Pred,
        rows: &[(i64, i64)],
    ) -> (Vec<(i64, Option<i64>)>, Vec<i64>) {
        let mut reads: Vec<(i64, Option<i64>)> = rows.iter().map(|&(k, v)| (k, Some(v))).collect();
        let mut undecided = Vec::new();
        for (&k, (in_setup, vs)) in versions {
            if rows.iter().any(|r| r.0 == k) {
                continue;
            }
            let mut candidates: Vec<Option<i64>> = vs.iter().filter(|&&v| !pred.matches(v)).map(|&v| Some(v)).collect();
            if !in_setup {
                candidates.push(None);
            }
            candidates.dedup();
            match candidates.as_slice() {
                [one] => reads.push((k, *one)),
                _ => undecided.push(k),
            }
        }
        (reads, undecided)
    }

    /// Predicate reads whose version of some key is not decided, as sentences: checks that
    /// need those versions are not complete.
    pub fn undecided(&self) -> Vec<String> {
        let versions = self.versions();
        let mut out = Vec::new();
        for t in &self.txns {
            for op in &t.ops {
                if let Op::Predicate { pred, rows } = op {
                    let keys = self.implied_reads(&versions, *pred, rows).1;
                    if !keys.is_empty() {
                        let keys: Vec<String> = keys.iter().map(i64::to_string).collect();
                        out.push(format!(
                            "T{}'s read of {} did not return key(s) {}, each with several versions that do not match: which one it saw is not known",
                            t.id,
                            pred.text(),
                            keys.join(", ")
                        ));
                    }
                }
            }
        }
        out
    }

    /// What transactions did that the history cannot hold (deletes of rows): a history with
    /// any is not a faithful record, and implied reads may be wrong.
    pub fn unsupported(&self) -> Vec<String> {
        self.txns.iter().flat_map(|t| t.unsupported.iter().cloned()).collect()
    }

    /// Transactions recorded so far (the setup's among them).
    pub fn len(&self) -> usize {
        self.txns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.txns.is_empty()
    }

    /// The history: every transaction, in the order they began; one still open is
    /// indeterminate, with no completion. A predicate read is kept as such (LDBC's PMP compares
    /// two of them) and as the item reads it implies ([`Recorder::implied_reads`]).
    pub fn history(&self) -> Result<History, Error> {
        let versions = self.versions();
        let mut b = HistoryBuilder::new();
        let place = Place::default();
        let mut elems = Vec::new();
        for t in &self.txns {
            let mut predicates = Vec::new();
            for op in &t.ops {
                match op {
                    Op::Write(k, v) | Op::Append(k, v) => {
                        let kind = if matches!(op, Op::Write(..)) { OpKind::Write } else { OpKind::Append };
                        let key = b.key(Value::Int(*k));
                        b.push_write(kind, key, Value::Int(*v), place);
                    }
                    Op::Read(k, v) => {
                        let key = b.key(Value::Int(*k));
                        match v {
                            Some(v) => b.push_read_scalar(key, Value::Int(*v), place),
                            None => b.push_read_nil(key),
                        }
                    }
                    Op::ReadList(k, list) => {
                        let key = b.key(Value::Int(*k));
                        elems.clear();
                        elems.extend(list.iter().map(|&e| Value::Int(e)));
                        b.push_read_list(key, &elems, place);
                    }
                    Op::Predicate { pred, rows } => {
                        for (k, v) in self.implied_reads(&versions, *pred, rows).0 {
                            let key = b.key(Value::Int(k));
                            match v {
                                Some(v) => b.push_read_scalar(key, Value::Int(v), place),
                                None => b.push_read_nil(key),
                            }
                        }
                        predicates
                            .push((pred.text(), rows.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>()));
                    }
                }
            }
            for (p, m) in predicates {
                let matches = m.iter().map(|s| b.str_value(s)).collect();
                b.push_predicate_read(&p, matches);
            }
            let meta = TxnMeta {
                id: Some(t.id),
                process: t.session.map(|s| s as i64),
                invoke_time: Some(t.invoke.0),
                complete_time: t.complete.map(|c| c.0),
                invoke_pos: Some(t.invoke.1),
                complete_pos: t.complete.map(|c| c.1),
                ..TxnMeta::default()
            };
            b.finish_txn(t.status, meta);
        }
        b.finish()
    }
}

/// A read of key `k` that found `row` (or no row).
fn read_op(workload: Workload, k: i64, row: Option<&Cell>) -> Result<Op, Error> {
    let shape = |what: &str, c: &Cell| {
        Error::new(ErrorKind::Shape, format!("key {k}: expected {what} in column value, found {c:?}"))
    };
    Ok(match (workload, row) {
        (Workload::RwRegister, None | Some(Cell::Null)) => Op::Read(k, None),
        (Workload::RwRegister, Some(Cell::Int(v))) => Op::Read(k, Some(*v)),
        (Workload::RwRegister, Some(Cell::Text(s))) => {
            Op::Read(k, Some(s.trim().parse().map_err(|_| shape("an integer", &Cell::Text(s.clone())))?))
        }
        (Workload::ListAppend, None | Some(Cell::Null)) => Op::ReadList(k, Vec::new()),
        (Workload::ListAppend, Some(Cell::Text(s))) => Op::ReadList(k, sql::parse_list(s)?),
        (Workload::ListAppend, Some(c @ Cell::Int(_))) => return Err(shape("a list of integers as text", c)),
    })
}

/// Rows for tests: `(key, int)`.
pub fn int_rows(rows: &[(i64, i64)]) -> Vec<Row> {
    rows.iter().map(|&(k, v)| (k, Cell::Int(v))).collect()
}
