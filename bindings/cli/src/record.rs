//! `grail record`: sessions run randomised transactions on a live database, each on its own
//! connection and thread, and one recorder takes down what they did. The transactions, the SQL
//! and the history are core's (`grail_core::record`); this module runs them and writes files.
//!
//! Real-time order: a session takes its transaction's invocation (time and place in the event
//! sequence) under the recorder's lock before it sends `begin`, and its completion under the
//! lock after `commit` returned. So when one transaction's completion comes before another's
//! invocation, the first had committed before the second began; otherwise they are taken as
//! concurrent.

use crate::args::RecordArgs;
use crate::db::{self, Connection};
use grail_core::record::recorder::Recorder;
use grail_core::record::workload::{Generator, Options as Workload, Shape};
use grail_core::record::{sql, Database, Isolation, Outcome, Statement};
use grail_core::Status;
use serde_json::json;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Edn,
    Json,
}

struct Plan {
    url: String,
    db: Database,
    table: String,
    out: PathBuf,
    format: Format,
    workload: Workload,
    txns: usize,
    duration: Option<Duration>,
    retries: u32,
    lock_timeout: Option<u64>,
    json: bool,
}

fn plan(a: &RecordArgs) -> Result<Plan, String> {
    let usage = |e: grail_core::Error| e.message;
    let db = Database::of_url(&a.db).map_err(usage)?;
    let isolation = match &a.isolation {
        Some(l) => Isolation::parse(l).and_then(|l| l.check_offered(db)).map_err(usage)?,
        None => db.default_level(),
    };
    sql::check_table(&a.table).map_err(usage)?;
    let format = match (a.format.as_deref(), a.out.extension().and_then(|e| e.to_str())) {
        (Some("edn"), _) | (None, Some("edn")) => Format::Edn,
        (Some("json"), _) | (None, Some("json")) => Format::Json,
        _ => return Err(format!("{}: give --format edn or json (or name the file .edn or .json)", a.out.display())),
    };
    let defaults = grail_core::generate::GenOptions::default();
    let shape = a.shape.as_deref().map(Shape::named).transpose().map_err(usage)?;
    let ops = match &a.ops {
        Some(s) => parse_ops(s)?,
        None => shape.as_ref().map_or((defaults.min_ops, defaults.max_ops), |s| s.ops),
    };
    let distribution = match &a.distribution {
        Some(d) => grail_core::generate::KeyDistribution::parse(d).map_err(usage)?,
        None => shape.as_ref().map_or(defaults.distribution, |s| s.distribution),
    };
    let workload = Workload {
        workload: match a.workload.as_str() {
            "rw-register" => grail_core::record::Workload::RwRegister,
            _ => grail_core::record::Workload::ListAppend,
        },
        isolation,
        sessions: a.sessions.or(shape.as_ref().map(|s| s.sessions)).unwrap_or(defaults.sessions),
        keys: a.keys.or(shape.as_ref().map(|s| s.keys)).unwrap_or(defaults.keys),
        min_ops: ops.0,
        max_ops: ops.1,
        read_ratio: a.read_ratio.or(shape.as_ref().map(|s| s.read_ratio)).unwrap_or(defaults.read_ratio),
        distribution,
        max_writes_per_key: a.max_writes_per_key,
        seed: a.seed,
    };
    workload.check().map_err(usage)?;
    let duration = match a.duration {
        Some(d) if d > 0.0 => Some(
            Duration::try_from_secs_f64(d)
                .map_err(|_| format!("--duration: expected at most 2^64 seconds, found {d}"))?,
        ),
        Some(d) => return Err(format!("--duration: expected seconds > 0, found {d}")),
        None => None,
    };
    let txns = match (a.txns, duration) {
        (Some(n), _) => n,
        (None, Some(_)) => usize::MAX,
        (None, None) => shape.as_ref().map_or(defaults.transactions, |s| s.transactions),
    };
    Ok(Plan {
        url: a.db.clone(),
        db,
        table: a.table.clone(),
        out: a.out.clone(),
        format,
        workload,
        txns,
        duration,
        retries: a.retries,
        lock_timeout: match a.lock_timeout {
            // PostgreSQL reads lock_timeout = 0 as no timeout at all.
            Some(0) => return Err("--lock-timeout: expected at least 1 ms".into()),
            t => t,
        },
        json: a.json,
    })
}

