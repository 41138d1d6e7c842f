//! Online checking (Zellag & Kemme 2014, Sect. 5.2 and 6): transactions arrive in completion
//! order; each new cycle is reported when the transaction that closes it arrives, and memory is
//! bounded by a window of the most recent committed transactions.
//!
//! List-append histories only (appends and list reads): their version order is revealed by
//! reads, so an edge appears once both of its transactions and the read that orders them have
//! arrived. The stages, one file each:
//!
//! | file | takes | gives |
//! |---|---|---|
//! | [`txn`] | a record's text (the offline JSON and EDN readers read it) or a parsed history's transaction | an [`OnlineTxn`] |
//! | `infer` | each committed transaction and its sequence number | candidate edges, by the offline list-append rules, some provisional |
//! | `graph` | candidate edges | the window's adjacency, new pairs, cycle shapes, eviction |
//! | `search` | the window and a new pair `u -> v` | the cycles of at most `max_length` transactions through it |
//! | this file | [`OnlineTxn`]s | [`OnlineAnomaly`]s as cycles close; [`OnlineSummary`] with counts by class ([`super::classify`]) and notes |
//! | [`render`] | anomalies, the summary | text |
//!
//! An append no read has ordered yet comes after every ordered element (GRAIL thesis, Appendix
//! D, Algorithm 11, lines 16-18), so it gets WW from the last ordered writer and RW from the
//! readers of the whole order, as offline, but provisionally: the order known when it arrived.
//!
//! A cycle is searched when an edge between two transactions that had none is added: simple
//! paths back from its head to its tail, at most `max_length` transactions in all; edges are
//! inserted one pair at a time, so each cycle is found exactly once, by its last edge.
//!
//! A cycle is reported with its classes as they are when it closes; one that went through a
//! provisional edge (`provisional: true`) is counted in [`OnlineChecker::summary`] with its
//! classes once its edges are settled by later reads (a lost update whose two appends no read
//! has ordered yet looks like two anti-dependencies until one does).
//!
//! Memory: Zellag & Kemme's Theorem 6.1 bounds a cycle's span by `n * Δmax` (n transactions, the
//! longest transaction's duration). A window of `W` transactions keeps every cycle whose
//! transactions all completed within `W` arrivals; the caller sets `W` to the number of
//! transactions that complete in `C_max * Δmax` (for `C` concurrent transactions at a time and
//! durations counted in completions, about `C * C_max * Δmax`). Transactions leave the window
//! oldest first; one that leaves with an append no read ordered yet is counted in a note, and so
//! is every edge that reached a transaction already gone.

mod graph;
mod infer;
pub mod render;
mod search;
pub mod txn;

pub use render::{render_anomaly, render_summary};
pub use txn::{Atom, OnlineOp, OnlineTxn};

use crate::analysis::classify::{classify, Classes};
use crate::analysis::{ClassifiedCycle, Tally, NO_LABEL};
use crate::error::Error;
use crate::graph::EdgeType;
use crate::history::Status;
use crate::read::Format;
use graph::Window;
use infer::Keys;
use search::PathSearch;
use serde::{Deserialize, Serialize};

/// A committed transaction's sequence number: its position among the committed arrivals.
type Seq = u64;

/// Options of the online checker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineOptions {
    /// How many committed transactions stay in memory.
    pub window: usize,
    /// Report cycles of at most this many transactions (2 to 255).
    pub max_length: usize,
    /// Bound on search steps per new pair of transactions (a search cut short is noted).
    pub max_steps: u64,
}

impl Default for OnlineOptions {
    fn default() -> Self {
        OnlineOptions { window: 100_000, max_length: 8, max_steps: 1_000_000 }
    }
}

/// A cycle, reported when its last edge arrives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineAnomaly {
    /// The cycle and its classes, as the offline analysis lists them (flattened: one JSON object).
    #[serde(flatten)]
    pub cycle: ClassifiedCycle,
    /// The transaction whose arrival closed the cycle.
    pub closed_by: u64,
    /// Some edge of it was drawn to an append no read had ordered yet: the offline check of the
    /// whole history may place that append later and find a longer cycle instead.
    pub provisional: bool,
}

/// Counters of the online checker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineStats {
    pub transactions: u64,
    pub committed: u64,
    /// Transactions in the window now, and at most.
    pub live: usize,
    pub peak_live: usize,
    pub cycles: u64,
    pub evicted: u64,
    /// Transactions that left the window with an append no read had ordered yet.
    pub evicted_unordered: u64,
    /// Edges that reached a transaction already out of the window.
    pub edges_to_evicted: u64,
    /// Searches cut short by `max_steps`.
    pub truncated_searches: u64,
    /// Reads that were not a prefix of (or extension of) their key's order (no edges drawn).
    pub incompatible_reads: u64,
    /// Keys in memory now, and at most.
    pub keys: usize,
    pub peak_keys: usize,
}

