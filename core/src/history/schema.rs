//! JSON Schema of the history's values, where serde's derive says less than the data is
//! (feature `schema`): a key, a read's value, a timestamp, a status. The helpers `def` and
//! `strings` serve the other modules' schema functions.

/// A definition named `name` in `g`'s `$defs`, and the reference to it.
pub(crate) fn def(g: &mut schemars::SchemaGenerator, name: &str, schema: serde_json::Value) -> schemars::Schema {
    let path = format!("#{}/{}", g.settings().definitions_path, name);
    g.definitions_mut().insert(name.into(), schema);
    schemars::json_schema!({ "$ref": path })
}

/// One of `names` (each once, in order).
pub(crate) fn strings(description: &str, names: impl IntoIterator<Item = String>) -> serde_json::Value {
    let mut seen = Vec::new();
    for n in names {
        if !seen.contains(&n) {
            seen.push(n);
        }
    }
    serde_json::json!({ "description": description, "type": "string", "enum": seen })
}

/// A key or an atom of a value: an integer or a string, as the history has it.
pub fn value(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s =
        serde_json::json!({ "description": "A key or value as the history has it.", "type": ["integer", "string"] });
    def(g, "Value", s)
}

/// A key, or `null` where there is none (session and real-time order, PMP reads).
pub fn key_or_null(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = value(g);
    schemars::json_schema!({ "anyOf": [v, { "type": "null" }] })
}

/// Each edge's keys.
pub fn value_lists(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = value(g);
    schemars::json_schema!({ "type": "array", "items": { "type": "array", "items": v } })
}

/// Keys, one per operation.
pub fn values(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = value(g);
    schemars::json_schema!({ "type": "array", "items": v })
}

/// What an operation wrote or a read returned: a value, a list, or `null` (nil).
pub fn read_value(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let v = value(g);
    schemars::json_schema!({ "anyOf": [v, { "type": "array", "items": v }, { "type": "null" }] })
}

/// A claimed timestamp: an integer, or a hybrid logical clock `{p, l}`.
pub fn timestamp(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = serde_json::json!({
        "description": "A timestamp: an integer, or a hybrid logical clock `{p, l}`.",
        "anyOf": [
            { "type": "integer" },
            { "type": "object", "properties": { "p": { "type": "integer" }, "l": { "type": "integer" } },
              "required": ["p", "l"], "additionalProperties": false }
        ]
    });
    def(g, "Timestamp", s)
}

/// A transaction's status as [`crate::history::Status::as_str`] names it.
pub fn status(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::history::Status;
    let names = [Status::Committed, Status::Aborted, Status::Indeterminate].map(|s| s.as_str().to_string());
    schemars::Schema::try_from(strings("How the transaction ended.", names)).unwrap_or_default()
}
