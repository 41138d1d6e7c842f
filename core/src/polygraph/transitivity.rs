//! The version order of a key is transitive: for chains `i < j < k` of a key, `i` before `j`
//! and `j` before `k` put `i` before `k` (else the three WW edges close a cycle, which every
//! level forbids), and the same reversed. As clauses over the open constraints, these let the
//! search that learns ([`super::learn`]) see at once what its cycle test would find only when
//! it takes the third choice, often many levels later (a conflict then undoes them all).

use super::clauses::{lit, Lit};
use super::constraints::Polygraph;

/// Keys with more chains than this get no clauses (their triples would be too many: a key of
/// `m` chains has `2 (m - 2) / 3` clauses a constraint).
const MAX_CHAINS: usize = 24;

/// The two clauses of every triple of chains of a key. `var_of`: constraint -> variable
/// (`u32::MAX` when settled); `settled`: the settled constraints' choices. A clause already
/// satisfied is left out, and a settled literal that is false is dropped from it. At most
/// `max_lits` literals in all (leaving clauses out is sound).
pub fn clauses(pg: &Polygraph, var_of: &[u32], settled: &[Option<bool>], max_lits: usize) -> Vec<Vec<Lit>> {
    let mut out = Vec::new();
    let mut lits = 0usize;
    let mut at = 0usize;
    while at < pg.cons.len() {
        let key = pg.cons[at].key;
        let m = pg.keys[key as usize].chain_ends.len();
        let pairs = m * m.saturating_sub(1) / 2;
        // Constraints are built key by key, pairs in order (`constraints::build_inner`).
        let ok = at + pairs <= pg.cons.len() && pg.cons[at + pairs - 1].key == key;
        if !ok || pairs == 0 {
            return out;
        }
        if m <= MAX_CHAINS {
            let index = |a: usize, b: usize| at + a * m - a * (a + 1) / 2 + (b - a - 1);
            // `Ok(lit)` for an open constraint's "a before b", `Err(value)` for a settled one.
            let before = |a: usize, b: usize| -> Result<Lit, bool> {
                let c = index(a, b);
                match var_of.get(c).copied() {
                    Some(v) if v != u32::MAX => Ok(lit(v, true)),
                    _ => Err(settled.get(c).copied().flatten().unwrap_or(true)),
                }
            };
            for i in 0..m {
                for j in i + 1..m {
                    for k in j + 1..m {
                        let (x, y, z) = (before(i, j), before(j, k), before(i, k));
                        // Not (x and y and not z); not (not x and not y and z).
                        for sign in [true, false] {
                            let mut clause = Vec::with_capacity(3);
                            let mut satisfied = false;
                            for (l, want_true) in [(x, !sign), (y, !sign), (z, sign)] {
                                match l {
                                    Ok(l) => clause.push(if want_true { l } else { l ^ 1 }),
                                    Err(v) => satisfied |= v == want_true,
                                }
                            }
                            if !satisfied && lits + clause.len() <= max_lits {
                                lits += clause.len();
                                out.push(clause);
                            }
                        }
                    }
                }
            }
        }
        at += pairs;
    }
    out
}
