//! PolySI's and Plume's text histories: one operation a line,
//! `r(key,value,session,txn)` or `w(key,value,session,txn)`, non-negative integers. A
//! transaction is every line with its `txn` id, in line order; transactions are numbered by
//! that id. Transactions of session 0 write the initial values (Plume); a read of 0 from a key
//! nobody writes 0 to reads the initial value too (PolySI's loader writes 0 to every key first).
//! Spaces around fields and blank lines are allowed.

use super::kv::{build, Event, Initial, Txn};
use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::builder::Place;
use crate::history::{History, Status};

pub fn read_plume(text: &[u8]) -> Result<History, Error> {
    let mut txns: Vec<Txn> = Vec::new();
    let mut index: Map<u64, usize> = Map::default();
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
        p.skip_ws();
        if p.at < p.end && !(p.peek() == Some(b'\r') && p.at + 1 == p.end) {
            return Err(p.err("expected the end of the line after the closing parenthesis"));
        }
        let i = *index.entry(txn).or_insert_with(|| {
            txns.push(Txn {
                id: txn,
                session: session as i64,
                status: Status::Committed,
                events: Vec::new(),
                line: line_no,
            });
            txns.len() - 1
        });
        if txns[i].session != session as i64 {
            return Err(Error::at(
                ErrorKind::Shape,
                line_no,
                1,
                format!(
                    "expected transaction {txn} to stay in session {} (its first line, {}), found session {session}",
                    txns[i].session, txns[i].line
                ),
            ));
        }
        let place = Place { line: line_no, column: 1 };
        txns[i].events.push(Event { write, key: key as i64, value: Some(value as i64), place });
    }
    build(txns, Initial { zero: true, session: Some(0) })
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

    fn number(&mut self, what: &str) -> Result<u64, Error> {
        self.skip_ws();
        let start = self.at;
        let mut v: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            v = match v.checked_mul(10).and_then(|v| v.checked_add((d - b'0') as u64)) {
                Some(v) if v <= i64::MAX as u64 => v,
                _ => {
                    self.at = start;
                    return Err(self.err(&format!("expected {what} to fit in a signed 64-bit integer")));
                }
            };
            self.at += 1;
        }
        if self.at == start {
            return Err(self.err(&format!("expected {what} (a non-negative integer)")));
        }
        Ok(v)
    }
}