/// Counts so far, for the caller's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineSummary {
    pub stats: OnlineStats,
    pub classes: Vec<crate::analysis::ClassCount>,
    pub lengths: Vec<crate::analysis::LengthCount>,
    pub patterns: Vec<crate::analysis::PatternCount>,
    pub notes: Vec<String>,
}

/// A cycle reported through a provisional edge, not yet counted.
#[derive(Debug)]
struct PendingCycle {
    seqs: Vec<Seq>,
    classes: Classes,
    labels: Vec<String>,
}

/// The streaming checker.
#[derive(Debug)]
pub struct OnlineChecker {
    opts: OnlineOptions,
    window: Window,
    keys: Keys,
    search: PathSearch,
    stats: OnlineStats,
    tally: Tally,
    /// Cycles reported through a provisional edge, not yet counted in `tally`.
    pending: Vec<PendingCycle>,
    since_sweep: usize,
}

impl OnlineChecker {
    pub fn new(opts: OnlineOptions) -> OnlineChecker {
        // Distances in the search are kept in a byte: cycles longer than 255 are not searched.
        let opts = OnlineOptions { window: opts.window.max(2), max_length: opts.max_length.clamp(2, 255), ..opts };
        OnlineChecker {
            opts,
            window: Window::default(),
            keys: Keys::default(),
            search: PathSearch::default(),
            stats: OnlineStats::default(),
            tally: Tally::default(),
            pending: Vec::new(),
            since_sweep: 0,
        }
    }

    pub fn options(&self) -> &OnlineOptions {
        &self.opts
    }

    pub fn stats(&self) -> OnlineStats {
        self.stats
    }

    /// Read one record of a stream ([`OnlineTxn::read`]: JSON or EDN, read as the offline
    /// readers read it) and take its transactions; one without an id takes its arrival number
    /// (the count of transactions taken so far). A record refused takes nothing.
    pub fn push_text(&mut self, text: &[u8], format: Format) -> Result<Vec<OnlineAnomaly>, Error> {
        let txns = OnlineTxn::read(text, format, self.stats.transactions)?;
        Ok(txns.iter().flat_map(|t| self.push(t)).collect())
    }

    /// Take the next transaction as JSON text (grail's native form, as a JSON-lines file holds
    /// it, read by the JSON reader `grail check` uses); the cycles it closed.
    pub fn push_json(&mut self, text: &[u8]) -> Result<Vec<OnlineAnomaly>, Error> {
        self.push_text(text, Format::Json)
    }

    /// Take the next transaction (in completion order); returns the cycles it closed.
    pub fn push(&mut self, txn: &OnlineTxn) -> Vec<OnlineAnomaly> {
        self.stats.transactions += 1;
        if txn.status != Status::Committed {
            return Vec::new(); // aborted writes make no edges; indeterminate ones are not judged
        }
        self.stats.committed += 1;
        let t = self.window.push(txn.id, txn.label.as_deref());
        let arrival = self.keys.arrive(t, txn);
        self.stats.incompatible_reads += arrival.incompatible_reads;
        if let Some(n) = self.window.node_mut(t) {
            n.unordered += arrival.unordered;
        }
        for w in arrival.ordered_writers {
            if let Some(n) = self.window.node_mut(w) {
                n.unordered = n.unordered.saturating_sub(1);
            }
        }
        let (new_pairs, gone) = self.window.merge(&arrival.cands);
        self.stats.edges_to_evicted += gone;
        let mut found = Vec::new();
        for (from, adj) in new_pairs {
            let to = adj.to;
            self.window.link(from, adj);
            let (cycles, truncated) =
                self.search.cycles(&self.window, from, to, self.opts.max_length, self.opts.max_steps);
            self.stats.truncated_searches += truncated as u64;
            for cyc in cycles {
                found.push(self.report(&cyc, txn.id));
            }
        }
        if !self.pending.is_empty() && self.stats.committed % 1024 == 0 {
            self.settle();
        }
        self.evict();
        self.stats.live = self.window.len();
        self.stats.peak_live = self.stats.peak_live.max(self.window.len());
        self.stats.keys = self.keys.len();
        self.stats.peak_keys = self.stats.peak_keys.max(self.keys.len());
        found
    }

    /// A cycle's edge types, keys and whether some edge is provisional only, as the window has
    /// them now, and its classes.
    fn classes(&self, cyc: &[Seq]) -> (graph::Shape, Classes) {
        let s = self.window.shape(cyc);
        let same = s.keys.first().is_some_and(|f| f.iter().any(|k| s.keys.iter().all(|ks| ks.contains(k))));
        let c = classify(&s.types, same);
        (s, c)
    }

