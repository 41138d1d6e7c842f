//! White-box orders (issue 18): histories with start and commit timestamps, or a commit order.
//!
//! Generated histories with the simulated clock's timestamps: valid ones pass; every injected
//! anomaly is found by the claims and explained with its timestamps; mixed mode gives the
//! black-box verdict without timestamps and the timestamps' verdict with all of them. Readers:
//! TimeKiller's JSON, native and EDN timestamps, errors with their place. The online checker.

mod common;

use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::online::timestamps::{TsLevel, TsOnlineChecker, TsOnlineOptions, TsTxn};
use grail_core::timestamps::WhiteBoxMode;
use grail_core::{CheckOptions, ErrorKind, Format, History, Level, Report};

const MODELS: [DataModel; 2] = [DataModel::ListAppend, DataModel::RwRegister];

fn history(o: &GenOptions) -> History {
    common::generated(o)
}

fn check(h: &History, mode: WhiteBoxMode, levels: &[Level]) -> Report {
    grail_core::check(
        h,
        &CheckOptions { levels: levels.to_vec(), white_box: mode, max_cycles: 64, ..Default::default() },
    )
}

fn verdicts(r: &Report) -> Vec<(String, String)> {
    r.levels.0.iter().map(|(l, lr)| (l.name().to_string(), lr.verdict.to_string())).collect()
}

fn timed(model: DataModel, isolation: Isolation, n: usize, seed: u64, output: Output) -> GenOptions {
    GenOptions { transactions: n, model, isolation, seed, output, timestamps: true, ..Default::default() }
}

#[test]
fn generated_histories_carry_their_clock_and_pass() {
    for model in MODELS {
        for output in [Output::Edn, Output::Native, Output::Timekiller] {
            for (isolation, n, seed) in [(Isolation::Serializable, 3000, 1), (Isolation::SnapshotIsolation, 3000, 2)] {
                let h = history(&timed(model, isolation, n, seed, output));
                let committed: Vec<_> = h.txns.iter().filter(|t| t.status == grail_core::Status::Committed).collect();
                assert!(committed.len() > n / 2);
                assert!(committed
                    .iter()
                    .all(|t| t.start_ts().is_some() && t.commit_ts().is_some() && t.start_ts() <= t.commit_ts()));
                let r = check(&h, WhiteBoxMode::Auto, &Level::ALL);
                let w = r.white_box.as_ref().expect("a white-box section");
                assert_eq!((w.si.as_str(), w.ser.as_str()), ("full", "full"), "{model:?} {output:?}");
                assert_eq!(w.timestamped, w.transactions);
                // SI holds under both, with its session variant (sessions start after their
                // previous transaction committed); SER by commit order under serializable.
                for l in ["SI", "strong-session-SI"] {
                    assert_eq!(
                        r.levels[l].verdict,
                        "holds",
                        "{model:?} {isolation:?} {output:?} {l}: {:?}",
                        w.findings.first()
                    );
                }
                let ser = if isolation == Isolation::Serializable { "holds" } else { "violated" };
                assert_eq!(r.levels["SER"].verdict, ser, "{model:?} {isolation:?} {output:?}");
                let kinds: Vec<&str> = w.findings.iter().map(|f| f.kind.as_str()).collect();
                match isolation {
                    Isolation::Serializable => assert!(kinds.is_empty(), "{kinds:?}"),
                    _ => assert!(kinds.iter().all(|k| *k == "commit-order-read"), "{kinds:?}"),
                }
                // The timestamps' verdict agrees with the black-box one on every level.
                let bb = check(&h, WhiteBoxMode::Ignore, &Level::ALL);
                assert_eq!(verdicts(&r), verdicts(&bb), "{model:?} {isolation:?} {output:?}");
            }
        }
    }
}

/// The kind of claim an injected anomaly breaks, with the timestamps the generator gives it.
fn breaks(inj: Injection, model: DataModel) -> &'static str {
    match inj {
        Injection::LostUpdate | Injection::VLostUpdate => "write-conflict",
        Injection::WriteSkew | Injection::TReadSkew => "commit-order-read",
        Injection::WriteCycle if model == DataModel::RwRegister => "claimed-order",
        _ => "snapshot-read",
    }
}

