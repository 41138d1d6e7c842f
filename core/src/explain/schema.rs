//! JSON Schema of the names a report gives (feature `schema`): anomaly kinds, cycle and finding
//! names, edge types, the analysis's classes, each from core's tables where there is one.

use crate::graph::EdgeType;

/// Names of the cycle anomalies: Adya's, with Elle's `-process` and `-realtime` suffixes and
/// the `-claimed` of cycles through claimed orders, and the weak levels' cycles.
pub fn cycle_anomaly(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    use crate::graph::orders::Order;
    let adya: Vec<AnomalyKind> = AnomalyKind::ALL.into_iter().filter(|k| k.is_cycle()).collect();
    let mut names: Vec<String> = Vec::new();
    for suffix in [Order::None.suffix(), Order::Session.suffix(), Order::Realtime.suffix(), "-claimed"] {
        names.extend(adya.iter().map(|k| format!("{}{suffix}", k.name())));
    }
    names.extend(AnomalyKind::ALL.into_iter().filter(|k| k.is_weak_cycle()).map(|k| k.name().to_string()));
    let s = crate::history::schema::strings(
        "Cycle anomalies: Adya's, Elle's variants that need session (`-process`) or real-time \
         (`-realtime`) order, cycles through an order the database claims (`-claimed`), and the \
         weak levels' (Plume's names).",
        names,
    );
    crate::history::schema::def(g, "CycleAnomaly", s)
}

/// A cycle's own anomaly, or null.
pub fn cycle_anomaly_or_null(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let a = cycle_anomaly(g);
    schemars::json_schema!({ "anyOf": [a, { "type": "null" }] })
}

/// Every anomaly type a report lists.
pub fn anomaly_type(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    let cycles = cycle_anomaly(g);
    let claims = crate::timestamps::schema::white_box_finding_type(g);
    let findings = AnomalyKind::ALL.into_iter().filter(|k| !k.is_cycle() && !k.is_weak_cycle());
    let findings =
        crate::history::schema::strings("Findings on reads and writes.", findings.map(|k| k.name().to_string()));
    let s = serde_json::json!({
        "description": "Every anomaly type a report lists: the cycles, and the findings on reads and writes.",
        "anyOf": [cycles, findings, claims],
    });
    crate::history::schema::def(g, "AnomalyType", s)
}

/// Lists of anomaly types.
pub fn anomaly_types(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let t = anomaly_type(g);
    schemars::json_schema!({ "type": "array", "items": t })
}

/// The plain-language names of cycles: every name [`crate::level::plain_name`] gives (cycles
/// of up to four edges show them all), and the weak levels' cycles.
pub fn cycle_name(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    let mut names = Vec::new();
    let all = EdgeType::ALL;
    for n in 1..=4u32 {
        for code in 0..all.len().pow(n) {
            let types: Vec<EdgeType> = (0..n).map(|i| all[code / all.len().pow(i) % all.len()]).collect();
            for (rereads, overwrites) in [(false, false), (false, true), (true, false), (true, true)] {
                names.push(crate::level::plain_name(&types, rereads, overwrites).to_string());
            }
        }
    }
    names
        .extend(AnomalyKind::ALL.into_iter().filter(|k| k.is_weak_cycle()).filter_map(|k| k.plain()).map(String::from));
    crate::history::schema::def(
        g,
        "CycleName",
        crate::history::schema::strings("The plain-language name of a cycle.", names),
    )
}

/// The plain-language names of findings that are not cycles.
pub fn finding_name(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    let mut names: Vec<String> = AnomalyKind::ALL
        .into_iter()
        .filter(|k| !k.is_cycle() && !k.is_weak_cycle())
        .filter_map(|k| k.plain())
        .map(String::from)
        .collect();
    // Internal findings' names (explain::finding), and weak levels' reads of initial values.
    names.extend(
        ["future read", "non-repeatable read", "not my last write", "not my own write", "internal"].map(String::from),
    );
    names
        .extend(AnomalyKind::ALL.into_iter().filter(|k| k.is_weak_cycle()).filter_map(|k| k.plain()).map(String::from));
    names.extend(crate::timestamps::schema::claim_kinds().map(|k| k.plain().to_string()));
    let s = crate::history::schema::strings(
        "The plain-language name of an anomaly that is not a cycle (Plume's names for reads).",
        names,
    );
    crate::history::schema::def(g, "FindingName", s)
}

/// An anomaly's plain-language name: a cycle's or a finding's.
pub fn anomaly_name(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let c = cycle_name(g);
    let f = finding_name(g);
    schemars::json_schema!({ "anyOf": [c, f] })
}

/// How a white-box check used the claims.
pub fn claim_use(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = crate::history::schema::strings("`full`, `mixed` or `none`.", ["full", "mixed", "none"].map(String::from));
    schemars::Schema::try_from(s).unwrap_or_default()
}

/// Where a white-box check's commit order comes from.
pub fn commit_order_source(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = crate::history::schema::strings(
        "`commit_order` or `commit_ts`.",
        ["commit_order", "commit_ts"].map(String::from),
    );
    schemars::Schema::try_from(s).unwrap_or_default()
}

/// Edge types as names.
pub fn edge_types(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let t = g.subschema_for::<EdgeType>();
    schemars::json_schema!({ "type": "array", "items": t })
}

/// A classification scheme of the analysis.
pub fn scheme(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = crate::history::schema::strings(
        "A classification scheme: Zellag & Kemme 2014 (7.1), the LDBC ACID suite, Adya.",
        ["zellag", "ldbc", "adya"].map(String::from),
    );
    crate::history::schema::def(g, "Scheme", s)
}

/// The classes of the analysis's read anomalies.
pub fn read_class(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = crate::history::schema::strings("The LDBC class.", ["IMP", "OTV", "FR", "PMP"].map(String::from));
    schemars::Schema::try_from(s).unwrap_or_default()
}
