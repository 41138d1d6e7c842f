//! Where a live stream's bytes come from: standard input, or a file still being written
//! (`--follow`, as `tail -F`: it waits at the end for more, and reads the file anew when it is
//! replaced or truncated). A thread of its own reads, so that the checker's loop can notice
//! SIGINT and SIGTERM between chunks even while a read blocks; once the stream is known to be
//! live, another thread turns its lines into records (core's `Lines`), so that reading records
//! and checking them use both cores.

use grail_core::online::stream::{Lines, Record, Records};
use grail_core::Format;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long a followed file's end waits before it looks again, and the checker's loop between
/// two looks at the stop flag.
const POLL: Duration = Duration::from_millis(100);

/// Chunks read ahead of the checker at most, and their size.
const CHUNKS_AHEAD: usize = 16;
const CHUNK: usize = 1 << 20;

/// A chunk of the stream, its end, or why it broke.
pub enum Chunk {
    Data(Vec<u8>),
    End,
    Failed(String),
}

/// What the checker's loop gets next.
pub enum Next {
    Chunk(Chunk),
    /// SIGINT or SIGTERM arrived: stop, and say what was checked.
    Stop,
}

static STOP: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst); // async-signal-safe: one atomic store
}

/// From here on SIGINT and SIGTERM set the stop flag instead of ending the process.
pub fn catch_stop() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic; the function pointer is a valid handler.
    unsafe {
        libc::signal(libc::SIGINT, on_stop as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_stop as *const () as libc::sighandler_t);
    }
}

/// SIGINT and SIGTERM end the process again (their default actions).
pub fn release_stop() {
    #[cfg(unix)]
    // SAFETY: SIG_DFL is a valid action for both signals.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
}

/// The stream's chunks, read on a thread: standard input, or `path` followed.
pub struct Source {
    rx: Receiver<Chunk>,
}