#[test]
fn every_injected_anomaly_is_found_and_explained_with_its_timestamps() {
    for model in MODELS {
        for inj in Injection::ALL {
            let count = 3;
            let o =
                GenOptions { inject: vec![(inj, count)], ..timed(model, Isolation::Serializable, 800, 7, Output::Edn) };
            let h = history(&o);
            let r = check(&h, WhiteBoxMode::Auto, &Level::CLASSIC);
            let w = r.white_box.as_ref().unwrap();
            let want = breaks(inj, model);
            let hits: Vec<_> = w.findings.iter().filter(|f| f.kind == want).collect();
            assert!(hits.len() >= count, "{model:?} {inj:?}: {} {want} of {count}: {:?}", hits.len(), w.findings);
            for f in &w.findings {
                // Only the injected transactions (on fresh keys, past 10^9) break a claim.
                let key = f.key.as_ref().and_then(|k| k.as_i64()).unwrap_or(0);
                assert!(
                    key >= 1_000_000_000,
                    "{model:?} {inj:?}: a regular transaction broke a claim: {}",
                    f.explanation
                );
                // Explained with the timestamps involved, which the finding carries.
                assert!(f
                    .txns
                    .iter()
                    .all(|t| t.start_ts.is_some() && t.commit_ts.is_some() || inj == Injection::AbortedRead));
                let ts = f.txns.iter().flat_map(|t| [&t.start_ts, &t.commit_ts]).flatten().map(|v| v.to_string());
                let named = ts.filter(|s| f.explanation.contains(s.as_str())).count();
                assert!(named >= 1, "{model:?} {inj:?}: no timestamp in {}", f.explanation);
                assert!(f.explanation.contains("start") || f.explanation.contains("commit"), "{}", f.explanation);
            }
            // The claims and the black box agree on every level, and so do the claims alone
            // (where they decide: SI, SER), but for a write-ahead log's order, which only the
            // black box and the contradiction pass read.
            let bb = check(&h, WhiteBoxMode::Ignore, &Level::CLASSIC);
            assert_eq!(verdicts(&r), verdicts(&bb), "{model:?} {inj:?}");
            let only = check(&h, WhiteBoxMode::Only, &[Level::Ser, Level::Si]);
            if inj == Injection::WriteCycle && model == DataModel::RwRegister {
                // No read shows the register write cycle: only the log's order, which the
                // claims alone do not read.
                assert_eq!(only.levels["SER"].verdict, "holds");
            } else {
                assert_eq!(only.levels["SI"].verdict, r.levels["SI"].verdict, "{model:?} {inj:?}");
                assert_eq!(only.levels["SER"].verdict, "violated", "{model:?} {inj:?}");
            }
        }
    }
}

#[test]
fn claims_alone_decide_si_and_ser_without_a_graph() {
    let h = history(&timed(DataModel::ListAppend, Isolation::SnapshotIsolation, 2000, 3, Output::Edn));
    let r = check(&h, WhiteBoxMode::Only, &Level::CLASSIC);
    assert_eq!(r.levels["SI"].verdict, "holds");
    assert_eq!(r.levels["SER"].verdict, "violated");
    // The claims do not decide PSI, but SI holding implies it (the lattice closure).
    assert_eq!(r.levels["PSI"].verdict, "holds");
    assert_eq!(r.levels["PSI"].implied_by, Some(Level::Si));
    let psi_only = check(&h, WhiteBoxMode::Only, &[Level::Psi]);
    assert_eq!(psi_only.levels["PSI"].verdict, "unknown");
    assert!(psi_only.levels["PSI"].reason.as_deref().unwrap().contains("white-box only"));
    assert_eq!(r.stats.edges, 0);
    // Without timestamps there is nothing to decide by.
    let plain = history(&GenOptions {
        timestamps: false,
        ..timed(DataModel::ListAppend, Isolation::Serializable, 200, 3, Output::Edn)
    });
    let r = check(&plain, WhiteBoxMode::Only, &[Level::Si]);
    assert_eq!(r.levels["SI"].verdict, "unknown");
}

