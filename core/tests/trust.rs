//! Issue 33: what a report says is true, not only its verdicts. Over the conformance cases, the
//! corpus and generated histories (both models, with and without a version order): every
//! `implied_by` names a level with the same verdict, every note that says a level was decided
//! belongs to a decided level, every unknown level carries its reason, and every transaction a
//! polygraph step names as a writer of a key wrote that key. Then the edges the issue found:
//! empty captures, lost updates that need no budget, thin-air reads.

mod common;

use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::graph::orders::Order;
use grail_core::graph::search::Budget;
use grail_core::polygraph::{self, Decision, Mode};
use grail_core::{CheckOptions, Format, History, Level, Report};
use std::path::Path;

/// Every claim of the report's text that can be checked against the history.
fn claims_hold(what: &str, h: &History, r: &Report) {
    for (l, lr) in &r.levels.0 {
        if let Some(by) = lr.implied_by {
            let other = r.levels.get(by).unwrap_or_else(|| panic!("{what}: {l:?} implied by unchecked {by:?}"));
            assert_eq!(
                other.verdict,
                lr.verdict,
                "{what}: {} {} as {} {}",
                l.name(),
                lr.verdict,
                by.name(),
                other.verdict
            );
        }
        assert_eq!(lr.valid.is_none(), lr.reason.is_some(), "{what}: {} unknown without its reason", l.name());
    }
    certain_cycles_decide(what, r);
    for n in &r.notes {
        for (l, lr) in &r.levels.0 {
            let decided = n.starts_with(&format!("{} was decided ", l.name()))
                || n.contains(&format!(" {} decided exactly", l.name()))
                || n.contains(&format!(": {} decided exactly", l.name()))
                || (n.contains("decided exactly") && n.contains(&format!(", {},", l.name())) && !n.contains("unknown"));
            if decided {
                assert!(lr.valid.is_some(), "{what}: note says {} was decided, table says unknown: {n}", l.name());
            }
        }
    }
    // "one of the two orders of Ta's and Tb's writes of key k": both wrote k.
    let writes_key = |id: &str, key: &serde_json::Value| {
        let id: u64 = id.trim_start_matches('T').parse().unwrap();
        let t = h.txns.iter().position(|t| t.id == id).unwrap();
        let txn = &h.txns[t];
        (txn.ops_start..txn.ops_end).any(|o| {
            let op = h.ops[o as usize];
            op.kind() != grail_core::history::OpKind::Read && h.value_json(h.key(op.key)) == *key
        })
    };
    for a in &r.anomalies {
        for s in a.cycle.iter().flat_map(|c| &c.steps) {
            let Some(i) = s.why.find("one of the two orders of ") else { continue };
            let rest = &s.why[i + "one of the two orders of ".len()..];
            let mut names = rest.split("'s").take(2).map(|x| x.trim_start_matches(" and ").trim());
            let (Some(x), Some(y)) = (names.next(), names.next()) else { continue };
            if !x.starts_with('T') || !rest.contains("writes of key") {
                continue;
            }
            for t in [x, y] {
                assert!(writes_key(t, &s.key), "{what}: {t} named as a writer of key {} in: {}", s.key, s.why);
            }
        }
    }
    // An anomaly lists the levels it shows violated: none the table leaves unknown.
    for a in &r.anomalies {
        for l in &a.levels {
            let unknown = r.levels.get(*l).is_some_and(|lr| lr.verdict == "unknown");
            assert!(!unknown, "{what}: {} lists {}, which the table leaves unknown", a.kind, l.name());
        }
    }
    every_named_transaction_is_given(what, r);
}

/// No level that forbids lost updates is left unknown beside a cycle the report shows for a
/// dependency level whose every step is certain (not chosen from a version order, not claimed,
/// not assumed) and an edge of that level's graph too (`so` only with session order, `rt` only
/// with real-time order), of an anomaly that level forbids: that cycle violates it. (PL-2 and
/// PL-1 are left out: a compacted polygraph's certain `ww` steps assume no lost update.)
fn certain_cycles_decide(what: &str, r: &Report) {
    use grail_core::graph::EdgeType;
    let unknown = r.levels.0.iter().filter(|(l, lr)| {
        lr.valid.is_none() && l.spec().weak.is_none() && l.proscribes(grail_core::anomaly::AnomalyKind::GSingle)
    });
    for (l, _) in unknown {
        let order = l.spec().order;
        for (v, vr) in r.levels.0.iter().filter(|(v, vr)| vr.valid == Some(false) && v.spec().weak.is_none()) {
            for c in &vr.cycles {
                let certain =
                    c.steps.iter().all(|s| s.certain != Some(false) && s.claimed != Some(true) && s.assumed.is_none());
                let fits = c.steps.iter().all(|s| match s.ty {
                    EdgeType::So => order == Order::Session,
                    EdgeType::Rt => order == Order::Realtime,
                    EdgeType::Co => false,
                    _ => true,
                });
                let types: Vec<EdgeType> = c.steps.iter().map(|s| s.ty).collect();
                let kind = polygraph::name::anomaly_of(&types);
                assert!(
                    !(certain && fits && !types.is_empty() && l.proscribes(kind)),
                    "{what}: {} unknown beside {}'s {} cycle of certain edges:\n{}",
                    l.name(),
                    v.name(),
                    c.anomaly,
                    c.explanation
                );
            }
        }
    }
}

