//! The verdict as a table, for terminals.

use crate::report::{Report, WhiteBoxReport};
use crate::words::{count, counted};
use std::fmt::Write;

/// How many findings that break the model's assumptions lead the text.
const LEAD: usize = 3;

/// At most this many findings of one kind in a terminal ([`render_capped`]).
pub const TERMINAL_PER_KIND: usize = 20;

/// The verdict as a table, every finding written out (what `explain()` gives).
pub fn render(r: &Report) -> String {
    render_capped(r, usize::MAX)
}

/// The verdict as a table, at most `per_kind` findings of one kind written out and the rest
/// counted: a history with timestamps can break its claims hundreds of times, which no terminal
/// wants (the CLI; the JSON report keeps them all).
pub fn render_capped(r: &Report, per_kind: usize) -> String {
    let mut s = String::new();
    // A history that breaks the model's assumptions is invalid whatever the levels say: first.
    if !r.broken_assumptions.is_empty() {
        let _ = writeln!(
            s,
            "INVALID HISTORY: it breaks the data model's assumptions ({}); levels that do not proscribe these were checked with them set aside",
            r.broken_assumptions.join(", ")
        );
        for a in r.anomalies.iter().filter(|a| r.broken_assumptions.contains(&a.kind)).take(LEAD) {
            let _ = writeln!(s, "  {} ({}): {}", a.kind, a.name, a.explanation);
        }
        s.push('\n');
    }
    let w = r.levels.0.iter().map(|(l, _)| l.name().len()).max().unwrap_or(6).max(6);
    let _ = writeln!(s, "{:<w$} {:<9} anomalies", "level", "verdict");
    for (l, lr) in &r.levels.0 {
        let mut extra = String::new();
        if let Some(by) = lr.implied_by {
            let _ =
                write!(extra, " (as {} {})", by.name(), if lr.valid == Some(true) { "holds" } else { "is violated" });
        }
        if let Some(from) = lr.cycle_from {
            let _ = write!(extra, " (by {}'s cycle, of certain edges only)", from.name());
        }
        if !lr.set_aside.is_empty() {
            let _ = write!(extra, " (with {} set aside)", lr.set_aside.join(", "));
        }
        let _ = writeln!(s, "{:<w$} {:<9} {}{extra}", l.name(), lr.verdict.as_str(), lr.anomalies.join(", "));
    }
    let names = |ls: &[crate::level::Level]| ls.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
    if !r.weakest_violated.is_empty() {
        let _ = writeln!(s, "\nweakest violated: {}", names(&r.weakest_violated));
        if !r.also_violated.is_empty() {
            let _ = writeln!(s, "so also violated: {}", names(&r.also_violated));
        }
    }
    if !r.strongest_satisfied.is_empty() && r.levels.0.len() > 1 {
        let _ = writeln!(s, "strongest satisfied: {}", names(&r.strongest_satisfied));
    }
    // Why each unknown level was not decided, levels with the same reason together.
    let mut unknown: Vec<(&str, Vec<&str>)> = Vec::new();
    for (l, lr) in r.levels.0.iter().filter(|(_, lr)| lr.valid.is_none()) {
        let why = lr.reason.as_deref().unwrap_or("no reason was recorded");
        match unknown.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ls)) => ls.push(l.name()),
            None => unknown.push((why, vec![l.name()])),
        }
    }
    for (why, ls) in &unknown {
        let _ = writeln!(s, "\nunknown: {}: {why}", ls.join(", "));
    }
    let st = &r.stats;
    let graph = match st.not_inferred {
        true => "no dependency graph inferred (white-box only)".to_string(),
        false => format!(
            "graph: {}, {} ({} ww, {} wr, {} rw)",
            count(st.vertices as u64, "vertex", "vertices"),
            counted(st.edges as u64, "edge"),
            st.ww,
            st.wr,
            st.rw
        ),
    };
    let _ = writeln!(
        s,
        "\n{} ({} committed, {} aborted, {} indeterminate); {graph}",
        counted(st.transactions as u64, "transaction"),
        st.committed,
        st.aborted,
        st.indeterminate,
    );
    let mut shown = std::collections::BTreeSet::new();
    for (l, lr) in &r.levels.0 {
        if let Some(c) = lr.cycles.first() {
            if shown.insert((c.txns.clone(), c.anomaly.clone())) {
                let _ = writeln!(s, "\n{} is violated by this {}:\n{}", l.name(), c.heading(), c.explanation);
            }
        }
    }
    // One cycle a level is shown: say how many more the report holds.
    // Inserted, not collected: collecting sorts them first (a stable sort the demo's module
    // would carry for this type alone).
    let mut all = std::collections::BTreeSet::new();
    for c in r.levels.0.iter().flat_map(|(_, lr)| &lr.cycles) {
        all.insert((c.txns.clone(), c.anomaly.clone()));
    }
    if all.len() > shown.len() {
        let more = all.len() - shown.len();
        let _ = writeln!(s, "\n({more} more {} in the JSON report)", if more == 1 { "cycle" } else { "cycles" });
    }
    // The findings, but the first few of the assumption breaks, shown at the top; at most
    // `per_kind` of a kind.
    let mut led = 0;
    let mut shown: Vec<(&str, usize)> = Vec::new();
    for a in r.anomalies.iter().filter(|a| a.cycle.is_none()) {
        if r.broken_assumptions.contains(&a.kind) && led < LEAD {
            led += 1;
            continue;
        }
        let i = shown.iter().position(|(k, _)| *k == a.kind).unwrap_or_else(|| {
            shown.push((&a.kind, 0));
            shown.len() - 1
        });
        shown[i].1 += 1;
        if shown[i].1 <= per_kind {
            let _ = writeln!(s, "\n{}: {}", a.kind, a.explanation);
        }
    }
    for (kind, n) in shown.iter().filter(|(_, n)| *n > per_kind) {
        let _ = writeln!(s, "\n... and {} more {kind} (the JSON report lists them)", n - per_kind);
    }
    if let Some(w) = &r.white_box {
        s.push_str(&white_box(w));
    }
    for n in &r.notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    s
}

