//! Scripted sessions: statements run in a fixed order, each session on its own connection and
//! thread, as Hermitage's tests are run by hand in two or three terminals. A statement that
//! does not return within `block_after` is taken to block (a lock wait): the script goes on
//! with the next session's statement, and the blocked one completes when the database lets it.
//! A statement the database refuses ends its transaction: the session rolls back at once (as
//! Hermitage's "abort; -- nothing else we can do") and skips the rest of that transaction.

use crate::db::{self, Connection, DbError};
use grail_core::record::hermitage::{Step, Test};
use grail_core::record::recorder::Recorder;
use grail_core::record::{sql, Database, Outcome, Statement, Workload};
use grail_core::History;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// What a script left: the history, and a transcript of what each statement did.
pub struct Run {
    pub history: History,
    pub transcript: Vec<String>,
    /// What leaves a cell that found nothing undecided: predicate reads whose versions of some
    /// keys are not known (`Recorder::undecided`), statements refused for a reason other than
    /// concurrency control.
    pub undecided: Vec<String>,
    /// What the history could not hold (`Recorder::unsupported`): no cell is decided on it.
    pub unsupported: Vec<String>,
}

/// How long a session waits for a blocked statement before the script is declared stuck.
const STUCK: Duration = Duration::from_secs(30);

type Reply = (Result<(Vec<grail_core::record::Row>, u64), DbError>, Instant);

struct Session {
    tx: Sender<Vec<String>>,
    rx: Receiver<Reply>,
    /// The statement sent and not yet answered (blocked).
    pending: Option<(usize, Statement)>,
    /// Its transaction failed: skip to its next `Begin`.
    failed: bool,
}

/// What was recorded, and the statements refused for a reason other than concurrency control
/// (a missing table, a privilege): the test did not run as written.
struct Log {
    rec: Recorder,
    transcript: Vec<String>,
    errors: Vec<String>,
}

fn spawn(mut conn: Box<dyn Connection>) -> Session {
    let (tx, jobs) = channel::<Vec<String>>();
    let (done, rx) = channel::<Reply>();
    std::thread::spawn(move || {
        for sqls in jobs {
            let last = conn.run_all(&sqls);
            if done.send((last, Instant::now())).is_err() {
                break;
            }
        }
    });
    Session { tx, rx, pending: None, failed: false }
}

/// Run `test`'s steps on `url` against `table`, made anew with its rows, with its sessions'
/// connections; its observer's first step runs once every earlier step has completed.
pub fn run(url: &str, table: &str, workload: Workload, test: &Test, block_after: Duration) -> Result<Run, String> {
    let (rows, sessions, steps, barrier) = (&test.rows, test.sessions, &test.steps[..], test.observer);
    let dbkind = Database::of_url(url).map_err(|e| e.message)?;
    let t0 = Instant::now();
    let ns = |at: Instant| at.saturating_duration_since(t0).as_nanos() as i64;
    let mut setup = db::connect(url)?;
    let fail = |what: &str, e: DbError| format!("setting up table {table}: {what}: {}", e.message);
    for s in sql::create_table(dbkind, table, workload) {
        setup.run(&s).map_err(|e| fail(&s, e))?;
    }
    let mut log = Log { rec: Recorder::new(workload), transcript: Vec::new(), errors: Vec::new() };
    for &(key, value) in rows {
        let stmt = Statement::Insert { key, value };
        for s in sql::statements(dbkind, table, &stmt).map_err(|e| e.message)? {
            setup.run(&s).map_err(|e| fail(&s, e))?;
        }
    }
    log.rec.setup(rows, ns(Instant::now()));
    drop(setup);
    let mut ss = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        ss.push(spawn(db::connect(url)?));
    }
    for (i, step) in steps.iter().enumerate() {
        if step.session >= sessions {
            return Err(format!("step {i}: no session {}", step.session));
        }
    }
    // Steps in script order; a step of a blocked session waits (as a person at a blocked
    // terminal goes on in the others) and runs, in order, once its session is free.
    let mut next = 0;
    let mut postponed: Vec<usize> = Vec::new();
    loop {
        poll(&mut ss, &mut log, ns)?;
        let free = |i: &usize| ss[steps[*i].session].pending.is_none();
        let pick = match postponed.iter().position(free) {
            Some(p) => Some(postponed.remove(p)),
            None if Some(next) == barrier && ss.iter().any(|x| x.pending.is_some()) => None,
            None if next < steps.len() && (Some(next) != barrier || postponed.is_empty()) => {
                next += 1;
                Some(next - 1)
            }
            None => None,
        };
        let Some(i) = pick else {
            if ss.iter().all(|x| x.pending.is_none()) {
                break;
            }
            wait_any(&mut ss, &mut log, ns, steps)?;
            continue;
        };
        let step = &steps[i];
        let s = step.session;
        let sess = &mut ss[s];
        // Postponed steps stay in script order, so a session's earliest one is picked first.
        if sess.pending.is_some() || postponed.iter().any(|&j| steps[j].session == s && j < i) {
            log.transcript.push(format!("T{}: {} — waits: T{} is blocked", s + 1, show(&step.statement), s + 1));
            let at = postponed.partition_point(|&j| j < i);
            postponed.insert(at, i);
            continue;
        }
        let begins = matches!(step.statement, Statement::Begin { .. });
        if sess.failed && !begins {
            log.transcript.push(format!(
                "T{}: {} — skipped: the transaction already failed",
                s + 1,
                show(&step.statement)
            ));
            continue;
        }
        if begins {
            sess.failed = false;
            log.rec.begin(s, ns(Instant::now())).map_err(|e| e.message)?;
        }
        let sqls = sql::statements(dbkind, table, &step.statement).map_err(|e| e.message)?;
        sess.tx.send(sqls).map_err(|_| format!("session {s} ended"))?;
        match sess.rx.recv_timeout(block_after) {
            Ok(reply) => settle(&mut log, s, sess, &step.statement, reply, ns)?,
            Err(RecvTimeoutError::Timeout) => {
                log.transcript.push(format!("T{}: {} — BLOCKS", s + 1, show(&step.statement)));
                sess.pending = Some((i, step.statement.clone()));
            }
            Err(RecvTimeoutError::Disconnected) => return Err(format!("session {s}'s connection thread ended")),
        }
        // A statement this one unblocked completes now: record it in its place.
        std::thread::sleep(Duration::from_millis(20));
    }
    let history = log.rec.history().map_err(|e| e.to_string())?;
    let mut undecided = log.rec.undecided();
    undecided.extend(log.errors);
    Ok(Run { history, transcript: log.transcript, undecided, unsupported: log.rec.unsupported() })
}

