//! JSON Schema of the claims' violation kinds (feature `schema`), from the axioms' table.

/// Kinds of the violations of claimed orders (`docs/timestamps.md`).
pub(crate) fn claim_kinds() -> [super::axioms::Kind; 5] {
    use super::axioms::Kind;
    // Every kind: the match fails to compile when one is added.
    let _every = |k: Kind| match k {
        Kind::SnapshotRead | Kind::WriteConflict | Kind::SessionOrder | Kind::CommitOrderRead | Kind::ClaimedOrder => {}
    };
    [Kind::SnapshotRead, Kind::WriteConflict, Kind::SessionOrder, Kind::CommitOrderRead, Kind::ClaimedOrder]
}

/// Kinds of the violations of the orders a history claims.
pub fn white_box_finding_type(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let s = crate::history::schema::strings(
        "Violations of the orders a history claims (`docs/timestamps.md`): a read outside its \
         snapshot (Chronos's EXT), overlapping writers of a key (NOCONFLICT), a session out of \
         order (SESSION), a read out of commit order (SER), a claim contradicting a proven \
         dependency.",
        claim_kinds().map(|k| k.name().to_string()),
    );
    crate::history::schema::def(g, "WhiteBoxFindingType", s)
}

/// What the online timestamped checker reports (every claim kind but `claimed-order`, which
/// needs the dependency graph).
pub fn ts_violation_type(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use super::axioms::Kind;
    let names = claim_kinds().into_iter().filter(|k| *k != Kind::ClaimedOrder).map(|k| k.name().to_string());
    schemars::Schema::try_from(crate::history::schema::strings("The axiom broken.", names)).unwrap_or_default()
}
