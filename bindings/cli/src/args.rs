//! The command line: subcommands and their arguments (clap). Nothing here reads or checks.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "grail",
    version,
    about = "Check transaction histories for isolation anomalies (SER, SI, PSI, PL-2, PL-1)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(clap::Args, Clone)]
pub struct Input {
    /// History file: Jepsen EDN, elle-cli JSON, grail's native JSON, PolySI/Plume text, dbcop JSON
    /// or bincode, or a Cobra log; a directory holding dbcop's `history.bincode`, or of Cobra logs
    /// (`*.log`, one per session); `.gz` accepted; `-` for stdin.
    pub history: PathBuf,
    /// Write-ahead log giving the version order of a register history (ArangoDB JSON lines);
    /// `grail online` reads it as the database writes it when the stream is live (`-`,
    /// `--follow`), for the rounds (not with Aion's checker of timestamps).
    #[arg(long)]
    pub wal: Option<PathBuf>,
    /// Input format.
    #[arg(long, default_value = "auto", value_parser = ["auto", "edn", "json", "plume", "polysi", "dbcop", "dbcop-bin", "cobra", "timekiller"])]
    pub format: String,
    /// TimeKiller histories: the keys' initial value (TimeKiller's --initial_value); a read of
    /// it reads the initial version. Reads of null always do.
    #[arg(long)]
    pub initial_value: Option<i64>,
    /// Print phase timings to standard error (shown anyway for large inputs on a terminal).
    #[arg(short, long)]
    pub verbose: bool,
    /// Record where each operation is in the input (byte range, line, column): set by the
    /// commands that print JSON, where operations carry their `span` (as from Python and JS);
    /// 24 bytes per operation and per transaction, so the text output goes without.
    #[arg(skip)]
    pub spans: bool,
}

#[derive(clap::Args)]
pub struct GenArgs {
    /// Number of transactions.
    #[arg(long, default_value_t = 1000)]
    pub txns: usize,
    #[arg(long, default_value_t = 10)]
    pub sessions: usize,
    /// Keys in use at a time.
    #[arg(long, default_value_t = 20)]
    pub keys: usize,
    #[arg(long, default_value_t = 1)]
    pub min_ops: usize,
    #[arg(long, default_value_t = 6)]
    pub max_ops: usize,
    /// Fraction of micro-operations that are reads.
    #[arg(long, default_value_t = 0.5)]
    pub read_ratio: f64,
    /// uniform (the default), zipfian[:S] or hotspot[:P].
    #[arg(long)]
    pub distribution: Option<String>,
    #[arg(long, default_value_t = 0.05)]
    pub abort_rate: f64,
    #[arg(long, default_value_t = 32)]
    pub max_writes_per_key: usize,
    /// list-append or rw-register.
    #[arg(long, default_value = "list-append", value_parser = ["list-append", "rw-register"])]
    pub model: String,
    #[arg(long, default_value = "serializable", value_parser = ["serializable", "snapshot-isolation", "parallel-snapshot-isolation", "causal", "read-committed"])]
    pub isolation: String,
    /// Anomalies to inject, as NAME or NAME:COUNT, comma-separated: lost-update, write-skew,
    /// long-fork, aborted-read, intermediate-read, write-cycle, read-skew, unrepeatable-read,
    /// t-read-skew, v-lost-update, t-unrepeatable-read, observed-transaction-vanishes.
    #[arg(long, default_value = "")]
    pub inject: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What transactions do: general (random reads and blind writes), tpcc, rubis or twitter.
    #[arg(long, default_value = "general", value_parser = ["general", "tpcc", "rubis", "twitter"])]
    pub shape: String,
    /// One of PolySI's six benchmarks (Table 3) with its parameters: general-rh, general-rw,
    /// general-wh, tpcc, rubis or twitter. Sets sessions, keys, operations, read ratio,
    /// distribution, abort rate, model and shape; --txns, --isolation, --inject, --seed,
    /// --output and a given --distribution still apply.
    #[arg(long)]
    pub preset: Option<String>,
    /// edn (Jepsen), native (grail's JSON), polysi (PolySI/Plume text; always rw-register),
    /// timekiller (TimeKiller's JSON, with timestamps; committed transactions only) or cobra
    /// (Cobra's binary client logs, one `<session>.log` a session, into the folder --out).
    #[arg(long, default_value = "edn", value_parser = ["edn", "native", "polysi", "timekiller", "cobra"])]
    pub output: String,
    /// Write each committed transaction's start and commit timestamps from the simulated clock
    /// (EDN :start-ts/:commit-ts, native start_ts/commit_ts).
    #[arg(long)]
    pub timestamps: bool,
    /// With --output polysi: first a transaction (session 0) writing 0 to every key.
    #[arg(long)]
    pub explicit_init: bool,
    /// Write the history here instead of standard output.
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Write the write-ahead log (register histories) here.
    #[arg(long)]
    pub wal_out: Option<PathBuf>,
}

