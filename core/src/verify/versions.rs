//! The `versions` witness (Adya's PL-2 and PL-1 over the version order it gives), and the order
//! a write-ahead log states, which every witness must keep.
//!
//! Each key's versions are its writers' last writes to it, installed in the witness's order. A
//! read must return one installed before its reader (or the initial one): a read of an aborted
//! transaction's write (G1a), of a write its transaction overwrote (G1b), or of a version
//! installed later (a cycle of WW and WR edges, G1c) finds none. A list's versions are its
//! prefixes that end where a writer's appends end.

use super::{name, show_list, Execution};
use crate::hash::Set;
use crate::history::{Arg, History, KeyId, Model, OpKind, Status, Value};

/// Replay a `versions` witness; `reads`: check reads (PL-2), else only that list reads are
/// prefixes of their key's final list (PL-1).
pub(super) fn replay(h: &History, ex: &Execution, reads: bool) -> Result<(), String> {
    let keys = h.keys.len();
    let mut list: Vec<Vec<Value>> = vec![Vec::new(); keys];
    // Each list's version lengths, and each register's installed values.
    let mut ends: Vec<Set<usize>> = vec![Set::default(); keys];
    let mut installed: Set<(KeyId, Value)> = Set::default();
    let lists = h.model == Model::ListAppend;
    let mut initial = Initial::new(h);
    // PL-1 over registers checks no read's version, but a read no execution has (a garbage
    // read, one that disagrees with its own transaction's writes) is not accounted for unless
    // the witness sets it aside.
    let written = if !reads && !lists { writes(h) } else { Set::default() };
    // PL-1 allows a read of an aborted append (G1a): such elements say nothing of the order
    // of the versions installed, and are left out of the read before it is compared.
    let mut aborted: Set<(KeyId, Value)> = Set::default();
    if !reads && lists {
        for (t, _) in h.txns.iter().enumerate().filter(|(_, x)| x.status == Status::Aborted) {
            for op in h.ops_of(t as u32) {
                if let (OpKind::Append, Arg::Val(v)) = (op.kind(), op.arg()) {
                    aborted.insert((op.key, v));
                }
            }
        }
    }
    if !reads {
        for &t in &ex.order {
            for op in h.ops_of(t) {
                if let (OpKind::Append, Arg::Val(v)) = (op.kind(), op.arg()) {
                    list[op.key as usize].push(v);
                }
            }
        }
    }
    for &t in &ex.order {
        let committed = h.txns.get(t as usize).is_some_and(|x| x.status == Status::Committed);
        let ops = h.ops_of(t);
        for (i, op) in ops.iter().enumerate() {
            let (k, kind, arg) = ({ op.key }, op.kind(), op.arg());
            if kind != OpKind::Read || !committed || ex.skips(t, i) {
                continue;
            }
            if !reads && !lists {
                use super::broken::{kind_at, Broken};
                if let Ok(k @ (Broken::Garbage | Broken::OwnWrite)) = kind_at(h, t, i, &written) {
                    return Err(format!("{}'s operation {i} is a read no execution has ({k:?})", name(h, t)));
                }
                continue;
            }
            let ku = k as usize;
            let before = &ops[..i];
            let key = || h.show(h.key(k));
            if lists {
                let mine: Vec<Value> = before
                    .iter()
                    .filter(|o| o.key == k && o.kind() == OpKind::Append)
                    .filter_map(|o| match o.arg() {
                        Arg::Val(v) => Some(v),
                        _ => None,
                    })
                    .collect();
                let read = h.list(op);
                let Some(seen) = read.strip_suffix(&mine[..]) else {
                    return Err(format!(
                        "{} read {} = {} without its own appends",
                        name(h, t),
                        key(),
                        show_list(h, read)
                    ));
                };
                let (cur, at_end) = (&list[ku], seen.is_empty() || ends[ku].contains(&seen.len()));
                // PL-1: the whole read is a prefix of the installed order. PL-2: what it saw is a
                // version installed before it, and after its own appends, the version its own
                // appends follow: the list as it stands when the transaction installs them.
                let fine = match (reads, mine.is_empty()) {
                    (false, _) if aborted.is_empty() => cur.starts_with(read),
                    (false, _) => {
                        let kept: Vec<Value> = read.iter().copied().filter(|&v| !aborted.contains(&(k, v))).collect();
                        cur.starts_with(&kept)
                    }
                    (true, true) => cur.starts_with(seen) && at_end,
                    (true, false) => cur[..] == *seen,
                };
                if !fine {
                    let what = if reads {
                        "no version installed before it"
                    } else {
                        "not a prefix of the order its appends are installed in"
                    };
                    return Err(format!("{} read {} = {}, {what}", name(h, t), key(), show_list(h, seen)));
                }
                continue;
            }
            let own = before.iter().rev().find(|o| o.key == k && o.kind() == OpKind::Write).map(|o| o.arg());
            let fine = match (own, arg) {
                (Some(w), r) => w == r,
                (None, Arg::Nil) => initial.agrees(k, arg),
                (None, Arg::Val(v)) => installed.contains(&(k, v)) || initial.agrees(k, arg),
                (None, _) => false,
            };
            if !fine {
                let v = match arg {
                    Arg::Val(v) => h.show(v),
                    _ => "nil".into(),
                };
                let why = if own.is_some() { "not its own last write" } else { "no version installed before it" };
                return Err(format!("{} read {} = {v}, {why}", name(h, t), key()));
            }
        }
        // Its versions installed: each key's last write.
        for (i, op) in ops.iter().enumerate() {
            let (k, kind, arg) = ({ op.key }, op.kind(), op.arg());
            let last = !ops[i + 1..].iter().any(|o| o.key == k && o.kind() != OpKind::Read);
            match (kind, arg) {
                (OpKind::Write, Arg::Val(v)) if last => {
                    installed.insert((k, v));
                }
                (OpKind::Append, Arg::Val(v)) if reads => {
                    list[k as usize].push(v);
                    if last {
                        ends[k as usize].insert(list[k as usize].len());
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A value two writes of the history write to one key (committed, aborted or indeterminate):
/// reads-from is read from values, and such a read names no one writer.
pub(super) fn duplicate(h: &History) -> Result<(), String> {
    let mut seen: crate::hash::Map<(KeyId, Value), u32> = Default::default();
    for t in 0..h.txns.len() as u32 {
        for op in h.ops_of(t) {
            let (k, kind, arg) = ({ op.key }, op.kind(), op.arg());
            let (OpKind::Write | OpKind::Append, Arg::Val(v)) = (kind, arg) else { continue };
            if let Some(u) = seen.insert((k, v), t) {
                return Err(format!(
                    "{} and {} both write {} = {}: a read of it names no one writer",
                    name(h, u),
                    name(h, t),
                    h.show(h.key(k)),
                    h.show(v)
                ));
            }
        }
    }
    Ok(())
}

/// Each register's initial value as reads of it find it: `nil`, or, where the history leaves
/// it open ([`History::initial_open`]), the value the first such read returns (one no
/// transaction writes), which every other read of the initial value must return too.
pub(super) struct Initial {
    open: bool,
    written: Set<(KeyId, Value)>,
    seen: crate::hash::Map<KeyId, Arg>,
}

impl Initial {
    pub(super) fn new(h: &History) -> Initial {
        let written = if h.initial_open { writes(h) } else { Set::default() };
        Initial { open: h.initial_open, written, seen: Default::default() }
    }

    /// Whether `arg` can be key `k`'s initial value, given the reads of it so far.
    pub(super) fn agrees(&mut self, k: KeyId, arg: Arg) -> bool {
        if !self.open {
            return arg == Arg::Nil;
        }
        if let Arg::Val(v) = arg {
            if self.written.contains(&(k, v)) {
                return false;
            }
        }
        *self.seen.entry(k).or_insert(arg) == arg
    }
}

/// Every (key, value) some transaction of the history writes or appends.
pub(super) fn writes(h: &History) -> Set<(KeyId, Value)> {
    h.ops
        .iter()
        .filter(|o| o.kind() != OpKind::Read)
        .filter_map(|o| if let Arg::Val(v) = o.arg() { Some((o.key, v)) } else { None })
        .collect()
}

/// With a write-ahead log: each key's versions the log lists are installed (their writers
/// commit) in the log's order.
pub(super) fn log_order(h: &History, ex: &Execution) -> Result<(), String> {
    let Some(vo) = &h.version_order else { return Ok(()) };
    let mut at: crate::hash::Map<(KeyId, Value), usize> = Default::default();
    for (&k, vals) in &vo.per_key {
        for (i, &v) in vals.iter().enumerate() {
            at.insert((k, v), i);
        }
    }
    // Per key, the log place of the last version installed so far, and its writer.
    let mut last: crate::hash::Map<KeyId, (usize, u32)> = Default::default();
    let mut commits: Vec<(usize, u32)> = ex.order.iter().filter_map(|&t| Some((ex.commit_at(t)?, t))).collect();
    commits.sort_unstable();
    commits.dedup();
    for (_, t) in commits {
        let ops = h.ops_of(t);
        for (i, op) in ops.iter().enumerate() {
            let (k, arg) = ({ op.key }, op.arg());
            let final_write =
                op.kind() == OpKind::Write && !ops[i + 1..].iter().any(|o| o.key == k && o.kind() != OpKind::Read);
            let (true, Arg::Val(v)) = (final_write, arg) else { continue };
            let Some(&p) = at.get(&(k, v)) else { continue };
            if let Some(&(q, u)) = last.get(&k) {
                if q > p {
                    return Err(format!(
                        "the log installs {} = {} before {}'s version, but the witness has {} commit first",
                        h.show(h.key(k)),
                        h.show(v),
                        name(h, u),
                        name(h, u)
                    ));
                }
            }
            last.insert(k, (p, t));
        }
    }
    Ok(())
}
