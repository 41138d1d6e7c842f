//! Jepsen histories in EDN: one operation map per line, or one vector of maps.
//!
//! A zero-copy scanner for the subset Jepsen writes. `clojure-reader` parses these histories at
//! about 54 MB/s, too slow for a 1M-transaction history in 2 s; it stays the oracle in the tests.
//! Forms grail does not need (`:time` of a nemesis, tagged literals, sets) are skipped unread.

use super::pairing::{OpType, Pairer, Pending};
use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, KeyId, OpKind, Span, SpanMode, Status, Value};

/// Parse a Jepsen EDN history.
pub fn read_edn(text: &[u8]) -> Result<History, Error> {
    read_edn_with(text, 0, SpanMode::Every, &mut |_| {})
}

/// [`read_edn`] for records of a stream read one at a time (the online checker's): the text's
/// operations stand at `first`, `first + 1`, ... of the stream, which is the id of a transaction
/// without an `:index` (and the position of its operation). Errors are the same as `read_edn`'s.
pub(crate) fn read_edn_from(text: &[u8], first: u64) -> Result<History, Error> {
    read_edn_with(text, first, SpanMode::Every, &mut |_| {})
}

/// [`read_edn_from`], recording the span of every operation and transaction or none, telling
/// `release` how much of the text it is done with ([`super::read_releasing`]).
pub(crate) fn read_edn_with(
    text: &[u8],
    first: u64,
    spans: SpanMode,
    release: &mut dyn FnMut(usize),
) -> Result<History, Error> {
    #[cfg(feature = "parallel")]
    if let Some(h) = super::edn_chunks::only_chunked(text, first, spans, super::edn_chunks::CHUNK_BYTES, release) {
        return h;
    }
    #[cfg(not(feature = "parallel"))]
    let _ = release;
    read_sequential(text, first, spans)
}

/// The reader on one thread: the reference the parallel reader must equal.
pub(super) fn read_sequential(text: &[u8], first: u64, spans: SpanMode) -> Result<History, Error> {
    let mut b = HistoryBuilder::new();
    b.set_span_mode(spans);
    let mut r = Reader::new(text, b, first);
    r.run()?;
    r.finish(text)
}

impl<'a, S> Reader<'a, S> {
    pub(super) fn new(text: &'a [u8], b: S, first: u64) -> Self {
        Reader { s: Scanner::new(text), b, elems: Vec::new(), first, columns: Columns::default(), commit_order: None }
    }
}

impl Reader<'_, HistoryBuilder> {
    /// The history read, with the claimed commit order resolved.
    pub(super) fn finish(mut self, text: &[u8]) -> Result<History, Error> {
        let commit_order = self.commit_order.take();
        let mut h = self.b.finish_with(|p| char_place(text, p))?;
        if let Some((ids, at)) = commit_order {
            h.commit_order = Some(super::claims::resolve_commit_order(&h, &ids, text, at)?);
        }
        Ok(h)
    }
}

