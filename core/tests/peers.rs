//! Verdicts of other checkers on their own data, read in place from `../shared/corpus/peers`.
//!
//! `awdit/`: histories written by AWDIT's generator, each in PolySI/Plume text
//! (`plume/<file>.txt.gz`) and in dbcop's binary format (`dbcop/<file>/history.bincode`), with
//! AWDIT's RC, RA and CC verdicts in `verdicts.tsv`. grail must agree on every cell.

mod common;

use common::{corpus, slurp};
use grail_core::{CheckOptions, Format, History, Level};
use std::path::Path;

const LEVELS: [(Level, &str); 3] = [(Level::Rc, "RC"), (Level::Ra, "RA"), (Level::Cc, "CC")];

/// Each transaction's operations as text (status, then kind, key and value of each), sorted:
/// the two forms of one history must read to the same.
fn txns(h: &History) -> Vec<String> {
    let mut v: Vec<String> = (0..h.txns.len() as u32)
        .map(|t| {
            let ops: Vec<String> =
                h.ops_of(t).iter().map(|o| format!("{:?} {:?} {:?}", o.kind(), h.key(o.key), o.arg())).collect();
            format!("{:?}: {}", h.txns[t as usize].status, ops.join(", "))
        })
        .collect();
    v.sort();
    v
}

/// grail's verdicts on RC, RA and CC, or the read error.
fn verdicts(h: &Result<History, String>) -> Result<Vec<Option<bool>>, String> {
    let h = h.as_ref()?;
    let o = CheckOptions { levels: LEVELS.iter().map(|l| l.0).collect(), ..Default::default() };
    let r = grail_core::check(h, &o);
    Ok(LEVELS.iter().map(|(l, _)| r.levels.0.iter().find(|(x, _)| x == l).and_then(|(_, v)| v.valid)).collect())
}

#[test]
fn awdit_verdicts_agree_on_text_and_bincode() {
    let Some(c) = corpus() else { return };
    let dir = c.join("peers/awdit");
    if !dir.join("verdicts.tsv").is_file() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("the peers corpus is required under CI=true but {} is absent", dir.display());
        }
        eprintln!("SKIPPED: peers corpus not found at {}", dir.display());
        return;
    }
    let table = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut rows = table.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = rows.next().unwrap().split('\t').collect();
    assert_eq!(header, ["file", "events", "RC", "RA", "CC"]);
    let (mut agree, mut cells, mut wrong) = (0, 0, Vec::new());
    for row in rows {
        let f: Vec<&str> = row.split('\t').collect();
        let want: Vec<Option<bool>> = f[2..5]
            .iter()
            .map(|v| match *v {
                "holds" => Some(true),
                "violated" => Some(false),
                other => panic!("{}: unexpected verdict {other:?}", f[0]),
            })
            .collect();
        let paths = [dir.join(format!("plume/{}.txt.gz", f[0])), dir.join(format!("dbcop/{}/history.bincode", f[0]))];
        let read: Vec<Result<History, String>> =
            paths.iter().map(|p| grail_core::read(&slurp(p), Format::Auto).map_err(|e| e.to_string())).collect();
        if let [Ok(text), Ok(bin)] = &read[..] {
            assert_eq!(txns(text), txns(bin), "{}: the text and bincode forms differ", f[0]);
        }
        for (path, h) in paths.iter().zip(&read) {
            let got = verdicts(h);
            for (i, (_, name)) in LEVELS.iter().enumerate() {
                cells += 1;
                match &got {
                    Ok(v) if v[i] == want[i] => agree += 1,
                    Ok(v) => wrong.push(format!("{} {name}: AWDIT {:?}, grail {:?}", short(path), want[i], v[i])),
                    Err(e) => wrong.push(format!("{} {name}: {e}", short(path))),
                }
            }
        }
    }
    println!("AWDIT corpus: grail agrees on {agree} of {cells} cells");
    assert_eq!(cells, 36, "six histories, two forms, three levels");
    assert!(wrong.is_empty(), "{} cells disagree:\n{}", wrong.len(), wrong.join("\n"));
}

/// A corpus path from `peers/` on, for messages.
fn short(path: &Path) -> String {
    let s = path.display().to_string();
    s.find("peers/").map_or(s.clone(), |i| s[i..].to_string())
}
