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
mod kept;
pub mod levels;
pub mod render;
mod search;
pub mod txn;

pub use levels::OnlineLevel;
pub use render::{render_anomaly, render_finding, render_summary};
pub use txn::{stream_order, Atom, OnlineOp, OnlineTxn};

use crate::analysis::classify::{classify, Classes};
use crate::analysis::{ClassifiedCycle, Tally, NO_LABEL};
use crate::anomaly::AnomalyKind;
use crate::error::Error;
use crate::graph::EdgeType;
use crate::history::{History, Model, Status};
use crate::level::Level;
use crate::level::Order;
use crate::read::Format;
use graph::Window;
use infer::{Arrival, Keys, Writer};
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
    /// Search list-append cycles of at most this many transactions as each arrives (2 to 255);
    /// the offline engine's cycles (register rounds, the end's order cycles) are reported
    /// whatever their length.
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
    /// The anomaly the cycle is, as `grail check` names its counterexamples: the Adya class of a
    /// cycle of the dependency graph; for one through session, real-time or commit order, or
    /// through version-order choices (which no scheme classifies: its classes are `none`), the
    /// level's own name of it (`G-single-process`, `fractured-read`, and a cycle of forced
    /// choices by the cycles that forced them: `polygraph::name::of_counterexample`).
    pub anomaly: String,
    /// The transaction whose arrival closed the cycle (`found` is `arrival`), or the last to
    /// arrive before the check that found it (a round, a pause, the end: it closed at or
    /// before that arrival).
    pub closed_by: u64,
    /// What found it: the search as `closed_by` arrived, or a later check of the offline engine.
    #[serde(default)]
    pub found: Found,
    /// Some edge of it was drawn to an append no read had ordered yet: the offline check of the
    /// whole history may place that append later and find a longer cycle instead.
    pub provisional: bool,
    /// The levels whose anti-patterns this cycle matches as it closed, and the levels stronger
    /// than them: each is violated now, whatever comes later.
    pub violates: Vec<String>,
    /// The steps (indices into `txns`, each to the next) whose order the polygraph chose, in a
    /// register stream's round: a version order among those the history leaves open, not a
    /// dependency it shows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chosen: Vec<usize>,
}

/// When an online cycle was found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Found {
    /// By the search as its closing transaction arrived.
    #[default]
    Arrival,
    /// By a round of the offline engine over a register stream's kept transactions.
    Round,
    /// By the offline engine when the input paused.
    Pause,
    /// By the offline engine at the stream's end.
    End,
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
    /// Keys in memory now, and at most (list-append streams; a register stream's rounds keep none).
    pub keys: usize,
    pub peak_keys: usize,
    /// Reads of aborted (G1a) and intermediate (G1b) appends, each found when both its reader
    /// and its writer had arrived.
    pub read_findings: u64,
    /// Elements read whose appender's outcome is unknown (`:info`): not judged online.
    pub indeterminate_reads: u64,
    /// Transactions that claim a start or a commit timestamp (not checked by this checker).
    pub timed: u64,
    /// Values appended to a key that had them already (offline: duplicate-write).
    pub duplicate_appends: u64,
    /// Register streams: rounds of the offline engine over the kept transactions.
    pub rounds: u64,
    /// Transactions refused by `push` (a model other than the stream's; `push_text` says why).
    pub refused: u64,
}

/// A read of an aborted or an intermediate append, reported when the later of its reader and
/// its writer arrives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineFinding {
    /// `G1a` (aborted read), `G1b` (intermediate read) or `internal` (a read that disagrees with
    /// its own transaction's earlier operations; the writer is the reader).
    pub anomaly: String,
    /// The committed transaction that read it (none when only a read after its own append did).
    pub reader: Option<u64>,
    /// The transaction that wrote it: the reader itself for `internal`, none for a value no
    /// transaction wrote (`garbage-read`, from a register stream's rounds).
    pub writer: Option<u64>,
    /// The transaction whose arrival revealed it.
    pub found_by: u64,
}

