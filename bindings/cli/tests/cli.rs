//! The `grail` binary: exit codes, JSON schema, gzip input, DOT output.

use std::path::{Path, PathBuf};
use std::process::Command;

fn grail(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grail")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn case(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases").join(p).to_string_lossy().into()
}

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("corpus required under CI=true: {}", dir.display())
    } else {
        eprintln!("SKIPPED: no corpus at {}", dir.display());
        None
    }
}

#[test]
fn check_json_has_the_documented_schema_and_exit_codes() {
    let (code, out, _) = grail(&["check", &case("G-single/lost-update.edn"), "--json"]);
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["valid"], false);
    // Levels appear strongest first in the output.
    let pos: Vec<usize> = ["\"SER\": {", "\"SI\": {", "\"PSI\": {", "\"PL-2\": {", "\"PL-1\": {"]
        .iter()
        .map(|k| out.find(k).unwrap())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
    for l in ["SER", "SI", "PSI", "PL-2", "PL-1"] {
        assert!(r["levels"][l]["valid"].is_boolean());
        assert!(r["levels"][l]["anomalies"].is_array() && r["levels"][l]["cycles"].is_array());
    }
    assert_eq!(r["levels"]["PSI"]["valid"], false);
    assert_eq!(r["levels"]["PL-2"]["valid"], true);
    let cyc = &r["levels"]["SER"]["cycles"][0];
    assert_eq!(cyc["name"], "lost update");
    assert!(cyc["steps"][0]["from_op"]["op"].as_str().unwrap().starts_with("[:"));
    for k in ["vertices", "edges", "ww", "wr", "rw"] {
        assert!(r["stats"][k].is_u64(), "stats.{k}");
    }
    let (code, _, _) = grail(&["check", &case("valid/serial.edn")]);
    assert_eq!(code, 0);
    // Only the requested levels are checked: PL-2 holds here.
    let (code, out, _) = grail(&["check", &case("G-single/lost-update.edn"), "--levels", "PL-2,PL-1", "--json"]);
    assert_eq!(code, 0);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["levels"].as_object().unwrap().len(), 2);
}

