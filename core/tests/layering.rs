//! The layering of `src/`: every `crate::` path (in `use` lines, grouped `use crate::{a, b::c}`
//! forms and inline paths alike; comments, doc comments and string literals aside) names a
//! top-level module, and a module may name only modules of lower layers than its own, as the
//! numbered list in `src/lib.rs`'s module doc gives them. So the doc and the check cannot
//! disagree, and no two modules import each other, directly or around a circle.
//!
//! A file's module is the first component of its path under `src/` (`level.rs`, `engine/weak.rs`).
//! `super::` paths that climb out of a top-level module count as `crate::` paths. A crate-root
//! re-export (`crate::Report`) is refused: the real path says which module it comes from.
//! (`crate::read(...)` and `crate::infer(...)` name their modules, whose functions they are.)
//!
//! That it can fail was checked by hand, each change made alone and undone:
//! * `use crate::report::Report;` in `src/level.rs`: `a_module_imports_only_lower_layers` failed
//!   with "src/level.rs:14: `level` (layer 5) imports `report` (layer 10)", and
//!   `no_module_imports_another_around_a_circle` with the circle level -> report -> engine -> level;
//! * `use super::super::report::Report as _R;` in `src/graph/search.rs`: the same, for `graph`;
//! * `let _: Option<crate::Report> = None;` in `src/graph/mod.rs`: "`crate::Report` is not a
//!   module (a crate-root re-export from `report`): name the real path";
//! * `history` listed in layer 4 rather than 3: "`graph` (layer 4) imports `history` (layer 4)".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers of `lib.rs`'s doc: `//! 3. \`history\`: ...` gives `history` layer 3.
fn layers() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("//! ") else { continue };
        let Some((num, item)) = rest.split_once(". ") else { continue };
        let Ok(layer) = num.parse::<usize>() else { continue };
        let names = item.split_once(':').map_or(item, |(names, _)| names);
        for name in names.split(',') {
            let name = name.trim().trim_matches('`');
            assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "lib.rs: {line}");
            assert!(out.insert(name.to_string(), layer).is_none(), "lib.rs lists `{name}` twice");
        }
    }
    out
}

/// The modules `lib.rs` declares (`mod x;`, `pub mod x;`).
fn declared() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub ").unwrap_or(l.trim()).strip_prefix("mod "))
        .map(|m| m.trim_end_matches(';').trim().to_string())
        .collect()
}

