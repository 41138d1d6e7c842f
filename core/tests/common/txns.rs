//! The transactions of a history as plain data, independent of grail's representation: what the
//! reader property tests and the clojure-reader oracle compare.

use grail_core::history::{Arg, OpKind, Value};
use grail_core::{History, Status};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum V {
    Int(i64),
    Str(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Res {
    Nil,
    Scalar(V),
    List(Vec<V>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XOp {
    Read(V, Res),
    Write(V, V),
    Append(V, V),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XTxn {
    pub id: u64,
    pub process: Option<i64>,
    pub status: Status,
    pub ops: Vec<XOp>,
    pub invoke_time: Option<i64>,
    pub complete_time: Option<i64>,
}

pub fn v_of(h: &History, v: Value) -> V {
    match v {
        Value::Int(i) => V::Int(i),
        Value::Str(_) => V::Str(h.plain(v)),
    }
}

/// The transactions of a history as plain data, in grail's order.
pub fn txns_of(h: &History) -> Vec<XTxn> {
    (0..h.txns.len())
        .map(|t| {
            let txn = &h.txns[t];
            let ops = h
                .ops_of(t as u32)
                .iter()
                .map(|op| {
                    let key = v_of(h, h.key(op.key));
                    match (op.kind(), op.arg()) {
                        (OpKind::Read, Arg::Nil) => XOp::Read(key, Res::Nil),
                        (OpKind::Read, Arg::Val(v)) => XOp::Read(key, Res::Scalar(v_of(h, v))),
                        (OpKind::Read, _) => {
                            XOp::Read(key, Res::List(h.list(op).iter().map(|&v| v_of(h, v)).collect()))
                        }
                        (OpKind::Write, Arg::Val(v)) => XOp::Write(key, v_of(h, v)),
                        (OpKind::Append, Arg::Val(v)) => XOp::Append(key, v_of(h, v)),
                        (kind, arg) => panic!("a {kind:?} must carry a value, found {arg:?}"),
                    }
                })
                .collect();
            XTxn {
                id: txn.id,
                process: txn.process(),
                status: txn.status,
                ops,
                invoke_time: txn.invoke_time(),
                complete_time: txn.complete_time(),
            }
        })
        .collect()
}
