//! `grail._grail`: the native half of the Python package `grail`.
//!
//! A thin layer over `grail-core`, as the HF tokenizers bindings are over theirs: each class wraps
//! one core value ([`history::PyHistory`], [`history::PyGraph`], [`report::PyReport`]); inputs
//! are extracted into owned Rust values, then the work runs with the GIL released (see
//! [`run_detached`]), so a notebook stays responsive and threads check histories in parallel.
//! The Pythonic surface (`grail.check`, HTML display, pandas and networkx) lives in the pure
//! Python package beside it (`python/grail/`).
//!
//! Errors: every core [`grail_core::Error`] becomes one of the exception classes of
//! `grail._errors` (`HistoryError`, `WalError`, `UsageError`, all under `GrailError`) with its
//! kind, line, column and transaction; a Rust panic becomes a `GrailError` of kind `internal`,
//! never a `pyo3_runtime.PanicException`.

mod convert;
mod history;
mod online;
mod report;

use grail_core::api::{ReadRequest, Session};
use grail_core::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

pub use history::{PyGraph, PyHistory};
pub use online::{PyOnline, PyTsOnline};
pub use report::PyReport;

/// An error raised from Rust: a core error, or an internal one (a caught panic).
pub(crate) enum Failure {
    Core(Error),
    Internal(String),
    /// A Python exception met while the GIL was released (Ctrl-C).
    Python(PyErr),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

/// The Python class (in `grail._errors`) raised for a kind of core error.
fn class_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Syntax | ErrorKind::Shape | ErrorKind::MixedModel => "HistoryError",
        ErrorKind::Wal => "WalError",
        ErrorKind::Usage => "UsageError",
    }
}

/// Build the Python exception for a failure: `grail._errors.<Class>(message, kind=..., line=...,
/// column=..., txn=...)`.
pub(crate) fn to_pyerr(py: Python<'_>, f: Failure) -> PyErr {
    let (class, message, kind, line, column, txn) = match f {
        Failure::Python(e) => return e,
        Failure::Core(e) => (class_name(e.kind), e.message, e.kind.as_str(), e.line, e.column, e.txn),
        Failure::Internal(msg) => {
            ("GrailError", format!("internal error (please report it): {msg}"), "internal", None, None, None)
        }
    };
    let build = || -> PyResult<PyErr> {
        let cls = py.import("grail._errors")?.getattr(class)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("kind", kind)?;
        kwargs.set_item("line", line)?;
        kwargs.set_item("column", column)?;
        kwargs.set_item("txn", txn)?;
        let exc = cls.call((message,), Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    };
    // Failing to build the exception (grail._errors missing) still raises something.
    build().unwrap_or_else(|e| e)
}

/// The message of a caught panic.
fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Run `f` with the GIL released, turning a panic into an internal error. Every long call of
/// this module goes through here.
pub(crate) fn run_detached<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> Result<T, Failure> + Send,
    T: Send,
{
    let out = py.detach(move || match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(Failure::Internal(panic_message(p))),
    });
    out.map_err(|f| to_pyerr(py, f))
}

/// Run `f` holding the GIL (it builds Python objects), turning a panic into an internal error.
/// Every method that calls into core without releasing the GIL goes through here.
pub(crate) fn guarded<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(to_pyerr(py, Failure::Internal(panic_message(p)))),
    }
}

/// An interrupt for [`grail_core::check_inferred`]: true once `budget` seconds have passed, or
/// when Python has a pending signal (Ctrl-C), which is kept in `signal` to be raised afterwards.
/// Signals are looked at (taking the GIL for a moment) at most every 50 ms.
pub(crate) fn interrupter(budget: Option<f64>, signal: &mut Option<PyErr>) -> impl FnMut() -> bool + Send + '_ {
    let start = Instant::now();
    let deadline = budget.map(|s| start + Duration::from_secs_f64(s.clamp(0.0, 1e9)));
    let mut last_signal_check = start;
    move || {
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return true;
        }
        if now.duration_since(last_signal_check) >= Duration::from_millis(50) {
            last_signal_check = now;
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                *signal = Some(e);
                return true;
            }
        }
        false
    }
}

