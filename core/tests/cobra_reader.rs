//! The Cobra reader gives what it gave before it read its logs in pieces straight into the
//! builder (the oracle in `common/cobra_oracle.rs`): the same history and the same error, on
//! generated logs, whole and in pieces of 1, 100 and 4096 bytes (on several threads with the
//! feature `parallel`), cut at any byte or with any byte changed (bad tags, truncated records,
//! a commit without its start or of another transaction, reads of the initial transaction).

#[path = "common/cobra_oracle.rs"]
mod cobra_oracle;
mod common;

use cobra_oracle::read_cobra_oracle;
use grail_core::read::{read_cobra, read_cobra_in_pieces};
use grail_core::{Error, History};
use proptest::prelude::*;

const INIT: i64 = 0xbebe_ebee;
const NULL: i64 = 0xdead_beef;

fn same(a: &Result<History, Error>, b: &Result<History, Error>, what: &str) {
    match (a, b) {
        (Ok(a), Ok(b)) => common::assert_same_history(a, b, what),
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{what}"),
        (a, b) => panic!("{what}: {:?} against the oracle's {:?}", a.as_ref().err(), b.as_ref().err()),
    }
}

/// The reader, whole and in pieces, against the oracle; whether it read a history.
fn compare(files: &[Vec<u8>], what: &str) -> bool {
    compare_in(files, what, &[1, 100, 4096])
}

/// [`compare`] with pieces of these sizes.
fn compare_in(files: &[Vec<u8>], what: &str, pieces: &[usize]) -> bool {
    let files: Vec<&[u8]> = files.iter().map(|f| f.as_slice()).collect();
    let want = read_cobra_oracle(&files);
    same(&read_cobra(&files), &want, what);
    for &piece in pieces {
        same(&read_cobra_in_pieces(&files, piece), &want, &format!("{what}, pieces of {piece}"));
    }
    want.is_ok()
}

/// A small generator (xorshift): `sessions` logs of `txns` transactions each, over `keys` keys,
/// with open transactions, reads of the initial value and of the collector's markers, and (when
/// `dup`) a transaction id used twice.
fn logs(seed: u64, sessions: usize, txns: usize, keys: i64, dup: bool) -> Vec<Vec<u8>> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let put = |b: &mut Vec<u8>, v: i64| b.extend_from_slice(&v.to_be_bytes());
    let mut written: Vec<(i64, i64, i64)> = Vec::new(); // (writer txn, write id, key)
    let (mut id, mut wid) = (1i64, 1i64);
    let mut out = Vec::new();
    for _ in 0..sessions {
        let mut b = Vec::new();
        for _ in 0..txns {
            b.push(b'S');
            put(&mut b, if dup && id == 3 { 2 } else { id });
            for _ in 0..next() % 5 {
                let key = (next() % keys as u64) as i64;
                if next() % 2 == 0 {
                    b.push(b'W');
                    put(&mut b, wid);
                    put(&mut b, key);
                    put(&mut b, (next() % 100) as i64);
                    written.push((id, wid, key));
                    wid += 1;
                } else {
                    let (wt, w, k) = match next() % 8 {
                        0 => (INIT, INIT, key),
                        1 => (NULL, NULL, key),
                        2 => (INIT, 0x2333_2333, key),
                        _ if !written.is_empty() => written[(next() % written.len() as u64) as usize],
                        _ => (INIT, NULL, key),
                    };
                    b.push(b'R');
                    for v in [wt, w, k, 0] {
                        put(&mut b, v);
                    }
                }
            }
            if next() % 10 != 0 {
                b.push(b'C');
                put(&mut b, id);
            }
            id += 1;
        }
        out.push(b);
    }
    out
}

#[test]
fn generated_logs_read_as_before() {
    for seed in 1..20 {
        for sessions in [1, 3] {
            let files = logs(seed, sessions, 200, 10, false);
            assert!(compare(&files, &format!("seed {seed}, {sessions} logs")));
        }
    }
    assert!(!compare(&logs(1, 2, 20, 5, true), "an id twice"));
    assert!(compare(&[], "no logs"));
    assert!(compare(&[Vec::new(), Vec::new()], "empty logs"));
}

/// Logs large enough that `read_cobra` itself reads them in pieces on the pool (pieces of a
/// byte, a transaction each, took seconds on a busy machine: the small logs have them).
#[test]
fn large_logs_read_as_before() {
    let files = logs(7, 4, 40_000, 1000, false);
    assert!(files.iter().map(|f| f.len()).sum::<usize>() > 4 << 20);
    assert!(compare_in(&files, "four large logs", &[4096]));
    assert!(compare_in(&[files.concat()], "one large log", &[4096]));
    // A bad tag in the middle of a large log, and in its last piece.
    let mut one = files.concat();
    let half = files[0].len() + files[1].len();
    for at in [half, one.len()] {
        let mut bad = one.clone();
        bad.insert(at, b'Q');
        assert!(!compare_in(&[bad], &format!("a bad tag at byte {at}"), &[4096]));
    }
    let n = one.len();
    one.truncate(n - 5);
    assert!(!compare_in(&[one], "a truncated large log", &[4096]));
}

#[test]
fn broken_logs_give_the_oracles_errors() {
    let rec = |tag: u8, vals: &[i64]| {
        let mut b = vec![tag];
        for v in vals {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("bad tag", [rec(b'S', &[1]), vec![b'Q']].concat()),
        ("truncated S", rec(b'S', &[1])[..5].to_vec()),
        ("truncated R", [rec(b'S', &[1]), rec(b'R', &[1, 2, 3, 4])[..20].to_vec()].concat()),
        ("W without S", rec(b'W', &[1, 2, 3])),
        ("C without S", rec(b'C', &[1])),
        ("C twice", [rec(b'S', &[1]), rec(b'C', &[1]), rec(b'C', &[1])].concat()),
        ("C of another", [rec(b'S', &[1]), rec(b'C', &[2])].concat()),
        ("R after C", [rec(b'S', &[1]), rec(b'C', &[1]), rec(b'R', &[INIT, INIT, 1, 0])].concat()),
        ("bad initial read", [rec(b'S', &[1]), rec(b'R', &[INIT, 5, 1, 0])].concat()),
        ("S left open", [rec(b'S', &[1]), rec(b'W', &[1, 1, 1]), rec(b'S', &[2]), rec(b'C', &[2])].concat()),
        ("only nil reads", [rec(b'S', &[1]), rec(b'R', &[NULL, NULL, 1, 0]), rec(b'C', &[1])].concat()),
    ];
    for (name, b) in cases {
        compare(std::slice::from_ref(&b), name);
        // The same as the second of two logs: the error names the log.
        compare(&[rec(b'S', &[9]), b], &format!("{name}, second log"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Generated logs cut at any byte, with any byte changed, read alike.
    #[test]
    fn damaged_logs_read_as_before(
        seed in 0u64..1000,
        sessions in 1usize..4,
        cut in 0usize..20_000,
        at in 0usize..20_000,
        byte in prop_oneof![any::<u8>(), prop::sample::select(b"SCWR".to_vec())],
        log in 0usize..4,
    ) {
        let mut files = logs(seed, sessions, 30, 4, seed % 7 == 0);
        let f = &mut files[log % sessions];
        f.truncate(cut.min(f.len()));
        if !f.is_empty() {
            let n = f.len();
            f[at % n] = byte;
        }
        compare(&files, &format!("seed {seed}, cut {cut}, byte {byte} at {at} of log {log}"));
    }
}
