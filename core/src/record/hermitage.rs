//! Hermitage (Kleppmann, `github.com/ept/hermitage`): tests of isolation levels as scripted
//! interleavings of two or three sessions on a table `test (id, value)` holding `1 => 10,
//! 2 => 20`. Hermitage runs them by hand and reads the results by eye; here each test's
//! statements are run by the CLI, recorded as a history ([`super::recorder`]) and checked by
//! grail, and the cell of Hermitage's table is what grail found ([`cell`]).
//!
//! The scripts are Hermitage's PostgreSQL ones (`postgres.md`; OTV's is its MySQL one, whose
//! scans show a half-done transaction where PostgreSQL's one-key reads cannot), with two
//! changes so that grail can tell versions apart: every write writes a value no other write writes (Hermitage's P4
//! has both sessions write 11; here T2 writes 12), and PMP reads the same predicate twice
//! (`value % 3 = 0`, where Hermitage reads `value = 30` first), as LDBC's PMP compares two reads
//! of one predicate. Each test but PMP ends with an observer session reading every row after
//! the others finished, as Hermitage's "select * from test; -- either" does in some of them,
//! so that the last versions are seen. The setup's rows are transaction `T0`.
//!
//! A column's anomaly, as grail decides it on the test's history:
//!
//! | column | occurs when grail reports |
//! |---|---|
//! | G0, G1a, G1b, G1c, G-single, G2-item | the anomaly of that name (Adya's), for any level |
//! | OTV | a `non-monotonic-read` (a read of an older version after observing a newer one's writer: the HAT paper's MAV, Plume's NonMonoRead) or LDBC's OTV read anomaly |
//! | PMP | LDBC's PMP: one predicate read twice matched different rows (the native JSON holds predicate reads) |
//! | P4 | a cycle grail names `lost update` |
//! | G2 | an anti-dependency cycle (G-single, G-nonadjacent, G2-item) through the item reads the predicate reads imply |
//!
//! A predicate read is recorded twice over: as itself (for PMP), and as the item reads it
//! implies (Adya's predicate read observes a version of every row, matching or not): each row
//! it returned, and each row it did not return whose version is the only candidate, the one
//! version of the key that does not match (for a key the setup did not create, the absent row;
//! the setup's rows are the initial state). A key with several candidates is not decided, and
//! a cell that needs it is `unknown` with the reason.
//!
//! A cell is `prevented` only when no such anomaly was found and every level grail checked was
//! decided; otherwise it is `unknown`, with the reason.

use super::{Isolation, Statement};
use crate::report::Report;
use serde::Serialize;

/// Hermitage's columns, in its table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Column {
    G0,
    G1a,
    G1b,
    G1c,
    Otv,
    Pmp,
    P4,
    GSingle,
    G2Item,
    G2,
}

impl Column {
    pub const ALL: [Column; 10] = [
        Column::G0,
        Column::G1a,
        Column::G1b,
        Column::G1c,
        Column::Otv,
        Column::Pmp,
        Column::P4,
        Column::GSingle,
        Column::G2Item,
        Column::G2,
    ];

    /// The column's heading, as Hermitage writes it.
    pub fn name(self) -> &'static str {
        match self {
            Column::G0 => "G0",
            Column::G1a => "G1a",
            Column::G1b => "G1b",
            Column::G1c => "G1c",
            Column::Otv => "OTV",
            Column::Pmp => "PMP",
            Column::P4 => "P4",
            Column::GSingle => "G-single",
            Column::G2Item => "G2-item",
            Column::G2 => "G2",
        }
    }

    /// Hermitage's legend.
    pub fn title(self) -> &'static str {
        match self {
            Column::G0 => "Write Cycles (dirty writes)",
            Column::G1a => "Aborted Reads (dirty reads, cascaded aborts)",
            Column::G1b => "Intermediate Reads (dirty reads)",
            Column::G1c => "Circular Information Flow (dirty reads)",
            Column::Otv => "Observed Transaction Vanishes",
            Column::Pmp => "Predicate-Many-Preceders",
            Column::P4 => "Lost Update",
            Column::GSingle => "Single Anti-dependency Cycles (read skew)",
            Column::G2Item => "Item Anti-dependency Cycles (write skew on disjoint read)",
            Column::G2 => "Anti-Dependency Cycles (write skew on predicate read)",
        }
    }

    pub fn parse(s: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// One statement of a test: the session that runs it (0 is Hermitage's T1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub session: usize,
    pub statement: Statement,
}

