//! Reading a large Plume text on several threads (feature `parallel`): the text splits at line
//! starts into chunks, each chunk's lines are read on the pool, and this thread takes their
//! operations in order into the history, as [`super::stream`] takes them line by line. The
//! history is therefore the same. A chunk with a line that does not read leaves the whole text
//! to the reader on one thread, whose error names the first bad line.

use super::line::{Lines, OpLine};
use super::stream::Stream;
use crate::error::Error;
use crate::history::{History, SpanMode};
use std::sync::{mpsc, Mutex};

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
    let starts = split(text, chunk);
    if starts.len() < 2 {
        return None;
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    let window = 4 * threads;
    let (tx, rx) = mpsc::channel::<(usize, Option<Chunk>)>();
    // Chunks taken, emptied for the next ones to fill without allocating.
    let spares: Mutex<Vec<Vec<OpLine>>> = Mutex::new(Vec::new());
    rayon::in_place_scope(|scope| {
        let spawn = |i: usize| {
            let tx = tx.clone();
            let (start, end, spares) = (starts[i], ends[i], &spares);
            scope.spawn(move |_| {
                let spare = spares.lock().ok().and_then(|mut s| s.pop());
                let _ = tx.send((i, read_chunk(text, start, end, spare)));
            });
        };
        for i in 0..starts.len().min(window) {
            spawn(i);
        }
        let mut ready: Vec<Option<Option<Chunk>>> = (0..starts.len()).map(|_| None).collect();
        let mut s = Stream::new(spans);
        let mut base = 0u32;
        // Chunks still being read when this returns finish into a channel nobody reads; the
        // scope waits for them.
        for i in 0..starts.len() {
            while ready[i].is_none() {
                let (j, c) = rx.recv().ok()?;
                ready[j] = Some(c);
            }
            if i + window < starts.len() {
                spawn(i + window);
            }
            let mut c = ready[i].take()??;
            for op in &mut c.ops {
                op.span.line += base;
                match s.op(op) {
                    Ok(true) => {}
                    Ok(false) => return Some(Ok(None)),
                    Err(e) => return Some(Err(e)),
                }
            }
            if i == 0 {
                // Room for the whole text at the first chunk's density.
                s.size_for(ends[0], text.len());
            }
            base += c.lines;
            c.ops.clear();
            if let Ok(mut sp) = spares.lock() {
                sp.push(c.ops);
            }
            release(ends[i]);
        }
        Some(s.finish().map(Some))
    })
}

/// Chunk starts: 0, then the first line start at or after each multiple of `chunk`.
fn split(text: &[u8], chunk: usize) -> Vec<usize> {
    let mut starts = vec![0];
    let mut at = chunk.max(1);
    while at < text.len() {
        let Some(nl) = memchr::memchr(b'\n', &text[at - 1..]) else { break };
        let start = at + nl;
        if start >= text.len() {
            break;
        }
        starts.push(start);
        at = start + chunk.max(1);
    }
    starts
}

/// The operations of `text[start..end]`'s lines, or `None` at a line that does not read.
fn read_chunk(text: &[u8], start: usize, end: usize, spare: Option<Vec<OpLine>>) -> Option<Chunk> {
    let mut ops = spare.unwrap_or_default();
    let mut lines = Lines::new(text, start, end);
    for op in lines.by_ref() {
        ops.push(op.ok()?);
    }
    Some(Chunk { ops, lines: lines.lines() })
}
