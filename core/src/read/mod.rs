//! Readers: text in, [`History`] out. No file IO: callers hand over bytes (and unzip them).

#[cfg(feature = "parallel")]
mod chunk_sink;
mod claims;
pub mod cobra;
mod dbcop;
mod dbcop_bin;
mod edn;
#[cfg(feature = "parallel")]
mod edn_chunks;
mod input;
mod json;
mod json_fast;
mod json_spans;
mod kv;
pub mod nemesis;
mod pairing;
mod plume;
#[cfg(feature = "parallel")]
mod pool;
pub mod timekiller;
mod timekiller_fast;
mod wal;

pub use claims::ts_from_json;
pub use cobra::read_cobra;
pub use dbcop::read_dbcop;
pub use dbcop_bin::read_dbcop_bin;
pub use edn::read_edn;
/// One record of a stream at a time, for the online checker.
pub(crate) use edn::read_edn_from;
pub use input::InputText;
pub use json::read_json;
pub(crate) use json::read_json_from;
pub use kv::ABORTED_WRITES;
pub use plume::read_plume;
pub use timekiller::{read_timekiller, read_timekiller_with, TimeKillerOptions};
pub(crate) use wal::available as wal_available;
pub use wal::{read_wal, LogStream};
pub(crate) use wal::{written as written_pairs, written_by as written_pairs_by};

use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::{History, KeyId, Span, SpanMode, Status, Value};
use serde::{Deserialize, Serialize};

/// The format of a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Decide from the first characters: `{:` or `[{:` is EDN, `{"` or `[{"` is JSON.
    #[default]
    Auto,
    /// Jepsen EDN.
    Edn,
    /// JSON: elle-cli's operations or grail's native transactions (told apart per entry).
    Json,
    /// PolySI's and Plume's text: `r(key,value,session,txn)` a line.
    Plume,
    /// dbcop's JSON: an array of sessions of transactions, or `{"params": ..., "data": ...}`.
    Dbcop,
    /// dbcop's binary `history.bincode` (bincode 1.x of dbcop's `History`).
    DbcopBin,
    /// One Cobra binary client log (one session); [`read_cobra`] takes several.
    Cobra,
    /// TimeKiller's JSON (Chronos and Aion): transactions with start and commit timestamps.
    #[serde(rename = "timekiller")]
    TimeKiller,
}

impl Format {
    /// Its name, as [`Format::parse`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Edn => "edn",
            Format::Json => "json",
            Format::Plume => "plume",
            Format::Dbcop => "dbcop",
            Format::DbcopBin => "dbcop-bin",
            Format::Cobra => "cobra",
            Format::TimeKiller => "timekiller",
        }
    }

    pub fn parse(s: &str) -> Result<Format, Error> {
        match s {
            "auto" => Ok(Format::Auto),
            "edn" => Ok(Format::Edn),
            "json" | "native" | "elle-json" => Ok(Format::Json),
            "plume" | "polysi" | "text" => Ok(Format::Plume),
            "dbcop" => Ok(Format::Dbcop),
            "dbcop-bin" | "bincode" => Ok(Format::DbcopBin),
            "cobra" => Ok(Format::Cobra),
            "timekiller" | "chronos" => Ok(Format::TimeKiller),
            _ => Err(Error::new(
                ErrorKind::Usage,
                format!("unknown format {s:?}: expected auto, edn, json, plume, dbcop, dbcop-bin, cobra or timekiller"),
            )),
        }
    }
}

