//! The sub-history the HTML report offers with each counterexample of the conformance cases,
//! checked alone: offered as minimal (or as reproducing), it must violate a level the
//! counterexample violates, with the same anomaly through the same transactions.

use grail_core::export::edn::sub_history_events;
use grail_core::export::reproduce::reproducing_sub_history;
use grail_core::render::html::{report_html, HtmlOptions};
use grail_core::{CheckOptions, Format, History, Level};
use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap().map(|d| d.unwrap().path()).filter(|d| d.is_dir()) {
        for f in std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().path()) {
            let name = f.to_string_lossy().to_string();
            if (name.ends_with(".edn") || name.ends_with(".json")) && !name.ends_with(".expected.json") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// A case's history and the levels its expected file names.
fn load(case: &Path) -> (History, Vec<Level>) {
    let stem = case.with_extension("");
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(stem.with_extension("expected.json")).unwrap()).unwrap();
    let mut h = grail_core::read(&std::fs::read(case).unwrap(), Format::Auto).unwrap();
    let wal = stem.with_extension("log");
    if wal.exists() {
        grail_core::read_wal(&mut h, &std::fs::read(&wal).unwrap()).unwrap();
    }
    let levels = expected["levels"].as_object().unwrap().keys().map(|l| Level::parse(l).unwrap()).collect();
    (h, levels)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// Whether `text` (EDN, or the JSON of a JSON input), checked at `levels`, violates one of them
/// with `anomaly` through `txns`.
fn reproduces(text: &str, levels: &[Level], anomaly: &str, txns: &[u64]) -> bool {
    reproduces_in(text, Format::Auto, levels, anomaly, txns)
}

fn reproduces_in(edn: &str, format: Format, levels: &[Level], anomaly: &str, txns: &[u64]) -> bool {
    reproduces_with(edn, format, None, levels, anomaly, txns)
}

/// As [`reproduces_in`], the text checked with a write-ahead log when one is given.
fn reproduces_with(
    edn: &str,
    format: Format,
    wal: Option<&[u8]>,
    levels: &[Level],
    anomaly: &str,
    txns: &[u64],
) -> bool {
    let mut h = grail_core::read(edn.as_bytes(), format).unwrap_or_else(|e| panic!("{e}\n{edn}"));
    if let Some(w) = wal {
        grail_core::read_wal(&mut h, w).unwrap();
    }
    let r = grail_core::check(&h, &CheckOptions { levels: levels.to_vec(), ..CheckOptions::default() });
    let mut want = txns.to_vec();
    want.sort();
    levels.iter().any(|&l| {
        let lr = r.levels.get(l).unwrap();
        lr.valid == Some(false)
            && lr.anomalies.iter().any(|a| a == anomaly)
            && lr.cycles.iter().chain(r.anomalies.iter().filter_map(|a| a.cycle.as_ref())).any(|c| {
                let mut got = c.txns.clone();
                got.sort();
                c.anomaly == anomaly && got == want
            })
    })
}

#[test]
fn every_sub_history_offered_reproduces_its_counterexample() {
    let (mut offered, mut total) = (0, 0);
    for case in cases() {
        let (h, levels) = load(&case);
        let r = grail_core::check(&h, &CheckOptions { levels: levels.clone(), ..CheckOptions::default() });
        let html = report_html(&r, &h, &[], &HtmlOptions::default());
        for section in html.split("<section class=\"counterexample\"").skip(1) {
            total += 1;
            let head = &section[section.find("<h3>").unwrap() + 4..section.find("</h3>").unwrap()];
            let anomaly = unescape(head.split(": ").next().unwrap());
            let violates = &section[section.find("<p>Violates ").unwrap() + 12..];
            let levels: Vec<Level> =
                violates[..violates.find(';').unwrap()].split(", ").map(|l| Level::parse(l).unwrap()).collect();
            let c = r
                .levels
                .0
                .iter()
                .flat_map(|(_, lr)| &lr.cycles)
                .chain(r.anomalies.iter().filter_map(|a| a.cycle.as_ref()))
                .find(|c| c.anomaly == anomaly && section.contains(&format!("T{} &rarr;", c.txns[0])))
                .unwrap();
            let pre = &section[section.find("<pre class=\"subhistory\">").unwrap() + 24..];
            let sub = unescape(&pre[..pre.find("</pre>").unwrap()]);
            let title = &section[..section.find("<pre class=\"subhistory\">").unwrap()];
            let claims = title.contains("Minimal sub-history") || title.contains("shows this cycle again");
            // A register history with a write-ahead log: the sub-history is checked with the log
            // (the text does not carry it), and the page says so.
            let log = std::fs::read(case.with_extension("log")).ok();
            assert_eq!(title.contains("write-ahead log"), log.is_some(), "{}: {title}", case.display());
            let ok = reproduces_with(&sub, Format::Auto, log.as_deref(), &levels, &anomaly, &c.txns);
            assert_eq!(
                claims,
                ok,
                "{}: {anomaly} {:?}: offered {claims}, reproduces {ok}\n{sub}",
                case.display(),
                c.txns
            );
            offered += claims as usize;
            // The builder's own answer agrees with the page.
            let b = reproducing_sub_history(&h, c, &levels, &CheckOptions::default(), 64);
            assert_eq!((b.reproduces, b.with_log), (ok, log.is_some()), "{}", case.display());
            let body = |e: &str| e.lines().filter(|l| !l.starts_with(';')).collect::<Vec<_>>().join("\n");
            assert_eq!(body(&b.text), body(&sub), "{}", case.display());
        }
    }
    assert!(total >= 20, "only {total} counterexamples");
    assert_eq!(offered, total, "counterexamples whose sub-history reproduces them");
}

#[test]
fn a_lost_update_keeps_its_reader_when_needed() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases/G-single/lost-update.edn");
    let (h, levels) = load(&case);
    let r = grail_core::check(&h, &CheckOptions { levels: levels.clone(), ..CheckOptions::default() });
    let c = r.levels.get(Level::Ser).unwrap().cycles.iter().find(|c| c.anomaly == "G-single").unwrap();
    let b = reproducing_sub_history(&h, c, &[Level::Ser], &CheckOptions::default(), 64);
    assert!(b.reproduces && b.minimal, "{}", b.text);
    assert!(reproduces(&b.text, &[Level::Ser], "G-single", &c.txns));
    // The cycle's transactions alone: the reader that orders x is kept exactly when they do
    // not show the G-single themselves.
    let ts: Vec<u32> = c.txns.iter().map(|&id| h.txns.iter().position(|t| t.id == id).unwrap() as u32).collect();
    let alone = reproduces(&sub_history_events(&h, &ts, None), &[Level::Ser], "G-single", &c.txns);
    assert_eq!(b.transactions.len(), c.txns.len() + usize::from(!alone), "{}", b.text);
}