    fn report(&mut self, cyc: &[Seq], closer: u64) -> OnlineAnomaly {
        let n = cyc.len();
        let (shape, c) = self.classes(cyc);
        let labels: Vec<String> = cyc
            .iter()
            .map(|&s| self.window.node(s).and_then(|x| x.label.as_deref()).unwrap_or(NO_LABEL).to_string())
            .collect();
        if shape.provisional {
            // Counted once its edges are settled (or its transactions leave the window).
            self.pending.push(PendingCycle { seqs: cyc.to_vec(), classes: c, labels: labels.clone() });
        } else {
            self.tally.add(c, n, &labels);
        }
        self.stats.cycles += 1;
        OnlineAnomaly {
            cycle: ClassifiedCycle {
                txns: cyc.iter().map(|&s| self.window.node(s).map_or(0, |x| x.id)).collect(),
                types: shape.types.iter().map(|t: &EdgeType| t.as_str().to_string()).collect(),
                keys: shape
                    .keys
                    .iter()
                    .map(|ks| ks.iter().filter_map(|&k| self.keys.name(k)).map(Atom::json).collect())
                    .collect(),
                labels,
                zellag: c.zellag.into(),
                ldbc: c.ldbc.into(),
                adya: c.adya.into(),
            },
            closed_by: closer,
            provisional: shape.provisional,
        }
    }

    /// Count the provisional cycles whose edges are all settled now (or that have a transaction
    /// out of the window), with their classes as they are now.
    fn settle(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for p in pending {
            if p.seqs.iter().any(|&s| s < self.window.base()) {
                self.tally.add(p.classes, p.seqs.len(), &p.labels);
                continue;
            }
            let (shape, c) = self.classes(&p.seqs);
            if shape.provisional {
                self.pending.push(PendingCycle { classes: c, ..p });
            } else {
                self.tally.add(c, p.seqs.len(), &p.labels);
            }
        }
    }

    /// Drop the oldest transactions beyond the window, and now and then the keys they alone used.
    fn evict(&mut self) {
        let e = self.window.evict(self.opts.window);
        self.stats.evicted += e.transactions;
        self.stats.evicted_unordered += e.unordered;
        self.since_sweep += e.transactions as usize;
        if self.since_sweep >= self.opts.window.max(1024) {
            self.since_sweep = 0;
            self.keys.sweep(self.window.base());
            self.search.shrink(self.window.len());
        }
    }

    /// The counts so far, and notes on what the window could not judge.
    pub fn summary(&self) -> OnlineSummary {
        let s = &self.stats;
        let mut notes = Vec::new();
        if s.evicted_unordered > 0 {
            notes.push(format!(
                "{} transactions left the window (of {}) with appends no read had ordered yet: cycles through them closing later were not judged",
                s.evicted_unordered, self.opts.window
            ));
        }
        if s.edges_to_evicted > 0 {
            notes.push(format!(
                "{} edges reached transactions already out of the window (of {}): a larger window may find more cycles",
                s.edges_to_evicted, self.opts.window
            ));
        }
        if s.truncated_searches > 0 {
            notes.push(format!(
                "{} cycle searches were cut short by max_steps = {}",
                s.truncated_searches, self.opts.max_steps
            ));
        }
        if s.incompatible_reads > 0 {
            notes.push(format!(
                "{} reads were not consistent with their key's order so far (incompatible-order): they made no edges",
                s.incompatible_reads
            ));
        }
        let skipped = s.transactions - s.committed;
        if skipped > 0 {
            notes.push(format!("{skipped} transactions did not commit (aborted or indeterminate): not judged"));
        }
        // Cycles still provisional count with their classes as known now.
        let mut tally = self.tally.clone();
        for p in &self.pending {
            let c = if p.seqs.iter().any(|&s| s < self.window.base()) { p.classes } else { self.classes(&p.seqs).1 };
            tally.add(c, p.seqs.len(), &p.labels);
        }
        OnlineSummary {
            stats: *s,
            classes: tally.classes(None),
            lengths: tally.lengths(),
            patterns: tally.patterns(),
            notes,
        }
    }

    /// An estimate of the heap memory held (bytes), from the sizes of the structures kept.
    pub fn memory_estimate(&self) -> usize {
        use std::mem::size_of;
        let pending = self.pending.capacity() * size_of::<PendingCycle>()
            + self.pending.iter().map(|p| p.seqs.capacity() * 8 + p.labels.capacity() * 24).sum::<usize>();
        self.window.memory() + self.keys.memory() + self.search.memory() + pending
    }
}
