//! The history model: transactions of micro-operations over keys, as a database test records them.
//!
//! Keys and string values are interned; operations live in one flat arena so that a
//! million-transaction history costs tens of bytes per operation. List reads are stored as a
//! prefix length into a per-key canonical list when they are one (the common case: every
//! correct read of a list is a prefix of the longest), and copied whole only otherwise.

pub mod builder;
pub mod index;
#[cfg(feature = "schema")]
pub mod schema;
mod ts;
mod value;

pub use builder::HistoryBuilder;
pub use index::{Index, WriteInfo, Writes};
pub use ts::Ts;
pub use value::{write_edn_keyword, write_edn_str, write_edn_string, Atom, Interner, Sym, Value};

use serde::{Deserialize, Serialize};

/// Index of a transaction in [`History::txns`].
pub type TxnId = u32;
/// Index of an interned key in [`History::keys`].
pub type KeyId = u32;

/// How a transaction ended, as the client saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// `:ok`: the transaction committed.
    Committed,
    /// `:fail`: the transaction aborted; its writes must never be seen.
    Aborted,
    /// `:info` or no completion: it may or may not have committed.
    Indeterminate,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Committed => "committed",
            Status::Aborted => "aborted",
            Status::Indeterminate => "indeterminate",
        }
    }

    /// The `:type` of a Jepsen completion that ends a transaction so: `ok`, `fail` or `info`.
    pub fn jepsen(self) -> &'static str {
        match self {
            Status::Committed => "ok",
            Status::Aborted => "fail",
            Status::Indeterminate => "info",
        }
    }
}

/// The kind of a micro-operation, serialized by its Jepsen name (`r`, `w`, `append`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum OpKind {
    #[serde(rename = "r")]
    Read,
    /// Register write.
    #[serde(rename = "w")]
    Write,
    /// List append.
    #[serde(rename = "append")]
    Append,
}

impl OpKind {
    /// The name used in Jepsen histories.
    pub fn jepsen(self) -> &'static str {
        match self {
            OpKind::Read => "r",
            OpKind::Write => "w",
            OpKind::Append => "append",
        }
    }
}

/// The argument or result of a micro-operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// `nil`: an unknown read result (in an invocation), the initial register value, or an empty list.
    Nil,
    /// A scalar: the value written or appended, or a register read's result.
    Val(Value),
    /// A list read equal to the first `len` elements of the key's canonical list.
    Prefix(u32),
    /// A list read that is not a canonical prefix, stored in [`History::elems`].
    List { start: u32, len: u32 },
}

/// One micro-operation of a transaction: 13 bytes, not the 21 of a packed `(OpKind, KeyId,
/// Arg)` (35 million at ten million list-append transactions: 455 MB, not 735). One tag byte
/// holds the kind and the argument's variant, and one word its payload; read through
/// [`Op::kind`] and [`Op::arg`], `key` by copy as [`crate::graph::Edge`]'s fields.
///
/// Equality is the old field-wise one: each `(kind, arg)` has exactly one encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, packed)]
pub struct Op {
    /// `kind << 3 | variant`, variant one of the `ARG_*` below.
    tag: u8,
    pub key: KeyId,
    /// The `i64`, the symbol, the prefix length, or `start | len << 32`; 0 for `Nil`.
    payload: u64,
}

const ARG_NIL: u8 = 0;
const ARG_INT: u8 = 1;
const ARG_STR: u8 = 2;
const ARG_PREFIX: u8 = 3;
const ARG_LIST: u8 = 4;

impl Op {
    #[inline]
    pub fn new(kind: OpKind, key: KeyId, arg: Arg) -> Op {
        let (variant, payload) = match arg {
            Arg::Nil => (ARG_NIL, 0),
            Arg::Val(Value::Int(i)) => (ARG_INT, i as u64),
            Arg::Val(Value::Str(s)) => (ARG_STR, s as u64),
            Arg::Prefix(len) => (ARG_PREFIX, len as u64),
            Arg::List { start, len } => (ARG_LIST, start as u64 | (len as u64) << 32),
        };
        let kind = match kind {
            OpKind::Read => 0,
            OpKind::Write => 1,
            OpKind::Append => 2,
        };
        Op { tag: kind << 3 | variant, key, payload }
    }

