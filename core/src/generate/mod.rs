//! A history generator: a simulated multi-version key-value store, with sessions running random
//! transactions concurrently under a chosen isolation, writing Jepsen EDN (list-append or
//! rw-register, with an optional write-ahead log), grail's native JSON, PolySI/Plume text
//! (registers) or TimeKiller's JSON, optionally with each committed transaction's start and
//! commit timestamps from the simulated clock (`docs/timestamps.md`). No IO: text goes into any `fmt::Write`. The same options and seed give the same
//! history.
//!
//! Isolation as simulated:
//! * `serializable`: a transaction runs atomically at its commit (strict serializability).
//! * `snapshot-isolation`: reads from the snapshot at begin; first committer wins on write
//!   conflicts (Berenson et al.; the GRAIL thesis ch. 2).
//! * `parallel-snapshot-isolation`: two sites; a site sees its own commits at once and the other
//!   site's after a delay (a causal prefix); write conflicts abort globally (Sovran et al.).
//! * `causal`: parallel SI's two sites and causal delivery, without write conflicts for registers:
//!   causally consistent (Biswas and Enea), with lost updates.
//! * `read-committed`: each read sees the latest commit; writes install at commit; no conflicts.
//!
//! Injected anomalies are spliced in on fresh keys, each a minimal instance, so their number is
//! known exactly.

mod cobra;
mod sim;

pub(crate) use sim::Rng;
pub use sim::{generate, generate_streaming};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    Serializable,
    SnapshotIsolation,
    ParallelSnapshotIsolation,
    /// Parallel SI's sites without its write conflicts (registers; lists keep the conflicts, as
    /// concurrent appends would leave replicas with lists in different orders).
    Causal,
    ReadCommitted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataModel {
    ListAppend,
    RwRegister,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyDistribution {
    Uniform,
    /// Zipfian with this exponent.
    Zipfian(f64),
    /// This fraction of accesses go to the first tenth of the keys.
    Hotspot(f64),
}

impl KeyDistribution {
    /// `uniform`, `zipfian[:S]` (S = 1 when not given) or `hotspot[:P]` (P = 0.8).
    pub fn parse(given: &str) -> Result<KeyDistribution, crate::error::Error> {
        let bad = |what: String| crate::error::Error::new(crate::error::ErrorKind::Usage, what);
        let (dist, arg) = given.split_once(':').unwrap_or((given, ""));
        let num = |default: f64| match arg {
            "" => Ok(default),
            _ => arg.parse::<f64>().map_err(|_| bad(format!("expected a number in {given:?}"))),
        };
        match dist {
            "uniform" if arg.is_empty() => Ok(KeyDistribution::Uniform),
            "zipfian" => Ok(KeyDistribution::Zipfian(num(1.0)?)),
            "hotspot" => Ok(KeyDistribution::Hotspot(num(0.8)?)),
            _ => Err(bad(format!("unknown distribution {given:?}: expected uniform, zipfian[:S] or hotspot[:P]"))),
        }
    }

    /// The cumulative distribution over `keys` keys, for [`pick`] (empty for uniform).
    pub(crate) fn cdf(self, keys: usize) -> Vec<f64> {
        sim::key_cdf(self, keys)
    }
}

/// A key's slot in `0..keys`, drawn by `cdf` (uniformly when it is empty).
pub(crate) fn pick(rng: &mut Rng, cdf: &[f64], keys: usize) -> usize {
    if cdf.is_empty() {
        rng.below(keys)
    } else {
        let u = rng.unit();
        cdf.partition_point(|&c| c < u).min(keys.max(1) - 1)
    }
}

/// What the transactions do (PolySI 5.1; the benchmarks of Cobra, Tan et al., OSDI 2020, 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// Random reads and blind writes of `keys` keys, `read_ratio` of them reads (PolySI's
    /// parametric generator: GeneralRH, GeneralRW and GeneralWH are 95%, 50% and 30% reads).
    #[default]
    General,
    /// TPC-C-like: one warehouse, 10 districts, 30k customers, 100k stock rows; new-order,
    /// payment, order-status, delivery and stock-level; every update a read-modify-write.
    Tpcc,
    /// RUBiS-like bidding: 20k users, 200k items; viewing, bidding (read-modify-write of an
    /// item's best bid), comments, registrations and blind profile updates.
    Rubis,
    /// C-Twitter-like: `keys` users; tweets (read-modify-write of a user's timeline head),
    /// follows, timelines and blind profile updates.
    Twitter,
}

