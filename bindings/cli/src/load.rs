//! From a path to a session: the file's bytes (mapped, stdin or gzip; a folder of Cobra logs)
//! handed to core's one reader, and what the terminal hears of long work.

use crate::args::Input;
use crate::bytes::{slurp, Bytes};
use grail_core::api::{Event, Observer, ReadRequest, Session};
use grail_core::{ErrorKind, Format};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often a long check says it is still at work.
const STILL_CHECKING: Duration = Duration::from_secs(15);

/// Mapped pages are let go in steps of this many bytes: one call per 1 MB chunk cost the
/// replay's thread.
const RELEASE_STEP: usize = 64 << 20;

/// Phase lines on standard error (always with `-v`; for inputs over 20 MB on a terminal), the
/// time limit, the "still checking" word, and the release of a mapped file's pages.
pub struct Progress {
    verbose: bool,
    size: usize,
    /// Where the present phase began.
    since: Instant,
    /// The check's time limit in seconds, and its deadline once the check begins.
    timeout: Option<f64>,
    deadline: Option<Instant>,
    /// Say that a long search is still at work (on a terminal, or with `-v`).
    tell: bool,
    next_word: Instant,
    text: Option<Arc<Bytes>>,
    released: usize,
}

impl Progress {
    pub fn new(input: &Input) -> Progress {
        let now = Instant::now();
        Progress {
            verbose: input.verbose,
            size: 0,
            since: now,
            timeout: None,
            deadline: None,
            tell: input.verbose || std::io::IsTerminal::is_terminal(&std::io::stderr()),
            next_word: now,
            text: None,
            released: 0,
        }
    }

    /// Whether long work tells how it goes: with `-v`, or when standard error is a terminal.
    pub fn tells(&self) -> bool {
        self.tell
    }

    /// Stop searching `seconds` after the search begins.
    pub fn set_timeout(&mut self, seconds: Option<f64>) {
        self.timeout = seconds;
    }

    /// Print a phase line: always with `-v`; for inputs over 20 MB when standard error is a
    /// terminal, so that long work shows progress.
    pub fn say(&self, msg: std::fmt::Arguments) {
        use std::io::IsTerminal;
        if self.verbose || (self.size > 20_000_000 && std::io::stderr().is_terminal()) {
            eprintln!("grail: {msg}");
        }
    }

    fn secs(&self) -> f64 {
        self.since.elapsed().as_secs_f64()
    }
}

impl Observer for Progress {
    fn event(&mut self, e: Event) {
        match e {
            Event::Reading { bytes } => {
                self.size = bytes;
                self.say(format_args!("reading {} MB of history...", bytes / 1_000_000));
            }
            Event::Read { transactions, .. } => {
                self.say(format_args!("read {transactions} transactions in {:.3} s", self.secs()));
            }
            Event::Inferring => self.since = Instant::now(),
            Event::Inferred { .. } => self.say(format_args!("built the graph in {:.3} s; checking...", self.secs())),
            Event::Checking => {
                // "checked in" counts the check alone.
                self.since = Instant::now();
                self.next_word = self.since + STILL_CHECKING;
                self.deadline = self.timeout.map(|s| self.since + Duration::from_secs_f64(s.max(0.0)));
            }
            Event::Checked { .. } => self.say(format_args!("checked in {:.3} s", self.secs())),
        }
    }

    fn interrupted(&mut self) -> bool {
        let now = Instant::now();
        // A long search (the polygraph's can run for minutes) says it is still at work.
        if self.tell && now >= self.next_word {
            self.next_word = now + STILL_CHECKING;
            eprintln!(
                "grail: still checking after {:.0} s{}",
                (now - self.since).as_secs_f64(),
                if self.deadline.is_some() { "" } else { " (--timeout bounds the search)" }
            );
        }
        self.deadline.is_some_and(|d| now >= d)
    }

    fn consumed(&mut self, end: usize) {
        if let Some(text) = &self.text {
            if end >= self.released + RELEASE_STEP {
                text.release(self.released, end);
                self.released = end;
            }
        }
    }
}

/// Read the history `input` names, as core reads it; errors name the file.
pub fn load(input: &Input, timeline: bool) -> Result<(Session, Progress), String> {
    let mut progress = Progress::new(input);
    // dbcop writes `history.bincode` into a folder of its own; PolySI and AWDIT name the folder.
    let bincode = input.history.join("history.bincode");
    let path = if input.history.is_dir() && bincode.is_file() { &bincode } else { &input.history };
    if path.is_dir() {
        return Ok((load_cobra_dir(input, &mut progress)?, progress));
    }
    load_text(input, path, slurp(path)?, progress, timeline)
}

/// A history already in memory (`path` names it in errors), read as [`load`] reads a file.
pub fn load_text(
    input: &Input,
    path: &Path,
    text: Bytes,
    mut progress: Progress,
    timeline: bool,
) -> Result<(Session, Progress), String> {
    let text = Arc::new(text);
    let wal = input.wal.as_ref().map(|w| slurp(w).map(|b| (w, b))).transpose()?;
    let req = ReadRequest {
        format: Format::parse(&input.format).map_err(|e| e.to_string())?,
        wal: wal.as_ref().map(|(_, b)| &b[..]),
        initial_value: input.initial_value,
        spans: input.spans,
        timeline,
    };
    progress.text = Some(text.clone());
    // A mapped file stays at hand (its map goes after the read, the file stays open):
    // operations' spans are read from it when a report shows them (0.15 s and 80 MB less at 1M
    // transactions than recording all). A buffer (gzip, standard input) is dropped after the
    // read instead, so every span is recorded.
    let read = match text.by_range().filter(|_| input.spans) {
        Some(later) => Session::read_shared(&text, later, &req, &mut progress),
        None => Session::read(&text, &req, &mut progress),
    };
    progress.text = None;
    let session = read.map_err(|e| match (&wal, e.kind) {
        (Some((w, _)), ErrorKind::Wal) => format!("{}: {e}", w.display()),
        _ => format!("{}: {e}", path.display()),
    })?;
    Ok((session, progress))
}

/// A directory of Cobra client logs: every `*.log` file, in name order, one session each.
fn load_cobra_dir(input: &Input, progress: &mut Progress) -> Result<Session, String> {
    let dir = &input.history;
    if !matches!(input.format.as_str(), "auto" | "cobra") {
        return Err(format!(
            "{}: a directory without history.bincode is read as Cobra logs; --format {} reads a file",
            dir.display(),
            input.format
        ));
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "log"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("{}: expected Cobra logs (*.log) in this directory, found none", dir.display()));
    }
    let files: Vec<Bytes> = paths.iter().map(|p| slurp(p)).collect::<Result<_, _>>()?;
    let refs: Vec<&[u8]> = files.iter().map(|f| &f[..]).collect();
    Session::read_cobra_logs(&refs, progress).map_err(|e| format!("{}: {e}", dir.display()))
}
