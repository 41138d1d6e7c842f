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

#[cfg(feature = "parallel")]
mod chunks;
mod cursor;
mod entry;

use super::edn::Sink;
use super::pairing::{OpType, Pairer, Pending};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Notation, OpKind, Span, SpanMode, Status, Sym, Ts, Value, VersionOrder};
pub(super) use cursor::Cur;
pub(super) use cursor::Mark;
use entry::{Arg, Entry, IntF, Parser, RawOp, Scalar, StrF, Val};

/// Read `text` as [`super::json::read_json_with`] does, or `None` to leave it to that reader.
/// With [`SpanMode::Located`], each transaction records where its operations' array is
/// ([`History::ops_read_at`]) instead of each operation's span: [`spans_of_ops_in`] finds them.
pub(crate) fn read(text: &[u8], first: u64, spans: SpanMode) -> Option<History> {
    #[cfg(feature = "parallel")]
    if chunks::worth_it(text) {
        if let Some(h) = read_on(text, first, spans, chunks::CHUNK_BYTES) {
            return Some(h);
        }
    }
    read_on(text, first, spans, 0)
}

/// The short path with the entries read on the pool in chunks of about `chunk` bytes: `None`
/// when it leaves the text to the reader on one thread. For tests.
#[cfg(feature = "parallel")]
pub(crate) fn read_in_chunks(text: &[u8], spans: SpanMode, chunk: usize) -> Option<History> {
    if rayon::current_thread_index().is_some() {
        return None;
    }
    read_on(text, 0, spans, chunk.max(1))
}

/// [`read`], the entries read on the pool in chunks of `chunk` bytes, or on this thread (0).
fn read_on(text: &[u8], first: u64, spans: SpanMode, chunk: usize) -> Option<History> {
    let mut b = HistoryBuilder::new();
    b.set_span_mode(spans);
    let mut r = Reader {
        p: Parser::new(Cur::new(text)),
        b,
        pairer: Pairer::default(),
        first,
        #[cfg(feature = "parallel")]
        mode: spans,
        spans: spans.txn_spans(),
        located: spans == SpanMode::Located,
        chunk,
        entries: 0,
        all_native: true,
        scratch: Vec::new(),
        op_lines: (0, 0),
    };
    let (mut version_order, mut commit_order) = (None, None);
    r.p.c.ws();
    match r.p.c.peek()? {
        b'[' => {
            r.p.c.i += 1;
            r.entries(Some(b']'))?;
        }
        b'{' => {
            if r.p.c.next_key_is(b"transactions") {
                (version_order, commit_order) = r.document()?;
            } else {
                r.entries(None)?; // one entry a line (any number of top-level objects)
            }
        }
        _ => return None,
    }
    r.p.c.ws();
    if r.p.c.peek().is_some() {
        return None;
    }
    r.finish(version_order, commit_order)
}

/// Bytes of entries read before the history makes room for the rest at their density.
const RESERVE_AFTER: usize = 1 << 20;

/// What an invocation leaves for its completion.
struct Invocation {
    entry: usize,
    value: Val,
    not_txn_f: bool,
    span: Option<Span>,
}

struct Reader<'a> {
    p: Parser<'a>,
    b: HistoryBuilder,
    pairer: Pairer<Invocation>,
    first: u64,
    /// What the chunks' sinks record.
    #[cfg(feature = "parallel")]
    mode: SpanMode,
    spans: bool,
    /// Where each transaction's operations are is recorded, not each operation's span.
    located: bool,
    /// Entries read on the pool in chunks of this many bytes; 0 on this thread.
    chunk: usize,
    entries: usize,
    all_native: bool,
    scratch: Vec<Value>,
    /// Lines to add to the spans of `p.ops[..n]` (a chunk's, counted from its start): (lines, n).
    op_lines: (i64, usize),
}

impl<'a> Reader<'a> {
    /// The entries: of an array after its `[` (`close` is `]`), or one a line to the end.
    fn entries(&mut self, close: Option<u8>) -> Option<()> {
        if self.chunk > 0 {
            #[cfg(feature = "parallel")]
            return chunks::entries(self, close, self.chunk);
        }
        if close.is_some() && self.p.c.eat(b']').is_some() {
            return Some(());
        }
        let (mut e, start) = (Entry::default(), self.p.c.i);
        let mut reserved = false;
        loop {
            self.entry(&mut e)?;
            if !reserved && self.p.c.i - start > RESERVE_AFTER {
                reserved = true;
                self.reserve(start, self.p.c.i);
            }
            let closed = match close {
                Some(b) => self.p.c.more(b)?,
                None => {
                    self.p.c.ws();
                    self.p.c.peek().is_none()
                }
            };
            if closed {
                return Some(());
            }
        }
    }

