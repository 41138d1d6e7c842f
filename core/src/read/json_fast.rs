//! A short path for JSON histories in the forms grail, elle-cli and most tools write: one pass
//! over the bytes, each entry pushed to the builder as it is read, with its place and spans
//! found on the way (the serde_json reader builds a tree of the whole text, then scans it twice
//! more for places and spans: 45–56 MB/s on 130–300 MB histories).
//!
//! It reads a subset and gives up on anything else: strings with escapes where a field is read,
//! numbers that are not plain `i64`s, a repeated key, a field of an unexpected type, predicate
//! reads, a timestamp that is not an integer, a malformed operation that would be read, any
//! error. Giving up returns `None` and [`super::json`]'s serde_json reader reads the text, so
//! rare forms and every error message keep one implementation. What it accepts it reads as
//! that reader does, call for call into the builder (the same interning order, ids, lines,
//! spans and pairing); `core/tests/json_reader.rs` compares the two on the corpus, generated
//! histories and their variants.

use super::pairing::{OpType, Pairer, Pending};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Notation, OpKind, Span, Status, Ts, Value};

/// Read `text` as [`super::json::read_json_with`] does, or `None` to leave it to that reader.
pub(crate) fn read(text: &[u8], first: u64, record_spans: bool) -> Option<History> {
    let mut r = Reader {
        c: Cur::new(text),
        b: HistoryBuilder::new(),
        pairer: Pairer::default(),
        first,
        spans: record_spans,
        entries: 0,
        all_native: true,
        ops: Vec::new(),
        elems: Vec::new(),
        scratch: Vec::new(),
    };
    let (mut version_order, mut commit_order) = (None, None);
    r.c.ws();
    match r.c.peek()? {
        b'[' => {
            r.c.i += 1;
            r.entries_array()?;
        }
        b'{' => {
            if r.c.next_key_is(b"transactions") {
                (version_order, commit_order) = r.document()?;
            } else {
                // One entry a line (any number of top-level objects).
                loop {
                    r.entry()?;
                    r.c.ws();
                    if r.c.peek().is_none() {
                        break;
                    }
                }
            }
        }
        _ => return None,
    }
    r.c.ws();
    if r.c.peek().is_some() {
        return None;
    }
    r.finish(version_order, commit_order)
}

/// Where a value starts, to read it again (an invocation's operations, read at its completion).
#[derive(Clone, Copy)]
struct Mark {
    i: usize,
    line: u32,
    line_start: usize,
    col_pos: usize,
    col: u32,
}

struct Cur<'a> {
    t: &'a [u8],
    i: usize,
    line: u32,
    line_start: usize,
    /// Characters before `col_pos` on this line: columns are counted in characters.
    col_pos: usize,
    col: u32,
}

impl<'a> Cur<'a> {
    fn new(t: &'a [u8]) -> Self {
        Cur { t, i: 0, line: 1, line_start: 0, col_pos: 0, col: 0 }
    }

    fn mark(&self) -> Mark {
        Mark { i: self.i, line: self.line, line_start: self.line_start, col_pos: self.col_pos, col: self.col }
    }

    fn reset(&mut self, m: Mark) {
        (self.i, self.line, self.line_start, self.col_pos, self.col) = (m.i, m.line, m.line_start, m.col_pos, m.col);
    }

