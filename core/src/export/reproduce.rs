//! The sub-history offered with a counterexample: the cycle's transactions plus as few others
//! as grail needs to find the same cycle again (the readers that fix a version order, the
//! writers a polygraph's choice is between), each candidate checked by grail itself. One builder
//! for every front end (the HTML report, the bindings, the demo), so that what is offered as
//! minimal is checked, not assumed: the cycle's transactions alone often show another anomaly.

use super::edn::sub_history_events;
use crate::explain::CycleReport;
use crate::history::{History, Notation, TxnId};
use crate::level::Level;
use crate::read::read;
use crate::report::{check, CheckOptions, Report};
use serde::Serialize;

/// At most this many transactions beyond the cycle's are candidates (the nearest to it).
pub const MAX_CANDIDATES: usize = 200;
/// Checks a search spends by default.
pub const DEFAULT_MAX_CHECKS: usize = 64;

/// A sub-history and what checking it showed.
#[derive(Debug, Clone, Serialize)]
pub struct SubHistory {
    /// In the input's notation: Jepsen EDN with a `;` comment saying what it shows, or Plume's
    /// text, grail's native JSON or elle-cli's JSON (which have no comments).
    pub text: String,
    /// The file extension of `text`'s notation: `edn`, `txt` or `json`.
    pub extension: &'static str,
    /// Ids of its transactions, ascending.
    pub transactions: Vec<u64>,
    /// Checked alone, it violates a level of the counterexample with a cycle of the same
    /// anomaly through the same transactions.
    pub reproduces: bool,
    /// It reproduces, and leaving out any one transaction beyond the cycle's loses the cycle.
    pub minimal: bool,
    /// Checks spent.
    pub checks: usize,
    /// It was checked with the write-ahead log's order of its writes, which the text does not
    /// carry: checked alone without the log, it need not show the cycle.
    pub with_log: bool,
}

impl SubHistory {
    /// How it was checked, as its comment and the HTML report say.
    pub fn checked_alone(&self) -> &'static str {
        checked_alone(self.with_log)
    }
}

fn checked_alone(with_log: bool) -> &'static str {
    match with_log {
        true => "checked alone with the write-ahead log's order of its writes",
        false => "checked alone",
    }
}

/// Transactions `ts` in the input's notation: Jepsen EDN with each invocation (real-time order
/// kept) after `comment`, or Plume's text, native JSON (times kept) or elle-cli's JSON (each
/// invocation kept), which have no comments.
fn written(h: &History, ts: &[TxnId], comment: Option<&str>) -> String {
    match h.notation {
        Notation::Jepsen => sub_history_events(h, ts, comment),
        Notation::Plume => super::plume::sub_history(h, ts),
        Notation::Native => super::native::sub_history(h, ts),
        Notation::ElleJson => super::elle_json::sub_history(h, ts),
        Notation::TimeKiller => super::timekiller::sub_history(h, ts),
    }
}

/// Whether `r` violates one of `levels` with the cycle `want` (anomaly and transactions).
fn shows(r: &Report, levels: &[Level], want: &(String, Vec<u64>)) -> bool {
    let same = |c: &CycleReport| c.anomaly == want.0 && sorted(&c.txns) == want.1;
    levels.iter().any(|&l| r.levels.get(l).is_some_and(|lr| lr.valid == Some(false) && lr.cycles.iter().any(same)))
        || r.anomalies.iter().any(|a| a.cycle.as_ref().is_some_and(same) && a.levels.iter().any(|l| levels.contains(l)))
}

/// `h`'s version order (a write-ahead log's, or a native document's), restricted to the writes
/// of `sub`, a sub-history of `h` read back, which does not have it: a log is not in the text.
fn carry_order(h: &History, sub: &mut History) {
    use crate::history::{Value, VersionOrder};
    let (Some(vo), None) = (&h.version_order, &sub.version_order) else { return };
    let value = |v: Value| match v {
        Value::Int(i) => Some(Value::Int(i)),
        Value::Str(s) => sub.strings.lookup(h.strings.get(s)).map(Value::Str),
    };
    let written = crate::read::written_pairs(sub);
    let mut order = VersionOrder::default();
    for (&k, vals) in &vo.per_key {
        let Some(key) = h.keys.get(k as usize).and_then(|&kv| value(kv)) else { continue };
        let Some(sk) = sub.keys.iter().position(|&x| x == key) else { continue };
        let sk = sk as u32;
        let kept: Vec<Value> = vals.iter().filter_map(|&v| value(v)).filter(|&v| written.contains(&(sk, v))).collect();
        order.per_key.insert(sk, kept);
    }
    sub.version_order = Some(order);
}

fn sorted(ids: &[u64]) -> Vec<u64> {
    let mut v = ids.to_vec();
    crate::par::sort::sort_unstable(&mut v);
    v
}

