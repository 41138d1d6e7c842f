//! The hand-written EDN scanner (`core/src/read/edn.rs`) against a maintained parser:
//! `clojure-reader` 0.7 reads each history into a value tree, this file extracts the transactions
//! from that tree by the reader's documented rules, and grail's `History` must hold the same ones
//! (ids, statuses, processes, times, and every operation's kind, key and value or list).
//!
//! The rules, as `edn.rs` documents them: the input is one vector of operation maps or a series
//! of maps; every map counts for position (its ordinal). `:type` is required; a keyword, symbol
//! or string `:process` marks a non-client operation (the nemesis), skipped. An `:invoke` waits
//! for the next completion on its process (first in, first out without a process); a second
//! invocation on the same process leaves the first open. A completion's value is its own when it
//! is a vector of micro-operations, else its invocation's when its own is `nil` or absent; an
//! operation whose `:f` is neither `:txn` nor absent and whose value is no transaction is not a
//! transaction (skipped, with its invocation). `:ok` commits, `:fail` aborts, `:info` is
//! indeterminate, and so is an invocation never completed (after all completions, in input
//! order). A completion's id is its `:index`, or its ordinal when absent; an open invocation's
//! is its own `:index` or ordinal.
//!
//! Inputs: every `.edn` and `.edn.gz` file of `../shared/corpus` (skipped with a message when
//! the corpus is absent, failing under CI=true), and generated histories that stray from what
//! Jepsen writes (odd keys, nested forms, discards, tagged literals, non-transaction values).

mod common;
use common::txns::*;

use clojure_reader::edn::{self, Edn};
use grail_core::history::{Model, OpKind};
use grail_core::{ErrorKind, Format, Status};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// The oracle's side: clojure-reader's tree, and the rules applied to it.

/// Every top-level form of `text`.
fn forms(text: &str) -> Result<Vec<Edn<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        match edn::read(rest) {
            Ok((form, r)) => {
                out.push(form);
                rest = r;
            }
            // Nothing but whitespace and comments left (a real end of input inside a form has a place).
            Err(e) if e.code == clojure_reader::error::Code::UnexpectedEOF && e.line.is_none() => return Ok(out),
            Err(e) => return Err(format!("clojure-reader: {e:?}")),
        }
    }
}

/// Why the oracle rejects a history: grail must reject it too, with this kind.
#[derive(Debug)]
struct Reject(ErrorKind, String);

struct Oracle {
    txns: Vec<XTxn>,
    model: Model,
}

fn key(name: &str) -> Edn<'static> {
    Edn::Key(name.to_string().into())
}

/// A name (`:f`, a micro-operation's function): keyword, symbol, or string where grail takes one.
fn scalar(e: &Edn<'_>) -> Option<Option<V>> {
    Some(match e {
        Edn::Int(i) => Some(V::Int(*i)),
        Edn::Str(s) | Edn::Key(s) | Edn::Symbol(s) => Some(V::Str(s.to_string())),
        Edn::Bool(b) => Some(V::Str(b.to_string())), // a symbol to grail
        Edn::Nil => None,
        _ => return None,
    })
}

fn seq<'a, 'e>(e: &'a Edn<'e>) -> Option<&'a [Edn<'e>]> {
    match e {
        Edn::Vector(v) | Edn::List(v) => Some(v),
        _ => None,
    }
}

/// A transaction value: `[[:r k v] [:w k v] [:append k v] ...]`; `None` when it is not one.
fn txn_value(e: &Edn<'_>) -> Option<Vec<XOp>> {
    seq(e)?
        .iter()
        .map(|m| {
            let [f, k, v] = seq(m)? else { return None };
            let kind = match f {
                Edn::Key(f) | Edn::Symbol(f) => match f.as_ref() {
                    "r" | "read" => OpKind::Read,
                    "w" | "write" => OpKind::Write,
                    "append" => OpKind::Append,
                    _ => return None,
                },
                _ => return None,
            };
            let k = scalar(k)??;
            Some(match kind {
                OpKind::Read => match seq(v) {
                    Some(items) => {
                        XOp::Read(k, Res::List(items.iter().map(|x| scalar(x)?).collect::<Option<Vec<V>>>()?))
                    }
                    None => match scalar(v)? {
                        Some(v) => XOp::Read(k, Res::Scalar(v)),
                        None => XOp::Read(k, Res::Nil),
                    },
                },
                OpKind::Write => XOp::Write(k, scalar(v)??),
                OpKind::Append => XOp::Append(k, scalar(v)??),
            })
        })
        .collect()
}

