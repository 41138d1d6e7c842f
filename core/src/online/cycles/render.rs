//! Text for people: takes an anomaly or the summary, gives lines as `grail online` prints them.

use super::{OnlineAnomaly, OnlineSummary};

/// One cycle as a line of text: `T9 closed a lost update (G-single, LU): T4 -rw x-> T9 -ww x-> T4`.
pub fn render_anomaly(o: &OnlineAnomaly) -> String {
    let a = &o.cycle;
    let show = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let mut s = format!(
        "T{} closed a {} ({}, {}){}: ",
        o.closed_by,
        a.zellag,
        a.adya,
        a.ldbc,
        if o.provisional { " [provisional]" } else { "" }
    );
    for (i, t) in a.txns.iter().enumerate() {
        let keys: Vec<String> = a.keys.get(i).map_or(Vec::new(), |ks| ks.iter().map(show).collect());
        s.push_str(&format!("T{t} -{} {}-> ", a.types.get(i).map_or("", |x| x.as_str()), keys.join(",")));
    }
    s.push_str(&format!("T{}", a.txns.first().copied().unwrap_or(0)));
    s
}

/// The summary as text: counters, class counts and notes.
pub fn render_summary(s: &OnlineSummary) -> String {
    let st = &s.stats;
    let mut out = format!(
        "\n{} transactions ({} committed); {} cycles; window peak {} transactions, {} keys; {} evicted\n",
        st.transactions, st.committed, st.cycles, st.peak_live, st.peak_keys, st.evicted
    );
    out.push_str(&crate::analysis::render_counts(&s.classes, &s.lengths, &s.patterns));
    for n in &s.notes {
        out.push_str(&format!("\nnote: {n}\n"));
    }
    out
}
