//! Counterexamples: a cycle a level forbids, each step re-derived from the history alone.
//!
//! A step `from -> to` holds when the history shows it: `wr` on x, `to` read a version of x
//! that holds `from`'s write (a register's value, or a list with `from`'s append); `ww`, a
//! version of x with `from`'s write was installed before one with `to`'s (a list read that
//! holds `from`'s append and not `to`'s, or both in that order; a register's write-ahead log
//! in that order; or `to` read `from`'s value and then wrote x); `rw`, `from` read a version
//! of x that `to`'s write came after (a list read without `to`'s append; a register read of
//! the initial value, or of a value the log or `to`'s own read puts before `to`'s write);
//! `so`, one process invoked `from` before `to`; `rt`, `from` completed before `to` was
//! invoked. A step may skip versions between (say `to` wrote after the next version): the
//! cycle then stands for a longer one through the versions between, with as many `rw` steps,
//! none of them adjacent that were not (Adya 1999, §4: a `ww` path between two versions).
//! The cycle's word of step types must be one the level forbids (`docs/levels.md`).

use super::format::{Counterexample, CycleStep};
use crate::hash::Map;
use crate::history::{Arg, History, KeyId, Model, OpKind, Status, Value};

/// Why a counterexample does not show its level violated, or `None` when it does.
pub(super) fn check(
    h: &History,
    ids: &super::Ids,
    keys: &Map<String, KeyId>,
    written: &crate::hash::Set<(KeyId, Value)>,
    cx: &Counterexample,
) -> Option<String> {
    if let Some(r) = cx.read {
        if matches!(cx.anomaly.as_str(), "garbage-read" | "internal") {
            return match super::broken::kind(h, ids, written, r) {
                Ok(k) if k.name() != cx.anomaly => {
                    Some(format!("T{}'s operation {} is a {} read, not {}", r.txn, r.index, k.name(), cx.anomaly))
                }
                Ok(k) if !k.violates(&cx.level) => Some(format!("{} allows this read ({k:?})", cx.level)),
                Ok(_) => None,
                Err(e) => Some(e),
            };
        }
        if !cx.observed.is_empty() {
            return super::weak::initial_read(h, ids, keys, cx, r).err();
        }
        return read_anomaly(h, ids, cx, r).err();
    }
    let Some(sp) = &cx.split else { return cycle(h, ids, keys, cx, &cx.steps, None).err() };
    // A case split over the order of two writes of a key: each order closes a cycle.
    let split = || -> Result<(), String> {
        let (a, b, k) = (ids.named(sp.first)?, ids.named(sp.second)?, key_named(keys, &sp.key)?);
        if a == b || writes(h, a, k).is_empty() || writes(h, b, k).is_empty() {
            return Err(format!("the split is not of two writers of key {}", sp.key));
        }
        cycle(h, ids, keys, cx, &cx.steps, Some((k, a, b)))
            .map_err(|e| format!("with {}'s version of {} first: {e}", super::name(h, a), sp.key))?;
        cycle(h, ids, keys, cx, &sp.other, Some((k, b, a)))
            .map_err(|e| format!("with {}'s version of {} first: {e}", super::name(h, b), sp.key))
    };
    split().err()
}

/// One cycle of `cx` (its own steps, or a split's other order's): a cycle its level forbids,
/// each step re-derived from the history, or, with `assume` (key, a, b), from `a`'s version of
/// the key coming before `b`'s: a `ww` step from `a` to `b`, an `rw` step to `b` from a reader of
/// `a`'s last write of the key.
fn cycle(
    h: &History,
    ids: &super::Ids,
    keys: &Map<String, KeyId>,
    cx: &Counterexample,
    steps: &[CycleStep],
    assume: Option<(KeyId, u32, u32)>,
) -> Result<(), String> {
    pattern(&cx.level, steps)?;
    for s in steps {
        let (a, b) = (ids.named(s.from)?, ids.named(s.to)?);
        committed(h, a)?;
        committed(h, b)?;
        let key = || key_named(keys, &s.key);
        let assumed = |k: KeyId| match (assume, s.ty.as_str()) {
            (Some((x, first, second)), "ww") => x == k && (a, b) == (first, second),
            (Some((x, first, second)), "rw") => {
                let last = writes(h, first, k).last().copied();
                x == k && b == second && reads(h, a, k).any(|r| read_value(h, &r, last))
            }
            _ => false,
        };
        let holds = match s.ty.as_str() {
            "co" if weak_level(&cx.level) => {
                super::weak::co_step(h, ids, keys, &cx.level, s, a, b)?;
                continue;
            }
            "so" => session(h, a, b),
            "rt" => realtime(h, a, b),
            "wr" => reads(h, b, key()?).any(|r| wrote(h, a, key_of(&r), &r)),
            // PL-1 allows a read of a version installed later (G1c): a read and then a
            // write orders a register's versions only where reads see earlier ones.
            // A list read after the reader's own appends orders them after what it saw
            // where a lost update is forbidden (else the two would be one).
            "ww" => assumed(key()?) || write_order(h, a, b, key()?, cx.level != "PL-1", !weak(&cx.level)),
            "rw" => assumed(key()?) || anti(h, a, b, key()?),
            other => return Err(format!("unknown step type {other:?}")),
        };
        if !holds {
            return Err(format!("the history does not show {} -{}-> {}", super::name(h, a), s.ty, super::name(h, b)));
        }
    }
    Ok(())
}

