//! JSON histories: elle-cli's form of Jepsen operations, and grail's native form.
//!
//! elle-cli: `[{"type": "invoke", "process": 0, "index": 1, "value": [["append", 1, 2]]}, ...]`
//! (an array or one object a line). Native: `{"transactions": [{"id": 1, "session": 0,
//! "status": "committed", "ops": [["append", "x", 1], ["r", "x", [1]]]}], "version_order": {...}}`
//! or just the array of transactions. An array may mix neither: each entry is one or the other.

use super::json_spans::{Field, JsonSpans, Layout};
use super::pairing::{OpType, Pairer, Pending};
use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Notation, OpKind, Span, SpanMode, Status, Value, VersionOrder};
use serde_json::{Map, Value as Json};

/// Parse a JSON history of either kind.
pub fn read_json(text: &[u8]) -> Result<History, Error> {
    read_json_with(text, 0, true)
}

/// [`read_json`] for records of a stream read one at a time (the online checker's): the text's
/// entries stand at `first`, `first + 1`, ... of the stream, which is the id of a transaction
/// that gives none (and the position of its operation). Errors are the same as `read_json`'s.
pub(crate) fn read_json_from(text: &[u8], first: u64) -> Result<History, Error> {
    read_json_with(text, first, true)
}

/// [`read_json_from`], recording the span of every operation and transaction or none.
pub(crate) fn read_json_with(text: &[u8], first: u64, record_spans: bool) -> Result<History, Error> {
    read_json_spans(text, first, SpanMode::all_or_none(record_spans))
}

/// [`read_json_with`] keeping what `spans` says; serde_json's reader, where the short path gives
/// up, records every span for [`SpanMode::Located`] (it keeps no places to find them again).
pub(crate) fn read_json_spans(text: &[u8], first: u64, spans: SpanMode) -> Result<History, Error> {
    // `compact-read` (the web demo's module) leaves the short path out, for size.
    #[cfg(not(feature = "compact-read"))]
    if let Some(h) = super::json_fast::read(text, first, spans) {
        return Ok(h);
    }
    read_json_serde(text, first, spans.txn_spans())
}

/// The reader of every JSON history the short path (`json_fast`) gives up on: serde_json's
/// tree of the whole text, then places and spans from two scans of it.
pub(crate) fn read_json_serde(text: &[u8], first: u64, record_spans: bool) -> Result<History, Error> {
    let (entries, version_order, commit_order, form) = entries(text)?;
    let places = entry_places(text, form);
    let spans = if record_spans { super::json_spans::scan(text, layout(form)) } else { JsonSpans::default() };
    let places = &places;
    let line_of = |i: usize| places.get(i).map_or(0, |p| p.0);
    // An error about one entry gets that entry's place, unless it has a finer one.
    let placed = |i: usize| {
        move |mut e: Error| {
            if let (None, Some(&(line, column))) = (e.line, places.get(i)) {
                (e.line, e.column) = (Some(line), Some(column));
            }
            e
        }
    };
    let mut b = HistoryBuilder::new();
    let mut pairer: Pairer<usize> = Pairer::default();
    for (i, e) in entries.iter().enumerate() {
        let obj = e.as_object().ok_or_else(|| entry_err(i, "expected a JSON object for each operation or transaction"));
        match obj.map_err(placed(i))? {
            obj if obj.contains_key("ops") || obj.contains_key("status") => {
                native_txn(&mut b, i, first + i as u64, line_of(i), obj, &spans).map_err(placed(i))?
            }
            obj => elle_op(&mut b, &mut pairer, &entries, i, first + i as u64, line_of(i), obj, &spans)
                .map_err(placed(i))?,
        }
    }
    for p in pairer.leftovers() {
        let invocation = &entries[p.handle];
        let op_spans = spans.ops(p.handle, Field::Value);
        if !push_txn_ops(&mut b, p.handle, invocation.get("value"), not_txn_f(invocation.get("f")), op_spans)
            .map_err(placed(p.handle))?
        {
            continue; // a client operation that is not a transaction
        }
        b.finish_txn(Status::Indeterminate, TxnMeta { span: spans.entry(p.handle), ..p.meta() });
    }
    // Operations are noted with their entry's index as the line (see push_ops): translate.
    let mut h = b.finish_with(|p| {
        let (line, column) = places.get(p.line.saturating_sub(1) as usize).copied().unwrap_or((p.line, p.column));
        Place { line, column }
    })?;
    // Sub-histories are written back in the input's own JSON.
    let native = |e: &Json| e.as_object().is_some_and(|o| o.contains_key("ops") || o.contains_key("status"));
    h.notation = if entries.iter().all(native) { Notation::Native } else { Notation::ElleJson };
    if let Some(vo) = version_order {
        h.version_order = Some(version_order_from_json(&h, &vo)?);
    }
    if let Some(co) = commit_order {
        h.commit_order = Some(super::claims::commit_order_from_json(&h, &co, text)?);
    }
    Ok(h)
}

