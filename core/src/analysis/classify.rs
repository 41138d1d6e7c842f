//! Cycle classes as data: Zellag and Kemme's anomaly classes (2014, Sect. 7.1), the LDBC ACID
//! suite's cycle anomalies (Waudby et al. 2020, Sect. 3: G0, G1c, LU, WS) and Adya's names.
//!
//! A cycle is classified by the cyclic word of its edge types (each step takes the lowest type
//! between its two transactions, `ww` < `wr` < `rw`: the reading that violates the weakest
//! level, as grail's own cycle search names them) and by whether one key (entity) induces every
//! edge. Words match up to rotation: a cycle has no first transaction.

use crate::anomaly::AnomalyKind;
use crate::graph::search::matches;
use crate::graph::EdgeType;
use crate::level::pattern;

/// Which keys the edges of a class must be on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// One key induces every edge.
    Same,
    /// No single key induces every edge.
    Distinct,
}

/// One class of Zellag and Kemme's table.
pub struct ZellagClass {
    pub name: &'static str,
    /// The cycle's edge types, up to rotation.
    pub word: &'static [EdgeType],
    pub keys: Keys,
    pub source: &'static str,
}

use EdgeType::{Rw, Wr, Ww};

/// Zellag and Kemme 2014, Sect. 7.1 (and Fig. 8): the classes of cycles of length two and three.
pub const ZELLAG: [ZellagClass; 7] = [
    ZellagClass { name: "read skew", word: &[Rw, Wr], keys: Keys::Distinct, source: "Zellag & Kemme 2014, 7.1" },
    ZellagClass { name: "unrepeatable read", word: &[Rw, Wr], keys: Keys::Same, source: "Zellag & Kemme 2014, 7.1" },
    ZellagClass { name: "lost update", word: &[Rw, Ww], keys: Keys::Same, source: "Zellag & Kemme 2014, 7.1" },
    ZellagClass { name: "write skew", word: &[Rw, Rw], keys: Keys::Distinct, source: "Zellag & Kemme 2014, 7.1" },
    ZellagClass {
        name: "t-read skew",
        word: &[Rw, Rw, Wr],
        keys: Keys::Distinct,
        source: "Zellag & Kemme 2014, 7.1, Fig. 8a",
    },
    ZellagClass {
        name: "v-lost update",
        word: &[Rw, Rw, Wr],
        keys: Keys::Same,
        source: "Zellag & Kemme 2014, 7.1, Fig. 8b",
    },
    ZellagClass {
        name: "t-unrepeatable read",
        word: &[Rw, Ww, Wr],
        keys: Keys::Same,
        source: "Zellag & Kemme 2014, 7.1",
    },
];

/// The Zellag class of any other cycle.
pub const ZELLAG_OTHER: &str = "other";

/// The LDBC ACID suite's cycle anomalies, most specific first (Waudby et al. 2020).
pub const LDBC_CYCLES: [(&str, &str, &str); 4] = [
    ("G0", "a cycle of ww edges (dirty write)", "LDBC ACID 3.3 (Dirty Write)"),
    ("G1c", "a cycle of ww and wr edges, at least one wr", "LDBC ACID 3.4 (Circular Information Flow)"),
    ("LU", "a cycle with an rw edge, every edge on one key", "LDBC ACID 3.8 (Lost Update)"),
    ("WS", "any other cycle with an rw edge (G2-item)", "LDBC ACID 3.9 (Write Skew)"),
];

/// The LDBC classes found from a transaction's reads (see [`super::reads`]).
pub const LDBC_READS: [(&str, &str, &str); 4] = [
    ("IMP", "a transaction read one key in versions of two writers", "LDBC ACID 3.5 (Item-Many-Preceders)"),
    ("PMP", "two reads of one predicate matched different versions", "LDBC ACID 3.5 (Predicate-Many-Preceders)"),
    (
        "OTV",
        "a read saw a writer, a later read missed that writer's version",
        "LDBC ACID 3.6 (Observed Transaction Vanishes)",
    ),
    (
        "FR",
        "a transaction read a writer's version and an older version of another of its keys",
        "LDBC ACID 3.7 (Fractured Read)",
    ),
];

/// Adya's cycle anomalies, most specific first, as grail names them.
pub const ADYA: [AnomalyKind; 5] =
    [AnomalyKind::G0, AnomalyKind::G1c, AnomalyKind::GSingle, AnomalyKind::GNonadjacent, AnomalyKind::G2Item];

