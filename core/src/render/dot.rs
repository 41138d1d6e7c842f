//! Graphviz DOT of a cycle: transactions as boxes, edges coloured by type and labelled.

use crate::report::CycleReport;
use std::fmt::Write;

/// Colour per edge type, shared with the SVG renderers of the bindings.
pub fn colour(ty: &str) -> &'static str {
    match ty {
        "ww" => "#1f77b4",
        "wr" => "#2ca02c",
        "so" => "#7f7f7f",
        "rt" => "#9467bd",
        "co" => "#ff7f0e",
        _ => "#d62728",
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn cycle_dot(c: &CycleReport) -> String {
    let mut s = String::from("digraph cycle {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
    for step in &c.steps {
        let _ = writeln!(s, "  T{} [label=\"T{}\\n{}\"];", step.from, step.from, escape(&step.from_op.op));
    }
    for step in &c.steps {
        let _ = writeln!(
            s,
            "  T{} -> T{} [label=\"{} {}\", color=\"{}\", fontcolor=\"{}\", tooltip=\"{}\"];",
            step.from,
            step.to,
            step.ty.as_str(),
            escape(&step.key.to_string()),
            colour(step.ty.as_str()),
            colour(step.ty.as_str()),
            escape(&step.why)
        );
    }
    let _ = writeln!(s, "  label=\"{} ({})\";\n}}", escape(&c.anomaly), escape(&c.name));
    s
}
