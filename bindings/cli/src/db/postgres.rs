//! PostgreSQL through the `postgres` crate (no TLS: tests and local servers).

use super::{is_select, Connection, DbError};
use grail_core::record::Cell;
use postgres::{Client, NoTls};

pub struct Pg(Client);

impl Pg {
    pub fn connect(url: &str) -> Result<Pg, DbError> {
        Client::connect(url, NoTls).map(Pg).map_err(err)
    }
}

fn err(e: postgres::Error) -> DbError {
    let message = match e.as_db_error() {
        Some(d) => format!("{}: {} (SQLSTATE {})", d.severity(), d.message(), d.code().code()),
        None => e.to_string(),
    };
    // A FATAL error (the session terminated by an administrator, the server shutting down)
    // ends the connection: the server may have done the statement before it said so.
    // No error from the server (a broken socket, "error communicating with the server"): the
    // statement may or may not have been done.
    let fatal = e.as_db_error().is_none_or(|d| matches!(d.severity(), "FATAL" | "PANIC"));
    // serialization_failure, deadlock_detected, lock_not_available (a lock timeout).
    let conflict = e.as_db_error().is_some_and(|d| matches!(d.code().code(), "40001" | "40P01" | "55P03"));
    DbError { message, lost: e.is_closed() || fatal, conflict }
}

impl Connection for Pg {
    fn run(&mut self, sql: &str) -> Result<(Vec<grail_core::record::Row>, u64), DbError> {
        if !is_select(sql) {
            return self.0.execute(sql, &[]).map(|n| (Vec::new(), n)).map_err(err);
        }
        let rows = self.0.query(sql, &[]).map_err(err)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let id: i64 = match r.try_get::<_, i32>(0) {
                Ok(i) => i as i64,
                Err(_) => r.try_get::<_, i64>(0).map_err(err)?,
            };
            let value = if let Ok(v) = r.try_get::<_, Option<i64>>(1) {
                v.map_or(Cell::Null, Cell::Int)
            } else if let Ok(v) = r.try_get::<_, Option<i32>>(1) {
                v.map_or(Cell::Null, |v| Cell::Int(v as i64))
            } else {
                r.try_get::<_, Option<String>>(1).map_err(err)?.map_or(Cell::Null, Cell::Text)
            };
            out.push((id, value));
        }
        Ok((out, 0))
    }

    fn version(&mut self) -> String {
        self.0
            .query_one("show server_version", &[])
            .ok()
            .and_then(|r| r.try_get::<_, String>(0).ok())
            .map_or_else(|| "PostgreSQL".into(), |v| format!("PostgreSQL {v}"))
    }
}