struct Pending<'a, 'e> {
    index: Option<u64>,
    time: Option<i64>,
    process: Option<i64>,
    seq: u64,
    value: Option<&'a Edn<'e>>,
    not_txn_f: bool,
}

/// The operations a completion (or an open invocation) stands for: `Ok(None)` when it is not a
/// transaction. `value` is its own; `fallback` the invocation's, used when its own is nil or absent.
fn ops_for(
    value: Option<&Edn<'_>>,
    fallback: Option<Option<&Edn<'_>>>,
    not_txn_f: bool,
) -> Result<Option<Vec<XOp>>, Reject> {
    let shape = || Reject(ErrorKind::Shape, "not a transaction value".into());
    match value {
        Some(v) if !matches!(v, Edn::Nil) => match txn_value(v) {
            Some(ops) => Ok(Some(ops)),
            None if not_txn_f => Ok(None),
            None => Err(shape()),
        },
        _ => match fallback {
            Some(inv) => ops_for(inv, None, not_txn_f),
            None if not_txn_f => Ok(None),
            None => Ok(Some(Vec::new())),
        },
    }
}

fn oracle(text: &str) -> Result<Oracle, Reject> {
    let forms = forms(text).map_err(|m| Reject(ErrorKind::Syntax, m))?;
    let ops: &[Edn<'_>] = match forms.first() {
        Some(Edn::Vector(items)) if forms.len() == 1 => items,
        Some(Edn::Vector(_)) => return Err(Reject(ErrorKind::Syntax, "forms after the history vector".into())),
        _ => &forms,
    };
    let mut by_process: HashMap<i64, Pending> = HashMap::new();
    let mut anonymous: VecDeque<Pending> = VecDeque::new();
    let mut open: Vec<Pending> = Vec::new();
    let mut txns = Vec::new();
    for (ordinal, op) in ops.iter().enumerate() {
        let Edn::Map(m) = op else {
            return Err(Reject(ErrorKind::Syntax, format!("operation {ordinal} is not a map")));
        };
        let get = |k: &str| m.get(&key(k));
        let ty = match get("type") {
            Some(Edn::Key(t)) => match t.as_ref() {
                "invoke" | "ok" | "fail" | "info" => t.to_string(),
                _ => return Err(Reject(ErrorKind::Shape, format!(":type :{t}"))),
            },
            _ => return Err(Reject(ErrorKind::Shape, "no keyword :type".into())),
        };
        let index = match get("index") {
            Some(Edn::Int(i)) if *i >= 0 => Some(*i as u64),
            Some(Edn::Int(_) | Edn::Nil | Edn::Key(_) | Edn::Symbol(_) | Edn::Str(_) | Edn::Bool(_)) => {
                return Err(Reject(ErrorKind::Shape, ":index is not a non-negative integer".into()))
            }
            _ => None,
        };
        let process = match get("process") {
            Some(Edn::Int(p)) => Some(*p),
            Some(Edn::Key(_) | Edn::Symbol(_) | Edn::Str(_) | Edn::Bool(_)) => continue, // the nemesis
            _ => None,
        };
        let time = match get("time") {
            Some(Edn::Int(t)) => Some(*t),
            _ => None,
        };
        let f = match get("f") {
            Some(Edn::Key(f) | Edn::Symbol(f) | Edn::Str(f)) => Some(f.to_string()),
            Some(Edn::Bool(b)) => Some(b.to_string()),
            _ => None,
        };
        let not_txn_f = f.as_deref().is_some_and(|f| f != "txn");
        let value = get("value");
        if ty == "invoke" {
            let p = Pending { index, time, process, seq: ordinal as u64, value, not_txn_f };
            match process {
                Some(proc_) => {
                    if let Some(old) = by_process.insert(proc_, p) {
                        open.push(old);
                    }
                }
                None => anonymous.push_back(p),
            }
            continue;
        }
        let inv = match process {
            Some(p) => by_process.remove(&p),
            None => anonymous.pop_front(),
        };
        let Some(ops) = ops_for(value, inv.as_ref().map(|p| p.value), not_txn_f)? else { continue };
        txns.push(XTxn {
            id: index.unwrap_or(ordinal as u64),
            process,
            status: match ty.as_str() {
                "ok" => Status::Committed,
                "fail" => Status::Aborted,
                _ => Status::Indeterminate,
            },
            ops,
            invoke_time: inv.as_ref().and_then(|p| p.time),
            complete_time: time,
        });
    }
    open.extend(by_process.into_values());
    open.extend(anonymous);
    open.sort_by_key(|p| p.seq);
    for p in open {
        let Some(ops) = ops_for(p.value, None, p.not_txn_f)? else { continue };
        txns.push(XTxn {
            id: p.index.unwrap_or(p.seq),
            process: p.process,
            status: Status::Indeterminate,
            ops,
            invoke_time: p.time,
            complete_time: None,
        });
    }
    let all = || txns.iter().flat_map(|t| &t.ops);
    let list = all().any(|o| matches!(o, XOp::Append(..) | XOp::Read(_, Res::List(_))));
    let register = all().any(|o| matches!(o, XOp::Write(..) | XOp::Read(_, Res::Scalar(_))));
    let model = match (list, register) {
        (true, true) => return Err(Reject(ErrorKind::MixedModel, "list and register operations".into())),
        (true, false) => Model::ListAppend,
        (false, true) => Model::RwRegister,
        (false, false) => Model::Empty,
    };
    Ok(Oracle { txns, model })
}

