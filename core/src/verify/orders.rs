//! The orders a witness says it respects: each session's, and real time. Each is an order that
//! must hold between transactions of the witness: `a` before `b` is `a` committing before `b`
//! starts (for a serial witness, `a` coming first).

use super::format::WitnessKind;
use super::{name, Execution};
use crate::history::{History, Transaction};

/// How the witness runs `b` against `a` when it does not run `a` first.
fn runs_first(h: &History, kind: WitnessKind, a: u32, b: u32) -> String {
    match kind {
        WitnessKind::Serial | WitnessKind::Versions | WitnessKind::CommitOrder => {
            format!("the witness runs {} first", name(h, b))
        }
        WitnessKind::Snapshot => format!("the witness starts {} before {} commits", name(h, b), name(h, a)),
    }
}

/// The witness's transactions by session (process), each in the order the process ran them (by
/// invocation position, then invocation time, then place in the history); a transaction
/// without a process is a session of its own.
pub(super) fn sessions(h: &History, ex: &Execution) -> Vec<Vec<u32>> {
    // (process, place): each transaction of the witness once (a snapshot names each twice).
    type Run = (Option<i64>, (Option<u64>, Option<i64>, u32));
    let mut runs: Vec<Run> = h
        .txns
        .iter()
        .enumerate()
        .filter(|&(t, _)| ex.contains(t))
        .map(|(t, x)| (x.process(), place(x, t as u32)))
        .collect();
    runs.sort_unstable();
    let mut out: Vec<Vec<u32>> = Vec::new();
    let mut last: Option<i64> = None;
    for (p, (.., t)) in runs {
        match (p, out.last_mut()) {
            (Some(p), Some(s)) if last == Some(p) => s.push(t),
            _ => out.push(vec![t]),
        }
        last = p;
    }
    out
}

/// Where a transaction stands in its process: invocation position, time, then place in the
/// history.
pub(super) fn place(x: &Transaction, t: u32) -> (Option<u64>, Option<i64>, u32) {
    (x.first_pos(), x.invoke_time(), t)
}

/// Each process's transactions in the witness come one after the other ([`sessions`]).
pub(super) fn session(h: &History, ex: &Execution, kind: WitnessKind) -> Result<(), String> {
    for pair in sessions(h, ex).iter().flat_map(|s| s.windows(2)) {
        let (a, b) = (pair[0], pair[1]);
        if !ex.before(a, b) {
            return Err(format!(
                "{} and {} are one session's, in this order, but {}",
                name(h, a),
                name(h, b),
                runs_first(h, kind, a, b)
            ));
        }
    }
    Ok(())
}

/// A transaction's invocation and completion times: the history's when it records any (`timed`),
/// else the positions of its invocation and completion in the input.
pub(super) fn times(x: &Transaction, timed: bool) -> (Option<i64>, Option<i64>) {
    let pos = |p: Option<u64>| p.and_then(|p| i64::try_from(p).ok());
    if timed {
        (x.invoke_time(), x.complete_time())
    } else {
        (pos(x.invoke_pos()), pos(x.complete_pos()))
    }
}

/// Whether the history records times (else real time is the input's order).
pub(super) fn timed(h: &History) -> bool {
    h.txns.iter().any(|t| t.invoke_time().is_some() || t.complete_time().is_some())
}

/// A transaction of the witness that completed before another was invoked comes before it: by
/// the history's times when it has any, else by the positions of invocations and completions.
/// `a` precedes `b` when `a`'s completion and invocation are both before `b`'s invocation
/// (equal times are concurrent).
///
/// In O(n log n): the predecessors sorted by completion, the successors by invocation; sweeping
/// the invocations in order, the predecessors completed before each one grow, and of them only
/// the one that commits last in the witness needs to be before it.
pub(super) fn real_time(h: &History, ex: &Execution, kind: WitnessKind) -> Result<(), String> {
    let timed = timed(h);
    let times = |x: &Transaction| times(x, timed);
    let (mut completions, mut invocations) = (Vec::new(), Vec::new());
    for (t, x) in h.txns.iter().enumerate().filter(|&(t, _)| ex.contains(t)) {
        let (invoked, completed) = times(x);
        // Without a recorded invocation it still precedes what was invoked after it completed.
        if let Some(c) = completed {
            completions.push((invoked.map_or(c, |i| c.max(i)), t as u32));
        }
        if let Some(i) = invoked {
            invocations.push((i, t as u32));
        }
    }
    completions.sort_unstable();
    invocations.sort_unstable();
    let commit = |t: u32| ex.commit_at(t).unwrap_or(0);
    let (mut next, mut latest): (usize, Option<u32>) = (0, None);
    for &(invoked, b) in &invocations {
        while let Some(&(_, a)) = completions.get(next).filter(|&&(c, _)| c < invoked) {
            if latest.is_none_or(|l| commit(a) > commit(l)) {
                latest = Some(a);
            }
            next += 1;
        }
        if let Some(a) = latest.filter(|&a| !ex.before(a, b)) {
            return Err(format!(
                "{} completed before {} was invoked, but {}",
                name(h, a),
                name(h, b),
                runs_first(h, kind, a, b)
            ));
        }
    }
    Ok(())
}