/// Every transaction a cycle's explanation names is given under "Let:", and every one given
/// there is named again (in a step, or in the text after it): none missing, none unrelated.
fn every_named_transaction_is_given(what: &str, r: &Report) {
    let cycles =
        r.anomalies.iter().filter_map(|a| a.cycle.as_ref()).chain(r.levels.0.iter().flat_map(|(_, lr)| &lr.cycles));
    for c in cycles {
        let Some((given, then)) = c.explanation.split_once("\nThen:\n") else { continue };
        let names = |text: &str| -> std::collections::BTreeSet<String> {
            let b = text.as_bytes();
            (0..b.len())
                .filter(|&i| b[i] == b'T' && (i == 0 || !b[i - 1].is_ascii_alphanumeric()))
                .filter_map(|i| {
                    let n: String = text[i + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
                    let after = text[i + 1 + n.len()..].chars().next();
                    (!n.is_empty() && !after.is_some_and(|c| c.is_ascii_alphanumeric())).then(|| format!("T{n}"))
                })
                .collect()
        };
        let bound: std::collections::BTreeSet<String> = given
            .lines()
            .filter_map(|l| l.trim_start().split_once(" = ").map(|(n, _)| n.to_string()))
            .filter(|n| n.starts_with('T'))
            .collect();
        let named = names(then);
        assert!(
            named.is_subset(&bound),
            "{what}: named but not given: {:?}\n{}",
            named.difference(&bound).collect::<Vec<_>>(),
            c.explanation
        );
        assert!(
            bound.is_subset(&named),
            "{what}: given but never named: {:?}\n{}",
            bound.difference(&named).collect::<Vec<_>>(),
            c.explanation
        );
    }
}

fn check_all(h: &History) -> Report {
    grail_core::check(h, &CheckOptions { levels: Level::ALL.to_vec(), ..CheckOptions::default() })
}

/// Every level holds, but the two with real-time order, unknown: a history of completions alone
/// records no invocation.
fn holds_but_realtime(r: &Report) {
    for (l, lr) in &r.levels.0 {
        let want = if matches!(l, Level::StrictSer | Level::StrongSi) { "unknown" } else { "holds" };
        assert_eq!(lr.verdict, want, "{}: {:?}", l.name(), lr.reason);
    }
}

#[test]
fn the_text_of_every_conformance_report_is_true() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases");
    let mut n = 0;
    for dir in std::fs::read_dir(&root).unwrap().map(|d| d.unwrap().path()).filter(|d| d.is_dir()) {
        for f in std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().path()) {
            let name = f.to_string_lossy().to_string();
            if !(name.ends_with(".edn") || name.ends_with(".json")) || name.ends_with(".expected.json") {
                continue;
            }
            let mut h = grail_core::read(&std::fs::read(&f).unwrap(), Format::Auto).unwrap();
            let wal = f.with_extension("log");
            if wal.exists() {
                grail_core::read_wal(&mut h, &std::fs::read(&wal).unwrap()).unwrap();
            }
            claims_hold(&name, &h, &grail_core::check(&h, &CheckOptions::default()));
            claims_hold(&name, &h, &check_all(&h));
            n += 1;
        }
    }
    assert!(n > 30, "{n} cases");
}

#[test]
fn the_text_of_generated_reports_is_true() {
    for model in [DataModel::ListAppend, DataModel::RwRegister] {
        for (seed, inject) in [
            (1, vec![]),
            (2, vec![(Injection::LostUpdate, 2), (Injection::WriteSkew, 2)]),
            (3, vec![(Injection::AbortedRead, 1), (Injection::LongFork, 1), (Injection::ReadSkew, 1)]),
        ] {
            for output in [Output::Edn, Output::Polysi] {
                let o = GenOptions {
                    transactions: 300,
                    keys: 8,
                    model,
                    isolation: Isolation::SnapshotIsolation,
                    inject: inject.clone(),
                    seed,
                    output,
                    ..Default::default()
                };
                let g = generate(&o);
                // Without the write-ahead log: registers are decided on the polygraph.
                let h = grail_core::read(g.history.as_bytes(), Format::Auto).unwrap();
                let what = format!("{model:?} {output:?} seed {seed}");
                claims_hold(&what, &h, &check_all(&h));
                if let Some(wal) = &g.wal {
                    let mut h = h.clone();
                    grail_core::read_wal(&mut h, wal.as_bytes()).unwrap();
                    claims_hold(&format!("{what} with its log"), &h, &check_all(&h));
                }
            }
        }
    }
}