/// A place whose column counts bytes (as the scanner keeps it) with its column in characters.
fn char_place(text: &[u8], p: Place) -> Place {
    let line_start = if p.line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(p.line as usize - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    let offset = (line_start + (p.column.max(1) as usize - 1)).min(text.len());
    let (line, column) = crate::error::line_col(text, offset);
    Place { line, column }
}

/// A shape mismatch found while trying to read a transaction value; turned into an [`Error`]
/// only if the operation turns out to be a transaction (nemesis values are skipped).
struct Mismatch {
    offset: usize,
    message: String,
}

enum Atom<'a> {
    Int(i64),
    Str(std::borrow::Cow<'a, str>),
    Keyword(&'a str),
    Symbol(&'a str),
    Nil,
    Other,
}

pub(super) struct Scanner<'a> {
    pub(super) s: &'a [u8],
    pub(super) pos: usize,
    pub(super) line: u32,
    pub(super) line_start: usize,
    /// Reused by `skip_form`.
    stack: Vec<(u8, usize)>,
}

/// Bytes that end a token, as a table: the tokenizer's inner loop.
const DELIM: [bool; 256] = {
    let mut t = [false; 256];
    let ds = b" \t\n\r,()[]{}\";";
    let mut i = 0;
    while i < ds.len() {
        t[ds[i] as usize] = true;
        i += 1;
    }
    t
};

/// How [`Scanner::skip_plain_collection`] takes a byte; brackets by kind (1 `[]`, 2 `()`, 3 `{}`).
#[derive(Clone, Copy, PartialEq)]
enum Skip {
    Token,
    Open(u8),
    Close(u8),
    Line,
    Other,
}

const SKIP: [Skip; 256] = {
    let mut t = [Skip::Token; 256];
    t[b'[' as usize] = Skip::Open(1);
    t[b'(' as usize] = Skip::Open(2);
    t[b'{' as usize] = Skip::Open(3);
    t[b']' as usize] = Skip::Close(1);
    t[b')' as usize] = Skip::Close(2);
    t[b'}' as usize] = Skip::Close(3);
    t[b'\n' as usize] = Skip::Line;
    t[b'"' as usize] = Skip::Other;
    t[b';' as usize] = Skip::Other;
    t[b'#' as usize] = Skip::Other;
    t[b'\\' as usize] = Skip::Other;
    t
};

/// The keywords of nearly every line of a Jepsen history, without a UTF-8 check each (2% of a
/// read).
#[inline(always)]
fn common_keyword(t: &[u8]) -> Option<&'static str> {
    Some(match t {
        b"type" => "type",
        b"f" => "f",
        b"value" => "value",
        b"time" => "time",
        b"process" => "process",
        b"index" => "index",
        b"invoke" => "invoke",
        b"ok" => "ok",
        b"fail" => "fail",
        b"info" => "info",
        b"txn" => "txn",
        b"r" => "r",
        b"w" => "w",
        b"append" => "append",
        _ => return None,
    })
}

fn is_delim(b: u8) -> bool {
    DELIM[b as usize]
}

impl<'a> Scanner<'a> {
    pub(super) fn new(s: &'a [u8]) -> Self {
        Scanner { s, pos: 0, line: 1, line_start: 0, stack: Vec::new() }
    }

    fn err(&self, offset: usize, msg: impl Into<String>) -> Error {
        Error::at_offset(ErrorKind::Syntax, self.s, offset, msg)
    }

    fn place(&self) -> Place {
        Place { line: self.line, column: (self.pos - self.line_start + 1) as u32 }
    }

    /// Skip whitespace, commas, comments and discarded forms (`#_ form`), so that a discard may
    /// stand anywhere a form may, as in EDN. A malformed discarded form is left in place: the
    /// caller then reports it as it reports any malformed form.
    #[inline(always)]
    pub(super) fn ws(&mut self) {
        // Most calls find a token at once, after one space, or after ", " (between a map's
        // entries): no call, no loop.
        let starts_blank = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b',' | b';' | b'#');
        let token_at = |i: usize| self.s.get(i).is_some_and(|&c| !starts_blank(c));
        match self.s.get(self.pos) {
            Some(&b) if !starts_blank(b) => return,
            Some(b' ') if token_at(self.pos + 1) => {
                self.pos += 1;
                return;
            }
            Some(b',') if self.s.get(self.pos + 1) == Some(&b' ') && token_at(self.pos + 2) => {
                self.pos += 2;
                return;
            }
            _ => {}
        }
        self.ws_general()
    }

    #[inline(never)]
    fn ws_general(&mut self) {
        loop {
            self.ws_plain();
            if self.s.get(self.pos) != Some(&b'#') || self.s.get(self.pos + 1) != Some(&b'_') {
                return;
            }
            let saved = (self.pos, self.line, self.line_start);
            self.pos += 2;
            if self.skip_form().is_err() {
                (self.pos, self.line, self.line_start) = saved;
                return;
            }
        }
    }

    /// Skip whitespace, commas and comments; `skip_form` uses it, handling `#_` itself without
    /// recursion.
    fn ws_plain(&mut self) {
        while let Some(&b) = self.s.get(self.pos) {
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' | b',' => self.pos += 1,
                b';' => {
                    while self.pos < self.s.len() && self.s[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// Skip a backslash and the byte it escapes in a string, counting a line break (and never
    /// stepping past the end).
    fn escape(&mut self) {
        self.pos += 1;
        match self.s.get(self.pos) {
            Some(b'\n') => {
                self.pos += 1;
                self.line += 1;
                self.line_start = self.pos;
            }
            Some(_) => self.pos += 1,
            None => {}
        }
    }

    /// Skip a character literal: `\a`, `\newline`, `\u00e9`; its first character may be a
    /// delimiter (`\(`). A backslash at the very end of the input used to slice past it.
    fn char_literal(&mut self) -> Result<(), Error> {
        let start = self.pos;
        if self.pos + 1 >= self.s.len() {
            return Err(self.err(start, "expected a character after '\\'"));
        }
        self.escape();
        self.token();
        Ok(())
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn token(&mut self) -> &'a [u8] {
        let start = self.pos;
        let len = self.s[start..].iter().position(|&b| is_delim(b)).unwrap_or(self.s.len() - start);
        self.pos = start + len;
        &self.s[start..self.pos]
    }

    fn string(&mut self) -> Result<std::borrow::Cow<'a, str>, Error> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut escaped = false;
        while let Some(&b) = self.s.get(self.pos) {
            match b {
                b'"' => {
                    let raw = &self.s[start..self.pos];
                    self.pos += 1;
                    let text =
                        std::str::from_utf8(raw).map_err(|_| self.err(start, "expected UTF-8 text in a string"))?;
                    return Ok(if escaped { unescape(text).into() } else { text.into() });
                }
                b'\\' => {
                    escaped = true;
                    self.escape();
                }
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                _ => self.pos += 1,
            }
        }
        Err(self.err(open, "string is not closed: expected '\"'"))
    }

    /// A run of at most 18 decimal digits ending at a delimiter, read in one pass: most of a
    /// history's numbers. Anything else (a sign, `N`, a float, 19 digits or more) is left to
    /// `atom`'s general path, with the scanner not moved. 18 digits cannot overflow an i64, so
    /// no digit needs an overflow check (on wasm32 a checked i64 multiply is a call to the
    /// 128-bit `__multi3`: 8% of a check in Node).
    fn plain_int(&mut self) -> Option<i64> {
        let start = self.pos;
        let mut p = start;
        let mut acc: u64 = 0;
        while let Some(&d) = self.s.get(p) {
            let digit = d.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            acc = acc.wrapping_mul(10).wrapping_add(u64::from(digit));
            p += 1;
        }
        if p == start || p - start > 18 || self.s.get(p).is_some_and(|&c| !is_delim(c)) {
            return None;
        }
        self.pos = p;
        Some(acc as i64)
    }

    /// `atom` for what every Jepsen line is made of, common keywords and plain integers, read
    /// inline: through `atom`'s call and its dispatch on the first byte, the result came back
    /// through memory. Anything else goes to `atom`.
    #[inline(always)]
    fn atom_fast(&mut self) -> Result<Atom<'a>, Error> {
        if self.peek() == Some(b':') {
            let start = self.pos;
            self.pos += 1;
            if let Some(k) = common_keyword(self.token()) {
                return Ok(Atom::Keyword(k));
            }
            self.pos = start;
        } else if let Some(i) = self.plain_int() {
            return Ok(Atom::Int(i));
        }
        self.atom()
    }

    /// Read a scalar form; collections are returned as `Other` with the scanner still on them.
    fn atom(&mut self) -> Result<Atom<'a>, Error> {
        let start = self.pos;
        match self.peek() {
            None => Err(self.err(start, "unexpected end of input: expected a value")),
            Some(b'"') => Ok(Atom::Str(self.string()?)),
            Some(b'[' | b'{' | b'(' | b'#') => Ok(Atom::Other),
            Some(b']' | b'}' | b')') => {
                Err(self.err(start, format!("unexpected '{}': expected a value", self.s[start] as char)))
            }
            Some(b':') => {
                self.pos += 1;
                let t = self.token();
                let name = match common_keyword(t) {
                    Some(k) => k,
                    None => std::str::from_utf8(t).map_err(|_| self.err(start, "expected UTF-8 in a keyword"))?,
                };
                if name.is_empty() {
                    return Err(self.err(start, "expected a keyword name after ':'"));
                }
                Ok(Atom::Keyword(name))
            }
            Some(b'\\') => {
                self.char_literal()?;
                Ok(Atom::Other)
            }
            Some(b)
                if b.is_ascii_digit()
                    || ((b == b'-' || b == b'+') && self.s.get(start + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                if let Some(i) = self.plain_int() {
                    return Ok(Atom::Int(i));
                }
                let t = self.token();
                let (neg, digits) = match t[0] {
                    b'-' => (true, &t[1..]),
                    b'+' => (false, &t[1..]),
                    _ => (false, t),
                };
                let digits = digits.strip_suffix(b"N").unwrap_or(digits);
                if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                    return Ok(Atom::Other); // floats, ratios, bigdecimals
                }
                // Accumulate negatively, so that i64::MIN fits.
                let mut acc: i64 = 0;
                for &d in digits {
                    match acc.checked_mul(10).and_then(|a| a.checked_sub((d - b'0') as i64)) {
                        Some(a) => acc = a,
                        None => return Err(self.err(start, "integer out of the 64-bit range")),
                    }
                }
                match if neg { Some(acc) } else { acc.checked_neg() } {
                    Some(i) => Ok(Atom::Int(i)),
                    None => Err(self.err(start, "integer out of the 64-bit range")),
                }
            }
            Some(_) => {
                let t = self.token();
                if t.is_empty() {
                    return Err(self.err(start, format!("unexpected character '{}'", self.s[start] as char)));
                }
                let name = std::str::from_utf8(t).map_err(|_| self.err(start, "expected UTF-8 in a symbol"))?;
                Ok(if name == "nil" { Atom::Nil } else { Atom::Symbol(name) })
            }
        }
    }

    /// Skip a string without decoding it.
    fn skip_string(&mut self) -> Result<(), Error> {
        let open = self.pos;
        self.pos += 1;
        while let Some(&b) = self.s.get(self.pos) {
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => self.escape(),
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                _ => self.pos += 1,
            }
        }
        Err(self.err(open, "string is not closed: expected '\"'"))
    }

    /// Skip one form of any kind, iteratively (no recursion on deep nesting), checking only the
    /// brackets: nothing inside a skipped form is used.
    fn skip_form(&mut self) -> Result<(), Error> {
        if self.skip_plain_collection() {
            return Ok(());
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let r = self.skip_with(&mut stack);
        self.stack = stack;
        r
    }

    /// Skip a collection of tokens and collections alone (an invocation's value, most of what
    /// is skipped) from bracket to bracket: `false` (nothing done) at anything else (a string, a
    /// comment, `#`, a character, a wrong or missing closing bracket, deep nesting), which
    /// `skip_with` then reads, with its errors.
    fn skip_plain_collection(&mut self) -> bool {
        let (mut open, mut depth) = (0u64, 0u32);
        let (mut line, mut line_start) = (self.line, self.line_start);
        let mut i = self.pos;
        while let Some(&b) = self.s.get(i) {
            match SKIP[b as usize] {
                Skip::Token if depth > 0 => {
                    // Tokens and blanks run on to the next bracket: a tight loop, not a jump per byte.
                    i += self.s[i..].iter().position(|&b| SKIP[b as usize] != Skip::Token).unwrap_or(self.s.len() - i);
                    continue;
                }
                Skip::Open(kind) if depth < 32 => {
                    open = open << 2 | kind as u64;
                    depth += 1;
                }
                Skip::Close(kind) if depth > 0 && open & 3 == kind as u64 => {
                    open >>= 2;
                    depth -= 1;
                    if depth == 0 {
                        (self.pos, self.line, self.line_start) = (i + 1, line, line_start);
                        return true;
                    }
                }
                Skip::Line if depth > 0 => (line, line_start) = (line + 1, i + 1),
                _ => return false, // not a collection, or what skip_with must read
            }
            i += 1;
        }
        false
    }

    fn skip_with(&mut self, stack: &mut Vec<(u8, usize)>) -> Result<(), Error> {
        // Forms left to skip at the outer level: `#_` there adds the discarded one.
        let mut pending = 1u32;
        loop {
            self.ws_plain();
            let at = self.pos;
            let Some(b) = self.peek() else {
                return Err(match stack.last() {
                    Some(&(close, open)) => {
                        self.err(open, format!("collection is not closed: expected '{}'", close as char))
                    }
                    None => self.err(at, "unexpected end of input: expected a value"),
                });
            };
            match b {
                b'[' | b'(' | b'{' => {
                    self.pos += 1;
                    stack.push((
                        if b == b'[' {
                            b']'
                        } else if b == b'(' {
                            b')'
                        } else {
                            b'}'
                        },
                        at,
                    ));
                    continue;
                }
                b'#' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'{') => {
                            self.pos += 1;
                            stack.push((b'}', at));
                        }
                        Some(b'_') => {
                            self.pos += 1;
                            if stack.is_empty() {
                                pending += 1;
                            }
                        }
                        _ => {
                            self.token(); // a tag: the next form is its value
                        }
                    }
                    continue;
                }
                b']' | b')' | b'}' => match stack.pop() {
                    Some((close, _)) if close == b => self.pos += 1,
                    Some((close, _)) => {
                        return Err(self.err(at, format!("expected '{}', found '{}'", close as char, b as char)))
                    }
                    None => return Err(self.err(at, format!("unexpected '{}': expected a value", b as char))),
                },
                b'"' => self.skip_string()?,
                b'\\' => self.char_literal()?,
                _ => {
                    if self.token().is_empty() {
                        return Err(self.err(at, format!("unexpected character '{}'", b as char)));
                    }
                }
            }
            if stack.is_empty() {
                pending -= 1;
                if pending == 0 {
                    return Ok(());
                }
            }
        }
    }
}