/// A Plume text history: its sub-history is Plume text (lines of the input, in its order), which
/// Plume's loader reads to a history with the same cycle; its explanation is in Plume's notation.
#[test]
fn a_plume_history_gives_a_plume_sub_history() {
    let text = "w(1,1,0,0)\nw(2,1,0,0)\nr(1,1,1,1)\nr(2,1,2,2)\nw(2,2,1,1)\nw(1,2,2,2)\nr(3,0,3,3)\nw(3,5,3,3)\n";
    let h = grail_core::read(text.as_bytes(), Format::Plume).unwrap();
    let r = grail_core::check(&h, &CheckOptions { levels: vec![Level::Ser], ..CheckOptions::default() });
    let c = &r.levels.get(Level::Ser).unwrap().cycles[0];
    assert!(c.explanation.contains("T1 = r(1,1,1,1) w(2,2,1,1) (lines 3, 5)"), "{}", c.explanation);
    assert!(!c.explanation.contains("[:") && !c.explanation.contains("nil"), "{}", c.explanation);
    assert_eq!(c.steps[0].from_op.op, "r(1,1,1,1)");
    assert_eq!(c.steps[0].from_op.span.map(|s| (s.line, s.column, s.end - s.start)), Some((3, 1, 10)));
    let b = reproducing_sub_history(&h, c, &[Level::Ser], &CheckOptions::default(), 64);
    assert_eq!(b.extension, "txt");
    assert!(b.reproduces && b.minimal, "{}", b.text);
    // T3 (key 3) is not needed; T0 is (without it the reads of 1 read nothing written).
    assert_eq!(b.text, "w(1,1,0,0)\nw(2,1,0,0)\nr(1,1,1,1)\nr(2,1,2,2)\nw(2,2,1,1)\nw(1,2,2,2)\n");
    assert!(reproduces_in(&b.text, Format::Plume, &[Level::Ser], &c.anomaly, &c.txns));
    // A read of the initial value is written back as Plume writes it: 0.
    let t3 = h.txns.iter().position(|t| t.id == 3).unwrap() as u32;
    assert_eq!(grail_core::export::sub_history(&h, &[t3], Some("not written")), "r(3,0,3,3)\nw(3,5,3,3)\n");
}

