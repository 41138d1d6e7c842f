//! Connections to real databases, one per session, behind one small trait: run a statement,
//! get its rows (a select) or how many rows it changed. The drivers are maintained crates:
//! `postgres`, `mysql` (MySQL and MariaDB), `rusqlite`. What to run is core's
//! (`grail_core::record`); this module only carries SQL and results.

mod mysql;
mod postgres;
mod sqlite;

use grail_core::record::{Database, Row};

/// A statement the database refused, or a connection that broke.
#[derive(Debug, Clone)]
pub struct DbError {
    pub message: String,
    /// The connection is gone: whether the statement took effect is unknown.
    pub lost: bool,
    /// Refused by concurrency control (a serialization failure, a deadlock, a lock timeout, a
    /// busy database), as opposed to any other error (a missing table, a privilege).
    pub conflict: bool,
}

impl DbError {
    pub fn refused(message: impl Into<String>) -> DbError {
        DbError { message: message.into(), lost: false, conflict: false }
    }
}

/// One session's connection.
pub trait Connection: Send {
    /// Run one statement: a `select` gives its rows (`id`, `value`), anything else how many
    /// rows it changed.
    fn run(&mut self, sql: &str) -> Result<(Vec<Row>, u64), DbError>;
    /// The server's name and version, for reports.
    fn version(&mut self) -> String;
    /// Run the statements of one [`grail_core::record::Statement`] until one fails; a
    /// statement that fails is rolled back at once, with its transaction (SQLite keeps a
    /// transaction whose commit was refused open; the others have ended it, and a rollback
    /// then only warns).
    fn run_all(&mut self, sqls: &[String]) -> Result<(Vec<Row>, u64), DbError> {
        let mut last = (Vec::new(), 0);
        for s in sqls {
            match self.run(s) {
                Ok(r) => last = r,
                Err(e) => {
                    if !e.lost {
                        let _ = self.run("rollback");
                    }
                    return Err(e);
                }
            }
        }
        Ok(last)
    }
}

/// Open a connection to `url` (`postgresql://`, `mysql://` or `mariadb://`, `sqlite:PATH`).
pub fn connect(url: &str) -> Result<Box<dyn Connection>, String> {
    let db = Database::of_url(url).map_err(|e| e.message)?;
    let r: Result<Box<dyn Connection>, DbError> = match db {
        Database::Postgres => postgres::Pg::connect(url).map(|c| Box::new(c) as _),
        Database::MySql => mysql::My::connect(url).map(|c| Box::new(c) as _),
        Database::Sqlite => sqlite::Lite::connect(url).map(|c| Box::new(c) as _),
    };
    r.map_err(|e| format!("cannot connect to {}: {}", redact(url), e.message))
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &creds[..c], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

fn is_select(sql: &str) -> bool {
    sql.trim_start().get(..6).is_some_and(|w| w.eq_ignore_ascii_case("select"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_stay_out_of_messages() {
        assert_eq!(super::redact("postgresql://u:secret@h:5432/db"), "postgresql://u:***@h:5432/db");
        assert_eq!(super::redact("mysql://u@h/db"), "mysql://u@h/db");
        assert_eq!(super::redact("sqlite:/tmp/a.db"), "sqlite:/tmp/a.db");
    }
}