/// How the entries sit in the text: the containers enclosing each entry.
#[derive(Clone, Copy)]
enum Form {
    /// `[entry, ...]`
    Array,
    /// `{"transactions": [entry, ...], ...}`
    Document,
    /// One entry a line.
    Lines,
}

/// Where each entry starts (1-based line, column in characters).
fn entry_places(text: &[u8], form: Form) -> Vec<(u32, u32)> {
    let enclosing: &[u8] = match form {
        Form::Array => b"[",
        Form::Document => b"{[",
        Form::Lines => b"",
    };
    super::object_places(text, enclosing)
}

fn layout(form: Form) -> Layout {
    match form {
        Form::Array => Layout::Array,
        Form::Document => Layout::Document,
        Form::Lines => Layout::Lines,
    }
}

/// The entries, the version order and the claimed commit order (native document form only).
type Entries = (Vec<Json>, Option<Json>, Option<Json>, Form);

fn entries(text: &[u8]) -> Result<Entries, Error> {
    let mut stream = serde_json::Deserializer::from_slice(text).into_iter::<Json>();
    let first = match stream.next() {
        None => return Ok((Vec::new(), None, None, Form::Array)),
        Some(r) => r.map_err(|e| json_err(text, &e))?,
    };
    match first {
        Json::Array(items) => {
            if let Some(extra) = stream.next() {
                extra.map_err(|e| json_err(text, &e))?;
                return Err(Error::new(ErrorKind::Syntax, "expected the end of input after the history array"));
            }
            Ok((items, None, None, Form::Array))
        }
        Json::Object(mut obj) if obj.contains_key("transactions") => {
            let txns = match obj.remove("transactions") {
                Some(Json::Array(t)) => t,
                _ => return Err(Error::new(ErrorKind::Shape, "expected \"transactions\" to be an array")),
            };
            Ok((txns, obj.remove("version_order"), obj.remove("commit_order"), Form::Document))
        }
        obj @ Json::Object(_) => {
            // JSON lines: one operation object a line.
            let mut items = vec![obj];
            for r in stream {
                items.push(r.map_err(|e| json_err(text, &e))?);
            }
            Ok((items, None, None, Form::Lines))
        }
        _ => Err(Error::at(
            ErrorKind::Shape,
            1,
            1,
            "expected a JSON array of operations, or an object with \"transactions\"",
        )),
    }
}

fn json_err(text: &[u8], e: &serde_json::Error) -> Error {
    let (line, column) = super::serde_place(text, e);
    Error::at(ErrorKind::Syntax, line, column, e.to_string())
}

fn entry_err(i: usize, msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Shape, format!("entry {i} (0-based): {}", msg.into()))
}

fn int_field(obj: &Map<String, Json>, name: &str, i: usize) -> Result<Option<i64>, Error> {
    match obj.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| entry_err(i, format!("expected \"{name}\" to be an integer"))),
    }
}

