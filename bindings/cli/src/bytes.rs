//! A history's bytes: a regular file mapped into memory (memmap2), standard input or a gzip file
//! read into a buffer. Mapping spares the copy `std::fs::read` makes (0.4 s for a 330 MB file
//! here); the parsers take a byte slice either way.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

pub enum Bytes {
    /// The map, and the file for reading by range once the map is gone ([`Bytes::by_range`]).
    Mapped(memmap2::Mmap, std::fs::File),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m, _) => m,
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
    /// A mapped file's text read by range, for what is looked up in it after the read
    /// (operations' spans, as a report shows them); `None` for a buffer, and off Unix (no
    /// `pread` there: every span is recorded as the history is read).
    pub fn by_range(&self) -> Option<Arc<dyn grail_core::read::InputText>> {
        match self {
            #[cfg(unix)]
            Bytes::Mapped(m, f) => Some(Arc::new(FileText { file: f.try_clone().ok()?, len: m.len() })),
            _ => None,
        }
    }

    /// Let the mapped pages of `..end` go (the reader is done with them): at 10M transactions
    /// the 4 GB file otherwise stays resident next to the history. Nothing for a buffer.
    pub fn release(&self, start: usize, end: usize) {
        if let Bytes::Mapped(m, _) = self {
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
    // reader. grail reads its input through the map at start only; the operations a report
    // shows later (their spans, grail_core::read::attach_input) are read from the file.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(err)?;
    if map.starts_with(&[0x1f, 0x8b]) {
        return crate::elle::gunzip(map.to_vec(), path).map(Bytes::Owned);
    }
    Ok(Bytes::Mapped(map, file))
}

#[cfg(unix)]
/// A file read by range (`pread`): the places a report looks up after the read, a few
/// kilobytes each, where a touch of the mapped file brought its neighbouring pages into the
/// process too (1.2 GB for a report of 5,436 findings at 10M transactions).
struct FileText {
    file: std::fs::File,
    len: usize,
}

#[cfg(unix)]
impl grail_core::read::InputText for FileText {
    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self, start: usize, end: usize) -> Cow<'_, [u8]> {
        let end = end.min(self.len);
        let start = start.min(end);
        let mut buf = vec![0u8; end - start];
        match std::os::unix::fs::FileExt::read_exact_at(&self.file, &mut buf, start as u64) {
            Ok(()) => Cow::Owned(buf),
            // Core takes a short answer as a text it cannot read: no span, no error.
            Err(_) => Cow::Owned(Vec::new()),
        }
    }
}
