//! The JSON Schema of the data core gives and takes (feature `schema`): Python's report classes
//! are checked against it, and the JS package's TypeScript types are generated from it
//! (bindings/wasm/scripts/gen-types.mjs). Where a field is a plain string in Rust, the
//! functions here name its values, from core's tables where there is one.

use super::views::{GraphView, StatsView, TxnView};

/// The JSON Schema of [`crate::Report`] (what `--json`, `Report.to_dict()` and the JS package
/// give), for front ends to check their own classes against.
pub fn report_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(crate::report::Report)).unwrap_or_default()
}

/// The JSON Schema of every data type the JS package returns or takes, in one document whose
/// `$defs` name them all (shared definitions once): `Report`, `GraphView`, `StatsView`,
/// `TxnView`, `StrategyReport`, `OnlineAnomaly`, `OnlineSummary`, `OnlineFinding`, `TsViolation`,
/// `TsOnlineStats`, `Certificate`, `Verification`, and the options `CheckOptions`, `AnalyzeOptions`, `OnlineOptions`,
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
    out.subschema_for::<crate::online::cycles::OnlineAnomaly>();
    out.subschema_for::<crate::online::cycles::OnlineSummary>();
    out.subschema_for::<crate::online::cycles::OnlineFinding>();
    out.subschema_for::<crate::online::timestamps::TsViolation>();
    out.subschema_for::<crate::online::timestamps::TsOnlineStats>();
    out.subschema_for::<crate::verify::format::Certificate>();
    out.subschema_for::<crate::verify::Verification>();
    let mut defs = out.take_definitions(true);
    // A result's field that is not required is skipped when `None` (core skips only `None`s
    // and empty lists): present, it is never `null`.
    for schema in defs.values_mut() {
        schema_drop_skipped_nulls(schema);
    }
    let mut input = schemars::SchemaGenerator::new(SchemaSettings::draft2020_12().for_deserialize());
    input.subschema_for::<crate::engine::CheckOptions>();
    input.subschema_for::<crate::engine::AnalyzeOptions>();
    input.subschema_for::<crate::online::cycles::OnlineOptions>();
    input.subschema_for::<crate::online::timestamps::TsOnlineOptions>();
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
