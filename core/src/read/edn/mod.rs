//! Jepsen histories in EDN: one operation map per line, or one vector of maps.
//!
//! A zero-copy scanner for the subset Jepsen writes. `clojure-reader` parses these histories at
//! about 54 MB/s, too slow for a 1M-transaction history in 2 s; it stays the oracle in the tests.
//! Forms grail does not need (`:time` of a nemesis, tagged literals, sets) are skipped unread.
//!
//! One job a file: [`scan`] cuts the text into tokens and skips forms, [`op_map`] reads an
//! operation map's fields, [`value`] reads a transaction's micro-operations, [`reader`] decides
//! what each map is (pairing invocations and completions) into a [`Sink`] ([`sink`]), and
//! [`spans`] finds the byte ranges and columns of what was read.

mod op_map;
mod reader;
mod scan;
mod sink;
mod spans;
mod value;

pub(super) use reader::Reader;
pub(super) use sink::Sink;
pub(super) use spans::spans_of_value_in;
/// What the parallel reader ([`super::edn_chunks`]) also replays.
#[cfg(feature = "parallel")]
pub(super) use {op_map::OpMap, reader::InvokeValue};

use crate::error::Error;
use crate::history::{History, HistoryBuilder, SpanMode};

/// Parse a Jepsen EDN history.
pub fn read_edn(text: &[u8]) -> Result<History, Error> {
    read_edn_with(text, 0, SpanMode::Every, &mut |_| {})
}

/// [`read_edn`] for records of a stream read one at a time (the online checker's): the text's
/// operations stand at `first`, `first + 1`, ... of the stream, which is the id of a transaction
/// without an `:index` (and the position of its operation). Errors are the same as `read_edn`'s.
pub(crate) fn read_edn_from(text: &[u8], first: u64) -> Result<History, Error> {
    read_edn_with(text, first, SpanMode::Every, &mut |_| {})
}

/// [`read_edn_from`], recording the span of every operation and transaction or none, telling
/// `release` how much of the text it is done with ([`super::read_releasing`]).
pub(crate) fn read_edn_with(
    text: &[u8],
    first: u64,
    spans: SpanMode,
    release: &mut dyn FnMut(usize),
) -> Result<History, Error> {
    #[cfg(feature = "parallel")]
    if let Some(h) = super::edn_chunks::only_chunked(text, first, spans, super::edn_chunks::CHUNK_BYTES, release) {
        return h;
    }
    #[cfg(not(feature = "parallel"))]
    let _ = release;
    read_sequential(text, first, spans)
}

/// The reader on one thread: the reference the parallel reader must equal.
pub(super) fn read_sequential(text: &[u8], first: u64, spans: SpanMode) -> Result<History, Error> {
    let mut b = HistoryBuilder::new();
    b.set_span_mode(spans);
    let mut r = Reader::new(text, b, first);
    r.run()?;
    r.finish(text)
}