/// Drop the timestamps of some transactions of a native history (every `keep`-th kept).
fn strip(text: &str, keep_every: usize) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    for (i, t) in v["transactions"].as_array_mut().unwrap().iter_mut().enumerate() {
        if keep_every == 0 || i % keep_every != 0 {
            let o = t.as_object_mut().unwrap();
            o.remove("start_ts");
            o.remove("commit_ts");
        }
    }
    v.to_string()
}

#[test]
fn mixed_mode_is_black_box_without_timestamps_and_the_claims_with_all() {
    for model in MODELS {
        for (isolation, inj) in [
            (Isolation::Serializable, None),
            (Isolation::SnapshotIsolation, None),
            (Isolation::Serializable, Some(Injection::LostUpdate)),
            (Isolation::Serializable, Some(Injection::WriteSkew)),
            (Isolation::Serializable, Some(Injection::LongFork)),
            (Isolation::SnapshotIsolation, Some(Injection::ReadSkew)),
        ] {
            let o = GenOptions {
                inject: inj.map(|i| vec![(i, 2)]).unwrap_or_default(),
                ..timed(model, isolation, 1500, 11, Output::Native)
            };
            let text = generate(&o).history;
            let read = |t: &str| grail_core::read(t.as_bytes(), Format::Auto).unwrap();
            let (all, none, half) = (read(&text), read(&strip(&text, 0)), read(&strip(&text, 2)));
            // No timestamps: exactly the black-box report.
            let r_none = check(&none, WhiteBoxMode::Auto, &Level::ALL);
            assert!(r_none.white_box.is_none());
            assert_eq!(r_none.to_json(), check(&none, WhiteBoxMode::Ignore, &Level::ALL).to_json());
            // All of them: the claims' verdict (the axioms') for SI and SER.
            let r_all = check(&all, WhiteBoxMode::Auto, &Level::CLASSIC);
            let only = check(&all, WhiteBoxMode::Only, &[Level::Ser, Level::Si]);
            for l in ["SER", "SI"] {
                assert_eq!(r_all.levels[l].verdict, only.levels[l].verdict, "{model:?} {isolation:?} {inj:?} {l}");
            }
            // Half of them: mixed mode, sound: never a violation the black box and the
            // complete claims both rule out.
            let r_half = check(&half, WhiteBoxMode::Auto, &Level::CLASSIC);
            let w = r_half.white_box.as_ref().unwrap();
            assert_eq!((w.si.as_str(), w.ser.as_str()), ("mixed", "mixed"));
            for l in ["SER", "SI", "PSI", "PL-2", "PL-1"] {
                if r_all.levels[l].verdict == "holds" {
                    assert_eq!(
                        r_half.levels[l].verdict, "holds",
                        "{model:?} {isolation:?} {inj:?} {l}: {:?}",
                        w.findings
                    );
                }
            }
        }
    }
}

#[test]
fn mixed_mode_finds_what_only_the_claims_show() {
    // Black-box valid: T1 reads x before T2 appends. The claims say T2 committed (at 2) before
    // T1 started (at 3): T1 should have seen T2's append. T3 carries no timestamps.
    let text = r#"{"transactions": [
        {"id": 1, "session": 1, "ops": [["r", "x", []]], "start_ts": 3, "commit_ts": 4},
        {"id": 2, "session": 2, "ops": [["append", "x", 1]], "start_ts": 1, "commit_ts": 2},
        {"id": 3, "session": 3, "ops": [["r", "x", [1]]]}
    ]}"#;
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    assert_eq!(check(&h, WhiteBoxMode::Ignore, &Level::CLASSIC).levels["SI"].verdict, "holds");
    let r = check(&h, WhiteBoxMode::Auto, &Level::CLASSIC);
    assert_eq!(r.white_box.as_ref().unwrap().si, "mixed");
    assert_eq!(r.levels["SI"].verdict, "violated");
    assert_eq!(r.levels["PSI"].verdict, "holds", "a claimed total order says nothing of PSI");
    // The cycle through the claimed edge, its claimed step marked.
    let c = r.levels["SI"].cycles.iter().find(|c| c.anomaly.ends_with("-claimed")).expect("a claimed cycle");
    assert_eq!(c.anomaly, "G-single-claimed");
    let claimed: Vec<_> = c.steps.iter().filter(|s| s.claimed == Some(true)).collect();
    assert_eq!(claimed.len(), 1);
    assert!(claimed[0].why.contains("committed at 2, at or before T1 started at 3"), "{}", claimed[0].why);
    assert!(c.steps.iter().filter(|s| s.claimed.is_none()).all(|s| s.ty == "rw"));
    // The contradicted dependency, explained with the timestamps.
    let f = r.anomalies.iter().find(|a| a.kind == "claimed-order").expect("a claimed-order finding");
    assert!(f.explanation.contains("T1 (start 3) did not see T2's write, which committed at 2"), "{}", f.explanation);
    // The JSON: `claimed` beside `certain`, only where set.
    let json = r.to_json();
    assert!(json.contains("\"claimed\": true"));
    assert!(!json.contains("\"claimed\": false"));
}

