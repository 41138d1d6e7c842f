//! dbcop's binary histories, `history.bincode`: the format of PolySI's published histories and of
//! AWDIT's dbcop output. dbcop's runner serializes its `History` (`src/db/history.rs` in
//! amnore/dbcop at 02e4af3, PolySI's fork, and in lassemoldrup/dbcop at 04e1d9e, AWDIT's) with
//! bincode 1.3: integers little-endian and fixed-width (`usize` as 8 bytes), lengths of strings
//! and lists as 8 bytes before them, booleans one byte (0 or 1), fields in declaration order.
//! The types below mirror dbcop's; `DateTime<Local>` serializes as an RFC 3339 string.
//!
//! Read as the peers read it:
//! * PolySI, `DBCopHistoryLoader` (amnore/PolySI, `src/main/java/history/loaders/
//!   DBCopHistoryLoader.java` at 1f99c58): sessions numbered from 1, transactions from 1; an
//!   event that did not succeed is dropped, and so is a transaction that did not succeed, writes
//!   and all; a transaction of session 0 writes 0 to every key first.
//! * AWDIT, `History::from_dbcop_history` (lassemoldrup/AWDIT, `src/formats.rs` at 34052d1): a
//!   write that did not succeed is an aborted write (reading it is an aborted read), a read that
//!   did not succeed is dropped, a transaction's own `success` is not looked at; an initial
//!   transaction writes 0 to every key.
//! * dbcop's own verifier (`src/verifier/mod.rs` in amnore/dbcop): 0 is the initial value of
//!   every variable, and reading a write of a transaction that did not succeed is a dirty read.
//!
//! grail: 0 is the initial value (`kv::Initial::Zero`); a write that did not succeed is an
//! aborted write (AWDIT); a read that did not succeed is dropped (all three); a transaction
//! that did not succeed is aborted, so that reading its writes is G1a (dbcop's verifier), where
//! PolySI drops it and AWDIT keeps it as committed. Sessions and transactions are numbered from
//! 1, as the JSON form ([`super::read_dbcop`]) is. Values are dbcop's `usize`, taken as the
//! signed 64-bit integer of the same bits.
//!
//! A short path reads the layout by hand and pushes each transaction to the builder as it is
//! read (serde's structs, then a `Vec` of events a transaction and `kv::build`, took three
//! times as long); anything it does not read, errors included, is read by serde and bincode
//! as before, which `core/tests/dbcop_bin_reader.rs` compares it with.

use super::kv::{aborted_writes, aborted_writes_id, build, Event, Initial, Txn};
use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Model, OpKind, Status, Value};
use bincode::Options;
use serde::Deserialize;

/// dbcop's `HistParams`; read to be skipped.
#[derive(Deserialize)]
#[allow(dead_code)]
struct HistParams {
    id: u64,
    n_node: u64,
    n_variable: u64,
    n_transaction: u64,
    n_event: u64,
}

/// dbcop's `History`.
#[derive(Deserialize)]
#[allow(dead_code)]
struct DbcopHistory {
    params: HistParams,
    info: String,
    start: String,
    end: String,
    data: Vec<Vec<DbcopTxn>>,
}

#[derive(Deserialize)]
struct DbcopTxn {
    events: Vec<DbcopEvent>,
    success: bool,
}

#[derive(Deserialize)]
struct DbcopEvent {
    write: bool,
    variable: u64,
    value: u64,
    success: bool,
}

/// The bytes read so far, to place an error (bincode's errors carry no offset).
struct Counting<'a> {
    data: &'a [u8],
    at: usize,
}

impl std::io::Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.data[self.at..];
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

pub fn read_dbcop_bin(data: &[u8]) -> Result<History, Error> {
    #[cfg(not(feature = "compact-read"))]
    if let Some(h) = read_fast(data) {
        return Ok(h);
    }
    read_dbcop_bin_serde(data)
}

