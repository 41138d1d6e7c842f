//! The online checker reads its records with the offline readers: it accepts and refuses the
//! same records, with the same message, line and column, and a stream fed record by record
//! gives the same transactions, ids included, and so the same cycles, as the stream read whole.

use grail_core::generate::{generate, GenOptions, Injection, Isolation, Output};
use grail_core::online::cycles::{OnlineChecker, OnlineOptions, OnlineTxn};
use grail_core::{ErrorKind, Format};

/// Malformed records, JSON and EDN: syntax, shape and mixed-model errors, one line and several,
/// with characters beyond ASCII before the error (columns count characters).
const MALFORMED: &[&str] = &[
    // JSON
    r#"{"ops": [["append", "x", 1]]"#,
    r#"{"ops": [["append", "x", 1],]}"#,
    r#"{"label": "café", "ops": [["append", "x", 1] ["r", "x", [1]]]}"#,
    "{\n  \"ops\": [\n    [\"append\", \"x\", 1],\n    [\"r\", \"x\", [1]\n  ]\n}",
    r#"{"ops": [["append", "x"]]}"#,
    r#"{"ops": [["append", "x", null]]}"#,
    r#"{"ops": [["append", null, 1]]}"#,
    r#"{"ops": [["frob", "x", 1]]}"#,
    r#"{"ops": [["append", "x", 1.5]]}"#,
    r#"{"ops": [["r", "x", [1, null]]]}"#,
    r#"{"ops": [["r", "x", [1, {}]]]}"#,
    r#"{"ops": "x"}"#,
    r#"{"id": -1, "ops": []}"#,
    r#"{"id": "a", "ops": []}"#,
    r#"{"status": "maybe", "ops": []}"#,
    r#"{"label": 3, "ops": []}"#,
    r#"{"session": "s", "ops": []}"#,
    r#"{"ops": [["append", "x", 1], ["r", "y", 5]]}"#,
    "{\"ops\": [[\"r\", \"y\", 5]]}\n{\"ops\": [[\"append\", \"x\", 1]]}",
    r#"[{"ops": []}, {"ops": []}, 3]"#,
    r#"[{"id": 1, "ops": []}, {"id": 1, "ops": []}]"#,
    "{\"ops\": []}\n{\"ops\": [",
    r#"{"type": "okay", "value": []}"#,
    r#"{"type": "ok", "value": [["append", 1]]}"#,
    r#"{"id": 3}"#,
    r#"{"transactions": 3}"#,
    r#""x""#,
    "42",
    r#"[{"ops": []}] [1]"#,
    // EDN
    "{:type :ok, :value [[:append :x 1]]",
    "{:type :ok, :value [[:append :x 1]]}}",
    "{:type :ok, :value [[:append :x]]}",
    "{:type :ok, :value [[:frob :x 1]]}",
    "{:type :ok, :value [[:append :x nil]]}",
    "{:type :ok, :value [[:r :x [1 nil]]]}",
    "{:type :ok, :value 3}",
    "{:value [[:append :x 1]]}",
    "{:type :maybe, :value []}",
    "{:type :ok, :index -3, :value []}",
    "{:type :ok, :value [[:append :x 1] [:r :y 5]]}",
    "{:type :ok, :value [[:append \"é\" 1]] :process}",
    "{:type :ok,\n :value [[:append :x 1]\n          [:r :x [1 2}",
    "{:type :ok, :value [[:append :x \"unclosed]]}",
    "{:type :ok, :value [[:append :x 99999999999999999999]]}",
    "[{:type :ok, :value []}",
    "{:type :ok, :index 1, :value []}\n{:type :ok, :index 1, :value []}",
];

/// Records both read without complaint, and the online checker takes.
const GOOD: &[&str] = &[
    r#"{"id": 7, "label": "pay", "ops": [["append", "x", 1], ["r", "y", null], ["r", 3, [1, "a"]]]}"#,
    r#"{"ops": []}"#,
    r#"{"status": "aborted", "ops": [["append", "x", 2]]}"#,
    r#"{"status": "info"}"#,
    r#"[{"ops": [["append", "x", 1]]}, {"ops": [["r", "x", [1]]]}]"#,
    r#"{"transactions": [{"id": 4, "ops": [["r", "x", [1]]]}]}"#,
    "{\"ops\": [[\"append\", \"x\", 1]]}\n{\"ops\": [[\"r\", \"x\", [1]]]}",
    r#"{"type": "ok", "process": 3, "index": 9, "value": [["append", 1, 2], ["r", 1, [2]]]}"#,
    r#"{"type": "invoke", "process": 3, "value": [["append", 1, 2]]}"#,
    r#"{"type": "info", "process": "nemesis", "value": "partition"}"#,
    "{:type :ok, :f :txn, :value [[:append :x 1] [:r :x [1]]], :index 5}",
    "{:type :ok, :value [[:r \"é\" nil]]}",
    "{:type :invoke, :process 1, :value [[:append :x 1]]}",
    "{:type :info, :process :nemesis, :f :start}",
    "[{:type :ok, :value []} {:type :fail, :value [[:append :y 3]]}]",
];

