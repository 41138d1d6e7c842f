//! Cobra's binary client logs, written (the format `crate::read::cobra` reads: records `S`, `W`,
//! `R`, `C` with big-endian 64-bit fields). A write's id is unique across the history, as
//! Cobra's client library makes it; a read names its writer's transaction and write id, or
//! Cobra's initial-value marker.

use crate::hash::Map;
use std::collections::BTreeMap;

/// Cobra's marker for a read of the initial value (writer and write id).
const INIT: i64 = 0xbebe_ebee;

#[derive(Default)]
pub(super) struct CobraLogs {
    /// One log per client process, in process order.
    logs: BTreeMap<usize, Vec<u8>>,
    /// (key, value) -> (writer transaction, write id).
    writes: Map<(u64, i64), (i64, i64)>,
    next_wid: i64,
}

/// One operation of a committed transaction: a write of `value`, or a read that saw `value`
/// (`None`: the initial value).
pub(super) enum LogOp {
    Write(u64, i64),
    Read(u64, Option<i64>),
}

impl CobraLogs {
    /// Log a committed transaction of process `process` with id `tid`.
    pub(super) fn txn(&mut self, process: usize, tid: i64, ops: &[LogOp]) {
        let mut rec: Vec<u8> = Vec::with_capacity(9 + 33 * ops.len() + 9);
        let word = |rec: &mut Vec<u8>, v: i64| rec.extend_from_slice(&v.to_be_bytes());
        rec.push(b'S');
        word(&mut rec, tid);
        for op in ops {
            match *op {
                LogOp::Write(k, v) => {
                    self.next_wid += 1;
                    let wid = self.next_wid;
                    self.writes.insert((k, v), (tid, wid));
                    rec.push(b'W');
                    for x in [wid, k as i64, v] {
                        word(&mut rec, x);
                    }
                }
                LogOp::Read(k, v) => {
                    let (wt, wid) = v.and_then(|v| self.writes.get(&(k, v)).copied()).unwrap_or((INIT, INIT));
                    rec.push(b'R');
                    for x in [wt, wid, k as i64, v.unwrap_or(0)] {
                        word(&mut rec, x);
                    }
                }
            }
        }
        rec.push(b'C');
        word(&mut rec, tid);
        self.logs.entry(process).or_default().extend_from_slice(&rec);
    }

    pub(super) fn finish(self) -> Vec<Vec<u8>> {
        self.logs.into_values().collect()
    }
}