    #[inline]
    pub fn kind(&self) -> OpKind {
        match self.tag >> 3 {
            0 => OpKind::Read,
            1 => OpKind::Write,
            _ => OpKind::Append,
        }
    }

    #[inline]
    pub fn arg(&self) -> Arg {
        let p = self.payload;
        match self.tag & 7 {
            ARG_NIL => Arg::Nil,
            ARG_INT => Arg::Val(Value::Int(p as i64)),
            ARG_STR => Arg::Val(Value::Str(p as u32)),
            ARG_PREFIX => Arg::Prefix(p as u32),
            _ => Arg::List { start: p as u32, len: (p >> 32) as u32 },
        }
    }

    /// The same operation with another argument.
    #[inline]
    pub fn with_arg(self, arg: Arg) -> Op {
        Op::new(self.kind(), self.key, arg)
    }
}

/// As the derived `Debug` of the old struct with public `kind`, `key` and `arg`.
impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Op").field("kind", &self.kind()).field("key", &{ self.key }).field("arg", &self.arg()).finish()
    }
}

/// One transaction: its operations and what is known of its execution. 64 bytes, not 104: ten
/// million of them stay in memory for the whole check (issue 37), so the optional process,
/// times and label keep their presence in bits of one byte ([`Transaction::process`] and the
/// others read them) rather than an `Option` word each, and a process or position too wide for
/// its 32 bits goes out of line ([`Extra`]) with the claimed timestamps.
#[derive(Clone, PartialEq, Eq)]
pub struct Transaction {
    /// The id users see: the Jepsen `:index` of the completion, the native `id`, or the position
    /// of the completion in the input when neither is given.
    pub id: u64,
    invoke_time: i64,
    complete_time: i64,
    /// What few transactions have: claimed timestamps, a process or position past 32 bits.
    extra: Option<Box<Extra>>,
    process: i32,
    /// Positions of the invocation and the completion among the input's operations (Jepsen
    /// formats), [`NO_POS`] when unknown, [`WIDE_POS`] when in `extra`: read through
    /// [`Transaction::invoke_pos`].
    invoke_pos: u32,
    complete_pos: u32,
    /// Range of this transaction's operations in [`History::ops`].
    pub ops_start: u32,
    pub ops_end: u32,
    /// 1-based line of the completion (or of the record) in the input; 0 when unknown.
    pub line: u32,
    label: Sym,
    pub status: Status,
    /// Which of `process`, `invoke_time`, `complete_time` and `label` are known ([`HAS_PROCESS`]...),
    /// and whether the process is in `extra` ([`WIDE_PROCESS`]).
    known: u8,
}

/// A transaction's rare fields, out of line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Extra {
    /// The database's start and commit timestamps, when it reports them: only white-box
    /// histories have them ([`Transaction::start_ts`]).
    start_ts: Option<Ts>,
    commit_ts: Option<Ts>,
    /// A process outside `i32`.
    process: i64,
    /// Positions from [`WIDE_POS`] up, which 32 bits do not hold beside [`NO_POS`].
    invoke_pos: u64,
    complete_pos: u64,
}

const HAS_PROCESS: u8 = 1;
const HAS_INVOKE_TIME: u8 = 2;
const HAS_COMPLETE_TIME: u8 = 4;
const HAS_LABEL: u8 = 8;
const WIDE_PROCESS: u8 = 16;

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("id", &self.id)
            .field("process", &self.process())
            .field("invoke_time", &self.invoke_time())
            .field("complete_time", &self.complete_time())
            .field("invoke_pos", &self.invoke_pos())
            .field("complete_pos", &self.complete_pos())
            .field("label", &self.label())
            .field("status", &self.status)
            .field("ops_start", &self.ops_start)
            .field("ops_end", &self.ops_end)
            .field("line", &self.line)
            .field("start_ts", &self.start_ts())
            .field("commit_ts", &self.commit_ts())
            .finish()
    }
}

/// An unknown position ([`Transaction::invoke_pos`]).
const NO_POS: u32 = u32::MAX;
/// A position too wide for 32 bits, kept in [`Extra`].
const WIDE_POS: u32 = u32::MAX - 1;

