//! One entry of a JSON history as the short path reads it: the fields either reader looks at,
//! and its operations, without touching the history (so that chunks can be read on a pool).

use super::cursor::{Cur, Mark};
use crate::history::{OpKind, Span};

/// A key or a value as JSON gives it: an integer or a string.
#[derive(Clone, Copy)]
pub(super) enum Scalar<'a> {
    Int(i64),
    Str(&'a str),
}

#[derive(Clone, Copy)]
pub(super) enum Arg {
    Nil,
    One(usize),
    /// Elements `start..end` of `Parser::elems`.
    List(usize, usize),
}

pub(super) struct RawOp<'a> {
    pub(super) kind: OpKind,
    pub(super) key: Scalar<'a>,
    pub(super) arg: Arg,
    pub(super) span: Span,
}

/// An entry's `"ops"` or `"value"`.
#[derive(Clone, Copy, Default)]
pub(super) enum Val {
    #[default]
    Absent,
    Null,
    /// An array read as operations: `Parser::ops[start..end]`, the value starting at the mark.
    Ops(usize, usize, Mark),
    /// An array that is not a list of operations this path reads.
    OtherArray,
    /// Any other value.
    Other,
}

/// A field that holds an integer, or is null or absent.
#[derive(Clone, Copy, Default, PartialEq)]
pub(super) enum IntF {
    #[default]
    Absent,
    Null,
    Int(i64),
}

impl IntF {
    pub(super) fn get(self) -> Option<i64> {
        match self {
            IntF::Int(v) => Some(v),
            _ => None,
        }
    }
}

/// A field that holds a string, or is null or absent.
#[derive(Clone, Copy, Default, PartialEq)]
pub(super) enum StrF<'a> {
    #[default]
    Absent,
    Null,
    Str(&'a str),
}

impl<'a> StrF<'a> {
    pub(super) fn get(self) -> Option<&'a str> {
        match self {
            StrF::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The fields of one entry that either reader looks at.
#[derive(Default)]
pub(super) struct Entry<'a> {
    pub(super) span: Span,
    pub(super) has_ops: bool,
    pub(super) has_status: bool,
    pub(super) id: IntF,
    pub(super) session: IntF,
    pub(super) process: IntF,
    /// `"process"` is a string: the nemesis.
    pub(super) process_str: bool,
    pub(super) status: StrF<'a>,
    pub(super) ty: StrF<'a>,
    pub(super) f: StrF<'a>,
    pub(super) index: IntF,
    pub(super) time: IntF,
    pub(super) start: IntF,
    pub(super) end: IntF,
    pub(super) label: StrF<'a>,
    pub(super) start_ts: IntF,
    pub(super) commit_ts: IntF,
    pub(super) ops: Val,
    pub(super) value: Val,
}

/// Reads entries; their operations accumulate in `ops` and `elems` until cleared.
pub(super) struct Parser<'a> {
    pub(super) c: Cur<'a>,
    pub(super) ops: Vec<RawOp<'a>>,
    pub(super) elems: Vec<Scalar<'a>>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(c: Cur<'a>) -> Self {
        Parser { c, ops: Vec::new(), elems: Vec::new() }
    }

    /// One entry's fields, its operations appended to `ops` and `elems`.
    /// (Into `e`, in place: an entry is a few hundred bytes, and moving each one showed.)
    pub(super) fn entry(&mut self, e: &mut Entry<'a>) -> Option<()> {
        self.c.ws();
        if self.c.peek()? != b'{' {
            return None;
        }
        *e = Entry { span: self.c.here(), ..Default::default() };
        self.c.i += 1;
        let mut seen: u32 = 0;
        if self.c.eat(b'}').is_none() {
            loop {
                let key = self.c.name()?;
                self.c.eat(b':')?;
                let bit = match key {
                    b"id" => 0,
                    b"session" => 1,
                    b"process" => 2,
                    b"status" => 3,
                    b"type" => 4,
                    b"f" => 5,
                    b"index" => 6,
                    b"time" => 7,
                    b"start" => 8,
                    b"end" => 9,
                    b"label" => 10,
                    b"start_ts" => 11,
                    b"commit_ts" => 12,
                    b"ops" => 13,
                    b"value" => 14,
                    b"transactions" | b"predicate_reads" => return None,
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
        Some(())
    }

    #[inline(always)]
    fn int_f(&mut self) -> Option<IntF> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            self.c.literal(b"null")?;
            return Some(IntF::Null);
        }
        self.c.int().map(IntF::Int)
    }

    #[inline(always)]
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
                    return Some(Val::Ops(ops, self.ops.len(), mark));
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
    pub(super) fn ops_array(&mut self) -> Option<()> {
        self.c.eat(b'[')?;
        if self.c.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.c.ws();
            let mut span = self.c.here();
            self.c.eat(b'[')?;
            let kind = self.op_kind()?;
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

    /// An operation's kind; `"r"`, `"w"` and `"append"` as written, without a string's scan.
    fn op_kind(&mut self) -> Option<OpKind> {
        self.c.ws();
        let rest = &self.c.t[self.c.i..];
        for (text, kind) in [(&b"\"r\""[..], OpKind::Read), (b"\"w\"", OpKind::Write), (b"\"append\"", OpKind::Append)]
        {
            if rest.starts_with(text) {
                self.c.i += text.len();
                return Some(kind);
            }
        }
        match self.c.name()? {
            b"r" | b"read" => Some(OpKind::Read),
            b"w" | b"write" => Some(OpKind::Write),
            b"append" => Some(OpKind::Append),
            _ => None,
        }
    }

    #[inline(always)]
    fn scalar(&mut self) -> Option<Scalar<'a>> {
        self.c.ws();
        if self.c.peek()? == b'"' {
            self.c.string().map(Scalar::Str)
        } else {
            self.c.int().map(Scalar::Int)
        }
    }
}
