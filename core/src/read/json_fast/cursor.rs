//! A cursor over JSON text: whitespace, strings without escapes, integers that fit an `i64`,
//! and a checked skip past any value; each gives up (`None`) where serde_json's reader is needed.

use crate::history::Span;

/// Where a value starts, to read it again (an invocation's operations, read at its completion).
#[derive(Clone, Copy, Default)]
pub(in crate::read) struct Mark {
    pub(in crate::read) i: usize,
    pub(in crate::read) line: u32,
    line_start: usize,
    cont: usize,
}

#[derive(Clone, Copy)]
pub(in crate::read) struct Cur<'a> {
    pub(in crate::read) t: &'a [u8],
    pub(in crate::read) i: usize,
    pub(in crate::read) line: u32,
    line_start: usize,
    /// UTF-8 continuation bytes on this line before `i`: columns count characters, and only
    /// strings (read or skipped here, so counted) hold bytes that are not ASCII.
    cont: usize,
}

/// Bytes that end a name: its closing quote, or what [`Cur::name`] does not read (an escape, a
/// control character, a byte not ASCII).
const NAME_ENDS: [bool; 256] = {
    let mut ends = [false; 256];
    let mut b = 0;
    while b < 256 {
        ends[b] = b == b'"' as usize || b == b'\\' as usize || b < 0x20 || b >= 0x80;
        b += 1;
    }
    ends
};

impl Mark {
    /// The 1-based column, in characters, as [`Cur::here`] gives it.
    pub(in crate::read) fn column(&self) -> u32 {
        (self.i - self.line_start - self.cont + 1) as u32
    }
}

impl<'a> Cur<'a> {
    pub(in crate::read) fn new(t: &'a [u8]) -> Self {
        Self::at_line_start(t, 0)
    }

    /// At `i`, the start of a line, counted as line 1.
    pub(in crate::read) fn at_line_start(t: &'a [u8], i: usize) -> Self {
        Cur { t, i, line: 1, line_start: i, cont: 0 }
    }

    pub(in crate::read) fn mark(&self) -> Mark {
        Mark { i: self.i, line: self.line, line_start: self.line_start, cont: self.cont }
    }

    pub(in crate::read) fn reset(&mut self, m: Mark) {
        (self.i, self.line, self.line_start, self.cont) = (m.i, m.line, m.line_start, m.cont);
    }

    pub(in crate::read) fn peek(&self) -> Option<u8> {
        self.t.get(self.i).copied()
    }

