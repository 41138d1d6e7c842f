//! PolySI's and Plume's text histories: one operation a line, `r(key,value,session,txn)` or
//! `w(key,value,session,txn)`. A transaction is every line with its `txn` id, in line order;
//! sessions order their transactions by first line. Spaces around fields and blank lines are
//! allowed; every field is a signed 64-bit integer (a negative transaction id other than -1 is
//! shown as 2^64 plus it, grail's ids being unsigned).
//!
//! Read as the peers' own loaders read it:
//! * PolySI, `TextHistoryLoader` (hengxin/PolySI-PVLDB2023-Artifacts,
//!   `artifact/PolySI/src/main/java/history/loaders/TextHistoryLoader.java` at 93ba2c5; the same
//!   in Tsunaou/PolySI at 3ecae9b): sessions as written, session 0 included; before all others a
//!   transaction of its own session (-1) writes 0 to every key the file names. Its pattern
//!   `\d++` takes no negative number.
//! * Plume (hengxin/IsoVista, `src/main/java/history/loader/TextHistoryLoader.java` at 13cfa34,
//!   and `Plume/src/main/java/alg/Plume.java` in dracoooooo/Plume at d9cc210): `txn = -1` is a
//!   write of an aborted transaction (a read line with it is dropped), and a read of its value
//!   an aborted read; a read of 0 reads the initial value and a write of 0 is ignored.
//! * AWDIT, `History::parse_plume_history` (lassemoldrup/AWDIT, `src/formats.rs` at 34052d1):
//!   `txn = -1` as Plume; session 0 ordinary; after reading, a transaction in a session of its
//!   own writes 0 to every key, and wins over any other write of 0 (duplicate writes keep the
//!   last one), so a read of 0 reads the initial value there too.
//!
//! grail follows them: 0 is every key's initial value (`kv::Initial::Zero`: a read of 0 reads
//! it; a write of 0 is left out, as Plume does, so that a transaction writing 0 to every key
//! first changes no verdict), `txn = -1` lines are aborted writes (one aborted transaction,
//! numbered [`crate::read::ABORTED_WRITES`], 2^53 - 1, which JavaScript holds; written back as -1),
//! and negative numbers parse (a negative id other than -1 is beyond what JavaScript holds: the
//! JS package and the demo cannot report on it).

#[cfg(feature = "parallel")]
mod chunks;
mod grouped;
mod line;
mod stream;

use super::input::{around, InputText};
use crate::error::Error;
use crate::history::{History, ReadAt, Span, SpanMode};

/// The transaction id PolySI's text gives the writes of aborted transactions.
const ABORTED: i64 = -1;

pub fn read_plume(text: &[u8]) -> Result<History, Error> {
    read_plume_with(text, SpanMode::Every, &mut |_| {})
}

/// [`read_plume`], recording each operation's span (its `r(...)` or `w(...)`), where to find
/// it ([`SpanMode::Located`]: where each transaction's first line starts) or nothing, calling
/// `release(n)` when done with `text[..n]` ([`super::read_releasing`]). A text whose
/// transactions' lines are not together records every span for `Located` too.
pub(crate) fn read_plume_with(text: &[u8], spans: SpanMode, release: &mut dyn FnMut(usize)) -> Result<History, Error> {
    #[cfg(feature = "parallel")]
    let chunked = chunks::read(text, spans, chunks::CHUNK_BYTES, release);
    #[cfg(not(feature = "parallel"))]
    let chunked: Option<Result<Option<History>, Error>> = None;
    let streamed = match chunked {
        Some(read) => read?,
        None => stream::read(text, spans, release)?,
    };
    match streamed {
        Some(h) => Ok(h),
        None => grouped::read(text, spans),
    }
}

/// The spans of a transaction's operations, read again from where its first line starts
/// ([`History::ops_read_at`], with [`SpanMode::Located`]) as the reader took them: its lines up
/// to the first line of another transaction, writes of 0 left out; for the transaction of
/// aborted writes, every aborted write after it (`txn = -1`). `None` when a line does not read
/// (the text is not the one read). Read from windows of `input` from the transaction's first
/// line, of whole lines, grown until a line of another transaction shows where its lines end
/// (for the aborted writes, to the text's end: the whole rest is read, once).
pub(crate) fn spans_of_txn_in(
    input: &dyn InputText,
    offset: usize,
    line: u32,
    aborted_writes: bool,
) -> Option<Vec<Span>> {
    let (spans, base) = around(input, offset, |w, at, cut| {
        let whole = if cut { w.iter().rposition(|&b| b == b'\n').map_or(&w[..0], |p| &w[..=p]) } else { w };
        spans_in(whole, ReadAt { offset: at as u64, line, column: 0 }, aborted_writes, cut)
    })?;
    Some(spans.into_iter().map(|s| s.shifted(base as u64)).collect())
}

/// The spans from `at`'s lines of `text`; with `cut` (the text goes on past these lines),
/// `None` unless a line of another transaction ended them.
fn spans_in(text: &[u8], at: ReadAt, aborted_writes: bool, cut: bool) -> Option<Vec<Span>> {
    let start = usize::try_from(at.offset).ok().filter(|&s| s <= text.len())?;
    let mut spans = Vec::new();
    let mut txn = None;
    let mut ended = false;
    for op in line::Lines::new(text, start, text.len()) {
        let mut op = op.ok()?;
        op.span.line += at.line.saturating_sub(1);
        let kept = !(op.write && op.value == 0);
        if aborted_writes {
            if op.txn == ABORTED && op.write && kept {
                spans.push(op.span);
            }
            continue;
        }
        if op.txn == ABORTED {
            continue;
        }
        if *txn.get_or_insert(op.txn) != op.txn {
            ended = true;
            break;
        }
        if kept {
            spans.push(op.span);
        }
    }
    (ended || !cut).then_some(spans)
}

/// The reader on several threads in chunks of about `chunk_bytes`: `None` when it leaves the
/// text to the reader on one thread. For tests that both give what the reader gave before.
#[cfg(feature = "parallel")]
pub(crate) fn read_plume_in_chunks(text: &[u8], spans: SpanMode, chunk_bytes: usize) -> Option<Result<History, Error>> {
    let read = chunks::read(text, spans, chunk_bytes, &mut |_| {})?;
    Some(read.and_then(|h| h.map_or_else(|| grouped::read(text, spans), Ok)))
}
