//! TimeKiller's JSON histories (Chronos and Aion; Ye et al., ICDE 2025), key-value and list.
//!
//! Read as TimeKiller's own loaders read them: <https://github.com/FertileFragrance/TimeKiller>,
//! `src/main/java/reader/KVFastReader.java` (commit 31e0c643b995c331935f2fa043640270290bd900),
//! `reader/ListFastReader.java` (532a93f4c2e43fbdc7b0d78f8b61787898601040) and
//! `history/transaction/HybridLogicalClock.java` (181adf315cda9db9f2ec86992baff04e3291f22a); the
//! format is in its `README.md` (0757feefeeac7aec1691258f295fe42ce6f6b95e) and
//! `examples/format-kv.json` (c05679b314b6c78839c68ecc117ecfa82f4b698f):
//!
//! ```json
//! [{"tid": 67, "sid": 19, "sts": {"p": 1691420095436341, "l": 61}, "cts": {"p": 1691420095659914, "l": 18},
//!   "ops": [{"t": "w", "k": 7, "v": 2}, {"t": "r", "k": 8, "v": 3}]}]
//! ```
//!
//! * The file is one JSON array of transactions, in session order within each session.
//! * `tid` and `sid` are read as strings (`getString`): a number and the string of its digits
//!   are the same. Transaction ids that are all non-negative integers are grail's ids; otherwise
//!   each transaction's id is its position in the array and the `tid` its label. A session id
//!   that is an integer is the process; other session ids are numbered in order of appearance.
//! * `sts` and `cts` are hybrid logical clocks `{"p": .., "l": ..}`, each part a long or a string
//!   holding one (`getLong`; `examples/format-kv.json` writes `p` as a string), compared by `p`
//!   then `l`; a start after its commit is an error, as TimeKiller throws. (TimeKiller needs
//!   `l`; grail takes a missing `l` as 0, as its README suggests writing it.)
//! * `ops`: `t` is `w`/`write`/`r`/`read` (key-value) or `a`/`append`/`r`/`read` (list), in any
//!   case; `k` a long; `v` a long or null (key-value; a read of null reads the initial value),
//!   or a list of longs, null or absent for the empty list (a list read). TimeKiller keeps the
//!   last element of a list read; grail keeps the whole list. A file that mixes writes and
//!   appends is an error (TimeKiller is told which with `--data_model`).
//! * Every transaction committed: TimeKiller's histories hold no aborted ones.
//! * Reads of null read the initial value (TimeKiller's default `--initial_value null`); with
//!   [`TimeKillerOptions::initial_value`] (TimeKiller's `--initial_value`), reads of that value
//!   read the initial value too.

use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, OpKind, Status, Value};
use crate::timestamps::{ts_from_json, Ts};
use serde_json::Value as Json;

/// Options of the TimeKiller reader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeKillerOptions {
    /// TimeKiller's `--initial_value`: a register read of this value reads the initial value.
    pub initial_value: Option<i64>,
}

/// Read a TimeKiller history.
pub fn read_timekiller(text: &[u8]) -> Result<History, Error> {
    read_timekiller_with(text, TimeKillerOptions::default())
}