    /// `{"transactions": [...], ...}`: the version order and commit order as serde_json values.
    fn document(&mut self) -> Option<(Option<RawOrder<'a>>, Option<serde_json::Value>)> {
        self.p.c.eat(b'{')?;
        let (mut vo, mut co, mut seen) = (None, None, Vec::new());
        loop {
            let key = self.p.c.name()?;
            if seen.contains(&key) {
                return None;
            }
            seen.push(key);
            self.p.c.eat(b':')?;
            self.p.c.ws();
            match key {
                b"transactions" => {
                    self.p.c.eat(b'[')?;
                    self.entries(Some(b']'))?;
                }
                b"version_order" => vo = Some(self.version_order()?),
                _ => {
                    let start = self.p.c.i;
                    self.p.c.skip(0)?;
                    let raw = &self.p.c.t[start..self.p.c.i];
                    match key {
                        b"commit_order" => co = Some(serde_json::from_slice(raw).ok()?),
                        // Another key's objects in an array would count as entries' places.
                        _ if raw.first() == Some(&b'[') && raw.contains(&b'{') => return None,
                        _ => {}
                    }
                }
            }
            if self.p.c.more(b'}')? {
                return Some((vo, co));
            }
        }
    }

    /// A version order `{"key": [v1, v2, ...]}` of plain integers and strings, read without a
    /// tree: serde_json's `Value` of it took a sixth of the thread that builds the history, on a
    /// 1M register history. A repeated key, or any other form, is left to serde_json's reader.
    fn version_order(&mut self) -> Option<RawOrder<'a>> {
        let c = &mut self.p.c;
        c.eat(b'{')?;
        let mut order = Vec::new();
        c.ws();
        if c.peek()? == b'}' {
            c.i += 1;
            return Some(order);
        }
        loop {
            let key = c.string()?;
            c.eat(b':')?;
            c.eat(b'[')?;
            let mut vals = Vec::new();
            c.ws();
            if c.peek()? == b']' {
                c.i += 1;
            } else {
                loop {
                    c.ws();
                    vals.push(if c.peek()? == b'"' { Scalar::Str(c.string()?) } else { Scalar::Int(c.int()?) });
                    if c.more(b']')? {
                        break;
                    }
                }
            }
            order.push((key, vals));
            if c.more(b'}')? {
                break;
            }
        }
        let mut keys: Vec<&str> = order.iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.windows(2).all(|w| w[0] != w[1]).then_some(order)
    }

    /// One entry, read then pushed (on one thread: its operations replace the last entry's).
    fn entry(&mut self, e: &mut Entry<'a>) -> Option<()> {
        self.p.ops.clear();
        self.p.elems.clear();
        self.p.entry(e)?;
        self.take(e)
    }

    /// Room in the history for the whole text at the density of `start..at`, read.
    fn reserve(&mut self, start: usize, at: usize) {
        let (ops, txns) = self.b.sizes();
        self.b.reserve_at_density(at.saturating_sub(start), self.p.c.t.len() - start, ops, txns);
    }

    /// Push an entry as the serde_json reader would; its operations are in `p.ops`.
    fn take(&mut self, e: &Entry<'a>) -> Option<()> {
        let i = self.entries;
        self.entries += 1;
        if e.has_ops || e.has_status {
            self.native(i, e)
        } else {
            self.all_native = false;
            self.elle(i, e)
        }
    }

    /// Push `ops[a..b]`, read from the array at `at`, as json.rs's `push_ops` does for entry `i`.
    fn push_ops(&mut self, i: usize, a: usize, b: usize, at: Mark) {
        let place = Place { line: i as u32 + 1, column: 1 };
        if self.located {
            self.b.ops_read_at(at.i, at.line, at.column());
        }
        // The operations a chunk read are all before `op_lines.1`, those read again all after.
        let lines = if a < self.op_lines.1 { self.op_lines.0 } else { 0 };
        push_raw_ops(&mut self.b, &self.p.ops[a..b], &self.p.elems, place, lines, &mut self.scratch);
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
        let t = Txn::of(e)?;
        if let Val::Ops(a, b, at) = e.ops {
            self.push_ops(i, a, b, at);
        }
        let label = e.label.get().map(|s| self.b.intern(s));
        let meta = t.meta(self.first + i as u64, label, e.span.line, self.entry_span(e));
        self.b.finish_txn(t.status, meta);
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
        let held = (self.p.ops.len(), self.p.elems.len());
        let value = match (e.value, &invoke) {
            (Val::Absent | Val::Null, Some(p)) => self.reread(p.handle.value)?,
            (Val::Absent | Val::Null, None) => Val::Absent,
            (v, _) => v,
        };
        let txn = self.push_txn_ops(i, value, not_txn_f)?;
        self.drop_reread(held);
        if !txn {
            return Some(());
        }
        let label = match e.label {
            StrF::Str(s) => Some(s),
            StrF::Null | StrF::Absent => f.filter(|f| *f != "txn"),
        };
        let label = label.map(|l| self.b.intern(l));
        let status = ty.status();
        let (start_ts, commit_ts) = Self::timestamps(e)?;
        let meta = TxnMeta {
            label,
            line: e.span.line,
            span: self.entry_span(e),
            start_ts,
            commit_ts,
            ..crate::read::pairing::completed(invoke.as_ref(), index, process, time, ordinal)
        };
        self.b.finish_txn(status, meta);
        Some(())
    }

    /// An invocation's value read again (its operations are no longer in `ops`).
    fn reread(&mut self, v: Val) -> Option<Val> {
        let Val::Ops(_, _, mark) = v else {
            return Some(v);
        };
        // Read after the operations held (a chunk's); [`Self::drop_reread`] takes them away.
        let (here, start) = (self.p.c.mark(), self.p.ops.len());
        self.p.c.reset(mark);
        let read = self.p.ops_array();
        self.p.c.reset(here);
        read?;
        Some(Val::Ops(start, self.p.ops.len(), mark))
    }

    /// Forget operations read again by [`Self::reread`] (those after `ops` and `elems` held).
    fn drop_reread(&mut self, (ops, elems): (usize, usize)) {
        self.p.ops.truncate(ops);
        self.p.elems.truncate(elems);
    }

    /// json.rs's `push_txn_ops`: `Some(false)` when the entry is no transaction.
    fn push_txn_ops(&mut self, i: usize, value: Val, not_txn_f: bool) -> Option<bool> {
        match value {
            Val::Absent | Val::Null => Some(!not_txn_f),
            Val::Ops(a, b, at) => {
                self.push_ops(i, a, b, at);
                Some(true)
            }
            // Not an array: push_ops fails before pushing anything.
            Val::Other if not_txn_f => Some(false),
            // An array push_ops would fail on part way, having interned its keys.
            Val::Other | Val::OtherArray => None,
        }
    }

    fn finish(mut self, vo: Option<RawOrder<'a>>, co: Option<serde_json::Value>) -> Option<History> {
        let pairer = std::mem::take(&mut self.pairer);
        for p in pairer.leftovers() {
            let held = (self.p.ops.len(), self.p.elems.len());
            let value = self.reread(p.handle.value)?;
            let txn = self.push_txn_ops(p.handle.entry, value, p.handle.not_txn_f)?;
            self.drop_reread(held);
            if !txn {
                continue;
            }
            self.b.finish_txn(Status::Indeterminate, TxnMeta { span: p.handle.span, ..p.meta() });
        }
        let mut h = self.b.finish().ok()?;
        h.notation = if self.all_native { Notation::Native } else { Notation::ElleJson };
        if let Some(vo) = vo {
            h.version_order = Some(version_order(&h, vo));
        }
        if let Some(co) = co {
            h.commit_order = Some(super::claims::commit_order_from_json(&h, &co, self.p.c.t).ok()?);
        }
        Some(h)
    }
}