    fn peek(&self) -> Option<u8> {
        self.t.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(&b) = self.t.get(self.i) {
            match b {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    (self.line_start, self.col_pos, self.col) = (self.i, self.i, 0);
                }
                _ => break,
            }
        }
    }

    /// After whitespace, `b`.
    fn eat(&mut self, b: u8) -> Option<()> {
        self.ws();
        (self.peek()? == b).then(|| self.i += 1)
    }

    /// The span of a value starting here (its end is set when it closes).
    fn here(&mut self) -> Span {
        let chars = self.t[self.col_pos..self.i].iter().filter(|&&b| b & 0xC0 != 0x80).count();
        self.col += chars as u32;
        self.col_pos = self.i;
        Span { start: self.i as u64, end: self.i as u64, line: self.line, column: self.col + 1 }
    }

    /// A string without escapes or control characters (after whitespace).
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let len = self.t[start..].iter().position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b))?;
        let mut end = start + len;
        if self.t[end] >= 0x80 {
            // Not ASCII: to the quote, then checked as UTF-8.
            end += self.t[end..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            if self.t[end] != b'"' {
                return None;
            }
            self.i = end + 1;
            return std::str::from_utf8(&self.t[start..end]).ok();
        }
        if self.t[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        std::str::from_utf8(&self.t[start..end]).ok()
    }

    /// The next object key is `key` (at `{`, without moving).
    fn next_key_is(&self, key: &[u8]) -> bool {
        let mut probe = Cur { ..*self };
        probe.i += 1;
        probe.string().is_some_and(|k| k.as_bytes() == key)
    }

    /// An integer as serde_json reads one into an `i64` (no fraction, exponent or `-0`).
    fn int(&mut self) -> Option<i64> {
        self.ws();
        let neg = self.peek()? == b'-';
        let start = self.i + neg as usize;
        // Up to 18 digits cannot overflow; longer numbers are checked.
        let (mut v, mut end) = (0u64, start);
        while let Some(&d) = self.t.get(end).filter(|d| d.is_ascii_digit() && end - start < 18) {
            v = v * 10 + (d - b'0') as u64;
            end += 1;
        }
        let mut v = v as i64;
        if neg {
            v = -v;
        }
        while let Some(&d) = self.t.get(end).filter(|d| d.is_ascii_digit()) {
            let d = (d - b'0') as i64;
            v = v.checked_mul(10)?;
            v = if neg { v.checked_sub(d)? } else { v.checked_add(d)? };
            end += 1;
        }
        let digits = end - start;
        if digits == 0 || (digits > 1 && self.t[start] == b'0') || (neg && v == 0) {
            return None;
        }
        if matches!(self.t.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.i = end;
        Some(v)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.t[self.i..].starts_with(word).then(|| self.i += word.len())
    }

    /// Past one JSON value of any kind, checking it as serde_json would accept it (giving up on
    /// `\u` escapes and exponents, whose limits it would check too).
    fn skip(&mut self, depth: u32) -> Option<()> {
        if depth > 100 {
            return None;
        }
        self.ws();
        match self.peek()? {
            b'"' => {
                self.i += 1;
                let start = self.i;
                loop {
                    let off = self.t[self.i..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
                    self.i += off;
                    match self.t[self.i] {
                        b'"' => break,
                        b'\\' => match self.t.get(self.i + 1)? {
                            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                            _ => return None,
                        },
                        _ => return None,
                    }
                }
                std::str::from_utf8(&self.t[start..self.i]).ok()?;
                self.i += 1;
            }
            b'{' => {
                self.i += 1;
                if self.eat(b'}').is_none() {
                    loop {
                        self.ws();
                        if self.peek()? != b'"' {
                            return None;
                        }
                        self.skip(depth + 1)?;
                        self.eat(b':')?;
                        self.skip(depth + 1)?;
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b'}' => break self.i += 1,
                            _ => return None,
                        }
                    }
                }
            }
            b'[' => {
                self.i += 1;
                if self.eat(b']').is_none() {
                    loop {
                        self.skip(depth + 1)?;
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b']' => break self.i += 1,
                            _ => return None,
                        }
                    }
                }
            }
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            _ => {
                // A number: -?(0|[1-9][0-9]*)(.[0-9]+)?
                let neg = self.peek()? == b'-';
                let start = self.i + neg as usize;
                let digits = self.t[start..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 || (digits > 1 && self.t[start] == b'0') {
                    return None;
                }
                self.i = start + digits;
                if self.peek() == Some(b'.') {
                    let frac = self.t[self.i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    if frac == 0 {
                        return None;
                    }
                    self.i += 1 + frac;
                }
                if matches!(self.peek(), Some(b'e' | b'E')) {
                    return None;
                }
            }
        }
        Some(())
    }

    /// `,` then more, or the closing `close` (true when closed).
    fn more(&mut self, close: u8) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.i += 1;
                Some(false)
            }
            b if b == close => {
                self.i += 1;
                Some(true)
            }
            _ => None,
        }
    }
}

/// A key or a value as JSON gives it: an integer or a string.
#[derive(Clone, Copy)]
enum Scalar<'a> {
    Int(i64),
    Str(&'a str),
}

#[derive(Clone, Copy)]
enum Arg {
    Nil,
    One(usize),
    /// Elements `start..end` of `Reader::elems`.
    List(usize, usize),
}

