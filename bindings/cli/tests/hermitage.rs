//! `grail hermitage` on SQLite (bundled: no server needed), and its errors. The PostgreSQL and
//! MariaDB rows are tested against Hermitage's published table in tests/databases.rs.

use std::process::Command;

fn grail(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grail")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("grail-hermitage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn sqlite_prevents_every_anomaly_and_each_test_leaves_its_history() {
    let dir = temp("lite");
    let db = format!("sqlite:{}", dir.join("h.db").display());
    let out = dir.join("out");
    let (code, stdout, stderr) = grail(&["hermitage", "--db", &db, "--json", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(doc["version"].as_str().unwrap().starts_with("SQLite 3."), "{doc}");
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["level"], "serializable");
    assert!(rows[0]["published"].is_null(), "Hermitage has no SQLite row");
    let cells = rows[0]["cells"].as_object().unwrap();
    assert_eq!(cells.len(), 10);
    for (column, cell) in cells {
        assert_eq!(cell["cell"], "prevented", "{column}: {cell}");
    }
    // Each test's history reads back and grail checks it as the cell says; the transcript
    // shows what each session's statements did.
    for column in ["G0", "P4", "G-single", "G2-item", "G2", "OTV", "PMP"] {
        let json = out.join("serializable").join(format!("{column}.json"));
        let (code, stdout, stderr) = grail(&["check", json.to_str().unwrap(), "--levels", "SER"]);
        assert_eq!(code, 0, "{column}: SER holds on SQLite's history\n{stdout}{stderr}");
        let log = std::fs::read_to_string(out.join("serializable").join(format!("{column}.log"))).unwrap();
        assert!(log.starts_with("T1: begin (serializable) — ok"), "{log}");
        assert!(log.contains("cell: {\"cell\":\"prevented\"}"), "{log}");
    }
    // The lost-update test blocked T2's write until T1 committed, then T2 failed or waited:
    // either way the transcript says which.
    let p4 = std::fs::read_to_string(out.join("serializable/P4.log")).unwrap();
    assert!(p4.contains("T2: update 1 => 12 — BLOCKS") || p4.contains("T2: update 1 => 12 — ERROR"), "{p4}");
    // PMP's history holds predicate reads: native JSON only, no EDN.
    assert!(!out.join("serializable/PMP.edn").exists());
    assert!(out.join("serializable/G0.edn").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sqlite_text_table_names_the_columns_and_the_legend() {
    let dir = temp("text");
    let db = format!("sqlite:{}", dir.join("h.db").display());
    let (code, stdout, stderr) = grail(&["hermitage", "--db", &db, "--tests", "G0,p4"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| level | G0 | P4 |\n"), "{stdout}");
    assert!(stdout.contains("| serializable | ✓ | ✓ |\n"), "{stdout}");
    assert!(stdout.contains("✓ prevented: grail checked the test's history"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_requests_are_named() {
    let (code, _, err) = grail(&["hermitage", "--db", "oracle://x"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown database URL \"oracle://x\""), "{err}");
    let (code, _, err) = grail(&["hermitage", "--db", "sqlite:/tmp/x.db", "--isolation", "read committed"]);
    assert_eq!(code, 2);
    assert!(err.contains("SQLite does not offer \"read committed\" here: it offers serializable"), "{err}");
    let (code, _, err) = grail(&["hermitage", "--db", "sqlite:/tmp/x.db", "--isolation", "snapshot"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown isolation level \"snapshot\""), "{err}");
    // Each session opens the database: an in-memory one would be one per session, and every
    // statement would fail on a missing table (and every cell read as prevented).
    for db in ["sqlite::memory:", "sqlite:"] {
        let (code, _, err) = grail(&["hermitage", "--db", db]);
        assert_eq!(code, 2, "{db}");
        assert!(err.contains("an in-memory database is one per connection"), "{err}");
    }
    let (code, _, err) = grail(&["hermitage", "--db", "sqlite:/tmp/x.db", "--tests", "G3"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown test \"G3\""), "{err}");
    // Nothing listens on port 1: the connection error names the server, without a password.
    let (code, _, err) = grail(&["hermitage", "--db", "postgresql://u:secret@127.0.0.1:1/db"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot connect to postgresql://u:***@127.0.0.1:1/db"), "{err}");
    assert!(!err.contains("secret"), "{err}");
}
