//! Anomalies: the named kinds, and what was found of each (with its evidence).

use crate::history::{KeyId, TxnId, Value};
use serde::Serialize;

/// Every kind of anomaly grail reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum AnomalyKind {
    /// Adya G0: a cycle of WW edges only (write cycle).
    G0,
    /// Adya G1a: a committed transaction read a value written by an aborted one.
    G1a,
    /// Adya G1b: a committed transaction read a value its writer later overwrote.
    G1b,
    /// Adya G1c: a cycle of WW and WR edges with at least one WR (circular information flow).
    G1c,
    /// Adya G-single: a cycle with exactly one RW edge.
    GSingle,
    /// Adya G-nonadjacent: a cycle with RW edges, no two of them adjacent.
    GNonadjacent,
    /// Adya G2-item: a cycle with at least one RW edge.
    G2Item,
    /// A read that disagrees with the transaction's own earlier write or read.
    Internal,
    /// A read of a value nobody wrote.
    GarbageRead,
    /// The same value written (or appended) to a key twice: the unique-write assumption is broken.
    DuplicateWrite,
    /// Two reads of a list that are not prefixes of one another.
    IncompatibleOrder,
}

impl AnomalyKind {
    pub const ALL: [AnomalyKind; 11] = [
        AnomalyKind::G0,
        AnomalyKind::G1a,
        AnomalyKind::G1b,
        AnomalyKind::G1c,
        AnomalyKind::GSingle,
        AnomalyKind::GNonadjacent,
        AnomalyKind::G2Item,
        AnomalyKind::Internal,
        AnomalyKind::GarbageRead,
        AnomalyKind::DuplicateWrite,
        AnomalyKind::IncompatibleOrder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AnomalyKind::G0 => "G0",
            AnomalyKind::G1a => "G1a",
            AnomalyKind::G1b => "G1b",
            AnomalyKind::G1c => "G1c",
            AnomalyKind::GSingle => "G-single",
            AnomalyKind::GNonadjacent => "G-nonadjacent",
            AnomalyKind::G2Item => "G2-item",
            AnomalyKind::Internal => "internal",
            AnomalyKind::GarbageRead => "garbage-read",
            AnomalyKind::DuplicateWrite => "duplicate-write",
            AnomalyKind::IncompatibleOrder => "incompatible-order",
        }
    }

    pub fn parse(s: &str) -> Option<AnomalyKind> {
        AnomalyKind::ALL.into_iter().find(|k| k.name().eq_ignore_ascii_case(s))
    }

    pub fn is_cycle(self) -> bool {
        matches!(
            self,
            AnomalyKind::G0 | AnomalyKind::G1c | AnomalyKind::GSingle | AnomalyKind::GNonadjacent | AnomalyKind::G2Item
        )
    }
}

/// A non-cycle anomaly found while building the graph, with its evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: AnomalyKind,
    /// The transactions involved: for reads, the writer first (if any) then the readers.
    pub txns: Vec<TxnId>,
    /// Operations involved (indices into the history's ops), in the same spirit.
    pub ops: Vec<u32>,
    pub key: Option<KeyId>,
    pub value: Option<Value>,
    /// How many readers there were in all, when `txns` lists only the first few.
    pub readers: usize,
}
