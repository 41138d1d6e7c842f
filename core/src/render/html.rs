//! Self-contained HTML pages: the report of `grail check --html` (also Python's
//! `Report.to_html()` and JS's `report.toHTML()`), and Elle's `incompatible-order/<key>.html`.
//! No script, no network: styles inline, drawings inline SVG. Pages are bounded in size
//! whatever the history: lists are cut to a fixed number of rows, a large history's timeline
//! is drawn as a density, and the page says what it left out.

use super::svg::{cycle_svg, edge_color, escape, status_color};
use crate::explain::Ids;
use crate::export::reproduce::reproducing_sub_history;
use crate::history::{Arg, History, OpKind, Status, TxnId, Value};
use crate::level::Level;
use crate::read::nemesis::RawOp;
use crate::report::CheckOptions;
use crate::report::{AnomalyReport, CycleReport, Report};
use std::collections::BTreeSet;
use std::fmt::Write;

/// A light colour for a value (Elle's `rand-bg-color`: a hash squeezed into 130-250 per channel).
fn value_color(v: Value) -> String {
    let mut x: u64 = match v {
        Value::Int(i) => i as u64,
        Value::Str(s) => 0x9E37_79B9_7F4A_7C15 ^ s as u64,
    };
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    let c = |b: u64| 130 + (b & 255) * 120 / 255;
    format!("#{:02x}{:02x}{:02x}", c(x), c(x >> 8), c(x >> 16))
}