#[test]
fn bad_input_and_usage_exit_2_with_a_place() {
    let dir = std::env::temp_dir().join(format!("grail-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.edn");
    std::fs::write(&bad, "{:type :ok, :value [[:r 1 nil]]}\n{:type :ok :value [[:r 1 [1 2]]\n").unwrap();
    let (code, _, err) = grail(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("line 2"), "{err}");
    let (code, _, err) = grail(&["check", &case("valid/serial.edn"), "--levels", "XYZ"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown level"), "{err}");
    let (code, _, _) = grail(&["check", "/nonexistent/file.edn"]);
    assert_eq!(code, 2);
    let (code, _, _) = grail(&["frobnicate"]);
    assert_eq!(code, 2);
}

#[test]
fn stats_and_graph() {
    let (code, out, _) = grail(&["stats", &case("G1a/aborted-read.edn"), "--json"]);
    assert_eq!(code, 1, "an anomaly was found");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["stats"]["aborted"], 1);
    assert_eq!(s["anomalies"][0]["type"], "G1a");
    let (code, out, _) = grail(&["graph", &case("G2-item/write-skew.edn"), "--json"]);
    assert_eq!(code, 0);
    let g: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(g["vertices"], serde_json::json!([0, 1]));
    let types: Vec<&str> = g["edges"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["rw", "rw"]);
    assert_eq!(g["edges"][0]["key"], "y");
}

#[test]
fn dot_files_are_written() {
    let dir = std::env::temp_dir().join(format!("grail-dot-{}", std::process::id()));
    let (code, _, _) = grail(&["check", &case("G-nonadjacent/long-fork.edn"), "--dot", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let si = std::fs::read_to_string(dir.join("SI-0.dot")).unwrap();
    assert!(si.starts_with("digraph") && si.contains("rw"), "{si}");
    assert!(!dir.join("PSI-0.dot").exists(), "PSI holds: no cycle file");
}

#[test]
fn gzip_corpus_history_with_stats() {
    let Some(c) = corpus() else { return };
    let p = c.join("grail/anti-patterns/lost-update/history.edn.gz");
    let (code, out, err) = grail(&["stats", p.to_str().unwrap(), "--json"]);
    assert!(code == 0 || code == 1, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["stats"]["transactions"], 9570);
    let (code, out, _) = grail(&["check", p.to_str().unwrap(), "--json", "--max-steps", "0"]);
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    // With no steps to spend, verdicts are unknown (with a reason), never guesses.
    assert!(r["valid"].is_null());
    for l in ["SER", "SI", "PSI", "PL-2", "PL-1"] {
        assert_eq!(r["levels"][l]["verdict"], "unknown");
        assert!(r["levels"][l]["valid"].is_null());
        assert!(r["levels"][l]["reason"].as_str().unwrap().contains("budget"));
    }
}

#[test]
fn strategies_give_grails_verdicts_and_refuse_unsupported_options() {
    // A long fork: a 4-cycle that SI forbids and PSI allows.
    let lf = case("G-nonadjacent/long-fork.edn");
    for s in ["dfs", "shortest-path", "gabow"] {
        let (code, out, err) = grail(&["check", &lf, "--strategy", s, "--json"]);
        assert_eq!(code, 1, "{s}: {err}");
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(r["strategy"], s);
        let verdict =
            |l: &str| r["levels"].as_array().unwrap().iter().find(|x| x["level"] == l).unwrap()["verdict"].clone();
        assert_eq!(verdict("SER"), "violated", "{s}");
        assert_eq!(verdict("SI"), "violated", "{s}");
        assert_ne!(verdict("PSI"), "violated", "{s}: a long fork is allowed by PSI");
        assert_ne!(verdict("PL-2"), "violated", "{s}");
    }
    // Depth 2 cannot see a cycle of four transactions: "not detected", never "violated".
    let (_, out, _) = grail(&["check", &lf, "--strategy", "dfs", "--max-depth", "2"]);
    assert!(out.contains("not detected"), "{out}");
    let (code, _, err) = grail(&["check", &lf, "--strategy", "gabow", "--max-steps", "10"]);
    assert_eq!(code, 2);
    assert!(err.contains("--max-steps works with the default strategy"), "{err}");
}

#[test]
fn export_writes_grails_arangodb_layout() {
    let dir = std::env::temp_dir().join(format!("grail-export-{}", std::process::id()));
    let (code, _, err) =
        grail(&["export", &case("G2-item/write-skew.edn"), "--format", "arangodb", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let dep: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("dep.json")).unwrap()).unwrap();
    let types: Vec<&str> = dep.as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["rw", "rw"]);
    assert!(dep[0]["_from"].as_str().unwrap().starts_with("txn/"));
    assert!(dep[0]["from_evt"].as_str().unwrap().starts_with("r_evt/"));
}

#[test]
fn register_mode_and_polysi_formats() {
    let lost = case("G-single/register-lost-update-no-order.json");
    // Default (auto): the polygraph finds the lost update, certain and chosen steps marked.
    let (code, out, _) = grail(&["check", &lost, "--levels", "SI", "--json"]);
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["levels"]["SI"]["verdict"], "violated");
    let steps = r["levels"]["SI"]["cycles"][0]["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["certain"].is_boolean()), "{steps:?}");
    // The sure edges alone find no cycle, which proves nothing: unknown (exit 1, not 0).
    let (code, out, _) = grail(&["check", &lost, "--levels", "SI", "--register-mode", "sure-edges", "--json"]);
    assert_eq!(code, 1, "{out}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["levels"]["SI"]["verdict"], "unknown", "{out}");
    let (code, _, err) = grail(&["check", &lost, "--register-mode", "exact"]);
    assert_eq!(code, 2, "{err}");
    // PolySI text, detected; a directory of Cobra logs.
    let dir = std::env::temp_dir().join(format!("grail-cli-polysi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plume = dir.join("h.txt");
    std::fs::write(&plume, "w(1,1,1,1)\nr(1,0,2,2)\nw(1,2,2,2)\nr(1,0,3,3)\nw(1,3,3,3)\n").unwrap();
    let (code, out, err) = grail(&["check", plume.to_str().unwrap(), "--levels", "SER,SI"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("SI     violated"), "{out}");
    let logs = dir.join("cobra");
    std::fs::create_dir_all(&logs).unwrap();
    let rec = |tag: u8, xs: &[i64]| -> Vec<u8> {
        let mut b = vec![tag];
        for x in xs {
            b.extend_from_slice(&x.to_be_bytes());
        }
        b
    };
    let t1 = [rec(b'S', &[1]), rec(b'W', &[11, 5, 0]), rec(b'C', &[1])].concat();
    let t2 = [rec(b'S', &[2]), rec(b'R', &[1, 11, 5, 0]), rec(b'C', &[2])].concat();
    std::fs::write(logs.join("T1.log"), t1).unwrap();
    std::fs::write(logs.join("T2.log"), t2).unwrap();
    let (code, out, err) = grail(&["check", logs.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["stats"]["transactions"], 2);
    let (code, _, err) = grail(&["check", logs.to_str().unwrap(), "--format", "edn"]);
    assert_eq!(code, 2, "{err}");
    // A directory holding dbcop's history.bincode: two sessions each read 1 = 0 and write it.
    let bin = dir.join("dbcop");
    std::fs::create_dir_all(&bin).unwrap();
    let mut b = Vec::new();
    let u = |b: &mut Vec<u8>, x: u64| b.extend_from_slice(&x.to_le_bytes());
    for x in [0, 2, 1, 2, 4, 0, 0, 0, 2] {
        u(&mut b, x); // params, three empty strings, two sessions
    }
    for v in [1, 2] {
        u(&mut b, 1); // one transaction of two events
        u(&mut b, 2);
        for (write, value) in [(0u8, 0), (1, v)] {
            b.push(write);
            u(&mut b, 1);
            u(&mut b, value);
            b.push(1);
        }
        b.push(1);
    }
    std::fs::write(bin.join("history.bincode"), &b).unwrap();
    let (code, out, err) = grail(&["check", bin.to_str().unwrap(), "--levels", "SI"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("SI     violated"), "{out}");
    let (code, _, _) = grail(&["check", bin.join("history.bincode").to_str().unwrap(), "--format", "dbcop-bin"]);
    assert_eq!(code, 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn generate_polysi_text_with_and_without_an_initialising_transaction() {
    let dir = std::env::temp_dir().join(format!("grail-cli-gen-polysi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut outs = Vec::new();
    for init in [false, true] {
        let path = dir.join(format!("h-{init}.txt"));
        let mut args =
            vec!["generate", "--output", "polysi", "--txns", "200", "--isolation", "causal", "--inject", "long-fork"];
        args.extend(["--out", path.to_str().unwrap()]);
        if init {
            args.push("--explicit-init");
        }
        let (code, _, err) = grail(&args);
        assert_eq!(code, 0, "{err}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next().unwrap().ends_with(",0,0,0)"), init, "{text}");
        let (code, out, err) = grail(&["check", path.to_str().unwrap(), "--levels", "all"]);
        assert_eq!(code, 1, "{out}{err}");
        outs.push(
            out.lines()
                .filter(|l| l.contains(" holds") || l.contains(" violated"))
                .map(String::from)
                .collect::<Vec<_>>(),
        );
    }
    assert!(!outs[0].is_empty());
    assert_eq!(outs[0], outs[1]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_thin_air_read_makes_the_history_invalid_and_comes_first() {
    let (code, out, err) = grail(&["check", &case("garbage-read/thin-air-register.json")]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.starts_with("INVALID HISTORY"), "{out}");
    assert!(out.lines().nth(1).unwrap_or("").contains("thin-air read"), "{out}");
    // Every level but PL-1 reads only committed writes: the thin-air read violates them.
    assert!(out.contains("SER    violated  garbage-read"), "{out}");
    assert!(out.contains("PL-1   holds      (with garbage-read set aside)"), "{out}");
    assert!(!out.contains("strongest satisfied"), "{out}");
    let (code, out, _) = grail(&["check", &case("garbage-read/thin-air-register.json"), "--json"]);
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["valid"], false);
    assert_eq!(r["broken_assumptions"], serde_json::json!(["garbage-read"]));
    assert_eq!(r["levels"]["SER"]["verdict"], "violated");
    assert_eq!(r["levels"]["PL-1"]["set_aside"], serde_json::json!(["garbage-read"]));
}

fn example(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(p).to_string_lossy().into()
}

/// docs/timestamps.md: the console examples print what the page shows.
#[test]
fn white_box_examples_print_what_the_docs_show() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/timestamps.md")).unwrap();
    let (code, out, _) = grail(&["check", &example("timestamps.json")]);
    assert_eq!(code, 1);
    for line in ["SER    violated  snapshot-read, commit-order-read", "SI     violated  snapshot-read", "PSI    holds"]
    {
        assert!(out.contains(line) && doc.contains(line), "{line}\n{out}");
    }
    let stale = out.lines().find(|l| l.starts_with("snapshot-read: ")).unwrap();
    assert!(doc.contains(stale), "{stale}");
    assert!(out.contains("white-box: SI full, SER full (3 of 3 committed transactions timestamped"));
    let (code, out, _) = grail(&["check", &example("timestamps.json"), "--white-box", "ignore"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = grail(&["check", &example("timekiller.json"), "--white-box", "only", "--levels", "SI,SER"]);
    assert_eq!(code, 1);
    let conflict = out.lines().find(|l| l.starts_with("write-conflict: ")).unwrap();
    assert!(doc.contains(conflict), "{conflict}");
    assert!(
        doc.contains("SER    violated  write-conflict, commit-order-read")
            && out.contains("SER    violated  write-conflict, commit-order-read")
    );
    let (code, out, _) = grail(&["online", &example("timekiller.json")]);
    assert_eq!(code, 1);
    for line in out.lines() {
        assert!(doc.contains(line), "{line}");
    }
    let (code, _, err) = grail(&["check", &example("timestamps.json"), "--white-box", "maybe"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn timekiller_format_initial_value_and_generated_timestamps() {
    // The initial value applies to TimeKiller histories only.
    let (code, _, err) = grail(&["check", &example("lost-update.edn"), "--initial-value", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("initial value applies to TimeKiller histories"), "{err}");
    let (code, out, _) =
        grail(&["check", &example("timekiller.json"), "--format", "timekiller", "--initial-value", "0", "--json"]);
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["white_box"]["si"], "full");
    // Generated: the EDN carries the clock; TimeKiller's output is detected and reads back.
    let dir = std::env::temp_dir().join(format!("grail-ts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (edn, tk) = (dir.join("h.edn"), dir.join("h.json"));
    let gen = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "generate",
            "--txns",
            "300",
            "--isolation",
            "snapshot-isolation",
            "--inject",
            "lost-update:2",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        assert_eq!(grail(&args).0, 0);
    };
    gen(&edn, &["--timestamps"]);
    gen(&tk, &["--output", "timekiller"]);
    assert!(std::fs::read_to_string(&edn).unwrap().contains(":start-ts"));
    for h in [&edn, &tk] {
        let (code, out, _) = grail(&["check", h.to_str().unwrap(), "--white-box", "only", "--levels", "SI", "--json"]);
        assert_eq!(code, 1);
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(r["white_box"]["counts"]["write-conflict"], 2, "{}", h.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_terminal_text_writes_twenty_findings_of_a_kind_and_counts_the_rest() {
    let dir = std::env::temp_dir().join(format!("grail-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("garbage.json");
    let txns: Vec<String> = (0..30)
        .map(|i| format!("{{\"id\": {i}, \"status\": \"committed\", \"ops\": [[\"r\", \"k{i}\", [{}]]]}}", i + 1000))
        .collect();
    std::fs::write(&path, format!("[{}]", txns.join(","))).unwrap();
    let p = path.to_string_lossy();
    let (code, text, _) = grail(&["check", &p]);
    assert_eq!(code, 1);
    // Three lead the text as the reason the history is invalid; the list holds twenty of the
    // other 27 and counts the last 7.
    assert_eq!(text.lines().filter(|l| l.starts_with("  garbage-read")).count(), 3, "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("garbage-read: ")).count(), 20, "{text}");
    assert!(text.contains("\n... and 7 more garbage-read (the JSON report lists them)\n"), "{text}");
    let (_, json, _) = grail(&["check", &p, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let all = v["anomalies"].as_array().unwrap().iter().filter(|a| a["type"] == "garbage-read").count();
    assert_eq!(all, 30);
    std::fs::remove_dir_all(&dir).ok();
}

/// `grail ... | head`: a reader that stops early ends grail quietly (no panic about a broken
/// pipe), as `cat` ends.
#[test]
fn a_closed_stdout_ends_grail_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_grail"))
        .args(["generate", "--txns", "20000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe is closed here, with most of the history (megabytes) still to write.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(first.starts_with(b"{:type"), "{}", String::from_utf8_lossy(&first));
    assert!(stderr.is_empty(), "stderr: {stderr}");
    assert!(!out.status.success(), "grail cannot have written the whole history");
}

#[test]
fn counts_of_one_are_singular() {
    let dir = std::env::temp_dir().join(format!("grail-cli-words-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("two.edn");
    std::fs::write(&h, "{:index 0, :type :ok, :value [[:w :x 1]]}\n{:index 1, :type :ok, :value [[:r :x 1]]}\n")
        .unwrap();
    let h = h.to_string_lossy().to_string();
    let (_, out, _) = grail(&["check", &h, "--levels", "all"]);
    assert!(
        out.contains("2 transactions (2 committed, 0 aborted, 0 indeterminate); graph: 2 vertices, 1 edge ("),
        "{out}"
    );
    assert!(out.contains(": 1 known edge, 0 constraints (0 pairs of versions before compaction)"), "{out}");
    assert!(out.contains("0 guesses, learning from 0 conflicts"), "{out}");
    let one = dir.join("one.edn");
    std::fs::write(&one, "{:index 0, :type :ok, :value [[:w :x 1]]}\n").unwrap();
    let (_, out, _) = grail(&["check", &one.to_string_lossy()]);
    assert!(out.contains("1 transaction (1 committed, 0 aborted, 0 indeterminate); graph: 1 vertex, 0 edges"), "{out}");
    for wrong in ["1 transactions", "1 vertices", "1 edges", "1 known edges", "1 rounds", "conflicts learned from"] {
        assert!(!out.contains(wrong), "{wrong}: {out}");
    }
}

/// `--wal-out` writes the log of a register history in EDN, and is refused where there is no
/// log to write (once ignored: exit 0, no file, no word).
#[test]
fn wal_out_is_written_or_refused() {
    let dir = std::env::temp_dir().join(format!("grail-wal-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (h, wal) = (dir.join("h.edn"), dir.join("h.log"));
    let (h, wal) = (h.to_str().unwrap(), wal.to_str().unwrap());
    let (code, _, err) = grail(&["generate", "--txns", "20", "--model", "rw-register", "--out", h, "--wal-out", wal]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(wal).unwrap().contains("\"type\":2300"));
    for extra in [&["--model", "rw-register", "--output", "native"][..], &["--model", "list-append"][..]] {
        let _ = std::fs::remove_file(wal);
        let mut args = vec!["generate", "--txns", "20", "--out", h, "--wal-out", wal];
        args.extend_from_slice(extra);
        let (code, _, err) = grail(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains("--wal-out: only a register history in EDN has a write-ahead log"), "{err}");
        assert!(!Path::new(wal).exists());
    }
}
