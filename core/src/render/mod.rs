//! Renderers: a finished [`crate::Report`] (data) as text for terminals, DOT, SVG and a
//! self-contained HTML page (with the [`crate::History`] where the page shows operations). Pure
//! functions to text; nothing here computes a verdict or parses back what it wrote. No IO.

pub mod dot;
pub mod elle_dir;
pub mod html;
pub mod palette;
pub mod svg;
pub mod text;
mod timeline;
mod trig;

/// A step's key as the drawings and tables print it: bare when a string, JSON otherwise, empty
/// for a step on no key (session or real-time order).
pub(crate) fn key_text(key: &serde_json::Value) -> String {
    match key {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(k) => k.clone(),
        k => k.to_string(),
    }
}
