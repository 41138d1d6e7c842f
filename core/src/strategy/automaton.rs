//! The automaton the strategies search with, derived from a [`Pattern`].
//!
//! Takes a pattern (an anomaly's, [`crate::level::pattern`]) or a level, whose anti-pattern is
//! the union of the patterns of the cycle anomalies it proscribes, written as one pattern by
//! [`level_pattern`]. Gives a deterministic automaton over edge labels whose state holds what
//! the pattern needs to remember, one bit each and only the bits it needs: whether the last label
//! was of a no-adjacent type, whether an at-most-once type was used, whether a must type was
//! used. A walk from state 0 reading its labels [`Automaton::step`] by step, ending in state `s`,
//! matches when [`Automaton::closes`] with its first label `t0` and `s` (the wrap-around from the
//! last label to the first). So SER, PL-2 and PL-1 need no state, SI one bit (was the last label
//! rw) and PSI one bit (was an rw used), as GRAIL's hand-written automata did.
//!
//! On one pattern the automaton accepts exactly the words [`matches`] accepts; on a level,
//! exactly the words of at least two labels (cycles: the graph has no self-loops) some
//! proscribed pattern matches (`core/tests/strategies.rs` enumerates the words).
//!
//! [`matches`]: crate::graph::search::matches

use crate::anomaly::AnomalyKind;
use crate::graph::search::Pattern;
use crate::graph::EdgeType;
use crate::level::{pattern, Level};

/// A level's anti-pattern as one pattern: the union of the patterns of the cycle anomalies it
/// proscribes (`spec().proscribes`). A type may appear once (or may not stand next to another
/// of its kind) when every proscribed pattern that allows it says so; a type used at most once
/// cannot stand next to itself in a cycle of two or more edges, so it is not also no-adjacent;
/// nothing is a must type when some pattern has none. For the twelve levels the union is exact
/// on cycles (each proscribes G0, which needs nothing; the test checks every level).
pub fn level_pattern(l: Level) -> Pattern {
    let ps: Vec<Pattern> = l.spec().proscribes.iter().filter_map(|&k: &AnomalyKind| pattern(k)).collect();
    let allowed = ps.iter().fold(0, |m, p| m | p.allowed);
    let every = |f: &dyn Fn(&Pattern) -> u8| ps.iter().fold(allowed, |m, p| m & (f(p) | !p.allowed));
    let once = every(&|p| p.once);
    let no_adjacent = every(&|p| p.no_adjacent | p.once) & !once;
    let must = if ps.iter().any(|p| p.must == 0) { 0 } else { ps.iter().fold(0, |m, p| m | p.must) };
    Pattern { allowed, must, once, no_adjacent }
}

/// The labels worth trying on a pair of transactions: one per class of labels the automaton
/// treats alike, lowest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Labels {
    ts: [Option<EdgeType>; EdgeType::ALL.len()],
}

impl Labels {
    /// The `k`-th label, `None` past the last.
    pub fn get(&self, k: usize) -> Option<EdgeType> {
        self.ts.get(k).copied().flatten()
    }

    pub fn iter(&self) -> impl Iterator<Item = EdgeType> + '_ {
        self.ts.iter().map_while(|t| *t)
    }
}

/// A pattern's automaton (see the module's documentation).
#[derive(Debug, Clone)]
pub struct Automaton {
    p: Pattern,
    /// State bits: last label no-adjacent; an at-most-once label used; a must label used
    /// (0 when the pattern needs no such bit).
    adjacent: u8,
    used_once: u8,
    used_must: u8,
    states: u8,
    /// [`Automaton::labels`] for every mask of the six edge types.
    labels: [Labels; 64],
}