impl Source {
    pub fn stdin() -> Source {
        Source::spawn(move |tx| {
            let mut input = std::io::stdin().lock();
            let mut buf = vec![0u8; CHUNK];
            loop {
                match input.read(&mut buf) {
                    Ok(0) => return tx.send(Chunk::End).is_ok(),
                    Ok(n) => {
                        if tx.send(Chunk::Data(buf[..n].to_vec())).is_err() {
                            return false;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return tx.send(Chunk::Failed(format!("reading standard input: {e}"))).is_ok(),
                }
            }
        })
    }

    pub fn follow(path: &Path) -> Source {
        let path = path.to_path_buf();
        Source::spawn(move |tx| follow_file(&path, tx))
    }

    fn spawn(read: impl FnOnce(mpsc::SyncSender<Chunk>) -> bool + Send + 'static) -> Source {
        // Bounded: a writer faster than the checker waits, instead of the stream piling up here.
        let (tx, rx) = mpsc::sync_channel(CHUNKS_AHEAD);
        std::thread::spawn(move || read(tx));
        Source { rx }
    }

    /// The next chunk, or `Stop` once a stop signal has arrived.
    pub fn next(&self) -> Next {
        match recv_or_stop(&self.rx) {
            Some(Some(c)) => Next::Chunk(c),
            Some(None) => Next::Chunk(Chunk::End),
            None => Next::Stop,
        }
    }

    /// The rest of the stream (after `first`, the bytes taken already) as records, read on a
    /// thread of their own.
    pub fn records<R: Record>(self, first: Vec<u8>, format: Format, ended: bool) -> RecordSource<R> {
        let (tx, rx) = mpsc::sync_channel(CHUNKS_AHEAD);
        // Records come back here to be freed on the thread that made them: glibc's malloc
        // serializes the two threads when one frees what the other allocated.
        let (done_tx, done) = mpsc::channel::<Vec<R>>();
        let chunks = self.rx;
        std::thread::spawn(move || {
            let mut lines = Lines::<R>::new(format);
            let mut next = Some(first);
            loop {
                while done.try_recv().is_ok() {}
                let data = match next.take() {
                    Some(d) => d,
                    // The stream's end came with its first bytes (taken before this thread).
                    None if ended => {
                        let last = lines.finish();
                        let _ = tx.send(Parsed::Records(last, lines.lines()));
                        return tx.send(Parsed::End).is_ok();
                    }
                    None => match chunks.recv() {
                        Ok(Chunk::Data(d)) => d,
                        Ok(Chunk::Failed(e)) => return tx.send(Parsed::Failed(e)).is_ok(),
                        // The reading thread ended without saying so: not the stream's end.
                        Err(_) => return tx.send(Parsed::Failed("the reading thread stopped".into())).is_ok(),
                        Ok(Chunk::End) => {
                            let last = lines.finish();
                            let _ = tx.send(Parsed::Records(last, lines.lines()));
                            return tx.send(Parsed::End).is_ok();
                        }
                    },
                };
                let r = lines.feed(&data);
                let refused = r.error.is_some();
                if tx.send(Parsed::Records(r, lines.lines())).is_err() || refused {
                    return false;
                }
            }
        });
        RecordSource { rx, done: done_tx }
    }
}

/// Records of a live stream, and how many lines they came from so far.
pub enum Parsed<R> {
    Records(Records<R>, u32),
    End,
    Failed(String),
}

/// The records of a stream, read on their own thread.
pub struct RecordSource<R> {
    rx: Receiver<Parsed<R>>,
    done: mpsc::Sender<Vec<R>>,
}

impl<R> RecordSource<R> {
    /// The next records, or `None` once a stop signal has arrived; `idle` is called at each poll
    /// that none came within (the input paused: a checker may report what it held back, or
    /// read what a followed write-ahead log gained meanwhile), and stops the wait when it says
    /// so (`false`: it failed; `Parsed::Failed` with no message, the caller holding the error).
    pub fn next_idle(&self, idle: &mut dyn FnMut() -> bool) -> Option<Parsed<R>> {
        loop {
            if STOP.load(Ordering::SeqCst) {
                return None;
            }
            match self.rx.recv_timeout(POLL) {
                Ok(c) => return Some(c),
                Err(RecvTimeoutError::Timeout) => {
                    if !idle() {
                        return Some(Parsed::Failed(String::new()));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Some(Parsed::Failed("the records thread stopped".into()))
                }
            }
        }
    }

    /// Records checked: handed back to be freed where they were made.
    pub fn done(&self, txns: Vec<R>) {
        let _ = self.done.send(txns);
    }
}

/// The next message (`Some(None)` when the sender is gone), or `None` once a stop signal has
/// arrived.
fn recv_or_stop<T>(rx: &Receiver<T>) -> Option<Option<T>> {
    loop {
        if STOP.load(Ordering::SeqCst) {
            return None;
        }
        match rx.recv_timeout(POLL) {
            Ok(c) => return Some(Some(c)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Some(None),
        }
    }
}

/// The identity of the file a path names now (device and inode on Unix; the size elsewhere).
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        (0, meta.len())
    }
}

/// `tail -F`: read to the end, wait, read what was appended; a file replaced (another inode at
/// the path) or truncated (shorter than what was read) is read again from its start.
fn follow_file(path: &PathBuf, tx: mpsc::SyncSender<Chunk>) -> bool {
    let fail = |e: std::io::Error| Chunk::Failed(format!("{}: {e}", path.display()));
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return tx.send(fail(e)).is_ok(),
    };
    let mut id = file.metadata().map(|m| identity(&m)).unwrap_or_default();
    let mut read_so_far: u64 = 0;
    let mut buf = vec![0u8; CHUNK];
    loop {
        match file.read(&mut buf) {
            Ok(0) => {
                std::thread::sleep(POLL);
                // Replaced or truncated: the path's file now, from its start.
                if let Ok(meta) = std::fs::metadata(path) {
                    if identity(&meta) != id || meta.len() < read_so_far {
                        if let Ok(f) = std::fs::File::open(path) {
                            file = f;
                            id = identity(&meta);
                            read_so_far = 0;
                        }
                    }
                }
            }
            Ok(n) => {
                read_so_far += n as u64;
                if tx.send(Chunk::Data(buf[..n].to_vec())).is_err() {
                    return false;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return tx.send(fail(e)).is_ok(),
        }
    }
}
