//! After the searches, the engine keeps of the weak levels' graphs and of the session and
//! real-time orders' graphs only what the report explains: its witnesses' edges (and the
//! reads-from edges that say how a reader had observed a writer). Every witness's steps are
//! still found there, and the reports are those of `grail check` (the conformance cases and
//! `scripts/same-reports.sh` compare them whole).

use grail_core::engine::{self, CheckOptions};
use grail_core::generate::{generate, GenOptions, Isolation};
use grail_core::graph::search::Budget;
use grail_core::{read, Format, Level};

#[test]
fn weak_and_order_graphs_keep_their_witnesses_edges_only() {
    let text = generate(&GenOptions {
        transactions: 3_000,
        isolation: Isolation::ReadCommitted,
        seed: 5,
        ..Default::default()
    })
    .history;
    let h = read(text.as_bytes(), Format::Edn).unwrap();
    let inf = grail_core::infer::infer(&h);
    let opts = CheckOptions { levels: Level::ALL.to_vec(), ..Default::default() };
    let out = engine::run(&h, &inf, &opts, &mut Budget::unlimited());
    let base = inf.graph.edges.len();
    let mut kept =
        vec![("session".to_string(), out.graphs.session.as_ref()), ("real-time".into(), out.graphs.realtime.as_ref())];
    kept.extend(out.graphs.weak.iter().map(|(w, g)| (format!("{w:?}"), Some(&g.graph))));
    let mut witnessed = 0;
    for (name, g) in kept {
        let g = g.unwrap_or_else(|| panic!("{name}: no graph kept"));
        assert!(g.edges.len() * 10 < base, "{name}: {} edges kept of the dependency graph's {base}", g.edges.len());
        let ws: Vec<_> = out
            .witnesses
            .iter()
            .filter(|w| out.graphs.get(&inf.graph, w.graph).is_some_and(|x| std::ptr::eq(x, g)))
            .collect();
        for w in &ws {
            let n = w.cycle.txns.len();
            for i in 0..n {
                let (a, b) = (w.cycle.txns[i], w.cycle.txns[(i + 1) % n]);
                assert!(g.edge(a, b, w.cycle.types[i]).is_some(), "{name}: a witness's step {a} -> {b} is kept");
            }
        }
        witnessed += ws.len();
    }
    assert!(witnessed > 0, "the history violates the weak levels and the orders' levels");
}