/// Decode a string's escapes as Clojure's reader does: `\n \t \r \b \f \" \\` and `\uXXXX`
/// (a `\u` without four hex digits, or any other escaped character, stands for itself).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex = chars.as_str().get(..4).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                match hex.and_then(|h| u32::from_str_radix(h, 16).ok()).and_then(char::from_u32) {
                    Some(ch) => {
                        out.push(ch);
                        chars.nth(3);
                    }
                    None => out.push('u'),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Where the reader puts what it reads: the history's builder, or (parallel reading) a chunk's
/// record of operations that is replayed into the builder in order ([`super::edn_chunks`]).
pub(super) trait Sink {
    /// Whether maps' (transactions') spans are wanted.
    fn records_spans(&self) -> bool;
    /// Whether operations' spans are wanted ([`Sink::set_op_span`]).
    fn records_op_spans(&self) -> bool;
    fn str_value(&mut self, s: &str) -> Value;
    fn key(&mut self, v: Value) -> KeyId;
    fn push_write(&mut self, kind: OpKind, key: KeyId, value: Value, place: Place);
    fn push_read_nil(&mut self, key: KeyId);
    fn push_read_scalar(&mut self, key: KeyId, value: Value, place: Place);
    fn push_read_list(&mut self, key: KeyId, elems: &[Value], place: Place);
    fn set_op_span(&mut self, span: Span);
    fn abandon_txn(&mut self);
}

