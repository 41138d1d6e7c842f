//! Each level's verdict from what the passes found, and the rules applied once every verdict
//! is in: a "holds" that rests on reads of values nobody wrote, or on no committed transaction,
//! is unknown; an `implied_by` stays only while the level it names agrees.

use super::cycles::Found;
use super::open_pairs::{self, OpenPair};
use super::poly::Poly;
use super::{Check, CheckOptions, Evidence, GraphId, LevelOutcome, Named, RegisterMode, Verdict};
use crate::anomaly::AnomalyKind;
use crate::graph::search::Searched;
use crate::hash::Map;
use crate::history::{History, Model};
use crate::infer::Inference;
use crate::level::{Level, Order};
use crate::polygraph::Decision;

/// Level `l`'s verdict: the findings it forbids; its polygraph's verdict when one decided it,
/// else the shortest cycle per component of the searches on its graph; the initial reads and
/// unobserved appends' pairs it proscribes.
pub(super) fn level_outcome(cx: Check, l: Level, found: &Found, poly: &Poly, pairs: &[OpenPair]) -> LevelOutcome {
    let Check { h, inf, opts, .. } = cx;
    let Found { searches, witnesses, initial, .. } = found;
    let spec = l.spec();
    let graph = match spec.weak {
        Some(w) => GraphId::Weak(w),
        None => GraphId::Dependency(spec.order),
    };
    let mut names: Vec<Named> = Vec::new();
    let mut add = |n: Named| {
        if !names.contains(&n) {
            names.push(n);
        }
    };
    for f in inf.findings.iter().filter(|f| l.forbids(f)) {
        add(Named { kind: f.kind, order: Order::None });
    }
    let mut best: Map<usize, (usize, Evidence)> = Map::default();
    let mut reason = None;
    let by_polygraph = poly.levels.iter().find(|p| p.level == l);
    if let Some(p) = by_polygraph {
        match &p.verdict {
            Decision::Violated(_) => {
                if let Some(i) = p.witness {
                    add(poly.witnesses[i].named);
                    best.insert(0, (0, Evidence::Poly(i)));
                }
            }
            Decision::Unknown(why) => reason = Some(format!("polygraph undecided: {why}")),
            Decision::Holds => {}
        }
    }
    let searched = searches.iter().filter(|s| s.graph == graph && s.kind.is_none_or(|k| l.proscribes(k)));
    for s in searched.filter(|_| by_polygraph.is_none()) {
        if let Searched::Unknown(why) = &s.outcome {
            let what = s.kind.map_or_else(|| l.name().to_string(), |k| k.name().to_string());
            reason = Some(format!("{what} undecided: {why}"));
        }
        for &i in &s.found {
            let wi = &witnesses[i];
            add(wi.named);
            let len = wi.cycle.txns.len();
            let e = best.entry(wi.component).or_insert((len, Evidence::Cycle(i)));
            if len < e.0 {
                *e = (len, Evidence::Cycle(i));
            }
        }
    }
    for iw in initial.iter().filter(|i| GraphId::Weak(i.graph) == graph && l.proscribes(i.kind)) {
        add(Named { kind: iw.kind, order: Order::None });
    }
    let mut evidence: Vec<(usize, Evidence)> = best.into_iter().map(|(c, (_, e))| (c, e)).collect();
    crate::par::sort::sort_by_key(&mut evidence, |e| e.0);
    if !pairs.is_empty() && open_pairs::violates(l) && by_polygraph.is_none() {
        add(Named { kind: AnomalyKind::GSingle, order: Order::None });
        if evidence.is_empty() {
            evidence.extend((0..pairs.len()).map(|i| (0, Evidence::Pair(i))));
        }
    }
    if reason.is_none() && names.is_empty() && unproven(h, opts, l, by_polygraph.is_some()) {
        reason = Some(
            "no version order was given and the register mode is sure-edges: no forbidden cycle among the edges sure without one, which does not rule out a cycle under the real version order".into(),
        );
    }
    let (verdict, reason) = match (names.is_empty(), reason) {
        (false, _) => (Verdict::Violated, None),
        (true, Some(why)) => (Verdict::Unknown, Some(why)),
        (true, None) => (Verdict::Holds, None),
    };
    let mut set_aside: Vec<AnomalyKind> = Vec::new();
    for f in inf.findings.iter().filter(|f| f.breaks_assumption() && !l.proscribes(f.kind)) {
        if !set_aside.contains(&f.kind) {
            set_aside.push(f.kind);
        }
    }
    // The level the polygraph's verdict came from, while the findings leave it standing.
    let implied_by = by_polygraph.and_then(|p| match p.verdict {
        Decision::Holds if verdict == Verdict::Holds => p.implied_by,
        Decision::Violated(_) => p.implied_by,
        _ => None,
    });
    LevelOutcome {
        level: l,
        verdict,
        reason,
        anomalies: names,
        evidence: evidence.into_iter().map(|e| e.1).collect(),
        implied_by,
        cycle_from: None,
        set_aside,
        claims: Vec::new(),
    }
}

