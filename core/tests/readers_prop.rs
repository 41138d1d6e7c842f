//! Property tests of the readers (issue 1): they never panic on any input, their errors are
//! placed in the text, and generated Jepsen histories (EDN in both layouts, and elle-cli JSON)
//! read to exactly the transactions the generator meant. The expectation is built from the
//! generator, never from grail. Inputs found by `make fuzz` are kept here as regression cases.

mod common;

use common::txns::*;
use grail_core::history::OpKind;
use grail_core::{CheckOptions, ErrorKind, Format, History, Status};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------------
// Error places.

/// An error's place must exist in `text`: line in 1..=lines, column in 1..=chars of that line + 1.
fn place_ok(text: &[u8], e: &grail_core::Error, must_have_place: bool) -> Result<(), String> {
    if must_have_place && (e.line.is_none() || e.column.is_none()) {
        return Err(format!("error without a place: {e:?}"));
    }
    if let Some(line) = e.line {
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        if line < 1 || line as usize > lines.len() {
            return Err(format!("line {line} outside 1..={}: {e:?}", lines.len()));
        }
        if let Some(col) = e.column {
            let chars = String::from_utf8_lossy(lines[line as usize - 1]).chars().count();
            if col < 1 || col as usize > chars + 1 {
                return Err(format!("column {col} outside 1..={} of line {line}: {e:?}", chars + 1));
            }
        }
    }
    if e.column.is_some_and(|c| c < 1) {
        return Err(format!("column 0: {e:?}"));
    }
    Ok(())
}

/// Read `text` every way there is; nothing may panic, and every error must be placed.
fn read_every_way(text: &[u8]) -> Result<(), TestCaseError> {
    for format in [Format::Auto, Format::Edn, Format::Json] {
        let must_place =
            format == Format::Edn || (format == Format::Auto && grail_core::read::detect(text) == Format::Edn);
        match grail_core::read(text, format) {
            Ok(h) => {
                // Spans stay parallel to what they describe, inside the text, each around an
                // operation's brackets.
                prop_assert!(h.op_spans.is_empty() || h.op_spans.len() == h.ops.len());
                prop_assert!(h.txn_spans.is_empty() || h.txn_spans.len() == h.txns.len());
                for s in h.op_spans.iter().filter(|s| s.line > 0) {
                    prop_assert!(s.start < s.end && s.end as usize <= text.len(), "{:?}", s);
                    let (a, b) = (text[s.start as usize], text[s.end as usize - 1]);
                    prop_assert!(matches!((a, b), (b'[', b']') | (b'(', b')')), "{:?}", s);
                }
                // What reads must also infer and check (small budget: this is about panics).
                let opts = CheckOptions { max_steps: Some(5_000), ..CheckOptions::default() };
                let r = grail_core::check(&h, &opts);
                prop_assert_eq!(r.levels.0.len(), 5);
            }
            Err(e) => {
                if let Err(msg) = place_ok(text, &e, must_place) {
                    return Err(TestCaseError::fail(format!("{format:?}: {msg}")));
                }
            }
        }
    }
    let mut h = register_history();
    if let Err(e) = grail_core::read_wal(&mut h, text) {
        prop_assert_eq!(e.kind, ErrorKind::Wal);
        if let Err(msg) = place_ok(text, &e, true) {
            return Err(TestCaseError::fail(format!("WAL: {msg}")));
        }
    }
    Ok(())
}

fn register_history() -> History {
    let text = "{:type :ok, :value [[:w x 1] [:w y \"a\"]]}\n{:type :ok, :value [[:w 1 2] [:r x 1]]}\n";
    grail_core::read(text.as_bytes(), Format::Edn).expect("a fixed register history")
}

/// Token soup: pieces of EDN, JSON and WAL lines, so that random inputs reach deep code.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    #[rustfmt::skip]
    let pieces: &[&str] = &[
        "{", "}", "[", "]", "(", ")", "#{", "#_", "#inst ", "\"", "\\", "\\n", ";", " ", ",", "\n", "\r\n",
        "\t", ":type", ":invoke", ":ok", ":fail", ":info", ":value", ":process", ":nemesis", ":index", ":time",
        ":f", ":txn", ":read", ":r", ":w", ":append", "r", "append", "nil", "0", "1", "-7",
        "99999999999999999999", "1.5", "3N", "x", ":x", "\"x\"", "é", "\u{0}", "\"type\"", "\"ok\"",
        "\"invoke\"", "\"value\"", "\"process\"", "\"f\"", "\"index\"", "null", "\"append\"", "\"r\"",
        "\"transactions\"", "\"ops\"", "\"status\"", "\"committed\"", "\"version_order\"", "\"tid\"",
        "\"data\"", "\"_key\"", "\"rwAttr\"", "2200", "2201", "2300", ":", "\"", "\u{fffd}",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..80).prop_map(|v| v.concat().into_bytes())
}

// ---------------------------------------------------------------------------------------------
// The generator of well-formed Jepsen histories.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Model {
    List,
    Register,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    Fail,
    Info,
    /// The process crashed: no completion, ever.
    Never,
}

/// How a completion gives its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CValue {
    /// The full value, reads filled in.
    Full,
    /// `:value nil`: the invocation's value stands.
    Nil,
    /// No `:value` at all: the invocation's value stands.
    Absent,
}

#[derive(Debug, Clone)]
struct Micro {
    kind: OpKind,
    key: V,
    /// Written or appended value; unused for reads.
    val: V,
    /// What a read returned (`Res::Nil` when nothing was read).
    result: Res,
}

#[derive(Debug, Clone)]
enum Event {
    /// Start a transaction on process `proc` (modulo the process count).
    Txn { proc: u8, micro: Vec<Micro>, outcome: Outcome, cvalue: CValue, displace: bool },
    /// Start a client operation that is not a transaction (`:f :read`, scalar value).
    NonTxn { proc: u8, outcome: Outcome, result: i64, shape: u8 },
    /// Complete one of the running operations.
    Finish(u8),
    /// A nemesis operation (keyword process).
    Nemesis(u8),
}

