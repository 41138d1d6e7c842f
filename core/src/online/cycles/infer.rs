//! The list-append edge rules as transactions arrive.
//!
//! Takes each committed transaction's operations, in completion order, with its sequence
//! number; keeps per key the order its reads revealed so far, who appended each value, the
//! readers of each prefix and the appends no read has ordered yet. Gives the candidate edges the
//! arrival makes ([`Cand`]), between transactions that may have left the window already (the
//! graph drops those). The rules are the offline ones (`infer::list_append`): WW joins the
//! writers of consecutive elements of a key's longest read so far, WR the writer of a read's
//! last element to the reader, RW a reader to the writer of the element after its last; an
//! append no read has ordered yet comes after every ordered element (GRAIL thesis, Appendix D,
//! Algorithm 11, lines 16-18): WW from the last ordered writer and RW from the readers of the
//! whole order, provisionally.

use super::txn::{Atom, OnlineOp, OnlineTxn};
use super::Seq;
use crate::anomaly::AnomalyKind;
use crate::graph::EdgeType;
use crate::hash::Map;
use crate::history::Status;

/// A candidate edge.
#[derive(Debug)]
pub(super) struct Cand {
    pub from: Seq,
    pub to: Seq,
    pub ty: EdgeType,
    /// The key's serial ([`Keys::name`]).
    pub key: u32,
    /// Drawn to an append no read has ordered yet (see the module's documentation).
    pub provisional: bool,
}

/// A read of an aborted append (G1a) or of an intermediate one (G1b), when both its reader and
/// its writer have arrived, or a read that disagrees with its own transaction (internal): the
/// reader (a committed transaction's sequence number, `None` when only a read after the
/// reader's own append saw it) and the writer.
pub(super) struct ReadFinding {
    pub kind: AnomalyKind,
    /// An internal finding that is a second read seeing newer versions (and its own appends
    /// since on top): allowed by read committed (`infer::is_reread` offline).
    pub reread: bool,
    pub reader: Option<Seq>,
    pub writer: Writer,
}

/// A writer: a committed transaction in the window, or one that did not commit (by its id).
pub(super) enum Writer {
    Committed(Seq),
    Other(u64),
}

/// What one arrival gives.
#[derive(Default)]
pub(super) struct Arrival {
    pub findings: Vec<ReadFinding>,
    /// Elements read whose appender's outcome is unknown (`:info`).
    pub indeterminate_reads: u64,
    /// Values appended that another transaction had appended already (duplicate-write).
    pub duplicates: u64,
    pub cands: Vec<Cand>,
    /// Keys whose last append by this transaction no read has ordered yet.
    pub unordered: u32,
    /// Earlier writers one of whose unordered appends this arrival ordered (once per append).
    pub ordered_writers: Vec<Seq>,
    /// Reads not consistent with their key's order so far (no edges drawn).
    pub incompatible_reads: u64,
}

#[derive(Debug)]
struct KeyState {
    serial: u32,
    order: Vec<Atom>,
    pos: Map<Atom, u32>,
    /// Appender of each value: (seq, whether it is the appender's last append to the key).
    writer: Map<Atom, (Seq, bool)>,
    /// External readers by the length of the list they read.
    readers: Map<u32, Vec<Seq>>,
    /// Last appends no read has ordered yet.
    unordered: Vec<(Atom, Seq)>,
    /// Appends of transactions that did not commit: their status and id.
    foreign: Map<Atom, (Status, u64)>,
    touched: Seq,
}

impl KeyState {
    /// A reader of the element at `p` (one whose list went past it), if one is still kept.
    fn reader_past(&self, p: u32) -> Option<Seq> {
        self.readers.iter().filter(|(&n, _)| n > p).flat_map(|(_, rs)| rs.iter().copied()).min()
    }
}

/// A read at `ops[i]` of `key` that returned `list`, against the transaction's own earlier
/// operations on the key: whether it appended to the key before, and whether the read agrees
/// (after an earlier read: that list, then its own appends since; otherwise ending with its own
/// appends), and whether, disagreeing, it is a reread: a longer list that starts with the
/// earlier read and ends with its own appends since. Without earlier operations on the key,
/// nothing is allocated.
fn own_view(ops: &[OnlineOp], i: usize, key: &Atom, list: &[Atom]) -> (bool, bool, bool) {
    let on_key = |o: &OnlineOp| match o {
        OnlineOp::Append { key: k, .. } | OnlineOp::Read { key: k, .. } => k == key,
        OnlineOp::Write { .. } | OnlineOp::ReadValue { .. } => false,
    };
    if !ops[..i].iter().any(on_key) {
        return (false, true, false);
    }
    let mut before: Option<&[Atom]> = None;
    let mut own: Vec<&Atom> = Vec::new();
    let mut appended = false;
    for o in ops[..i].iter().filter(|o| on_key(o)) {
        match o {
            OnlineOp::Append { value, .. } => {
                appended = true;
                own.push(value);
            }
            OnlineOp::Read { list, .. } => {
                before = Some(list.as_deref().unwrap_or(&[]));
                own.clear();
            }
            OnlineOp::Write { .. } | OnlineOp::ReadValue { .. } => {}
        }
    }
    let ends_with_own =
        list.len() >= own.len() && list[list.len() - own.len()..].iter().zip(&own).all(|(a, b)| a == *b);
    let consistent = match before {
        Some(b) => list.len() == b.len() + own.len() && list.starts_with(b) && ends_with_own,
        None => ends_with_own,
    };
    let reread = before.is_some_and(|b| list.len() > b.len() + own.len() && list.starts_with(b) && ends_with_own);
    (appended, consistent, reread)
}

