//! ArangoDB's write-ahead log (JSON lines) as the version order of a register history.
//!
//! Type 2200 begins a transaction, 2300 writes a document (`data._key`, `data.rwAttr`), 2201
//! commits; other types are skipped. A write of a transaction that began but never committed
//! is dropped; a write with no begin marker (hand-made logs) counts as committed. Writes are
//! matched to the history by (key, value), since the log's `tid` is the database's own id.

use crate::error::{Error, ErrorKind};
use crate::hash::{Map, Set};
use crate::history::{History, KeyId, Value, VersionOrder};
use serde_json::Value as Json;

/// Read a WAL and attach it to `h` as its version order.
pub fn read_wal(h: &mut History, text: &[u8]) -> Result<(), Error> {
    let keys = super::key_index(h);
    let mut began: Set<String> = Set::default();
    let mut committed: Set<String> = Set::default();
    // (tid, key, value) in log order
    let mut writes: Vec<(Option<String>, KeyId, Value)> = Vec::new();
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        let line_no = n as u32 + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let rec: Json = serde_json::from_slice(line).map_err(|e| {
            Error::at(
                ErrorKind::Wal,
                line_no,
                super::serde_place(line, &e).1,
                format!("expected a JSON object a line: {e}"),
            )
        })?;
        let tid = rec.get("tid").and_then(|t| match t {
            Json::String(s) => Some(s.clone()),
            Json::Number(n) => Some(n.to_string()),
            _ => None,
        });
        match rec.get("type").and_then(Json::as_i64) {
            Some(2200) => {
                began.extend(tid);
            }
            Some(2201) => {
                committed.extend(tid);
            }
            Some(2300) => {
                let data = rec.get("data").ok_or_else(|| {
                    Error::at(ErrorKind::Wal, line_no, 1, "expected \"data\" in a 2300 (document write) record")
                })?;
                let key = match data.get("_key") {
                    Some(Json::String(s)) => s.clone(),
                    Some(Json::Number(n)) => n.to_string(),
                    _ => return Err(Error::at(ErrorKind::Wal, line_no, 1, "expected data._key in a 2300 record")),
                };
                let Some(&key) = keys.get(&key) else { continue };
                let value = match data.get("rwAttr") {
                    Some(Json::Number(n)) if n.is_i64() => Value::Int(n.as_i64().unwrap_or_default()),
                    Some(Json::String(s)) => match h.strings.lookup(s) {
                        Some(sym) => Value::Str(sym),
                        None => continue,
                    },
                    _ => {
                        return Err(Error::at(
                            ErrorKind::Wal,
                            line_no,
                            1,
                            "expected data.rwAttr (the value written) in a 2300 record",
                        ))
                    }
                };
                writes.push((tid, key, value));
            }
            Some(_) => {}
            None => {
                return Err(Error::at(ErrorKind::Wal, line_no, 1, "expected a numeric \"type\" in each log record"))
            }
        }
    }
    let mut order = VersionOrder { per_key: Map::default() };
    for (tid, key, value) in writes {
        let keep = match &tid {
            Some(t) if began.contains(t) => committed.contains(t),
            _ => true,
        };
        if keep {
            order.per_key.entry(key).or_default().push(value);
        }
    }
    h.version_order = Some(order);
    Ok(())
}
