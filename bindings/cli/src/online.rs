//! `grail online`: the history's transactions streamed through core's online checkers, each
//! anomaly printed when the transaction that closes it arrives.

use crate::args::Input;
use crate::bytes::Bytes;
use crate::load::{self, Progress};
use crate::source::{self, Chunk, Next, Parsed, Source};
use grail_core::api::{OnlineKind, Session};
use grail_core::online::cycles::{OnlineAnomaly, OnlineChecker, OnlineOptions, OnlineTxn};
use grail_core::online::stream::{intake, Intake};
use grail_core::{Format, History};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `grail online`: stream the history's transactions, in completion order, through the checker.
pub fn online(progress: &Progress, h: &History, o: &Options) -> Result<u8, String> {
    let (window, json, quiet) = (o.window, o.json, o.quiet);
    let mut checker = checker(o)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t0 = Instant::now();
    // In the order a stream of the file's records would deliver them (an unfinished invocation
    // with its process's next one): core's `stream_order`.
    for t in grail_core::online::cycles::stream_order(h) {
        let found = checker.push(&OnlineTxn::from_history(h, t));
        if !quiet {
            print_found(&mut out, &mut checker, found, json)?;
        }
    }
    let found = checker.end();
    if !quiet {
        print_found(&mut out, &mut checker, found, json)?;
    }
    finish(progress, &mut out, &mut checker, t0, window, json)
}

/// `grail online`'s options.
#[derive(Clone)]
pub struct Options {
    pub window: usize,
    pub max_length: usize,
    pub json: bool,
    pub quiet: bool,
    pub timestamps: bool,
    /// `--rounds`: a timestamped history through the cycle checker (rounds for registers).
    pub rounds: bool,
    pub level: String,
    /// `--wal`: a register history's write-ahead log, its version order in every round.
    pub wal: Option<PathBuf>,
}

/// The cycle checker with the options (and the write-ahead log, read whole) given.
fn checker(o: &Options) -> Result<OnlineChecker, String> {
    let mut c = OnlineChecker::new(OnlineOptions { window: o.window, max_length: o.max_length, ..Default::default() });
    if let Some(path) = &o.wal {
        let wal = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        c.set_wal(&wal).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(c)
}

/// Aion's checker of claimed timestamps takes no version order: `--wal` goes with the rounds.
fn no_wal_with_timestamps(o: &Options) -> Result<(), String> {
    match &o.wal {
        Some(w) => Err(format!(
            "{}: a write-ahead log gives the rounds of a register stream its version order; this stream's timestamps go to Aion's checker, which takes none (--rounds sends them to the rounds)",
            w.display()
        )),
        None => Ok(()),
    }
}

/// `--wal` beside a live stream: the log file read as the database writes it, what was written
/// since the last look given to the checker before each batch of transactions and at each
/// pause, the rest at the stream's end. So a round reads the log as far as it had been written.
struct WalFollower {
    path: PathBuf,
    file: std::fs::File,
    at: u64,
}

/// The file a path names now (device and inode), to tell a replaced log.
#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

impl WalFollower {
    fn open(path: &Path) -> Result<WalFollower, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(WalFollower { path: path.to_path_buf(), file, at: 0 })
    }

    /// Give the checker what was written since the last look.
    fn poll(&mut self, c: &mut OnlineChecker) -> Result<(), String> {
        use std::io::{Read, Seek, SeekFrom};
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", self.path.display());
        let meta = self.file.metadata().map_err(|e| fail(&e))?;
        let now = std::fs::metadata(&self.path).ok();
        if now.as_ref().is_some_and(|n| file_id(n) != file_id(&meta)) {
            return Err(fail(&"the write-ahead log was replaced by another file; a log only grows"));
        }
        let len = meta.len();
        if len < self.at {
            return Err(fail(&"the write-ahead log shrank (truncated); a log only grows"));
        }
        if len == self.at {
            return Ok(());
        }
        let mut more = Vec::new();
        self.file.seek(SeekFrom::Start(self.at)).map_err(|e| fail(&e))?;
        (&mut self.file).take(len - self.at).read_to_end(&mut more).map_err(|e| fail(&e))?;
        self.at += more.len() as u64;
        c.push_wal(&more).map_err(|e| fail(&e))
    }

    /// The stream ended: the rest of the log, its last line even without a line break. A last
    /// line that does not read (the database still writing it) is left out, said on standard
    /// error: one record fewer leaves writes unordered, never ordered wrongly.
    fn end(&mut self, c: &mut OnlineChecker) -> Result<(), String> {
        self.poll(c)?;
        if let Err(e) = c.end_wal() {
            eprintln!(
                "grail: online: {}: the log's last line, without its line break, was not read: {e}",
                self.path.display()
            );
        }
        Ok(())
    }
}

