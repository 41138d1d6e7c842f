//! `grail`: check a transaction history for isolation anomalies.
//!
//! Exit codes: 0 all requested levels hold (or, for `stats`, no anomaly), 1 a level is violated
//! (or an anomaly was found; or a verdict is unknown), 2 bad input or usage.

mod bytes;
mod elle;
mod pipe;

use bytes::{slurp, Bytes};
use clap::{Parser, Subcommand};
use grail_core::{render::text, CheckOptions, Format, History, Level};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "grail",
    version,
    about = "Check transaction histories for isolation anomalies (SER, SI, PSI, PL-2, PL-1)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args)]
struct Input {
    /// History file: Jepsen EDN, elle-cli JSON, grail's native JSON, PolySI/Plume text, dbcop JSON
    /// or bincode, or a Cobra log; a directory holding dbcop's `history.bincode`, or of Cobra logs
    /// (`*.log`, one per session); `.gz` accepted; `-` for stdin.
    history: PathBuf,
    /// Write-ahead log giving the version order of a register history (ArangoDB JSON lines).
    #[arg(long)]
    wal: Option<PathBuf>,
    /// Input format.
    #[arg(long, default_value = "auto", value_parser = ["auto", "edn", "json", "plume", "polysi", "dbcop", "dbcop-bin", "cobra", "timekiller"])]
    format: String,
    /// TimeKiller histories: the keys' initial value (TimeKiller's --initial_value); a read of
    /// it reads the initial version. Reads of null always do.
    #[arg(long)]
    initial_value: Option<i64>,
    /// Print phase timings to standard error (shown anyway for large inputs on a terminal).
    #[arg(short, long)]
    verbose: bool,
    /// Record where each operation is in the input (byte range, line, column): set by the
    /// commands that print JSON, where operations carry their `span` (as from Python and JS);
    /// 24 bytes per operation and per transaction, so the text output goes without.
    #[arg(skip)]
    spans: bool,
}

impl Input {
    /// Report a phase on standard error: always with `-v`, and for inputs over 20 MB when
    /// standard error is a terminal, so that long work shows progress.
    fn progress(&self, size: usize, msg: std::fmt::Arguments) {
        use std::io::IsTerminal;
        if self.verbose || (size > 20_000_000 && std::io::stderr().is_terminal()) {
            eprintln!("grail: {msg}");
        }
    }
}

#[derive(clap::Args)]
struct GenArgs {
    /// Number of transactions.
    #[arg(long, default_value_t = 1000)]
    txns: usize,
    #[arg(long, default_value_t = 10)]
    sessions: usize,
    /// Keys in use at a time.
    #[arg(long, default_value_t = 20)]
    keys: usize,
    #[arg(long, default_value_t = 1)]
    min_ops: usize,
    #[arg(long, default_value_t = 6)]
    max_ops: usize,
    /// Fraction of micro-operations that are reads.
    #[arg(long, default_value_t = 0.5)]
    read_ratio: f64,
    /// uniform (the default), zipfian[:S] or hotspot[:P].
    #[arg(long)]
    distribution: Option<String>,
    #[arg(long, default_value_t = 0.05)]
    abort_rate: f64,
    #[arg(long, default_value_t = 32)]
    max_writes_per_key: usize,
    /// list-append or rw-register.
    #[arg(long, default_value = "list-append", value_parser = ["list-append", "rw-register"])]
    model: String,
    #[arg(long, default_value = "serializable", value_parser = ["serializable", "snapshot-isolation", "parallel-snapshot-isolation", "causal", "read-committed"])]
    isolation: String,
    /// Anomalies to inject, as NAME or NAME:COUNT, comma-separated: lost-update, write-skew,
    /// long-fork, aborted-read, intermediate-read, write-cycle, read-skew, unrepeatable-read,
    /// t-read-skew, v-lost-update, t-unrepeatable-read, observed-transaction-vanishes.
    #[arg(long, default_value = "")]
    inject: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What transactions do: general (random reads and blind writes), tpcc, rubis or twitter.
    #[arg(long, default_value = "general", value_parser = ["general", "tpcc", "rubis", "twitter"])]
    shape: String,
    /// One of PolySI's six benchmarks (Table 3) with its parameters: general-rh, general-rw,
    /// general-wh, tpcc, rubis or twitter. Sets sessions, keys, operations, read ratio,
    /// distribution, abort rate, model and shape; --txns, --isolation, --inject, --seed,
    /// --output and a given --distribution still apply.
    #[arg(long)]
    preset: Option<String>,
    /// edn (Jepsen), native (grail's JSON), polysi (PolySI/Plume text; always rw-register),
    /// timekiller (TimeKiller's JSON, with timestamps; committed transactions only) or cobra
    /// (Cobra's binary client logs, one `<session>.log` a session, into the folder --out).
    #[arg(long, default_value = "edn", value_parser = ["edn", "native", "polysi", "timekiller", "cobra"])]
    output: String,
    /// Write each committed transaction's start and commit timestamps from the simulated clock
    /// (EDN :start-ts/:commit-ts, native start_ts/commit_ts).
    #[arg(long)]
    timestamps: bool,
    /// With --output polysi: first a transaction (session 0) writing 0 to every key.
    #[arg(long)]
    explicit_init: bool,
    /// Write the history here instead of standard output.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Write the write-ahead log (register histories) here.
    #[arg(long)]
    wal_out: Option<PathBuf>,
}

