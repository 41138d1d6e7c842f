//! The replay of a witness: the state of every key along its order, every read of a committed
//! transaction against the state it is given, and no two writers of a key running at once.
//!
//! One replay serves both kinds. At a transaction's start its reads are checked against the
//! state, overlaid with its own earlier writes; at its commit its writes are installed. A serial
//! witness starts and commits each transaction at one place, so nothing comes between the two,
//! and no two of its transactions overlap.

use super::{name, show_list, Execution};
use crate::history::{Arg, History, KeyId, Model, Op, OpKind, Status, Value};

/// A register's value in the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reg {
    /// Never written, and the history leaves the initial value open ([`History::initial_open`]):
    /// the first read fixes it.
    Open,
    Nil,
    Val(Value),
}

/// Every key's state.
struct State {
    reg: Vec<Reg>,
    /// Each list's length while it is a prefix of the key's canonical list ([`History::list`]'s,
    /// where it then lives, and a read stored as a prefix of it compares by its length), or
    /// `None` once it left it and lives in `list`.
    canonical: Vec<Option<u32>>,
    list: Vec<Vec<Value>>,
    /// The latest commit of a writer of each key: its place in the order, and the transaction.
    last_commit: Vec<Option<(usize, u32)>>,
    initial: super::versions::Initial,
}

/// The writes of the transaction being checked, so far, by key.
struct Own {
    reg: Vec<Option<Value>>,
    list: Vec<Vec<Value>>,
    touched: Vec<KeyId>,
}

/// Replay `ex`: the first read that differs from the replay, or the first overlapping writers.
pub(super) fn replay(h: &History, ex: &Execution) -> Result<(), String> {
    let keys = h.keys.len();
    let initial = if h.initial_open { Reg::Open } else { Reg::Nil };
    let mut state = State {
        reg: vec![initial; keys],
        canonical: vec![Some(0); keys],
        list: vec![Vec::new(); keys],
        last_commit: vec![None; keys],
        initial: super::versions::Initial::new(h),
    };
    let mut own = Own { reg: vec![None; keys], list: vec![Vec::new(); keys], touched: Vec::new() };
    for (i, &t) in ex.order.iter().enumerate() {
        let (Some(&s), Some(&c), Some(txn)) =
            (ex.start.get(t as usize), ex.commit_at(t).as_ref(), h.txns.get(t as usize))
        else {
            continue;
        };
        if s == c {
            // Serial: the transaction runs alone, its writes apply as they come, and each read
            // sees the state (an indeterminate one's reads are unknown).
            state.alone(h, ex, t, txn.status == Status::Committed)?;
            continue;
        }
        // An indeterminate transaction's results are unknown: only its writes count.
        if i == s && txn.status == Status::Committed {
            let result = state.reads(h, ex, t, &mut own);
            own.clear();
            result?;
        }
        if i == c {
            state.commit(h, t, s, c)?;
        }
    }
    Ok(())
}

/// A read of a list: in a list history, or one whose result is a list.
fn is_list(h: &History, op: &Op) -> bool {
    h.model == Model::ListAppend || matches!(op.arg(), Arg::Prefix(_) | Arg::List { .. })
}