/// `N` or `MIN-MAX`.
fn parse_ops(s: &str) -> Result<(usize, usize), String> {
    let num = |t: &str| t.trim().parse::<usize>().map_err(|_| format!("--ops {s:?}: expected N or MIN-MAX"));
    match s.split_once('-') {
        Some((lo, hi)) => Ok((num(lo)?, num(hi)?)),
        None => num(s).map(|n| (n, n)),
    }
}

/// What the sessions share.
struct Shared<'p> {
    p: &'p Plan,
    t0: Instant,
    deadline: Option<Instant>,
    rec: Mutex<Recorder>,
    gen: Mutex<Generator>,
    started: AtomicUsize,
    committed: AtomicU64,
    aborted: AtomicU64,
    indeterminate: AtomicU64,
    /// Why transactions were refused, by the database's message, with how often.
    refusals: Mutex<HashMap<String, u64>>,
    /// Sessions that stopped early, and why.
    stopped: Mutex<Vec<String>>,
    /// A session failed in a way that ends the run.
    failed: Mutex<Option<String>>,
    halt: AtomicBool,
}

impl Shared<'_> {
    /// A transaction may start: the count and the time allow it.
    fn claim(&self) -> bool {
        !self.halt.load(Relaxed)
            && self.deadline.is_none_or(|d| Instant::now() < d)
            && self.started.fetch_add(1, Relaxed) < self.p.txns
    }

    fn ns(&self) -> i64 {
        self.t0.elapsed().as_nanos() as i64
    }

    fn fail(&self, why: String) {
        self.halt.store(true, Relaxed);
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(why);
    }
}

pub fn run(a: &RecordArgs) -> Result<u8, String> {
    let p = plan(a)?;
    let w = &p.workload;
    let mut setup = db::connect(&p.url)?;
    let version = setup.version();
    for s in sql::create_table(p.db, &p.table, w.workload) {
        setup.run(&s).map_err(|e| format!("creating table {}: {s}: {}", p.table, e.message))?;
    }
    drop(setup);
    let mut conns = Vec::with_capacity(w.sessions);
    for s in 0..w.sessions {
        conns.push(connect(&p).map_err(|e| format!("session {s}: {e}"))?);
    }
    let t0 = Instant::now();
    let sh = Shared {
        p: &p,
        t0,
        deadline: p.duration.map(|d| t0 + d),
        rec: Mutex::new(Recorder::new(w.workload)),
        gen: Mutex::new(Generator::new(w.clone()).map_err(|e| e.message)?),
        started: AtomicUsize::new(0),
        committed: AtomicU64::new(0),
        aborted: AtomicU64::new(0),
        indeterminate: AtomicU64::new(0),
        refusals: Mutex::new(HashMap::new()),
        stopped: Mutex::new(Vec::new()),
        failed: Mutex::new(None),
        halt: AtomicBool::new(false),
    };
    let running = AtomicUsize::new(w.sessions);
    std::thread::scope(|scope| {
        for (s, conn) in conns.into_iter().enumerate() {
            let (sh, running) = (&sh, &running);
            scope.spawn(move || {
                if let Err(e) = session(sh, s, conn) {
                    sh.fail(format!("session {s}: {e}"));
                }
                running.fetch_sub(1, Relaxed);
            });
        }
        if std::io::stderr().is_terminal() {
            scope.spawn(|| progress(&sh, &running));
        }
    });
    let elapsed = t0.elapsed();
    if let Some(e) = sh.failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    let rec = sh.rec.into_inner().unwrap_or_else(|e| e.into_inner());
    let history = rec.history().map_err(|e| e.to_string())?;
    let text = match p.format {
        Format::Json => grail_core::export::native::history(&history),
        Format::Edn => {
            let all: Vec<u32> = (0..history.txns.len() as u32).collect();
            let comment = format!(
                "grail record: {version}, {}, {} on table {}, {} sessions, seed {}",
                w.isolation.sql(),
                a.workload,
                p.table,
                w.sessions,
                w.seed
            );
            grail_core::export::edn::sub_history_events(&history, &all, Some(&comment))
        }
    };
    std::fs::write(&p.out, text).map_err(|e| format!("{}: {e}", p.out.display()))?;
    let counts = [&sh.committed, &sh.aborted, &sh.indeterminate].map(|c| c.load(Relaxed));
    let mut refusals: Vec<(String, u64)> =
        sh.refusals.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().collect();
    refusals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let stopped = sh.stopped.into_inner().unwrap_or_else(|e| e.into_inner());
    let summary = Summary { version, plan: &p, workload_name: &a.workload, counts, elapsed, refusals, stopped };
    if p.json {
        println!("{}", serde_json::to_string_pretty(&summary.json()).unwrap_or_default());
    } else {
        print!("{}", summary.text());
    }
    Ok(0)
}

