//! The arriving transaction: [`OnlineTxn`], built from what the offline readers produce.
//!
//! Takes a transaction of a parsed [`History`] ([`OnlineTxn::from_history`]), or the text of a
//! record ([`OnlineTxn::read`]: grail's native JSON, an elle-cli JSON operation or a Jepsen EDN
//! operation, read by the same readers as whole histories, so that a record is accepted or
//! refused, with the same message, line and column, exactly as when it is read offline). Gives
//! an owned transaction of appends and list reads: its keys and values are [`Atom`]s, owned
//! rather than interned, since the window outlives the interner of any one record and keys
//! leave memory with the transactions that used them.

use crate::error::{Error, ErrorKind};
pub use crate::history::Atom;
use crate::history::{Arg, History, OpKind, Status, Ts, TxnId};
use crate::read::timekiller::{looks_like_timekiller, read_timekiller_with, TimeKillerOptions};
use crate::read::{detect, read_edn_from, read_json_from, Format};

/// A micro-operation: of a list-append transaction, or of a register one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnlineOp {
    Append {
        key: Atom,
        value: Atom,
    },
    /// `None`: a read of nothing (`nil`): the empty list, or a register's initial value.
    Read {
        key: Atom,
        list: Option<Vec<Atom>>,
    },
    /// A register write: register streams are checked in rounds by the offline engine
    /// (`kept`), not by the cycle search.
    Write {
        key: Atom,
        value: Atom,
    },
    /// A register read of a value.
    ReadValue {
        key: Atom,
        value: Atom,
    },
}

/// A transaction as the online checker takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineTxn {
    pub id: u64,
    pub label: Option<String>,
    pub status: Status,
    pub ops: Vec<OnlineOp>,
    /// The start and commit timestamps it claims: an order the cycle search does not check
    /// (`online::timestamps` and the offline white-box check do, and so do a register
    /// stream's rounds, which are the offline check).
    pub ts: (Option<Ts>, Option<Ts>),
    /// Its process (Jepsen's `:process`, a session): the session order at the stream's end.
    pub process: Option<i64>,
    /// Its recorded invocation and completion times (`:time`, native `start`/`end`): the
    /// real-time order at the stream's end.
    pub times: (Option<i64>, Option<i64>),
}

impl OnlineTxn {
    /// It claims a start or a commit timestamp.
    pub fn timed(&self) -> bool {
        self.ts.0.is_some() || self.ts.1.is_some()
    }

    /// A transaction of a parsed history (list-append or registers).
    pub fn from_history(h: &History, t: TxnId) -> OnlineTxn {
        let txn = &h.txns[t as usize];
        let ops = h
            .ops_of(t)
            .iter()
            .filter_map(|op| {
                let key = Atom::of(h, h.key(op.key));
                match (op.kind(), op.arg()) {
                    (OpKind::Read, Arg::Nil) => Some(OnlineOp::Read { key, list: None }),
                    (OpKind::Read, Arg::Prefix(_) | Arg::List { .. }) => {
                        Some(OnlineOp::Read { key, list: Some(h.list(op).iter().map(|&v| Atom::of(h, v)).collect()) })
                    }
                    (OpKind::Append, Arg::Val(v)) => Some(OnlineOp::Append { key, value: Atom::of(h, v) }),
                    (OpKind::Write, Arg::Val(v)) => Some(OnlineOp::Write { key, value: Atom::of(h, v) }),
                    (OpKind::Read, Arg::Val(v)) => Some(OnlineOp::ReadValue { key, value: Atom::of(h, v) }),
                    _ => None,
                }
            })
            .collect();

        OnlineTxn {
            id: txn.id,
            label: h.label(t).map(String::from),
            status: txn.status,
            ops,
            ts: (txn.start_ts(), txn.commit_ts()),
            process: txn.process(),
            times: (txn.invoke_time(), txn.complete_time()),
        }
    }

