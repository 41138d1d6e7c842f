//! Counterexamples of the polygraph mode as PolySI explains them (5.3, Appendix C): the cycle,
//! each edge marked certain (fixed by the history) or chosen (a version order the constraints
//! force), the WR and WW edges behind each RW edge, and, when the cycle goes through a choice of
//! a constraint, the cycle its other choice closes: together the two form an adjoining cycle
//! set (Appendix E.2), a violation from which no dependency can be dropped.

use super::let_then::{LetThen, Wording};
use super::ops::{initial_text, op_ref, op_text, txn_name, txn_text};
use super::{CycleReport, Step};
use crate::graph::{Edge, EdgeType};
use crate::history::{History, Index, TxnId};
use crate::level::plain_name;
use crate::polygraph::name::{anomaly_of, order_of};
use crate::polygraph::{Constraint, Counterexample, Origin, Polygraph};

/// The value a write op wrote, as text.
fn written(h: &History, o: u32) -> String {
    h.written(o).map_or_else(|| initial_text(h).into(), |v| h.show(v))
}

/// Whether a read op read a value (not the initial one).
fn read_a_value(h: &History, o: u32) -> bool {
    h.ops.get(o as usize).is_some_and(|op| matches!(op.arg(), crate::history::Arg::Val(_)))
}

/// The value a read op read, as text.
fn read_value(h: &History, o: u32) -> String {
    match h.ops.get(o as usize).map(|op| op.arg()) {
        Some(crate::history::Arg::Val(v)) => h.show(v),
        _ => initial_text(h).into(),
    }
}

/// Two transactions each of which overwrote the version of a key the other read: whichever
/// write is installed first, the other transaction's read missed it and its write buried it,
/// so the cycle of two RW edges is a lost update under every version order (not a write skew,
/// whose RW edges are on two keys).
pub(super) fn overwrote_each_other(edges: &[Edge]) -> bool {
    matches!(edges, [a, b] if a.ty == EdgeType::Rw && b.ty == EdgeType::Rw && a.key == b.key)
}

/// A transaction of the cycle read a key and overwrote a later version of it: the cycle enters
/// an RW edge's reader by a WW edge on the same key (a lost update's shape).
pub(super) fn overwrites(edges: &[Edge]) -> bool {
    let n = edges.len();
    (0..n).any(|i| {
        let (a, b) = (&edges[(i + n - 1) % n], &edges[i]);
        a.ty == EdgeType::Ww && b.ty == EdgeType::Rw && a.key == b.key
    })
}

/// A list-append history's edge in a polygraph of its unobserved appends
/// ([`crate::polygraph::appends`]): known edges as the dependency graph explains them; a chosen
/// WW edge is one order of two appends no read observed.
fn why_append(h: &History, idx: &Index, e: &Edge, o: Origin, conflict: Option<u32>) -> String {
    match o {
        Origin::Certain => super::why::why(h, idx, e),
        Origin::Chosen { cons, .. } => format!(
            "{}'s append of {} to key {} comes after {}'s ({})",
            txn_name(h, e.to),
            written(h, e.to_op),
            h.show(h.key(e.key)),
            txn_name(h, e.from),
            if Some(cons) == conflict {
                "one of the two orders of the appends, which no read observed"
            } else {
                "forced: the other order closes a cycle"
            }
        ),
    }
}

/// What an assumed order of versions assumes ([`Polygraph::assumed`]), after "as".
fn assumption_text(source: &str) -> String {
    let what = match source {
        "wfr-keys" => "a transaction's write of a key follows the version it read",
        "sequential-keys" => "each key is sequentially consistent: process order orders its versions",
        "linearizable-keys" => "each key is linearizable: real-time order orders its versions",
        _ => "the caller's assumption",
    };
    format!("Elle's {source} assumes ({what}); the history does not show it")
}

