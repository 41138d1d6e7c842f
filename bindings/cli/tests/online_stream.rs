//! `grail online -` takes standard input as it arrives (issue 35): a cycle is printed while the
//! writer is still writing, and the live stream gives what the same history gives from a file.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A lost update: the cycle closes with the second transaction (line 2).
const FIRST: &str = "{:type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}\n\
    {:type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}\n";
const REST: &str = "{:type :ok, :process 2, :value [[:r :x [1 2]]]}\n\
    {:type :ok, :process 3, :value [[:r :y []] [:append :y 1]]}\n";

fn grail() -> Command {
    Command::new(env!("CARGO_BIN_EXE_grail"))
}

/// `grail online - --json` with `FIRST` written to its standard input, which stays open; the
/// child, its input and its output lines.
fn online_with_first_lines() -> (std::process::Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    online_with(FIRST)
}

/// `grail online - --json` with `first` written to its standard input, which stays open.
fn online_with(first: &str) -> (std::process::Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    online_with_args(first, &[])
}

/// [`online_with`], with more arguments.
fn online_with_args(
    first: &str,
    more: &[&std::ffi::OsStr],
) -> (std::process::Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    let mut child = grail()
        .args(["online", "-", "--json"])
        .args(more)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    (child, stdin, rx)
}

#[test]
fn a_cycle_is_printed_while_the_input_is_still_open() {
    let (mut child, mut stdin, rx) = online_with_first_lines();
    // The input is still open here, so the cycle can only have come from the lines so far. (The
    // bound keeps a grail that waits for the end from hanging the suite; it is no speed target.)
    let first = rx.recv_timeout(Duration::from_secs(300)).expect("no cycle printed while the input was open");
    let cycle: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(cycle["closed_by"], 1, "{first}");
    assert_eq!(cycle["txns"], serde_json::json!([0, 1]), "{first}");
    assert!(cycle["violates"].as_array().unwrap().contains(&serde_json::json!("SER")), "{first}");
    // The rest, then the end of the input: the summary counts every transaction.
    stdin.write_all(REST.as_bytes()).unwrap();
    drop(stdin);
    let rest: Vec<String> = rx.iter().collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "a cycle was found: {rest:?}");
    let summary: serde_json::Value = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert_eq!(summary["stats"]["transactions"], 4, "{summary}");
    assert_eq!(summary["stats"]["cycles"], 1, "{summary}");
    // The stream ended within the window: the lost update violates SI, and PL-2 holds.
    assert_eq!(verdict(&summary, "SI"), "violated", "{summary}");
    assert_eq!(verdict(&summary, "PL-2"), "holds", "{summary}");
}