/// Counts so far, for the caller's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OnlineSummary {
    pub stats: OnlineStats,
    pub classes: Vec<crate::analysis::ClassCount>,
    pub lengths: Vec<crate::analysis::LengthCount>,
    pub patterns: Vec<crate::analysis::PatternCount>,
    /// Every level's verdict from what the stream showed ([`levels`]).
    pub levels: Vec<OnlineLevel>,
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
    /// The first anomaly of each kind, for the levels' verdicts.
    watch: levels::Watch,
    /// Read findings not yet taken by [`OnlineChecker::take_findings`] (at most `MAX_QUEUED`).
    findings: Vec<OnlineFinding>,
    /// The caller said the stream ended ([`OnlineChecker::end`]) and took nothing since.
    ended: bool,
    /// The new pairs of one arrival, kept for the next.
    new_pairs: Vec<(Seq, graph::Adj)>,
    /// The id of the transaction taken last.
    last_id: u64,
    /// The stream's data model, once a transaction wrote: list-append (the cycle search) or
    /// registers (rounds of the offline engine over the kept transactions).
    model: Option<Model>,
    /// The transactions kept for the offline engine ([`kept`]).
    kept: kept::Kept,
    /// What the rounds reported already.
    reported: kept::Reported,
    /// What the offline engine decided over the whole stream at its end ([`OnlineChecker::end`]).
    last: Option<Vec<kept::Decided>>,
    /// Why it did not run at the end, when it did not.
    last_why: Option<String>,
    /// A register stream's write-ahead log, as much as has arrived: its version order for every
    /// round ([`kept`]).
    wal: Option<crate::read::LogStream>,
    /// The log's changes to the order when the last round ran.
    log_changes_at_round: u64,
}

/// A register stream's round runs after this many arrivals or half the kept transactions,
/// whichever is more (so that the rounds' work stays in proportion to the stream), but at most
/// half the window apart; and when asked ([`OnlineChecker::flush`]).
const ROUND_MIN: usize = 1024;

/// The levels a list-append stream leaves to the offline engine over its kept transactions
/// (claimed timestamps in them are checked too, as offline).
const WEAK: [Level; 3] = [Level::Cc, Level::Ra, Level::Rc];