/// Why an edge that rests on an assumed order of versions holds.
fn why_assumed(h: &History, e: &Edge, source: &str) -> String {
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let k = h.show(h.key(e.key));
    let assumed = assumption_text(source);
    match e.ty {
        EdgeType::Rw => format!(
            "{from} read key {k} = {}, and {to}'s write of {} comes after that version, as {assumed}",
            read_value(h, e.from_op),
            written(h, e.to_op)
        ),
        _ => format!(
            "{to}'s write of {} to key {k} comes after {from}'s write of {}, as {assumed}",
            written(h, e.to_op),
            written(h, e.from_op)
        ),
    }
}

/// Why an edge holds, in one sentence; `conflict` names the constraint the counterexample is about.
fn why(h: &History, idx: &Index, pg: &Polygraph, e: &Edge, o: Origin, conflict: Option<u32>) -> String {
    if h.model != crate::history::Model::RwRegister {
        return why_append(h, idx, e, o, conflict);
    }
    if let Some(source) = pg.assumption(e).filter(|_| o == Origin::Certain) {
        return why_assumed(h, e, source);
    }
    let (from, to) = (txn_name(h, e.from), txn_name(h, e.to));
    let k = h.show(h.key(e.key));
    // The two writers whose order is chosen: the edge's ends for WW; for a chosen RW, the
    // writer of the version read and the edge's target.
    let writers = |first: &str| match o {
        Origin::Certain => String::new(),
        Origin::Chosen { cons, .. } if Some(cons) == conflict => {
            format!("one of the two orders of {first}'s and {to}'s writes of key {k}")
        }
        Origin::Chosen { .. } => "forced: the other order closes a cycle".into(),
    };
    let note = writers(&from);
    let choice = if note.is_empty() { String::new() } else { format!(" ({note})") };
    match e.ty {
        EdgeType::So | EdgeType::Rt => super::why::why_order(h, e.ty, e.from, e.to),
        EdgeType::Co => format!("{from} precedes {to}"), // weak levels only: never in a polygraph
        EdgeType::Wr => format!("{to} read key {k} = {}, written by {from}", written(h, e.from_op)),
        EdgeType::Ww if o == Origin::Certain => format!(
            "{to} read key {k} = {} from {from} and wrote {}: a read-modify-write, so its version comes right after {from}'s (a write between them would be a lost update)",
            written(h, e.from_op),
            written(h, e.to_op)
        ),
        EdgeType::Ww => format!("{to}'s write of {} to key {k} comes after {from}'s write of {}{choice}", written(h, e.to_op), written(h, e.from_op)),
        EdgeType::Rw => match o {
            Origin::Certain if read_a_value(h, e.from_op) => format!(
                "{from} read key {k} = {}, which {to} read and overwrote with {} (a read-modify-write: its version comes right after the one {from} read)",
                read_value(h, e.from_op),
                written(h, e.to_op)
            ),
            Origin::Certain => format!(
                "{from} read key {k} = {}, the initial value, which every write of key {k} overwrites, {to}'s write of {} included",
                initial_text(h),
                written(h, e.to_op)
            ),
            Origin::Chosen { cons, first } => {
                let w = pg.ends(pg.cons[cons as usize], first).0;
                let ww_note = format!("ww, {}", writers(&txn_name(h, w.txn)));
                format!(
                    "{from} read key {k} = {} written by {} (wr), and {to}'s write of {} comes after {}'s ({ww_note}): {from} read a version {to} overwrote",
                    written(h, w.op),
                    txn_name(h, w.txn),
                    written(h, e.to_op),
                    txn_name(h, w.txn)
                )
            }
        },
    }
}

