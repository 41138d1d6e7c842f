//! Spans: where what was read stands (byte range, line, column in characters), and the spans
//! of one transaction's operations found again from its value's place.

use super::scan::line_start_of;
use super::{Reader, Sink};
use crate::history::builder::Place;
use crate::history::{KeyId, OpKind, Span, Value};
use crate::read::input::{around, InputText};

/// Columns in characters of the spans recorded on one line, counted incrementally: a history
/// written as one vector on one line must not cost a scan from the line's start per span.
#[derive(Default)]
pub(super) struct Columns {
    line_start: usize,
    pos: usize,
    /// Characters in `line_start..pos`.
    chars: u32,
}

impl Columns {
    /// The 1-based column, in characters, of byte `pos` on the line starting at `line_start`.
    fn at(&mut self, s: &[u8], line_start: usize, pos: usize) -> u32 {
        let chars = |r: &[u8]| r.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32;
        if self.line_start != line_start || pos < line_start {
            *self = Columns { line_start, pos: line_start, chars: 0 };
        }
        let pos = pos.min(s.len());
        if pos >= self.pos {
            self.chars += chars(&s[self.pos..pos]);
        } else {
            self.chars -= chars(&s[pos..self.pos]);
        }
        self.pos = pos;
        self.chars + 1
    }
}

impl<'a, S: Sink> Reader<'a, S> {
    /// The span from `start` (on `line`, which starts at byte `line_start`) to the scanner;
    /// `None` when the builder records no spans.
    pub(in crate::read) fn span(&mut self, start: usize, line: u32, line_start: usize) -> Option<Span> {
        if !self.b.records_spans() {
            return None;
        }
        let column = self.columns.at(self.s.s, line_start, start);
        Some(Span { start: start as u64, end: self.s.pos as u64, line, column })
    }
}

/// The spans of the operations read from the form at `offset` (on line `line`), as a reading
/// that records every span gives them: read again with the same code, into [`SpanSink`].
/// `None` when the form there is not a transaction's value.
fn spans_of_value(text: &[u8], offset: usize, line: u32) -> Option<Vec<Span>> {
    if offset >= text.len() {
        return None;
    }
    let mut r = Reader::new(text, SpanSink::default(), 0);
    (r.s.pos, r.s.line, r.s.line_start) = (offset, line, line_start_of(text, offset));
    match r.txn_value() {
        Ok(Ok(())) => Some(r.b.spans),
        _ => None,
    }
}

/// [`spans_of_value`] from a window of `input` around `offset`.
pub(in crate::read) fn spans_of_value_in(input: &dyn InputText, offset: usize, line: u32) -> Option<Vec<Span>> {
    // A window that cuts the form does not read: the form's end is past it.
    let (spans, base) = around(input, offset, |w, at, _| spans_of_value(w, at, line))?;
    Some(spans.into_iter().map(|s| s.shifted(base as u64)).collect())
}

/// A [`Sink`] that keeps only the operations' spans.
#[derive(Default)]
struct SpanSink {
    spans: Vec<Span>,
}

impl Sink for SpanSink {
    fn records_spans(&self) -> bool {
        true
    }
    fn records_op_spans(&self) -> bool {
        true
    }
    fn str_value(&mut self, _: &str) -> Value {
        Value::Int(0)
    }
    fn key(&mut self, _: Value) -> KeyId {
        0
    }
    fn push_write(&mut self, _: OpKind, _: KeyId, _: Value, _: Place) {
        self.spans.push(Span::default());
    }
    fn push_read_nil(&mut self, _: KeyId) {
        self.spans.push(Span::default());
    }
    fn push_read_scalar(&mut self, _: KeyId, _: Value, _: Place) {
        self.spans.push(Span::default());
    }
    fn push_read_list(&mut self, _: KeyId, _: &[Value], _: Place) {
        self.spans.push(Span::default());
    }
    fn set_op_span(&mut self, span: Span) {
        if let Some(s) = self.spans.last_mut() {
            *s = span;
        }
    }
    fn abandon_txn(&mut self) {
        self.spans.clear();
    }
}