impl Transaction {
    /// A transaction of `ops` with nothing else known.
    pub(crate) fn new(id: u64, ops: std::ops::Range<u32>, line: u32, status: Status) -> Transaction {
        Transaction {
            id,
            invoke_time: 0,
            complete_time: 0,
            extra: None,
            process: 0,
            invoke_pos: NO_POS,
            complete_pos: NO_POS,
            ops_start: ops.start,
            ops_end: ops.end,
            line,
            label: 0,
            status,
            known: 0,
        }
    }

    fn known(&self, bit: u8) -> bool {
        self.known & bit != 0
    }

    fn set<T: Default>(&mut self, bit: u8, v: Option<T>, field: impl FnOnce(&mut Self) -> &mut T) {
        self.known = if v.is_some() { self.known | bit } else { self.known & !bit };
        *field(self) = v.unwrap_or_default();
    }

    fn extra(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Default::default)
    }

    /// No `extra` when it holds nothing: equal transactions compare equal.
    fn tidy(&mut self) {
        if self.extra.as_deref().is_some_and(|x| *x == Extra::default()) {
            self.extra = None;
        }
    }

    /// The client process (Jepsen's `:process`, a session) that ran it.
    pub fn process(&self) -> Option<i64> {
        if !self.known(HAS_PROCESS) {
            return None;
        }
        match &self.extra {
            Some(x) if self.known(WIDE_PROCESS) => Some(x.process),
            _ => Some(self.process as i64),
        }
    }

    /// When it was invoked, in the input's time unit (Jepsen's `:time`, nanoseconds).
    pub fn invoke_time(&self) -> Option<i64> {
        self.known(HAS_INVOKE_TIME).then_some(self.invoke_time)
    }

    /// When it completed.
    pub fn complete_time(&self) -> Option<i64> {
        self.known(HAS_COMPLETE_TIME).then_some(self.complete_time)
    }

    /// Its label (native `label`, TimeKiller's transaction id), interned in [`History::strings`].
    pub fn label(&self) -> Option<Sym> {
        self.known(HAS_LABEL).then_some(self.label)
    }

    pub fn set_process(&mut self, p: Option<i64>) {
        let narrow = p.map(|p| i32::try_from(p).ok());
        self.known &= !WIDE_PROCESS;
        self.set(HAS_PROCESS, narrow.map(|n| n.unwrap_or(0)), |t| &mut t.process);
        match (p, narrow) {
            (Some(p), Some(None)) => {
                self.known |= WIDE_PROCESS;
                self.extra().process = p;
            }
            _ => {
                if let Some(x) = self.extra.as_deref_mut() {
                    x.process = 0;
                }
                self.tidy();
            }
        }
    }

    pub fn set_invoke_time(&mut self, t: Option<i64>) {
        self.set(HAS_INVOKE_TIME, t, |x| &mut x.invoke_time);
    }

    pub fn set_complete_time(&mut self, t: Option<i64>) {
        self.set(HAS_COMPLETE_TIME, t, |x| &mut x.complete_time);
    }

    pub fn set_label(&mut self, l: Option<Sym>) {
        self.set(HAS_LABEL, l, |t| &mut t.label);
    }

    /// Set where the invocation and the completion are among the input's operations.
    pub(crate) fn set_positions(&mut self, invoke: Option<u64>, complete: Option<u64>) {
        let mut narrow = |p: Option<u64>, wide: fn(&mut Extra) -> &mut u64| {
            let (kept, out) = match p {
                None => (NO_POS, 0),
                Some(p) if p < WIDE_POS as u64 => (p as u32, 0),
                Some(p) => (WIDE_POS, p),
            };
            if out != 0 || self.extra.is_some() {
                *wide(self.extra()) = out;
            }
            kept
        };
        let i = narrow(invoke, |x| &mut x.invoke_pos);
        let c = narrow(complete, |x| &mut x.complete_pos);
        (self.invoke_pos, self.complete_pos) = (i, c);
        self.tidy();
    }

    /// Set the database's start and commit timestamps.
    pub(crate) fn set_timestamps(&mut self, start: Option<Ts>, commit: Option<Ts>) {
        if start.is_some() || commit.is_some() || self.extra.is_some() {
            let x = self.extra();
            (x.start_ts, x.commit_ts) = (start, commit);
            self.tidy();
        }
    }

    fn position(&self, p: u32, wide: impl Fn(&Extra) -> u64) -> Option<u64> {
        match p {
            NO_POS => None,
            WIDE_POS => self.extra.as_deref().map(wide),
            p => Some(p as u64),
        }
    }

    /// Where the invocation is among the input's operations (Jepsen formats): real-time order
    /// when the history records no times, as Elle takes it. `None` when no invocation was
    /// recorded (a history of completions alone): nothing is known to precede it in real time.
    pub fn invoke_pos(&self) -> Option<u64> {
        self.position(self.invoke_pos, |x| x.invoke_pos)
    }

    /// Where the transaction first appears in the input: its invocation, else its completion
    /// (session order and the order of exported records).
    pub fn first_pos(&self) -> Option<u64> {
        self.invoke_pos().or_else(|| self.complete_pos())
    }

    /// Where the completion is among the input's operations.
    pub fn complete_pos(&self) -> Option<u64> {
        self.position(self.complete_pos, |x| x.complete_pos)
    }

    /// An invocation whose completion the text read so far does not hold (a record of a stream
    /// whose completion is still to come).
    pub fn awaits_completion(&self) -> bool {
        self.invoke_pos().is_some() && self.complete_pos().is_none()
    }

    /// The database's start (snapshot) timestamp, when it reports one (native `start_ts`, EDN
    /// `:start-ts`, TimeKiller's `sts`): white-box checking, [`crate::timestamps`].
    pub fn start_ts(&self) -> Option<Ts> {
        self.extra.as_ref().and_then(|x| x.start_ts)
    }

    /// The database's commit timestamp (native `commit_ts`, EDN `:commit-ts`, TimeKiller's `cts`).
    pub fn commit_ts(&self) -> Option<Ts> {
        self.extra.as_ref().and_then(|x| x.commit_ts)
    }
}

