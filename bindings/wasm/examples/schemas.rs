//! Prints the JSON Schema of the data the JS package returns and takes
//! (`grail_core::api::data_schemas`), for bindings/wasm/scripts/gen-types.mjs to make
//! js/types.generated.d.ts from: `cargo run -q -p grail-wasm --features schema --example schemas`.

fn main() {
    let s = grail_core::api::data_schemas();
    println!("{}", serde_json::to_string_pretty(&s).expect("a schema is JSON"));
}
