//! Cobra's binary client logs (Tan et al., OSDI 2020; the format as PolySI's
//! `CobraHistoryLoader` reads it): one file per client session, a stream of records with
//! big-endian 64-bit integers (Java's `DataOutputStream`):
//!
//! | record | bytes | fields |
//! |---|---|---|
//! | `S` | 1 + 8 | transaction id: a transaction starts |
//! | `C` | 1 + 8 | transaction id: it commits |
//! | `W` | 1 + 24 | write id, key, value |
//! | `R` | 1 + 32 | writer's transaction id, write id, key, value |
//!
//! Cobra makes write ids unique, so a write's value in grail is its write id, and a read's is
//! the write id it names (PolySI does the same). A read whose writer transaction and write id
//! are both `0xbebeebee` (initial) or `0xdeadbeef` (null) reads the initial value; reads of the
//! garbage collector's markers (write id `0x23332333` or `0x66666666` from the initial
//! transaction) are skipped. A transaction without `C` is indeterminate.

use super::kv::{build, Event, Initial, Txn};
use crate::error::{Error, ErrorKind};
use crate::history::builder::Place;
use crate::history::{History, Status};

const INIT: i64 = 0xbebe_ebee;
const NULL: i64 = 0xdead_beef;
const GC_TRUE: i64 = 0x2333_2333;
const GC_FALSE: i64 = 0x6666_6666;

/// Read the logs of all sessions (one byte string per log file, in session order).
pub fn read_cobra(files: &[&[u8]]) -> Result<History, Error> {
    let mut txns: Vec<Txn> = Vec::new();
    for (fi, data) in files.iter().enumerate() {
        read_one(data, fi, files.len(), &mut txns)?;
    }
    build(txns, Initial::Marked)
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
                    line: 0,
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
                    Some(Event { write: true, key: v[1], value: Some(v[0]), place, span: None })
                } else {
                    let (wtxn, wid, key) = (v[0], v[1], v[2]);
                    match (wtxn == INIT || wtxn == NULL, wid == INIT || wid == NULL) {
                        (true, true) => Some(Event { write: false, key, value: None, place, span: None }),
                        (true, false) if wtxn == INIT && (wid == GC_TRUE || wid == GC_FALSE) => None,
                        (true, false) => {
                            return Err(err(at, format!("expected a read from the initial transaction to name the initial write, found write id {wid:#x}")));
                        }
                        _ => Some(Event { write: false, key, value: Some(wid), place, span: None }),
                    }
                };
                txns[i].events.extend(ev);
            }
        }
        at += 1 + 8 * fields;
    }
    Ok(())
}

/// Whether bytes look like a Cobra log: a start record, and binary.
pub fn looks_like_cobra(data: &[u8]) -> bool {
    data.len() >= 9 && data[0] == b'S' && data[1..9].iter().any(|&b| !(0x09..0x80).contains(&b))
}