impl Automaton {
    pub fn new(p: Pattern) -> Automaton {
        let mut next = 1u8;
        let mut bit = |needed: bool| {
            let b = if needed { next } else { 0 };
            next <<= needed as u8;
            b
        };
        let adjacent = bit(p.no_adjacent & p.allowed != 0);
        let used_once = bit(p.once & p.allowed != 0);
        // A must type that is also the only at-most-once type is seen when the once bit is set.
        let used_must = if p.must != 0 && p.must == p.once && used_once != 0 { used_once } else { bit(p.must != 0) };
        let mut a = Automaton { p, adjacent, used_once, used_must, states: next, labels: [Labels::default(); 64] };
        for mask in 0..64u8 {
            a.labels[mask as usize] = a.classes(mask);
        }
        a
    }

    /// The automaton of a level's anti-pattern ([`level_pattern`]).
    pub fn of_level(l: Level) -> Automaton {
        Automaton::new(level_pattern(l))
    }

    pub fn pattern(&self) -> Pattern {
        self.p
    }

    /// How many states: 1, 2, 4 or 8 (numbered from 0, the start).
    pub fn states(&self) -> u8 {
        self.states
    }

    /// Which of the pattern's sets a label is in: labels in the same ones step alike.
    fn class(&self, t: EdgeType) -> u8 {
        let b = t.bit();
        (self.p.must & b != 0) as u8 | ((self.p.once & b != 0) as u8) << 1 | ((self.p.no_adjacent & b != 0) as u8) << 2
    }

    fn classes(&self, mask: u8) -> Labels {
        let mut out = Labels::default();
        let (mut seen, mut n) = (0u8, 0);
        for t in EdgeType::ALL {
            if mask & self.p.allowed & t.bit() == 0 || seen & (1 << self.class(t)) != 0 {
                continue;
            }
            seen |= 1 << self.class(t);
            out.ts[n] = Some(t);
            n += 1;
        }
        out
    }

    /// The labels worth trying on a pair whose edges have the types of `mask`: the allowed
    /// ones, one per class (for SER one label, for SI and PSI ww or wr, and rw).
    pub fn labels(&self, mask: u8) -> Labels {
        self.labels[(mask & 63) as usize]
    }

    /// The state after reading `t` in state `s`; `None` when the walk can no longer match.
    pub fn step(&self, s: u8, t: EdgeType) -> Option<u8> {
        let b = t.bit();
        if self.p.allowed & b == 0 {
            return None;
        }
        let mut n = s;
        if self.adjacent != 0 {
            if self.p.no_adjacent & b != 0 {
                if s & self.adjacent != 0 {
                    return None;
                }
                n |= self.adjacent;
            } else {
                n &= !self.adjacent;
            }
        }
        if self.p.once & b != 0 {
            if s & self.used_once != 0 {
                return None;
            }
            n |= self.used_once;
        }
        if self.p.must & b != 0 {
            n |= self.used_must;
        }
        Some(n)
    }

    /// Whether a walk whose first label is `t0` and whose state at the end is `s` matches: a
    /// must type was used, and the last label and the first are not both no-adjacent.
    pub fn closes(&self, t0: EdgeType, s: u8) -> bool {
        let must = self.p.must == 0 || s & self.used_must != 0;
        let wrap = s & self.adjacent != 0 && self.p.no_adjacent & t0.bit() != 0;
        must && !wrap
    }

    /// Whether the automaton accepts a cyclic word (never the empty word).
    pub fn accepts(&self, word: &[EdgeType]) -> bool {
        let Some(&t0) = word.first() else { return false };
        let mut s = 0;
        for &t in word {
            match self.step(s, t) {
                Some(n) => s = n,
                None => return false,
            }
        }
        self.closes(t0, s)
    }

    /// The automaton of the pattern without its at-most-once types (the cycles that use none).
    pub(crate) fn without_once(&self) -> Automaton {
        let p = self.p;
        Automaton::new(Pattern { allowed: p.allowed & !p.once, once: 0, ..p })
    }

    /// The automaton of every cycle of the pattern's allowed types.
    pub(crate) fn any_cycle(&self) -> Automaton {
        Automaton::new(Pattern { allowed: self.p.allowed, must: 0, once: 0, no_adjacent: 0 })
    }
}
