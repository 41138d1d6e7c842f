//! Tiny histories and hand-written certificates. The histories are built through the history
//! builder, not a reader: `read` is of this module's layer, which it may not import.

use super::format::{Certificate, Respect, Witness, WitnessKind, FORMAT, VERSION};
use super::{parse, verify};
use crate::error::ErrorKind;
use crate::history::builder::{Place, TxnMeta};
use crate::history::{History, HistoryBuilder, OpKind, Status, Value};

/// A history, a transaction a line: `id status [pN] [@invoke-complete] [~invoke-complete] : ops`,
/// where the status is `ok`, `fail` or `info`, `pN` the process, `@` positions, `~` times, and
/// the ops, separated by commas, are `r x [1 2]`, `r x 3`, `r x nil`, `a x 1` or `w x 1`.
fn history(text: &str) -> History {
    let mut b = HistoryBuilder::new();
    let pair = |s: &str| {
        let (i, c) = s.split_once('-').unwrap();
        (i.parse::<i64>().unwrap(), c.parse::<i64>().unwrap())
    };
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (head, ops) = line.split_once(':').unwrap();
        let mut meta = TxnMeta::default();
        let mut status = Status::Committed;
        for (i, word) in head.split_whitespace().enumerate() {
            match (i, word.split_at(1)) {
                (0, _) => meta.id = Some(word.parse().unwrap()),
                (_, ("p", p)) => meta.process = Some(p.parse().unwrap()),
                (_, ("@", r)) => {
                    (meta.invoke_pos, meta.complete_pos) = (Some(pair(r).0 as u64), Some(pair(r).1 as u64))
                }
                (_, ("~", r)) => (meta.invoke_time, meta.complete_time) = (Some(pair(r).0), Some(pair(r).1)),
                _ if word == "fail" => status = Status::Aborted,
                _ if word == "info" => status = Status::Indeterminate,
                _ => assert_eq!(word, "ok"),
            }
        }
        for op in ops.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            let mut words = op.splitn(3, ' ');
            let (f, k, v) = (words.next().unwrap(), words.next().unwrap(), words.next().unwrap());
            let key = b.str_value(k);
            let key = b.key(key);
            let int = |s: &str| Value::Int(s.parse().unwrap());
            match f {
                "a" => b.push_write(OpKind::Append, key, int(v), Place::default()),
                "w" => b.push_write(OpKind::Write, key, int(v), Place::default()),
                "r" if v == "nil" => b.push_read_nil(key),
                "r" if v.starts_with('[') => {
                    let elems: Vec<Value> = v.trim_matches(['[', ']']).split_whitespace().map(int).collect();
                    b.push_read_list(key, &elems, Place::default());
                }
                _ => b.push_read_scalar(key, int(v), Place::default()),
            }
        }
        b.finish_txn(status, meta);
    }
    b.finish().unwrap()
}

fn witness(kind: WitnessKind, respects: &[Respect], levels: &[&str], order: &[u64]) -> Witness {
    Witness {
        kind,
        respects: respects.to_vec(),
        levels: levels.iter().map(|l| l.to_string()).collect(),
        order: order.to_vec(),
        set_aside: Vec::new(),
    }
}

fn cert(h: &History, witnesses: Vec<Witness>) -> Certificate {
    Certificate {
        format: FORMAT.to_string(),
        version: VERSION,
        transactions: h.txns.len(),
        witnesses,
        not_certified: Vec::new(),
        counterexamples: Vec::new(),
        violations_not_certified: Vec::new(),
    }
}

/// The failure of one witness, or `None`.
fn failure(h: &History, w: Witness) -> Option<String> {
    let v = verify(h, &cert(h, vec![w]));
    assert_eq!(v.ok(), v.first_failure().is_none());
    v.first_failure().map(str::to_string)
}

use Respect::{RealTime, Session};
use WitnessKind::{Serial, Snapshot};

const APPENDS: &str = "1 ok : r x [], a x 1\n2 ok : r x [1], a x 2\n3 ok : r x [1 2]";

#[test]
fn a_correct_serial_witness_passes() {
    let h = history(APPENDS);
    let v = verify(&h, &cert(&h, vec![witness(Serial, &[], &["SER", "SI"], &[1, 2, 3])]));
    assert!(v.ok(), "{v:?}");
    assert_eq!(v.proved(), ["SER", "SI"]);
    assert!(serde_json::to_string(&v).unwrap().contains("\"kind\":\"serial\""));
}

#[test]
fn swapped_conflicting_transactions_fail_the_replay() {
    let h = history(APPENDS);
    let f = failure(&h, witness(Serial, &[], &["SER"], &[2, 1, 3]));
    assert_eq!(f.as_deref(), Some("T2 read x = [1] but the replay has []"));
}

