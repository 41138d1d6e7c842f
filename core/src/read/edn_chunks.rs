//! Reading a large EDN history on several threads (feature `parallel`).
//!
//! A Jepsen history is one operation map per line, so the text splits at line starts that open a
//! map. Each chunk is scanned on its own thread by the same reader as the sequential one, into a
//! record of what it read (the maps, their operations, the keys and strings in the order first
//! met); one thread replays the records in order into the history's builder, pairing
//! invocations with completions across chunks and numbering keys and strings as the sequential
//! reader would. The history is therefore identical, spans included.
//!
//! Anything unusual sends the whole text to the sequential reader instead: a chunk that fails to
//! parse (the error must name the earliest bad place, which only a reading from the start
//! knows), a split that turns out not to fall between two maps, a `:commit-order` map.

use super::edn::{InvokeValue, OpMap, Reader, Sink};
use super::pairing::Pairer;
use crate::error::Error;
use crate::hash::Map;
use crate::history::builder::Place;
use crate::history::{History, HistoryBuilder, Interner, KeyId, OpKind, Span, SpanMode, Sym, Value};
use std::ops::ControlFlow;

/// Bytes per chunk: large enough that a chunk's setup is noise, small enough that the threads
/// stay busy to the end and few chunks wait in memory for their replay.
pub(super) const CHUNK_BYTES: usize = 1 << 20;

/// Slots of [`ChunkSink`]'s recent keys.
const RECENT: usize = 4096;

/// Whether there are threads to read on and more than one chunk to read. From inside a pool's
/// worker, the replay's waiting could hold up the very worker it waits on: not there.
fn worth_it(text: &[u8], chunk: usize) -> bool {
    rayon::current_num_threads() >= 2 && rayon::current_thread_index().is_none() && text.len() > chunk
}

/// The reading in chunks of about `chunk` bytes ([`CHUNK_BYTES`] but in tests): `None` when it
/// leaves the text to the sequential reader (small, one thread, a whole-history vector, a chunk
/// that does not parse).
pub(crate) fn only_chunked(
    text: &[u8],
    first: u64,
    spans: SpanMode,
    chunk: usize,
    release: &mut dyn FnMut(usize),
) -> Option<Result<History, Error>> {
    if !worth_it(text, chunk) {
        return None;
    }
    let starts = split(text, chunk);
    if starts.len() < 2 {
        return None;
    }
    replay_all(text, first, spans, &starts, release)
}

/// Chunk starts: 0, then the first line start at or after each multiple of `chunk` that opens a
/// map. Empty when the text is not a sequence of maps (a vector of them, say).
fn split(text: &[u8], chunk: usize) -> Vec<usize> {
    let first = text.iter().position(|b| !b" \t\r\n,".contains(b));
    if first.is_none_or(|i| text[i] != b'{') || chunk == 0 {
        return Vec::new();
    }
    let mut starts = vec![0];
    let mut at = chunk;
    while at < text.len() {
        let Some(nl) = text[at..].windows(2).position(|w| w == b"\n{") else { break };
        let start = at + nl + 1;
        starts.push(start);
        at = start + chunk;
    }
    starts
}

/// Parse chunks on the pool, at most a window ahead of the replay, and replay them in order on
/// this thread. `None` when any chunk needs the sequential reader. `release(n)` after each chunk
/// replayed: the text before `n` is done with ([`crate::read::read_releasing`]).
fn replay_all<'a>(
    text: &'a [u8],
    first: u64,
    spans: SpanMode,
    starts: &[usize],
    release: &mut dyn FnMut(usize),
) -> Option<Result<History, Error>> {
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    let mut b = HistoryBuilder::new();
    b.set_span_mode(spans);
    let mut replay = Replay { r: Reader::new(text, b, first), pairer: Pairer::default(), ordinal: first, lines: 0 };
    let read = |i: usize, spare: Option<Chunk<'a>>| -> Option<Chunk<'a>> {
        parse_chunk(text, starts[i], ends[i], spans, spare)
    };
    let stopped = crate::read::pool::in_order(starts.len(), read, |i, mut chunk| {
        if i == 0 {
            // The first chunk's density, for the whole text.
            let (ops, txns) = (chunk.sink.ops.len(), chunk.maps.len() / 2);
            replay.r.b.reserve_at_density(ends[0] - starts[0], text.len() - starts[0], ops, txns);
        }
        match replay.chunk(&mut chunk) {
            Ok(()) => {
                release(ends[i]);
                ControlFlow::Continue(Some(chunk.emptied()))
            }
            Err(e) => ControlFlow::Break(e),
        }
    })?;
    // An error of the replay is the sequential reader's: every map before it parsed.
    Some(match stopped {
        Some(e) => Err(e),
        None => replay.finish(text),
    })
}

/// A chunk as read: its maps in order, their operations, and its own numbering of keys and
/// strings.
struct Chunk<'a> {
    maps: Vec<ChunkMap<'a>>,
    sink: ChunkSink,
    /// Line breaks in the chunk.
    lines: u32,
}

impl<'a> Chunk<'a> {
    /// The chunk without its contents, keeping the room they took.
    fn emptied(mut self) -> Chunk<'a> {
        self.maps.clear();
        let s = &mut self.sink;
        s.ops.clear();
        s.op_spans.clear();
        s.elems.clear();
        s.keys.clear();
        s.key_index.clear();
        s.recent.clear();
        (s.strings, s.nstrings, s.map_start) = (Interner::default(), 0, 0);
        self.lines = 0;
        self
    }
}