/// Push `ops` (their elements in `elems`) into `s` as json.rs's `push_ops` does, at `place`,
/// their spans' lines moved by `lines`.
fn push_raw_ops<'a, S: Sink>(
    s: &mut S,
    ops: &[RawOp<'a>],
    elems: &[Scalar<'a>],
    place: Place,
    lines: i64,
    scratch: &mut Vec<Value>,
) {
    let value_of = |s: &mut S, v: Scalar| match v {
        Scalar::Int(v) => Value::Int(v),
        Scalar::Str(t) => s.str_value(t),
    };
    for op in ops {
        let key = value_of(s, op.key);
        let key = s.key(key);
        match (op.kind, op.arg) {
            (OpKind::Read, Arg::List(a, b)) => {
                scratch.clear();
                for &v in &elems[a..b] {
                    let v = value_of(s, v);
                    scratch.push(v);
                }
                s.push_read_list(key, scratch, place);
            }
            (OpKind::Read, Arg::Nil) => s.push_read_nil(key),
            (OpKind::Read, Arg::One(k)) => {
                let v = value_of(s, elems[k]);
                s.push_read_scalar(key, v, place);
            }
            (_, Arg::One(k)) => {
                let v = value_of(s, elems[k]);
                s.push_write(op.kind, key, v, place);
            }
            _ => unreachable!("ops_array gives writes one value"),
        }
        if s.records_op_spans() {
            s.set_op_span(Span { line: (op.span.line as i64 + lines) as u32, ..op.span });
        }
    }
}

/// What an entry in grail's own form (with `"ops"` or `"status"`) says of its transaction.
#[derive(Clone, Copy)]
struct Txn {
    status: Status,
    id: Option<u64>,
    process: Option<i64>,
    invoke_time: Option<i64>,
    complete_time: Option<i64>,
    start_ts: Option<Ts>,
    commit_ts: Option<Ts>,
}

impl Txn {
    /// `None` for an entry the short path leaves to the serde_json reader.
    fn of(e: &Entry) -> Option<Txn> {
        if e.process_str || matches!(e.ops, Val::OtherArray | Val::Other) {
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
        let (start_ts, commit_ts) = Reader::timestamps(e)?;
        Some(Txn {
            status,
            id,
            process: e.session.get().or(e.process.get()),
            invoke_time: e.start.get(),
            complete_time: e.end.get(),
            start_ts,
            commit_ts,
        })
    }

    /// The transaction's metadata, as entry number `ordinal` at `line`.
    fn meta(&self, ordinal: u64, label: Option<Sym>, line: u32, span: Option<Span>) -> TxnMeta {
        TxnMeta {
            id: Some(self.id.unwrap_or(ordinal)),
            process: self.process,
            invoke_time: self.invoke_time,
            complete_time: self.complete_time,
            label,
            line,
            span,
            start_ts: self.start_ts,
            commit_ts: self.commit_ts,
            ..Default::default()
        }
    }
}

/// A version order as read: each key's text and its values.
type RawOrder<'a> = Vec<(&'a str, Vec<Scalar<'a>>)>;

/// [`super::json::version_order_from_json`] of what [`Reader::version_order`] read: keys matched
/// by their text, strings nobody wrote left out.
fn version_order(h: &History, raw: RawOrder) -> VersionOrder {
    let keys = super::key_index(h);
    let mut order = VersionOrder::default();
    for (k, vals) in raw {
        let Some(&key) = keys.get(k) else { continue };
        let vals = vals
            .into_iter()
            .filter_map(|v| match v {
                Scalar::Int(i) => Some(Value::Int(i)),
                Scalar::Str(s) => h.strings.lookup(s).map(Value::Str),
            })
            .collect();
        order.per_key.insert(key, vals);
    }
    order
}

/// The spans of the operations read from the array at `offset` (line `line`, column `column`),
/// as a reading that records every span gives them: read again with the same code from a
/// window of `input` that starts there and grows until the array is whole. `None` when there is
/// no array of operations there.
pub(in crate::read) fn spans_of_ops_in(
    input: &dyn super::input::InputText,
    offset: usize,
    line: u32,
    column: u32,
) -> Option<Vec<Span>> {
    super::input::ahead(input, offset, |w, _| {
        // Columns on the array's first line count from its own column: the window starts there.
        let mut p = Parser::new(Cur::at_line_start(w, 0));
        p.c.line = line;
        p.ops_array()?;
        let moved = |s: Span| Span {
            start: s.start + offset as u64,
            end: s.end + offset as u64,
            column: if s.line == line { s.column + column.saturating_sub(1) } else { s.column },
            ..s
        };
        Some(p.ops.iter().map(|o| moved(o.span)).collect())
    })
}
