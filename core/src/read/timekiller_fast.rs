//! A short path for TimeKiller histories in the form TimeKiller and grail's generator write:
//! one pass over the bytes with [`super::json_fast`]'s cursor, each transaction pushed to the
//! builder as soon as it is read, its line and spans found on the way (the serde_json reader
//! streams the array, then scans the text twice more for lines and spans). A large text's
//! transactions are read on rayon's pool in chunks (feature `parallel`, `read::pool`) and pushed
//! in order on one thread, so the history is the one the reader on one thread builds.
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
use crate::history::{History, HistoryBuilder, Notation, OpKind, Span, SpanMode, Status, Ts, Value};

/// Read `text` as [`super::timekiller::read_timekiller_serde`] does, or `None` to leave it to
/// that reader. A large text's transactions are read on the pool in chunks (feature
/// `parallel`), as the JSON short path reads its entries, and pushed in order on this thread.
pub(crate) fn read(text: &[u8], opts: TimeKillerOptions) -> Option<History> {
    #[cfg(feature = "parallel")]
    if chunks::worth_it(text) {
        if let Some(h) = read_on(text, opts, chunks::CHUNK_BYTES) {
            return Some(h);
        }
    }
    read_on(text, opts, 0)
}

/// The short path with its transactions read on the pool in chunks of about `chunk` bytes:
/// `None` when it leaves the text to the short path on one thread. For tests.
#[cfg(feature = "parallel")]
pub(crate) fn read_in_chunks(text: &[u8], opts: TimeKillerOptions, chunk: usize) -> Option<History> {
    if rayon::current_thread_index().is_some() {
        return None;
    }
    read_on(text, opts, chunk.max(1))
}

/// [`read`], the transactions read on the pool in chunks of `chunk` bytes, or on this thread (0).
fn read_on(text: &[u8], opts: TimeKillerOptions, chunk: usize) -> Option<History> {
    let mut b = HistoryBuilder::new();
    b.set_span_mode(SpanMode::all_or_none(opts.spans));
    let mut p = Parser { c: Cur::new(text), ops: Vec::new(), elems: Vec::new() };
    let mut r = Pusher { b, opts, tids: Vec::new(), numeric: true, sessions: Default::default() };
    p.c.eat(b'[')?;
    let empty = p.c.eat(b']').is_some();
    #[cfg(feature = "parallel")]
    if !empty && chunk > 0 {
        p.c = chunks::txns(&mut r, p.c, chunk)?;
        return r.at_end(p.c);
    }
    let _ = chunk;
    if !empty {
        loop {
            p.ops.clear();
            p.elems.clear();
            let t = p.txn()?;
            r.take(&t, &p.ops, &p.elems)?;
            if r.tids.len() == RESERVE_AFTER {
                r.reserve(p.c.i, text.len());
            }
            if p.c.more(b']')? {
                break;
            }
        }
    }
    r.at_end(p.c)
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

/// A transaction as read, before it is pushed: what needs no other transaction to decide.
#[derive(Clone, Copy)]
struct Txn<'a> {
    tid: Option<Scalar<'a>>,
    sid: Option<Scalar<'a>>,
    sts: Ts,
    cts: Ts,
    span: Span,
    line: u32,
    /// Its operations, in the parser's (or chunk's) `ops`.
    ops: (usize, usize),
}

/// An operation's value as read.
#[derive(Clone, Copy)]
enum Val {
    /// A read of null or without `v`.
    Nil,
    Int(i64),
    /// A list read: `elems[start..start + len]`.
    List(usize, usize),
}

#[derive(Clone, Copy)]
struct Op {
    kind: OpKind,
    key: i64,
    val: Val,
    span: Span,
}

/// Reads transactions, on any thread.
struct Parser<'a> {
    c: Cur<'a>,
    ops: Vec<Op>,
    elems: Vec<Value>,
}

/// Pushes transactions read to the builder, in order, on one thread.
struct Pusher<'a> {
    b: HistoryBuilder,
    opts: TimeKillerOptions,
    tids: Vec<Tid<'a>>,
    numeric: bool,
    sessions: crate::hash::Map<&'a str, i64>,
}

/// Note `bit` in `seen`, or give up on a repeated key (serde's derived structs refuse one).
fn once(seen: &mut u32, bit: u32) -> Option<()> {
    (*seen & (1 << bit) == 0).then(|| *seen |= 1 << bit)
}

