//! Self-contained HTML pages: the report of `grail check --html` (also Python's
//! `Report.to_html()` and JS's `report.toHTML()`), and Elle's `incompatible-order/<key>.html`.
//! No script, no network: styles inline, drawings inline SVG. Pages are bounded in size
//! whatever the history: lists are cut to a fixed number of rows, a large history's timeline
//! is drawn as a density, and the page says what it left out.

use super::ops::RawOp;
use super::svg::{cycle_svg, escape, status_color};
use crate::history::{Arg, History, OpKind, Status, TxnId, Value};
use crate::report::{CycleReport, Report};
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
