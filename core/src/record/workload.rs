//! Randomised transactions for `grail record`: each session draws its transactions from its
//! own seeded generator (which operations, which keys), so a seed gives each session the same
//! sequence of reads and writes. Every value written is unique in the whole history (grail
//! infers who wrote what a read saw from the value): the `n`-th write of session `s` of `S`
//! writes `n * S + s + 1`, and a retry writes fresh values.
//!
//! A transaction is `begin`, then `ops` operations, each a read (with probability
//! `read_ratio`) or a write of a key drawn from `distribution`; consecutive reads go in one
//! statement (`select ... where id in (...)`), then `commit`. A write is an upsert
//! (`rw-register`) or an append (`list-append`). As in Elle's list-append generator, a list key
//! takes `max_writes_per_key` appends, then a fresh key takes its place, so lists stay short.

use super::{Isolation, Statement, Workload};
use crate::error::{Error, ErrorKind};
use crate::generate::{pick, GenOptions, KeyDistribution, Rng};

/// What the sessions run.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub workload: Workload,
    pub isolation: Isolation,
    pub sessions: usize,
    /// Keys in use at a time.
    pub keys: usize,
    /// Operations a transaction, drawn uniformly from `min_ops..=max_ops`.
    pub min_ops: usize,
    pub max_ops: usize,
    /// The fraction of operations that are reads.
    pub read_ratio: f64,
    pub distribution: KeyDistribution,
    /// List-append: appends a key takes before a fresh key takes its place.
    pub max_writes_per_key: usize,
    pub seed: u64,
}

/// The most sessions a workload takes (connections at once).
pub const MAX_SESSIONS: usize = 10_000;
/// The most keys in use at a time.
pub const MAX_KEYS: usize = 10_000_000;

impl Options {
    /// Whether the options make sense, or the first that does not, by its flag's name.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::new(ErrorKind::Usage, what));
        // Each session is a connection and a thread, each key a slot in memory.
        if self.sessions == 0 || self.sessions > MAX_SESSIONS {
            return bad(format!("--sessions: expected 1 to {MAX_SESSIONS}, found {}", self.sessions));
        }
        if self.keys == 0 || self.keys > MAX_KEYS {
            return bad(format!("--keys: expected 1 to {MAX_KEYS}, found {}", self.keys));
        }
        if self.min_ops == 0 || self.min_ops > self.max_ops {
            return bad(format!("--ops: expected 1 <= MIN <= MAX, found {}-{}", self.min_ops, self.max_ops));
        }
        if !(0.0..=1.0).contains(&self.read_ratio) {
            return bad(format!("--read-ratio: expected a fraction from 0 to 1, found {}", self.read_ratio));
        }
        if self.max_writes_per_key == 0 {
            return bad("--max-writes-per-key: expected at least 1".into());
        }
        match self.distribution {
            KeyDistribution::Zipfian(s) if !(s.is_finite() && s >= 0.0) => {
                bad(format!("--distribution zipfian:{s}: expected a finite exponent >= 0"))
            }
            KeyDistribution::Hotspot(p) if !(0.0..=1.0).contains(&p) => {
                bad(format!("--distribution hotspot:{p}: expected a fraction from 0 to 1"))
            }
            _ => Ok(()),
        }
    }
}

/// A workload's size and mix by name, from PolySI (Huang et al., VLDB 2023, 5.1.1).
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub sessions: usize,
    /// Transactions in all (PolySI counts them per session).
    pub transactions: usize,
    pub keys: usize,
    pub ops: (usize, usize),
    pub read_ratio: f64,
    pub distribution: KeyDistribution,
}

