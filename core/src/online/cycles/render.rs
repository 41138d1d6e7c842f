//! Text for people: takes an anomaly or the summary, gives lines as `grail online` prints them.

use super::{Found, OnlineAnomaly, OnlineFinding, OnlineSummary};

/// A read finding as a line: `T12 read an aborted write (G1a) of T9, found when T9 arrived`
/// (a write: an append, or a register's).
pub fn render_finding(f: &OnlineFinding) -> String {
    let reader = f.reader.map_or_else(|| "a committed transaction".to_string(), |r| format!("T{r}"));
    let what = match f.anomaly.as_str() {
        "internal" => return format!("{reader} read a key against its own earlier operations (internal)"),
        "G1a" => "an aborted write",
        "G1b" => "an intermediate write",
        // A value nobody wrote (the engine's rounds over a register stream): no writer.
        other => return format!("{reader} read a value nobody wrote ({other}), found when T{} arrived", f.found_by),
    };
    let writer = f.writer.map_or_else(|| "a transaction".to_string(), |w| format!("T{w}"));
    format!("{reader} read {what} ({}) of {writer}, found when T{} arrived", f.anomaly, f.found_by)
}

/// One cycle as a line of text: `T9 closed a lost update (G-single, LU): T4 -rw x-> T9 -ww x-> T4`,
/// or, found by a later check, `Found at the end of the stream (after T5): a cycle
/// (G-single-process): T3 -rw x-> T1 -so-> T3`; a step whose order the polygraph chose is
/// marked: `T192 -ww 2 (chosen)-> T202`.
pub fn render_anomaly(o: &OnlineAnomaly) -> String {
    let a = &o.cycle;
    let show = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    // Zellag & Kemme's classes are nouns ("a lost update"), but for their catch-all; a cycle
    // through an order has no class and goes by its anomaly's name.
    let what = match a.zellag.as_str() {
        crate::analysis::classify::UNCLASSED => format!("a cycle ({})", o.anomaly),
        "other" => format!("a cycle of class other ({}, {})", a.adya, a.ldbc),
        z => format!("a {z} ({}, {})", a.adya, a.ldbc),
    };
    let by = o.closed_by;
    let provisional = if o.provisional { " [provisional]" } else { "" };
    let mut s = match o.found {
        Found::Arrival => format!("T{by} closed {what}{provisional}: "),
        Found::Round => format!("Found by a round at T{by}'s arrival: {what}{provisional}: "),
        Found::Pause => format!("Found at a pause in the input (after T{by}): {what}{provisional}: "),
        Found::End => format!("Found at the end of the stream (after T{by}): {what}{provisional}: "),
    };
    for (i, t) in a.txns.iter().enumerate() {
        let keys: Vec<String> = a.keys.get(i).map_or(Vec::new(), |ks| ks.iter().map(show).collect());
        let ty = a.types.get(i).map_or("", |x| x.as_str());
        let chosen = if o.chosen.contains(&i) { " (chosen)" } else { "" };
        match keys.is_empty() {
            true => s.push_str(&format!("T{t} -{ty}{chosen}-> ")),
            false => s.push_str(&format!("T{t} -{ty} {}{chosen}-> ", keys.join(","))),
        }
    }
    s.push_str(&format!("T{}", a.txns.first().copied().unwrap_or(0)));
    s
}

/// The summary as text: counters, class counts and notes.
pub fn render_summary(s: &OnlineSummary) -> String {
    let st = &s.stats;
    let mut out = format!(
        // The cycles printed as they closed: the end's searches give a level its witness in the
        // table below without a line of its own ("0 cycles" beside a violated level misled).
        "\n{} ({} committed); {} reported; window peak {}{}; {} evicted\n",
        crate::words::counted(st.transactions, "transaction"),
        st.committed,
        crate::words::counted(st.cycles, "cycle"),
        crate::words::counted(st.peak_live as u64, "transaction"),
        // A register stream's rounds keep no keys of their own: no count to give.
        if st.rounds > 0 { String::new() } else { format!(", {}", crate::words::counted(st.peak_keys as u64, "key")) },
        st.evicted
    );
    out.push_str(&crate::analysis::render_counts(&s.classes, &s.lengths, &s.patterns));
    out.push_str("\nlevels online:\n");
    for l in &s.levels {
        let mut line = format!("  {:<20} {:<9}", l.level, l.verdict.as_str());
        if !l.anomalies.is_empty() {
            let ts: Vec<String> = l.witness.iter().map(|t| format!("T{t}")).collect();
            line.push_str(&format!(" {} ({})", l.anomalies.join(", "), ts.join(" ")));
        }
        if let Some(w) = &l.implied_by {
            line.push_str(&format!(" as {w} is"));
        }
        if !l.set_aside.is_empty() {
            line.push_str(&format!(" (with {} set aside)", l.set_aside.join(", ")));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    // One reason per distinct text, after the table, for the unknown levels.
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for l in s.levels.iter().filter(|l| l.reason.is_some()) {
        let r = l.reason.as_deref().unwrap_or_default();
        match reasons.iter_mut().find(|x| x.0 == r) {
            Some(x) => x.1.push(&l.level),
            None => reasons.push((r, vec![&l.level])),
        }
    }
    for (r, ls) in reasons {
        out.push_str(&format!("  {}: {r}\n", ls.join(", ")));
    }
    for n in &s.notes {
        out.push_str(&format!("\nnote: {n}\n"));
    }
    out
}
