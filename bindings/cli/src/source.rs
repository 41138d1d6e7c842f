//! Where a live stream's bytes come from: standard input, or a file still being written
//! (`--follow`, as `tail -F`: it waits at the end for more, and reads the file anew when it is
//! replaced or truncated). A thread of its own reads, so that the checker's loop can notice
//! SIGINT and SIGTERM between chunks even while a read blocks.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long a followed file's end waits before it looks again, and the checker's loop between
/// two looks at the stop flag.
const POLL: Duration = Duration::from_millis(100);

/// Chunks read ahead of the checker at most, and their size.
const CHUNKS_AHEAD: usize = 4;
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
        loop {
            if STOP.load(Ordering::SeqCst) {
                return Next::Stop;
            }
            match self.rx.recv_timeout(POLL) {
                Ok(c) => return Next::Chunk(c),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Next::Chunk(Chunk::End),
            }
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
