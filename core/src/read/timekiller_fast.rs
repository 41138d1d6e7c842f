//! A short path for TimeKiller histories in the form TimeKiller and grail's generator write:
//! one pass over the bytes with [`super::json_fast`]'s cursor, each transaction pushed to the
//! builder as it is read, its line and spans found on the way (the serde_json reader streams
//! the array, then scans the text twice more for lines and spans).
//!
//! It reads a subset and gives up on anything else: strings with escapes where a field is read,
//! numbers that are not plain `i64`s, booleans, a repeated key, a field of an unexpected type,
//! an unknown operation type, any error (a missing clock, a start after its commit, mixed
//! models, repeated tids). Giving up returns `None` and [`super::timekiller`]'s serde_json
//! reader reads the text, so rare forms and every error message keep one implementation. What
//! it accepts it reads as that reader does, call for call into the builder;
//! `core/tests/timekiller_reader.rs` compares the two.

use super::json_fast::Cur;
use super::timekiller::TimeKillerOptions;
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Notation, OpKind, SpanMode, Status, Ts, Value};

/// Read `text` as [`super::timekiller::read_timekiller_serde`] does, or `None` to leave it to
/// that reader.
pub(crate) fn read(text: &[u8], opts: TimeKillerOptions) -> Option<History> {
    let mut b = HistoryBuilder::new();
    b.set_span_mode(SpanMode::all_or_none(opts.spans));
    let mut r = Reader {
        c: Cur::new(text),
        b,
        opts,
        tids: Vec::new(),
        numeric: true,
        sessions: Default::default(),
        elems: Vec::new(),
    };
    r.c.eat(b'[')?;
    if r.c.eat(b']').is_none() {
        loop {
            r.txn()?;
            if r.tids.len() == RESERVE_AFTER {
                // Room for the whole text at the density of its start (1M transactions'
                // operations, spans and ids would otherwise be copied as they grow).
                let (ops, txns) = r.b.sizes();
                r.b.reserve_at_density(r.c.i, text.len(), ops, txns);
                r.tids.reserve((txns as f64 * text.len() as f64 / r.c.i as f64 * 1.05) as usize);
            }
            if r.c.more(b']')? {
                break;
            }
        }
    }
    r.c.ws();
    if r.c.peek().is_some() {
        return None;
    }
    r.finish()
}

/// Transactions read before the builder reserves room for the rest of the text.
const RESERVE_AFTER: usize = 2048;

/// A scalar as the serde reader's `getString`/`getLong` see it (the forms read here).
#[derive(Clone, Copy)]
enum Scalar<'a> {
    Int(i64),
    Str(&'a str),
}

impl Scalar<'_> {
    /// `getLong`: a long, or a string holding one (as `timekiller::Scalar::long`).
    fn long(self) -> Option<i64> {
        match self {
            Scalar::Int(i) => Some(i),
            Scalar::Str(s) => s.trim().parse().ok(),
        }
    }
}

/// A `tid` as read (`timekiller::Tid`, without owning its text).
#[derive(Clone, Copy)]
enum Tid<'a> {
    Num(u64),
    /// A negative integer: not an id, its digits the label.
    Neg(i64),
    Text(&'a str),
    None,
}

struct Reader<'a> {
    c: Cur<'a>,
    b: HistoryBuilder,
    opts: TimeKillerOptions,
    tids: Vec<Tid<'a>>,
    numeric: bool,
    sessions: crate::hash::Map<&'a str, i64>,
    elems: Vec<Value>,
}

/// Note `bit` in `seen`, or give up on a repeated key (serde's derived structs refuse one).
fn once(seen: &mut u32, bit: u32) -> Option<()> {
    (*seen & (1 << bit) == 0).then(|| *seen |= 1 << bit)
}

impl<'a> Reader<'a> {
    /// The next object key and its `:`, as its index in `names` when it is one of them written
    /// plainly, else `names.len()` (any other key, checked as [`Cur::string`] checks one).
    #[inline]
    fn key(&mut self, names: &[&[u8]]) -> Option<usize> {
        self.c.ws();
        let rest = &self.c.t[self.c.i..];
        let n = if rest.first() == Some(&b'"') {
            // Byte by byte: the names are a few letters, too short for `memcmp`.
            names.iter().position(|name| {
                let l = name.len();
                rest.get(l + 1) == Some(&b'"') && rest[1..=l].iter().zip(name.iter()).all(|(a, b)| a == b)
            })
        } else {
            None
        };
        match n {
            Some(n) => self.c.i += names[n].len() + 2,
            None => {
                self.c.string()?;
            }
        }
        self.c.eat(b':')?;
        Some(n.unwrap_or(names.len()))
    }