impl GenArgs {
    pub fn options(&self) -> Result<grail_core::generate::GenOptions, String> {
        use grail_core::generate::{GenOptions, Injection, KeyDistribution};
        fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
            serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|e| e.to_string())
        }
        let mut inject = Vec::new();
        for part in self.inject.split(',').filter(|p| !p.is_empty()) {
            let (name, count) = part.split_once(':').unwrap_or((part, "1"));
            let inj = Injection::parse(name).ok_or_else(|| format!("unknown anomaly to inject {name:?}"))?;
            inject.push((inj, count.parse().map_err(|_| format!("expected a count after {name}:"))?));
        }
        let distribution =
            KeyDistribution::parse(self.distribution.as_deref().unwrap_or("uniform")).map_err(|e| e.message)?;
        if let Some(name) = &self.preset {
            let p = GenOptions::preset(name).ok_or_else(|| {
                format!("unknown preset {name:?}: expected one of {}", GenOptions::PRESETS.join(", "))
            })?;
            return Ok(GenOptions {
                transactions: self.txns,
                isolation: parse(&self.isolation)?,
                inject,
                seed: self.seed,
                output: parse(&self.output)?,
                explicit_init: self.explicit_init,
                distribution: if self.distribution.is_some() { distribution } else { p.distribution },
                ..p
            });
        }
        Ok(GenOptions {
            transactions: self.txns,
            sessions: self.sessions,
            keys: self.keys,
            min_ops: self.min_ops,
            max_ops: self.max_ops,
            read_ratio: self.read_ratio,
            distribution,
            abort_rate: self.abort_rate,
            max_writes_per_key: self.max_writes_per_key,
            model: parse(&self.model)?,
            shape: parse(&self.shape)?,
            isolation: parse(&self.isolation)?,
            inject,
            seed: self.seed,
            output: parse(&self.output)?,
            explicit_init: self.explicit_init,
            timestamps: self.timestamps,
        })
    }
}

