//! A Plume text whose transactions are each one run of lines, as the peers write them: built as
//! it is read, nothing gathered first (gathering each transaction's lines took two thirds of the
//! reading). It stops at the first transaction whose lines are not together: [`super::grouped`]
//! reads the text then, and gives what this would have given.

use super::grouped::session_changed;
use super::line::{Lines, OpLine};
use super::ABORTED;
use crate::error::Error;
use crate::hash::Set;
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Model, Notation, OpKind, SpanMode, Status, Value};
use crate::read::kv::aborted_writes_id;

/// Text read between two calls of `release`.
pub(super) const RELEASE_BYTES: usize = 1 << 20;

/// The whole text on this thread: `None` when a transaction's lines are not together.
pub(super) fn read(text: &[u8], spans: SpanMode, release: &mut dyn FnMut(usize)) -> Result<Option<History>, Error> {
    let mut s = Stream::new(spans);
    let mut lines = Lines::new(text, 0, text.len());
    let mut released = 0;
    while let Some(op) = lines.next() {
        if !s.op(&op?)? {
            return Ok(None);
        }
        if lines.offset() >= released + RELEASE_BYTES {
            if released == 0 {
                s.size_for(lines.offset(), text.len());
            }
            released = lines.offset();
            release(released);
        }
    }
    s.finish().map(Some)
}

/// What is built so far: the history, the transaction being read, the aborted writes.
pub(super) struct Stream {
    b: HistoryBuilder,
    /// With [`SpanMode::Located`], each transaction records where its first line starts, and
    /// [`super::spans_of_txn`] finds its operations' spans there.
    spans: SpanMode,
    ids: Ids,
    open: Option<Open>,
    aborted: Vec<OpLine>,
}

impl Stream {
    pub fn new(spans: SpanMode) -> Self {
        let mut b = HistoryBuilder::new();
        b.set_span_mode(spans);
        Stream { b, spans, ids: Ids::default(), open: None, aborted: Vec::new() }
    }

    /// For lines grouped by transaction already, each transaction's together, whose ids are
    /// `ids` (all distinct): they are not checked again.
    pub fn grouped(spans: SpanMode, ids: Vec<i64>) -> Self {
        Stream { ids: Ids { rising: ids, set: None, grouped: true }, ..Stream::new(spans) }
    }

    /// Room for a text of `total` bytes at the density of its first `read` bytes.
    pub fn size_for(&mut self, read: usize, total: usize) {
        let (ops, txns) = self.b.sizes();
        self.b.reserve_at_density(read, total, ops, txns);
    }

    /// Take the next line's operation: false when its transaction had lines before another's.
    #[inline]
    pub fn op(&mut self, op: &OpLine) -> Result<bool, Error> {
        if op.txn == ABORTED {
            // A read of an aborted transaction is dropped (Plume's loader).
            if op.write {
                self.aborted.push(*op);
            }
            return Ok(true);
        }
        let t = match self.open.as_mut() {
            Some(t) if t.id == op.txn => {
                if t.session != op.session {
                    return Err(session_changed(t.id, t.session, t.line, op.session, op.span.line));
                }
                t
            }
            _ => {
                if let Some(t) = self.open.take() {
                    t.finish(&mut self.b);
                }
                if !self.ids.first_time(op.txn) {
                    return Ok(false);
                }
                self.open.insert(Open {
                    id: op.txn,
                    session: op.session,
                    at: line_start(op),
                    line: op.span.line,
                    ops: 0,
                })
            }
        };
        t.ops += push(&mut self.b, op, self.spans.op_spans()) as u32;
        Ok(true)
    }

    /// The history, the aborted writes last as one transaction ([`crate::read::kv::aborted_writes`]).
    pub fn finish(mut self) -> Result<History, Error> {
        if let Some(t) = self.open.take() {
            t.finish(&mut self.b);
        }
        let mut gathered = None;
        if let Some(first) = self.aborted.first() {
            if self.ids.grouped {
                crate::par::sort::sort_unstable(&mut self.ids.rising);
            }
            let id = aborted_writes_id(|id| self.ids.contains(id as i64));
            let (at, line) = (line_start(first), first.span.line);
            let op_spans = self.spans.op_spans();
            let pushed = self.aborted.iter().filter(|op| push(&mut self.b, op, op_spans)).count();
            if pushed > 0 {
                self.b.ops_read_at(at, line, 0);
                self.b.finish_txn(Status::Aborted, TxnMeta { id: Some(id), process: None, line, ..Default::default() });
                gathered = Some(id);
            }
        }
        let mut h = self.b.finish()?;
        if let Some(id) = gathered {
            crate::read::kv::mark_aborted_writes(&mut h, id);
        }
        // Only register operations: a history of reads of 0 alone is still a register history.
        if h.model == Model::Empty && !h.ops.is_empty() {
            h.model = Model::RwRegister;
        }
        h.notation = Notation::Plume;
        Ok(h)
    }
}

/// Push the operation of a line, as [`crate::read::kv::build`] does with `Initial::Zero`: a
/// write of 0 is left out (false), a read of 0 reads the initial value.
#[inline]
fn push(b: &mut HistoryBuilder, op: &OpLine, spans: bool) -> bool {
    if op.write && op.value == 0 {
        return false;
    }
    let key = b.key(Value::Int(op.key));
    let place = Place { line: op.span.line, column: 1 };
    match (op.write, op.value) {
        (true, v) => b.push_write(OpKind::Write, key, Value::Int(v), place),
        (false, 0) => b.push_read_nil(key),
        (false, v) => b.push_read_scalar(key, Value::Int(v), place),
    }
    if spans {
        b.set_op_span(op.span);
    }
    true
}

/// Where the line of an operation starts (only spaces and tabs come before the operation).
pub(super) fn line_start(op: &OpLine) -> usize {
    (op.span.start - u64::from(op.span.column.saturating_sub(1))) as usize
}

/// The transaction whose lines are being read.
struct Open {
    id: i64,
    session: i64,
    /// Where its first line starts, and the line's number.
    at: usize,
    line: u32,
    /// Operations pushed: none when it only wrote 0 (an explicit initialising transaction),
    /// and then it is left out.
    ops: u32,
}

impl Open {
    fn finish(self, b: &mut HistoryBuilder) {
        if self.ops > 0 {
            b.ops_read_at(self.at, self.line, 0);
            let meta = TxnMeta {
                id: Some(self.id as u64),
                process: Some(self.session),
                line: self.line,
                ..Default::default()
            };
            b.finish_txn(Status::Committed, meta);
        }
    }
}

/// The transaction ids met so far. While they rise (as the peers number them), being above the
/// last says an id is new; from the first that does not, a set says it.
#[derive(Default)]
struct Ids {
    rising: Vec<i64>,
    set: Option<Set<i64>>,
    /// The ids are all in `rising`, in no order, and each is met once ([`Stream::grouped`]).
    grouped: bool,
}

impl Ids {
    /// Whether `id` is met for the first time (it is recorded).
    fn first_time(&mut self, id: i64) -> bool {
        if self.grouped {
            return true;
        }
        let set = match &mut self.set {
            None if self.rising.last().is_none_or(|&last| id > last) => {
                self.rising.push(id);
                return true;
            }
            None => self.set.insert(self.rising.iter().copied().collect()),
            Some(set) => set,
        };
        set.insert(id)
    }

    fn contains(&self, id: i64) -> bool {
        match &self.set {
            Some(set) => set.contains(&id),
            None => self.rising.binary_search(&id).is_ok(),
        }
    }
}