#[test]
fn a_claimed_commit_order_checks_ser() {
    // Write skew: SI holds, SER does not; the claimed order [1, 2] makes T2 read stale x.
    let text = r#"{"transactions": [
        {"id": 1, "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]},
        {"id": 2, "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}
    ], "version_order": {"x": [1], "y": [1]}, "commit_order": [1, 2]}"#;
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    assert_eq!(h.commit_order.as_deref(), Some(&[0u32, 1][..]));
    let r = check(&h, WhiteBoxMode::Auto, &Level::CLASSIC);
    let w = r.white_box.as_ref().unwrap();
    assert_eq!((w.si.as_str(), w.ser.as_str(), w.order.as_str()), ("none", "full", "commit_order"));
    assert_eq!(r.levels["SI"].verdict, "holds");
    assert_eq!(r.levels["SER"].verdict, "violated");
    let f = &w.findings[0];
    assert_eq!(f.kind, "commit-order-read");
    assert!(f.explanation.contains("T2 (position 1 of the commit order) read key x = nil"), "{}", f.explanation);
    assert!(f.explanation.contains("T1's 1 (position 0 of the commit order)"), "{}", f.explanation);
    // A serial order that fits: SER holds by the claims (the black box needs the polygraph's
    // search, which the claims make unnecessary).
    let ok = text.replace(
        "[[\"r\", \"x\", null], [\"r\", \"y\", null], [\"w\", \"y\", 1]]",
        "[[\"r\", \"x\", 1], [\"r\", \"y\", null], [\"w\", \"y\", 1]]",
    );
    let r =
        check(&grail_core::read(ok.as_bytes(), Format::Auto).unwrap(), WhiteBoxMode::Only, &[Level::Ser, Level::Si]);
    assert_eq!((r.levels["SER"].verdict.as_str(), r.levels["SI"].verdict.as_str()), ("holds", "holds"));
    // An order that lists an aborted transaction contradicts what the client saw.
    let aborted = text.replace("{\"id\": 2,", "{\"id\": 2, \"status\": \"aborted\",");
    let r = check(&grail_core::read(aborted.as_bytes(), Format::Auto).unwrap(), WhiteBoxMode::Auto, &Level::CLASSIC);
    assert!(r.anomalies.iter().any(|a| a.kind == "claimed-order" && a.explanation.contains("which aborted")));
}

#[test]
fn edn_carries_timestamps_and_a_commit_order() {
    let text = "{:type :ok, :process 0, :index 1, :value [[:append x 1]], :start-ts 1, :commit-ts 2}\n\
                {:type :ok, :process 1, :index 2, :value [[:r x []]], :start-ts [3 0], :commit-ts [3 5]}\n\
                {:commit-order [1 2]}\n";
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    assert_eq!(h.txns.len(), 2);
    assert_eq!(h.txns[1].commit_ts(), Some(grail_core::timestamps::Ts::new(3, 5)));
    assert_eq!(h.commit_order.as_deref(), Some(&[0u32, 1][..]));
    let r = check(&h, WhiteBoxMode::Auto, &Level::CLASSIC);
    assert_eq!(r.levels["SI"].verdict, "violated");
    let f = r.anomalies.iter().find(|a| a.kind == "snapshot-read").unwrap();
    assert!(f.explanation.contains("T2 (start 3) read key x = []"), "{}", f.explanation);
    assert!(f.explanation.contains("misses T1's append of 1 (commit 2)"), "{}", f.explanation);
}