/// One test: the sessions' statements in the order Hermitage runs them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Test {
    pub column: Column,
    pub variant: Variant,
    /// The table's rows before the test.
    pub rows: Vec<(i64, i64)>,
    pub sessions: usize,
    pub steps: Vec<Step>,
    /// The observer's first step: it runs once every earlier statement has completed.
    pub observer: Option<usize>,
}

/// Which of a column's tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The test Hermitage runs on every database: reads and writes of rows by key.
    Main,
    /// Hermitage's MySQL test with a write's predicate (`delete ... where value = 20`), whose
    /// result counts where the main test prevents the anomaly: Hermitage's "R/O" (prevented
    /// read-only).
    WritePredicate,
}

impl Variant {
    /// The suffix of the test's files (`G-single-write-predicate.json`).
    pub fn suffix(self) -> &'static str {
        match self {
            Variant::Main => "",
            Variant::WritePredicate => "-write-predicate",
        }
    }
}

/// The table Hermitage's tests run on.
pub const TABLE: &str = "hermitage";

/// The tests of `column` at `level`: the main one, then the write-predicate one where
/// Hermitage has it (G-single).
pub fn tests(column: Column, level: Isolation) -> Vec<Test> {
    [Variant::Main, Variant::WritePredicate].into_iter().filter_map(|v| variant(column, v, level)).collect()
}

fn variant(column: Column, variant: Variant, level: Isolation) -> Option<Test> {
    use Statement::*;
    let b = Begin { isolation: level };
    let r = |k: &[i64]| Read { keys: k.to_vec() };
    let u = |key, value| Update { key, value };
    // (session, statement); sessions 0, 1, 2 are T1, T2, T3.
    let (sessions, script, observe): (usize, Vec<(usize, Statement)>, bool) = match (column, variant) {
        // Hermitage's MySQL "does not prevent Read Skew (G-single) on a write predicate": T1's
        // delete finds no row of value 20 (it sees T2's 18), while its reads see 20.
        (Column::GSingle, Variant::WritePredicate) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, r(&[1])),
                (1, Scan),
                (1, u(1, 12)),
                (1, u(2, 18)),
                (1, Commit),
                (0, DeleteWhere { value: 20 }),
                (0, r(&[2])),
                (0, Commit),
            ],
            true,
        ),
        (_, Variant::WritePredicate) => return None,
        (Column::G0, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, u(1, 11)),
                (1, u(1, 12)), // blocks where writes lock
                (0, u(2, 21)),
                (0, Commit),
                (1, u(2, 22)),
                (1, Commit),
            ],
            true,
        ),
        (Column::G1a, _) => (
            2,
            vec![(0, b.clone()), (1, b.clone()), (0, u(1, 101)), (1, Scan), (0, Rollback), (1, Scan), (1, Commit)],
            true,
        ),
        (Column::G1b, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, u(1, 101)),
                (1, Scan),
                (0, u(1, 11)),
                (0, Commit),
                (1, Scan),
                (1, Commit),
            ],
            true,
        ),
        (Column::G1c, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, u(1, 11)),
                (1, u(2, 22)),
                (0, r(&[2])),
                (1, r(&[1])),
                (0, Commit),
                (1, Commit),
            ],
            true,
        ),
        // Hermitage's MySQL script (scans), where PostgreSQL's reads one key at a time: a scan
        // between T2's two updates shows T2 half done where a dirty read is possible.
        (Column::Otv, _) => (
            3,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (2, b.clone()),
                (0, u(1, 11)),
                (0, u(2, 19)),
                (1, u(1, 12)), // blocks where writes lock
                (0, Commit),
                (2, Scan),
                (1, u(2, 18)),
                (2, Scan),
                (1, Commit),
                (2, Scan),
                (2, Commit),
            ],
            true,
        ),
        (Column::Pmp, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, Predicate { modulus: 3 }),
                (1, Insert { key: 3, value: 30 }),
                (1, Commit),
                (0, Predicate { modulus: 3 }),
                (0, Commit),
            ],
            false,
        ),
        (Column::P4, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, r(&[1])),
                (1, r(&[1])),
                (0, u(1, 11)),
                (1, u(1, 12)), // blocks where writes lock
                (0, Commit),
                (1, Commit),
            ],
            true,
        ),
        (Column::GSingle, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, r(&[1])),
                (1, r(&[1])),
                (1, r(&[2])),
                (1, u(1, 12)),
                (1, u(2, 18)),
                (1, Commit),
                (0, r(&[2])),
                (0, Commit),
            ],
            true,
        ),
        (Column::G2Item, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, r(&[1, 2])),
                (1, r(&[1, 2])),
                (0, u(1, 11)),
                (1, u(2, 21)),
                (0, Commit),
                (1, Commit),
            ],
            true,
        ),
        (Column::G2, _) => (
            2,
            vec![
                (0, b.clone()),
                (1, b.clone()),
                (0, Predicate { modulus: 3 }),
                (1, Predicate { modulus: 3 }),
                (0, Insert { key: 3, value: 30 }),
                (1, Insert { key: 4, value: 42 }),
                (0, Commit),
                (1, Commit),
            ],
            true,
        ),
    };
    let mut steps: Vec<Step> = script.into_iter().map(|(session, statement)| Step { session, statement }).collect();
    let mut sessions = sessions;
    let observer = observe.then_some(steps.len());
    if observe {
        for statement in [b, Scan, Commit] {
            steps.push(Step { session: sessions, statement });
        }
        sessions += 1;
    }
    Some(Test { column, variant, rows: vec![(1, 10), (2, 20)], sessions, steps, observer })
}