#[derive(Debug, Clone)]
struct Spec {
    model: Model,
    procs: u8,
    /// No `:process` at all: completions pair with invocations first in, first out.
    anonymous: bool,
    /// Completions only, as the tiny hand-made histories are.
    ok_only: bool,
    with_index: bool,
    index_gaps: Vec<u8>,
    with_time: bool,
    events: Vec<Event>,
    /// Drives layout choices (whitespace, comments, key order, key spelling).
    layout_seed: u64,
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,4}".prop_filter("not a reserved symbol", |s| !matches!(s.as_str(), "nil" | "true" | "false"))
}

fn v_key() -> impl Strategy<Value = V> {
    prop_oneof![
        4 => (0i64..6).prop_map(V::Int),
        2 => name().prop_map(V::Str),
        1 => "[a-z \"\\\\é\n\t]{1,4}".prop_map(V::Str),
        1 => any::<i64>().prop_map(V::Int),
    ]
}

fn v_val() -> impl Strategy<Value = V> {
    prop_oneof![
        6 => (-3i64..40).prop_map(V::Int),
        1 => any::<i64>().prop_map(V::Int),
        1 => name().prop_map(V::Str),
        1 => "[a-zé\"\\\\ ]{0,4}".prop_map(V::Str),
    ]
}

fn micro(model: Model) -> impl Strategy<Value = Micro> {
    let list_read = prop_oneof![
        1 => Just(Res::Nil),
        4 => prop::collection::vec(v_val(), 0..5).prop_map(Res::List),
    ];
    let reg_read = prop_oneof![1 => Just(Res::Nil), 3 => v_val().prop_map(Res::Scalar)];
    let result: BoxedStrategy<Res> = match model {
        Model::List => list_read.boxed(),
        Model::Register => reg_read.boxed(),
    };
    let write_kind = if model == Model::List { OpKind::Append } else { OpKind::Write };
    (prop::bool::weighted(0.5), v_key(), v_val(), result).prop_map(move |(is_read, key, val, result)| Micro {
        kind: if is_read { OpKind::Read } else { write_kind },
        key,
        val,
        result,
    })
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![6 => Just(Outcome::Ok), 2 => Just(Outcome::Fail), 2 => Just(Outcome::Info), 1 => Just(Outcome::Never)]
}

fn event(model: Model) -> impl Strategy<Value = Event> {
    let cvalue = prop_oneof![6 => Just(CValue::Full), 1 => Just(CValue::Nil), 1 => Just(CValue::Absent)];
    prop_oneof![
        8 => (any::<u8>(), prop::collection::vec(micro(model), 0..5), outcome(), cvalue, prop::bool::weighted(0.1))
            .prop_map(|(proc, micro, outcome, cvalue, displace)| Event::Txn { proc, micro, outcome, cvalue, displace }),
        6 => any::<u8>().prop_map(Event::Finish),
        1 => (any::<u8>(), outcome(), -5i64..5, any::<u8>()).prop_map(|(proc, outcome, result, shape)| Event::NonTxn { proc, outcome, result, shape }),
        1 => any::<u8>().prop_map(Event::Nemesis),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![Just(Model::List), Just(Model::Register)].prop_flat_map(spec_for)
}

fn spec_for(model: Model) -> impl Strategy<Value = Spec> {
    {
        (
            1u8..6,
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.15),
            prop::bool::weighted(0.7),
            prop::collection::vec(0u8..4, 64),
            prop::bool::weighted(0.7),
            prop::collection::vec(event(model), 0..40),
            any::<u64>(),
        )
            .prop_map(
                move |(procs, anonymous, ok_only, with_index, index_gaps, with_time, events, layout_seed)| Spec {
                    model,
                    procs,
                    anonymous,
                    ok_only,
                    with_index,
                    index_gaps,
                    with_time,
                    events,
                    layout_seed,
                },
            )
    }
}

/// One operation map, as data; rendered to EDN or JSON later.
#[derive(Debug, Clone)]
struct OpRec {
    ty: &'static str,
    process: Proc,
    f: Option<&'static str>,
    value: Val,
    index: Option<u64>,
    time: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
enum Proc {
    Absent,
    Nil,
    Int(i64),
    Nemesis,
}

#[derive(Debug, Clone)]
enum Val {
    Absent,
    Nil,
    /// Micro-operations; `true` renders reads with their results, `false` with nil.
    Txn(Vec<Micro>, bool),
    /// A non-transaction value of shape 0 (an integer), 1 (a vector of integers) or 2 (a map).
    Other(i64, u8),
    /// A nemesis value.
    Nemesis(u8),
}

/// A running operation.
#[derive(Debug, Clone)]
struct Running {
    process: Option<i64>,
    micro: Vec<Micro>,
    outcome: Outcome,
    cvalue: CValue,
    /// A non-transaction operation: `Some((result, shape))`.
    non_txn: Option<(i64, u8)>,
    /// Its invocation's id, time and position.
    inv_id: u64,
    inv_time: Option<i64>,
    inv_seq: usize,
}

/// A generated history: the operation maps in order and the transactions they must read to.
struct Gen {
    ops: Vec<OpRec>,
    expected: Vec<XTxn>,
}

/// Plays a [`Spec`]'s events, writing operation maps and the expected transactions.
struct Player<'s> {
    spec: &'s Spec,
    ops: Vec<OpRec>,
    /// Completed transactions, in completion order.
    completed: Vec<XTxn>,
    /// Never-completed invocations, with their position.
    leftovers: Vec<(usize, XTxn)>,
    /// Running operations: a FIFO queue when anonymous, else at most one per process.
    running: Vec<Running>,
    next_index: u64,
    clock: i64,
}

/// Expected operations: reads with their results (`filled`) or with nil (an invocation's).
fn txn_ops(micro: &[Micro], filled: bool) -> Vec<XOp> {
    micro
        .iter()
        .map(|m| match m.kind {
            OpKind::Read => XOp::Read(m.key.clone(), if filled { m.result.clone() } else { Res::Nil }),
            OpKind::Write => XOp::Write(m.key.clone(), m.val.clone()),
            OpKind::Append => XOp::Append(m.key.clone(), m.val.clone()),
        })
        .collect()
}