impl Shape {
    /// The names [`Shape::named`] knows.
    pub const NAMES: [&'static str; 4] = ["polysi", "general-rh", "general-rw", "general-wh"];

    /// `polysi`: the default point of PolySI's general workloads, which its Fig. 6 varies one
    /// parameter at a time: 20 sessions of 100 transactions, 15 operations each, half of them
    /// reads, 10k keys, uniform (the artifact's histories are named
    /// `20_100_15_10000_0.5_uniform`, hengxin/PolySI-PVLDB2023-Artifacts,
    /// `artifact/PolySIHistories/fig7/`; the paper's text names zipfian the default).
    /// `general-rh`, `-rw`, `-wh`: PolySI's Table 3 mixes as `grail generate --preset` has them
    /// (25 sessions of 400 transactions, 8 operations, 10k keys, 95%, 50% or 30% reads,
    /// uniform). PolySI's application benchmarks (TPC-C, RUBiS, Twitter) are not plain reads
    /// and writes of keys, so they are not here.
    pub fn named(name: &str) -> Result<Shape, Error> {
        if name == "polysi" {
            return Ok(Shape {
                sessions: 20,
                transactions: 2000,
                keys: 10_000,
                ops: (15, 15),
                read_ratio: 0.5,
                distribution: KeyDistribution::Uniform,
            });
        }
        match GenOptions::preset(name) {
            Some(p) if name.starts_with("general-") => Ok(Shape {
                sessions: p.sessions,
                transactions: p.transactions,
                keys: p.keys,
                ops: (p.min_ops, p.max_ops),
                read_ratio: p.read_ratio,
                distribution: p.distribution,
            }),
            _ => Err(Error::new(
                ErrorKind::Usage,
                format!("unknown shape {name:?}: expected one of {}", Shape::NAMES.join(", ")),
            )),
        }
    }
}

/// The transactions of every session. One generator serves all sessions because list keys
/// retire after their appends, whoever made them; the operations and keys' slots each session
/// draws depend on the seed and the session only.
#[derive(Debug)]
pub struct Generator {
    o: Options,
    cdf: Vec<f64>,
    rngs: Vec<Rng>,
    /// Writes each session has made (for unique values).
    writes: Vec<u64>,
    /// List-append: the key in each slot, and the appends it has been given.
    slots: Vec<(i64, usize)>,
    next_key: i64,
}

impl Generator {
    pub fn new(o: Options) -> Result<Generator, Error> {
        o.check()?;
        let rngs =
            (0..o.sessions as u64).map(|s| Rng::seeded(o.seed ^ s.wrapping_mul(0x5851_f42d_4c95_7f2d))).collect();
        Ok(Generator {
            cdf: o.distribution.cdf(o.keys),
            rngs,
            writes: vec![0; o.sessions],
            slots: (0..o.keys as i64).map(|k| (k, 0)).collect(),
            next_key: o.keys as i64,
            o,
        })
    }

    pub fn options(&self) -> &Options {
        &self.o
    }

    /// Session `session`'s next transaction: `begin`, its operations, `commit`.
    pub fn next(&mut self, session: usize) -> Result<Vec<Statement>, Error> {
        self.session(session)?;
        let o = &self.o;
        let n = o.min_ops + self.rngs[session].below(o.max_ops - o.min_ops + 1);
        let mut txn = vec![Statement::Begin { isolation: o.isolation }];
        for _ in 0..n {
            let rng = &mut self.rngs[session];
            let read = rng.chance(self.o.read_ratio);
            let slot = pick(rng, &self.cdf, self.o.keys);
            let key = self.slots[slot].0;
            if read {
                match txn.last_mut() {
                    Some(Statement::Read { keys }) => {
                        if !keys.contains(&key) {
                            keys.push(key);
                        }
                    }
                    _ => txn.push(Statement::Read { keys: vec![key] }),
                }
                continue;
            }
            let value = self.value(session);
            txn.push(match self.o.workload {
                Workload::RwRegister => Statement::Upsert { key, value },
                Workload::ListAppend => {
                    self.retire(slot);
                    Statement::Append { key, value }
                }
            });
        }
        txn.push(Statement::Commit);
        Ok(txn)
    }

    /// `txn` again, for `session`, with fresh values: the same statements on the same keys.
    pub fn retry(&mut self, session: usize, txn: &[Statement]) -> Result<Vec<Statement>, Error> {
        self.session(session)?;
        Ok(txn
            .iter()
            .map(|s| match s {
                Statement::Upsert { key, .. } => Statement::Upsert { key: *key, value: self.value(session) },
                Statement::Append { key, .. } => Statement::Append { key: *key, value: self.value(session) },
                Statement::Update { key, .. } => Statement::Update { key: *key, value: self.value(session) },
                Statement::Insert { key, .. } => Statement::Insert { key: *key, value: self.value(session) },
                other => other.clone(),
            })
            .collect())
    }

    fn session(&self, session: usize) -> Result<(), Error> {
        if session < self.o.sessions {
            return Ok(());
        }
        Err(Error::new(ErrorKind::Usage, format!("no session {session}: there are {}", self.o.sessions)))
    }

    fn value(&mut self, session: usize) -> i64 {
        let n = self.writes[session];
        self.writes[session] += 1;
        (n * self.o.sessions as u64 + session as u64 + 1) as i64
    }

