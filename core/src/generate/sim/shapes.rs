//! The transactions of each [`Shape`]: which keys a transaction reads and writes, as the
//! benchmarks PolySI (5.1) and Cobra (Tan et al., OSDI 2020, 7) run. A key is a table and a
//! row (`table << 40 | row`); rows are drawn with the history's key distribution, so zipfian
//! and hotspot skew the hot rows; inserts take fresh rows. Updates read the row first
//! (read-modify-write), except the blind profile updates of RUBiS and Twitter.

use super::Sim;
use crate::generate::{KeyDistribution, Shape};

/// A table's key for a row.
fn key(table: u64, row: u64) -> u64 {
    table << 40 | row
}

/// TPC-C: one warehouse, 10 districts, 30k customers, 100k items and stock rows.
mod tpcc {
    pub const WAREHOUSE: u64 = 1;
    pub const DISTRICT: u64 = 2;
    pub const CUSTOMER: u64 = 3;
    pub const STOCK: u64 = 4;
    pub const ITEM: u64 = 5;
    pub const ORDER: u64 = 6;
    pub const NEW_ORDER: u64 = 7;
    pub const HISTORY: u64 = 8;
    pub const DELIVERED: u64 = 9;
    pub const CUSTOMERS: u64 = 30_000;
    pub const ITEMS: u64 = 100_000;
}

/// RUBiS: 20k users, 200k items.
mod rubis {
    pub const USER: u64 = 10;
    pub const ITEM: u64 = 11;
    pub const BEST_BID: u64 = 12;
    pub const BIDS: u64 = 13;
    pub const BID: u64 = 14;
    pub const RATING: u64 = 15;
    pub const COMMENT: u64 = 16;
    pub const NEW_USER: u64 = 17;
    pub const USERS: u64 = 20_000;
    pub const ITEMS: u64 = 200_000;
}

/// C-Twitter: whom a user follows, the head of a user's tweets, tweets, profiles.
mod twitter {
    pub const FOLLOWS: u64 = 20;
    pub const HEAD: u64 = 21;
    pub const TWEET: u64 = 22;
    pub const PROFILE: u64 = 23;
}

/// A transaction's plan being written: (is a read, key).
#[derive(Default)]
struct Plan(Vec<(bool, u64)>);

impl Plan {
    fn read(&mut self, k: u64) {
        self.0.push((true, k));
    }
    fn write(&mut self, k: u64) {
        self.0.push((false, k));
    }
    fn update(&mut self, k: u64) {
        self.read(k);
        self.write(k);
    }
}

