//! Online checking (Zellag & Kemme 2014, Sect. 5.2 and 6): transactions arrive in completion
//! order; each new cycle is reported when the transaction that closes it arrives, and memory is
//! bounded by a window of the most recent committed transactions.
//!
//! List-append histories only (appends and list reads): their version order is revealed by
//! reads, so an edge appears once both of its transactions and the read that orders them have
//! arrived. The rules are the offline ones (`infer::list_append`): WW joins the writers of
//! consecutive elements of a key's longest read so far, WR the writer of a read's last element to
//! the reader, RW a reader to the writer of the element after its last. An append no read has
//! ordered yet comes after every ordered element (GRAIL thesis, Appendix D, Algorithm 11, lines
//! 16-18), so it gets WW from the last ordered writer and RW from the readers of the whole order,
//! as offline, but provisionally: the order known when it arrived.
//!
//! A cycle is searched when an edge between two transactions that had none is added: simple
//! paths back from its head to its tail, at most `max_length` transactions in all, pruned by a
//! reverse breadth-first search from the tail; edges are inserted one at a time, so each cycle is
//! found exactly once, by its last edge. Most new edges point forward in completion order, so
//! paths back are short (Zellag & Kemme 5.2, the Last-Committer-Border).
//!
//! A cycle is reported with its classes as they are when it closes; one that went through a
//! provisional edge (`provisional: true`) is counted in [`OnlineChecker::summary`] with its
//! classes once its edges are settled by later reads (a lost update whose two appends no read
//! has ordered yet looks like two anti-dependencies until one does).
//!
//! Memory: Zellag & Kemme's Theorem 6.1 bounds a cycle's span by `n * Δmax` (n transactions, the
//! longest transaction's duration). A window of `W` transactions keeps every cycle whose
//! transactions all completed within `W` arrivals; the caller sets `W` to the number of
//! transactions that complete in `C_max * Δmax` (for `C` concurrent transactions at a time and
//! durations counted in completions, about `C * C_max * Δmax`). Transactions leave the window
//! oldest first; one that leaves with an append no read ordered yet is counted in a note, and so
//! is every edge that reached a transaction already gone.

use super::classify::classify;
use super::{ClassifiedCycle, Tally, NO_LABEL};
use crate::error::{Error, ErrorKind};
use crate::graph::EdgeType;
use crate::hash::Map;
use crate::history::{Arg, History, OpKind, Status, TxnId, Value};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A key or a value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Atom {
    Int(i64),
    Str(String),
}

impl Atom {
    fn from_json(v: &serde_json::Value) -> Option<Atom> {
        match v {
            serde_json::Value::Number(n) => n.as_i64().map(Atom::Int),
            serde_json::Value::String(s) => Some(Atom::Str(s.clone())),
            _ => None,
        }
    }
    fn json(&self) -> serde_json::Value {
        match self {
            Atom::Int(i) => serde_json::Value::from(*i),
            Atom::Str(s) => serde_json::Value::from(s.as_str()),
        }
    }
}

/// A micro-operation of a list-append transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnlineOp {
    Append {
        key: Atom,
        value: Atom,
    },
    /// `None`: a read of nothing (`nil`), the same as an empty list.
    Read {
        key: Atom,
        list: Option<Vec<Atom>>,
    },
}

/// A transaction as the online checker takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineTxn {
    pub id: u64,
    pub label: Option<String>,
    pub status: Status,
    pub ops: Vec<OnlineOp>,
}

fn shape(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Shape, msg)
}