impl<'a> Parser<'a> {
    /// The next object key and its `:`, as its index in `names` when it is one of them written
    /// plainly, else `names.len()` (any other key, checked as [`Cur::string`] checks one).
    /// `guess` is tried first: the key after the last one, in the order writers use.
    #[inline]
    fn key(&mut self, names: &[&[u8]], guess: &mut usize) -> Option<usize> {
        self.c.ws();
        let rest = &self.c.t[self.c.i..];
        // Byte by byte: the names are a few letters, too short for `memcmp`.
        let is = |name: &[u8]| {
            let l = name.len();
            rest.get(l + 1) == Some(&b'"') && rest[1..=l].iter().zip(name.iter()).all(|(a, b)| a == b)
        };
        let n = if rest.first() == Some(&b'"') {
            match names.get(*guess) {
                Some(g) if is(g) => Some(*guess),
                _ => names.iter().position(|name| is(name)),
            }
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
        let n = n.unwrap_or(names.len());
        *guess = n + 1;
        Some(n)
    }

    /// An object's fields, its `{` read: each key among `names` given to `field` with its index,
    /// once (serde's derived structs refuse a repeated key: any repeat gives up), any other key's
    /// value skipped; through the closing `}`.
    #[inline]
    fn fields(&mut self, names: &[&[u8]], mut field: impl FnMut(&mut Self, usize) -> Option<()>) -> Option<()> {
        if self.c.eat(b'}').is_some() {
            return Some(());
        }
        let (mut seen, mut guess) = (0u32, 0);
        loop {
            match self.key(names, &mut guess)? {
                n if n < names.len() => {
                    once(&mut seen, n as u32)?;
                    field(self, n)?;
                }
                _ => self.c.skip(0)?,
            }
            if self.c.more(b'}')? {
                return Some(());
            }
        }
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

    /// One transaction, its operations added to `ops`.
    fn txn(&mut self) -> Option<Txn<'a>> {
        self.c.ws();
        if self.c.peek()? != b'{' {
            return None;
        }
        let mut span = self.c.here();
        let line = self.c.line;
        self.c.i += 1;
        let (mut tid, mut sid, mut sts, mut cts) = (None, None, None, None);
        let ops_start = self.ops.len();
        // The serde reader needs the whole object first; its operations' keys are pushed in
        // the same order either way, and any error gives up.
        self.fields(&[b"tid", b"sid", b"sts", b"cts", b"ops"], |p, field| {
            match field {
                0 => tid = p.scalar()?,
                1 => sid = p.scalar()?,
                2 => sts = p.hlc()?,
                3 => cts = p.hlc()?,
                _ => p.ops()?,
            }
            Some(())
        })?;
        span.end = self.c.i as u64;
        let (sts, cts) = (sts?, cts?);
        if sts > cts {
            return None;
        }
        Some(Txn { tid, sid, sts, cts, span, line, ops: (ops_start, self.ops.len()) })
    }

    /// `{"p": .., "l": ..}`: `Some(None)` for null (which the serde reader refuses).
    fn hlc(&mut self) -> Option<Option<Ts>> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            self.c.literal(b"null")?;
            return Some(None);
        }
        self.c.eat(b'{')?;
        let (mut p, mut l) = (None, None);
        self.fields(&[b"p", b"l"], |parser, field| {
            match field {
                0 => p = parser.scalar()?,
                _ => l = parser.scalar()?,
            }
            Some(())
        })?;
        let l = match l {
            None => 0,
            Some(l) => l.long()?,
        };
        Some(Some(Ts::new(p?.long()?, l)))
    }

    /// `"ops"`: null, or an array of operations, each added to `ops`.
    fn ops(&mut self) -> Option<()> {
        self.c.ws();
        if self.c.peek()? == b'n' {
            return self.c.literal(b"null");
        }
        self.c.eat(b'[')?;
        if self.c.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.c.ws();
            if self.c.peek()? != b'{' {
                return None;
            }
            let mut span = self.c.here();
            self.c.i += 1;
            let (mut kind, mut k, mut v, mut list) = (None, None, None, None);
            self.fields(&[b"t", b"k", b"v"], |p, field| {
                match field {
                    0 => kind = Some(p.op_type()?),
                    1 => k = p.scalar()?,
                    _ => {
                        p.c.ws();
                        if p.c.peek()? == b'[' {
                            p.c.i += 1;
                            let start = p.elems.len();
                            if p.c.eat(b']').is_none() {
                                loop {
                                    let x = p.scalar()??.long()?;
                                    p.elems.push(Value::Int(x));
                                    if p.c.more(b']')? {
                                        break;
                                    }
                                }
                            }
                            list = Some((start, p.elems.len() - start));
                        } else {
                            v = p.scalar()?;
                        }
                    }
                }
                Some(())
            })?;
            span.end = self.c.i as u64;
            let kind = kind?;
            let key = k?.long()?;
            let val = match (kind, list, v) {
                (OpKind::Read, Some((start, len)), _) => Val::List(start, len),
                (OpKind::Read, None, None) => Val::Nil,
                (_, Some(_), _) => return None,
                (_, None, v) => Val::Int(v?.long()?),
            };
            self.ops.push(Op { kind, key, val, span });
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
}

