//! No report contradicts the level lattice (issue 15): on every history the tests read (the
//! conformance cases, the corpus with and without write-ahead logs, the peers' histories,
//! generated histories of every isolation, model and injection, small random register
//! histories), checked for all twelve levels, a level that holds implies every weaker level
//! holds, the lattice summary agrees with the verdicts, no verdict had to be repaired by the
//! closure (a note starting `lattice:`), and a history that breaks an assumption is invalid.

mod common;

use common::{corpus, levels_named, slurp};
use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation, KeyDistribution, Output};
use grail_core::{CheckOptions, Format, History, Level, Report};
use std::path::{Path, PathBuf};

fn all_levels(h: &History) -> Report {
    let opts = CheckOptions { levels: Level::ALL.to_vec(), max_steps: Some(200_000_000), ..Default::default() };
    grail_core::check(h, &opts)
}

/// Counts over every report: (reports, levels held, violated, unknown, anomaly names checked).
#[derive(Default, Debug)]
struct Tally(usize, usize, usize, usize, usize);

fn assert_lattice(r: &Report, ctx: &str, tally: &mut Tally) {
    tally.0 += 1;
    let verdict = |l: Level| r.levels.get(l).and_then(|x| x.valid);
    for (l, lr) in &r.levels.0 {
        match lr.valid {
            Some(true) => tally.1 += 1,
            Some(false) => tally.2 += 1,
            None => tally.3 += 1,
        }
        for w in l.weaker() {
            assert!(
                !(lr.valid == Some(true) && verdict(w) == Some(false)),
                "{ctx}: {} holds but {} (which it implies) is violated",
                l.name(),
                w.name()
            );
        }
    }
    assert!(!r.notes.iter().any(|n| n.starts_with("lattice:")), "{ctx}: {:?}", r.notes);
    // No anomaly is named that a level which holds forbids (a polygraph's ww cycle of forced
    // choices was named G0 for SI while PL-1 held).
    for (l, lr) in r.levels.0.iter().filter(|(_, lr)| lr.valid == Some(false)) {
        let names = lr.anomalies.iter().chain(lr.cycles.iter().map(|c| &c.anomaly));
        for (n, levels) in names.filter_map(|n| levels_named(n).map(|ls| (n, ls))) {
            tally.4 += 1;
            if let Some(h) = levels.iter().find(|w| verdict(**w) == Some(true)) {
                panic!("{ctx}: {} is violated by a {n}, which {} forbids, and {} holds", l.name(), h.name(), h.name());
            }
        }
    }
    for &l in &r.strongest_satisfied {
        assert_eq!(verdict(l), Some(true), "{ctx}: strongest satisfied {} does not hold", l.name());
        assert!(
            r.levels.get(l).unwrap().set_aside.is_empty(),
            "{ctx}: {} holds only with findings set aside",
            l.name()
        );
    }
    for &l in r.weakest_violated.iter().chain(&r.also_violated) {
        assert_ne!(verdict(l), Some(true), "{ctx}: {} is listed violated but holds", l.name());
    }
    if !r.broken_assumptions.is_empty() {
        assert_eq!(r.valid, Some(false), "{ctx}: broken assumptions {:?} but valid", r.broken_assumptions);
    }
}

fn files(dir: &Path, ends: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    out.retain(|p| {
        let n = p.to_string_lossy();
        ends.iter().any(|e| n.ends_with(e)) && !n.ends_with(".expected.json")
    });
    out.sort();
    out
}

/// A history, and the same with its write-ahead log when it has one.
fn with_and_without_log(path: &Path, log: &Path) -> Vec<(String, History)> {
    let h = grail_core::read(&slurp(path), Format::Auto).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = vec![(format!("{} (no log)", path.display()), h.clone())];
    if log.exists() {
        let mut h = h;
        grail_core::read_wal(&mut h, &slurp(log)).unwrap();
        out.push((path.display().to_string(), h));
    }
    out
}

#[test]
fn conformance_cases_respect_the_lattice() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases");
    let mut tally = Tally::default();
    for dir in std::fs::read_dir(&root).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()) {
        for f in files(&dir, &[".edn", ".json"]) {
            for (ctx, h) in with_and_without_log(&f, &f.with_extension("log")) {
                assert_lattice(&all_levels(&h), &ctx, &mut tally);
            }
        }
    }
    eprintln!("conformance cases: {tally:?}");
    assert!(tally.0 > 25 && tally.2 > 0 && tally.1 > 0 && tally.4 > 0, "{tally:?}");
}

