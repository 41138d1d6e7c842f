//! The Cobra reader as it was before it read records straight into the builder (grail 326b674,
//! `core/src/read/cobra.rs` with `read/kv.rs`'s `build` for `Initial::Marked`): every log's
//! transactions gathered as events, then built through the public [`HistoryBuilder`]. The
//! oracle the reader must equal, history for history and error for error.

use grail_core::history::builder::{Place, TxnMeta};
use grail_core::history::{History, HistoryBuilder, Model, OpKind, Status, Value};
use grail_core::{Error, ErrorKind};

struct Event {
    write: bool,
    key: i64,
    /// `None`: a read of the initial value.
    value: Option<i64>,
    place: Place,
}

struct Txn {
    id: u64,
    session: Option<i64>,
    status: Status,
    events: Vec<Event>,
}

const INIT: i64 = 0xbebe_ebee;
const NULL: i64 = 0xdead_beef;
const GC_TRUE: i64 = 0x2333_2333;
const GC_FALSE: i64 = 0x6666_6666;

/// Read the logs of all sessions (one byte string per log file, in session order).
pub fn read_cobra_oracle(files: &[&[u8]]) -> Result<History, Error> {
    let mut txns: Vec<Txn> = Vec::new();
    for (fi, data) in files.iter().enumerate() {
        read_one(data, fi, files.len(), &mut txns)?;
    }
    build(txns)
}

fn read_one(data: &[u8], fi: usize, files: usize, txns: &mut Vec<Txn>) -> Result<(), Error> {
    let err = |at: usize, msg: String| {
        let file = if files > 1 { format!("log {} of {files}, ", fi + 1) } else { String::new() };
        Error::new(ErrorKind::Syntax, format!("{file}byte offset {at}: {msg}"))
    };
    let word = |at: usize| -> Option<i64> {
        data.get(at..at + 8).map(|b| i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    };
    let mut open: Option<usize> = None; // index in txns
    let mut at = 0usize;
    while at < data.len() {
        let tag = data[at];
        let fields = match tag {
            b'S' | b'C' => 1,
            b'W' => 3,
            b'R' => 4,
            _ => {
                return Err(err(at, format!("expected a record tag S, C, W or R, found byte 0x{tag:02x}")));
            }
        };
        let mut v = [0i64; 4];
        for (i, slot) in v.iter_mut().take(fields).enumerate() {
            *slot = word(at + 1 + 8 * i).ok_or_else(|| {
                err(
                    at,
                    format!(
                        "expected {} bytes after record tag {:?}, found the end of the log",
                        8 * fields,
                        tag as char
                    ),
                )
            })?;
        }
        let place = Place { line: 0, column: 0 };
        match tag {
            b'S' => {
                // A transaction left open (no C) is indeterminate.
                txns.push(Txn {
                    id: v[0] as u64,
                    session: Some(fi as i64 + 1),
                    status: Status::Indeterminate,
                    events: Vec::new(),
                });
                open = Some(txns.len() - 1);
            }
            b'C' => match open.take() {
                Some(i) if txns[i].id == v[0] as u64 => txns[i].status = Status::Committed,
                Some(i) => {
                    return Err(err(
                        at,
                        format!("expected the commit of transaction {}, found the commit of {}", txns[i].id, v[0]),
                    ))
                }
                None => return Err(err(at, format!("expected S before the commit of transaction {}", v[0]))),
            },
            _ => {
                let Some(i) = open else {
                    return Err(err(at, format!("expected S before this {:?} record", tag as char)));
                };
                let ev = if tag == b'W' {
                    Some(Event { write: true, key: v[1], value: Some(v[0]), place })
                } else {
                    let (wtxn, wid, key) = (v[0], v[1], v[2]);
                    match (wtxn == INIT || wtxn == NULL, wid == INIT || wid == NULL) {
                        (true, true) => Some(Event { write: false, key, value: None, place }),
                        (true, false) if wtxn == INIT && (wid == GC_TRUE || wid == GC_FALSE) => None,
                        (true, false) => {
                            return Err(err(at, format!("expected a read from the initial transaction to name the initial write, found write id {wid:#x}")));
                        }
                        _ => Some(Event { write: false, key, value: Some(wid), place }),
                    }
                };
                txns[i].events.extend(ev);
            }
        }
        at += 1 + 8 * fields;
    }
    Ok(())
}

/// `kv::build` for `Initial::Marked`, without spans.
fn build(txns: Vec<Txn>) -> Result<History, Error> {
    let mut b = HistoryBuilder::new();
    for t in &txns {
        for e in &t.events {
            let key = b.key(Value::Int(e.key));
            match (e.write, e.value) {
                (true, Some(v)) => b.push_write(OpKind::Write, key, Value::Int(v), e.place),
                (false, Some(v)) => b.push_read_scalar(key, Value::Int(v), e.place),
                (_, None) => b.push_read_nil(key),
            }
        }
        let meta = TxnMeta { id: Some(t.id), process: t.session, line: 0, ..Default::default() };
        b.finish_txn(t.status, meta);
    }
    let mut h = b.finish()?;
    if h.model == Model::Empty && !h.ops.is_empty() {
        h.model = Model::RwRegister;
    }
    Ok(h)
}
