//! `grail check --html`: one self-contained page, chosen edges told apart from certain ones,
//! and a size bound that holds for a large history.

use std::path::{Path, PathBuf};
use std::process::Command;

fn grail(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grail")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into())
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn page(history: &str, dir: &Path, extra: &[&str]) -> String {
    let out = dir.join("report.html");
    let mut args = vec!["check", history, "--html", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, err) = grail(&args);
    assert!(code == 0 || code == 1, "{err}");
    std::fs::read_to_string(out).unwrap()
}

/// No script, and no URL but the SVG namespace.
fn self_contained(html: &str) {
    assert!(!html.contains("<script"), "a script");
    let rest = html.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !rest.contains("http://") && !rest.contains("https://") && !rest.contains("src="),
        "a reference outside the page"
    );
}

#[test]
fn a_small_report_has_verdicts_a_drawn_counterexample_and_a_timeline() {
    let dir = tmp("html-small");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/G-single/lost-update.edn");
    let html = page(case.to_str().unwrap(), &dir, &[]);
    self_contained(&html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<title>grail report: lost-update.edn</title>"));
    assert!(html
        .contains(r#"<tr data-level="SER"><td><strong>SER</strong></td><td class="verdict violated">violated</td>"#));
    assert!(
        html.contains(r#"<tr data-level="PL-2"><td><strong>PL-2</strong></td><td class="verdict holds">holds</td>"#)
    );
    assert_eq!(html.matches(r#"<section class="counterexample""#).count(), 1);
    // The cycle's two transactions: alone, their appends are unobserved, and either order of
    // them closes the same G-single (docs/levels.md, unobserved appends), so the reader that
    // orders x's versions is not needed.
    assert!(html.contains("Minimal sub-history (2 transactions;"), "{html}");
    assert!(
        html.contains("\n{:index 0, :type :invoke, :process 0, :value [[:r x nil] [:append x 1]]}\n"),
        "each record indexed, for Elle's loader"
    );
    assert!(html.contains(r#"<svg xmlns="http://www.w3.org/2000/svg" class="timeline""#));
    assert_eq!(html.matches(r#"class="txn marked""#).count(), 2);
    assert!(!html.contains("dasharray=\"6 4\""), "no chosen edge in a list-append cycle");
}

#[test]
fn chosen_edges_are_dashed_and_named() {
    // A register history without a version order: the polygraph's counterexample chooses the order.
    let dir = tmp("html-chosen");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/elle/register-write-skew.edn");
    let html = page(case.to_str().unwrap(), &dir, &[]);
    self_contained(&html);
    assert!(html.contains(r#"stroke-dasharray="6 4""#));
    assert!(html.contains(r#"<span class="chosen">chosen</span>"#));
    assert!(html.contains("chosen: an edge of the version order the search chose"));
}

#[test]
fn a_large_history_gives_a_bounded_page_that_says_what_it_left_out() {
    let dir = tmp("html-large");
    let h = dir.join("h.edn");
    let (code, err) = grail(&[
        "generate",
        "--txns",
        "20000",
        "--isolation",
        "read-committed",
        "--keys",
        "4",
        "--seed",
        "2",
        "--out",
        h.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = page(h.to_str().unwrap(), &dir, &["--max-cycles", "50"]);
    self_contained(&html);
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    assert!(html.contains(r#"id="timeline-density">20"#), "the timeline drawn as a density");
    let timeline = &html[html.find(r#"class="timeline""#).unwrap()..];
    let timeline = &timeline[..timeline.find("</svg>").unwrap()];
    assert!(!timeline.contains(r#"<rect class="txn"#), "no bar per transaction");
    assert!(timeline.matches(r#"<polygon class="density"#).count() == 3);
    assert_eq!(html.matches(r#"<section class="counterexample""#).count(), 20);
    assert!(html.contains(r#"id="cycles-omitted">"#), "says how many counterexamples are left out");
    assert!(html.contains(r#"id="findings-omitted">"#), "and how many findings");
}

/// A weak level's `co` step ends at another transaction's read (T5 read y from T1 after
/// observing T3): the steps table names that transaction, not the step's target (once the row
/// `T3 → T1 (co) | y | [:w y 2] | [:r y 1]`, a read T1 never made).
#[test]
fn a_commit_order_step_names_the_reader_of_its_read() {
    let dir = tmp("html-co");
    let case = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/cases/G-single/forced-write-cycle.edn");
    let html = page(case, &dir, &["--levels", "RA"]);
    assert!(html.contains("T3 &rarr; T1 (co)"), "the co step");
    assert!(html.contains("T5&#39;s [:r y 1]"), "the reader named");
    assert!(!html.contains("<td class=\"mono\">[:r y 1]</td>"), "the read given to T1");
}

/// Without times, the timeline's axis counts whole positions: distinct labels, each at the x
/// its position is drawn at (once `0, 0, 1, 1, 2, 3`, fractional positions truncated).
#[test]
fn an_untimed_timeline_labels_whole_positions() {
    let dir = tmp("html-axis");
    let case = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/cases/G-nonadjacent/long-fork.edn");
    let html = page(case, &dir, &["--levels", "all"]);
    let timeline = &html[html.find(r#"class="timeline""#).unwrap()..];
    let timeline = &timeline[..timeline.find("</svg>").unwrap()];
    let ticks: Vec<(f64, i64)> = timeline
        .split("<text x=\"")
        .skip(1)
        .filter(|t| t.contains("fill=\"#555\">"))
        .map(|t| {
            let x: f64 = t[..t.find('"').unwrap()].parse().unwrap();
            let label = &t[t.find("fill=\"#555\">").unwrap() + 12..];
            (x, label[..label.find('<').unwrap()].parse().unwrap())
        })
        .collect();
    assert!(ticks.len() >= 2, "{ticks:?}");
    // Evenly spaced whole positions: x grows with the label, in proportion.
    let (x0, p0) = ticks[0];
    let per = (ticks[1].0 - x0) / (ticks[1].1 - p0) as f64;
    for w in ticks.windows(2) {
        assert!(w[1].1 > w[0].1, "labels repeat: {ticks:?}");
    }
    for &(x, p) in &ticks {
        assert!((x - (x0 + per * (p - p0) as f64)).abs() < 0.2, "{ticks:?}");
    }
}