/// How often a live stream says how it goes (on a terminal, or with `-v`).
const LIVE_PROGRESS: std::time::Duration = std::time::Duration::from_secs(5);

/// A history read whole, through the checker core chooses for it.
pub fn whole(session: &Session, progress: &Progress, o: &Options) -> Result<u8, String> {
    let h = session.history();
    match OnlineKind::choose(h, o.timestamps).map_err(|e| e.to_string())? {
        OnlineKind::Timestamps if !o.rounds => {
            no_wal_with_timestamps(o)?;
            online_timestamps(progress, h, o.window, &o.level, o.json, o.quiet)
        }
        _ => online(progress, h, o),
    }
}

/// `grail online -` (standard input) and `grail online --follow FILE`: the stream checked as
/// it arrives, a record a line (Jepsen EDN, JSON lines): core's `online::stream::Lines` reads the
/// records on one thread ([`Source::records`]) and the cycle checker takes them on this one; each
/// cycle is printed, and flushed, as soon as the chunk holding the line of the transaction that
/// closes it has been read, while the writer (a test still running) goes on. Core's [`intake`] reads the first
/// lines and may send standard input to be read whole instead (another format, gzip,
/// timestamps: what [`whole`] does for a file). SIGINT or SIGTERM ends the stream: the summary
/// then covers every line taken, and standard error says where the stream was stopped.
pub fn live(input: &Input, follow: bool, o: &Options) -> Result<u8, String> {
    let format = Format::parse(&input.format).map_err(|e| e.to_string())?;
    let progress = Progress::new(input);
    let name = if follow { input.history.display().to_string() } else { "-".to_string() };
    source::catch_stop();
    let source = if follow { Source::follow(&input.history) } else { Source::stdin() };
    // The first lines, until core can tell how the stream is taken in.
    let mut prefix = Vec::new();
    let (mut ended, mut stopped) = (false, false);
    let intake = loop {
        match source.next() {
            Next::Chunk(Chunk::Data(d)) => {
                prefix.extend_from_slice(&d);
                if let Some(i) = intake(&prefix, format) {
                    break i;
                }
            }
            Next::Chunk(Chunk::End) => {
                ended = true;
                break Intake::Live;
            }
            Next::Stop => {
                stopped = true;
                break Intake::Live;
            }
            Next::Chunk(Chunk::Failed(e)) => return Err(e),
        }
    };
    if intake == Intake::Whole {
        if follow {
            return Err(format!(
                "{name}: --follow takes a record a line (Jepsen EDN, JSON lines), not a file read whole (compressed, or another format)"
            ));
        }
        while !ended {
            match source.next() {
                Next::Chunk(Chunk::Data(d)) => prefix.extend_from_slice(&d),
                Next::Chunk(Chunk::End) => ended = true,
                Next::Stop => stopped = true,
                Next::Chunk(Chunk::Failed(e)) => return Err(e),
            }
            if stopped {
                return Err("standard input: stopped by a signal before it ended".into());
            }
        }
        // A history read whole is checked as a file is: a signal ends it at once again.
        source::release_stop();
        let text = crate::elle::gunzip(prefix, Path::new("-")).map(Bytes::Owned)?;
        let (session, progress) = load::load_text(input, Path::new("-"), text, progress, false)?;
        return whole(&session, &progress, o);
    }
    if o.timestamps || intake == Intake::LiveTimestamps && !o.rounds {
        no_wal_with_timestamps(o)?;
        return live_timestamps(source, prefix, format, &name, (stopped, ended), &progress, o);
    }
    let mut checker = checker(&Options { wal: None, ..o.clone() })?;
    let mut wal = o.wal.as_deref().map(WalFollower::open).transpose()?;
    let mut out = std::io::stdout().lock();
    let t0 = Instant::now();
    let (lines, end) = if stopped {
        (0, Ended::Stopped)
    } else {
        let checker = &mut checker;
        drive(
            source.records::<OnlineTxn>(prefix, format, ended),
            name.as_str(),
            &progress,
            &mut out,
            &mut |step, out| match step {
                Step::Take(txns) => {
                    if let Some(w) = wal.as_mut() {
                        w.poll(checker)?;
                    }
                    for t in txns {
                        let found = checker.try_push(t).map_err(|e| format!("{name}: {e}"))?;
                        if !o.quiet {
                            print_found(out, checker, found, o.json)?;
                        }
                    }
                    Ok(String::new())
                }
                Step::Pause => {
                    if let Some(w) = wal.as_mut() {
                        w.poll(checker)?;
                    }
                    let found = checker.flush();
                    if !o.quiet {
                        print_found(out, checker, found, o.json)?;
                    }
                    Ok(String::new())
                }
                Step::Word(secs) => {
                    let s = checker.stats();
                    Ok(word("online", s.transactions, secs, s.live, s.evicted, s.cycles, "cycles"))
                }
            },
        )?
    };
    match end {
        Ended::End => {
            if let Some(w) = wal.as_mut() {
                w.end(&mut checker)?;
            }
            let found = checker.end();
            if !o.quiet {
                print_found(&mut out, &mut checker, found, o.json)?;
            }
        }
        Ended::Stopped => {
            // What the summary covers: every complete line; a line still being written is left.
            eprintln!(
                "grail: online: stopped by a signal after {lines} lines of {name} ({} transactions checked)",
                checker.stats().transactions
            );
        }
    }
    finish(&progress, &mut out, &mut checker, t0, o.window, o.json)
}

