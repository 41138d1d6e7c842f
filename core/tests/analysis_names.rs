//! The analysis's classes and a level's counterexample through the same transactions agree,
//! or the analysis says, in its own `basis`, why they may not: the counterexample is another
//! cycle, through edges the analysis does not count.

use grail_core::analysis::AnalyzeOptions;
use grail_core::{CheckOptions, Format, Level};
use std::path::Path;

fn histories() -> Vec<(String, Vec<u8>, Option<Vec<u8>>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut dirs = vec![root.join("examples")];
    for d in std::fs::read_dir(root.join("tests/cases")).unwrap() {
        dirs.push(d.unwrap().path());
    }
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        for f in std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().path()) {
            let name = f.to_string_lossy().to_string();
            if (name.ends_with(".edn") || name.ends_with(".json")) && !name.ends_with(".expected.json") {
                let wal = f.with_extension("log");
                out.push((name, std::fs::read(&f).unwrap(), wal.exists().then(|| std::fs::read(&wal).unwrap())));
            }
        }
    }
    out
}

fn rotation_of(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && (0..a.len()).any(|r| (0..a.len()).all(|i| a[(i + r) % a.len()] == b[i]))
}

#[test]
fn classes_agree_with_counterexamples_or_the_basis_says_why() {
    let (mut agreed, mut explained) = (0, 0);
    for (name, text, wal) in histories() {
        let mut h = grail_core::read(&text, Format::Auto).unwrap();
        if let Some(w) = wal {
            grail_core::read_wal(&mut h, &w).unwrap();
        }
        let opts = CheckOptions {
            levels: Level::ALL.to_vec(),
            analyze: Some(AnalyzeOptions::default()),
            ..CheckOptions::default()
        };
        let r = grail_core::check(&h, &opts);
        let a = serde_json::to_value(r.analysis.as_ref().unwrap()).unwrap();
        let basis = a["basis"].as_str().unwrap_or_else(|| panic!("{name}: the analysis has no basis"));
        assert!(basis.contains("lowest type"), "{basis}");
        let cycles =
            r.levels.0.iter().flat_map(|(_, l)| &l.cycles).chain(r.anomalies.iter().filter_map(|x| x.cycle.as_ref()));
        for c in cycles {
            for e in a["examples"].as_array().unwrap() {
                let txns: Vec<u64> = e["txns"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap()).collect();
                if !rotation_of(&txns, &c.txns) {
                    continue;
                }
                let adya = e["adya"].as_str().unwrap();
                if c.anomaly == adya {
                    agreed += 1;
                    continue;
                }
                // Named otherwise: the counterexample goes through edges the analysis does not
                // count, and the basis names them.
                let ordered = c.steps.iter().any(|s| s.ty == "so" || s.ty == "rt");
                let chosen = c.steps.iter().any(|s| s.certain == Some(false));
                let claimed = c.steps.iter().any(|s| s.claimed == Some(true));
                let types: Vec<&str> = e["types"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
                let other_type = c.steps.iter().zip(txns.iter()).count() == types.len()
                    && !c.steps.iter().all(|s| types.contains(&s.ty.as_str()));
                assert!(
                    ordered || chosen || claimed || other_type,
                    "{name}: {} {:?} counted as {adya}",
                    c.anomaly,
                    c.txns
                );
                if ordered {
                    assert!(basis.contains("session or real-time order"), "{name}: {basis}");
                }
                if chosen {
                    assert!(basis.contains("chosen"), "{name}: {basis}");
                }
                if claimed {
                    assert!(basis.contains("claims"), "{name}: {basis}");
                }
                explained += 1;
            }
        }
    }
    assert!(agreed > 0 && explained > 0, "agreed {agreed}, explained {explained}");
}

#[test]
fn the_text_says_it_too() {
    let text = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases/G-single/register-lost-update-no-order.json"),
    )
    .unwrap();
    let h = grail_core::read(&text, Format::Auto).unwrap();
    let opts = CheckOptions {
        levels: Level::ALL.to_vec(),
        analyze: Some(AnalyzeOptions::default()),
        ..CheckOptions::default()
    };
    let r = grail_core::check(&h, &opts);
    assert!(r.levels.0.iter().any(|(_, l)| l.anomalies.iter().any(|a| a == "G-single")));
    let shown = grail_core::analysis::render(r.analysis.as_ref().unwrap());
    assert!(shown.contains("no version order") && shown.contains("chosen"), "{shown}");
}
