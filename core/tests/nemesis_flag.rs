//! `History::unusual_process` lets the bindings skip the nemesis scan of the text: whenever it
//! is false, `render::ops::nemesis` must find nothing. Checked on hand-made processes of every
//! kind, on a history read in chunks, and on the corpus.

mod common;

use grail_core::render::ops::nemesis;
use grail_core::{read, Format};

fn edn_with_process(p: &str) -> String {
    format!(
        "{{:type :invoke, :f :txn, :value [[:append 1 1]], :process 0, :index 0}}\n\
         {{:type :ok, :f :txn, :value [[:append 1 1]], :process 0, :index 1}}\n\
         {{:type :info, :f :start-partition, :value nil, :process {p}, :index 2}}\n"
    )
}

/// The flag is raised when it must be, and whenever it is down the scan finds nothing.
fn agrees(text: &str, what: &str) -> bool {
    let h = read(text.as_bytes(), Format::Auto).unwrap_or_else(|e| panic!("{what}: {e}"));
    let found = nemesis(text.as_bytes());
    assert!(h.unusual_process || found.is_empty(), "{what}: flag down, but the scan found {found:?}");
    h.unusual_process
}

#[test]
fn every_kind_of_process() {
    for (p, raised) in [
        (":nemesis", true),
        ("\"nemesis\"", true),
        ("nemesis", true),
        ("12N", true),
        ("-3", true),
        ("+4", true),
        ("nil", true),
        ("1234567890123456789", true),
        ("3", false),
        ("0000000000000000001", true),
    ] {
        assert_eq!(agrees(&edn_with_process(p), p), raised, "{p}");
    }
    let nemesis_found = nemesis(edn_with_process(":nemesis").as_bytes());
    assert_eq!(nemesis_found.len(), 1, "the scan finds the nemesis operation");
    let json = r#"[{"type": "invoke", "f": "txn", "value": [["append", 1, 1]], "process": 0, "index": 0},
        {"type": "ok", "f": "txn", "value": [["append", 1, 1]], "process": 0, "index": 1},
        {"type": "info", "f": "kill", "value": null, "process": "nemesis", "index": 2}]"#;
    assert!(agrees(json, "JSON, a string process"));
    assert!(!agrees(&json.replace("\"nemesis\"", "1"), "JSON, numbers only"));
}

#[test]
fn a_history_read_in_chunks() {
    // Over a megabyte, so that the public reader reads it in chunks on the pool.
    let mut text = String::new();
    for i in 0..12_000 {
        text += &format!(
            "{{:type :invoke, :f :txn, :value [[:append {k} {i}]], :process {p}, :index {}}}\n",
            2 * i,
            k = i % 7,
            p = i % 5
        );
        text += &format!(
            "{{:type :ok, :f :txn, :value [[:append {k} {i}]], :process {p}, :index {}}}\n",
            2 * i + 1,
            k = i % 7,
            p = i % 5
        );
    }
    assert!(text.len() > 1 << 20);
    assert!(!agrees(&text, "clients only"));
    let at = text.len() / 2 + text[text.len() / 2..].find('\n').unwrap() + 1;
    text.insert_str(at, "{:type :info, :f :kill, :value nil, :process :nemesis, :index 999999}\n");
    assert!(agrees(&text, "a nemesis in the middle"));
}

#[test]
fn corpus_histories() {
    let Some(dir) = common::corpus() else { return };
    let (mut files, mut stack) = (Vec::new(), vec![dir]);
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = p.to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if [".edn", ".edn.gz", ".json"].iter().any(|x| name.ends_with(x)) {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut read, mut raised) = (0, 0);
    for f in &files {
        let text = common::slurp(f);
        let Ok(h) = read_any(&text) else { continue };
        read += 1;
        let found = nemesis(&text);
        assert!(h.unusual_process || found.is_empty(), "{}: flag down, the scan found {}", f.display(), found.len());
        raised += h.unusual_process as usize;
    }
    assert!(read > 50, "corpus histories read: {read}");
    eprintln!("{read} corpus histories, {raised} with a process that is not plain digits");
}

fn read_any(text: &[u8]) -> Result<grail_core::History, grail_core::Error> {
    read(text, Format::Auto)
}