/// Whether read `r` returned `v`: a register's value, or a list whose last element it is.
fn read_value(h: &History, r: &Read, v: Option<Value>) -> bool {
    let Some(v) = v else { return false };
    match h.model {
        Model::ListAppend => list(h, r).last() == Some(&v),
        _ => r.1 == Arg::Val(v),
    }
}

/// A transaction a step may pass through: committed, or indeterminate with a write a committed
/// transaction read (it committed).
pub(super) fn committed(h: &History, t: u32) -> Result<(), String> {
    let status = h.txns.get(t as usize).map(|x| x.status);
    if status == Some(Status::Committed) || (status == Some(Status::Indeterminate) && observed(h, t)) {
        Ok(())
    } else {
        Err(format!("{} is not known to have committed", super::name(h, t)))
    }
}

/// The key a step names, as reports write it.
pub(super) fn key_named(keys: &Map<String, KeyId>, key: &serde_json::Value) -> Result<KeyId, String> {
    keys.get(&key.to_string()).copied().ok_or_else(|| format!("no key {key} in this history"))
}

/// RC, RA and CC: their cycles are of the commit order, their axioms' `co` steps among them.
pub(super) fn weak_level(level: &str) -> bool {
    matches!(level, "RC" | "RA" | "CC")
}

/// An aborted read (G1a: a committed transaction read a value, or a list holding an element,
/// that only aborted transactions wrote) or an intermediate read (G1b: the value, or the list's
/// last element, is a write its committed writer overwrote later in the same transaction), both
/// proscribed by PL-2 and every level above it, and by RC, RA and CC (Adya 1999, §4.2.2).
fn read_anomaly(h: &History, ids: &super::Ids, cx: &Counterexample, r: super::format::ReadRef) -> Result<(), String> {
    // Every level but PL-1.
    let forbidding = &super::format::LEVELS[..super::format::LEVELS.len() - 1];
    if !forbidding.contains(&cx.level.as_str()) {
        return Err(format!("{} allows an aborted or intermediate read", cx.level));
    }
    let t = ids.named(r.txn)?;
    if h.txns.get(t as usize).is_none_or(|x| x.status != Status::Committed) {
        return Err(format!("T{} did not commit: its reads are unknown", r.txn));
    }
    let ops = h.ops_of(t);
    let i = r.index as usize;
    let op = ops
        .get(i)
        .filter(|o| o.kind() == OpKind::Read)
        .ok_or_else(|| format!("T{}'s operation {i} is not a read", r.txn))?;
    let k = op.key;
    if ops[..i].iter().any(|o| o.key == k && o.kind() != OpKind::Read) {
        return Err(format!("T{}'s operation {i} reads its own write", r.txn));
    }
    // The writes of each value to the key: (writer, whether it is its last write of the key).
    let writers = |v: Value| -> Vec<(u32, bool)> {
        (0..h.txns.len() as u32)
            .flat_map(|w| {
                let wo = h.ops_of(w);
                wo.iter().enumerate().filter_map(move |(j, o)| {
                    let last = !wo[j + 1..].iter().any(|p| p.key == k && p.kind() != OpKind::Read);
                    (o.key == k && o.kind() != OpKind::Read && o.arg() == Arg::Val(v)).then_some((w, last))
                })
            })
            .collect()
    };
    let read: Vec<Value> = match (h.model, op.arg()) {
        (Model::ListAppend, _) => list(h, &(k, op.arg())).to_vec(),
        (_, Arg::Val(v)) => vec![v],
        _ => Vec::new(),
    };
    let status = |w: u32| h.txns.get(w as usize).map(|x| x.status);
    let shown = match cx.anomaly.as_str() {
        "G1a" => read.iter().any(|&v| {
            let ws = writers(v);
            !ws.is_empty() && ws.iter().all(|&(w, _)| status(w) == Some(Status::Aborted))
        }),
        "G1b" => read.last().is_some_and(|&v| {
            let ws = writers(v);
            ws.len() == 1 && ws[0].0 != t && !ws[0].1 && status(ws[0].0) == Some(Status::Committed)
        }),
        other => return Err(format!("{other} is not a read anomaly")),
    };
    if shown {
        Ok(())
    } else {
        Err(format!("the history does not show T{}'s operation {i} to be a {} read", r.txn, cx.anomaly))
    }
}