/// The data model the history's operations belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    ListAppend,
    RwRegister,
    /// Only reads of `nil`, or no operations: either model gives the same graph.
    Empty,
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Model {
    /// `list-append`, `rw-register` or `empty`, as reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Model::ListAppend => "list-append",
            Model::RwRegister => "rw-register",
            Model::Empty => "empty",
        }
    }
}

/// How the input wrote operations, for showing them back in its own notation: explanations,
/// the demo, sub-histories ([`crate::explain::op_text`], [`crate::export::sub_history`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Notation {
    /// Jepsen's `[:r x 1]` in `{:index 3, :type :ok, ... :value [...]}` (EDN, and the JSON
    /// formats, whose operations have the same shape).
    #[default]
    Jepsen,
    /// PolySI's and Plume's text: `r(key,value,session,txn)` a line, 0 the initial value.
    Plume,
    /// grail's native JSON, one object per transaction (explanations show Jepsen's shape).
    Native,
    /// elle-cli's JSON: Jepsen's operations as JSON objects (explanations show Jepsen's shape).
    ElleJson,
    /// TimeKiller's JSON array of transactions with `sts`/`cts` (explanations show Jepsen's
    /// shape).
    TimeKiller,
}

/// Per-key version order of register writes, as a write-ahead log gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionOrder {
    /// For each key, the values written, in the order they were installed.
    pub per_key: crate::hash::Map<KeyId, Vec<Value>>,
}