fn steps(h: &History, idx: &Index, pg: &Polygraph, cycle: &[(Edge, Origin)], conflict: Option<u32>) -> Vec<Step> {
    cycle
        .iter()
        .map(|&(e, o)| {
            let assumed = pg.assumption(&e).filter(|_| o == Origin::Certain);
            Step {
                from: h.txns[e.from as usize].id,
                to: h.txns[e.to as usize].id,
                ty: e.ty,
                key: if matches!(e.ty, EdgeType::So | EdgeType::Rt) {
                    serde_json::Value::Null
                } else {
                    h.value_json(h.key(e.key))
                },
                from_op: op_ref(h, idx, e.from, e.from_op),
                to_op: op_ref(h, idx, e.to, e.to_op),
                why: why(h, idx, pg, &e, o, conflict),
                certain: Some(o == Origin::Certain && assumed.is_none()),
                claimed: None,
                read_from: match (e.ty, o) {
                    (EdgeType::Rw, Origin::Chosen { cons, first }) => {
                        Some(h.txns[pg.ends(pg.cons[cons as usize], first).0.txn as usize].id)
                    }
                    _ => None,
                },
                assumed: assumed.map(String::from),
            }
        })
        .collect()
}

fn then_lines(
    text: &mut LetThen,
    h: &History,
    idx: &Index,
    pg: &Polygraph,
    cycle: &[(Edge, Origin)],
    conflict: Option<u32>,
) {
    for (i, &(e, o)) in cycle.iter().enumerate() {
        let mark = match o {
            Origin::Certain if pg.assumption(&e).is_some() => "assumed",
            Origin::Certain => "certain",
            Origin::Chosen { .. } => "chosen",
        };
        let label = format!("{}, {mark}", e.ty.as_str());
        let why = why(h, idx, pg, &e, o, conflict);
        text.step(&txn_name(h, e.from), &txn_name(h, e.to), &label, &why, i + 1 == cycle.len());
    }
}

/// A constraint's two writes (in the order `first` gives) and their key, as text.
fn writes_text(h: &History, pg: &Polygraph, c: Constraint, first: bool) -> (String, String, String) {
    let (x, y) = pg.ends(c, first);
    (op_text(h, x.op), op_text(h, y.op), h.show(h.key(pg.keys[c.key as usize].key)))
}

/// The case split as data, where the two orders are of two writes: the cycle's chosen side puts
/// one write before the other, and the other side the reverse (chains of read-modify-writes
/// longer than one write end elsewhere, and are left to the text).
fn other_order(
    h: &History,
    idx: &Index,
    pg: &Polygraph,
    cx: &Counterexample,
    conflict: Option<u32>,
) -> Option<super::OtherOrder> {
    let (c, other) = cx.other.as_ref()?;
    let first = cx.cycle.iter().find_map(|&(_, o)| match o {
        Origin::Chosen { cons, first } if Some(cons) == conflict => Some(first),
        _ => None,
    })?;
    let (x, y) = pg.ends(*c, first);
    let (x2, y2) = pg.ends(*c, !first);
    if (x2.txn, y2.txn) != (y.txn, x.txn) || x.txn == y.txn {
        return None;
    }
    Some(super::OtherOrder {
        key: h.value_json(h.key(pg.keys[c.key as usize].key)),
        first: h.txns[x.txn as usize].id,
        second: h.txns[y.txn as usize].id,
        steps: steps(h, idx, pg, other, conflict),
        forced: cx.reasons.len(),
    })
}