impl Sim<'_> {
    /// The reads and writes of a new transaction (`None`: the general shape, drawn by the caller).
    pub(super) fn shape_plan(&mut self) -> Option<Vec<(bool, u64)>> {
        let mut p = Plan::default();
        match self.o.shape {
            Shape::General => return None,
            Shape::Tpcc => self.tpcc(&mut p),
            Shape::Rubis => self.rubis(&mut p),
            Shape::Twitter => self.twitter(&mut p),
        }
        Some(p.0)
    }

    /// A row of a table of `n` rows, skewed as the history's key distribution asks.
    fn row(&mut self, n: u64) -> u64 {
        let n = n.max(1);
        match self.o.distribution {
            KeyDistribution::Uniform => self.rng.below(n as usize) as u64,
            KeyDistribution::Hotspot(p) => {
                let hot = (n / 10).max(1);
                if self.rng.chance(p) || hot == n {
                    self.rng.below(hot as usize) as u64
                } else {
                    hot + self.rng.below((n - hot) as usize) as u64
                }
            }
            KeyDistribution::Zipfian(s) => {
                let cdf = self.cdfs.entry(n).or_insert_with(|| zipf_cdf(n as usize, s));
                let u = self.rng.unit();
                (cdf.partition_point(|&c| c < u) as u64).min(n - 1)
            }
        }
    }

    /// A fresh row of a table (an insert).
    fn fresh_row(&mut self, table: u64) -> u64 {
        let r = self.rows.entry(table).or_insert(0);
        *r += 1;
        *r
    }

    /// New-order 45%, payment 43%, order-status, delivery and stock-level 4% each (TPC-C 5.2.3).
    fn tpcc(&mut self, p: &mut Plan) {
        use tpcc::*;
        let (d, c) = (self.rng.below(10) as u64, self.row(CUSTOMERS));
        match self.rng.below(100) {
            0..45 => {
                p.read(key(WAREHOUSE, 0));
                p.update(key(DISTRICT, d));
                p.read(key(CUSTOMER, c));
                for _ in 0..5 + self.rng.below(11) {
                    let i = self.row(ITEMS);
                    p.read(key(ITEM, i));
                    p.update(key(STOCK, i));
                }
                let o = self.fresh_row(ORDER);
                p.write(key(ORDER, o));
                p.write(key(NEW_ORDER, o));
            }
            45..88 => {
                p.update(key(WAREHOUSE, 0));
                p.update(key(DISTRICT, d));
                p.update(key(CUSTOMER, c));
                let h = self.fresh_row(HISTORY);
                p.write(key(HISTORY, h));
            }
            88..92 => {
                p.read(key(CUSTOMER, c));
                let orders = self.rows.get(&ORDER).copied().unwrap_or(0);
                if orders > 0 {
                    let o = 1 + self.row(orders);
                    p.read(key(ORDER, o));
                }
            }
            92..96 => {
                for d in 0..10 {
                    p.update(key(DELIVERED, d));
                    let c = self.row(CUSTOMERS);
                    p.update(key(CUSTOMER, c));
                }
            }
            _ => {
                p.read(key(DISTRICT, d));
                for _ in 0..10 {
                    let i = self.row(ITEMS);
                    p.read(key(STOCK, i));
                }
            }
        }
    }

    /// Viewing items and users 65%, bidding 15%, comments 5%, registering items and users 5%
    /// each, blind profile updates 5%.
    fn rubis(&mut self, p: &mut Plan) {
        use rubis::*;
        let (u, i) = (self.row(USERS), self.row(ITEMS));
        match self.rng.below(100) {
            0..50 => {
                p.read(key(ITEM, i));
                p.read(key(BEST_BID, i));
                p.read(key(BIDS, i));
            }
            50..60 => {
                p.read(key(USER, u));
                p.read(key(RATING, u));
            }
            60..65 => {
                for _ in 0..5 {
                    let i = self.row(ITEMS);
                    p.read(key(ITEM, i));
                }
            }
            65..80 => {
                p.read(key(USER, u));
                p.read(key(ITEM, i));
                p.update(key(BEST_BID, i));
                p.update(key(BIDS, i));
                let b = self.fresh_row(BID);
                p.write(key(BID, b));
            }
            80..85 => {
                let to = self.row(USERS);
                p.read(key(USER, u));
                p.update(key(RATING, to));
                let c = self.fresh_row(COMMENT);
                p.write(key(COMMENT, c));
            }
            85..90 => {
                let i = ITEMS + self.fresh_row(ITEM);
                p.write(key(ITEM, i));
                p.write(key(BEST_BID, i));
                p.write(key(BIDS, i));
            }
            90..95 => {
                let n = self.fresh_row(NEW_USER);
                p.write(key(NEW_USER, n));
            }
            _ => p.write(key(USER, u)),
        }
    }

    /// Tweets 25%, follows 10%, timelines 50%, profile views 5% and blind updates 10%.
    fn twitter(&mut self, p: &mut Plan) {
        use twitter::*;
        let users = self.o.keys.max(1) as u64;
        let u = self.row(users);
        match self.rng.below(100) {
            0..25 => {
                p.update(key(HEAD, u));
                let t = self.fresh_row(TWEET);
                p.write(key(TWEET, t));
            }
            25..35 => p.update(key(FOLLOWS, u)),
            35..85 => {
                p.read(key(FOLLOWS, u));
                for _ in 0..5 + self.rng.below(6) {
                    let f = self.row(users);
                    p.read(key(HEAD, f));
                }
            }
            85..90 => p.read(key(PROFILE, u)),
            _ => p.write(key(PROFILE, u)),
        }
    }
}

/// The cumulative distribution of a zipfian law with exponent `s` over `n` ranks.
pub(super) fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let w: Vec<f64> = (1..=n).map(|i| 1.0 / (i as f64).powf(s)).collect();
    let total: f64 = w.iter().sum();
    w.iter()
        .scan(0.0, |acc, x| {
            *acc += x / total;
            Some(*acc)
        })
        .collect()
}
