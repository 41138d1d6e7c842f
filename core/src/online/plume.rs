//! PolySI's and Plume's text as a stream: one operation a line, `r(key,value,session,txn)` or
//! `w(key,value,session,txn)`, each line read by the offline reader (`read::read_plume`, whose
//! module doc cites the peers' loaders), so a line means online what it means in a file: 0 is
//! the initial value (a read of it reads the initial value, a write of it is left out), and
//! `txn = -1` is a write of an aborted transaction (a read with it is dropped; each such write
//! is an aborted transaction of its own online, numbered down from 2^53 - 1
//! ([`crate::read::ABORTED_WRITES`], which JavaScript holds), where the file read whole makes them
//! one, 2^53 - 1: aborted writes are judged only by the reads of them).
//!
//! The loaders gather a transaction's lines wherever they are in the file; a stream cannot wait
//! for the file's end, so it takes a transaction as ended when its session's next transaction
//! begins (or the stream ends), as PolySI's and Plume's histories are written: a session's
//! transactions one after another, each one's lines together. A line of a transaction that had
//! ended so (its session went on) is refused, naming the line, with the way out (the file read
//! whole), rather than read otherwise than the loaders read it.

use super::cycles::OnlineTxn;
use crate::error::{Error, ErrorKind};
use crate::hash::{Map, Set};
use crate::history::Status;
use crate::read::read_plume;

/// What the lines so far tell the next: each session's open transaction, and the transactions
/// that ended (a bit each for ids below 2^28, a set for others).
#[derive(Debug, Default, Clone)]
pub struct PlumeState {
    open: Map<i64, OnlineTxn>,
    ended: Ended,
    /// Aborted writes so far: each is an aborted transaction of its own, numbered down from
    /// 2^53 - 1 (read whole, the file's are one transaction, 2^53 - 1).
    aborted: u64,
}

#[derive(Debug, Default, Clone)]
struct Ended {
    bits: Vec<u64>,
    other: Set<u64>,
}

/// Ids below this have a bit each (at most 32 MB of them); others go to a set.
const DENSE: u64 = 1 << 28;

impl Ended {
    fn contains(&self, id: u64) -> bool {
        match (id < DENSE).then_some(id as usize) {
            Some(i) => self.bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1),
            None => self.other.contains(&id),
        }
    }

    fn insert(&mut self, id: u64) {
        match (id < DENSE).then_some(id as usize) {
            Some(i) => {
                if self.bits.len() <= i / 64 {
                    self.bits.resize(i / 64 + 1, 0);
                }
                self.bits[i / 64] |= 1 << (i % 64);
            }
            None => {
                self.other.insert(id);
            }
        }
    }
}

/// The transactions these lines end (each session's previous one, when a line of its next
/// arrives; each aborted write at once), in order. The state changes only when every line is
/// taken: a refused line leaves it as it was.
pub fn read(text: &[u8], state: &mut PlumeState) -> Result<Vec<OnlineTxn>, Error> {
    let mut open = state.open.clone();
    let mut aborted = state.aborted;
    let mut ended_now: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        let line_no = n as u32 + 1;
        let h = read_plume(line).map_err(|mut e| {
            e.line = Some(line_no);
            e
        })?;
        let Some(t) = h.txns.first() else { continue }; // a write of 0, a read of an aborted one
        let mut txn = OnlineTxn::from_history(&h, 0);
        if t.status == Status::Aborted {
            txn.id = crate::read::ABORTED_WRITES.saturating_sub(aborted);
            aborted += 1;
            out.push(txn);
            continue;
        }
        let session = t.process().unwrap_or_default();
        match open.get_mut(&session) {
            Some(cur) if cur.id == txn.id => cur.ops.extend(txn.ops),
            _ => {
                if state.ended.contains(txn.id) || ended_now.contains(&txn.id) {
                    return Err(Error::at(
                        ErrorKind::Shape,
                        line_no,
                        1,
                        format!(
                            "transaction {} has a line after its session {session} went on to another transaction: a stream takes a transaction's lines together (check the file whole: grail online FILE)",
                            txn.id
                        ),
                    ));
                }
                if let Some((s, _)) = open.iter().find(|(s, o)| **s != session && o.id == txn.id) {
                    return Err(Error::at(
                        ErrorKind::Shape,
                        line_no,
                        1,
                        format!("expected transaction {} to stay in session {s}, found session {session}", txn.id),
                    ));
                }
                if let Some(prev) = open.insert(session, txn) {
                    ended_now.push(prev.id);
                    out.push(prev);
                }
            }
        }
    }
    state.open = open;
    state.aborted = aborted;
    for id in ended_now {
        state.ended.insert(id);
    }
    Ok(out)
}

/// At the stream's end: every session's open transaction, by id.
pub fn finish(state: &mut PlumeState) -> Vec<OnlineTxn> {
    let mut out: Vec<OnlineTxn> = std::mem::take(&mut state.open).into_values().collect();
    crate::par::sort::sort_by_key(&mut out, |t| t.id);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_ends_when_its_session_goes_on() {
        let mut s = PlumeState::default();
        let a = read(b"w(1,5,0,10)\nr(2,0,0,10)\nw(3,7,1,20)\n", &mut s).unwrap();
        assert!(a.is_empty(), "nothing ended yet");
        let b = read(b"r(1,5,0,11)\nw(1,9,2,-1)\nw(1,8,2,-1)\n", &mut s).unwrap();
        assert_eq!(
            b.iter().map(|t| (t.id, t.status, t.ops.len())).collect::<Vec<_>>(),
            vec![
                (10, Status::Committed, 2),
                (crate::read::ABORTED_WRITES, Status::Aborted, 1),
                (crate::read::ABORTED_WRITES - 1, Status::Aborted, 1)
            ]
        );
        let c = finish(&mut s);
        assert_eq!(c.iter().map(|t| t.id).collect::<Vec<_>>(), vec![11, 20]);
    }

    #[test]
    fn a_resumed_transaction_and_a_bad_line_are_refused_and_leave_the_state() {
        let mut s = PlumeState::default();
        read(b"w(1,5,0,10)\nw(1,6,0,11)\n", &mut s).unwrap();
        let before = format!("{s:?}");
        let e = read(b"w(2,1,0,12)\nr(1,5,0,10)\n", &mut s).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("went on"), "{e}");
        assert_eq!(format!("{s:?}"), before);
        let e = read(b"w(2,1,0,12)\nx(1,5,0,10)\n", &mut s).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        let e = read(b"w(2,1,3,11)\n", &mut s).unwrap_err();
        assert!(e.message.contains("stay in session 0"), "{e}");
    }
}