impl State {
    /// Check the reads of transaction `t` against this state (the state at its start).
    fn reads(&mut self, h: &History, ex: &Execution, t: u32, own: &mut Own) -> Result<(), String> {
        for (i, op) in h.ops_of(t).iter().enumerate() {
            let (k, arg) = ({ op.key }, op.arg());
            let ku = k as usize;
            if op.kind() == OpKind::Read && ex.skips(t, i) {
                continue;
            }
            match (op.kind(), arg) {
                (OpKind::Write, Arg::Val(v)) => {
                    own.reg[ku] = Some(v);
                    own.touched.push(k);
                }
                (OpKind::Append, Arg::Val(v)) => {
                    own.list[ku].push(v);
                    own.touched.push(k);
                }
                (OpKind::Read, _) if is_list(h, op) => {
                    let (read, snap, mine) = (h.list(op), self.list(h, k), &own.list[ku]);
                    let prefix = matches!(arg, Arg::Prefix(_)) && self.canonical[ku].is_some();
                    let same = read.len() == snap.len() + mine.len()
                        && (prefix || read.starts_with(snap))
                        && read.ends_with(mine);
                    if !same {
                        let has: Vec<Value> = snap.iter().chain(mine).copied().collect();
                        return Err(mismatch(h, t, k, &show_list(h, read), &show_list(h, &has)));
                    }
                }
                (OpKind::Read, _) => {
                    let has = own.reg[ku].map_or(self.reg[ku], Reg::Val);
                    self.read_register(h, t, k, arg, has)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A transaction run alone (a serial witness's): each read against the state, each write
    /// into it. The state with its own writes applied is the state overlaid with them.
    fn alone(&mut self, h: &History, ex: &Execution, t: u32, reads: bool) -> Result<(), String> {
        for (i, op) in h.ops_of(t).iter().enumerate() {
            let (k, arg) = ({ op.key }, op.arg());
            let ku = k as usize;
            match (op.kind(), arg) {
                (OpKind::Write, Arg::Val(v)) => self.reg[ku] = Reg::Val(v),
                (OpKind::Append, Arg::Val(v)) => self.append(h, k, v),
                (OpKind::Read, _) if !reads || ex.skips(t, i) => {}
                (OpKind::Read, _) if is_list(h, op) => {
                    let (read, has) = (h.list(op), self.list(h, k));
                    let same = match arg {
                        Arg::Prefix(n) if self.canonical[ku].is_some() => n as usize == has.len(),
                        _ => read == has,
                    };
                    if !same {
                        return Err(mismatch(h, t, k, &show_list(h, read), &show_list(h, has)));
                    }
                }
                (OpKind::Read, _) => self.read_register(h, t, k, arg, self.reg[ku])?,
                _ => {}
            }
        }
        Ok(())
    }

    /// A register read against what the transaction has (`has`): the first read of an open
    /// initial value fixes it.
    fn read_register(&mut self, h: &History, t: u32, k: KeyId, arg: Arg, has: Reg) -> Result<(), String> {
        let read = match arg {
            Arg::Val(v) => Reg::Val(v),
            _ => Reg::Nil,
        };
        if has == Reg::Open {
            // The first read of the open initial value fixes it: to a value no transaction
            // writes (one that one does is its write, not the initial).
            if !self.initial.agrees(k, arg) {
                return Err(mismatch(h, t, k, &show_reg(h, read), "a value no transaction writes"));
            }
            self.reg[k as usize] = read;
        } else if has != read {
            return Err(mismatch(h, t, k, &show_reg(h, read), &show_reg(h, has)));
        }
        Ok(())
    }

    /// Append `v` to key `k`'s list: in the canonical list while it follows it.
    fn append(&mut self, h: &History, k: KeyId, v: Value) {
        let ku = k as usize;
        match self.canonical[ku] {
            Some(n) if h.canon.get(ku).and_then(|c| c.get(n as usize)) == Some(&v) => self.canonical[ku] = Some(n + 1),
            Some(_) => {
                let mut l = self.list(h, k).to_vec();
                l.push(v);
                (self.list[ku], self.canonical[ku]) = (l, None);
            }
            None => self.list[ku].push(v),
        }
    }

    /// Key `k`'s list in the replay.
    fn list<'a>(&'a self, h: &'a History, k: KeyId) -> &'a [Value] {
        match self.canonical[k as usize] {
            Some(n) => h.canon.get(k as usize).map_or(&[][..], |c| &c[..(n as usize).min(c.len())]),
            None => &self.list[k as usize],
        }
    }

    /// Install the writes of transaction `t`, which started at `s` and commits at `c`, unless
    /// another writer of one of its keys committed after it started.
    fn commit(&mut self, h: &History, t: u32, s: usize, c: usize) -> Result<(), String> {
        for op in h.ops_of(t) {
            let (k, kind, arg) = ({ op.key }, op.kind(), op.arg());
            let ku = k as usize;
            let Arg::Val(v) = arg else { continue };
            match kind {
                OpKind::Write => self.reg[ku] = Reg::Val(v),
                OpKind::Append => self.append(h, k, v),
                OpKind::Read => continue,
            }
            if let Some((p, u)) = self.last_commit[ku] {
                if u != t && p > s {
                    let (a, b) = (name(h, u), name(h, t));
                    return Err(format!(
                        "{a} and {b} both write {} while both are running ({a} starts before {b} commits and {b} before {a} commits)",
                        h.show(h.key(k))
                    ));
                }
            }
            self.last_commit[ku] = Some((c, t));
        }
        Ok(())
    }
}

impl Own {
    fn clear(&mut self) {
        for k in self.touched.drain(..) {
            self.reg[k as usize] = None;
            self.list[k as usize].clear();
        }
    }
}

fn mismatch(h: &History, t: u32, k: KeyId, read: &str, has: &str) -> String {
    format!("{} read {} = {read} but the replay has {has}", name(h, t), h.show(h.key(k)))
}

fn show_reg(h: &History, r: Reg) -> String {
    match r {
        Reg::Val(v) => h.show(v),
        Reg::Nil | Reg::Open => "nil".to_string(),
    }
}