/// A transaction's optional `start_ts` and `commit_ts` (white-box checking): an integer, or a
/// hybrid logical clock `{"p": .., "l": ..}`; the start may not come after the commit.
fn timestamps(
    obj: &Map<String, Json>,
    i: usize,
) -> Result<(Option<crate::history::Ts>, Option<crate::history::Ts>), Error> {
    let one = |name: &str| match obj.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => super::claims::ts_from_json(v).map(Some).map_err(|m| entry_err(i, format!("\"{name}\": {m}"))),
    };
    let (start, commit) = (one("start_ts")?, one("commit_ts")?);
    if let (Some(s), Some(c)) = (start, commit) {
        if s > c {
            return Err(entry_err(i, format!("expected start_ts ({s}) to be at most commit_ts ({c})")));
        }
    }
    Ok((start, commit))
}

/// Entry `i` of the text, `ordinal` of the stream.
fn native_txn(
    b: &mut HistoryBuilder,
    i: usize,
    ordinal: u64,
    line: u32,
    obj: &Map<String, Json>,
    spans: &JsonSpans,
) -> Result<(), Error> {
    let id = int_field(obj, "id", i)?;
    let id = match id {
        Some(v) if v < 0 => return Err(entry_err(i, "expected \"id\" to be a non-negative integer")),
        v => v.map(|v| v as u64),
    };
    let status = match obj.get("status").map(|s| s.as_str()) {
        None => Status::Committed,
        Some(Some("committed" | "ok")) => Status::Committed,
        Some(Some("aborted" | "fail")) => Status::Aborted,
        Some(Some("indeterminate" | "info")) => Status::Indeterminate,
        Some(_) => {
            return Err(entry_err(i, "expected \"status\" to be \"committed\", \"aborted\" or \"indeterminate\""))
        }
    };
    let process = match int_field(obj, "session", i)? {
        Some(s) => Some(s),
        None => int_field(obj, "process", i)?,
    };
    push_ops(b, i, obj.get("ops"), spans.ops(i, Field::Ops))?;
    push_predicate_reads(b, i, obj.get("predicate_reads"))?;
    let label = match obj.get("label") {
        Some(Json::String(s)) => Some(b.intern(s)),
        None | Some(Json::Null) => None,
        Some(_) => return Err(entry_err(i, "expected \"label\" to be a string")),
    };
    let (start_ts, commit_ts) = timestamps(obj, i)?;
    let meta = TxnMeta {
        id: Some(id.unwrap_or(ordinal)),
        process,
        invoke_time: int_field(obj, "start", i)?,
        complete_time: int_field(obj, "end", i)?,
        label,
        line,
        span: spans.entry(i),
        start_ts,
        commit_ts,
        ..Default::default()
    };
    b.finish_txn(status, meta);
    Ok(())
}

