//! Drawings and pages rendered from reports: pure functions from a [`crate::Report`] (and the
//! [`crate::History`] where the page shows operations) to text. No IO.

pub mod html;
pub mod ops;
pub mod svg;
