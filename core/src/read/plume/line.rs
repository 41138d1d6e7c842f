//! One line of PolySI/Plume text: `r(key,value,session,txn)` or `w(...)`, spaces and tabs
//! allowed around its parts, a `\r` before the line break. A line in the form the peers write
//! (no spaces, at most 18 digits a number) is read by a short path, which also finds where the
//! next line starts; any other line, and every error, by the cursor, which names the place and
//! what was expected.

use crate::error::{Error, ErrorKind};
use crate::history::Span;

/// An operation's line, read.
#[derive(Debug, Clone, Copy)]
pub(super) struct OpLine {
    pub write: bool,
    pub key: i64,
    pub value: i64,
    pub session: i64,
    pub txn: i64,
    /// Its `r(...)` or `w(...)`.
    pub span: Span,
}

/// The operations of a text's lines (blank lines skipped); the first error ends them.
pub(super) struct Lines<'a> {
    text: &'a [u8],
    /// Where the next line starts.
    at: usize,
    /// Where the lines end: the end of the text, or the start of a line.
    end: usize,
    /// Lines read.
    line: u32,
}

impl<'a> Lines<'a> {
    /// The lines of `text[start..end]`, both the start of a line (or the end of the text);
    /// offsets and places are the whole text's, lines numbered from 1 at `start`.
    pub fn new(text: &'a [u8], start: usize, end: usize) -> Self {
        Lines { text, at: start, end, line: 0 }
    }

    /// Where the next line starts: how much of the text is read.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// How many lines are read.
    #[cfg(feature = "parallel")]
    pub fn lines(&self) -> u32 {
        self.line
    }
}

