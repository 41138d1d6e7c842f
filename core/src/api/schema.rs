//! The JSON Schema of the data core gives and takes (feature `schema`): Python's report classes
//! are checked against it, and the JS package's TypeScript types are generated from it
//! (bindings/wasm/scripts/gen-types.mjs). Where a field is a plain string in Rust, the
//! functions here name its values, from core's tables where there is one.

use super::views::{GraphView, StatsView, TxnView};
use crate::graph::EdgeType;

/// The JSON Schema of [`crate::Report`] (what `--json`, `Report.to_dict()` and the JS package
/// give), for front ends to check their own classes against.
pub fn report_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(crate::report::Report)).unwrap_or_default()
}

/// The JSON Schema of every data type the JS package returns or takes, in one document whose
/// `$defs` name them all (shared definitions once): `Report`, `GraphView`, `StatsView`,
/// `TxnView`, `StrategyReport`, `OnlineAnomaly`, `OnlineSummary`, `TsViolation`,
/// `TsOnlineStats`, and the options `CheckOptions`, `AnalyzeOptions`, `OnlineOptions`,
/// `TsOnlineOptions`. Results follow what serialization writes (a field skipped when empty is
/// optional, an `Option` without skip is `null`able); options follow what deserialization
/// accepts (every field has a default). bindings/wasm/scripts/gen-types.mjs makes the
/// package's TypeScript types from it.
pub fn data_schemas() -> serde_json::Value {
    use schemars::generate::SchemaSettings;
    let mut out = schemars::SchemaGenerator::new(SchemaSettings::draft2020_12().for_serialize());
    out.subschema_for::<crate::report::Report>();
    out.subschema_for::<GraphView>();
    out.subschema_for::<StatsView>();
    out.subschema_for::<TxnView<'static>>();
    out.subschema_for::<crate::strategy::StrategyReport>();
    out.subschema_for::<crate::analysis::online::OnlineAnomaly>();
    out.subschema_for::<crate::analysis::online::OnlineSummary>();
    out.subschema_for::<crate::timestamps::online::TsViolation>();
    out.subschema_for::<crate::timestamps::online::TsOnlineStats>();
    let mut defs = out.take_definitions(true);
    // A result's field that is not required is skipped when `None` (core skips only `None`s
    // and empty lists): present, it is never `null`.
    for schema in defs.values_mut() {
        schema_drop_skipped_nulls(schema);
    }
    let mut input = schemars::SchemaGenerator::new(SchemaSettings::draft2020_12().for_deserialize());
    input.subschema_for::<crate::engine::CheckOptions>();
    input.subschema_for::<crate::engine::AnalyzeOptions>();
    input.subschema_for::<crate::analysis::online::OnlineOptions>();
    input.subschema_for::<crate::timestamps::online::TsOnlineOptions>();
    for (name, schema) in input.take_definitions(true) {
        // A type both returned and taken (the levels) must have one schema.
        match defs.get(&name) {
            Some(s) => assert_eq!(s, &schema, "{name} differs between results and options"),
            None => {
                defs.insert(name, schema);
            }
        }
    }
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "grail",
        "$defs": defs,
    })
}

/// Drops `null` from the optional properties of an object schema.
fn schema_drop_skipped_nulls(schema: &mut serde_json::Value) {
    use serde_json::Value;
    let required: Vec<Value> = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else { return };
    for (name, p) in props.iter_mut() {
        if required.contains(&Value::from(name.as_str())) {
            continue;
        }
        // An `Option`'s schema: `type: [T, "null"]`, or `anyOf: [T, null]` (other unions, such as
        // a read's value, may hold `null` of their own).
        if let Some(Value::Array(types)) = p.get_mut("type").filter(|t| t.as_array().is_some_and(|a| a.len() == 2)) {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let t = types[0].clone();
                p["type"] = t;
            }
        }
        if let Some(Value::Array(any)) = p.get_mut("anyOf").filter(|a| a.as_array().is_some_and(|a| a.len() == 2)) {
            any.retain(|s| s.get("type").and_then(Value::as_str) != Some("null"));
            if any.len() == 1 {
                let only = any[0].clone();
                let obj = p.as_object_mut().expect("a property schema is an object");
                obj.remove("anyOf");
                if let Value::Object(o) = only {
                    obj.extend(o);
                }
            }
        }
    }
}