/// Point 3: weakly isolated register histories without a version order give counterexamples
/// whose chosen RW steps name the two writers of the key (they named the reader).
#[test]
fn a_chosen_step_names_the_writers_whose_order_it_chose() {
    let mut named = 0;
    for seed in 1..6 {
        let o = GenOptions {
            transactions: 200,
            sessions: 6,
            keys: 3,
            model: DataModel::RwRegister,
            isolation: Isolation::ReadCommitted,
            seed,
            output: Output::Polysi,
            ..Default::default()
        };
        let h = grail_core::read(generate(&o).history.as_bytes(), Format::Auto).unwrap();
        let r = check_all(&h);
        named += r
            .anomalies
            .iter()
            .flat_map(|a| a.cycle.iter().flat_map(|c| &c.steps))
            .filter(|s| s.why.contains("(wr), and ") && s.why.contains("one of the two orders of "))
            .count();
        claims_hold(&format!("read committed, seed {seed}"), &h, &r);
    }
    assert!(named > 0, "no chosen RW step met: the test tests nothing");
}

#[test]
fn the_text_of_corpus_reports_is_true() {
    let Some(corpus) = common::corpus() else { return };
    let mut n = 0;
    for set in ["grail/tiny-list", "grail/tiny-register", "elle"] {
        for f in std::fs::read_dir(corpus.join(set)).unwrap().map(|f| f.unwrap().path()) {
            if f.extension().is_none_or(|e| e != "edn") {
                continue;
            }
            let wal = f.with_extension("log");
            let h = common::load(&f, wal.exists().then_some(wal.as_path()));
            claims_hold(&f.display().to_string(), &h, &check_all(&h));
            if wal.exists() {
                // And without the log: decided on the polygraph.
                let h = common::load(&f, None);
                claims_hold(&format!("{} without its log", f.display()), &h, &check_all(&h));
            }
            n += 1;
        }
    }
    // The peers' histories (AWDIT's, Plume text, at its three levels) and some of GRAIL's List
    // sets, at every level.
    for f in std::fs::read_dir(corpus.join("peers/awdit/plume")).unwrap().map(|f| f.unwrap().path()) {
        if f.to_string_lossy().contains("-2000.") {
            let h = common::load(&f, None);
            claims_hold(&f.display().to_string(), &h, &check_all(&h));
            n += 1;
        }
    }
    let list = corpus.join("grail/list/list-collection-time");
    let mut files: Vec<_> = std::fs::read_dir(&list).unwrap().map(|f| f.unwrap().path()).collect();
    files.sort();
    for f in files.iter().take(4) {
        let h = common::load(f, None);
        claims_hold(&f.display().to_string(), &h, &check_all(&h));
        n += 1;
    }
    assert!(n > 25, "{n} corpus histories");
}

/// Point 2: `ldbc-g1a.edn` (the demo's gallery): G1a violates PL-2 and up; PL-1 holds, but not
/// "as SI holds".
#[test]
fn an_implied_verdict_names_a_level_with_the_same_verdict() {
    let text = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../web-demo/examples/ldbc-g1a.edn")).unwrap();
    let h = grail_core::read(&text, Format::Auto).unwrap();
    let r = check_all(&h);
    assert_eq!(r.levels["SI"].verdict, "violated");
    assert_eq!(r.levels["PL-1"].verdict, "holds");
    assert_ne!(r.levels["PL-1"].implied_by, Some(Level::Si));
    claims_hold("ldbc-g1a", &h, &r);
}

/// Point 1: nothing committed, nothing holds.
#[test]
fn an_empty_or_non_transactional_capture_is_unknown() {
    let register = "{:type :invoke, :f :write, :value 1, :process 0}\n{:type :ok, :f :write, :value 1, :process 0}\n";
    let failed =
        "{:type :invoke, :value [[:append x 1]], :process 0}\n{:type :fail, :value [[:append x 1]], :process 0}\n";
    for text in ["", "   \n", register, failed] {
        let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
        let r = check_all(&h);
        assert_eq!(r.valid, None, "{text:?}");
        for (l, lr) in &r.levels.0 {
            assert_eq!(lr.verdict, "unknown", "{text:?} {}", l.name());
            assert!(lr.reason.as_deref().unwrap_or("").contains("no committed transaction"), "{text:?}");
        }
        assert!(r.strongest_satisfied.is_empty());
        let table = grail_core::render::text::render(&r);
        assert!(table.contains("unknown: strict-SER, "), "{table}");
        assert!(!table.contains("strongest satisfied"), "{table}");
    }
}

