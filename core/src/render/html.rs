//! Self-contained HTML pages: the report of `grail check --html` (also Python's
//! `Report.to_html()` and JS's `report.toHTML()`), and Elle's `incompatible-order/<key>.html`.
//! No script, no network: styles inline, drawings inline SVG. Pages are bounded in size
//! whatever the history: lists are cut to a fixed number of rows, a large history's timeline
//! is drawn as a density, and the page says what it left out.

use super::svg::{cycle_svg, edge_color, escape};
use crate::export::reproduce::reproducing_sub_history;
use crate::history::{Arg, History, OpKind, Status, TxnId, Value};
use crate::level::Level;
use crate::read::nemesis::RawOp;
use crate::report::CheckOptions;
use crate::report::{AnomalyReport, CycleReport, Report};
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
            if op.kind() == OpKind::Read && op.key == key {
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
        let time = txn.complete_time().map_or(String::new(), |ns| format!("{:.2}", ns as f64 / 1e9));
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{time}</td><td>{}</td><td>{}</td>",
            txn.id,
            txn.process().map_or(String::new(), |p| p.to_string()),
            escape(h.label(t).unwrap_or("txn"))
        );
        let op = &h.ops[o as usize];
        let list = match op.arg() {
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
pub(super) fn distinct_cycles(r: &Report) -> Vec<(&CycleReport, Vec<String>)> {
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
    let _ = writeln!(s, "<header><h1>grail report: <span class=\"mono\">{title}</span></h1><p id=\"verdict\">{} &nbsp;{} history, {} ({} committed, {} aborted, {} indeterminate)</p></header>",
        badge(r.valid),
        escape(r.model.name()),
        crate::words::counted(st.transactions as u64, "transaction"),
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
    super::timeline::timeline(&mut s, r, h, nemesis, o);
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
        if let Some(from) = lr.cycle_from {
            note.push(format!("by {}'s cycle, of certain edges only", from.name()));
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
            match &c.cycle_anomaly {
                // The heading names the violation; the cycle shown alone is more specific.
                Some(own) => format!(" (a {} cycle through chosen versions)", escape(own)),
                None if c.minimal => " (minimal)".to_string(),
                None => String::new(),
            },
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
            let key = super::key_text(&st.key);
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
                escape(&to_op_text(st)),
                escape(&st.why)
            );
        }
        s.push_str("</tbody></table>");
        let level_list: Vec<Level> = levels.iter().filter_map(|l| Level::parse(l).ok()).collect();
        let found = reproducing_sub_history(h, c, &level_list, &CheckOptions::default(), o.max_subhistory_checks);
        let alone = found.checked_alone();
        let mut sub = found.text;
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
            (true, true) => format!("Minimal sub-history ({} transactions; {alone}, it shows this cycle again, and leaving out any one of them loses it)", found.transactions.len()),
            (true, false) => format!("Sub-history ({} transactions; {alone}, it shows this cycle again; reduced as far as the search budget allowed)", found.transactions.len()),
            // Not "not a minimal sub-history": beside a heading's "(minimal)" (no shorter cycle) it read
            // as a contradiction.
            (false, _) => format!("The cycle's transactions ({alone} they do not show this cycle again: grail inferred it from more of the history)"),
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
    // No graph was inferred: its counts would describe nothing.
    let shown = if st.not_inferred { &rows[..4] } else { &rows[..] };
    for (k, v) in shown {
        let _ = write!(s, "<tr><th>{k}</th><td class=\"mono\">{v}</td></tr>");
    }
    s.push_str("</tbody></table>\n");
}

/// A step's operation at its target; a weak level's `co` step ends at the read that forces it,
/// another transaction's: named, so that the row does not give it to the target.
fn to_op_text(st: &crate::explain::Step) -> String {
    match st.to_op.txn == st.to {
        true => st.to_op.op.clone(),
        false => format!("T{}'s {}", st.to_op.txn, st.to_op.op),
    }
}