/// Read a TimeKiller history with TimeKiller's options.
pub fn read_timekiller_with(text: &[u8], opts: TimeKillerOptions) -> Result<History, Error> {
    let doc: Json = serde_json::from_slice(text).map_err(|e| {
        let (line, column) = super::serde_place(text, &e);
        Error::at(ErrorKind::Syntax, line, column, e.to_string())
    })?;
    let Json::Array(entries) = doc else {
        return Err(Error::at(ErrorKind::Shape, 1, 1, "expected a TimeKiller history: a JSON array of transactions"));
    };
    let places = super::object_places(text, b"[");
    let place = |i: usize| places.get(i).copied().unwrap_or((1, 1));
    let err = |i: usize, msg: String| {
        let (line, column) = place(i);
        Error::at(ErrorKind::Shape, line, column, format!("transaction {i} (0-based): {msg}"))
    };
    // Ids: all non-negative integers, or positions with the tid as label.
    let tid_text = |e: &Json| match e.get("tid") {
        Some(Json::String(s)) => Some(s.clone()),
        Some(Json::Number(n)) => Some(n.to_string()),
        Some(Json::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let numeric = entries.iter().all(|e| tid_text(e).is_some_and(|t| t.parse::<u64>().is_ok()));
    let mut sessions: crate::hash::Map<String, i64> = Default::default();
    let mut b = HistoryBuilder::new();
    for (i, e) in entries.iter().enumerate() {
        let obj = e.as_object().ok_or_else(|| err(i, "expected a transaction object".into()))?;
        let tid = tid_text(e);
        let (id, label) = match (&tid, numeric) {
            (Some(t), true) => (t.parse::<u64>().ok(), None),
            (t, _) => (Some(i as u64), t.as_deref().map(|t| b.intern(t))),
        };
        let process = match obj.get("sid") {
            None | Some(Json::Null) => None,
            Some(v) => {
                let s = match v {
                    Json::String(s) => s.clone(),
                    other => other.to_string(),
                };
                match s.parse::<i64>() {
                    Ok(p) => Some(p),
                    Err(_) => {
                        let next = -1 - sessions.len() as i64;
                        Some(*sessions.entry(s).or_insert(next))
                    }
                }
            }
        };
        let ts = |name: &str| -> Result<Ts, Error> {
            match obj.get(name) {
                None | Some(Json::Null) => {
                    Err(err(i, format!("expected \"{name}\", a hybrid logical clock {{\"p\": .., \"l\": ..}}")))
                }
                Some(v @ Json::Object(_)) => ts_from_json(v).map_err(|m| err(i, format!("\"{name}\": {m}"))),
                Some(_) => {
                    Err(err(i, format!("expected \"{name}\" to be a hybrid logical clock {{\"p\": .., \"l\": ..}}")))
                }
            }
        };
        let (sts, cts) = (ts("sts")?, ts("cts")?);
        if sts > cts {
            return Err(err(i, format!("the start timestamp {sts} is after the commit timestamp {cts}")));
        }
        let ops = match obj.get("ops") {
            Some(Json::Array(ops)) => ops,
            None | Some(Json::Null) => &Vec::new(),
            Some(_) => return Err(err(i, "expected \"ops\" to be an array of operations".into())),
        };
        let at = Place { line: place(i).0, column: place(i).1 };
        for (j, op) in ops.iter().enumerate() {
            push_op(&mut b, op, at, opts).map_err(|m| err(i, format!("operation {j}: {m}")))?;
        }
        let meta = TxnMeta {
            id,
            process,
            label,
            line: at.line,
            start_ts: Some(sts),
            commit_ts: Some(cts),
            ..Default::default()
        };
        b.finish_txn(Status::Committed, meta);
    }
    b.finish()
}

/// A long, or a string holding one (fastjson's `getLong`).
fn long(v: &Json) -> Option<i64> {
    match v {
        Json::Number(n) => n.as_i64(),
        Json::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn push_op(b: &mut HistoryBuilder, op: &Json, at: Place, opts: TimeKillerOptions) -> Result<(), String> {
    let obj = op.as_object().ok_or("expected an operation object {\"t\": .., \"k\": .., \"v\": ..}")?;
    let t = obj.get("t").and_then(Json::as_str).ok_or("expected \"t\", the operation's type")?.to_ascii_lowercase();
    let k = obj.get("k").and_then(long).ok_or("expected \"k\", the key, to be a (long) integer")?;
    let key = b.key(Value::Int(k));
    let v = obj.get("v").filter(|v| !v.is_null());
    match t.as_str() {
        "w" | "write" | "a" | "append" => {
            let kind = if t.starts_with('w') { OpKind::Write } else { OpKind::Append };
            let v = v.and_then(long).ok_or("expected \"v\", the value written, to be a (long) integer")?;
            b.push_write(kind, key, Value::Int(v), at);
        }
        "r" | "read" => match v {
            None => b.push_read_nil(key),
            Some(Json::Array(items)) => {
                let elems = items
                    .iter()
                    .map(|x| long(x).map(Value::Int))
                    .collect::<Option<Vec<Value>>>()
                    .ok_or("expected a list read's elements to be (long) integers")?;
                b.push_read_list(key, &elems, at);
            }
            Some(x) => {
                let x = long(x).ok_or("expected \"v\", the value read, to be a (long) integer, a list or null")?;
                if opts.initial_value == Some(x) {
                    b.push_read_nil(key);
                } else {
                    b.push_read_scalar(key, Value::Int(x), at);
                }
            }
        },
        other => return Err(format!("unknown operation type {other:?}: expected w, write, a, append, r or read")),
    }
    Ok(())
}

/// Whether a JSON text looks like a TimeKiller history: an array whose first element is an
/// object with `sts` or `cts` and `ops`, and none of the keys of grail's or elle-cli's forms
/// (`type`, `value`, `status`). Scans the first object only.
pub(crate) fn looks_like_timekiller(text: &[u8]) -> bool {
    let keys = first_object_keys(text);
    let has = |k: &str| keys.iter().any(|x| x == k);
    (has("sts") || has("cts")) && has("ops") && !has("type") && !has("value") && !has("status")
}

/// The top-level keys of the first object of a top-level array (empty if there is none).
fn first_object_keys(text: &[u8]) -> Vec<String> {
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut start = 0;
    let mut expect_key = false;
    for (i, &c) in text.iter().enumerate() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    in_string = false;
                    if depth == 2 && expect_key {
                        keys.push(String::from_utf8_lossy(&text[start..i]).into_owned());
                        expect_key = false;
                    }
                }
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                start = i + 1;
            }
            b'[' | b'{' => {
                if depth == 0 && c != b'[' {
                    return keys;
                }
                depth += 1;
                if depth == 2 {
                    if c != b'{' {
                        return keys;
                    }
                    expect_key = true;
                }
            }
            b']' | b'}' => {
                if depth == 2 {
                    return keys;
                }
                depth = depth.saturating_sub(1);
            }
            b',' if depth == 2 => expect_key = true,
            _ => {}
        }
    }
    keys
}
