//! Where the reader puts what it reads.

use crate::history::builder::Place;
use crate::history::{HistoryBuilder, KeyId, OpKind, Span, Value};

/// Where the reader puts what it reads: the history's builder, or (parallel reading) a chunk's
/// record of operations that is replayed into the builder in order ([`crate::read::edn_chunks`]).
pub(in crate::read) trait Sink {
    /// Whether maps' (transactions') spans are wanted.
    fn records_spans(&self) -> bool;
    /// Whether operations' spans are wanted ([`Sink::set_op_span`]).
    fn records_op_spans(&self) -> bool;
    fn str_value(&mut self, s: &str) -> Value;
    fn key(&mut self, v: Value) -> KeyId;
    fn push_write(&mut self, kind: OpKind, key: KeyId, value: Value, place: Place);
    fn push_read_nil(&mut self, key: KeyId);
    fn push_read_scalar(&mut self, key: KeyId, value: Value, place: Place);
    fn push_read_list(&mut self, key: KeyId, elems: &[Value], place: Place);
    fn set_op_span(&mut self, span: Span);
    fn abandon_txn(&mut self);
}

impl Sink for HistoryBuilder {
    fn records_spans(&self) -> bool {
        HistoryBuilder::records_spans(self)
    }
    fn records_op_spans(&self) -> bool {
        HistoryBuilder::records_op_spans(self)
    }
    fn str_value(&mut self, s: &str) -> Value {
        HistoryBuilder::str_value(self, s)
    }
    fn key(&mut self, v: Value) -> KeyId {
        HistoryBuilder::key(self, v)
    }
    fn push_write(&mut self, kind: OpKind, key: KeyId, value: Value, place: Place) {
        HistoryBuilder::push_write(self, kind, key, value, place)
    }
    fn push_read_nil(&mut self, key: KeyId) {
        HistoryBuilder::push_read_nil(self, key)
    }
    fn push_read_scalar(&mut self, key: KeyId, value: Value, place: Place) {
        HistoryBuilder::push_read_scalar(self, key, value, place)
    }
    fn push_read_list(&mut self, key: KeyId, elems: &[Value], place: Place) {
        HistoryBuilder::push_read_list(self, key, elems, place)
    }
    fn set_op_span(&mut self, span: Span) {
        HistoryBuilder::set_op_span(self, span)
    }
    fn abandon_txn(&mut self) {
        HistoryBuilder::abandon_txn(self)
    }
}