struct RawOp<'a> {
    kind: OpKind,
    key: Scalar<'a>,
    arg: Arg,
    span: Span,
}

/// An entry's `"ops"` or `"value"`.
#[derive(Clone, Copy, Default)]
enum Val {
    #[default]
    Absent,
    Null,
    /// An array read as operations: `Reader::ops[start..end]`, the value starting at the mark.
    Ops(usize, usize, MarkCopy),
    /// An array that is not a list of operations this path reads.
    OtherArray,
    /// Any other value.
    Other,
}

/// [`Mark`] in a `Copy + Default` wrapper for [`Val`].
#[derive(Clone, Copy, Default)]
struct MarkCopy(usize, u32, usize, usize, u32);

impl From<Mark> for MarkCopy {
    fn from(m: Mark) -> Self {
        MarkCopy(m.i, m.line, m.line_start, m.col_pos, m.col)
    }
}

impl From<MarkCopy> for Mark {
    fn from(m: MarkCopy) -> Self {
        Mark { i: m.0, line: m.1, line_start: m.2, col_pos: m.3, col: m.4 }
    }
}

/// A field that holds an integer, or is null or absent.
#[derive(Clone, Copy, Default, PartialEq)]
enum IntF {
    #[default]
    Absent,
    Null,
    Int(i64),
}

impl IntF {
    fn get(self) -> Option<i64> {
        match self {
            IntF::Int(v) => Some(v),
            _ => None,
        }
    }
}

/// A field that holds a string, or is null or absent.
#[derive(Clone, Copy, Default, PartialEq)]
enum StrF<'a> {
    #[default]
    Absent,
    Null,
    Str(&'a str),
}

impl<'a> StrF<'a> {
    fn get(self) -> Option<&'a str> {
        match self {
            StrF::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The fields of one entry that either reader looks at.
#[derive(Default)]
struct Entry<'a> {
    span: Span,
    has_ops: bool,
    has_status: bool,
    id: IntF,
    session: IntF,
    process: IntF,
    /// `"process"` is a string: the nemesis.
    process_str: bool,
    status: StrF<'a>,
    ty: StrF<'a>,
    f: StrF<'a>,
    index: IntF,
    time: IntF,
    start: IntF,
    end: IntF,
    label: StrF<'a>,
    start_ts: IntF,
    commit_ts: IntF,
    ops: Val,
    value: Val,
}

/// What an invocation leaves for its completion.
struct Invocation {
    entry: usize,
    value: Val,
    not_txn_f: bool,
    span: Option<Span>,
}

struct Reader<'a> {
    c: Cur<'a>,
    b: HistoryBuilder,
    pairer: Pairer<Invocation>,
    first: u64,
    spans: bool,
    entries: usize,
    all_native: bool,
    ops: Vec<RawOp<'a>>,
    elems: Vec<Scalar<'a>>,
    scratch: Vec<Value>,
}