/// grail and the oracle agree on `text`: the same transactions, or both reject it.
fn agree(what: &str, text: &str) -> Result<usize, String> {
    let grail = grail_core::read(text.as_bytes(), Format::Edn);
    match (oracle(text), grail) {
        (Ok(o), Ok(h)) => {
            let got = txns_of(&h);
            if got != o.txns {
                let i = got.iter().zip(&o.txns).position(|(a, b)| a != b).unwrap_or(got.len().min(o.txns.len()));
                return Err(format!(
                    "{what}: grail read {} transactions, the oracle {}; first difference at {i}:\n grail  {:?}\n oracle {:?}",
                    got.len(),
                    o.txns.len(),
                    got.get(i),
                    o.txns.get(i)
                ));
            }
            if h.model != o.model {
                return Err(format!("{what}: grail says {:?}, the oracle {:?}", h.model, o.model));
            }
            Ok(got.len())
        }
        (Err(Reject(kind, _)), Err(e)) if kind == e.kind || kind == ErrorKind::Syntax => Ok(0),
        (Err(Reject(kind, why)), Err(e)) => {
            Err(format!("{what}: both reject, the oracle as {kind:?} ({why}), grail as {e}"))
        }
        (Err(Reject(kind, why)), Ok(h)) => {
            Err(format!("{what}: the oracle rejects ({kind:?}: {why}); grail read {} transactions", h.txns.len()))
        }
        (Ok(o), Err(e)) => Err(format!("{what}: grail rejects ({e}); the oracle read {} transactions", o.txns.len())),
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus.

fn edn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.is_dir() {
            edn_files(&p, out);
        } else if name.ends_with(".edn") || name.ends_with(".edn.gz") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_agrees_with_clojure_reader() {
    let Some(corpus) = common::corpus() else { return };
    let mut files = Vec::new();
    edn_files(&corpus, &mut files);
    // The README's folders must all be there: a walk that finds little must not pass.
    for sub in
        ["grail/list", "grail/reg-max-write", "grail/tiny-list", "grail/tiny-register", "grail/anti-patterns", "elle"]
    {
        let n = files.iter().filter(|f| f.starts_with(corpus.join(sub))).count();
        assert!(n > 0, "no EDN file under {sub}");
    }
    assert!(files.len() >= 140, "only {} EDN files in the corpus", files.len());
    let (mut failures, mut txns, mut bytes) = (Vec::new(), 0usize, 0usize);
    for f in &files {
        let raw = common::slurp(f);
        bytes += raw.len();
        let text = String::from_utf8(raw).unwrap_or_else(|e| panic!("{}: not UTF-8: {e}", f.display()));
        let what = f.strip_prefix(&corpus).unwrap_or(f).display().to_string();
        // Every corpus history is meant to read: rejections by both sides are failures here.
        if let Err(e) = oracle(&text) {
            failures.push(format!("{what}: the oracle rejects it: {e:?}"));
            continue;
        }
        match agree(&what, &text) {
            Ok(0) => failures.push(format!("{what}: no transaction")),
            Ok(n) => txns += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{} of {} files disagree:\n{}", failures.len(), files.len(), failures.join("\n"));
    eprintln!("edn_oracle: {} files, {} MB, {txns} transactions agree", files.len(), bytes / 1_000_000);
}

// ---------------------------------------------------------------------------------------------
// Generated histories that stray from Jepsen's habits.

fn sep() -> impl Strategy<Value = &'static str> {
    prop::sample::select(
        &[
            " ",
            " ",
            " ",
            ",",
            ", ",
            "\n",
            "\t",
            "\r\n",
            " ; comment [ { \" \n",
            " #_ :discarded ",
            " #_[1 {:a 2}] ",
            " #_ #_ x y ",
        ][..],
    )
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9?!*-]{0,4}(/[a-z]{1,3})?".prop_filter("reserved", |s| !matches!(s.as_str(), "nil" | "true" | "false"))
}

fn edn_string() -> impl Strategy<Value = String> {
    "([a-zé ;\\[\\]{}()#:,]|\\\\\"|\\\\\\\\|\\\\n|\\\\t|\n){0,6}".prop_map(|s| format!("\"{s}\""))
}

/// A scalar grail may take as a key or value, or not (floats, characters, tagged values).
fn scalar_form() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (-5i64..50).prop_map(|i| i.to_string()),
        1 => any::<i64>().prop_map(|i| i.to_string()),
        2 => ident().prop_map(|s| format!(":{s}")),
        2 => ident(),
        2 => edn_string(),
        1 => Just("nil".to_string()),
        1 => prop::sample::select(&["true", "false", "1.5", "-0.25", "\\a", "\\newline", "#inst \"2020-01-01\"", "1/2", "#{}", "{}"][..]).prop_map(str::to_string),
    ]
}