/// What grail says of one cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "cell")]
pub enum Cell {
    /// The test's history has none of the column's anomaly, and every level was decided.
    Prevented,
    /// grail found the column's anomaly: its name and grail's explanation.
    Occurs { anomaly: String, explanation: String },
    /// The main test prevents it; the write-predicate test shows it (Hermitage's "R/O").
    ReadOnly { anomaly: String, explanation: String },
    /// The test's history has none of the anomaly, but a level is unknown.
    Unknown { reason: String },
}

impl Cell {
    /// Hermitage's mark: ✓ prevented, — occurs, R/O prevented read-only; `?` unknown.
    pub fn mark(&self) -> &'static str {
        match self {
            Cell::Prevented => "✓",
            Cell::Occurs { .. } => "—",
            Cell::ReadOnly { .. } => "R/O",
            Cell::Unknown { .. } => "?",
        }
    }
}

/// What one test of a column gave: grail's report on its history (checked at every level,
/// with the analysis on: [`check_options`]) and what its history could not decide
/// ([`super::recorder::Recorder::undecided`]).
pub struct TestOutcome<'a> {
    pub variant: Variant,
    pub report: &'a Report,
    /// What leaves the cell undecided when nothing was found (an unknown version, a
    /// statement refused for a reason other than concurrency control).
    pub undecided: &'a [String],
    /// What the history could not hold ([`super::recorder::Recorder::unsupported`]): the cell
    /// is unknown whatever was found.
    pub unsupported: &'a [String],
}

/// The cell of `column` from its tests' outcomes, the main test's first: the main test's
/// verdict, but `R/O` where it prevents the anomaly and the write-predicate test shows it.
pub fn cell(column: Column, outcomes: &[TestOutcome]) -> Cell {
    let mut cells = outcomes.iter().map(|o| {
        let cell = if o.unsupported.is_empty() {
            cell_of(column, o.report, o.undecided)
        } else {
            Cell::Unknown { reason: o.unsupported.join("; ") }
        };
        (o.variant, cell)
    });
    let Some((_, main)) = cells.next() else {
        return Cell::Unknown { reason: "no test was run".into() };
    };
    if main != Cell::Prevented {
        return main;
    }
    for (variant, c) in cells {
        match c {
            Cell::Occurs { anomaly, explanation } if variant == Variant::WritePredicate => {
                return Cell::ReadOnly { anomaly, explanation }
            }
            Cell::Prevented => {}
            other => return other,
        }
    }
    Cell::Prevented
}