impl OnlineTxn {
    /// A transaction in grail's native JSON form: `{"id": 3, "label": "pay", "status":
    /// "committed", "ops": [["append", "x", 1], ["r", "x", [1]]]}` (`status` defaults to
    /// committed; `id` to the arrival number, given as `default_id`).
    pub fn from_json(v: &serde_json::Value, default_id: u64) -> Result<OnlineTxn, Error> {
        let obj = v.as_object().ok_or_else(|| shape("expected a transaction object with \"ops\""))?;
        let id = match obj.get("id") {
            None | Some(serde_json::Value::Null) => default_id,
            Some(x) => x.as_u64().ok_or_else(|| shape("expected \"id\" to be a non-negative integer"))?,
        };
        let label = match obj.get("label") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(shape("expected \"label\" to be a string")),
        };
        let status = match obj.get("status").and_then(|s| s.as_str()) {
            None | Some("committed" | "ok") => Status::Committed,
            Some("aborted" | "fail") => Status::Aborted,
            Some("indeterminate" | "info") => Status::Indeterminate,
            Some(s) => return Err(shape(format!("unknown status {s:?}"))),
        };
        let ops = obj.get("ops").and_then(|o| o.as_array()).ok_or_else(|| shape("expected \"ops\" to be an array"))?;
        let mut out = Vec::with_capacity(ops.len());
        for op in ops {
            let a = op.as_array().filter(|a| a.len() == 3).ok_or_else(|| shape("expected an op [f, key, value]"))?;
            let key = Atom::from_json(&a[1]).ok_or_else(|| shape("expected a key to be an integer or a string"))?;
            match a[0].as_str() {
                Some("append") => {
                    let value = Atom::from_json(&a[2])
                        .ok_or_else(|| shape("expected an appended value to be an integer or a string"))?;
                    out.push(OnlineOp::Append { key, value });
                }
                Some("r") => {
                    let list = match &a[2] {
                        serde_json::Value::Null => None,
                        serde_json::Value::Array(xs) => Some(
                            xs.iter()
                                .map(Atom::from_json)
                                .collect::<Option<Vec<Atom>>>()
                                .ok_or_else(|| shape("expected list elements to be integers or strings"))?,
                        ),
                        _ => return Err(shape("expected a read to return a list or null")),
                    };
                    out.push(OnlineOp::Read { key, list });
                }
                Some("w") => {
                    return Err(Error::new(
                        ErrorKind::Usage,
                        "online checking takes list-append histories (\"append\" and \"r\"), not register writes",
                    ))
                }
                _ => return Err(shape("expected an op's f to be \"append\" or \"r\"")),
            }
        }
        Ok(OnlineTxn { id, label, status, ops: out })
    }

    /// A transaction of a parsed (list-append) history.
    pub fn from_history(h: &History, t: TxnId) -> OnlineTxn {
        let atom = |v: Value| match v {
            Value::Int(i) => Atom::Int(i),
            Value::Str(s) => Atom::Str(h.strings.get(s).to_string()),
        };
        let txn = &h.txns[t as usize];
        let ops = h
            .ops_of(t)
            .iter()
            .filter_map(|op| {
                let key = atom(h.key(op.key));
                match (op.kind, op.arg) {
                    (OpKind::Read, Arg::Nil) => Some(OnlineOp::Read { key, list: None }),
                    (OpKind::Read, _) => {
                        Some(OnlineOp::Read { key, list: Some(h.list(op).iter().map(|&v| atom(v)).collect()) })
                    }
                    (_, Arg::Val(v)) => Some(OnlineOp::Append { key, value: atom(v) }),
                    _ => None,
                }
            })
            .collect();
        OnlineTxn { id: txn.id, label: h.label(t).map(String::from), status: txn.status, ops }
    }
}

/// Options of the online checker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OnlineOptions {
    /// How many committed transactions stay in memory.
    pub window: usize,
    /// Report cycles of at most this many transactions (2 to 255).
    pub max_length: usize,
    /// Bound on search steps per arriving transaction (a search cut short is noted).
    pub max_steps: u64,
}

impl Default for OnlineOptions {
    fn default() -> Self {
        OnlineOptions { window: 100_000, max_length: 8, max_steps: 1_000_000 }
    }
}