/// Any EDN form, nested a little.
fn any_form() -> impl Strategy<Value = String> {
    scalar_form().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(" "))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("({})", v.join(", "))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!(
                "{{{}}}",
                v.iter().enumerate().map(|(i, x)| format!(":k{i} {x}")).collect::<Vec<_>>().join(" ")
            )),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!(
                "#{{{}}}",
                v.iter().enumerate().map(|(i, x)| format!("[{i} {x}]")).collect::<Vec<_>>().join(" ")
            )),
            inner.prop_map(|x| format!("#my/tag {x}")),
        ]
    })
}

/// A micro-operation, mostly well-formed for `model` (true: list-append). `w` weighs the
/// well-formed choices against the odd ones: 1 in a wild history, 100 in a tame one.
fn micro_form(list: bool, w: u32) -> impl Strategy<Value = String> {
    let f = if list {
        prop_oneof![3 => Just(":append"), 3 => Just(":r"), 1 => Just("append"), 1 => Just("r")].boxed()
    } else {
        prop_oneof![3 => Just(":w"), 3 => Just(":r"), 1 => Just("write"), 1 => Just("read")].boxed()
    };
    let read_list =
        prop::collection::vec(prop_oneof![6 => (0i64..20).prop_map(|i| i.to_string()), 1 => scalar_form()], 0..5)
            .prop_map(|v| format!("[{}]", v.join(" ")));
    let list_ok = list;
    prop_oneof![
        12 * w => (f, prop_oneof![4 * w => (0i64..5).prop_map(|i| i.to_string()), 1 => scalar_form()], prop_oneof![2 * w => (0i64..30).prop_map(|i| i.to_string()), 1 => scalar_form(), w => read_list])
            .prop_map(move |(f, k, v)| {
                // A list read of a register, or a scalar read of a list, would mix the models.
                let v = match (f.ends_with('r') || f == "read", v.starts_with('[')) {
                    (true, is_list) if is_list == list_ok || v == "nil" => v,
                    (true, _) => "nil".to_string(),
                    (false, true) => "7".to_string(), // a write of a vector is no transaction
                    (false, false) => v,
                };
                format!("[{f} {k} {v}]")
            }),
        1 => any_form().prop_map(|x| format!("[:cas 1 {x}]")),
        1 => prop::collection::vec(scalar_form(), 0..5).prop_map(|v| format!("[{}]", v.join(" "))),
    ]
}