/// Guess the format from the first meaningful characters: dbcop's bincode from the shape of its
/// header (checked first: its first byte may be an `S`), a Cobra log starts with a binary `S`
/// record, PolySI text with `r(` or `w(`, dbcop JSON with `[[` or `{"params"`, TimeKiller's JSON
/// with an array whose first object has `sts` or `cts` and `ops` (and no `type`, `value` or
/// `status`, which grail's and elle-cli's JSON have).
pub fn detect(text: &[u8]) -> Format {
    if dbcop_bin::looks_like_dbcop_bin(text) {
        return Format::DbcopBin;
    }
    if cobra::looks_like_cobra(text) {
        return Format::Cobra;
    }
    let tokens: Vec<u8> = text.iter().copied().filter(|b| !b.is_ascii_whitespace()).take(10).collect();
    match tokens.as_slice() {
        [b'r' | b'w', b'(', ..] => return Format::Plume,
        [b'[', b'[', ..] | [b'{', b'"', b'p', b'a', b'r', b'a', b'm', b's', b'"', ..] => return Format::Dbcop,
        [b'[', b'{', b'"', ..] if timekiller::looks_like_timekiller(text) => return Format::TimeKiller,
        _ => {}
    }
    let mut it = text.iter().copied().enumerate().peekable();
    let mut after_bracket = false;
    while let Some((_, b)) = it.next() {
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
            b';' => {
                for (_, c) in it.by_ref() {
                    if c == b'\n' {
                        break;
                    }
                }
            }
            b'[' if !after_bracket => after_bracket = true,
            b'{' => {
                for (_, c) in it.by_ref() {
                    match c {
                        b' ' | b'\t' | b'\r' | b'\n' => continue,
                        b'"' => return Format::Json,
                        _ => return Format::Edn,
                    }
                }
                return Format::Edn;
            }
            b'"' => return Format::Json,
            _ => return Format::Edn,
        }
    }
    Format::Edn
}

/// The EDN reader on several threads, in chunks of about `chunk_bytes`: `None` when it leaves
/// the text to the sequential reader (one thread, a small text, a whole-history vector, a chunk
/// that does not parse). For tests that it gives what [`read_edn_sequential`] gives.
#[cfg(feature = "parallel")]
#[doc(hidden)]
pub fn read_edn_in_chunks(text: &[u8], spans: bool, chunk_bytes: usize) -> Option<Result<History, Error>> {
    edn_chunks::only_chunked(text, 0, SpanMode::all_or_none(spans), chunk_bytes, &mut |_| {})
}

/// The Plume reader on several threads, in chunks of about `chunk_bytes`: `None` when it leaves
/// the text to the reader on one thread (one thread, a small text, a line that does not read).
/// For tests that it gives what the reader always gave.
#[cfg(feature = "parallel")]
#[doc(hidden)]
pub fn read_plume_in_chunks(text: &[u8], spans: SpanMode, chunk_bytes: usize) -> Option<Result<History, Error>> {
    plume::read_plume_in_chunks(text, spans, chunk_bytes)
}

/// The Cobra reader with its logs read in pieces of about `piece_bytes` (on several threads
/// with the feature `parallel`). For tests that it gives what it gave reading them whole.
#[doc(hidden)]
pub fn read_cobra_in_pieces(files: &[&[u8]], piece_bytes: usize) -> Result<History, Error> {
    cobra::read_in_pieces(files, piece_bytes, true)
}

/// The dbcop bincode reader's short path alone: `None` when it leaves the bytes to serde.
#[doc(hidden)]
pub fn read_dbcop_bin_fast(data: &[u8]) -> Option<History> {
    dbcop_bin::read_fast(data)
}

/// The dbcop bincode reader without its short path (serde and bincode). For tests that the
/// short path gives what it gives.
#[doc(hidden)]
pub fn read_dbcop_bin_serde(data: &[u8]) -> Result<History, Error> {
    dbcop_bin::read_dbcop_bin_serde(data)
}

/// The EDN reader on one thread.
#[doc(hidden)]
pub fn read_edn_sequential(text: &[u8], spans: bool) -> Result<History, Error> {
    edn::read_sequential(text, 0, SpanMode::all_or_none(spans))
}

/// The JSON reader's short path alone: `None` when it leaves the text to serde_json's reader.
/// For tests that it gives what [`read_json_serde`] gives.
#[doc(hidden)]
pub fn read_json_fast(text: &[u8], spans: bool) -> Option<History> {
    json_fast::read(text, 0, SpanMode::all_or_none(spans))
}

/// The JSON reader's short path with its entries read on several threads, in chunks of about
/// `chunk_bytes`: `None` when it leaves the text to the short path on one thread.
#[cfg(feature = "parallel")]
#[doc(hidden)]
pub fn read_json_in_chunks(text: &[u8], spans: bool, chunk_bytes: usize) -> Option<History> {
    json_fast::read_in_chunks(text, SpanMode::all_or_none(spans), chunk_bytes)
}

