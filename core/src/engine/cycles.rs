//! The cycle searches, each run once and its cycles shared by every level that proscribes them:
//! on the dependency graph, plain and with each order a requested level needs, one search per
//! anomaly; on each requested weak level's saturated graph, one search for any cycle, classified
//! after.

use super::poly::Poly;
use super::weak::{self, classify, initial_kind};
use super::{Check, GraphId, Graphs, InitialWitness, Named, Witness};
use crate::anomaly::AnomalyKind;
use crate::graph::orders::{realtime_edges, session_edges};
use crate::graph::search::{components, Budget, Cycle, Pattern, Searched, Searcher};
use crate::graph::{DependencyGraph, EdgeType};
use crate::hash::Map;
use crate::history::History;
use crate::infer::Inference;
use crate::level::{pattern, Level, Order};

/// What the searches found, for the verdicts and the search of the appends' orders.
#[derive(Default)]
pub(super) struct Found {
    pub(super) searches: Vec<PatternSearch>,
    /// `Outcome::witnesses`, in search order.
    pub(super) witnesses: Vec<Witness>,
    pub(super) initial: Vec<InitialWitness>,
    /// The plain graph's components, kept for the search of unobserved appends' orders.
    pub(super) plain_comps: Option<Vec<Vec<u32>>>,
}

/// The result of one search.
pub(super) struct PatternSearch {
    pub(super) graph: GraphId,
    /// The cycle anomaly searched for (weak graphs: any cycle, classified after).
    pub(super) kind: Option<AnomalyKind>,
    pub(super) outcome: Searched,
    /// Indices into `Outcome::witnesses`.
    pub(super) found: Vec<usize>,
}

fn comp_index(comps: &[Vec<u32>]) -> Map<u32, usize> {
    let mut m = Map::default();
    for (i, c) in comps.iter().enumerate() {
        for &v in c {
            m.insert(v, i);
        }
    }
    m
}

fn cycles_of(o: &Searched) -> &[Cycle] {
    match o {
        Searched::Violated(cs) => cs,
        _ => &[],
    }
}

/// Dependency graphs, plain and with each order some level needs (the levels the polygraph
/// decides aside): each cycle anomaly the levels proscribe, searched once.
pub(super) fn dependency(
    cx: Check,
    poly: &Poly,
    budget: &mut Budget,
    out: &mut Found,
    notes: &mut Vec<String>,
    graphs: &mut Graphs,
) {
    let Check { h, inf, levels, max_cycles, .. } = cx;
    let Found { searches, witnesses, plain_comps, .. } = out;
    for order in [Order::None, Order::Session, Order::Realtime] {
        let here: Vec<Level> = levels
            .iter()
            .copied()
            .filter(|l| l.spec().weak.is_none() && l.spec().order == order && !poly.decides(*l))
            .collect();
        if here.is_empty() {
            continue;
        }
        match order {
            Order::None => {}
            Order::Session => graphs.session = Some(with_order(h, inf, order, notes)),
            Order::Realtime => graphs.realtime = Some(with_order(h, inf, order, notes)),
        }
        let graph = GraphId::Dependency(order);
        let Some(g) = graphs.get(&inf.graph, graph) else { continue };
        let comps = components(g);
        let comp_of = comp_index(&comps);
        let mut searcher = Searcher::new(g);
        let witnesses_from = witnesses.len();
        let kinds = AnomalyKind::ALL.into_iter().filter(|k| k.is_cycle() && here.iter().any(|l| l.proscribes(*k)));
        for k in kinds {
            let Some(mut p) = pattern(k) else { continue };
            p.allowed |= order.bit();
            let outcome = searcher.search(&comps, &p, budget, max_cycles);
            let mut found = Vec::new();
            for c in cycles_of(&outcome) {
                let used = if c.types.contains(&EdgeType::So) || c.types.contains(&EdgeType::Rt) {
                    order
                } else {
                    Order::None
                };
                found.push(witnesses.len());
                witnesses.push(Witness {
                    graph,
                    component: comp_of.get(&c.txns[0]).copied().unwrap_or(0),
                    named: Named { kind: k, order: used },
                    cycle: c.clone(),
                });
            }
            searches.push(PatternSearch { graph, kind: Some(k), outcome, found });
        }
        if order == Order::None {
            *plain_comps = Some(comps);
        } else if !super::appends::may_read(cx, searches, order) {
            // The report reads only its witnesses' edges: the whole graph, a copy of the
            // dependency graph and more, was kept to the end.
            let slot = if order == Order::Session { &mut graphs.session } else { &mut graphs.realtime };
            if let Some(g) = slot.take() {
                *slot = Some(witness_edges(&g, &witnesses[witnesses_from..], &[], inf));
            }
        }
    }
}

