//! Isolation levels and anomalies as data, each entry citing where it comes from.
//!
//! A level is the set of anomalies it proscribes; a cycle anomaly is a [`Pattern`] over edge
//! types run by the one search in [`crate::graph::search`]. Verdicts are derived from these
//! tables, never written per level; so are "strongest satisfied" and "weakest violated" (from
//! `implies`, as Elle derives them from its model-strength table).

use crate::anomaly::{AnomalyKind, Finding};
use crate::error::{Error, ErrorKind};
use crate::graph::search::Pattern;
use crate::graph::EdgeType;
use serde::{Deserialize, Serialize};

/// The levels grail checks: the five of the GRAIL thesis (Table 2.1) and paper (Table 1), their
/// session and real-time variants (Elle's strong-session and strict levels), and the weak levels
/// of Biswas and Enea (read committed, read atomic, causal) as Plume and AWDIT check them.
/// Strongest first, as far as the order allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Level {
    #[serde(rename = "strict-SER")]
    StrictSer,
    #[serde(rename = "strong-session-SER")]
    StrongSessionSer,
    #[serde(rename = "SER")]
    Ser,
    #[serde(rename = "strong-SI")]
    StrongSi,
    #[serde(rename = "strong-session-SI")]
    StrongSessionSi,
    #[serde(rename = "SI")]
    Si,
    #[serde(rename = "PSI")]
    Psi,
    #[serde(rename = "CC")]
    Cc,
    #[serde(rename = "RA")]
    Ra,
    #[serde(rename = "RC")]
    Rc,
    #[serde(rename = "PL-2")]
    Pl2,
    #[serde(rename = "PL-1")]
    Pl1,
}

/// By name or alias, as [`Level::parse`] (so JS and Python options take Elle's names too).
impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Level::parse(&s).map_err(|e| serde::de::Error::custom(e.message))
    }
}

pub use crate::graph::orders::Order;

/// Which saturation a weak level checks (Biswas and Enea 2019, as Plume's TAPs a-n): the
/// observations that force a commit-order edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Weak {
    /// Read committed: an earlier read of the same transaction (MonoAtomicView).
    ReadCommitted,
    /// Read atomic: a direct session-order or write-read predecessor.
    ReadAtomic,
    /// Causal: any causal predecessor, `(so ∪ wr)+`.
    Causal,
}

/// A level's entry: what it proscribes, on which graph, what it implies, and the source.
pub struct LevelSpec {
    pub level: Level,
    pub name: &'static str,
    /// Other names accepted for it (Elle's among them).
    pub aliases: &'static [&'static str],
    pub anti_pattern: &'static str,
    pub proscribes: &'static [AnomalyKind],
    /// Order edges its cycles may use.
    pub order: Order,
    /// The weak level's saturation, for RC, RA and CC.
    pub weak: Option<Weak>,
    /// Levels directly implied (weaker); "strongest satisfied" and "weakest violated" follow.
    pub implies: &'static [Level],
    /// A second read of a key that sees a newer version (a non-repeatable read, an `internal`
    /// finding marked `reread`) is allowed here although `internal` is proscribed: Plume's read
    /// committed.
    pub allows_rereads: bool,
    pub source: &'static str,
}

use AnomalyKind::*;

const SER_SET: &[AnomalyKind] = &[G0, G1a, G1b, G1c, GSingle, GNonadjacent, G2Item];
const SI_SET: &[AnomalyKind] = &[G0, G1a, G1b, G1c, GSingle, GNonadjacent];
/// Plume's TAPs a-i (read committed); RA adds j-l, causal adds m-n.
/// A cycle of the weak graph without session or commit-order edges is Adya's G0 or G1c.
const RC_SET: &[AnomalyKind] = &[GarbageRead, G1a, Internal, G1b, G0, G1c, CausalityCycle, NonMonotonicRead];
const RA_SET: &[AnomalyKind] =
    &[GarbageRead, G1a, Internal, G1b, G0, G1c, CausalityCycle, NonMonotonicRead, NonRepeatableRead, FracturedRead];
const CC_SET: &[AnomalyKind] = &[
    GarbageRead,
    G1a,
    Internal,
    G1b,
    G0,
    G1c,
    CausalityCycle,
    NonMonotonicRead,
    NonRepeatableRead,
    FracturedRead,
    CausalViolation,
];