/// How a live stream ended: at its end, or stopped by a signal.
enum Ended {
    End,
    Stopped,
}

/// What [`drive`] asks of a live checker.
enum Step<'a, R> {
    /// Take these transactions, printing what they found.
    Take(&'a [R]),
    /// The progress line, this many seconds in.
    Word(f64),
    /// The input paused: print what the checker held back.
    Pause,
}

/// What checks and prints a live stream's records, step by step: for `Step::Word`, its progress line.
type Stepper<'a, R> = dyn FnMut(Step<R>, &mut dyn std::io::Write) -> Result<String, String> + 'a;

/// A live stream's records, batch by batch, to `step` (which checks and prints), with a progress
/// line every few seconds on a terminal or with `-v`, until the stream ends, a line is refused
/// (an error naming it), or a signal stops it; the lines taken, and how it ended.
fn drive<R: grail_core::online::stream::Record>(
    records: source::RecordSource<R>,
    name: &str,
    progress: &Progress,
    out: &mut dyn std::io::Write,
    step: &mut Stepper<'_, R>,
) -> Result<(u32, Ended), String> {
    let t0 = Instant::now();
    let mut next_word = t0 + LIVE_PROGRESS;
    let mut lines = 0;
    loop {
        let mut paused: Result<String, String> = Ok(String::new());
        let next = records.next_idle(&mut || {
            paused = step(Step::Pause, out).and_then(|_| out.flush().map_err(|e| e.to_string()).map(|_| String::new()));
            paused.is_ok()
        });
        paused?;
        match next {
            Some(Parsed::Records(r, n)) => {
                lines = n;
                step(Step::Take(&r.txns), out)?;
                out.flush().map_err(|e| e.to_string())?;
                if let Some(e) = r.error {
                    return Err(format!("{name}: {e}"));
                }
                records.done(r.txns);
            }
            Some(Parsed::End) => return Ok((lines, Ended::End)),
            Some(Parsed::Failed(e)) => return Err(e),
            None => return Ok((lines, Ended::Stopped)),
        }
        if progress.tells() && Instant::now() >= next_word {
            next_word = Instant::now() + LIVE_PROGRESS;
            let word = step(Step::Word(t0.elapsed().as_secs_f64()), out)?;
            eprintln!("{word}; resident memory {}", memory("VmRSS:"));
        }
    }
}

