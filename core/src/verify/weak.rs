//! The weak levels' counterexamples: read committed, read atomic and causal consistency as
//! Biswas and Enea define them (OOPSLA 2019, §3; Plume and AWDIT check the same axioms).
//!
//! Each level is an axiom on a commit order `co` that contains session order and reads-from:
//! if `t3` read x from `t1`, and `t3` had observed another writer `t2` of x, then `t2` commits
//! before `t1`. "Observed" is, for RC, an earlier read of `t3`'s from `t2`; for RA, `t2`
//! before `t3` in its session or read from by `t3`; for CC, a chain of session
//! order and reads-from from `t2` to `t3`. A `co` step `t2 -> t1` names `t3`'s read and that
//! chain, and is re-derived here; a cycle of such steps with `wr`, `ww` and `so` leaves no
//! commit order. A read of the initial value after observing a writer of the key leaves none
//! either: the axiom would put the writer before the initial state.
//!
//! Reads-from is strict here: the read returned the writer's value, or a list whose last
//! element (before the reader's own appends) the writer appended; the history must write each
//! value once to a key (checked once for all counterexamples, [`super::verify`]).

use super::cycles::{committed, key_named, list, session, values_written, writes};
use super::format::{Counterexample, CycleStep, ReadRef};
use crate::hash::Map;
use crate::history::{Arg, History, KeyId, Model, OpKind, Value};

/// A `co` step `a -> b` of `level`'s cycle: `s.read` read `s.key` from `b`, `a` wrote it, and the
/// reader had observed `a` as `s.observed` shows.
pub(super) fn co_step(
    h: &History,
    ids: &super::Ids,
    keys: &Map<String, KeyId>,
    level: &str,
    s: &CycleStep,
    a: u32,
    b: u32,
) -> Result<(), String> {
    let r = s.read.ok_or("a co step names the read that forces it (\"read\")")?;
    let reader = ids.named(r.txn)?;
    let k = key_named(keys, &s.key)?;
    let (rk, seen) = seen(h, reader, r.index)?;
    let (na, nb) = (super::name(h, a), super::name(h, b));
    if rk != k {
        return Err(format!("T{}'s operation {} does not read key {}", r.txn, r.index, s.key));
    }
    if a == b || seen.is_none_or(|v| writer_of(h, k, v) != Some(b)) {
        return Err(format!("T{}'s operation {} did not read key {} from {nb}", r.txn, r.index, s.key));
    }
    if writes(h, a, k).is_empty() {
        return Err(format!("{na} did not write key {}", s.key));
    }
    premise(h, ids, level, &s.observed, a, reader, r.index)
}

/// A read of the initial value by a transaction that had observed a writer of the key.
pub(super) fn initial_read(
    h: &History,
    ids: &super::Ids,
    _keys: &Map<String, KeyId>,
    cx: &Counterexample,
    r: ReadRef,
) -> Result<(), String> {
    if !super::cycles::weak_level(&cx.level) {
        return Err(format!("{} is not a weak level: a read of the initial value does not violate it", cx.level));
    }
    let reader = ids.named(r.txn)?;
    let (k, seen) = seen(h, reader, r.index)?;
    if seen.is_some() || (h.model != Model::ListAppend && h.initial_open) {
        return Err(format!("T{}'s operation {} did not read the initial value", r.txn, r.index));
    }
    let writer = ids.named(cx.observed[0].from)?;
    if writes(h, writer, k).is_empty() {
        return Err(format!(
            "{} did not write the key T{}'s operation {} read",
            super::name(h, writer),
            r.txn,
            r.index
        ));
    }
    premise(h, ids, &cx.level, &cx.observed, writer, reader, r.index)
}