/// The names `lib.rs` re-exports, with the module each comes from (`Report` -> `report`).
fn reexports() -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = BTreeMap::new();
    for l in lib.lines() {
        let Some(path) = l.trim().strip_prefix("pub use ") else { continue };
        let module = path.split("::").next().unwrap_or("").to_string();
        let names = path.trim_end_matches(';').rsplit("::").next().unwrap_or("");
        for n in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            out.insert(n.trim().to_string(), module.clone());
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code without comments and without the contents of string and char literals, each
/// replaced by spaces (newlines kept, so that lines still count).
fn code(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, x: char| out.push(if x == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && (!ident_before(&c, i) || (c[i - 1] == 'b' && !ident_before(&c, i - 1)))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            let end = (j + 1..c.len())
                .find(|&k| c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#')))
                .unwrap_or(c.len());
            for &x in &c[i..(end + 1 + hashes).min(c.len())] {
                blank(&mut out, x);
            }
            i = end + 1 + hashes;
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && next == Some('\\') {
            // '\n', '\'', '\u{..}'
            let end = (i + 2..c.len()).find(|&k| c[k] == '\'' && k > i + 2).unwrap_or(c.len());
            for &x in &c[i..=end.min(c.len() - 1)] {
                blank(&mut out, x);
            }
            i = end + 1;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn ident_char(x: char) -> bool {
    x.is_alphanumeric() || x == '_'
}

fn ident_before(c: &[char], i: usize) -> bool {
    i > 0 && ident_char(c[i - 1])
}

fn ident_at(c: &[char], mut i: usize) -> (String, usize) {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    let start = i;
    while i < c.len() && ident_char(c[i]) {
        i += 1;
    }
    (c[start..i].iter().collect(), i)
}

/// One `crate::` reference: the line and the first name after `crate::`.
struct Ref {
    line: usize,
    name: String,
}

/// The first names after every `crate::` (and every `super::` chain that climbs to the crate
/// root) in the code of a file nested `depth` modules below the root.
fn refs(code: &str, depth: usize) -> Vec<Ref> {
    let c: Vec<char> = code.chars().collect();
    let line_of = |i: usize| c[..i].iter().filter(|&&x| x == '\n').count() + 1;
    let mut out = Vec::new();
    // Inline modules (`mod tests { ... }`) open at these brace depths.
    let mut braces = 0usize;
    let mut inline: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '{' => braces += 1,
            '}' => {
                braces = braces.saturating_sub(1);
                if inline.last() == Some(&braces) {
                    inline.pop();
                }
            }
            _ => {}
        }
        if ident_before(&c, i) || !ident_char(c[i]) {
            i += 1;
            continue;
        }
        let (word, end) = ident_at(&c, i);
        if word == "mod" {
            let (_, after) = ident_at(&c, end);
            let mut k = after;
            while k < c.len() && c[k].is_whitespace() {
                k += 1;
            }
            if c.get(k) == Some(&'{') {
                inline.push(braces);
            }
        }
        // From the root: `crate::`, or as many `super::` as the nesting.
        let mut at = None;
        if word == "crate" && c.get(end) == Some(&':') && c.get(end + 1) == Some(&':') {
            at = Some(end + 2);
        } else if word == "super" {
            let mut k = i;
            let mut supers = 0;
            loop {
                let (w, e) = ident_at(&c, k);
                if w != "super" || c.get(e) != Some(&':') || c.get(e + 1) != Some(&':') {
                    break;
                }
                supers += 1;
                k = e + 2;
            }
            if supers > 0 && supers >= depth + inline.len() {
                at = Some(k);
            }
            if supers > 0 {
                i = k;
                if at.is_none() {
                    continue;
                }
            }
        }
        let Some(mut k) = at else {
            i = end;
            continue;
        };
        while k < c.len() && c[k].is_whitespace() {
            k += 1;
        }
        if c.get(k) == Some(&'{') {
            // use crate::{a, b::{c, d}}: the first name of each top-level item.
            let mut d = 0;
            let mut item_start = true;
            let mut j = k;
            while j < c.len() {
                match c[j] {
                    '{' => d += 1,
                    '}' => {
                        d -= 1;
                        if d == 0 {
                            break;
                        }
                    }
                    ',' if d == 1 => item_start = true,
                    x if item_start && d == 1 && ident_char(x) => {
                        let (name, e) = ident_at(&c, j);
                        out.push(Ref { line: line_of(j), name });
                        item_start = false;
                        j = e;
                        continue;
                    }
                    _ => {}
                }
                j += 1;
            }
            i = j + 1;
        } else {
            let (name, e) = ident_at(&c, k);
            if !name.is_empty() {
                out.push(Ref { line: line_of(k), name });
            }
            i = e;
        }
    }
    out
}

/// Paths named in attribute strings (`schemars(schema_with = "crate::x::f")`, serde's `with`
/// and `*_with`): a reference as real as a `use`, though the scanner blanks strings.
fn attribute_paths(text: &str) -> Vec<Ref> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("with = \"crate::") {
            rest = &rest[at + "with = \"crate::".len()..];
            let name: String = rest.chars().take_while(|&c| ident_char(c)).collect();
            out.push(Ref { line: i + 1, name });
        }
    }
    out
}

/// A reference of one module to another: where it is, and the two modules.
struct Import {
    file: String,
    line: usize,
    from: String,
    to: String,
}

/// Every reference of one module to another, and the references refused (crate-root
/// re-exports).
fn imports() -> (Vec<Import>, Vec<String>) {
    let root = src();
    let modules = declared();
    let reexported = reexports();
    let mut all = Vec::new();
    files(&root, &mut all);
    all.sort();
    let (mut out, mut refused) = (Vec::new(), Vec::new());
    for path in all {
        let rel = path.strip_prefix(&root).unwrap();
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts == ["lib.rs"] {
            continue;
        }
        let from = parts[0].trim_end_matches(".rs").to_string();
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod.rs"));
        let file = format!("src/{}", parts.join("/"));
        let text = std::fs::read_to_string(&path).unwrap();
        for r in refs(&code(&text), depth).into_iter().chain(attribute_paths(&text)) {
            if r.name == from || r.name == "self" {
                continue;
            }
            if !modules.contains(&r.name) {
                let source = reexported.get(&r.name).map_or("no module", String::as_str);
                refused.push(format!(
                    "{file}:{}: `crate::{}` is not a module (a crate-root re-export from `{source}`): name the real path",
                    r.line, r.name
                ));
                continue;
            }
            out.push(Import { file: file.clone(), line: r.line, from: from.clone(), to: r.name });
        }
    }
    (out, refused)
}

#[test]
fn the_layer_list_names_every_module_once() {
    let layers = layers();
    let mut declared = declared();
    declared.sort();
    let listed: Vec<String> = layers.keys().cloned().collect();
    assert_eq!(listed, declared, "lib.rs's layer list and its `mod` lines differ");
}

#[test]
fn a_module_imports_only_lower_layers() {
    let layers = layers();
    let (imports, mut errors) = imports();
    assert!(imports.len() > 100, "too few imports found ({}): is the scan broken?", imports.len());
    for Import { file, line, from, to } in &imports {
        let (a, b) = (layers[from], layers[to]);
        if b >= a {
            errors.push(format!("{file}:{line}: `{from}` (layer {a}) imports `{to}` (layer {b})"));
        }
    }
    assert!(errors.is_empty(), "imports against the layering of lib.rs:\n{}", errors.join("\n"));
}

#[test]
fn no_module_imports_another_around_a_circle() {
    let (imports, _) = imports();
    let mut graph: BTreeMap<&str, Vec<(&str, &str, usize)>> = BTreeMap::new();
    for Import { file, line, from, to } in &imports {
        graph.entry(from).or_default().push((to, file, *line));
    }
    // Depth-first search; a grey module met again closes a circle.
    fn visit<'a>(
        m: &'a str,
        graph: &BTreeMap<&'a str, Vec<(&'a str, &'a str, usize)>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m, 1);
        for &(to, file, line) in graph.get(m).map_or(&[][..], |v| v) {
            path.push(format!("{m} -> {to} ({file}:{line})"));
            match state.get(to) {
                Some(1) => {
                    let start = path.iter().position(|s| s.starts_with(&format!("{to} -> "))).unwrap_or(0);
                    return Some(path[start..].to_vec());
                }
                None => {
                    if let Some(c) = visit(to, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
            path.pop();
        }
        state.insert(m, 2);
        None
    }
    let mut state = BTreeMap::new();
    for &m in graph.keys() {
        if !state.contains_key(m) {
            if let Some(circle) = visit(m, &graph, &mut state, &mut Vec::new()) {
                panic!("a circle of imports:\n{}", circle.join("\n"));
            }
        }
    }
}

/// The scanner itself: grouped, nested and inline paths are found; comments and strings are not.
#[test]
fn the_scan_finds_paths_and_skips_comments_and_strings() {
    let text = "use crate::{a, b::{c, d}, e::f};\n// crate::g\n/// crate::h\nlet s = \"crate::i\"; let c = '\"';\nlet x = crate::j::k(r#\"crate::l\"#);\n/* crate::m */ mod tests { use super::super::n; }\nfn f<'a>(x: &'a u8) { crate::o(x) }";
    let names: Vec<(usize, String)> = refs(&code(text), 1).into_iter().map(|r| (r.line, r.name)).collect();
    let want: Vec<(usize, String)> =
        [(1, "a"), (1, "b"), (1, "e"), (5, "j"), (6, "n"), (7, "o")].iter().map(|&(l, n)| (l, n.to_string())).collect();
    assert_eq!(names, want);
}