/// The report of a polygraph counterexample.
/// `anomaly`: the counterexample's name (`polygraph::name::of_counterexample`), which the cycle
/// alone may not show; `covered`: whether its cycles named it (else the level's fallback).
pub fn poly_cycle_report(
    h: &History,
    idx: &Index,
    pg: &Polygraph,
    cx: &Counterexample,
    anomaly: &str,
    covered: bool,
) -> CycleReport {
    let conflict = cx.other.as_ref().and_then(|(c, _)| pg.cons.iter().position(|x| x == c)).map(|i| i as u32);
    let types: Vec<EdgeType> = cx.cycle.iter().map(|(e, _)| e.ty).collect();
    let kind = anomaly_of(&types);
    let n = cx.cycle.len();
    let rereads = (0..n).any(|i| {
        let (a, b) = (&cx.cycle[(i + n - 1) % n].0, &cx.cycle[i].0);
        a.ty == EdgeType::Wr && b.ty == EdgeType::Rw && a.key == b.key
    });
    let edges: Vec<Edge> = cx.cycle.iter().map(|(e, _)| *e).collect();
    let name =
        if overwrote_each_other(&edges) { "lost update" } else { plain_name(&types, rereads, overwrites(&edges)) };
    let mut txns: Vec<TxnId> = cx.cycle.iter().map(|(e, _)| e.from).collect();
    let mut text = LetThen::new(Wording::GRAIL);
    let mut all = txns.clone();
    if let Some((_, other)) = &cx.other {
        all.extend(other.iter().map(|(e, _)| e.from));
    }
    for r in &cx.reasons {
        all.extend(r.cycle.iter().map(|(e, _)| e.from));
    }
    // Writers behind chosen RW edges (PolySI Appendix E.3 brings them back too).
    for (e, o) in cx.cycle.iter().chain(cx.other.iter().flat_map(|(_, c)| c.iter())) {
        if let (EdgeType::Rw, Origin::Chosen { cons, first }) = (e.ty, o) {
            all.push(pg.ends(pg.cons[*cons as usize], *first).0.txn);
        }
    }
    let mut listed = Vec::new();
    for &t in &all {
        if !listed.contains(&t) {
            listed.push(t);
            text.bind(&txn_name(h, t), txn_text(h, t));
        }
    }
    text.then();
    then_lines(&mut text, h, idx, pg, &cx.cycle, conflict);
    if let Some((c, other)) = &cx.other {
        let (a, b, k) = writes_text(h, pg, *c, true);
        text.note(format_args!("The other order of {a} and {b} on key {k} does not help:"));
        then_lines(&mut text, h, idx, pg, other, conflict);
        text.note(if h.model == crate::history::Model::RwRegister {
            "Every version order of the keys closes a forbidden cycle."
        } else {
            "Every order of the appends no read observed closes a forbidden cycle."
        });
    }
    for r in &cx.reasons {
        let (x, y, k) = writes_text(h, pg, pg.cons[r.cons as usize], r.first);
        text.note(format_args!("Why {x} comes before {y} on key {k} (forced): the other order closes a cycle:"));
        then_lines(&mut text, h, idx, pg, &r.cycle, Some(r.cons));
    }
    let own = format!("{}{}", kind.name(), order_of(&types).suffix());
    let anomaly = anomaly.to_string();
    let explanation = if own == anomaly {
        text.close(&anomaly, name)
    } else {
        // The forced choices' cycles name it: the forbidden cycle alone says more than the
        // history does (a G0 of forced choices, while PL-1 holds).
        let what = if h.model == crate::history::Model::RwRegister { "version order" } else { "order of the appends" };
        text.close_forced(&own, name, &anomaly, what, covered)
    };
    txns.dedup();
    CycleReport {
        anomaly: anomaly.clone(),
        name: name.into(),
        txns: txns.iter().map(|&t| h.txns[t as usize].id).collect(),
        steps: steps(h, idx, pg, &cx.cycle, conflict),
        // A shortest cycle through one edge, not necessarily the shortest of its component.
        minimal: false,
        explanation,
        other_order: other_order(h, idx, pg, cx, conflict),
        cycle_anomaly: (own != anomaly).then_some(own.clone()),
        forced: cx
            .reasons
            .iter()
            .map(|r| {
                let c = pg.cons[r.cons as usize];
                let (x, y) = pg.ends(c, r.first);
                super::ForcedOrder {
                    key: h.value_json(h.key(pg.keys[c.key as usize].key)),
                    first: h.txns[x.txn as usize].id,
                    second: h.txns[y.txn as usize].id,
                    steps: steps(h, idx, pg, &r.cycle, Some(r.cons)),
                }
            })
            .collect(),
    }
}