    /// The transactions of one record of a stream, read by the offline reader of its format
    /// (JSON or EDN; [`Format::Auto`] tells them apart as [`crate::read`] does): usually one,
    /// as `{"id": 3, "label": "pay", "status": "committed", "ops": [["append", "x", 1], ["r",
    /// "x", [1]]]}` or `{:type :ok, :value [[:append :x 1]]}`. A transaction without an id
    /// takes `first` (plus its position among the record's operations): its place in the
    /// stream, as when the stream is read whole. An invocation without its completion in the
    /// record gives nothing (its completion, arriving later, carries the transaction), and nor
    /// does an operation the offline reader skips (the nemesis).
    ///
    /// Errors: the offline reader's (syntax, shape, mixed model; same message, line and
    /// column). A stream that mixes models across records is refused by the checker
    /// ([`super::OnlineChecker::try_push`]).
    pub fn read(text: &[u8], format: Format, first: u64) -> Result<Vec<OnlineTxn>, Error> {
        OnlineTxn::read_with(text, format, first, &mut crate::hash::Map::default())
    }

    /// As [`OnlineTxn::read`], keeping each process's invocation still waiting for its
    /// completion in `pending` (as indeterminate transactions: if the stream ends before its
    /// completion, it is one, as offline), and dropping it when its completion arrives.
    pub fn read_with(
        text: &[u8],
        format: Format,
        first: u64,
        pending: &mut crate::hash::Map<i64, OnlineTxn>,
    ) -> Result<Vec<OnlineTxn>, Error> {
        let h = read_record(text, format, first)?;
        let mut out = Vec::with_capacity(h.txns.len());
        for (t, txn) in h.txns.iter().enumerate() {
            if txn.awaits_completion() {
                // An invocation whose completion is still to come.
                if let Some(p) = txn.process() {
                    let mut o = OnlineTxn::from_history(&h, t as TxnId);
                    o.status = Status::Indeterminate;
                    // An invocation its process left unfinished to invoke again: indeterminate,
                    // and first in the session, as offline (session order follows invocations).
                    if let Some(unfinished) = pending.insert(p, o) {
                        out.push(unfinished);
                    }
                }
                continue;
            }
            let mut o = OnlineTxn::from_history(&h, t as TxnId);
            if let Some(p) = txn.process() {
                // Its invocation came in an earlier record: its time is the invocation's.
                if let Some(inv) = pending.remove(&p) {
                    if o.times.0.is_none() {
                        o.times.0 = inv.times.0;
                    }
                }
            }
            out.push(o);
        }
        Ok(out)
    }
}

/// The transactions of a history in the order a stream of its records delivers them: by
/// completion, but for an invocation its process left unfinished to invoke again, which
/// arrives (as an indeterminate transaction) with that next invocation ([`OnlineTxn::read_with`]),
/// and one never followed, at the end. A history read whole stores never-completed
/// transactions after the completed ones: streamed in that order, an unfinished first
/// transaction of a process came after its successors, and its session order was reversed
/// (`T2 -so-> T0` for a T0 invoked first). Without positions (native JSON): the stored order.
pub fn stream_order(h: &History) -> Vec<TxnId> {
    let mut invocations: crate::hash::Map<i64, Vec<u64>> = crate::hash::Map::default();
    for t in &h.txns {
        if let (Some(p), Some(i)) = (t.process(), t.first_pos()) {
            invocations.entry(p).or_default().push(i);
        }
    }
    for v in invocations.values_mut() {
        crate::par::sort::sort_unstable(v);
    }
    let place = |t: TxnId| {
        let x = &h.txns[t as usize];
        if !x.awaits_completion() {
            return (x.complete_pos().unwrap_or(u64::MAX), 1, t);
        }
        let next = match (x.process().and_then(|p| invocations.get(&p)), x.invoke_pos()) {
            (Some(v), Some(i)) => v.get(v.partition_point(|&p| p <= i)).copied(),
            _ => None,
        };
        (next.unwrap_or(u64::MAX), 0, t)
    };
    let mut order: Vec<TxnId> = (0..h.txns.len() as TxnId).collect();
    crate::par::sort::sort_by_key(&mut order, |&t| place(t));
    order
}

