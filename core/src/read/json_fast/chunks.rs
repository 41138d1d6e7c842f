//! The entries of a large JSON history read on several threads (feature `parallel`), as
//! `read::plume::chunks` reads Plume text: the entries split at line starts into chunks, each
//! chunk's entries are read on the pool, and this thread pushes them in order, so the history is
//! the one the reader on one thread gives. Entries in grail's own form go to the history as read
//! on the pool, their keys and strings numbered there ([`ChunkSink`]); Elle's invocations and
//! completions are paired on this thread, as that reader pairs them. A split inside an entry
//! (an entry over several lines) shows as a chunk whose first entry is not where the previous
//! chunk's reading stopped; any such mismatch, or an entry that does not read, leaves the text
//! to the reader on one thread.

use super::cursor::{Cur, Mark};
use super::entry::{Entry, Parser, RawOp, Scalar, StrF, Val};
use super::{push_raw_ops, Reader, Txn};
use crate::history::builder::Place;
use crate::history::{Span, SpanMode, Sym, Value};
use crate::read::chunk_sink::{ChunkSink, Globals};
use std::ops::ControlFlow;

/// Bytes per chunk: a chunk's setup is noise, and the few read ahead take little memory.
pub(super) const CHUNK_BYTES: usize = 1 << 20;

/// Worth trying: a pool to read on, and a text of several chunks.
pub(super) fn worth_it(text: &[u8]) -> bool {
    rayon::current_num_threads() >= 2 && rayon::current_thread_index().is_none() && text.len() > 2 * CHUNK_BYTES
}

/// How a chunk's reading ended.
enum End {
    /// At the next entry, at this byte and line (the line counted in the chunk).
    Next(usize, u32),
    /// Past the entries' closing bracket (or the end of the text, one entry a line).
    Closed(Mark),
}

struct Chunk<'a> {
    /// Entries in grail's own form, their operations in `sink`.
    txns: Vec<Taken>,
    sink: ChunkSink,
    /// Elle's entries, their operations in `ops` and `elems`.
    entries: Vec<Entry<'a>>,
    ops: Vec<RawOp<'a>>,
    elems: Vec<Scalar<'a>>,
    /// Where its first entry starts, and on which of its lines.
    first: (usize, u32),
    end: End,
}

/// An entry in grail's own form as a chunk read it; lines count in the chunk.
struct Taken {
    txn: Txn,
    span: Span,
    /// Where its operations are: byte, line, column.
    ops_at: Option<(usize, u32, u32)>,
    /// Its label, by the chunk's number.
    label: Option<Sym>,
    /// Its operations end at the sink's `ops_end`; the keys and strings it met first end at
    /// `keys_end` and `strings_end`.
    ops_end: usize,
    keys_end: usize,
    strings_end: usize,
    /// Elle's entries before it in the chunk.
    elle_before: usize,
}

/// Read the entries from the reader's place (after `[`, or at the first of one entry a line)
/// on the pool and push them; `None` to leave the text to the reader on one thread.
pub(super) fn entries<'a>(r: &mut Reader<'a>, close: Option<u8>, chunk: usize) -> Option<()> {
    let text = r.p.c.t;
    let starts = crate::read::pool::line_starts(text, r.p.c.i, chunk);
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    let (at_start, mode) = (r.p.c, r.mode);
    let read = |k: usize, spare: Option<Chunk<'a>>| -> Option<Chunk<'a>> {
        let cur = if k == 0 { at_start } else { Cur::at_line_start(text, starts[k]) };
        read_chunk(cur, ends[k], close, mode, spare)
    };
    // Where the previous chunk stopped: the next entry's byte and its line in the text.
    let mut next: Option<(usize, u32)> = None;
    let taken = crate::read::pool::in_order(starts.len(), read, |k, mut c| {
        // Lines of chunks after the first count from their start: move them to the text's.
        let offset = match next {
            None if k == 0 => 0,
            Some((at, line)) if at == c.first.0 => line as i64 - c.first.1 as i64,
            _ => return ControlFlow::Break(None),
        };
        // Lines are moved as each entry is taken and in `push_ops`: a pass of its own over a
        // chunk another core wrote was a tenth of this thread's time (1M register history).
        std::mem::swap(&mut r.p.ops, &mut c.ops);
        std::mem::swap(&mut r.p.elems, &mut c.elems);
        r.op_lines = (offset, r.p.ops.len());
        if replay(r, &mut c, offset).is_none() {
            return ControlFlow::Break(None);
        }
        match &mut c.end {
            End::Next(_, line) => *line = (*line as i64 + offset) as u32,
            End::Closed(m) => m.line = (m.line as i64 + offset) as u32,
        }
        if k == 0 {
            r.reserve(starts[0], ends[0]);
        }
        match c.end {
            End::Closed(m) => {
                r.p.c.reset(m);
                ControlFlow::Break(Some(()))
            }
            End::Next(at, line) => {
                next = Some((at, line));
                ControlFlow::Continue(Some(c))
            }
        }
    });
    // Every chunk taken and none closed the entries: not the form this reads.
    taken??
}

