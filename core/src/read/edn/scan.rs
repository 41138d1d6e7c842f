//! The scanner: EDN text cut into the atoms the reader asks for (integers, strings, keywords,
//! symbols, nil), forms skipped unread, and the line kept.

use crate::error::{Error, ErrorKind};
use crate::history::builder::Place;

pub(super) enum Atom<'a> {
    Int(i64),
    Str(std::borrow::Cow<'a, str>),
    Keyword(&'a str),
    Symbol(&'a str),
    Nil,
    Other,
}

pub(in crate::read) struct Scanner<'a> {
    pub(in crate::read) s: &'a [u8],
    pub(in crate::read) pos: usize,
    pub(in crate::read) line: u32,
    pub(in crate::read) line_start: usize,
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

pub(super) fn is_delim(b: u8) -> bool {
    DELIM[b as usize]
}

impl<'a> Scanner<'a> {
    pub(in crate::read) fn new(s: &'a [u8]) -> Self {
        Scanner { s, pos: 0, line: 1, line_start: 0, stack: Vec::new() }
    }

    pub(super) fn err(&self, offset: usize, msg: impl Into<String>) -> Error {
        Error::at_offset(ErrorKind::Syntax, self.s, offset, msg)
    }

    pub(super) fn place(&self) -> Place {
        Place { line: self.line, column: (self.pos - self.line_start + 1) as u32 }
    }

    /// Skip whitespace, commas, comments and discarded forms (`#_ form`), so that a discard may
    /// stand anywhere a form may, as in EDN. A malformed discarded form is left in place: the
    /// caller then reports it as it reports any malformed form.
    #[inline(always)]
    pub(in crate::read) fn ws(&mut self) {
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

    pub(in crate::read) fn peek(&self) -> Option<u8> {
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
    pub(super) fn plain_int(&mut self) -> Option<i64> {
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
    pub(super) fn atom_fast(&mut self) -> Result<Atom<'a>, Error> {
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
    pub(super) fn atom(&mut self) -> Result<Atom<'a>, Error> {
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
    pub(super) fn skip_form(&mut self) -> Result<(), Error> {
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

pub(super) fn line_start_of(s: &[u8], offset: usize) -> usize {
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
