//! PolySI's input formats: PolySI/Plume text, dbcop JSON (both shapes) and bincode, and Cobra
//! binary logs.
//! Generator histories written in each format read back to the same transactions and the same
//! verdicts; bad input gives a placed error, never a panic.

mod common;

use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation};
use grail_core::history::{Arg, History, OpKind, Status, Value};
use grail_core::read::{read_cobra, read_dbcop, read_dbcop_bin, read_plume};
use grail_core::{CheckOptions, ErrorKind, Format, Level};
use proptest::prelude::*;

fn history(inject: Vec<(Injection, usize)>) -> History {
    let o = GenOptions {
        transactions: 150,
        sessions: 5,
        keys: 8,
        max_ops: 5,
        model: DataModel::RwRegister,
        isolation: Isolation::SnapshotIsolation,
        abort_rate: 0.0,
        inject,
        ..Default::default()
    };
    grail_core::read(generate(&o).history.as_bytes(), Format::Auto).unwrap()
}

fn int(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        Value::Str(_) => panic!("the generator writes integers"),
    }
}

/// (is write, key, value or None for nil) per operation, per committed transaction.
fn ops(h: &History) -> Vec<Vec<(bool, i64, Option<i64>)>> {
    h.txns
        .iter()
        .filter(|t| t.status == Status::Committed)
        .map(|t| {
            h.ops[t.ops_start as usize..t.ops_end as usize]
                .iter()
                .map(|o| {
                    (
                        o.kind() == OpKind::Write,
                        int(h.key(o.key)),
                        if let Arg::Val(v) = o.arg() { Some(int(v)) } else { None },
                    )
                })
                .collect()
        })
        .collect()
}

fn sessions(h: &History) -> Vec<i64> {
    h.txns.iter().filter(|t| t.status == Status::Committed).map(|t| t.process().unwrap_or(0) + 1).collect()
}

fn to_plume(h: &History) -> String {
    let mut s = String::new();
    for (i, (t, sess)) in ops(h).iter().zip(sessions(h)).enumerate() {
        for &(w, k, v) in t {
            s += &format!("{}({k},{},{sess},{})\n", if w { "w" } else { "r" }, v.unwrap_or(0), i + 1);
        }
    }
    s
}

type Ops = Vec<(bool, i64, Option<i64>)>;

fn by_session(h: &History) -> std::collections::BTreeMap<i64, Vec<Ops>> {
    let mut m: std::collections::BTreeMap<i64, Vec<_>> = Default::default();
    for (t, s) in ops(h).into_iter().zip(sessions(h)) {
        m.entry(s).or_default().push(t);
    }
    m
}