/// The bytes of the history, read in order.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.data.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// A length, as a `usize`.
    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    /// A boolean: byte 0 or 1 (bincode refuses others).
    fn bool(&mut self) -> Option<bool> {
        match self.take(1)? {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
}

/// Bytes of an event: `write`, `variable`, `value`, `success`.
const EVENT: usize = 18;

/// The short path: `None` for anything serde and bincode must read (or refuse).
pub(crate) fn read_fast(data: &[u8]) -> Option<History> {
    let mut r = Bytes { data, at: 0 };
    r.take(40)?; // params
    for _ in 0..3 {
        let len = r.len()?;
        std::str::from_utf8(r.take(len)?).ok()?;
    }
    // A first walk over the lengths: counts to reserve the history's room once, and a file
    // that holds the history and nothing more.
    let data_at = r.at;
    let (mut txns, mut events) = (0usize, 0usize);
    for _ in 0..r.u64()? {
        for _ in 0..r.u64()? {
            let n = r.len()?;
            r.take(n.checked_mul(EVENT)?.checked_add(1)?)?;
            (txns, events) = (txns + 1, events + n);
        }
    }
    if r.at != data.len() {
        return None;
    }
    r.at = data_at;
    let mut b = HistoryBuilder::new();
    b.reserve_at_density(1, 1, events, txns + 1);
    // As `kv::build` builds with `Initial::Zero`: a write of 0 is left out (it writes the
    // initial value again), a read of 0 reads the initial value, and a transaction whose
    // events were all writes of 0 is left out too.
    let place = Place { line: 0, column: 0 };
    let mut aborted: Vec<(i64, i64)> = Vec::new();
    let mut n = 0u64;
    for si in 0..r.u64()? {
        for _ in 0..r.u64()? {
            n += 1;
            let (mut kept, mut pushed) = (0usize, 0usize);
            for _ in 0..r.u64()? {
                let (write, key, value, success) = (r.bool()?, r.u64()? as i64, r.u64()? as i64, r.bool()?);
                match (success, write) {
                    (true, _) => {
                        kept += 1;
                        if write && value == 0 {
                            continue;
                        }
                        pushed += 1;
                        let key = b.key(Value::Int(key));
                        match (write, value) {
                            (true, v) => b.push_write(OpKind::Write, key, Value::Int(v), place),
                            (false, 0) => b.push_read_nil(key),
                            (false, v) => b.push_read_scalar(key, Value::Int(v), place),
                        }
                    }
                    (false, true) => aborted.push((key, value)),
                    (false, false) => {}
                }
            }
            let status = if r.bool()? { Status::Committed } else { Status::Aborted };
            if kept > 0 && pushed == 0 {
                continue;
            }
            let meta = TxnMeta { id: Some(n), process: Some(si as i64 + 1), line: 0, ..Default::default() };
            b.finish_txn(status, meta);
        }
    }
    // The writes that did not succeed, as `kv::aborted_writes` gathers them; ids are 1..=n.
    let mut pushed = 0;
    for &(key, value) in aborted.iter().filter(|&&(_, v)| v != 0) {
        let key = b.key(Value::Int(key));
        b.push_write(OpKind::Write, key, Value::Int(value), place);
        pushed += 1;
    }
    let id = aborted_writes_id(|id| (1..=n).contains(&id));
    if pushed > 0 {
        b.finish_txn(Status::Aborted, TxnMeta { id: Some(id), process: None, line: 0, ..Default::default() });
    }
    let mut h = b.finish().ok()?;
    if pushed > 0 {
        super::kv::mark_aborted_writes(&mut h, id);
    }
    if h.model == Model::Empty && !h.ops.is_empty() {
        h.model = Model::RwRegister;
    }
    Some(h)
}

/// The reader without its short path: serde's structs read by bincode, then `kv::build`.
pub(crate) fn read_dbcop_bin_serde(data: &[u8]) -> Result<History, Error> {
    // The limit makes a corrupt length fail before anything is allocated for it.
    let options =
        bincode::DefaultOptions::new().with_fixint_encoding().with_little_endian().with_limit(data.len() as u64);
    // From the slice, which must hold the history and nothing more (DefaultOptions rejects
    // trailing bytes): several times faster than through a reader. A history that does not
    // read so is read again through the reader that counts where it stopped, for the error.
    let hist = match options.deserialize::<DbcopHistory>(data) {
        Ok(h) => h,
        Err(_) => {
            let mut r = Counting { data, at: 0 };
            let hist: DbcopHistory = options.deserialize_from(&mut r).map_err(|e| error(&e, r.at, data.len()))?;
            if r.at < data.len() {
                return Err(syntax(
                    r.at,
                    format!("expected the end of the file after the history, found {} more bytes", data.len() - r.at),
                ));
            }
            hist
        }
    };
    let mut txns = Vec::new();
    let mut aborted = Vec::new();
    let place = Place { line: 0, column: 0 };
    let mut n = 0u64;
    for (si, session) in hist.data.into_iter().enumerate() {
        for t in session {
            n += 1;
            let mut events = Vec::with_capacity(t.events.len());
            for e in t.events {
                let ev =
                    Event { write: e.write, key: e.variable as i64, value: Some(e.value as i64), place, span: None };
                match (e.success, e.write) {
                    (true, _) => events.push(ev),
                    (false, true) => aborted.push(ev),
                    (false, false) => {}
                }
            }
            let status = if t.success { Status::Committed } else { Status::Aborted };
            txns.push(Txn { id: n, session: Some(si as i64 + 1), status, events, line: 0 });
        }
    }
    let writes = aborted_writes(aborted, 0, &txns);
    txns.extend(writes);
    build(txns, Initial::Zero)
}

fn syntax(at: usize, msg: String) -> Error {
    Error::new(ErrorKind::Syntax, format!("dbcop bincode, byte offset {at}: {msg}"))
}

/// A bincode error in grail's words, placed where reading stopped. The limit is the file's
/// length, so reading past the end is a `SizeLimit` too: with 8 bytes or more left, only a
/// string's length (just read) can have gone past it.
fn error(e: &bincode::Error, at: usize, len: usize) -> Error {
    use bincode::ErrorKind as K;
    let eof = || syntax(at, "expected more bytes of the history from here, found the end of the file".into());
    match &**e {
        K::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => eof(),
        K::SizeLimit if len - at < 8 => eof(),
        K::InvalidBoolEncoding(b) => {
            syntax(at.saturating_sub(1), format!("expected a boolean (byte 0 or 1), found byte 0x{b:02x}"))
        }
        K::SizeLimit => syntax(
            at.saturating_sub(8),
            "expected a length of a string or list that fits in the bytes left, found a larger one".into(),
        ),
        K::InvalidUtf8Encoding(_) => syntax(at, "expected UTF-8 text in the string that ends here".into()),
        other => syntax(at, format!("expected dbcop's history, found an error: {other}")),
    }
}

/// Whether bytes look like dbcop's bincode: five integers, three strings whose lengths fit in
/// the file and that are UTF-8, then a count of sessions that could fit.
pub fn looks_like_dbcop_bin(data: &[u8]) -> bool {
    let word = |at: usize| data.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    let mut at = 40;
    for _ in 0..3 {
        let Some(len) = word(at).and_then(|l| usize::try_from(l).ok()) else { return false };
        let Some(s) = (at + 8).checked_add(len).and_then(|end| data.get(at + 8..end)) else { return false };
        if std::str::from_utf8(s).is_err() {
            return false;
        }
        at += 8 + len;
    }
    word(at).is_some_and(|sessions| sessions <= (data.len() - at - 8) as u64 / 8)
}