/// The class, in every scheme, of a cycle through session, real-time or commit order, or
/// through version-order choices a search made: the schemes classify cycles of the dependency
/// graph (ww, wr and rw edges the history fixes) only, and such a cycle is none of them (a `so`
/// step is not a `wr`, a `co` step not a `ww`). Its name is the anomaly the level's search
/// found (`G-single-process`, `fractured-read`, ...).
pub const UNCLASSED: &str = "none";

/// The classes of one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classes {
    pub zellag: &'static str,
    pub ldbc: &'static str,
    pub adya: &'static str,
}

impl Classes {
    /// A cycle no scheme classifies ([`UNCLASSED`]).
    pub const UNCLASSED: Classes = Classes { zellag: UNCLASSED, ldbc: UNCLASSED, adya: UNCLASSED };
}

fn rotation_of(word: &[EdgeType], of: &[EdgeType]) -> bool {
    word.len() == of.len() && (0..of.len()).any(|r| (0..of.len()).all(|i| of[(i + r) % of.len()] == word[i]))
}

/// Classify a cycle by its edge types and whether one key induces all its edges.
pub fn classify(types: &[EdgeType], same_key: bool) -> Classes {
    if types.iter().any(|t| !matches!(t, Ww | Wr | Rw)) {
        return Classes::UNCLASSED;
    }
    let keys = if same_key { Keys::Same } else { Keys::Distinct };
    let zellag = ZELLAG.iter().find(|c| c.keys == keys && rotation_of(c.word, types)).map_or(ZELLAG_OTHER, |c| c.name);
    let rw = types.iter().filter(|&&t| t == Rw).count();
    let ldbc = if types.iter().all(|&t| t == Ww) {
        "G0"
    } else if rw == 0 {
        "G1c"
    } else if same_key {
        "LU"
    } else {
        "WS"
    };
    let adya = ADYA.iter().find(|k| pattern(**k).is_some_and(|p| matches(&p, types))).map_or("G2-item", |k| k.name());
    Classes { zellag, ldbc, adya }
}

/// The smallest rotation of a sequence: the canonical form of a cycle (or an ordered pattern).
pub fn min_rotation<T: Ord + Clone>(xs: &[T]) -> Vec<T> {
    let n = xs.len();
    (0..n).map(|r| xs[r..].iter().chain(&xs[..r]).cloned().collect::<Vec<T>>()).min().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_through_an_order_have_no_class() {
        use EdgeType::{Co, Rt, So};
        let none = Classes { zellag: UNCLASSED, ldbc: UNCLASSED, adya: UNCLASSED };
        // Once named G2-item and LU, G2-item and G1c, G2-item and G1c: none has an rw edge, or
        // is a cycle of the dependency graph at all.
        assert_eq!(classify(&[So, Rw], true), none);
        assert_eq!(classify(&[Rt, Rw], true), none);
        assert_eq!(classify(&[So, Wr], false), none);
        assert_eq!(classify(&[Ww, Co], true), none);
    }

    #[test]
    fn zellag_table() {
        assert_eq!(classify(&[Wr, Rw], false).zellag, "read skew");
        assert_eq!(classify(&[Rw, Wr], true).zellag, "unrepeatable read");
        assert_eq!(classify(&[Ww, Rw], true).zellag, "lost update");
        assert_eq!(classify(&[Ww, Rw], false).zellag, "other");
        assert_eq!(classify(&[Rw, Rw], false).zellag, "write skew");
        assert_eq!(classify(&[Wr, Rw, Rw], false).zellag, "t-read skew");
        assert_eq!(classify(&[Rw, Wr, Rw], true).zellag, "v-lost update");
        assert_eq!(classify(&[Ww, Wr, Rw], true).zellag, "t-unrepeatable read");
        assert_eq!(classify(&[Ww, Rw, Wr], true).zellag, "other"); // not a rotation of rw ww wr
        assert_eq!(classify(&[Ww, Ww], true), Classes { zellag: "other", ldbc: "G0", adya: "G0" });
        assert_eq!(classify(&[Ww, Wr], false).adya, "G1c");
        assert_eq!(classify(&[Rw, Wr, Rw, Wr], false).adya, "G-nonadjacent");
        assert_eq!(classify(&[Rw, Rw], true), Classes { zellag: "other", ldbc: "LU", adya: "G2-item" });
        assert_eq!(min_rotation(&[3, 1, 2]), vec![1, 2, 3]);
    }
}