    /// An integer, a string, or null (`None` inside).
    fn scalar(&mut self) -> Option<Option<Scalar<'a>>> {
        self.c.ws();
        match self.c.peek()? {
            b'"' => self.c.string().map(|s| Some(Scalar::Str(s))),
            b'n' => self.c.literal(b"null").map(|()| None),
            _ => self.c.int().map(|i| Some(Scalar::Int(i))),
        }
    }

    /// One transaction, its operations pushed as they are read.
    fn txn(&mut self) -> Option<()> {
        self.c.ws();
        if self.c.peek()? != b'{' {
            return None;
        }
        let i = self.tids.len();
        let mut span = self.c.here();
        let line = self.c.line;
        self.c.i += 1;
        let (mut tid, mut sid, mut sts, mut cts) = (None, None, None, None);
        let mut seen = 0u32;
        // The serde reader needs the whole object first; its operations' keys are pushed in
        // the same order either way, and any error gives up.
        if self.c.eat(b'}').is_none() {
            loop {
                match self.key(&[b"tid", b"sid", b"sts", b"cts", b"ops"])? {
                    0 => {
                        once(&mut seen, 0)?;
                        tid = self.scalar()?;
                    }
                    1 => {
                        once(&mut seen, 1)?;
                        sid = self.scalar()?;
                    }
                    2 => {
                        once(&mut seen, 2)?;
                        sts = self.hlc()?;
                    }
                    3 => {
                        once(&mut seen, 3)?;
                        cts = self.hlc()?;
                    }
                    4 => {
                        once(&mut seen, 4)?;
                        self.ops(i)?;
                    }
                    _ => self.c.skip(0)?,
                }
                if self.c.more(b'}')? {
                    break;
                }
            }
        }
        span.end = self.c.i as u64;
        let tid = match tid {
            None => Tid::None,
            Some(Scalar::Int(n)) if n >= 0 => Tid::Num(n as u64),
            Some(Scalar::Int(n)) => Tid::Neg(n),
            Some(Scalar::Str(s)) => s.parse::<u64>().map_or(Tid::Text(s), Tid::Num),
        };
        self.numeric &= matches!(tid, Tid::Num(_));
        self.tids.push(tid);
        let process = match sid {
            None => None,
            Some(Scalar::Int(p)) => Some(p),
            Some(Scalar::Str(s)) => Some(match s.parse::<i64>() {
                Ok(p) => p,
                Err(_) => {
                    let next = -1 - self.sessions.len() as i64;
                    *self.sessions.entry(s).or_insert(next)
                }
            }),
        };
        let (sts, cts) = (sts?, cts?);
        if sts > cts {
            return None;
        }
        let meta = TxnMeta {
            id: Some(i as u64),
            process,
            line,
            span: self.opts.spans.then_some(span),
            start_ts: Some(sts),
            commit_ts: Some(cts),
            ..Default::default()
        };
        self.b.finish_txn(Status::Committed, meta);
        Some(())
    }

    /// `{"p": .., "l": ..}`: `Some(None)` for null (which the serde reader refuses).
    fn hlc(&mut self) -> Option<Option<Ts>> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            self.c.literal(b"null")?;
            return Some(None);
        }
        self.c.eat(b'{')?;
        let (mut p, mut l, mut seen) = (None, None, 0u32);
        if self.c.eat(b'}').is_none() {
            loop {
                match self.key(&[b"p", b"l"])? {
                    0 => {
                        once(&mut seen, 0)?;
                        p = self.scalar()?;
                    }
                    1 => {
                        once(&mut seen, 1)?;
                        l = self.scalar()?;
                    }
                    _ => self.c.skip(0)?,
                }
                if self.c.more(b'}')? {
                    break;
                }
            }
        }
        let l = match l {
            None => 0,
            Some(l) => l.long()?,
        };
        Some(Some(Ts::new(p?.long()?, l)))
    }

    /// `"ops"`: null, or an array of operations, each pushed as it is read.
    fn ops(&mut self, i: usize) -> Option<()> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            return self.c.literal(b"null");
        }
        self.c.eat(b'[')?;
        if self.c.eat(b']').is_some() {
            return Some(());
        }
        let at = Place { line: i as u32 + 1, column: 1 };
        loop {
            self.c.ws();
            if self.c.peek()? != b'{' {
                return None;
            }
            let mut span = self.c.here();
            self.c.i += 1;
            let (mut kind, mut k, mut v, mut list, mut seen) = (None, None, None, false, 0u32);
            self.elems.clear();
            if self.c.eat(b'}').is_none() {
                loop {
                    match self.key(&[b"t", b"k", b"v"])? {
                        0 => {
                            once(&mut seen, 0)?;
                            kind = Some(self.op_type()?);
                        }
                        1 => {
                            once(&mut seen, 1)?;
                            k = self.scalar()?;
                        }
                        2 => {
                            once(&mut seen, 2)?;
                            self.c.ws();
                            if self.c.peek()? == b'[' {
                                self.c.i += 1;
                                list = true;
                                if self.c.eat(b']').is_none() {
                                    loop {
                                        let x = self.scalar()??.long()?;
                                        self.elems.push(Value::Int(x));
                                        if self.c.more(b']')? {
                                            break;
                                        }
                                    }
                                }
                            } else {
                                v = self.scalar()?;
                            }
                        }
                        _ => self.c.skip(0)?,
                    }
                    if self.c.more(b'}')? {
                        break;
                    }
                }
            }
            span.end = self.c.i as u64;
            let kind = kind?;
            let key = self.b.key(Value::Int(k?.long()?));
            match (kind, list) {
                (OpKind::Read, true) => self.b.push_read_list(key, &self.elems, at),
                (OpKind::Read, false) => match v {
                    None => self.b.push_read_nil(key),
                    Some(x) => {
                        let x = x.long()?;
                        if self.opts.initial_value == Some(x) {
                            self.b.push_read_nil(key);
                        } else {
                            self.b.push_read_scalar(key, Value::Int(x), at);
                        }
                    }
                },
                (_, true) => return None,
                (kind, false) => self.b.push_write(kind, key, Value::Int(v?.long()?), at),
            }
            if self.opts.spans {
                self.b.set_op_span(span);
            }
            if self.c.more(b']')? {
                return Some(());
            }
        }
    }

    /// `t`: `"w"`, `"r"` and `"a"` at a glance, other strings as the serde reader matches them.
    fn op_type(&mut self) -> Option<OpKind> {
        self.c.ws();
        let kind = match self.c.t.get(self.c.i..self.c.i + 3) {
            Some(b"\"w\"") => OpKind::Write,
            Some(b"\"r\"") => OpKind::Read,
            Some(b"\"a\"") => OpKind::Append,
            _ => return op_type(self.c.string()?),
        };
        self.c.i += 3;
        Some(kind)
    }

    fn finish(self) -> Option<History> {
        let mut h = self.b.finish().ok()?;
        h.initial_open = self.opts.initial_value.is_none();
        h.notation = Notation::TimeKiller;
        if self.numeric {
            // Ids are the tids; rising ones (the common case) are unique without a sort.
            let mut rising = true;
            let mut last = None;
            for (t, tid) in h.txns.iter_mut().zip(&self.tids) {
                let Tid::Num(n) = *tid else { unreachable!("numeric") };
                rising &= last.is_none_or(|l| l < n);
                last = Some(n);
                t.id = n;
            }
            if !rising {
                let mut ids: Vec<u64> = h.txns.iter().map(|t| t.id).collect();
                ids.sort_unstable();
                if ids.windows(2).any(|w| w[0] == w[1]) {
                    return None;
                }
            }
        } else {
            for (t, tid) in h.txns.iter_mut().zip(&self.tids) {
                t.label = match *tid {
                    Tid::Num(n) => Some(h.strings.intern(&n.to_string())),
                    Tid::Neg(n) => Some(h.strings.intern(&n.to_string())),
                    Tid::Text(s) => Some(h.strings.intern(s)),
                    Tid::None => None,
                };
            }
        }
        Some(h)
    }
}