/// Strongest first; indexed by `Level as usize`.
pub const LEVELS: [LevelSpec; 12] = [
    LevelSpec {
        level: Level::StrictSer,
        name: "strict-SER",
        aliases: &["strict-serializable", "strict-serializability", "strict-1SR"],
        anti_pattern: "any cycle of dependencies and real-time order",
        proscribes: SER_SET,
        order: Order::Realtime,
        weak: None,
        implies: &[Level::Ser, Level::StrongSi],
        allows_rereads: false,
        source: "Adya PL-SS; Elle's strict-serializable (cycles with realtime edges)",
    },
    LevelSpec {
        level: Level::StrongSessionSer,
        name: "strong-session-SER",
        aliases: &["strong-session-serializable", "strong-session-PL-3"],
        anti_pattern: "any cycle of dependencies and session order",
        proscribes: SER_SET,
        order: Order::Session,
        weak: None,
        implies: &[Level::Ser, Level::StrongSessionSi],
        allows_rereads: false,
        source: "Daudjee and Salem 2004; Elle's strong-session-serializable (cycles with process edges)",
    },
    LevelSpec {
        level: Level::Ser,
        name: "SER",
        aliases: &["PL-3", "serializable", "serializability", "PL-2.99", "repeatable-read"],
        anti_pattern: "any cycle",
        proscribes: SER_SET,
        order: Order::None,
        weak: None,
        implies: &[Level::Si],
        allows_rereads: false,
        source: "GRAIL thesis Table 2.1 (SER = Adya PL-3; on item histories PL-2.99 is the same)",
    },
    LevelSpec {
        level: Level::StrongSi,
        name: "strong-SI",
        aliases: &["strong-snapshot-isolation", "strong-PL-SI"],
        anti_pattern: "a cycle of dependencies and real-time order without two adjacent RW edges",
        proscribes: SI_SET,
        order: Order::Realtime,
        weak: None,
        implies: &[Level::Si],
        allows_rereads: false,
        source: "Daudjee and Salem 2004 (strong SI); Elle's strong-snapshot-isolation",
    },
    LevelSpec {
        level: Level::StrongSessionSi,
        name: "strong-session-SI",
        aliases: &["strong-session-snapshot-isolation", "strong-session-PL-SI"],
        anti_pattern: "a cycle of dependencies and session order without two adjacent RW edges",
        proscribes: SI_SET,
        order: Order::Session,
        weak: None,
        implies: &[Level::Si, Level::Cc],
        allows_rereads: false,
        source: "Daudjee and Salem 2004 (strong session SI); Elle's strong-session-snapshot-isolation",
    },
    LevelSpec {
        level: Level::Si,
        name: "SI",
        aliases: &["snapshot-isolation", "PL-SI"],
        anti_pattern: "a cycle without two adjacent RW edges",
        proscribes: SI_SET,
        order: Order::None,
        weak: None,
        implies: &[Level::Psi],
        allows_rereads: false,
        source: "GRAIL thesis Table 2.1, Proposition 1; Adya PL-SI",
    },
    LevelSpec {
        level: Level::Psi,
        name: "PSI",
        aliases: &["parallel-snapshot-isolation"],
        anti_pattern: "a cycle with at most one RW edge",
        proscribes: &[G0, G1a, G1b, G1c, GSingle],
        order: Order::None,
        weak: None,
        implies: &[Level::Pl2],
        allows_rereads: false,
        source: "GRAIL thesis Table 2.1, Proposition 1",
    },
    LevelSpec {
        level: Level::Cc,
        name: "CC",
        aliases: &["causal", "causal-consistency", "TCC"],
        anti_pattern: "a cycle of session order, reads-from and the commit order causality forces",
        proscribes: CC_SET,
        order: Order::Session,
        weak: Some(Weak::Causal),
        implies: &[Level::Ra],
        allows_rereads: false,
        source: "Biswas and Enea 2019, Causal axiom; Plume (OOPSLA 2024) TAPs a-n",
    },
    LevelSpec {
        level: Level::Ra,
        name: "RA",
        aliases: &["read-atomic"],
        anti_pattern: "a cycle of session order, reads-from and the commit order atomic visibility forces",
        proscribes: RA_SET,
        order: Order::Session,
        weak: Some(Weak::ReadAtomic),
        implies: &[Level::Rc],
        allows_rereads: false,
        source: "Biswas and Enea 2019, ReadAtomic axiom; Plume TAPs a-l",
    },
    LevelSpec {
        level: Level::Rc,
        name: "RC",
        aliases: &[],
        anti_pattern: "a cycle of session order, reads-from and the commit order monotonic reads force",
        proscribes: RC_SET,
        order: Order::Session,
        weak: Some(Weak::ReadCommitted),
        implies: &[Level::Pl2],
        allows_rereads: true,
        source: "Biswas and Enea 2019, Read Committed (MonoAtomicView); Plume TAPs a-i",
    },
    LevelSpec {
        level: Level::Pl2,
        name: "PL-2",
        aliases: &["PL2", "read-committed"],
        anti_pattern: "a cycle without RW edges, or a read of a value no transaction wrote",
        // Adya's PL-2 reads only committed writes, so a thin-air read violates it and every
        // level above (Cobra, PolySI, AWDIT and dbcop call it a violation of each level).
        proscribes: &[G0, G1a, G1b, G1c, GarbageRead],
        order: Order::None,
        weak: None,
        implies: &[Level::Pl1],
        allows_rereads: false,
        source: "GRAIL thesis Proposition 2; Adya PL-2 (Elle's read-committed)",
    },
    LevelSpec {
        level: Level::Pl1,
        name: "PL-1",
        aliases: &["PL1", "read-uncommitted"],
        anti_pattern: "a cycle of WW edges only",
        proscribes: &[G0],
        order: Order::None,
        weak: None,
        implies: &[],
        allows_rereads: false,
        source: "GRAIL thesis Proposition 2; Adya PL-1 (Elle's read-uncommitted)",
    },
];

