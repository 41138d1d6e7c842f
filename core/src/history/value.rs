//! Keys and values: integers, or strings interned to a small symbol.

use crate::hash::Map;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// An interned string.
pub type Sym = u32;

/// A key or a value: histories use integers or strings (EDN symbols, keywords and strings all
/// become strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Int(i64),
    Str(Sym),
}

/// A key or a value, owned: not interned, for what outlives one history's interner (the
/// online checkers' windows).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Atom {
    Int(i64),
    Str(String),
}

impl Atom {
    /// A history's value, owned.
    pub fn of(h: &super::History, v: Value) -> Atom {
        match v {
            Value::Int(i) => Atom::Int(i),
            Value::Str(s) => Atom::Str(h.strings.get(s).to_string()),
        }
    }

    /// As JSON (numbers stay numbers), as reports show keys.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Atom::Int(i) => serde_json::Value::from(*i),
            Atom::Str(s) => serde_json::Value::from(s.as_str()),
        }
    }
}

/// String interner.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    strings: Vec<Box<str>>,
    index: Map<Box<str>, Sym>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = self.strings.len() as Sym;
        self.strings.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    /// How many distinct strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    pub fn get(&self, s: Sym) -> &str {
        &self.strings[s as usize]
    }

    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.index.get(s).copied()
    }
}

/// `s` in EDN notation that reads back as this same string: bare when it is a symbol the reader
/// takes as itself (`members`), quoted otherwise (`"a b"`, `"nil"`, `"12"`), so that no shown
/// string can be taken for another value.
pub fn write_edn_str(out: &mut String, s: &str) {
    if bare(s) {
        out.push_str(s);
    } else {
        write_edn_string(out, s);
    }
}

/// `s` as an EDN keyword (`:deposit`, Jepsen's `:f`) when it can be one, else a string literal.
pub fn write_edn_keyword(out: &mut String, s: &str) {
    if bare(s) || matches!(s, "nil" | "true" | "false") {
        out.push(':');
        out.push_str(s);
    } else {
        write_edn_string(out, s);
    }
}

/// A symbol the EDN reader takes as this same string.
fn bare(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"-_.*+!?<>=".contains(&b))
        && !matches!(s, "nil" | "true" | "false")
}

/// A string literal, escaped as Clojure's reader unescapes it.
pub fn write_edn_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