/// The JSON reader without its short path (serde_json's tree of the whole text).
#[doc(hidden)]
pub fn read_json_serde(text: &[u8], spans: bool) -> Result<History, Error> {
    json::read_json_serde(text, 0, spans)
}

/// The TimeKiller reader's short path alone: `None` when it leaves the text to serde_json's
/// reader. For tests that it gives what [`read_timekiller_serde`] gives.
#[doc(hidden)]
pub fn read_timekiller_fast(text: &[u8], opts: TimeKillerOptions) -> Option<History> {
    timekiller_fast::read(text, opts)
}

/// The TimeKiller reader's short path with its transactions read on several threads, in chunks
/// of about `chunk_bytes`: `None` when it leaves the text to the short path on one thread.
#[cfg(feature = "parallel")]
#[doc(hidden)]
pub fn read_timekiller_in_chunks(text: &[u8], opts: TimeKillerOptions, chunk_bytes: usize) -> Option<History> {
    timekiller_fast::read_in_chunks(text, opts, chunk_bytes)
}

/// The TimeKiller reader without its short path (serde_json's streaming visitor).
#[doc(hidden)]
pub fn read_timekiller_serde(text: &[u8], opts: TimeKillerOptions) -> Result<History, Error> {
    timekiller::read_timekiller_serde(text, opts)
}

/// What a reader records besides the history itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Record where each operation and transaction is in the input ([`History::op_spans`],
    /// [`History::txn_spans`]; the EDN, JSON and Plume readers): 24 bytes per operation and per
    /// transaction, about half again the memory of a list-append history. On by default.
    pub spans: bool,
    /// With `spans`, in EDN, Plume text and JSON: record where each transaction's operations
    /// were read (16 bytes a transaction) instead of each operation's span, and find an
    /// operation's span from the input when it is asked for, once the input is attached
    /// ([`attach_input`]). For a caller that keeps the input anyway (the CLI maps its file): at
    /// 1M transactions of issue 20's shape, 0.15 s and 80 MB less; on a 120 MB Plume text of
    /// 5.4M operations, 100 MB less. Other formats record every span as before (and so do a
    /// Plume text whose transactions' lines are not together and a JSON text the short path
    /// leaves to serde_json's reader).
    pub locate_op_spans: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { spans: true, locate_op_spans: false }
    }
}

impl ReadOptions {
    fn span_mode(&self) -> SpanMode {
        match (self.spans, self.locate_op_spans) {
            (true, true) => SpanMode::Located,
            (spans, _) => SpanMode::all_or_none(spans),
        }
    }
}

/// Give a history read with [`ReadOptions::locate_op_spans`] its input (the very bytes it was
/// read from), so that [`History::op_span`] finds operations' spans there: each by reading its
/// transaction's value (its lines, in Plume text) again with the reader's own code, from a
/// window of the input around it ([`InputText`]). The input must not change meanwhile.
pub fn attach_input(h: &mut History, input: std::sync::Arc<dyn InputText>) {
    if h.ops_read_at.is_empty() {
        return;
    }
    use crate::history::Notation;
    let (plume, json) = (h.notation == Notation::Plume, matches!(h.notation, Notation::Native | Notation::ElleJson));
    // The writes of Plume's aborted transactions (`txn = -1`) are one transaction whose lines
    // lie anywhere after its first: read once, when first asked for.
    let aborted_writes: std::sync::OnceLock<Option<Vec<Span>>> = std::sync::OnceLock::new();
    let find = move |h: &History, o: u32| {
        let t = h.txn_of_op(o)?;
        let at = *h.ops_read_at.get(t as usize)?;
        let offset = usize::try_from(at.offset).ok()?;
        let read;
        let spans: &[Span] = match (plume, h.txns.get(t as usize)?.status) {
            (true, Status::Aborted) => {
                aborted_writes.get_or_init(|| plume::spans_of_txn_in(&*input, offset, at.line, true)).as_deref()?
            }
            (true, _) => {
                read = plume::spans_of_txn_in(&*input, offset, at.line, false)?;
                &read
            }
            _ if json => {
                read = json_fast::spans_of_ops_in(&*input, offset, at.line, at.column)?;
                &read
            }
            (false, _) => {
                read = edn::spans_of_value_in(&*input, offset, at.line)?;
                &read
            }
        };
        let range = h.op_range(t);
        // The same form read again gives the same operations; anything else finds nothing.
        if spans.len() != range.len() {
            return None;
        }
        spans.get(o as usize - range.start).copied()
    };
    h.op_span_finder = Some(crate::history::OpSpanFinder(std::sync::Arc::new(find)));
}

