//! What a chunk read on the pool hands the one thread that builds the history (feature
//! `parallel`; the EDN and JSON readers): its operations, with keys and strings numbered in
//! the chunk in the order met, so that the pool does the hashing. [`Globals`] turns the chunk's
//! numbers into the history's as the reader on one thread would have numbered them: a string or
//! key new to the history is new to its chunk too, and the chunk met its new ones in the order
//! that reader meets them.

use super::edn::Sink;
use crate::hash::Map;
use crate::history::builder::Place;
use crate::history::{HistoryBuilder, Interner, KeyId, OpKind, Span, SpanMode, Sym, Value};

/// Slots of [`ChunkSink`]'s recent keys.
const RECENT: usize = 4096;

/// An operation as a chunk read it, with the chunk's key and string numbers.
struct ChunkOp {
    kind: OpKind,
    key: KeyId,
    arg: ChunkArg,
    place: Place,
}

enum ChunkArg {
    Nil,
    Val(Value),
    List { start: u32, len: u32 },
}

/// The [`Sink`] of a chunk: operations as read, keys and strings numbered in the order met.
#[derive(Default)]
pub(super) struct ChunkSink {
    spans: SpanMode,
    strings: Interner,
    /// Strings met so far (the chunk's numbers below it).
    pub(super) nstrings: usize,
    keys: Vec<Value>,
    key_index: Map<Value, KeyId>,
    /// Integer keys met lately, by the integer modulo [`RECENT`]: Jepsen's keys rotate, so a
    /// chunk's operations use a few hundred at a time, and the map's hashing was 3% of a read.
    recent: Vec<(Value, KeyId)>,
    ops: Vec<ChunkOp>,
    /// Parallel to `ops` when spans are recorded (every operation read has one then).
    op_spans: Vec<Span>,
    elems: Vec<Value>,
    /// Where the current transaction's operations start.
    pub(super) txn_start: usize,
}

impl ChunkSink {
    /// A sink for a chunk, in the room of `spare` (a sink used before) when there is one.
    pub(super) fn new(spans: SpanMode, spare: Option<ChunkSink>) -> ChunkSink {
        let mut s = match spare {
            Some(mut s) => {
                s.ops.clear();
                s.op_spans.clear();
                s.elems.clear();
                s.keys.clear();
                s.key_index.clear();
                s.recent.clear();
                (s.strings, s.nstrings, s.txn_start) = (Interner::default(), 0, 0);
                s
            }
            None => ChunkSink::default(),
        };
        s.spans = spans;
        s.recent.resize(RECENT, (Value::Int(0), KeyId::MAX));
        s
    }

    /// The chunk's number of `s`.
    pub(super) fn intern(&mut self, s: &str) -> Sym {
        let sym = self.strings.intern(s);
        self.nstrings = self.nstrings.max(sym as usize + 1);
        sym
    }

    /// Operations and keys so far.
    pub(super) fn sizes(&self) -> (usize, usize) {
        (self.ops.len(), self.keys.len())
    }

    #[inline]
    fn push(&mut self, kind: OpKind, key: KeyId, arg: ChunkArg, place: Place) {
        self.ops.push(ChunkOp { kind, key, arg, place });
        if self.spans.op_spans() {
            self.op_spans.push(Span::default());
        }
    }
}

