//! A database timestamp: a hybrid logical clock `(p, l)` (TimeKiller's `{"p": .., "l": ..}`),
//! or a plain integer `t`, which is `(t, 0)`. Ordered by the physical part, then the logical one,
//! as TimeKiller's `HybridLogicalClock.compareTo` orders them.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct Ts {
    /// The physical part (or the whole timestamp).
    pub p: i64,
    /// The logical part; 0 for a plain integer timestamp.
    pub l: i64,
}

impl Ts {
    pub const fn new(p: i64, l: i64) -> Ts {
        Ts { p, l }
    }

    /// A plain integer timestamp.
    pub const fn int(t: i64) -> Ts {
        Ts { p: t, l: 0 }
    }

    /// As JSON: the integer when the logical part is 0, else `{"p": .., "l": ..}`.
    pub fn json(self) -> serde_json::Value {
        if self.l == 0 {
            serde_json::Value::from(self.p)
        } else {
            serde_json::json!({"p": self.p, "l": self.l})
        }
    }
}

/// `12`, or `(12, 3)` for a hybrid logical clock with a logical part.
impl fmt::Display for Ts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.l == 0 {
            write!(f, "{}", self.p)
        } else {
            write!(f, "({}, {})", self.p, self.l)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ts;

    #[test]
    fn hybrid_clocks_order_by_physical_then_logical() {
        assert!(Ts::new(1, 9) < Ts::new(2, 0));
        assert!(Ts::new(2, 0) < Ts::new(2, 1));
        assert_eq!(Ts::int(5), Ts::new(5, 0));
        assert_eq!(Ts::new(5, 0).to_string(), "5");
        assert_eq!(Ts::new(5, 2).to_string(), "(5, 2)");
    }
}
