//! One operation map read: its fields (`:type`, `:process`, `:index`, `:time`, `:f`, `:value`,
//! the timestamps, a claimed commit order), its transaction's value read on the way.

use super::scan::{line_start_of, Atom};
use super::value::Mismatch;
use super::{Reader, Sink};
use crate::error::{Error, ErrorKind};
use crate::read::pairing::OpType;

/// What an operation map says, gathered before deciding what it is.
#[derive(Default)]
pub(in crate::read) struct OpMap<'a> {
    pub(super) ty: Option<OpType>,
    pub(super) process: Option<i64>,
    pub(super) process_is_keyword: bool,
    pub(super) index: Option<u64>,
    pub(super) time: Option<i64>,
    pub(super) f: Option<std::borrow::Cow<'a, str>>,
    /// Offset of `:value`'s form, and whether it parsed as a transaction (ops pushed).
    pub(super) value_at: Option<usize>,
    pub(in crate::read) value_line: u32,
    pub(super) parsed: Option<Result<(), Mismatch>>,
    /// What few histories have, out of line: a parallel read hands maps from one thread to
    /// another, and each cache line of a map was a miss on the thread that took it.
    pub(in crate::read) rare: Option<Box<RareFields<'a>>>,
}

/// The fields of an operation map that few histories have.
#[derive(Default)]
pub(in crate::read) struct RareFields<'a> {
    pub(super) label: Option<std::borrow::Cow<'a, str>>,
    /// `:start-ts` and `:commit-ts` (white-box checking), with the place of the first.
    pub(super) start_ts: Option<crate::history::Ts>,
    pub(super) commit_ts: Option<crate::history::Ts>,
    pub(super) ts_at: usize,
    /// `:commit-order [ids ...]` in a map without `:type`.
    pub(in crate::read) commit_order: Option<(Vec<u64>, usize)>,
}

impl<'a> OpMap<'a> {
    fn rare(&mut self) -> &mut RareFields<'a> {
        self.rare.get_or_insert_with(Default::default)
    }

    pub(in crate::read) fn commit_order(&self) -> Option<&(Vec<u64>, usize)> {
        self.rare.as_ref()?.commit_order.as_ref()
    }
}

impl<'a, S: Sink> Reader<'a, S> {
    // Out of line on purpose: WebAssembly engines (V8) cannot swap optimised code into a running
    // loop, but do for the next call of a hot function; one call per operation lets them.
    #[inline(never)]
    pub(in crate::read) fn op_map(&mut self) -> Result<OpMap<'a>, Error> {
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

    pub(super) fn shape(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::at_offset(ErrorKind::Shape, self.s.s, at, msg)
    }

    fn skip_at(&mut self, at: usize) -> Result<(), Error> {
        self.s.pos = at;
        self.s.skip_form()
    }
}