/// Weak levels: one saturated graph each (from one shared reading), any cycle, classified.
pub(super) fn saturated(cx: Check, budget: &mut Budget, out: &mut Found, notes: &mut Vec<String>, graphs: &mut Graphs) {
    let Check { h, inf, levels, max_cycles, .. } = cx;
    let Found { searches, witnesses, initial, .. } = out;
    let mut weak_input = None;
    // An inference made without the reads-from list (for other levels) is made again with it.
    let full;
    let weak_inf = match inf.reads_from {
        None if levels.iter().any(|l| l.spec().weak.is_some()) => {
            full = crate::infer::infer(h);
            &full
        }
        _ => inf,
    };
    let mut no_sessions_noted = false;
    for w in levels.iter().filter_map(|l| l.spec().weak) {
        let wg = weak::graph(weak_input.get_or_insert_with(|| weak::Input::new(h, weak_inf)), w);
        let g = &wg.graph;
        let comps = components(g);
        let comp_of = comp_index(&comps);
        let p = Pattern {
            allowed: EdgeType::Ww.bit() | EdgeType::Wr.bit() | EdgeType::So.bit() | EdgeType::Co.bit(),
            must: 0,
            once: 0,
            no_adjacent: 0,
        };
        let outcome = Searcher::new(g).search(&comps, &p, budget, max_cycles);
        let (found_from, initial_from) = (witnesses.len(), initial.len());
        let txn_of = |o: u32| inf.index.txn_of(o);
        let mut found = Vec::new();
        for c in cycles_of(&outcome) {
            let edges: Vec<_> = (0..c.txns.len())
                .filter_map(|i| g.edge(c.txns[i], c.txns[(i + 1) % c.txns.len()], c.types[i]).copied())
                .collect();
            let k = classify(h, g, &edges, txn_of);
            found.push(witnesses.len());
            witnesses.push(Witness {
                graph: GraphId::Weak(w),
                component: comp_of.get(&c.txns[0]).copied().unwrap_or(0),
                named: Named { kind: k, order: Order::None },
                cycle: c.clone(),
            });
        }
        searches.push(PatternSearch { graph: GraphId::Weak(w), kind: None, outcome, found });
        for r in wg.initial_reads.iter().take(max_cycles) {
            initial.push(InitialWitness { graph: w, kind: initial_kind(h, g, r, txn_of), read: *r });
        }
        let graph = witness_edges(&wg.graph, &witnesses[found_from..], &initial[initial_from..], inf);
        let wg = weak::WeakGraph { graph, ..wg };
        if !wg.sessions && !no_sessions_noted && !h.txns.is_empty() {
            no_sessions_noted = true;
            notes.push(
                "the history records no process for any transaction: RC, RA and CC were checked without session order"
                    .into(),
            );
        }
        graphs.weak.push((w, wg));
    }
}

/// What explanations read of a graph once its searches are done: every edge of its witnesses'
/// steps, and the reads-from edges that say how the reader of a commit-order step or of an
/// initial value had observed the writer ([`weak::premise`]). Keeping the whole graph of a weak
/// level or of an order (a copy of the dependency graph's edges, and more) held each to the end:
/// at 1M transactions, all levels took 1,171 MB against SER's 426 MB.
fn witness_edges(
    g: &DependencyGraph,
    witnesses: &[Witness],
    initial: &[InitialWitness],
    inf: &Inference,
) -> DependencyGraph {
    let mut kept = Vec::new();
    let read_from = |kept: &mut Vec<crate::graph::Edge>, writer, reader| {
        kept.extend_from_slice(g.edges_of(writer, reader, EdgeType::Wr));
    };
    for w in witnesses {
        let n = w.cycle.txns.len();
        for i in 0..n {
            let (a, b) = (w.cycle.txns[i], w.cycle.txns[(i + 1) % n]);
            let step = g.edges_of(a, b, w.cycle.types[i]);
            kept.extend_from_slice(step);
            for e in step.iter().filter(|e| e.ty == EdgeType::Co) {
                read_from(&mut kept, e.from, inf.index.txn_of(e.to_op));
            }
        }
    }
    for r in initial.iter().map(|i| &i.read) {
        read_from(&mut kept, inf.index.txn_of(r.write_op), inf.index.txn_of(r.read_op));
    }
    DependencyGraph::new(g.is_vertex.clone(), kept)
}

/// The dependency graph plus one order's edges.
fn with_order(h: &History, inf: &Inference, order: Order, notes: &mut Vec<String>) -> DependencyGraph {
    let g = &inf.graph;
    let extra = match order {
        Order::Session => {
            let (e, any) = session_edges(h, &g.is_vertex);
            if !any && !h.txns.is_empty() {
                notes.push("the history records no process for any transaction: strong-session levels were checked without session order".into());
            }
            e
        }
        _ => {
            let (e, untimed) = realtime_edges(h, &g.is_vertex);
            if untimed > 0 {
                notes.push(format!(
                    "{} no recorded invocation (or no time for it, in a history with times): nothing is known to precede {} in real-time order",
                    crate::words::count(
                        untimed as u64,
                        "transaction in the graph has",
                        "transactions in the graph have"
                    ),
                    if untimed == 1 { "it" } else { "them" }
                ));
            }
            e
        }
    };
    let mut edges = g.edges.clone();
    edges.extend(extra);
    DependencyGraph::new(g.is_vertex.clone(), edges)
}