impl Player<'_> {
    fn proc_field(&self, p: Option<i64>) -> Proc {
        match p {
            Some(p) => Proc::Int(p),
            None if self.spec.layout_seed & 1 == 0 => Proc::Nil,
            None => Proc::Absent,
        }
    }

    fn txn_f(&self) -> Option<&'static str> {
        if matches!(self.spec.layout_seed % 3, 0) {
            None
        } else {
            Some("txn")
        }
    }

    /// Write an operation map; returns its expected id (`:index`, or position), time, position.
    fn push(
        &mut self,
        ty: &'static str,
        process: Proc,
        f: Option<&'static str>,
        value: Val,
    ) -> (u64, Option<i64>, usize) {
        let seq = self.ops.len();
        let index = self.spec.with_index.then(|| {
            let i = self.next_index;
            self.next_index += 1 + u64::from(self.spec.index_gaps[seq % self.spec.index_gaps.len()]);
            i
        });
        self.clock += 1 + (seq as i64 * 7919) % 13;
        let time = self.spec.with_time.then_some(self.clock);
        self.ops.push(OpRec { ty, process, f, value, index, time });
        (index.unwrap_or(seq as u64), time, seq)
    }

    fn complete(&mut self, r: Running) {
        let ty = match r.outcome {
            Outcome::Ok => "ok",
            Outcome::Fail => "fail",
            Outcome::Info | Outcome::Never => "info",
        };
        let status = match r.outcome {
            Outcome::Ok => Status::Committed,
            Outcome::Fail => Status::Aborted,
            _ => Status::Indeterminate,
        };
        let process = self.proc_field(r.process);
        if let Some((result, shape)) = r.non_txn {
            let value = if shape % 4 == 3 { Val::Nil } else { Val::Other(result, shape % 3) };
            self.push(ty, process, Some("read"), value);
            return; // skipped, with its invocation
        }
        let value = match r.cvalue {
            CValue::Full => Val::Txn(r.micro.clone(), true),
            CValue::Nil => Val::Nil,
            CValue::Absent => Val::Absent,
        };
        let (id, time, _) = self.push(ty, process, self.txn_f(), value);
        self.completed.push(XTxn {
            id,
            process: r.process,
            status,
            ops: txn_ops(&r.micro, r.cvalue == CValue::Full),
            invoke_time: r.inv_time,
            complete_time: time,
        });
    }

    fn leftover(&mut self, r: Running) {
        if r.non_txn.is_none() {
            let x = XTxn {
                id: r.inv_id,
                process: r.process,
                status: Status::Indeterminate,
                ops: txn_ops(&r.micro, false),
                invoke_time: r.inv_time,
                complete_time: None,
            };
            self.leftovers.push((r.inv_seq, x));
        }
    }

    fn start(
        &mut self,
        proc: u8,
        non_txn: Option<(i64, u8)>,
        micro: Vec<Micro>,
        outcome: Outcome,
        cvalue: CValue,
        displace: bool,
    ) {
        let procs = i64::from(self.spec.procs);
        let mut process = (!self.spec.anonymous).then_some(i64::from(proc) % procs);
        if self.spec.ok_only {
            // Only the completion, with the whole value: no invocation to pair with.
            let outcome = if outcome == Outcome::Never { Outcome::Ok } else { outcome };
            self.complete(Running {
                process,
                micro,
                outcome,
                cvalue: CValue::Full,
                non_txn,
                inv_id: 0,
                inv_time: None,
                inv_seq: 0,
            });
            return;
        }
        if let Some(p) = process {
            if let Some(at) = self.running.iter().position(|r| r.process == Some(p)) {
                if displace {
                    // Invoke again on a busy process: the first invocation is never completed.
                    let old = self.running.remove(at);
                    self.leftover(old);
                } else if let Some(free) = (0..procs).find(|q| !self.running.iter().any(|r| r.process == Some(*q))) {
                    process = Some(free);
                } else {
                    let r = self.running.remove(at);
                    self.complete(r);
                }
            }
        }
        let (f, value) = match non_txn {
            Some((result, shape)) => (Some("read"), if shape % 2 == 0 { Val::Nil } else { Val::Other(result, 0) }),
            None => (self.txn_f(), Val::Txn(micro.clone(), false)),
        };
        let (inv_id, inv_time, inv_seq) = self.push("invoke", self.proc_field(process), f, value);
        self.running.push(Running { process, micro, outcome, cvalue, non_txn, inv_id, inv_time, inv_seq });
    }
}

fn generate(spec: &Spec) -> Gen {
    let mut p = Player {
        spec,
        ops: Vec::new(),
        completed: Vec::new(),
        leftovers: Vec::new(),
        running: Vec::new(),
        next_index: u64::from(spec.index_gaps[0] % 2),
        clock: 1_000,
    };
    for ev in &spec.events {
        match ev {
            Event::Nemesis(k) => {
                p.push(if k % 2 == 0 { "info" } else { "invoke" }, Proc::Nemesis, Some("start"), Val::Nemesis(*k));
            }
            Event::Finish(k) => {
                if p.running.is_empty() {
                    continue;
                }
                let at = if spec.anonymous { 0 } else { *k as usize % p.running.len() };
                let mut r = p.running.remove(at);
                if r.outcome == Outcome::Never && spec.anonymous {
                    // First in, first out: this completion is the oldest invocation's. (Only
                    // at the end may an anonymous invocation stay open.)
                    r.outcome = Outcome::Info;
                    p.complete(r);
                } else if r.outcome == Outcome::Never {
                    // A crashed process: it never completes; a later invocation on the same
                    // process displaces it.
                    p.leftover(r);
                } else {
                    p.complete(r);
                }
            }
            Event::Txn { proc, micro, outcome, cvalue, displace } => {
                p.start(*proc, None, micro.clone(), *outcome, *cvalue, *displace)
            }
            Event::NonTxn { proc, outcome, result, shape } => {
                p.start(*proc, Some((*result, *shape)), Vec::new(), *outcome, CValue::Full, false)
            }
        }
    }
    // The end of the test: what has not crashed completes (when anonymous, in order, up to the
    // first that never does: the rest stay open).
    let running = std::mem::take(&mut p.running);
    let mut open = false;
    for r in running {
        if open || r.outcome == Outcome::Never {
            open |= spec.anonymous;
            p.leftover(r);
        } else {
            p.complete(r);
        }
    }
    p.leftovers.sort_by_key(|(seq, _)| *seq);
    let mut expected = p.completed;
    expected.extend(p.leftovers.into_iter().map(|(_, x)| x));
    Gen { ops: p.ops, expected }
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/// A small deterministic generator for layout choices (proptest shrinks the structure; the
/// layout only has to vary).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

/// Whitespace between two forms: spaces, commas, tabs, line breaks and comments (never empty).
fn sep(rng: &mut Rng) -> &'static str {
    const SEPS: &[&str] = &[
        " ",
        " ",
        " ",
        ", ",
        ",",
        "\t",
        "\n",
        "\r\n",
        " ; a comment, with [brackets] {and} \"quotes\n",
        "\n;;\n  ",
        ",,  ,",
    ];
    SEPS[rng.below(SEPS.len() as u64) as usize]
}