impl Sink for HistoryBuilder {
    fn records_spans(&self) -> bool {
        HistoryBuilder::records_spans(self)
    }
    fn records_op_spans(&self) -> bool {
        HistoryBuilder::records_op_spans(self)
    }
    fn str_value(&mut self, s: &str) -> Value {
        HistoryBuilder::str_value(self, s)
    }
    fn key(&mut self, v: Value) -> KeyId {
        HistoryBuilder::key(self, v)
    }
    fn push_write(&mut self, kind: OpKind, key: KeyId, value: Value, place: Place) {
        HistoryBuilder::push_write(self, kind, key, value, place)
    }
    fn push_read_nil(&mut self, key: KeyId) {
        HistoryBuilder::push_read_nil(self, key)
    }
    fn push_read_scalar(&mut self, key: KeyId, value: Value, place: Place) {
        HistoryBuilder::push_read_scalar(self, key, value, place)
    }
    fn push_read_list(&mut self, key: KeyId, elems: &[Value], place: Place) {
        HistoryBuilder::push_read_list(self, key, elems, place)
    }
    fn set_op_span(&mut self, span: Span) {
        HistoryBuilder::set_op_span(self, span)
    }
    fn abandon_txn(&mut self) {
        HistoryBuilder::abandon_txn(self)
    }
}

pub(super) struct Reader<'a, S> {
    pub(super) s: Scanner<'a>,
    pub(super) b: S,
    elems: Vec<Value>,
    /// The first operation's position in the stream ([`read_edn_from`]).
    pub(super) first: u64,
    columns: Columns,
    /// `{:commit-order [ids ...]}`: the claimed commit order, and where it stands.
    commit_order: Option<(Vec<u64>, usize)>,
}

/// Columns in characters of the spans recorded on one line, counted incrementally: a history
/// written as one vector on one line must not cost a scan from the line's start per span.
#[derive(Default)]
struct Columns {
    line_start: usize,
    pos: usize,
    /// Characters in `line_start..pos`.
    chars: u32,
}

impl Columns {
    /// The 1-based column, in characters, of byte `pos` on the line starting at `line_start`.
    fn at(&mut self, s: &[u8], line_start: usize, pos: usize) -> u32 {
        let chars = |r: &[u8]| r.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32;
        if self.line_start != line_start || pos < line_start {
            *self = Columns { line_start, pos: line_start, chars: 0 };
        }
        let pos = pos.min(s.len());
        if pos >= self.pos {
            self.chars += chars(&s[self.pos..pos]);
        } else {
            self.chars -= chars(&s[pos..self.pos]);
        }
        self.pos = pos;
        self.chars + 1
    }
}

/// Where an invocation's `:value` is, to read it again if its completion has none.
#[derive(Debug, Clone, Copy)]
pub(super) struct InvokeValue {
    offset: Option<usize>,
    line: u32,
    /// The operation's `:f` is neither `:txn` nor absent.
    not_txn_f: bool,
    /// The invocation's map, the transaction's span if it never completes.
    span: Option<Span>,
}

/// What an operation map says, gathered before deciding what it is.
#[derive(Default)]
pub(super) struct OpMap<'a> {
    ty: Option<OpType>,
    process: Option<i64>,
    process_is_keyword: bool,
    index: Option<u64>,
    time: Option<i64>,
    f: Option<std::borrow::Cow<'a, str>>,
    /// Offset of `:value`'s form, and whether it parsed as a transaction (ops pushed).
    value_at: Option<usize>,
    pub(super) value_line: u32,
    parsed: Option<Result<(), Mismatch>>,
    /// What few histories have, out of line: a parallel read hands maps from one thread to
    /// another, and each cache line of a map was a miss on the thread that took it.
    pub(super) rare: Option<Box<RareFields<'a>>>,
}

/// The fields of an operation map that few histories have.
#[derive(Default)]
pub(super) struct RareFields<'a> {
    label: Option<std::borrow::Cow<'a, str>>,
    /// `:start-ts` and `:commit-ts` (white-box checking), with the place of the first.
    start_ts: Option<crate::history::Ts>,
    commit_ts: Option<crate::history::Ts>,
    ts_at: usize,
    /// `:commit-order [ids ...]` in a map without `:type`.
    pub(super) commit_order: Option<(Vec<u64>, usize)>,
}

impl<'a> OpMap<'a> {
    fn rare(&mut self) -> &mut RareFields<'a> {
        self.rare.get_or_insert_with(Default::default)
    }

    pub(super) fn commit_order(&self) -> Option<&(Vec<u64>, usize)> {
        self.rare.as_ref()?.commit_order.as_ref()
    }
}

/// Operation maps the one-thread reader reads before it estimates the rest of the history.
const ESTIMATE_AFTER: u64 = 4096;

impl<'a> Reader<'a, HistoryBuilder> {
    fn run(&mut self) -> Result<(), Error> {
        let mut pairer: Pairer<InvokeValue> = Pairer::default();
        let mut ordinal: u64 = self.first;
        self.s.ws();
        let whole_vector = self.s.peek() == Some(b'[');
        if whole_vector {
            self.s.pos += 1;
        }
        loop {
            self.s.ws();
            let at = self.s.pos;
            match self.s.peek() {
                None if whole_vector => return Err(self.s.err(at, "the history vector is not closed: expected ']'")),
                None => break,
                Some(b']') if whole_vector => {
                    self.s.pos += 1;
                    self.s.ws();
                    if self.s.pos < self.s.s.len() {
                        return Err(self.s.err(self.s.pos, "expected the end of input after the history vector"));
                    }
                    break;
                }
                Some(b'{') => {}
                Some(_) => return Err(self.s.err(at, "expected an operation map '{...}'")),
            }
            let (line, line_start) = (self.s.line, self.s.line_start);
            let mut m = self.op_map()?;
            let span = self.span(at, line, line_start);
            self.handle(&mut m, line, ordinal, &mut pairer, span)?;
            ordinal += 1;
            if ordinal - self.first == ESTIMATE_AFTER && self.s.pos < self.s.s.len() / 2 {
                let (ops, txns) = self.b.sizes();
                self.b.reserve_at_density(self.s.pos, self.s.s.len(), ops, txns);
            }
        }
        self.finish_leftovers(pairer)
    }