    pub(in crate::read) fn ws(&mut self) {
        while let Some(&b) = self.t.get(self.i) {
            // Most calls find no blank or a space: a compare or two, not the match's jump table.
            if b == b' ' {
                self.i += 1;
                continue;
            }
            if b > b' ' {
                break;
            }
            match b {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    (self.line_start, self.cont) = (self.i, 0);
                }
                _ => break,
            }
        }
    }

    /// After whitespace, `b`.
    pub(in crate::read) fn eat(&mut self, b: u8) -> Option<()> {
        self.ws();
        (self.peek()? == b).then(|| self.i += 1)
    }

    /// The span of a value starting here (its end is set when it closes).
    pub(in crate::read) fn here(&self) -> Span {
        let column = (self.i - self.line_start - self.cont + 1) as u32;
        Span { start: self.i as u64, end: self.i as u64, line: self.line, column }
    }

    /// `text[start..end]`, a string's contents, as UTF-8 (counting its continuation bytes).
    fn utf8(&mut self, start: usize, end: usize) -> Option<&'a str> {
        let s = std::str::from_utf8(&self.t[start..end]).ok()?;
        self.cont += s.bytes().filter(|&b| b & 0xC0 == 0x80).count();
        Some(s)
    }

    /// A string without escapes or control characters (after whitespace).
    pub(in crate::read) fn string(&mut self) -> Option<&'a str> {
        let (start, end) = self.string_bytes()?;
        match std::str::from_utf8(&self.t[start..end]) {
            Ok(s) if s.is_ascii() => Some(s),
            _ => self.utf8(start, end),
        }
    }

    /// [`Self::string`]'s bytes, unchecked for UTF-8 but ASCII (`None` otherwise): names.
    pub(in crate::read) fn name(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.i;
        // One look-up a byte, not three compares then a pass for ASCII.
        let end = start + self.t[start..].iter().position(|&b| NAME_ENDS[b as usize])?;
        if self.t[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        Some(&self.t[start..end])
    }

    /// Past a string without escapes or control characters: where its contents are.
    fn string_bytes(&mut self) -> Option<(usize, usize)> {
        self.eat(b'"')?;
        let start = self.i;
        let len = self.t[start..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        let end = start + len;
        if self.t[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        Some((start, end))
    }

    /// The next object key is `key` (at `{`, without moving).
    pub(in crate::read) fn next_key_is(&self, key: &[u8]) -> bool {
        let mut probe = *self;
        probe.i += 1;
        probe.name() == Some(key)
    }

    /// An integer as serde_json reads one into an `i64` (no fraction, exponent or `-0`).
    pub(in crate::read) fn int(&mut self) -> Option<i64> {
        self.ws();
        let t = self.t;
        let neg = t.get(self.i) == Some(&b'-');
        let start = self.i + neg as usize;
        // 19 digits fit a u64; more cannot fit an i64.
        let (mut v, mut end) = (0u64, start);
        while let Some(&b) = t.get(end) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if end - start == 19 {
                return None;
            }
            v = v * 10 + d as u64;
            end += 1;
        }
        let digits = end - start;
        if digits == 0 || (digits > 1 && t[start] == b'0') || (neg && v == 0) {
            return None;
        }
        if matches!(t.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let v = if neg { 0i64.checked_sub_unsigned(v)? } else { i64::try_from(v).ok()? };
        self.i = end;
        Some(v)
    }

    pub(in crate::read) fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.t[self.i..].starts_with(word).then(|| self.i += word.len())
    }

    /// Past one JSON value of any kind, checking it as serde_json would accept it (giving up on
    /// `\u` escapes, exponents and integer parts of more than 20 digits, whose limits it would
    /// check too).
    pub(in crate::read) fn skip(&mut self, depth: u32) -> Option<()> {
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
                let end = self.i;
                self.utf8(start, end)?;
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
                // More than 20 digits: serde_json's tree refuses one past f64's range (309).
                if digits == 0 || (digits > 1 && self.t[start] == b'0') || digits > 20 {
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
    pub(in crate::read) fn more(&mut self, close: u8) -> Option<bool> {
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

#[cfg(test)]
mod tests {
    use super::Cur;
    use proptest::prelude::*;

    /// What serde_json reads as an `i64` (None: not one, or not a plain integer).
    fn serde_int(text: &str) -> Option<i64> {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Number(n)) if !text.contains(['.', 'e', 'E']) && text != "-0" => n.as_i64(),
            _ => None,
        }
    }

    fn int(text: &str) -> Option<i64> {
        let mut c = Cur::new(text.as_bytes());
        c.int().filter(|_| c.i == text.len())
    }

    #[test]
    fn integers_at_the_edges_read_as_serde_json_reads_them() {
        for text in [
            "0",
            "-1",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
            "18446744073709551615",
            "01",
            "-0",
            "-",
            "1.5",
            "1e3",
            "123456789012345678",
            "1234567890123456789",
            "-1234567890123456789",
        ] {
            assert_eq!(int(text), serde_int(text), "{text}");
        }
    }

    proptest! {
        #[test]
        fn any_integer_reads_as_serde_json_reads_it(v in any::<i64>(), wide in any::<u64>(), digits in "-?[0-9]{1,22}") {
            for text in [v.to_string(), wide.to_string(), digits.clone()] {
                // The short path may give up (None) where serde_json reads, never differ.
                if let Some(x) = int(&text) {
                    prop_assert_eq!(Some(x), serde_int(&text), "{}", text);
                }
            }
            prop_assert_eq!(int(&v.to_string()), Some(v));
        }
    }
}
