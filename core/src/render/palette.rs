//! The one palette of edge types, for every drawing: DOT ([`super::dot`]), SVG and Elle-style
//! DOT ([`super::svg`]), the HTML report, and through [`crate::api`] the web demo and the
//! notebooks.

use crate::graph::EdgeType;

/// The colour of an edge type.
pub fn edge(t: EdgeType) -> &'static str {
    match t {
        EdgeType::Ww => "#1f77b4",
        EdgeType::Wr => "#2ca02c",
        EdgeType::Rw => "#d62728",
        EdgeType::So => "#7f7f7f",
        EdgeType::Rt => "#9467bd",
        EdgeType::Co => "#ff7f0e",
    }
}

/// The colour of an edge type by its name (`ww`, ... as [`EdgeType::as_str`] gives it); grey
/// for any other name.
pub fn edge_color(ty: &str) -> &'static str {
    EdgeType::ALL.into_iter().find(|t| t.as_str() == ty).map_or("#585858", edge)
}
