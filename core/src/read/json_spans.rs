//! Where the entries of a JSON history and their operations are in the text (serde_json's values
//! carry no positions): one scan of text serde_json has already accepted, knowing only strings,
//! nesting and object keys.

use crate::history::Span;

/// How the entries sit in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `[entry, ...]`
    Array,
    /// `{"transactions": [entry, ...], ...}`
    Document,
    /// One entry a line (any number of top-level objects).
    Lines,
}

/// The operation arrays of an entry: native transactions have `"ops"`, elle-cli operations
/// `"value"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Ops,
    Value,
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    span: Span,
    /// Ranges in [`JsonSpans::ops`] of the elements of the entry's `"ops"` and `"value"` arrays.
    ops: (u32, u32),
    value: (u32, u32),
}

/// The span of every entry, and of every array element of its `"ops"` and `"value"` arrays.
#[derive(Debug, Default)]
pub(crate) struct JsonSpans {
    entries: Vec<Entry>,
    ops: Vec<Span>,
}

impl JsonSpans {
    /// The span of entry `i` (0-based, as serde_json numbers them).
    pub fn entry(&self, i: usize) -> Option<Span> {
        self.entries.get(i).map(|e| e.span)
    }

    /// The spans of the elements of entry `i`'s operation array (empty when unknown).
    pub fn ops(&self, i: usize, field: Field) -> &[Span] {
        let Some(e) = self.entries.get(i) else {
            return &[];
        };
        let (a, b) = match field {
            Field::Ops => e.ops,
            Field::Value => e.value,
        };
        self.ops.get(a as usize..b as usize).unwrap_or(&[])
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The top-level object of the document layout.
    Document,
    /// The array of entries.
    Entries,
    /// An entry; its index in [`JsonSpans::entries`].
    Entry(usize),
    /// An entry's operation array.
    Ops(usize, Field),
    /// One operation, starting at the span's start.
    Op(Span),
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Transactions,
    Ops,
    Value,
    Other,
}

struct Frame {
    role: Role,
    object: bool,
    /// In an object: the next string is a key.
    expect_key: bool,
    /// In an object: the key whose value comes next.
    key: Key,
}

/// Scan `text` (JSON that serde_json read without error) in the given layout.
pub(crate) fn scan(text: &[u8], layout: Layout) -> JsonSpans {
    let mut out = JsonSpans::default();
    let mut stack: Vec<Frame> = Vec::new();
    let (mut line, mut column) = (1u32, 0u32);
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b == b'\n' {
            line += 1;
            column = 0;
            i += 1;
            continue;
        }
        if b & 0xC0 != 0x80 {
            column += 1; // a character starts here
        }
        match b {
            b'"' => {
                let start = i + 1;
                i = string_end(text, start, &mut column);
                if let Some(f) = stack.last_mut().filter(|f| f.object && f.expect_key) {
                    f.expect_key = false;
                    f.key = match &text[start..i.saturating_sub(1).max(start)] {
                        b"transactions" => Key::Transactions,
                        b"ops" => Key::Ops,
                        b"value" => Key::Value,
                        _ => Key::Other,
                    };
                }
                continue;
            }
            b',' => {
                if let Some(f) = stack.last_mut().filter(|f| f.object) {
                    f.expect_key = true;
                }
            }
            b'{' | b'[' => {
                let here = Span { start: i as u64, end: i as u64, line, column };
                let role = match (stack.last(), b) {
                    (None, b'[') if layout == Layout::Array => Role::Entries,
                    (None, b'{') if layout == Layout::Document => Role::Document,
                    (None, b'{') if layout == Layout::Lines => Role::Entry(out.entries.len()),
                    (Some(f), b'[') if f.role == Role::Document && f.key == Key::Transactions => Role::Entries,
                    (Some(f), b'{') if f.role == Role::Entries => Role::Entry(out.entries.len()),
                    (Some(&Frame { role: Role::Entry(e), key: Key::Ops, .. }), b'[') => Role::Ops(e, Field::Ops),
                    (Some(&Frame { role: Role::Entry(e), key: Key::Value, .. }), b'[') => Role::Ops(e, Field::Value),
                    // Jepsen's operations are vectors; TimeKiller's are objects.
                    (Some(&Frame { role: Role::Ops(..), .. }), _) => Role::Op(here),
                    _ => Role::Other,
                };
                match role {
                    Role::Entry(_) => out.entries.push(Entry { span: here, ..Default::default() }),
                    Role::Ops(e, field) => {
                        // A repeated key: the last one counts, as in serde_json's map.
                        let n = out.ops.len() as u32;
                        let r = &mut out.entries[e];
                        *(if field == Field::Ops { &mut r.ops } else { &mut r.value }) = (n, n);
                    }
                    _ => {}
                }
                stack.push(Frame { role, object: b == b'{', expect_key: b == b'{', key: Key::Other });
            }
            b'}' | b']' => {
                let end = i as u64 + 1;
                match stack.pop().map(|f| f.role) {
                    Some(Role::Entry(e)) => out.entries[e].span.end = end,
                    Some(Role::Ops(e, field)) => {
                        let r = &mut out.entries[e];
                        let range = if field == Field::Ops { &mut r.ops } else { &mut r.value };
                        range.1 = out.ops.len() as u32;
                    }
                    Some(Role::Op(start)) => out.ops.push(Span { end, ..start }),
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The position after the closing quote of a string whose contents start at `i`, counting the
/// characters passed in `column` (JSON strings hold no raw line breaks).
fn string_end(text: &[u8], mut i: usize, column: &mut u32) -> usize {
    let mut escaped = false;
    while i < text.len() {
        let b = text[i];
        i += 1;
        if b & 0xC0 != 0x80 {
            *column += 1;
        }
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b'"') => return i,
            _ => {}
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slices<'a>(text: &'a str, spans: &[Span]) -> Vec<&'a str> {
        spans.iter().map(|s| &text[s.start as usize..s.end as usize]).collect()
    }

    #[test]
    fn entries_and_operations_of_each_layout() {
        let doc = r#"{"version_order": {"x": [1]}, "transactions": [
  {"id": 1, "label": "[not an op]", "ops": [["w", "x", 1], ["r", "ü", [1, 2]]]},
  {"status": "ok", "ops": []}]}"#;
        let s = scan(doc.as_bytes(), Layout::Document);
        assert_eq!(slices(doc, s.ops(0, Field::Ops)), [r#"["w", "x", 1]"#, r#"["r", "ü", [1, 2]]"#]);
        assert!(s.ops(1, Field::Ops).is_empty());
        assert!(s.ops(0, Field::Value).is_empty() && s.ops(7, Field::Ops).is_empty());
        let e = s.entry(1).unwrap();
        assert_eq!(
            (&doc[e.start as usize..e.end as usize], e.line, e.column),
            (r#"{"status": "ok", "ops": []}"#, 3, 3)
        );
        let op = s.ops(0, Field::Ops)[1];
        assert_eq!((op.line, op.column), (2, 60));

        let lines =
            "{\"type\": \"ok\", \"value\": [[\"append\", 1, 2]]}\n{\"value\": null}\n{\"value\": [[\"r\", 1, [2]]]}";
        let s = scan(lines.as_bytes(), Layout::Lines);
        assert_eq!(slices(lines, s.ops(2, Field::Value)), [r#"["r", 1, [2]]"#]);
        assert_eq!(s.ops(2, Field::Value)[0].line, 3);

        let arr = r#"[{"value": [["append", "\"]", 1]], "f": "txn"}]"#;
        let s = scan(arr.as_bytes(), Layout::Array);
        assert_eq!(slices(arr, s.ops(0, Field::Value)), [r#"["append", "\"]", 1]"#]);
    }
}