/// A definition named `name` in `g`'s `$defs`, and the reference to it.
fn schema_def(g: &mut schemars::SchemaGenerator, name: &str, schema: serde_json::Value) -> schemars::Schema {
    let path = format!("#{}/{}", g.settings().definitions_path, name);
    g.definitions_mut().insert(name.into(), schema);
    schemars::json_schema!({ "$ref": path })
}

/// One of `names` (each once, in order).
fn schema_strings(description: &str, names: impl IntoIterator<Item = String>) -> serde_json::Value {
    let mut seen = Vec::new();
    for n in names {
        if !seen.contains(&n) {
            seen.push(n);
        }
    }
    serde_json::json!({ "description": description, "type": "string", "enum": seen })
}

/// A key or an atom of a value: an integer or a string, as the history has it.
pub fn schema_value(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s =
        serde_json::json!({ "description": "A key or value as the history has it.", "type": ["integer", "string"] });
    schema_def(g, "Value", s)
}

/// A key, or `null` where there is none (session and real-time order, PMP reads).
pub fn schema_key_or_null(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = schema_value(g);
    schemars::json_schema!({ "anyOf": [v, { "type": "null" }] })
}

/// Each edge's keys.
pub fn schema_value_lists(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = schema_value(g);
    schemars::json_schema!({ "type": "array", "items": { "type": "array", "items": v } })
}

/// Keys, one per operation.
pub fn schema_values(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = schema_value(g);
    schemars::json_schema!({ "type": "array", "items": v })
}

/// What an operation wrote or a read returned: a value, a list, or `null` (nil).
pub fn schema_read_value(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = schema_value(g);
    schemars::json_schema!({ "anyOf": [v, { "type": "array", "items": v }, { "type": "null" }] })
}

/// A claimed timestamp: an integer, or a hybrid logical clock `{p, l}`.
pub fn schema_timestamp(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = serde_json::json!({
        "description": "A timestamp: an integer, or a hybrid logical clock `{p, l}`.",
        "anyOf": [
            { "type": "integer" },
            { "type": "object", "properties": { "p": { "type": "integer" }, "l": { "type": "integer" } },
              "required": ["p", "l"], "additionalProperties": false }
        ]
    });
    schema_def(g, "Timestamp", s)
}

/// Names of the cycle anomalies: Adya's, with Elle's `-process` and `-realtime` suffixes and
/// the `-claimed` of cycles through claimed orders, and the weak levels' cycles.
pub fn schema_cycle_anomaly(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    use crate::graph::orders::Order;
    let adya: Vec<AnomalyKind> = AnomalyKind::ALL.into_iter().filter(|k| k.is_cycle()).collect();
    let mut names: Vec<String> = Vec::new();
    for suffix in [Order::None.suffix(), Order::Session.suffix(), Order::Realtime.suffix(), "-claimed"] {
        names.extend(adya.iter().map(|k| format!("{}{suffix}", k.name())));
    }
    names.extend(AnomalyKind::ALL.into_iter().filter(|k| k.is_weak_cycle()).map(|k| k.name().to_string()));
    let s = schema_strings(
        "Cycle anomalies: Adya's, Elle's variants that need session (`-process`) or real-time \
         (`-realtime`) order, cycles through an order the database claims (`-claimed`), and the \
         weak levels' (Plume's names).",
        names,
    );
    schema_def(g, "CycleAnomaly", s)
}

/// Kinds of the violations of claimed orders (`docs/timestamps.md`).
fn claim_kinds() -> [crate::timestamps::axioms::Kind; 5] {
    use crate::timestamps::axioms::Kind;
    // Every kind: the match fails to compile when one is added.
    let _every = |k: Kind| match k {
        Kind::SnapshotRead | Kind::WriteConflict | Kind::SessionOrder | Kind::CommitOrderRead | Kind::ClaimedOrder => {}
    };
    [Kind::SnapshotRead, Kind::WriteConflict, Kind::SessionOrder, Kind::CommitOrderRead, Kind::ClaimedOrder]
}

/// Kinds of the violations of the orders a history claims.
pub fn schema_white_box_finding_type(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = schema_strings(
        "Violations of the orders a history claims (`docs/timestamps.md`): a read outside its \
         snapshot (Chronos's EXT), overlapping writers of a key (NOCONFLICT), a session out of \
         order (SESSION), a read out of commit order (SER), a claim contradicting a proven \
         dependency.",
        claim_kinds().map(|k| k.name().to_string()),
    );
    schema_def(g, "WhiteBoxFindingType", s)
}

