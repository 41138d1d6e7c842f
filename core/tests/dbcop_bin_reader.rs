//! The dbcop bincode reader's short path (layout read by hand, straight into the builder) gives
//! what serde and bincode gave (`read_dbcop_bin_serde`, kept as the oracle): the same history or
//! the same error, on random histories (writes and reads of 0, events and transactions that did
//! not succeed, empty sessions and transactions), cut at any byte, with any byte changed, with
//! bytes after the history, with lengths past the end.

mod common;

use grail_core::read::{read_dbcop_bin, read_dbcop_bin_fast, read_dbcop_bin_serde};
use proptest::prelude::*;

use common::{DbcopEvent as BinEvent, DbcopSession as Session};

/// dbcop's `History` in bincode: params 7, n, 3, 4, 5, then `info` and the sessions.
fn encode(info: &str, sessions: &[Session]) -> Vec<u8> {
    common::dbcop_bincode(7, [3, 4, 5], info, sessions)
}

fn compare(data: &[u8], what: &str) -> bool {
    let want = read_dbcop_bin_serde(data);
    match (&read_dbcop_bin(data), &want) {
        (Ok(a), Ok(b)) => {
            common::assert_same_history(a, b, what);
            // What serde reads, the short path reads.
            assert!(read_dbcop_bin_fast(data).is_some(), "{what}: left to serde");
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{what}"),
        (a, b) => panic!("{what}: {:?} against serde's {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    want.is_ok()
}

fn event() -> impl Strategy<Value = BinEvent> {
    // Small variables and values, 0 often (the initial value), and a few huge ones.
    let num = prop_oneof![4 => 0u64..4, 1 => any::<u64>()];
    (any::<bool>(), num.clone(), num, prop::bool::weighted(0.85))
}

fn history() -> impl Strategy<Value = Vec<Session>> {
    let txn = (prop::collection::vec(event(), 0..5), prop::bool::weighted(0.85));
    prop::collection::vec(prop::collection::vec(txn, 0..6), 0..4)
}

#[test]
fn fixed_cases_read_alike() {
    let ok = encode("x", &[vec![(vec![(true, 1, 5, true), (false, 1, 0, true)], true)]]);
    assert!(compare(&ok, "one transaction"));
    assert!(compare(&encode("", &[]), "no sessions"));
    assert!(compare(&encode("x", &[vec![], vec![(vec![], false)]]), "empty"));
    assert!(compare(&encode("x", &[vec![(vec![(true, 1, 0, true)], true)]]), "only a write of 0"));
    assert!(compare(&encode("x", &[vec![(vec![(true, 1, 3, false), (true, 2, 0, false)], true)]]), "aborted writes"));
    assert!(compare(&encode("x", &[vec![(vec![(false, 1, 0, true)], true)]]), "only a nil read"));
    assert!(!compare(&encode("\u{e9}", &[])[..45], "a string cut inside a character"));
    let mut bad = ok.clone();
    bad.push(0);
    assert!(!compare(&bad, "a byte after the history"));
    let mut bad = ok.clone();
    bad[40] = 0xff; // info's length
    assert!(!compare(&bad, "a string longer than the file"));
    let mut bad = ok.clone();
    let n = bad.len();
    bad[n - 1] = 2;
    assert!(!compare(&bad, "a boolean 2"));
    for cut in 0..ok.len() {
        assert!(!compare(&ok[..cut], &format!("cut at {cut}")));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_histories_read_alike(h in history(), info in "\\PC{0,3}") {
        prop_assert!(compare(&encode(&info, &h), "a random history"));
    }

    /// Any byte changed (often to 0, 1 or 2, which keeps lengths and booleans plausible), cut,
    /// or bytes added.
    #[test]
    fn damaged_histories_read_alike(
        h in history(),
        at in any::<usize>(),
        byte in prop_oneof![0u8..3, any::<u8>()],
        cut in any::<usize>(),
        how in 0u8..4,
    ) {
        let mut b = encode("info", &h);
        let n = b.len();
        match how {
            0 => b[at % n] = byte,
            1 => b.truncate(cut % (n + 1)),
            2 => b.extend_from_slice(&[byte; 3][..1 + at % 3]),
            _ => {
                b[at % n] = byte;
                b.truncate(cut % (n + 1));
            }
        }
        compare(&b, &format!("{how}: byte {byte} at {}, cut {}", at % n, cut % (n + 1)));
    }
}