fn cell_of(column: Column, report: &Report, undecided: &[String]) -> Cell {
    let wanted = |kind: &str, name: &str| match column {
        Column::P4 => name == "lost update",
        Column::Otv => kind == "non-monotonic-read",
        // Anti-dependency cycles, through the item reads a predicate read implies.
        Column::G2 => matches!(kind, "G2-item" | "G-single" | "G-nonadjacent"),
        _ => kind == column.name(),
    };
    // The report's anomalies, then each level's cycles (a weak level's cycle, such as RC's
    // non-monotonic read, is listed with its level only).
    let listed = report.anomalies.iter().map(|a| (&a.kind, &a.name, &a.explanation));
    let cycles =
        report.levels.0.iter().flat_map(|(_, l)| l.cycles.iter().map(|c| (&c.anomaly, &c.name, &c.explanation)));
    if let Some((kind, name, explanation)) = listed.chain(cycles).find(|(k, n, _)| wanted(k, n)) {
        return Cell::Occurs { anomaly: format!("{kind} ({name})"), explanation: explanation.clone() };
    }
    let ldbc = match column {
        Column::Otv => Some("OTV"),
        Column::Pmp => Some("PMP"),
        _ => None,
    };
    if let Some(r) = ldbc.and_then(|c| report.analysis.as_ref()?.reads.iter().find(|r| r.class == c)) {
        return Cell::Occurs {
            anomaly: format!("{} (LDBC read anomaly)", r.class),
            explanation: r.explanation.clone(),
        };
    }
    let unknown: Vec<String> = report
        .levels
        .0
        .iter()
        .filter(|(_, l)| l.valid.is_none())
        .map(|(lv, l)| format!("{}: {}", lv.name(), l.reason.as_deref().unwrap_or("not decided")))
        .collect();
    if !unknown.is_empty() {
        return Cell::Unknown { reason: unknown.join("; ") };
    }
    if !undecided.is_empty() {
        return Cell::Unknown { reason: undecided.join("; ") };
    }
    if let Some(a) = report.analysis.as_ref().filter(|a| ldbc.is_some() && !a.complete) {
        return Cell::Unknown { reason: a.reason.clone().unwrap_or_else(|| "the analysis was not complete".into()) };
    }
    Cell::Prevented
}

/// How a test's history is checked: every level, with LDBC's read anomalies.
pub fn check_options() -> crate::report::CheckOptions {
    crate::report::CheckOptions {
        levels: crate::level::Level::ALL.to_vec(),
        analyze: Some(Default::default()),
        ..Default::default()
    }
}

