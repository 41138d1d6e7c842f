//! A light scan of a Jepsen history's raw text for the operations grail's readers set aside:
//! those of the nemesis (`:process :nemesis`, a keyword or string process), for the HTML
//! report's timeline, and client operations that are not transactions (a bank or counter
//! history given to a transactional model). Positions count every operation map, as the
//! readers do (`Transaction::invoke_pos`), so both line up on one axis. Never fails: what it
//! cannot read it skips.

/// One operation map of the input, as far as the timeline needs it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RawOp {
    /// Position among all operation maps of the input (0-based).
    pub pos: u64,
    pub index: Option<i64>,
    pub time: Option<i64>,
    /// `invoke`, `ok`, `fail`, `info` (empty when absent).
    #[serde(rename = "type")]
    pub ty: String,
    /// The operation's `:f` (empty when absent).
    pub f: String,
    /// The process as written (`nemesis`, `3`).
    pub process: String,
    /// The value's text, shortened to 120 characters.
    pub value: String,
}

/// What [`scan`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Operations of a non-numeric process (the nemesis), in input order.
    pub nemesis: Vec<RawOp>,
    /// The first client operation that is not a transaction (its `:f` is not `:txn` and its
    /// value is not a vector of micro-operations).
    pub first_non_txn: Option<RawOp>,
    /// Operation maps seen.
    pub ops: u64,
}

/// At most this many nemesis operations are kept.
pub const MAX_NEMESIS: usize = 10_000;

/// Scan EDN or JSON history text (one map per line, or one vector of maps).
pub fn scan(text: &[u8]) -> Scan {
    let first = text.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let json = match first {
        Some(b'{') => text.iter().skip_while(|b| b.is_ascii_whitespace()).nth(1).is_some_and(|&b| b == b'"'),
        Some(b'[') => {
            let mut it = text.iter().filter(|b| !b.is_ascii_whitespace()).skip(1);
            it.next() == Some(&b'{') && it.next() == Some(&b'"')
        }
        _ => false,
    };
    if json {
        scan_json(text)
    } else {
        scan_edn(text)
    }
}

/// The nemesis operations of [`scan`], without scanning a history that has none: a nemesis has
/// a process that is not a number, so when no `:process` (EDN) or `"process"` (JSON) is followed
/// by anything but a digit, there is nothing to find. The bindings call this on every history
/// they read; the full scan costs twice the reading itself on a 1M-transaction history.
pub fn nemesis(text: &[u8]) -> Vec<RawOp> {
    if may_have_nemesis(text) {
        scan(text).nemesis
    } else {
        Vec::new()
    }
}

/// Whether some process is written as anything but a number (a superset of the nemesis's
/// operations: a negative process or the word in a string also answer yes).
fn may_have_nemesis(text: &[u8]) -> bool {
    let non_numeric = |after: &[u8]| {
        let mut i = after.iter().skip_while(|b| b" \t\r\n,".contains(b));
        i.next().is_some_and(|b| !b.is_ascii_digit())
    };
    let edn = memchr::memmem::find_iter(text, b":process").any(|i| non_numeric(&text[i + 8..]));
    edn || memchr::memmem::find_iter(text, b"\"process\"").any(|i| {
        let rest = &text[i + 9..];
        let colon = rest.iter().position(|b| !b" \t\r\n".contains(b));
        colon.is_some_and(|c| rest[c] == b':' && non_numeric(&rest[c + 1..]))
    })
}

fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() <= 120 {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(117).collect();
        t.push_str("...");
        t
    }
}

/// Collect an operation from its fields; `value_is_txn` says whether the value is a vector of
/// vectors (micro-operations).
fn record(out: &mut Scan, op: RawOp, process_numeric: bool, value_is_txn: bool) {
    if !process_numeric && !op.process.is_empty() {
        if out.nemesis.len() < MAX_NEMESIS {
            out.nemesis.push(op);
        }
    } else if out.first_non_txn.is_none() && !(op.f.is_empty() || op.f == "txn") && !value_is_txn && op.ty != "invoke" {
        out.first_non_txn = Some(op);
    }
}

