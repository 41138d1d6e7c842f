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
//!
//! The logs are read in pieces that start at `S` records (found by a cheap walk over the tags),
//! on rayon's pool with the feature `parallel`, and their transactions pushed to the builder in
//! order on one thread: the history, and the first error in order, are those of reading the
//! logs one after the other.

use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Model, OpKind, Status, Value};

const INIT: i64 = 0xbebe_ebee;
const NULL: i64 = 0xdead_beef;
const GC_TRUE: i64 = 0x2333_2333;
const GC_FALSE: i64 = 0x6666_6666;

/// Bytes of a log per piece: a piece's setup is noise, and the few read ahead take little memory.
const PIECE_BYTES: usize = 1 << 20;

/// Read the logs of all sessions (one byte string per log file, in session order).
pub fn read_cobra(files: &[&[u8]]) -> Result<History, Error> {
    let total: usize = files.iter().map(|f| f.len()).sum();
    read_in_pieces(files, PIECE_BYTES, total > 2 * PIECE_BYTES)
}

/// [`read_cobra`] in pieces of about `piece` bytes, on the pool when `pool` (and the feature
/// `parallel`, and a pool of two threads or more).
pub(crate) fn read_in_pieces(files: &[&[u8]], piece: usize, pool: bool) -> Result<History, Error> {
    let (pieces, txns, ops) = split(files, piece.max(1));
    let mut b = HistoryBuilder::new();
    // The walk counted them: room for all, not to copy the vectors as they grow.
    b.reserve_at_density(1, 1, ops, txns);
    let read = |k: usize, spare: Option<Piece>| -> Option<Piece> {
        let mut r = spare.unwrap_or_default();
        r.clear();
        let (file, start, end) = *pieces.get(k)?;
        r.session = file as i64 + 1;
        if let Err(e) = read_piece(files.get(file)?, start, end, file, files.len(), &mut r) {
            r.err = Some(e);
        }
        Some(r)
    };
    #[cfg(feature = "parallel")]
    if pool && pieces.len() > 1 && rayon::current_num_threads() >= 2 && rayon::current_thread_index().is_none() {
        use std::ops::ControlFlow;
        let taken = super::pool::in_order(pieces.len(), read, |_, mut r| {
            push(&mut b, &r);
            match r.err.take() {
                Some(e) => ControlFlow::Break(e),
                None => ControlFlow::Continue(Some(r)),
            }
        });
        match taken {
            Some(Some(e)) => return Err(e),
            Some(None) => return finish(b),
            // A piece that did not come back: read all again on this thread.
            None => b = HistoryBuilder::new(),
        }
    }
    let _ = pool;
    let mut spare = None;
    for k in 0..pieces.len() {
        let Some(mut r) = read(k, spare.take()) else { continue };
        push(&mut b, &r);
        if let Some(e) = r.err.take() {
            return Err(e);
        }
        spare = Some(r);
    }
    finish(b)
}

/// Where pieces start and end (log, bytes), and how many `S` and `W` or `R` records the walk
/// passed. A piece after a log's first starts at an `S` record, where the reader of the log
/// forgets the transaction it had open, so pieces read alone read as the whole log does. The
/// walk stops at a byte that is no tag: the rest is the log's last piece, whose reading finds
/// the error.
fn split(files: &[&[u8]], piece: usize) -> (Vec<(usize, usize, usize)>, usize, usize) {
    let (mut pieces, mut txns, mut ops) = (Vec::new(), 0, 0);
    for (fi, data) in files.iter().enumerate() {
        let (mut start, mut at) = (0, 0);
        while let Some(&tag) = data.get(at) {
            // A table, not a match: the walk is on the thread that builds the history.
            let size = RECORD_BYTES[tag as usize] as usize;
            if size == 0 {
                break;
            }
            if tag == b'S' {
                if at - start >= piece {
                    pieces.push((fi, start, at));
                    start = at;
                }
                txns += 1;
            }
            ops += (size > 9) as usize;
            at += size;
        }
        pieces.push((fi, start, data.len()));
    }
    (pieces, txns, ops)
}

/// Bytes of a record by its tag (0: no tag).
const RECORD_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'S' as usize] = 9;
    t[b'C' as usize] = 9;
    t[b'W' as usize] = 25;
    t[b'R' as usize] = 33;
    t
};

