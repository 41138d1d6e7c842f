//! `grail record` on real servers: histories recorded at each level, then checked by grail.
//! Each test records on a table of its own, so they may run side by side.

use super::server_url;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn grail() -> Command {
    Command::new(env!("CARGO_BIN_EXE_grail"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grail-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `grail record --json ARGS`: its summary; the run must succeed.
fn record(args: &[&str]) -> Value {
    let out = grail().arg("record").arg("--json").args(args).output().unwrap();
    assert!(out.status.success(), "grail record {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `grail check --json` of `file` at `levels`: the report (exit 0 or 1, never 2).
fn check(file: &PathBuf, levels: &str) -> Value {
    let out = grail().args(["check", "--json", "--levels", levels]).arg(file).output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "grail check: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn verdict(report: &Value, level: &str) -> String {
    report["levels"][level]["verdict"].as_str().unwrap_or_default().to_string()
}

/// The names of `level`'s cycles (`G-single (read skew)`, ...).
fn cycles(report: &Value, level: &str) -> Vec<String> {
    report["levels"][level]["cycles"]
        .as_array()
        .map(|cs| {
            cs.iter().map(|c| format!("{} ({})", c["anomaly"].as_str().unwrap(), c["name"].as_str().unwrap())).collect()
        })
        .unwrap_or_default()
}

fn count(summary: &Value, what: &str) -> u64 {
    summary[what].as_u64().unwrap_or_else(|| panic!("no {what} in {summary}"))
}

/// A contended workload: 8 sessions on 5 keys, a short lock timeout (PostgreSQL finds
/// deadlocks only after a second).
fn contended<'a>(url: &'a str, table: &'a str, level: &'a str, out: &'a str, txns: &'a str) -> Vec<&'a str> {
    vec!["--db", url, "--table", table, "--isolation", level, "--out", out, "--sessions", "8", "--keys", "5"]
        .into_iter()
        .chain(["--txns", txns, "--lock-timeout", "20"])
        .collect()
}

#[test]
fn postgres_read_committed_violates_si_and_names_it() {
    let Some(url) = server_url("GRAIL_TEST_POSTGRES_URL", "PostgreSQL") else { return };
    let file = scratch("pg-rc.edn");
    let f = file.to_str().unwrap();
    let summary = record(&contended(&url, "grail_rec_rc", "read committed", f, "2000"));
    assert_eq!(count(&summary, "transactions"), 2000);
    assert_eq!(count(&summary, "committed") + count(&summary, "aborted") + count(&summary, "indeterminate"), 2000);
    assert_eq!(summary["isolation"], "read committed");
    let text = std::fs::read_to_string(&file).unwrap();
    // Each transaction's invocation and completion, with times; every record its own :index
    // (Elle's loader pairs records by them).
    assert_eq!(text.lines().filter(|l| l.contains(", :type :invoke")).count(), 2000, "{}", &text[..500]);
    let mut indices: Vec<&str> =
        text.lines().filter(|l| l.starts_with("{:index ")).map(|l| l[8..].split(',').next().unwrap()).collect();
    let records = indices.len();
    indices.sort_unstable();
    indices.dedup();
    assert_eq!((records, indices.len()), (4000, 4000), "{}", &text[..500]);
    assert!(text.lines().filter(|l| l.contains(":type :ok")).all(|l| l.contains(":time ")));
    let report = check(&file, "SI,PL-2");
    assert_eq!(verdict(&report, "SI"), "violated");
    assert_eq!(verdict(&report, "PL-2"), "holds", "read committed keeps PL-2");
    let named = cycles(&report, "SI");
    assert!(named.iter().any(|c| c.starts_with("G-single (")), "{named:?}");
    assert_eq!(report["stats"]["committed"].as_u64(), summary["committed"].as_u64());
}

#[test]
fn postgres_repeatable_read_keeps_si_and_shows_write_skew() {
    let Some(url) = server_url("GRAIL_TEST_POSTGRES_URL", "PostgreSQL") else { return };
    let file = scratch("pg-rr.edn");
    record(&contended(&url, "grail_rec_rr", "repeatable read", file.to_str().unwrap(), "3000"));
    let report = check(&file, "SER,SI");
    assert_eq!(verdict(&report, "SI"), "holds");
    assert_eq!(verdict(&report, "SER"), "violated");
    let named = cycles(&report, "SER");
    assert!(named.iter().any(|c| c == "G2-item (write skew)"), "{named:?}");
}

#[test]
fn postgres_serializable_is_serializable_in_both_formats_and_workloads() {
    let Some(url) = server_url("GRAIL_TEST_POSTGRES_URL", "PostgreSQL") else { return };
    for (workload, name) in [("list-append", "pg-ser.edn"), ("rw-register", "pg-ser-registers.json")] {
        let file = scratch(name);
        let mut args = contended(&url, "grail_rec_ser", "serializable", file.to_str().unwrap(), "3000");
        args.extend(["--workload", workload]);
        let summary = record(&args);
        assert!(count(&summary, "committed") > 300, "{summary}");
        assert!(count(&summary, "aborted") > 0, "a contended workload has serialization failures: {summary}");
        let report = check(&file, "SER");
        assert_eq!(verdict(&report, "SER"), "holds", "{workload}: {}", report["levels"]["SER"]);
        assert_eq!(report["model"], workload);
    }
}

#[test]
fn postgres_sessions_reconnect_after_their_connections_are_killed() {
    let Some(url) = server_url("GRAIL_TEST_POSTGRES_URL", "PostgreSQL") else { return };
    let file = scratch("pg-killed.edn");
    let child = grail()
        .args(["record", "--json", "--db", &url, "--table", "grail_rec_kill", "--isolation", "serializable"])
        .args(["--sessions", "4", "--keys", "50", "--duration", "4", "--out", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the sessions busy with this test's table, a few times over.
    for _ in 0..6 {
        std::thread::sleep(std::time::Duration::from_millis(400));
        let sql = "select count(pg_terminate_backend(pid)) from pg_stat_activity \
                   where pid <> pg_backend_pid() and query like '%grail_rec_kill%'";
        let out = Command::new("psql").args(["-X", "-q", "-tA", &url, "-c", sql]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lost: u64 = summary["refusals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["reason"].as_str().unwrap().starts_with("connection lost"))
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert!(lost > 0, "no connection was lost: {summary}");
    // Killed before commit, a transaction is aborted; during commit, indeterminate. Either way
    // the sessions went on.
    assert!(count(&summary, "aborted") + count(&summary, "indeterminate") >= lost);
    assert_eq!(summary["stopped_early"].as_array().unwrap().len(), 0, "{summary}");
    let report = check(&file, "SER");
    assert_eq!(verdict(&report, "SER"), "holds");
}

#[test]
fn mariadb_serializable_holds_and_repeatable_read_violates_si() {
    let Some(url) = server_url("GRAIL_TEST_MYSQL_URL", "MariaDB") else { return };
    let ser = scratch("my-ser.edn");
    let summary = record(&contended(&url, "grail_rec_my", "serializable", ser.to_str().unwrap(), "2000"));
    assert!(summary["database"].as_str().unwrap().starts_with("MariaDB"), "{summary}");
    assert_eq!(verdict(&check(&ser, "SER"), "SER"), "holds");
    // InnoDB's repeatable read reads a snapshot but writes the latest version (no first-committer
    // rule): Hermitage has lost updates and read skew there.
    let rr = scratch("my-rr.json");
    record(&contended(&url, "grail_rec_my", "repeatable read", rr.to_str().unwrap(), "2000"));
    let report = check(&rr, "SI,PL-2");
    assert_eq!(verdict(&report, "SI"), "violated");
    assert_eq!(verdict(&report, "PL-2"), "holds");
}

#[test]
fn sqlite_records_serializable_histories() {
    let db = scratch("sqlite.db");
    let _ = std::fs::remove_file(&db);
    let file = scratch("sqlite.edn");
    let url = format!("sqlite:{}", db.display());
    let summary =
        record(&["--db", &url, "--out", file.to_str().unwrap(), "--sessions", "4", "--keys", "5", "--txns", "500"]);
    assert_eq!(summary["isolation"], "serializable");
    assert!(count(&summary, "committed") > 100, "{summary}");
    assert_eq!(verdict(&check(&file, "SER"), "SER"), "holds");
    // SQLite offers serializable only.
    let out =
        grail().args(["record", "--db", &url, "--isolation", "read committed", "--out", "x.edn"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SQLite does not offer \"read committed\""));
}

#[test]
fn bad_urls_and_options_are_named() {
    let run = |args: &[&str]| {
        let out = grail().arg("record").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = run(&["--db", "postgresql://nobody:secret@127.0.0.1:1/none", "--out", "x.edn"]);
    assert!(e.contains("cannot connect to postgresql://nobody:***@127.0.0.1:1/none"), "{e}");
    assert!(run(&["--db", "oracle://x", "--out", "x.edn"]).contains("unknown database URL"));
    assert!(run(&["--db", "sqlite:x.db", "--out", "x.txt"]).contains("give --format edn or json"));
    assert!(run(&["--db", "sqlite:x.db", "--out", "x.edn", "--ops", "5-2"]).contains("--ops"));
    assert!(run(&["--db", "sqlite:x.db", "--out", "x.edn", "--table", "a;b"]).contains("table name"));
    assert!(run(&["--db", "sqlite:x.db", "--out", "x.edn", "--shape", "tpcc"]).contains("unknown shape"));
}