impl Level {
    pub const ALL: [Level; 12] = [
        Level::StrictSer,
        Level::StrongSessionSer,
        Level::Ser,
        Level::StrongSi,
        Level::StrongSessionSi,
        Level::Si,
        Level::Psi,
        Level::Cc,
        Level::Ra,
        Level::Rc,
        Level::Pl2,
        Level::Pl1,
    ];

    /// The five levels of the GRAIL thesis: checked by default, and by the GRAIL strategies.
    pub const CLASSIC: [Level; 5] = [Level::Ser, Level::Si, Level::Psi, Level::Pl2, Level::Pl1];

    pub fn spec(self) -> &'static LevelSpec {
        &LEVELS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The names of `levels` with `sep` between them, as `[&str]::join` writes them (without its
    /// own copy in the web demo's module, whose other joins are of `String`s).
    pub fn join_names(levels: &[Level], sep: &str) -> String {
        let mut out = String::new();
        for (i, l) in levels.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(l.name());
        }
        out
    }

    /// A level by name or alias, ignoring case, `_` for `-`, and a `PL2`-style missing dash.
    pub fn parse(s: &str) -> Result<Level, Error> {
        let norm = |x: &str| x.trim().to_ascii_lowercase().replace('_', "-");
        let want = norm(s);
        Level::ALL
            .into_iter()
            .find(|l| norm(l.name()) == want || l.spec().aliases.iter().any(|a| norm(a) == want))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Usage,
                    format!(
                        "unknown level {s:?}: expected one of {}, or all or classic",
                        Level::join_names(&Level::ALL, ", ")
                    ),
                )
            })
    }

    /// Parse a comma-separated list such as `SER,SI`; `all` names every level, `classic` the five.
    pub fn parse_list(s: &str) -> Result<Vec<Level>, Error> {
        let mut out = Vec::new();
        for x in s.split(',').filter(|x| !x.trim().is_empty()) {
            match x.trim().to_ascii_lowercase().as_str() {
                "all" => out.extend(Level::ALL),
                "classic" | "default" => out.extend(Level::CLASSIC),
                _ => out.push(Level::parse(x)?),
            }
        }
        crate::par::sort::sort(&mut out);
        out.dedup();
        Ok(out)
    }

    /// What the level proscribes: its own list and, since it implies them, every weaker
    /// level's (strong-session SI implies CC, so a thin-air read violates it too).
    pub fn proscribes(self, k: AnomalyKind) -> bool {
        self.spec().proscribes.contains(&k) || self.weaker().iter().any(|w| w.spec().proscribes.contains(&k))
    }

    /// Whether a finding violates this level: the level proscribes its kind, unless it is a
    /// re-read (a non-repeatable read, which read committed allows) or a read of what may be
    /// the key's initial value (neither a violation nor proof of validity).
    pub fn forbids(self, f: &Finding) -> bool {
        self.proscribes(f.kind) && !(f.reread && self.spec().allows_rereads) && !f.maybe_initial
    }

    /// Every level this one implies, directly or not (itself excluded).
    pub fn weaker(self) -> Vec<Level> {
        let mut out: Vec<Level> = Vec::new();
        let mut todo: Vec<Level> = self.spec().implies.to_vec();
        while let Some(l) = todo.pop() {
            if !out.contains(&l) {
                out.push(l);
                todo.extend_from_slice(l.spec().implies);
            }
        }
        crate::par::sort::sort(&mut out);
        out
    }

    /// Every level that implies this one (itself excluded).
    pub fn stronger(self) -> Vec<Level> {
        Level::ALL.into_iter().filter(|s| s.weaker().contains(&self)).collect()
    }

    /// This level and every level that implies it, strongest first: its family, the levels
    /// whose claims include its own (SI's family is checked by SI's axioms).
    pub fn and_stronger(self) -> Vec<Level> {
        let mut v = self.stronger();
        v.push(self);
        crate::par::sort::sort(&mut v);
        v
    }
}