fn scan_json(text: &[u8]) -> Scan {
    let mut out = Scan::default();
    let trimmed = text.iter().position(|b| !b.is_ascii_whitespace()).map_or(&text[..0], |i| &text[i..]);
    let values: Vec<serde_json::Value> = if trimmed.first() == Some(&b'[') {
        match serde_json::from_slice::<serde_json::Value>(trimmed) {
            Ok(serde_json::Value::Array(a)) => a,
            _ => Vec::new(),
        }
    } else {
        serde_json::Deserializer::from_slice(trimmed).into_iter::<serde_json::Value>().map_while(Result::ok).collect()
    };
    for (pos, v) in values.iter().enumerate() {
        let serde_json::Value::Object(m) = v else { continue };
        out.ops += 1;
        let s = |k: &str| m.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
        let process = match m.get("process") {
            Some(serde_json::Value::String(p)) => (p.clone(), false),
            Some(serde_json::Value::Number(n)) => (n.to_string(), true),
            _ => (String::new(), true),
        };
        let value = m.get("value");
        let value_is_txn =
            matches!(value, Some(serde_json::Value::Array(a)) if a.first().is_some_and(|x| x.is_array()));
        let op = RawOp {
            pos: pos as u64,
            index: m.get("index").and_then(|x| x.as_i64()),
            time: m.get("time").and_then(|x| x.as_i64()),
            ty: s("type"),
            f: s("f"),
            process: process.0,
            value: value.map_or(String::new(), |v| shorten(&v.to_string())),
        };
        record(&mut out, op, process.1, value_is_txn);
    }
    out
}

/// The byte spans of the forms directly inside a collection starting at `open` (a `{`, `[` or
/// `(`), and the position after its closing bracket.
fn forms(s: &[u8], open: usize) -> (Vec<(usize, usize)>, usize) {
    let mut spans = Vec::new();
    let mut i = open + 1;
    loop {
        i = skip_space(s, i);
        match s.get(i) {
            None => return (spans, i),
            Some(b'}' | b']' | b')') => return (spans, i + 1),
            Some(_) => {
                let end = form_end(s, i);
                if end <= i {
                    return (spans, s.len());
                }
                spans.push((i, end));
                i = end;
            }
        }
    }
}

/// Skip whitespace, commas and comments. (A `#_` discard is skipped as two characters: the form
/// it discards is then read like any other, which costs nothing but an extra count.)
fn skip_space(s: &[u8], mut i: usize) -> usize {
    while let Some(&b) = s.get(i) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
            b';' => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
            }
            b'#' if s.get(i + 1) == Some(&b'_') => i += 2,
            _ => break,
        }
    }
    i
}

