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
use crate::history::Ts;
use crate::history::{History, HistoryBuilder, OpKind, Status, Value};

/// Options of the TimeKiller reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeKillerOptions {
    /// TimeKiller's `--initial_value`: a register read of this value reads the initial value.
    pub initial_value: Option<i64>,
    /// Record where each transaction and operation is, as [`super::ReadOptions::spans`]: found
    /// on the way by the short path, a second pass over the text otherwise. On by default.
    pub spans: bool,
}

impl Default for TimeKillerOptions {
    fn default() -> Self {
        TimeKillerOptions { initial_value: None, spans: true }
    }
}

/// Read a TimeKiller history.
pub fn read_timekiller(text: &[u8]) -> Result<History, Error> {
    read_timekiller_with(text, TimeKillerOptions::default())
}

/// Read a TimeKiller history with TimeKiller's options: one pass of a short path over the
/// common form (`timekiller_fast`), else one streaming pass of serde_json over the array (no
/// JSON tree: 1M transactions would cost gigabytes), each transaction pushed to the builder as
/// it is read.
pub fn read_timekiller_with(text: &[u8], opts: TimeKillerOptions) -> Result<History, Error> {
    #[cfg(not(feature = "compact-read"))]
    if let Some(h) = super::timekiller_fast::read(text, opts) {
        return Ok(h);
    }
    read_timekiller_serde(text, opts)
}

/// The reader of every TimeKiller history the short path (`timekiller_fast`) gives up on:
/// serde_json's streaming visitor, then the lines and spans from two scans of the text.
pub(crate) fn read_timekiller_serde(text: &[u8], opts: TimeKillerOptions) -> Result<History, Error> {
    use serde::de::Deserializer as _;
    let mut st = State {
        b: HistoryBuilder::new(),
        tids: Vec::new(),
        numeric: true,
        sessions: Default::default(),
        opts,
        failed: None,
    };
    let mut de = serde_json::Deserializer::from_slice(text);
    let places = || super::object_places(text, b"[");
    let r = de.deserialize_any(Txns(&mut st)).and_then(|()| de.end());
    if let Some((i, msg)) = st.failed.take() {
        let (line, column) = places().get(i).copied().unwrap_or((1, 1));
        return Err(Error::at(ErrorKind::Shape, line, column, format!("transaction {i} (0-based): {msg}")));
    }
    if let Err(e) = r {
        let (line, column) = super::serde_place(text, &e);
        let kind = if e.is_syntax() || e.is_eof() { ErrorKind::Syntax } else { ErrorKind::Shape };
        return Err(Error::at(kind, line, column, e.to_string()));
    }
    let lines = object_lines(text);
    // Operations were noted with their transaction's index as the line: translate (an error
    // here is rare: find its column then).
    let mut h = st.b.finish_with(|p| {
        let (line, column) = places().get(p.line.saturating_sub(1) as usize).copied().unwrap_or((p.line, p.column));
        Place { line, column }
    })?;
    for (t, &line) in h.txns.iter_mut().zip(&lines) {
        t.line = line;
    }
    h.initial_open = opts.initial_value.is_none();
    h.notation = crate::history::Notation::TimeKiller;
    if opts.spans {
        attach_spans(&mut h, text);
    }
    // Ids: the tids when all are non-negative integers, else positions with the tid as label.
    if st.numeric {
        let mut ids: Vec<(u64, usize)> = Vec::with_capacity(st.tids.len());
        for (i, tid) in st.tids.iter().enumerate() {
            if let Tid::Num(n) = tid {
                h.txns[i].id = *n;
                ids.push((*n, i));
            }
        }
        crate::par::sort::sort_unstable(&mut ids);
        if let Some(w) = ids.windows(2).find(|w| w[0].0 == w[1].0) {
            let (line, column) = places().get(w[1].1).copied().unwrap_or((1, 1));
            return Err(Error::at(
                ErrorKind::Shape,
                line,
                column,
                format!(
                    "expected unique transaction ids, but transactions {} and {} (0-based) both have tid {}",
                    w[0].1, w[1].1, w[0].0
                ),
            )
            .with_txn(w[0].0));
        }
    } else {
        for (i, tid) in st.tids.iter().enumerate() {
            let label = match tid {
                Tid::Num(n) => Some(n.to_string()),
                Tid::Text(s) => Some(s.to_string()),
                Tid::None => None,
            };
            let label = label.map(|l| h.strings.intern(&l));
            h.txns[i].set_label(label);
        }
    }
    Ok(h)
}

