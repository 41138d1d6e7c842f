//! A stream of records as its bytes arrive (a pipe, a file still being written): the bytes are
//! cut into lines, each complete line is one record for the cycle checker (Jepsen EDN, one
//! operation a line; JSON lines), and each cycle is handed on as soon as the bytes that complete
//! the line closing it are fed (the complete lines of one feed are read together, then checked
//! in order). An error names the line of the stream, not of the record. No IO: the caller reads
//! and feeds, so a front end can print between two reads.

use super::cycles::txn::{read_record, timekiller_lines};
use super::cycles::{OnlineAnomaly, OnlineChecker, OnlineTxn};
use super::plume::PlumeState;
use super::timestamps::{TsOnlineChecker, TsTxn, TsViolation};
use crate::error::Error;
use crate::history::{History, Model, Status};
use crate::read::{detect, Format};

/// How a stream is taken in, told from its first lines ([`intake`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intake {
    /// A record a line, through the cycle checker, as the lines arrive ([`LineStream`]).
    Live,
    /// A record a line, through the timestamp checker ([`super::timestamps`]), as the lines
    /// arrive: the first committed transaction carries start and commit timestamps (a later
    /// one without them is counted, not checked).
    LiveTimestamps,
    /// Read whole first: a format that is not a record a line, or compressed.
    Whole,
}

/// How a stream beginning with `prefix` is taken in; `None` until a complete line holding a
/// finished transaction has arrived (then the stream's end decides: [`Intake::Live`]). A line
/// the readers refuse alone (a JSON array history written over many lines) makes it whole: the
/// offline reader takes the document, or says where it is wrong.
pub fn intake(prefix: &[u8], format: Format) -> Option<Intake> {
    if prefix.starts_with(&[0x1f, 0x8b]) {
        return Some(Intake::Whole);
    }
    let format = match format {
        Format::Auto => match detect(prefix) {
            Format::Edn | Format::Json => Format::Auto,
            Format::Plume => Format::Plume,
            _ => return Some(Intake::Whole),
        },
        Format::Edn | Format::Json | Format::TimeKiller | Format::Plume => format,
        _ => return Some(Intake::Whole),
    };
    let complete = &prefix[..prefix.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)];
    if format == Format::Plume {
        // PolySI/Plume text, an operation a line: live once a line is complete (its reader says
        // what is wrong with a line it refuses).
        return (!complete.iter().all(u8::is_ascii_whitespace)).then_some(Intake::Live);
    }
    for line in complete.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // TimeKiller's transactions one a line: live through the timestamp checker, whose
        // reader says what is wrong with a line it refuses.
        if format != Format::Edn && timekiller_lines(line) {
            return Some(Intake::LiveTimestamps);
        }
        let Ok(h) = read_record(line, format, 0) else { return Some(Intake::Whole) };
        let finished = h.txns.iter().find(|t| t.status == Status::Committed);
        if let Some(t) = finished {
            let timed = t.start_ts().is_some() && t.commit_ts().is_some();
            return Some(if timed { Intake::LiveTimestamps } else { Intake::Live });
        }
    }
    None
}

/// What a stream's lines are read into: the cycle checker's transactions ([`OnlineTxn`]) or the
/// timestamp checker's ([`TsArrival`]).
pub trait Record: Sized + Send + 'static {
    /// What the stream's records so far tell the next one.
    type State: Default + Send;

    /// The finished transactions of one record's text, those without an id numbered from
    /// `first` (as [`OnlineTxn::read`]), and how many it had (some may be held back until a
    /// later record: [`Record::State`]); the state changes only when the record is taken.
    fn read(text: &[u8], format: Format, first: u64, state: &mut Self::State) -> Result<(Vec<Self>, u64), Error>;

    /// At the stream's end: transactions held back until then.
    fn finish(_state: &mut Self::State) -> Vec<Self> {
        Vec::new()
    }
}

/// What a stream's records so far tell the next, for the cycle checker: each process's
/// invocation whose completion has not arrived (Jepsen EDN), and each session's open
/// transaction (PolySI/Plume text, [`super::plume`]).
#[derive(Default)]
pub struct Pending {
    invocations: crate::hash::Map<i64, OnlineTxn>,
    plume: PlumeState,
}

impl Record for OnlineTxn {
    type State = Pending;

