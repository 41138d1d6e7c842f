//! A history's bytes: a regular file mapped into memory (memmap2), standard input or a gzip file
//! read into a buffer. Mapping spares the copy `std::fs::read` makes (0.4 s for a 330 MB file
//! here); the parsers take a byte slice either way.

use std::io::Read;
use std::ops::Deref;
use std::path::Path;

pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Bytes {
    /// A mapped file (not a buffer).
    pub fn is_mapped(&self) -> bool {
        matches!(self, Bytes::Mapped(_))
    }

    /// Let the mapped pages of `..end` go (the reader is done with them): at 10M transactions
    /// the 4 GB file otherwise stays resident next to the history. Nothing for a buffer.
    pub fn release(&self, start: usize, end: usize) {
        if let Bytes::Mapped(m) = self {
            let page = 4096;
            let (start, end) = (start / page * page, end / page * page);
            if end > start {
                // SAFETY: the map is a read-only file mapping: pages dropped are read again from
                // the file when touched, with the same contents.
                let _ = unsafe { m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start) };
            }
        }
    }
}

/// The bytes of `path` (`-`: standard input), gzip undone.
pub fn slurp(path: &Path) -> Result<Bytes, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| format!("reading standard input: {e}"))?;
        return crate::elle::gunzip(buf, path).map(Bytes::Owned);
    }
    let file = std::fs::File::open(path).map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    if !meta.is_file() || meta.len() == 0 {
        // Pipes, devices and empty files: read as a stream.
        return crate::elle::gunzip(std::fs::read(path).map_err(err)?, path).map(Bytes::Owned);
    }
    // SAFETY: the map is read-only and private to this process; if another process truncates
    // the file while it is read, accesses past the new end fault (SIGBUS), as with any mapped
    // reader. grail reads its input at start, and with --json reads again the operations a
    // report shows (their spans, grail_core::read::attach_input) as it writes the report.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(err)?;
    if map.starts_with(&[0x1f, 0x8b]) {
        return crate::elle::gunzip(map.to_vec(), path).map(Bytes::Owned);
    }
    Ok(Bytes::Mapped(map))
}