/// Read findings kept for a caller that does not take them (each is counted in the stats).
const MAX_QUEUED: usize = 1024;

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
            watch: levels::Watch::default(),
            findings: Vec::new(),
            ended: false,
            new_pairs: Vec::new(),
            last_id: 0,
            model: None,
            kept: kept::Kept::default(),
            reported: kept::Reported::default(),
            last: None,
            last_why: None,
            wal: None,
            log_changes_at_round: 0,
        }
    }

    /// A register stream's write-ahead log (ArangoDB's JSON lines, `read::read_wal`), whole: each
    /// round reads it against the kept transactions as their version order, so no version order
    /// is searched for (as `grail check --wal`). Refused when a line is not a log record.
    pub fn set_wal(&mut self, wal: &[u8]) -> Result<(), Error> {
        crate::read::wal_available()?;
        let mut log = crate::read::LogStream::default();
        log.push(wal)?;
        log.end()?;
        self.wal = Some(log);
        Ok(())
    }

    /// More of a register stream's write-ahead log, as it is written (`grail online --wal` on a
    /// live stream): each round reads the version order from the lines arrived so far
    /// ([`crate::read::LogStream`]); a line is taken once its line break has arrived. Refused
    /// when a line is not a log record (the error names its line in the whole log).
    pub fn push_wal(&mut self, more: &[u8]) -> Result<(), Error> {
        crate::read::wal_available()?;
        self.wal.get_or_insert_with(Default::default).push(more)
    }

    /// The write-ahead log ended: its last line is taken even without a line break
    /// ([`OnlineChecker::end`] ends the log too).
    pub fn end_wal(&mut self) -> Result<(), Error> {
        self.wal.as_mut().map_or(Ok(()), |w| w.end())
    }

    /// The log's writes held (those of transactions that left the window are let go).
    pub fn wal_held(&self) -> usize {
        self.wal.as_ref().map_or(0, |w| w.len())
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
        let mut out = Vec::new();
        for t in &txns {
            out.extend(self.try_push(t)?);
        }
        Ok(out)
    }

    /// Take the next transaction as JSON text (grail's native form, as a JSON-lines file holds
    /// it, read by the JSON reader `grail check` uses); the cycles it closed.
    pub fn push_json(&mut self, text: &[u8]) -> Result<Vec<OnlineAnomaly>, Error> {
        self.push_text(text, Format::Json)
    }

    /// The stream ended, and its write-ahead log with it: what only its end tells is judged by [`OnlineChecker::summary`] (reads
    /// of values nobody appended, the order of appends no read saw), and a level may hold. When
    /// nothing left the window, the offline engine checks the kept transactions: a register
    /// stream's last round, every level (its cycles returned, its reads taken by
    /// [`OnlineChecker::take_findings`]); a list-append stream's RC, RA and CC, and its cycles
    /// through session or real-time order (`order_cycles`). A transaction
    /// pushed after it takes the stream up again.
    pub fn end(&mut self) -> Vec<OnlineAnomaly> {
        self.ended = true;
        self.last = None;
        self.last_why = None;
        let by = self.last_id;
        if self.model == Some(Model::RwRegister) {
            // The log ends with the stream (as `end_wal`): a last line without its line break
            // is read; a log with a bad line not yet refused decides nothing.
            if let Some(Err(e)) = self.wal.as_mut().map(|w| w.end()) {
                self.last_why =
                    Some(format!("not decided online: the write-ahead log has a line that is not a log record: {e}"));
                return Vec::new();
            }
            return self.round(by, Found::End);
        }
        if self.kept.dropped > 0 {
            self.last_why = Some(format!(
                "not decided online: {} transactions did not fit the {} kept for the offline engine, which decides RC, RA and CC at the end of a stream (Biswas and Enea's commit order)",
                self.kept.dropped,
                2 * self.opts.window
            ));
            return Vec::new();
        }
        // The whole stream as a history, once: RC, RA and CC, then the order cycles.
        let Ok(h) = self.kept.history(false, self.wal.as_mut()) else { return Vec::new() };
        let c = kept::check(&h, &WEAK);
        self.last = Some(c.levels.clone());
        let mut found = self.take_round(c, by, false, Found::End);
        found.extend(self.order_cycles(&h, by));
        found
    }

    /// A list-append stream's cycles through session order (and real-time order, when every
    /// transaction recorded both times), at its end: the search as transactions arrive draws
    /// dependency edges only, so these are found by the offline engine over the kept
    /// transactions, as `grail check` finds them. The levels' verdicts stay the window's search's.
    fn order_cycles(&mut self, h: &History, by: u64) -> Vec<OnlineAnomaly> {
        let mut levels = vec![Level::StrongSessionSer, Level::StrongSessionSi];
        if self.kept.all_timed() {
            levels.extend([Level::StrictSer, Level::StrongSi]);
        }
        let mut c = kept::check(h, &levels);
        c.levels.clear();
        c.findings.clear();
        c.cycles.retain(|x| x.cycle.types.iter().any(|t| t == "so" || t == "rt"));
        self.take_round(c, by, false, Found::End)
    }

    /// The input paused (a front end calls it then, so that a violation is not held back). A
    /// register stream: a round now if anything arrived since the last one, a transaction or a
    /// record of the write-ahead log that changes the order. A list-append stream, whose cycles
    /// are reported as they close: RC, RA and CC by the offline engine, when enough arrived
    /// since it last ran and none has left the window.
    pub fn flush(&mut self) -> Vec<OnlineAnomaly> {
        let log_grew = self.wal.as_ref().is_some_and(|w| w.changes() > self.log_changes_at_round);
        match self.model {
            Some(Model::RwRegister) if self.reported.since > 0 || log_grew => self.round(self.last_id, Found::Pause),
            Some(Model::ListAppend) => self.weak_round_at_pause(self.last_id),
            _ => Vec::new(),
        }
    }

    /// One round of a register stream: the offline engine over the kept transactions, every
    /// level; what it found that no round reported yet.
    fn round(&mut self, by: u64, found: Found) -> Vec<OnlineAnomaly> {
        self.reported.since = 0;
        self.log_changes_at_round = self.wal.as_ref().map_or(0, |w| w.changes());
        self.stats.rounds += 1;
        let whole = self.ended && self.kept.dropped == 0;
        let h = match self.kept.history(!whole, self.wal.as_mut()) {
            Ok(h) => {
                self.last_why = None;
                h
            }
            Err(e) => {
                self.last_why = Some(format!("not decided online: the kept transactions are not a history: {e}"));
                return Vec::new();
            }
        };
        let c = kept::check(&h, &Level::ALL);
        if self.ended && self.kept.dropped == 0 {
            self.last = Some(c.levels.clone());
        }
        self.take_round(c, by, true, found)
    }

    /// Take what the engine found: the levels it found violated go to the levels' watch (when
    /// `watch`), each cycle and read not reported yet is reported.
    fn take_round(&mut self, c: kept::Checked, by: u64, watch: bool, when: Found) -> Vec<OnlineAnomaly> {
        if watch {
            for d in c.levels.iter().filter(|d| d.verdict == crate::engine::Verdict::Violated) {
                self.watch.add_level(d.level, &d.anomalies, &d.witness);
            }
        }
        for &(kind, _reread, reader, writer) in &c.findings {
            if !self.reported.new_finding(kind.name(), reader, writer) {
                continue;
            }
            self.stats.read_findings += 1;
            if self.findings.len() < MAX_QUEUED {
                self.findings.push(OnlineFinding { anomaly: kind.name().to_string(), reader, writer, found_by: by });
            }
        }
        let mut found = Vec::new();
        for cyc in c.cycles {
            if !self.reported.new_cycle(&cyc.cycle.txns, cyc.cycle.types.iter().map(String::as_str)) {
                continue;
            }
            self.stats.cycles += 1;
            self.tally.add(cyc.classes, cyc.cycle.txns.len(), &cyc.cycle.labels);
            found.push(kept::anomaly(cyc, by, when));
        }
        found
    }

    /// The reads of aborted and intermediate appends found since the last call, in order.
    pub fn take_findings(&mut self) -> Vec<OnlineFinding> {
        std::mem::take(&mut self.findings)
    }

    /// Record an arrival's read findings (G1a, G1b) for the levels and the caller.
    fn found(&mut self, a: &Arrival, by: u64) {
        self.stats.indeterminate_reads += a.indeterminate_reads;
        self.stats.duplicate_appends += a.duplicates;
        for f in &a.findings {
            let id = |s: Seq| self.window.node(s).map(|n| n.id);
            let reader = f.reader.and_then(id);
            let writer = match f.writer {
                Writer::Committed(s) => id(s).unwrap_or(by),
                Writer::Other(x) => x,
            };
            self.stats.read_findings += 1;
            // A round of the offline engine that finds it again does not report it twice.
            self.reported.new_finding(f.kind.name(), reader, Some(writer));
            let txns: Vec<u64> = reader.into_iter().filter(|&r| r != writer).chain([writer]).collect();
            self.watch.add_read(f.kind, f.reread, &txns);
            if self.findings.len() < MAX_QUEUED {
                let writer = Some(writer);
                self.findings.push(OnlineFinding { anomaly: f.kind.name().to_string(), reader, writer, found_by: by });
            }
        }
    }

    /// Take the next transaction (in completion order); returns the cycles it closed. Reads of
    /// aborted and intermediate appends it revealed are taken by [`OnlineChecker::take_findings`].
    /// A transaction of another data model than the stream's is refused, counted in
    /// `stats.refused` ([`OnlineChecker::try_push`] says why).
    pub fn push(&mut self, txn: &OnlineTxn) -> Vec<OnlineAnomaly> {
        self.try_push(txn).unwrap_or_else(|_| {
            self.stats.refused += 1;
            Vec::new()
        })
    }

    /// [`OnlineChecker::push`], or the error naming a transaction of another data model than
    /// the stream's (as offline, a history has one), which takes nothing.
    pub fn try_push(&mut self, txn: &OnlineTxn) -> Result<Vec<OnlineAnomaly>, Error> {
        let model = model_of(txn);
        match (self.model, model) {
            (Some(m), Some(t)) if m != t => {
                return Err(Error::new(
                    crate::error::ErrorKind::Shape,
                    format!("the stream so far is {m}, and this transaction is {t}: a history has one data model"),
                )
                .with_txn(txn.id))
            }
            (None, _) => self.model = model,
            _ => {}
        }
        Ok(self.take(txn))
    }

    /// Take a transaction of the stream's model.
    fn take(&mut self, txn: &OnlineTxn) -> Vec<OnlineAnomaly> {
        self.stats.transactions += 1;
        self.stats.timed += txn.timed() as u64;
        self.ended = false;
        self.last_id = txn.id;
        let register = self.model == Some(Model::RwRegister);
        let limit = if register { self.opts.window } else { 2 * self.opts.window };
        self.kept.push(txn, limit, register);
        if register {
            return self.push_register(txn);
        }
        if txn.status != Status::Committed {
            // No edges: aborted writes are judged by the reads of them, indeterminate ones not.
            let a = self.keys.foreign(self.window.base() + self.window.len() as Seq, txn);
            self.found(&a, txn.id);
            return Vec::new();
        }
        self.stats.committed += 1;
        let t = self.window.push(txn.id, txn.label.as_deref(), txn.process, txn.times);
        let arrival = self.keys.arrive(t, txn);
        self.found(&arrival, txn.id);
        self.stats.incompatible_reads += arrival.incompatible_reads;
        if let Some(n) = self.window.node_mut(t) {
            n.unordered += arrival.unordered;
        }
        for w in arrival.ordered_writers {
            if let Some(n) = self.window.node_mut(w) {
                n.unordered = n.unordered.saturating_sub(1);
            }
        }
        let mut new_pairs = std::mem::take(&mut self.new_pairs);
        let gone = self.window.merge(&arrival.cands, &mut new_pairs);
        self.keys.recycle(arrival.cands);
        self.stats.edges_to_evicted += gone;
        let mut found = Vec::new();
        for (from, adj) in new_pairs.drain(..) {
            let to = adj.to;
            self.window.link(from, adj);
            let (cycles, truncated) =
                self.search.cycles(&self.window, from, to, self.opts.max_length, self.opts.max_steps);
            self.stats.truncated_searches += truncated as u64;
            for cyc in cycles {
                found.push(self.report(&cyc, txn.id));
            }
        }
        self.new_pairs = new_pairs;
        if !self.pending.is_empty() && self.stats.committed % 1024 == 0 {
            self.settle();
        }
        self.evict();
        if self.stats.evicted > 0 {
            // RC, RA and CC are decided over the whole stream only: nothing more to keep.
            self.kept.let_go();
        } else {
            self.reported.since += 1;
        }
        self.stats.live = self.window.len();
        self.stats.peak_live = self.stats.peak_live.max(self.window.len());
        self.stats.keys = self.keys.len();
        self.stats.peak_keys = self.stats.peak_keys.max(self.keys.len());
        found
    }

    /// A list-append stream that lost no transaction, at a pause of its input: RC, RA and CC
    /// checked by the offline engine over the transactions so far, when at least an eighth as
    /// many arrived since the last time (the pauses of a slow stream, not every arrival: a round
    /// at every half of the kept transactions slowed a piped 1M stream by a fifth). Each level
    /// found violated is violated by the whole stream (module `kept`): decided now, with its
    /// witness, and the reads found reported; the cycles, through the commit order the axioms
    /// force and not the dependency graph's, are left to the end's report.
    fn weak_round_at_pause(&mut self, by: u64) -> Vec<OnlineAnomaly> {
        if self.reported.since == 0 || self.reported.since * 8 < self.kept.len() || self.kept.dropped > 0 {
            return Vec::new();
        }
        self.reported.since = 0;
        // More may come: the kept transactions as a partial history.
        let Ok(h) = self.kept.history(true, self.wal.as_mut()) else { return Vec::new() };
        let mut c = kept::check(&h, &WEAK);
        c.cycles.clear();
        self.take_round(c, by, true, Found::Pause)
    }

    /// A register transaction: kept, and a round when one is due.
    fn push_register(&mut self, txn: &OnlineTxn) -> Vec<OnlineAnomaly> {
        self.stats.committed += (txn.status == Status::Committed) as u64;
        self.stats.evicted = self.kept.dropped;
        self.stats.live = self.kept.len();
        self.stats.peak_live = self.stats.peak_live.max(self.kept.len());
        self.reported.since += 1;
        // At most half the window apart, so that transactions that arrive within half a window of
        // one another are together in some round.
        if self.reported.since >= ROUND_MIN.max(self.kept.len() / 2).min((self.opts.window / 2).max(1)) {
            return self.round(txn.id, Found::Round);
        }
        Vec::new()
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
        let txns: Vec<u64> = cyc.iter().map(|&s| self.window.node(s).map_or(0, |x| x.id)).collect();
        self.watch.cycle(&shape.types, &txns);
        // A round of the offline engine that finds it again does not report it twice.
        self.reported.new_cycle(&txns, shape.types.iter().map(|t| t.as_str()));
        if shape.provisional {
            // Counted once its edges are settled (or its transactions leave the window).
            self.pending.push(PendingCycle { seqs: cyc.to_vec(), classes: c, labels: labels.clone() });
        } else {
            self.tally.add(c, n, &labels);
        }
        self.stats.cycles += 1;
        OnlineAnomaly {
            found: Found::Arrival,
            violates: levels::violated_by(&shape.types),
            anomaly: c.adya.into(),
            cycle: ClassifiedCycle {
                txns,
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
            chosen: Vec::new(),
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
                let txns: Vec<u64> = p.seqs.iter().map(|&s| self.window.node(s).map_or(0, |x| x.id)).collect();
                self.watch.cycle(&shape.types, &txns);
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
        if s.indeterminate_reads > 0 {
            notes.push(format!(
                "{} elements read were appended by transactions whose outcome is unknown (indeterminate): online takes committed transactions only, so cycles through those are not judged",
                s.indeterminate_reads
            ));
        }
        let skipped = s.transactions - s.committed;
        if self.model == Some(Model::RwRegister) {
            notes.push(format!(
                "registers: checked in {} of the offline engine (grail check's) over the last {} at most, every level; a round over a window that lost older transactions leaves out the reads of values written before it",
                crate::words::counted(s.rounds, "round"),
                crate::words::counted(self.opts.window as u64, "transaction")
            ));
        } else if skipped > 0 {
            notes.push(format!(
                "{} did not commit (aborted or indeterminate): no edges; reads of their appends are judged",
                crate::words::counted(skipped, "transaction")
            ));
        }
        // Cycles still provisional count with their classes as known now.
        let mut tally = self.tally.clone();
        let mut watch = self.watch.clone();
        for p in &self.pending {
            let c = if p.seqs.iter().any(|&s| s < self.window.base()) {
                p.classes
            } else {
                let (shape, c) = self.classes(&p.seqs);
                let txns: Vec<u64> = p.seqs.iter().map(|&s| self.window.node(s).map_or(0, |x| x.id)).collect();
                watch.cycle(&shape.types, &txns);
                c
            };
            tally.add(c, p.seqs.len(), &p.labels);
        }
        let levels = self.levels(watch);
        OnlineSummary {
            stats: *s,
            classes: tally.classes(None),
            lengths: tally.lengths(),
            patterns: tally.patterns(),
            levels,
            notes,
        }
    }

    /// Every level's verdict: when nothing was lost (the stream ended within the window, every
    /// search ran to its end, every read fit its key's order, no read of an indeterminate
    /// append), the whole window is searched for each anti-pattern not seen yet, and the reads
    /// of values nobody appended and the open orders of unread appends are looked at
    /// ([`levels`]).
    fn levels(&self, mut watch: levels::Watch) -> Vec<OnlineLevel> {
        let s = &self.stats;
        let mut lost = Vec::new();
        if !self.ended {
            lost.push("the stream has not ended (a reader or a writer still to come may change it)".to_string());
        }
        if self.model == Some(Model::RwRegister) {
            if self.kept.dropped > 0 {
                lost.push(format!(
                    "{} transactions left the window of {}: each round checks the last {} transactions of a register stream, so a violation through one that left was not seen, and a version order may hinge on a write that left",
                    self.kept.dropped, self.opts.window, self.opts.window
                ));
            }
            let mut lost = format!("not decided online: {}", lost.join("; "));
            if let Some(why) = &self.last_why {
                lost.clone_from(why);
            }
            let decided = self.last.as_deref().filter(|_| self.ended && self.kept.dropped == 0);
            return levels::from_engine(&watch, decided, &lost, s.committed, self.kept.timed());
        }
        if s.evicted > 0 {
            lost.push(format!(
                "{} transactions left the window of {}: a cycle through one of them whose last edge arrived after it left was not seen (Zellag & Kemme's Theorem 6.1 bounds how far apart a cycle's transactions complete; an edge between appends may also wait for a later read to order them)",
                s.evicted, self.opts.window
            ));
        }
        if s.truncated_searches > 0 {
            lost.push(format!("{} cycle searches were cut short by max_steps", s.truncated_searches));
        }
        if s.incompatible_reads > 0 {
            lost.push(format!("{} reads did not fit their key's order and drew no edges", s.incompatible_reads));
        }
        if s.indeterminate_reads > 0 {
            lost.push(format!(
                "{} elements read were appended by transactions of unknown outcome, which draw no edges online",
                s.indeterminate_reads
            ));
        }
        if s.duplicate_appends > 0 {
            lost.push(format!(
                "{} values were appended to a key that had them already (duplicate-write): which append a read saw is not known",
                s.duplicate_appends
            ));
        }
        let id = |q: Seq| self.window.node(q).map_or(0, |n| n.id);
        let complete = lost.is_empty().then(|| {
            let (edges, ids) = self.window.graph();
            levels::search_window(&mut watch, ids.len(), edges.clone(), &ids, Order::None);
            let realtime = self.window.realtime_edges();
            if let Some(rt) = &realtime {
                let mut with_rt = edges.clone();
                with_rt.extend_from_slice(rt);
                levels::search_window(&mut watch, ids.len(), with_rt, &ids, Order::Realtime);
            }
            let mut with_so = edges;
            with_so.extend(self.window.session_edges());
            levels::search_window(&mut watch, ids.len(), with_so, &ids, Order::Session);
            if let Some(reader) = self.keys.garbage() {
                watch.add(AnomalyKind::GarbageRead, &reader.map(id).into_iter().collect::<Vec<_>>());
            }
            let (open_orders, pair) = self.keys.open();
            if let Some((a, b)) = pair {
                watch.add(AnomalyKind::GSingle, &[id(a), id(b)]);
            }
            levels::Complete {
                open_orders,
                timed: s.timed,
                realtime: realtime.is_some(),
                engine: self.last.clone().unwrap_or_default(),
                weak_why: self.last_why.clone(),
            }
        });
        levels::verdicts(&watch, complete.as_ref(), &format!("not decided online: {}", lost.join("; ")), s.committed)
    }

    /// An estimate of the heap memory held (bytes), from the sizes of the structures kept.
    pub fn memory_estimate(&self) -> usize {
        use std::mem::size_of;
        let pending = self.pending.capacity() * size_of::<PendingCycle>()
            + self.pending.iter().map(|p| p.seqs.capacity() * 8 + p.labels.capacity() * 24).sum::<usize>();
        self.window.memory() + self.keys.memory() + self.search.memory() + pending
    }
}

/// The data model a transaction's operations tell: list-append (an append or a list read),
/// registers (a write or a read of a value), or none (reads of `nil` alone).
fn model_of(t: &OnlineTxn) -> Option<Model> {
    t.ops.iter().find_map(|op| match op {
        OnlineOp::Append { .. } | OnlineOp::Read { list: Some(_), .. } => Some(Model::ListAppend),
        OnlineOp::Write { .. } | OnlineOp::ReadValue { .. } => Some(Model::RwRegister),
        OnlineOp::Read { list: None, .. } => None,
    })
}