#[test]
fn a_changed_read_fails() {
    let h = history("1 ok : r x [], a x 1\n2 ok : r x [1], a x 2\n3 ok : r x [1 3]");
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2, 3]));
    assert_eq!(f.as_deref(), Some("T3 read x = [1 3] but the replay has [1 2]"));
    let h = history("1 ok : w x 1\n2 ok : r x 2\n3 ok : r y 3");
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2, 3]));
    assert_eq!(f.as_deref(), Some("T2 read x = 2 but the replay has 1"));
    let f = failure(&h, witness(Serial, &[], &["SER"], &[2, 1, 3]));
    assert_eq!(f.as_deref(), Some("T2 read x = 2 but the replay has nil"));
}

#[test]
fn own_writes_are_read_in_both_kinds() {
    let h = history("1 ok : r x [], a x 1, r x [1], a x 2, r x [1 2]\n2 ok : a y 5, r y [5], r x [1 2]");
    assert_eq!(failure(&h, witness(Serial, &[], &["SER"], &[1, 2])), None);
    assert_eq!(failure(&h, witness(Snapshot, &[], &["SI"], &[1, 1, 2, 2])), None);
    let f = failure(&h, witness(Snapshot, &[], &["SI"], &[1, 2, 1, 2]));
    assert_eq!(f.as_deref(), Some("T2 read x = [1 2] but the replay has []"));
    let h = history("1 ok : w x 1, r x 1, w x 2, r x 2\n2 ok : r x nil, w x 3, r x 3");
    assert_eq!(failure(&h, witness(Snapshot, &[], &["SI"], &[2, 2, 1, 1])), None);
    let f = failure(&h, witness(Snapshot, &[], &["SI"], &[1, 1, 2, 2]));
    assert_eq!(f.as_deref(), Some("T2 read x = nil but the replay has 2"));
}

#[test]
fn write_skew_has_a_snapshot_witness_and_no_serial_one() {
    let h = history("1 ok : r x nil, r y nil, w x 1\n2 ok : r x nil, r y nil, w y 1");
    assert_eq!(failure(&h, witness(Snapshot, &[], &["SI", "PSI"], &[1, 2, 1, 2])), None);
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2]));
    assert_eq!(f.as_deref(), Some("T2 read x = nil but the replay has 1"));
}

#[test]
fn overlapping_writers_of_one_key_fail() {
    let h = history("1 ok : r x nil, w x 1\n2 ok : r x nil, w x 2");
    let f = failure(&h, witness(Snapshot, &[], &["SI"], &[1, 2, 1, 2]));
    assert_eq!(
        f.as_deref(),
        Some("T1 and T2 both write x while both are running (T1 starts before T2 commits and T2 before T1 commits)")
    );
    let f = failure(&h, witness(Snapshot, &[], &["SI"], &[1, 1, 2, 2]));
    assert_eq!(f.as_deref(), Some("T2 read x = nil but the replay has 1"));
}

#[test]
fn session_order_is_checked_when_claimed() {
    let h = history("1 ok p0 @0-1 : w x 1\n2 ok p0 @2-3 : w y 1\n3 ok p1 @4-5 : w z 1");
    assert_eq!(failure(&h, witness(Serial, &[], &["SER"], &[2, 3, 1])), None);
    let f = failure(&h, witness(Serial, &[Session], &["strong-session-SER"], &[2, 3, 1]));
    assert_eq!(f.as_deref(), Some("T1 and T2 are one session's, in this order, but the witness runs T2 first"));
    let f = failure(&h, witness(Snapshot, &[Session], &["strong-session-SI"], &[1, 2, 1, 2, 3, 3]));
    assert_eq!(
        f.as_deref(),
        Some("T1 and T2 are one session's, in this order, but the witness starts T2 before T1 commits")
    );
    assert_eq!(failure(&h, witness(Snapshot, &[Session], &["strong-session-SI"], &[3, 1, 1, 2, 3, 2])), None);
}

