//! The register histories of PolySI's formats (PolySI/Plume text, dbcop, Cobra), gathered as
//! events and then built into a [`History`], so that the initial state can be recognised
//! once every write is known: these formats write the initial value as a value (0, or the
//! writes of an initial session) where grail reads `nil`.

use crate::error::Error;
use crate::hash::Set;
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, OpKind, Status, Value};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Event {
    pub write: bool,
    pub key: i64,
    /// `None`: a read of the initial value.
    pub value: Option<i64>,
    pub place: Place,
}

#[derive(Debug, Clone)]
pub(crate) struct Txn {
    pub id: u64,
    pub session: i64,
    pub status: Status,
    pub events: Vec<Event>,
    pub line: u32,
}

/// How a format writes the initial state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Initial {
    /// A read of 0 from a key no transaction writes 0 to reads the initial value (PolySI's
    /// loaders give every key an initial write of 0).
    pub zero: bool,
    /// Transactions of this session write the initial values; they are dropped, and reads of
    /// their values are reads of the initial value (Plume).
    pub session: Option<i64>,
}

pub(crate) fn build(txns: Vec<Txn>, initial: Initial) -> Result<History, Error> {
    let is_initial = |t: &Txn| initial.session == Some(t.session);
    let mut initial_values: Set<(i64, i64)> = Set::default();
    let mut written: Set<(i64, i64)> = Set::default();
    for t in &txns {
        for e in t.events.iter().filter(|e| e.write) {
            if let Some(v) = e.value {
                if is_initial(t) {
                    initial_values.insert((e.key, v));
                } else {
                    written.insert((e.key, v));
                }
            }
        }
    }
    let mut b = HistoryBuilder::new();
    for t in txns.iter().filter(|t| !is_initial(t)) {
        for e in &t.events {
            let key = b.key(Value::Int(e.key));
            match (e.write, e.value) {
                (true, Some(v)) => b.push_write(OpKind::Write, key, Value::Int(v), e.place),
                (false, Some(v))
                    if initial_values.contains(&(e.key, v))
                        || (initial.zero && v == 0 && !written.contains(&(e.key, 0))) =>
                {
                    b.push_read_nil(key)
                }
                (false, Some(v)) => b.push_read_scalar(key, Value::Int(v), e.place),
                (_, None) => b.push_read_nil(key),
            }
        }
        let meta = TxnMeta { id: Some(t.id), process: Some(t.session), line: t.line, ..Default::default() };
        b.finish_txn(t.status, meta);
    }
    let mut h = b.finish()?;
    // Only register operations: a history of nil reads alone is still a register history.
    if h.model == crate::history::Model::Empty && !h.ops.is_empty() {
        h.model = crate::history::Model::RwRegister;
    }
    Ok(h)
}
