//! The database servers that `make test` starts (scripts/db-servers.sh) answer on the URLs in
//! GRAIL_TEST_POSTGRES_URL and GRAIL_TEST_MYSQL_URL, and a row one client commits is read by the
//! next. An unset variable means its server did not start: the test says it is skipped, and fails
//! when CI=true.
//!
//! Run by scripts/test-db.sh (`make test-db`), which starts the servers, and not by
//! `cargo test --workspace` (`test = false` in Cargo.toml), where they are not up.

use std::io::Write;
use std::process::Command;

#[path = "databases/record.rs"]
mod record;

/// The server's URL, or None after saying why its test is skipped (a failure when CI=true).
fn server_url(var: &str, server: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let why = format!("{var} is unset: no {server} to test (scripts/test-db.sh starts one, or says why not)");
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
            // Straight to stderr: libtest captures eprintln! and shows it only for failed tests.
            let _ = writeln!(std::io::stderr(), "skipped: {why}");
            None
        }
    }
}

/// The command's standard output, trimmed; a failure to run or a non-zero exit fails the test.
fn output(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn postgres_keeps_a_committed_row_with_its_commit_time() {
    let Some(url) = server_url("GRAIL_TEST_POSTGRES_URL", "PostgreSQL") else { return };
    let psql =
        |sql: &str| output(Command::new("psql").args(["-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", &url, "-c", sql]));
    psql("DROP TABLE IF EXISTS grail_smoke; CREATE TABLE grail_smoke (k int PRIMARY KEY, v text)");
    psql("INSERT INTO grail_smoke VALUES (1, 'written')");
    assert_eq!(psql("SELECT v FROM grail_smoke WHERE k = 1"), "written");
    // track_commit_timestamp = on: a committed row's transaction has a commit time.
    assert_eq!(psql("SELECT pg_xact_commit_timestamp(xmin) IS NOT NULL FROM grail_smoke"), "t");
    psql("DROP TABLE grail_smoke");
}

/// mysql://USER@HOST:PORT/DATABASE, the form scripts/db-servers.sh writes, as the `mariadb`
/// client's options.
fn mariadb_options(url: &str) -> Vec<String> {
    let parts = url.strip_prefix("mysql://").and_then(|rest| {
        let (user, rest) = rest.split_once('@')?;
        let (host_port, database) = rest.split_once('/')?;
        let (host, port) = host_port.split_once(':')?;
        Some([
            format!("--user={user}"),
            format!("--host={host}"),
            format!("--port={port}"),
            format!("--database={database}"),
        ])
    });
    let parts =
        parts.unwrap_or_else(|| panic!("GRAIL_TEST_MYSQL_URL={url:?}: expected mysql://USER@HOST:PORT/DATABASE"));
    ["--no-defaults", "--batch", "--skip-column-names"].iter().map(|s| s.to_string()).chain(parts).collect()
}

#[test]
fn mariadb_keeps_a_committed_row() {
    let Some(url) = server_url("GRAIL_TEST_MYSQL_URL", "MariaDB") else { return };
    let options = mariadb_options(&url);
    let mariadb = |sql: &str| output(Command::new("mariadb").args(&options).args(["-e", sql]));
    mariadb("DROP TABLE IF EXISTS grail_smoke; CREATE TABLE grail_smoke (k int PRIMARY KEY, v text) ENGINE = InnoDB");
    mariadb("INSERT INTO grail_smoke VALUES (1, 'written')");
    assert_eq!(mariadb("SELECT v FROM grail_smoke WHERE k = 1"), "written");
    mariadb("DROP TABLE grail_smoke");
}

/// `grail hermitage --json` on `url`: per level, (column, grail's mark, Hermitage's published mark).
fn hermitage(url: &str) -> Vec<(String, Vec<(String, String, String)>)> {
    let out = Command::new(env!("CARGO_BIN_EXE_grail")).args(["hermitage", "--db", url, "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mark = |cell: &serde_json::Value| match cell["cell"].as_str() {
        Some("prevented") => "✓".to_string(),
        Some("occurs") => "—".to_string(),
        Some("read-only") => "R/O".to_string(),
        other => panic!("a cell neither prevented nor occurs: {other:?} {cell}"),
    };
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let cells = r["cells"].as_object().unwrap();
            let published = r["published"].as_object().unwrap();
            let row = cells
                .iter()
                .map(|(c, cell)| (c.clone(), mark(cell), published[c].as_str().unwrap().to_string()))
                .collect();
            (r["level"].as_str().unwrap().to_string(), row)
        })
        .collect()
}

#[test]
fn postgres_reproduces_hermitages_published_rows() {
    let Some(url) = server_url("GRAIL_TEST_POSTGRES_URL", "PostgreSQL") else { return };
    let rows = hermitage(&url);
    let levels: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(levels, ["read committed", "repeatable read", "serializable"]);
    for (level, row) in &rows {
        assert_eq!(row.len(), 10);
        for (column, grail, published) in row {
            assert_eq!(grail, published, "PostgreSQL {level}, {column}");
        }
    }
}

#[test]
fn mariadb_reproduces_mysqls_published_rows_but_pmps_write_predicate_variant() {
    let Some(url) = server_url("GRAIL_TEST_MYSQL_URL", "MariaDB") else { return };
    let rows = hermitage(&url);
    let levels: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(levels, ["read uncommitted", "read committed", "repeatable read", "serializable"]);
    for (level, row) in &rows {
        for (column, grail, published) in row {
            if published == "R/O" && column == "PMP" {
                // Hermitage's write-predicate test is run for G-single only: PMP's read-only
                // test is prevented.
                assert_eq!(grail, "✓", "MariaDB {level}, {column}");
            } else {
                assert_eq!(grail, published, "MariaDB {level}, {column}");
            }
        }
    }
}