impl Sink for ChunkSink {
    fn records_spans(&self) -> bool {
        self.spans.txn_spans()
    }
    fn records_op_spans(&self) -> bool {
        self.spans.op_spans()
    }
    fn str_value(&mut self, s: &str) -> Value {
        Value::Str(self.intern(s))
    }
    #[inline]
    fn key(&mut self, v: Value) -> KeyId {
        let slot = match v {
            Value::Int(i) => Some(i as usize % RECENT),
            Value::Str(_) => None,
        };
        if let Some(&(w, k)) = slot.and_then(|s| self.recent.get(s)) {
            if w == v && k != KeyId::MAX {
                return k;
            }
        }
        let k = match self.key_index.get(&v) {
            Some(&k) => k,
            None => {
                let k = self.keys.len() as KeyId;
                self.keys.push(v);
                self.key_index.insert(v, k);
                k
            }
        };
        if let Some(r) = slot.and_then(|s| self.recent.get_mut(s)) {
            *r = (v, k);
        }
        k
    }
    fn push_write(&mut self, kind: OpKind, key: KeyId, value: Value, place: Place) {
        self.push(kind, key, ChunkArg::Val(value), place);
    }
    fn push_read_nil(&mut self, key: KeyId) {
        self.push(OpKind::Read, key, ChunkArg::Nil, Place::default());
    }
    fn push_read_scalar(&mut self, key: KeyId, value: Value, place: Place) {
        self.push(OpKind::Read, key, ChunkArg::Val(value), place);
    }
    fn push_read_list(&mut self, key: KeyId, elems: &[Value], place: Place) {
        let start = self.elems.len() as u32;
        self.elems.extend_from_slice(elems);
        self.push(OpKind::Read, key, ChunkArg::List { start, len: elems.len() as u32 }, place);
    }
    fn set_op_span(&mut self, span: Span) {
        if let Some(s) = self.op_spans.last_mut() {
            *s = span;
        }
    }
    fn abandon_txn(&mut self) {
        self.ops.truncate(self.txn_start);
        self.op_spans.truncate(self.txn_start);
    }
}

/// A chunk's strings, keys and operations as far as the replay has pushed them into the
/// history: the history's numbers of the chunk's strings and keys.
#[derive(Default)]
pub(super) struct Globals {
    syms: Vec<Sym>,
    keys: Vec<KeyId>,
    elems: Vec<Value>,
    /// Operations pushed.
    op: usize,
}

impl Globals {
    /// Number in `b` the chunk's strings before `strings` and keys before `keys`: those the
    /// reader on one thread would have numbered by there.
    pub(super) fn catch_up(&mut self, sink: &ChunkSink, b: &mut HistoryBuilder, strings: usize, keys: usize) {
        while self.syms.len() < strings {
            self.syms.push(b.intern(sink.strings.get(self.syms.len() as Sym)));
        }
        while self.keys.len() < keys {
            let k = self.value(sink.keys[self.keys.len()]);
            self.keys.push(b.key(k));
        }
    }

    /// A value of the chunk's with the history's string number.
    fn value(&self, v: Value) -> Value {
        match v {
            Value::Str(s) => Value::Str(self.syms[s as usize]),
            v => v,
        }
    }

    /// The history's number of the chunk's string `s` (caught up).
    pub(super) fn sym(&self, s: Sym) -> Sym {
        self.syms[s as usize]
    }

    /// Push the chunk's operations up to `end` into `b` (their keys and strings caught up),
    /// their places moved by `place` and their spans' lines by `line`.
    pub(super) fn push_ops(
        &mut self,
        sink: &ChunkSink,
        b: &mut HistoryBuilder,
        end: usize,
        place: impl Fn(Place) -> Place,
        line: impl Fn(u32) -> u32,
    ) {
        for (i, o) in sink.ops[self.op..end].iter().enumerate() {
            let key = self.keys[o.key as usize];
            let at = place(o.place);
            match o.arg {
                ChunkArg::Nil => b.push_read_nil(key),
                ChunkArg::Val(v) if o.kind == OpKind::Read => b.push_read_scalar(key, self.value(v), at),
                ChunkArg::Val(v) => b.push_write(o.kind, key, self.value(v), at),
                ChunkArg::List { start, len } => {
                    let (start, len) = (start as usize, len as usize);
                    let mut elems = std::mem::take(&mut self.elems);
                    elems.clear();
                    elems.extend(sink.elems[start..start + len].iter().map(|&v| self.value(v)));
                    b.push_read_list(key, &elems, at);
                    self.elems = elems;
                }
            }
            if let Some(&s) = sink.op_spans.get(self.op + i) {
                b.set_op_span(Span { line: line(s.line), ..s });
            }
        }
        self.op = end;
    }
}