impl Iterator for Lines<'_> {
    type Item = Result<OpLine, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        while self.at < self.end {
            let start = self.at;
            self.line += 1;
            if let Some((op, next)) = short(self.text, start, self.line) {
                self.at = next;
                return Some(Ok(op));
            }
            let end = memchr::memchr(b'\n', &self.text[start..]).map_or(self.text.len(), |i| start + i);
            self.at = end + 1;
            match general(self.text, start, end, self.line) {
                Ok(None) => continue,
                Ok(Some(op)) => return Some(Ok(op)),
                Err(e) => {
                    self.at = self.end;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

/// The line at `start` in the peers' own form, `r(1,2,3,4)` and its line break (a `\r` before
/// it allowed, or the end of the text), numbers of at most 18 digits: the operation and where
/// the next line starts. `None` for any other line, which [`general`] reads (or rejects).
#[inline(always)]
fn short(text: &[u8], start: usize, line: u32) -> Option<(OpLine, usize)> {
    let write = match text.get(start)? {
        b'r' => false,
        b'w' => true,
        _ => return None,
    };
    if text.get(start + 1) != Some(&b'(') {
        return None;
    }
    let (key, i) = number(text, start + 2, b',')?;
    let (value, i) = number(text, i, b',')?;
    let (session, i) = number(text, i, b',')?;
    let (txn, end) = number(text, i, b')')?;
    let next = match text.get(end) {
        None => end,
        Some(b'\n') => end + 1,
        Some(b'\r') => match text.get(end + 1) {
            None => end + 1,
            Some(b'\n') => end + 2,
            Some(_) => return None,
        },
        Some(_) => return None,
    };
    let span = Span { start: start as u64, end: end as u64, line, column: 1 };
    Some((OpLine { write, key, value, session, txn, span }, next))
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// An integer of 1 to 18 digits (which cannot overflow), maybe negative, at `text[i..]`, then
/// the byte `then`: the number and where the text after `then` starts. A number of fewer than
/// 8 digits is found and added up eight bytes at a time.
#[inline(always)]
fn number(text: &[u8], mut i: usize, then: u8) -> Option<(i64, usize)> {
    let negative = text.get(i) == Some(&b'-');
    i += negative as usize;
    let (v, n) = match text.get(i..i + 8) {
        Some(word) => {
            let x = u64::from_le_bytes(word.try_into().ok()?);
            // The high bit of each byte that is a digit: its low seven bits are at least '0'
            // and not above '9', and its own high bit is clear. (With every high bit set
            // first, no byte borrows from the next.)
            let low7 = x | HIGH;
            let at_least_0 = low7.wrapping_sub(ONES * b'0' as u64);
            let above_9 = low7.wrapping_sub(ONES * (b'9' + 1) as u64);
            let digit = at_least_0 & !above_9 & !x & HIGH;
            match ((!digit & HIGH).trailing_zeros() / 8) as usize {
                0 => return None,
                8 => digits(text, i)?,
                // The digits moved to the top bytes, zeros (leading zeros) below them. Bytes
                // after the digits may borrow from those above them, which are shifted out.
                n => (eight_digits(x.wrapping_sub(ONES * b'0' as u64) << (8 * (8 - n))), n),
            }
        }
        None => digits(text, i)?,
    };
    if n > 18 || text.get(i + n) != Some(&then) {
        return None;
    }
    Some((if negative { -v } else { v }, i + n + 1))
}

/// The value of eight digits, each a byte 0 to 9, the first in the lowest byte.
#[inline(always)]
fn eight_digits(x: u64) -> i64 {
    let x = x.wrapping_mul(10).wrapping_add(x >> 8);
    let mask = 0x0000_00FF_0000_00FF;
    let x = ((x & mask).wrapping_mul(100 + (1_000_000 << 32)))
        .wrapping_add(((x >> 16) & mask).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    x as u32 as i64
}

/// The digits at `text[i..]` one by one: their value (wrapped past 18 digits, which the caller
/// rejects) and how many there are.
#[inline(never)]
fn digits(text: &[u8], mut i: usize) -> Option<(i64, usize)> {
    let first = i;
    let mut v: i64 = 0;
    while let Some(&c) = text.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v.wrapping_mul(10).wrapping_add(d as i64);
        i += 1;
    }
    (i > first).then_some((v, i - first))
}

/// Any line the format allows, or the error that names where it goes wrong.
#[cold]
fn general(text: &[u8], start: usize, end: usize, line: u32) -> Result<Option<OpLine>, Error> {
    let mut p = Cursor { text, at: start, end };
    p.skip_ws();
    if p.at == p.end || p.peek() == Some(b'\r') && p.at + 1 == p.end {
        return Ok(None);
    }
    let op_start = p.at;
    let write = match p.peek() {
        Some(b'r') => false,
        Some(b'w') => true,
        _ => return Err(p.err("expected r( or w( at the start of the line")),
    };
    p.at += 1;
    p.expect(b'(')?;
    let key = p.number("the key")?;
    p.expect(b',')?;
    let value = p.number("the value")?;
    p.expect(b',')?;
    let session = p.number("the session")?;
    p.expect(b',')?;
    let txn = p.number("the transaction id")?;
    p.expect(b')')?;
    let span = Span { start: op_start as u64, end: p.at as u64, line, column: (op_start - start) as u32 + 1 };
    p.skip_ws();
    if p.at < p.end && !(p.peek() == Some(b'\r') && p.at + 1 == p.end) {
        return Err(p.err("expected the end of the line after the closing parenthesis"));
    }
    Ok(Some(OpLine { write, key, value, session, txn, span }))
}

struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
    end: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        (self.at < self.end).then(|| self.text[self.at])
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn err(&self, msg: &str) -> Error {
        let found = match self.peek() {
            None | Some(b'\r') => "the end of the line".to_string(),
            Some(_) => {
                let s = String::from_utf8_lossy(&self.text[self.at..self.end.min(self.at + 8)]).to_string();
                format!("{s:?}")
            }
        };
        Error::at_offset(ErrorKind::Syntax, self.text, self.at, format!("{msg}, found {found}"))
    }

    fn expect(&mut self, c: u8) -> Result<(), Error> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected {:?}", c as char)))
        }
    }

    fn number(&mut self, what: &str) -> Result<i64, Error> {
        self.skip_ws();
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.at;
        // Accumulated negatively, so that i64::MIN fits.
        let mut v: i64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            v = match v.checked_mul(10).and_then(|v| v.checked_sub((d - b'0') as i64)) {
                Some(v) => v,
                None => {
                    self.at = start;
                    return Err(self.err(&format!("expected {what} to fit in a signed 64-bit integer")));
                }
            };
            self.at += 1;
        }
        if self.at == digits {
            self.at = start;
            return Err(self.err(&format!("expected {what} (an integer)")));
        }
        match negative {
            true => Ok(v),
            false => v.checked_neg().ok_or_else(|| {
                self.at = start;
                self.err(&format!("expected {what} to fit in a signed 64-bit integer"))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{general, short, OpLine};

    fn fields(op: &OpLine) -> (bool, i64, i64, i64, i64, u64, u64, u32) {
        (op.write, op.key, op.value, op.session, op.txn, op.span.start, op.span.end, op.span.column)
    }

    /// Wherever the short path reads a line, it reads what the cursor reads, and it takes every
    /// number of 1 to 18 digits at each place in the word it loads; bytes next to the digits
    /// ('/', ':', and those with the high bit set whose low bits are a digit) end a number.
    #[test]
    fn the_short_path_reads_as_the_cursor() {
        let mut numbers: Vec<String> = Vec::new();
        for len in 1..=20 {
            numbers.push("9".repeat(len));
            numbers.push(format!("1{}", "0".repeat(len - 1)));
            numbers.push(format!("-{}", "7".repeat(len)));
            numbers.push(format!("{}5", "0".repeat(len - 1)));
        }
        numbers.extend(["1234567", "12345678", "123456789", "-0", "0", "-", ""].map(String::from));
        let mut lines = Vec::new();
        for n in &numbers {
            for at in 0..4 {
                let mut f = ["3", "41", "5", "926"].map(String::from);
                f[at] = n.clone();
                for tail in ["", "\n", "\r", "\r\n", "\r\r\n", " \n", "x"] {
                    lines.push(format!("w({},{},{},{}){tail}", f[0], f[1], f[2], f[3]).into_bytes());
                }
            }
        }
        for odd in [b'/', b':', 0xB0, 0xB9, 0xBA, b' '] {
            for at in [2, 3, 5, 8] {
                let mut l = b"r(12,34,56,78)\n".to_vec();
                l.insert(at, odd);
                lines.push(l);
            }
        }
        let mut short_read = 0;
        for line in &lines {
            // Then the same line inside a longer text, where the eight bytes loaded run past it.
            for text in [line.clone(), [&line[..], b"\nr(1,2,3,4)\n"].concat()] {
                let end = text.iter().position(|&b| b == b'\n').unwrap_or(text.len());
                let cursor = general(&text, 0, end, 1);
                if let Some((op, next)) = short(&text, 0, 1) {
                    short_read += 1;
                    let want = cursor.as_ref().ok().and_then(|o| o.as_ref()).map(fields);
                    assert_eq!(Some(fields(&op)), want, "{:?}", String::from_utf8_lossy(&text));
                    assert_eq!(next, (end + 1).min(text.len()), "{:?}", String::from_utf8_lossy(&text));
                }
            }
        }
        assert!(short_read > lines.len(), "the short path read {short_read} of {} texts", 2 * lines.len());
    }
}
