//! The HTML report's timeline: each process a lane of its transactions over the history's clock
//! (a density drawing when there are too many), the transactions of counterexamples marked, and
//! the nemesis's operations as a band above.

use super::html::{distinct_cycles, HtmlOptions};
use super::svg::{escape, status_color};
use crate::explain::Ids;
use crate::history::{History, Status, TxnId};
use crate::read::nemesis::RawOp;
use crate::report::Report;
use std::collections::BTreeSet;
use std::fmt::Write;

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
        let a = t.invoke_time().or(t.complete_time())?;
        Some((a, t.complete_time()))
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
    // Inserted, not collected: collecting sorts stably, a sort the web demo's module has no
    // other use for (4.8 kB of it; issue 37).
    let mut marked = BTreeSet::new();
    for (c, _) in distinct_cycles(r).iter().take(o.max_cycles) {
        marked.extend(c.txns.iter().filter_map(|&id| ids.txn(id)));
    }
    marked
}

pub(super) fn timeline(s: &mut String, r: &Report, h: &History, nemesis: &[RawOp], o: &HtmlOptions) {
    if h.txns.is_empty() {
        return;
    }
    let timed = h.txns.iter().any(|t| t.invoke_time().is_some() || t.complete_time().is_some());
    let Some((lo, hi)) = clock_range(h, nemesis, o, timed) else {
        return;
    };
    let marked = marked_txns(r, h, o);
    let mut procs: Vec<i64> = h.txns.iter().filter_map(|t| t.process()).collect();
    crate::par::sort::sort_unstable(&mut procs);
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
        let y = top + lane_of(txn.process()) as f64 * lane_h + 2.0;
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
            txn.process().map_or("none".to_string(), |p| p.to_string())
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
    if !f.timed {
        // Positions are whole: ticks at whole positions, each where its position is drawn (once
        // six evenly spaced ticks, labelled by truncating fractional positions: 0, 0, 1, 1, 2, 3).
        let step = ((range / 5.0).ceil() as i64).max(1);
        let mut p = lo;
        while p as f64 <= lo as f64 + range {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{p}</text>",
                f.x(p),
                ay + 14.0
            );
            p += step;
        }
        return;
    }
    // Enough decimals that the ticks (a fifth of the range apart) differ.
    let decimals = (1.0 - (range / 5.0 / 1e9).log10().floor()).clamp(0.0, 9.0) as usize;
    for i in 0..=5 {
        let t = lo as f64 + range * i as f64 / 5.0;
        let label = format!("{:.*}", decimals, t / 1e9);
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{label}</text>",
            left + w * i as f64 / 5.0,
            ay + 14.0
        );
    }
}