/// The smallest sub-history of `h` found in `max_checks` checks that shows the cycle `c`
/// again under one of `levels` (the levels it was reported for), checked with `opts` (whose
/// levels are replaced by `levels`). A ddmin search over the transactions touching a key of
/// the cycle's transactions: 1-minimal when the budget lasts.
pub fn reproducing_sub_history(
    h: &History,
    c: &CycleReport,
    levels: &[Level],
    opts: &CheckOptions,
    max_checks: usize,
) -> SubHistory {
    let by_id: crate::hash::Map<u64, TxnId> =
        c.txns.iter().filter_map(|&id| h.txns.iter().position(|t| t.id == id).map(|t| (id, t as TxnId))).collect();
    let base: Vec<TxnId> = c.txns.iter().filter_map(|id| by_id.get(id).copied()).collect();
    let want = (c.anomaly.clone(), sorted(&c.txns));
    let opts = CheckOptions { levels: levels.to_vec(), analyze: None, ..opts.clone() };
    let candidates = candidates(h, &base);
    let mut checks = 0;
    // Each candidate is checked as the text offered is written: in the input's notation.
    let format = super::reader_format(h.notation);
    let mut fails = |extra: &[TxnId]| {
        checks += 1;
        let ts: Vec<TxnId> = base.iter().chain(extra).copied().collect();
        let text = written(h, &ts, None);
        read(text.as_bytes(), format).is_ok_and(|mut sub| {
            carry_order(h, &mut sub);
            shows(&check(&sub, &opts), levels, &want)
        })
    };
    let (kept, reproduces, minimal) = if base.len() != c.txns.len() || !fails(&candidates) {
        (Vec::new(), false, false)
    } else if candidates.is_empty() || fails(&[]) {
        (Vec::new(), true, true)
    } else {
        let (kept, done) = ddmin(candidates, max_checks.saturating_sub(2), &mut fails);
        (kept, true, done)
    };
    let ts: Vec<TxnId> = base.iter().chain(&kept).copied().collect();
    let names = |ids: &[u64]| ids.iter().map(|t| format!("T{t}")).collect::<Vec<_>>().join(" -> ");
    let what = match &c.cycle_anomaly {
        Some(_) => format!("the {} {}", c.heading(), names(&c.txns)),
        None => format!("the {} ({}) cycle {}", c.name, c.anomaly, names(&c.txns)),
    };
    // A write-ahead log's order is not in the text: the sub-history is checked with it.
    let outside = h.version_order.is_some() && h.notation != Notation::Native;
    let alone = checked_alone(outside);
    let comment = if !reproduces {
        format!(
            "The transactions of {what}. {} they do not show it again: grail inferred it from more of the history.",
            if outside { "Checked alone with the write-ahead log's order of their writes," } else { "Checked alone," }
        )
    } else {
        format!(
            "A sub-history of {} transactions with {what}: {alone}, it violates {} with it{}.",
            ts.len(),
            Level::join_names(levels, " or "),
            if minimal {
                ", and leaving out any one transaction loses it (minimal)"
            } else {
                "; reduced as far as the search budget allowed (some transactions may not be needed)"
            }
        )
    };
    let mut transactions: Vec<u64> = ts.iter().map(|&t| h.txns[t as usize].id).collect();
    crate::par::sort::sort_unstable(&mut transactions);
    let text = written(h, &ts, Some(&comment));
    SubHistory {
        text,
        extension: super::extension(h.notation),
        transactions,
        reproduces,
        minimal,
        checks,
        with_log: outside,
    }
}

/// Transactions outside the cycle touching a key its transactions touch, the nearest to it first, at most
/// [`MAX_CANDIDATES`].
fn candidates(h: &History, base: &[TxnId]) -> Vec<TxnId> {
    // Every key of the cycle's transactions, not only its edges' keys: a reader of another key
    // can be what makes an indeterminate writer a vertex, or orders its versions.
    let mut keys: Vec<u32> = base.iter().flat_map(|&t| h.ops_of(t).iter().map(|op| op.key)).collect();
    crate::par::sort::sort_unstable(&mut keys);
    keys.dedup();
    let pos = |t: TxnId| h.txns[t as usize].complete_pos().unwrap_or(t as u64);
    let near: Vec<u64> = base.iter().map(|&t| pos(t)).collect();
    let mut out: Vec<(u64, TxnId)> = (0..h.txns.len() as TxnId)
        .filter(|t| !base.contains(t))
        .filter(|&t| h.ops_of(t).iter().any(|op| keys.binary_search(&{ op.key }).is_ok()))
        .map(|t| (near.iter().map(|&p| p.abs_diff(pos(t))).min().unwrap_or(0), t))
        .collect();
    crate::par::sort::sort_unstable(&mut out);
    out.truncate(MAX_CANDIDATES);
    let mut ts: Vec<TxnId> = out.into_iter().map(|x| x.1).collect();
    crate::par::sort::sort_unstable(&mut ts);
    ts
}

/// Zeller's ddmin over `kept` (where `fails(kept)` holds and `fails(&[])` does not): the subset, and whether the
/// search ended (1-minimal) rather than ran out of checks.
fn ddmin(mut kept: Vec<TxnId>, budget: usize, fails: &mut impl FnMut(&[TxnId]) -> bool) -> (Vec<TxnId>, bool) {
    let mut spent = 0;
    let mut n = 2;
    while kept.len() >= 2 {
        let size = kept.len().div_ceil(n);
        let mut reduced = false;
        for i in (0..kept.len()).step_by(size) {
            if spent >= budget {
                return (kept, false);
            }
            spent += 1;
            let rest: Vec<TxnId> = kept[..i].iter().chain(&kept[(i + size).min(kept.len())..]).copied().collect();
            if fails(&rest) {
                kept = rest;
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if n >= kept.len() {
                break;
            }
            n = (n * 2).min(kept.len());
        }
    }
    // A single one left is needed: the caller found the cycle's transactions alone do not do.
    (kept, true)
}
