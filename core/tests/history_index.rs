//! The history's index and external reads, on histories read from text and generated: a test of
//! `history` that needs the layers above it (`read`, `generate`), so it lives here, not in
//! `history`'s own unit tests (`tests/layering.rs`).

use grail_core::generate::{generate, GenOptions};
use grail_core::history::{Arg, History, Index, KeyId, OpKind, TxnId, Value, WriteInfo};
use grail_core::read::{read, Format};
use std::collections::HashMap;

type FirstWrites = HashMap<(KeyId, Value), WriteInfo>;

/// The writes as a map built one operation at a time: the first write of each (key, value)
/// in input order, the later ones duplicates.
fn naive(h: &History) -> (FirstWrites, Vec<(WriteInfo, WriteInfo)>) {
    let (mut first, mut dups) = (HashMap::new(), Vec::new());
    for (t, txn) in h.txns.iter().enumerate() {
        for o in txn.ops_start..txn.ops_end {
            let op = h.ops[o as usize];
            let (OpKind::Write | OpKind::Append, Arg::Val(v)) = (op.kind(), op.arg()) else { continue };
            let later = &h.ops[o as usize + 1..txn.ops_end as usize];
            let last =
                !later.iter().any(|p| p.key == op.key && p.kind() != OpKind::Read && matches!(p.arg(), Arg::Val(_)));
            let w = WriteInfo { txn: t as TxnId, op: o, last };
            match first.get(&(op.key, v)) {
                Some(&f) => dups.push((f, w)),
                None => {
                    first.insert((op.key, v), w);
                }
            }
        }
    }
    (first, dups)
}

#[test]
fn op_txn_is_each_operations_transaction() {
    let naive = |h: &History| {
        let mut v = vec![0 as TxnId; h.ops.len()];
        for t in 0..h.txns.len() as TxnId {
            v[h.op_range(t)].fill(t);
        }
        v
    };
    let text = generate(&GenOptions { transactions: 40_000, ..Default::default() }).history;
    let mut h = read(text.as_bytes(), Format::Edn).unwrap();
    assert_eq!(Index::new(&h).op_txn, naive(&h));
    // Transactions whose operations are not in transaction order take the one-thread pass.
    let last = h.txns.len() - 1;
    h.txns.swap(1, last);
    assert_eq!(Index::new(&h).op_txn, naive(&h));
    h.txns.pop();
    assert_eq!(Index::new(&h).op_txn, naive(&h));
}

#[test]
fn writes_equal_a_map_built_op_by_op() {
    let gen = generate(&GenOptions { transactions: 30_000, max_writes_per_key: 8, ..Default::default() }).history;
    // Two appends of a value already written: duplicates, in input order.
    let text =
        format!("{gen}\n{{:type :ok, :f :txn, :value [[:append 1 1] [:append 2 7] [:append 1 1]], :process 0}}\n");
    let h = read(text.as_bytes(), Format::Edn).unwrap();
    let index = Index::new(&h);
    let (first, mut dups) = naive(&h);
    assert_eq!(index.writes.iter().count(), first.len());
    for (kv, w) in index.writes.iter() {
        assert_eq!(first.get(&kv), Some(&w), "{kv:?}");
        assert_eq!(index.writes.get(&kv), Some(w));
    }
    let mut got = index.duplicates.clone();
    let by_op = |d: &(WriteInfo, WriteInfo)| (d.1.op, d.0.op);
    got.sort_by_key(by_op);
    dups.sort_by_key(by_op);
    assert!(dups.len() >= 2);
    assert_eq!(got, dups);
}

/// Reads of a key before the transaction's own write to it, and of keys it never wrote.
#[test]
fn external_reads_are_those_before_the_transactions_own_write() {
    let text = "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 1] [:r :x 1] [:r :y nil] [:w :y 2] [:r :z nil]], :process 0}\n\
                {:type :ok, :f :txn, :value [[:w :x 3] [:r :y 2]], :process 1}";
    let h = read(text.as_bytes(), Format::Edn).unwrap();
    assert_eq!(h.external_reads(0).collect::<Vec<_>>(), [0, 3, 5]);
    assert_eq!(h.external_reads(1).collect::<Vec<_>>(), [7]);
    assert_eq!(h.external_reads(2).count(), 0, "past the last transaction");
}
