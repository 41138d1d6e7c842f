//! Verdicts on the real histories of `../shared/corpus` (GRAIL artifact and Elle examples).

mod common;

use common::*;
use grail_core::anomaly::AnomalyKind;
use grail_core::graph::search::{components, matches};
use grail_core::graph::DependencyGraph;
use grail_core::history::{Status, TxnId};
use grail_core::level::pattern;
use grail_core::{CheckOptions, History, Inference, Report};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Check every cycle in a report: a real simple cycle of the graph, matching its anomaly, and
/// (when it says so) minimal: no shorter matching cycle in its component. Returns how many
/// minimality claims were too long to re-check by enumeration.
fn validate_cycles(h: &History, inf: &Inference, r: &Report) -> usize {
    let g = &inf.graph;
    let by_id: HashMap<u64, TxnId> = h.txns.iter().enumerate().map(|(i, t)| (t.id, i as TxnId)).collect();
    let comps = components(g);
    let mut unchecked = 0;
    let cycles =
        r.levels.0.iter().flat_map(|(_, l)| l.cycles.iter()).chain(r.anomalies.iter().filter_map(|a| a.cycle.as_ref()));
    for c in cycles {
        let kind = AnomalyKind::parse(&c.anomaly).unwrap();
        let p = pattern(kind).unwrap();
        let n = c.steps.len();
        assert!(n >= 2 && n == c.txns.len(), "{c:?}");
        let mut types = Vec::new();
        for (i, s) in c.steps.iter().enumerate() {
            assert_eq!(s.to, c.steps[(i + 1) % n].from, "steps do not chain: {c:?}");
            assert_eq!(s.from, c.txns[i]);
            let ty = s.ty;
            assert!(
                g.edge(by_id[&s.from], by_id[&s.to], ty).is_some(),
                "edge {} -{}-> {} not in the graph",
                s.from,
                s.ty.as_str(),
                s.to
            );
            assert_eq!(s.from_op.txn, s.from);
            assert_eq!(s.to_op.txn, s.to);
            types.push(ty);
        }
        let distinct: HashSet<u64> = c.txns.iter().copied().collect();
        assert_eq!(distinct.len(), n, "not simple: {:?}", c.txns);
        assert!(matches(&p, &types), "{} does not match {:?}", c.anomaly, types);
        if c.minimal {
            if n > 8 {
                unchecked += 1;
                continue;
            }
            let comp: HashSet<TxnId> =
                comps.iter().find(|cc| cc.contains(&by_id[&c.txns[0]])).unwrap().iter().copied().collect();
            assert!(!shorter_exists(g, &comp, &p, n), "{} cycle {:?} of length {n} is not minimal", c.anomaly, c.txns);
        }
    }
    unchecked
}