/// A whole history.
#[derive(Debug, Clone)]
pub struct History {
    pub txns: Vec<Transaction>,
    pub ops: Vec<Op>,
    /// Element arena for list reads that are not canonical prefixes.
    pub elems: Vec<Value>,
    /// Canonical list per key (the longest compatible read seen); `Arg::Prefix` points into it.
    pub canon: Vec<Vec<Value>>,
    pub keys: Vec<Value>,
    pub strings: Interner,
    pub model: Model,
    pub version_order: Option<VersionOrder>,
    /// Predicate reads, by transaction in order (native format's `predicate_reads`; for LDBC's
    /// PMP, `docs/analysis.md`).
    pub predicate_reads: Vec<PredicateRead>,
    /// The commit order the database claims (native `commit_order`, EDN `{:commit-order [...]}`),
    /// as transactions (indices into `txns`), first committed first: [`crate::timestamps`].
    pub commit_order: Option<Vec<TxnId>>,
    /// Whether the keys' initial value is left open: TimeKiller's JSON read without its
    /// `--initial_value`, where a value read that nobody wrote may be a key's initial version.
    /// Every other format fixes it (`nil`, `null`, or an initial transaction).
    pub initial_open: bool,
    /// The aborted transaction into which the reader gathered the writes its format lists
    /// outside any transaction (Plume's `txn = -1` lines, dbcop's events that did not succeed):
    /// its id ([`crate::read::ABORTED_WRITES`]) is grail's, not the input's, so explanations say
    /// what it is.
    pub aborted_writes: Option<TxnId>,
    /// How the input wrote operations.
    pub notation: Notation,
    /// Where each operation is in the input (byte range, line and column), parallel to
    /// [`History::ops`]; empty when the reader does not record them, or records where to find
    /// them instead ([`SpanMode::Located`]): read them through [`History::op_span`]. An
    /// operation whose place is unknown has the zero span (line 0).
    pub op_spans: Vec<Span>,
    /// Where each transaction is in the input (its completion's map or record, or its
    /// invocation's when it never completed), parallel to [`History::txns`]; empty when the
    /// reader does not record them.
    pub txn_spans: Vec<Span>,
    /// With [`SpanMode::Located`]: where each transaction's operations were read (the `:value`
    /// they came from), parallel to [`History::txns`]; empty otherwise. Operations' spans are
    /// then found from the input when asked ([`crate::read::attach_input`]).
    pub ops_read_at: Vec<ReadAt>,
    /// Finds an operation's span in the input ([`History::op_span`]), when attached.
    pub(crate) op_span_finder: Option<OpSpanFinder>,
}

/// Where a transaction's operations were read: the byte offset, the line and the column of the
/// form they were read from ([`NO_OFFSET`] as the offset when unknown). The column is JSON's, whose
/// histories are often one line: its operations are found again without reading back to the
/// line's start. Other readers leave it 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadAt {
    pub offset: u64,
    pub line: u32,
    pub column: u32,
}

/// An unknown offset ([`ReadAt`]).
const NO_OFFSET: u64 = u64::MAX;

impl Default for ReadAt {
    fn default() -> Self {
        ReadAt { offset: NO_OFFSET, line: 0, column: 0 }
    }
}

/// What a reader records of where things are in its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpanMode {
    /// Nothing.
    None,
    /// Every operation's span and every transaction's.
    #[default]
    Every,
    /// Every transaction's span, and where its operations were read ([`History::ops_read_at`]),
    /// 16 bytes a transaction where operations' spans take 24 bytes an operation; operations'
    /// spans are found from the input when asked ([`crate::read::attach_input`]).
    Located,
}

impl SpanMode {
    /// Every span, or none.
    pub fn all_or_none(spans: bool) -> SpanMode {
        if spans {
            SpanMode::Every
        } else {
            SpanMode::None
        }
    }

    /// Whether transactions' spans are kept.
    pub fn txn_spans(self) -> bool {
        self != SpanMode::None
    }

    /// Whether each operation's span is kept.
    pub fn op_spans(self) -> bool {
        self == SpanMode::Every
    }
}

/// Finds an operation's span from the input a history was read from.
#[derive(Clone)]
pub(crate) struct OpSpanFinder(pub(crate) std::sync::Arc<FindOpSpan>);

type FindOpSpan = dyn Fn(&History, u32) -> Option<Span> + Send + Sync;

impl std::fmt::Debug for OpSpanFinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpSpanFinder")
    }
}

/// A place in the input: a byte range, and the line and column (in characters) where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Span {
    pub start: u64,
    pub end: u64,
    pub line: u32,
    pub column: u32,
}

impl Span {
    /// The span `by` bytes further on (found in a window that starts `by` into the text).
    pub fn shifted(self, by: u64) -> Span {
        Span { start: self.start + by, end: self.end + by, ..self }
    }
}

/// A predicate read: the predicate's name and the versions it matched (LDBC ACID 3.5, Vset(P)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateRead {
    pub txn: TxnId,
    pub predicate: Sym,
    pub matches: Vec<Value>,
}