/// `chain` shows that `reader` had observed `writer` before its operation `index`, as `level`
/// needs it observed.
fn premise(
    h: &History,
    ids: &super::Ids,
    level: &str,
    chain: &[CycleStep],
    writer: u32,
    reader: u32,
    index: u32,
) -> Result<(), String> {
    let (first, last) = match (chain.first(), chain.last()) {
        (Some(f), Some(l)) => (ids.named(f.from)?, ids.named(l.to)?),
        _ => return Err("no steps show how the reader had observed the writer (\"observed\")".into()),
    };
    if first != writer || last != reader {
        return Err(format!(
            "the steps \"observed\" run from {} to {}, not from {} to {}",
            super::name(h, first),
            super::name(h, last),
            super::name(h, writer),
            super::name(h, reader)
        ));
    }
    let needs = match level {
        "RC" => (chain.len() == 1 && chain[0].ty == "wr" && chain[0].read.is_some_and(|r| r.index < index))
            .then_some(())
            .ok_or("RC's premise is an earlier read of the reader's from the writer (one wr step)"),
        "RA" => (chain.len() == 1).then_some(()).ok_or("RA's premise is one step of session order or reads-from"),
        _ => Ok(()),
    };
    needs?;
    for (i, s) in chain.iter().enumerate() {
        let (a, b) = (ids.named(s.from)?, ids.named(s.to)?);
        if i > 0 && chain[i - 1].to != s.from {
            return Err(format!("observed step {} does not start where step {i} ends", i + 1));
        }
        committed(h, a)?;
        committed(h, b)?;
        let shown = match s.ty.as_str() {
            "so" => session(h, a, b),
            "wr" => {
                let r = s.read.ok_or("a wr step of \"observed\" names its read (\"read\")")?;
                if ids.named(r.txn)? != b {
                    return Err(format!("the read of observed step {} is not {}'s", i + 1, super::name(h, b)));
                }
                let (_, seen) = seen(h, b, r.index)?;
                a != b && seen.is_some_and(|v| writer_of(h, h.ops_of(b)[r.index as usize].key, v) == Some(a))
            }
            other => return Err(format!("an observed step is session order or reads-from, not {other:?}")),
        };
        if !shown {
            return Err(format!("the history does not show {} -{}-> {}", super::name(h, a), s.ty, super::name(h, b)));
        }
    }
    Ok(())
}

/// What transaction `t`'s operation `index` read from outside: its key, and the value (a
/// register's, or a list's last element before `t`'s own appends), `None` for the initial one.
/// Errors when it is not a read of a committed transaction, or reads `t`'s own write.
fn seen(h: &History, t: u32, index: u32) -> Result<(KeyId, Option<Value>), String> {
    let Some(x) = h.txns.get(t as usize).filter(|x| x.status == crate::history::Status::Committed) else {
        return Err(format!("{} did not commit: its reads are unknown", super::name(h, t)));
    };
    let ops = h.ops_of(t);
    let i = index as usize;
    let not = || format!("T{}'s operation {index} is not a read of another transaction's write", x.id);
    let op = ops.get(i).filter(|o| o.kind() == OpKind::Read).ok_or_else(not)?;
    let k = op.key;
    let own = values_written(&ops[..i], k);
    match h.model {
        Model::ListAppend => {
            let l = list(h, &(k, op.arg()));
            let before = l.strip_suffix(&own[..]).ok_or_else(not)?;
            Ok((k, before.last().copied()))
        }
        _ if !own.is_empty() => Err(not()),
        _ => {
            let arg = op.arg();
            match arg {
                Arg::Val(v) => Ok((k, Some(v))),
                _ => Ok((k, None)),
            }
        }
    }
}

/// The one transaction that wrote `v` to `k`.
fn writer_of(h: &History, k: KeyId, v: Value) -> Option<u32> {
    let wrote = |o: &crate::history::Op| o.key == k && o.kind() != OpKind::Read && o.arg() == Arg::Val(v);
    (0..h.txns.len() as u32).find(|&t| h.ops_of(t).iter().any(wrote))
}
