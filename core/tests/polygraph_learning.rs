//! The search that learns (`polygraph::learn`) against DPLL with chronological backtracking
//! (`polygraph::solve`), both complete, on contended register histories too large for
//! brute force (`polygraph.rs` compares both with brute force on small ones): serial
//! executions with most writes never read, so that the version order is mostly open, half of
//! them with a read or two changed. The learning search runs without pruning and without the sweep,
//! so its clauses alone must refute what it refutes; it must meet conflicts and jump back
//! past levels (or, going back one level, assert out of order), and every counterexample must be a forbidden cycle of real choices.

use grail_core::graph::search::Budget;
use grail_core::graph::EdgeType;
use grail_core::polygraph::{self, Decision, Mode, Origin, SearchMode};
use grail_core::Format;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// `txns` transactions one after another over 1-3 keys: a read of the current value (30%) or
/// a fresh write; then up to two reads changed to another value or nil.
fn contended(rng: &mut Rng, txns: usize) -> String {
    let keys = 1 + rng.below(3);
    let mut current: Vec<Option<usize>> = vec![None; keys];
    let mut values: Vec<Vec<usize>> = vec![Vec::new(); keys];
    let mut all: Vec<Vec<(bool, usize, Option<usize>)>> = Vec::new();
    for t in 0..txns {
        let mut ops: Vec<(bool, usize, Option<usize>)> = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let k = rng.below(keys);
            if ops.iter().any(|&(w, k2, _)| w && k2 == k) {
                continue;
            }
            if rng.below(10) < 3 {
                ops.push((false, k, current[k]));
            } else {
                let v = t * 10 + k + 1;
                values[k].push(v);
                current[k] = Some(v);
                ops.push((true, k, Some(v)));
            }
        }
        all.push(ops);
    }
    for _ in 0..rng.below(3) {
        let reads: Vec<(usize, usize)> = all
            .iter()
            .enumerate()
            .flat_map(|(t, ops)| ops.iter().enumerate().filter(|(_, o)| !o.0).map(move |(i, _)| (t, i)))
            .collect();
        if !reads.is_empty() {
            let (t, i) = reads[rng.below(reads.len())];
            let k = all[t][i].1;
            let others: Vec<usize> = values[k].iter().copied().filter(|&v| v / 10 != t).collect();
            all[t][i].2 = others.get(rng.below(others.len() + 1)).copied();
        }
    }
    let out: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(t, ops)| {
            let ops: Vec<String> = ops
                .iter()
                .map(|&(w, k, v)| {
                    let v = v.map_or("null".to_string(), |v| v.to_string());
                    format!("[\"{}\", \"k{k}\", {v}]", if w { "w" } else { "r" })
                })
                .collect();
            format!("{{\"id\": {}, \"ops\": [{}]}}", t + 1, ops.join(", "))
        })
        .collect();
    format!("[{}]", out.join(",\n"))
}

#[test]
fn learning_agrees_with_dpll_and_jumps_back() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut held, mut violated, mut learned, mut jumped, mut out_of_order) = (0, 0, 0, 0, 0);
    for case in 0..150 {
        let txns = 12 + rng.below(10);
        let text = contended(&mut rng, txns);
        let h = grail_core::read(text.as_bytes(), Format::Json).unwrap();
        let inf = grail_core::infer(&h);
        let pg = polygraph::build(&h, &inf, false, u64::MAX);
        for mode in [Mode::Ser, Mode::Si] {
            let (dpll, _) = polygraph::decide_with(&pg, mode, &mut Budget::unlimited(), SearchMode::DpllOnly);
            let (learn, st) = polygraph::decide_with(&pg, mode, &mut Budget::unlimited(), SearchMode::LearnOnly);
            let (fast, _) = polygraph::decide_with(&pg, mode, &mut Budget::unlimited(), SearchMode::Fast);
            let (chrono, cst) = polygraph::decide_with(&pg, mode, &mut Budget::unlimited(), SearchMode::LearnChrono);
            let holds = |v: &Decision| match v {
                Decision::Holds => true,
                Decision::Violated(_) => false,
                Decision::Unknown(w) => panic!("case {case} {mode:?}: unknown without a budget: {w}"),
            };
            assert_eq!(holds(&learn), holds(&dpll), "case {case} {mode:?}: learning and DPLL disagree\n{text}");
            assert_eq!(holds(&fast), holds(&dpll), "case {case} {mode:?}: default and DPLL disagree\n{text}");
            let ctx = format!("case {case} {mode:?}: chronological backtracking and DPLL disagree\n{text}");
            assert_eq!(holds(&chrono), holds(&dpll), "{ctx}");
            if let Decision::Violated(cx) = &learn {
                violated += 1;
                let c = &cx.cycle;
                for i in 0..c.len() {
                    assert_eq!({ c[i].0.to }, { c[(i + 1) % c.len()].0.from }, "case {case}: not a cycle: {c:?}");
                    if let Origin::Chosen { cons, first } = c[i].1 {
                        assert!(pg.side(pg.cons[cons as usize], first).any(|f| f == c[i].0), "case {case}");
                    }
                }
                if mode == Mode::Si {
                    let adjacent =
                        (0..c.len()).any(|i| c[i].0.ty == EdgeType::Rw && c[(i + 1) % c.len()].0.ty == EdgeType::Rw);
                    assert!(!adjacent, "case {case}: SI counterexample with adjacent RW edges");
                }
            } else {
                held += 1;
            }
            learned += usize::from(st.conflicts > 0);
            // Going back one level where the clause allowed more: literals asserted out of order.
            out_of_order += usize::from(cst.backjumps > 0);
            jumped += usize::from(st.backjumps > 0);
        }
    }
    eprintln!("{held} held, {violated} violated, learned on {learned}, jumped back on {jumped}, out of order on {out_of_order}");
    assert!(held > 30 && violated > 30, "{held} held, {violated} violated: too one-sided");
    assert!(learned > 50, "the search learned on {learned} runs only");
    assert!(jumped > 10, "the search jumped back past a level on {jumped} runs only");
    assert!(out_of_order > 10, "chronological backtracking asserted out of order on {out_of_order} runs only");
}
