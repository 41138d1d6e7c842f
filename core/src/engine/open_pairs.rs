//! Lost updates that every order of two unobserved appends closes.
//!
//! Elle orders a list-append key's versions by what reads observed; appends no read saw come
//! after the observed ones, in an order nobody knows. When two transactions read the same
//! version of a key (its whole observed list) and each appended to it afterwards unobserved,
//! each read misses the other's append (two certain RW edges). Whichever append is installed
//! first, the other transaction overwrote a version it had not seen: a G-single (lost update)
//! under every order, as the polygraph decides a register's unknown version order (PolySI
//! 4.1). Elle reports only orders a read observed, so it passes these histories: a documented
//! difference (`docs/levels.md`).

use crate::anomaly::AnomalyKind;
use crate::graph::{DependencyGraph, Edge, EdgeType};
use crate::history::{KeyId, TxnId};

/// Two transactions whose unobserved appends to one key leave a lost update either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenPair {
    /// `a` read a version without `b`'s append, which came after it.
    pub a_reads: Edge,
    /// And the other way around.
    pub b_reads: Edge,
}

impl OpenPair {
    pub fn key(&self) -> KeyId {
        self.a_reads.key
    }

    /// The two transactions, `a` first.
    pub fn txns(&self) -> [TxnId; 2] {
        [self.a_reads.from, self.b_reads.from]
    }
}

/// The pairs, at most `max` of them, each once (`a` < `b`), from the unobserved appends of
/// the inference.
pub fn open_pairs(g: &DependencyGraph, open_appends: &[(KeyId, TxnId)], max: usize) -> Vec<OpenPair> {
    let mut out = Vec::new();
    // At most this many pairs looked at: a key with thousands of unobserved appends (a history
    // with no final read) would otherwise cost their square.
    let mut tries = MAX_TRIES;
    for group in open_appends.chunk_by(|x, y| x.0 == y.0) {
        for (i, &(k, a)) in group.iter().enumerate() {
            for &(_, b) in &group[i + 1..] {
                if out.len() >= max || tries == 0 {
                    return out;
                }
                tries -= 1;
                let (a, b) = (a.min(b), a.max(b));
                let (Some(ab), Some(ba)) = (edge_on(g, a, b, EdgeType::Rw, k), edge_on(g, b, a, EdgeType::Rw, k))
                else {
                    continue;
                };
                // An order the history fixes (a WW edge either way on the key) leaves no choice.
                if edge_on(g, a, b, EdgeType::Ww, k).is_some() || edge_on(g, b, a, EdgeType::Ww, k).is_some() {
                    continue;
                }
                out.push(OpenPair { a_reads: *ab, b_reads: *ba });
            }
        }
    }
    out
}

/// The (from, to, type) pairs whose edges [`open_pairs`] may read: of every pair of unobserved
/// appends it may look at, those with RW edges both ways.
pub fn candidates(g: &DependencyGraph, open_appends: &[(KeyId, TxnId)]) -> Vec<(TxnId, TxnId, EdgeType)> {
    let mut out = Vec::new();
    let mut tries = MAX_TRIES;
    for group in open_appends.chunk_by(|x, y| x.0 == y.0) {
        for (i, &(_, a)) in group.iter().enumerate() {
            for &(_, b) in &group[i + 1..] {
                if tries == 0 {
                    return out;
                }
                tries -= 1;
                let rw = EdgeType::Rw.bit();
                if g.mask(a, b) & rw != 0 && g.mask(b, a) & rw != 0 {
                    for ty in [EdgeType::Rw, EdgeType::Ww] {
                        out.extend([(a, b, ty), (b, a, ty)]);
                    }
                }
            }
        }
    }
    out
}

/// Pairs of unobserved appends looked at, at most.
const MAX_TRIES: usize = 1 << 20;

/// An edge of this type and key between two transactions.
fn edge_on(g: &DependencyGraph, from: TxnId, to: TxnId, ty: EdgeType, k: KeyId) -> Option<&Edge> {
    g.edges_of(from, to, ty).iter().find(|e| e.key == k)
}

/// The levels an open pair violates: those whose cycles forbid a G-single (it needs no order).
pub fn violates(l: crate::level::Level) -> bool {
    l.spec().weak.is_none() && l.proscribes(AnomalyKind::GSingle)
}