    /// Invocations that never completed: indeterminate transactions, in input order.
    pub(super) fn finish_leftovers(&mut self, pairer: Pairer<InvokeValue>) -> Result<(), Error> {
        for p in pairer.leftovers() {
            if !self.take_invocation_value(&p.handle)? {
                continue; // a client operation that is not a transaction
            }
            self.b.finish_txn(Status::Indeterminate, TxnMeta { span: p.handle.span, ..p.meta() });
        }
        Ok(())
    }
}

impl<'a, S: Sink> Reader<'a, S> {
    /// The span from `start` (on `line`, which starts at byte `line_start`) to the scanner;
    /// `None` when the builder records no spans.
    pub(super) fn span(&mut self, start: usize, line: u32, line_start: usize) -> Option<Span> {
        if !self.b.records_spans() {
            return None;
        }
        let column = self.columns.at(self.s.s, line_start, start);
        Some(Span { start: start as u64, end: self.s.pos as u64, line, column })
    }

    // Out of line on purpose: WebAssembly engines (V8) cannot swap optimised code into a running
    // loop, but do for the next call of a hot function; one call per operation lets them.
    #[inline(never)]
    pub(super) fn op_map(&mut self) -> Result<OpMap<'a>, Error> {
        let open = self.s.pos;
        self.s.pos += 1;
        let mut m = OpMap::default();
        loop {
            self.s.ws();
            match self.s.peek() {
                None => return Err(self.s.err(open, "operation map is not closed: expected '}'")),
                Some(b'}') => {
                    self.s.pos += 1;
                    return Ok(m);
                }
                _ => {}
            }
            let key_at = self.s.pos;
            let key = match self.s.atom_fast()? {
                Atom::Keyword(k) => k,
                _ => {
                    self.s.pos = key_at;
                    self.s.skip_form()?;
                    self.s.ws();
                    if self.s.peek() == Some(b'}') {
                        return Err(self.s.err(self.s.pos, "map has a key without a value"));
                    }
                    self.s.skip_form()?;
                    continue;
                }
            };
            self.s.ws();
            if self.s.peek() == Some(b'}') || self.s.peek().is_none() {
                return Err(self.s.err(self.s.pos, format!("expected a value for :{key}")));
            }
            let at = self.s.pos;
            match key {
                "type" => match self.s.atom_fast()? {
                    Atom::Keyword(t) => {
                        m.ty = Some(OpType::parse(t).ok_or_else(|| {
                            self.shape(at, format!("expected :type to be :invoke, :ok, :fail or :info, found :{t}"))
                        })?)
                    }
                    _ => return Err(self.shape(at, "expected :type to be a keyword (:invoke, :ok, :fail or :info)")),
                },
                "process" => match self.s.atom_fast()? {
                    Atom::Int(p) => m.process = Some(p),
                    Atom::Keyword(_) | Atom::Symbol(_) | Atom::Str(_) => m.process_is_keyword = true,
                    Atom::Nil => {}
                    Atom::Other => self.skip_at(at)?,
                },
                "index" => match self.s.atom_fast()? {
                    Atom::Int(i) if i >= 0 => m.index = Some(i as u64),
                    Atom::Other => self.skip_at(at)?,
                    _ => return Err(self.shape(at, "expected :index to be a non-negative integer")),
                },
                "time" => match self.s.atom_fast()? {
                    Atom::Int(t) => m.time = Some(t),
                    Atom::Other => self.skip_at(at)?,
                    _ => {}
                },
                "f" | "label" => {
                    let name = match self.s.atom_fast()? {
                        Atom::Keyword(k) | Atom::Symbol(k) => Some(std::borrow::Cow::Borrowed(k)),
                        Atom::Str(s) => Some(s),
                        Atom::Other => {
                            self.skip_at(at)?;
                            None
                        }
                        _ => None,
                    };
                    if key == "f" {
                        m.f = name;
                    } else {
                        m.rare().label = name;
                    }
                }
                "start-ts" | "commit-ts" => {
                    let ts = self.ts_form(at, key)?;
                    let r = m.rare();
                    if r.start_ts.is_none() && r.commit_ts.is_none() {
                        r.ts_at = at;
                    }
                    if key == "start-ts" {
                        r.start_ts = Some(ts);
                    } else {
                        r.commit_ts = Some(ts);
                    }
                }
                "commit-order" => m.rare().commit_order = Some((self.id_vector(at)?, at)),
                "value" => {
                    // EDN maps have no duplicate keys (Elle's reader, clojure.edn, refuses them);
                    // a second value would also add operations the first's place cannot find.
                    if m.value_at.is_some() {
                        return Err(self.shape(key_at, "expected one :value in an operation map, found a second"));
                    }
                    m.value_at = Some(at);
                    m.value_line = self.s.line;
                    if m.ty == Some(OpType::Invoke) {
                        self.s.skip_form()?; // read again only if it never completes
                    } else {
                        let r = self.txn_value()?;
                        if r.is_err() {
                            self.b.abandon_txn();
                            self.s.pos = at;
                            self.s.line = m.value_line;
                            self.s.line_start = line_start_of(self.s.s, at);
                            self.s.skip_form()?;
                        }
                        m.parsed = Some(r);
                    }
                }
                _ => self.s.skip_form()?,
            }
        }
    }

    /// A timestamp: an integer, or a hybrid logical clock `[p l]`.
    fn ts_form(&mut self, at: usize, key: &str) -> Result<crate::history::Ts, Error> {
        let expected = || format!("expected :{key} to be an integer or a hybrid logical clock [p l]");
        if self.s.peek() == Some(b'[') {
            self.s.pos += 1;
            let mut parts = [0i64; 2];
            for part in &mut parts {
                self.s.ws();
                match self.s.atom()? {
                    Atom::Int(i) => *part = i,
                    _ => return Err(self.shape(at, expected())),
                }
            }
            self.s.ws();
            if self.s.peek() != Some(b']') {
                return Err(self.shape(at, expected()));
            }
            self.s.pos += 1;
            return Ok(crate::history::Ts::new(parts[0], parts[1]));
        }
        match self.s.atom()? {
            Atom::Int(i) => Ok(crate::history::Ts::int(i)),
            _ => Err(self.shape(at, expected())),
        }
    }

    /// `[3 1 2]`: transaction ids (non-negative integers).
    fn id_vector(&mut self, at: usize) -> Result<Vec<u64>, Error> {
        let expected = "expected :commit-order to be a vector of transaction ids (non-negative integers)";
        if !matches!(self.s.peek(), Some(b'[' | b'(')) {
            return Err(self.shape(at, expected));
        }
        let close = if self.s.peek() == Some(b'[') { b']' } else { b')' };
        self.s.pos += 1;
        let mut out = Vec::new();
        loop {
            self.s.ws();
            match self.s.peek() {
                None => return Err(self.s.err(at, format!("vector is not closed: expected '{}'", close as char))),
                Some(c) if c == close => {
                    self.s.pos += 1;
                    return Ok(out);
                }
                _ => {
                    let el = self.s.pos;
                    match self.s.atom()? {
                        Atom::Int(i) if i >= 0 => out.push(i as u64),
                        _ => return Err(self.shape(el, expected)),
                    }
                }
            }
        }
    }

    fn shape(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::at_offset(ErrorKind::Shape, self.s.s, at, msg)
    }

    fn skip_at(&mut self, at: usize) -> Result<(), Error> {
        self.s.pos = at;
        self.s.skip_form()
    }
}

