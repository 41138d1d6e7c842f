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

    #[test]
    fn lists_parse_and_bad_ones_are_named() {
        assert_eq!(parse_list("1,2,30").unwrap(), [1, 2, 30]);
        assert_eq!(parse_list("").unwrap(), Vec::<i64>::new());
        assert!(parse_list("1,x").unwrap_err().message.contains("\"1,x\""));
    }
}