/// The steps close a cycle whose word the level forbids.
fn pattern(level: &str, steps: &[CycleStep]) -> Result<(), String> {
    let n = steps.len();
    if n < 2 || steps.iter().any(|s| s.from == s.to) {
        return Err("a cycle needs two transactions, and each step two".into());
    }
    for (i, s) in steps.iter().enumerate() {
        let next = &steps[(i + 1) % n];
        if s.to != next.from {
            return Err(format!(
                "step {} ends at T{} but step {} starts at T{}",
                i + 1,
                s.to,
                (i + 1) % n + 1,
                next.from
            ));
        }
    }
    let types: Vec<&str> = steps.iter().map(|s| s.ty.as_str()).collect();
    let l = level;
    if weak_level(l) {
        // Session order, reads-from, the version order and the forced steps are all in every
        // commit order the axiom allows: any cycle of them leaves none.
        return match types.iter().find(|t| !["ww", "wr", "so", "co"].contains(t)) {
            Some(t) => Err(format!("a {t} step is not an order {l}'s commit order contains")),
            None => Ok(()),
        };
    }
    let orders: &[&str] = match l {
        "strict-SER" | "strong-SI" => &["rt"],
        "strong-session-SER" | "strong-session-SI" => &["so"],
        "SER" | "SI" | "PSI" | "PL-2" | "PL-1" => &[],
        _ => return Err(format!("counterexamples of {l} are not checked here (only cycles of Adya's levels and their session and real-time variants)")),
    };
    if let Some(t) = types.iter().find(|t| !["ww", "wr", "rw"].contains(t) && !orders.contains(t)) {
        return Err(format!("a {t} step is not among the edges {l} forbids cycles of"));
    }
    let rw = types.iter().filter(|&&t| t == "rw").count();
    let adjacent = (0..n).any(|i| types[i] == "rw" && types[(i + 1) % n] == "rw");
    let forbidden = match l {
        "SER" | "strict-SER" | "strong-session-SER" => true,
        "SI" | "strong-SI" | "strong-session-SI" => !adjacent,
        "PSI" => rw <= 1,
        "PL-2" => rw == 0,
        _ => types.iter().all(|&t| t == "ww"),
    };
    if forbidden {
        Ok(())
    } else {
        Err(format!("{l} allows a cycle of {}", types.join(" ")))
    }
}

pub(super) type Read = (KeyId, Arg);

fn key_of(r: &Read) -> KeyId {
    r.0
}

/// Whether a committed transaction read a version holding one of `t`'s writes.
fn observed(h: &History, t: u32) -> bool {
    let keys: Vec<KeyId> = h.ops_of(t).iter().filter(|o| o.kind() != OpKind::Read).map(|o| o.key).collect();
    keys.iter().any(|&k| all_reads(h, k, false).any(|(r, read)| r != t && wrote(h, t, k, &read)))
}

/// Transaction `t`'s external reads of `k` (before its own writes of it); none when it did not
/// commit (an indeterminate transaction's reads are unknown).
fn reads(h: &History, t: u32, k: KeyId) -> impl Iterator<Item = Read> + '_ {
    let known = h.txns.get(t as usize).is_some_and(|x| x.status == Status::Committed);
    let ops = if known { h.ops_of(t) } else { &[] };
    ops.iter()
        .enumerate()
        .filter(move |(i, o)| {
            o.kind() == OpKind::Read && o.key == k && !ops[..*i].iter().any(|p| p.key == k && p.kind() != OpKind::Read)
        })
        .map(move |(_, o)| (k, o.arg()))
}

/// The values `t` wrote (or appended) to `k`.
pub(super) fn writes(h: &History, t: u32, k: KeyId) -> Vec<Value> {
    values_written(h.ops_of(t), k)
}

/// The values these operations write (or append) to `k`, in order.
pub(super) fn values_written(ops: &[crate::history::Op], k: KeyId) -> Vec<Value> {
    ops.iter()
        .filter(|o| o.key == k && o.kind() != OpKind::Read)
        .filter_map(|o| if let Arg::Val(v) = o.arg() { Some(v) } else { None })
        .collect()
}

/// The list a read returned.
pub(super) fn list<'h>(h: &'h History, (k, arg): &Read) -> &'h [Value] {
    let op = crate::history::Op::new(OpKind::Read, *k, *arg);
    h.list(&op)
}

/// Whether read `r` returned a version holding one of `t`'s writes of its key.
fn wrote(h: &History, t: u32, k: KeyId, r: &Read) -> bool {
    let mine = writes(h, t, k);
    match h.model {
        Model::ListAppend => list(h, r).iter().any(|v| mine.contains(v)),
        _ => matches!(r.1, Arg::Val(v) if mine.contains(&v)),
    }
}

