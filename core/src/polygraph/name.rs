//! The name of a polygraph cycle (Adya's anomaly, and the order it uses), from its edge kinds,
//! and of a counterexample, from all its cycles.

use super::graph::Origin;
use super::Counterexample;
use crate::anomaly::AnomalyKind;
use crate::graph::orders::Order;
use crate::graph::Edge;
use crate::graph::EdgeType;
use crate::level::Level;

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

/// The anomaly a counterexample of `level` shows, and the order it needs: the least specific
/// of its cycles' (the forbidden cycle, the other choice's, and the cycles that forced its
/// choices, PolySI 5.3 and Appendix C: together, every version order closes one of them). The
/// forbidden cycle alone may be more specific than the violation: two ww steps that read-skew
/// cycles forced are no G0 (PL-1 may hold: some version order has no ww cycle), but G-single.
/// Where a chosen step's choice has no cycle shown (a learned clause fixed it, or the reasons
/// stopped at their depth), the cycles shown do not cover every version order: the name is
/// then the least specific anomaly `level` forbids, which is true of any of its violations.
/// Returns the anomaly, its order, and whether the cycles shown cover every choice on them (else
/// the fallback named it).
pub fn of_counterexample(cx: &Counterexample, level: Level) -> (AnomalyKind, Order, bool) {
    // Adya's names from the most specific (`anomaly_of` gives no other).
    let adya =
        [AnomalyKind::G0, AnomalyKind::G1c, AnomalyKind::GSingle, AnomalyKind::GNonadjacent, AnomalyKind::G2Item];
    let rank = |k: AnomalyKind| adya.iter().position(|&x| x == k).unwrap_or(0);
    let order_rank = |o: Order| match o {
        Order::None => 0,
        Order::Session => 1,
        Order::Realtime => 2,
    };
    let other: &[(Edge, Origin)] = cx.other.as_ref().map_or(&[], |(_, c)| c);
    // The constraint both of whose choices close a cycle: one side on the cycle, the other on
    // the other choice's cycle.
    let conflict = |cons: u32, first: bool| {
        let side = |c: &[(Edge, Origin)], f: bool| c.iter().any(|(_, o)| *o == Origin::Chosen { cons, first: f });
        side(&cx.cycle, first) && side(other, !first) || side(&cx.cycle, !first) && side(other, first)
    };
    let mut named = (AnomalyKind::G0, Order::None);
    let mut covered = true;
    let mut take = |c: &[(Edge, Origin)]| {
        let types: Vec<EdgeType> = c.iter().map(|(e, _)| e.ty).collect();
        let (k, o) = (anomaly_of(&types), order_of(&types));
        if rank(k) > rank(named.0) {
            named.0 = k;
        }
        if order_rank(o) > order_rank(named.1) {
            named.1 = o;
        }
        for (_, o) in c {
            if let Origin::Chosen { cons, first } = *o {
                covered &= conflict(cons, first) || cx.reasons.iter().any(|r| r.cons == cons);
            }
        }
    };
    take(&cx.cycle);
    take(other);
    for r in &cx.reasons {
        take(&r.cycle);
    }
    if !covered {
        let k = adya.into_iter().filter(|&k| level.proscribes(k)).max_by_key(|&k| rank(k)).unwrap_or(AnomalyKind::G0);
        return (k, level.spec().order, false);
    }
    (named.0, named.1, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polygraph::reasons::Reason;
    use EdgeType::{Rw, Wr, Ww};

    fn step(from: u32, to: u32, ty: EdgeType, o: Origin) -> (Edge, Origin) {
        (Edge { from, to, ty, key: 0, from_op: 0, to_op: 0 }, o)
    }
    const fn chosen(cons: u32, first: bool) -> Origin {
        Origin::Chosen { cons, first }
    }

    /// tiny-register/g0.edn: T0 and T1 write keys 1 and 2, T2 reads key 1 from T1 and key 2
    /// from T0. Each ww step is forced by a read skew: SI's violation is G-single (PL-1 holds).
    fn forced_write_cycle(with_reasons: bool) -> Counterexample {
        let cycle = vec![step(0, 1, Ww, chosen(0, true)), step(1, 0, Ww, chosen(1, false))];
        let reasons = match with_reasons {
            true => vec![
                Reason {
                    cons: 0,
                    first: true,
                    cycle: vec![step(2, 0, Rw, chosen(0, false)), step(0, 2, Wr, Origin::Certain)],
                },
                Reason {
                    cons: 1,
                    first: false,
                    cycle: vec![step(2, 1, Rw, chosen(1, true)), step(1, 2, Wr, Origin::Certain)],
                },
            ],
            false => Vec::new(),
        };
        Counterexample { cycle, other: None, reasons }
    }

    #[test]
    fn a_counterexample_is_named_by_the_cycles_that_forced_it() {
        let cx = forced_write_cycle(true);
        assert_eq!(anomaly_of(&[Ww, Ww]), AnomalyKind::G0);
        assert_eq!(of_counterexample(&cx, Level::Si), (AnomalyKind::GSingle, Order::None, true));
        assert_eq!(of_counterexample(&cx, Level::StrictSer), (AnomalyKind::GSingle, Order::None, true));
    }

    #[test]
    fn a_choice_with_no_cycle_shown_names_the_least_specific_anomaly_of_the_level() {
        let cx = forced_write_cycle(false);
        assert_eq!(of_counterexample(&cx, Level::Ser), (AnomalyKind::G2Item, Order::None, false));
        assert_eq!(of_counterexample(&cx, Level::Si), (AnomalyKind::GNonadjacent, Order::None, false));
        assert_eq!(of_counterexample(&cx, Level::Psi), (AnomalyKind::GSingle, Order::None, false));
        let session = (AnomalyKind::GNonadjacent, Order::Session, false);
        assert_eq!(of_counterexample(&cx, Level::StrongSessionSi), session);
        assert_eq!(of_counterexample(&cx, Level::Pl1), (AnomalyKind::G0, Order::None, false));
    }
}