/// A session's connection, set up.
fn connect(p: &Plan) -> Result<Box<dyn Connection>, String> {
    let mut c = db::connect(&p.url)?;
    for s in sql::session_setup(p.db, p.lock_timeout) {
        c.run(&s).map_err(|e| format!("{s}: {}", e.message))?;
    }
    Ok(c)
}

/// One session: transactions one after another until the count or the time is up.
fn session(sh: &Shared, s: usize, mut conn: Box<dyn Connection>) -> Result<(), String> {
    let lock = |m: &Mutex<Generator>| m.lock().unwrap_or_else(|e| e.into_inner()).next(s);
    let mut retry: Option<(Vec<Statement>, u32)> = None;
    while sh.claim() {
        let (txn, attempt) = match retry.take() {
            Some((t, n)) => (sh.gen.lock().unwrap_or_else(|e| e.into_inner()).retry(s, &t), n + 1),
            None => (lock(&sh.gen), 0),
        };
        let txn = txn.map_err(|e| e.message)?;
        {
            let mut rec = sh.rec.lock().unwrap_or_else(|e| e.into_inner());
            rec.begin(s, sh.ns()).map_err(|e| e.message)?;
        }
        let (outcomes, status) = attempt_txn(sh, conn.as_mut(), &txn)?;
        {
            let mut rec = sh.rec.lock().unwrap_or_else(|e| e.into_inner());
            for (stmt, outcome) in txn.iter().zip(&outcomes) {
                rec.record(s, stmt, outcome).map_err(|e| e.to_string())?;
            }
            rec.end(s, status, sh.ns());
        }
        let lost = matches!(outcomes.last(), Some(Outcome::Unknown { .. }));
        match status {
            Status::Committed => sh.committed.fetch_add(1, Relaxed),
            Status::Aborted => sh.aborted.fetch_add(1, Relaxed),
            Status::Indeterminate => sh.indeterminate.fetch_add(1, Relaxed),
        };
        if let Some(Outcome::Failed { error } | Outcome::Unknown { error }) = outcomes.last() {
            let why = if lost { format!("connection lost: {error}") } else { error.clone() };
            *sh.refusals.lock().unwrap_or_else(|e| e.into_inner()).entry(why).or_default() += 1;
        }
        if lost {
            match connect(sh.p) {
                Ok(c) => conn = c,
                Err(e) => {
                    sh.stopped.lock().unwrap_or_else(|e| e.into_inner()).push(format!("session {s}: {e}"));
                    return Ok(());
                }
            }
        }
        if status == Status::Aborted && attempt < sh.p.retries {
            retry = Some((txn, attempt));
        }
    }
    Ok(())
}

/// Run `txn`'s statements until one fails: what each did, and how the transaction ended. A
/// refused statement ends the transaction (rolled back); a connection lost before `commit`
/// was sent leaves it uncommitted (the server rolls back a disconnected session's
/// transaction); lost during `commit`, its outcome is unknown.
fn attempt_txn(sh: &Shared, conn: &mut dyn Connection, txn: &[Statement]) -> Result<(Vec<Outcome>, Status), String> {
    let mut outcomes = Vec::with_capacity(txn.len());
    for stmt in txn {
        let sqls = sql::statements(sh.p.db, &sh.p.table, stmt).map_err(|e| e.message)?;
        let outcome = match conn.run_all(&sqls) {
            Ok((rows, changed)) => Outcome::Done { rows, changed },
            Err(e) if e.lost => Outcome::Unknown { error: e.message },
            Err(e) => Outcome::Failed { error: e.message },
        };
        let end = grail_core::record::ends(stmt, &outcome);
        outcomes.push(outcome);
        if let Some(status) = end {
            return Ok((outcomes, status));
        }
    }
    Err("a transaction without commit".into())
}