/// The end of a string starting at `i` (after its closing quote).
fn string_end(s: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < s.len() {
        match s[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    s.len()
}

/// The position after the bracket closing the collection opened at `i`; iterative, so that no
/// nesting depth can exhaust the stack.
fn close_of(s: &[u8], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < s.len() {
        match s[j] {
            b'{' | b'[' | b'(' => {
                depth += 1;
                j += 1;
            }
            b'}' | b']' | b')' => {
                depth = depth.saturating_sub(1);
                j += 1;
                if depth == 0 {
                    return j;
                }
            }
            b'"' => j = string_end(s, j),
            b'\\' => j += 2,
            b';' => {
                while j < s.len() && s[j] != b'\n' {
                    j += 1;
                }
            }
            _ => j += 1,
        }
    }
    s.len()
}

/// The end of the form starting at `i` (a tagged literal takes the form after its tag).
fn form_end(s: &[u8], mut i: usize) -> usize {
    loop {
        match s.get(i) {
            None => return i,
            Some(b'#') if s.get(i + 1) == Some(&b'{') => return close_of(s, i + 1),
            Some(b'#') => {
                let mut j = i + 1;
                while j < s.len() && !is_delim(s[j]) {
                    j += 1;
                }
                let k = skip_space(s, j);
                if k >= s.len() || matches!(s[k], b'}' | b']' | b')') {
                    return j.max(i + 1);
                }
                i = k;
            }
            Some(b'{' | b'[' | b'(') => return close_of(s, i),
            Some(b'"') => return string_end(s, i),
            Some(b'\\') => {
                let mut j = i + 2;
                while j < s.len() && !is_delim(s[j]) {
                    j += 1;
                }
                return j.min(s.len()).max(i + 1);
            }
            Some(_) => {
                let mut j = i + 1;
                while j < s.len() && !is_delim(s[j]) {
                    j += 1;
                }
                return j;
            }
        }
    }
}

fn is_delim(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'"' | b';')
}

fn scan_edn(s: &[u8]) -> Scan {
    let mut out = Scan::default();
    let mut i = skip_space(s, 0);
    // One vector (or list) of maps, or maps one after another.
    let mut maps: Vec<(usize, usize)> = Vec::new();
    while i < s.len() {
        let end = form_end(s, i);
        if end <= i {
            break;
        }
        match s[i] {
            b'{' => maps.push((i, end)),
            b'[' | b'(' => maps.extend(forms(s, i).0.into_iter().filter(|(a, _)| s[*a] == b'{')),
            _ => {}
        }
        i = skip_space(s, end);
    }
    for (pos, &(a, _)) in maps.iter().enumerate() {
        out.ops += 1;
        let spans = forms(s, a).0;
        let text = |(x, y): (usize, usize)| String::from_utf8_lossy(&s[x..y]).into_owned();
        let mut op = RawOp {
            pos: pos as u64,
            index: None,
            time: None,
            ty: String::new(),
            f: String::new(),
            process: String::new(),
            value: String::new(),
        };
        let (mut numeric, mut value_is_txn) = (true, false);
        for kv in spans.chunks(2) {
            let [k, v] = kv else { continue };
            let (key, val) = (text(*k), text(*v));
            let bare = |x: &str| x.trim_start_matches(':').to_string();
            match key.as_str() {
                ":index" => op.index = val.parse().ok(),
                ":time" => op.time = val.parse().ok(),
                ":type" => op.ty = bare(&val),
                ":f" => op.f = bare(&val),
                ":process" => {
                    numeric = val.parse::<i64>().is_ok() || val == "nil";
                    op.process = if val == "nil" { String::new() } else { bare(&val) };
                }
                ":value" => {
                    value_is_txn = s[v.0] == b'[' && forms(s, v.0).0.first().is_some_and(|f| s[f.0] == b'[');
                    op.value = shorten(&val);
                }
                _ => {}
            }
        }
        record(&mut out, op, numeric, value_is_txn);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{nemesis, scan};

    #[test]
    fn nemesis_operations_are_found_with_their_positions() {
        let edn = "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 0, :time 5, :index 0}\n\
                   {:type :info, :f :start-partition, :value \"majority\", :process :nemesis, :time 7, :index 1}\n\
                   ; a comment {:process :nemesis}\n\
                   {:type :ok, :f :txn, :value [[:r :x [1]]], :process 0, :time 9, :index 2}\n\
                   {:type :info, :f :stop-partition, :value nil, :process :nemesis, :time 11, :index 3}\n";
        let s = scan(edn.as_bytes());
        assert_eq!(s.ops, 4);
        assert_eq!(s.nemesis.len(), 2);
        assert_eq!((s.nemesis[0].pos, s.nemesis[0].time, s.nemesis[0].f.as_str()), (1, Some(7), "start-partition"));
        assert_eq!(s.nemesis[1].process, "nemesis");
        assert!(s.first_non_txn.is_none());
        let vec = format!("[{}]", edn.replace(";", ";;"));
        assert_eq!(scan(vec.as_bytes()).nemesis.len(), 2);
        let json = r#"[{"type":"info","f":"kill","process":"nemesis","index":4,"time":3},
                       {"type":"ok","f":"transfer","process":1,"value":{"from":1,"to":2}}]"#;
        let s = scan(json.as_bytes());
        assert_eq!((s.nemesis.len(), s.nemesis[0].f.as_str()), (1, "kill"));
        assert_eq!(s.first_non_txn.as_ref().map(|o| o.f.as_str()), Some("transfer"));
        let bank = "{:type :ok, :f :read, :process 0, :index 1, :value {0 10, 1 20}}";
        assert_eq!(scan(bank.as_bytes()).first_non_txn.map(|o| o.index), Some(Some(1)));
        // Garbage never panics.
        for junk in ["{", "[{:a", "\"", "#_", "{:process :nemesis :value [[", "#tag", "\\", "#a #b #c"] {
            let _ = scan(junk.as_bytes());
        }
        let deep = "[".repeat(1_000_000);
        assert_eq!(scan(deep.as_bytes()).ops, 0);
    }

    #[test]
    fn nemesis_skips_the_scan_only_when_every_process_is_a_number() {
        let client = "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 0, :index 0}\n";
        let json_client = r#"{"type": "ok", "process" : 3, "value": [["r", "x", 1]]}"#;
        assert!(!super::may_have_nemesis(client.as_bytes()) && !super::may_have_nemesis(json_client.as_bytes()));
        for text in [
            format!("{client}{{:type :info, :f :kill, :process :nemesis, :index 1}}\n"),
            format!("[{client} {{:process,:nemesis :f :start}}]"),
            r#"[{"type":"info","f":"kill","process" :  "nemesis","index":4}]"#.to_string(),
            "{:process \"nemesis\", :f :heal}".to_string(),
        ] {
            let found = nemesis(text.as_bytes());
            assert_eq!(found, scan(text.as_bytes()).nemesis, "{text}");
            assert_eq!(found.len(), 1, "{text}");
        }
        for junk in [":process", "\"process\"", "\"process\" :", "{:process"] {
            assert_eq!(nemesis(junk.as_bytes()), scan(junk.as_bytes()).nemesis);
        }
    }
}