    fn read(text: &[u8], format: Format, first: u64, pending: &mut Pending) -> Result<(Vec<Self>, u64), Error> {
        if format == Format::Plume || format == Format::Auto && detect(text) == Format::Plume {
            let txns = super::plume::read(text, &mut pending.plume)?;
            let n = txns.len() as u64;
            return Ok((txns, n));
        }
        // Read into a copy: a record refused leaves the state as it was.
        let mut next = pending.invocations.clone();
        let txns = OnlineTxn::read_with(text, format, first, &mut next)?;
        pending.invocations = next;
        let n = txns.len() as u64;
        Ok((txns, n))
    }

    /// Invocations never completed: indeterminate transactions, as offline (their appends may
    /// be what a read saw); each session's last transaction of PolySI/Plume text.
    fn finish(pending: &mut Pending) -> Vec<Self> {
        let mut out: Vec<OnlineTxn> = std::mem::take(&mut pending.invocations).into_values().collect();
        crate::par::sort::sort_by_key(&mut out, |t| t.id);
        out.extend(super::plume::finish(&mut pending.plume));
        out
    }
}

/// A finished transaction of a stream, for the timestamp checker: committed with start and
/// commit timestamps (`txn`), or not (`untimed` when it committed without them; aborted ones
/// are neither, as offline).
#[derive(Debug, Clone)]
pub struct TsArrival {
    pub txn: Option<TsTxn>,
    pub untimed: bool,
}

/// The model of a timestamped stream, once a record wrote or appended; the records that only
/// read `nil` before it (either model, as far as they tell), held back until it is known.
#[derive(Default)]
pub struct TsState {
    model: Option<Model>,
    held: Vec<History>,
    held_txns: usize,
}

/// Transactions held back until the model is known: at most this many (then the stream is
/// refused, rather than read under a model it may not have).
const HELD: usize = 100_000;

impl TsArrival {
    fn all(h: &History, model: Model) -> Vec<TsArrival> {
        (0..h.txns.len() as u32)
            .filter(|&t| !h.txns[t as usize].awaits_completion())
            .map(|t| {
                let txn = TsTxn::from_history_as(h, t, model);
                let untimed = txn.is_none() && h.txns[t as usize].status == Status::Committed;
                TsArrival { txn, untimed }
            })
            .collect()
    }
}

impl Record for TsArrival {
    type State = TsState;

    /// A record that only reads `nil` is held back until a record that writes tells the
    /// stream's model (a read of `nil` is the initial value of a register, the empty list of a
    /// list), as the whole history tells it when read from a file; the transactions are checked
    /// in any order, so holding them back only delays their verdicts. Past `HELD` such
    /// transactions the stream is refused; at the end, they are read as the whole history would
    /// be if it had no write.
    fn read(text: &[u8], format: Format, first: u64, state: &mut TsState) -> Result<(Vec<Self>, u64), Error> {
        let h = read_record(text, format, first)?;
        let taken = h.txns.iter().filter(|t| !t.awaits_completion()).count() as u64;
        let mut out = Vec::new();
        match (h.model, state.model) {
            (Model::Empty, None) if state.held_txns + h.txns.len() <= HELD => {
                state.held_txns += h.txns.len();
                state.held.push(h);
                return Ok((out, taken));
            }
            (Model::Empty, None) => {
                return Err(Error::new(
                    crate::error::ErrorKind::Usage,
                    format!(
                        "the stream's first {HELD} transactions only read nil: whether its keys hold registers or lists is not known until one writes; check the history from a file (grail online FILE)"
                    ),
                ));
            }
            (Model::Empty, Some(_)) => {}
            (m, None) => state.model = Some(m),
            (_, Some(_)) => {}
        }
        let model = state.model.unwrap_or(h.model);
        for held in std::mem::take(&mut state.held) {
            out.extend(TsArrival::all(&held, model));
        }
        let own = if h.model == Model::Empty { model } else { h.model };
        out.extend(TsArrival::all(&h, own));
        Ok((out, taken))
    }

    fn finish(state: &mut TsState) -> Vec<Self> {
        let model = state.model.unwrap_or(Model::Empty);
        std::mem::take(&mut state.held).iter().flat_map(|h| TsArrival::all(h, model)).collect()
    }
}

/// The records of a stream as its bytes arrive: complete lines read as the offline readers read
/// them, into a checker's transactions ([`Record`]). Apart from the checker, so that a front end
/// can read on one thread and check on another.
pub struct Lines<R: Record = OnlineTxn> {
    format: Format,
    /// The bytes of a line whose end has not arrived yet.
    partial: Vec<u8>,
    /// Lines taken so far.
    lines: u32,
    /// Transactions read so far: a record without an id takes this arrival number.
    txns: u64,
    /// The line refused, once one was: the stream's lines after it are not read.
    refused: Option<Error>,
    /// What the records so far tell the next ([`Record::State`]).
    state: R::State,
}