/// One elle-cli operation; the same rules as the EDN reader's: a transaction is an operation whose
/// `f` is `"txn"` or absent, or whose value is an array of micro-operations; a completion whose
/// `value` is null or absent takes its invocation's; other client operations are skipped with
/// their invocation, and so are operations of a string process (the nemesis).
#[allow(clippy::too_many_arguments)] // the entry, its place in the text and in the stream, its spans
fn elle_op(
    b: &mut HistoryBuilder,
    pairer: &mut Pairer<usize>,
    entries: &[Json],
    i: usize,
    ordinal: u64,
    line: u32,
    obj: &Map<String, Json>,
    spans: &JsonSpans,
) -> Result<(), Error> {
    let ty = obj.get("type").and_then(Json::as_str).and_then(OpType::parse).ok_or_else(|| {
        entry_err(
            i,
            "expected \"type\" to be \"invoke\", \"ok\", \"fail\" or \"info\" (or a native transaction with \"ops\")",
        )
    })?;
    if matches!(obj.get("process"), Some(Json::String(_))) {
        return Ok(()); // nemesis
    }
    let f = obj.get("f").and_then(Json::as_str);
    let process = int_field(obj, "process", i)?;
    let index = match int_field(obj, "index", i)? {
        Some(v) if v < 0 => return Err(entry_err(i, "expected \"index\" to be a non-negative integer")),
        v => v.map(|v| v as u64),
    };
    let time = int_field(obj, "time", i)?;
    if ty == OpType::Invoke {
        pairer.invoke(Pending { index, time, process, line, seq: ordinal, handle: i });
        return Ok(());
    }
    let invoke = pairer.complete(process);
    // The entry the operations come from: this one, or the invocation when this has no value.
    let (value, from) = match obj.get("value") {
        None | Some(Json::Null) => match &invoke {
            Some(p) => (entries[p.handle].get("value"), p.handle),
            None => (None, i),
        },
        v => (v, i),
    };
    if !push_txn_ops(b, i, value, not_txn_f(obj.get("f")), spans.ops(from, Field::Value))? {
        return Ok(()); // a client operation that is not a transaction
    }
    let label = obj.get("label").and_then(Json::as_str).or(f.filter(|f| *f != "txn")).map(|l| b.intern(l));
    let status = ty.status();
    let (start_ts, commit_ts) = timestamps(obj, i)?;
    let meta = TxnMeta {
        label,
        line,
        span: spans.entry(i),
        start_ts,
        commit_ts,
        ..super::pairing::completed(invoke.as_ref(), index, process, time, ordinal)
    };
    b.finish_txn(status, meta);
    Ok(())
}

fn not_txn_f(f: Option<&Json>) -> bool {
    f.and_then(Json::as_str).is_some_and(|f| f != "txn")
}

/// Push a transaction's operations. `Ok(false)`, pushing nothing, when the value is not a
/// transaction (null included) and `f` says the operation need not be one.
fn push_txn_ops(
    b: &mut HistoryBuilder,
    i: usize,
    ops: Option<&Json>,
    not_txn_f: bool,
    spans: &[Span],
) -> Result<bool, Error> {
    if matches!(ops, None | Some(Json::Null)) {
        return Ok(!not_txn_f);
    }
    match push_ops(b, i, ops, spans) {
        Ok(()) => Ok(true),
        Err(_) if not_txn_f => {
            b.abandon_txn();
            Ok(false)
        }
        Err(e) => {
            b.abandon_txn();
            Err(e)
        }
    }
}

fn scalar(b: &mut HistoryBuilder, v: &Json, i: usize, what: &str) -> Result<Option<Value>, Error> {
    match v {
        Json::Null => Ok(None),
        Json::String(s) => Ok(Some(b.str_value(s))),
        Json::Number(n) => n
            .as_i64()
            .map(|n| Some(Value::Int(n)))
            .ok_or_else(|| entry_err(i, format!("expected {what} to be an integer or a string, found {n}"))),
        _ => Err(entry_err(i, format!("expected {what} to be an integer or a string"))),
    }
}

/// `"predicate_reads": [{"predicate": "likes of post 7", "matches": ["p1@2", "p4@1"]}, ...]`:
/// the transaction's predicate reads in order, each with the versions it matched.
fn push_predicate_reads(b: &mut HistoryBuilder, i: usize, reads: Option<&Json>) -> Result<(), Error> {
    let reads = match reads {
        None | Some(Json::Null) => return Ok(()),
        Some(Json::Array(r)) => r,
        Some(_) => return Err(entry_err(i, "expected \"predicate_reads\" to be an array")),
    };
    let shape = || entry_err(i, "expected each predicate read to be {\"predicate\": name, \"matches\": [versions]}");
    for r in reads {
        let obj = r.as_object().ok_or_else(shape)?;
        let name = obj.get("predicate").and_then(Json::as_str).ok_or_else(shape)?;
        let matches = obj.get("matches").and_then(Json::as_array).ok_or_else(shape)?;
        let mut vals = Vec::with_capacity(matches.len());
        for m in matches {
            vals.push(scalar(b, m, i, "a matched version")?.ok_or_else(shape)?);
        }
        b.push_predicate_read(name, vals);
    }
    Ok(())
}