/// Point 4: the text table gives an unknown level's reason.
#[test]
fn the_table_gives_the_reason_of_an_unknown_level() {
    let h = grail_core::read(
        b"{:type :ok, :value [[:r x [1]] [:append x 1]]}\n{:type :ok, :value [[:append x 1]]}\n",
        Format::Auto,
    )
    .unwrap();
    let r = grail_core::check(&h, &CheckOptions { max_steps: Some(0), ..CheckOptions::default() });
    for (l, lr) in r.levels.0.iter().filter(|(_, lr)| lr.valid.is_none()) {
        let table = grail_core::render::text::render(&r);
        let why = lr.reason.as_deref().unwrap();
        assert!(
            table.lines().any(|line| line.starts_with("unknown: ") && line.contains(l.name()) && line.ends_with(why)),
            "{table}"
        );
    }
}

/// Point 5, registers: two transactions that read one version of a key and both wrote it are a
/// lost update under every version order, found even when the history's constraints are over
/// the memory budget, and SER's two-RW cycle is named a lost update.
#[test]
fn a_register_lost_update_is_found_over_the_budget() {
    // Key x: T1 wrote 1; T2 and T3 both read 1 and wrote x. Keys y0..y5: eight blind writers
    // each, 28 constraints a key, so that the history's constraints are far over a budget of 40.
    let mut txns = vec![
        r#"{"id": 1, "session": 1, "ops": [["w", "x", 1]]}"#.to_string(),
        r#"{"id": 2, "session": 2, "ops": [["r", "x", 1], ["w", "x", 2]]}"#.to_string(),
        r#"{"id": 3, "session": 3, "ops": [["r", "x", 1], ["w", "x", 3]]}"#.to_string(),
    ];
    for k in 0..6 {
        for w in 0..8 {
            txns.push(format!(r#"{{"id": {}, "session": {}, "ops": [["w", "y{k}", {w}]]}}"#, 10 + k * 8 + w, 4 + w));
        }
    }
    let text = format!("{{\"transactions\": [{}]}}", txns.join(",\n"));
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    let inf = grail_core::infer(&h);
    for mode in [Mode::Si, Mode::Ser, Mode::Psi] {
        let pg = polygraph::build_for(&h, &inf, Order::None, mode, 40);
        assert!(pg.pairs > 40 && (pg.cons.len() as u64) < pg.pairs, "{} {}", pg.pairs, pg.cons.len());
        let (v, _) = polygraph::decide(&pg, mode, &mut Budget::unlimited());
        let Decision::Violated(cx) = v else { panic!("{mode:?}: {v:?}") };
        let level = match mode {
            Mode::Si => Level::Si,
            Mode::Ser => Level::Ser,
            _ => Level::Psi,
        };
        let (kind, order, covered) = polygraph::name::of_counterexample(&cx, level);
        let anomaly = format!("{}{}", kind.name(), order.suffix());
        // SER's compacted polygraph closes the lost update as two rw steps (each forced by a
        // G1c its other order closes): G2-item, as before; SI and PSI's as one rw and one ww.
        let expected = if mode == Mode::Ser { "G2-item" } else { "G-single" };
        assert!(covered, "{mode:?}: every choice on the cycles has its reason");
        assert_eq!(anomaly, expected, "{mode:?} {cx:?}");
        let r = grail_core::explain::poly_cycle_report(&h, &inf.index, &pg, &cx, &anomaly, covered);
        assert_eq!(r.name, "lost update", "{mode:?}: {}", r.explanation);
        let mut ids = r.txns.clone();
        ids.sort();
        assert_eq!(ids, vec![2, 3], "{mode:?}: {}", r.explanation);
    }
    let r = check_all(&h);
    assert_eq!(r.levels["SI"].verdict, "violated");
    claims_hold("register lost update", &h, &r);
}

/// Point 5, list append: both read x = [] and appended; no read orders the appends.
#[test]
fn unobserved_appends_that_both_read_one_version_are_a_lost_update() {
    let text = "{:index 0, :type :ok, :process 0, :value [[:r x []] [:append x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r x []] [:append x 2]]}\n";
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    let r = check_all(&h);
    for l in ["SI", "PSI", "SER", "strong-session-SI", "strong-SI"] {
        assert_eq!(r.levels[l].verdict, "violated", "{l}");
    }
    assert_eq!(r.levels["PL-2"].verdict, "holds");
    let c = &r.levels["SI"].cycles[0];
    assert_eq!((c.anomaly.as_str(), c.name.as_str()), ("G-single", "lost update"));
    assert_eq!(c.steps[0].certain, Some(false), "the order of the appends is chosen");
    assert_eq!(c.steps[1].certain, Some(true));
    assert!(c.explanation.contains("does not help"), "{}", c.explanation);
    assert!(!r.notes.iter().any(|n| n.starts_with("lattice:")), "{:?}", r.notes);
    // A read that observes the order leaves one G-single, the usual way.
    let observed = format!("{text}{{:index 2, :type :ok, :process 2, :value [[:r x [1 2]]]}}\n");
    let h = grail_core::read(observed.as_bytes(), Format::Auto).unwrap();
    let r = check_all(&h);
    assert_eq!(r.levels["SI"].verdict, "violated");
    assert!(r.levels["SI"].cycles.iter().all(|c| c.steps.iter().all(|s| s.certain.is_none())));
    // Appends one after the other (the second read the first): no lost update.
    let serial = "{:index 0, :type :ok, :process 0, :value [[:r x []] [:append x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r x [1]] [:append x 2]]}\n";
    let h = grail_core::read(serial.as_bytes(), Format::Auto).unwrap();
    holds_but_realtime(&check_all(&h));
}

/// Point 6: a thin-air read violates every level but PL-1; where the history leaves the initial
/// value open (TimeKiller without --initial_value) and the key has one such value, the levels
/// are unknown and a note suggests --initial-value.
#[test]
fn thin_air_reads_violate_all_but_pl1_unless_they_may_be_the_initial_value() {
    let h = grail_core::read(
        br#"{"transactions": [{"id": 1, "session": 1, "ops": [["w", "x", 1]]}, {"id": 2, "session": 2, "ops": [["r", "x", 5], ["r", "x", 6]]}]}"#,
        Format::Auto,
    )
    .unwrap();
    let r = check_all(&h);
    for (l, lr) in &r.levels.0 {
        let want = if *l == Level::Pl1 { "holds" } else { "violated" };
        assert_eq!(lr.verdict, want, "{}", l.name());
    }
    claims_hold("thin-air", &h, &r);

    // TimeKiller's key-value form: every key read 0, which nobody wrote.
    let ts = |p: u32| format!(r#"{{"p": {p}, "l": 0}}"#);
    let tk = format!(
        r#"[{{"tid": 1, "sid": 1, "sts": {}, "cts": {}, "ops": [{{"t": "r", "k": 1, "v": 0}}, {{"t": "w", "k": 1, "v": 5}}]}},
{{"tid": 2, "sid": 2, "sts": {}, "cts": {}, "ops": [{{"t": "r", "k": 2, "v": 0}}, {{"t": "r", "k": 1, "v": 5}}]}}]"#,
        ts(1),
        ts(2),
        ts(3),
        ts(4)
    );
    let h = grail_core::read::read_timekiller(tk.as_bytes()).unwrap();
    assert!(h.initial_open);
    // The dependency graph's verdict (the claimed timestamps, checked against TimeKiller's own
    // default initial value, null, call the reads of 0 stale: another question).
    let black_box = CheckOptions {
        levels: Level::ALL.to_vec(),
        white_box: grail_core::timestamps::WhiteBoxMode::Ignore,
        ..CheckOptions::default()
    };
    let r = grail_core::check(&h, &black_box);
    assert_eq!(r.levels["PL-1"].verdict, "holds");
    assert_eq!(r.levels["SER"].verdict, "unknown", "{:?}", r.levels["SER"]);
    assert!(r.levels["SER"].reason.as_deref().unwrap().contains("initial value"));
    assert!(r.notes.iter().any(|n| n.contains("--initial-value 0")), "{:?}", r.notes);
    assert!(r.broken_assumptions.is_empty());
    claims_hold("timekiller", &h, &r);
    // With the claimed timestamps, which read those values as the initial version: still unknown,
    // not violated by a snapshot read of 0 nor held by the claims.
    let r = check_all(&h);
    assert_eq!(r.levels["SER"].verdict, "unknown", "{:?}", r.levels["SER"]);
    assert_eq!(r.levels["SI"].verdict, "unknown", "{:?}", r.levels["SI"]);
    claims_hold("timekiller, white box", &h, &r);
    // Given the initial value, the reads are of the initial version.
    let h = grail_core::read::read_timekiller_with(
        tk.as_bytes(),
        grail_core::read::TimeKillerOptions { initial_value: Some(0), spans: false },
    )
    .unwrap();
    // TimeKiller records no client times (its timestamps are the database's claims): the levels
    // with real-time order are unknown, every other one holds.
    for r in [grail_core::check(&h, &black_box), check_all(&h)] {
        for (l, lr) in &r.levels.0 {
            let want = if l.spec().order == grail_core::level::Order::Realtime { "unknown" } else { "holds" };
            assert_eq!(lr.verdict.as_str(), want, "{}: {:?}", l.name(), lr.reason);
        }
    }
}

/// Point 5, list append, beyond pairs: a write skew (SI allows it) whose two transactions also
/// appended to x unobserved. Each order of the appends closes a G-single with one of the RW
/// edges: the polygraph of the unobserved appends finds it; when one order closes nothing, SI
/// holds.
#[test]
fn every_order_of_unobserved_appends_is_decided() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases/G-single/unobserved-appends-write-skew.edn");
    let h = grail_core::read(&std::fs::read(case).unwrap(), Format::Auto).unwrap();
    let r = check_all(&h);
    assert_eq!(r.levels["SI"].verdict, "violated");
    let c = &r.levels["SI"].cycles[0];
    assert_eq!(c.anomaly, "G-single");
    assert!(c.steps.iter().any(|s| s.certain == Some(false) && s.ty == grail_core::EdgeType::Ww));
    assert!(
        c.explanation.contains("Every order of the appends no read observed closes a forbidden cycle"),
        "{}",
        c.explanation
    );
    assert!(r.notes.iter().any(|n| n.starts_with("SI was decided over every order of the appends")), "{:?}", r.notes);
    claims_hold("unobserved appends, write skew", &h, &r);
    // Elle's ordering (grail elle, GRAIL's strategies): the write skew alone, which SI allows.
    let elle = CheckOptions { observed_order_only: true, ..CheckOptions::default() };
    assert_eq!(grail_core::check(&h, &elle).levels["SI"].verdict, "holds");
    // One order closes nothing (T1 never read what T0 wrote): SI holds.
    let one = "{:index 0, :type :ok, :process 0, :value [[:r y []] [:append x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:append y 1] [:append x 2]]}\n";
    let h = grail_core::read(one.as_bytes(), Format::Auto).unwrap();
    holds_but_realtime(&check_all(&h));
}

/// Point 5, list append, with session and real-time order: strong-SI and strong-session-SI
/// search the open orders with their own edges; a budget that runs out leaves the SI family
/// unknown, never "holds" by implication (review of this change).
#[test]
fn open_append_orders_are_searched_with_order_edges_and_never_held_by_a_budget() {
    // T4 -rw(z)-> T2, T5 -rw(y)-> T4, T2 -rt-> T5: SI holds (x ordered 2 then 1 closes only a
    // cycle through real-time order), strong-SI does not (either order closes one).
    let text = "{:index 0, :type :invoke, :process 0, :value [[:r z nil] [:append y 1] [:append x 1]]}
{:index 1, :type :invoke, :process 2, :value [[:append z 1]]}
{:index 2, :type :ok, :process 2, :value [[:append z 1]]}
{:index 3, :type :invoke, :process 1, :value [[:r y nil] [:append x 2]]}
{:index 4, :type :ok, :process 0, :value [[:r z []] [:append y 1] [:append x 1]]}
{:index 5, :type :ok, :process 1, :value [[:r y []] [:append x 2]]}
";
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    let r = check_all(&h);
    assert_eq!(r.levels["SI"].verdict, "holds");
    assert_eq!(r.levels["strong-SI"].verdict, "violated");
    claims_hold("strong-SI over open orders", &h, &r);
    // Three transactions in a ring of rw edges, each appending to x unobserved: SI is violated
    // under every order; with a budget of 20 steps it is unknown, and so are PSI and
    // strong-session-SI.
    let ring = "{:index 0, :type :ok, :process 0, :value [[:r y1 []] [:append y0 1] [:append x 0]]}
{:index 1, :type :ok, :process 1, :value [[:r y2 []] [:append y1 1] [:append x 1]]}
{:index 2, :type :ok, :process 2, :value [[:r y0 []] [:append y2 1] [:append x 2]]}
";
    let h = grail_core::read(ring.as_bytes(), Format::Auto).unwrap();
    let levels = vec![Level::StrongSessionSi, Level::Si, Level::Psi];
    let r = grail_core::check(&h, &CheckOptions { levels: levels.clone(), ..CheckOptions::default() });
    assert_eq!(r.levels["SI"].verdict, "violated");
    let r = grail_core::check(&h, &CheckOptions { levels, max_steps: Some(20), ..CheckOptions::default() });
    for l in ["SI", "PSI", "strong-session-SI"] {
        assert_ne!(r.levels[l].verdict, "holds", "{l}: {:?}", r.levels[l]);
    }
    claims_hold("ring with a budget", &h, &r);
}

/// A claimed commit order (`crate::timestamps`) through an empty transaction names no reader:
/// no other transaction is given under "Let:" for it (the first one was, by mistake).
#[test]
fn a_claimed_commit_order_gives_no_unrelated_transaction() {
    let text = "{:index 0, :type :ok, :process 9, :value [[:w :z 5]]}\n{:index 1, :type :ok, :process 1, :value [[:w :x 1]]}\n{:index 3, :type :ok, :process 3, :value []}\n{:index 2, :type :ok, :process 2, :value [[:r :x nil]]}\n{:commit-order [1 3 2]}\n";
    let h = grail_core::read(text.as_bytes(), Format::Edn).unwrap();
    let r = check_all(&h);
    let cycles: Vec<_> = r.levels.0.iter().flat_map(|(_, lr)| &lr.cycles).collect();
    assert!(
        cycles.iter().any(|c| c.steps.iter().any(|s| s.claimed == Some(true))),
        "a cycle through the claimed order"
    );
    for c in cycles {
        assert!(!c.explanation.contains("T0 ="), "{}", c.explanation);
    }
    claims_hold("claimed commit order", &h, &r);
}

/// A history without transactions gets no note that it "records no process for any
/// transaction" (true of none, and read as a fact about the history's transactions).
#[test]
fn an_empty_history_has_no_note_on_its_processes() {
    let h = grail_core::read(
        b"{:type :invoke, :f :read, :value nil, :process 0}\n{:type :ok, :f :read, :value 3, :process 0}\n",
        grail_core::Format::Edn,
    )
    .unwrap();
    let r = grail_core::check(
        &h,
        &grail_core::CheckOptions { levels: grail_core::Level::ALL.to_vec(), ..Default::default() },
    );
    assert!(r.notes.iter().all(|n| !n.contains("records no process")), "{:?}", r.notes);
}

/// A generated history read without its write-ahead log: a register history is decided on the
/// polygraph.
fn without_log(o: &GenOptions) -> History {
    grail_core::read(generate(o).history.as_bytes(), Format::Auto).unwrap()
}

/// The audit of 2026-11-29, point 1: AWDIT's read-committed-2000 under `--max-steps 100000`
/// showed SI violated by a G-single of three certain edges (one rw from a read of the initial
/// value, two wr) and PSI `unknown` (its polygraph search cut short), though PSI forbids
/// G-single: the report proved a violation it did not report. PSI is now violated by that cycle,
/// and says it is SI's; PL-2 and PL-1, which allow it, are not.
#[test]
fn a_cycle_of_certain_edges_violates_every_level_that_forbids_it() {
    let Some(corpus) = common::corpus() else { return };
    let h = common::load(&corpus.join("peers/awdit/plume/read-committed-2000.txt.gz"), None);
    let r = grail_core::check(&h, &CheckOptions { max_steps: Some(100_000), ..CheckOptions::default() });
    let (si, psi) = (&r.levels["SI"], &r.levels["PSI"]);
    assert_eq!(si.verdict, "violated");
    assert!(si.cycles[0].steps.iter().all(|s| s.certain == Some(true)), "{}", si.cycles[0].explanation);
    assert_eq!(psi.verdict, "violated", "{:?}", psi.reason);
    assert_eq!(psi.cycle_from, Some(Level::Si));
    assert_eq!(psi.implied_by, None);
    assert_eq!(psi.anomalies, vec!["G-single".to_string()]);
    assert_eq!(psi.cycles, si.cycles[..1].to_vec());
    for l in ["PL-2", "PL-1"] {
        assert_ne!(r.levels[l].verdict, "violated", "{l}");
    }
    assert_eq!(r.weakest_violated, vec![Level::Psi]);
    let table = grail_core::render::text::render(&r);
    assert!(table.contains("PSI    violated  G-single (by SI's cycle, of certain edges only)\n"), "{table}");
    claims_hold("read-committed-2000 at 100000 steps", &h, &r);
}

/// The same over every budget, on generated register histories without a version order whose
/// isolation lets SI and PSI break: a cycle of certain edges one level found decides every
/// undecided level that forbids it, whatever the point at which the budget ran out.
#[test]
fn no_budget_leaves_a_level_unknown_beside_a_cycle_of_certain_edges_it_forbids() {
    let mut carried = 0;
    for (seed, isolation) in [(1, Isolation::Causal), (2, Isolation::ReadCommitted), (3, Isolation::ReadCommitted)] {
        let h = without_log(&GenOptions {
            transactions: 150,
            model: DataModel::RwRegister,
            isolation,
            seed,
            ..GenOptions::default()
        });
        let mut steps = 1u64;
        while steps < 2_000_000 {
            let opts = CheckOptions { max_steps: Some(steps), levels: Level::ALL.to_vec(), ..CheckOptions::default() };
            let r = grail_core::check(&h, &opts);
            claims_hold(&format!("{isolation:?} seed {seed} at {steps} steps"), &h, &r);
            carried += r.levels.0.iter().filter(|(_, lr)| lr.cycle_from.is_some()).count();
            steps = steps * 3 / 2 + 1;
        }
    }
    assert!(carried > 0, "no level was decided by another's cycle: the test tests nothing");
}

/// The audit of 2026-11-29, point 3: docs/polygraph.md says that without a version order PL-1
/// always holds and PL-2 holds exactly when the known WR edges have no cycle, which needs no
/// search; yet a step budget the other levels spent left both `unknown`. They are decided by a
/// topological sort of the known edges, which spends no budget.
#[test]
fn pl2_and_pl1_without_a_version_order_need_no_budget() {
    let h = without_log(&GenOptions {
        transactions: 300,
        model: DataModel::RwRegister,
        isolation: Isolation::SnapshotIsolation,
        seed: 4,
        ..GenOptions::default()
    });
    assert!(h.version_order.is_none());
    for levels in [Vec::new(), vec![Level::Pl2, Level::Pl1]] {
        for steps in [0, 50] {
            let r = grail_core::check(
                &h,
                &CheckOptions { max_steps: Some(steps), levels: levels.clone(), ..CheckOptions::default() },
            );
            for l in ["PL-2", "PL-1"] {
                assert_eq!(r.levels[l].verdict, "holds", "{l} at {steps} steps: {:?}", r.levels[l].reason);
            }
            assert!(r.notes.iter().any(|n| n.starts_with("PL-2 was decided without a search")), "{:?}", r.notes);
            claims_hold("generated register history", &h, &r);
        }
    }
    // A cycle of reads (G1c) violates PL-2 at no budget; PL-1 holds.
    let text = br#"{"transactions": [
  {"id": 1, "session": 1, "ops": [["r", "y", 2], ["w", "x", 1]]},
  {"id": 2, "session": 2, "ops": [["r", "x", 1], ["w", "y", 2]]}
]}"#;
    let h = grail_core::read(text, Format::Auto).unwrap();
    let r = grail_core::check(&h, &CheckOptions { max_steps: Some(0), ..CheckOptions::default() });
    assert_eq!(r.levels["PL-2"].verdict, "violated", "{:?}", r.levels["PL-2"].reason);
    assert_eq!(r.levels["PL-2"].anomalies, vec!["G1c".to_string()]);
    assert_eq!(r.levels["PL-1"].verdict, "holds");
    claims_hold("a cycle of reads", &h, &r);
}