#[test]
fn real_time_is_checked_when_claimed() {
    let h = history("1 ok @0-1 : w x 1\n2 ok @2-3 : w y 1\n3 ok @2-4 : w z 1");
    let f = failure(&h, witness(Serial, &[RealTime], &["strict-SER"], &[3, 1, 2]));
    assert_eq!(f.as_deref(), Some("T1 completed before T3 was invoked, but the witness runs T3 first"));
    // T2 and T3 are concurrent.
    assert_eq!(failure(&h, witness(Serial, &[RealTime], &["strict-SER"], &[1, 3, 2])), None);
    let f = failure(&h, witness(Snapshot, &[RealTime], &["strong-SI"], &[1, 2, 1, 2, 3, 3]));
    assert_eq!(f.as_deref(), Some("T1 completed before T2 was invoked, but the witness starts T2 before T1 commits"));
    // Times, when the history has any, rather than positions; equal times are concurrent.
    let h = history("1 ok @0-1 ~10-20 : w x 1\n2 ok @2-3 ~20-30 : w y 1\n3 ok @4-5 ~21-22 : w z 1");
    assert_eq!(failure(&h, witness(Serial, &[RealTime], &["strict-SER"], &[2, 1, 3])), None);
    let f = failure(&h, witness(Serial, &[RealTime], &["strict-SER"], &[3, 1, 2]));
    assert_eq!(f.as_deref(), Some("T1 completed before T3 was invoked, but the witness runs T3 first"));
}

#[test]
fn real_time_takes_n_log_n() {
    let n = 200_000u64;
    let text: String = (0..n).map(|i| format!("{i} ok @{}-{} : w x {i}\n", 2 * i, 2 * i + 1)).collect();
    let h = history(&text);
    let order: Vec<u64> = (0..n).collect();
    assert_eq!(failure(&h, witness(Serial, &[RealTime, Session], &["strict-SER"], &order)), None);
    let mut late = order.clone();
    late.swap(0, (n - 1) as usize);
    let f = failure(&h, witness(Serial, &[RealTime], &["strict-SER"], &late));
    assert_eq!(f.as_deref(), Some("T0 completed before T1 was invoked, but the witness runs T1 first"));
}

#[test]
fn the_witness_names_each_committed_transaction_and_no_aborted_one() {
    let h = history("1 ok : w x 1\n2 ok : r x 1\n3 fail : w x 3");
    assert_eq!(failure(&h, witness(Serial, &[], &["SER"], &[1, 2])), None);
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1]));
    assert_eq!(f.as_deref(), Some("T2 committed but the witness leaves it out"));
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 3, 2]));
    assert_eq!(f.as_deref(), Some("T3 aborted: it cannot be in the execution"));
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 99, 2]));
    assert_eq!(f.as_deref(), Some("T99 is not a transaction of this history"));
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2, 1]));
    assert_eq!(f.as_deref(), Some("T1 appears twice: a serial witness names each transaction once"));
    let f = failure(&h, witness(Snapshot, &[], &["SI"], &[1, 1, 2]));
    assert!(f.unwrap().starts_with("T2 appears once"));
    let f = failure(&h, witness(Snapshot, &[], &["SI"], &[1, 1, 2, 2, 2]));
    assert!(f.unwrap().starts_with("T2 appears three times"));
}

#[test]
fn a_level_the_witness_cannot_prove_fails() {
    let h = history(APPENDS);
    let f = failure(&h, witness(Serial, &[], &["SER", "strong-SI"], &[1, 2, 3]));
    assert_eq!(f.as_deref(), Some("witness 1 (serial) cannot prove strong-SI: it does not respect real-time"));
    let f = failure(&h, witness(Snapshot, &[RealTime], &["SER"], &[1, 1, 2, 2, 3, 3]));
    assert_eq!(f.as_deref(), Some("witness 1 (snapshot) cannot prove SER: it is not serial"));
    let f = failure(&h, witness(Snapshot, &[], &["strict-SER"], &[1, 1, 2, 2, 3, 3]));
    assert_eq!(
        f.as_deref(),
        Some("witness 1 (snapshot) cannot prove strict-SER: it is not serial and does not respect real-time")
    );
    let f = failure(&h, witness(Serial, &[], &["PL-3"], &[1, 2, 3]));
    assert_eq!(f.as_deref(), Some("witness 1 (serial) cannot prove PL-3: no witness proves it"));
    let v = verify(
        &h,
        &cert(&h, vec![witness(Serial, &[], &["CC"], &[1, 2, 3]), witness(Serial, &[], &["SER"], &[1, 2, 3])]),
    );
    assert_eq!(v.first_failure(), Some("witness 1 (serial) cannot prove CC: it does not respect sessions"));
    assert_eq!(v.proved(), ["SER"]);
}

#[test]
fn indeterminate_transactions_write_but_their_reads_are_not_checked() {
    let h = history("1 ok : r x [], a x 1\n2 info : r x [5], a x 2\n3 ok : r x [1 2]");
    assert_eq!(failure(&h, witness(Serial, &[], &["SER"], &[1, 2, 3])), None);
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 3]));
    assert_eq!(f.as_deref(), Some("T3 read x = [1 2] but the replay has [1]"));
    let h = history("1 ok : r x [], a x 1\n2 info : a x 2\n3 ok : r x [1]");
    assert_eq!(failure(&h, witness(Serial, &[], &["SER"], &[1, 3])), None);
}

