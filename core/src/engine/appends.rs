//! List append's appends no read observed: the lost updates every order of two of them closes
//! (Elle's reading, [`open_pairs`]), or else SI and its kin decided over every order of them.

use super::cycles::{Found, PatternSearch};
use super::open_pairs::{self, OpenPair};
use super::poly::{poly_named, Poly, PolyLevel, PolyNote};
use super::{Check, GraphId, Graphs, PolyWitness};
use crate::graph::search::{components, Budget, Searched};
use crate::level::{Level, Order};
use crate::polygraph::{Decision, Mode};
use crate::words::counted;

/// The pairs of unobserved appends whose every order closes a G-single, for the levels the
/// polygraph does not decide; when there are none, [`append_orders`].
pub(super) fn unobserved(
    cx: Check,
    found: &Found,
    budget: &mut Budget,
    poly: &mut Poly,
    graphs: &mut Graphs,
) -> Vec<OpenPair> {
    let Check { inf, opts, levels, max_cycles, .. } = cx;
    let pairs = if !opts.observed_order_only && levels.iter().any(|&l| open_pairs::violates(l) && !poly.decides(l)) {
        let g = graphs.get(&inf.graph, GraphId::Dependency(Order::None)).unwrap_or(&inf.graph);
        open_pairs::open_pairs(g, &inf.open_appends, max_cycles)
    } else {
        Vec::new()
    };
    if pairs.is_empty() && !opts.observed_order_only && !inf.open_appends.is_empty() {
        append_orders(cx, &found.searches, found.plain_comps.as_deref(), budget, poly, graphs);
    }
    pairs
}

/// Whether [`append_orders`] may decide `l` over the orders of unobserved appends: a level asked
/// for whose own searches (on its own graph) found nothing, nor a finding.
fn needs(cx: Check, searches: &[PatternSearch], l: Level) -> bool {
    let Check { inf, levels, .. } = cx;
    levels.contains(&l)
        && !inf.findings.iter().any(|f| l.forbids(f))
        && searches
            .iter()
            .filter(|s| s.graph == GraphId::Dependency(l.spec().order) && s.kind.is_none_or(|k| l.proscribes(k)))
            .all(|s| s.found.is_empty() && !matches!(s.outcome, Searched::Unknown(_)))
}

/// Whether [`unobserved`] may read the graph of `order` (session or real-time) whole, its
/// searches done: else only its witnesses' edges need be kept.
pub(super) fn may_read(cx: Check, searches: &[PatternSearch], order: Order) -> bool {
    let level = match order {
        Order::None => return true,
        Order::Session => Level::StrongSessionSi,
        Order::Realtime => Level::StrongSi,
    };
    !cx.opts.observed_order_only && !cx.inf.open_appends.is_empty() && needs(cx, searches, level)
}

/// List append: SI and PSI decided over every order of the appends no read observed, when the
/// observed orders alone leave them holding (PolySI's polygraph, of those appends' choices:
/// [`crate::polygraph::appends`]). SER needs no such search: a topological order of an acyclic
/// graph orders the appends without a cycle.
fn append_orders(
    cx: Check,
    searches: &[PatternSearch],
    plain_comps: Option<&[Vec<u32>]>,
    budget: &mut Budget,
    poly: &mut Poly,
    graphs: &mut Graphs,
) {
    let Check { h, inf, .. } = cx;
    let needs = |l: Level| needs(cx, searches, l);
    let todo: Vec<(Level, Mode, Order)> = [
        (Level::Si, Mode::Si, Order::None),
        (Level::Psi, Mode::Psi, Order::None),
        (Level::StrongSessionSi, Mode::Si, Order::Session),
        (Level::StrongSi, Mode::Si, Order::Realtime),
    ]
    .into_iter()
    .filter(|&(l, _, _)| needs(l))
    .collect();
    if todo.is_empty() {
        return;
    }
    let realtime = match todo.iter().any(|t| t.2 == Order::Realtime) {
        true => cx.realtime_included(),
        false => String::new(),
    };
    // One polygraph per graph (plain, with session order, with real-time order), on its own
    // components: a level's cycles may use its order's edges.
    let mut built: Vec<(Order, Option<usize>)> = Vec::new();
    let mut pgs: Vec<crate::polygraph::Polygraph> = Vec::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut si: Option<(Decision, Option<usize>)> = None;
    for (l, mode, order) in todo {
        // Implied by SI: a violation without order edges is one with them, and PSI holds when
        // SI does.
        if let Some((v, w)) = &si {
            let implied = matches!(
                (l, v),
                (Level::Psi, Decision::Holds) | (Level::StrongSessionSi | Level::StrongSi, Decision::Violated(_))
            );
            if implied {
                poly.levels.push(PolyLevel { level: l, verdict: v.clone(), witness: *w, implied_by: Some(Level::Si) });
                continue;
            }
        }
        let slot = match built.iter().find(|b| b.0 == order) {
            Some(b) => b.1,
            None => {
                let g = graphs.get(&inf.graph, GraphId::Dependency(order));
                let pg = g.and_then(|g| {
                    let own;
                    let comps = match (order, plain_comps) {
                        (Order::None, Some(c)) => c,
                        _ => {
                            own = components(g);
                            &own[..]
                        }
                    };
                    crate::polygraph::appends::build(h, g, comps, &inf.open_appends, crate::polygraph::MAX_CONSTRAINTS)
                });
                let slot = pg.map(|pg| {
                    pgs.push(pg);
                    pgs.len() - 1
                });
                built.push((order, slot));
                slot
            }
        };
        // No two unobserved appends of a key share a component: no order of them closes a cycle.
        let Some(slot) = slot else { continue };
        let pg = &pgs[slot];
        let (verdict, st) = crate::polygraph::decide(pg, mode, budget);
        let decided = !matches!(verdict, Decision::Unknown(_));
        poly.notes.push(PolyNote {
            level: l,
            decided,
            text: format!(
                "over every order of the appends no read observed (a generalized polygraph, as PolySI's of a register's versions{}): {} of such appends in one strongly connected component{}",
                match order {
                    Order::None => "",
                    Order::Session => ", session order included",
                    Order::Realtime => &realtime,
                },
                counted(st.constraints as u64, "pair"),
                if decided && st.pruned {
                    format!(", {} open after pruning, {}", st.after_pruning, counted(st.decisions, "guess"))
                } else if decided {
                    format!(", not pruned, {}", counted(st.decisions, "guess"))
                } else {
                    String::new()
                }
            ),
        });
        let witness = match &verdict {
            Decision::Violated(cx) => {
                let index = match kept.iter().find(|k| k.0 == slot) {
                    Some(k) => k.1,
                    None => {
                        graphs.polygraphs.push(pg.clone());
                        kept.push((slot, graphs.polygraphs.len() - 1));
                        graphs.polygraphs.len() - 1
                    }
                };
                let (named, covered) = poly_named(cx, l);
                poly.witnesses.push(PolyWitness { polygraph: index, named, covered, counterexample: cx.clone() });
                Some(poly.witnesses.len() - 1)
            }
            _ => None,
        };
        if l == Level::Si {
            si = Some((verdict.clone(), witness));
        }
        poly.levels.push(PolyLevel { level: l, verdict, witness, implied_by: None });
    }
}