#[test]
fn corpus_histories_respect_the_lattice() {
    let Some(c) = corpus() else { return };
    let mut tally = Tally::default();
    for f in files(&c.join("grail/tiny-register"), &[".edn"]) {
        for (ctx, h) in with_and_without_log(&f, &f.with_extension("log")) {
            assert_lattice(&all_levels(&h), &ctx, &mut tally);
        }
    }
    for f in files(&c.join("grail/tiny-list"), &[".edn"]) {
        assert_lattice(&all_levels(&common::load(&f, None)), &f.display().to_string(), &mut tally);
    }
    // The register data set Reg4, with its logs and, for the polygraph, without.
    for f in files(&c.join("grail/reg-max-write"), &[".edn.gz"]) {
        let log = PathBuf::from(f.to_string_lossy().replace(".edn.gz", ".log.gz"));
        for (ctx, h) in with_and_without_log(&f, &log) {
            assert_lattice(&all_levels(&h), &ctx, &mut tally);
        }
    }
    // The list data sets: the first history of each.
    for set in std::fs::read_dir(c.join("grail/list")).unwrap().filter_map(|e| e.ok().map(|e| e.path())) {
        if let Some(f) = files(&set, &[".edn.gz"]).first() {
            assert_lattice(&all_levels(&common::load(f, None)), &f.display().to_string(), &mut tally);
        }
    }
    let elle = c.join("elle");
    let mut es = files(&elle, &[".edn"]);
    es.extend(files(&elle.join("elle-cli-histories/elle"), &[".edn", ".json"]));
    es.extend(files(&elle.join("elle-cli-histories/jepsen"), &[".edn"]));
    for f in es {
        assert_lattice(&all_levels(&common::load(&f, None)), &f.display().to_string(), &mut tally);
    }
    // The peers' histories, both forms.
    let awdit = c.join("peers/awdit");
    for f in files(&awdit.join("plume"), &["-2000.txt.gz"]) {
        assert_lattice(&all_levels(&common::load(&f, None)), &f.display().to_string(), &mut tally);
        let name = f.file_name().unwrap().to_string_lossy().replace(".txt.gz", "");
        let bin = awdit.join("dbcop").join(name).join("history.bincode");
        assert_lattice(&all_levels(&common::load(&bin, None)), &bin.display().to_string(), &mut tally);
    }
    eprintln!("corpus: {tally:?}");
    assert!(tally.0 > 80, "{tally:?}");
}

#[test]
fn generated_histories_respect_the_lattice() {
    let mut tally = Tally::default();
    let isolations = [
        Isolation::Serializable,
        Isolation::SnapshotIsolation,
        Isolation::ParallelSnapshotIsolation,
        Isolation::Causal,
        Isolation::ReadCommitted,
    ];
    let injections = [
        vec![],
        vec![(Injection::LostUpdate, 1), (Injection::WriteSkew, 1)],
        vec![(Injection::LongFork, 1), (Injection::AbortedRead, 1)],
        vec![(Injection::IntermediateRead, 1), (Injection::WriteCycle, 1), (Injection::ReadSkew, 1)],
    ];
    for (i, iso) in isolations.into_iter().enumerate() {
        for (j, inject) in injections.iter().enumerate() {
            for (model, output) in [
                (DataModel::ListAppend, Output::Edn),
                (DataModel::RwRegister, Output::Edn),
                (DataModel::RwRegister, Output::Polysi),
            ] {
                let o = GenOptions {
                    transactions: 300,
                    sessions: 6,
                    keys: 10,
                    read_ratio: 0.5,
                    distribution: KeyDistribution::Zipfian(1.0),
                    model,
                    isolation: iso,
                    inject: inject.clone(),
                    seed: (i * 10 + j) as u64 + 1,
                    output,
                    ..Default::default()
                };
                let g = generate(&o);
                let ctx = format!("{iso:?} {inject:?} {model:?} {output:?}");
                let h = grail_core::read(g.history.as_bytes(), Format::Auto).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                // Register histories without their log (the polygraph decides), and with it.
                assert_lattice(&all_levels(&h), &ctx, &mut tally);
                if let (Some(wal), Output::Edn) = (&g.wal, output) {
                    let mut h = h;
                    grail_core::read_wal(&mut h, wal.as_bytes()).unwrap();
                    assert_lattice(&all_levels(&h), &format!("{ctx} with log"), &mut tally);
                }
            }
        }
    }
    eprintln!("generated: {tally:?}");
    assert!(tally.1 > 100 && tally.2 > 100, "{tally:?}");
}

/// Small random register histories with sessions, aborted writers and thin-air reads.
#[test]
fn random_register_histories_respect_the_lattice() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut tally = Tally::default();
    for case in 0..600 {
        let txns = 2 + next(5);
        let mut out = Vec::new();
        for t in 0..txns {
            let mut ops = Vec::new();
            for _ in 0..1 + next(3) {
                let k = next(2);
                if next(2) == 0 {
                    ops.push(format!(r#"["w", "k{k}", {}]"#, t * 10 + k + 1 + 100 * ops.len() as u64));
                } else {
                    // A value some transaction writes, nil, or (rarely) one nobody writes.
                    let v = match next(8) {
                        0 => "null".to_string(),
                        1 => "999".to_string(),
                        _ => (next(txns) * 10 + k + 1).to_string(),
                    };
                    ops.push(format!(r#"["r", "k{k}", {v}]"#));
                }
            }
            let status = if next(10) == 0 { "fail" } else { "ok" };
            out.push(format!(
                r#"{{"id": {}, "session": {}, "status": "{status}", "ops": [{}]}}"#,
                t + 1,
                next(3),
                ops.join(", ")
            ));
        }
        let text = format!("[{}]", out.join(",\n"));
        let h = grail_core::read(text.as_bytes(), Format::Json).unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        assert_lattice(&all_levels(&h), &format!("case {case}\n{text}"), &mut tally);
    }
    eprintln!("random: {tally:?}");
    assert!(tally.1 > 500 && tally.2 > 500, "{tally:?}");
}