/// The keys in memory, each with what its reads and appends said so far.
#[derive(Debug, Default)]
pub(super) struct Keys {
    keys: Map<Atom, KeyState>,
    names: Map<u32, Atom>,
    next_serial: u32,
    /// Buffers of one arrival, kept for the next: allocating them per transaction cost more
    /// than the rules they serve.
    spare_cands: Vec<Cand>,
    placed: Vec<(Atom, u32)>,
    reads: Vec<(Atom, u32)>,
    unordered: Vec<Atom>,
}

impl Keys {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The key of a serial, while it is in memory.
    pub fn name(&self, serial: u32) -> Option<&Atom> {
        self.names.get(&serial)
    }

    fn key(&mut self, key: &Atom, t: Seq) -> &mut KeyState {
        if !self.keys.contains_key(key) {
            let serial = self.next_serial;
            self.next_serial = self.next_serial.wrapping_add(1);
            self.names.insert(serial, key.clone());
            self.keys.insert(
                key.clone(),
                KeyState {
                    serial,
                    order: Vec::new(),
                    pos: Map::default(),
                    writer: Map::default(),
                    readers: Map::default(),
                    unordered: Vec::new(),
                    foreign: Map::default(),
                    touched: t,
                },
            );
        }
        let ks = self.keys.get_mut(key).expect("inserted above");
        ks.touched = ks.touched.max(t);
        ks
    }