fn is_symbolic(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_lowercase())
        && cs.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !matches!(s, "nil" | "true" | "false")
}

fn edn_string(s: &str, rng: &mut Rng) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' if rng.below(2) == 0 => out.push('\n'), // a raw line break inside a string
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn edn_v(v: &V, rng: &mut Rng) -> String {
    match v {
        V::Int(i) => i.to_string(),
        V::Str(s) if is_symbolic(s) => match rng.below(3) {
            0 => format!(":{s}"),
            1 => s.clone(),
            _ => edn_string(s, rng),
        },
        V::Str(s) => edn_string(s, rng),
    }
}

fn edn_vec(items: Vec<String>, rng: &mut Rng) -> String {
    let mut out = String::from(if rng.below(8) == 0 { "(" } else { "[" });
    let close = if out == "(" { ")" } else { "]" };
    if rng.below(4) == 0 {
        out.push_str(sep(rng));
    }
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep(rng));
        }
        out.push_str(it);
    }
    if rng.below(4) == 0 {
        out.push_str(sep(rng));
    }
    out.push_str(close);
    out
}

fn edn_micro(m: &Micro, filled: bool, rng: &mut Rng) -> String {
    let f = match (m.kind, rng.below(5)) {
        (OpKind::Read, 0) => "r",
        (OpKind::Read, _) => ":r",
        (OpKind::Write, 0) => "w",
        (OpKind::Write, _) => ":w",
        (OpKind::Append, 0) => "append",
        (OpKind::Append, _) => ":append",
    };
    let v = match m.kind {
        OpKind::Read if !filled => "nil".to_string(),
        OpKind::Read => match &m.result {
            Res::Nil => "nil".to_string(),
            Res::Scalar(v) => edn_v(v, rng),
            Res::List(l) => {
                let items = l.iter().map(|v| edn_v(v, rng)).collect();
                edn_vec(items, rng)
            }
        },
        _ => edn_v(&m.val, rng),
    };
    let key = edn_v(&m.key, rng);
    edn_vec(vec![f.to_string(), key, v], rng)
}

fn edn_value(v: &Val, rng: &mut Rng) -> Option<String> {
    Some(match v {
        Val::Absent => return None,
        Val::Nil => "nil".into(),
        Val::Txn(micro, filled) => {
            let items = micro.iter().map(|m| edn_micro(m, *filled, rng)).collect();
            edn_vec(items, rng)
        }
        Val::Other(i, 0) => i.to_string(),
        Val::Other(i, 1) => format!("[{i} {} 3]", i + 1),
        Val::Other(i, _) => format!("{{:count {i}, :ok? true}}"),
        Val::Nemesis(k) => match k % 4 {
            0 => ":start".into(),
            1 => "[:isolated {\"n1\" #{\"n2\" \"n3\"}, \"n2\" #{\"n1\"}}]".into(),
            2 => "nil".into(),
            _ => "{:time #inst \"2020-01-01T00:00:00Z\", :nodes (\"n1\" \"n2\"), :f 1.5, :r 1/3, :c \\a}".into(),
        },
    })
}

fn edn_op(op: &OpRec, rng: &mut Rng) -> String {
    let mut entries: Vec<(String, String)> = Vec::new();
    entries.push((":type".into(), format!(":{}", op.ty)));
    match &op.process {
        Proc::Absent => {}
        Proc::Nil => entries.push((":process".into(), "nil".into())),
        Proc::Int(p) => entries.push((":process".into(), p.to_string())),
        Proc::Nemesis => entries.push((":process".into(), ":nemesis".into())),
    }
    if let Some(f) = op.f {
        entries.push((":f".into(), format!(":{f}")));
    }
    if let Some(v) = edn_value(&op.value, rng) {
        entries.push((":value".into(), v));
    }
    if let Some(i) = op.index {
        entries.push((":index".into(), i.to_string()));
    }
    if let Some(t) = op.time {
        entries.push((":time".into(), t.to_string()));
    }
    // Keys grail ignores, some with forms it has to skip.
    match rng.below(6) {
        0 => entries.push((":node".into(), "\"n1\"".into())),
        1 => entries.push((":error".into(), "[:timeout \"read timed out; retry\"]".into())),
        2 => entries.push((":debug".into(), "{:a #{1 2}, :b #inst \"2020-01-01\", \"k\" [1.5 -2 \\c]}".into())),
        _ => {}
    }
    if rng.below(3) > 0 {
        rng.shuffle(&mut entries);
    }
    let mut out = String::from("{");
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(sep(rng));
        }
        out.push_str(k);
        out.push_str(sep(rng));
        out.push_str(v);
    }
    out.push('}');
    out
}

/// The history as EDN: one map a line (`vector = false`) or one vector of maps.
fn to_edn(ops: &[OpRec], vector: bool, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::new();
    if rng.below(3) == 0 {
        out.push_str("; a Jepsen history\n");
    }
    if vector {
        out.push('[');
    }
    for (i, op) in ops.iter().enumerate() {
        if i > 0 {
            out.push_str(if vector { sep(&mut rng) } else { "\n" });
            if !vector && rng.below(8) == 0 {
                out.push_str(";; a comment line\n");
            }
        }
        out.push_str(&edn_op(op, &mut rng));
    }
    if vector {
        out.push(']');
    }
    if rng.below(2) == 0 {
        out.push('\n');
    }
    out
}

fn json_v(v: &V) -> serde_json::Value {
    match v {
        V::Int(i) => (*i).into(),
        V::Str(s) => s.as_str().into(),
    }
}