/// Where each transaction and operation is, from one scan of the accepted text (as the native
/// JSON reader finds them: TimeKiller's operations are the `"ops"` arrays too). A transaction
/// whose operations do not line up with its array keeps no spans, as readers without them.
fn attach_spans(h: &mut History, text: &[u8]) {
    use super::json_spans::{scan, Field, Layout};
    let spans = scan(text, Layout::Array);
    let mut op_spans = vec![crate::history::Span::default(); h.ops.len()];
    let mut txn_spans = vec![crate::history::Span::default(); h.txns.len()];
    for (i, t) in h.txns.iter().enumerate() {
        let (start, end) = (t.ops_start as usize, t.ops_end as usize);
        let ops = spans.ops(i, Field::Ops);
        if let (Some(span), Some(slot)) = (spans.entry(i), op_spans.get_mut(start..end)) {
            txn_spans[i] = span;
            if ops.len() == slot.len() {
                slot.copy_from_slice(ops);
            }
        }
    }
    h.op_spans = op_spans;
    h.txn_spans = txn_spans;
}

/// The line where each object of the top-level array starts: one pass that knows only strings,
/// nesting and line breaks (columns are found only for an error, by `object_places`).
fn object_lines(text: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut line, mut depth, mut i) = (1u32, 0usize, 0usize);
    while i < text.len() {
        match text[i] {
            b'\n' => line += 1,
            b'"' => {
                // To the closing quote, past escapes; strings hold no raw line breaks.
                i += 1;
                while let Some(off) = text[i..].iter().position(|&b| b == b'"' || b == b'\\') {
                    i += off;
                    if text[i] == b'\\' {
                        i += 2;
                    } else {
                        break;
                    }
                }
            }
            b'{' | b'[' => {
                if depth == 1 && text[i] == b'{' {
                    out.push(line);
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    out
}

/// A transaction's `tid` as read.
enum Tid {
    Num(u64),
    Text(Box<str>),
    None,
}

struct State {
    b: HistoryBuilder,
    tids: Vec<Tid>,
    /// Every tid so far is a non-negative integer.
    numeric: bool,
    sessions: crate::hash::Map<String, i64>,
    opts: TimeKillerOptions,
    /// The first transaction that broke a rule, and how.
    failed: Option<(usize, String)>,
}

/// A JSON scalar as fastjson's `getString`/`getLong` see it.
#[derive(Debug, Clone)]
enum Scalar {
    Int(i64),
    Big(u64),
    Float(f64),
    Str(String),
    Bool(bool),
}

impl Scalar {
    /// `getLong`: a long, or a string holding one.
    fn long(&self) -> Option<i64> {
        match self {
            Scalar::Int(i) => Some(*i),
            Scalar::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// `getString`.
    fn text(&self) -> String {
        match self {
            Scalar::Int(i) => i.to_string(),
            Scalar::Big(u) => u.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Str(s) => s.clone(),
            Scalar::Bool(b) => b.to_string(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(i64::try_from(v).map_or(Scalar::Big(v), Scalar::Int))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Float(v))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Str(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `v`: a scalar, or a list of them (a list read).
#[derive(Debug)]
enum OpValue {
    One(Scalar),
    List(Vec<Scalar>),
}

impl<'de> serde::Deserialize<'de> for OpValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OpValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a value: a number, a string, a list or null")
            }
            fn visit_i64<E>(self, v: i64) -> Result<OpValue, E> {
                Ok(OpValue::One(Scalar::Int(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<OpValue, E> {
                Ok(OpValue::One(i64::try_from(v).map_or(Scalar::Big(v), Scalar::Int)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<OpValue, E> {
                Ok(OpValue::One(Scalar::Float(v)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<OpValue, E> {
                Ok(OpValue::One(Scalar::Bool(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<OpValue, E> {
                Ok(OpValue::One(Scalar::Str(v.to_string())))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<OpValue, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element::<Scalar>()? {
                    out.push(x);
                }
                Ok(OpValue::List(out))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(serde::Deserialize)]
struct Hlc {
    p: Option<Scalar>,
    l: Option<Scalar>,
}

/// `t`, matched as it is read (no string kept).
#[derive(Debug, Clone, Copy)]
enum OpType {
    Write,
    Append,
    Read,
    Other,
}

impl<'de> serde::Deserialize<'de> for OpType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OpType;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an operation type: w, write, a, append, r or read")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<OpType, E> {
                let is = |a: &str| v.eq_ignore_ascii_case(a);
                Ok(if is("w") || is("write") {
                    OpType::Write
                } else if is("a") || is("append") {
                    OpType::Append
                } else if is("r") || is("read") {
                    OpType::Read
                } else {
                    return Err(E::custom(format!(
                        "unknown operation type {v:?}: expected w, write, a, append, r or read"
                    )));
                })
            }
            fn visit_i64<E>(self, _: i64) -> Result<OpType, E> {
                Ok(OpType::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<OpType, E> {
                Ok(OpType::Other)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(serde::Deserialize)]
struct Op {
    t: Option<OpType>,
    k: Option<Scalar>,
    v: Option<OpValue>,
}

#[derive(serde::Deserialize)]
struct Txn {
    tid: Option<Scalar>,
    sid: Option<Scalar>,
    sts: Option<Hlc>,
    cts: Option<Hlc>,
    ops: Option<Vec<Op>>,
}

/// The top-level array, each transaction pushed as it is read.
struct Txns<'a>(&'a mut State);

impl<'de> serde::de::Visitor<'de> for Txns<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a TimeKiller history: a JSON array of transactions")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while let Some(t) = seq.next_element::<Txn>()? {
            if let Err(msg) = self.0.push(i, t) {
                self.0.failed = Some((i, msg.clone()));
                return Err(serde::de::Error::custom(msg));
            }
            i += 1;
        }
        Ok(())
    }
}

impl State {
    fn push(&mut self, i: usize, t: Txn) -> Result<(), String> {
        let tid = match &t.tid {
            Some(s) => match s.text().parse::<u64>() {
                Ok(n) => Tid::Num(n),
                Err(_) => Tid::Text(s.text().into()),
            },
            None => Tid::None,
        };
        if !matches!(tid, Tid::Num(_)) {
            self.numeric = false;
        }
        self.tids.push(tid);
        let process = match &t.sid {
            None => None,
            Some(s) => {
                let s = s.text();
                match s.parse::<i64>() {
                    Ok(p) => Some(p),
                    Err(_) => {
                        let next = -1 - self.sessions.len() as i64;
                        Some(*self.sessions.entry(s).or_insert(next))
                    }
                }
            }
        };
        let ts = |name: &str, h: &Option<Hlc>| -> Result<Ts, String> {
            let h = h
                .as_ref()
                .ok_or_else(|| format!("expected \"{name}\", a hybrid logical clock {{\"p\": .., \"l\": ..}}"))?;
            let p =
                h.p.as_ref()
                    .and_then(Scalar::long)
                    .ok_or_else(|| format!("\"{name}\": expected \"p\" to be a (long) integer"))?;
            let l = match &h.l {
                None => 0,
                Some(l) => l.long().ok_or_else(|| format!("\"{name}\": expected \"l\" to be a (long) integer"))?,
            };
            Ok(Ts::new(p, l))
        };
        let (sts, cts) = (ts("sts", &t.sts)?, ts("cts", &t.cts)?);
        if sts > cts {
            return Err(format!("the start timestamp {sts} is after the commit timestamp {cts}"));
        }
        // The transaction's index stands for its place until the history is finished.
        let at = Place { line: i as u32 + 1, column: 1 };
        for (j, op) in t.ops.iter().flatten().enumerate() {
            if let Err(m) = push_op(&mut self.b, op, at, self.opts) {
                self.b.abandon_txn();
                return Err(format!("operation {j}: {m}"));
            }
        }
        let meta =
            TxnMeta { id: Some(i as u64), process, start_ts: Some(sts), commit_ts: Some(cts), ..Default::default() };
        self.b.finish_txn(Status::Committed, meta);
        Ok(())
    }
}

fn push_op(b: &mut HistoryBuilder, op: &Op, at: Place, opts: TimeKillerOptions) -> Result<(), String> {
    let t = op.t.ok_or("expected \"t\", the operation's type")?;
    let k = op.k.as_ref().and_then(Scalar::long).ok_or("expected \"k\", the key, to be a (long) integer")?;
    let key = b.key(Value::Int(k));
    match t {
        OpType::Write | OpType::Append => {
            let kind = if matches!(t, OpType::Write) { OpKind::Write } else { OpKind::Append };
            let v = match &op.v {
                Some(OpValue::One(s)) => s.long(),
                _ => None,
            }
            .ok_or("expected \"v\", the value written, to be a (long) integer")?;
            b.push_write(kind, key, Value::Int(v), at);
        }
        OpType::Read => match &op.v {
            None => b.push_read_nil(key),
            Some(OpValue::List(items)) => {
                let elems = items
                    .iter()
                    .map(|x| x.long().map(Value::Int))
                    .collect::<Option<Vec<Value>>>()
                    .ok_or("expected a list read's elements to be (long) integers")?;
                b.push_read_list(key, &elems, at);
            }
            Some(OpValue::One(x)) => {
                let x = x.long().ok_or("expected \"v\", the value read, to be a (long) integer, a list or null")?;
                if opts.initial_value == Some(x) {
                    b.push_read_nil(key);
                } else {
                    b.push_read_scalar(key, Value::Int(x), at);
                }
            }
        },
        OpType::Other => return Err("expected \"t\" to be w, write, a, append, r or read".into()),
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
