//! Transactions of a history written back as Jepsen EDN, from the [`History`] itself (any input
//! format): a sub-history that grail reads to the same transactions (id, status, process,
//! label, operations), for sharing a counterexample or cutting a history down. No IO.
//!
//! One completion map a line: `{:index 2, :type :ok, :process 0, :value [[:r x [1]] [:append x
//! 2]]}`, in the order the transactions were invoked, so each process's transactions keep their
//! order. Times and invocations are not written: read back, the sub-history records no real-time
//! order (a completion is no invocation: strict-SER and strong-SI are unknown on it where they
//! would hold); [`sub_history_events`] keeps it.

use crate::history::{write_edn_str, write_edn_string, Arg, History, Op, OpKind, TxnId, Value};
use std::fmt::Write;

/// The transactions `txns` (indices into [`History::txns`]; out of range and repeated ones are
/// skipped) as Jepsen EDN, one map a line, after `comment` as `;` lines when there is one.
pub fn sub_history(h: &History, txns: &[TxnId], comment: Option<&str>) -> String {
    let order = super::invocation_order(h, txns);
    let mut out = String::new();
    for line in comment.into_iter().flat_map(str::lines) {
        let _ = writeln!(out, "; {line}");
    }
    for t in order {
        txn_edn(&mut out, h, t);
        out.push('\n');
    }
    out
}

/// The transactions `txns` as a Jepsen history that keeps what checking them needs beyond their
/// operations: each invocation (reads unknown) and completion in the history's order, with
/// `:time`, `:start-ts` and `:commit-ts` when known, and the claimed commit order restricted to
/// them. Every record has its own `:index`, as Elle's loader needs. Read back, real-time and
/// session order among them are the history's.
pub fn sub_history_events(h: &History, txns: &[TxnId], comment: Option<&str>) -> String {
    let (order, events) = events_in_order(h, txns);
    let mut invoke_index = InvokeIndex::new(h, &order);
    let mut out = String::new();
    for line in comment.into_iter().flat_map(str::lines) {
        let _ = writeln!(out, "; {line}");
    }
    for (_, done, t) in events {
        let txn = &h.txns[t as usize];
        if done {
            txn_edn(&mut out, h, t);
            out.pop(); // the closing brace: the timestamps go inside the map
            if let Some(ts) = txn.start_ts() {
                let _ = write!(out, ", :start-ts {}", ts_edn(ts));
            }
            if let Some(ts) = txn.commit_ts() {
                let _ = write!(out, ", :commit-ts {}", ts_edn(ts));
            }
            time(&mut out, txn.complete_time());
            out.push('}');
        } else {
            let _ = write!(out, "{{:index {}, :type :invoke", invoke_index.next(txn.invoke_pos()));
            if let Some(p) = txn.process() {
                let _ = write!(out, ", :process {p}");
            }
            out.push_str(", :value [");
            for (i, op) in h.ops_of(t).iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                let mut op = *op;
                if op.kind() == OpKind::Read {
                    op = op.with_arg(Arg::Nil); // an invocation does not know what it will read
                }
                op_edn(&mut out, h, &op);
            }
            out.push(']');
            time(&mut out, txn.invoke_time());
            out.push('}');
        }
        out.push('\n');
    }
    if let Some(co) = &h.commit_order {
        let ids: Vec<String> =
            co.iter().filter(|t| order.binary_search(t).is_ok()).map(|&t| h.txns[t as usize].id.to_string()).collect();
        let _ = writeln!(out, "{{:commit-order [{}]}}", ids.join(" "));
    }
    out
}

/// The `:index` of each invocation written: Elle's loader (`jepsen.history/history`) takes the
/// first record's `:index` to say whether every record has one, and pairs records by it, so an
/// invocation without one beside completions with theirs breaks it. An invocation gets its
/// position in the input (its `:index` in a dense Jepsen history) when no other record of the
/// sub-history has that index, else the next number past every index used.
struct InvokeIndex {
    /// Sorted: a sub-history is small, and a set type would grow the web demo's module.
    used: Vec<u64>,
    next_free: u64,
}

