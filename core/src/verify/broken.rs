//! Reads that break the data model's assumptions: a garbage read (a value, or a list element,
//! that no transaction of the history wrote to the key) and an internal inconsistency (a read
//! that disagrees with its own transaction's earlier writes of the key, a register's last value
//! or a list's own appends at its end; or one that repeats neither the transaction's earlier
//! read of the key nor the writes it made since). No execution has the first two; the third is
//! a non-repeatable read, which RC, PL-2 and PL-1 executions may have. grail sets them aside for
//! levels that hold on the rest (`holds (with internal set aside)`); a witness names the reads
//! it sets aside, each one all its levels forbid.

use super::cycles::values_written;
use super::format::ReadRef;
use crate::hash::Set;
use crate::history::{Arg, History, KeyId, Model, OpKind, Status, Value};

/// A broken read's kind, and the levels it violates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Broken {
    /// A value, or a list element, that no transaction wrote to the key: every level.
    Garbage,
    /// Disagrees with its transaction's own earlier writes of the key: every level.
    OwnWrite,
    /// Disagrees with its transaction's earlier read of the key (and the writes it made since):
    /// a non-repeatable read, which RC, PL-2 and PL-1 allow.
    Repeat,
}

impl Broken {
    pub(super) fn name(self) -> &'static str {
        match self {
            Broken::Garbage => "garbage-read",
            Broken::OwnWrite | Broken::Repeat => "internal",
        }
    }

    pub(super) fn violates(self, level: &str) -> bool {
        super::format::LEVELS.contains(&level) && !(self == Broken::Repeat && matches!(level, "RC" | "PL-2" | "PL-1"))
    }
}

/// What makes transaction `r.txn`'s operation `r.index` a broken read, or why it is none.
/// `written` is every (key, value) the history writes.
pub(super) fn kind(h: &History, ids: &super::Ids, written: &Set<(KeyId, Value)>, r: ReadRef) -> Result<Broken, String> {
    kind_at(h, ids.named(r.txn)?, r.index as usize, written)
}

/// What makes transaction `t`'s operation `i` a broken read, or why it is none.
pub(super) fn kind_at(h: &History, t: u32, i: usize, written: &Set<(KeyId, Value)>) -> Result<Broken, String> {
    let r = ReadRef { txn: h.txns.get(t as usize).map_or(0, |x| x.id), index: i as u32 };
    if h.txns.get(t as usize).is_none_or(|x| x.status != Status::Committed) {
        return Err(format!("T{} did not commit: its reads are unknown", r.txn));
    }
    let ops = h.ops_of(t);
    let op = ops
        .get(i)
        .filter(|o| o.kind() == OpKind::Read)
        .ok_or_else(|| format!("T{}'s operation {i} is not a read", r.txn))?;
    let (k, arg) = (op.key, op.arg());
    let list = h.model == Model::ListAppend || matches!(arg, Arg::Prefix(_) | Arg::List { .. });
    let garbage = if list {
        h.list(op).iter().any(|&v| !written.contains(&(k, v)))
    } else {
        // An open initial value may be one no transaction writes.
        matches!(arg, Arg::Val(v) if !written.contains(&(k, v)) && !h.initial_open)
    };
    if garbage {
        return Ok(Broken::Garbage);
    }
    let before = &ops[..i];
    let own = values_written(before, k);
    let own_broken = match own.last() {
        None => false,
        Some(&last) if !list => arg != Arg::Val(last),
        Some(_) => !h.list(op).ends_with(&own),
    };
    if own_broken {
        return Ok(Broken::OwnWrite);
    }
    // The latest earlier read of the key, and the writes since: this read must repeat them.
    if let Some(p) = before.iter().rposition(|o| o.key == k && o.kind() == OpKind::Read) {
        let since = values_written(&before[p + 1..], k);
        let repeated = if list {
            let (earlier, now) = (h.list(&before[p]), h.list(op));
            now.len() == earlier.len() + since.len() && now.starts_with(earlier) && now.ends_with(&since)
        } else {
            !since.is_empty() || before[p].arg() == arg
        };
        if !repeated {
            return Ok(Broken::Repeat);
        }
    }
    Err(format!(
        "T{}'s operation {i} reads values the history wrote, agreeing with its own earlier reads and writes",
        r.txn
    ))
}
