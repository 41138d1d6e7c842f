//! The cross-language conformance cases in `tests/cases`: the Python and Node runners read the
//! same files and must give the same answers.

mod common;

use grail_core::anomaly::AnomalyKind;
use grail_core::{CheckOptions, Format};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let name = f.to_string_lossy().to_string();
            if (name.ends_with(".edn") || name.ends_with(".json")) && !name.ends_with(".expected.json") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_case_gives_its_expected_verdicts() {
    let all = cases();
    assert!(all.len() >= 16, "found only {} cases", all.len());
    for case in &all {
        let stem = case.with_extension("");
        let expected: serde_json::Value =
            serde_json::from_slice(&std::fs::read(stem.with_extension("expected.json")).unwrap()).unwrap();
        let mut h = grail_core::read(&std::fs::read(case).unwrap(), Format::Auto)
            .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        let wal = stem.with_extension("log");
        if wal.exists() {
            grail_core::read_wal(&mut h, &std::fs::read(&wal).unwrap()).unwrap();
        }
        // The levels the case names are the levels checked (the five classic ones by default).
        let levels =
            expected["levels"].as_object().unwrap().keys().map(|l| grail_core::Level::parse(l).unwrap()).collect();
        let r = grail_core::check(&h, &CheckOptions { levels, ..CheckOptions::default() });
        for (l, v) in expected["levels"].as_object().unwrap() {
            assert_eq!(r.levels[l.as_str()].verdict.as_str(), v.as_str().unwrap(), "{}: {l}", case.display());
        }
        // One rule in the three runners: `valid` from the expected file when it gives one (broken
        // assumptions), else false if a level is violated, null if one is unknown, else true.
        let verdicts: Vec<&str> = expected["levels"].as_object().unwrap().values().filter_map(|v| v.as_str()).collect();
        let by_levels = if verdicts.contains(&"violated") {
            Some(false)
        } else if verdicts.contains(&"unknown") {
            None
        } else {
            Some(true)
        };
        let want = expected.get("valid").map_or(by_levels, |v| v.as_bool());
        assert_eq!(r.valid, want, "{}: valid", case.display());
        let got: BTreeSet<String> = r.anomalies.iter().map(|a| a.kind.clone()).collect();
        let want: BTreeSet<String> =
            expected["anomalies"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        assert_eq!(got, want, "{}", case.display());
    }
}

#[test]
fn every_anomaly_kind_has_a_case() {
    let folders: BTreeSet<String> =
        cases().iter().map(|c| c.parent().unwrap().file_name().unwrap().to_string_lossy().to_string()).collect();
    for k in AnomalyKind::ALL {
        assert!(folders.contains(k.name()), "no conformance case for {}", k.name());
    }
}