impl InvokeIndex {
    fn new(h: &History, order: &[TxnId]) -> InvokeIndex {
        let mut used: Vec<u64> = order.iter().map(|&t| h.txns[t as usize].id).collect();
        crate::par::sort::sort_unstable(&mut used);
        let next_free = used.last().map_or(0, |m| m + 1);
        InvokeIndex { used, next_free }
    }

    /// Take `i` when no record has it yet.
    fn take(&mut self, i: u64) -> bool {
        match self.used.binary_search(&i) {
            Ok(_) => false,
            Err(at) => {
                self.used.insert(at, i);
                true
            }
        }
    }

    fn next(&mut self, pos: Option<u64>) -> u64 {
        match pos {
            Some(p) if self.take(p) => {
                self.next_free = self.next_free.max(p + 1);
                p
            }
            _ => {
                while !self.take(self.next_free) {
                    self.next_free += 1;
                }
                self.next_free
            }
        }
    }
}

/// The transactions `txns` (indices; out of range and repeated ones skipped), ascending, and
/// their invocations and completions as (position, completion?, transaction) in the history's
/// order: a transaction whose invocation is not recorded has its completion only.
pub(crate) fn events_in_order(h: &History, txns: &[TxnId]) -> (Vec<TxnId>, Vec<(u64, bool, TxnId)>) {
    let mut order: Vec<TxnId> = txns.iter().copied().filter(|&t| (t as usize) < h.txns.len()).collect();
    crate::par::sort::sort_unstable(&mut order);
    order.dedup();
    let mut events: Vec<(u64, bool, TxnId)> = Vec::with_capacity(2 * order.len());
    for &t in &order {
        let txn = &h.txns[t as usize];
        let done = txn.complete_pos().or(txn.invoke_pos()).unwrap_or(2 * t as u64 + 1);
        if let Some(at) = txn.invoke_pos() {
            events.push((at, false, t));
        }
        events.push((done, true, t));
    }
    crate::par::sort::sort_unstable(&mut events);
    (order, events)
}

fn time(out: &mut String, t: Option<i64>) {
    if let Some(t) = t {
        let _ = write!(out, ", :time {t}");
    }
}

fn ts_edn(ts: crate::history::Ts) -> String {
    if ts.l == 0 {
        ts.p.to_string()
    } else {
        format!("[{} {}]", ts.p, ts.l)
    }
}

/// One transaction as a Jepsen completion map.
pub fn txn_edn(out: &mut String, h: &History, t: TxnId) {
    let txn = &h.txns[t as usize];
    let _ = write!(out, "{{:index {}, :type :{}", txn.id, txn.status.jepsen());
    if let Some(p) = txn.process() {
        let _ = write!(out, ", :process {p}");
    }
    if let Some(l) = h.label(t) {
        out.push_str(", :label ");
        string(out, l);
    }
    out.push_str(", :value [");
    for (i, op) in h.ops_of(t).iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        op_edn(out, h, op);
    }
    out.push_str("]}");
}

/// A micro-operation in full (lists are not shortened): `[:append x 2]`, `[:r x [1 2]]`.
fn op_edn(out: &mut String, h: &History, op: &Op) {
    let _ = write!(out, "[:{} ", op.kind().jepsen());
    value(out, h, h.key(op.key));
    out.push(' ');
    match (op.kind(), op.arg()) {
        (_, Arg::Val(v)) => value(out, h, v),
        (OpKind::Read, Arg::Prefix(_) | Arg::List { .. }) => {
            out.push('[');
            for (i, &v) in h.list(op).iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                value(out, h, v);
            }
            out.push(']');
        }
        _ => out.push_str("nil"),
    }
    out.push(']');
}

/// An integer, or a string: bare when it reads back as the same string (`members`), quoted
/// otherwise (`"a b"`, `"nil"`, `"12"`).
fn value(out: &mut String, h: &History, v: Value) {
    match v {
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Str(s) => write_edn_str(out, h.strings.get(s)),
    }
}

fn string(out: &mut String, s: &str) {
    write_edn_string(out, s);
}