/// Whether a matching simple cycle shorter than `len` exists in `comp`, by enumerating paths.
fn shorter_exists(
    g: &DependencyGraph,
    comp: &HashSet<TxnId>,
    p: &grail_core::graph::search::Pattern,
    len: usize,
) -> bool {
    fn dfs(
        g: &DependencyGraph,
        comp: &HashSet<TxnId>,
        p: &grail_core::graph::search::Pattern,
        path: &mut Vec<(TxnId, u8)>,
        start: TxnId,
        max: usize,
    ) -> bool {
        let v = path.last().unwrap().0;
        for &grail_core::graph::Succ { to: w, mask } in g.out(v) {
            if !comp.contains(&w) {
                continue;
            }
            if w == start {
                let masks: Vec<u8> = path[1..].iter().map(|x| x.1).chain([mask]).collect();
                let words = label_words(&masks);
                if words.iter().any(|wd| matches(p, wd)) {
                    return true;
                }
            } else if w > start && path.len() < max && !path.iter().any(|x| x.0 == w) {
                path.push((w, mask));
                if dfs(g, comp, p, path, start, max) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    comp.iter().any(|&s| dfs(g, comp, p, &mut vec![(s, 0)], s, len - 1))
}

/// The thesis's checkers (and Elle) order appends only as reads observed them.
fn check_all(h: &History) -> (Inference, Report) {
    let inf = grail_core::infer(h);
    let observed = CheckOptions { observed_order_only: true, ..CheckOptions::default() };
    let r = grail_core::check_inferred(h, &inf, &observed, None);
    (inf, r)
}

/// The List histories whose SI or PSI grail finds violated only by deciding the order of appends
/// no read observed (the thesis's checkers and Elle order appends as reads observed them).
const OPEN_ORDER_VIOLATIONS: &[&str] = &[
    "grail/list/list-collection-time-nemesis/160.edn.gz SI",
    "grail/list/list-collection-time-nemesis/160.edn.gz PSI",
    "grail/list/list-rate-nemesis/10.edn.gz SI",
];

#[test]
fn list_histories_give_the_thesis_verdicts() {
    let Some(c) = corpus() else { return };
    let mut cells = 0;
    let mut histories = 0;
    let mut unchecked = 0;
    let mut decided_over_open_orders: Vec<String> = Vec::new();
    for row in csv_rows(&c.join("grail/list/verdicts.csv")) {
        let rel = row["edn_path"].replace("go-graph-checker/histories/", "grail/list/");
        let path = c.join(&rel);
        if rel.contains("MISSING") || !path.exists() {
            continue;
        }
        let h = load(&path, None);
        let (inf, r) = check_all(&h);
        for l in LEVELS {
            let expected = row[&format!("expected_{l}_violated")] == "1";
            assert_eq!(violated(&r, l), expected, "{rel}: {l} expected violated={expected}");
            cells += 1;
        }
        // Vertices are the committed transactions (no indeterminate write was observed here).
        assert_eq!(r.stats.vertices, h.count(Status::Committed), "{rel}");
        assert_eq!(r.stats.vertices.to_string(), row["dsg_txns"], "{rel}: vertex count vs GRAIL's exported graph");
        unchecked += validate_cycles(&h, &inf, &r);
        histories += 1;
        // grail's own check decides the order of appends no read observed too
        // (docs/levels.md, unobserved appends): it may only find more violations, each shown
        // with a chosen order, and only of the levels that forbid a G-single.
        let own = grail_core::check_inferred(&h, &inf, &CheckOptions::default(), None);
        for l in LEVELS.iter().filter(|l| own.levels[**l].verdict != r.levels[**l].verdict) {
            assert_eq!(
                (r.levels[*l].verdict.as_str(), own.levels[*l].verdict.as_str()),
                ("holds", "violated"),
                "{rel}: {l}"
            );
            assert!(["SI", "PSI"].contains(l), "{rel}: {l}");
            let c = &own.levels[*l].cycles[0];
            assert!(c.steps.iter().any(|s| s.certain == Some(false)), "{rel}: {l}: {}", c.explanation);
            decided_over_open_orders.push(format!("{rel} {l}"));
        }
    }
    eprintln!("violated only over the open orders of unobserved appends: {decided_over_open_orders:?}");
    assert_eq!(decided_over_open_orders, OPEN_ORDER_VIOLATIONS, "the documented differences (docs/levels.md)");
    assert_eq!(histories, 88, "expected the 88 List1-List5 histories of the snapshot");
    assert_eq!(cells, 440);
    eprintln!("{histories} histories, {cells} verdicts equal; {unchecked} long minimal cycles not re-enumerated");
    assert_eq!(unchecked, 0, "every minimality claim on the corpus is re-checked by enumeration");
}

#[test]
fn register_histories_with_logs_give_the_thesis_verdicts() {
    let Some(c) = corpus() else { return };
    let mut n = 0;
    for row in csv_rows(&c.join("grail/reg-max-write/verdicts.csv")) {
        let p = c.join("grail").join(row["edn_path"].replace("go-graph-checker/histories/", ""));
        let w = c.join("grail").join(row["wal_path"].replace("go-graph-checker/histories/", ""));
        let h = load(&p, Some(&w));
        let (inf, r) = check_all(&h);
        for l in LEVELS {
            let expected = row[&format!("expected_{}_violated", l.replace('-', ""))] == "1";
            assert_eq!(violated(&r, l), expected, "{}: {l}", p.display());
        }
        // Thesis Table 5.3: vertices, WW and WR agree exactly (GRAIL's RW count also has edges
        // from internal reads and intermediate versions, which grail does not draw).
        assert_eq!(r.stats.vertices.to_string(), row["tbl53_vertices"]);
        assert_eq!(r.stats.ww.to_string(), row["tbl53_WW"]);
        assert_eq!(r.stats.wr.to_string(), row["tbl53_WR"]);
        validate_cycles(&h, &inf, &r);
        n += 1;
    }
    assert_eq!(n, 20);
}

#[test]
fn tiny_cases_match_tiny_expected() {
    let Some(c) = corpus() else { return };
    let mut n = 0;
    for row in csv_rows(&c.join("grail/tiny-expected.csv")) {
        let case = &row["case_file"];
        let name = case.rsplit('/').next().unwrap().split('(').next().unwrap();
        let (path, wal) = if case.contains("rw-register-test") {
            let p = c.join("grail/tiny-register").join(name);
            (p.clone(), Some(p.with_extension("log")))
        } else if case.contains("list-append-inline-cases") {
            (c.join("grail/tiny-list").join(name), None)
        } else {
            (c.join("grail").join(case.replace("go-graph-checker/histories/", "")), None)
        };
        let h = load(&path, wal.as_deref());
        let (inf, r) = check_all(&h);
        let found = kinds(&r);
        for (col, kind) in [("expected_G1a", "G1a"), ("expected_G1b", "G1b")] {
            match row[col].as_str() {
                "yes" => {
                    // GRAIL calls a read of the transaction's own earlier state G1b; Elle and grail
                    // call it an internal inconsistency (tiny-list g1b-2 and g1b-3).
                    let alt =
                        kind == "G1b" && (name == "g1b-2.edn" || name == "g1b-3.edn") && !case.contains("register");
                    assert!(
                        found.contains(kind) || (alt && found.contains("internal")),
                        "{case}: expected {kind}, found {found:?}"
                    );
                }
                "no" => assert!(!found.contains(kind), "{case}: expected no {kind}, found {found:?}"),
                _ => {}
            }
        }
        for l in LEVELS {
            match row[&format!("expected_{}", l.replace('-', ""))].as_str() {
                "violated" => assert!(violated(&r, l), "{case}: {l} should be violated"),
                "ok" => assert!(!violated(&r, l), "{case}: {l} should hold"),
                _ => {}
            }
        }
        if name == "g1a.edn" && !case.contains("register") {
            assert!(found.contains("garbage-read"), "tiny-list/g1a reads 3, which nobody appended");
        }
        validate_cycles(&h, &inf, &r);
        n += 1;
    }
    assert_eq!(n, 29);
}

/// The verdicts in `checker.log`: "Cycle Detected by L" or "Anti-Patterns for L Not Detected".
#[test]
fn anti_pattern_histories_match_checker_log() {
    let Some(c) = corpus() else { return };
    for case in ["write-skew", "lost-update"] {
        let dir = c.join("grail/anti-patterns").join(case);
        let log = String::from_utf8(slurp(&dir.join("checker.log"))).unwrap();
        let h = load(&dir.join("history.edn.gz"), None);
        let (inf, r) = check_all(&h);
        for (l, name) in [("SER", "SER"), ("SI", "SI"), ("PSI", "PSI"), ("PL-2", "PL-2"), ("PL-1", "PL-1")] {
            let detected = log.contains(&format!("Cycle Detected by {name} "))
                || log.contains(&format!("Cycle Detected by {name}\n"));
            let holds = log.contains(&format!(
                "Anti-Patterns for {} Not Detected",
                if name == "SI" {
                    "Snapshot Isolation"
                } else if name == "PSI" {
                    "Parallel Snapshot Isolation"
                } else {
                    name
                }
            ));
            assert!(detected != holds, "{case}: the log says neither or both for {l}");
            assert_eq!(violated(&r, l), detected, "{case}: {l}");
        }
        validate_cycles(&h, &inf, &r);
    }
}

#[test]
fn elle_examples() {
    let Some(c) = corpus() else { return };
    let e = c.join("elle");
    let verdicts = |p: &Path| {
        let r = check(&load(p, None));
        LEVELS.map(|l| violated(&r, l))
    };
    // SER violated (G2-item) but SI holds; two of its edges come from nil reads and unread appends.
    assert_eq!(verdicts(&e.join("si-without-g-single.edn")), [true, false, false, false, false]);
    assert_eq!(verdicts(&e.join("paper-example.edn")), [true, true, true, false, false]);
    let cli = e.join("elle-cli-histories/elle");
    assert_eq!(verdicts(&cli.join("list-append-gh-30.edn")), [true, false, false, false, false]);
    // elle-cli calls it valid; it reads 3 of x, which nobody wrote: a thin-air read, which every
    // level but PL-1 forbids (as Cobra, PolySI, AWDIT and dbcop judge; docs/elle.md, difference 4).
    for f in ["rw-register.edn", "rw-register.json"] {
        assert_eq!(verdicts(&cli.join(f)), [true, true, true, true, false], "{f}");
    }
    // The same history in EDN and in elle-cli's JSON gives the same report.
    let a = check(&load(&cli.join("paper-example.edn"), None));
    let b = check(&load(&cli.join("paper-example.json"), None));
    assert_eq!(a.stats, b.stats);
    for l in LEVELS {
        assert_eq!(a.levels[l].valid, b.levels[l].valid);
        let txns = |r: &Report| r.levels[l].cycles.iter().map(|c| c.txns.clone()).collect::<Vec<_>>();
        assert_eq!(txns(&a), txns(&b));
    }
    assert_eq!(a.levels["SER"].cycles[0].name, "read skew");
}

#[test]
fn gzip_free_core_reads_the_largest_history() {
    let Some(c) = corpus() else { return };
    let h = load(&c.join("grail/anti-patterns/lost-update/history.edn.gz"), None);
    assert_eq!(h.txns.len(), 9570);
    let r = check(&h);
    assert!(r.levels["SER"].cycles.iter().all(|c| c.minimal));
}