/// Hermitage's published row for a database and level (its README's table, 2024), to compare
/// with: `None` where Hermitage has no row.
pub fn published(db: super::Database, level: Isolation) -> Option<[&'static str; 10]> {
    use super::Database::*;
    use Isolation::*;
    const SER: [&str; 10] = ["✓", "✓", "✓", "✓", "✓", "✓", "✓", "✓", "✓", "✓"];
    Some(match (db, level) {
        (Postgres, ReadCommitted) => ["✓", "✓", "✓", "✓", "✓", "—", "—", "—", "—", "—"],
        (Postgres, RepeatableRead) => ["✓", "✓", "✓", "✓", "✓", "✓", "✓", "✓", "—", "—"],
        (Postgres, Serializable) | (MySql, Serializable) => SER,
        (MySql, ReadUncommitted) => ["✓", "—", "—", "—", "—", "—", "—", "—", "—", "—"],
        (MySql, ReadCommitted) => ["✓", "✓", "✓", "✓", "✓", "—", "—", "—", "—", "—"],
        (MySql, RepeatableRead) => ["✓", "✓", "✓", "✓", "✓", "R/O", "—", "R/O", "—", "—"],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    //! Cells from recorded outcomes, without a database: what a session's statements returned
    //! is fed to the recorder as a driver would.
    use super::*;
    use crate::record::recorder::Recorder;
    use crate::record::{Cell as Value, Outcome, Workload};

    /// Record `test` as if every statement ran at once, reads returning `reads` in order.
    fn record(test: &Test, mut reads: Vec<Vec<(i64, i64)>>) -> Recorder {
        let mut rec = Recorder::new(Workload::RwRegister);
        rec.setup(&test.rows, 0);
        reads.reverse();
        for (i, step) in test.steps.iter().enumerate() {
            let at = i as i64 + 1;
            let outcome = match &step.statement {
                Statement::Read { .. } | Statement::Scan | Statement::Predicate { .. } => {
                    let rows = reads.pop().expect("a result for every read");
                    Outcome::Done { rows: rows.into_iter().map(|(k, v)| (k, Value::Int(v))).collect(), changed: 0 }
                }
                _ => Outcome::Done { rows: Vec::new(), changed: 1 },
            };
            match &step.statement {
                Statement::Begin { .. } => {
                    rec.begin(step.session, at).unwrap();
                }
                Statement::Commit => rec.end(step.session, crate::history::Status::Committed, at),
                Statement::Rollback => rec.end(step.session, crate::history::Status::Aborted, at),
                s => rec.record(step.session, s, &outcome).unwrap(),
            }
        }
        rec
    }

    fn cell_of(column: Column, rec: &Recorder) -> Cell {
        let h = rec.history().unwrap();
        let report = crate::report::check(&h, &check_options());
        cell(
            column,
            &[TestOutcome { variant: Variant::Main, report: &report, undecided: &rec.undecided(), unsupported: &[] }],
        )
    }

    fn test(column: Column, level: Isolation) -> Test {
        tests(column, level).remove(0)
    }

    #[test]
    fn a_lost_update_occurs_when_both_writers_commit() {
        let t = test(Column::P4, Isolation::ReadCommitted);
        let rec = record(&t, vec![vec![(1, 10)], vec![(1, 10)], vec![(1, 12), (2, 20)]]);
        match cell_of(Column::P4, &rec) {
            Cell::Occurs { anomaly, .. } => assert_eq!(anomaly, "G-single (lost update)"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_consistent_snapshot_prevents_read_skew() {
        let t = test(Column::GSingle, Isolation::RepeatableRead);
        // T1 reads 1 => 10 and, after T2 committed, still 2 => 20; the observer sees T2's.
        let reads = vec![vec![(1, 10)], vec![(1, 10)], vec![(2, 20)], vec![(2, 20)], vec![(1, 12), (2, 18)]];
        assert_eq!(cell_of(Column::GSingle, &record(&t, reads)), Cell::Prevented);
        // Read committed: T1 sees 2 => 18, T2's, after reading 1 => 10, which T2 overwrote.
        let reads = vec![vec![(1, 10)], vec![(1, 10)], vec![(2, 20)], vec![(2, 18)], vec![(1, 12), (2, 18)]];
        match cell_of(Column::GSingle, &record(&t, reads)) {
            Cell::Occurs { anomaly, .. } => assert_eq!(anomaly, "G-single (read skew)"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn predicate_reads_imply_the_reads_that_close_g2() {
        let t = test(Column::G2, Isolation::RepeatableRead);
        let all = vec![(1, 10), (2, 20), (3, 30), (4, 42)];
        let rec = record(&t, vec![vec![], vec![], all]);
        assert!(rec.undecided().is_empty());
        match cell_of(Column::G2, &rec) {
            Cell::Occurs { anomaly, explanation } => {
                assert_eq!(anomaly, "G2-item (write skew)");
                assert!(explanation.contains("T1 read key 4 = nil"), "{explanation}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_predicate_read_with_two_candidate_versions_leaves_the_cell_unknown() {
        // Key 2 has two versions that do not match `value % 3 = 0` (20 and 22): a read that
        // did not return it saw one of them, which is not known.
        let b = Statement::Begin { isolation: Isolation::ReadCommitted };
        let steps = vec![
            (0, b.clone()),
            (0, Statement::Update { key: 2, value: 22 }),
            (0, Statement::Commit),
            (1, b),
            (1, Statement::Predicate { modulus: 3 }),
            (1, Statement::Commit),
        ];
        let steps = steps.into_iter().map(|(session, statement)| Step { session, statement }).collect();
        let t = Test {
            column: Column::G2,
            variant: Variant::Main,
            rows: vec![(1, 10), (2, 20)],
            sessions: 2,
            steps,
            observer: None,
        };
        let rec = record(&t, vec![vec![]]);
        let undecided = rec.undecided();
        assert_eq!(undecided.len(), 1, "{undecided:?}");
        assert!(undecided[0].contains("key(s) 2,") && undecided[0].starts_with("T2's read"), "{undecided:?}");
        match cell_of(Column::G2, &rec) {
            Cell::Unknown { reason } => assert!(reason.contains("key(s) 2"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn read_skew_through_a_writes_predicate_is_read_only() {
        let [main, write]: [Test; 2] = tests(Column::GSingle, Isolation::RepeatableRead).try_into().unwrap();
        assert_eq!(write.variant, Variant::WritePredicate);
        // The main test: a snapshot (T1 reads 2 => 20 after T2 committed 18).
        let reads = vec![vec![(1, 10)], vec![(1, 10)], vec![(2, 20)], vec![(2, 20)], vec![(1, 12), (2, 18)]];
        let (main_rec, h) = {
            let r = record(&main, reads);
            let h = r.history().unwrap();
            (r, h)
        };
        let main_report = crate::report::check(&h, &check_options());
        // The write-predicate test: T1's delete of value 20 deletes nothing (it sees 18), its
        // read of key 2 then says 20. Every statement here changed one row but the delete.
        let mut rec = Recorder::new(Workload::RwRegister);
        rec.setup(&write.rows, 0);
        let mut reads = vec![vec![(1, 10)], vec![(1, 10), (2, 20)], vec![(2, 20)], vec![(1, 12), (2, 18)]];
        reads.reverse();
        for (i, step) in write.steps.iter().enumerate() {
            let at = i as i64 + 1;
            let outcome = match &step.statement {
                Statement::Read { .. } | Statement::Scan => Outcome::Done {
                    rows: reads.pop().unwrap().into_iter().map(|(k, v)| (k, Value::Int(v))).collect(),
                    changed: 0,
                },
                Statement::DeleteWhere { .. } => Outcome::Done { rows: Vec::new(), changed: 0 },
                _ => Outcome::Done { rows: Vec::new(), changed: 1 },
            };
            match &step.statement {
                Statement::Begin { .. } => {
                    rec.begin(step.session, at).unwrap();
                }
                Statement::Commit => rec.end(step.session, crate::history::Status::Committed, at),
                s => rec.record(step.session, s, &outcome).unwrap(),
            }
        }
        let wh = rec.history().unwrap();
        let write_report = crate::report::check(&wh, &check_options());
        let (mu, wu) = (main_rec.undecided(), rec.undecided());
        let outcomes = [
            TestOutcome { variant: Variant::Main, report: &main_report, undecided: &mu, unsupported: &[] },
            TestOutcome { variant: Variant::WritePredicate, report: &write_report, undecided: &wu, unsupported: &[] },
        ];
        match cell(Column::GSingle, &outcomes) {
            Cell::ReadOnly { anomaly, explanation } => {
                assert_eq!(anomaly, "G-single (read skew)");
                assert!(explanation.contains("T1 read key 2 = 18"), "{explanation}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(cell(Column::GSingle, &outcomes[..1]), Cell::Prevented);
    }

    #[test]
    fn an_indeterminate_transaction_has_no_completion_and_a_statement_refused_otherwise_leaves_cells_unknown() {
        let mut rec = Recorder::new(Workload::RwRegister);
        rec.setup(&[(1, 10)], 0);
        rec.begin(0, 1).unwrap();
        let lost = Outcome::Unknown { error: "connection lost".into() };
        rec.record(0, &Statement::Update { key: 1, value: 11 }, &Outcome::Done { rows: vec![], changed: 1 }).unwrap();
        assert_eq!(crate::record::ends(&Statement::Commit, &lost), Some(crate::history::Status::Indeterminate));
        rec.end(0, crate::history::Status::Indeterminate, 5);
        let h = rec.history().unwrap();
        assert_eq!(h.txns[1].status, crate::history::Status::Indeterminate);
        assert_eq!((h.txns[1].complete_time(), h.txns[1].complete_pos()), (None, None));
        assert!(rec.begin(Recorder::MAX_SESSIONS, 6).is_err());
        assert!(rec.begin(usize::MAX, 6).is_err());
        // Nothing found, but a statement failed for another reason than concurrency control.
        let report = crate::report::check(&h, &check_options());
        let errors = vec!["T1's update 1 => 11 failed: no such table".to_string()];
        let outcome = TestOutcome { variant: Variant::Main, report: &report, undecided: &errors, unsupported: &[] };
        assert_eq!(cell(Column::G0, &[outcome]), Cell::Unknown { reason: errors[0].clone() });
    }

    #[test]
    fn published_rows_have_a_mark_per_column() {
        for db in [crate::record::Database::Postgres, crate::record::Database::MySql] {
            for &l in db.levels() {
                let row = published(db, l).unwrap();
                assert!(row.iter().all(|m| ["✓", "—", "R/O"].contains(m)));
            }
        }
        assert!(published(crate::record::Database::Sqlite, Isolation::Serializable).is_none());
    }
}