impl History {
    /// Transaction `t`'s external reads (reads of a key before its own first write to it), in
    /// program order. Found again at each call, from the transaction's few operations: kept
    /// for every transaction they took 150 MB at 10M, for the levels and analyses that read them.
    pub fn external_reads(&self, t: TxnId) -> impl Iterator<Item = u32> + '_ {
        let ops = self.op_range(t);
        let start = ops.start;
        // The keys written so far: a transaction's reads times its distinct keys written, not
        // its reads times its operations.
        let mut written: Vec<KeyId> = Vec::new();
        self.ops[ops].iter().enumerate().filter_map(move |(i, op)| {
            if op.kind() == OpKind::Read {
                return (!written.contains(&{ op.key })).then_some((start + i) as u32);
            }
            if !written.contains(&{ op.key }) {
                written.push(op.key);
            }
            None
        })
    }

    pub fn ops_of(&self, t: TxnId) -> &[Op] {
        &self.ops[self.op_range(t)]
    }

    /// Where transaction `t`'s operations are in [`History::ops`], kept within it (empty for an
    /// unknown transaction): every pass over a transaction's operations takes this one range.
    pub fn op_range(&self, t: TxnId) -> std::ops::Range<usize> {
        let Some(txn) = self.txns.get(t as usize) else { return 0..0 };
        let end = (txn.ops_end as usize).min(self.ops.len());
        (txn.ops_start as usize).min(end)..end
    }

    /// The transaction whose operations include `o`, without an [`Index`]: found by halving,
    /// since readers lay transactions' operations out in order; by a scan otherwise.
    pub fn txn_of_op(&self, o: u32) -> Option<TxnId> {
        let holds = |t: usize| self.op_range(t as TxnId).contains(&(o as usize));
        let t = self.txns.partition_point(|x| x.ops_end <= o);
        if t < self.txns.len() && holds(t) {
            return Some(t as TxnId);
        }
        (0..self.txns.len()).find(|&t| holds(t)).map(|t| t as TxnId)
    }

    /// The elements of a list read (empty for `nil`).
    pub fn list(&self, op: &Op) -> &[Value] {
        match op.arg() {
            Arg::Prefix(len) => &self.canon[op.key as usize][..len as usize],
            Arg::List { start, len } => &self.elems[start as usize..(start + len) as usize],
            Arg::Nil | Arg::Val(_) => &[],
        }
    }

    /// The value a write or append operation wrote.
    pub fn written(&self, o: u32) -> Option<Value> {
        match self.ops.get(o as usize)?.arg() {
            Arg::Val(v) => Some(v),
            _ => None,
        }
    }

    pub fn key(&self, k: KeyId) -> Value {
        self.keys[k as usize]
    }

    /// A value as EDN that reads back as the same value: `3`, `x`, `"a b"`, `"12"`. A string
    /// is bare only where the reader takes the bare form as that string (keywords, symbols and
    /// strings are one value to grail, so `:x` shows as `x`).
    pub fn show(&self, v: Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::Str(s) => {
                let mut out = String::new();
                write_edn_str(&mut out, self.strings.get(s));
                out
            }
        }
    }

    /// A value's text without quotes (`a b`): for names, such as Elle's file names.
    pub fn plain(&self, v: Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::Str(s) => self.strings.get(s).to_string(),
        }
    }

    /// A value as JSON (numbers stay numbers).
    pub fn value_json(&self, v: Value) -> serde_json::Value {
        match v {
            Value::Int(i) => serde_json::Value::from(i),
            Value::Str(s) => serde_json::Value::from(self.strings.get(s)),
        }
    }

    /// Where operation `o` is in the input, when the reader recorded it (or recorded where to
    /// find it, and the input is attached: [`SpanMode::Located`]).
    pub fn op_span(&self, o: u32) -> Option<Span> {
        match self.op_spans.get(o as usize) {
            Some(s) => Some(*s),
            None => self.op_span_finder.as_ref().and_then(|f| (f.0)(self, o)),
        }
        .filter(|s| s.line > 0)
    }

    /// Where transaction `t` is in the input, when the reader recorded it.
    pub fn txn_span(&self, t: TxnId) -> Option<Span> {
        self.txn_spans.get(t as usize).copied().filter(|s| s.line > 0)
    }

    pub fn label(&self, t: TxnId) -> Option<&str> {
        self.txns[t as usize].label().map(|s| self.strings.get(s))
    }

    /// Count of transactions by status.
    pub fn count(&self, status: Status) -> usize {
        self.txns.iter().filter(|t| t.status == status).count()
    }

    /// Counts of committed, aborted and indeterminate transactions, in one pass.
    pub fn count_by_status(&self) -> [usize; 3] {
        let mut c = [0; 3];
        for t in &self.txns {
            c[match t.status {
                Status::Committed => 0,
                Status::Aborted => 1,
                Status::Indeterminate => 2,
            }] += 1;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::{Op, Transaction};

    /// Ten million transactions and tens of millions of operations stay in memory for the whole
    /// check: a field that grows either costs gigabytes (issue 20; the edges' sizes are checked
    /// in `graph`).
    #[test]
    fn transactions_and_operations_stay_small() {
        assert!(std::mem::size_of::<Transaction>() <= 64, "{}", std::mem::size_of::<Transaction>());
        assert!(std::mem::size_of::<Op>() <= 13, "{}", std::mem::size_of::<Op>());
    }

    /// A process, a position or timestamps too wide or too rare for the 64 bytes read back
    /// as set, from out of line; set again narrow, the transaction equals one set narrow once.
    #[test]
    fn wide_fields_read_back() {
        use super::{Status, Ts};
        let mut t = Transaction::new(7, 3..5, 9, Status::Committed);
        assert_eq!((t.process(), t.invoke_pos(), t.complete_pos(), t.start_ts()), (None, None, None, None));
        for p in [i64::MIN, -1, 0, i32::MAX as i64 + 1, i64::MAX] {
            t.set_process(Some(p));
            assert_eq!(t.process(), Some(p));
        }
        for (i, c) in [(0, u32::MAX as u64 - 2), (u32::MAX as u64 - 1, u32::MAX as u64), (u64::MAX, 5)] {
            t.set_positions(Some(i), Some(c));
            assert_eq!((t.invoke_pos(), t.complete_pos()), (Some(i), Some(c)));
        }
        t.set_positions(None, Some(1 << 40));
        assert_eq!((t.invoke_pos(), t.complete_pos()), (None, Some(1 << 40)));
        assert!(!t.awaits_completion());
        let ts = Ts { p: 4, l: 1 };
        t.set_timestamps(None, Some(ts));
        assert_eq!((t.start_ts(), t.commit_ts()), (None, Some(ts)));
        // Narrow again: equal to a transaction that never held anything wide.
        t.set_process(Some(3));
        t.set_positions(Some(1), Some(2));
        t.set_timestamps(None, None);
        let mut u = Transaction::new(7, 3..5, 9, Status::Committed);
        u.set_process(Some(3));
        u.set_positions(Some(1), Some(2));
        assert_eq!(t.process(), Some(3));
        assert_eq!(t, u);
    }

    /// Every kind and argument comes back as it went in, equal where the old fields were.
    #[test]
    fn ops_decode_as_encoded() {
        use super::{Arg, OpKind, Value};
        let args = [
            Arg::Nil,
            Arg::Val(Value::Int(0)),
            Arg::Val(Value::Int(-1)),
            Arg::Val(Value::Int(i64::MIN)),
            Arg::Val(Value::Int(i64::MAX)),
            Arg::Val(Value::Str(0)),
            Arg::Val(Value::Str(u32::MAX)),
            Arg::Prefix(0),
            Arg::Prefix(u32::MAX),
            Arg::List { start: 0, len: 0 },
            Arg::List { start: u32::MAX, len: 1 },
            Arg::List { start: 1, len: u32::MAX },
        ];
        let kinds = [OpKind::Read, OpKind::Write, OpKind::Append];
        for (kind, arg) in kinds.iter().flat_map(|&k| args.iter().map(move |&a| (k, a))) {
            let op = Op::new(kind, 7, arg);
            assert_eq!((op.kind(), { op.key }, op.arg()), (kind, 7, arg));
            assert_eq!(op.with_arg(Arg::Nil).arg(), Arg::Nil);
            for (k2, a2) in kinds.iter().flat_map(|&k| args.iter().map(move |&a| (k, a))) {
                assert_eq!(op == Op::new(k2, 7, a2), (kind, arg) == (k2, a2));
            }
            let old = format!("Op {{ kind: {kind:?}, key: 7, arg: {arg:?} }}");
            assert_eq!(format!("{op:?}"), old);
        }
    }
}
