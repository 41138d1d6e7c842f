//! A transaction's value: its micro-operations (`[:r k v]`, `[:w k v]`, `[:append k v]`) and
//! their keys, values and read lists, pushed into the sink.

use super::scan::Atom;
use super::{Reader, Sink};
use crate::error::Error;
use crate::history::{KeyId, OpKind, Value};

/// A shape mismatch found while trying to read a transaction value; turned into an [`Error`]
/// only if the operation turns out to be a transaction (nemesis values are skipped).
pub(super) struct Mismatch {
    pub(super) offset: usize,
    pub(super) message: String,
}

impl<'a, S: Sink> Reader<'a, S> {
    /// Read `[[:r k v] [:append k v] ...]`, pushing operations. `Ok(Err(_))` when the form is
    /// well-formed so far but not a transaction.
    pub(super) fn txn_value(&mut self) -> Result<Result<(), Mismatch>, Error> {
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