fn json_value(v: &Val) -> Option<serde_json::Value> {
    use serde_json::{json, Value as J};
    Some(match v {
        Val::Absent => return None,
        Val::Nil => J::Null,
        Val::Txn(micro, filled) => J::Array(
            micro
                .iter()
                .map(|m| {
                    let v = match m.kind {
                        OpKind::Read if !filled => J::Null,
                        OpKind::Read => match &m.result {
                            Res::Nil => J::Null,
                            Res::Scalar(v) => json_v(v),
                            Res::List(l) => J::Array(l.iter().map(json_v).collect()),
                        },
                        _ => json_v(&m.val),
                    };
                    json!([m.kind.jepsen(), json_v(&m.key), v])
                })
                .collect(),
        ),
        Val::Other(i, 0) => json!(i),
        Val::Other(i, 1) => json!([i, i + 1, 3]),
        Val::Other(i, _) => json!({"count": i}),
        Val::Nemesis(k) => match k % 3 {
            0 => json!("start"),
            1 => json!(["isolated", {"n1": ["n2", "n3"]}]),
            _ => J::Null,
        },
    })
}

/// The history as elle-cli JSON: one array, or one object a line.
fn to_json(ops: &[OpRec], array: bool) -> String {
    let objs: Vec<String> = ops
        .iter()
        .map(|op| {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), op.ty.into());
            match &op.process {
                Proc::Absent => {}
                Proc::Nil => {
                    m.insert("process".into(), serde_json::Value::Null);
                }
                Proc::Int(p) => {
                    m.insert("process".into(), (*p).into());
                }
                Proc::Nemesis => {
                    m.insert("process".into(), "nemesis".into());
                }
            }
            if let Some(f) = op.f {
                m.insert("f".into(), f.into());
            }
            if let Some(v) = json_value(&op.value) {
                m.insert("value".into(), v);
            }
            if let Some(i) = op.index {
                m.insert("index".into(), i.into());
            }
            if let Some(t) = op.time {
                m.insert("time".into(), t.into());
            }
            serde_json::Value::Object(m).to_string()
        })
        .collect();
    if array {
        format!("[{}]", objs.join(",\n"))
    } else {
        objs.join("\n")
    }
}

// ---------------------------------------------------------------------------------------------
// Spans.

/// An operation as text that does not depend on how it is stored.
fn op_repr(h: &History, o: usize) -> String {
    use grail_core::history::Arg;
    let op = h.ops[o];
    let arg = match op.arg() {
        Arg::Nil => "nil".to_string(),
        Arg::Val(v) => h.plain(v),
        Arg::Prefix(_) | Arg::List { .. } => {
            format!("{:?}", h.list(&op).iter().map(|&v| h.plain(v)).collect::<Vec<_>>())
        }
    };
    format!("{:?} {} {arg}", op.kind(), h.plain(h.key(op.key)))
}

/// Every operation's span slices out a form that, read alone, is the same operation.
fn spans_reread(text: &str, h: &History, json: bool) -> Result<(), TestCaseError> {
    prop_assert_eq!(h.op_spans.len(), h.ops.len());
    prop_assert_eq!(h.txn_spans.len(), h.txns.len());
    for o in 0..h.ops.len() {
        let s = h.op_span(o as u32).ok_or_else(|| TestCaseError::fail(format!("operation {o} has no span")))?;
        let form = &text[s.start as usize..s.end as usize];
        let (line, column) = {
            let before = &text[..s.start as usize];
            (
                before.matches('\n').count() as u32 + 1,
                before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1,
            )
        };
        prop_assert_eq!((s.line, s.column), (line, column), "{}", form);
        let alone = if json {
            format!("[{{\"type\": \"ok\", \"value\": [{form}]}}]")
        } else {
            format!("{{:type :ok, :value [{form}]}}")
        };
        let one = grail_core::read(alone.as_bytes(), Format::Auto)
            .map_err(|e| TestCaseError::fail(format!("{form}: {e}")))?;
        prop_assert_eq!(one.ops.len(), 1, "{}", form);
        prop_assert_eq!(op_repr(&one, 0), op_repr(h, o), "{}", form);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn check_expected(what: &str, text: &str, format: Format, expected: &[XTxn]) -> Result<History, TestCaseError> {
    let h = match grail_core::read(text.as_bytes(), format) {
        Ok(h) => h,
        Err(e) => return Err(TestCaseError::fail(format!("{what}: {e}\n--- input ---\n{text}"))),
    };
    let got = txns_of(&h);
    if got != expected {
        let first = got.iter().zip(expected).position(|(a, b)| a != b);
        return Err(TestCaseError::fail(format!(
            "{what}: {} transactions read, {} expected; first difference at {first:?}:\n got {:?}\nwant {:?}\n--- input ---\n{text}",
            got.len(),
            expected.len(),
            first.map(|i| &got[i]),
            first.map(|i| &expected[i]),
        )));
    }
    Ok(h)
}

/// The data model the generator's operations make: empty when only nil reads were kept.
fn expected_model(txns: &[XTxn], model: Model) -> grail_core::history::Model {
    let decided = txns.iter().flat_map(|t| &t.ops).any(|op| !matches!(op, XOp::Read(_, Res::Nil)));
    match (decided, model) {
        (false, _) => grail_core::history::Model::Empty,
        (true, Model::List) => grail_core::history::Model::ListAppend,
        (true, Model::Register) => grail_core::history::Model::RwRegister,
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(2048))]

    /// (a) Arbitrary bytes: no panic in any reader, errors placed.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        read_every_way(&bytes)?;
    }

    /// (a) Arbitrary text.
    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        read_every_way(s.as_bytes())?;
    }

    /// (a) Token soup: EDN, JSON and WAL pieces in any order reach deeper than random bytes.
    #[test]
    fn token_soup_never_panics(bytes in soup()) {
        read_every_way(&bytes)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// (a) A well-formed history cut anywhere, or with one byte changed: no panic, placed errors.
    #[test]
    fn damaged_histories_never_panic(spec in spec(), cut in any::<prop::sample::Index>(), byte in any::<u8>(), vector in any::<bool>()) {
        let g = generate(&spec);
        let mut text = to_edn(&g.ops, vector, spec.layout_seed).into_bytes();
        if !text.is_empty() {
            let i = cut.index(text.len());
            let mut changed = text.clone();
            changed[i] = byte;
            read_every_way(&changed)?;
            text.truncate(i);
        }
        read_every_way(&text)?;
        let json = to_json(&g.ops, vector).into_bytes();
        read_every_way(&json[..cut.index(json.len() + 1)])?;
    }

    /// (b) + (c) Generated EDN histories read to the generator's transactions in both layouts;
    /// then inference and checking do not panic.
    #[test]
    fn generated_edn_reads_as_meant(spec in spec()) {
        let g = generate(&spec);
        for vector in [false, true] {
            let text = to_edn(&g.ops, vector, spec.layout_seed ^ u64::from(vector));
            let h = check_expected(if vector { "EDN vector" } else { "EDN lines" }, &text, Format::Auto, &g.expected)?;
            let h2 = check_expected("EDN (explicit format)", &text, Format::Edn, &g.expected)?;
            spans_reread(&text, &h, false)?;
            prop_assert_eq!(h.model, h2.model);
            prop_assert_eq!(h.model, expected_model(&g.expected, spec.model));
            let _ = grail_core::infer(&h);
            let r = grail_core::check(&h, &CheckOptions::default());
            prop_assert_eq!(r.levels.0.len(), 5);
            // Every transaction is in the report's statistics, by status.
            prop_assert_eq!(h.count(Status::Committed) + h.count(Status::Aborted) + h.count(Status::Indeterminate), g.expected.len());
        }
    }

    /// (d) The same history as elle-cli JSON reads to the same transactions as the EDN.
    #[test]
    fn json_and_edn_agree(spec in spec(), array in any::<bool>()) {
        let g = generate(&spec);
        let edn = to_edn(&g.ops, false, spec.layout_seed);
        let json = to_json(&g.ops, array);
        let from_edn = check_expected("EDN", &edn, Format::Edn, &g.expected)?;
        let from_json = check_expected("JSON", &json, Format::Auto, &g.expected)?;
        spans_reread(&json, &from_json, true)?;
        prop_assert_eq!(txns_of(&from_edn), txns_of(&from_json));
        prop_assert_eq!(from_edn.model, from_json.model);
    }

    /// A write-ahead log of a generated register history gives the version order it spells:
    /// per key, the values of committed log transactions (or of writes with no begin marker) in
    /// log order; keys the history lacks, strings nobody wrote and other record types skipped.
    #[test]
    fn generated_wal_gives_the_version_order(spec in spec_for(Model::Register), seed in any::<u64>()) {
        let g = generate(&spec);
        let text = to_edn(&g.ops, false, spec.layout_seed);
        let mut h = check_expected("EDN", &text, Format::Edn, &g.expected)?;
        let (wal, expected) = make_wal(&g.expected, seed);
        // The log names keys by their text: `1` and `"1"` would be one key.
        let mut texts: Vec<String> = h.keys.iter().map(|&k| h.plain(k)).collect();
        texts.sort();
        texts.dedup();
        prop_assume!(texts.len() == h.keys.len());
        if let Err(e) = grail_core::read_wal(&mut h, wal.as_bytes()) {
            return Err(TestCaseError::fail(format!("{e}\n--- log ---\n{wal}")));
        }
        let got: BTreeMap<String, Vec<V>> = h
            .version_order
            .as_ref()
            .map(|vo| vo.per_key.iter().map(|(&k, vals)| (h.plain(h.key(k)), vals.iter().map(|&v| v_of(&h, v)).collect())).collect())
            .unwrap_or_default();
        prop_assert_eq!(got, expected, "log:\n{}", wal);
    }
}

