//! Readers: text in, [`History`] out. No file IO: callers hand over bytes (and unzip them).

mod edn;
mod json;
mod pairing;
mod wal;

pub use edn::read_edn;
pub use json::read_json;
pub use wal::read_wal;

use crate::error::{Error, ErrorKind};
use crate::hash::Map;
use crate::history::{History, KeyId, Value};
use serde::{Deserialize, Serialize};

/// The format of a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Decide from the first characters: `{:` or `[{:` is EDN, `{"` or `[{"` is JSON.
    #[default]
    Auto,
    /// Jepsen EDN.
    Edn,
    /// JSON: elle-cli's operations or grail's native transactions (told apart per entry).
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Result<Format, Error> {
        match s {
            "auto" => Ok(Format::Auto),
            "edn" => Ok(Format::Edn),
            "json" | "native" | "elle-json" => Ok(Format::Json),
            _ => Err(Error::new(ErrorKind::Usage, format!("unknown format {s:?}: expected auto, edn or json"))),
        }
    }
}

/// Guess the format from the first meaningful characters.
pub fn detect(text: &[u8]) -> Format {
    let mut it = text.iter().copied().enumerate().peekable();
    let mut after_bracket = false;
    while let Some((_, b)) = it.next() {
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
            b';' => {
                for (_, c) in it.by_ref() {
                    if c == b'\n' {
                        break;
                    }
                }
            }
            b'[' if !after_bracket => after_bracket = true,
            b'{' => {
                for (_, c) in it.by_ref() {
                    match c {
                        b' ' | b'\t' | b'\r' | b'\n' => continue,
                        b'"' => return Format::Json,
                        _ => return Format::Edn,
                    }
                }
                return Format::Edn;
            }
            b'"' => return Format::Json,
            _ => return Format::Edn,
        }
    }
    Format::Edn
}

/// Read a history in the given format.
pub fn read(text: &[u8], format: Format) -> Result<History, Error> {
    match format {
        Format::Auto => read(text, detect(text)),
        Format::Edn => read_edn(text),
        Format::Json => read_json(text),
    }
}

/// History keys by their text (`1` and `"1"` alike), to match logs that print keys as strings.
pub(crate) fn key_index(h: &History) -> Map<String, KeyId> {
    h.keys
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let text = match k {
                Value::Int(i) => i.to_string(),
                Value::Str(s) => h.strings.get(s).to_string(),
            };
            (text, i as KeyId)
        })
        .collect()
}

/// The place of a serde_json error as grail gives places: 1-based line and column in characters.
/// (serde_json counts bytes, and puts an end of input right after a line break at column 0.)
pub(crate) fn serde_place(text: &[u8], e: &serde_json::Error) -> (u32, u32) {
    let line = e.line().max(1);
    let line_start = if line == 1 {
        0
    } else {
        text.iter().enumerate().filter(|&(_, &b)| b == b'\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
    };
    let mut offset = (line_start + e.column().max(1) - 1).min(text.len());
    while offset > line_start && text.get(offset).is_some_and(|&b| b & 0xC0 == 0x80) {
        offset -= 1; // back to the first byte of a character
    }
    crate::error::line_col(text, offset)
}