/// One record of a stream as the offline readers read it: JSON or EDN (`Auto`: as `grail check`
/// detects it), the transactions without an id numbered from `first`.
pub(in crate::online) fn read_record(text: &[u8], format: Format, first: u64) -> Result<History, Error> {
    let format = match format {
        Format::Auto if detect(text) == Format::Json => Format::Json,
        Format::Auto => Format::Edn,
        f => f,
    };
    let h = match format {
        Format::Json if timekiller_lines(text) => read_timekiller_lines(text),
        Format::TimeKiller => read_timekiller_lines(text),
        Format::Json => read_json_from(text, first),
        Format::Edn => read_edn_from(text, first),
        f => Err(Error::new(
            ErrorKind::Usage,
            format!("online checking reads JSON or EDN records, not {}", format_name(f)),
        )),
    };
    // A `{:commit-order [...]}` record names transactions of earlier records, which a record
    // read alone does not hold: its error is the claim it is, not the ids it lacks. Looked for
    // only when the read failed, off the path every record takes.
    let h = h.map_err(|e| match format {
        Format::Edn => {
            commit_order_line(text).map_or(e, |at| crate::online::claimed_order_error("commit order", text, at))
        }
        _ => e,
    })?;
    crate::online::refuse_claimed_orders(&h, Some(text))?;
    Ok(h)
}

/// Where a line of `text` opens with `{:commit-order`.
fn commit_order_line(text: &[u8]) -> Option<usize> {
    let mut start = 0;
    for line in text.split(|&b| b == b'\n') {
        let at = start + line.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if text[at..].starts_with(b"{:commit-order") {
            return Some(at);
        }
        start += line.len() + 1;
    }
    None
}

/// TimeKiller's transactions one a line (`{"tid": 1, "sid": 1, "sts": .., "cts": .., "ops":
/// [..]}`): TimeKiller's own loader reads them as the elements of its one JSON array.
pub(in crate::online) fn timekiller_lines(text: &[u8]) -> bool {
    let line = text.split(|&b| b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)).unwrap_or(&[]);
    line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') && looks_like_timekiller(&[b"[", line].concat())
}

/// Lines of TimeKiller transactions, read by the TimeKiller reader as the array they are the
/// elements of: `[` before the first, a comma after each but the last (blank lines kept, so
/// that every line and column but the first line's is the text's own; that one is one less).
///
/// TimeKiller numbers transactions and sessions whose ids are not integers by their place in the
/// whole array, which a stream cut into records cannot know: such ids are refused here, with the
/// way out (the array read whole).
fn read_timekiller_lines(text: &[u8]) -> Result<History, Error> {
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let last = lines.iter().rposition(|l| !l.iter().all(u8::is_ascii_whitespace)).unwrap_or(0);
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace)) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(l) else { continue }; // the reader says where
        let integer = |k: &str| match &v[k] {
            serde_json::Value::Number(n) => n.is_i64() || n.is_u64(),
            serde_json::Value::String(s) => s.parse::<i64>().is_ok(),
            _ => false,
        };
        if !integer("tid") || !integer("sid") {
            return Err(Error::at(
                ErrorKind::Shape,
                i as u32 + 1,
                1,
                "a TimeKiller transaction in a stream needs integer \"tid\" and \"sid\": TimeKiller numbers the others by their place in its whole array (check the array whole: grail online FILE)",
            ));
        }
    }
    let mut array = Vec::with_capacity(text.len() + lines.len() + 2);
    array.push(b'[');
    for (i, l) in lines.iter().enumerate().take(last + 1) {
        array.extend_from_slice(l);
        if i < last {
            if !l.iter().all(u8::is_ascii_whitespace) {
                array.push(b',');
            }
            array.push(b'\n');
        }
    }
    array.push(b']');
    read_timekiller_with(&array, TimeKillerOptions::default()).map_err(|mut e| {
        if e.line == Some(1) {
            e.column = e.column.map(|c| c.saturating_sub(1).max(1));
        }
        // serde_json's own "at line L column C" is of the array: the error's place is the text's.
        if let Some(i) = e.message.rfind(" at line ") {
            if e.message[i + 9..].split(" column ").all(|n| n.parse::<u64>().is_ok()) {
                e.message.truncate(i);
            }
        }
        e
    })
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Plume => "PolySI/Plume text",
        Format::Dbcop | Format::DbcopBin => "dbcop histories",
        Format::Cobra => "Cobra logs",
        Format::TimeKiller => "TimeKiller histories",
        Format::Auto | Format::Edn | Format::Json => "this format",
    }
}