fn err(text: &str) -> grail_core::Error {
    grail_core::read(text.as_bytes(), Format::Auto).expect_err("should not parse")
}

#[test]
fn bad_timestamps_are_errors_with_their_place() {
    let e = err("{:type :ok, :value [[:r x nil]]}\n{:type :ok, :value [[:r x nil]], :start-ts 5, :commit-ts 4}\n");
    assert_eq!((e.kind, e.line), (ErrorKind::Shape, Some(2)));
    assert!(e.message.contains(":start-ts (5) to be at most :commit-ts (4)"), "{}", e.message);
    let e = err("{:type :ok, :value [], :start-ts :soon}");
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Shape, Some(1), Some(34)));
    let e = err("{:type :ok, :index 1, :value []}\n{:commit-order [1 7]}");
    assert!(e.message.contains("lists 7, which is no transaction's id"), "{}", e.message);
    assert_eq!(e.line, Some(2));
    let e = err("{\"transactions\": [\n {\"id\": 1, \"ops\": []},\n {\"id\": 2, \"ops\": [], \"start_ts\": 3, \"commit_ts\": 1}]}");
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Shape, Some(3), Some(2)));
    assert!(e.message.contains("start_ts (3) to be at most commit_ts (1)"), "{}", e.message);
    let e = err("{\"transactions\": [{\"id\": 1, \"ops\": [], \"commit_ts\": \"later\"}]}");
    assert!(e.message.contains("\"commit_ts\""), "{}", e.message);
    let e = err("{\"transactions\": [{\"id\": 1, \"ops\": []}],\n \"commit_order\": [1, 1]}");
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("lists 1 twice"), "{}", e.message);
}

const TK_KV: &str = r#"[
    {"cts": {"l": 0, "p": "320316486"}, "ops": [{"k": 313, "t": "r", "v": 0}, {"k": 161, "t": "w", "v": 594}],
     "sid": 32, "sts": {"l": 0, "p": "320316484"}, "tid": 50},
    {"cts": {"l": 0, "p": "320316488"}, "ops": [{"k": 161, "t": "R", "v": 594}, {"k": 313, "t": "write", "v": 7}],
     "sid": 25, "sts": {"l": 0, "p": "320316487"}, "tid": 54}
]"#;