impl GenArgs {
    fn options(&self) -> Result<grail_core::generate::GenOptions, String> {
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
        let given = self.distribution.as_deref().unwrap_or("uniform");
        let (dist, arg) = given.split_once(':').unwrap_or((given, ""));
        let num = |default: f64| match arg {
            "" => Ok(default),
            _ => arg.parse::<f64>().map_err(|_| format!("expected a number in {given:?}")),
        };
        let distribution = match dist {
            "uniform" => KeyDistribution::Uniform,
            "zipfian" => KeyDistribution::Zipfian(num(1.0)?),
            "hotspot" => KeyDistribution::Hotspot(num(0.8)?),
            _ => return Err(format!("unknown distribution {given:?}: expected uniform, zipfian[:S] or hotspot[:P]")),
        };
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

#[derive(Subcommand)]
enum Cmd {
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
        /// Register histories, SER and SI: polygraph (exact, PolySI; the default when there is
        /// no version order), sure-edges (only edges sure without a version order), or auto.
        #[arg(long, default_value = "auto", value_parser = ["auto", "polygraph", "sure-edges"])]
        register_mode: String,
        /// Also classify and count cycles (Zellag & Kemme, LDBC, Adya classes; lengths; label
        /// patterns; transactions on 0, 1, 2+ cycles) and find IMP/OTV/FR (docs/analysis.md).
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
    /// Stream a list-append history through the online checker, in completion order, printing
    /// each cycle when the transaction that closes it arrives (docs/analysis.md).
    Online {
        #[command(flatten)]
        input: Input,
        /// Committed transactions kept in memory (Zellag & Kemme, Theorem 6.1).
        #[arg(long, default_value_t = 100_000)]
        window: usize,
        /// Report cycles of at most this many transactions.
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
        /// With timestamps: SI (snapshot reads, no conflicts, sessions) or SER (commit order).
        #[arg(long, default_value = "SI", value_parser = ["SI", "SER"])]
        level: String,
    },
    /// Print graph statistics and the anomalies found while building the graph.
    Stats {
        #[command(flatten)]
        input: Input,
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
        #[arg(long, default_value = "auto", value_parser = ["auto", "edn", "json"])]
        input_format: String,
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
}

/// How often a long check says it is still at work.
const STILL_CHECKING: Duration = Duration::from_secs(15);

fn main() -> ExitCode {
    pipe::quiet_on_closed_stdout();
    // Installed (or linked) under the name elle-cli, grail is elle-cli.
    let argv0 = std::env::args().next().unwrap_or_default();
    if Path::new(&argv0).file_stem().is_some_and(|s| s == "elle-cli") {
        let args: Vec<String> = std::env::args().skip(1).collect();
        return ExitCode::from(elle::run("elle-cli", &args));
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(msg) => {
            eprintln!("grail: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Read a file (or stdin), unzipping gzip.
fn load(input: &Input) -> Result<(History, usize), String> {
    let t0 = Instant::now();
    // dbcop writes `history.bincode` into a folder of its own; PolySI and AWDIT name the folder.
    let bincode = input.history.join("history.bincode");
    let path = if input.history.is_dir() && bincode.is_file() { &bincode } else { &input.history };
    if path.is_dir() {
        return load_cobra_dir(input);
    }
    let text = slurp(path)?;
    input.progress(text.len(), format_args!("reading {} MB of history...", text.len() / 1_000_000));
    let mut format = Format::parse(&input.format).map_err(|e| e.to_string())?;
    if format == Format::Auto {
        format = grail_core::read::detect(&text);
    }
    let name = path.display();
    // A mapped file stays at hand: operations' spans are found there when a report shows them
    // (0.15 s and 80 MB less at 1M transactions than recording all). A buffer (gzip, standard
    // input) is dropped after the read instead, so every span is recorded.
    let locate = input.spans && text.is_mapped();
    let opts = grail_core::ReadOptions { spans: input.spans, locate_op_spans: locate };
    let mut h = match (format, input.initial_value) {
        (Format::TimeKiller, initial_value) => grail_core::read::read_timekiller_with(
            &text,
            grail_core::read::TimeKillerOptions { initial_value, spans: input.spans },
        ),
        (_, Some(_)) => return Err("--initial-value applies to TimeKiller histories (--format timekiller)".into()),
        _ => {
            // Pages let go in steps of 64 MB: one call per 1 MB chunk cost the replay's thread.
            let mut released = 0;
            let mut release = |n: usize| {
                if n >= released + (64 << 20) {
                    text.release(released, n);
                    released = n;
                }
            };
            grail_core::read_releasing(&text, format, opts, &mut release)
        }
    }
    .map_err(|e| format!("{name}: {e}"))?;
    if let Some(wal) = &input.wal {
        let log = slurp(wal)?;
        grail_core::read_wal(&mut h, &log).map_err(|e| format!("{}: {e}", wal.display()))?;
    }
    input.progress(
        text.len(),
        format_args!("read {} transactions in {:.3} s", h.txns.len(), t0.elapsed().as_secs_f64()),
    );
    let size = text.len();
    if locate {
        grail_core::read::attach_input(&mut h, std::sync::Arc::new(text));
    }
    Ok((h, size))
}

/// A directory of Cobra client logs: every `*.log` file, in name order, one session each.
fn load_cobra_dir(input: &Input) -> Result<(History, usize), String> {
    let dir = &input.history;
    if !matches!(input.format.as_str(), "auto" | "cobra") {
        return Err(format!(
            "{}: a directory without history.bincode is read as Cobra logs; --format {} reads a file",
            dir.display(),
            input.format
        ));
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "log"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("{}: expected Cobra logs (*.log) in this directory, found none", dir.display()));
    }
    let files: Vec<Bytes> = paths.iter().map(|p| slurp(p)).collect::<Result<_, _>>()?;
    let refs: Vec<&[u8]> = files.iter().map(|f| &f[..]).collect();
    let h = grail_core::read::read_cobra(&refs).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok((h, files.iter().map(|f| f.len()).sum()))
}

fn run(cli: Cli) -> Result<u8, String> {
    match cli.cmd {
        Cmd::Check {
            mut input,
            levels,
            json,
            dot,
            html,
            max_steps,
            timeout,
            max_cycles,
            strategy,
            max_depth,
            analyze,
            max_length,
            max_counted,
            register_mode,
            white_box,
        } => {
            input.spans = json;
            let register_mode = grail_core::report::RegisterMode::parse(&register_mode).map_err(|e| e.to_string())?;
            let white_box = grail_core::timestamps::WhiteBoxMode::parse(&white_box).map_err(|e| e.to_string())?;
            let levels = Level::parse_list(&levels).map_err(|e| e.to_string())?;
            let strategy = grail_core::strategy::Strategy::parse(&strategy, max_depth).map_err(|e| e.to_string())?;
            if strategy != grail_core::strategy::Strategy::Scc {
                // GRAIL's checkers have no budget and give no counterexample files.
                let unsupported = [
                    ("--dot", dot.is_some()),
                    ("--html", html.is_some()),
                    ("--max-steps", max_steps.is_some()),
                    ("--timeout", timeout.is_some()),
                ];
                if let Some(l) = levels.iter().find(|l| !Level::CLASSIC.contains(l)) {
                    return Err(format!(
                        "--strategy {} decides the classic levels (SER, SI, PSI, PL-2, PL-1) only, not {}",
                        strategy.name(),
                        l.name()
                    ));
                }
                if let Some((flag, _)) = unsupported.iter().find(|(_, given)| *given) {
                    return Err(format!(
                        "{flag} works with the default strategy (scc) only, not with --strategy {}",
                        strategy.name()
                    ));
                }
                return check_with_strategy(&input, &levels, strategy, json);
            }
            let (h, size) = load(&input)?;
            let analyze = analyze.then(|| grail_core::AnalyzeOptions {
                max_length,
                max_cycles: max_counted,
                ..Default::default()
            });
            let opts = CheckOptions {
                levels,
                max_steps,
                max_cycles,
                analyze,
                register_mode,
                white_box,
                ..CheckOptions::default()
            };
            let mut t1 = Instant::now();
            let report = if !opts.needs_graph() {
                grail_core::check(&h, &opts)
            } else {
                let t0 = Instant::now();
                let inf = grail_core::infer_for(&h, &opts);
                input.progress(
                    size,
                    format_args!("built the graph in {:.3} s; checking...", t0.elapsed().as_secs_f64()),
                );
                t1 = Instant::now(); // "checked in" counts the check alone
                let deadline = timeout.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
                // A long search (the polygraph's can run for minutes) says it is still at work.
                let tell = input.verbose || std::io::IsTerminal::is_terminal(&std::io::stderr());
                let mut next_word = t1 + STILL_CHECKING;
                let mut past_deadline = move || {
                    let now = Instant::now();
                    if tell && now >= next_word {
                        next_word = now + STILL_CHECKING;
                        eprintln!(
                            "grail: still checking after {:.0} s{}",
                            (now - t1).as_secs_f64(),
                            if deadline.is_some() { "" } else { " (--timeout bounds the search)" }
                        );
                    }
                    deadline.is_some_and(|d| now >= d)
                };
                grail_core::check_inferred(&h, &inf, &opts, Some(&mut past_deadline))
            };
            input.progress(size, format_args!("checked in {:.3} s", t1.elapsed().as_secs_f64()));
            if let Some(dir) = dot {
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                for (l, lr) in &report.levels.0 {
                    for (i, c) in lr.cycles.iter().enumerate() {
                        let path = dir.join(format!("{}-{}.dot", l.name(), i));
                        std::fs::write(&path, grail_core::render::dot::cycle_dot(c))
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                    }
                }
            }
            if let Some(path) = html {
                write_html(&input, &h, &report, &path)?;
            }
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{}", text::render_capped(&report, text::TERMINAL_PER_KIND));
                if let Some(a) = &report.analysis {
                    print!("\n{}", grail_core::analysis::render(a));
                }
            }
            let code = if report.valid == Some(true) { 0 } else { 1 };
            // The process ends next, and the kernel takes its memory back whole: freeing a
            // million transactions' allocations one by one first cost 35-40 ms at 1M.
            std::mem::forget((report, h));
            Ok(code)
        }
        Cmd::Elle { args } => Ok(elle::run("grail elle", &args)),
        Cmd::Online { input, window, max_length, json, quiet, timestamps, level } => {
            let (h, _) = load(&input)?;
            let committed = h.txns.iter().filter(|t| t.status == grail_core::Status::Committed);
            let all_timed = h.count(grail_core::Status::Committed) > 0
                && committed.clone().all(|t| t.start_ts().is_some() && t.commit_ts().is_some());
            if timestamps || all_timed {
                online_timestamps(&input, &h, window, &level, json, quiet)
            } else {
                online(&input, &h, window, max_length, json, quiet)
            }
        }
        Cmd::Stats { mut input, json } => {
            input.spans = json;
            let (h, _) = load(&input)?;
            let inf = grail_core::infer(&h);
            let report = grail_core::api::stats_view(&h, &inf);
            if json {
                println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
            } else {
                let s = &report.stats;
                println!("model          {}", report.model.name());
                for (name, v) in [
                    ("transactions", s.transactions),
                    ("committed", s.committed),
                    ("aborted", s.aborted),
                    ("indeterminate", s.indeterminate),
                    ("vertices", s.vertices),
                    ("edges", s.edges),
                    ("ww", s.ww),
                    ("wr", s.wr),
                    ("rw", s.rw),
                ] {
                    println!("{name:<14} {v}");
                }
                println!("{:<14} {:.4}", "density", s.density);
                for a in &report.anomalies {
                    println!("\n{}: {}", a.kind, a.explanation);
                }
                for n in &report.notes {
                    println!("\nnote: {n}");
                }
            }
            Ok(if report.anomalies.is_empty() { 0 } else { 1 })
        }
        Cmd::Generate(g) => {
            let gen = grail_core::generate::generate(&g.options()?);
            match &g.out {
                Some(dir) if g.output == "cobra" => {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                    for (i, log) in gen.logs.iter().enumerate() {
                        let p = dir.join(format!("{i:05}.log"));
                        std::fs::write(&p, log).map_err(|e| format!("{}: {e}", p.display()))?;
                    }
                }
                None if g.output == "cobra" => return Err("--output cobra writes a folder of logs: give --out".into()),
                Some(p) => std::fs::write(p, &gen.history).map_err(|e| format!("{}: {e}", p.display()))?,
                None => print!("{}", gen.history),
            }
            if let (Some(p), Some(wal)) = (&g.wal_out, &gen.wal) {
                std::fs::write(p, wal).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            eprintln!("grail: generated {} committed and {} aborted transactions", gen.committed, gen.aborted);
            Ok(0)
        }
        Cmd::Export { history, wal, input_format, verbose, format, out, max_depth } => {
            let f = grail_core::export::ExportFormat::parse(&format).map_err(|e| e.to_string())?;
            let (h, _) =
                load(&Input { history, wal, format: input_format, verbose, spans: false, initial_value: None })?;
            let inf = grail_core::infer(&h);
            let files = grail_core::export::export(&h, &inf.graph, f, max_depth.max(2));
            for (rel, text) in &files {
                let path = out.join(rel);
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                }
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            eprintln!(
                "grail: wrote {} files ({} vertices, {} edges) to {}",
                files.len(),
                inf.graph.vertex_count(),
                inf.graph.edges.len(),
                out.display()
            );
            Ok(0)
        }
        Cmd::Graph { mut input, json: _ } => {
            input.spans = true;
            let (h, _) = load(&input)?;
            let inf = grail_core::infer(&h);
            println!("{}", serde_json::to_string(&grail_core::api::graph_view(&h, &inf)).unwrap_or_default());
            Ok(0)
        }
    }
}

/// `grail check --html FILE`: the report as one self-contained page, with the nemesis operations
/// of the history's text on its timeline.
fn write_html(input: &Input, h: &History, report: &grail_core::Report, path: &Path) -> Result<(), String> {
    let raw = match input.history.is_file() && input.history != Path::new("-") {
        true => slurp(&input.history).unwrap_or(Bytes::Owned(Vec::new())),
        false => Bytes::Owned(Vec::new()),
    };
    let nemesis = grail_core::render::ops::nemesis(&raw);
    let title = input.history.file_name().map_or("history".to_string(), |f| f.to_string_lossy().into_owned());
    let opts = grail_core::render::html::HtmlOptions { title, ..Default::default() };
    let page = grail_core::render::html::report_html(report, h, &nemesis, &opts);
    std::fs::write(path, page).map_err(|e| format!("{}: {e}", path.display()))
}

/// `grail check --strategy dfs|shortest-path|gabow`: the verdict table of one of GRAIL's checkers,
/// with its work counters. Exit 0 only when every level holds for certain.
fn check_with_strategy(
    input: &Input,
    levels: &[Level],
    strategy: grail_core::strategy::Strategy,
    json: bool,
) -> Result<u8, String> {
    use grail_core::strategy::Verdict;
    let (h, size) = load(input)?;
    let inf = grail_core::infer(&h);
    let t0 = Instant::now();
    let r = grail_core::strategy::run(&h, &inf, strategy, levels);
    input.progress(size, format_args!("checked with {} in {:.3} s", r.strategy, t0.elapsed().as_secs_f64()));
    if json {
        println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
    } else {
        match r.max_depth {
            Some(d) => println!("strategy {} (max depth {d})", r.strategy),
            None => println!("strategy {}", r.strategy),
        }
        println!("{:<6} {:<13} {:>10} {:>14}  cycle", "level", "verdict", "traversals", "edges visited");
        for o in &r.levels {
            println!(
                "{:<6} {:<13} {:>10} {:>14}  {}",
                o.level.name(),
                o.verdict.as_str(),
                o.counters.traversals,
                o.counters.edges_visited,
                o.cycle.as_ref().map(|c| c.text()).unwrap_or_default()
            );
        }
        for n in &r.notes {
            println!("\nnote: {n}");
        }
    }
    Ok(if r.levels.iter().all(|o| o.verdict == Verdict::Holds) { 0 } else { 1 })
}

/// `grail online`: stream the history's transactions, in completion order, through the checker.
fn online(input: &Input, h: &History, window: usize, max_length: usize, json: bool, quiet: bool) -> Result<u8, String> {
    use grail_core::analysis::online::{OnlineChecker, OnlineOptions, OnlineTxn};
    use std::io::Write;
    if h.model == grail_core::history::Model::RwRegister {
        return Err("online checking takes list-append histories (append and r), not register writes".into());
    }
    let mut checker = OnlineChecker::new(OnlineOptions { window, max_length, ..Default::default() });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t0 = Instant::now();
    for t in 0..h.txns.len() as u32 {
        for a in checker.push(&OnlineTxn::from_history(h, t)) {
            if quiet {
                continue;
            }
            let line = if json {
                serde_json::to_string(&a).unwrap_or_default()
            } else {
                grail_core::analysis::online::render_anomaly(&a)
            };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let summary = checker.summary();
    if json {
        writeln!(out, "{}", serde_json::to_string(&summary).unwrap_or_default()).map_err(|e| e.to_string())?;
    } else {
        write!(out, "{}", grail_core::analysis::online::render_summary(&summary)).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    input.progress(
        0,
        format_args!(
            "online: {} transactions in {secs:.3} s ({:.0} transactions/s); window {window}; peak resident memory {peak}",
            h.txns.len(),
            h.txns.len() as f64 / secs.max(1e-9)
        ),
    );
    Ok(if summary.stats.cycles == 0 { 0 } else { 1 })
}

/// `grail online` with timestamps: committed transactions through the windowed checker (Aion),
/// in input order; each violation printed when it is final.
fn online_timestamps(
    input: &Input,
    h: &History,
    window: usize,
    level: &str,
    json: bool,
    quiet: bool,
) -> Result<u8, String> {
    use grail_core::timestamps::online::{
        render_stats, render_violation, TsLevel, TsOnlineChecker, TsOnlineOptions, TsTxn,
    };
    use std::io::Write;
    let level = if level == "SER" { TsLevel::Ser } else { TsLevel::Si };
    let mut checker = TsOnlineChecker::new(TsOnlineOptions { window, level, ..Default::default() });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t0 = Instant::now();
    let mut untimed = 0usize;
    let print = |out: &mut std::io::BufWriter<std::io::StdoutLock>,
                 vs: Vec<grail_core::timestamps::online::TsViolation>| {
        for v in vs {
            if quiet {
                continue;
            }
            let line = if json { serde_json::to_string(&v).unwrap_or_default() } else { render_violation(&v) };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    };
    for t in 0..h.txns.len() as u32 {
        match TsTxn::from_history(h, t) {
            Some(txn) => {
                let vs = checker.push(&txn);
                print(&mut out, vs)?;
            }
            None if h.txns[t as usize].status == grail_core::Status::Committed => untimed += 1,
            None => {}
        }
    }
    let vs = checker.finish();
    print(&mut out, vs)?;
    let secs = t0.elapsed().as_secs_f64();
    let stats = checker.stats();
    if json {
        writeln!(out, "{}", serde_json::json!({"stats": stats, "untimed": untimed})).map_err(|e| e.to_string())?;
    } else {
        write!(out, "{}", render_stats(&stats)).map_err(|e| e.to_string())?;
        if untimed > 0 {
            writeln!(out, "note: {untimed} committed transactions carry no start and commit timestamps: not checked")
                .map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    input.progress(
        0,
        format_args!("online (timestamps): {} transactions in {secs:.3} s; window {window}", h.txns.len()),
    );
    Ok(if stats.violations == 0 { 0 } else { 1 })
}
