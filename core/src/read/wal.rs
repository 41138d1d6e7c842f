//! ArangoDB's write-ahead log (JSON lines) as the version order of a register history.
//!
//! Type 2200 begins a transaction, 2300 writes a document (`data._key`, `data.rwAttr`), 2201
//! commits; other types are skipped. A write counts once its transaction's commit record has
//! come, or at once when no begin record of its transaction came before it (hand-made logs):
//! a write of a transaction that began and never committed is dropped. Writes are matched to
//! the history by (key, value), since the log's `tid` is the database's own id.
//!
//! One reader for a whole log and for a live register stream's, which arrives as the database
//! writes it ([`LogStream`]): each round reads the version order from the lines arrived so far.
//! A write whose transaction has not committed yet, or whose record has not arrived, is left
//! unordered by the round, as a write the log lacks is offline: fewer edges, no false ones, as
//! long as each value is logged once per key (the rounds' assumption, `online::cycles::kept`):
//! a later copy of a value whose first copy is held uncommitted, or was let go with a
//! round's writes, is skipped, but one logged after its first copy was let go is not known
//! to be a copy.

use crate::error::{Error, ErrorKind};
use crate::hash::{Map, Set};
use crate::history::{History, KeyId, Value, VersionOrder};
use serde_json::Value as Json;

/// Read a WAL and attach it to `h` as its version order.
pub fn read_wal(h: &mut History, text: &[u8]) -> Result<(), Error> {
    available()?;
    let mut log = LogStream::default();
    log.push(text)?;
    log.end()?;
    h.version_order = Some(log.order_for(h));
    Ok(())
}

/// Whether this build reads logs: the web demo's leaves the reader out (feature `compact-log`).
pub(crate) fn available() -> Result<(), Error> {
    if cfg!(feature = "compact-log") {
        return Err(Error::new(ErrorKind::Wal, "this build of grail reads no write-ahead log (the web demo's)"));
    }
    Ok(())
}

/// The (key, value) pairs `h`'s transactions write.
pub(crate) fn written(h: &History) -> Set<(KeyId, Value)> {
    written_by(&h.ops)
}

/// The (key, value) pairs these operations write.
pub(crate) fn written_by<'a>(ops: impl IntoIterator<Item = &'a crate::history::Op>) -> Set<(KeyId, Value)> {
    let value = |o: &crate::history::Op| match o.arg() {
        crate::history::Arg::Val(v) if o.kind() == crate::history::OpKind::Write => Some((o.key, v)),
        _ => None,
    };
    ops.into_iter().filter_map(value).collect()
}

/// A log record that bears on the version order.
enum Record {
    Begin(String),
    Commit(String),
    Write { tid: Option<String>, key: String, value: LogValue },
}

/// A value written, as the log gives it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum LogValue {
    Int(i64),
    Str(String),
}

impl LogValue {
    /// The history's value, when the history has it (a string nobody wrote is not interned).
    fn in_history(&self, h: &History) -> Option<Value> {
        match self {
            LogValue::Int(i) => Some(Value::Int(*i)),
            LogValue::Str(s) => h.strings.lookup(s).map(Value::Str),
        }
    }
}

/// One line of the log: `None` for a blank line or a record of another type.
fn parse(line: &[u8], line_no: u32) -> Result<Option<Record>, Error> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let rec: Json = serde_json::from_slice(line).map_err(|e| {
        Error::at(
            ErrorKind::Wal,
            line_no,
            super::serde_place(line, &e).1,
            format!("expected a JSON object a line: {e}"),
        )
    })?;
    let tid = rec.get("tid").and_then(|t| match t {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    });
    Ok(match rec.get("type").and_then(Json::as_i64) {
        Some(2200) => tid.map(Record::Begin),
        Some(2201) => tid.map(Record::Commit),
        Some(2300) => {
            let data = rec.get("data").ok_or_else(|| {
                Error::at(ErrorKind::Wal, line_no, 1, "expected \"data\" in a 2300 (document write) record")
            })?;
            let key = match data.get("_key") {
                Some(Json::String(s)) => s.clone(),
                Some(Json::Number(n)) => n.to_string(),
                _ => return Err(Error::at(ErrorKind::Wal, line_no, 1, "expected data._key in a 2300 record")),
            };
            let value = match data.get("rwAttr") {
                Some(Json::Number(n)) if n.is_i64() => LogValue::Int(n.as_i64().unwrap_or_default()),
                Some(Json::String(s)) => LogValue::Str(s.clone()),
                _ => {
                    let what = "expected data.rwAttr (the value written) in a 2300 record";
                    return Err(Error::at(ErrorKind::Wal, line_no, 1, what));
                }
            };
            Some(Record::Write { tid, key, value })
        }
        Some(_) => None,
        None => return Err(Error::at(ErrorKind::Wal, line_no, 1, "expected a numeric \"type\" in each log record")),
    })
}

/// A write-ahead log taken as it is written (a live register stream's): its complete lines read
/// as they arrive; each round asks for the version order of the kept transactions
/// ([`LogStream::order_for`]). Writes whose transactions left the window are let go
/// ([`LogStream::forget_gone`]); what stays besides the window's writes: the ids of the database's
/// transactions that began and never committed (an aborted transaction's), tens of bytes each.
#[derive(Debug, Default)]
pub struct LogStream {
    /// The last line, until its line break arrives.
    rest: Vec<u8>,
    /// Lines read.
    lines: u64,
    /// Records that changed the order a round reads: a write counted, a commit of writes.
    changes: u64,
    /// The first bad line: every later push is refused with it (the lines after it unread).
    failed: Option<Error>,
    /// The log ended: a write not committed by now never is.
    ended: bool,
    /// The writes, in the log's order, from the `first`-th on.
    writes: std::collections::VecDeque<LogWrite>,
    first: u64,
    /// The database's transactions begun and not committed: their writes' numbers.
    open: Map<String, Vec<u64>>,
}

