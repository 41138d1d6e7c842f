//! Renderers: a finished [`crate::Report`] (data) as text for terminals and as DOT. They read
//! the report only; nothing here computes a verdict or parses back what it wrote.

pub mod dot;
pub mod text;