/// The chunk's entries pushed as the reader on one thread pushes them, their lines moved by
/// `offset` (the chunk's Elle operations in `r.p`).
fn replay<'a>(r: &mut Reader<'a>, c: &mut Chunk<'a>, offset: i64) -> Option<()> {
    let mut g = Globals::default();
    let mut elle = 0;
    for t in &c.txns {
        take_elle(r, &mut c.entries[elle..t.elle_before], offset)?;
        elle = t.elle_before;
        replay_txn(r, t, &c.sink, &mut g, offset);
    }
    take_elle(r, &mut c.entries[elle..], offset)
}

fn take_elle<'a>(r: &mut Reader<'a>, entries: &mut [Entry<'a>], offset: i64) -> Option<()> {
    for e in entries {
        shift_entry(e, offset);
        r.take(e)?;
    }
    Some(())
}

/// Push an entry in grail's own form as [`Reader::native`] does.
fn replay_txn(r: &mut Reader, t: &Taken, sink: &ChunkSink, g: &mut Globals, offset: i64) {
    let i = r.entries;
    r.entries += 1;
    let line = |l: u32| (l as i64 + offset) as u32;
    if let (Some((at, l, column)), true) = (t.ops_at, r.located) {
        r.b.ops_read_at(at, line(l), column);
    }
    g.catch_up(sink, &mut r.b, t.strings_end, t.keys_end);
    let place = Place { line: i as u32 + 1, column: 1 };
    g.push_ops(sink, &mut r.b, t.ops_end, |_| place, line);
    let label = t.label.map(|s| g.sym(s));
    let span = Span { line: line(t.span.line), ..t.span };
    let meta = t.txn.meta(r.first + i as u64, label, span.line, r.spans.then_some(span));
    r.b.finish_txn(t.txn.status, meta);
}

/// The entry just read into `e` (its operations after `held` in `p`), in grail's own form, as
/// [`Reader::native`] would push it: into the sink, its operations out of `p`.
fn take<'a>(
    p: &mut Parser<'a>,
    e: &Entry<'a>,
    sink: &mut ChunkSink,
    held: (usize, usize),
    elle_before: usize,
    scratch: &mut Vec<Value>,
) -> Option<Taken> {
    let txn = Txn::of(e)?;
    let ops_at = match e.ops {
        Val::Ops(a, b, at) => {
            // Places are the entry's number, which the replay knows.
            push_raw_ops(sink, &p.ops[a..b], &p.elems, Place::default(), 0, scratch);
            Some((at.i, at.line, at.column()))
        }
        _ => None,
    };
    let label = match e.label {
        StrF::Str(s) => Some(sink.intern(s)),
        _ => None,
    };
    p.ops.truncate(held.0);
    p.elems.truncate(held.1);
    let (ops_end, keys_end) = sink.sizes();
    Some(Taken { txn, span: e.span, ops_at, label, ops_end, keys_end, strings_end: sink.nstrings, elle_before })
}

/// The entries that start before `end`, read from `cur`.
/// `spare`, a chunk taken before, lends its vectors (growing them was a tenth of the read).
fn read_chunk<'a>(
    cur: Cur<'a>,
    end: usize,
    close: Option<u8>,
    mode: SpanMode,
    spare: Option<Chunk<'a>>,
) -> Option<Chunk<'a>> {
    let (mut txns, sink, mut entries, mut ops, mut elems) = match spare {
        Some(c) => (c.txns, Some(c.sink), c.entries, c.ops, c.elems),
        None => Default::default(),
    };
    let mut sink = ChunkSink::new(mode, sink);
    txns.clear();
    entries.clear();
    ops.clear();
    elems.clear();
    let mut p = Parser { c: cur, ops, elems };
    p.c.ws();
    let first = (p.c.i, p.c.line);
    let chunk =
        |txns, sink, entries, p: Parser<'a>, end| Chunk { txns, sink, entries, ops: p.ops, elems: p.elems, first, end };
    if close.is_some() && p.c.peek() == close {
        p.c.i += 1;
        let end = End::Closed(p.c.mark());
        return Some(chunk(txns, sink, entries, p, end));
    }
    let (mut e, mut scratch) = (Entry::default(), Vec::new());
    loop {
        let held = (p.ops.len(), p.elems.len());
        p.entry(&mut e)?;
        if e.has_ops || e.has_status {
            txns.push(take(&mut p, &e, &mut sink, held, entries.len(), &mut scratch)?);
        } else {
            entries.push(std::mem::take(&mut e));
        }
        let closed = match close {
            Some(b) => p.c.more(b)?,
            None => {
                p.c.ws();
                p.c.peek().is_none()
            }
        };
        if closed {
            let end = End::Closed(p.c.mark());
            return Some(chunk(txns, sink, entries, p, end));
        }
        p.c.ws();
        if p.c.i >= end {
            let end = End::Next(p.c.i, p.c.line);
            return Some(chunk(txns, sink, entries, p, end));
        }
    }
}

/// Add `offset` to the lines an entry holds (its operations' are moved by `push_ops`).
fn shift_entry(e: &mut Entry, offset: i64) {
    if offset == 0 {
        return;
    }
    let add = |line: &mut u32| *line = (*line as i64 + offset) as u32;
    add(&mut e.span.line);
    for v in [&mut e.ops, &mut e.value] {
        if let Val::Ops(_, _, m) = v {
            add(&mut m.line);
        }
    }
}