#[test]
fn an_open_initial_value_is_fixed_by_the_first_read() {
    let mut h = history("1 ok : r x 5\n2 ok : r x 5, w x 6\n3 ok : r x 6");
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2, 3]));
    assert_eq!(f.as_deref(), Some("T1 read x = 5 but the replay has nil"));
    h.initial_open = true;
    assert_eq!(failure(&h, witness(Serial, &[], &["SER"], &[1, 2, 3])), None);
    let mut h = history("1 ok : r x 5\n2 ok : r x 4");
    h.initial_open = true;
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2]));
    assert_eq!(f.as_deref(), Some("T2 read x = 4 but the replay has 5"));
}

#[test]
fn histories_the_verifier_cannot_judge_fail_every_witness() {
    let mut h = history(APPENDS);
    h.txns[2].id = 1;
    let f = failure(&h, witness(Serial, &[], &["SER"], &[1, 2]));
    assert_eq!(f.as_deref(), Some("the history has two transactions with id 1: a certificate cannot name them"));
    let mut b = HistoryBuilder::new();
    b.push_predicate_read("p", Vec::new());
    b.finish_txn(Status::Committed, TxnMeta::default());
    let h = b.finish().unwrap();
    let f = failure(&h, witness(Serial, &[], &["SER"], &[0]));
    assert_eq!(f.as_deref(), Some("the history has predicate reads, which this verifier does not evaluate"));
}

#[test]
fn parse_reads_certificates_and_places_errors() {
    let h = history(APPENDS);
    let c = cert(&h, vec![witness(Snapshot, &[Session, RealTime], &["strong-SI"], &[1, 1])]);
    let text = serde_json::to_string_pretty(&c).unwrap();
    assert!(text.contains("\"real-time\""), "{text}");
    assert_eq!(parse(text.as_bytes()), Ok(c));
    let e = parse(b"{\"format\": \"grail-certificate\",\n  \"version\": ]").unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Syntax, Some(2), Some(14)), "{e}");
    assert!(e.message.starts_with("expected a grail certificate"), "{e}");
    let e = parse(b"{\"format\": \"grail-certificate\", \"version\": 1,\n \"witnesses\": []}").unwrap_err();
    assert_eq!((e.kind, e.line), (ErrorKind::Shape, Some(2)), "{e}");
    assert!(e.message.ends_with("missing field `transactions`"), "{e}");
    let e = parse(b"{\"format\": \"grail-certificate\", \"version\": 1, \"transactions\": 1,\n \"witnesses\": [{\"kind\": \"total\"}]}").unwrap_err();
    assert_eq!((e.kind, e.line), (ErrorKind::Shape, Some(2)), "{e}");
    assert!(e.message.contains("unknown variant `total`, expected one of `serial`, `snapshot`"), "{e}");
    let e = parse(b"").unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Syntax, Some(1), Some(1)), "{e}");
    let other = |format: &str, version: u32| {
        let c = Certificate { format: format.to_string(), version, ..cert(&h, Vec::new()) };
        parse(serde_json::to_string(&c).unwrap().as_bytes()).unwrap_err()
    };
    let e = other("grail-report", VERSION);
    assert_eq!(e.kind, ErrorKind::Usage);
    assert!(e.message.contains("found \"format\": \"grail-report\""), "{e}");
    let e = other(FORMAT, VERSION + 1);
    assert_eq!(e.kind, ErrorKind::Usage);
    assert!(e.message.contains("of version 2"), "{e}");
}

#[test]
fn a_level_proved_and_disproved_is_a_contradiction() {
    use super::{summed, Checked, CheckedCycle};
    let witness = Checked {
        kind: WitnessKind::Serial,
        respects: Vec::new(),
        levels: vec!["SER".into()],
        set_aside: 0,
        failure: None,
    };
    let cycle = CheckedCycle { level: "SER".into(), anomaly: "G0".into(), failure: None };
    let empty = Certificate {
        format: FORMAT.into(),
        version: VERSION,
        transactions: 0,
        witnesses: Vec::new(),
        not_certified: Vec::new(),
        counterexamples: Vec::new(),
        violations_not_certified: Vec::new(),
    };
    let v = summed(&empty, vec![witness], vec![cycle]);
    assert!(!v.ok());
    assert!(v.first_failure().unwrap().contains("SER is both proved by a witness and disproved"));
}