/// A polygraph's note on a level with real-time order says how much of that order it had: none
/// of a history that records no place in it (it said "real-time order included", true only of
/// an empty set of edges), all of one whose every transaction has its invocation and completion.
#[test]
fn a_polygraph_note_says_what_real_time_order_it_had() {
    let notes = |text: &str, format: Format| {
        let h = grail_core::read(text.as_bytes(), format).unwrap();
        let r = check_all(&h);
        r.notes.into_iter().filter(|n| n.starts_with("strict-SER")).collect::<Vec<_>>()
    };
    let plume = notes("w(1,1,0,1)\nw(2,1,0,1)\nr(1,1,1,2)\nr(2,1,1,2)\n", Format::Plume);
    assert_eq!(plume.len(), 1, "{plume:?}");
    assert!(
        plume[0]
            .contains("with the real-time order the history records, which leaves out all 2 committed transactions"),
        "{}",
        plume[0]
    );
    let edn = notes(
        "{:index 0, :type :invoke, :process 0, :value [[:w x 1]]}\n{:index 1, :type :ok, :process 0, :value [[:w x 1]]}\n{:index 2, :type :invoke, :process 1, :value [[:r x nil]]}\n{:index 3, :type :ok, :process 1, :value [[:r x 1]]}\n",
        Format::Edn,
    );
    assert_eq!(edn.len(), 1, "{edn:?}");
    assert!(edn[0].contains(", real-time order included:"), "{}", edn[0]);
}

/// A polygraph's counterexample through a chosen version order whose cycles cover both orders
/// of the writes it chose (two lost updates: either order closes a cycle) proves its anomaly,
/// so it lists every level that forbids it, PSI too when PSI was not checked.
#[test]
fn a_counterexample_covering_its_choices_lists_every_level_it_violates() {
    let h = grail_core::read(b"r(1,0,1,1)\nw(1,1,1,1)\nr(1,0,2,2)\nw(1,2,2,2)\n", Format::Plume).unwrap();
    let r = grail_core::check(&h, &CheckOptions { levels: vec![Level::Si], ..CheckOptions::default() });
    let a: Vec<_> = r.anomalies.iter().filter(|a| a.kind == "G-single").collect();
    assert_eq!(a.len(), 1, "{:?}", r.anomalies);
    let steps = &a[0].cycle.as_ref().unwrap().steps;
    assert!(steps.iter().any(|s| s.certain == Some(false)), "a step of a chosen order: {steps:?}");
    for l in [Level::Si, Level::Psi, Level::Ser, Level::StrictSer] {
        assert!(a[0].levels.contains(&l), "{}: {:?}", l.name(), a[0].levels);
    }
}