#[derive(Debug)]
struct LogWrite {
    key: String,
    value: LogValue,
    /// Its transaction committed, or never began in the log.
    committed: bool,
    /// A round found its write among the kept transactions.
    seen: bool,
    /// A copy of a value of its key whose first copy was let go: not a version.
    copy: bool,
}

impl LogStream {
    /// Take more of the log: every line it completes. A bad record is refused with its line in
    /// the whole log; the lines before it in `more` are taken.
    pub fn push(&mut self, more: &[u8]) -> Result<(), Error> {
        self.failed.clone().map_or(Ok(()), Err)?;
        let Some(last_break) = more.iter().rposition(|&b| b == b'\n') else {
            self.rest.extend_from_slice(more);
            return Ok(());
        };
        let mut text = std::mem::take(&mut self.rest);
        text.extend_from_slice(&more[..last_break]);
        self.rest = more[last_break + 1..].to_vec();
        text.split(|&b| b == b'\n').try_for_each(|line| self.take(line).inspect_err(|e| self.failed = Some(e.clone())))
    }

    /// The log ended: its last line, when it has no line break. A bad last line is refused
    /// once and left out (a caller may go on without it: a record fewer orders less).
    pub fn end(&mut self) -> Result<(), Error> {
        self.failed.clone().map_or(Ok(()), Err)?;
        self.ended = true;
        let rest = std::mem::take(&mut self.rest);
        if rest.is_empty() {
            return Ok(());
        }
        self.take(&rest)
    }

    fn take(&mut self, line: &[u8]) -> Result<(), Error> {
        self.lines += 1;
        let at = u32::try_from(self.lines).unwrap_or(u32::MAX);
        match parse(line, at)? {
            None => {}
            Some(Record::Begin(t)) => {
                self.open.entry(t).or_default();
            }
            Some(Record::Commit(t)) => {
                for n in self.open.remove(&t).unwrap_or_default() {
                    if let Some(w) = n.checked_sub(self.first).and_then(|i| self.writes.get_mut(i as usize)) {
                        w.committed = true;
                        self.changes += 1;
                    }
                }
            }
            Some(Record::Write { tid, key, value }) => {
                let n = self.first + self.writes.len() as u64;
                let open = tid.and_then(|t| self.open.get_mut(&t));
                let committed = open.is_none();
                if let Some(ws) = open {
                    ws.push(n);
                }
                self.changes += committed as u64;
                self.writes.push_back(LogWrite { key, value, committed, seen: false, copy: false });
            }
        }
        Ok(())
    }

    /// The version order the log gives `h` so far: its committed writes of `h`'s keys and
    /// values, in the log's order.
    pub fn order_for(&self, h: &History) -> VersionOrder {
        let keys = super::key_index(h);
        let mut order = VersionOrder { per_key: Map::default() };
        // Values whose first copy may still commit: were it to, that copy would be the version
        // (`with_order` takes a value's first listing), not a later one.
        let mut waiting: Set<(KeyId, Value)> = Set::default();
        for w in self.writes.iter().filter(|w| !w.copy) {
            let Some(&key) = keys.get(&w.key) else { continue };
            let Some(value) = w.value.in_history(h) else { continue };
            if !w.committed {
                if !self.ended {
                    waiting.insert((key, value));
                }
            } else if !waiting.contains(&(key, value)) {
                order.per_key.entry(key).or_default().push(value);
            }
        }
        order
    }

    /// A round over `h`, the kept transactions now: let go of every write up to the last one
    /// an earlier round found kept that `h` no longer writes (its transaction left the window;
    /// a write logged before it that is not kept is let go too, so a transaction that completes
    /// more than a window after its write was logged finds it gone: left unordered, as a write
    /// the log lacks), then mark those `h` writes as found. A held copy of a value let go is no
    /// version.
    pub fn forget_gone(&mut self, h: &History) {
        let (keys, written) = (super::key_index(h), written(h));
        let kept = |w: &LogWrite| {
            keys.get(&w.key).is_some_and(|&k| w.value.in_history(h).is_some_and(|v| written.contains(&(k, v))))
        };
        if let Some(gone) = self.writes.iter().rposition(|w| w.seen && !kept(w)) {
            let let_go: Set<(&str, &LogValue)> =
                self.writes.range(..=gone).map(|w| (w.key.as_str(), &w.value)).collect();
            let copies: Vec<usize> = (gone + 1..self.writes.len())
                .filter(|&i| let_go.contains(&(self.writes[i].key.as_str(), &self.writes[i].value)))
                .collect();
            for i in copies {
                self.writes[i].copy = true;
            }
            self.writes.drain(..=gone);
            self.first += gone as u64 + 1;
            let first = self.first;
            for ws in self.open.values_mut() {
                ws.retain(|&n| n >= first);
            }
        }
        for w in self.writes.iter_mut() {
            w.seen |= kept(w);
        }
    }

    /// Records read that changed the order a round reads (a write counted, a commit of writes).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Writes held.
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}