impl<'a> Reader<'a, HistoryBuilder> {
    /// Decide what an operation map is. A transaction is an operation whose `:f` is `:txn` or
    /// absent, or whose value is a vector of micro-operations; a completion whose `:value` is
    /// `nil` or absent takes its invocation's. Other client operations are skipped, together
    /// with their invocation; so are operations of a keyword process (the nemesis).
    #[inline(never)]
    pub(super) fn handle(
        &mut self,
        m: &mut OpMap<'a>,
        line: u32,
        ordinal: u64,
        pairer: &mut Pairer<InvokeValue>,
        span: Option<Span>,
    ) -> Result<(), Error> {
        let ty = match m.ty {
            Some(t) => t,
            None if m.commit_order().is_some() => {
                self.b.abandon_txn();
                if self.commit_order.is_some() {
                    let at = m.commit_order().map_or(0, |c| c.1);
                    return Err(self.shape(at, "expected one :commit-order in the history, found a second"));
                }
                self.commit_order = m.rare.as_mut().and_then(|r| r.commit_order.take());
                return Ok(());
            }
            None => {
                self.b.abandon_txn();
                return Err(Error::at(ErrorKind::Shape, line, 1, "expected the operation map to have a :type"));
            }
        };
        let not_txn_f = m.f.as_deref().is_some_and(|f| f != "txn");
        if m.process_is_keyword {
            self.b.abandon_txn(); // nemesis and other non-client operations
            return Ok(());
        }
        let own_label = m.rare.as_ref().and_then(|r| r.label.as_deref());
        let label = own_label.or(m.f.as_deref().filter(|f| *f != "txn")).map(|l| self.b.intern(l));
        if ty == OpType::Invoke {
            // An invocation's value is skipped, and read again only if its completion has none.
            self.b.abandon_txn(); // a value read before :type said this is an invocation
            let handle = InvokeValue { offset: m.value_at, line: m.value_line, not_txn_f, span };
            pairer.invoke(Pending { index: m.index, time: m.time, process: m.process, line, seq: ordinal, handle });
            return Ok(());
        }
        let invoke = pairer.complete(m.process);
        match &m.parsed {
            Some(Ok(())) => self.ops_read_at_value(m),
            // Only here: after a parallel read the text at the value is cold on this thread,
            // and looking at it for every transaction was most of this function's time.
            _ if m.value_at.is_none() || self.value_is_nil(m) => {
                // A completion without operations: use the invocation's.
                self.b.abandon_txn();
                let from = match &invoke {
                    Some(p) => InvokeValue { not_txn_f, ..p.handle },
                    None => InvokeValue { offset: None, line, not_txn_f, span },
                };
                if !self.take_invocation_value(&from)? {
                    return Ok(()); // a client operation that is not a transaction
                }
            }
            Some(Err(_)) | None if not_txn_f => {
                self.b.abandon_txn();
                return Ok(()); // a client operation that is not a transaction
            }
            Some(Err(mm)) => return Err(self.shape(mm.offset, mm.message.clone())),
            None => self.ops_read_at_value(m),
        }
        let status = match ty {
            OpType::Ok => Status::Committed,
            OpType::Fail => Status::Aborted,
            _ => Status::Indeterminate,
        };
        let (start_ts, commit_ts, ts_at) =
            m.rare.as_ref().map_or((None, None, 0), |r| (r.start_ts, r.commit_ts, r.ts_at));
        if let (Some(s), Some(c)) = (start_ts, commit_ts) {
            if s > c {
                self.b.abandon_txn();
                return Err(self.shape(ts_at, format!("expected :start-ts ({s}) to be at most :commit-ts ({c})")));
            }
        }
        let meta = TxnMeta {
            id: Some(m.index.unwrap_or(ordinal)),
            process: m.process,
            invoke_time: invoke.as_ref().and_then(|p| p.time),
            complete_time: m.time,
            invoke_pos: Some(invoke.as_ref().map_or(ordinal, |p| p.seq)),
            complete_pos: Some(ordinal),
            label,
            line,
            span,
            start_ts,
            commit_ts,
        };
        self.b.finish_txn(status, meta);
        Ok(())
    }

    fn value_is_nil(&self, m: &OpMap) -> bool {
        m.value_at.is_some_and(|at| self.is_nil_at(at))
    }

    fn is_nil_at(&self, at: usize) -> bool {
        self.s.s.get(at..).is_some_and(|s| s.starts_with(b"nil")) && self.s.s.get(at + 3).is_none_or(|&b| is_delim(b))
    }