/// Read a history in the given format, with the spans of its operations.
pub fn read(text: &[u8], format: Format) -> Result<History, Error> {
    read_with(text, format, ReadOptions::default())
}

/// Read a history in the given format.
pub fn read_with(text: &[u8], format: Format, opts: ReadOptions) -> Result<History, Error> {
    read_releasing(text, format, opts, &mut |_| {})
}

/// [`read_with`], calling `release(n)` when the reader is done with `text[..n]`, so that a caller
/// holding the text in a mapped file can let its pages go before the history is complete (at
/// 10M transactions the text is 4 GB). A hint: the reader may still look back, to place an error.
/// The EDN reader on several threads and the Plume reader call it.
pub fn read_releasing(
    text: &[u8],
    format: Format,
    opts: ReadOptions,
    release: &mut dyn FnMut(usize),
) -> Result<History, Error> {
    match format {
        Format::Auto => read_releasing(text, detect(text), opts, release),
        Format::Edn => edn::read_edn_with(text, 0, opts.span_mode(), release),
        Format::Json => json::read_json_spans(text, 0, opts.span_mode()),
        Format::Plume => plume::read_plume_with(text, opts.span_mode(), release),
        Format::Dbcop => read_dbcop(text),
        Format::DbcopBin => read_dbcop_bin(text),
        Format::Cobra => read_cobra(&[text]),
        Format::TimeKiller => read_timekiller_with(text, TimeKillerOptions { spans: opts.spans, ..Default::default() }),
    }
}

/// History keys by their text (`1` and `"1"` alike), to match logs that print keys as strings.
pub(crate) fn key_index(h: &History) -> Map<String, KeyId> {
    h.keys
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let text = match k {
                Value::Int(i) => i.to_string(),
                Value::Str(s) => h.strings.get(s).to_string(),
            };
            (text, i as KeyId)
        })
        .collect()
}

/// The place of a serde_json error as grail gives places: 1-based line and column in characters.
/// (serde_json counts bytes, and puts an end of input right after a line break at column 0.)
pub(crate) fn serde_place(text: &[u8], e: &serde_json::Error) -> (u32, u32) {
    let line = e.line().max(1);
    let line_start = if line == 1 {
        0
    } else {
        text.iter().enumerate().filter(|&(_, &b)| b == b'\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
    };
    let mut offset = (line_start + e.column().max(1) - 1).min(text.len());
    while offset > line_start && text.get(offset).is_some_and(|&b| b & 0xC0 == 0x80) {
        offset -= 1; // back to the first byte of a character
    }
    crate::error::line_col(text, offset)
}

/// Where each JSON object directly inside the containers `enclosing` (outermost first, e.g.
/// `b"[["` for the objects of an array of arrays) starts: 1-based line and column in
/// characters, found by one scan that knows only strings and nesting (serde_json's values
/// carry no positions).
pub(crate) fn object_places(text: &[u8], enclosing: &[u8]) -> Vec<(u32, u32)> {
    let (mut places, mut stack) = (Vec::new(), Vec::new());
    let (mut line, mut column) = (1u32, 0u32);
    let (mut in_string, mut escaped) = (false, false);
    for &b in text {
        if b == b'\n' {
            line += 1;
            column = 0;
            continue;
        }
        if b & 0xC0 != 0x80 {
            column += 1; // a character starts here
        }
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                if b == b'{' && stack == enclosing {
                    places.push((line, column));
                }
                stack.push(b);
            }
            b'}' | b']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    places
}