/// What some bytes of a stream held: the transactions of their complete lines, in order, up to
/// the first line refused, if one was (its error gives its line in the stream).
#[derive(Debug)]
pub struct Records<R = OnlineTxn> {
    pub txns: Vec<R>,
    pub error: Option<Error>,
}

impl<R> Default for Records<R> {
    fn default() -> Self {
        Records { txns: Vec::new(), error: None }
    }
}

impl<R: Record> Lines<R> {
    /// `format`: `Auto` (each record as `grail check` would detect it), `Edn` or `Json`.
    pub fn new(format: Format) -> Lines<R> {
        Lines { format, partial: Vec::new(), lines: 0, txns: 0, refused: None, state: R::State::default() }
    }

    /// Lines taken so far (blank ones included): where the stream has got to.
    pub fn lines(&self) -> u32 {
        self.lines
    }

    /// The records of the lines these bytes complete. Once a line was refused, nothing more is
    /// read: every later call gives that line's error again.
    pub fn feed(&mut self, bytes: &[u8]) -> Records<R> {
        if let Some(e) = &self.refused {
            return Records { txns: Vec::new(), error: Some(e.clone()) };
        }
        let Some(last_nl) = bytes.iter().rposition(|&b| b == b'\n') else {
            self.partial.extend_from_slice(bytes);
            return Records::default();
        };
        let (complete, rest) = (&bytes[..last_nl], &bytes[last_nl + 1..]);
        let r = if self.partial.is_empty() {
            self.read_lines(complete)
        } else {
            let mut whole = std::mem::take(&mut self.partial);
            whole.extend_from_slice(complete);
            self.read_lines(&whole)
        };
        self.partial.extend_from_slice(rest);
        self.refused.clone_from(&r.error);
        r
    }

    /// The end of the stream: the last line, when no line break ended it.
    pub fn finish(&mut self) -> Records<R> {
        if let Some(e) = &self.refused {
            return Records { txns: Vec::new(), error: Some(e.clone()) };
        }
        let last = std::mem::take(&mut self.partial);
        let mut r = Records::default();
        if !last.is_empty() {
            r.error = self.read_line(&last, &mut r.txns).err();
        }
        if r.error.is_none() {
            r.txns.extend(R::finish(&mut self.state));
        }
        self.refused.clone_from(&r.error);
        r
    }

    /// Complete lines (the last one's break left off), read as one text: one read instead of
    /// one a line is most of the speed of a pipe. When the text is refused, line by line, to
    /// keep the lines before the refused one and name it.
    fn read_lines(&mut self, text: &[u8]) -> Records<R> {
        let n = text.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        if let Ok((txns, taken)) = R::read(text, self.format, self.txns, &mut self.state) {
            self.lines += n;
            self.txns += taken;
            return Records { txns, error: None };
        }
        let mut r = Records::default();
        for line in text.split(|&b| b == b'\n') {
            if let Err(e) = self.read_line(line, &mut r.txns) {
                r.error = Some(e);
                break;
            }
        }
        r
    }

    fn read_line(&mut self, line: &[u8], out: &mut Vec<R>) -> Result<(), Error> {
        self.lines += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        match R::read(line, self.format, self.txns, &mut self.state) {
            Ok((txns, taken)) => {
                self.txns += taken;
                out.extend(txns);
                Ok(())
            }
            Err(mut e) => {
                // The record is one line: its line 1 is this line of the stream.
                e.line = Some(self.lines + e.line.map_or(0, |l| l.saturating_sub(1)));
                Err(e)
            }
        }
    }
}

/// The timestamp checker fed with bytes: [`Lines`] of [`TsArrival`]s, then
/// [`TsOnlineChecker::push`], on one thread; each violation is handed on when it is final.
pub struct TsLineStream {
    checker: TsOnlineChecker,
    lines: Lines<TsArrival>,
    untimed: u64,
}

impl TsLineStream {
    /// `format`: `Auto` (each record as `grail check` would detect it), `Edn`, `Json` or
    /// `TimeKiller` (its transactions one a line).
    pub fn new(checker: TsOnlineChecker, format: Format) -> TsLineStream {
        TsLineStream { checker, lines: Lines::new(format), untimed: 0 }
    }

    pub fn checker(&self) -> &TsOnlineChecker {
        &self.checker
    }

    /// The checker, to take transactions by other ways too (`push`, `push_json`).
    pub fn checker_mut(&mut self) -> &mut TsOnlineChecker {
        &mut self.checker
    }

    /// Committed transactions without start and commit timestamps: counted, not checked.
    pub fn untimed(&self) -> u64 {
        self.untimed
    }

