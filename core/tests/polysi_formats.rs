//! PolySI's input formats: PolySI/Plume text, dbcop JSON (both shapes) and Cobra binary logs.
//! Generator histories written in each format read back to the same transactions and the same
//! verdicts; bad input gives a placed error, never a panic.

use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation};
use grail_core::history::{Arg, History, OpKind, Status, Value};
use grail_core::read::{read_cobra, read_dbcop, read_plume};
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
                        o.kind == OpKind::Write,
                        int(h.key(o.key)),
                        if let Arg::Val(v) = o.arg { Some(int(v)) } else { None },
                    )
                })
                .collect()
        })
        .collect()
}

fn sessions(h: &History) -> Vec<i64> {
    h.txns.iter().filter(|t| t.status == Status::Committed).map(|t| t.process.unwrap_or(0) + 1).collect()
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

#[test]
fn plume_session_zero_is_the_initial_state() {
    let text = "w(1,5,0,100)\nw(1,1,1,1)\nr(1,5,2,2)\n\nr(1,1,2,3)\n";
    let h = read_plume(text.as_bytes()).unwrap();
    assert_eq!(h.txns.len(), 3, "the initial transaction is dropped");
    let o = &h.ops[h.txns[1].ops_start as usize];
    assert_eq!(o.arg, Arg::Nil, "reading the initial value 5 is reading nil");
    assert_eq!(h.txns[1].process, Some(2));
}

#[test]
fn bad_plume_lines_say_where_and_what() {
    let cases: &[(&str, u32, u32, &str)] = &[
        ("w(1,1,1,1)\nx(1,2,3,4)\n", 2, 1, "expected r( or w("),
        ("r(1,2,3)\n", 1, 8, "expected ','"),
        ("r(1,a,3,4)\n", 1, 5, "the value"),
        ("r(1,2,3,4) junk\n", 1, 12, "end of the line"),
        ("r(1,99999999999999999999,3,4)\n", 1, 5, "64-bit"),
        ("w(1,1,1,7)\nw(2,1,2,7)\n", 2, 1, "stay in session 1"),
    ];
    for &(text, line, column, msg) in cases {
        let e = read_plume(text.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (Some(line), Some(column)), "{text:?}: {e}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_plume(&data);
        let _ = read_dbcop(&data);
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
}
