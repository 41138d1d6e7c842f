//! Errors with a place: line and column in the input, or the transaction.

use serde::Serialize;
use std::fmt;

/// What went wrong, so that bindings can map each kind to their own error type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The text is not well-formed EDN or JSON.
    Syntax,
    /// Well-formed, but not the shape a history has (a missing `:value`, an unknown op, ...).
    Shape,
    /// The history mixes list appends and register writes.
    MixedModel,
    /// The write-ahead log is malformed or does not fit the history.
    Wal,
    /// The format could not be recognised, or an option is invalid.
    Usage,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 5] =
        [ErrorKind::Syntax, ErrorKind::Shape, ErrorKind::MixedModel, ErrorKind::Wal, ErrorKind::Usage];
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Shape => "shape",
            ErrorKind::MixedModel => "mixed-model",
            ErrorKind::Wal => "wal",
            ErrorKind::Usage => "usage",
        }
    }
}

/// An error reading a history or its options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// 1-based line, when the error has a place in the text.
    pub line: Option<u32>,
    /// 1-based column (in characters), when the error has a place in the text.
    pub column: Option<u32>,
    /// The transaction's id, when the error is about one transaction.
    pub txn: Option<u64>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), line: None, column: None, txn: None }
    }

    pub fn at(kind: ErrorKind, line: u32, column: u32, message: impl Into<String>) -> Error {
        Error { line: Some(line), column: Some(column), ..Error::new(kind, message) }
    }

    /// Place an error at a byte offset of `text`.
    pub fn at_offset(kind: ErrorKind, text: &[u8], offset: usize, message: impl Into<String>) -> Error {
        let (line, column) = line_col(text, offset);
        Error::at(kind, line, column, message)
    }

    pub fn with_txn(mut self, id: u64) -> Error {
        self.txn = Some(id);
        self
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line as u32, column as u32)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column, self.txn) {
            (Some(l), Some(c), _) => write!(f, "line {l}, column {c}: {}", self.message),
            (Some(l), None, _) => write!(f, "line {l}: {}", self.message),
            (None, _, Some(t)) => write!(f, "transaction {t}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}