/// A log for the writes of `txns` (and some noise), and the version order it must give, by key text.
fn make_wal(txns: &[XTxn], seed: u64) -> (String, BTreeMap<String, Vec<V>>) {
    use serde_json::json;
    let mut rng = Rng(seed);
    let mut writes: Vec<(V, V)> = txns
        .iter()
        .flat_map(|t| &t.ops)
        .filter_map(|op| match op {
            XOp::Write(k, v) => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect();
    writes.push((V::Str("no-such-key".into()), V::Int(1)));
    if let Some((k, _)) = writes.first().cloned() {
        writes.push((k, V::Str("\u{1}nobody wrote this".into())));
    }
    rng.shuffle(&mut writes);
    let key_text = |k: &V| match k {
        V::Int(i) => i.to_string(),
        V::Str(s) => s.clone(),
    };
    let mut lines: Vec<String> = vec![json!({"type": 2000, "tid": "0", "data": {"x": 1}}).to_string()];
    let mut expected: BTreeMap<String, Vec<V>> = BTreeMap::new();
    let mut next_tid = 100u64;
    let mut rest = &writes[..];
    while !rest.is_empty() {
        let n = (1 + rng.below(3) as usize).min(rest.len());
        let (group, tail) = rest.split_at(n);
        rest = tail;
        // 0: begin and commit; 1: begun, never committed; 2: no markers (a hand-made log).
        let kind = [0, 0, 0, 1, 2][rng.below(5) as usize];
        let tid = next_tid;
        next_tid += 1;
        let tid_json = if rng.below(2) == 0 { json!(tid.to_string()) } else { json!(tid) };
        if kind != 2 {
            lines.push(json!({"type": 2200, "tid": tid_json}).to_string());
        }
        for (k, v) in group {
            let key = match k {
                V::Int(i) if rng.below(2) == 0 => json!(i),
                k => json!(key_text(k)),
            };
            let val = match v {
                V::Int(i) => json!(i),
                V::Str(s) => json!(s),
            };
            let mut rec = json!({"type": 2300, "data": {"_key": key, "rwAttr": val, "_rev": "x"}});
            if kind != 2 {
                rec["tid"] = tid_json.clone();
            }
            lines.push(rec.to_string());
            if rng.below(6) == 0 {
                lines.push(json!({"type": 1100, "tid": "1"}).to_string());
            }
            let known_key = !matches!(k, V::Str(s) if s == "no-such-key");
            let known_value = !matches!(v, V::Str(s) if s.starts_with('\u{1}'));
            if kind != 1 && known_key && known_value {
                expected.entry(key_text(k)).or_default().push(v.clone());
            }
        }
        if kind == 0 {
            lines.push(json!({"type": 2201, "tid": tid_json}).to_string());
        }
        if rng.below(4) == 0 {
            lines.push(String::new()); // blank lines are skipped
        }
    }
    (lines.join("\n"), expected)
}

// ---------------------------------------------------------------------------------------------
// The generator itself must produce what the properties claim to cover.

#[test]
fn generator_covers_the_cases() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut statuses, mut leftovers, mut nemesis, mut non_txn, mut anonymous, mut nil_values) =
        ([0usize; 3], 0, 0, 0, 0, 0);
    for _ in 0..300 {
        let spec = spec().new_tree(&mut runner).unwrap().current();
        let g = generate(&spec);
        for x in &g.expected {
            statuses[x.status as usize] += 1;
            leftovers += usize::from(x.complete_time.is_none() && spec.with_time && x.status == Status::Indeterminate);
        }
        anonymous += usize::from(spec.anonymous && g.expected.len() > 2);
        for op in &g.ops {
            nemesis += usize::from(op.process == Proc::Nemesis);
            non_txn += usize::from(op.f == Some("read"));
            nil_values += usize::from(matches!(op.value, Val::Nil | Val::Absent) && op.ty != "invoke");
        }
    }
    for (what, n) in [
        ("committed", statuses[0]),
        ("aborted", statuses[1]),
        ("indeterminate", statuses[2]),
        ("never completed", leftovers),
        ("nemesis ops", nemesis),
        ("non-transaction ops", non_txn),
        ("anonymous histories", anonymous),
        ("completions without a value", nil_values),
    ] {
        assert!(n >= 10, "the generator made only {n} {what}");
    }
}

