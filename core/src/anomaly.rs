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
    /// A cycle of session order and reads-from (with WW where known): Plume's CyclicCO (TAP-g).
    CausalityCycle,
    /// A transaction read a key's older version after observing a newer one's writer in an
    /// earlier read: read committed's MonoAtomicView broken (Plume's NonMonoRead, TAPs h-i).
    NonMonotonicRead,
    /// A transaction read one key twice, from two different writers (Plume TAP-j).
    NonRepeatableRead,
    /// A transaction observed a writer (by session order or reads-from) yet read an older
    /// version of a key that writer wrote: read atomic broken (Plume's FracturedRead, TAPs k-l).
    FracturedRead,
    /// As a fractured read, but the writer was observed only transitively (causally): causal
    /// consistency broken (Plume's COConflictCM and ConflictCM, TAPs m-n).
    CausalViolation,
}

impl AnomalyKind {
    pub const ALL: [AnomalyKind; 16] = [
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
        AnomalyKind::CausalityCycle,
        AnomalyKind::NonMonotonicRead,
        AnomalyKind::NonRepeatableRead,
        AnomalyKind::FracturedRead,
        AnomalyKind::CausalViolation,
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
            AnomalyKind::CausalityCycle => "causality-cycle",
            AnomalyKind::NonMonotonicRead => "non-monotonic-read",
            AnomalyKind::NonRepeatableRead => "non-repeatable-read",
            AnomalyKind::FracturedRead => "fractured-read",
            AnomalyKind::CausalViolation => "causal-violation",
        }
    }

    pub fn parse(s: &str) -> Option<AnomalyKind> {
        AnomalyKind::ALL.into_iter().find(|k| k.name().eq_ignore_ascii_case(s))
    }

    /// The plain-language name, where the kind alone gives it (Plume's names for reads).
    pub fn plain(self) -> Option<&'static str> {
        Some(match self {
            AnomalyKind::G1a => "aborted read",
            AnomalyKind::G1b => "intermediate read",
            AnomalyKind::GarbageRead => "thin-air read",
            AnomalyKind::DuplicateWrite => "duplicate write",
            AnomalyKind::IncompatibleOrder => "incompatible order",
            AnomalyKind::CausalityCycle => "causality cycle",
            AnomalyKind::NonMonotonicRead => "non-monotonic read",
            AnomalyKind::NonRepeatableRead => "non-repeatable read",
            AnomalyKind::FracturedRead => "fractured read",
            AnomalyKind::CausalViolation => "causal violation",
            _ => return None,
        })
    }

    /// Cycles of the weak levels' graph (session order, reads-from, inferred commit order).
    pub fn is_weak_cycle(self) -> bool {
        matches!(
            self,
            AnomalyKind::CausalityCycle
                | AnomalyKind::NonMonotonicRead
                | AnomalyKind::NonRepeatableRead
                | AnomalyKind::FracturedRead
                | AnomalyKind::CausalViolation
        )
    }

    /// A finding that breaks an assumption of the data model (every value read was written,
    /// once; a transaction sees its own writes; lists only grow): the history is invalid
    /// whatever the levels say.
    pub fn breaks_assumption(self) -> bool {
        matches!(
            self,
            AnomalyKind::GarbageRead
                | AnomalyKind::DuplicateWrite
                | AnomalyKind::Internal
                | AnomalyKind::IncompatibleOrder
        )
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
    /// An internal finding that is a second read of a key seeing a newer version (a
    /// non-repeatable read): read committed allows it, and it breaks no assumption.
    pub reread: bool,
    /// A register read of a value nobody wrote that may be the key's initial version: the
    /// history leaves the initial value open ([`crate::History::initial_open`]) and it is the
    /// key's only such value, with no read of the initial value itself. Neither a violation
    /// nor proof of validity: the levels it could change are left unknown.
    pub maybe_initial: bool,
}

impl Finding {
    /// Whether it makes the history invalid whatever the levels say. (Which levels it violates
    /// is the level table's to say: [`crate::level::Level::forbids`].)
    pub fn breaks_assumption(&self) -> bool {
        self.kind.breaks_assumption() && !self.reread && !self.maybe_initial
    }
}
