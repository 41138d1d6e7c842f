//! The counterexample of an open pair ([`crate::engine::open_pairs`]): two appends to one key
//! that no read observed, each transaction having read the key without the other's append.
//! Either order of the two appends closes a G-single (lost update); both are shown, as the
//! polygraph shows the two orders of a register's writes (PolySI Appendix E.2).

use super::let_then::{LetThen, Wording};
use super::ops::{key_text, op_ref, op_text, txn_name, txn_text};
use super::why::why;
use super::{CycleReport, Step};
use crate::engine::open_pairs::OpenPair;
use crate::graph::{Edge, EdgeType};
use crate::history::{History, Index};

fn step(h: &History, idx: &Index, e: &Edge, why: String, certain: bool) -> Step {
    Step {
        from: h.txns[e.from as usize].id,
        to: h.txns[e.to as usize].id,
        ty: e.ty,
        key: h.value_json(h.key(e.key)),
        from_op: op_ref(h, idx, e.from, e.from_op),
        to_op: op_ref(h, idx, e.to, e.to_op),
        why,
        certain: Some(certain),
        claimed: None,
        read_from: None,
        assumed: None,
    }
}

/// The chosen WW edge `first` then `second`, and why it is only one of two orders.
fn chosen(h: &History, first: &Edge, second: &Edge) -> (Edge, String) {
    // `first` reads (rw) towards `second`'s append, `second` towards `first`'s: the appends are
    // the two edges' `to_op`s.
    let e = Edge {
        from: first.to,
        to: second.to,
        ty: EdgeType::Ww,
        key: first.key,
        from_op: first.to_op,
        to_op: second.to_op,
    };
    let why = format!(
        "{}'s append of {} to key {} comes after {}'s (one of the two orders of the appends, which no read observed)",
        txn_name(h, e.to),
        h.written(e.to_op).map_or_else(|| "nil".into(), |v| h.show(v)),
        key_text(h, e.key),
        txn_name(h, e.from)
    );
    (e, why)
}

/// One order's cycle: the chosen WW edge, then the certain RW edge back.
fn cycle(h: &History, idx: &Index, text: &mut LetThen, ww_first: &Edge, back: &Edge) -> Vec<Step> {
    let (ww, ww_why) = chosen(h, back, ww_first);
    let rw_why = why(h, idx, back);
    text.step(&txn_name(h, ww.from), &txn_name(h, ww.to), "ww, chosen", &ww_why, false);
    text.step(&txn_name(h, back.from), &txn_name(h, back.to), "rw, certain", &rw_why, true);
    vec![step(h, idx, &ww, ww_why, false), step(h, idx, back, rw_why, true)]
}

pub fn pair_report(h: &History, idx: &Index, p: &OpenPair) -> CycleReport {
    let [a, b] = p.txns();
    let mut text = LetThen::new(Wording::GRAIL);
    for t in [a, b] {
        text.bind(&txn_name(h, t), txn_text(h, t));
    }
    text.then();
    // a's append first: b read a version without it, so b < a (rw) closes the cycle.
    let steps = cycle(h, idx, &mut text, &p.a_reads, &p.b_reads);
    text.note(format_args!(
        "The other order of {} and {} on key {} does not help:",
        op_text(h, p.b_reads.to_op),
        op_text(h, p.a_reads.to_op),
        key_text(h, p.key())
    ));
    let other = cycle(h, idx, &mut text, &p.b_reads, &p.a_reads);
    text.note("Every order of the two appends closes a forbidden cycle.");
    // The steps' chosen ww edge runs from its first append's writer to the second's.
    let (first, second) = (steps[0].from, steps[0].to);
    CycleReport {
        anomaly: "G-single".into(),
        name: "lost update".into(),
        txns: vec![h.txns[a as usize].id, h.txns[b as usize].id],
        steps,
        // Two transactions: no shorter cycle exists.
        minimal: true,
        explanation: text.close("G-single", "lost update"),
        other_order: Some(super::OtherOrder {
            key: h.value_json(h.key(p.key())),
            first,
            second,
            steps: other,
            forced: 0,
        }),
        forced: Vec::new(),
        cycle_anomaly: None,
    }
}