    /// Take the next bytes: every line they complete is checked, in order; each violation that
    /// became final goes to `emit`. Stops at the first line refused (its number in the stream).
    pub fn feed(&mut self, bytes: &[u8], emit: &mut dyn FnMut(TsViolation)) -> Result<(), Error> {
        let r = self.lines.feed(bytes);
        self.check(r, emit)
    }

    /// The end of the stream: its last line, then every pending verdict final.
    pub fn finish(&mut self, emit: &mut dyn FnMut(TsViolation)) -> Result<(), Error> {
        let r = self.lines.finish();
        self.check(r, emit)?;
        self.checker.finish().into_iter().for_each(emit);
        Ok(())
    }

    fn check(&mut self, r: Records<TsArrival>, emit: &mut dyn FnMut(TsViolation)) -> Result<(), Error> {
        for a in &r.txns {
            match &a.txn {
                Some(t) => self.checker.push(t).into_iter().for_each(&mut *emit),
                None => self.untimed += a.untimed as u64,
            }
        }
        r.error.map_or(Ok(()), Err)
    }
}

/// The cycle checker fed with bytes: [`Lines`], then [`OnlineChecker::push`], on one thread.
pub struct LineStream {
    checker: OnlineChecker,
    lines: Lines<OnlineTxn>,
}

impl LineStream {
    /// `format`: `Auto` (each record as `grail check` would detect it), `Edn` or `Json`.
    pub fn new(checker: OnlineChecker, format: Format) -> LineStream {
        LineStream { checker, lines: Lines::new(format) }
    }

    pub fn checker(&self) -> &OnlineChecker {
        &self.checker
    }

    /// The checker, to take transactions by other ways too (`push`, `push_json`).
    pub fn checker_mut(&mut self) -> &mut OnlineChecker {
        &mut self.checker
    }

    /// Lines taken so far (blank ones included): where the stream has got to.
    pub fn lines(&self) -> u32 {
        self.lines.lines()
    }

    /// Take the next bytes: every line they complete is checked, in order, and each cycle they
    /// close goes to `emit` before this returns. Stops at the first line refused (the lines
    /// before it are taken; the error gives the refused line's number in the stream).
    pub fn feed(&mut self, bytes: &[u8], emit: &mut dyn FnMut(OnlineAnomaly)) -> Result<(), Error> {
        let r = self.lines.feed(bytes);
        self.check(r, emit)
    }

    /// The end of the stream: the last line, when no line break ended it.
    pub fn finish(&mut self, emit: &mut dyn FnMut(OnlineAnomaly)) -> Result<(), Error> {
        let r = self.lines.finish();
        self.check(r, emit)?;
        self.checker.end().into_iter().for_each(emit);
        Ok(())
    }

    /// The input paused (a read gave less than it could): a register stream's round now
    /// ([`OnlineChecker::flush`]), so that what the lines so far close is not held back.
    pub fn pause(&mut self, emit: &mut dyn FnMut(OnlineAnomaly)) {
        self.checker.flush().into_iter().for_each(emit);
    }

