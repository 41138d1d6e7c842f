//! Reading a large Plume text on several threads (feature `parallel`): the text splits at line
//! starts into chunks, each chunk's lines are read on the pool, and this thread takes their
//! operations in order into the history, as [`super::stream`] takes them line by line. The
//! history is therefore the same. A chunk with a line that does not read leaves the whole text
//! to the reader on one thread, whose error names the first bad line.

use super::line::{Lines, OpLine};
use super::stream::Stream;
use crate::error::Error;
use crate::history::{History, SpanMode};
use std::ops::ControlFlow;

/// Bytes per chunk (about 50,000 lines): a chunk's setup is noise, and the few read ahead of
/// the replay take little memory.
pub(super) const CHUNK_BYTES: usize = 1 << 20;

/// A chunk's operations; lines count from the chunk's first (1).
struct Chunk {
    ops: Vec<OpLine>,
    lines: u32,
}

/// The text in chunks of about `chunk` bytes: `None` when it is left to the reader on one
/// thread (no pool, a small text, a line that does not read); else what [`super::stream::read`]
/// gives (`Ok(None)` when a transaction's lines are not together).
pub(super) fn read(
    text: &[u8],
    spans: SpanMode,
    chunk: usize,
    release: &mut dyn FnMut(usize),
) -> Option<Result<Option<History>, Error>> {
    // From inside a pool's worker, waiting for a chunk could hold up the very worker it waits on.
    let threads = rayon::current_num_threads();
    if threads < 2 || rayon::current_thread_index().is_some() || text.len() <= chunk {
        return None;
    }
    let starts = crate::read::pool::line_starts(text, 0, chunk);
    if starts.len() < 2 {
        return None;
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    let read = |k: usize, spare: Option<Chunk>| read_chunk(text, starts[k], ends[k], spare.map(|c| c.ops));
    let mut s = Stream::new(spans);
    let mut base = 0u32;
    let taken = crate::read::pool::in_order(starts.len(), read, |k, mut c| {
        for op in &mut c.ops {
            op.span.line += base;
            match s.op(op) {
                Ok(true) => {}
                Ok(false) => return ControlFlow::Break(Ok(None)),
                Err(e) => return ControlFlow::Break(Err(e)),
            }
        }
        if k == 0 {
            // Room for the whole text at the first chunk's density.
            s.size_for(ends[0], text.len());
        }
        base += c.lines;
        release(ends[k]);
        ControlFlow::Continue(Some(c))
    })?;
    Some(match taken {
        Some(stopped) => stopped,
        None => s.finish().map(Some),
    })
}

/// The operations of `text[start..end]`'s lines, or `None` at a line that does not read.
fn read_chunk(text: &[u8], start: usize, end: usize, spare: Option<Vec<OpLine>>) -> Option<Chunk> {
    let mut ops = spare.unwrap_or_default();
    ops.clear();
    let mut lines = Lines::new(text, start, end);
    for op in lines.by_ref() {
        ops.push(op.ok()?);
    }
    Some(Chunk { ops, lines: lines.lines() })
}