fn to_dbcop(h: &History, compact: bool) -> String {
    let sessions: Vec<String> = by_session(h)
        .values()
        .map(|ts| {
            let txns: Vec<String> = ts
                .iter()
                .map(|t| {
                    let evs: Vec<String> = t
                        .iter()
                        .map(|&(w, k, v)| {
                            let v = v.map_or("null".into(), |v| v.to_string());
                            match (compact, w) {
                                (true, true) => format!(r#"["w", {k}, {v}]"#),
                                (true, false) => format!(r#"["r", {k}, {v}]"#),
                                (false, true) => format!(r#"{{"Write": {{"variable": {k}, "version": {v}}}}}"#),
                                (false, false) => format!(r#"{{"Read": {{"variable": {k}, "version": {v}}}}}"#),
                            }
                        })
                        .collect();
                    format!(r#"{{"events": [{}], "committed": true}}"#, evs.join(", "))
                })
                .collect();
            format!("[{}]", txns.join(",\n"))
        })
        .collect();
    format!("[{}]", sessions.join(",\n"))
}

fn to_dbcop_original(h: &History) -> String {
    let sessions: Vec<String> = by_session(h)
        .values()
        .map(|ts| {
            let txns: Vec<String> = ts
                .iter()
                .map(|t| {
                    let evs: Vec<String> = t
                        .iter()
                        .map(|&(w, k, v)| {
                            format!(
                                r#"{{"write": {w}, "variable": {k}, "value": {}, "success": true}}"#,
                                v.unwrap_or(0)
                            )
                        })
                        .collect();
                    format!(r#"{{"events": [{}], "success": true}}"#, evs.join(", "))
                })
                .collect();
            format!("[{}]", txns.join(", "))
        })
        .collect();
    format!(r#"{{"params": {{}}, "info": "test", "start": "", "end": "", "data": [{}]}}"#, sessions.join(", "))
}

use common::DbcopEvent as BinEvent;

/// dbcop's `History` in bincode: params `id`, n, 0, 0, 0, info "test", then the sessions.
fn dbcop_bin(id: u64, sessions: &[Vec<(Vec<BinEvent>, bool)>]) -> Vec<u8> {
    common::dbcop_bincode(id, [0, 0, 0], "test", sessions)
}

fn to_dbcop_bin(h: &History) -> Vec<u8> {
    let sessions: Vec<Vec<(Vec<BinEvent>, bool)>> = by_session(h)
        .values()
        .map(|ts| {
            ts.iter()
                .map(|t| (t.iter().map(|&(w, k, v)| (w, k as u64, v.unwrap_or(0) as u64, true)).collect(), true))
                .collect()
        })
        .collect();
    dbcop_bin(0, &sessions)
}

fn to_cobra(h: &History) -> Vec<Vec<u8>> {
    let mut writer: std::collections::HashMap<(i64, i64), u64> = Default::default();
    let per = by_session(h);
    let mut id = 1u64;
    for ts in per.values() {
        for t in ts {
            for &(w, k, v) in t {
                if let (true, Some(v)) = (w, v) {
                    writer.insert((k, v), id);
                }
            }
            id += 1;
        }
    }
    let mut id = 1u64;
    let mut files = Vec::new();
    for ts in per.values() {
        let mut b: Vec<u8> = Vec::new();
        let put = |b: &mut Vec<u8>, x: i64| b.extend_from_slice(&x.to_be_bytes());
        for t in ts {
            b.push(b'S');
            put(&mut b, id as i64);
            for &(w, k, v) in t {
                if w {
                    b.push(b'W');
                    put(&mut b, v.unwrap());
                    put(&mut b, k);
                    put(&mut b, 0);
                } else {
                    b.push(b'R');
                    let (wt, wid) = match v {
                        None => (0xbebe_ebee, 0xbebe_ebee),
                        Some(v) => (writer[&(k, v)] as i64, v),
                    };
                    put(&mut b, wt);
                    put(&mut b, wid);
                    put(&mut b, k);
                    put(&mut b, 0);
                }
            }
            b.push(b'C');
            put(&mut b, id as i64);
            id += 1;
        }
        files.push(b);
    }
    files
}

fn verdicts(h: &History) -> Vec<Option<bool>> {
    let r = grail_core::check(h, &CheckOptions { levels: vec![Level::Ser, Level::Si], ..Default::default() });
    r.levels.0.iter().map(|(_, l)| l.valid).collect()
}

fn sorted(mut v: Vec<Vec<(bool, i64, Option<i64>)>>) -> Vec<Vec<(bool, i64, Option<i64>)>> {
    v.sort();
    v
}

#[test]
fn every_format_reads_back_the_same_history_and_verdicts() {
    for inject in [vec![], vec![(Injection::LostUpdate, 1)], vec![(Injection::LongFork, 1)]] {
        let h = history(inject);
        assert!(ops(&h).iter().flatten().all(|&(w, _, v)| !w || v != Some(0)), "the generator must not write 0");
        let want = sorted(ops(&h));
        let expected = verdicts(&h);
        let plume = to_plume(&h);
        let cobra = to_cobra(&h);
        let cobra_refs: Vec<&[u8]> = cobra.iter().map(|f| f.as_slice()).collect();
        let read: Vec<(&str, History)> = vec![
            ("plume", read_plume(plume.as_bytes()).unwrap()),
            ("plume auto", grail_core::read(plume.as_bytes(), Format::Auto).unwrap()),
            ("dbcop", read_dbcop(to_dbcop(&h, false).as_bytes()).unwrap()),
            ("dbcop compact auto", grail_core::read(to_dbcop(&h, true).as_bytes(), Format::Auto).unwrap()),
            ("dbcop original auto", grail_core::read(to_dbcop_original(&h).as_bytes(), Format::Auto).unwrap()),
            ("dbcop bincode", read_dbcop_bin(&to_dbcop_bin(&h)).unwrap()),
            ("dbcop bincode auto", grail_core::read(&to_dbcop_bin(&h), Format::Auto).unwrap()),
            ("cobra", read_cobra(&cobra_refs).unwrap()),
            ("cobra auto (one log)", grail_core::read(&cobra[0], Format::Auto).unwrap()),
        ];
        for (name, h2) in &read {
            if name.starts_with("cobra auto") {
                assert_eq!(h2.txns.len(), by_session(&h).values().next().unwrap().len(), "{name}");
                continue;
            }
            assert_eq!(sorted(ops(h2)), want, "{name}");
            assert_eq!(verdicts(h2), expected, "{name}");
            assert!(h2.version_order.is_none());
        }
    }
}

fn levels(h: &History, levels: &[Level]) -> Vec<Option<bool>> {
    let r = grail_core::check(h, &CheckOptions { levels: levels.to_vec(), ..Default::default() });
    r.levels.0.iter().map(|(_, l)| l.valid).collect()
}

#[test]
fn plume_session_zero_is_an_ordinary_session() {
    let text = "w(1,5,0,100)\nw(1,1,1,1)\nr(1,5,2,2)\n\nr(1,1,2,3)\n";
    let h = read_plume(text.as_bytes()).unwrap();
    assert_eq!(h.txns.len(), 4);
    assert_eq!((h.txns[0].id, h.txns[0].process()), (100, Some(0)));
    assert_eq!(h.ops[h.txns[2].ops_start as usize].arg(), Arg::Val(Value::Int(5)), "5 is read from transaction 100");
    assert_eq!(levels(&h, &[Level::Rc, Level::Ra, Level::Cc]), [Some(true); 3]);
}

#[test]
fn plume_zero_is_the_initial_value() {
    // A read of 0 reads the initial value; a write of 0 is left out, and a transaction that only
    // writes 0 (an explicit initialising transaction) with it.
    let text = "w(1,0,0,1)\nw(2,0,0,1)\nr(1,0,0,2)\nw(2,0,0,2)\nw(2,3,0,2)\nr(2,0,1,3)\n";
    let h = read_plume(text.as_bytes()).unwrap();
    assert_eq!(h.txns.iter().map(|t| t.id).collect::<Vec<_>>(), [2, 3], "transaction 1 only wrote 0");
    assert_eq!(h.ops.len(), 3, "the write of 0 in transaction 2 is left out");
    assert_eq!(h.ops[0].arg(), Arg::Nil);
    assert_eq!(h.ops[2].arg(), Arg::Nil);
}

#[test]
fn plume_txn_minus_one_is_an_aborted_write() {
    let text = "w(1,7,0,-1)\nr(1,9,0,-1)\nw(1,1,3,1)\nr(1,7,4,2)\n";
    let h = read_plume(text.as_bytes()).unwrap();
    assert_eq!(h.txns.len(), 3, "the read of an aborted transaction is dropped");
    let aborted = &h.txns[2];
    assert_eq!((aborted.status, aborted.process(), aborted.line), (Status::Aborted, None, 1));
    let r = grail_core::check(&h, &CheckOptions { levels: vec![Level::Rc], ..Default::default() });
    assert_eq!(r.levels.0[0].1.valid, Some(false));
    assert!(r.anomalies.iter().any(|a| a.kind == "G1a"), "{:?}", r.anomalies);
}

#[test]
fn plume_numbers_may_be_negative() {
    let text = format!("w(-3,-7,-2,-5)\nr(-3,-7,{},9)\nw({},{},4,{})\n", i64::MIN, i64::MAX, i64::MIN, i64::MIN);
    let h = read_plume(text.as_bytes()).unwrap();
    assert_eq!(h.keys[0], Value::Int(-3));
    assert_eq!(h.ops[1].arg(), Arg::Val(Value::Int(-7)));
    assert_eq!((h.txns[0].id, h.txns[0].process()), (-5i64 as u64, Some(-2)));
    assert_eq!(h.txns[1].process(), Some(i64::MIN));
    assert_eq!(h.txns[2].id, i64::MIN as u64);
}

#[test]
fn bad_plume_lines_say_where_and_what() {
    let cases: &[(&str, u32, u32, &str)] = &[
        ("w(1,1,1,1)\nx(1,2,3,4)\n", 2, 1, "expected r( or w("),
        ("r(1,2,3)\n", 1, 8, "expected ','"),
        ("r(1,a,3,4)\n", 1, 5, "the value"),
        ("r(1,2,3,4) junk\n", 1, 12, "end of the line"),
        ("r(1,99999999999999999999,3,4)\n", 1, 5, "64-bit"),
        ("r(1,9223372036854775808,3,4)\n", 1, 5, "64-bit"),
        ("r(1,-9223372036854775809,3,4)\n", 1, 5, "64-bit"),
        ("r(1,-,3,4)\n", 1, 5, "the value (an integer)"),
        ("r(1,2,3,--4)\n", 1, 9, "the transaction id"),
        ("w(1,1,1,7)\nw(2,1,2,7)\n", 2, 1, "stay in session 1"),
    ];
    for &(text, line, column, msg) in cases {
        let e = read_plume(text.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (Some(line), Some(column)), "{text:?}: {e}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
}

#[test]
fn dbcop_json_reads_zero_as_each_dbcop_does() {
    // Today's dbcop: a read of 0 reads an explicit write of 0 when there is one.
    let h = read_dbcop(br#"[[{"events": [["w", 1, 0]]}], [{"events": [["r", 1, 0], ["r", 2, 0]]}]]"#).unwrap();
    assert_eq!(
        h.ops.iter().map(|o| o.arg()).collect::<Vec<_>>(),
        [Arg::Val(Value::Int(0)), Arg::Val(Value::Int(0)), Arg::Nil]
    );
    // The original runner's shape, as old dbcop and PolySI read it: 0 is always the initial value.
    let orig = r#"{"data": [[{"events": [{"write": true, "variable": 1, "value": 0, "success": true}], "success": true}],
        [{"events": [{"write": false, "variable": 1, "value": 0, "success": true}], "success": true}]]}"#;
    let h = read_dbcop(orig.as_bytes()).unwrap();
    assert_eq!(h.txns.len(), 1, "a transaction that only writes 0 is left out");
    assert_eq!(h.ops[0].arg(), Arg::Nil);
}

#[test]
fn bad_dbcop_entries_are_placed() {
    let e = read_dbcop(b"[[{\"events\": []},\n  {\"events\": 3}]]").unwrap_err();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Shape, Some(2), Some(3)), "{e}");
    assert!(e.message.contains("\"events\""), "{e}");
    let e = read_dbcop(b"[[{\"events\": [[\"x\", 1, 2]]}]]").unwrap_err();
    assert!(e.message.contains("expected an event"), "{e}");
    let e = read_dbcop(b"[[{\"events\": [}]]").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert!(e.line.is_some());
}

#[test]
fn bad_cobra_logs_give_the_byte_offset() {
    let mut b = vec![b'S'];
    b.extend_from_slice(&1i64.to_be_bytes());
    b.push(b'Q');
    let e = read_cobra(&[&b]).unwrap_err();
    assert!(e.message.contains("byte offset 9") && e.message.contains("0x51"), "{e}");
    let e = read_cobra(&[&b[..5]]).unwrap_err();
    assert!(e.message.contains("end of the log"), "{e}");
    let mut w = vec![b'W'];
    w.extend_from_slice(&[0; 24]);
    let e = read_cobra(&[&w]).unwrap_err();
    assert!(e.message.contains("expected S"), "{e}");
    // No commit: indeterminate.
    let h = read_cobra(&[&b[..9]]).unwrap();
    assert_eq!(h.txns[0].status, Status::Indeterminate);
}

#[test]
fn dbcop_bincode_reads_as_dbcop_and_awdit_read_it() {
    // Session 1: T1 writes 1 = 5 and 2 = 6, but its write of 2 failed; T2 did not succeed.
    // Session 2: T3 reads 1 = 5, 2 = 6 (the failed write), 3 = 8 (T2's) and 4 = 0 (initial);
    // its failed read is dropped.
    let b = dbcop_bin(
        83, // 'S': a Cobra log starts so; detection must still say bincode
        &[
            vec![(vec![(true, 1, 5, true), (true, 2, 6, false)], true), (vec![(true, 3, 8, true)], false)],
            vec![(
                vec![
                    (false, 1, 5, true),
                    (false, 2, 6, true),
                    (false, 3, 8, true),
                    (false, 4, 0, true),
                    (false, 9, 9, false),
                ],
                true,
            )],
        ],
    );
    assert_eq!(grail_core::read::detect(&b), Format::DbcopBin);
    let h = grail_core::read(&b, Format::Auto).unwrap();
    let st: Vec<(u64, Status, Option<i64>)> = h.txns.iter().map(|t| (t.id, t.status, t.process())).collect();
    assert_eq!(
        st,
        [
            (1, Status::Committed, Some(1)),
            (2, Status::Aborted, Some(1)),
            (3, Status::Committed, Some(2)),
            (grail_core::read::ABORTED_WRITES, Status::Aborted, None)
        ]
    );
    assert_eq!(h.ops_of(2).len(), 4);
    assert_eq!(h.ops_of(2)[3].arg(), Arg::Nil);
    let r = grail_core::check(&h, &CheckOptions { levels: vec![Level::Rc], ..Default::default() });
    assert_eq!(r.anomalies.iter().filter(|a| a.kind == "G1a").count(), 2, "{:?}", r.anomalies);
    assert_eq!(Format::parse("dbcop-bin").unwrap(), Format::DbcopBin);
    assert_eq!(Format::parse("bincode").unwrap(), Format::DbcopBin);
}

#[test]
fn bad_dbcop_bincode_gives_the_byte_offset() {
    let good = dbcop_bin(0, &[vec![(vec![(true, 1, 5, true)], true)]]);
    // Header 118 bytes, sessions 118, session 126, events 134, write flag 142, variable 143,
    // value 151, success 159, the transaction's success 160.
    assert_eq!(good.len(), 161);
    read_dbcop_bin(&good).unwrap();
    let at = |b: &[u8], offset: usize, what: &str| {
        let e = read_dbcop_bin(b).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.message.contains(&format!("byte offset {offset}:")) && e.message.contains(what), "{e}");
    };
    let mut bad = good.clone();
    bad[142] = 2;
    at(&bad, 142, "found byte 0x02");
    at(&good[..155], 151, "end of the file"); // the value that starts there is cut
    at(&good[..100], 93, "end of the file"); // the end time, 25 bytes from 93, is cut
    let mut long = good.clone();
    long[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    at(&long, 40, "fits in the bytes left");
    let mut utf = good.clone();
    utf[48] = 0xff;
    at(&utf, 52, "UTF-8");
    let mut more = good.clone();
    more.push(0);
    at(&more, 161, "1 more bytes");
    // Huge counts of sessions or events fail at the end of the file, without allocating them.
    let mut many = good.clone();
    many[118..126].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    at(&many, 161, "end of the file");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_plume(&data);
        let _ = read_dbcop(&data);
        let _ = read_dbcop_bin(&data);
        let _ = read_cobra(&[&data]);
        let _ = grail_core::read(&data, Format::Auto);
    }

    #[test]
    fn plume_like_text_never_panics(lines in proptest::collection::vec(
        (prop::sample::select(vec!["r", "w", "x", ""]), 0u8..4, 0u8..4, 0u8..3, 0u8..6, prop::sample::select(vec!["", " ", ")", ",", "\r"])), 0..20)) {
        let text: String = lines.iter().map(|(op, k, v, s, t, tail)| format!("{op}({k},{v},{s},{t}){tail}\n")).collect();
        if let Ok(h) = read_plume(text.as_bytes()) {
            let r = grail_core::check(&h, &CheckOptions { max_steps: Some(20_000), ..Default::default() });
            prop_assert!(r.levels.0.len() == 5);
        }
    }

    #[test]
    fn cobra_like_logs_never_panic(recs in proptest::collection::vec((prop::sample::select(vec![b'S', b'C', b'W', b'R']), 0i64..4, 0i64..4), 0..30)) {
        let mut b = Vec::new();
        for (tag, x, y) in recs {
            b.push(tag);
            let n = match tag { b'S' | b'C' => 1, b'W' => 3, _ => 4 };
            for i in 0..n {
                b.extend_from_slice(&(if i == 0 { x } else { y }).to_be_bytes());
            }
        }
        if let Ok(h) = read_cobra(&[&b]) {
            let _ = grail_core::check(&h, &CheckOptions { max_steps: Some(20_000), ..Default::default() });
        }
    }

    #[test]
    fn damaged_dbcop_bincode_never_panics(
        flips in proptest::collection::vec((0usize..400, any::<u8>()), 0..6),
        cut in 0usize..400,
    ) {
        let txn = |k: u64| (vec![(true, k, 1, true), (false, k, 1, true), (false, k + 1, 0, k % 2 == 0)], k % 3 != 0);
        let mut b = dbcop_bin(0, &[vec![txn(1), txn(2)], vec![txn(3)]]);
        for (i, x) in flips {
            if let Some(byte) = b.get_mut(i) {
                *byte = x;
            }
        }
        b.truncate(cut.max(1));
        if let Ok(h) = read_dbcop_bin(&b) {
            let _ = grail_core::check(&h, &CheckOptions { max_steps: Some(20_000), ..Default::default() });
        }
        let _ = grail_core::read(&b, Format::Auto);
    }
}