// ---------------------------------------------------------------------------------------------
// Regression cases: inputs that once panicked or read wrongly.

fn read_edn(text: &str) -> Result<Vec<XTxn>, grail_core::Error> {
    grail_core::read(text.as_bytes(), Format::Edn).map(|h| txns_of(&h))
}

fn int(i: i64) -> V {
    V::Int(i)
}

/// Found by `make fuzz` (read_edn): a character literal's backslash at the very end sliced past
/// the input.
#[test]
fn regression_backslash_at_end() {
    for text in ["{:a \\", "{:type :ok, :value [[:r 1 \\", "[{:type :ok :value nil :x \\", "\\"] {
        let e = grail_core::read(text.as_bytes(), Format::Edn).expect_err(text);
        assert_eq!(e.kind, ErrorKind::Syntax, "{text}: {e}");
        place_ok(text.as_bytes(), &e, true).unwrap();
    }
    // The fuzzer's own input.
    let crash: &[u8] = &[
        59, 32, 72, 49, 58, 32, 97, 32, 115, 101, 114, 105, 97, 108, 32, 104, 105, 115, 123, 58, 116, 121, 112, 101,
        32, 58, 111, 107, 44, 32, 58, 118, 97, 108, 117, 101, 32, 91, 91, 58, 97, 112, 112, 101, 110, 100, 32, 120, 32,
        50, 93, 93, 125, 10, 123, 58, 116, 121, 112, 101, 32, 58, 111, 107, 44, 32, 58, 118, 97, 108, 117, 101, 32, 91,
        91, 58, 97, 112, 112, 101, 110, 100, 32, 120, 32, 50, 93, 32, 91, 58, 97, 112, 112, 101, 110, 100, 32, 30, 30,
        30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        30, 30, 30, 30, 120, 32, 51, 93, 32, 91, 58, 114, 32, 120, 32, 91, 49, 32, 50, 93, 93, 93, 125, 10, 123, 58,
        116, 121, 112, 101, 32, 58, 111, 107, 44, 32, 58, 118, 97, 108, 117, 101, 32, 91, 123, 58, 116, 32, 48, 101,
        97, 228, 115, 32, 13, 91, 58, 114, 32, 97, 97, 97, 1, 0, 0, 3, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
        13, 13, 13, 13, 13, 13, 13, 13, 13, 97, 97, 97, 97, 97, 97, 97, 13, 92,
    ];
    read_every_way(crash).unwrap();
    // A character literal is still skipped where grail does not need the form.
    let h = read_edn("{:type :ok, :c \\a, :d \\newline, :e \\), :value [[:r 1 [2]]]}").unwrap();
    assert_eq!(h[0].ops, vec![XOp::Read(int(1), Res::List(vec![int(2)]))]);
}

/// A completion with `:value nil` takes its invocation's operations (it used to be a shape error).
#[test]
fn regression_completion_value_nil() {
    let t = read_edn("{:type :invoke, :process 0, :value [[:append 1 2] [:r 1 nil]], :index 0}\n{:type :info, :process 0, :value nil, :index 1}").unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].status, Status::Indeterminate);
    assert_eq!(t[0].id, 1);
    assert_eq!(t[0].ops, vec![XOp::Append(int(1), int(2)), XOp::Read(int(1), Res::Nil)]);
}

/// A client operation that is not a transaction is skipped with its invocation (the invocation
/// used to stay open and come out as an empty indeterminate transaction).
#[test]
fn regression_non_txn_operation_skipped_whole() {
    let text = "{:type :invoke, :f :read, :process 0, :value nil}\n{:type :ok, :f :read, :process 0, :value 5}\n\
                {:type :invoke, :f :add, :process 1, :value 3}\n\
                {:type :invoke, :process 0, :value [[:r 1 nil]]}\n{:type :ok, :process 0, :value [[:r 1 [1]]]}";
    let t = read_edn(text).unwrap();
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!(t[0].id, 4);
    assert_eq!(t[0].ops, vec![XOp::Read(int(1), Res::List(vec![int(1)]))]);
    let json = r#"[{"type":"invoke","f":"read","process":0,"value":null},{"type":"ok","f":"read","process":0,"value":5},
                   {"type":"invoke","f":"add","process":1,"value":3},
                   {"type":"invoke","process":0,"value":[["r",1,null]]},{"type":"ok","process":0,"value":[["r",1,[1]]]}]"#;
    assert_eq!(txns_of(&grail_core::read(json.as_bytes(), Format::Json).unwrap()), t);
}