fn value_form(list: bool, w: u32) -> impl Strategy<Value = String> {
    prop_oneof![
        12 * w => prop::collection::vec(micro_form(list, w), 0..5).prop_map(|v| format!("[{}]", v.join(" "))),
        w => prop::collection::vec(micro_form(list, w), 0..3).prop_map(|v| format!("({})", v.join(" "))),
        w => Just("nil".to_string()),
        2 => any_form(),
    ]
}

/// One operation map: `(key, form)` pairs, some optional.
fn op_form(list: bool, w: u32) -> impl Strategy<Value = Vec<(String, String)>> {
    (
        prop_oneof![40 * w => prop::sample::select(&[":invoke", ":ok", ":fail", ":info"][..]).prop_map(str::to_string), 1 => Just(":crash".to_string()), 1 => Just("\"ok\"".to_string())],
        prop_oneof![12 => (0i64..4).prop_map(|p| p.to_string()), 2 => Just(":nemesis".to_string()), 1 => Just("nil".to_string()), 1 => Just("\"p\"".to_string())],
        prop_oneof![6 * w => Just(":txn"), 1 => Just(":read"), 1 => Just("\"txn\"")],
        value_form(list, w),
        prop_oneof![20 * w => Just(true), 1 => Just(false)],
        prop::collection::vec((prop::sample::select(&[":node", ":error", ":debug", ":extra", "\"str-key\"", "[1 2]"][..]), any_form()), 0..3),
        (any::<u8>(), any::<u8>()),
    )
        .prop_map(|(ty, process, f, value, with_type, extras, (mask, order))| {
            let mut kv: Vec<(String, String)> = Vec::new();
            if with_type {
                kv.push((":type".into(), ty));
            }
            if mask & 1 != 0 {
                kv.push((":process".into(), process));
            }
            if mask & 2 != 0 {
                kv.push((":f".into(), f.into()));
            }
            if mask & 12 != 0 {
                kv.push((":value".into(), value));
            }
            if mask & 16 != 0 {
                kv.push((":time".into(), format!("{}", u32::from(mask) * 1000 + u32::from(order))));
            }
            let mut seen = std::collections::HashSet::new();
            for (k, v) in extras {
                if seen.insert(k) {
                    kv.push((k.to_string(), v));
                }
            }
            let n = kv.len().max(1);
            kv.rotate_left(usize::from(order) % n);
            kv
        })
}