    /// One more append to the key in `slot`; a fresh key takes the slot after the last.
    fn retire(&mut self, slot: usize) {
        let s = &mut self.slots[slot];
        s.1 += 1;
        if s.1 >= self.o.max_writes_per_key {
            *s = (self.next_key, 0);
            self.next_key += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn options(workload: Workload) -> Options {
        Options {
            workload,
            isolation: Isolation::Serializable,
            sessions: 4,
            keys: 10,
            min_ops: 2,
            max_ops: 7,
            read_ratio: 0.5,
            distribution: KeyDistribution::Uniform,
            max_writes_per_key: 5,
            seed: 7,
        }
    }

    fn writes(txn: &[Statement]) -> Vec<(i64, i64)> {
        txn.iter()
            .filter_map(|s| match s {
                Statement::Upsert { key, value } | Statement::Append { key, value } => Some((*key, *value)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn transactions_begin_at_the_level_and_commit_with_their_operations_between() {
        let mut g = Generator::new(options(Workload::RwRegister)).unwrap();
        for i in 0..200 {
            let t = g.next(i % 4).unwrap();
            assert_eq!(t[0], Statement::Begin { isolation: Isolation::Serializable });
            assert_eq!(t.last(), Some(&Statement::Commit));
            let ops: usize = t[1..t.len() - 1]
                .iter()
                .map(|s| match s {
                    Statement::Read { keys } => keys.len(),
                    Statement::Upsert { .. } => 1,
                    other => panic!("unexpected {other:?}"),
                })
                .sum();
            // Reads of one key twice in a row are one read.
            assert!((1..=7).contains(&ops), "{t:?}");
            assert!(t[1..].windows(2).all(|w| !matches!(w, [Statement::Read { .. }, Statement::Read { .. }])));
        }
    }

    #[test]
    fn values_are_unique_across_sessions_and_retries() {
        let mut g = Generator::new(options(Workload::ListAppend)).unwrap();
        let mut seen = HashSet::new();
        for i in 0..500 {
            let t = g.next(i % 4).unwrap();
            let again = g.retry(i % 4, &t).unwrap();
            assert_eq!(
                writes(&t).iter().map(|w| w.0).collect::<Vec<_>>(),
                writes(&again).iter().map(|w| w.0).collect::<Vec<_>>()
            );
            for (_, v) in writes(&t).into_iter().chain(writes(&again)) {
                assert!(seen.insert(v), "value {v} written twice");
            }
        }
        assert!(seen.len() > 1000);
    }

    #[test]
    fn a_seed_gives_each_session_the_same_transactions() {
        let run = |order: &[usize]| {
            let mut g = Generator::new(options(Workload::RwRegister)).unwrap();
            let mut per: HashMap<usize, Vec<Vec<Statement>>> = HashMap::new();
            for &s in order {
                per.entry(s).or_default().push(g.next(s).unwrap());
            }
            per
        };
        let a = run(&[0, 1, 2, 3, 0, 1, 2, 3]);
        let b = run(&[3, 3, 2, 2, 1, 1, 0, 0]);
        assert_eq!(a, b);
        assert_ne!(a[&0], a[&1]);
        let other = Generator::new(Options { seed: 8, ..options(Workload::RwRegister) }).unwrap().next(0).unwrap();
        assert_ne!(a[&0][0], other);
    }

    #[test]
    fn a_list_key_retires_after_its_appends() {
        let mut g = Generator::new(options(Workload::ListAppend)).unwrap();
        let mut appends: HashMap<i64, usize> = HashMap::new();
        let mut retired_reads = 0;
        for i in 0..400 {
            let t = g.next(i % 4).unwrap();
            for s in &t {
                match s {
                    Statement::Append { key, .. } => *appends.entry(*key).or_default() += 1,
                    Statement::Read { keys } => {
                        retired_reads += keys.iter().filter(|k| appends.get(k).is_some_and(|&n| n >= 5)).count()
                    }
                    _ => {}
                }
            }
        }
        assert!(appends.values().all(|&n| n <= 5), "{appends:?}");
        assert!(appends.len() > 20, "fresh keys took the slots: {}", appends.len());
        assert_eq!(retired_reads, 0);
    }

    #[test]
    fn zipfian_keys_favour_the_first() {
        let o =
            Options { distribution: KeyDistribution::Zipfian(1.0), read_ratio: 1.0, ..options(Workload::RwRegister) };
        let mut g = Generator::new(o).unwrap();
        let mut count = [0usize; 10];
        for _ in 0..2000 {
            for s in g.next(0).unwrap() {
                if let Statement::Read { keys } = s {
                    for k in keys {
                        count[k as usize] += 1;
                    }
                }
            }
        }
        assert!(count[0] > 2 * count[9] && count[0] > count[1], "{count:?}");
    }

    #[test]
    fn bad_options_are_named() {
        let o = options(Workload::RwRegister);
        let e = |o: Options| Generator::new(o).unwrap_err().message;
        assert!(e(Options { min_ops: 3, max_ops: 2, ..o.clone() }).contains("--ops"));
        assert!(e(Options { read_ratio: 1.5, ..o.clone() }).contains("--read-ratio"));
        assert!(e(Options { keys: 0, ..o.clone() }).contains("--keys"));
        assert!(e(Options { sessions: 0, ..o.clone() }).contains("--sessions"));
        assert!(e(Options { distribution: KeyDistribution::Hotspot(2.0), ..o.clone() }).contains("hotspot"));
        let mut g = Generator::new(o).unwrap();
        assert!(g.next(4).unwrap_err().message.contains("no session 4"));
    }

    #[test]
    fn shapes_are_polysis() {
        let p = Shape::named("polysi").unwrap();
        assert_eq!((p.sessions, p.transactions, p.ops, p.keys), (20, 2000, (15, 15), 10_000));
        let rh = Shape::named("general-rh").unwrap();
        assert_eq!((rh.sessions, rh.transactions, rh.read_ratio), (25, 10_000, 0.95));
        assert!(Shape::named("tpcc").unwrap_err().message.contains("expected one of polysi"));
    }
}