    /// The edges the committed transaction `t` makes with the transactions before it.
    pub fn arrive(&mut self, t: Seq, txn: &OnlineTxn) -> Arrival {
        let mut cands = std::mem::take(&mut self.spare_cands);
        cands.clear();
        let mut a = Arrival::default();
        let mut placed = std::mem::take(&mut self.placed);
        let mut reads = std::mem::take(&mut self.reads);
        let mut unordered = std::mem::take(&mut self.unordered);
        placed.clear();
        reads.clear();
        unordered.clear();
        let cands = &mut cands;
        // Reads first: they may order earlier appends.
        for (i, op) in txn.ops.iter().enumerate() {
            match op {
                OnlineOp::Append { .. } | OnlineOp::Write { .. } | OnlineOp::ReadValue { .. } => {}
                OnlineOp::Read { key, list } => {
                    // A read after the transaction's own append (internal) makes no edge, but
                    // orders the key like any other read, unless it disagrees with the
                    // transaction's own operations (as offline: `infer::list_append::scan_read`).
                    let list: &[Atom] = list.as_deref().unwrap_or(&[]);
                    let (internal, consistent, reread) = own_view(&txn.ops, i, key, list);
                    let future = list.last().is_some_and(|v| {
                        txn.ops[i + 1..]
                            .iter()
                            .any(|o| matches!(o, OnlineOp::Append { key: k, value } if k == key && value == v))
                    });
                    if !consistent || future {
                        a.findings.push(ReadFinding {
                            kind: AnomalyKind::Internal,
                            reread: reread && !future,
                            reader: Some(t),
                            writer: Writer::Committed(t),
                        });
                    }
                    if internal && !consistent {
                        continue;
                    }
                    let ks = self.key(key, t);
                    let m = ks.order.len().min(list.len());
                    if ks.order[..m] != list[..m] {
                        a.incompatible_reads += 1;
                        continue;
                    }
                    for (i, v) in list.iter().enumerate().skip(ks.order.len()) {
                        ks.order.push(v.clone());
                        ks.pos.insert(v.clone(), i as u32);
                        if ks.writer.contains_key(v) {
                            placed.push((key.clone(), i as u32));
                        }
                    }
                    if internal {
                        continue;
                    }
                    // An external read of appends that did not commit (offline: `key_edges`).
                    if !ks.foreign.is_empty() {
                        let mut aborted = None;
                        for v in list {
                            match ks.foreign.get(v) {
                                Some(&(Status::Aborted, id)) => aborted = aborted.or(Some(id)),
                                Some(_) => a.indeterminate_reads += 1,
                                None => {}
                            }
                        }
                        if let Some(id) = aborted {
                            a.findings.push(ReadFinding {
                                kind: AnomalyKind::G1a,
                                reread: false,
                                reader: Some(t),
                                writer: Writer::Other(id),
                            });
                        }
                    }
                    // The last element is another transaction's append, not its last to the key.
                    if let Some(&(w, false)) = list.last().and_then(|v| ks.writer.get(v)) {
                        if w != t {
                            a.findings.push(ReadFinding {
                                kind: AnomalyKind::G1b,
                                reread: false,
                                reader: Some(t),
                                writer: Writer::Committed(w),
                            });
                        }
                    }
                    let n = list.len() as u32;
                    ks.readers.entry(n).or_default().push(t);
                    reads.push((key.clone(), n));
                }
            }
        }
        // Appends: the last per key installs the transaction's version.
        for (i, op) in txn.ops.iter().enumerate() {
            let OnlineOp::Append { key, value } = op else { continue };
            let last = !txn.ops[i + 1..].iter().any(|o| matches!(o, OnlineOp::Append { key: k, .. } if k == key));
            let ks = self.key(key, t);
            // A value appended twice: the first appender keeps it, as offline (duplicate-write).
            if ks.writer.contains_key(value) || ks.foreign.contains_key(value) {
                a.duplicates += 1;
                continue;
            }
            ks.writer.insert(value.clone(), (t, last));
            if let Some(&p) = ks.pos.get(value) {
                if !last {
                    // An external read that ended at this intermediate append.
                    if let Some(&r) = ks.readers.get(&(p + 1)).and_then(|rs| rs.iter().find(|&&r| r != t)) {
                        a.findings.push(ReadFinding {
                            kind: AnomalyKind::G1b,
                            reread: false,
                            reader: Some(r),
                            writer: Writer::Committed(t),
                        });
                    }
                }
                placed.push((key.clone(), p));
            } else if last {
                ks.unordered.push((value.clone(), t));
                unordered.push(key.clone());
            }
        }
        a.unordered = unordered.len() as u32;
        // Edges from newly ordered elements.
        for (key, p) in &placed {
            let Some(ks) = self.keys.get_mut(key) else { continue };
            let v = ks.order[*p as usize].clone();
            let Some(&(w, last)) = ks.writer.get(&v) else { continue };
            if let Some(i) = ks.unordered.iter().position(|(x, _)| *x == v) {
                ks.unordered.swap_remove(i);
                a.ordered_writers.push(w);
            }
            let ser = ks.serial;
            let at = |ks: &KeyState, i: usize| ks.order.get(i).and_then(|v| ks.writer.get(v)).map(|x| x.0);
            if let Some(prev) = p.checked_sub(1).and_then(|q| at(ks, q as usize)) {
                cands.push(Cand { from: prev, to: w, ty: EdgeType::Ww, key: ser, provisional: false });
            }
            if let Some(next) = at(ks, *p as usize + 1) {
                cands.push(Cand { from: w, to: next, ty: EdgeType::Ww, key: ser, provisional: false });
            }
            if last {
                for &r in ks.readers.get(&(p + 1)).map_or(&[][..], |v| &v[..]) {
                    cands.push(Cand { from: w, to: r, ty: EdgeType::Wr, key: ser, provisional: false });
                }
            }
            for &r in ks.readers.get(p).map_or(&[][..], |v| &v[..]) {
                cands.push(Cand { from: r, to: w, ty: EdgeType::Rw, key: ser, provisional: false });
            }
            if *p as usize + 1 == ks.order.len() {
                // The new last ordered version: the unordered appends come after it.
                for &(_, u) in &ks.unordered {
                    cands.push(Cand { from: w, to: u, ty: EdgeType::Ww, key: ser, provisional: true });
                }
            }
        }
        // Edges from this transaction's reads.
        for (key, n) in &reads {
            let Some(ks) = self.keys.get(key) else { continue };
            let ser = ks.serial;
            if let Some(v) = n.checked_sub(1).and_then(|i| ks.order.get(i as usize)) {
                if let Some(&(w, true)) = ks.writer.get(v) {
                    cands.push(Cand { from: w, to: t, ty: EdgeType::Wr, key: ser, provisional: false });
                }
            }
            match ks.order.get(*n as usize) {
                Some(v) => {
                    if let Some(&(w, _)) = ks.writer.get(v) {
                        cands.push(Cand { from: t, to: w, ty: EdgeType::Rw, key: ser, provisional: false });
                    }
                }
                None => {
                    for &(_, u) in &ks.unordered {
                        cands.push(Cand { from: t, to: u, ty: EdgeType::Rw, key: ser, provisional: true });
                    }
                }
            }
        }
        // Provisional edges to this transaction's unordered appends.
        for key in &unordered {
            let Some(ks) = self.keys.get(key) else { continue };
            let ser = ks.serial;
            let len = ks.order.len();
            if let Some(&(w, _)) = len.checked_sub(1).and_then(|i| ks.writer.get(&ks.order[i])) {
                cands.push(Cand { from: w, to: t, ty: EdgeType::Ww, key: ser, provisional: true });
            }
            for &r in ks.readers.get(&(len as u32)).map_or(&[][..], |v| &v[..]) {
                cands.push(Cand { from: r, to: t, ty: EdgeType::Rw, key: ser, provisional: true });
            }
        }
        a.cands = std::mem::take(cands);
        self.placed = placed;
        self.reads = reads;
        self.unordered = unordered;
        a
    }