impl<'a> Reader<'a> {
    /// The entries of an array, after its `[`.
    fn entries_array(&mut self) -> Option<()> {
        if self.c.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.entry()?;
            if self.c.more(b']')? {
                return Some(());
            }
        }
    }

    /// `{"transactions": [...], ...}`: the version order and commit order as serde_json values.
    fn document(&mut self) -> Option<(Option<serde_json::Value>, Option<serde_json::Value>)> {
        self.c.eat(b'{')?;
        let (mut vo, mut co, mut seen) = (None, None, Vec::new());
        loop {
            let key = self.c.string()?;
            if seen.contains(&key) {
                return None;
            }
            seen.push(key);
            self.c.eat(b':')?;
            self.c.ws();
            match key {
                "transactions" => {
                    self.c.eat(b'[')?;
                    self.entries_array()?;
                }
                _ => {
                    let start = self.c.i;
                    self.c.skip(0)?;
                    let raw = &self.c.t[start..self.c.i];
                    match key {
                        "version_order" => vo = Some(serde_json::from_slice(raw).ok()?),
                        "commit_order" => co = Some(serde_json::from_slice(raw).ok()?),
                        // Another key's objects in an array would count as entries' places.
                        _ if raw.first() == Some(&b'[') && raw.contains(&b'{') => return None,
                        _ => {}
                    }
                }
            }
            if self.c.more(b'}')? {
                return Some((vo, co));
            }
        }
    }

    /// One entry: read its fields, then push it as the serde_json reader would.
    fn entry(&mut self) -> Option<()> {
        self.c.ws();
        if self.c.peek()? != b'{' {
            return None;
        }
        let mut e = Entry { span: self.c.here(), ..Default::default() };
        self.c.i += 1;
        self.ops.clear();
        self.elems.clear();
        let mut seen: u32 = 0;
        if self.c.eat(b'}').is_none() {
            loop {
                let key = self.c.string()?;
                self.c.eat(b':')?;
                let bit = match key {
                    "id" => 0,
                    "session" => 1,
                    "process" => 2,
                    "status" => 3,
                    "type" => 4,
                    "f" => 5,
                    "index" => 6,
                    "time" => 7,
                    "start" => 8,
                    "end" => 9,
                    "label" => 10,
                    "start_ts" => 11,
                    "commit_ts" => 12,
                    "ops" => 13,
                    "value" => 14,
                    "transactions" | "predicate_reads" => return None,
                    _ => 31,
                };
                if bit != 31 {
                    if seen & (1 << bit) != 0 {
                        return None; // a repeated key: serde_json keeps the last
                    }
                    seen |= 1 << bit;
                }
                match bit {
                    0 => e.id = self.int_f()?,
                    1 => e.session = self.int_f()?,
                    2 => {
                        self.c.ws();
                        if self.c.peek()? == b'"' {
                            self.c.skip(0)?;
                            e.process_str = true;
                        } else {
                            e.process = self.int_f()?;
                        }
                    }
                    3 => {
                        e.status = self.str_f()?;
                        e.has_status = true;
                    }
                    4 => e.ty = self.str_f()?,
                    5 => e.f = self.str_f()?,
                    6 => e.index = self.int_f()?,
                    7 => e.time = self.int_f()?,
                    8 => e.start = self.int_f()?,
                    9 => e.end = self.int_f()?,
                    10 => e.label = self.str_f()?,
                    11 => e.start_ts = self.int_f()?,
                    12 => e.commit_ts = self.int_f()?,
                    13 => {
                        e.ops = self.val()?;
                        e.has_ops = true;
                    }
                    14 => e.value = self.val()?,
                    _ => self.c.skip(0)?,
                }
                if self.c.more(b'}')? {
                    break;
                }
            }
        }
        e.span.end = self.c.i as u64;
        let i = self.entries;
        self.entries += 1;
        if e.has_ops || e.has_status {
            self.native(i, &e)
        } else {
            self.all_native = false;
            self.elle(i, &e)
        }
    }

    fn int_f(&mut self) -> Option<IntF> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            self.c.literal(b"null")?;
            return Some(IntF::Null);
        }
        self.c.int().map(IntF::Int)
    }

    fn str_f(&mut self) -> Option<StrF<'a>> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            self.c.literal(b"null")?;
            return Some(StrF::Null);
        }
        self.c.string().map(StrF::Str)
    }

    /// An `"ops"` or `"value"`: operations when it is an array of them, else what it is.
    fn val(&mut self) -> Option<Val> {
        self.c.ws();
        match self.c.peek()? {
            b'n' => {
                self.c.literal(b"null")?;
                Some(Val::Null)
            }
            b'[' => {
                let mark = self.c.mark();
                let (ops, elems) = (self.ops.len(), self.elems.len());
                if self.ops_array().is_some() {
                    return Some(Val::Ops(ops, self.ops.len(), mark.into()));
                }
                self.c.reset(mark);
                self.ops.truncate(ops);
                self.elems.truncate(elems);
                self.c.skip(0)?;
                Some(Val::OtherArray)
            }
            _ => {
                self.c.skip(0)?;
                Some(Val::Other)
            }
        }
    }

    /// `[[f, key, value], ...]` as the serde_json reader reads it without an error.
    fn ops_array(&mut self) -> Option<()> {
        self.c.eat(b'[')?;
        if self.c.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.c.ws();
            let mut span = self.c.here();
            self.c.eat(b'[')?;
            let kind = match self.c.string()? {
                "r" | "read" => OpKind::Read,
                "w" | "write" => OpKind::Write,
                "append" => OpKind::Append,
                _ => return None,
            };
            self.c.eat(b',')?;
            let key = self.scalar()?;
            self.c.eat(b',')?;
            self.c.ws();
            let arg = match self.c.peek()? {
                b'n' if kind == OpKind::Read => {
                    self.c.literal(b"null")?;
                    Arg::Nil
                }
                b'[' if kind == OpKind::Read => {
                    self.c.i += 1;
                    let start = self.elems.len();
                    if self.c.eat(b']').is_none() {
                        loop {
                            let v = self.scalar()?;
                            self.elems.push(v);
                            if self.c.more(b']')? {
                                break;
                            }
                        }
                    }
                    Arg::List(start, self.elems.len())
                }
                _ => {
                    let v = self.scalar()?;
                    self.elems.push(v);
                    Arg::One(self.elems.len() - 1)
                }
            };
            self.c.eat(b']')?;
            span.end = self.c.i as u64;
            self.ops.push(RawOp { kind, key, arg, span });
            if self.c.more(b']')? {
                return Some(());
            }
        }
    }

    fn scalar(&mut self) -> Option<Scalar<'a>> {
        self.c.ws();
        if self.c.peek()? == b'"' {
            self.c.string().map(Scalar::Str)
        } else {
            self.c.int().map(Scalar::Int)
        }
    }

    fn value_of(&mut self, s: Scalar<'a>) -> Value {
        match s {
            Scalar::Int(v) => Value::Int(v),
            Scalar::Str(s) => self.b.str_value(s),
        }
    }

    /// Push `ops[a..b]` as json.rs's `push_ops` does for entry `i`.
    fn push_ops(&mut self, i: usize, a: usize, b: usize) {
        let place = Place { line: i as u32 + 1, column: 1 };
        for j in a..b {
            let (kind, key, arg, span) = {
                let op = &self.ops[j];
                (op.kind, op.key, op.arg, op.span)
            };
            let key = self.value_of(key);
            let key = self.b.key(key);
            match (kind, arg) {
                (OpKind::Read, Arg::List(s, e)) => {
                    let mut vals = std::mem::take(&mut self.scratch);
                    vals.clear();
                    for k in s..e {
                        let v = self.value_of(self.elems[k]);
                        vals.push(v);
                    }
                    self.b.push_read_list(key, &vals, place);
                    self.scratch = vals;
                }
                (OpKind::Read, Arg::Nil) => self.b.push_read_nil(key),
                (OpKind::Read, Arg::One(k)) => {
                    let v = self.value_of(self.elems[k]);
                    self.b.push_read_scalar(key, v, place);
                }
                (_, Arg::One(k)) => {
                    let v = self.value_of(self.elems[k]);
                    self.b.push_write(kind, key, v, place);
                }
                _ => unreachable!("ops_array gives writes one value"),
            }
            if self.spans {
                self.b.set_op_span(span);
            }
        }
    }

    fn entry_span(&self, e: &Entry) -> Option<Span> {
        self.spans.then_some(e.span)
    }

    fn timestamps(e: &Entry) -> Option<(Option<Ts>, Option<Ts>)> {
        let one = |f: IntF| f.get().map(Ts::int);
        let (s, c) = (one(e.start_ts), one(e.commit_ts));
        if let (Some(s), Some(c)) = (s, c) {
            if s > c {
                return None;
            }
        }
        Some((s, c))
    }

    fn native(&mut self, i: usize, e: &Entry<'a>) -> Option<()> {
        let ordinal = self.first + i as u64;
        if e.process_str {
            return None;
        }
        let id = match e.id {
            IntF::Int(v) if v < 0 => return None,
            f => f.get().map(|v| v as u64),
        };
        let status = match e.status {
            StrF::Absent => Status::Committed,
            StrF::Str("committed" | "ok") => Status::Committed,
            StrF::Str("aborted" | "fail") => Status::Aborted,
            StrF::Str("indeterminate" | "info") => Status::Indeterminate,
            _ => return None,
        };
        let process = e.session.get().or(e.process.get());
        match e.ops {
            Val::Absent | Val::Null => {}
            Val::Ops(a, b, _) => self.push_ops(i, a, b),
            Val::OtherArray | Val::Other => return None,
        }
        let label = match e.label {
            StrF::Str(s) => Some(self.b.intern(s)),
            _ => None,
        };
        let (start_ts, commit_ts) = Self::timestamps(e)?;
        let meta = TxnMeta {
            id: Some(id.unwrap_or(ordinal)),
            process,
            invoke_time: e.start.get(),
            complete_time: e.end.get(),
            label,
            line: e.span.line,
            span: self.entry_span(e),
            start_ts,
            commit_ts,
            ..Default::default()
        };
        self.b.finish_txn(status, meta);
        Some(())
    }

    fn elle(&mut self, i: usize, e: &Entry<'a>) -> Option<()> {
        let ordinal = self.first + i as u64;
        let ty = OpType::parse(e.ty.get()?)?;
        if e.process_str {
            return Some(()); // nemesis
        }
        let index = match e.index {
            IntF::Int(v) if v < 0 => return None,
            f => f.get().map(|v| v as u64),
        };
        let (process, time) = (e.process.get(), e.time.get());
        let f = e.f.get();
        let not_txn_f = f.is_some_and(|f| f != "txn");
        if ty == OpType::Invoke {
            let handle = Invocation { entry: i, value: e.value, not_txn_f, span: self.entry_span(e) };
            self.pairer.invoke(Pending { index, time, process, line: e.span.line, seq: ordinal, handle });
            return Some(());
        }
        let invoke = self.pairer.complete(process);
        let value = match (e.value, &invoke) {
            (Val::Absent | Val::Null, Some(p)) => self.reread(p.handle.value)?,
            (Val::Absent | Val::Null, None) => Val::Absent,
            (v, _) => v,
        };
        if !self.push_txn_ops(i, value, not_txn_f)? {
            return Some(());
        }
        let label = match e.label {
            StrF::Str(s) => Some(s),
            StrF::Null | StrF::Absent => f.filter(|f| *f != "txn"),
        };
        let label = label.map(|l| self.b.intern(l));
        let status = match ty {
            OpType::Ok => Status::Committed,
            OpType::Fail => Status::Aborted,
            _ => Status::Indeterminate,
        };
        let (start_ts, commit_ts) = Self::timestamps(e)?;
        let meta = TxnMeta {
            id: Some(index.unwrap_or(ordinal)),
            process,
            invoke_time: invoke.as_ref().and_then(|p| p.time),
            complete_time: time,
            invoke_pos: Some(invoke.as_ref().map_or(ordinal, |p| p.seq)),
            complete_pos: Some(ordinal),
            label,
            line: e.span.line,
            span: self.entry_span(e),
            start_ts,
            commit_ts,
        };
        self.b.finish_txn(status, meta);
        Some(())
    }

    /// An invocation's value read again (its operations are no longer in `ops`).
    fn reread(&mut self, v: Val) -> Option<Val> {
        let Val::Ops(_, _, mark) = v else {
            return Some(v);
        };
        let here = self.c.mark();
        self.c.reset(mark.into());
        self.ops.clear();
        self.elems.clear();
        let read = self.ops_array();
        self.c.reset(here);
        read?;
        Some(Val::Ops(0, self.ops.len(), mark))
    }

    /// json.rs's `push_txn_ops`: `Some(false)` when the entry is no transaction.
    fn push_txn_ops(&mut self, i: usize, value: Val, not_txn_f: bool) -> Option<bool> {
        match value {
            Val::Absent | Val::Null => Some(!not_txn_f),
            Val::Ops(a, b, _) => {
                self.push_ops(i, a, b);
                Some(true)
            }
            // Not an array: push_ops fails before pushing anything.
            Val::Other if not_txn_f => Some(false),
            // An array push_ops would fail on part way, having interned its keys.
            Val::Other | Val::OtherArray => None,
        }
    }

    fn finish(mut self, vo: Option<serde_json::Value>, co: Option<serde_json::Value>) -> Option<History> {
        let pairer = std::mem::take(&mut self.pairer);
        for p in pairer.leftovers() {
            let value = self.reread(p.handle.value)?;
            if !self.push_txn_ops(p.handle.entry, value, p.handle.not_txn_f)? {
                continue;
            }
            self.b.finish_txn(Status::Indeterminate, TxnMeta { span: p.handle.span, ..p.meta() });
        }
        let mut h = self.b.finish().ok()?;
        h.notation = if self.all_native { Notation::Native } else { Notation::ElleJson };
        if let Some(vo) = vo {
            h.version_order = Some(super::json::version_order_from_json(&h, &vo).ok()?);
        }
        if let Some(co) = co {
            h.commit_order = Some(super::claims::commit_order_from_json(&h, &co, self.c.t).ok()?);
        }
        Some(h)
    }
}
