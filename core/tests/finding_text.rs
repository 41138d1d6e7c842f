//! The sentences of read findings say only what the history shows.

use grail_core::{check, read, CheckOptions, Format, Level};

/// The explanations of the findings of `kind`, checked at CC (which forbids every one here).
fn texts(text: &str, format: Format, kind: &str) -> Vec<String> {
    let h = read(text.as_bytes(), format).unwrap();
    let r = check(&h, &CheckOptions { levels: vec![Level::Cc], ..CheckOptions::default() });
    r.anomalies.iter().filter(|f| f.kind == kind).map(|f| f.explanation.clone()).collect()
}

fn internal_texts(text: &str, format: Format) -> Vec<String> {
    texts(text, format, "internal")
}

/// Two reads of a key that disagree, with no write between them: the sentence names no writes
/// (it said "and the writes it made since" of a transaction that wrote nothing to the key).
#[test]
fn an_internal_read_names_writes_only_where_the_transaction_made_them() {
    let t = internal_texts("w(1,1,1,1)\nw(1,2,1,2)\nr(1,1,2,3)\nr(1,2,2,3)\n", Format::Plume);
    assert_eq!(t.len(), 1, "{t:?}");
    assert!(t[0].ends_with("which disagrees with its own earlier r(1,1,2,3)"), "{}", t[0]);
    let t = internal_texts(
        "{:index 0, :type :ok, :process 0, :value [[:w x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r x 1] [:w y 5] [:r x 2]]}\n{:index 2, :type :ok, :process 2, :value [[:w x 2]]}\n",
        Format::Edn,
    );
    assert_eq!(t.len(), 1, "{t:?}");
    assert!(!t[0].contains("writes"), "a write to another key is not one: {}", t[0]);
    let t = internal_texts(
        "{:index 0, :type :ok, :process 0, :value [[:append x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r x [1]] [:append x 2] [:r x [1 3]]]}\n{:index 2, :type :ok, :process 2, :value [[:append x 3]]}\n",
        Format::Edn,
    );
    assert_eq!(t.len(), 1, "{t:?}");
    assert!(t[0].contains("and the writes it made to the key since"), "{}", t[0]);
}

fn g1a_texts(text: &str, format: Format) -> Vec<String> {
    texts(text, format, "G1a")
}

/// The writes a format lists outside any transaction (Plume's `txn = -1`, dbcop's writes that
/// did not succeed) are gathered into one aborted transaction whose id is grail's: the sentence
/// says so (it named `T9007199254740991` as though the input had such a transaction). A
/// transaction the input has keeps its plain sentence.
#[test]
fn an_aborted_read_of_gathered_writes_says_what_their_transaction_is() {
    let plume = g1a_texts("w(1,1,0,0)\nr(1,2,1,1)\nw(1,2,0,-1)\n", Format::Plume);
    assert_eq!(plume.len(), 1, "{plume:?}");
    assert!(
        plume[0].starts_with("T1 read 2 of key 1, an aborted write, which the history gives no transaction of its own (grail gathers such writes into one aborted transaction, T9007199254740991)"),
        "{}",
        plume[0]
    );
    let dbcop = r#"{"params": {}, "info": "", "start": "", "end": "", "data": [[{"events": [{"write": true, "variable": 1, "value": 2, "success": false}], "success": true}], [{"events": [{"write": false, "variable": 1, "value": 2, "success": true}], "success": true}]]}"#;
    let dbcop = g1a_texts(dbcop, Format::Dbcop);
    assert_eq!(dbcop.len(), 1, "{dbcop:?}");
    assert!(
        dbcop[0].contains("grail gathers such writes into one aborted transaction, T9007199254740991"),
        "{}",
        dbcop[0]
    );
    let edn = g1a_texts(
        "{:index 0, :type :fail, :process 0, :value [[:w x 2]]}\n{:index 1, :type :ok, :process 1, :value [[:r x 2]]}\n",
        Format::Edn,
    );
    assert_eq!(edn.len(), 1, "{edn:?}");
    assert!(edn[0].starts_with("T1 read 2 of key x, written by T0, which aborted"), "{}", edn[0]);
}