/// A Plume history with aborted writes (`txn = -1`): the sub-history is checked as the Plume text
/// it offers (it was checked as EDN, whose reader refused the aborted transaction's id, and the
/// search then said the cycle's transactions did not show it again). The aborted transaction's
/// id is one JavaScript holds, and its writes are written back with -1.
#[test]
fn a_plume_history_with_aborted_writes_gives_a_reproducing_sub_history() {
    let text = "r(1,0,1,1)\nr(2,0,2,2)\nw(2,5,1,1)\nw(1,6,2,2)\nw(1,9,3,-1)\nr(1,9,4,4)\n";
    let h = grail_core::read(text.as_bytes(), Format::Plume).unwrap();
    let aborted = h.txns.iter().find(|t| t.status == grail_core::history::Status::Aborted).unwrap();
    assert_eq!(aborted.id, (1 << 53) - 1);
    let r = grail_core::check(&h, &CheckOptions { levels: vec![Level::Ser], ..CheckOptions::default() });
    let c = r.levels.get(Level::Ser).unwrap().cycles.iter().find(|c| c.anomaly == "G2-item").unwrap();
    let b = reproducing_sub_history(&h, c, &[Level::Ser], &CheckOptions::default(), 64);
    assert!(b.reproduces && b.minimal, "{}", b.text);
    assert_eq!(b.text, "r(1,0,1,1)\nr(2,0,2,2)\nw(2,5,1,1)\nw(1,6,2,2)\n");
    // The aborted write, written back: -1, session 0 (its loaders ignore it), and read as before.
    let t = h.txns.iter().position(|t| t.status == grail_core::history::Status::Aborted).unwrap() as u32;
    let back = grail_core::export::sub_history(&h, &[t], None);
    assert_eq!(back, "w(1,9,0,-1)\n");
    let g1a = r.anomalies.iter().find(|a| a.kind == "G1a").unwrap();
    assert!(g1a.explanation.contains("w(1,9,_,-1)"), "{}", g1a.explanation);
}

/// The JSON histories: grail's native JSON gives a native JSON sub-history (times kept) and
/// elle-cli's JSON one of elle-cli's events (invocations kept), each read back by the JSON
/// reader to a history with the same cycle.
#[test]
fn json_histories_give_sub_histories_in_their_own_json() {
    let case = |p: &str| std::fs::read(format!("{}/../tests/cases/{p}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    for (file, first) in [("native/write-skew.json", "{\"transactions\": [\n"), ("elle-json/read-skew.json", "{")] {
        let h = grail_core::read(&case(file), Format::Json).unwrap();
        let r = grail_core::check(&h, &CheckOptions { levels: vec![Level::Ser], ..CheckOptions::default() });
        let c = &r.levels.get(Level::Ser).unwrap().cycles[0];
        let b = reproducing_sub_history(&h, c, &[Level::Ser], &CheckOptions::default(), 64);
        assert_eq!(b.extension, "json", "{file}");
        assert!(b.reproduces, "{file}: {}", b.text);
        assert!(b.text.starts_with(first), "{file}: {}", b.text);
        assert!(serde_json::from_str::<serde_json::Value>(&b.text).is_ok() || file.starts_with("elle"), "{}", b.text);
        assert!(reproduces_in(&b.text, Format::Json, &[Level::Ser], &c.anomaly, &c.txns), "{file}: {}", b.text);
        if file.starts_with("elle") {
            // One event a line, each an elle-cli operation with its invocation.
            assert!(b.text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "{}", b.text);
            assert!(b.text.contains("\"type\":\"invoke\""), "{}", b.text);
        }
    }
}

#[test]
fn timekiller_histories_give_sub_histories_in_timekillers_json() {
    // A write skew between tids 7 and 8 (each read the key the other wrote, null), and a third
    // transaction on another key that the sub-history leaves out.
    let text = r#"[
      {"tid": 7, "sid": 1, "sts": {"p": 10, "l": 0}, "cts": {"p": 13, "l": 0}, "ops": [{"t": "r", "k": 1, "v": null}, {"t": "w", "k": 2, "v": 5}]},
      {"tid": 9, "sid": 3, "sts": {"p": 10, "l": 1}, "cts": {"p": 11, "l": 0}, "ops": [{"t": "w", "k": 3, "v": 1}, {"t": "r", "k": 1, "v": null}]},
      {"tid": 8, "sid": 2, "sts": {"p": 11, "l": 0}, "cts": {"p": 14, "l": 0}, "ops": [{"t": "r", "k": 2, "v": null}, {"t": "w", "k": 1, "v": 6}]}
    ]"#;
    let h = grail_core::read(text.as_bytes(), Format::Auto).unwrap();
    let opts = CheckOptions { levels: vec![Level::Ser], ..CheckOptions::default() };
    let r = grail_core::check(&h, &opts);
    let c = &r.levels.get(Level::Ser).unwrap().cycles[0];
    assert_eq!(c.txns.iter().copied().collect::<std::collections::BTreeSet<_>>(), [7, 8].into());
    let b = reproducing_sub_history(&h, c, &[Level::Ser], &CheckOptions::default(), 64);
    assert_eq!(b.extension, "json");
    assert!(b.reproduces && b.minimal, "{}", b.text);
    let doc: serde_json::Value = serde_json::from_str(&b.text).unwrap_or_else(|e| panic!("{e}: {}", b.text));
    let tids: Vec<&serde_json::Value> = doc.as_array().unwrap().iter().map(|t| &t["tid"]).collect();
    assert_eq!(tids, [7, 8], "{}", b.text);
    assert_eq!(doc[1]["cts"], serde_json::json!({"p": 14, "l": 0}));
    assert_eq!(doc[0]["ops"][0], serde_json::json!({"t": "r", "k": 1, "v": null}));
    assert!(reproduces_in(&b.text, Format::TimeKiller, &[Level::Ser], &c.anomaly, &c.txns), "{}", b.text);
}