/// A level whose "holds" would rest on the sure edges of a register history without a version
/// order (register mode sure-edges): they prove cycles, not their absence. PL-2 and PL-1 are
/// the exception: their cycles have no RW edges, so when the sure WR and WW edges have none, a
/// topological order of them is a version order without any.
fn unproven(h: &History, opts: &CheckOptions, l: Level, by_polygraph: bool) -> bool {
    h.model == Model::RwRegister
        && h.version_order.is_none()
        && !by_polygraph
        && opts.register_mode == RegisterMode::SureEdges
        && !opts.inferred_order_only
        && l.spec().weak.is_none()
        && !matches!(l, Level::Pl2 | Level::Pl1)
}

/// Reads of values nobody wrote that may be their keys' initial version (the history leaves it
/// open): the reason a level that forbids thin-air reads is not decided, and a note that says
/// which `--initial-value` would decide them when they all read one value.
pub(super) fn maybe_initial_reads(h: &History, inf: &Inference, notes: &mut Vec<String>) -> Option<String> {
    let reads: Vec<&crate::anomaly::Finding> = inf.findings.iter().filter(|f| f.maybe_initial).collect();
    let first = reads.first()?;
    let value = first.value.map_or_else(|| "nil".into(), |v| h.show(v));
    let key = first.key.map_or_else(String::new, |k| h.show(h.key(k)));
    let reader = first.txns.first().map_or_else(String::new, |&t| format!("T{}", h.txns[t as usize].id));
    let mut keys: Vec<_> = reads.iter().filter_map(|f| f.key).collect();
    crate::par::sort::sort_unstable(&mut keys);
    keys.dedup();
    let one_value = reads.iter().all(|f| f.value == first.value);
    if one_value {
        notes.push(format!(
            "{} read{} of {} key{} read {value}, which no transaction wrote, and no read saw the initial value of {}: if the keys start at {value}, check again with --initial-value {value} (TimeKiller's --initial_value); otherwise they are thin-air reads",
            reads.len(),
            if reads.len() == 1 { "" } else { "s" },
            keys.len(),
            if keys.len() == 1 { "" } else { "s" },
            if keys.len() == 1 { "that key" } else { "those keys" }
        ));
    }
    Some(format!(
        "{reader} read {value} of key {key}, which no transaction wrote ({} such read{} on {} key{}): a thin-air read, which this level forbids, unless it is the key's initial value, which the history leaves open (--initial-value)",
        reads.len(),
        if reads.len() == 1 { "" } else { "s" },
        keys.len(),
        if keys.len() == 1 { "" } else { "s" },
    ))
}

/// A level that forbids thin-air reads does not hold over reads that may be of the initial
/// version or thin-air: it is unknown, with `why`.
pub(super) fn maybe_initial_unknown(outcomes: &mut [LevelOutcome], why: &str) {
    for o in outcomes.iter_mut().filter(|o| o.verdict == Verdict::Holds && o.level.proscribes(AnomalyKind::GarbageRead))
    {
        o.leave_unknown(why);
        o.implied_by = None;
    }
}

/// Why no level holds over a history without a committed transaction.
pub const NOTHING_COMMITTED: &str = "the history has no committed transaction, so there was nothing to check: an empty capture, or one whose operations are not transactions (grail checks operations whose :f is :txn or absent; a register history of :f :read and :write operations is not one), is no evidence that a level holds";

/// A level cannot hold over a history without a committed transaction: it says nothing of
/// the database (Elle's `:empty-transaction-graph` answers `unknown` too).
pub(super) fn nothing_committed(h: &History, outcomes: &mut [LevelOutcome]) {
    if h.txns.iter().any(|t| t.status == crate::history::Status::Committed) {
        return;
    }
    for o in outcomes.iter_mut().filter(|o| o.verdict == Verdict::Holds) {
        o.leave_unknown(NOTHING_COMMITTED);
        o.implied_by = None;
    }
}

/// A level's `implied_by` stays only while the level it names ended with the same verdict: the
/// polygraph's "SI holds" (with aborted reads set aside) implies nothing once G1a violates SI.
/// Two unknown verdicts are the same when their reasons are.
pub(super) fn consistent_implied_by(outcomes: &mut [LevelOutcome]) {
    let verdicts: Vec<(Level, Verdict, Option<String>)> =
        outcomes.iter().map(|o| (o.level, o.verdict, o.reason.clone())).collect();
    for o in outcomes.iter_mut() {
        if let Some(by) = o.implied_by {
            if !verdicts.iter().any(|(l, v, r)| *l == by && *v == o.verdict && *r == o.reason) {
                o.implied_by = None;
            }
        }
    }
}