/// A line on standard error, redrawn twice a second while sessions run.
fn progress(sh: &Shared, running: &AtomicUsize) {
    let mut err = std::io::stderr();
    while running.load(Relaxed) > 0 {
        std::thread::sleep(Duration::from_millis(100));
        let t = sh.t0.elapsed().as_secs_f64();
        if (t * 10.0) as u64 % 5 != 0 {
            continue;
        }
        let [c, a, i] = [&sh.committed, &sh.aborted, &sh.indeterminate].map(|x| x.load(Relaxed));
        let n = c + a + i;
        let _ = write!(
            err,
            "\r\x1b[2Krecord: {t:.1} s, {n} transactions ({:.0}/s): {c} committed, {a} aborted, {i} indeterminate",
            n as f64 / t.max(1e-9)
        );
        let _ = err.flush();
    }
    let _ = write!(err, "\r\x1b[2K");
}

struct Summary<'p> {
    version: String,
    plan: &'p Plan,
    workload_name: &'p str,
    /// Committed, aborted, indeterminate.
    counts: [u64; 3],
    elapsed: Duration,
    refusals: Vec<(String, u64)>,
    stopped: Vec<String>,
}

impl Summary<'_> {
    fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    fn rate(&self) -> f64 {
        self.total() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn format(&self) -> &'static str {
        match self.plan.format {
            Format::Edn => "Jepsen EDN",
            Format::Json => "grail's native JSON",
        }
    }

    fn text(&self) -> String {
        let w = &self.plan.workload;
        let [c, a, i] = self.counts;
        let mut out = format!(
            "recorded {} transactions on {} at {} ({}, {} sessions, {}-{} operations, {} keys, table {}) in {:.2} s: {:.0} transactions/s\n",
            self.total(),
            self.version,
            w.isolation.sql(),
            self.workload_name,
            w.sessions,
            w.min_ops,
            w.max_ops,
            w.keys,
            self.plan.table,
            self.elapsed.as_secs_f64(),
            self.rate()
        );
        out.push_str(&format!("  {c} committed, {a} aborted, {i} indeterminate\n"));
        for (why, n) in self.refusals.iter().take(5) {
            out.push_str(&format!("  {n} × {why}\n"));
        }
        if self.refusals.len() > 5 {
            out.push_str(&format!("  ... and {} other reasons\n", self.refusals.len() - 5));
        }
        let deadlocks = self.refusals.iter().any(|(why, _)| why.contains("SQLSTATE 40P01"));
        if self.plan.db == Database::Postgres && self.plan.lock_timeout.is_none() && deadlocks {
            out.push_str(
                "  (PostgreSQL looks for deadlocks after deadlock_timeout, 1 s by default: --lock-timeout 20 ends lock waits sooner)\n",
            );
        }
        for s in &self.stopped {
            out.push_str(&format!("  stopped early: {s}\n"));
        }
        out.push_str(&format!("wrote {} ({})\n", self.plan.out.display(), self.format()));
        out
    }

    fn json(&self) -> serde_json::Value {
        let w = &self.plan.workload;
        let [c, a, i] = self.counts;
        json!({
            "database": self.version,
            "isolation": w.isolation.sql(),
            "workload": self.workload_name,
            "table": self.plan.table,
            "sessions": w.sessions,
            "ops": [w.min_ops, w.max_ops],
            "keys": w.keys,
            "read_ratio": w.read_ratio,
            "seed": w.seed,
            "transactions": self.total(),
            "committed": c,
            "aborted": a,
            "indeterminate": i,
            "seconds": self.elapsed.as_secs_f64(),
            "transactions_per_second": self.rate(),
            "refusals": self.refusals.iter().map(|(why, n)| json!({"reason": why, "count": n})).collect::<Vec<_>>(),
            "stopped_early": self.stopped,
            "out": self.plan.out.display().to_string(),
            "format": match self.plan.format { Format::Edn => "edn", Format::Json => "json" },
        })
    }
}
