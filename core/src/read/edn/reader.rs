//! The reader: what each operation map is (a transaction, its invocation, a nemesis or other
//! client operation, the claimed commit order), invocations paired with their completions.

use super::op_map::OpMap;
use super::scan::{is_delim, line_start_of, Scanner};
use super::spans::Columns;
use crate::error::{Error, ErrorKind};
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, Span, Status, Value};
use crate::read::pairing::{OpType, Pairer, Pending};

/// The EDN reader: the scanner over the text, and the sink `b` that takes what it reads.
pub(in crate::read) struct Reader<'a, S> {
    pub(in crate::read) s: Scanner<'a>,
    pub(in crate::read) b: S,
    pub(super) elems: Vec<Value>,
    /// The first operation's position in the stream ([`super::read_edn_from`]).
    pub(in crate::read) first: u64,
    pub(super) columns: Columns,
    /// `{:commit-order [ids ...]}`: the claimed commit order, and where it stands.
    commit_order: Option<(Vec<u64>, usize)>,
}

impl<'a, S> Reader<'a, S> {
    pub(in crate::read) fn new(text: &'a [u8], b: S, first: u64) -> Self {
        Reader { s: Scanner::new(text), b, elems: Vec::new(), first, columns: Columns::default(), commit_order: None }
    }
}

impl Reader<'_, HistoryBuilder> {
    /// The history read, with the claimed commit order resolved.
    pub(in crate::read) fn finish(mut self, text: &[u8]) -> Result<History, Error> {
        let commit_order = self.commit_order.take();
        let mut h = self.b.finish_with(|p| char_place(text, p))?;
        if let Some((ids, at)) = commit_order {
            h.commit_order = Some(crate::read::claims::resolve_commit_order(&h, &ids, text, at)?);
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

/// Where an invocation's `:value` is, to read it again if its completion has none.
#[derive(Debug, Clone, Copy)]
pub(in crate::read) struct InvokeValue {
    offset: Option<usize>,
    line: u32,
    /// The operation's `:f` is neither `:txn` nor absent.
    not_txn_f: bool,
    /// The invocation's map, the transaction's span if it never completes.
    span: Option<Span>,
}

/// Operation maps the one-thread reader reads before it estimates the rest of the history.
const ESTIMATE_AFTER: u64 = 4096;

impl<'a> Reader<'a, HistoryBuilder> {
    pub(super) fn run(&mut self) -> Result<(), Error> {
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
    pub(in crate::read) fn finish_leftovers(&mut self, pairer: Pairer<InvokeValue>) -> Result<(), Error> {
        for p in pairer.leftovers() {
            if !self.take_invocation_value(&p.handle)? {
                continue; // a client operation that is not a transaction
            }
            self.b.finish_txn(Status::Indeterminate, TxnMeta { span: p.handle.span, ..p.meta() });
        }
        Ok(())
    }
}

impl<'a> Reader<'a, HistoryBuilder> {
    /// Decide what an operation map is. A transaction is an operation whose `:f` is `:txn` or
    /// absent, or whose value is a vector of micro-operations; a completion whose `:value` is
    /// `nil` or absent takes its invocation's. Other client operations are skipped, together
    /// with their invocation; so are operations of a keyword process (the nemesis).
    #[inline(never)]
    pub(in crate::read) fn handle(
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
            invoke_pos: invoke.as_ref().map(|p| p.seq),
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
            self.b.ops_read_at(at, m.value_line, 0);
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
                self.b.ops_read_at(offset, v.line, 0);
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