    /// The transaction's operations were read from this map's value (when it has one).
    fn ops_read_at_value(&mut self, m: &OpMap) {
        if let Some(at) = m.value_at {
            self.b.ops_read_at(at, m.value_line);
        }
    }

    /// Push the operations of an invocation's value (read again). `Ok(false)` when it is not a
    /// transaction and its operation's `:f` says it need not be one: then nothing is pushed.
    /// A missing or `nil` value is a transaction without operations, unless `:f` is not `:txn`.
    fn take_invocation_value(&mut self, v: &InvokeValue) -> Result<bool, Error> {
        let Some(offset) = v.offset.filter(|&at| !self.is_nil_at(at)) else {
            return Ok(!v.not_txn_f);
        };
        let saved = (self.s.pos, self.s.line, self.s.line_start);
        self.s.pos = offset;
        self.s.line = v.line;
        self.s.line_start = line_start_of(self.s.s, offset);
        let r = self.txn_value()?;
        (self.s.pos, self.s.line, self.s.line_start) = saved;
        match r {
            Ok(()) => {
                self.b.ops_read_at(offset, v.line);
                Ok(true)
            }
            Err(_) if v.not_txn_f => {
                self.b.abandon_txn();
                Ok(false)
            }
            Err(mm) => {
                self.b.abandon_txn();
                Err(self.shape(mm.offset, mm.message))
            }
        }
    }
}

impl<'a, S: Sink> Reader<'a, S> {
    /// Read `[[:r k v] [:append k v] ...]`, pushing operations. `Ok(Err(_))` when the form is
    /// well-formed so far but not a transaction.
    fn txn_value(&mut self) -> Result<Result<(), Mismatch>, Error> {
        let open = self.s.pos;
        let close = match self.s.peek() {
            Some(b'[') => b']',
            Some(b'(') => b')',
            _ => {
                return Ok(Err(Mismatch {
                    offset: open,
                    message: "expected :value to be a vector of micro-operations like [:r k v]".into(),
                }))
            }
        };
        self.s.pos += 1;
        loop {
            self.s.ws();
            let at = self.s.pos;
            match self.s.peek() {
                None => return Err(self.s.err(open, format!("vector is not closed: expected '{}'", close as char))),
                Some(c) if c == close => {
                    self.s.pos += 1;
                    return Ok(Ok(()));
                }
                Some(b'[' | b'(') => {
                    if let Err(mm) = self.micro_op()? {
                        return Ok(Err(mm));
                    }
                }
                Some(_) => {
                    return Ok(Err(Mismatch {
                        offset: at,
                        message: "expected a micro-operation like [:r k v], [:w k v] or [:append k v]".into(),
                    }))
                }
            }
        }
    }

    fn micro_op(&mut self) -> Result<Result<(), Mismatch>, Error> {
        let (open, line, line_start) = (self.s.pos, self.s.line, self.s.line_start);
        let close = if self.s.peek() == Some(b'[') { b']' } else { b')' };
        self.s.pos += 1;
        self.s.ws();
        let f_at = self.s.pos;
        if is_close(self.s.peek()) {
            return Ok(Err(Mismatch {
                offset: f_at,
                message: "expected the micro-operation's function :r, :w or :append".into(),
            }));
        }
        let kind = match self.s.atom_fast()? {
            Atom::Keyword(f) | Atom::Symbol(f) => match f {
                "r" | "read" => OpKind::Read,
                "w" | "write" => OpKind::Write,
                "append" => OpKind::Append,
                _ => {
                    return Ok(Err(Mismatch {
                        offset: f_at,
                        message: format!("expected :r, :w or :append, found {f}"),
                    }))
                }
            },
            _ => {
                return Ok(Err(Mismatch {
                    offset: f_at,
                    message: "expected the micro-operation's function :r, :w or :append".into(),
                }))
            }
        };
        self.s.ws();
        let key_at = self.s.pos;
        // Integer keys and values are read inline: through `scalar`'s out-of-line call, its
        // large result came back through memory (6% of a check's CPU on that one load).
        let key = match self.s.plain_int() {
            Some(i) => self.b.key(Value::Int(i)),
            None => match self.key_from_scalar(key_at)? {
                Ok(k) => k,
                Err(mm) => return Ok(Err(mm)),
            },
        };
        self.s.ws();
        let v_at = self.s.pos;
        let place = self.s.place();
        match kind {
            OpKind::Read if matches!(self.s.peek(), Some(b'[' | b'(')) => {
                if let Err(mm) = self.list(v_at)? {
                    return Ok(Err(mm));
                }
                let elems = std::mem::take(&mut self.elems);
                self.b.push_read_list(key, &elems, place);
                self.elems = elems;
            }
            OpKind::Append | OpKind::Write if let Some(i) = self.s.plain_int() => {
                self.b.push_write(kind, key, Value::Int(i), place)
            }
            _ => match self.scalar(v_at)? {
                Ok(Some(v)) if kind == OpKind::Read => self.b.push_read_scalar(key, v, place),
                Ok(Some(v)) => self.b.push_write(kind, key, v, place),
                Ok(None) if kind == OpKind::Read => self.b.push_read_nil(key),
                Ok(None) => {
                    return Ok(Err(Mismatch {
                        offset: v_at,
                        message: format!(
                            "expected a value to {}, found nil",
                            if kind == OpKind::Append { "append" } else { "write" }
                        ),
                    }))
                }
                Err(mm) => return Ok(Err(mm)),
            },
        }
        self.s.ws();
        match self.s.peek() {
            Some(c) if c == close => {
                self.s.pos += 1;
                if self.b.records_op_spans() {
                    if let Some(span) = self.span(open, line, line_start) {
                        self.b.set_op_span(span);
                    }
                }
                Ok(Ok(()))
            }
            None => Err(self.s.err(open, format!("micro-operation is not closed: expected '{}'", close as char))),
            _ => Ok(Err(Mismatch {
                offset: self.s.pos,
                message: format!("expected '{}' after [f k v]: a micro-operation has three elements", close as char),
            })),
        }
    }