const WW: u8 = 1 << EdgeType::Ww as u8;
const WR: u8 = 1 << EdgeType::Wr as u8;
const RW: u8 = 1 << EdgeType::Rw as u8;

/// The cycle pattern of a cycle anomaly (Adya's definitions, as in `../shared/LEVELS.md`).
pub fn pattern(k: AnomalyKind) -> Option<Pattern> {
    let p = |allowed, must, once, no_adjacent| Some(Pattern { allowed, must, once, no_adjacent });
    match k {
        G0 => p(WW, 0, 0, 0),
        G1c => p(WW | WR, WR, 0, 0),
        GSingle => p(WW | WR | RW, RW, RW, 0),
        GNonadjacent => p(WW | WR | RW, RW, 0, RW),
        G2Item => p(WW | WR | RW, RW, 0, 0),
        _ => None,
    }
}

/// The levels an anomaly violates.
pub fn violated_by(k: AnomalyKind) -> Vec<Level> {
    Level::ALL.into_iter().filter(|l| l.proscribes(k)).collect()
}

/// The levels a cycle anomaly found with an order's edges violates: those that proscribe it and
/// allow that order (a `G-single-process` violates strong-session SER, not SER).
pub fn violated_with(k: AnomalyKind, order: Order) -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|l| l.proscribes(k) && (order == Order::None || (l.spec().order == order && l.spec().weak.is_none())))
        .collect()
}

/// The plain-language name of a cycle (GRAIL thesis 2.2, H2-H8), from its edge types, whether
/// one transaction of it read the same key twice (a non-repeatable read), and whether one read
/// a key and then overwrote another's later version of it (`overwrites`: the cycle enters an
/// RW edge's reader by a WW edge on the RW edge's key). One RW edge is a lost update only with
/// such an overwrite; otherwise the reader saw one part of the data before a writer and
/// another after it: read skew (Hermitage's name for G-single, Berenson et al.'s A5A).
pub fn plain_name(types: &[EdgeType], rereads: bool, overwrites: bool) -> &'static str {
    let n = types.len();
    let rw = types.iter().filter(|&&t| t == EdgeType::Rw).count();
    let adjacent = (0..n).any(|i| types[i] == EdgeType::Rw && types[(i + 1) % n] == EdgeType::Rw);
    let ordered = types.iter().any(|&t| matches!(t, EdgeType::So | EdgeType::Rt));
    match rw {
        // No read in it (ww steps through session or real-time order too): no information flows.
        0 if !types.contains(&EdgeType::Wr) => "write cycle",
        // A read that missed a write its session (or real time) had already made visible.
        1 if ordered => "stale read",
        0 => "circular information flow",
        1 if rereads => "non-repeatable read",
        1 if overwrites => "lost update",
        1 => "read skew",
        _ if adjacent => "write skew",
        _ => "long fork",
    }
}
