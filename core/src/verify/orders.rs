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

/// Each process's transactions in the witness, in the order the process ran them (by invocation
/// position, then invocation time, then place in the history), come one after the other.
pub(super) fn session(h: &History, ex: &Execution, kind: WitnessKind) -> Result<(), String> {
    let mut runs: Vec<(i64, Option<u64>, Option<i64>, u32)> = h
        .txns
        .iter()
        .enumerate()
        .filter(|&(t, _)| ex.contains(t))
        .filter_map(|(t, x)| Some((x.process?, x.invoke_pos(), x.invoke_time, t as u32)))
        .collect();
    runs.sort_unstable();
    for pair in runs.windows(2) {
        let (&(p, .., a), &(q, .., b)) = (&pair[0], &pair[1]);
        if p == q && !ex.before(a, b) {
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

/// A transaction of the witness that completed before another was invoked comes before it: by
/// the history's times when it has any, else by the positions of invocations and completions.
/// `a` precedes `b` when `a`'s completion and invocation are both before `b`'s invocation
/// (equal times are concurrent).
///
/// In O(n log n): the predecessors sorted by completion, the successors by invocation; sweeping
/// the invocations in order, the predecessors completed before each one grow, and of them only
/// the one that commits last in the witness needs to be before it.
pub(super) fn real_time(h: &History, ex: &Execution, kind: WitnessKind) -> Result<(), String> {
    let timed = h.txns.iter().any(|t| t.invoke_time.is_some() || t.complete_time.is_some());
    let pos = |p: Option<u64>| p.and_then(|p| i64::try_from(p).ok());
    let times = |x: &Transaction| {
        if timed {
            (x.invoke_time, x.complete_time)
        } else {
            (pos(x.invoke_pos()), pos(x.complete_pos()))
        }
    };
    let (mut completions, mut invocations) = (Vec::new(), Vec::new());
    for (t, x) in h.txns.iter().enumerate().filter(|&(t, _)| ex.contains(t)) {
        let (invoked, completed) = times(x);
        if let (Some(i), Some(c)) = (invoked, completed) {
            completions.push((c.max(i), t as u32));
        }
        if let Some(i) = invoked {
            invocations.push((i, t as u32));
        }
    }
    completions.sort_unstable();
    invocations.sort_unstable();
    let commit = |t: u32| ex.commit.get(t as usize).copied().unwrap_or(0);
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