/// What the online timestamped checker reports (every claim kind but `claimed-order`, which
/// needs the dependency graph).
pub fn schema_ts_violation_type(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::timestamps::axioms::Kind;
    let names = claim_kinds().into_iter().filter(|k| *k != Kind::ClaimedOrder).map(|k| k.name().to_string());
    schemars::Schema::try_from(schema_strings("The axiom broken.", names)).unwrap_or_default()
}

/// Every anomaly type a report lists.
pub fn schema_anomaly_type(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    let cycles = schema_cycle_anomaly(g);
    let claims = schema_white_box_finding_type(g);
    let findings = AnomalyKind::ALL.into_iter().filter(|k| !k.is_cycle() && !k.is_weak_cycle());
    let findings = schema_strings("Findings on reads and writes.", findings.map(|k| k.name().to_string()));
    let s = serde_json::json!({
        "description": "Every anomaly type a report lists: the cycles, and the findings on reads and writes.",
        "anyOf": [cycles, findings, claims],
    });
    schema_def(g, "AnomalyType", s)
}

/// Lists of anomaly types.
pub fn schema_anomaly_types(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let t = schema_anomaly_type(g);
    schemars::json_schema!({ "type": "array", "items": t })
}

/// The plain-language names of cycles: every name [`crate::level::plain_name`] gives (cycles
/// of up to four edges show them all), and the weak levels' cycles.
pub fn schema_cycle_name(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::anomaly::AnomalyKind;
    let mut names = Vec::new();
    let all = EdgeType::ALL;
    for n in 1..=4u32 {
        for code in 0..all.len().pow(n) {
            let types: Vec<EdgeType> = (0..n).map(|i| all[code / all.len().pow(i) % all.len()]).collect();
            for rereads in [false, true] {
                names.push(crate::level::plain_name(&types, rereads).to_string());
            }
        }
    }
    names
        .extend(AnomalyKind::ALL.into_iter().filter(|k| k.is_weak_cycle()).filter_map(|k| k.plain()).map(String::from));
    schema_def(g, "CycleName", schema_strings("The plain-language name of a cycle.", names))
}

/// The plain-language names of findings that are not cycles.
pub fn schema_finding_name(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
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
    names.extend(claim_kinds().map(|k| k.plain().to_string()));
    let s =
        schema_strings("The plain-language name of an anomaly that is not a cycle (Plume's names for reads).", names);
    schema_def(g, "FindingName", s)
}

/// An anomaly's plain-language name: a cycle's or a finding's.
pub fn schema_anomaly_name(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let c = schema_cycle_name(g);
    let f = schema_finding_name(g);
    schemars::json_schema!({ "anyOf": [c, f] })
}

/// How a white-box check used the claims.
pub fn schema_claim_use(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = schema_strings("`full`, `mixed` or `none`.", ["full", "mixed", "none"].map(String::from));
    schemars::Schema::try_from(s).unwrap_or_default()
}

/// Where a white-box check's commit order comes from.
pub fn schema_commit_order_source(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = schema_strings("`commit_order` or `commit_ts`.", ["commit_order", "commit_ts"].map(String::from));
    schemars::Schema::try_from(s).unwrap_or_default()
}

/// A transaction's status as [`crate::history::Status::as_str`] names it.
pub fn schema_status(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::history::Status;
    let names = [Status::Committed, Status::Aborted, Status::Indeterminate].map(|s| s.as_str().to_string());
    schemars::Schema::try_from(schema_strings("How the transaction ended.", names)).unwrap_or_default()
}

/// Edge types as names.
pub fn schema_edge_types(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let t = g.subschema_for::<EdgeType>();
    schemars::json_schema!({ "type": "array", "items": t })
}

/// A strategy's name.
pub fn schema_strategy(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::strategy::Strategy;
    let names = [Strategy::Scc, Strategy::Dfs { max_depth: 0 }, Strategy::ShortestPath, Strategy::Gabow];
    let s = schema_strings(
        "A strategy: the default engine or one of GRAIL's checkers.",
        names.map(|s| s.name().to_string()),
    );
    schema_def(g, "Strategy", s)
}

/// A classification scheme of the analysis.
pub fn schema_scheme(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = schema_strings(
        "A classification scheme: Zellag & Kemme 2014 (7.1), the LDBC ACID suite, Adya.",
        ["zellag", "ldbc", "adya"].map(String::from),
    );
    schema_def(g, "Scheme", s)
}

/// The classes of the analysis's read anomalies.
pub fn schema_read_class(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = schema_strings("The LDBC class.", ["IMP", "OTV", "FR", "PMP"].map(String::from));
    schemars::Schema::try_from(s).unwrap_or_default()
}
