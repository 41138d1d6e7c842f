//! dbcop's JSON histories (Biswas and Enea, OOPSLA 2019; github.com/rnbguy/dbcop), in either
//! of two shapes:
//!
//! * today's: an array of sessions, each an array of transactions
//!   `{"events": [...], "committed": true}`, an event `{"Write": {"variable": 1, "version": 2}}`,
//!   `{"Read": {"variable": 1, "version": null}}` (null: the initial version) or the compact
//!   `["w", 1, 2]` / `["r", 1, null]`;
//! * the original (what dbcop's runner wrote, and PolySI reads as bincode): an object
//!   `{"params": ..., "info": ..., "start": ..., "end": ..., "data": [sessions]}` with
//!   transactions `{"events": [{"write": true, "variable": 1, "value": 2, "success": true}],
//!   "success": true}`; the types of dbcop's `src/db/history.rs`, read the way
//!   [`super::read_dbcop_bin`] reads their binary form (a write that did not succeed is an
//!   aborted write, a read that did not succeed is dropped).
//!
//! Sessions are numbered from 1 and transactions from 1 in session order. 0 is every
//! variable's initial value (dbcop starts every variable at 0): in the original shape as old
//! dbcop's verifier and PolySI read it (`kv::Initial::Zero`), in today's as today's dbcop
//! does (`kv::Initial::ZeroUnlessWritten`: a read of 0 reads an explicit write of 0 if any).

use super::kv::{aborted_writes, build, Event, Initial, Txn};
use crate::error::{Error, ErrorKind};
use crate::history::builder::Place;
use crate::history::{History, Status};
use serde_json::Value as Json;

pub fn read_dbcop(text: &[u8]) -> Result<History, Error> {
    let doc: Json = serde_json::from_slice(text).map_err(|e| {
        let (line, column) = super::serde_place(text, &e);
        Error::at(ErrorKind::Syntax, line, column, e.to_string())
    })?;
    let original = doc.is_object();
    let (sessions, enclosing): (&Vec<Json>, &[u8]) = match &doc {
        Json::Array(s) => (s, b"[["),
        Json::Object(o) => match o.get("data") {
            Some(Json::Array(s)) => (s, b"{[["),
            _ => {
                return Err(Error::at(
                    ErrorKind::Shape,
                    1,
                    1,
                    "expected a dbcop history object to have a \"data\" array of sessions",
                ))
            }
        },
        _ => {
            return Err(Error::at(
                ErrorKind::Shape,
                1,
                1,
                "expected a dbcop history: an array of sessions, or an object with \"data\"",
            ))
        }
    };
    let places = super::object_places(text, enclosing);
    let mut txns = Vec::new();
    let (mut aborted, mut first_aborted) = (Vec::new(), 0);
    let mut n = 0usize;
    for (si, session) in sessions.iter().enumerate() {
        let Json::Array(ts) = session else {
            let (line, column) = places.get(n).copied().unwrap_or((1, 1));
            return Err(Error::at(
                ErrorKind::Shape,
                line,
                column,
                format!("expected session {} to be an array of transactions", si + 1),
            ));
        };
        for t in ts {
            let (line, column) = places.get(n).copied().unwrap_or((1, 1));
            let place = Place { line, column };
            n += 1;
            let err = |msg: &str| {
                Error::at(ErrorKind::Shape, line, column, format!("session {}, transaction {}: {msg}", si + 1, n))
            };
            let obj = t.as_object().ok_or_else(|| err("expected a transaction object with \"events\""))?;
            let committed = match (obj.get("committed"), obj.get("success")) {
                (Some(Json::Bool(c)), _) | (None, Some(Json::Bool(c))) => *c,
                (None, None) => true,
                _ => return Err(err("expected \"committed\" (or \"success\") to be true or false")),
            };
            let Some(Json::Array(evs)) = obj.get("events") else {
                return Err(err("expected \"events\" to be an array"));
            };
            let mut events = Vec::with_capacity(evs.len());
            for ev in evs {
                match event(ev, place).map_err(|m| err(&m))? {
                    (e, true) => events.push(e),
                    (e, false) if e.write => {
                        if aborted.is_empty() {
                            first_aborted = line;
                        }
                        aborted.push(e);
                    }
                    (_, false) => {}
                }
            }
            let status = if committed { Status::Committed } else { Status::Aborted };
            txns.push(Txn { id: n as u64, session: Some(si as i64 + 1), status, events, line });
        }
    }
    let writes = aborted_writes(aborted, first_aborted, &txns);
    txns.extend(writes);
    build(txns, if original { Initial::Zero } else { Initial::ZeroUnlessWritten })
}

fn int(v: Option<&Json>, what: &str) -> Result<i64, String> {
    v.and_then(|v| v.as_i64()).ok_or_else(|| format!("expected {what} to be an integer"))
}

fn opt_int(v: Option<&Json>, what: &str) -> Result<Option<i64>, String> {
    match v {
        None | Some(Json::Null) => Ok(None),
        v => int(v, what).map(Some),
    }
}

/// One event, and whether it succeeded.
fn event(ev: &Json, place: Place) -> Result<(Event, bool), String> {
    let shape = "expected an event: {\"Read\": {...}}, {\"Write\": {...}}, [\"r\", variable, version] or {\"write\": bool, \"variable\": n, \"value\": n, \"success\": bool}";
    match ev {
        Json::Array(a) if a.len() == 3 => {
            let write = match a[0].as_str() {
                Some("w") => true,
                Some("r") => false,
                _ => return Err(shape.into()),
            };
            let key = int(a.get(1), "the variable")?;
            let value = if write {
                Some(int(a.get(2), "the written version")?)
            } else {
                opt_int(a.get(2), "the version read")?
            };
            Ok((Event { write, key, value, place, span: None }, true))
        }
        Json::Object(o) if o.len() == 1 && (o.contains_key("Read") || o.contains_key("Write")) => {
            let write = o.contains_key("Write");
            let inner = o.get(if write { "Write" } else { "Read" }).and_then(|v| v.as_object()).ok_or(shape)?;
            let key = int(inner.get("variable"), "\"variable\"")?;
            let value = if write {
                Some(int(inner.get("version"), "the written \"version\"")?)
            } else {
                opt_int(inner.get("version"), "\"version\"")?
            };
            Ok((Event { write, key, value, place, span: None }, true))
        }
        Json::Object(o) if o.contains_key("write") && o.contains_key("variable") => {
            let write = o.get("write").and_then(|v| v.as_bool()).ok_or("expected \"write\" to be true or false")?;
            let success = o.get("success").and_then(|v| v.as_bool()) != Some(false);
            let key = int(o.get("variable"), "\"variable\"")?;
            let value = int(o.get("value"), "\"value\"")?;
            Ok((Event { write, key, value: Some(value), place, span: None }, success))
        }
        _ => Err(shape.into()),
    }
}
