//! The SQL of each statement, per database. One table per workload, `id` the primary key:
//!
//! | workload | PostgreSQL | MySQL/MariaDB | SQLite |
//! |---|---|---|---|
//! | rw-register | `id int primary key, value bigint` | the same, `engine=innodb` | the same |
//! | list-append | `id int primary key, value text` (`1,2,3`) | the same, `engine=innodb` | the same |
//!
//! A transaction starts with `begin isolation level L` (PostgreSQL), `set transaction isolation
//! level L; start transaction` (MySQL: the level is the next transaction's), or `begin`
//! (SQLite, always serializable). An append is an upsert that concatenates (`||` or
//! `concat`); reads select by key, in key order.

use super::{Database, Isolation, Statement, Workload};
use crate::error::{Error, ErrorKind};

/// Whether `name` can be a table's name as is in every database's SQL: a letter or `_`, then
/// letters, digits and `_`, at most 63 characters (PostgreSQL's limit).
pub fn check_table(name: &str) -> Result<(), Error> {
    let mut chars = name.chars();
    let first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first && name.len() <= 63 && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Usage,
        format!("table name {name:?}: expected a letter or _, then letters, digits and _ (at most 63)"),
    ))
}

/// What a session runs once, after it connects: with `lock_timeout_ms`, a statement waits at
/// most that long for a row lock, then fails (PostgreSQL's `lock_timeout`; MySQL's
/// `innodb_lock_wait_timeout`, in whole seconds, at least 1). PostgreSQL looks for deadlocks
/// only after `deadlock_timeout` (1 s by default, settable by superusers only), so on a few hot
/// keys most of its time goes to waiting for them; a lock timeout ends those waits sooner.
/// SQLite's connection has its own busy timeout (and returns at once where waiting could
/// deadlock), so nothing is run there.
pub fn session_setup(db: Database, lock_timeout_ms: Option<u64>) -> Vec<String> {
    match (db, lock_timeout_ms) {
        (Database::Postgres, Some(ms)) => vec![format!("set lock_timeout = {ms}")],
        (Database::MySql, Some(ms)) => {
            vec![format!("set session innodb_lock_wait_timeout = {}", ms.div_ceil(1000).max(1))]
        }
        _ => Vec::new(),
    }
}

/// The statements that (re)create `table` for `workload`, empty.
pub fn create_table(db: Database, table: &str, workload: Workload) -> Vec<String> {
    let ty = match workload {
        Workload::RwRegister => "bigint",
        Workload::ListAppend => "text",
    };
    let engine = if db == Database::MySql { " engine=innodb" } else { "" };
    vec![
        format!("drop table if exists {table}"),
        format!("create table {table} (id int primary key, value {ty}){engine}"),
    ]
}

/// The SQL of `stmt` on `table`: one or more statements, run in order on the session's
/// connection. Fails for a level the database does not offer.
pub fn statements(db: Database, table: &str, stmt: &Statement) -> Result<Vec<String>, Error> {
    let one = |s: String| Ok(vec![s]);
    match stmt {
        Statement::Begin { isolation } => begin(db, *isolation),
        Statement::Read { keys } => {
            let keys: Vec<String> = keys.iter().map(i64::to_string).collect();
            one(format!("select id, value from {table} where id in ({}) order by id", keys.join(", ")))
        }
        Statement::Scan => one(format!("select id, value from {table} order by id")),
        Statement::Predicate { modulus } => {
            one(format!("select id, value from {table} where value % {modulus} = 0 order by id"))
        }
        Statement::Update { key, value } => one(format!("update {table} set value = {value} where id = {key}")),
        Statement::Insert { key, value } => one(format!("insert into {table} (id, value) values ({key}, {value})")),
        Statement::DeleteWhere { value } => one(format!("delete from {table} where value = {value}")),
        Statement::Upsert { key, value } => one(match db {
            Database::MySql => {
                format!("insert into {table} (id, value) values ({key}, {value}) on duplicate key update value = {value}")
            }
            _ => format!(
                "insert into {table} (id, value) values ({key}, {value}) on conflict (id) do update set value = {value}"
            ),
        }),
        Statement::Append { key, value } => one(match db {
            Database::MySql => format!(
                "insert into {table} (id, value) values ({key}, '{value}') on duplicate key update value = concat(value, ',{value}')"
            ),
            _ => format!(
                "insert into {table} (id, value) values ({key}, '{value}') on conflict (id) do update set value = {table}.value || ',{value}'"
            ),
        }),
        Statement::Commit => one("commit".into()),
        Statement::Rollback => one("rollback".into()),
    }
}

fn begin(db: Database, level: Isolation) -> Result<Vec<String>, Error> {
    let level = level.check_offered(db)?;
    Ok(match db {
        Database::Postgres => vec![format!("begin isolation level {}", level.sql())],
        Database::MySql => vec![format!("set transaction isolation level {}", level.sql()), "start transaction".into()],
        Database::Sqlite => vec!["begin".into()],
    })
}

/// A list-append row's value (`1,2,3`) as its elements.
pub fn parse_list(text: &str) -> Result<Vec<i64>, Error> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|e| {
            e.trim().parse::<i64>().map_err(|_| {
                Error::new(ErrorKind::Shape, format!("expected a comma-separated list of integers, found {text:?}"))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_names_the_level_each_database_way() {
        let b = Statement::Begin { isolation: Isolation::RepeatableRead };
        assert_eq!(statements(Database::Postgres, "t", &b).unwrap(), ["begin isolation level repeatable read"]);
        assert_eq!(
            statements(Database::MySql, "t", &b).unwrap(),
            ["set transaction isolation level repeatable read", "start transaction"]
        );
        let e = statements(Database::Sqlite, "t", &b).unwrap_err();
        assert!(e.message.contains("SQLite does not offer \"repeatable read\""), "{}", e.message);
    }

    /// docs/record.md shows each database's SQL: it is what this module writes.
    #[test]
    fn the_documented_sql_is_what_is_run() {
        let doc = include_str!("../../../docs/record.md");
        let t = "grail_record";
        for db in [Database::Postgres, Database::MySql, Database::Sqlite] {
            let mut sql: Vec<String> = [Workload::RwRegister, Workload::ListAppend]
                .into_iter()
                .flat_map(|w| create_table(db, t, w))
                .chain(session_setup(db, Some(20)))
                .collect();
            for stmt in [
                Statement::Begin { isolation: Isolation::Serializable },
                Statement::Read { keys: vec![3, 5] },
                Statement::Upsert { key: 3, value: 17 },
                Statement::Append { key: 3, value: 17 },
                Statement::Commit,
                Statement::Rollback,
            ] {
                sql.extend(statements(db, t, &stmt).unwrap());
            }
            for s in sql {
                // Markdown tables escape `|`.
                let shown = format!("`{}`", s.replace('|', "\\|"));
                assert!(doc.contains(&shown), "docs/record.md does not show {db:?}'s {shown}");
            }
        }
    }

    #[test]
    fn table_names_are_plain_identifiers() {
        assert!(check_table("grail_record2").is_ok());
        for bad in ["", "2t", "t; drop table x", "t-1", &"t".repeat(64)] {
            assert!(check_table(bad).unwrap_err().message.contains("table name"), "{bad}");
        }
    }

    #[test]
    fn lists_parse_and_bad_ones_are_named() {
        assert_eq!(parse_list("1,2,30").unwrap(), [1, 2, 30]);
        assert_eq!(parse_list("").unwrap(), Vec::<i64>::new());
        assert!(parse_list("1,x").unwrap_err().message.contains("\"1,x\""));
    }
}