/// A cycle, reported when its last edge arrives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnlineAnomaly {
    /// The cycle and its classes, as the offline analysis lists them (flattened: one JSON object).
    #[serde(flatten)]
    pub cycle: ClassifiedCycle,
    /// The transaction whose arrival closed the cycle.
    pub closed_by: u64,
    /// Some edge of it was drawn to an append no read had ordered yet: the offline check of the
    /// whole history may place that append later and find a longer cycle instead.
    pub provisional: bool,
}

/// Counters of the online checker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct OnlineStats {
    pub transactions: u64,
    pub committed: u64,
    /// Transactions in the window now, and at most.
    pub live: usize,
    pub peak_live: usize,
    pub cycles: u64,
    pub evicted: u64,
    /// Transactions that left the window with an append no read had ordered yet.
    pub evicted_unordered: u64,
    /// Edges that reached a transaction already out of the window.
    pub edges_to_evicted: u64,
    /// Searches cut short by `max_steps`.
    pub truncated_searches: u64,
    /// Reads that were not a prefix of (or extension of) their key's order (no edges drawn).
    pub incompatible_reads: u64,
    /// Keys in memory now, and at most.
    pub keys: usize,
    pub peak_keys: usize,
}

/// Counts so far, for the caller's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnlineSummary {
    pub stats: OnlineStats,
    pub classes: Vec<super::ClassCount>,
    pub lengths: Vec<super::LengthCount>,
    pub patterns: Vec<super::PatternCount>,
    pub notes: Vec<String>,
}

type Seq = u64;

#[derive(Debug, Clone)]
struct Adj {
    to: Seq,
    mask: u8,
    /// (type, key serial) of the edges between the two, a few at most.
    keys: Vec<(u8, u32)>,
}

const MAX_EDGE_KEYS: usize = 8;

#[derive(Debug)]
struct Node {
    id: u64,
    label: Option<Box<str>>,
    out: Vec<Adj>,
    inn: Vec<Seq>,
    /// Appends of this transaction no read has ordered yet.
    unordered: u32,
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
    touched: Seq,
}

/// The streaming checker.
#[derive(Debug)]
pub struct OnlineChecker {
    opts: OnlineOptions,
    nodes: VecDeque<Node>,
    /// Sequence number of `nodes[0]`.
    base: Seq,
    keys: Map<Atom, KeyState>,
    key_names: Map<u32, Atom>,
    next_serial: u32,
    stats: OnlineStats,
    tally: Tally,
    /// Cycles reported through a provisional edge, not yet counted in `tally`.
    pending: Vec<PendingCycle>,
    // Search buffers, indexed by position in the window.
    dist: Vec<(u32, u8)>,
    on_path: Vec<u32>,
    epoch: u32,
    since_sweep: usize,
}

#[derive(Debug)]
struct PendingCycle {
    seqs: Vec<Seq>,
    classes: super::classify::Classes,
    labels: Vec<String>,
}

struct Cand {
    from: Seq,
    to: Seq,
    ty: EdgeType,
    key: u32,
    /// Drawn to an append no read has ordered yet (see the module's documentation).
    provisional: bool,
}

impl OnlineChecker {
    pub fn new(opts: OnlineOptions) -> OnlineChecker {
        // Distances in the search are kept in a byte: cycles longer than 255 are not searched.
        let opts = OnlineOptions { window: opts.window.max(2), max_length: opts.max_length.clamp(2, 255), ..opts };
        OnlineChecker {
            opts,
            nodes: VecDeque::new(),
            base: 0,
            keys: Map::default(),
            key_names: Map::default(),
            next_serial: 0,
            stats: OnlineStats::default(),
            tally: Tally::default(),
            pending: Vec::new(),
            dist: Vec::new(),
            on_path: Vec::new(),
            epoch: 0,
            since_sweep: 0,
        }
    }

    pub fn options(&self) -> &OnlineOptions {
        &self.opts
    }

    pub fn stats(&self) -> OnlineStats {
        self.stats
    }