/// A piece of a log as read: transactions, their operations, and the error that ended it.
#[derive(Default)]
struct Piece {
    session: i64,
    txns: Vec<Txn>,
    ops: Vec<Op>,
    err: Option<Error>,
}

impl Piece {
    fn clear(&mut self) {
        self.txns.clear();
        self.ops.clear();
        self.err = None;
    }
}

struct Txn {
    id: u64,
    status: Status,
    /// Its first operation in the piece's `ops`; the next transaction's first ends them.
    ops_start: usize,
}

struct Op {
    write: bool,
    key: i64,
    /// `None`: a read of the initial value.
    value: Option<i64>,
}

/// Read `data[start..end]`, `start` a record's start, into `out`.
fn read_piece(data: &[u8], start: usize, end: usize, fi: usize, files: usize, out: &mut Piece) -> Result<(), Error> {
    let err = |at: usize, msg: String| {
        let file = if files > 1 { format!("log {} of {files}, ", fi + 1) } else { String::new() };
        Error::new(ErrorKind::Syntax, format!("{file}byte offset {at}: {msg}"))
    };
    let word = |at: usize| -> Option<i64> {
        data.get(at..at + 8).map(|b| i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    };
    // Whether the piece's last transaction is open (started, not committed).
    let mut open = false;
    let mut at = start;
    while at < end {
        let Some(&tag) = data.get(at) else { break };
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
        match tag {
            b'S' => {
                // A transaction left open (no C) is indeterminate.
                out.txns.push(Txn { id: v[0] as u64, status: Status::Indeterminate, ops_start: out.ops.len() });
                open = true;
            }
            b'C' => match out.txns.last_mut() {
                Some(t) if open && t.id == v[0] as u64 => {
                    t.status = Status::Committed;
                    open = false;
                }
                Some(t) if open => {
                    return Err(err(
                        at,
                        format!("expected the commit of transaction {}, found the commit of {}", t.id, v[0]),
                    ))
                }
                _ => return Err(err(at, format!("expected S before the commit of transaction {}", v[0]))),
            },
            _ => {
                if !open {
                    return Err(err(at, format!("expected S before this {:?} record", tag as char)));
                }
                let op = if tag == b'W' {
                    Some(Op { write: true, key: v[1], value: Some(v[0]) })
                } else {
                    let (wtxn, wid, key) = (v[0], v[1], v[2]);
                    match (wtxn == INIT || wtxn == NULL, wid == INIT || wid == NULL) {
                        (true, true) => Some(Op { write: false, key, value: None }),
                        (true, false) if wtxn == INIT && (wid == GC_TRUE || wid == GC_FALSE) => None,
                        (true, false) => {
                            return Err(err(at, format!("expected a read from the initial transaction to name the initial write, found write id {wid:#x}")));
                        }
                        _ => Some(Op { write: false, key, value: Some(wid) }),
                    }
                };
                out.ops.extend(op);
            }
        }
        at += 1 + 8 * fields;
    }
    Ok(())
}

/// Push a piece's transactions (those before its error too: the error ends the reading).
fn push(b: &mut HistoryBuilder, r: &Piece) {
    let place = Place { line: 0, column: 0 };
    for (j, t) in r.txns.iter().enumerate() {
        let end = r.txns.get(j + 1).map_or(r.ops.len(), |n| n.ops_start);
        for op in r.ops.get(t.ops_start..end).unwrap_or_default() {
            let key = b.key(Value::Int(op.key));
            match (op.write, op.value) {
                (true, Some(v)) => b.push_write(OpKind::Write, key, Value::Int(v), place),
                (false, Some(v)) => b.push_read_scalar(key, Value::Int(v), place),
                (_, None) => b.push_read_nil(key),
            }
        }
        let meta = TxnMeta { id: Some(t.id), process: Some(r.session), line: 0, ..Default::default() };
        b.finish_txn(t.status, meta);
    }
}

fn finish(b: HistoryBuilder) -> Result<History, Error> {
    let mut h = b.finish()?;
    // Only register operations: a history of nil reads alone is still a register history.
    if h.model == Model::Empty && !h.ops.is_empty() {
        h.model = Model::RwRegister;
    }
    Ok(h)
}

/// Whether bytes look like a Cobra log: a start record, and binary.
pub fn looks_like_cobra(data: &[u8]) -> bool {
    data.len() >= 9 && data[0] == b'S' && data[1..9].iter().any(|&b| !(0x09..0x80).contains(&b))
}
