//! The entries of a large JSON history read on several threads (feature `parallel`), as
//! `read::plume::chunks` reads Plume text: the entries split at line starts into chunks, each
//! chunk's entries are read on the pool, and this thread pushes them in order, so the history is
//! the one the reader on one thread gives. A split inside an entry (an entry over several lines)
//! shows as a chunk whose first entry is not where the previous chunk's reading stopped; any
//! such mismatch, or an entry that does not read, leaves the text to the reader on one thread.

use super::cursor::{Cur, Mark};
use super::entry::{Entry, Parser, RawOp, Scalar, Val};
use super::Reader;
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
    entries: Vec<Entry<'a>>,
    ops: Vec<RawOp<'a>>,
    elems: Vec<Scalar<'a>>,
    /// Where its first entry starts, and on which of its lines.
    first: (usize, u32),
    end: End,
}

/// Read the entries from the reader's place (after `[`, or at the first of one entry a line)
/// on the pool and push them; `None` to leave the text to the reader on one thread.
pub(super) fn entries<'a>(r: &mut Reader<'a>, close: Option<u8>, chunk: usize) -> Option<()> {
    let text = r.p.c.t;
    let starts = crate::read::pool::line_starts(text, r.p.c.i, chunk);
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    let at_start = r.p.c;
    let read = |k: usize, spare: Option<Chunk<'a>>| -> Option<Chunk<'a>> {
        let cur = if k == 0 { at_start } else { Cur::at_line_start(text, starts[k]) };
        read_chunk(cur, ends[k], close, spare)
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
        for e in &mut c.entries {
            shift_entry(e, offset);
            if r.take(e).is_none() {
                return ControlFlow::Break(None);
            }
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

/// The entries that start before `end`, read from `cur`.
/// `spare`, a chunk taken before, lends its vectors (growing them was a tenth of the read).
fn read_chunk<'a>(cur: Cur<'a>, end: usize, close: Option<u8>, spare: Option<Chunk<'a>>) -> Option<Chunk<'a>> {
    let (mut entries, mut ops, mut elems) = spare.map(|c| (c.entries, c.ops, c.elems)).unwrap_or_default();
    entries.clear();
    ops.clear();
    elems.clear();
    let mut p = Parser { c: cur, ops, elems };
    p.c.ws();
    let first = (p.c.i, p.c.line);
    if close.is_some() && p.c.peek() == close {
        p.c.i += 1;
        return Some(Chunk { entries, ops: p.ops, elems: p.elems, first, end: End::Closed(p.c.mark()) });
    }
    loop {
        entries.push(Entry::default());
        p.entry(entries.last_mut()?)?;
        let closed = match close {
            Some(b) => p.c.more(b)?,
            None => {
                p.c.ws();
                p.c.peek().is_none()
            }
        };
        if closed {
            let end = End::Closed(p.c.mark());
            return Some(Chunk { entries, ops: p.ops, elems: p.elems, first, end });
        }
        p.c.ws();
        if p.c.i >= end {
            let end = End::Next(p.c.i, p.c.line);
            return Some(Chunk { entries, ops: p.ops, elems: p.elems, first, end });
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
