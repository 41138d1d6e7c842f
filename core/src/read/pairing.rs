//! Pairing each `:invoke` with its completion, by process (or in order when there is none).

use crate::hash::Map;
use crate::history::builder::TxnMeta;
use std::collections::VecDeque;

/// Type of a Jepsen operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpType {
    Invoke,
    Ok,
    Fail,
    Info,
}

impl OpType {
    /// The status of the transaction a completion of this type ends.
    pub fn status(self) -> crate::history::Status {
        use crate::history::Status;
        match self {
            OpType::Ok => Status::Committed,
            OpType::Fail => Status::Aborted,
            _ => Status::Indeterminate,
        }
    }

    pub fn parse(s: &str) -> Option<OpType> {
        Some(match s {
            "invoke" => OpType::Invoke,
            "ok" => OpType::Ok,
            "fail" => OpType::Fail,
            "info" => OpType::Info,
            _ => return None,
        })
    }
}

/// An invocation waiting for its completion; `H` is how the reader finds its operations again.
#[derive(Debug)]
pub struct Pending<H> {
    pub index: Option<u64>,
    pub time: Option<i64>,
    pub process: Option<i64>,
    pub line: u32,
    /// Position of the invocation among all operations of the input (0-based): its id when it
    /// has no `:index`, and the order of [`Pairer::leftovers`].
    pub seq: u64,
    pub handle: H,
}

/// What a completion (the `ordinal`-th operation of the input, with its index, process and time)
/// and its invocation, if any, tell of a transaction.
pub fn completed<H>(
    invoke: Option<&Pending<H>>,
    index: Option<u64>,
    process: Option<i64>,
    time: Option<i64>,
    ordinal: u64,
) -> TxnMeta {
    TxnMeta {
        id: Some(index.unwrap_or(ordinal)),
        process,
        invoke_time: invoke.and_then(|p| p.time),
        complete_time: time,
        invoke_pos: invoke.map(|p| p.seq),
        complete_pos: Some(ordinal),
        ..Default::default()
    }
}

impl<H> Pending<H> {
    /// What is known of a transaction whose invocation never completed (it is indeterminate).
    pub fn meta(&self) -> TxnMeta {
        TxnMeta {
            id: Some(self.index.unwrap_or(self.seq)),
            process: self.process,
            invoke_time: self.time,
            invoke_pos: Some(self.seq),
            line: self.line,
            ..Default::default()
        }
    }
}

/// Open invocations.
#[derive(Debug)]
pub struct Pairer<H> {
    by_process: Map<i64, Pending<H>>,
    anonymous: VecDeque<Pending<H>>,
    /// Invocations displaced by a second invocation on the same process: never completed.
    orphans: Vec<Pending<H>>,
}

impl<H> Default for Pairer<H> {
    fn default() -> Self {
        Pairer { by_process: Map::default(), anonymous: VecDeque::new(), orphans: Vec::new() }
    }
}

impl<H> Pairer<H> {
    pub fn invoke(&mut self, p: Pending<H>) {
        match p.process {
            Some(proc_) => {
                if let Some(old) = self.by_process.insert(proc_, p) {
                    self.orphans.push(old);
                }
            }
            None => self.anonymous.push_back(p),
        }
    }

    /// The invocation a completion on `process` closes, if any.
    pub fn complete(&mut self, process: Option<i64>) -> Option<Pending<H>> {
        match process {
            Some(p) => self.by_process.remove(&p),
            None => self.anonymous.pop_front(),
        }
    }

    /// Invocations never completed, in input order: indeterminate transactions. (Sorted by
    /// position, not line: a whole history on one line must not come out in hash-map order.)
    pub fn leftovers(mut self) -> Vec<Pending<H>> {
        let mut all = self.orphans;
        all.extend(self.by_process.drain().map(|(_, p)| p));
        all.extend(self.anonymous);
        crate::par::sort::sort_by_key(&mut all, |p| p.seq);
        all
    }
}