/// One operation map of a chunk; lines count from the chunk's start (1).
struct ChunkMap<'a> {
    m: OpMap<'a>,
    line: u32,
    span: Option<Span>,
    /// The map's operations end at `ops[ops_end]`; the keys and strings it met first end at
    /// `keys_end` and `strings_end`.
    ops_end: usize,
    keys_end: usize,
    strings_end: usize,
}

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
struct ChunkSink {
    spans: SpanMode,
    strings: Interner,
    nstrings: usize,
    keys: Vec<Value>,
    key_index: Map<Value, KeyId>,
    /// Integer keys met lately, by the integer modulo [`RECENT`]: Jepsen's keys rotate, so a
    /// chunk's operations use a few hundred at a time, and the map's hashing was 3% of a read.
    recent: Vec<(Value, KeyId)>,
    ops: Vec<ChunkOp>,
    /// Parallel to `ops` when spans are recorded (every operation read has one then).
    op_spans: Vec<Span>,
    elems: Vec<Value>,
    /// Where the current map's operations start.
    map_start: usize,
}

impl ChunkSink {
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
        let sym = self.strings.intern(s);
        self.nstrings = self.nstrings.max(sym as usize + 1);
        Value::Str(sym)
    }
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
        self.ops.truncate(self.map_start);
        self.op_spans.truncate(self.map_start);
    }
}

/// Read the maps starting in `start..end` (a map may not run past `end`). `None` when the chunk
/// needs the sequential reader: an error, a split inside a form, a `:commit-order`.
fn parse_chunk<'a>(
    text: &'a [u8],
    start: usize,
    end: usize,
    spans: SpanMode,
    spare: Option<Chunk<'a>>,
) -> Option<Chunk<'a>> {
    let (mut maps, mut sink) = match spare {
        Some(c) => (c.maps, ChunkSink { spans, ..c.sink }),
        None => (Vec::new(), ChunkSink { spans, ..Default::default() }),
    };
    sink.recent.resize(RECENT, (Value::Int(0), KeyId::MAX));
    let mut r = Reader::new(text, sink, 0);
    (r.s.pos, r.s.line, r.s.line_start) = (start, 1, start);
    loop {
        r.s.ws();
        let at = r.s.pos;
        if at >= end {
            break;
        }
        if r.s.peek() != Some(b'{') {
            return None;
        }
        let (line, line_start) = (r.s.line, r.s.line_start);
        r.b.map_start = r.b.ops.len();
        let m = r.op_map().ok()?;
        if m.commit_order().is_some() {
            return None;
        }
        let span = r.span(at, line, line_start);
        maps.push(ChunkMap {
            m,
            line,
            span,
            ops_end: r.b.ops.len(),
            keys_end: r.b.keys.len(),
            strings_end: r.b.nstrings,
        });
    }
    if r.s.pos != end {
        return None; // the last map ran into the next chunk: the split was inside a form
    }
    let lines = r.s.line - 1;
    Some(Chunk { maps, sink: r.b, lines })
}

/// The one-thread half: the sequential reader's state, fed chunk by chunk.
struct Replay<'a> {
    r: Reader<'a, HistoryBuilder>,
    pairer: Pairer<InvokeValue>,
    ordinal: u64,
    /// Line breaks before the current chunk.
    lines: u32,
}

impl<'a> Replay<'a> {
    /// Push each map's operations into the builder and handle the map, as the sequential reader
    /// does right after reading it.
    fn chunk(&mut self, c: &mut Chunk<'a>) -> Result<(), Error> {
        let Chunk { maps, sink, lines } = c;
        let base = self.lines;
        let line = |l: u32| l + base;
        let mut syms: Vec<Sym> = Vec::with_capacity(sink.nstrings);
        let mut keys: Vec<KeyId> = Vec::with_capacity(sink.keys.len());
        let mut elems: Vec<Value> = Vec::new();
        let mut op = 0;
        // By reference: moving each map (hundreds of bytes) out was a tenth of this thread's time.
        for cm in maps.iter_mut() {
            let b = &mut self.r.b;
            // Strings and keys the sequential reader would have numbered while reading this map.
            while syms.len() < cm.strings_end {
                syms.push(b.intern(sink.strings.get(syms.len() as Sym)));
            }
            let global = |v: Value, syms: &[Sym]| match v {
                Value::Str(s) => Value::Str(syms[s as usize]),
                v => v,
            };
            while keys.len() < cm.keys_end {
                keys.push(b.key(global(sink.keys[keys.len()], &syms)));
            }
            for (i, o) in sink.ops[op..cm.ops_end].iter().enumerate() {
                let key = keys[o.key as usize];
                let place = Place { line: line(o.place.line), column: o.place.column };
                match o.arg {
                    ChunkArg::Nil => b.push_read_nil(key),
                    ChunkArg::Val(v) if o.kind == OpKind::Read => b.push_read_scalar(key, global(v, &syms), place),
                    ChunkArg::Val(v) => b.push_write(o.kind, key, global(v, &syms), place),
                    ChunkArg::List { start, len } => {
                        let (start, len) = (start as usize, len as usize);
                        elems.clear();
                        elems.extend(sink.elems[start..start + len].iter().map(|&v| global(v, &syms)));
                        b.push_read_list(key, &elems, place);
                    }
                }
                if let Some(&s) = sink.op_spans.get(op + i) {
                    b.set_op_span(Span { line: line(s.line), ..s });
                }
            }
            op = cm.ops_end;
            let m = &mut cm.m;
            m.value_line = line(m.value_line);
            let span = cm.span.map(|s| Span { line: line(s.line), ..s });
            self.r.handle(m, line(cm.line), self.ordinal, &mut self.pairer, span)?;
            self.ordinal += 1;
        }
        self.lines += *lines;
        Ok(())
    }

    fn finish(mut self, text: &[u8]) -> Result<History, Error> {
        self.r.finish_leftovers(self.pairer)?;
        self.r.finish(text)
    }
}
