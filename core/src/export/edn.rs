//! Transactions of a history written back as Jepsen EDN, from the [`History`] itself (any input
//! format): a sub-history that grail reads to the same transactions (id, status, process,
//! label, operations), for sharing a counterexample or cutting a history down. No IO.
//!
//! One completion map a line: `{:index 2, :type :ok, :process 0, :value [[:r x [1]] [:append x
//! 2]]}`, in the order the transactions were invoked, so each process's transactions keep their
//! order. Times and invocations are not written: read back, the sub-history's real-time order is
//! the order of its lines.

use crate::history::{Arg, History, Op, OpKind, Status, TxnId, Value};
use std::fmt::Write;

/// The transactions `txns` (indices into [`History::txns`]; out of range and repeated ones are
/// skipped) as Jepsen EDN, one map a line, after `comment` as `;` lines when there is one.
pub fn sub_history(h: &History, txns: &[TxnId], comment: Option<&str>) -> String {
    let mut order: Vec<TxnId> = txns.iter().copied().filter(|&t| (t as usize) < h.txns.len()).collect();
    order.sort_unstable_by_key(|&t| (h.txns[t as usize].invoke_pos(), t));
    order.dedup();
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

/// One transaction as a Jepsen completion map.
pub fn txn_edn(out: &mut String, h: &History, t: TxnId) {
    let txn = &h.txns[t as usize];
    let ty = match txn.status {
        Status::Committed => "ok",
        Status::Aborted => "fail",
        Status::Indeterminate => "info",
    };
    let _ = write!(out, "{{:index {}, :type :{ty}", txn.id);
    if let Some(p) = txn.process {
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
    let _ = write!(out, "[:{} ", op.kind.jepsen());
    value(out, h, h.key(op.key));
    out.push(' ');
    match (op.kind, op.arg) {
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
        Value::Str(s) => {
            let s = h.strings.get(s);
            if bare(s) {
                out.push_str(s);
            } else {
                string(out, s);
            }
        }
    }
}

/// A symbol the EDN reader takes as this same string.
fn bare(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"-_.*+!?<>=".contains(&b))
        && !matches!(s, "nil" | "true" | "false")
}

/// A string literal, escaped as Clojure's reader unescapes it.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
