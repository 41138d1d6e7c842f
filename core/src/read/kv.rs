//! The register histories of PolySI's formats (PolySI/Plume text, dbcop; Cobra's logs go
//! straight to the builder, `read::cobra`), gathered as events and then built into a
//! [`History`], where a read of the initial value is `nil`.

use crate::error::Error;
use crate::hash::Set;
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, OpKind, Span, Status, Value};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Event {
    pub write: bool,
    pub key: i64,
    /// `None`: a read of the initial value.
    pub value: Option<i64>,
    pub place: Place,
    /// Where the event is in the input, for formats that are text a line an event.
    pub span: Option<Span>,
}

#[derive(Debug, Clone)]
pub(crate) struct Txn {
    pub id: u64,
    /// `None` for the aborted writes a format lists outside any session.
    pub session: Option<i64>,
    pub status: Status,
    pub events: Vec<Event>,
    pub line: u32,
}

/// How a format writes the initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Initial {
    /// Every key starts at 0, written by an implicit transaction before all others (the loaders
    /// of PolySI, Plume, AWDIT and dbcop): a read of 0 reads it, and a write of 0 writes it
    /// again, so it is left out, as Plume leaves it out. A transaction that only writes 0 (an
    /// explicit initialising transaction) is then empty and left out too: with or without
    /// one, a history gives the same verdicts.
    Zero,
    /// Today's dbcop (rnbguy/dbcop, `crates/core/tests/version_zero.rs` at 59b6a8c): a read of 0
    /// reads the initial value unless some transaction writes 0 to that key; then it reads that
    /// write, which is kept.
    ZeroUnlessWritten,
}

pub(crate) fn build(txns: Vec<Txn>, initial: Initial) -> Result<History, Error> {
    let zero = initial == Initial::Zero;
    let rewrites_initial = |e: &Event| zero && e.write && e.value == Some(0);
    let zero_written: Set<i64> = match initial {
        Initial::ZeroUnlessWritten => {
            txns.iter().flat_map(|t| &t.events).filter(|e| e.write && e.value == Some(0)).map(|e| e.key).collect()
        }
        _ => Set::default(),
    };
    let initial_zero = |key: i64| zero || initial == Initial::ZeroUnlessWritten && !zero_written.contains(&key);
    let mut b = HistoryBuilder::new();
    for t in &txns {
        if !t.events.is_empty() && t.events.iter().all(rewrites_initial) {
            continue;
        }
        for e in t.events.iter().filter(|e| !rewrites_initial(e)) {
            let key = b.key(Value::Int(e.key));
            match (e.write, e.value) {
                (true, Some(v)) => b.push_write(OpKind::Write, key, Value::Int(v), e.place),
                (false, Some(0)) if initial_zero(e.key) => b.push_read_nil(key),
                (false, Some(v)) => b.push_read_scalar(key, Value::Int(v), e.place),
                (_, None) => b.push_read_nil(key),
            }
            if let Some(span) = e.span {
                b.set_op_span(span);
            }
        }
        let meta = TxnMeta { id: Some(t.id), process: t.session, line: t.line, ..Default::default() };
        b.finish_txn(t.status, meta);
    }
    let mut h = b.finish()?;
    if let Some(t) = txns.iter().find(|t| t.session.is_none() && t.status == Status::Aborted) {
        mark_aborted_writes(&mut h, t.id);
    }
    // Only register operations: a history of nil reads alone is still a register history.
    if h.model == crate::history::Model::Empty && !h.ops.is_empty() {
        h.model = crate::history::Model::RwRegister;
    }
    Ok(h)
}

/// The transaction that holds the writes a format marks as aborted one by one (PolySI text's
/// `txn = -1`, dbcop's events that did not succeed): aborted, in no session, numbered
/// [`ABORTED_WRITES`]. Reading one of its values is an aborted read (G1a).
pub(crate) fn aborted_writes(events: Vec<Event>, line: u32, txns: &[Txn]) -> Option<Txn> {
    if events.is_empty() {
        return None;
    }
    let ids: Set<u64> = txns.iter().map(|t| t.id).collect();
    let id = aborted_writes_id(|id| ids.contains(&id));
    Some(Txn { id, session: None, status: Status::Aborted, events, line })
}

/// Note in the history which transaction holds the aborted writes (numbered `id`), so that
/// explanations can say what it is ([`History::aborted_writes`]).
pub(crate) fn mark_aborted_writes(h: &mut History, id: u64) {
    let gathered = |t: &crate::history::Transaction| t.id == id && t.status == Status::Aborted && t.process().is_none();
    h.aborted_writes = h.txns.iter().rposition(gathered).map(|t| t as crate::history::TxnId);
}

/// The id of the transaction of aborted writes, given which ids transactions have taken.
pub(crate) fn aborted_writes_id(taken: impl Fn(u64) -> bool) -> u64 {
    (0..=ABORTED_WRITES).map(|i| ABORTED_WRITES - i).find(|&id| !taken(id)).unwrap_or(ABORTED_WRITES)
}

/// The id of the transaction of aborted writes ([`aborted_writes`]): the largest integer
/// JavaScript holds exactly (2^53 - 1), so that every front end can name it (the formats' -1 or
/// failed events have no id of their own); the next lower free one when a transaction has it.
pub const ABORTED_WRITES: u64 = (1 << 53) - 1;
