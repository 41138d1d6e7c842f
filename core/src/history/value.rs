//! Keys and values: integers, or strings interned to a small symbol.

use crate::hash::Map;

/// An interned string.
pub type Sym = u32;

/// A key or a value: histories use integers or strings (EDN symbols, keywords and strings all
/// become strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Int(i64),
    Str(Sym),
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
