//! The Plume reader as it was before it read line by line into the builder (grail 5737f84,
//! `core/src/read/plume.rs` with `read/kv.rs`'s `build` for `Initial::Zero`): each
//! transaction's lines gathered, then built through the public [`HistoryBuilder`]. The oracle
//! the reader must equal, history for history and error for error.

use grail_core::history::builder::{Place, TxnMeta};
use grail_core::history::{History, HistoryBuilder, Model, Notation, OpKind, Span, Status, Value};
use grail_core::read::ABORTED_WRITES;
use grail_core::{Error, ErrorKind};
use std::collections::{HashMap, HashSet};

const ABORTED: i64 = -1;

#[derive(Clone, Copy)]
struct Event {
    write: bool,
    key: i64,
    value: i64,
    place: Place,
    span: Option<Span>,
}

struct Txn {
    id: u64,
    session: Option<i64>,
    status: Status,
    events: Vec<Event>,
    line: u32,
}

pub fn read_plume_oracle(text: &[u8], spans: bool) -> Result<History, Error> {
    let mut txns: Vec<Txn> = Vec::new();
    let mut aborted: Vec<Event> = Vec::new();
    let mut first_aborted = 0;
    let mut index: HashMap<i64, usize> = HashMap::new();
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
        let event = Event { write, key, value, place, span: spans.then_some(span) };
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
    if !aborted.is_empty() {
        let ids: HashSet<u64> = txns.iter().map(|t| t.id).collect();
        let id = (0..=ABORTED_WRITES).map(|i| ABORTED_WRITES - i).find(|id| !ids.contains(id)).unwrap();
        txns.push(Txn { id, session: None, status: Status::Aborted, events: aborted, line: first_aborted });
    }
    let mut h = build(txns)?;
    h.notation = Notation::Plume;
    // The aborted writes' transaction, the one aborted transaction in no session.
    h.aborted_writes =
        h.txns.iter().rposition(|t| t.status == Status::Aborted && t.process().is_none()).map(|t| t as u32);
    Ok(h)
}

/// `kv::build` with `Initial::Zero`: a read of 0 reads the initial value, a write of 0 is left
/// out, and a transaction of writes of 0 alone with it.
fn build(txns: Vec<Txn>) -> Result<History, Error> {
    let rewrites_initial = |e: &Event| e.write && e.value == 0;
    let mut b = HistoryBuilder::new();
    for t in &txns {
        if !t.events.is_empty() && t.events.iter().all(rewrites_initial) {
            continue;
        }
        for e in t.events.iter().filter(|e| !rewrites_initial(e)) {
            let key = b.key(Value::Int(e.key));
            match (e.write, e.value) {
                (true, v) => b.push_write(OpKind::Write, key, Value::Int(v), e.place),
                (false, 0) => b.push_read_nil(key),
                (false, v) => b.push_read_scalar(key, Value::Int(v), e.place),
            }
            if let Some(span) = e.span {
                b.set_op_span(span);
            }
        }
        let meta = TxnMeta { id: Some(t.id), process: t.session, line: t.line, ..Default::default() };
        b.finish_txn(t.status, meta);
    }
    let mut h = b.finish()?;
    if h.model == Model::Empty && !h.ops.is_empty() {
        h.model = Model::RwRegister;
    }
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
