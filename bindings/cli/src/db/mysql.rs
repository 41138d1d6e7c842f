//! MySQL and MariaDB through the `mysql` crate (no TLS, no compression).

use super::{is_select, Connection, DbError};
use grail_core::record::Cell;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, Value};

pub struct My(Conn);

impl My {
    pub fn connect(url: &str) -> Result<My, DbError> {
        // The crate takes `mysql://` only; `mariadb://` is the same protocol.
        let url = url.strip_prefix("mariadb://").map_or_else(|| url.to_string(), |rest| format!("mysql://{rest}"));
        let opts = Opts::from_url(&url).map_err(|e| DbError::refused(e.to_string()))?;
        Conn::new(opts).map(My).map_err(err)
    }
}

fn err(e: mysql::Error) -> DbError {
    // The server closes a killed connection (1927, MariaDB's ER_CONNECTION_KILLED) and those
    // of a shutdown (1053): the statement's outcome is unknown, as for a broken socket.
    let lost = match &e {
        mysql::Error::IoError(_) | mysql::Error::DriverError(_) => true,
        mysql::Error::MySqlError(m) => matches!(m.code, 1927 | 1053),
        _ => false,
    };
    let message = match &e {
        mysql::Error::MySqlError(m) => format!("ERROR {} ({}): {}", m.code, m.state, m.message),
        other => other.to_string(),
    };
    // A deadlock (1213), a lock wait timeout (1205), a changed record under MariaDB's
    // snapshot isolation (1020).
    let conflict = matches!(&e, mysql::Error::MySqlError(m) if matches!(m.code, 1213 | 1205 | 1020));
    DbError { message, lost, conflict }
}

fn cell(v: &Value) -> Result<Cell, DbError> {
    Ok(match v {
        Value::NULL => Cell::Null,
        Value::Int(i) => Cell::Int(*i),
        Value::UInt(u) => {
            Cell::Int(i64::try_from(*u).map_err(|_| DbError::refused(format!("value {u} out of range")))?)
        }
        // The text protocol sends every value as text; the recorder reads it by the workload.
        Value::Bytes(b) => Cell::Text(String::from_utf8_lossy(b).into_owned()),
        other => return Err(DbError::refused(format!("unexpected value {other:?}"))),
    })
}

impl Connection for My {
    fn run(&mut self, sql: &str) -> Result<(Vec<grail_core::record::Row>, u64), DbError> {
        if !is_select(sql) {
            self.0.query_drop(sql).map_err(err)?;
            return Ok((Vec::new(), self.0.affected_rows()));
        }
        let rows: Vec<mysql::Row> = self.0.query(sql).map_err(err)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let id = match r.as_ref(0).map(cell).transpose()? {
                Some(Cell::Int(i)) => Some(i),
                Some(Cell::Text(t)) => t.parse().ok(),
                _ => None,
            };
            let id = id.ok_or_else(|| DbError::refused(format!("expected an integer id in {r:?}")))?;
            let value = r.as_ref(1).map(cell).transpose()?.unwrap_or(Cell::Null);
            out.push((id, value));
        }
        Ok((out, 0))
    }

    fn version(&mut self) -> String {
        self.0.query_first::<String, _>("select version()").ok().flatten().map_or_else(
            || "MySQL".into(),
            |v| if v.contains("MariaDB") { format!("MariaDB {v}") } else { format!("MySQL {v}") },
        )
    }
}
