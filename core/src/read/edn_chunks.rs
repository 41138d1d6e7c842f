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

use super::chunk_sink::{ChunkSink, Globals};
use super::edn::{InvokeValue, OpMap, Reader};
use super::pairing::Pairer;
use crate::error::Error;
use crate::history::builder::Place;
use crate::history::{History, HistoryBuilder, Span, SpanMode};
use std::ops::ControlFlow;

/// Bytes per chunk: large enough that a chunk's setup is noise, small enough that the threads
/// stay busy to the end and few chunks wait in memory for their replay.
pub(super) const CHUNK_BYTES: usize = 1 << 20;

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
            let (ops, txns) = (chunk.sink.sizes().0, chunk.maps.len() / 2);
            replay.r.b.reserve_at_density(ends[0] - starts[0], text.len() - starts[0], ops, txns);
        }
        match replay.chunk(&mut chunk) {
            Ok(()) => {
                release(ends[i]);
                ControlFlow::Continue(Some(chunk))
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

/// Read the maps starting in `start..end` (a map may not run past `end`). `None` when the chunk
/// needs the sequential reader: an error, a split inside a form, a `:commit-order`.
fn parse_chunk<'a>(
    text: &'a [u8],
    start: usize,
    end: usize,
    spans: SpanMode,
    spare: Option<Chunk<'a>>,
) -> Option<Chunk<'a>> {
    let (mut maps, sink) = match spare {
        Some(mut c) => {
            c.maps.clear();
            (c.maps, ChunkSink::new(spans, Some(c.sink)))
        }
        None => (Vec::new(), ChunkSink::new(spans, None)),
    };
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
        r.b.txn_start = r.b.sizes().0;
        let m = r.op_map().ok()?;
        if m.commit_order().is_some() {
            return None;
        }
        let span = r.span(at, line, line_start);
        let (ops_end, keys_end) = r.b.sizes();
        maps.push(ChunkMap { m, line, span, ops_end, keys_end, strings_end: r.b.nstrings });
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
        let mut g = Globals::default();
        // By reference: moving each map (hundreds of bytes) out was a tenth of this thread's time.
        for cm in maps.iter_mut() {
            let b = &mut self.r.b;
            g.catch_up(sink, b, cm.strings_end, cm.keys_end);
            g.push_ops(sink, b, cm.ops_end, |p| Place { line: line(p.line), ..p }, line);
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