/// A whole history: maps in one vector or one after another, `:index` on all, some or none.
fn history_form() -> impl Strategy<Value = String> {
    (any::<bool>(), prop::bool::weighted(0.3)).prop_flat_map(|(list, wild)| {
        let w = if wild { 1 } else { 100 };
        (prop::collection::vec((op_form(list, w), sep(), sep()), 0..25), any::<bool>(), 0u8..3).prop_map(
            |(ops, vector, indexing)| {
                let mut out = String::new();
                if vector {
                    out.push('[');
                }
                for (i, (kv, s1, s2)) in ops.iter().enumerate() {
                    out.push('{');
                    for (j, (k, v)) in kv.iter().enumerate() {
                        if j > 0 {
                            out.push_str(s1);
                        }
                        out.push_str(k);
                        out.push_str(s2);
                        out.push_str(v);
                    }
                    // Indices: on every map (increasing), on none, or on every other map.
                    if indexing == 1 || (indexing == 2 && i % 2 == 0) {
                        out.push_str(&format!(" :index {}", i * 2));
                    }
                    out.push('}');
                    out.push_str(if vector { s1 } else { "\n" });
                }
                if vector {
                    out.push(']');
                }
                out
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() })]

    /// Generated histories: both sides agree (or both reject them).
    #[test]
    fn generated_histories_agree(text in history_form()) {
        if let Err(e) = agree("generated", &text) {
            return Err(TestCaseError::fail(format!("{e}\n--- input ---\n{text}")));
        }
        // Odd histories (ids that repeat, empty transactions) must check without panicking.
        if let Ok(h) = grail_core::read(text.as_bytes(), Format::Edn) {
            let opts = grail_core::CheckOptions { max_steps: Some(20_000), ..Default::default() };
            prop_assert_eq!(grail_core::check(&h, &opts).levels.0.len(), 5);
        }
    }
}

/// The generator above must mostly make histories that read, with transactions in them.
#[test]
fn generated_histories_mostly_read() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut read, mut txns, mut statuses) = (0, 0, BTreeMap::new());
    for _ in 0..300 {
        let text = history_form().new_tree(&mut runner).unwrap().current();
        if let Ok(o) = oracle(&text) {
            read += 1;
            txns += o.txns.len();
            for t in &o.txns {
                *statuses.entry(format!("{:?}", t.status)).or_insert(0) += 1;
            }
        }
    }
    assert!(read >= 100, "only {read} of 300 generated histories read");
    assert!(txns >= 1000, "only {txns} transactions in 300 generated histories");
    assert_eq!(statuses.len(), 3, "statuses seen: {statuses:?}");
}

/// The oracle itself on a few histories whose transactions are known by hand.
#[test]
fn oracle_reads_known_histories() {
    let o = oracle(
        "{:type :invoke, :process 0, :value [[:append x 1] [:r x nil]], :index 0}\n\
         {:type :info, :process :nemesis, :f :kill, :value nil, :index 1}\n\
         {:type :ok, :process 0, :value [[:append x 1] [:r x [1]]], :index 2}\n\
         {:type :invoke, :process 1, :value [[:r y nil]], :index 3}\n\
         {:type :invoke, :process 2, :f :read, :value nil, :index 4}\n\
         {:type :ok, :process 2, :f :read, :value 7, :index 5}",
    )
    .unwrap();
    let x = || V::Str("x".into());
    assert_eq!(
        o.txns,
        vec![
            XTxn {
                id: 2,
                process: Some(0),
                status: Status::Committed,
                ops: vec![XOp::Append(x(), V::Int(1)), XOp::Read(x(), Res::List(vec![V::Int(1)]))],
                invoke_time: None,
                complete_time: None,
            },
            XTxn {
                id: 3,
                process: Some(1),
                status: Status::Indeterminate,
                ops: vec![XOp::Read(V::Str("y".into()), Res::Nil)],
                invoke_time: None,
                complete_time: None,
            },
        ]
    );
    assert_eq!(o.model, Model::ListAppend);
    assert!(oracle("{:type :ok, :value [[:append 1 1]]} {:type :ok, :value [[:w 1 1]]}").is_err());
    assert!(oracle("{:type :ok, :value 5}").is_err());
    assert!(oracle("[{:type :ok, :value []}").is_err());
}

/// Forms grail does not need are skipped wherever they stand: discards before a key, tagged
/// literals, sets, characters, namespaced keywords.
#[test]
fn discards_and_odd_forms_agree() {
    for text in [
        "{#_ :x :type :ok, :value [[:r 1 [1]]]}",
        "{:type #_ :x :ok, :value [[:r 1 [1]] #_ [:r 2 [2]]]}",
        "{:type :ok #_#_ :a :b, :value [[:r 1 #_ 5 [1 #_ 2]]]}",
        "[#_ {:type :ok} {:type :ok, :value [[:append 1 2]], :at #inst \"2020\", :s #{1 2}, :c \\{}]",
        "{:type :ok, :value [[:append :ns/k :v/x]]}",
        "#_ {:type :crash}\n{:type :ok, :value [[:w 1 2]]}\n#_ x",
    ] {
        agree(text, text).unwrap();
        assert!(oracle(text).unwrap().txns.len() == 1, "{text}");
    }
}