#[test]
fn the_online_checker_refuses_the_records_the_offline_reader_refuses_with_the_same_error() {
    for text in MALFORMED {
        let offline = grail_core::read(text.as_bytes(), Format::Auto).expect_err(text);
        let online = OnlineTxn::read(text.as_bytes(), Format::Auto, 0).expect_err(text);
        assert_eq!(online, offline, "{text}");
        // The same through the checker, after other records; it takes nothing of a refused one.
        let mut c = OnlineChecker::new(OnlineOptions::default());
        c.push_text(br#"{"ops": [["append", "q", 1]]}"#, Format::Json).unwrap();
        let before = c.stats();
        let e = c.push_text(text.as_bytes(), Format::Auto).expect_err(text);
        assert_eq!(
            (e.kind, &e.message, e.line, e.column),
            (offline.kind, &offline.message, offline.line, offline.column)
        );
        assert_eq!(c.stats(), before, "{text}");
    }
}

#[test]
fn the_online_checker_accepts_the_records_the_offline_reader_accepts() {
    for text in GOOD {
        let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap_or_else(|e| panic!("{text}: {e}"));
        let txns = OnlineTxn::read(text.as_bytes(), Format::Auto, 0).unwrap_or_else(|e| panic!("{text}: {e}"));
        // The same transactions, but for an invocation without its completion (which comes later).
        let want: Vec<OnlineTxn> = (0..h.txns.len() as u32)
            .filter(|&t| h.txns[t as usize].invoke_pos().is_none() || h.txns[t as usize].complete_pos().is_some())
            .map(|t| OnlineTxn::from_history(&h, t))
            .collect();
        assert_eq!(txns, want, "{text}");
        OnlineChecker::new(OnlineOptions::default()).push_text(text.as_bytes(), Format::Auto).unwrap();
    }
}

#[test]
fn register_records_are_read_and_a_stream_keeps_to_one_model() {
    for (text, list) in [
        (r#"{"ops": [["w", "x", 1]]}"#, r#"{"ops": [["append", "x", 1]]}"#),
        (r#"{"ops": [["r", "x", 5]]}"#, r#"{"ops": [["r", "x", [5]]]}"#),
        ("{:type :ok, :value [[:w :x 1]]}", "{:type :ok, :value [[:append :x 1]]}"),
        ("{:type :ok, :value [[:r :x 1]]}", "{:type :ok, :value [[:r :x [1]]]}"),
    ] {
        let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
        let txns = OnlineTxn::read(text.as_bytes(), Format::Auto, 0).unwrap();
        assert_eq!(txns, vec![OnlineTxn::from_history(&h, 0)], "{text}");
        // Registers after a list: refused, naming the transaction, whichever comes first.
        for (first, second) in [(list, text), (text, list)] {
            let mut c = OnlineChecker::new(OnlineOptions::default());
            c.push_text(first.as_bytes(), Format::Auto).unwrap();
            let e = c.push_text(second.as_bytes(), Format::Auto).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Shape, "{second}: {e}");
            assert!(e.to_string().contains("one data model"), "{e}");
        }
    }
    let e = OnlineTxn::read(b"r(x,1,0,1)", Format::Plume, 0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Usage);
}

/// Feed `lines` to one checker record by record and the history read whole to another: the
/// same transactions (ids included), cycles and summary.
fn same_as_whole(text: &str, what: &str) -> usize {
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    let opts = OnlineOptions { window: 300, max_length: 5, ..Default::default() };
    let (mut by_record, mut whole) = (OnlineChecker::new(opts.clone()), OnlineChecker::new(opts));
    let whole_txns: Vec<OnlineTxn> = (0..h.txns.len() as u32)
        .filter(|&t| !h.txns[t as usize].awaits_completion())
        .map(|t| OnlineTxn::from_history(&h, t))
        .collect();
    let mut record_txns = Vec::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    // Each process's invocation waiting for its completion, as a stream keeps it (its time is
    // the completion's transaction's invocation time).
    let mut pending = Default::default();
    for (i, line) in text.lines().enumerate() {
        let txns = OnlineTxn::read_with(line.as_bytes(), Format::Auto, i as u64, &mut pending).unwrap();
        record_txns.extend(txns.iter().cloned());
        // The checker numbers records by the transactions it took; here one a line, but for
        // invocations, so the ids are given by `read` above with the line number.
        for t in &txns {
            a.extend(by_record.push(t));
        }
    }
    assert_eq!(record_txns, whole_txns, "{what}");
    for t in &whole_txns {
        b.extend(whole.push(t));
    }
    assert_eq!(a, b, "{what}");
    assert_eq!(by_record.summary(), whole.summary(), "{what}");
    a.len()
}

#[test]
fn a_stream_read_record_by_record_is_the_stream_read_whole() {
    let gen = |output, seed| {
        generate(&GenOptions {
            transactions: 3000,
            keys: 10,
            isolation: Isolation::SnapshotIsolation,
            inject: vec![(Injection::LostUpdate, 10), (Injection::WriteSkew, 10)],
            seed,
            output,
            ..Default::default()
        })
        .history
    };
    // Jepsen EDN: invocations and completions, one a line.
    let cycles = same_as_whole(&gen(Output::Edn, 11), "edn");
    assert!(cycles > 0);
    // grail's native JSON, one transaction a line; every third without an id, which then is its
    // line number both ways (the others' ids moved out of the way).
    let doc: serde_json::Value = serde_json::from_str(&gen(Output::Native, 12)).unwrap();
    let lines: Vec<String> = doc["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut t = t.clone();
            let id = t["id"].as_u64().unwrap();
            let obj = t.as_object_mut().unwrap();
            if i % 3 == 0 {
                obj.remove("id");
            } else {
                obj.insert("id".into(), (1_000_000 + id).into());
            }
            t.to_string()
        })
        .collect();
    assert!(same_as_whole(&lines.join("\n"), "native json") > 0);
    // Through push_text, ids default to the arrival number: the line number, one a line.
    let mut c = OnlineChecker::new(OnlineOptions::default());
    let mut closers = Vec::new();
    for line in &lines {
        closers.extend(c.push_text(line.as_bytes(), Format::Json).unwrap().iter().map(|a| a.closed_by));
    }
    let h = grail_core::read(lines.join("\n").as_bytes(), Format::Json).unwrap();
    let ids: std::collections::BTreeSet<u64> = h.txns.iter().map(|t| t.id).collect();
    assert!(closers.iter().all(|id| ids.contains(id)));
}

/// A claimed version or commit order orders the whole history, and the online checker does not
/// read one: it is refused at its place, never left out. Left out, a G0 only a native
/// document's version order shows was `holds` online at every level, and a read the claimed
/// commit order puts after its writer (`commit-order-read`) left SER `holds`.
#[test]
fn a_claimed_version_or_commit_order_in_a_stream_is_refused_not_ignored() {
    use grail_core::online::stream::LineStream;
    let cases: [(&str, &str, u32); 3] = [
        (
            "{\"transactions\":[{\"id\":1,\"ops\":[[\"w\",\"x\",1],[\"w\",\"y\",1]]},{\"id\":2,\"ops\":[[\"w\",\"x\",2],[\"w\",\"y\",2]]}],\"version_order\":{\"x\":[1,2],\"y\":[2,1]}}\n",
            "claimed version order",
            1,
        ),
        (
            "{:type :ok, :process 0, :value [[:w x 1]]}\n{:type :ok, :process 1, :value [[:r x nil]]}\n{:commit-order [0 1]}\n",
            "claimed commit order",
            3,
        ),
        (
            "{\"transactions\":[{\"id\":1,\"ops\":[[\"w\",\"x\",1]]},{\"id\":2,\"ops\":[[\"r\",\"x\",null]]}],\"commit_order\":[1,2]}\n",
            "claimed commit order",
            1,
        ),
    ];
    for (text, what, line) in cases {
        // The offline check finds what the claim shows.
        let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
        let offline = grail_core::check(&h, &grail_core::CheckOptions::default());
        assert_eq!(offline.levels.get(grail_core::Level::Ser).unwrap().verdict.as_str(), "violated", "{text}");
        let e = OnlineTxn::read(text.as_bytes(), Format::Auto, 0).unwrap_err();
        assert!(e.to_string().contains(what), "{text}: {e}");
        assert_eq!(e.kind, ErrorKind::Usage);
        // A stream fed line by line stops at that line, with its number.
        let mut s = LineStream::new(OnlineChecker::new(OnlineOptions::default()), Format::Auto);
        let err = s.feed(text.as_bytes(), &mut |_| {}).err().unwrap_or_else(|| panic!("{text}: taken"));
        assert_eq!(err.line, Some(line), "{text}: {err}");
    }
}