/// Why a level with real-time order is not shown to hold when some committed transactions have
/// no place in that order ([`crate::graph::orders::realtime_gaps`]).
pub(super) fn realtime_unknown(outcomes: &mut [LevelOutcome], gaps: usize) {
    let why = format!(
        "{} no recorded invocation or completion (time, or place in the input when the history records no time): where they stand in real-time order is not known, so a level with real-time order cannot be shown to hold",
        crate::words::count(gaps as u64, "committed transaction has", "committed transactions have")
    );
    let realtime = |l: Level| l.spec().order == crate::level::Order::Realtime;
    for o in outcomes.iter_mut().filter(|o| o.verdict == Verdict::Holds && realtime(o.level)) {
        o.leave_unknown(why.clone());
        o.implied_by = None;
    }
}

/// A level left `unknown` (its own search cut short, say) that another level's counterexample
/// violates all the same: a cycle whose every step is certain, not chosen from a version order,
/// and is an edge of this level's graph too, of an anomaly this level forbids. The level is then
/// violated by that cycle, named as it is (`G-single`), and `cycle_from` names the level whose
/// counterexample it is. Taken only from a level that decided its own verdict.
///
/// Certain in this level's graph: a session (`so`) step only for a level with session order, a
/// real-time (`rt`) step only for one with real-time order; no weak level's cycle (its `co`
/// steps are no dependency) nor a claimed order's; of a polygraph's known edges, those of a
/// read-modify-write chain (compaction: `ww`, and `rw` from a read of a written value) only for
/// a level that forbids lost updates, which is what makes them certain, and none that rests on
/// an assumed order. Returns whether a level was decided so.
pub(super) fn certain_cycles(
    outcomes: &mut [LevelOutcome],
    witnesses: &[super::Witness],
    poly: &[super::PolyWitness],
    graphs: &super::Graphs,
) -> bool {
    use crate::graph::EdgeType;
    use crate::polygraph::name::{anomaly_of, order_of};
    use crate::polygraph::Origin;
    // The steps of a counterexample when each is certain in `target`'s graph.
    let steps = |e: Evidence, target: Level| -> Option<Vec<EdgeType>> {
        let types: Vec<EdgeType> = match e {
            Evidence::Cycle(i) => {
                let w = witnesses.get(i)?;
                if !matches!(w.graph, GraphId::Dependency(_)) {
                    return None;
                }
                w.cycle.types.clone()
            }
            Evidence::Poly(i) => {
                let p = poly.get(i)?;
                let pg = graphs.polygraphs.get(p.polygraph)?;
                let cycle = &p.counterexample.cycle;
                if cycle.iter().any(|(e, o)| *o != Origin::Certain || pg.assumption(e).is_some()) {
                    return None;
                }
                let types: Vec<EdgeType> = cycle.iter().map(|(e, _)| e.ty).collect();
                // A compacted polygraph's certain ww and rw edges may be a chain's, certain only
                // where a lost update is forbidden; its other certain edges are wr, so, rt and rw
                // from a read of the initial value.
                if pg.compact
                    && !target.proscribes(AnomalyKind::GSingle)
                    && types.iter().any(|t| matches!(t, EdgeType::Ww | EdgeType::Rw))
                {
                    return None;
                }
                types
            }
            Evidence::Claimed(_) | Evidence::Pair(_) => return None,
        };
        let order = target.spec().order;
        let fits = types.iter().all(|t| match t {
            EdgeType::Ww | EdgeType::Wr | EdgeType::Rw => true,
            EdgeType::So => order == Order::Session,
            EdgeType::Rt => order == Order::Realtime,
            EdgeType::Co => false,
        });
        (fits && !types.is_empty()).then_some(types)
    };
    let mut decided = false;
    for i in 0..outcomes.len() {
        let target = outcomes[i].level;
        if outcomes[i].verdict != Verdict::Unknown || target.spec().weak.is_some() {
            continue;
        }
        // The shortest such cycle, from the strongest level that found it.
        let mut best: Option<(usize, Level, Evidence, Named)> = None;
        for src in outcomes.iter().filter(|o| {
            o.verdict == Verdict::Violated && o.implied_by.is_none() && o.cycle_from.is_none() && o.level != target
        }) {
            for &e in &src.evidence {
                let Some(types) = steps(e, target) else { continue };
                // A cycle of ww steps and order steps is a G0 (Elle's G0-process), as the
                // dependency graph's searches name it.
                let kind = match anomaly_of(&types) {
                    AnomalyKind::G1c if !types.contains(&EdgeType::Wr) => AnomalyKind::G0,
                    k => k,
                };
                let named = Named { kind, order: order_of(&types) };
                if target.proscribes(named.kind) && best.as_ref().is_none_or(|b| types.len() < b.0) {
                    best = Some((types.len(), src.level, e, named));
                }
            }
        }
        if let Some((_, from, e, named)) = best {
            let o = &mut outcomes[i];
            o.decide(Verdict::Violated);
            o.anomalies = vec![named];
            o.evidence = vec![e];
            o.implied_by = None;
            o.cycle_from = Some(from);
            decided = true;
        }
    }
    decided
}