/// Invocations never completed get their own `:index` or position as id (not the transaction's
/// position, which could repeat another id), and come out in input order even when the whole
/// history is on one line (they used to come out in hash-map order).
#[test]
fn regression_leftover_ids_and_order() {
    let text = "[{:type :invoke :process 0 :value [[:r 0 nil]]} {:type :invoke :process 1 :value [[:r 1 nil]]} \
                {:type :ok :process 1 :value [[:r 1 nil]]} {:type :invoke :process 2 :value [[:r 2 nil]]} \
                {:type :invoke :process 3 :value [[:r 3 nil]]} {:type :invoke :process 4 :value [[:r 4 nil]]}]";
    let t = read_edn(text).unwrap();
    let ids: Vec<(u64, Option<i64>)> = t.iter().map(|x| (x.id, x.process)).collect();
    assert_eq!(ids, vec![(2, Some(1)), (0, Some(0)), (3, Some(2)), (4, Some(3)), (5, Some(4))]);
    let json = r#"[{"type":"invoke","process":0,"value":[["r",0,null]]},{"type":"invoke","process":1,"value":[["r",1,null]]},
                   {"type":"ok","process":1,"value":[["r",1,null]]},{"type":"invoke","process":2,"value":[["r",2,null]]},
                   {"type":"invoke","process":3,"value":[["r",3,null]]},{"type":"invoke","process":4,"value":[["r",4,null]]}]"#;
    assert_eq!(txns_of(&grail_core::read(json.as_bytes(), Format::Json).unwrap()), t);
}

/// Operations that are read and then abandoned (a nemesis value, an invocation's value before
/// its `:type`) do not decide the data model (a list history used to become "mixed").
#[test]
fn regression_abandoned_ops_do_not_decide_the_model() {
    let text = "{:value [[:w 1 5]], :type :info, :process :nemesis}\n{:value [[:w 2 5]], :type :invoke, :process 0}\n\
                {:type :ok, :process 0, :value [[:append 1 1]]}";
    let h = grail_core::read(text.as_bytes(), Format::Edn).unwrap();
    assert_eq!(h.model, grail_core::history::Model::ListAppend);
    // A real mix is still an error, placed at the later operation; columns count characters
    // (they used to count bytes).
    let text = "{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:w 1 5]]}";
    let e = grail_core::read(text.as_bytes(), Format::Edn).unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::MixedModel, Some(2), Some(27)));
    let text = "{:type :ok, :value [[:append \"\u{e9}\" 1]]}\n{:type :ok, :value [[:w \"\u{e9}\u{e9}\u{e9}\" 5]]}";
    let e = grail_core::read(text.as_bytes(), Format::Edn).unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::MixedModel, Some(2), Some(31)), "{e}");
    assert!(e.message.contains("line 1, column 34"), "{e}");
}

/// Found by tests/edn_oracle.rs: a discard (`#_ form`) before a key, a value or a micro-operation
/// was taken for the form itself (`{#_ :x :type :ok}` had no :type).
#[test]
fn regression_discards_anywhere() {
    let t = read_edn(
        "#_ {:type :crash}\n[#_ {} {#_ :x :type #_ :y :ok, #_#_ :a :b :value [#_ [:r 1] [:r #_ 0 1 [1 #_ 2]]]}]",
    )
    .unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].status, Status::Committed);
    assert_eq!(t[0].ops, vec![XOp::Read(int(1), Res::List(vec![int(1)]))]);
    // A malformed discarded form is still a syntax error.
    let e = grail_core::read(b"{:type :ok, #_ [:value [[:r 1 [1]]]}", Format::Edn).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
}

/// Found by tests/edn_oracle.rs: a micro-operation with fewer than three elements is well-formed
/// EDN, so it is a shape error (or a skipped non-transaction), not a syntax error.
#[test]
fn regression_short_micro_operations() {
    for value in ["[[]]", "[[:r]]", "[[:r 1]]", "[(:append 1)]"] {
        let text = format!("{{:type :ok, :value {value}}}");
        let e = grail_core::read(text.as_bytes(), Format::Edn).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Shape, "{text}: {e}");
        let text = format!("{{:type :ok, :f :cas, :value {value}}}");
        assert_eq!(read_edn(&text).unwrap(), vec![], "{text}");
    }
    // A stray bracket is still a syntax error.
    let e = grail_core::read(b"{:type :ok, :value [[:r 1 [1)]]}", Format::Edn).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
}

/// Deep nesting and long runs of discards must not overflow the stack (the readers recurse on
/// nothing the input controls).
#[test]
fn deep_inputs_do_not_overflow_the_stack() {
    let n = 200_000;
    let inputs = [
        format!("{{:type :ok, :x {}{}, :value [[:r 1 [1]]]}}", "[".repeat(n), "]".repeat(n)),
        format!("{{:type :ok, :x {} 1, :value [[:r 1 [1]]]}}", "#_ 0 ".repeat(n)),
        format!("{}{{:type :ok, :value [[:r 1 [1]]]}}", "#_ ".repeat(n)),
        format!("{{:type :ok, :x {}", "#_[".repeat(n)),
        format!("[{}", "{:type :ok, :value [[:r 1 [1]]]} ".repeat(n / 10)),
        format!("{}{}", "[".repeat(n), "]".repeat(n)),
        format!("{}{}", "{\"a\":".repeat(n), "}".repeat(n)),
    ];
    for text in &inputs {
        // Each must read or fail with a placed error; a stack overflow aborts the test binary.
        read_every_way(text.as_bytes()).unwrap();
    }
    assert_eq!(read_edn(&inputs[0]).unwrap().len(), 1);
    assert_eq!(read_edn(&inputs[1]).unwrap().len(), 1);
}

/// serde_json places an unexpected end right after a line break at column 0.
#[test]
fn regression_json_error_column_zero() {
    for text in ["[\n", "{\"type\":\n", "[{\"type\": \"ok\"},\n"] {
        let e = grail_core::read(text.as_bytes(), Format::Json).unwrap_err();
        place_ok(text.as_bytes(), &e, true).unwrap();
    }
}

/// String escapes decode as Clojure's reader decodes them (`\b`, `\f` and `\uXXXX` used to lose
/// their backslash: `"\u00e9"` read as `u00e9`), and as the same string in JSON.
#[test]
fn regression_string_escapes_as_clojure() {
    let edn = r#"{:type :ok, :value [[:w "a\"b\\c\nd\te\bf\fg\u00e9h\u12x" 1]]}"#;
    let json = r#"[{"type": "ok", "value": [["w", "a\"b\\c\nd\te\bf\fg\u00e9hu12x", 1]]}]"#;
    let want = vec![XOp::Write(V::Str("a\"b\\c\nd\te\u{8}f\u{c}g\u{e9}hu12x".into()), int(1))];
    assert_eq!(read_edn(edn).unwrap()[0].ops, want);
    assert_eq!(txns_of(&grail_core::read(json.as_bytes(), Format::Json).unwrap())[0].ops, want);
}