/// Push the operations of entry `i`; `spans` are where they are in the text (empty if unknown).
fn push_ops(b: &mut HistoryBuilder, i: usize, ops: Option<&Json>, spans: &[Span]) -> Result<(), Error> {
    let ops = match ops {
        None | Some(Json::Null) => return Ok(()),
        Some(Json::Array(ops)) => ops,
        Some(_) => return Err(entry_err(i, "expected the operations to be an array of [f, key, value]")),
    };
    // The entry's index stands for its place until read_json translates it (finish_with).
    let place = Place { line: i as u32 + 1, column: 1 };
    let mut elems = Vec::new();
    for (j, op) in ops.iter().enumerate() {
        let t = match op {
            Json::Array(t) if t.len() == 3 => t,
            _ => {
                return Err(entry_err(
                    i,
                    format!("operation {j}: expected [f, key, value] with f one of \"r\", \"w\", \"append\""),
                ))
            }
        };
        let kind = match t[0].as_str() {
            Some("r" | "read") => OpKind::Read,
            Some("w" | "write") => OpKind::Write,
            Some("append") => OpKind::Append,
            _ => {
                return Err(entry_err(
                    i,
                    format!("operation {j}: expected f to be \"r\", \"w\" or \"append\", found {}", t[0]),
                ))
            }
        };
        let key = match scalar(b, &t[1], i, "the key")? {
            Some(k) => b.key(k),
            None => return Err(entry_err(i, format!("operation {j}: expected a key, found null"))),
        };
        match (kind, &t[2]) {
            (OpKind::Read, Json::Array(list)) => {
                elems.clear();
                for e in list {
                    match scalar(b, e, i, "a list element")? {
                        Some(v) => elems.push(v),
                        None => {
                            return Err(entry_err(i, format!("operation {j}: expected a list element, found null")))
                        }
                    }
                }
                b.push_read_list(key, &elems, place);
            }
            (OpKind::Read, v) => match scalar(b, v, i, "the value read")? {
                Some(v) => b.push_read_scalar(key, v, place),
                None => b.push_read_nil(key),
            },
            (_, v) => match scalar(b, v, i, "the value written")? {
                Some(v) => b.push_write(kind, key, v, place),
                None => return Err(entry_err(i, format!("operation {j}: expected a value to write, found null"))),
            },
        }
        if let Some(&span) = spans.get(j).filter(|_| spans.len() == ops.len()) {
            b.set_op_span(span);
        }
    }
    Ok(())
}

/// A version order given as `{"key": [v1, v2, ...]}`; keys are matched by their text.
pub(super) fn version_order_from_json(h: &History, vo: &Json) -> Result<VersionOrder, Error> {
    let obj = vo
        .as_object()
        .ok_or_else(|| Error::new(ErrorKind::Shape, "expected \"version_order\" to be an object of key: [values]"))?;
    let keys = super::key_index(h);
    let mut order = VersionOrder::default();
    for (k, vals) in obj {
        let Some(&key) = keys.get(k.as_str()) else {
            continue;
        };
        let vals = vals
            .as_array()
            .ok_or_else(|| Error::new(ErrorKind::Shape, format!("version_order[{k}]: expected an array of values")))?;
        let mut out = Vec::with_capacity(vals.len());
        for v in vals {
            match v {
                Json::Number(n) if n.is_i64() => out.push(Value::Int(n.as_i64().unwrap_or_default())),
                Json::String(s) => match h.strings.lookup(s) {
                    Some(sym) => out.push(Value::Str(sym)),
                    None => continue, // nobody wrote it; cannot order anything
                },
                _ => {
                    return Err(Error::new(
                        ErrorKind::Shape,
                        format!("version_order[{k}]: expected integers or strings"),
                    ))
                }
            }
        }
        order.per_key.insert(key, out);
    }
    Ok(order)
}