    /// A key that is not plain digits: a string, a keyword, a symbol, or an integer with a sign,
    /// an `N` or 19 digits or more; nil is no key.
    #[inline(never)]
    fn key_from_scalar(&mut self, key_at: usize) -> Result<Result<KeyId, Mismatch>, Error> {
        Ok(match self.scalar(key_at)? {
            Ok(Some(v)) => Ok(self.b.key(v)),
            Ok(None) => {
                Err(Mismatch { offset: key_at, message: "expected a key (an integer or a string), found nil".into() })
            }
            Err(mm) => Err(mm),
        })
    }

    /// An integer, string, symbol or keyword as a value; `None` for nil.
    fn scalar(&mut self, at: usize) -> Result<Result<Option<Value>, Mismatch>, Error> {
        if let Some(b'0'..=b'9') = self.s.peek() {
            if let Some(i) = self.s.plain_int() {
                return Ok(Ok(Some(Value::Int(i)))); // as `atom` reads them
            }
        }
        if is_close(self.s.peek()) {
            // `[:r 1]`: well-formed, but not [f k v] (a stray bracket is reported when skipped).
            return Ok(Err(Mismatch { offset: at, message: "expected an integer, a string or nil".into() }));
        }
        Ok(Ok(Some(match self.s.atom()? {
            Atom::Int(i) => Value::Int(i),
            Atom::Str(s) => self.b.str_value(&s),
            Atom::Keyword(k) | Atom::Symbol(k) => self.b.str_value(k),
            Atom::Nil => return Ok(Ok(None)),
            Atom::Other => {
                return Ok(Err(Mismatch { offset: at, message: "expected an integer, a string or nil".into() }))
            }
        })))
    }

    /// A list read's elements, into `self.elems`.
    fn list(&mut self, open: usize) -> Result<Result<(), Mismatch>, Error> {
        let close = if self.s.peek() == Some(b'[') { b']' } else { b')' };
        self.s.pos += 1;
        self.elems.clear();
        loop {
            self.s.ws();
            let at = self.s.pos;
            match self.s.peek() {
                None => return Err(self.s.err(open, format!("list is not closed: expected '{}'", close as char))),
                Some(c) if c == close => {
                    self.s.pos += 1;
                    return Ok(Ok(()));
                }
                // Most elements: a plain integer, read without the general atom's checks.
                Some(b'0'..=b'9') if let Some(i) = self.s.plain_int() => self.elems.push(Value::Int(i)),
                _ => match self.scalar(at)? {
                    Ok(Some(v)) => self.elems.push(v),
                    Ok(None) => {
                        return Ok(Err(Mismatch { offset: at, message: "expected a list element, found nil".into() }))
                    }
                    Err(mm) => return Ok(Err(mm)),
                },
            }
        }
    }
}

fn is_close(b: Option<u8>) -> bool {
    matches!(b, Some(b']' | b')' | b'}'))
}

/// The spans of the operations read from the form at `offset` (on line `line`), as a reading
/// that records every span gives them: read again with the same code, into [`SpanSink`].
/// `None` when the form there is not a transaction's value.
pub(super) fn spans_of_value(text: &[u8], offset: usize, line: u32) -> Option<Vec<Span>> {
    if offset >= text.len() {
        return None;
    }
    let mut r = Reader::new(text, SpanSink::default(), 0);
    (r.s.pos, r.s.line, r.s.line_start) = (offset, line, line_start_of(text, offset));
    match r.txn_value() {
        Ok(Ok(())) => Some(r.b.spans),
        _ => None,
    }
}

/// A [`Sink`] that keeps only the operations' spans.
#[derive(Default)]
struct SpanSink {
    spans: Vec<Span>,
}

impl Sink for SpanSink {
    fn records_spans(&self) -> bool {
        true
    }
    fn records_op_spans(&self) -> bool {
        true
    }
    fn str_value(&mut self, _: &str) -> Value {
        Value::Int(0)
    }
    fn key(&mut self, _: Value) -> KeyId {
        0
    }
    fn push_write(&mut self, _: OpKind, _: KeyId, _: Value, _: Place) {
        self.spans.push(Span::default());
    }
    fn push_read_nil(&mut self, _: KeyId) {
        self.spans.push(Span::default());
    }
    fn push_read_scalar(&mut self, _: KeyId, _: Value, _: Place) {
        self.spans.push(Span::default());
    }
    fn push_read_list(&mut self, _: KeyId, _: &[Value], _: Place) {
        self.spans.push(Span::default());
    }
    fn set_op_span(&mut self, span: Span) {
        if let Some(s) = self.spans.last_mut() {
            *s = span;
        }
    }
    fn abandon_txn(&mut self) {
        self.spans.clear();
    }
}

fn line_start_of(s: &[u8], offset: usize) -> usize {
    s[..offset.min(s.len())].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::Scanner;

    /// Skipping a form (its fast path for plain collections included) ends where the general
    /// skip ends, on the same line, with the same error: on odd forms and on random ones.
    #[test]
    fn skipping_a_plain_collection_is_the_general_skip() {
        let mut inputs: Vec<String> = [
            "[:a [1 2] (3) {4 5}] x",
            "[\n:a\n (1\n2)]\n",
            "[:a \"s]\"] x",
            "[(]",
            "[",
            "]",
            "[#_ 1 2]",
            "[;c\n]",
            "[\\a]",
            "[a]b",
            "{:k [1 2]}",
            " [1]",
            "x",
            "[1 2}",
            "([)]",
            "[é ü]",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        inputs.push("[".repeat(40) + &"]".repeat(40));
        inputs.push("[".repeat(31) + &"]".repeat(31) + " 1");
        inputs.push("[".repeat(33) + &"]".repeat(32));
        let alphabet = b"[](){}  :a1\n\"#;\\,";
        let mut x: u64 = 7;
        for _ in 0..20_000 {
            let mut s = String::from("[");
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            for _ in 0..(x >> 60) + 2 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s.push(alphabet[(x >> 33) as usize % alphabet.len()] as char);
            }
            inputs.push(s);
        }
        for text in &inputs {
            let general = {
                let mut s = Scanner::new(text.as_bytes());
                let mut stack = Vec::new();
                let r = s.skip_with(&mut stack).map_err(|e| e.to_string());
                (r, s.pos, s.line, s.line_start)
            };
            let mut s = Scanner::new(text.as_bytes());
            let r = s.skip_form().map_err(|e| e.to_string());
            assert_eq!((r, s.pos, s.line, s.line_start), general, "{text:?}");
        }
    }
}