/// Elle's `incompatible-order/<key>.html`: every committed read of the key, one row each (index,
/// time in seconds, process, function, the elements), elements that disagree with the longest
/// read highlighted.
pub fn incompatible_order_html(h: &History, key: u32) -> String {
    let mut reads: Vec<(TxnId, u32)> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Committed {
            continue;
        }
        for o in txn.ops_start..txn.ops_end {
            let op = &h.ops[o as usize];
            if op.kind == OpKind::Read && op.key == key {
                reads.push((t as TxnId, o));
            }
        }
    }
    let longest: &[Value] =
        reads.iter().map(|&(_, o)| h.list(&h.ops[o as usize])).max_by_key(|l| l.len()).unwrap_or(&[]);
    let name = escape(&h.show(h.key(key)));
    let mut s = format!(
        "<html><head><meta charset=\"utf-8\"><title>All Reads of {name}</title><style>th {{ text-align: left; }} td {{ padding: 0 4px; font-family: monospace; }}</style></head><body><h1>All Reads of {name}</h1><table><thead><tr><th>Index</th><th>Time (s)</th><th>Process</th><th>Fun</th><th colspan=\"32\">Value</th></tr></thead><tbody>"
    );
    for (t, o) in reads {
        let txn = &h.txns[t as usize];
        let time = txn.complete_time.map_or(String::new(), |ns| format!("{:.2}", ns as f64 / 1e9));
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{time}</td><td>{}</td><td>{}</td>",
            txn.id,
            txn.process.map_or(String::new(), |p| p.to_string()),
            escape(h.label(t).unwrap_or("txn"))
        );
        let op = &h.ops[o as usize];
        let list = match op.arg {
            Arg::Nil => &[][..],
            _ => h.list(op),
        };
        for (i, &e) in list.iter().enumerate() {
            if longest.get(i) == Some(&e) {
                let _ = write!(s, "<td>{}</td>", escape(&h.show(e)));
            } else {
                let _ = write!(s, "<td style=\"background: {}\">{}</td>", value_color(e), escape(&h.show(e)));
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></body></html>");
    s
}

/// Bounds of the report page: it stays a few megabytes at most whatever the history.
#[derive(Debug, Clone)]
pub struct HtmlOptions {
    /// The page title (the history's file name, say).
    pub title: String,
    /// Counterexamples drawn, at most.
    pub max_cycles: usize,
    /// Findings listed, at most.
    pub max_findings: usize,
    /// Up to this many transactions the timeline draws each one; beyond, their density.
    pub max_timeline_txns: usize,
    /// Nemesis operations drawn, at most.
    pub max_nemesis: usize,
    /// Bytes of sub-history per counterexample, at most.
    pub max_subhistory_bytes: usize,
    /// Checks spent looking for each counterexample's minimal sub-history, at most.
    pub max_subhistory_checks: usize,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        HtmlOptions {
            title: "history".into(),
            max_cycles: 20,
            max_findings: 200,
            max_timeline_txns: 2000,
            max_nemesis: 500,
            max_subhistory_bytes: 50_000,
            max_subhistory_checks: crate::export::reproduce::DEFAULT_MAX_CHECKS,
        }
    }
}

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px; color: #1d1d1f; line-height: 1.45; }
h1 { font-size: 1.5em; margin-bottom: 4px; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 4px; } h3 { font-size: 1.05em; margin-bottom: 4px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; color: #fff; }
.badge.valid, .holds { background: #1b7f3b; } .badge.invalid, .violated { background: #b3261e; } .badge.unknown, .unknown { background: #8a6d00; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.92em; } th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; } th { background: #f5f5f7; }
td.verdict { color: #fff; font-weight: 600; } code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f7f7f9; border: 1px solid #e3e3e8; padding: 8px; overflow-x: auto; white-space: pre; }
.warning { background: #fff4e5; border: 1px solid #f0b35a; padding: 8px 12px; border-radius: 6px; }
.note { color: #555; } .omitted { color: #8a6d00; font-style: italic; }
.counterexample { border: 1px solid #e3e3e8; border-radius: 8px; padding: 4px 16px 12px; margin: 16px 0; }
.drawing { overflow-x: auto; } .chosen { color: #5B00C0; font-style: italic; }
.legend span { margin-right: 14px; } .swatch { display: inline-block; width: 22px; height: 0; border-top: 2px solid; vertical-align: middle; margin-right: 4px; }
details summary { cursor: pointer; color: #0058AD; }
"#;

fn badge(valid: Option<bool>) -> &'static str {
    match valid {
        Some(true) => r#"<span class="badge valid">VALID</span>"#,
        Some(false) => r#"<span class="badge invalid">INVALID</span>"#,
        None => r#"<span class="badge unknown">UNKNOWN</span>"#,
    }
}

fn names(ls: &[Level]) -> String {
    ls.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
}

/// Every distinct counterexample cycle: the levels' (per component) and the anomalies' (each once),
/// with the levels each violates.
fn distinct_cycles(r: &Report) -> Vec<(&CycleReport, Vec<String>)> {
    let mut out: Vec<(&CycleReport, Vec<String>)> = Vec::new();
    let key = |c: &CycleReport| (c.txns.clone(), c.steps.iter().map(|s| s.ty).collect::<Vec<_>>());
    let mut seen: Vec<(Vec<u64>, Vec<crate::graph::EdgeType>)> = Vec::new();
    for (l, lr) in &r.levels.0 {
        for c in &lr.cycles {
            let k = key(c);
            match seen.iter().position(|x| *x == k) {
                Some(i) => out[i].1.push(l.name().to_string()),
                None => {
                    seen.push(k);
                    out.push((c, vec![l.name().to_string()]));
                }
            }
        }
    }
    for a in &r.anomalies {
        if let Some(c) = &a.cycle {
            let k = key(c);
            if !seen.contains(&k) {
                seen.push(k);
                out.push((
                    c,
                    a.levels.iter().filter(|l| r.levels.get(**l).is_some()).map(|l| l.name().to_string()).collect(),
                ));
            }
        }
    }
    out
}

/// The report as one self-contained HTML page. `nemesis` (from [`crate::read::nemesis::scan`] of the
/// history's text) marks the fault injections on the timeline.
pub fn report_html(r: &Report, h: &History, nemesis: &[RawOp], o: &HtmlOptions) -> String {
    let mut s = String::with_capacity(64 * 1024);
    let title = escape(&o.title);
    let _ = writeln!(s, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>grail report: {title}</title><link rel=\"icon\" href=\"data:,\"><style>{STYLE}</style></head><body>"
    );
    let st = &r.stats;
    let _ = writeln!(s, "<header><h1>grail report: <span class=\"mono\">{title}</span></h1><p id=\"verdict\">{} &nbsp;{} history, {} transactions ({} committed, {} aborted, {} indeterminate)</p></header>",
        badge(r.valid),
        escape(r.model.name()),
        st.transactions,
        st.committed,
        st.aborted,
        st.indeterminate
    );
    if !r.broken_assumptions.is_empty() {
        let _ = write!(
            s,
            "<div class=\"warning\" id=\"broken\"><strong>The history breaks the data model's assumptions</strong> ({}): it is invalid whatever the levels say; levels that do not proscribe these were checked with them set aside.<ul>",
            escape(&r.broken_assumptions.join(", "))
        );
        for a in r.anomalies.iter().filter(|a| r.broken_assumptions.contains(&a.kind)).take(5) {
            let _ = write!(
                s,
                "<li><code>{}</code> ({}): {}</li>",
                escape(&a.kind),
                escape(&a.name),
                escape(&a.explanation)
            );
        }
        s.push_str("</ul></div>\n");
    }
    verdict_table(&mut s, r);
    counterexamples(&mut s, r, h, o);
    findings(&mut s, r, o);
    stats_table(&mut s, r);
    timeline(&mut s, r, h, nemesis, o);
    if let Some(a) = &r.analysis {
        let _ =
            writeln!(s, "<h2 id=\"analysis\">Cycle analysis</h2><pre>{}</pre>", escape(&crate::analysis::render(a)));
    }
    if !r.notes.is_empty() {
        s.push_str("<h2 id=\"notes\">Notes</h2><ul>");
        for n in &r.notes {
            let _ = write!(s, "<li class=\"note\">{}</li>", escape(n));
        }
        s.push_str("</ul>\n");
    }
    let _ = writeln!(s, "<footer><p class=\"note\">Generated by grail {}. This page is self-contained: no script, no request to the network.</p></footer>\n</body></html>",
        env!("CARGO_PKG_VERSION")
    );
    s
}

fn verdict_table(s: &mut String, r: &Report) {
    s.push_str("<h2 id=\"levels\">Verdicts</h2><table class=\"verdicts\"><thead><tr><th>level</th><th>verdict</th><th>anomalies</th><th>note</th></tr></thead><tbody>");
    for (l, lr) in &r.levels.0 {
        let mut note = Vec::new();
        if let Some(by) = lr.implied_by {
            note.push(format!("as {} {}", by.name(), if lr.valid == Some(true) { "holds" } else { "is violated" }));
        }
        if !lr.set_aside.is_empty() {
            note.push(format!("with {} set aside", lr.set_aside.join(", ")));
        }
        if let Some(why) = &lr.reason {
            note.push(why.clone());
        }
        let _ = write!(
            s,
            "<tr data-level=\"{0}\"><td><strong>{0}</strong></td><td class=\"verdict {1}\">{1}</td><td>{2}</td><td class=\"note\">{3}</td></tr>",
            escape(l.name()),
            escape(lr.verdict.as_str()),
            escape(&lr.anomalies.join(", ")),
            escape(&note.join("; "))
        );
    }
    s.push_str("</tbody></table>\n");
    if !r.weakest_violated.is_empty() {
        let _ = write!(s, "<p>Weakest violated: <strong>{}</strong>", names(&r.weakest_violated));
        if !r.also_violated.is_empty() {
            let _ = write!(s, "; so also violated: {}", names(&r.also_violated));
        }
        s.push_str(".</p>");
    }
    if !r.strongest_satisfied.is_empty() {
        let _ = write!(s, "<p>Strongest satisfied: <strong>{}</strong>.</p>", names(&r.strongest_satisfied));
    }
}

fn counterexamples(s: &mut String, r: &Report, h: &History, o: &HtmlOptions) {
    let cycles = distinct_cycles(r);
    if cycles.is_empty() {
        return;
    }
    let _ = writeln!(s, "<h2 id=\"counterexamples\">Counterexamples ({})</h2>", cycles.len());
    let any_chosen = cycles.iter().any(|(c, _)| c.steps.iter().any(|st| st.certain == Some(false)));
    s.push_str("<p class=\"legend\">");
    for ty in ["ww", "wr", "rw", "so", "rt"] {
        let _ = write!(s, "<span><span class=\"swatch\" style=\"border-color: {}\"></span>{ty}</span>", edge_color(ty));
    }
    if any_chosen {
        s.push_str("<span><span class=\"swatch\" style=\"border-top-style: dashed\"></span>chosen: an edge of the version order the search chose (no version order avoids a cycle); solid edges are certain, read from the history</span>");
    }
    s.push_str("</p>\n");
    for (i, (c, levels)) in cycles.iter().enumerate().take(o.max_cycles) {
        let _ = write!(
            s,
            "<section class=\"counterexample\" id=\"cycle-{i}\"><h3>{}: {}{}</h3><p>Violates {}; {} transactions.</p>",
            escape(&c.anomaly),
            escape(&c.name),
            if c.minimal { " (minimal)" } else { "" },
            escape(&levels.join(", ")),
            c.txns.len()
        );
        let _ = write!(s, "<div class=\"drawing\">{}</div>", cycle_svg(h, &c.txns, &c.steps, None));
        s.push_str("<table class=\"steps\"><thead><tr><th>#</th><th>edge</th><th>key</th><th>from operation</th><th>to operation</th><th>why</th><th></th></tr></thead><tbody>");
        for (j, st) in c.steps.iter().enumerate() {
            let certainty = match st.certain {
                Some(true) => "certain",
                Some(false) => "<span class=\"chosen\">chosen</span>",
                None => "",
            };
            let key = match &st.key {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(k) => k.clone(),
                k => k.to_string(),
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"mono\"><span style=\"color: {}\">T{} &rarr; T{} ({})</span></td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td><td>{certainty}</td></tr>",
                j + 1,
                edge_color(st.ty.as_str()),
                st.from,
                st.to,
                escape(st.ty.as_str()),
                escape(&key),
                escape(&st.from_op.op),
                escape(&st.to_op.op),
                escape(&st.why)
            );
        }
        s.push_str("</tbody></table>");
        let level_list: Vec<Level> = levels.iter().filter_map(|l| Level::parse(l).ok()).collect();
        let found = reproducing_sub_history(h, c, &level_list, &CheckOptions::default(), o.max_subhistory_checks);
        let mut sub = found.edn;
        let mut cut = "";
        if sub.len() > o.max_subhistory_bytes {
            let mut end = o.max_subhistory_bytes;
            while !sub.is_char_boundary(end) {
                end -= 1;
            }
            sub.truncate(end);
            cut = "<p class=\"omitted\">The sub-history was cut at its size bound.</p>";
        }
        let title = match (found.reproduces, found.minimal) {
            (true, true) => format!("Minimal sub-history ({} transactions; checked alone, it shows this cycle again, and leaving out any one of them loses it)", found.transactions.len()),
            (true, false) => format!("Sub-history ({} transactions; checked alone, it shows this cycle again; reduced as far as the search budget allowed)", found.transactions.len()),
            (false, _) => "The cycle's transactions (not a minimal sub-history: checked alone they do not show this cycle again, grail inferred it from more of the history)".to_string(),
        };
        let _ = write!(s, "<p>{}:</p><pre class=\"subhistory\">{}</pre>{cut}", escape(&title), escape(&sub));
        let _ = writeln!(
            s,
            "<details><summary>Explanation</summary><pre>{}</pre></details></section>",
            escape(&c.explanation)
        );
    }
    if cycles.len() > o.max_cycles {
        let _ = writeln!(s, "<p class=\"omitted\" id=\"cycles-omitted\">{} more counterexamples are not shown (the page shows {} at most; <code>grail check --json</code> lists them all).</p>",
            cycles.len() - o.max_cycles,
            o.max_cycles
        );
    }
}

fn findings(s: &mut String, r: &Report, o: &HtmlOptions) {
    let fs: Vec<&AnomalyReport> = r.anomalies.iter().filter(|a| a.cycle.is_none()).collect();
    if fs.is_empty() {
        return;
    }
    let _ = write!(
        s,
        "<h2 id=\"findings\">Other anomalies ({})</h2><table class=\"findings\"><thead><tr><th>type</th><th>name</th><th>transactions</th><th>levels</th><th>explanation</th></tr></thead><tbody>",
        fs.len()
    );
    for a in fs.iter().take(o.max_findings) {
        let txns: Vec<String> = a.txns.iter().map(|t| format!("T{t}")).collect();
        let _ = write!(
            s,
            "<tr><td class=\"mono\">{}</td><td>{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td></tr>",
            escape(&a.kind),
            escape(&a.name),
            escape(&txns.join(" ")),
            escape(&names(&a.levels)),
            escape(&a.explanation)
        );
    }
    s.push_str("</tbody></table>\n");
    if fs.len() > o.max_findings {
        let _ = writeln!(s, "<p class=\"omitted\" id=\"findings-omitted\">{} more anomalies are not listed (the page lists {} at most).</p>",
            fs.len() - o.max_findings,
            o.max_findings
        );
    }
}

fn stats_table(s: &mut String, r: &Report) {
    let st = &r.stats;
    s.push_str("<h2 id=\"stats\">Statistics</h2><table class=\"stats\"><tbody>");
    let rows: [(&str, String); 10] = [
        ("transactions", st.transactions.to_string()),
        ("committed", st.committed.to_string()),
        ("aborted", st.aborted.to_string()),
        ("indeterminate", st.indeterminate.to_string()),
        ("vertices", st.vertices.to_string()),
        ("edges", st.edges.to_string()),
        ("ww", st.ww.to_string()),
        ("wr", st.wr.to_string()),
        ("rw", st.rw.to_string()),
        ("density (edges per vertex)", format!("{:.4}", st.density)),
    ];
    for (k, v) in rows {
        let _ = write!(s, "<tr><th>{k}</th><td class=\"mono\">{v}</td></tr>");
    }
    s.push_str("</tbody></table>\n");
}

/// Lanes of the timeline at most (processes beyond share lanes).
const MAX_LANES: usize = 48;
/// Intervals of the density drawing.
const BUCKETS: usize = 600;

/// Where the timeline draws: the history's clock (times in nanoseconds, or positions in the
/// history when no transaction has a time) from `lo` to `hi`, mapped onto `w` pixels after a
/// margin `left`; the chart's band starts at `top`, `chart_h` high, below the nemesis band.
struct Frame {
    timed: bool,
    lo: i64,
    hi: i64,
    range: f64,
    w: f64,
    left: f64,
    top: f64,
    chart_h: f64,
}

impl Frame {
    /// The x of a point of the clock.
    fn x(&self, t: i64) -> f64 {
        self.left + (t - self.lo) as f64 / self.range * self.w
    }
}

/// A transaction's start and end on the timeline's clock (no end when it never completed);
/// `None` when it has neither.
fn txn_extent(timed: bool, t: &crate::history::Transaction) -> Option<(i64, Option<i64>)> {
    if timed {
        let a = t.invoke_time.or(t.complete_time)?;
        Some((a, t.complete_time))
    } else {
        let a = t.invoke_pos().or(t.complete_pos())? as i64;
        Some((a, t.complete_pos().map(|p| p as i64)))
    }
}

/// A nemesis operation's point on the timeline's clock.
fn nemesis_at(timed: bool, n: &RawOp) -> Option<i64> {
    if timed {
        n.time
    } else {
        Some(n.pos as i64)
    }
}

/// The first and last points of the clock the timeline shows: every transaction and the
/// nemesis operations drawn; `None` when there is none.
fn clock_range(h: &History, nemesis: &[RawOp], o: &HtmlOptions, timed: bool) -> Option<(i64, i64)> {
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    for t in &h.txns {
        if let Some((a, b)) = txn_extent(timed, t) {
            lo = lo.min(a);
            hi = hi.max(b.unwrap_or(a));
        }
    }
    for n in nemesis.iter().take(o.max_nemesis) {
        if let Some(x) = nemesis_at(timed, n) {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// The transactions of the counterexamples drawn, which the timeline marks.
fn marked_txns(r: &Report, h: &History, o: &HtmlOptions) -> BTreeSet<TxnId> {
    let ids = Ids::new(h);
    distinct_cycles(r)
        .iter()
        .take(o.max_cycles)
        .flat_map(|(c, _)| c.txns.iter().filter_map(|&id| ids.txn(id)).collect::<Vec<_>>())
        .collect()
}

fn timeline(s: &mut String, r: &Report, h: &History, nemesis: &[RawOp], o: &HtmlOptions) {
    if h.txns.is_empty() {
        return;
    }
    let timed = h.txns.iter().any(|t| t.invoke_time.is_some() || t.complete_time.is_some());
    let Some((lo, hi)) = clock_range(h, nemesis, o, timed) else {
        return;
    };
    let marked = marked_txns(r, h, o);
    let mut procs: Vec<i64> = h.txns.iter().filter_map(|t| t.process).collect();
    procs.sort_unstable();
    procs.dedup();
    let lanes = procs.len().clamp(1, MAX_LANES);
    let detailed = h.txns.len() <= o.max_timeline_txns;
    let lane_h = if detailed { 12.0 } else { 0.0 };
    let chart_h = if detailed { lanes as f64 * lane_h } else { 160.0 };
    let nem_h = 34.0;
    let height = nem_h + chart_h + 36.0;
    let f = Frame { timed, lo, hi, range: (hi - lo).max(1) as f64, w: 1000.0, left: 60.0, top: nem_h, chart_h };
    timeline_note(s, h, o, timed, detailed, procs.len(), marked.len());
    let _ = write!(
        s,
        "<div class=\"drawing\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {:.0} {height:.0}\" font-family=\"system-ui, sans-serif\" font-size=\"11\">",
        f.w + f.left + 20.0,
        f.w + f.left + 20.0
    );
    timeline_nemesis(s, &f, nemesis, o);
    if detailed {
        timeline_lanes(s, &f, h, &procs, lane_h, &marked);
    } else {
        timeline_density(s, &f, h, &marked);
    }
    timeline_axis(s, &f);
    s.push_str("</svg></div>\n");
}

/// The timeline's heading and the note that says how to read it.
fn timeline_note(
    s: &mut String,
    h: &History,
    o: &HtmlOptions,
    timed: bool,
    detailed: bool,
    processes: usize,
    marked: usize,
) {
    let unit = if timed { "seconds" } else { "position in the history" };
    let _ = write!(s, "<h2 id=\"timeline\">Timeline</h2>");
    if detailed {
        let _ = write!(
            s,
            "<p class=\"note\">Each transaction from invocation to completion, one lane per process ({} processes{}); blue committed, red aborted, orange indeterminate; counterexample transactions outlined in black; nemesis operations above (shaded from a start to the next stop). Axis: {unit}.</p>",
            processes,
            if processes > MAX_LANES { format!(", sharing {MAX_LANES} lanes") } else { String::new() }
        );
    } else {
        let _ = write!(
            s,
            "<p class=\"note\" id=\"timeline-density\">{} transactions are too many to draw one by one (the page draws {} at most): shown as completions per interval ({BUCKETS} intervals; blue committed, orange indeterminate, red aborted), the {} transactions of the counterexamples marked below the axis, nemesis operations above. Axis: {unit}.</p>",
            h.txns.len(),
            o.max_timeline_txns,
            marked
        );
    }
}

/// Nemesis: shaded intervals from a start to the next stop, a line and a name for each.
fn timeline_nemesis(s: &mut String, frame: &Frame, nemesis: &[RawOp], o: &HtmlOptions) {
    let (w, left, top, chart_h) = (frame.w, frame.left, frame.top, frame.chart_h);
    let mut open: Option<(f64, String)> = None;
    let shown: Vec<&RawOp> = nemesis.iter().filter(|n| n.ty != "invoke").take(o.max_nemesis).collect();
    for n in &shown {
        let Some(t) = nemesis_at(frame.timed, n) else { continue };
        let nx = frame.x(t);
        let f = n.f.as_str();
        if f.starts_with("start") || f.starts_with("kill") || f.starts_with("pause") || f.starts_with("partition") {
            open.get_or_insert((nx, f.to_string()));
        } else if f.starts_with("stop") || f.starts_with("resume") || f.starts_with("heal") || f.starts_with("restart")
        {
            if let Some((ox, of)) = open.take() {
                let _ = write!(
                    s,
                    "<rect class=\"nemesis-span\" x=\"{ox:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#f0b35a\" fill-opacity=\"0.18\"><title>{} .. {}</title></rect>",
                    top - 4.0,
                    (nx - ox).max(1.0),
                    chart_h + 8.0,
                    escape(&of),
                    escape(f)
                );
            }
        }
        let _ = write!(
            s,
            "<line class=\"nemesis\" x1=\"{nx:.1}\" y1=\"4\" x2=\"{nx:.1}\" y2=\"{:.1}\" stroke=\"#c77700\" stroke-width=\"1\" stroke-dasharray=\"3 2\"><title>nemesis {} {} {}</title></line>",
            top + chart_h + 4.0,
            escape(&n.ty),
            escape(f),
            escape(&n.value)
        );
    }
    if let Some((ox, of)) = open {
        let _ = write!(
            s,
            "<rect class=\"nemesis-span\" x=\"{ox:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#f0b35a\" fill-opacity=\"0.18\"><title>{} (never stopped)</title></rect>",
            top - 4.0,
            (left + w - ox).max(1.0),
            chart_h + 8.0,
            escape(&of)
        );
    }
    timeline_nemesis_names(s, frame, &shown, nemesis, o);
}

/// Names of the nemesis operations, skipping those that would overlap the previous one; a note
/// when more were left out than [`HtmlOptions::max_nemesis`] allows.
fn timeline_nemesis_names(s: &mut String, frame: &Frame, shown: &[&RawOp], nemesis: &[RawOp], o: &HtmlOptions) {
    let left = frame.left;
    let mut last_label = f64::MIN;
    for n in shown {
        let Some(t) = nemesis_at(frame.timed, n) else { continue };
        let nx = frame.x(t);
        if nx - last_label < 70.0 {
            continue;
        }
        last_label = nx;
        let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#8a4f00\">{}</text>", nx + 2.0, 14.0, escape(&n.f));
    }
    if nemesis.iter().filter(|n| n.ty != "invoke").count() > o.max_nemesis {
        let _ = write!(
            s,
            "<text x=\"{left}\" y=\"28\" fill=\"#8a6d00\">(only the first {} nemesis operations drawn)</text>",
            o.max_nemesis
        );
    }
}

/// Each transaction from invocation to completion, one lane per process (lanes shared beyond
/// [`MAX_LANES`]), counterexample transactions outlined.
fn timeline_lanes(s: &mut String, f: &Frame, h: &History, procs: &[i64], lane_h: f64, marked: &BTreeSet<TxnId>) {
    let (w, left, top) = (f.w, f.left, f.top);
    let lanes = procs.len().clamp(1, MAX_LANES);
    let lane_of = |p: Option<i64>| p.and_then(|p| procs.binary_search(&p).ok()).map_or(0, |i| i % lanes);
    for l in 0..lanes {
        if l % 2 == 1 {
            let _ = write!(
                s,
                "<rect x=\"{left}\" y=\"{:.1}\" width=\"{w}\" height=\"{lane_h}\" fill=\"#f7f7f9\"/>",
                top + l as f64 * lane_h
            );
        }
    }
    for (t, txn) in h.txns.iter().enumerate() {
        let Some((a, b)) = txn_extent(f.timed, txn) else { continue };
        let y = top + lane_of(txn.process) as f64 * lane_h + 2.0;
        let x0 = f.x(a);
        let x1 = f.x(b.unwrap_or(f.hi)).max(x0 + 1.5);
        let mark = marked.contains(&(t as TxnId));
        let stroke = if mark { " stroke=\"#000\" stroke-width=\"1.5\"" } else { "" };
        let _ = write!(
            s,
            "<rect class=\"txn{}\" x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"{stroke}><title>T{} ({}, process {})</title></rect>",
            if mark { " marked" } else { "" },
            x1 - x0,
            lane_h - 4.0,
            status_color(txn.status),
            txn.id,
            txn.status.as_str(),
            txn.process.map_or("none".to_string(), |p| p.to_string())
        );
    }
}

/// Completions per interval, stacked by status, for histories too large to draw one by one;
/// counterexample transactions marked below the axis.
fn timeline_density(s: &mut String, f: &Frame, h: &History, marked: &BTreeSet<TxnId>) {
    let (lo, range, w, left, top, chart_h) = (f.lo, f.range, f.w, f.left, f.top, f.chart_h);
    let mut counts = vec![[0u32; 3]; BUCKETS];
    for txn in &h.txns {
        let Some((a, b)) = txn_extent(f.timed, txn) else { continue };
        let at = b.unwrap_or(a);
        let i = (((at - lo) as f64 / range) * (BUCKETS as f64 - 1.0)).round().clamp(0.0, BUCKETS as f64 - 1.0) as usize;
        let k = match txn.status {
            Status::Committed => 0,
            Status::Indeterminate => 1,
            Status::Aborted => 2,
        };
        counts[i][k] += 1;
    }
    let max = counts.iter().map(|c| c.iter().sum::<u32>()).max().unwrap_or(1).max(1) as f64;
    let bw = w / BUCKETS as f64;
    for (k, status) in [Status::Committed, Status::Indeterminate, Status::Aborted].into_iter().enumerate() {
        let mut pts = Vec::with_capacity(BUCKETS * 2 + 2);
        let mut below = Vec::with_capacity(BUCKETS);
        for (i, c) in counts.iter().enumerate() {
            let base: u32 = c[..k].iter().sum();
            let topv = base + c[k];
            let xi = left + i as f64 * bw;
            pts.push(format!("{xi:.1},{:.1}", top + chart_h - topv as f64 / max * chart_h));
            below.push(format!("{xi:.1},{:.1}", top + chart_h - base as f64 / max * chart_h));
        }
        below.reverse();
        pts.extend(below);
        let _ = write!(
            s,
            "<polygon class=\"density {}\" points=\"{}\" fill=\"{}\" fill-opacity=\"0.75\"/>",
            status.as_str(),
            pts.join(" "),
            status_color(status)
        );
    }
    let _ = write!(s, "<text x=\"4\" y=\"{:.1}\" fill=\"#555\">{}</text>", top + 10.0, max as u64);
    for &t in marked {
        let Some((a, b)) = txn_extent(f.timed, &h.txns[t as usize]) else { continue };
        let mx = f.x(b.unwrap_or(a));
        let _ = write!(
            s,
            "<line class=\"marked\" x1=\"{mx:.1}\" y1=\"{:.1}\" x2=\"{mx:.1}\" y2=\"{:.1}\" stroke=\"#000\" stroke-width=\"1.5\"><title>T{}</title></line>",
            top + chart_h + 2.0,
            top + chart_h + 12.0,
            h.txns[t as usize].id
        );
    }
}

/// The axis below the chart, with six ticks labelled in seconds or positions.
fn timeline_axis(s: &mut String, f: &Frame) {
    let (lo, range, w, left) = (f.lo, f.range, f.w, f.left);
    let ay = f.top + f.chart_h + 14.0;
    let _ = write!(s, "<line x1=\"{left}\" y1=\"{ay:.1}\" x2=\"{:.1}\" y2=\"{ay:.1}\" stroke=\"#999\"/>", left + w);
    // Enough decimals that the ticks (a fifth of the range apart) differ.
    let decimals = (1.0 - (range / 5.0 / 1e9).log10().floor()).clamp(0.0, 9.0) as usize;
    for i in 0..=5 {
        let t = lo as f64 + range * i as f64 / 5.0;
        let label = if f.timed { format!("{:.*}", decimals, t / 1e9) } else { format!("{}", t as i64) };
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{label}</text>",
            left + w * i as f64 / 5.0,
            ay + 14.0
        );
    }
}