/// The white-box section as text, for the CLI (the findings themselves are listed with the
/// other anomalies).
fn white_box(w: &WhiteBoxReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nwhite-box: SI {}, SER {} ({} of {} committed transactions timestamped, {} with a place in the commit order, from {})",
        w.si, w.ser, w.timestamped, w.transactions, w.ordered, w.order
    );
    if !w.counts.is_empty() {
        let counts: Vec<String> = w.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let _ = writeln!(s, "claims violated: {}", counts.join(", "));
    }
    s
}

/// What `grail check --certificate` wrote: a line per witness, one per level left uncertified.
pub fn certificate_summary(c: &crate::verify::format::Certificate, path: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "grail: wrote {path}: {}", count(c.witnesses.len() as u64, "witness", "witnesses"));
    for w in &c.witnesses {
        let aside = match w.set_aside.len() {
            0 => String::new(),
            n => format!(
                " ({} set aside: garbage or internal, each one these levels forbid)",
                count(n as u64, "read", "reads")
            ),
        };
        let _ = writeln!(s, "grail:   {}: proves {}{aside}", witness_name(w.kind, &w.respects), w.levels.join(", "));
    }
    for n in &c.not_certified {
        let _ = writeln!(s, "grail:   {} holds but is not certified: {}", n.level, n.reason);
    }
    if !c.counterexamples.is_empty() {
        let levels: Vec<&str> = c.counterexamples.iter().map(|x| x.level.as_str()).collect();
        let _ = writeln!(s, "grail:   counterexamples (cycles and reads shown step by step): {}", levels.join(", "));
    }
    for n in &c.violations_not_certified {
        let _ = writeln!(s, "grail:   {} is violated, no counterexample: {}", n.level, n.reason);
    }
    s
}

/// `grail verify`'s answer: each witness verified or where it fails, the levels left uncertified.
pub fn verification(v: &crate::verify::Verification) -> String {
    let mut s = String::new();
    for (i, w) in v.witnesses.iter().enumerate() {
        let name = witness_name(w.kind, &w.respects);
        match &w.failure {
            None => {
                let aside = match w.set_aside {
                    0 => String::new(),
                    n => format!(
                        " ({} set aside: garbage or internal, each one these levels forbid)",
                        count(n as u64, "read", "reads")
                    ),
                };
                let _ = writeln!(s, "witness {} ({name}): verified: {}{aside}", i + 1, w.levels.join(", "));
            }
            Some(f) => {
                let _ = writeln!(s, "witness {} ({name}): FAILS: {f}", i + 1);
            }
        }
    }
    for n in &v.not_certified {
        let _ = writeln!(s, "{}: not certified: {}", n.level, n.reason);
    }
    for n in &v.violations_not_certified {
        let _ = writeln!(s, "{}: violated, no counterexample: {}", n.level, n.reason);
    }
    for c in &v.counterexamples {
        match &c.failure {
            None => {
                let _ = writeln!(s, "counterexample ({} {}): verified: {} is violated", c.level, c.anomaly, c.level);
            }
            Some(f) => {
                let _ = writeln!(s, "counterexample ({} {}): FAILS: {f}", c.level, c.anomaly);
            }
        }
    }
    let proved = v.proved();
    if v.ok() {
        let _ = writeln!(
            s,
            "certificate verified: {}",
            if proved.is_empty() { "it proves no level".to_string() } else { proved.join(", ") }
        );
        if !v.proved_with_set_aside.is_empty() {
            let _ = writeln!(s, "holding with reads set aside: {}", v.proved_with_set_aside.join(", "));
        }
        let disproved = v.disproved();
        if !disproved.is_empty() {
            let _ = writeln!(s, "violated, by the counterexamples: {}", disproved.join(", "));
        }
    } else {
        for c in &v.contradictions {
            let _ = writeln!(s, "{c}");
        }
        let _ = writeln!(s, "certificate does not verify");
    }
    s
}

fn witness_name(kind: crate::verify::format::WitnessKind, respects: &[crate::verify::format::Respect]) -> String {
    use crate::verify::format::{Respect, WitnessKind};
    let mut name = match kind {
        WitnessKind::Serial => "serial".to_string(),
        WitnessKind::Snapshot => "snapshot".to_string(),
        WitnessKind::Versions => "versions".to_string(),
        WitnessKind::CommitOrder => "commit-order".to_string(),
    };
    let r: Vec<&str> = respects
        .iter()
        .map(|r| match r {
            Respect::Session => "session",
            Respect::RealTime => "real-time",
        })
        .collect();
    if !r.is_empty() {
        name.push_str(&format!(", respecting {} order", r.join(" and ")));
    }
    name
}
