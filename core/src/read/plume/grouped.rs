//! Any Plume text, transactions' lines interleaved or not: first each line's transaction is
//! found (and every error, in line order), then the lines are read again transaction by
//! transaction, each one's in line order, into [`Stream`], as [`super::stream`] reads a text
//! whose transactions' lines are together. The reader of a text whose lines are not.

use super::line::Lines;
use super::stream::{line_start, Stream};
use super::ABORTED;
use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::{History, SpanMode};

/// Slots of the transactions met lately.
const RECENT: usize = 1024;

/// Every span is recorded (`Located` too: a transaction's lines are not together here).
pub(super) fn read(text: &[u8], spans: SpanMode) -> Result<History, Error> {
    let spans = if spans == SpanMode::None { SpanMode::None } else { SpanMode::Every };
    // (transaction's number, the line's number, where it starts) of each operation's line; the
    // aborted writes' lines (`txn = -1`) numbered after every transaction.
    let mut lines: Vec<(u32, u32, usize)> = Vec::new();
    let mut index: Map<i64, u32> = Map::default();
    // Each transaction's id, session and first line, by number.
    let mut txns: Vec<(i64, i64, u32)> = Vec::new();
    // Transactions met lately, by id modulo its size: a transaction's lines are seldom far
    // apart, and the map's lookups miss the cache.
    let mut recent = vec![(ABORTED, 0u32); RECENT];
    for op in Lines::new(text, 0, text.len()) {
        let op = op?;
        let line = op.span.line;
        if op.txn == ABORTED {
            lines.push((u32::MAX, line, line_start(&op)));
            continue;
        }
        let slot = &mut recent[op.txn as usize % RECENT];
        let i = match *slot {
            (id, i) if id == op.txn => i,
            _ => *index.entry(op.txn).or_insert_with(|| {
                txns.push((op.txn, op.session, line));
                (txns.len() - 1) as u32
            }),
        };
        *slot = (op.txn, i);
        let (_, session, first) = txns[i as usize];
        if session != op.session {
            return Err(session_changed(op.txn, session, first, op.session, line));
        }
        lines.push((i, line, line_start(&op)));
    }
    drop(index);
    let n = txns.len();
    let mut s = Stream::grouped(spans, txns.into_iter().map(|t| t.0).collect());
    for (_, line, start) in by_transaction(lines, n) {
        let Some(mut op) = Lines::new(text, start, text.len()).next().transpose()? else { continue };
        op.span.line = line;
        // Each transaction's lines now come together, its first where it first came.
        if !s.op(&op)? {
            return Err(Error::new(
                ErrorKind::Shape,
                "the Plume reader met a transaction twice after grouping its lines",
            ));
        }
    }
    s.finish()
}

/// The lines in order of their transaction's number (the aborted writes' last), each
/// transaction's in line order: a counting sort.
fn by_transaction(lines: Vec<(u32, u32, usize)>, txns: usize) -> Vec<(u32, u32, usize)> {
    let bucket = |i: u32| (i as usize).min(txns);
    let mut starts = vec![0usize; txns + 2];
    for &(i, _, _) in &lines {
        starts[bucket(i) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut out = vec![(0, 0, 0); lines.len()];
    for l in lines {
        let at = &mut starts[bucket(l.0)];
        out[*at] = l;
        *at += 1;
    }
    out
}

/// The error of a transaction's line in another session than its first line's.
pub(super) fn session_changed(txn: i64, session: i64, first: u32, found: i64, line: u32) -> Error {
    Error::at(
        ErrorKind::Shape,
        line,
        1,
        format!(
            "expected transaction {txn} to stay in session {session} (its first line, {first}), found session {found}"
        ),
    )
}
