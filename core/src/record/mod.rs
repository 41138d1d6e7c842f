//! Recording real databases: the statements a workload runs, in each database's SQL, and the
//! history they leave. No IO here: the CLI (`grail record`, `grail hermitage`) runs the
//! statements over a driver and hands back what each returned; this module decides what to
//! run, writes the SQL and builds the [`History`](crate::History) from the results.
//!
//! * [`sql`]: the tables and statements per database (PostgreSQL, MySQL/MariaDB, SQLite).
//! * [`recorder`]: results of statements, per session, into a history (EDN and native JSON).
//! * [`workload`]: randomised transactions per session (`grail record`).
//! * [`hermitage`]: Hermitage's tests as scripted interleavings, and its table's cells decided
//!   from the recorded histories.

pub mod hermitage;
pub mod recorder;
pub mod sql;
pub mod workload;

use crate::error::{Error, ErrorKind};
use serde::Serialize;

/// The databases grail records, by the SQL they speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Database {
    Postgres,
    /// MySQL and MariaDB (InnoDB).
    MySql,
    Sqlite,
}

impl Database {
    /// The database of a connection URL: `postgresql://` or `postgres://`, `mysql://` or
    /// `mariadb://`, `sqlite:PATH`.
    pub fn of_url(url: &str) -> Result<Database, Error> {
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        match scheme.as_str() {
            "postgresql" | "postgres" => Ok(Database::Postgres),
            "mysql" | "mariadb" => Ok(Database::MySql),
            "sqlite" => Ok(Database::Sqlite),
            _ => Err(Error::new(
                ErrorKind::Usage,
                format!("unknown database URL {url:?}: expected postgresql://..., mysql://... or sqlite:PATH"),
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Database::Postgres => "PostgreSQL",
            Database::MySql => "MySQL/MariaDB",
            Database::Sqlite => "SQLite",
        }
    }

    /// The isolation levels the database offers, by its own names, weakest first.
    /// PostgreSQL accepts `read uncommitted` but runs it as read committed (its documentation,
    /// 13.2), so it is not listed; SQLite's transactions are serializable (its `read_uncommitted`
    /// pragma acts only in shared-cache mode, which grail does not use).
    pub fn levels(self) -> &'static [Isolation] {
        use Isolation::*;
        match self {
            Database::Postgres => &[ReadCommitted, RepeatableRead, Serializable],
            Database::MySql => &[ReadUncommitted, ReadCommitted, RepeatableRead, Serializable],
            Database::Sqlite => &[Serializable],
        }
    }

    /// The level a session gets when it asks for none.
    pub fn default_level(self) -> Isolation {
        match self {
            Database::Postgres => Isolation::ReadCommitted,
            Database::MySql => Isolation::RepeatableRead,
            Database::Sqlite => Isolation::Serializable,
        }
    }
}

/// An isolation level by the SQL standard's name, as the databases spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    pub const ALL: [Isolation; 4] =
        [Isolation::ReadUncommitted, Isolation::ReadCommitted, Isolation::RepeatableRead, Isolation::Serializable];

    /// `read committed`, as SQL writes it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadUncommitted => "read uncommitted",
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }

    /// Reads `read committed`, `read-committed`, `READ_COMMITTED`, `rc`, ...
    pub fn parse(s: &str) -> Result<Isolation, Error> {
        let norm: String =
            s.trim().chars().map(|c| if c == '-' || c == '_' { ' ' } else { c.to_ascii_lowercase() }).collect();
        let short = match norm.as_str() {
            "ru" => Some(Isolation::ReadUncommitted),
            "rc" => Some(Isolation::ReadCommitted),
            "rr" => Some(Isolation::RepeatableRead),
            "ser" | "sr" => Some(Isolation::Serializable),
            _ => None,
        };
        short.or_else(|| Isolation::ALL.into_iter().find(|l| l.sql() == norm)).ok_or_else(|| {
            Error::new(
                ErrorKind::Usage,
                format!(
                    "unknown isolation level {s:?}: expected read uncommitted, read committed, repeatable read or serializable"
                ),
            )
        })
    }

    /// The level, if `db` offers it; otherwise why not.
    pub fn check_offered(self, db: Database) -> Result<Isolation, Error> {
        if db.levels().contains(&self) {
            return Ok(self);
        }
        let offered: Vec<&str> = db.levels().iter().map(|l| l.sql()).collect();
        Err(Error::new(
            ErrorKind::Usage,
            format!("{} does not offer {:?} here: it offers {}", db.name(), self.sql(), offered.join(", ")),
        ))
    }
}

/// What a table's `value` column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// An integer per row (`rw-register`).
    RwRegister,
    /// A comma-separated list of integers per row, appended to (`list-append`).
    ListAppend,
}

/// One statement, whatever the database. Every table has an integer primary key `id` and a
/// column `value` (see [`Workload`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "statement")]
pub enum Statement {
    Begin {
        isolation: Isolation,
    },
    /// The rows of these keys.
    Read {
        keys: Vec<i64>,
    },
    /// Every row.
    Scan,
    /// The rows whose value is a multiple of `modulus` (a predicate read).
    Predicate {
        modulus: i64,
    },
    /// `update ... set value = v where id = k`: changes the row if it exists.
    Update {
        key: i64,
        value: i64,
    },
    /// `delete ... where value = v`: a write whose predicate reads the rows it deletes.
    DeleteWhere {
        value: i64,
    },
    /// Inserts a row (fails if it exists).
    Insert {
        key: i64,
        value: i64,
    },
    /// Sets a row's value, inserting it if absent.
    Upsert {
        key: i64,
        value: i64,
    },
    /// Appends to a row's list, inserting it if absent.
    Append {
        key: i64,
        value: i64,
    },
    Commit,
    Rollback,
}

/// A cell of a row a statement returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Cell {
    Int(i64),
    Text(String),
    Null,
}

/// A row: its key and its value.
pub type Row = (i64, Cell);

/// What became of one statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "result")]
pub enum Outcome {
    /// It ran; a read gives its rows (empty for other statements), a write how many rows it
    /// changed.
    Done { rows: Vec<Row>, changed: u64 },
    /// The database refused it (a serialization failure, a deadlock, a constraint): the
    /// transaction is over, its effects rolled back.
    Failed { error: String },
    /// Not known whether it took effect: the connection was lost (for a commit, the
    /// transaction is indeterminate).
    Unknown { error: String },
}

/// How a statement's outcome ends its transaction, if it does: a commit done commits, a
/// rollback done or any refused statement aborts (the session rolls back at once), a commit
/// whose connection broke is indeterminate, and any other statement whose connection broke
/// aborts (commit was never sent: the server rolls back a disconnected session's transaction).
pub fn ends(stmt: &Statement, outcome: &Outcome) -> Option<crate::history::Status> {
    use crate::history::Status;
    match (outcome, stmt) {
        (Outcome::Done { .. }, Statement::Commit) => Some(Status::Committed),
        (Outcome::Done { .. }, Statement::Rollback) => Some(Status::Aborted),
        (Outcome::Done { .. }, _) => None,
        (Outcome::Failed { .. }, _) => Some(Status::Aborted),
        (Outcome::Unknown { .. }, Statement::Commit) => Some(Status::Indeterminate),
        (Outcome::Unknown { .. }, _) => Some(Status::Aborted),
    }
}
