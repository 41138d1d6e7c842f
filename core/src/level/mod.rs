//! Isolation levels and anomalies as data, each entry citing where it comes from.
//!
//! A level is the set of anomalies it proscribes; a cycle anomaly is a [`Pattern`] over edge
//! types run by the one search in [`crate::graph::search`]. Verdicts are derived from these
//! tables, never written per level.

use crate::anomaly::AnomalyKind;
use crate::error::{Error, ErrorKind};
use crate::graph::search::Pattern;
use crate::graph::EdgeType;
use serde::{Deserialize, Serialize};

/// The five levels of the GRAIL thesis (Table 2.1) and paper (Table 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    #[serde(rename = "SER")]
    Ser,
    #[serde(rename = "SI")]
    Si,
    #[serde(rename = "PSI")]
    Psi,
    #[serde(rename = "PL-2")]
    Pl2,
    #[serde(rename = "PL-1")]
    Pl1,
}

/// A level's entry: what it proscribes, and the source.
pub struct LevelSpec {
    pub level: Level,
    pub name: &'static str,
    pub anti_pattern: &'static str,
    pub proscribes: &'static [AnomalyKind],
    pub source: &'static str,
}

use AnomalyKind::*;

/// Strongest first.
pub const LEVELS: [LevelSpec; 5] = [
    LevelSpec {
        level: Level::Ser,
        name: "SER",
        anti_pattern: "any cycle",
        proscribes: &[G0, G1a, G1b, G1c, GSingle, GNonadjacent, G2Item],
        source: "GRAIL thesis Table 2.1 (SER = Adya PL-3)",
    },
    LevelSpec {
        level: Level::Si,
        name: "SI",
        anti_pattern: "a cycle without two adjacent RW edges",
        proscribes: &[G0, G1a, G1b, G1c, GSingle, GNonadjacent],
        source: "GRAIL thesis Table 2.1, Proposition 1; Adya PL-SI",
    },
    LevelSpec {
        level: Level::Psi,
        name: "PSI",
        anti_pattern: "a cycle with at most one RW edge",
        proscribes: &[G0, G1a, G1b, G1c, GSingle],
        source: "GRAIL thesis Table 2.1, Proposition 1",
    },
    LevelSpec {
        level: Level::Pl2,
        name: "PL-2",
        anti_pattern: "a cycle without RW edges",
        proscribes: &[G0, G1a, G1b, G1c],
        source: "GRAIL thesis Proposition 2; Adya PL-2",
    },
    LevelSpec {
        level: Level::Pl1,
        name: "PL-1",
        anti_pattern: "a cycle of WW edges only",
        proscribes: &[G0],
        source: "GRAIL thesis Proposition 2; Adya PL-1",
    },
];

impl Level {
    pub const ALL: [Level; 5] = [Level::Ser, Level::Si, Level::Psi, Level::Pl2, Level::Pl1];

    pub fn spec(self) -> &'static LevelSpec {
        &LEVELS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn parse(s: &str) -> Result<Level, Error> {
        let norm: String = s.trim().to_ascii_uppercase().replace('_', "-");
        let norm = match norm.as_str() {
            "PL2" => "PL-2",
            "PL1" => "PL-1",
            "PL-3" | "SERIALIZABLE" => "SER",
            "SNAPSHOT-ISOLATION" => "SI",
            n => n,
        }
        .to_string();
        Level::ALL.into_iter().find(|l| l.name() == norm).ok_or_else(|| {
            Error::new(ErrorKind::Usage, format!("unknown level {s:?}: expected SER, SI, PSI, PL-2 or PL-1"))
        })
    }

    /// Parse a comma-separated list such as `SER,SI`.
    pub fn parse_list(s: &str) -> Result<Vec<Level>, Error> {
        let mut out: Vec<Level> =
            s.split(',').filter(|x| !x.trim().is_empty()).map(Level::parse).collect::<Result<_, _>>()?;
        out.sort();
        out.dedup();
        Ok(out)
    }

    pub fn proscribes(self, k: AnomalyKind) -> bool {
        self.spec().proscribes.contains(&k)
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

/// The plain-language name of a cycle (GRAIL thesis 2.2, H2-H8), from its edge types, and
/// whether one transaction of it read the same key twice (a non-repeatable read).
pub fn plain_name(types: &[EdgeType], rereads: bool) -> &'static str {
    let n = types.len();
    let rw = types.iter().filter(|&&t| t == EdgeType::Rw).count();
    let adjacent = (0..n).any(|i| types[i] == EdgeType::Rw && types[(i + 1) % n] == EdgeType::Rw);
    match rw {
        0 if types.iter().all(|&t| t == EdgeType::Ww) => "write cycle",
        0 => "circular information flow",
        1 if rereads => "non-repeatable read",
        1 => "lost update",
        _ if adjacent => "write skew",
        _ => "long fork",
    }
}