    fn check(&mut self, r: Records, emit: &mut dyn FnMut(OnlineAnomaly)) -> Result<(), Error> {
        for t in &r.txns {
            self.checker.try_push(t)?.into_iter().for_each(&mut *emit);
        }
        r.error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::online::cycles::OnlineOptions;

    const LOST_UPDATE: &str = "{:type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}\n\
        {:type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}\n\
        {:type :ok, :process 2, :value [[:r :x [1 2]]]}\n";

    fn stream() -> LineStream {
        LineStream::new(OnlineChecker::new(OnlineOptions::default()), Format::Auto)
    }

    #[test]
    fn a_cycle_comes_out_with_the_line_that_closes_it_whatever_the_chunks() {
        let whole = {
            let mut s = stream();
            let mut found = Vec::new();
            s.feed(LOST_UPDATE.as_bytes(), &mut |a| found.push(a)).unwrap();
            assert_eq!(s.lines(), 3);
            found
        };
        assert!(!whole.is_empty());
        // Byte by byte: nothing before the end of the line of the transaction that closes the
        // cycle (ids are arrival numbers here: line n holds transaction n - 1), the same after.
        let closing_line = whole[0].closed_by as usize + 1;
        let mut s = stream();
        let mut found = Vec::new();
        let mut line = 1;
        for b in LOST_UPDATE.bytes() {
            s.feed(&[b], &mut |a| found.push(a)).unwrap();
            let ended = b == b'\n';
            assert_eq!(found.is_empty(), line < closing_line || (line == closing_line && !ended), "line {line}");
            line += usize::from(ended);
        }
        assert_eq!(found, whole);
    }

    #[test]
    fn the_last_line_without_a_break_is_taken_at_the_end() {
        // The cycle closes on the second line; without its line break it waits for the end.
        let two: Vec<&str> = LOST_UPDATE.lines().take(2).collect();
        let mut s = stream();
        let mut found = Vec::new();
        s.feed(two.join("\n").as_bytes(), &mut |a| found.push(a)).unwrap();
        assert!(found.is_empty());
        assert_eq!(s.lines(), 1);
        s.finish(&mut |a| found.push(a)).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(s.lines(), 2);
    }

    #[test]
    fn the_first_committed_transaction_tells_live_from_whole() {
        let invoke = "{:type :invoke, :process 0, :value [[:r :x nil]]}\n";
        assert_eq!(intake(invoke.as_bytes(), Format::Auto), None);
        assert_eq!(intake(&LOST_UPDATE.as_bytes()[..20], Format::Auto), None); // no line yet
        assert_eq!(intake(LOST_UPDATE.as_bytes(), Format::Auto), Some(Intake::Live));
        let timed = r#"{"id": 1, "status": "committed", "start_ts": 1, "commit_ts": 2, "ops": [["append", "x", 1]]}"#;
        assert_eq!(intake(format!("{timed}\n").as_bytes(), Format::Auto), Some(Intake::LiveTimestamps));
        let untimed = timed.replace(r#""start_ts": 1, "commit_ts": 2, "#, "");
        assert_eq!(intake(format!("{untimed}\n").as_bytes(), Format::Json), Some(Intake::Live));
        assert_eq!(intake(&[0x1f, 0x8b, 8, 0], Format::Auto), Some(Intake::Whole));
        assert_eq!(intake(b"[{\"id\": 1,\n", Format::Auto), Some(Intake::Whole));
        assert_eq!(intake(b"w(1,5,0,10)\n", Format::Plume), Some(Intake::Live));
        assert_eq!(intake(b"w(1,5,0,10)\n", Format::Auto), Some(Intake::Live));
        assert_eq!(intake(b"w(1,5", Format::Plume), None);
    }

    /// Chunks of any size give what the whole text gives: lines cut across chunks, invocations
    /// and their completions in different reads, on a generated history with anomalies.
    #[test]
    fn any_chunking_gives_the_same_cycles() {
        use crate::generate::{generate, GenOptions, Injection, Isolation};
        let o = GenOptions {
            transactions: 600,
            isolation: Isolation::SnapshotIsolation,
            inject: vec![(Injection::LostUpdate, 3), (Injection::WriteSkew, 2)],
            seed: 7,
            ..Default::default()
        };
        let text = generate(&o).history;
        assert!(text.contains(":invoke"), "the history pairs invocations with completions");
        let run = |size: usize| {
            let mut s = stream();
            let mut found = Vec::new();
            for chunk in text.as_bytes().chunks(size) {
                s.feed(chunk, &mut |a| found.push(a)).unwrap();
            }
            s.finish(&mut |a| found.push(a)).unwrap();
            (found, s.checker().stats())
        };
        let (whole, stats) = run(text.len());
        assert!(whole.len() >= 5, "the injected anomalies: {}", whole.len());
        for size in [1, 7, 100, 4096] {
            let (found, st) = run(size);
            assert_eq!(st, stats, "chunks of {size}");
            assert!(found == whole, "chunks of {size}: {} cycles, not {}", found.len(), whole.len());
        }
    }

    #[test]
    fn after_a_refused_line_nothing_more_is_read() {
        let mut s = stream();
        let bad = format!("{{:type :ok, :value [[:r :x\n{LOST_UPDATE}");
        let e = s.feed(bad.as_bytes(), &mut |_| {}).unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        // The lines after it are not taken, now or later: the same error again.
        assert_eq!(
            s.feed(LOST_UPDATE.as_bytes(), &mut |_| panic!("a line after the refused one was checked")),
            Err(e.clone())
        );
        assert_eq!(s.finish(&mut |_| {}), Err(e));
        assert_eq!(s.checker().stats().transactions, 0);
    }

    #[test]
    fn an_error_names_the_line_of_the_stream() {
        let mut s = stream();
        let text = format!("{LOST_UPDATE}\n{{:type :ok, :value [[:r :x");
        s.feed(text.as_bytes(), &mut |_| {}).unwrap();
        let e = s.finish(&mut |_| {}).unwrap_err();
        assert_eq!(e.line, Some(5), "{e}");
        assert!(e.column.is_some(), "{e}");
    }
}
