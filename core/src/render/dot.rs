//! Graphviz DOT of a cycle: transactions as boxes, edges coloured by type and labelled.

use super::palette;
use crate::report::CycleReport;
use std::fmt::Write;

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn cycle_dot(c: &CycleReport) -> String {
    let mut s = String::from("digraph cycle {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
    for step in &c.steps {
        let _ = writeln!(s, "  T{} [label=\"T{}\\n{}\"];", step.from, step.from, escape(&step.from_op.op));
    }
    for step in &c.steps {
        // A session or real-time step is on no key (its key is null): the type alone.
        let label = match step.key.is_null() {
            true => step.ty.as_str().to_string(),
            false => format!("{} {}", step.ty.as_str(), super::key_text(&step.key)),
        };
        let _ = writeln!(
            s,
            "  T{} -> T{} [label=\"{}\", color=\"{}\", fontcolor=\"{}\", tooltip=\"{}\"];",
            step.from,
            step.to,
            escape(&label),
            palette::edge(step.ty),
            palette::edge(step.ty),
            escape(&step.why)
        );
    }
    let label = match &c.cycle_anomaly {
        Some(_) => c.heading(),
        None => format!("{} ({})", c.anomaly, c.name),
    };
    let _ = writeln!(s, "  label=\"{}\";\n}}", escape(&label));
    s
}
