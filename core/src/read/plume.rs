//! PolySI's and Plume's text histories: one operation a line, `r(key,value,session,txn)` or
//! `w(key,value,session,txn)`. A transaction is every line with its `txn` id, in line order;
//! sessions order their transactions by first line. Spaces around fields and blank lines are
//! allowed; every field is a signed 64-bit integer (a negative transaction id other than -1 is
//! shown as 2^64 plus it, grail's ids being unsigned).
//!
//! Read as the peers' own loaders read it:
//! * PolySI, `TextHistoryLoader` (hengxin/PolySI-PVLDB2023-Artifacts,
//!   `artifact/PolySI/src/main/java/history/loaders/TextHistoryLoader.java` at 93ba2c5; the same
//!   in Tsunaou/PolySI at 3ecae9b): sessions as written, session 0 included; before all others a
//!   transaction of its own session (-1) writes 0 to every key the file names. Its pattern
//!   `\d++` takes no negative number.
//! * Plume (hengxin/IsoVista, `src/main/java/history/loader/TextHistoryLoader.java` at 13cfa34,
//!   and `Plume/src/main/java/alg/Plume.java` in dracoooooo/Plume at d9cc210): `txn = -1` is a
//!   write of an aborted transaction (a read line with it is dropped), and a read of its value
//!   an aborted read; a read of 0 reads the initial value and a write of 0 is ignored.
//! * AWDIT, `History::parse_plume_history` (lassemoldrup/AWDIT, `src/formats.rs` at 34052d1):
//!   `txn = -1` as Plume; session 0 ordinary; after reading, a transaction in a session of its
//!   own writes 0 to every key, and wins over any other write of 0 (duplicate writes keep the
//!   last one), so a read of 0 reads the initial value there too.
//!
//! grail follows them: 0 is every key's initial value (`kv::Initial::Zero`: a read of 0 reads
//! it; a write of 0 is left out, as Plume does, so that a transaction writing 0 to every key
//! first changes no verdict), `txn = -1` lines are aborted writes (one aborted transaction,
//! numbered [`crate::read::ABORTED_WRITES`], 2^53 - 1, which JavaScript holds; written back as -1),
//! and negative numbers parse (a negative id other than -1 is beyond what JavaScript holds: the
//! JS package and the demo cannot report on it).

use super::kv::{aborted_writes, build, Event, Initial, Txn};
use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::builder::Place;
use crate::history::{History, Notation, Span, Status};

/// The transaction id PolySI's text gives the writes of aborted transactions.
const ABORTED: i64 = -1;

pub fn read_plume(text: &[u8]) -> Result<History, Error> {
    read_plume_with(text, true)
}

/// [`read_plume`], recording each operation's span (its `r(...)` or `w(...)`) when `spans`.
pub fn read_plume_with(text: &[u8], spans: bool) -> Result<History, Error> {
    let mut txns: Vec<Txn> = Vec::new();
    let mut aborted: Vec<Event> = Vec::new();
    let mut first_aborted = 0;
    let mut index: Map<i64, usize> = Map::default();
    let mut offset = 0usize;
    for (n, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line_no = n as u32 + 1;
        let start = offset;
        offset += raw.len() + 1;
        let mut p = Cursor { text, at: start, end: start + raw.len() };
        p.skip_ws();
        if p.at == p.end || p.peek() == Some(b'\r') && p.at + 1 == p.end {
            continue;
        }
        let op_start = p.at;
        let write = match p.peek() {
            Some(b'r') => false,
            Some(b'w') => true,
            _ => return Err(p.err("expected r( or w( at the start of the line")),
        };
        p.at += 1;
        p.expect(b'(')?;
        let key = p.number("the key")?;
        p.expect(b',')?;
        let value = p.number("the value")?;
        p.expect(b',')?;
        let session = p.number("the session")?;
        p.expect(b',')?;
        let txn = p.number("the transaction id")?;
        p.expect(b')')?;
        let span =
            Span { start: op_start as u64, end: p.at as u64, line: line_no, column: (op_start - start) as u32 + 1 };
        p.skip_ws();
        if p.at < p.end && !(p.peek() == Some(b'\r') && p.at + 1 == p.end) {
            return Err(p.err("expected the end of the line after the closing parenthesis"));
        }
        let place = Place { line: line_no, column: 1 };
        let event = Event { write, key, value: Some(value), place, span: spans.then_some(span) };
        if txn == ABORTED {
            if write {
                if aborted.is_empty() {
                    first_aborted = line_no;
                }
                aborted.push(event);
            }
            continue;
        }
        let i = *index.entry(txn).or_insert_with(|| {
            txns.push(Txn {
                id: txn as u64,
                session: Some(session),
                status: Status::Committed,
                events: Vec::new(),
                line: line_no,
            });
            txns.len() - 1
        });
        if txns[i].session != Some(session) {
            return Err(Error::at(
                ErrorKind::Shape,
                line_no,
                1,
                format!(
                    "expected transaction {txn} to stay in session {} (its first line, {}), found session {session}",
                    txns[i].session.unwrap_or_default(),
                    txns[i].line
                ),
            ));
        }
        txns[i].events.push(event);
    }
    let writes = aborted_writes(aborted, first_aborted, &txns);
    txns.extend(writes);
    let mut h = build(txns, Initial::Zero)?;
    h.notation = Notation::Plume;
    Ok(h)
}

struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
    end: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        (self.at < self.end).then(|| self.text[self.at])
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn err(&self, msg: &str) -> Error {
        let found = match self.peek() {
            None | Some(b'\r') => "the end of the line".to_string(),
            Some(_) => {
                let s = String::from_utf8_lossy(&self.text[self.at..self.end.min(self.at + 8)]).to_string();
                format!("{s:?}")
            }
        };
        Error::at_offset(ErrorKind::Syntax, self.text, self.at, format!("{msg}, found {found}"))
    }

    fn expect(&mut self, c: u8) -> Result<(), Error> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected {:?}", c as char)))
        }
    }

    fn number(&mut self, what: &str) -> Result<i64, Error> {
        self.skip_ws();
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.at;
        // Accumulated negatively, so that i64::MIN fits.
        let mut v: i64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            v = match v.checked_mul(10).and_then(|v| v.checked_sub((d - b'0') as i64)) {
                Some(v) => v,
                None => {
                    self.at = start;
                    return Err(self.err(&format!("expected {what} to fit in a signed 64-bit integer")));
                }
            };
            self.at += 1;
        }
        if self.at == digits {
            self.at = start;
            return Err(self.err(&format!("expected {what} (an integer)")));
        }
        match negative {
            true => Ok(v),
            false => v.checked_neg().ok_or_else(|| {
                self.at = start;
                self.err(&format!("expected {what} to fit in a signed 64-bit integer"))
            }),
        }
    }
}