/// Unzip gzip input (magic bytes 1f 8b); anything else is returned as it is.
fn gunzip<'a>(data: &'a [u8], what: &str) -> Result<std::borrow::Cow<'a, [u8]>, Failure> {
    if data.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(data.len().saturating_mul(8));
        flate2::read::MultiGzDecoder::new(data)
            .read_to_end(&mut out)
            .map_err(|e| Error::new(ErrorKind::Syntax, format!("{what} is not a valid gzip file: {e}")))?;
        Ok(std::borrow::Cow::Owned(out))
    } else {
        Ok(std::borrow::Cow::Borrowed(data))
    }
}

/// Parse a history from bytes (gzip accepted) in the given format ("auto", "edn", "json",
/// "plume", "dbcop", "dbcop-bin", "cobra" or "timekiller"),
/// attaching a write-ahead log (bytes, gzip accepted) if one is given. The GIL is released while
/// parsing. `initial_value` is TimeKiller's `--initial_value` (TimeKiller histories only).
/// Raises HistoryError, WalError or UsageError. Most users call `grail.read` instead, which also
/// takes paths, text and lists of dicts.
#[pyfunction]
#[pyo3(signature = (data, format = "auto", wal = None, initial_value = None))]
fn read(
    py: Python<'_>,
    data: &[u8],
    format: &str,
    wal: Option<&[u8]>,
    initial_value: Option<i64>,
) -> PyResult<PyHistory> {
    let session = run_detached(py, move || {
        let text = gunzip(data, "the history")?;
        let wal = wal.map(|log| gunzip(log, "the write-ahead log")).transpose()?;
        let req = ReadRequest {
            format: grail_core::Format::parse(format)?,
            wal: wal.as_deref(),
            initial_value,
            ..ReadRequest::default()
        };
        Ok(Session::read(&text, &req, &mut ())?)
    })?;
    Ok(PyHistory::new(session))
}

/// Parse a comma-separated list of levels ("SER,SI"); raises UsageError on an unknown name.
#[pyfunction]
fn parse_levels(py: Python<'_>, levels: &str) -> PyResult<Vec<String>> {
    grail_core::Level::parse_list(levels)
        .map(|ls| ls.iter().map(|l| l.name().to_string()).collect())
        .map_err(|e| to_pyerr(py, e.into()))
}

/// The JSON Schema of a report (`Report.to_json()`), as core derives it from its types.
#[pyfunction]
fn report_schema() -> String {
    grail_core::api::report_schema().to_string()
}

/// Panic inside Rust on purpose, to test that no panic reaches Python (it becomes a GrailError
/// of kind "internal"). Not part of the API.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    run_detached(py, || -> Result<(), Failure> { panic!("deliberate panic for the test suite") })
}

/// The native module.
#[pymodule]
fn _grail(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(parse_levels, m)?)?;
    m.add_function(wrap_pyfunction!(report_schema, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_class::<PyHistory>()?;
    m.add_class::<PyGraph>()?;
    m.add_class::<PyReport>()?;
    m.add_class::<PyOnline>()?;
    m.add_class::<PyTsOnline>()?;
    m.add("ERROR_KINDS", ErrorKind::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>())?;
    m.add("LEVELS", grail_core::Level::CLASSIC.iter().map(|l| l.name()).collect::<Vec<_>>())?;
    m.add("ALL_LEVELS", grail_core::Level::ALL.iter().map(|l| l.name()).collect::<Vec<_>>())?;
    m.add("ANOMALY_KINDS", grail_core::AnomalyKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>())?;
    let colours = PyDict::new(m.py());
    for (t, c) in grail_core::api::edge_colours() {
        colours.set_item(t, c)?;
    }
    m.add("EDGE_COLOURS", colours)?;
    m.add("DEFAULT_MAX_CYCLES", grail_core::api::DEFAULT_MAX_CYCLES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