/// A live stream's progress line (the resident memory is added by [`drive`]).
fn word(what: &str, transactions: u64, secs: f64, live: usize, evicted: u64, found: u64, found_what: &str) -> String {
    format!(
        "grail: {what}: {transactions} transactions ({:.0}/s), {live} live in the window, {evicted} evicted, {found} {found_what} so far",
        transactions as f64 / secs.max(1e-9)
    )
}

/// The cycles a transaction closed and the reads of aborted or intermediate appends it revealed.
fn print_found(
    out: &mut dyn std::io::Write,
    checker: &mut OnlineChecker,
    cycles: Vec<OnlineAnomaly>,
    json: bool,
) -> Result<(), String> {
    for a in cycles {
        writeln!(out, "{}", anomaly_line(&a, json)).map_err(|e| e.to_string())?;
    }
    for f in checker.take_findings() {
        let line = if json {
            serde_json::to_string(&f).unwrap_or_default()
        } else {
            grail_core::online::cycles::render_finding(&f)
        };
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `grail online -` (or `--follow`) with timestamps: each line's committed transactions through
/// the timestamp checker (Aion) as they arrive, each violation printed when it is final (when
/// its snapshot can no longer change, or at the end of the stream). The first committed
/// transaction decides (core's `intake`): a later one without timestamps is counted, not
/// checked. On a signal, reads still pending are not judged (the stream did not end).
fn live_timestamps(
    source: Source,
    prefix: Vec<u8>,
    format: Format,
    name: &str,
    (stopped, ended): (bool, bool),
    progress: &Progress,
    o: &Options,
) -> Result<u8, String> {
    use grail_core::online::stream::TsArrival;
    use grail_core::online::timestamps::{TsLevel, TsOnlineChecker, TsOnlineOptions};
    let level = if o.level == "SER" { TsLevel::Ser } else { TsLevel::Si };
    let mut checker = TsOnlineChecker::new(TsOnlineOptions { window: o.window, level, ..Default::default() });
    let mut out = std::io::stdout().lock();
    let t0 = Instant::now();
    let mut untimed = 0u64;
    let (lines, end) = if stopped {
        (0, Ended::Stopped)
    } else {
        drive(
            source.records::<TsArrival>(prefix, format, ended),
            name,
            progress,
            &mut out,
            &mut |step, out| match step {
                Step::Take(arrivals) => {
                    for a in arrivals {
                        match &a.txn {
                            Some(t) => print_violations(out, checker.push(t), o)?,
                            None => untimed += a.untimed as u64,
                        }
                    }
                    Ok(String::new())
                }
                Step::Pause => Ok(String::new()),
                Step::Word(secs) => {
                    let s = checker.stats();
                    Ok(word("online (timestamps)", s.transactions, secs, s.live, s.evicted, s.violations, "violations"))
                }
            },
        )?
    };
    match end {
        Ended::End => print_violations(&mut out, checker.finish(), o)?,
        Ended::Stopped => eprintln!(
            "grail: online: stopped by a signal after {lines} lines of {name} ({} transactions checked; reads whose snapshot could still change are not judged)",
            checker.stats().transactions
        ),
    }
    let stats = checker.stats();
    print_ts_summary(&mut out, &stats, untimed, o.json)?;
    progress.say(format_args!(
        "online (timestamps): {} transactions in {:.3} s; window {}; peak resident memory {}",
        stats.transactions,
        t0.elapsed().as_secs_f64(),
        o.window,
        memory("VmHWM:")
    ));
    Ok(if stats.violations == 0 { 0 } else { 1 })
}

fn print_violations(
    out: &mut dyn std::io::Write,
    vs: Vec<grail_core::online::timestamps::TsViolation>,
    o: &Options,
) -> Result<(), String> {
    for v in vs.iter().filter(|_| !o.quiet) {
        let line = if o.json {
            serde_json::to_string(v).unwrap_or_default()
        } else {
            grail_core::online::timestamps::render_violation(v)
        };
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A line of `/proc/self/status` (`VmRSS:` now, `VmHWM:` the peak), or "unknown".
fn memory(field: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).map(|l| l[field.len()..].trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

fn anomaly_line(a: &OnlineAnomaly, json: bool) -> String {
    if json {
        serde_json::to_string(a).unwrap_or_default()
    } else {
        grail_core::online::cycles::render_anomaly(a)
    }
}

/// The summary after the last transaction, the timing line, and the exit code.
fn finish(
    progress: &Progress,
    out: &mut impl std::io::Write,
    checker: &mut OnlineChecker,
    t0: Instant,
    window: usize,
    json: bool,
) -> Result<u8, String> {
    let secs = t0.elapsed().as_secs_f64();
    let summary = checker.summary();
    if json {
        writeln!(out, "{}", serde_json::to_string(&summary).unwrap_or_default()).map_err(|e| e.to_string())?;
    } else {
        write!(out, "{}", grail_core::online::cycles::render_summary(&summary)).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    let peak = memory("VmHWM:");
    let n = summary.stats.transactions;
    progress.say(format_args!(
        "online: {n} transactions in {secs:.3} s ({:.0} transactions/s); window {window}; peak resident memory {peak}",
        n as f64 / secs.max(1e-9)
    ));
    // As grail check: 0 only when every level holds (an undecided level is not a pass).
    let holds =
        !summary.levels.is_empty() && summary.levels.iter().all(|l| l.verdict == grail_core::engine::Verdict::Holds);
    Ok(if summary.stats.cycles == 0 && holds { 0 } else { 1 })
}

/// `grail online` with timestamps: committed transactions through the windowed checker (Aion),
/// in input order; each violation printed when it is final.
pub fn online_timestamps(
    progress: &Progress,
    h: &History,
    window: usize,
    level: &str,
    json: bool,
    quiet: bool,
) -> Result<u8, String> {
    use grail_core::online::timestamps::{render_violation, TsLevel, TsOnlineChecker, TsOnlineOptions, TsTxn};
    use std::io::Write;
    let level = if level == "SER" { TsLevel::Ser } else { TsLevel::Si };
    let mut checker = TsOnlineChecker::new(TsOnlineOptions { window, level, ..Default::default() });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t0 = Instant::now();
    let mut untimed = 0usize;
    let print = |out: &mut std::io::BufWriter<std::io::StdoutLock>,
                 vs: Vec<grail_core::online::timestamps::TsViolation>| {
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
    print_ts_summary(&mut out, &stats, untimed as u64, json)?;
    progress.say(format_args!("online (timestamps): {} transactions in {secs:.3} s; window {window}", h.txns.len()));
    Ok(if stats.violations == 0 { 0 } else { 1 })
}

/// The timestamp checker's summary: its counters, and how many committed transactions carried no
/// timestamps (JSON, or text with a note).
fn print_ts_summary(
    out: &mut dyn std::io::Write,
    stats: &grail_core::online::timestamps::TsOnlineStats,
    untimed: u64,
    json: bool,
) -> Result<(), String> {
    let e = |e: std::io::Error| e.to_string();
    if json {
        writeln!(out, "{}", serde_json::json!({"stats": stats, "untimed": untimed})).map_err(e)?;
    } else {
        write!(out, "{}", grail_core::online::timestamps::render_stats(stats)).map_err(e)?;
        if untimed > 0 {
            writeln!(out, "note: {untimed} committed transactions carry no start and commit timestamps: not checked")
                .map_err(e)?;
        }
    }
    out.flush().map_err(e)
}
