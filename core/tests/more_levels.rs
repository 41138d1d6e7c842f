//! The levels beyond the classic five: session and real-time order, and the weak levels of
//! Biswas and Enea (RC, RA, CC). Each is checked against an independent definition: the
//! axioms by brute force over every commit order, real-time order by its quadratic definition,
//! and generated histories under each isolation pass the levels it guarantees.

use grail_core::generate::{DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::graph::orders::realtime_edges;
use grail_core::{check, read, CheckOptions, Format, Level};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn levels(names: &str) -> CheckOptions {
    CheckOptions { levels: Level::parse_list(names).unwrap(), ..CheckOptions::default() }
}

// ---------------------------------------------------------------------------------------------
// The weak levels against their axioms.

/// A small register history: per transaction, a process and micro-ops (read: key, value or 0 for
/// the initial value; write: key, value). Reads come before a transaction's writes of a key.
type SmallOp = (bool, u8, u32);

#[derive(Debug, Clone)]
struct Small {
    txns: Vec<(i64, Vec<SmallOp>)>,
}

fn small() -> impl Strategy<Value = Small> {
    // Writes get unique values: transaction t writes value 10 * (t + 1) + key.
    let txn = (0i64..3, prop::collection::vec((any::<bool>(), 0u8..2, 0usize..6), 1..4));
    prop::collection::vec(txn, 2..6).prop_map(|raw| {
        let n = raw.len();
        let txns = raw
            .into_iter()
            .enumerate()
            .map(|(t, (p, ops))| {
                let mut out: Vec<SmallOp> = Vec::new();
                let mut written: Vec<u8> = Vec::new();
                for (is_write, k, pick) in ops {
                    if is_write {
                        if !written.contains(&k) {
                            written.push(k);
                            out.push((true, k, 10 * (t as u32 + 1) + k as u32));
                        }
                    } else if !written.contains(&k) {
                        // Read the initial value or some other transaction's write of k.
                        let writer = pick % (n + 1);
                        let v = if writer == 0 || writer - 1 == t { 0 } else { 10 * writer as u32 + k as u32 };
                        out.push((false, k, v));
                    }
                }
                (p, out)
            })
            .collect();
        Small { txns }.fixed()
    })
}

impl Small {
    fn writes(&self, t: usize, k: u8) -> bool {
        self.txns[t].1.iter().any(|&(w, kk, _)| w && kk == k)
    }

    /// The transaction a read of (k, v) read from, `None` for the initial value.
    fn writer(&self, k: u8, v: u32) -> Option<usize> {
        (0..self.txns.len()).find(|&t| self.txns[t].1.iter().any(|&(w, kk, vv)| w && kk == k && vv == v))
    }

    /// A read of a value nobody wrote (its writer did not write that key after all) reads the
    /// initial value instead.
    fn fixed(mut self) -> Self {
        let written: Vec<(u8, u32)> =
            self.txns.iter().flat_map(|(_, ops)| ops.iter().filter(|o| o.0).map(|o| (o.1, o.2))).collect();
        for (_, ops) in &mut self.txns {
            for o in ops.iter_mut() {
                if !o.0 && !written.contains(&(o.1, o.2)) {
                    o.2 = 0;
                }
            }
        }
        self
    }

    fn edn(&self) -> String {
        let mut s = String::new();
        for (p, ops) in &self.txns {
            let ops: Vec<String> = ops
                .iter()
                .map(|&(w, k, v)| match (w, v) {
                    (true, v) => format!("[:w {k} {v}]"),
                    (false, 0) => format!("[:r {k} nil]"),
                    (false, v) => format!("[:r {k} {v}]"),
                })
                .collect();
            s.push_str(&format!("{{:type :ok, :process {p}, :value [{}]}}\n", ops.join(" ")));
        }
        s
    }

    /// Session order and reads-from, as a relation (direct pairs).
    fn so_wr(&self) -> BTreeSet<(usize, usize)> {
        let n = self.txns.len();
        let mut r = BTreeSet::new();
        for a in 0..n {
            for b in a + 1..n {
                if self.txns[a].0 == self.txns[b].0 {
                    r.insert((a, b));
                }
            }
        }
        for (t, (_, ops)) in self.txns.iter().enumerate() {
            for &(w, k, v) in ops {
                if let (false, Some(src)) = (w, self.writer(k, v)) {
                    if src != t {
                        r.insert((src, t));
                    }
                }
            }
        }
        r
    }

    /// Biswas and Enea's axiom for a level holds for some commit order.
    fn holds(&self, level: Level) -> bool {
        let n = self.txns.len();
        let direct = self.so_wr();
        let mut causal = direct.clone();
        loop {
            let add: Vec<(usize, usize)> = causal
                .iter()
                .flat_map(|&(a, b)| causal.iter().filter(move |&&(c, _)| c == b).map(move |&(_, d)| (a, d)))
                .filter(|p| !causal.contains(p))
                .collect();
            if add.is_empty() {
                break;
            }
            causal.extend(add);
        }
        let mut order: Vec<usize> = (0..n).collect();
        permutations(&mut order, 0, &mut |co: &[usize]| {
            let pos = |t: usize| co.iter().position(|&x| x == t).unwrap();
            if direct.iter().any(|&(a, b)| pos(a) > pos(b)) {
                return false;
            }
            for (t3, (_, ops)) in self.txns.iter().enumerate() {
                for (i, &(w, x, v)) in ops.iter().enumerate() {
                    if w {
                        continue;
                    }
                    let t1 = self.writer(x, v);
                    for t2 in (0..n).filter(|&t2| t2 != t3 && Some(t2) != t1 && self.writes(t2, x)) {
                        let observed = match level {
                            Level::Rc => ops[..i].iter().any(|&(w, k, v)| !w && self.writer(k, v) == Some(t2)),
                            Level::Ra => direct.contains(&(t2, t3)),
                            _ => causal.contains(&(t2, t3)),
                        };
                        // t2 must precede t1 (the initial value precedes everything).
                        if observed && t1.is_none_or(|t1| pos(t2) > pos(t1)) {
                            return false;
                        }
                    }
                }
            }
            true
        })
    }
}

/// Whether `ok` holds for some permutation.
fn permutations(v: &mut Vec<usize>, k: usize, ok: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    if k == v.len() {
        return ok(v);
    }
    for i in k..v.len() {
        v.swap(k, i);
        if permutations(v, k + 1, ok) {
            v.swap(k, i);
            return true;
        }
        v.swap(k, i);
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn weak_levels_equal_their_axioms(h in small()) {
        let text = h.edn();
        let history = read(text.as_bytes(), Format::Edn).unwrap();
        let r = check(&history, &levels("RC,RA,CC"));
        for l in [Level::Rc, Level::Ra, Level::Cc] {
            let want = h.holds(l);
            let got = r.levels.get(l).unwrap().valid;
            prop_assert_eq!(got, Some(want), "{} on\n{}{}", l.name(), text, r.to_json());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real-time order against its definition.

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    #[allow(clippy::needless_range_loop)] // a transitive closure over a matrix
    fn realtime_closure_is_the_interval_order(spans in prop::collection::vec((0i64..40, 0i64..15), 1..14)) {
        // Native JSON keeps start and end.
        let json: Vec<String> = spans
            .iter()
            .enumerate()
            .map(|(i, &(s, len))| format!("{{\"id\": {i}, \"status\": \"committed\", \"start\": {s}, \"end\": {}, \"ops\": []}}", s + len))
            .collect();
        let doc = format!("{{\"transactions\": [{}]}}", json.join(","));
        let h = read(doc.as_bytes(), Format::Auto).unwrap();
        let n = h.txns.len();
        let (edges, untimed) = realtime_edges(&h, &vec![true; n]);
        prop_assert_eq!(untimed, 0);
        let mut reach = vec![vec![false; n]; n];
        for e in &edges {
            reach[e.from as usize][e.to as usize] = true;
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if reach[i][k] && reach[k][j] {
                        reach[i][j] = true;
                    }
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (&h.txns[i], &h.txns[j]);
                let before = a.complete_time().unwrap() < b.invoke_time().unwrap();
                prop_assert_eq!(reach[i][j], before, "{} -> {} in {}", i, j, doc);
            }
        }
        // Reduced: at most n times the number of concurrent transactions.
        prop_assert!(edges.len() <= n * n);
    }
}

// ---------------------------------------------------------------------------------------------
// Generated histories pass what their isolation guarantees.

fn generated(
    isolation: Isolation,
    model: DataModel,
    seed: u64,
    inject: Vec<(Injection, usize)>,
) -> grail_core::History {
    common::generated(&GenOptions {
        transactions: 3000,
        sessions: 12,
        keys: 12,
        isolation,
        model,
        seed,
        inject,
        output: Output::Edn,
        ..GenOptions::default()
    })
}

fn verdicts(h: &grail_core::History) -> grail_core::Report {
    check(h, &levels("all"))
}

#[test]
fn generated_histories_pass_the_levels_their_isolation_guarantees() {
    let guarantees: [(Isolation, &str); 5] = [
        (
            Isolation::Serializable,
            "strict-SER,strong-session-SER,SER,strong-SI,strong-session-SI,SI,PSI,CC,RA,RC,PL-2,PL-1",
        ),
        (Isolation::SnapshotIsolation, "strong-SI,strong-session-SI,SI,PSI,CC,RA,RC,PL-2,PL-1"),
        (Isolation::ParallelSnapshotIsolation, "PSI,CC,RA,RC,PL-2,PL-1"),
        (Isolation::Causal, "CC,RA,RC,PL-2,PL-1"),
        (Isolation::ReadCommitted, "RC,PL-2,PL-1"),
    ];
    for (iso, want) in guarantees {
        for model in [DataModel::ListAppend, DataModel::RwRegister] {
            for seed in 1..=3 {
                let h = generated(iso, model, seed, Vec::new());
                let r = verdicts(&h);
                for l in Level::parse_list(want).unwrap() {
                    assert_eq!(
                        r.levels.get(l).unwrap().verdict.as_str(),
                        "holds",
                        "{iso:?} {model:?} seed {seed}: {} {:?}",
                        l.name(),
                        r.levels.get(l).unwrap().anomalies
                    );
                }
                // Everything the report says holds is consistent with the lattice.
                for s in &r.strongest_satisfied {
                    for w in s.weaker() {
                        assert_ne!(
                            r.levels.get(w).unwrap().valid,
                            Some(false),
                            "{} holds but {} fails",
                            s.name(),
                            w.name()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn weaker_isolations_really_break_the_stronger_levels() {
    // Not vacuous: read committed shows fractured reads (RA), SI shows write skew but keeps CC.
    let mut rc_breaks_ra = false;
    let mut psi_breaks_si = false;
    let mut causal_breaks_psi = false;
    for seed in 1..=6 {
        let r = verdicts(&generated(Isolation::Causal, DataModel::RwRegister, seed, Vec::new()));
        causal_breaks_psi |= r.levels.get(Level::Psi).unwrap().valid == Some(false);
        let r = verdicts(&generated(Isolation::ReadCommitted, DataModel::RwRegister, seed, Vec::new()));
        rc_breaks_ra |= r.levels.get(Level::Ra).unwrap().valid == Some(false);
        let r = verdicts(&generated(Isolation::ParallelSnapshotIsolation, DataModel::ListAppend, seed, Vec::new()));
        psi_breaks_si |= r.levels.get(Level::Si).unwrap().valid == Some(false);
    }
    assert!(rc_breaks_ra, "no read-committed history violated read atomic");
    assert!(psi_breaks_si, "no PSI history violated SI");
    assert!(causal_breaks_psi, "no causal history violated PSI");
}

#[test]
fn injected_aborted_and_intermediate_reads_violate_rc() {
    for (inj, kind) in [(Injection::AbortedRead, "G1a"), (Injection::IntermediateRead, "G1b")] {
        let h = generated(Isolation::Serializable, DataModel::ListAppend, 7, vec![(inj, 2)]);
        let r = check(&h, &levels("RC,RA,CC"));
        for l in ["RC", "RA", "CC"] {
            assert!(r.levels[l].anomalies.iter().any(|a| a == kind), "{l}: {:?}", r.levels[l].anomalies);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Names, aliases and the lattice.

#[test]
fn elle_aliases_name_the_levels() {
    for (alias, level) in [
        ("strict-serializable", "strict-SER"),
        ("strong-session-serializable", "strong-session-SER"),
        ("strong-session-snapshot-isolation", "strong-session-SI"),
        ("PL-3", "SER"),
        ("PL-2.99", "SER"),
        ("PL-SI", "SI"),
        ("read-committed", "PL-2"),
        ("read-atomic", "RA"),
        ("causal", "CC"),
        ("read_uncommitted", "PL-1"),
    ] {
        assert_eq!(Level::parse(alias).unwrap().name(), level, "{alias}");
    }
    assert!(Level::parse("snapshot").unwrap_err().message.contains("strong-session-SER"));
    assert_eq!(Level::parse_list("all").unwrap().len(), 12);
    let o: CheckOptions = serde_json::from_str(r#"{"levels": ["strict-serializable", "RC"]}"#).unwrap();
    assert_eq!(o.levels, vec![Level::StrictSer, Level::Rc]);
}

#[test]
fn the_lattice_is_a_partial_order_from_strict_ser_down() {
    for l in Level::ALL {
        assert!(!l.weaker().contains(&l), "{} implies itself", l.name());
        if l != Level::Pl1 {
            assert!(l.weaker().contains(&Level::Pl1), "{} does not imply PL-1", l.name());
        }
        if l != Level::StrictSer && l != Level::StrongSessionSer {
            assert!(!l.stronger().is_empty(), "nothing implies {}", l.name());
        }
        // A level proscribes at least what the levels it implies proscribe (weak levels name
        // cycles their own way, so compare only the shared non-cycle anomalies; internal and
        // thin-air reads are model assumptions for the classic levels, TAPs for the weak ones).
        for w in l.weaker() {
            for k in w.spec().proscribes {
                use grail_core::AnomalyKind::{GarbageRead, Internal};
                if !k.is_cycle() && !k.is_weak_cycle() && !matches!(k, Internal | GarbageRead) {
                    assert!(l.proscribes(*k), "{} implies {} but allows {}", l.name(), w.name(), k.name());
                }
            }
        }
    }
}

#[test]
fn weakest_violated_and_strongest_satisfied_follow_the_lattice() {
    let text =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cases/fractured-read/saw-half.edn")).unwrap();
    let h = read(&text, Format::Auto).unwrap();
    let r = check(&h, &levels("all"));
    let names = |ls: &[Level]| ls.iter().map(|l| l.name()).collect::<Vec<_>>();
    assert_eq!(names(&r.weakest_violated), ["PSI", "RA"]);
    assert!(r.also_violated.contains(&Level::StrictSer) && r.also_violated.contains(&Level::Cc));
    assert_eq!(names(&r.strongest_satisfied), ["RC"]);
    let text = grail_core::render::text::render(&r);
    assert!(text.contains("weakest violated: PSI, RA"), "{text}");
}

#[test]
fn read_anomalies_carry_plumes_names() {
    let case = |p: &str| {
        let text = std::fs::read(format!("{}/../tests/cases/{p}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        check(&read(&text, Format::Auto).unwrap(), &levels("RC"))
    };
    let names =
        |r: &grail_core::Report| r.anomalies.iter().map(|a| (a.kind.clone(), a.name.clone())).collect::<Vec<_>>();
    assert!(names(&case("G1a/aborted-read.edn")).contains(&("G1a".into(), "aborted read".into())));
    assert!(names(&case("G1b/intermediate-read.edn")).contains(&("G1b".into(), "intermediate read".into())));
    let thin = case("garbage-read/never-written.edn");
    assert!(names(&thin).contains(&("garbage-read".into(), "thin-air read".into())), "{:?}", names(&thin));
    assert_eq!(thin.levels["RC"].verdict.as_str(), "violated");
    // Internal reads, by what they saw.
    let one = |ops: &str| {
        let text = format!("{{:type :ok, :process 0, :value [{ops}]}}\n{{:type :ok, :process 1, :value [[:w x 9]]}}");
        let r = check(&read(text.as_bytes(), Format::Edn).unwrap(), &levels("RC"));
        r.anomalies.iter().map(|a| a.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(one("[:w x 1] [:w x 2] [:r x 1]"), ["not my last write"]);
    assert_eq!(one("[:w x 1] [:r x 9]"), ["not my own write"]);
    assert_eq!(one("[:r x 3] [:w x 3]"), ["future read"]);
}

// ---------------------------------------------------------------------------------------------
// Real histories: the twelve verdicts agree with the levels' implications.

mod common;

#[test]
fn corpus_verdicts_respect_the_lattice() {
    let Some(c) = common::corpus() else { return };
    let mut histories = 0;
    let mut checked_pairs = 0;
    for row in common::csv_rows(&c.join("grail/list/verdicts.csv")) {
        let rel = row["edn_path"].replace("go-graph-checker/histories/", "grail/list/");
        let path = c.join(&rel);
        if rel.contains("MISSING") || !path.exists() {
            continue;
        }
        let h = common::load(&path, None);
        let r = check(&h, &levels("all"));
        // The classic five are what the corpus expects, whatever else is checked alongside, when
        // appends are ordered as reads observed them (as the thesis's checkers order them;
        // grail's own differences are listed in core/tests/corpus.rs and docs/levels.md).
        let observed = check(&h, &CheckOptions { observed_order_only: true, ..levels("all") });
        for l in common::LEVELS {
            let expected = row[&format!("expected_{l}_violated")] == "1";
            assert_eq!(observed.levels[l].valid == Some(false), expected, "{rel}: {l}");
        }
        // Internal and thin-air reads are TAPs for the weak levels only; elsewhere every level
        // that holds has every level it implies hold too.
        let assumption = r.anomalies.iter().any(|a| a.kind == "internal" || a.kind == "garbage-read");
        for (l, lr) in &r.levels.0 {
            if lr.valid != Some(true) {
                continue;
            }
            for w in l.weaker() {
                if assumption && w.spec().weak.is_some() {
                    continue;
                }
                assert_eq!(
                    r.levels.get(w).unwrap().valid,
                    Some(true),
                    "{rel}: {} holds but {} does not",
                    l.name(),
                    w.name()
                );
                checked_pairs += 1;
            }
        }
        histories += 1;
    }
    assert_eq!(histories, 88);
    eprintln!("{histories} corpus histories, {checked_pairs} implications checked");
    assert!(checked_pairs > 0);
}

/// The initial values precede every transaction (Biswas and Enea's initial transaction): a read of
/// one after observing a writer of the key violates RC. AWDIT answers RC consistent here (its
/// initial transaction is unordered); `docs/levels.md` records the difference.
#[test]
fn initial_value_after_an_observed_writer_violates_rc() {
    let text = "w(1,1,1,1)\nw(2,1,1,1)\nr(1,1,2,2)\nr(2,0,2,2)\n";
    let h = read(text.as_bytes(), Format::Auto).unwrap();
    let report = check(&h, &levels("RC,RA,CC"));
    for l in [Level::Rc, Level::Ra, Level::Cc] {
        let lr = report.levels.get(l).unwrap_or_else(|| panic!("{l:?} missing"));
        assert_eq!(lr.verdict, grail_core::report::Verdict::Violated, "{l:?}");
        assert!(lr.anomalies.iter().any(|a| a == "non-monotonic-read"), "{l:?}: {:?}", lr.anomalies);
    }
    // Read 0 before observing T1: nothing to contradict.
    let fine = read(b"w(1,1,1,1)\nw(2,1,1,1)\nr(2,0,2,2)\nr(1,1,2,2)\n", Format::Auto).unwrap();
    let report = check(&fine, &levels("RC,RA"));
    assert_eq!(report.levels.get(Level::Rc).map(|l| l.verdict), Some(grail_core::report::Verdict::Holds));
}

/// docs/levels.md: RA names a violation `non-repeatable-read` when `t3` read one key from two
/// writers, whatever edges the cycle found has. Here T1 and T2 (one session) write key 1 in turn
/// and T3 reads it from T1, then from T2: the cycle is `T1 -so-> T2 -co-> T1` (one commit-order
/// step), which was named a fractured read while the report's `internal` finding called the same
/// reads a non-repeatable read. Reads of two different keys stay a fractured read.
#[test]
fn a_key_read_from_two_writers_is_a_non_repeatable_read_whatever_the_cycle() {
    let h = read(b"w(1,1,1,1)\nw(1,2,1,2)\nr(1,1,2,3)\nr(1,2,2,3)\n", Format::Auto).unwrap();
    let report = check(&h, &levels("RA,CC"));
    for l in [Level::Ra, Level::Cc] {
        let lr = report.levels.get(l).unwrap_or_else(|| panic!("{l:?} missing"));
        assert_eq!(lr.verdict, grail_core::report::Verdict::Violated, "{l:?}");
        assert!(lr.anomalies.iter().any(|a| a == "non-repeatable-read"), "{l:?}: {:?}", lr.anomalies);
        assert!(!lr.anomalies.iter().any(|a| a == "fractured-read"), "{l:?}: {:?}", lr.anomalies);
        for c in &lr.cycles {
            assert_eq!(c.anomaly, "non-repeatable-read", "{l:?}: {}", c.explanation);
        }
    }
    // T3 reads key 1 from T1 and key 2 from T2, which wrote both after T1: a fractured read.
    let h = read(b"w(1,1,1,1)\nw(1,2,1,2)\nw(2,2,1,2)\nr(1,1,2,3)\nr(2,2,2,3)\n", Format::Auto).unwrap();
    let report = check(&h, &levels("RA"));
    let lr = report.levels.get(Level::Ra).unwrap();
    assert_eq!(lr.verdict, grail_core::report::Verdict::Violated);
    assert_eq!(lr.anomalies, vec!["fractured-read".to_string()], "{:?}", lr.cycles);
}