/// An anomaly the generator can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Injection {
    LostUpdate,
    WriteSkew,
    LongFork,
    AbortedRead,
    IntermediateRead,
    WriteCycle,
    /// Zellag & Kemme 2014, 7.1: T1 -rw(x)-> T2 -wr(y)-> T1 (T1 reads x, then T2's y).
    ReadSkew,
    /// Zellag & Kemme 7.1: T1 -rw(x)-> T2 -wr(x)-> T1 (T1 reads x twice, the second time T2's).
    UnrepeatableRead,
    /// Zellag & Kemme 7.1, Fig. 8a: T1 -rw(x)-> T2 -rw(y)-> T3 -wr(y)-> T1.
    TReadSkew,
    /// Zellag & Kemme 7.1, Fig. 8b: T1 -rw-> T2 -rw-> T3 -wr-> T1 on one key, which also makes
    /// the lost update T2 -rw-> T3 -ww-> T2.
    VLostUpdate,
    /// Zellag & Kemme 7.1: T1 -rw-> T2 -ww-> T3 -wr-> T1 on one key.
    TUnrepeatableRead,
    /// LDBC ACID 3.6: T2 reads T1's x, then y before T1's y (also a fractured read, and a read
    /// skew cycle).
    ObservedVanishes,
}

impl Injection {
    pub const ALL: [Injection; 12] = [
        Injection::LostUpdate,
        Injection::WriteSkew,
        Injection::LongFork,
        Injection::AbortedRead,
        Injection::IntermediateRead,
        Injection::WriteCycle,
        Injection::ReadSkew,
        Injection::UnrepeatableRead,
        Injection::TReadSkew,
        Injection::VLostUpdate,
        Injection::TUnrepeatableRead,
        Injection::ObservedVanishes,
    ];

    /// The anomaly grail reports for it (Adya's name) and its plain-language name.
    pub fn expected(self) -> (&'static str, &'static str) {
        match self {
            Injection::LostUpdate => ("G-single", "lost update"),
            Injection::WriteSkew => ("G2-item", "write skew"),
            Injection::LongFork => ("G-nonadjacent", "long fork"),
            Injection::AbortedRead => ("G1a", "aborted read"),
            Injection::IntermediateRead => ("G1b", "intermediate read"),
            Injection::WriteCycle => ("G0", "write cycle"),
            // The names grail's minimal witnesses get (`level::plain_name`).
            Injection::VLostUpdate => ("G-single", "lost update"),
            Injection::ReadSkew | Injection::ObservedVanishes => ("G-single", "read skew"),
            Injection::UnrepeatableRead | Injection::TUnrepeatableRead => ("G-single", "non-repeatable read"),
            Injection::TReadSkew => ("G2-item", "write skew"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Injection::ReadSkew => "read skew",
            Injection::UnrepeatableRead => "unrepeatable read",
            Injection::TReadSkew => "t-read skew",
            Injection::VLostUpdate => "v-lost update",
            Injection::TUnrepeatableRead => "t-unrepeatable read",
            Injection::ObservedVanishes => "observed transaction vanishes",
            _ => self.expected().1,
        }
    }

    /// Other anomaly kinds grail reports for it: a transaction that reads one key twice and sees
    /// it change disagrees with its own earlier read (`internal`).
    pub fn also_reported(self) -> &'static [&'static str] {
        match self {
            Injection::UnrepeatableRead | Injection::TUnrepeatableRead => &["internal"],
            _ => &[],
        }
    }

    /// What the analysis counts for one instance (`docs/analysis.md`): Zellag classes of the
    /// cycles it makes, and LDBC read classes (IMP, OTV, FR).
    pub fn analysis(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Injection::LostUpdate => (&["lost update"], &[]),
            Injection::WriteSkew => (&["write skew"], &[]),
            Injection::LongFork | Injection::WriteCycle => (&["other"], &[]),
            Injection::AbortedRead | Injection::IntermediateRead => (&[], &[]),
            Injection::ReadSkew => (&["read skew"], &["FR"]),
            Injection::UnrepeatableRead => (&["unrepeatable read"], &["IMP", "FR"]),
            Injection::TReadSkew => (&["t-read skew"], &[]),
            Injection::VLostUpdate => (&["v-lost update", "lost update"], &[]),
            Injection::TUnrepeatableRead => (&["t-unrepeatable read"], &["IMP", "FR"]),
            Injection::ObservedVanishes => (&["read skew"], &["OTV", "FR"]),
        }
    }

    pub fn parse(s: &str) -> Option<Injection> {
        Injection::ALL.into_iter().find(|i| i.name().replace(' ', "-") == s || i.name() == s)
    }
}