    /// Give back an arrival's candidates' buffer, for the next arrival.
    pub fn recycle(&mut self, cands: Vec<Cand>) {
        self.spare_cands = cands;
    }

    /// The appends of a transaction that did not commit, kept to judge the reads of them: those
    /// already read are findings now (G1a for an aborted one), or reads of an indeterminate one.
    pub fn foreign(&mut self, seq_now: Seq, txn: &OnlineTxn) -> Arrival {
        let mut a = Arrival::default();
        for op in &txn.ops {
            let OnlineOp::Append { key, value } = op else { continue };
            // Not a toucher: a key only a transaction that did not commit touched may be swept.
            let ks = self.key(key, seq_now.saturating_sub(1));
            if ks.writer.contains_key(value) || ks.foreign.contains_key(value) {
                a.duplicates += 1;
                continue;
            }
            ks.foreign.insert(value.clone(), (txn.status, txn.id));
            // Judged only when another transaction read it (internal reads are the reader's own).
            let reader = ks.pos.get(value).and_then(|&p| ks.reader_past(p));
            if reader.is_some() {
                if txn.status == Status::Aborted {
                    a.findings.push(ReadFinding {
                        kind: AnomalyKind::G1a,
                        reread: false,
                        reader,
                        writer: Writer::Other(txn.id),
                    });
                } else {
                    a.indeterminate_reads += 1;
                }
            }
        }
        a
    }

    /// At the end: an element read that no transaction appended (a thin-air read), with a
    /// reader that read it.
    pub fn garbage(&self) -> Option<Option<Seq>> {
        for ks in self.keys.values() {
            for (i, v) in ks.order.iter().enumerate() {
                if !ks.writer.contains_key(v) && !ks.foreign.contains_key(v) {
                    // Only a read by another transaction is one of thin air (as offline).
                    if let Some(r) = ks.reader_past(i as u32) {
                        return Some(Some(r));
                    }
                }
            }
        }
        None
    }

    /// At the end: how many keys have two or more appends no read ordered, and two transactions
    /// that each read a key's whole order and then appended to it unread (a lost update in
    /// either order of the two appends: `engine::open_pairs`).
    pub fn open(&self) -> (usize, Option<(Seq, Seq)>) {
        let mut keys = 0;
        let mut pair = None;
        for ks in self.keys.values().filter(|ks| ks.unordered.len() >= 2) {
            keys += 1;
            if pair.is_none() {
                let whole = ks.readers.get(&(ks.order.len() as u32)).map_or(&[][..], |v| &v[..]);
                let both: Vec<Seq> = ks.unordered.iter().map(|u| u.1).filter(|u| whole.contains(u)).collect();
                if let [a, b, ..] = both[..] {
                    pair = Some((a.min(b), a.max(b)));
                }
            }
        }
        (keys, pair)
    }

    /// Forget the keys no transaction from `base` on touched, and, of the others, the readers
    /// and unordered appends of transactions before `base`.
    pub fn sweep(&mut self, base: Seq) {
        let names = &mut self.names;
        self.keys.retain(|_, ks| {
            let keep = ks.touched >= base;
            if keep {
                ks.readers.retain(|_, rs| {
                    rs.retain(|&r| r >= base);
                    !rs.is_empty()
                });
                ks.unordered.retain(|x| x.1 >= base);
            } else {
                names.remove(&ks.serial);
            }
            keep
        });
        self.keys.shrink_to_fit();
        self.names.shrink_to_fit();
    }

    /// An estimate of the heap memory held (bytes).
    pub fn memory(&self) -> usize {
        use std::mem::size_of;
        let atom = size_of::<Atom>();
        let mut b = self.keys.capacity() * (atom + size_of::<KeyState>());
        for ks in self.keys.values() {
            b += ks.order.capacity() * atom
                + ks.pos.capacity() * (atom + 8)
                + ks.writer.capacity() * (atom + 16)
                + ks.unordered.capacity() * (atom + 8);
            b += ks.readers.capacity() * 32 + ks.readers.values().map(|r| r.capacity() * 8).sum::<usize>();
        }
        b + self.names.capacity() * (atom + 8)
    }
}
