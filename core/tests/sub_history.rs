//! Sub-histories written as EDN from a history (`export::edn::sub_history`) read back to the
//! same transactions (id, status, process, label, operations), whatever the input format.

use grail_core::export::edn::sub_history;
use grail_core::generate::{generate, DataModel, GenOptions, Injection, Output};
use grail_core::history::{Arg, History, TxnId};
use grail_core::{read, Format};

/// A transaction as text that does not depend on how the history stores it.
fn txn_repr(h: &History, t: TxnId) -> String {
    let txn = &h.txns[t as usize];
    let ops: Vec<String> = h
        .ops_of(t)
        .iter()
        .map(|op| {
            let arg = match op.arg() {
                Arg::Nil => "nil".to_string(),
                Arg::Val(v) => h.plain(v) + kind_of(v),
                _ => format!("{:?}", h.list(op).iter().map(|&v| h.plain(v) + kind_of(v)).collect::<Vec<_>>()),
            };
            format!("{:?} {}{} {arg}", op.kind(), h.plain(h.key(op.key)), kind_of(h.key(op.key)))
        })
        .collect();
    format!("{} {:?} {:?} {:?} {ops:?}", txn.id, txn.status, txn.process(), h.label(t))
}

/// Integers and strings that print alike (`1`, `"1"`) stay apart.
fn kind_of(v: grail_core::history::Value) -> &'static str {
    match v {
        grail_core::history::Value::Int(_) => "",
        grail_core::history::Value::Str(_) => "$",
    }
}

/// Write `pick` of `h` as EDN, read it back, and compare the transactions.
fn round_trip(h: &History, pick: &[TxnId]) {
    let text = sub_history(h, pick, Some("a sub-history\nfor a test"));
    assert!(text.starts_with("; a sub-history\n; for a test\n"));
    let back = read(text.as_bytes(), Format::Edn).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut want: Vec<String> = pick.iter().map(|&t| txn_repr(h, t)).collect();
    let mut got: Vec<String> = (0..back.txns.len() as TxnId).map(|t| txn_repr(&back, t)).collect();
    want.sort();
    want.dedup();
    got.sort();
    assert_eq!(got, want, "{text}");
}

#[test]
fn generated_histories_of_every_output_read_back_alike() {
    for (model, output) in [
        (DataModel::ListAppend, Output::Edn),
        (DataModel::ListAppend, Output::Native),
        (DataModel::RwRegister, Output::Edn),
        (DataModel::RwRegister, Output::Native),
    ] {
        let o = GenOptions {
            transactions: 300,
            model,
            output,
            abort_rate: 0.1,
            inject: vec![(Injection::LostUpdate, 2), (Injection::WriteSkew, 1)],
            ..GenOptions::default()
        };
        let h = read(generate(&o).history.as_bytes(), Format::Auto).unwrap();
        let all: Vec<TxnId> = (0..h.txns.len() as TxnId).collect();
        round_trip(&h, &all);
        let some: Vec<TxnId> = all.iter().copied().filter(|t| t % 7 == 3 || t % 11 == 0).chain([5, 5, 9999]).collect();
        round_trip(&h, &some.into_iter().filter(|&t| (t as usize) < h.txns.len()).collect::<Vec<_>>());
    }
}

#[test]
fn strings_labels_and_indeterminate_transactions() {
    let edn = r#"{:index 1, :type :ok, :process 0, :f :transfer, :value [[:append "a b" 1] [:append nil-ish 2] [:r "nil" [3]]]}
{:index 2, :type :fail, :label "quote \" and \\ and é", :value [[:append :kw 1] [:r "12" nil]]}
{:index 3, :type :invoke, :process 4, :value [[:append "line\nbreak" 5]]}
{:index 4, :type :ok, :process 5, :value [[:append "nil" 3] [:r "true" [1 2 3 4 5 6 7 8 9]]]}
"#;
    let h = read(edn.as_bytes(), Format::Edn).unwrap();
    let all: Vec<TxnId> = (0..h.txns.len() as TxnId).collect();
    round_trip(&h, &all);
    let text = sub_history(&h, &all, None);
    // Written in invocation order; strings bare only where they read back as themselves.
    assert_eq!(
        text,
        r#"{:index 1, :type :ok, :process 0, :label "transfer", :value [[:append "a b" 1] [:append nil-ish 2] [:r "nil" [3]]]}
{:index 2, :type :fail, :label "quote \" and \\ and é", :value [[:append kw 1] [:r "12" nil]]}
{:index 3, :type :info, :process 4, :value [[:append "line\nbreak" 5]]}
{:index 4, :type :ok, :process 5, :value [[:append "nil" 3] [:r "true" [1 2 3 4 5 6 7 8 9]]]}
"#
    );

    let native = r#"{"transactions": [{"id": 7, "session": 1, "ops": [["w", "x", 1], ["r", "y", null]], "label": "audit"},
        {"id": 9, "status": "indeterminate", "ops": [["w", "y", 2]]}]}"#;
    let h = read(native.as_bytes(), Format::Json).unwrap();
    round_trip(&h, &[0, 1]);
    assert_eq!(
        sub_history(&h, &[1], None),
        "{:index 9, :type :info, :value [[:w y 2]]}\n",
        "a register history's nil read and a native id"
    );
}

/// A sub-history with its invocations gives every record an `:index`, each its own: Elle's
/// loader (`jepsen.history/history`) takes the first record's `:index` to say whether all have
/// one and pairs records by them. A completion without a recorded invocation first, then an
/// invocation whose input position is another record's index (a sparse history).
#[test]
fn a_sub_history_with_invocations_indexes_every_record_once() {
    let edn = "{:index 3, :type :ok, :process 0, :value [[:append x 1]]}
{:index 4, :type :invoke, :process 1, :value [[:r x nil]]}
{:index 5, :type :ok, :process 1, :value [[:r x []]]}
{:index 6, :type :invoke, :process 2, :value [[:append y 1]]}
{:index 7, :type :ok, :process 2, :value [[:append y 1]]}
";
    let h = read(edn.as_bytes(), Format::Edn).unwrap();
    let all: Vec<TxnId> = (0..h.txns.len() as TxnId).collect();
    let text = grail_core::export::edn::sub_history_events(&h, &all, None);
    let mut indices: Vec<u64> = text
        .lines()
        .map(|l| {
            let at = l.find(":index ").unwrap_or_else(|| panic!("no :index in {l}\n{text}")) + 7;
            l[at..].split(',').next().unwrap().parse().unwrap()
        })
        .collect();
    // The invocations are the input's records 1 and 3 (from 0); 3 is also a completion's id, so
    // the second invocation takes the next number past every index.
    assert_eq!(indices, [3, 1, 5, 8, 7], "{text}");
    indices.sort_unstable();
    indices.dedup();
    assert_eq!(indices.len(), 5, "{text}");
    let back = read(text.as_bytes(), Format::Edn).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ids: Vec<u64> = back.txns.iter().map(|t| t.id).collect();
    assert_eq!(ids, [3, 5, 7], "{text}");
}
