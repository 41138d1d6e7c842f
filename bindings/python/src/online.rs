//! `OnlineChecker`: core's streaming checker; transactions in and anomalies out as JSON text
//! (the Python class `grail.OnlineChecker` converts dicts).

use crate::{guarded, to_pyerr};
use grail_core::online::cycles::{OnlineChecker, OnlineOptions};
use grail_core::online::stream::LineStream;
use grail_core::{Error, ErrorKind, Format};
use pyo3::prelude::*;

#[pyclass(name = "OnlineChecker", module = "grail._grail")]
pub struct PyOnline {
    /// The checker, with the line reader of a byte stream (`feed_bytes`).
    inner: LineStream,
}

#[pymethods]
impl PyOnline {
    /// `options`: the JSON of core's `OnlineOptions` (`window`, `max_length`, `max_steps`).
    #[new]
    #[pyo3(signature = (options = "{}"))]
    fn new(py: Python<'_>, options: &str) -> PyResult<Self> {
        let opts: OnlineOptions = serde_json::from_str(options)
            .map_err(|e| to_pyerr(py, Error::new(ErrorKind::Usage, format!("online options: {e}")).into()))?;
        Ok(PyOnline { inner: LineStream::new(OnlineChecker::new(opts), Format::Auto) })
    }

    /// Take one transaction (native JSON text, read as `grail.read` reads it); the anomalies it
    /// closed, each as JSON text.
    fn push_json(&mut self, py: Python<'_>, txn: &str) -> PyResult<Vec<String>> {
        let inner = self.inner.checker_mut();
        guarded(py, || {
            let found = inner.push_json(txn.as_bytes()).map_err(|e| to_pyerr(py, e.into()))?;
            Ok(found.iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect())
        })
    }

    /// Take the next bytes of a history being written (core's `LineStream`): the anomalies the
    /// lines they complete closed, each as JSON text.
    fn feed_bytes(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<Vec<String>> {
        let inner = &mut self.inner;
        as_json(py, |emit| inner.feed(data, emit))
    }

    /// The end of a byte stream: its last line, when no line break ended it.
    fn finish_bytes(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        let inner = &mut self.inner;
        as_json(py, |emit| inner.finish(emit))
    }

    /// The stream ended (core's `OnlineChecker::end`): a level may now hold; the cycles the
    /// offline engine found at the end, each as JSON text.
    fn end(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        let inner = &mut self.inner;
        guarded(py, || {
            Ok(inner.checker_mut().end().iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect())
        })
    }

    /// A register stream's round now (core's `OnlineChecker::flush`); its cycles as JSON text.
    fn flush(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        let inner = &mut self.inner;
        guarded(py, || {
            Ok(inner.checker_mut().flush().iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect())
        })
    }

    /// Reads of aborted and intermediate appends, and reads that disagree with their own
    /// transaction (internal), found since the last call, each as JSON text.
    fn take_findings_json(&mut self) -> Vec<String> {
        self.inner.checker_mut().take_findings().iter().map(|f| serde_json::to_string(f).unwrap_or_default()).collect()
    }

    /// Counters, class counts, levels and notes so far, as JSON text.
    fn summary_json(&self) -> String {
        serde_json::to_string(&self.inner.checker().summary()).unwrap_or_default()
    }

    /// An estimate of the heap memory the checker holds, in bytes.
    fn memory_estimate(&self) -> usize {
        self.inner.checker().memory_estimate()
    }

    /// A register stream's write-ahead log (core's `OnlineChecker::set_wal`).
    fn set_wal(&mut self, py: Python<'_>, wal: Vec<u8>) -> PyResult<()> {
        let inner = &mut self.inner;
        guarded(py, || inner.checker_mut().set_wal(&wal).map_err(|e| to_pyerr(py, e.into())))
    }

    /// More of the write-ahead log, as it is written (core's `OnlineChecker::push_wal`).
    fn push_wal(&mut self, py: Python<'_>, more: Vec<u8>) -> PyResult<()> {
        let inner = &mut self.inner;
        guarded(py, || inner.checker_mut().push_wal(&more).map_err(|e| to_pyerr(py, e.into())))
    }

    /// The write-ahead log ended (core's `OnlineChecker::end_wal`).
    fn end_wal(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        guarded(py, || inner.checker_mut().end_wal().map_err(|e| to_pyerr(py, e.into())))
    }
}

/// `TimestampOnlineChecker`: core's windowed checker of transactions with start and commit
/// timestamps (Aion); transactions in and violations out as JSON text.
#[pyclass(name = "TimestampOnlineChecker", module = "grail._grail")]
pub struct PyTsOnline {
    /// The checker, with the line reader of a byte stream (`feed_bytes`).
    inner: grail_core::online::stream::TsLineStream,
}

#[pymethods]
impl PyTsOnline {
    /// `options`: the JSON of core's `TsOnlineOptions` (`window`, `level` "SI" or "SER",
    /// `session`).
    #[new]
    #[pyo3(signature = (options = "{}"))]
    fn new(py: Python<'_>, options: &str) -> PyResult<Self> {
        let opts: grail_core::online::timestamps::TsOnlineOptions = serde_json::from_str(options)
            .map_err(|e| to_pyerr(py, Error::new(ErrorKind::Usage, format!("online options: {e}")).into()))?;
        let checker = grail_core::online::timestamps::TsOnlineChecker::new(opts);
        Ok(PyTsOnline { inner: grail_core::online::stream::TsLineStream::new(checker, Format::Auto) })
    }

    /// Take one committed transaction (native or TimeKiller JSON text); the violations that
    /// became final, each as JSON text.
    fn push_json(&mut self, py: Python<'_>, txn: &str) -> PyResult<Vec<String>> {
        let inner = self.inner.checker_mut();
        guarded(py, || {
            let found = inner.push_json(txn.as_bytes()).map_err(|e| to_pyerr(py, e.into()))?;
            Ok(found.iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect())
        })
    }

    /// Take the next bytes of a history being written (core's `TsLineStream`): the violations
    /// that became final, each as JSON text.
    fn feed_bytes(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<Vec<String>> {
        let inner = &mut self.inner;
        as_json(py, |emit| inner.feed(data, emit))
    }

    /// The end of a byte stream: its last line, then every pending verdict final.
    fn finish_bytes(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        let inner = &mut self.inner;
        as_json(py, |emit| inner.finish(emit))
    }

    /// Every pending verdict, final: the violations left, each as JSON text.
    fn finish_json(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        let inner = self.inner.checker_mut();
        guarded(py, || Ok(inner.finish().iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect()))
    }

    /// Counters so far, as JSON text (with `untimed`: committed transactions of a byte stream
    /// without timestamps, not checked).
    fn stats_json(&self) -> String {
        let mut v = serde_json::to_value(self.inner.checker().stats()).unwrap_or_default();
        v["untimed"] = self.inner.untimed().into();
        v.to_string()
    }

    /// An estimate of the heap memory the checker holds, in bytes.
    fn memory_estimate(&self) -> usize {
        self.inner.checker().memory_estimate()
    }
}

/// What a byte stream's `feed` or `finish` handed on, each as JSON text, or its error.
fn as_json<T: serde::Serialize>(
    py: Python<'_>,
    run: impl FnOnce(&mut dyn FnMut(T)) -> Result<(), Error>,
) -> PyResult<Vec<String>> {
    guarded(py, || {
        let mut found = Vec::new();
        run(&mut |x| found.push(serde_json::to_string(&x).unwrap_or_default())).map_err(|e| to_pyerr(py, e.into()))?;
        Ok(found)
    })
}
