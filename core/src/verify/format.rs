//! The certificate file (`grail check --certificate C.json`, `docs/certificates.md`): witnesses
//! of the levels a check found to hold, in a form [`super::verify`] checks from the history alone.
//!
//! Transactions are named by their ids (`Transaction::id`, the ids reports show). A witness is
//! an order of the committed transactions (and of the indeterminate ones it takes as
//! committed): `serial` names each once, in the order of a serial execution; `snapshot` names
//! each twice, its start where it first appears and its commit where it appears again;
//! `versions` names each once, in the order their versions are installed.

use serde::{Deserialize, Serialize};

/// What the file says it is: `"grail-certificate"`.
pub const FORMAT: &str = "grail-certificate";
/// The version of the format this grail writes and reads.
pub const VERSION: u32 = 1;

/// A certificate: witnesses, and the levels that hold but have none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Certificate {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// How many transactions the history had (to say early that a certificate is another
    /// history's; the replay decides).
    pub transactions: usize,
    #[serde(default)]
    pub witnesses: Vec<Witness>,
    /// Levels the check found to hold for which no witness is given, and why.
    #[serde(default)]
    pub not_certified: Vec<NotCertified>,
    /// Cycles that prove levels violated, each step re-derived from the history.
    #[serde(default)]
    pub counterexamples: Vec<Counterexample>,
    /// Levels the check found violated for which no counterexample is given, and why.
    #[serde(default)]
    pub violations_not_certified: Vec<NotCertified>,
}

/// A cycle of dependencies (and session or real-time order) that a level forbids.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Counterexample {
    /// The level it violates (grail's name).
    pub level: String,
    /// Adya's name for the cycle (G0, G1c, G-single, G-nonadjacent, G2-item), as reports give it;
    /// for a read, `G1a` (aborted read), `G1b` (intermediate read), `garbage-read` (a value no
    /// transaction wrote), `internal` (one that disagrees with its transaction's own earlier
    /// writes), or a weak level's name for a read of the initial value (with `observed`).
    pub anomaly: String,
    /// The steps, each from the transaction the one before leads to; the last leads to the first.
    #[serde(default)]
    pub steps: Vec<CycleStep>,
    /// For a read: the transaction's id and the operation's place in it (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadRef>,
    /// For a weak level's read of a key's initial value (`read`): how the reader had observed a
    /// writer of the key, as steps of session order and reads-from (`so`, `wr`) from that
    /// writer to the reader.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<CycleStep>,
    /// For a cycle through an order of two writes the history leaves open (PolySI's case
    /// split): `steps` take `first`'s version of the key before `second`'s, and the other order
    /// closes the cycle here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
}

/// Two writes of a key in either order, each order closing a cycle the level forbids.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Split {
    /// The key, as reports write it.
    pub key: serde_json::Value,
    pub first: u64,
    pub second: u64,
    /// The cycle when `second`'s version comes first.
    pub other: Vec<CycleStep>,
}

/// One operation of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReadRef {
    pub txn: u64,
    pub index: u32,
}

/// One step of a cycle: `from` precedes `to` by a write (`ww`), read (`wr`) or anti-dependency
/// (`rw`) on `key`, by session (`so`) or real-time (`rt`) order, or, for RC, RA and CC, by the
/// commit order their axiom forces (`co`: a transaction that had observed `from` read `key`
/// from `to`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CycleStep {
    pub from: u64,
    pub to: u64,
    #[serde(rename = "type")]
    pub ty: String,
    /// The key, as reports write it (`null` for an order step).
    #[serde(default)]
    pub key: serde_json::Value,
    /// For `co`: the read of `key` from `to` that forces the step. For a `wr` step of an
    /// `observed` chain: the read from `from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadRef>,
    /// For `co`: how the reader had observed `from`, as steps of session order and reads-from
    /// (`so`, `wr`) from `from` to the reader: one `wr` by an earlier read (RC), one step (RA),
    /// a chain (CC).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<CycleStep>,
}

/// One execution that proves the levels it lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Witness {
    pub kind: WitnessKind,
    /// Orders the execution also respects: `session`, `real-time`.
    #[serde(default)]
    pub respects: Vec<Respect>,
    /// The levels it proves (grail's names: `SER`, `strong-session-SI`, ...).
    pub levels: Vec<String>,
    /// Transaction ids: once each (`serial`, `versions`), or twice each, start then commit
    /// (`snapshot`).
    pub order: Vec<u64>,
    /// Reads the execution does not account for, each a garbage read or an internal
    /// inconsistency that no execution has (a level that holds `with internal set aside`): the
    /// levels are proved of the history without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<ReadRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum WitnessKind {
    /// A serial execution: replayed one transaction at a time from the initial state, each
    /// transaction reads what the replay has (its own writes included).
    Serial,
    /// Starts and commits: each transaction reads the state its start saw plus its own writes,
    /// and no two transactions whose start-to-commit intervals overlap write one key.
    Snapshot,
    /// The order each key's versions are installed in (its writers' order here, Adya's version
    /// order): every read returns a version installed before its reader, or its own write (no
    /// G1a, G1b or G1c: PL-2); for PL-1 alone, list reads agree with that order (no G0).
    Versions,
    /// A commit order containing session order and reads-from, in which every read satisfies
    /// the axiom of the weak level it proves (Biswas and Enea 2019): RC, RA or CC; each version
    /// read is its writer's last write and, for a list, the appends up to it in this order.
    #[serde(rename = "commit-order")]
    CommitOrder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Respect {
    /// Each process's transactions in the order it ran them.
    #[serde(rename = "session")]
    Session,
    /// A transaction that completed before another was invoked comes (commits) before it starts.
    #[serde(rename = "real-time")]
    RealTime,
}

/// A level that holds with no witness in the file, or one violated with no counterexample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NotCertified {
    pub level: String,
    pub reason: String,
}

/// Every level's name, strongest first.
pub const LEVELS: [&str; 12] = [
    "strict-SER",
    "strong-session-SER",
    "SER",
    "strong-SI",
    "strong-session-SI",
    "SI",
    "PSI",
    "CC",
    "RA",
    "RC",
    "PL-2",
    "PL-1",
];

/// The levels a witness of this kind respecting these orders proves, strongest first. A fact of
/// the definitions (Adya; Cerone et al.; Daudjee and Salem), kept here rather than read from
/// grail's level table so that the verifier shares nothing with the engine.
pub fn proves(kind: WitnessKind, respects: &[Respect]) -> Vec<&'static str> {
    match kind {
        WitnessKind::Versions => return vec!["PL-2", "PL-1"],
        WitnessKind::CommitOrder => return vec!["CC", "RA", "RC", "PL-2", "PL-1"],
        _ => {}
    }
    let session = respects.contains(&Respect::Session);
    let realtime = respects.contains(&Respect::RealTime);
    let serial = kind == WitnessKind::Serial;
    let mut out = Vec::new();
    if serial && realtime {
        out.push("strict-SER");
    }
    if serial && session {
        out.push("strong-session-SER");
    }
    if serial {
        out.push("SER");
    }
    if realtime {
        out.push("strong-SI");
    }
    if session {
        out.push("strong-session-SI");
    }
    out.extend(["SI", "PSI"]);
    if session {
        out.extend(["CC", "RA", "RC"]);
    }
    out.extend(["PL-2", "PL-1"]);
    out
}