#[test]
fn timekiller_histories_are_read_as_timekiller_reads_them() {
    assert_eq!(grail_core::read::detect(TK_KV.as_bytes()), Format::TimeKiller);
    let h = grail_core::read(TK_KV.as_bytes(), Format::Auto).unwrap();
    assert_eq!(h.model, grail_core::history::Model::RwRegister);
    assert_eq!(h.txns.iter().map(|t| t.id).collect::<Vec<_>>(), [50, 54]);
    assert_eq!(h.txns[0].process(), Some(32));
    assert_eq!(h.txns[0].start_ts(), Some(grail_core::timestamps::Ts::int(320316484)));
    // Without --initial_value the read of 0 is a value nobody wrote, the key's only one and no
    // read saw null: 0 may be the key's initial value, or a thin-air read (issue 33): unknown,
    // with the reason and a note that names --initial-value 0 ...
    let r = check(&h, WhiteBoxMode::Auto, &Level::CLASSIC);
    assert_eq!(r.levels["SI"].verdict, "unknown");
    assert!(r.notes.iter().any(|n| n.contains("--initial-value 0")), "{:?}", r.notes);
    // ... and with --initial_value 0 it reads the initial version.
    let opts = grail_core::read::TimeKillerOptions { initial_value: Some(0), ..Default::default() };
    let h = grail_core::read::read_timekiller_with(TK_KV.as_bytes(), opts).unwrap();
    let r = check(&h, WhiteBoxMode::Auto, &Level::CLASSIC);
    assert_eq!((r.levels["SI"].verdict.as_str(), r.levels["SER"].verdict.as_str()), ("holds", "holds"));
    // List histories; string transaction ids become labels, ids positions; string sessions too.
    let list = r#"[{"tid": "a", "sid": "s1", "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 0}, "ops": [{"t": "a", "k": 3, "v": 1}]},
                   {"tid": "b", "sid": "s2", "sts": {"p": 3}, "cts": {"p": 4, "l": 0}, "ops": [{"t": "r", "k": 3, "v": [1]}, {"t": "r", "k": 4}]}]"#;
    let h = grail_core::read(list.as_bytes(), Format::Auto).unwrap();
    assert_eq!(h.model, grail_core::history::Model::ListAppend);
    assert_eq!(h.txns.iter().map(|t| t.id).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(h.label(1), Some("b"));
    assert_ne!(h.txns[0].process(), h.txns[1].process());
    assert_eq!(check(&h, WhiteBoxMode::Auto, &Level::CLASSIC).valid, Some(true));
    // Not TimeKiller: grail's native and elle-cli's JSON.
    assert_eq!(grail_core::read::detect(br#"[{"id": 1, "ops": [["r", 1, null]], "start_ts": 1}]"#), Format::Json);
    assert_eq!(grail_core::read::detect(br#"[{"type": "ok", "value": [], "sts": 1, "ops": []}]"#), Format::Json);
}

#[test]
fn timekiller_errors_name_the_transaction_and_its_place() {
    let tk = |s: &str| grail_core::read(s.as_bytes(), Format::TimeKiller).expect_err("should not parse");
    let e =
        tk("[\n {\"tid\": 1, \"sid\": 1, \"sts\": {\"p\": 5, \"l\": 0}, \"cts\": {\"p\": 4, \"l\": 0}, \"ops\": []}]");
    assert_eq!((e.line, e.column), (Some(2), Some(2)));
    assert!(
        e.message.contains("transaction 0 (0-based): the start timestamp 5 is after the commit timestamp 4"),
        "{}",
        e.message
    );
    let e = tk("[{\"tid\": 1, \"sid\": 1, \"cts\": {\"p\": 4, \"l\": 0}, \"ops\": []}]");
    assert!(e.message.contains("expected \"sts\""), "{}", e.message);
    let e = tk("[{\"tid\": 1, \"sid\": 1, \"sts\": {\"p\": 1}, \"cts\": {\"p\": 4}, \"ops\": [{\"t\": \"x\", \"k\": 1, \"v\": 1}]}]");
    assert!(e.message.contains("unknown operation type \"x\""), "{}", e.message);
    assert_eq!((e.line, e.column), (Some(1), Some(73)));
    let e = tk("[{\"tid\": 1, \"sid\": 1, \"sts\": {\"p\": 1}, \"cts\": {\"p\": 4}, \"ops\": [{\"t\": \"w\", \"k\": \"key\", \"v\": 1}]}]");
    assert!(e.message.contains("(long) integer"), "{}", e.message);
    let e = tk("[{\"tid\": 1, \"sid\": 1, \"sts\": {\"p\": 1}, \"cts\": {\"p\": 4}, \"ops\": [{\"t\": \"w\", \"k\": 1, \"v\": 1}, {\"t\": \"a\", \"k\": 2, \"v\": 1}]}]");
    assert_eq!(e.kind, ErrorKind::MixedModel);
    let e = tk("[{\"tid\": 1,\n \"sts\": ");
    assert_eq!((e.kind, e.line), (ErrorKind::Syntax, Some(2)));
    let e = tk("{\"tid\": 1}");
    assert!(e.message.contains("a JSON array of transactions"), "{}", e.message);
}

#[test]
fn generated_timekiller_output_reads_back_with_the_same_verdicts() {
    for model in MODELS {
        let o = GenOptions {
            inject: vec![(Injection::LostUpdate, 2)],
            ..timed(model, Isolation::SnapshotIsolation, 1000, 5, Output::Edn)
        };
        let edn = history(&o);
        let tk = history(&GenOptions { output: Output::Timekiller, ..o.clone() });
        assert_eq!(
            grail_core::read::detect(generate(&GenOptions { output: Output::Timekiller, ..o }).history.as_bytes()),
            Format::TimeKiller
        );
        let (a, b) = (
            check(&edn, WhiteBoxMode::Only, &[Level::Si, Level::Ser]),
            check(&tk, WhiteBoxMode::Only, &[Level::Si, Level::Ser]),
        );
        assert_eq!(verdicts(&a), verdicts(&b), "{model:?}");
        assert_eq!(a.white_box.as_ref().unwrap().counts, b.white_box.as_ref().unwrap().counts, "{model:?}");
    }
}

fn online(
    h: &History,
    order: &[usize],
    opts: TsOnlineOptions,
) -> (Vec<grail_core::online::timestamps::TsViolation>, TsOnlineChecker) {
    let txns: Vec<TsTxn> = (0..h.txns.len() as u32).filter_map(|t| TsTxn::from_history(h, t)).collect();
    let mut c = TsOnlineChecker::new(opts);
    let mut out = Vec::new();
    for &i in order.iter().filter(|&&i| i < txns.len()) {
        out.extend(c.push(&txns[i]));
        assert!(c.stats().live <= c.options().window);
    }
    out.extend(c.finish());
    (out, c)
}

#[test]
fn online_with_timestamps_finds_what_the_offline_axioms_find() {
    for model in MODELS {
        let o = GenOptions {
            inject: vec![(Injection::LostUpdate, 3), (Injection::ReadSkew, 3), (Injection::WriteSkew, 3)],
            ..timed(model, Isolation::SnapshotIsolation, 4000, 9, Output::Edn)
        };
        let h = history(&o);
        let offline = check(&h, WhiteBoxMode::Only, &[Level::Si, Level::Ser]);
        let counts = &offline.white_box.as_ref().unwrap().counts;
        let n = h.txns.len();
        let in_order: Vec<usize> = (0..n).collect();
        for level in [TsLevel::Si, TsLevel::Ser] {
            let (vs, c) = online(&h, &in_order, TsOnlineOptions { window: 300, level, session: true });
            let count = |k: &str| vs.iter().filter(|v| v.kind == k).count();
            let off = |k: &str| counts.get(k).copied().unwrap_or(0);
            match level {
                TsLevel::Si => {
                    assert_eq!(count("snapshot-read"), off("snapshot-read"), "{model:?}");
                    assert_eq!(count("write-conflict"), off("write-conflict"), "{model:?}");
                    assert_eq!(count("write-conflict"), 3);
                }
                TsLevel::Ser => assert_eq!(count("commit-order-read"), off("commit-order-read"), "{model:?}"),
            }
            assert_eq!(c.stats().late, 0);
            assert!(c.stats().peak_live <= 301);
        }
        // Out of order (each block of 50 reversed): the same verdicts, through rechecks.
        let shuffled: Vec<usize> =
            (0..n).collect::<Vec<_>>().chunks(50).flat_map(|c| c.iter().rev().copied()).collect();
        let (vs, c) = online(&h, &shuffled, TsOnlineOptions { window: 300, ..Default::default() });
        assert!(c.stats().rechecks > 0 && c.stats().flips > 0, "{:?}", c.stats());
        assert_eq!(
            vs.iter().filter(|v| v.kind == "snapshot-read").count(),
            counts.get("snapshot-read").copied().unwrap_or(0)
        );
        // A window too small for the disorder: late arrivals are counted, not misjudged.
        let (_, c) = online(&h, &shuffled, TsOnlineOptions { window: 10, ..Default::default() });
        assert!(c.stats().late > 0);
    }
}

#[test]
fn online_transactions_from_json_in_both_forms() {
    let native: serde_json::Value = serde_json::from_str(
        r#"{"id": 4, "session": 1, "start_ts": 3, "commit_ts": {"p": 5, "l": 1}, "ops": [["w", "x", 1], ["r", "y", null]]}"#,
    )
    .unwrap();
    let t = TsTxn::from_json(&native, 0).unwrap();
    assert_eq!((t.id, t.commit_ts), (4, grail_core::timestamps::Ts::new(5, 1)));
    let tk: serde_json::Value =
        serde_json::from_str(r#"{"tid": "9", "sid": 2, "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 0}, "ops": [{"t": "a", "k": 1, "v": 2}]}"#)
            .unwrap();
    assert_eq!(TsTxn::from_json(&tk, 0).unwrap().id, 9);
    let bad: serde_json::Value =
        serde_json::from_str(r#"{"id": 1, "start_ts": 4, "commit_ts": 3, "ops": []}"#).unwrap();
    assert!(TsTxn::from_json(&bad, 0).unwrap_err().message.contains("at most commit_ts"));
    // A stale read and a session out of order, reported when final.
    let mut c = TsOnlineChecker::new(TsOnlineOptions { window: 2, ..Default::default() });
    let j = |s: &str| TsTxn::from_json(&serde_json::from_str(s).unwrap(), 0).unwrap();
    assert!(c.push(&j(r#"{"id": 1, "session": 1, "start_ts": 1, "commit_ts": 2, "ops": [["w", "x", 1]]}"#)).is_empty());
    let v = c.push(&j(r#"{"id": 2, "session": 1, "start_ts": 1, "commit_ts": 4, "ops": [["r", "x", null]]}"#));
    assert_eq!(v.iter().map(|v| v.kind.as_str()).collect::<Vec<_>>(), ["session-order"]);
    let v = c.push(&j(r#"{"id": 3, "session": 2, "start_ts": 5, "commit_ts": 6, "ops": [["r", "x", null]]}"#));
    assert!(v.is_empty(), "T1 leaves the window, T2's read was right at its start");
    let v = c.finish();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].kind, "snapshot-read");
    assert!(v[0].explanation.contains("T3 (start 5) read key x = nil"), "{}", v[0].explanation);
}

/// A stale list read's message counts the elements before the expected ones as they were when
/// it was judged: transactions evicted after that (the expected ones' writers) do not add to
/// the count (it said "end with [1 2] after 3 earlier elements" of a key with 3 appends).
#[test]
fn a_stale_list_read_counts_the_earlier_elements_it_was_judged_with() {
    let mut c = TsOnlineChecker::new(TsOnlineOptions { window: 2, ..Default::default() });
    let j = |s: &str| TsTxn::from_json(&serde_json::from_str(s).unwrap(), 0).unwrap();
    let mut v = Vec::new();
    v.extend(c.push(&j(r#"{"id": 0, "session": 0, "start_ts": 1, "commit_ts": 1, "ops": [["append", "x", 0]]}"#)));
    v.extend(c.push(&j(r#"{"id": 1, "session": 1, "start_ts": 2, "commit_ts": 2, "ops": [["append", "x", 1]]}"#)));
    v.extend(c.push(&j(r#"{"id": 2, "session": 2, "start_ts": 3, "commit_ts": 3, "ops": [["append", "x", 2]]}"#)));
    v.extend(c.push(&j(r#"{"id": 3, "session": 3, "start_ts": 4, "commit_ts": 4, "ops": [["r", "x", [0, 1]]]}"#)));
    v.extend(c.finish());
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].kind, "snapshot-read");
    assert!(
        v[0].explanation.ends_with("end with [1 2] after 1 earlier element"),
        "T0 alone had left the window when T3 was judged: {}",
        v[0].explanation
    );
}

/// The summary counts what the checker takes: committed transactions.
#[test]
fn the_summary_says_its_transactions_are_the_committed_ones() {
    let mut c = TsOnlineChecker::new(TsOnlineOptions { window: 2, ..Default::default() });
    let t = TsTxn::from_json(
        &serde_json::from_str(r#"{"id": 1, "start_ts": 1, "commit_ts": 2, "ops": [["w", "x", 1]]}"#).unwrap(),
        0,
    )
    .unwrap();
    let _ = c.push(&t);
    let _ = c.finish();
    let text = grail_core::online::timestamps::render_stats(&c.stats());
    assert!(text.starts_with("1 committed transaction, 0 reads checked") && text.contains(" 0 violations;"), "{text}");
}