fn verdict(summary: &serde_json::Value, level: &str) -> String {
    summary["levels"].as_array().unwrap().iter().find(|l| l["level"] == level).unwrap()["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

/// docs/analysis.md: the console examples of the levels online print what the page shows.
#[test]
fn the_levels_online_are_what_the_docs_show() {
    let doc = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/analysis.md"))
        .unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = grail().current_dir(&root).args(["online", "examples/anomaly-mix.edn", "--quiet"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let block = doc
        .split("$ grail online examples/anomaly-mix.edn --quiet\n...\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        assert!(text.lines().any(|t| t == line), "docs line not printed: {line:?}\n{text}");
    }
    // The eviction example: a window of 1,000 leaves every classic level unknown, and says why.
    let dir = std::env::temp_dir().join(format!("grail-online-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("h.edn");
    let gen = grail().args(["generate", "--txns", "20000", "--seed", "3"]).output().unwrap();
    std::fs::write(&h, gen.stdout).unwrap();
    let part = doc.split("$ grail online h.edn --window 1000 --quiet\n...\n").nth(1).unwrap();
    let small =
        String::from_utf8(grail().arg("online").arg(&h).args(["--window", "1000", "--quiet"]).output().unwrap().stdout)
            .unwrap();
    for line in part.split("$ grail online h.edn --quiet").next().unwrap().lines().filter(|l| !l.trim().is_empty()) {
        assert!(small.lines().any(|t| t == line), "docs line not printed: {line:?}\n{small}");
    }
    let whole = String::from_utf8(grail().arg("online").arg(&h).arg("--quiet").output().unwrap().stdout).unwrap();
    let shown = part.split("$ grail online h.edn --quiet\n...\n").nth(1).unwrap().split("```").next().unwrap();
    for line in shown.lines().filter(|l| !l.trim().is_empty() && l.trim() != "...") {
        assert!(whole.lines().any(|t| t == line), "docs line not printed: {line:?}\n{whole}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Standard input, live, against the same history read from a file: the same lines and exit
/// code, for a generated history with injected anomalies, and a bad line named in the stream.
#[test]
fn the_live_stream_gives_what_the_file_gives() {
    let dir = std::env::temp_dir().join(format!("grail-online-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("h.edn");
    let generated = grail()
        .args(["generate", "--model", "list-append", "--isolation", "snapshot-isolation"])
        .args(["--inject", "lost-update:3,write-skew:2", "--txns", "3000", "--seed", "3", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    let from_file = grail().args(["online", "--json"]).arg(&file).output().unwrap();
    let from_stdin =
        grail().args(["online", "-", "--json"]).stdin(std::fs::File::open(&file).unwrap()).output().unwrap();
    assert_eq!(from_file.status.code(), Some(1));
    assert_eq!(from_stdin.status.code(), from_file.status.code());
    let cycles = String::from_utf8_lossy(&from_file.stdout).lines().count() - 1;
    assert!(cycles >= 5, "the injected anomalies are found: {cycles} cycles");
    assert!(from_stdin.stdout == from_file.stdout, "stdin and file differ");

    // A record cut off on line 3 of the stream: the cycle before it is printed, then the error.
    let (child, mut stdin, rx) = online_with_first_lines();
    stdin.write_all(b"{:type :ok, :value [[:r :x\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("-: line 3, column"), "{stderr}");
    assert_eq!(rx.iter().count(), 1, "the cycle of lines 1-2");
    std::fs::remove_dir_all(&dir).ok();
}

/// Reads lines from a child's standard output on a thread, so a test can wait for one.
fn lines_of(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    rx
}

#[cfg(unix)]
fn interrupt(child: &std::process::Child) {
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
}

/// `--follow`: lines appended are checked, a file replaced is read anew, and SIGINT ends the
/// stream with the summary of everything taken.
#[cfg(unix)]
#[test]
fn a_followed_file_is_read_as_it_grows_and_when_replaced_until_sigint() {
    let dir = std::env::temp_dir().join(format!("grail-online-follow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("h.edn");
    std::fs::write(&file, "{:type :ok, :process 9, :value [[:r :z []] [:append :z 1]]}\n").unwrap();
    let mut child = grail()
        .args(["online", "--json", "--follow"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    // Appended: the lost update closes on the second line appended.
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(FIRST.as_bytes()).unwrap();
    drop(f);
    let first = rx.recv_timeout(Duration::from_secs(300)).expect("no cycle from the appended lines");
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["txns"], serde_json::json!([1, 2]), "{first}");
    // Replaced by a new file (as a log rotates): read from its start.
    let next = dir.join("next.edn");
    std::fs::write(&next, FIRST.replace(":x", ":w")).unwrap();
    std::fs::rename(&next, &file).unwrap();
    let second = rx.recv_timeout(Duration::from_secs(300)).expect("no cycle from the new file");
    let second: serde_json::Value = serde_json::from_str(&second).unwrap();
    assert_eq!(second["keys"], serde_json::json!([["w"], ["w"]]), "{second}");
    interrupt(&child);
    let summary = rx.recv_timeout(Duration::from_secs(300)).expect("no summary after SIGINT");
    let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(summary["stats"]["transactions"], 5, "{summary}");
    assert_eq!(summary["stats"]["cycles"], 2, "{summary}");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("stopped by a signal after 5 lines"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// SIGINT on a pipe that is still open: the summary of what was read, not a killed process.
#[cfg(unix)]
#[test]
fn sigint_on_standard_input_prints_the_summary() {
    let (child, stdin, rx) = online_with_first_lines();
    rx.recv_timeout(Duration::from_secs(300)).expect("no cycle");
    interrupt(&child);
    let summary = rx.recv_timeout(Duration::from_secs(300)).expect("no summary after SIGINT");
    let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(summary["stats"]["transactions"], 2, "{summary}");
    // Stopped, not ended: the lost update is a violation, and nothing holds.
    assert_eq!(verdict(&summary, "SER"), "violated", "{summary}");
    assert!(summary["levels"].as_array().unwrap().iter().all(|l| l["verdict"] != "holds"), "{summary}");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// With timestamps, live (issue 35): TimeKiller's transactions one a line and generated register
/// histories with start and commit timestamps go through the timestamp checker as they arrive:
/// a write conflict is printed while the pipe is open, and standard input gives what the file
/// (or TimeKiller's own array) gives.
#[test]
fn timestamps_are_checked_live() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let array: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(root.join("examples/timekiller.json")).unwrap()).unwrap();
    let lines: Vec<String> = array.iter().map(|t| format!("{t}\n")).collect();
    let mut child = grail()
        .args(["online", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines[..2].concat().as_bytes()).unwrap();
    stdin.flush().unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    let first = rx.recv_timeout(Duration::from_secs(300)).expect("no violation while the input was open");
    assert!(first.contains("\"type\":\"write-conflict\""), "{first}");
    stdin.write_all(lines[2..].concat().as_bytes()).unwrap();
    drop(stdin);
    let mut live: Vec<String> = vec![first];
    live.extend(rx.iter());
    assert_eq!(child.wait().unwrap().code(), Some(1));
    let whole = grail().args(["online", "--json"]).arg(root.join("examples/timekiller.json")).output().unwrap();
    assert_eq!(live.join("\n") + "\n", String::from_utf8(whole.stdout).unwrap());

    // A TimeKiller line whose ids are not integers: refused, with the way out.
    let named = lines[0].replace("\"sid\":1", "\"sid\":\"a\"");
    assert_ne!(named, lines[0]);
    let out = grail()
        .args(["online", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut c = out;
    c.stdin.take().unwrap().write_all(named.as_bytes()).unwrap();
    let out = c.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 1, column 1: a TimeKiller transaction in a stream needs integer"), "{err}");

    let dir = std::env::temp_dir().join(format!("grail-online-ts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, iso) in ["snapshot-isolation", "read-committed"].iter().enumerate() {
        let h = dir.join(format!("h{i}.edn"));
        let gen = grail()
            .args([
                "generate",
                "--txns",
                "2000",
                "--model",
                "rw-register",
                "--timestamps",
                "--seed",
                "5",
                "--isolation",
                iso,
            ])
            .output()
            .unwrap();
        std::fs::write(&h, &gen.stdout).unwrap();
        for level in ["SI", "SER"] {
            let file = grail().arg("online").arg(&h).args(["--json", "--level", level]).output().unwrap();
            let mut piped = grail()
                .args(["online", "-", "--json", "--level", level])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            piped.stdin.take().unwrap().write_all(&gen.stdout).unwrap();
            let out = piped.wait_with_output().unwrap();
            assert_eq!(out.stdout, file.stdout, "{iso} {level}");
            assert_eq!(out.status.code(), file.status.code(), "{iso} {level}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A register stream (no version order): checked in rounds of the offline engine, one when the
/// input pauses, so a lost update in the first lines is printed while the input is still open;
/// at the end, every level as `grail check` decides it, the stream having fit the window.
#[test]
fn a_register_stream_is_checked_in_rounds_while_the_input_is_open() {
    let first = "{:type :ok, :process 0, :value [[:r :x nil] [:w :x 1]]}\n\
        {:type :ok, :process 1, :value [[:r :x nil] [:w :x 2]]}\n";
    let rest = "{:type :ok, :process 2, :value [[:r :x 2]]}\n{:type :ok, :process 3, :value [[:w :y 1]]}\n";
    let (mut child, mut stdin, rx) = online_with(first);
    let line = rx.recv_timeout(Duration::from_secs(300)).expect("no cycle printed while the input was open");
    let cycle: serde_json::Value = serde_json::from_str(&line).unwrap();
    // Through an order of the writes the polygraph chose: no class, named by its anomaly.
    assert_eq!((&cycle["anomaly"], &cycle["adya"]), (&"G-single".into(), &"none".into()), "{line}");
    assert!(cycle["violates"].as_array().unwrap().contains(&serde_json::json!("SI")), "{line}");
    stdin.write_all(rest.as_bytes()).unwrap();
    drop(stdin);
    let out: Vec<String> = rx.iter().collect();
    assert_eq!(child.wait().unwrap().code(), Some(1));
    let summary: serde_json::Value = serde_json::from_str(out.last().unwrap()).unwrap();
    assert!(summary["stats"]["rounds"].as_u64().unwrap() >= 2, "{summary}");
    // The same verdicts as grail check, level by level (strict-SER and strong-SI need times).
    let dir = tempdir();
    let file = dir.join("registers.edn");
    std::fs::write(&file, format!("{first}{rest}")).unwrap();
    let check = grail().args(["check", "--levels", "all", "--json"]).arg(&file).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    for (level, r) in report["levels"].as_object().unwrap() {
        let online = verdict(&summary, level);
        if matches!(level.as_str(), "strict-SER" | "strong-SI") && online == "unknown" {
            continue;
        }
        assert_eq!(online, r["verdict"].as_str().unwrap(), "{level}: {summary}");
    }
    assert_eq!(verdict(&summary, "PL-2"), "holds", "{summary}");
}

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("grail-online-registers-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A stream that ends before any committed transaction (the intake saw its end): the summary,
/// not "the reading thread stopped".
#[test]
fn a_stream_without_a_committed_transaction_ends_with_its_summary() {
    for input in
        ["{:type :fail, :process 0, :value [[:append :x 1]]}\n", "{:type :info, :process 0, :value [[:w :x 1]]}", ""]
    {
        let out = with_stdin(grail().args(["online", "-", "--json"]), input.as_bytes());
        let err = String::from_utf8_lossy(&out.stderr);
        // Exit 1, as grail check's on an empty capture: no level is decided.
        assert_eq!(out.status.code(), Some(1), "{input:?}: {err}");
        let summary: serde_json::Value =
            serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
        assert_eq!(summary["stats"]["committed"], 0, "{input:?}");
        assert_eq!(verdict(&summary, "PL-1"), "unknown", "{input:?}");
    }
}

/// `grail online - --wal LOG`: the log read whole at the start gives every round its version
/// order; a log that is not one is refused naming its file and line.
#[test]
fn a_live_register_stream_takes_a_write_ahead_log() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/register");
    let text = std::fs::read(root.join("lost-update-wal.edn")).unwrap();
    let run =
        |wal: &std::path::Path| with_stdin(grail().args(["online", "-", "--json", "--quiet", "--wal"]).arg(wal), &text);
    let out = run(&root.join("lost-update-wal.log"));
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(verdict(&summary, "SER"), "violated", "{summary}");
    assert_eq!(verdict(&summary, "PL-2"), "holds", "{summary}");
    let bad = run(&root.join("lost-update-wal.edn"));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("lost-update-wal.edn: line 1"), "{err}");
}

/// `grail online - --wal LOG` where the database is still writing the log: a write cycle (G0)
/// that only the log's order shows is printed once its records are written, while the input is
/// still open; before them, no order is assumed and nothing is printed.
#[test]
fn a_write_ahead_log_is_read_as_it_grows() {
    let dir = tempdir();
    let log = dir.join("growing.log");
    std::fs::write(&log, "").unwrap();
    let first =
        "{:type :ok, :process 0, :value [[:w 1 1] [:w 2 1]]}\n{:type :ok, :process 1, :value [[:w 1 2] [:w 2 2]]}\n";
    let (child, stdin, rx) = online_with_args(first, &["--wal".as_ref(), log.as_os_str()]);
    assert!(rx.recv_timeout(Duration::from_millis(800)).is_err(), "a cycle printed before the log said anything");
    // Key 1: 1 then 2 (the first transaction's write first); key 2: 2 then 1. The database's
    // transactions (a, b, c) need not be the history's: writes are matched by key and value.
    let records = [
        r#"{"type":2200,"tid":"a"}"#,
        r#"{"type":2300,"tid":"a","data":{"_key":"1","rwAttr":1}}"#,
        r#"{"type":2201,"tid":"a"}"#,
        r#"{"type":2200,"tid":"b"}"#,
        r#"{"type":2300,"tid":"b","data":{"_key":"2","rwAttr":2}}"#,
        r#"{"type":2300,"tid":"b","data":{"_key":"1","rwAttr":2}}"#,
        r#"{"type":2201,"tid":"b"}"#,
        r#"{"type":2200,"tid":"c"}"#,
        r#"{"type":2300,"tid":"c","data":{"_key":"2","rwAttr":1}}"#,
    ];
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    for r in records {
        writeln!(f, "{r}").unwrap();
    }
    f.flush().unwrap();
    assert!(rx.recv_timeout(Duration::from_millis(800)).is_err(), "c has not committed: its write is unordered");
    f.write_all(br#"{"type":2201,"tid":"c"}"#).unwrap();
    f.write_all(b"\n").unwrap();
    f.flush().unwrap();
    let line = rx.recv_timeout(Duration::from_secs(300)).expect("no cycle printed once the log was written");
    let cycle: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(cycle["adya"], "G0", "{line}");
    // The stream ends while the database is still writing a line: it is left out, said so.
    f.write_all(br#"{"type":22"#).unwrap();
    f.flush().unwrap();
    drop(stdin);
    let rest: Vec<String> = rx.iter().collect();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{rest:?} {err}");
    assert!(err.contains("growing.log: the log's last line, without its line break, was not read"), "{err}");
    let summary: serde_json::Value = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert_eq!(verdict(&summary, "PL-1"), "violated", "{summary}");
    // Aion's checker of timestamps takes no log.
    let timed = "{:type :ok, :process 0, :value [[:w 1 1]], :start-ts 1, :commit-ts 2}\n";
    let out = with_stdin(grail().args(["online", "-", "--wal"]).arg(&log), timed.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rounds sends them to the rounds"));
}

/// `--rounds`: a timestamped register history through the rounds of the engine (every level,
/// the claimed timestamps checked as offline) rather than Aion's checker; from a file and live,
/// `grail check`'s verdicts; with `--timestamps`, a usage error.
#[test]
fn rounds_check_a_timestamped_register_history_at_every_level() {
    let gen = grail()
        .args(["generate", "--model", "rw-register", "--timestamps", "--isolation", "snapshot-isolation"])
        .args(["--txns", "1500", "--inject", "write-skew:2,lost-update:1", "--seed", "4"])
        .output()
        .unwrap();
    let dir = tempdir();
    let file = dir.join("timestamped.edn");
    std::fs::write(&file, &gen.stdout).unwrap();
    let check = grail().args(["check", "--levels", "all", "--json"]).arg(&file).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    let from_file = grail().args(["online", "--rounds", "--json", "--quiet"]).arg(&file).output().unwrap();
    let live = with_stdin(grail().args(["online", "-", "--rounds", "--json", "--quiet"]), &gen.stdout);
    for out in [from_file, live] {
        assert_eq!(out.status.code(), Some(1));
        let summary: serde_json::Value =
            serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
        for (level, r) in report["levels"].as_object().unwrap() {
            assert_eq!(verdict(&summary, level), r["verdict"].as_str().unwrap(), "{level}: {summary}");
        }
    }
    let both = grail().args(["online", "--rounds", "--timestamps"]).arg(&file).output().unwrap();
    assert_eq!(both.status.code(), Some(2), "{}", String::from_utf8_lossy(&both.stderr));
}

/// Run `cmd` with `input` on its standard input (then closed); its output.
fn with_stdin(cmd: &mut Command, input: &[u8]) -> std::process::Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// A claimed commit or version order is refused, from a file or a stream, never left out (left
/// out, SER held online where `grail check` finds the read the commit order puts after its
/// writer).
#[test]
fn a_claimed_order_is_refused_from_a_file_and_from_a_stream() {
    let dir = tempdir();
    let edn = "{:type :ok, :process 0, :value [[:w x 1]]}\n{:type :ok, :process 1, :value [[:r x nil]]}\n{:commit-order [0 1]}\n";
    let json = r#"{"transactions":[{"id":1,"ops":[["w","x",1],["w","y",1]]},{"id":2,"ops":[["w","x",2],["w","y",2]]}],"version_order":{"x":[1,2],"y":[2,1]}}"#;
    for (name, text, what) in [("co.edn", edn, "claimed commit order"), ("vo.json", json, "claimed version order")] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let check = grail().args(["check", "--json"]).arg(&path).output().unwrap();
        assert_eq!(check.status.code(), Some(1), "grail check finds what the claim shows: {name}");
        let file = grail().arg("online").arg(&path).output().unwrap();
        let err = String::from_utf8_lossy(&file.stderr);
        assert_eq!(file.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(what), "{name}: {err}");
        let out = with_stdin(grail().args(["online", "-", "--json"]), text.as_bytes());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(what), "{name}: {err}");
    }
}

/// The exit code is the verdicts', as grail check's: 0 only when every level holds. A window
/// too small for the stream leaves levels unknown: 1 (it was 0 with every level unknown).
#[test]
fn the_exit_code_is_0_only_when_every_level_holds() {
    let gen =
        grail().args(["generate", "--txns", "100", "--sessions", "3", "--keys", "4", "--seed", "7"]).output().unwrap();
    assert!(gen.status.success());
    for (window, code, all) in [("1000", 0, "holds"), ("10", 1, "unknown")] {
        let out = with_stdin(grail().args(["online", "-", "--json", "--window", window]), &gen.stdout);
        assert_eq!(out.status.code(), Some(code), "window {window}: {}", String::from_utf8_lossy(&out.stderr));
        let summary: serde_json::Value =
            serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
        assert_eq!(summary["stats"]["cycles"], 0);
        for l in summary["levels"].as_array().unwrap() {
            assert_eq!(l["verdict"], all, "window {window}: {l}");
        }
    }
}

/// A register stream's value that no transaction wrote has no writer (JSON `null`; it was the
/// reader's own id), PL-1 holds with it set aside, and the summary gives no count of keys (its
/// rounds keep none: it said "0 keys").
#[test]
fn a_register_streams_garbage_read_has_no_writer_and_its_summary_no_keys() {
    let input =
        "{:index 0, :type :ok, :process 0, :value [[:w x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r x 5]]}\n";
    let out = with_stdin(grail().args(["online", "-", "--json"]), input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let finding: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(finding["anomaly"], "garbage-read", "{text}");
    assert_eq!(finding["reader"], 1);
    assert!(finding["writer"].is_null(), "{finding}");
    // PL-1 holds with the read set aside, as grail check says (it said "holds" alone).
    let summary: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let pl1 = summary["levels"].as_array().unwrap().iter().find(|l| l["level"] == "PL-1").unwrap();
    assert_eq!(pl1["verdict"], "holds");
    assert_eq!(pl1["set_aside"], serde_json::json!(["garbage-read"]), "{pl1}");
    let pl2 = summary["levels"].as_array().unwrap().iter().find(|l| l["level"] == "PL-2").unwrap();
    assert!(pl2.get("set_aside").is_none(), "violated: nothing set aside: {pl2}");
    let out = with_stdin(grail().args(["online", "-"]), input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("T1 read a value nobody wrote (garbage-read)"), "{text}");
    let summary = text.lines().find(|l| l.contains("window peak")).unwrap();
    assert!(!summary.contains("key"), "{summary}");
    assert!(text.contains("  PL-1                 holds     (with garbage-read set aside)\n"), "{text}");
}

/// A register round's cycle through version orders the polygraph chose marks those steps
/// (JSON `chosen`, text `(chosen)`): they are orders the history leaves open, not dependencies
/// it shows (the lines read as if every step were certain).
#[test]
fn a_round_marks_the_steps_the_polygraph_chose() {
    let gen = grail()
        .args(["generate", "--txns", "400", "--sessions", "4", "--keys", "5", "--model", "rw-register"])
        .args([
            "--isolation",
            "snapshot-isolation",
            "--inject",
            "write-skew:2,aborted-read:1,lost-update:1",
            "--seed",
            "9",
        ])
        .output()
        .unwrap();
    assert!(gen.status.success());
    let out = with_stdin(grail().args(["online", "-", "--json", "--window", "16"]), &gen.stdout);
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let chosen: Vec<&serde_json::Value> = lines.iter().filter(|l| l.get("chosen").is_some()).collect();
    assert!(!chosen.is_empty(), "no cycle through a chosen order");
    for c in &chosen {
        let n = c["txns"].as_array().unwrap().len();
        assert!(c["chosen"].as_array().unwrap().iter().all(|i| (i.as_u64().unwrap() as usize) < n), "{c}");
        assert_eq!(c["zellag"], "none", "a cycle through choices is in no class: {c}");
    }
    let out = with_stdin(grail().args(["online", "-", "--window", "16"]), &gen.stdout);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains(" (chosen)-> ")).count(), chosen.len(), "{text}");
}
