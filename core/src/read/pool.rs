//! Chunks of a text read on rayon's pool and taken in order on this thread: how the EDN, Plume
//! and JSON readers read a large text (feature `parallel`). The history is built by the one
//! thread that takes the chunks, in the text's order, so it is the one a reader on one thread
//! builds; only the reading of each chunk is spread.

use std::ops::ControlFlow;
use std::sync::{mpsc, Mutex};

/// Read chunks `0..count` on the pool with `read(k, spare)`, at most a window ahead of the one
/// taken, and give each to `take(k, chunk)` in order on this thread. `spare` is a chunk `take`
/// handed back (`Continue(Some(chunk))`), emptied, to fill again without allocating: allocating
/// and freeing a chunk's megabytes each time cost as much system time as a whole EDN reading.
///
/// `None` when a chunk did not read (`read` gave `None`): the text is left to the reader on one
/// thread. `Some(Some(r))` when `take` stopped with `Break(r)`; `Some(None)` when it took every
/// chunk. Chunks still being read when `take` stops finish into a channel nobody reads; the
/// scope waits for them.
pub(crate) fn in_order<C: Send, R>(
    count: usize,
    read: impl Fn(usize, Option<C>) -> Option<C> + Sync,
    mut take: impl FnMut(usize, C) -> ControlFlow<R, Option<C>>,
) -> Option<Option<R>> {
    let window = 4 * rayon::current_num_threads();
    let (tx, rx) = mpsc::channel::<(usize, Option<C>)>();
    let spares: Mutex<Vec<C>> = Mutex::new(Vec::new());
    let (read, spares) = (&read, &spares);
    rayon::in_place_scope(|scope| {
        let spawn = |k: usize| {
            let tx = tx.clone();
            scope.spawn(move |_| {
                let spare = spares.lock().ok().and_then(|mut s| s.pop());
                let _ = tx.send((k, read(k, spare)));
            });
        };
        for k in 0..count.min(window) {
            spawn(k);
        }
        let mut ready: Vec<Option<Option<C>>> = (0..count).map(|_| None).collect();
        for k in 0..count {
            while ready[k].is_none() {
                let (j, c) = rx.recv().ok()?;
                ready[j] = Some(c);
            }
            if k + window < count {
                spawn(k + window);
            }
            match take(k, ready[k].take()??) {
                ControlFlow::Break(r) => return Some(Some(r)),
                ControlFlow::Continue(Some(spare)) => {
                    if let Ok(mut s) = spares.lock() {
                        s.push(spare);
                    }
                }
                ControlFlow::Continue(None) => {}
            }
        }
        Some(None)
    })
}

/// Chunk starts: `from`, then the first line start at or after each further `chunk` bytes.
pub(crate) fn line_starts(text: &[u8], from: usize, chunk: usize) -> Vec<usize> {
    let chunk = chunk.max(1);
    let mut starts = vec![from];
    let mut at = from + chunk;
    while at < text.len() {
        let Some(nl) = memchr::memchr(b'\n', &text[at - 1..]) else { break };
        let start = at + nl;
        if start >= text.len() {
            break;
        }
        starts.push(start);
        at = start + chunk;
    }
    starts
}
