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