/// Output form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Output {
    Edn,
    Native,
    /// PolySI/Plume text, `r(key,value,session,txn)` a line: always a register history (the
    /// model option is ignored); session 0 is an ordinary session; reads of the initial value
    /// read 0; an aborted transaction's writes have `txn = -1` and its reads are left out.
    Polysi,
    /// TimeKiller's JSON (`docs/timestamps.md`): committed transactions only, each with `sts`
    /// and `cts` from the simulated clock; key-value (`w`, `r`) or list (`a`, `r`).
    Timekiller,
    /// Cobra's binary client logs, one per session ([`Generated::logs`]): registers; committed
    /// transactions only (a Cobra client logs no aborted one).
    Cobra,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GenOptions {
    pub transactions: usize,
    pub sessions: usize,
    /// Keys in use at a time (a list key retires after `max_writes_per_key` appends, as in
    /// Jepsen, and a fresh one takes its place).
    pub keys: usize,
    pub min_ops: usize,
    pub max_ops: usize,
    /// Fraction of micro-operations that are reads.
    pub read_ratio: f64,
    pub distribution: KeyDistribution,
    /// Fraction of transactions the client aborts on its own.
    pub abort_rate: f64,
    pub max_writes_per_key: usize,
    pub model: DataModel,
    pub shape: Shape,
    pub isolation: Isolation,
    /// Anomalies to splice in, with how many of each.
    pub inject: Vec<(Injection, usize)>,
    pub seed: u64,
    pub output: Output,
    /// PolySI text: first a transaction (session 0, id 0) that writes 0 to every key the
    /// history uses, as some tools write one; it changes no verdict.
    pub explicit_init: bool,
    /// Write each committed transaction's start and commit timestamps from the simulated clock
    /// (EDN `:start-ts`/`:commit-ts`, native `start_ts`/`commit_ts`; TimeKiller's JSON always
    /// has them). A snapshot at `s` holds the commits at or before `s`.
    pub timestamps: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            transactions: 1000,
            sessions: 10,
            keys: 20,
            min_ops: 1,
            max_ops: 6,
            read_ratio: 0.5,
            distribution: KeyDistribution::Uniform,
            abort_rate: 0.05,
            max_writes_per_key: 32,
            model: DataModel::ListAppend,
            shape: Shape::General,
            isolation: Isolation::Serializable,
            inject: Vec::new(),
            seed: 1,
            output: Output::Edn,
            explicit_init: false,
            timestamps: false,
        }
    }
}

/// What the generator wrote: the history, and the write-ahead log of a register history.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub history: String,
    /// ArangoDB-style WAL (JSON lines) giving the version order, for register histories.
    pub wal: Option<String>,
    pub committed: usize,
    pub aborted: usize,
    /// With [`Output::Cobra`]: one binary log per session, in session order (`history` is empty).
    pub logs: Vec<Vec<u8>>,
}

impl GenOptions {
    /// Whether the history comes with a write-ahead log: a register history in EDN (the other
    /// outputs carry their version order themselves, or have none).
    pub fn has_wal(&self) -> bool {
        self.model == DataModel::RwRegister && self.output == Output::Edn
    }

    /// The six benchmarks of PolySI's Table 3 by name (`general-rh`, `general-rw`,
    /// `general-wh`, `tpcc`, `rubis`, `twitter`): PolySI 5.1's parameters (25 sessions, 8
    /// operations a transaction, 10k keys), register histories, no client aborts. The general
    /// mixes draw keys uniformly: PolySI 5.1 names zipfian its default, but its Table 3 counts
    /// (167k constraints for GeneralWH's 56k writes over 10k keys) are those of a uniform draw,
    /// where zipfian(1) would give one key a tenth of the writes and 16M constraints. The
    /// applications' rows are zipfian.
    pub fn preset(name: &str) -> Option<GenOptions> {
        let base = GenOptions {
            transactions: 10_000,
            sessions: 25,
            keys: 10_000,
            min_ops: 8,
            max_ops: 8,
            distribution: KeyDistribution::Zipfian(1.0),
            abort_rate: 0.0,
            model: DataModel::RwRegister,
            ..Default::default()
        };
        let (shape, read_ratio, distribution) = match name {
            "general-rh" => (Shape::General, 0.95, KeyDistribution::Uniform),
            "general-rw" => (Shape::General, 0.5, KeyDistribution::Uniform),
            "general-wh" => (Shape::General, 0.3, KeyDistribution::Uniform),
            "tpcc" => (Shape::Tpcc, 0.5, base.distribution),
            "rubis" => (Shape::Rubis, 0.5, base.distribution),
            "twitter" => (Shape::Twitter, 0.5, base.distribution),
            _ => return None,
        };
        Some(GenOptions { shape, read_ratio, distribution, ..base })
    }

    pub const PRESETS: [&'static str; 6] = ["tpcc", "general-rh", "rubis", "twitter", "general-rw", "general-wh"];
}
