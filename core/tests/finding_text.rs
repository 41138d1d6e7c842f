//! The sentences of read findings say only what the history shows.

use grail_core::{check, read, CheckOptions, Format, Level};

fn internal_texts(text: &str, format: Format) -> Vec<String> {
    let h = read(text.as_bytes(), format).unwrap();
    let r = check(&h, &CheckOptions { levels: vec![Level::Cc], ..CheckOptions::default() });
    r.anomalies.iter().filter(|f| f.kind == "internal").map(|f| f.explanation.clone()).collect()
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