/// Record the blocked statements that have completed.
fn poll(ss: &mut [Session], log: &mut Log, ns: impl Fn(Instant) -> i64 + Copy) -> Result<(), String> {
    for (o, sess) in ss.iter_mut().enumerate() {
        if let Some((_, stmt)) = sess.pending.clone() {
            if let Ok(reply) = sess.rx.try_recv() {
                sess.pending = None;
                settle(log, o, sess, &stmt, reply, ns)?;
            }
        }
    }
    Ok(())
}

/// Every step left waits for a blocked session: wait until one completes (the database's lock
/// timeout or deadlock detection ends a wait that nothing else will).
fn wait_any(
    ss: &mut [Session],
    log: &mut Log,
    ns: impl Fn(Instant) -> i64 + Copy,
    steps: &[Step],
) -> Result<(), String> {
    let since = Instant::now();
    while since.elapsed() < STUCK {
        let before = ss.iter().filter(|x| x.pending.is_some()).count();
        poll(ss, log, ns)?;
        if ss.iter().filter(|x| x.pending.is_some()).count() < before {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (j, _) = ss.iter().find_map(|x| x.pending.clone()).unwrap_or((0, Statement::Commit));
    Err(stuck(&steps[j], j))
}

fn stuck(step: &Step, i: usize) -> String {
    format!(
        "step {i} (T{}: {}) was still blocked after {} s: the script cannot go on",
        step.session + 1,
        show(&step.statement),
        STUCK.as_secs()
    )
}

/// Record what a statement did and end its transaction where it ended.
fn settle(
    log: &mut Log,
    s: usize,
    sess: &mut Session,
    stmt: &Statement,
    (reply, at): Reply,
    ns: impl Fn(Instant) -> i64 + Copy,
) -> Result<(), String> {
    let outcome = match reply {
        Ok((rows, changed)) => Outcome::Done { rows, changed },
        Err(e) if e.lost => Outcome::Unknown { error: e.message },
        Err(e) => {
            if !e.conflict {
                log.errors.push(format!("T{}'s {} failed: {}", s + 1, show(stmt), e.message));
            }
            Outcome::Failed { error: e.message }
        }
    };
    let line = format!("T{}: {}", s + 1, show(stmt));
    log.transcript.push(match &outcome {
        Outcome::Done { rows, .. } if !rows.is_empty() || is_read(stmt) => {
            let shown: Vec<String> = rows.iter().map(|(k, v)| format!("{k} => {}", cell(v))).collect();
            format!("{line} — {}", if shown.is_empty() { "no rows".into() } else { shown.join(", ") })
        }
        Outcome::Done { .. } => format!("{line} — ok"),
        Outcome::Failed { error } => format!("{line} — ERROR {error}; the transaction rolled back"),
        Outcome::Unknown { error } => format!("{line} — connection lost: {error}"),
    });
    if log.rec.open_txn(s).is_some() {
        log.rec.record(s, stmt, &outcome).map_err(|e| e.to_string())?;
    }
    if let Some(status) = grail_core::record::ends(stmt, &outcome) {
        log.rec.end(s, status, ns(at));
        sess.failed = !matches!(stmt, Statement::Commit | Statement::Rollback);
    }
    Ok(())
}

fn is_read(stmt: &Statement) -> bool {
    matches!(stmt, Statement::Read { .. } | Statement::Scan | Statement::Predicate { .. })
}

fn cell(c: &grail_core::record::Cell) -> String {
    match c {
        grail_core::record::Cell::Int(i) => i.to_string(),
        grail_core::record::Cell::Text(t) => t.clone(),
        grail_core::record::Cell::Null => "null".into(),
    }
}

/// A statement as the transcript shows it (the SQL standard's words, not one dialect's).
pub fn show(stmt: &Statement) -> String {
    match stmt {
        Statement::Begin { isolation } => format!("begin ({})", isolation.sql()),
        Statement::Read { keys } => {
            let k: Vec<String> = keys.iter().map(i64::to_string).collect();
            format!("select where id in ({})", k.join(", "))
        }
        Statement::Scan => "select all".into(),
        Statement::Predicate { modulus } => format!("select where value % {modulus} = 0"),
        Statement::Update { key, value } => format!("update {key} => {value}"),
        Statement::Insert { key, value } => format!("insert {key} => {value}"),
        Statement::DeleteWhere { value } => format!("delete where value = {value}"),
        Statement::Upsert { key, value } => format!("upsert {key} => {value}"),
        Statement::Append { key, value } => format!("append {value} to {key}"),
        Statement::Commit => "commit".into(),
        Statement::Rollback => "rollback".into(),
    }
}