/// Every committed external read of `k` (and, with `internal`, every read after the reader's
/// own writes too), by transaction.
fn all_reads(h: &History, k: KeyId, internal: bool) -> impl Iterator<Item = (u32, Read)> + '_ {
    (0..h.txns.len() as u32).filter(|&t| h.txns[t as usize].status == Status::Committed).flat_map(move |t| {
        let all = h.ops_of(t).iter().filter(move |o| internal && o.kind() == OpKind::Read && o.key == k);
        let inner: Vec<Read> = all.map(|o| (k, o.arg())).collect();
        let outer: Vec<Read> = if internal { Vec::new() } else { reads(h, t, k).collect() };
        inner.into_iter().chain(outer).map(move |r| (t, r))
    })
}

/// The levels whose cycles may hide a lost update (PL-2, PL-1): a step that assumes none is
/// not taken for them.
fn weak(level: &str) -> bool {
    matches!(level, "PL-2" | "PL-1")
}

/// A version with `a`'s write of `k` came before one with `b`'s.
fn write_order(h: &History, a: u32, b: u32, k: KeyId, reads_order: bool, internal: bool) -> bool {
    let (wa, wb) = (writes(h, a, k), writes(h, b, k));
    if wa.is_empty() || wb.is_empty() {
        return false;
    }
    if h.model == Model::ListAppend {
        // A list holding an append of `a`'s and, after it or not at all, one of `b`'s.
        return consistent(h, k, internal)
            && all_reads(h, k, internal).any(|(_, r)| {
                let l = list(h, &r);
                let pa = l.iter().position(|v| wa.contains(v));
                let pb = l.iter().position(|v| wb.contains(v));
                matches!((pa, pb), (Some(x), Some(y)) if x < y) || (pa.is_some() && pb.is_none())
            });
    }
    // `b` read `a`'s last write and then wrote; or the log orders them.
    let last_a = wa.last().copied();
    (reads_order && reads(h, b, k).any(|r| matches!(r.1, Arg::Val(v) if Some(v) == last_a)))
        || logged_before(h, k, &wa, &wb)
}

/// `a` read a version of `k` that `b`'s write came after.
fn anti(h: &History, a: u32, b: u32, k: KeyId) -> bool {
    let wb = writes(h, b, k);
    if wb.is_empty() {
        return false;
    }
    if h.model == Model::ListAppend {
        return consistent(h, k, false) && reads(h, a, k).any(|r| !list(h, &r).iter().any(|v| wb.contains(v)));
    }
    reads(h, a, k).any(|r| match r.1 {
        Arg::Val(v) => {
            // `b` read that value and then wrote, or the log puts it before `b`'s write.
            reads(h, b, k).any(|s| s.1 == Arg::Val(v)) || logged_before(h, k, &[v], &wb)
        }
        // The initial value: every version comes after it.
        _ => !h.initial_open,
    })
}

/// The write-ahead log lists one of `a`'s values of `k` before one of `b`'s.
fn logged_before(h: &History, k: KeyId, a: &[Value], b: &[Value]) -> bool {
    let Some(order) = h.version_order.as_ref().and_then(|vo| vo.per_key.get(&k)) else { return false };
    let pa = order.iter().position(|v| a.contains(v));
    let pb = order.iter().rposition(|v| b.contains(v));
    matches!((pa, pb), (Some(x), Some(y)) if x < y)
}

/// A list key's committed reads are each a prefix of the longest: its versions are one order
/// (else a read without an append says nothing of where it stands).
fn consistent(h: &History, k: KeyId, internal: bool) -> bool {
    let lists: Vec<&[Value]> = all_reads(h, k, internal).map(|(_, r)| list(h, &r)).collect();
    let Some(longest) = lists.iter().max_by_key(|l| l.len()) else { return true };
    lists.iter().all(|l| longest.starts_with(l))
}

pub(super) fn session(h: &History, a: u32, b: u32) -> bool {
    use super::orders::place;
    let (Some(x), Some(y)) = (h.txns.get(a as usize), h.txns.get(b as usize)) else { return false };
    x.process().is_some() && x.process() == y.process() && place(x, a) < place(y, b)
}

fn realtime(h: &History, a: u32, b: u32) -> bool {
    use super::orders::{timed, times};
    let timed = timed(h);
    let (Some(x), Some(y)) = (h.txns.get(a as usize), h.txns.get(b as usize)) else { return false };
    // `a` without a recorded invocation still completed before `b` was invoked.
    match (times(x, timed), times(y, timed)) {
        ((ia, Some(ca)), (Some(ib), _)) => ia.map_or(ca, |i| ca.max(i)) < ib,
        _ => false,
    }
}