/// `t` as the serde reader matches it (in any case), or `None` to give up.
fn op_type(t: &str) -> Option<OpKind> {
    let is = |a: &str| t.eq_ignore_ascii_case(a);
    if is("w") || is("write") {
        Some(OpKind::Write)
    } else if is("a") || is("append") {
        Some(OpKind::Append)
    } else if is("r") || is("read") {
        Some(OpKind::Read)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Span;

    #[test]
    fn reads_the_common_form_and_gives_up_on_others() {
        let text = br#"[{"tid": 1, "sid": 0, "sts": {"p": 1, "l": 0}, "cts": {"p": 2, "l": 0}, "ops": [{"t": "w", "k": 7, "v": 2}]},
 {"tid": 2, "sid": 1, "sts": {"p": 3, "l": 0}, "cts": {"p": 4, "l": 0}, "ops": [{"t": "r", "k": 7, "v": 2}]}]"#;
        let h = read(text, TimeKillerOptions::default()).unwrap();
        assert_eq!(h.txns.iter().map(|t| (t.id, t.line)).collect::<Vec<_>>(), [(1, 1), (2, 2)]);
        let op = h.op_spans[1];
        assert_eq!(&text[op.start as usize..op.end as usize], br#"{"t": "r", "k": 7, "v": 2}"#);
        assert_eq!((op.line, op.column), (2, 81));
        assert_eq!(h.txn_spans[1], Span { start: 111, end: 218, line: 2, column: 2 });
        let twice = String::from_utf8_lossy(text).replace("\"tid\": 2", "\"tid\": 1");
        assert!(read(twice.as_bytes(), TimeKillerOptions::default()).is_none());
    }
}