impl<'a> Pusher<'a> {
    /// Push a transaction read, its operations in `ops` and their lists' elements in `elems`.
    fn take(&mut self, t: &Txn<'a>, ops: &[Op], elems: &[Value]) -> Option<()> {
        let i = self.tids.len();
        let at = Place { line: i as u32 + 1, column: 1 };
        for op in ops.get(t.ops.0..t.ops.1)? {
            let key = self.b.key(Value::Int(op.key));
            match (op.kind, op.val) {
                (OpKind::Read, Val::List(start, len)) => self.b.push_read_list(key, elems.get(start..start + len)?, at),
                (OpKind::Read, Val::Nil) => self.b.push_read_nil(key),
                (OpKind::Read, Val::Int(x)) => {
                    if self.opts.initial_value == Some(x) {
                        self.b.push_read_nil(key);
                    } else {
                        self.b.push_read_scalar(key, Value::Int(x), at);
                    }
                }
                (kind, Val::Int(x)) => self.b.push_write(kind, key, Value::Int(x), at),
                (_, _) => return None,
            }
            if self.opts.spans {
                self.b.set_op_span(op.span);
            }
        }
        let tid = match t.tid {
            None => Tid::None,
            Some(Scalar::Int(n)) if n >= 0 => Tid::Num(n as u64),
            Some(Scalar::Int(n)) => Tid::Neg(n),
            Some(Scalar::Str(s)) => s.parse::<u64>().map_or(Tid::Text(s), Tid::Num),
        };
        self.numeric &= matches!(tid, Tid::Num(_));
        self.tids.push(tid);
        let process = match t.sid {
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
        let meta = TxnMeta {
            id: Some(i as u64),
            process,
            line: t.line,
            span: self.opts.spans.then_some(t.span),
            start_ts: Some(t.sts),
            commit_ts: Some(t.cts),
            ..Default::default()
        };
        self.b.finish_txn(Status::Committed, meta);
        Some(())
    }

    /// Room for the whole text of `total` bytes at the density of the first `read` (1M
    /// transactions' operations, spans and ids would otherwise be copied as they grow).
    fn reserve(&mut self, read: usize, total: usize) {
        if read == 0 {
            return;
        }
        let (ops, txns) = self.b.sizes();
        self.b.reserve_at_density(read, total, ops, txns);
        self.tids.reserve((txns as f64 * total as f64 / read as f64 * 1.05) as usize);
    }

    /// The history, when only blanks follow the array.
    fn at_end(self, mut c: Cur<'a>) -> Option<History> {
        c.ws();
        if c.peek().is_some() {
            return None;
        }
        self.finish()
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
                crate::par::sort::sort_unstable(&mut ids);
                if ids.windows(2).any(|w| w[0] == w[1]) {
                    return None;
                }
            }
        } else {
            for (t, tid) in h.txns.iter_mut().zip(&self.tids) {
                t.set_label(match *tid {
                    Tid::Num(n) => Some(h.strings.intern(&n.to_string())),
                    Tid::Neg(n) => Some(h.strings.intern(&n.to_string())),
                    Tid::Text(s) => Some(h.strings.intern(s)),
                    Tid::None => None,
                });
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

/// The transactions of a large text read on the pool (feature `parallel`), as
/// `read::json_fast::chunks` reads JSON entries: split at line starts into chunks, each chunk's
/// transactions read on the pool, pushed in order on this thread. A split inside a transaction
/// shows as a chunk whose first transaction is not where the previous chunk's reading stopped;
/// that, or anything that does not read, leaves the text to the short path on one thread.
#[cfg(feature = "parallel")]
mod chunks {
    use super::{Op, Parser, Pusher, Txn};
    use crate::history::Value;
    use crate::read::json_fast::{Cur, Mark};
    use std::ops::ControlFlow;

    /// Bytes per chunk, as the JSON short path's.
    pub(super) const CHUNK_BYTES: usize = 1 << 20;

    /// Worth trying: a pool to read on, and a text of several chunks.
    pub(super) fn worth_it(text: &[u8]) -> bool {
        rayon::current_num_threads() >= 2 && rayon::current_thread_index().is_none() && text.len() > 2 * CHUNK_BYTES
    }

    /// How a chunk's reading ended.
    enum End {
        /// At the next transaction, at this byte and line (the line counted in the chunk).
        Next(usize, u32),
        /// Past the array's closing bracket.
        Closed(Mark),
    }

    struct Chunk<'a> {
        txns: Vec<Txn<'a>>,
        ops: Vec<Op>,
        elems: Vec<Value>,
        /// Where its first transaction starts, and on which of its lines.
        first: (usize, u32),
        end: End,
    }

    /// Read and push the transactions from `cur` (after the array's `[`, which is not empty);
    /// the cursor past its `]`, or `None` to leave the text to the short path on one thread.
    pub(super) fn txns<'a>(r: &mut Pusher<'a>, cur: Cur<'a>, chunk: usize) -> Option<Cur<'a>> {
        let text = cur.t;
        let starts = crate::read::pool::line_starts(text, cur.i, chunk);
        let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
        let read = |k: usize, spare: Option<Chunk<'a>>| -> Option<Chunk<'a>> {
            let at = if k == 0 { cur } else { Cur::at_line_start(text, *starts.get(k)?) };
            read_chunk(at, *ends.get(k)?, spare)
        };
        let mut next: Option<(usize, u32)> = None;
        let mut out = cur;
        let taken = crate::read::pool::in_order(starts.len(), read, |k, mut c| {
            // Lines of chunks after the first count from their start: move them to the text's.
            let offset = match next {
                None if k == 0 => 0,
                Some((at, line)) if at == c.first.0 => line as i64 - c.first.1 as i64,
                _ => return ControlFlow::Break(false),
            };
            shift(&mut c, offset);
            for t in &c.txns {
                if r.take(t, &c.ops, &c.elems).is_none() {
                    return ControlFlow::Break(false);
                }
            }
            if k == 0 {
                r.reserve(ends[0], text.len());
            }
            match c.end {
                End::Closed(m) => {
                    out.reset(m);
                    ControlFlow::Break(true)
                }
                End::Next(at, line) => {
                    next = Some((at, line));
                    ControlFlow::Continue(Some(c))
                }
            }
        });
        // Every chunk taken and none closed the array: not the form this reads.
        taken?.filter(|&closed| closed).map(|_| out)
    }

    /// The transactions that start before `end`, read from `cur`; `spare`, a chunk taken
    /// before, lends its vectors.
    fn read_chunk<'a>(cur: Cur<'a>, end: usize, spare: Option<Chunk<'a>>) -> Option<Chunk<'a>> {
        let (mut txns, mut ops, mut elems) = spare.map(|c| (c.txns, c.ops, c.elems)).unwrap_or_default();
        txns.clear();
        ops.clear();
        elems.clear();
        let mut p = Parser { c: cur, ops, elems };
        p.c.ws();
        let first = (p.c.i, p.c.line);
        loop {
            txns.push(p.txn()?);
            if p.c.more(b']')? {
                let end = End::Closed(p.c.mark());
                return Some(Chunk { txns, ops: p.ops, elems: p.elems, first, end });
            }
            p.c.ws();
            if p.c.i >= end {
                let end = End::Next(p.c.i, p.c.line);
                return Some(Chunk { txns, ops: p.ops, elems: p.elems, first, end });
            }
        }
    }

    /// Add `offset` to every line the chunk holds.
    fn shift(c: &mut Chunk, offset: i64) {
        if offset == 0 {
            return;
        }
        let add = |line: &mut u32| *line = (*line as i64 + offset) as u32;
        for t in &mut c.txns {
            add(&mut t.line);
            add(&mut t.span.line);
        }
        for op in &mut c.ops {
            add(&mut op.span.line);
        }
        match &mut c.end {
            End::Closed(m) => add(&mut m.line),
            End::Next(_, line) => add(line),
        }
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