/// `grail record`'s arguments: a workload's options left unset take the --shape's, then the
/// defaults of `grail generate`.
#[derive(clap::Args)]
pub struct RecordArgs {
    /// The database: postgresql://USER@HOST:PORT/DB, mysql://USER@HOST:PORT/DB (MySQL or
    /// MariaDB), or sqlite:PATH. The table --table is dropped and created anew there.
    #[arg(long)]
    pub db: String,
    /// Write the history here.
    #[arg(short, long)]
    pub out: PathBuf,
    /// edn (Jepsen: each transaction's invocation and completion, with :time) or json (grail's
    /// native JSON, with start and end times); by --out's extension (.edn, .json) when not given.
    #[arg(long, value_parser = ["edn", "json"])]
    pub format: Option<String>,
    /// The isolation level, by the database's name (read committed, repeatable read,
    /// serializable, read uncommitted; rc, rr, ser); the database's default when not given.
    #[arg(long)]
    pub isolation: Option<String>,
    /// list-append (a text list per row, appended to) or rw-register (an integer per row).
    #[arg(long, default_value = "list-append", value_parser = ["list-append", "rw-register"])]
    pub workload: String,
    /// A workload's sizes from PolySI: polysi (its default, which its Fig. 6 varies: 20
    /// sessions, 2000 transactions, 15 operations, 50% reads, 10k keys, uniform), general-rh,
    /// general-rw or general-wh (its Table 3 mixes: 25 sessions, 10k transactions, 8 operations,
    /// 10k keys, uniform). Options given alongside override it.
    #[arg(long)]
    pub shape: Option<String>,
    /// Sessions, each a connection of its own running one transaction at a time [default: 10].
    #[arg(long)]
    pub sessions: Option<usize>,
    /// Transactions to run in all, retries included [default: 1000, or unlimited with --duration].
    #[arg(long)]
    pub txns: Option<usize>,
    /// Stop starting transactions after this many seconds.
    #[arg(long)]
    pub duration: Option<f64>,
    /// Operations a transaction: N, or MIN-MAX drawn uniformly [default: 1-6].
    #[arg(long)]
    pub ops: Option<String>,
    /// Keys in use at a time [default: 20].
    #[arg(long)]
    pub keys: Option<usize>,
    /// Fraction of operations that are reads [default: 0.5].
    #[arg(long)]
    pub read_ratio: Option<f64>,
    /// uniform, zipfian[:S] or hotspot[:P] (P of the accesses to the first tenth of the keys)
    /// [default: uniform].
    #[arg(long)]
    pub distribution: Option<String>,
    /// list-append: appends a key takes before a fresh key takes its place.
    #[arg(long, default_value_t = 32)]
    pub max_writes_per_key: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A transaction the database refuses is retried (with fresh values) up to this many times
    /// before the session draws a new one; each attempt is a transaction of the history.
    #[arg(long, default_value_t = 10)]
    pub retries: u32,
    /// A statement waits at most this long for a lock, then fails and its transaction is
    /// aborted (PostgreSQL's lock_timeout; MySQL's innodb_lock_wait_timeout, in whole seconds;
    /// not SQLite). PostgreSQL finds deadlocks only after deadlock_timeout (1 s by default), so
    /// on a few hot keys a short lock timeout records far more transactions a second.
    #[arg(long, value_name = "MS")]
    pub lock_timeout: Option<u64>,
    /// The table to record on (letters, digits and _).
    #[arg(long, default_value = "grail_record")]
    pub table: String,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Check isolation levels; print the verdict table, or JSON.
    Check {
        #[command(flatten)]
        input: Input,
        /// Levels to check, comma-separated: SER, SI, PSI, PL-2, PL-1 (the default), strict-SER,
        /// strong-session-SER, strong-SI, strong-session-SI, CC, RA, RC, Elle's names
        /// (strict-serializable, PL-3, read-atomic, ...), `all` or `classic`.
        #[arg(long, default_value = "SER,SI,PSI,PL-2,PL-1")]
        levels: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Write each level's counterexample cycles as DOT files into this folder.
        #[arg(long)]
        dot: Option<PathBuf>,
        /// Write the report as one self-contained HTML page (verdicts, counterexamples drawn,
        /// sub-histories, statistics, a timeline with nemesis operations; no network).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Write a certificate of the levels that hold: executions `grail verify` checks from
        /// the history alone (docs/certificates.md).
        #[arg(long, value_name = "FILE")]
        certificate: Option<PathBuf>,
        /// Stop searching after this many steps (edge visits); undecided levels become unknown.
        #[arg(long)]
        max_steps: Option<u64>,
        /// Stop searching after this many seconds; undecided levels become unknown.
        #[arg(long)]
        timeout: Option<f64>,
        /// At most this many cycles per anomaly (one per strongly connected component).
        #[arg(long, default_value_t = grail_core::api::DEFAULT_MAX_CYCLES)]
        max_cycles: usize,
        /// Checker: scc (the default engine), dfs (GRAIL's depth-bounded Cycle checker),
        /// shortest-path (GRAIL's SP checker) or gabow (path-based SCC).
        #[arg(long, default_value = "scc", value_parser = ["scc", "dfs", "shortest-path", "gabow"])]
        strategy: String,
        /// For --strategy dfs: the longest cycle searched, in transactions (GRAIL: 4).
        #[arg(long)]
        max_depth: Option<usize>,
        /// How register histories are checked at the levels of dependency cycles (SER, SI, PSI,
        /// PL-2, ...): polygraph (exact, PolySI; the default when there is no version order),
        /// sure-edges (only edges sure without a version order: a level they do not decide is
        /// unknown), or auto.
        #[arg(long, default_value = "auto", value_parser = ["auto", "polygraph", "sure-edges"])]
        register_mode: String,
        /// Also classify and count cycles (Zellag & Kemme, LDBC, Adya classes; lengths; label
        /// patterns; transactions on 0, 1, 2+ cycles) and find IMP/PMP/OTV/FR (docs/analysis.md).
        #[arg(long)]
        analyze: bool,
        /// With --analyze: count cycles of at most this many transactions.
        #[arg(long, default_value_t = grail_core::AnalyzeOptions::default().max_length)]
        max_length: usize,
        /// With --analyze: stop counting after this many cycles (counts become lower bounds).
        #[arg(long, default_value_t = grail_core::AnalyzeOptions::default().max_cycles)]
        max_counted: usize,
        /// Start/commit timestamps and commit orders the history claims (docs/timestamps.md):
        /// auto (use them where present), ignore (black-box only), only (the claims alone, no
        /// dependency graph: SI and SER in linear time after sorting).
        #[arg(long, default_value = "auto", value_parser = ["auto", "ignore", "only"])]
        white_box: String,
    },
    /// Stream a history through the online checker, in completion order, printing each cycle
    /// when the transaction that closes it arrives (list-append; its cycles through session or
    /// real-time order at the end), or when the round of the offline engine that finds it runs
    /// (registers without a version order; docs/analysis.md).
    /// `-` reads standard input as it is written; SIGINT or SIGTERM ends a live stream with its
    /// summary.
    Online {
        #[command(flatten)]
        input: Input,
        /// The history file is still being written: check each line as it is appended, waiting
        /// for more at its end and reading it anew when it is replaced or truncated (as
        /// `tail -F`); runs until SIGINT or SIGTERM, then prints the summary.
        #[arg(long)]
        follow: bool,
        /// Committed transactions kept in memory (Zellag & Kemme, Theorem 6.1); for registers,
        /// the transactions each round checks.
        #[arg(long, default_value_t = 100_000)]
        window: usize,
        /// Search a list-append stream's cycles of at most this many transactions (from 2 to
        /// 255: a smaller or larger value is taken as the nearest) as each transaction arrives.
        /// The offline engine's cycles (a register stream's rounds, a
        /// list-append stream's session and real-time cycles at its end) are reported whatever
        /// their length.
        #[arg(long, default_value_t = 8)]
        max_length: usize,
        /// Print JSON lines: one per cycle, then the summary.
        #[arg(long)]
        json: bool,
        /// Print the summary only, not each cycle.
        #[arg(long)]
        quiet: bool,
        /// Check the transactions' start and commit timestamps as they arrive (Aion; register
        /// or list histories): the default when every transaction carries both.
        #[arg(long)]
        timestamps: bool,
        /// Check a history whose transactions carry timestamps with the cycle checker and, for
        /// registers, rounds of the engine over the window (every level, the claimed timestamps
        /// checked as grail check checks them), rather than with Aion's checker.
        #[arg(long, conflicts_with = "timestamps")]
        rounds: bool,
        /// With timestamps: SI (snapshot reads, no conflicts, sessions) or SER (commit order).
        #[arg(long, default_value = "SI", value_parser = ["SI", "SER"])]
        level: String,
    },
    /// Check a certificate written by `grail check --certificate` against the history, sharing
    /// nothing with the checker's graph, inference or engine: exit 0 when every witness holds,
    /// 1 with the first place one fails, 2 on bad input (docs/certificates.md).
    Verify {
        #[command(flatten)]
        input: Input,
        /// The certificate (JSON).
        certificate: PathBuf,
        /// Print the verification as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print graph statistics and the anomalies found while building the graph.
    Stats {
        #[command(flatten)]
        input: Input,
        /// Print the statistics and anomalies as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Generate a history from a simulated database (for tests, benchmarks and demos).
    Generate(GenArgs),
    /// Export the dependency graph for a graph database (with GRAIL's queries) or a drawing tool.
    Export {
        /// History file, as for `check`.
        history: PathBuf,
        /// Write-ahead log giving the version order of a register history.
        #[arg(long)]
        wal: Option<PathBuf>,
        /// Input format of the history (`--format` names the export format here).
        #[arg(long, default_value = "auto", value_parser = ["auto", "edn", "json", "plume", "polysi", "dbcop", "dbcop-bin", "cobra", "timekiller"])]
        input_format: String,
        /// Print phase timings to standard error (shown anyway for large inputs on a terminal).
        #[arg(short, long)]
        verbose: bool,
        /// arangodb (txn.json, dep.json, AQL), neo4j (CSV, Cypher), graphml or dot.
        #[arg(long, value_parser = ["arangodb", "neo4j", "graphml", "dot"])]
        format: String,
        /// Folder to write into (created if absent).
        #[arg(long)]
        out: PathBuf,
        /// Maximum depth of the exported Cycle queries.
        #[arg(long, default_value_t = grail_core::strategy::DEFAULT_MAX_DEPTH)]
        max_depth: usize,
    },
    /// elle-cli's command line (`grail elle -m list-append -c serializable FILE...`), answered with
    /// Elle's meaning of its model names and Elle's output (docs/elle.md); `grail elle -h` for the
    /// options. The binary `elle-cli` is the same.
    #[command(disable_help_flag = true)]
    Elle {
        /// elle-cli's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Print the dependency graph as JSON.
    Graph {
        #[command(flatten)]
        input: Input,
        /// Required: the graph is printed as JSON.
        #[arg(long, required = true)]
        json: bool,
    },
    /// Run Hermitage's tests on a live database, record each as a history, check it, and
    /// print Hermitage's table (docs/hermitage.md).
    Hermitage {
        /// The database: postgresql://USER@HOST:PORT/DB, mysql://USER@HOST:PORT/DB (MySQL or
        /// MariaDB), or sqlite:PATH (a file). Each test drops a table `hermitage` there (if present)
        /// and creates it anew.
        #[arg(long)]
        db: String,
        /// Isolation levels, by the database's names (read committed, repeatable read, ...),
        /// comma-separated; every level the database offers when not given.
        #[arg(long, value_delimiter = ',')]
        isolation: Vec<String>,
        /// Columns to test, comma-separated (G0, G1a, G1b, G1c, OTV, PMP, P4, G-single,
        /// G2-item, G2); all when not given.
        #[arg(long, value_delimiter = ',')]
        tests: Vec<String>,
        /// Print the table as JSON (cells with grail's explanations, and Hermitage's published row).
        #[arg(long)]
        json: bool,
        /// Write each test's history (native JSON, and EDN), transcript and report under DIR/LEVEL/.
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// A statement that has not returned after this many milliseconds is taken to block
        /// (a lock wait), and the script goes on with the next session's statement.
        #[arg(long, default_value_t = 300)]
        block_ms: u64,
    },
    /// Run a randomised workload on a live database, each session on its own connection, and
    /// write the history it recorded (docs/record.md).
    Record(RecordArgs),
}