    /// Take the next transaction (in completion order); returns the cycles it closed.
    pub fn push(&mut self, txn: &OnlineTxn) -> Vec<OnlineAnomaly> {
        self.stats.transactions += 1;
        if txn.status != Status::Committed {
            return Vec::new(); // aborted writes make no edges; indeterminate ones are not judged
        }
        self.stats.committed += 1;
        let t = self.base + self.nodes.len() as Seq;
        self.nodes.push_back(Node {
            id: txn.id,
            label: txn.label.as_deref().map(Box::from),
            out: Vec::new(),
            inn: Vec::new(),
            unordered: 0,
        });
        let mut cands: Vec<Cand> = Vec::new();
        let mut placed: Vec<(Atom, u32)> = Vec::new();
        let mut reads: Vec<(Atom, u32)> = Vec::new();
        let mut own: Vec<&Atom> = Vec::new();
        // Reads first: they may order earlier appends.
        for op in &txn.ops {
            match op {
                OnlineOp::Append { key, .. } => {
                    if !own.contains(&key) {
                        own.push(key);
                    }
                }
                OnlineOp::Read { key, list } => {
                    // A read after the transaction's own append (internal) makes no edge, but
                    // orders the key like any other read.
                    let internal = own.contains(&key);
                    let list: &[Atom] = list.as_deref().unwrap_or(&[]);
                    let ks = self.key(key, t);
                    let m = ks.order.len().min(list.len());
                    if ks.order[..m] != list[..m] {
                        self.stats.incompatible_reads += 1;
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
                    let n = list.len() as u32;
                    ks.readers.entry(n).or_default().push(t);
                    reads.push((key.clone(), n));
                }
            }
        }
        // Appends: the last per key installs the transaction's version.
        let mut unordered: Vec<Atom> = Vec::new();
        for (i, op) in txn.ops.iter().enumerate() {
            let OnlineOp::Append { key, value } = op else { continue };
            let last = !txn.ops[i + 1..].iter().any(|o| matches!(o, OnlineOp::Append { key: k, .. } if k == key));
            let ks = self.key(key, t);
            ks.writer.insert(value.clone(), (t, last));
            if let Some(&p) = ks.pos.get(value) {
                placed.push((key.clone(), p));
            } else if last {
                ks.unordered.push((value.clone(), t));
                unordered.push(key.clone());
            }
        }
        if let Some(n) = self.nodes.back_mut() {
            n.unordered += unordered.len() as u32;
        }
        // Edges from newly ordered elements.
        for (key, p) in &placed {
            let Some(ks) = self.keys.get_mut(key) else { continue };
            let v = ks.order[*p as usize].clone();
            let Some(&(w, last)) = ks.writer.get(&v) else { continue };
            if let Some(i) = ks.unordered.iter().position(|(x, _)| *x == v) {
                ks.unordered.swap_remove(i);
                if let Some(n) = w.checked_sub(self.base).and_then(|i| self.nodes.get_mut(i as usize)) {
                    n.unordered = n.unordered.saturating_sub(1);
                }
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
        let found = self.apply(&cands, txn.id);
        if !self.pending.is_empty() && self.stats.committed.is_multiple_of(1024) {
            self.settle();
        }
        self.evict();
        self.stats.live = self.nodes.len();
        self.stats.peak_live = self.stats.peak_live.max(self.nodes.len());
        self.stats.keys = self.keys.len();
        self.stats.peak_keys = self.stats.peak_keys.max(self.keys.len());
        found
    }

    fn key(&mut self, key: &Atom, t: Seq) -> &mut KeyState {
        if !self.keys.contains_key(key) {
            let serial = self.next_serial;
            self.next_serial = self.next_serial.wrapping_add(1);
            self.key_names.insert(serial, key.clone());
            self.keys.insert(
                key.clone(),
                KeyState {
                    serial,
                    order: Vec::new(),
                    pos: Map::default(),
                    writer: Map::default(),
                    readers: Map::default(),
                    unordered: Vec::new(),
                    touched: t,
                },
            );
        }
        let ks = self.keys.get_mut(key).expect("inserted above");
        ks.touched = t;
        ks
    }

    fn node(&self, s: Seq) -> Option<&Node> {
        s.checked_sub(self.base).and_then(|i| self.nodes.get(i as usize))
    }

    fn node_mut(&mut self, s: Seq) -> Option<&mut Node> {
        s.checked_sub(self.base).and_then(|i| self.nodes.get_mut(i as usize))
    }

    /// Add candidate edges; search for cycles through each pair that had no edge before.
    fn apply(&mut self, cands: &[Cand], closer: u64) -> Vec<OnlineAnomaly> {
        let mut new_pairs: Vec<Adj> = Vec::new();
        let mut new_from: Vec<Seq> = Vec::new();
        for c in cands {
            if c.from == c.to {
                continue;
            }
            if c.from < self.base || c.to < self.base {
                self.stats.edges_to_evicted += 1;
                continue;
            }
            let bit = if c.provisional { c.ty.bit() << 4 } else { c.ty.bit() };
            let kt = (c.ty as u8, c.key);
            let add_key = |a: &mut Adj| {
                a.mask |= bit;
                if a.keys.len() < MAX_EDGE_KEYS && !a.keys.contains(&kt) {
                    a.keys.push(kt);
                }
            };
            if let Some(i) = new_pairs.iter().zip(&new_from).position(|(a, &f)| f == c.from && a.to == c.to) {
                add_key(&mut new_pairs[i]);
                continue;
            }
            let Some(n) = self.node_mut(c.from) else { continue };
            if let Some(a) = n.out.iter_mut().find(|a| a.to == c.to) {
                add_key(a);
                continue;
            }
            let mut a = Adj { to: c.to, mask: 0, keys: Vec::new() };
            add_key(&mut a);
            new_pairs.push(a);
            new_from.push(c.from);
        }
        let mut found = Vec::new();
        for (a, from) in new_pairs.into_iter().zip(new_from) {
            let to = a.to;
            if let Some(n) = self.node_mut(from) {
                n.out.push(a);
            }
            if let Some(n) = self.node_mut(to) {
                n.inn.push(from);
            }
            self.search(from, to, closer, &mut found);
        }
        found
    }

    fn slot(&self, s: Seq) -> usize {
        (s - self.base) as usize
    }

    /// Cycles through the edge `u -> v`: simple paths `v ~> u`.
    fn search(&mut self, u: Seq, v: Seq, closer: u64, found: &mut Vec<OnlineAnomaly>) {
        let l = self.opts.max_length as u32;
        let n = self.nodes.len();
        if self.dist.len() < n {
            self.dist.resize(n, (0, 0));
            self.on_path.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.dist.iter_mut().for_each(|d| d.0 = 0);
            self.on_path.iter_mut().for_each(|d| *d = 0);
            self.epoch = 1;
        }
        let ep = self.epoch;
        let mut steps = 0u64;
        // Is there a path v ~> u of at most l - 1 edges? A bidirectional breadth-first search
        // (forward from v, backward from u, the smaller frontier first) visits each vertex once,
        // where the depth-first search below enumerates paths: most new edges close no cycle.
        // It leaves each vertex's distance to u (up to `back` edges) for the depth-first search.
        let reach = l - 1;
        let base = self.base;
        let (nodes, dist, fwd) = (&self.nodes, &mut self.dist, &mut self.on_path);
        let slot = |x: Seq| (x - base) as usize;
        dist[slot(u)] = (ep, 0);
        fwd[slot(v)] = ep;
        let mut touched: Vec<Seq> = vec![v];
        let (mut ffront, mut bfront) = (vec![v], vec![u]);
        let (mut fdepth, mut back) = (0u32, 0u32);
        let mut ok = false;
        'bfs: while fdepth + back < reach && !ffront.is_empty() && !bfront.is_empty() {
            let mut next = Vec::new();
            if ffront.len() <= bfront.len() {
                for &x in &ffront {
                    let Some(node) = nodes.get(slot(x)) else { continue };
                    steps += node.out.len() as u64;
                    for a in &node.out {
                        if a.to < base {
                            continue;
                        }
                        let sy = slot(a.to);
                        if dist[sy].0 == ep {
                            ok = true;
                            break 'bfs;
                        }
                        if fwd[sy] != ep {
                            fwd[sy] = ep;
                            touched.push(a.to);
                            next.push(a.to);
                        }
                    }
                }
                fdepth += 1;
                ffront = next;
            } else {
                for &x in &bfront {
                    let Some(node) = nodes.get(slot(x)) else { continue };
                    steps += node.inn.len() as u64;
                    for &y in &node.inn {
                        if y < base {
                            continue;
                        }
                        let sy = slot(y);
                        if fwd[sy] == ep {
                            ok = true;
                            break 'bfs;
                        }
                        if dist[sy].0 != ep {
                            dist[sy] = (ep, (back + 1) as u8);
                            next.push(y);
                        }
                    }
                }
                back += 1;
                bfront = next;
            }
        }
        for &x in &touched {
            fwd[slot(x)] = 0;
        }
        if !ok {
            return;
        }
        // Unlabelled vertices are more than `back` edges from u.
        let h = back;
        // Depth-first from v.
        let mut path: Vec<Seq> = vec![v];
        let mut stack: Vec<(Seq, usize)> = vec![(v, 0)];
        let sv = self.slot(v);
        self.on_path[sv] = ep;
        while let Some(top) = stack.last_mut() {
            let (x, next) = *top;
            let Some((len, y)) = self.node(x).map(|n| (n.out.len(), n.out.get(next).map_or(0, |a| a.to))) else {
                stack.pop();
                path.pop();
                continue;
            };
            if next >= len {
                stack.pop();
                path.pop();
                if x >= self.base {
                    let sx = (x - self.base) as usize;
                    self.on_path[sx] = 0;
                }
                continue;
            }
            top.1 += 1;
            steps += 1;
            if steps > self.opts.max_steps {
                self.stats.truncated_searches += 1;
                break;
            }
            if y < self.base {
                continue;
            }
            let used = path.len() as u32 + 1; // edges of the cycle once y is reached (u -> v counted)
            if y == u {
                if used <= l {
                    let mut cyc = Vec::with_capacity(path.len() + 1);
                    cyc.push(u);
                    cyc.extend_from_slice(&path);
                    found.push(self.report(&cyc, closer));
                }
                continue;
            }
            let sy = (y - self.base) as usize;
            if self.on_path[sy] == ep {
                continue;
            }
            let lb = if self.dist[sy].0 == ep { self.dist[sy].1 as u32 } else { h + 1 };
            if used + lb > l {
                continue;
            }
            self.on_path[sy] = ep;
            path.push(y);
            stack.push((y, 0));
        }
        for &x in &path {
            if x >= self.base {
                let sx = (x - self.base) as usize;
                self.on_path[sx] = 0;
            }
        }
    }

    /// The edge types and keys of a cycle in the window now, whether some edge is provisional
    /// only, and its classes.
    fn shape(&self, cyc: &[Seq]) -> (Vec<EdgeType>, Vec<Vec<u32>>, bool, super::classify::Classes) {
        let n = cyc.len();
        let mut types = Vec::with_capacity(n);
        let mut keys: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut provisional = false;
        for i in 0..n {
            let a = self.node(cyc[i]).and_then(|x| x.out.iter().find(|a| a.to == cyc[(i + 1) % n]));
            let mask = a.map_or(0, |a| a.mask);
            provisional |= mask & 0x0f == 0;
            let mask = (mask | mask >> 4) & 0x0f;
            let ty = EdgeType::ALL.into_iter().find(|t| mask & t.bit() != 0).unwrap_or(EdgeType::Rw);
            types.push(ty);
            keys.push(a.map_or(Vec::new(), |a| a.keys.iter().filter(|k| k.0 == ty as u8).map(|k| k.1).collect()));
        }
        let same = keys.first().is_some_and(|f| f.iter().any(|k| keys.iter().all(|ks| ks.contains(k))));
        let c = classify(&types, same);
        (types, keys, provisional, c)
    }

    fn report(&mut self, cyc: &[Seq], closer: u64) -> OnlineAnomaly {
        let n = cyc.len();
        let (types, keys, provisional, c) = self.shape(cyc);
        let labels: Vec<String> = cyc
            .iter()
            .map(|&s| self.node(s).and_then(|x| x.label.as_deref()).unwrap_or(NO_LABEL).to_string())
            .collect();
        if provisional {
            // Counted once its edges are settled (or its transactions leave the window).
            self.pending.push(PendingCycle { seqs: cyc.to_vec(), classes: c, labels: labels.clone() });
        } else {
            self.tally.add(c, n, &labels);
        }
        self.stats.cycles += 1;
        OnlineAnomaly {
            cycle: ClassifiedCycle {
                txns: cyc.iter().map(|&s| self.node(s).map_or(0, |x| x.id)).collect(),
                types: types.iter().map(|t| t.as_str().to_string()).collect(),
                keys: keys
                    .iter()
                    .map(|ks| ks.iter().filter_map(|k| self.key_names.get(k)).map(Atom::json).collect())
                    .collect(),
                labels,
                zellag: c.zellag.into(),
                ldbc: c.ldbc.into(),
                adya: c.adya.into(),
            },
            closed_by: closer,
            provisional,
        }
    }

    /// Count the provisional cycles whose edges are all settled now (or that have a transaction
    /// out of the window), with their classes as they are now.
    fn settle(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for p in pending {
            if p.seqs.iter().any(|&s| s < self.base) {
                self.tally.add(p.classes, p.seqs.len(), &p.labels);
                continue;
            }
            let (_, _, provisional, c) = self.shape(&p.seqs);
            if provisional {
                self.pending.push(PendingCycle { classes: c, ..p });
            } else {
                self.tally.add(c, p.seqs.len(), &p.labels);
            }
        }
    }

    /// Drop the oldest transactions beyond the window, and now and then the keys they alone used.
    fn evict(&mut self) {
        while self.nodes.len() > self.opts.window {
            let Some(old) = self.nodes.pop_front() else { break };
            let s = self.base;
            self.base += 1;
            self.stats.evicted += 1;
            if old.unordered > 0 {
                self.stats.evicted_unordered += 1;
            }
            for a in &old.out {
                if let Some(n) = self.node_mut(a.to) {
                    n.inn.retain(|&x| x != s);
                }
            }
            for &x in &old.inn {
                if let Some(n) = self.node_mut(x) {
                    n.out.retain(|a| a.to != s);
                }
            }
            self.since_sweep += 1;
        }
        if self.since_sweep >= self.opts.window.max(1024) {
            self.since_sweep = 0;
            let base = self.base;
            let names = &mut self.key_names;
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
            self.key_names.shrink_to_fit();
            self.dist.truncate(self.nodes.len());
            self.on_path.truncate(self.nodes.len());
        }
    }

    /// The counts so far, and notes on what the window could not judge.
    pub fn summary(&self) -> OnlineSummary {
        let s = &self.stats;
        let mut notes = Vec::new();
        if s.evicted_unordered > 0 {
            notes.push(format!(
                "{} transactions left the window (of {}) with appends no read had ordered yet: cycles through them closing later were not judged",
                s.evicted_unordered, self.opts.window
            ));
        }
        if s.edges_to_evicted > 0 {
            notes.push(format!(
                "{} edges reached transactions already out of the window (of {}): a larger window may find more cycles",
                s.edges_to_evicted, self.opts.window
            ));
        }
        if s.truncated_searches > 0 {
            notes.push(format!(
                "{} cycle searches were cut short by max_steps = {}",
                s.truncated_searches, self.opts.max_steps
            ));
        }
        if s.incompatible_reads > 0 {
            notes.push(format!(
                "{} reads were not consistent with their key's order so far (incompatible-order): they made no edges",
                s.incompatible_reads
            ));
        }
        let skipped = s.transactions - s.committed;
        if skipped > 0 {
            notes.push(format!("{skipped} transactions did not commit (aborted or indeterminate): not judged"));
        }
        // Cycles still provisional count with their classes as known now.
        let mut tally = self.tally.clone();
        for p in &self.pending {
            let c = if p.seqs.iter().any(|&s| s < self.base) { p.classes } else { self.shape(&p.seqs).3 };
            tally.add(c, p.seqs.len(), &p.labels);
        }
        OnlineSummary {
            stats: *s,
            classes: tally.classes(None),
            lengths: tally.lengths(),
            patterns: tally.patterns(),
            notes,
        }
    }

    /// An estimate of the heap memory held (bytes), from the sizes of the structures kept.
    pub fn memory_estimate(&self) -> usize {
        use std::mem::size_of;
        let atom = size_of::<Atom>();
        let mut b = self.nodes.capacity() * size_of::<Node>();
        for n in &self.nodes {
            b += n.out.capacity() * size_of::<Adj>() + n.inn.capacity() * 8;
            b += n.out.iter().map(|a| a.keys.capacity() * 8).sum::<usize>();
        }
        b += self.keys.capacity() * (atom + size_of::<KeyState>());
        for ks in self.keys.values() {
            b += ks.order.capacity() * atom
                + ks.pos.capacity() * (atom + 8)
                + ks.writer.capacity() * (atom + 16)
                + ks.unordered.capacity() * (atom + 8);
            b += ks.readers.capacity() * 32 + ks.readers.values().map(|r| r.capacity() * 8).sum::<usize>();
        }
        b += self.pending.capacity() * size_of::<PendingCycle>()
            + self.pending.iter().map(|p| p.seqs.capacity() * 8 + p.labels.capacity() * 24).sum::<usize>();
        b + self.key_names.capacity() * (atom + 8) + self.dist.capacity() * 8 + self.on_path.capacity() * 4
    }
}

/// One cycle as a line of text: `T9 closed a lost update (G-single, LU): T4 -rw x-> T9 -ww x-> T4`.
pub fn render_anomaly(o: &OnlineAnomaly) -> String {
    let a = &o.cycle;
    let show = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let mut s = format!(
        "T{} closed a {} ({}, {}){}: ",
        o.closed_by,
        a.zellag,
        a.adya,
        a.ldbc,
        if o.provisional { " [provisional]" } else { "" }
    );
    for (i, t) in a.txns.iter().enumerate() {
        let keys: Vec<String> = a.keys.get(i).map_or(Vec::new(), |ks| ks.iter().map(show).collect());
        s.push_str(&format!("T{t} -{} {}-> ", a.types.get(i).map_or("", |x| x.as_str()), keys.join(",")));
    }
    s.push_str(&format!("T{}", a.txns.first().copied().unwrap_or(0)));
    s
}

/// The summary as text: counters, class counts and notes.
pub fn render_summary(s: &OnlineSummary) -> String {
    let st = &s.stats;
    let mut out = format!(
        "\n{} transactions ({} committed); {} cycles; window peak {} transactions, {} keys; {} evicted\n",
        st.transactions, st.committed, st.cycles, st.peak_live, st.peak_keys, st.evicted
    );
    out.push_str(&super::render_counts(&s.classes, &s.lengths, &s.patterns));
    for n in &s.notes {
        out.push_str(&format!("\nnote: {n}\n"));
    }
    out
}
