//! The name of a polygraph cycle (Adya's anomaly, and the order it uses), from its edge kinds.

use crate::anomaly::AnomalyKind;
use crate::graph::orders::Order;
use crate::graph::EdgeType;

/// Adya's name of a cycle from its edge types (SO counts as a non-RW dependency).
pub fn anomaly_of(kinds: &[EdgeType]) -> AnomalyKind {
    let n = kinds.len();
    let rw = kinds.iter().filter(|&&k| k == EdgeType::Rw).count();
    let adjacent = (0..n).any(|i| kinds[i] == EdgeType::Rw && kinds[(i + 1) % n] == EdgeType::Rw);
    match rw {
        0 if kinds.iter().all(|&k| k == EdgeType::Ww) => AnomalyKind::G0,
        0 => AnomalyKind::G1c,
        1 => AnomalyKind::GSingle,
        _ if adjacent => AnomalyKind::G2Item,
        _ => AnomalyKind::GNonadjacent,
    }
}

/// The order whose edges a cycle uses, for Elle's name of it (`G-single-process`).
pub fn order_of(kinds: &[EdgeType]) -> Order {
    if kinds.contains(&EdgeType::Rt) {
        Order::Realtime
    } else if kinds.contains(&EdgeType::So) {
        Order::Session
    } else {
        Order::None
    }
}
