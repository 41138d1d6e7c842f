//! SQLite through `rusqlite` (the library bundled, so nothing to install). Sessions open the
//! same file; WAL mode, so that readers do not wait for a writer, and a busy timeout, so that
//! a writer waits for another's lock as a server's session would (then fails with SQLITE_BUSY).

use super::{is_select, Connection, DbError};
use grail_core::record::Cell;
use rusqlite::types::ValueRef;

pub struct Lite(rusqlite::Connection);

impl Lite {
    pub fn connect(url: &str) -> Result<Lite, DbError> {
        let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        // Each session opens the file: an in-memory database would be one per connection.
        if path.is_empty() || path.starts_with(":memory:") || path.contains("mode=memory") {
            return Err(DbError::refused("expected sqlite:PATH to a file: each session opens its own connection, and an in-memory database is one per connection"));
        }
        let c = rusqlite::Connection::open(path).map_err(err)?;
        c.busy_timeout(std::time::Duration::from_secs(5)).map_err(err)?;
        c.pragma_update(None, "journal_mode", "wal").map_err(err)?;
        Ok(Lite(c))
    }
}

fn err(e: rusqlite::Error) -> DbError {
    // SQLITE_BUSY (its _SNAPSHOT and _TIMEOUT too) and SQLITE_LOCKED: another transaction's lock.
    let conflict =
        matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked));
    DbError { message: e.to_string(), lost: false, conflict }
}

impl Connection for Lite {
    fn run(&mut self, sql: &str) -> Result<(Vec<grail_core::record::Row>, u64), DbError> {
        if !is_select(sql) {
            return self.0.execute(sql, []).map(|n| (Vec::new(), n as u64)).map_err(err);
        }
        let mut stmt = self.0.prepare(sql).map_err(err)?;
        let mut rows = stmt.query([]).map_err(err)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(err)? {
            let id: i64 = r.get(0).map_err(err)?;
            let value = match r.get_ref(1).map_err(err)? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(i) => Cell::Int(i),
                ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                other => return Err(DbError::refused(format!("unexpected value {other:?}"))),
            };
            out.push((id, value));
        }
        Ok((out, 0))
    }

    fn version(&mut self) -> String {
        format!("SQLite {}", rusqlite::version())
    }
}
