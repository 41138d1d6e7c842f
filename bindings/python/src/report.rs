//! `Report`: the verdict of a check, as core built it.

use crate::{guarded, run_detached};
use grail_core::api::Session;
use grail_core::render::text;
use grail_core::Report;
use pyo3::prelude::*;
use std::sync::Arc;

/// The verdict of a check. The Python class `grail.Report` wraps it and gives the Pythonic view.
#[pyclass(name = "Report", module = "grail._grail", frozen)]
pub struct PyReport {
    inner: Report,
    /// The history checked (for the HTML page).
    session: Arc<Session>,
}

impl PyReport {
    pub(crate) fn new(inner: Report, session: Arc<Session>) -> Self {
        PyReport { inner, session }
    }
}

#[pymethods]
impl PyReport {
    /// The report as JSON, byte for byte what `grail check --json` prints.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        guarded(py, || Ok(self.inner.to_json()))
    }

    /// The verdict table, statistics and explanations, as `grail check` prints them.
    fn explain(&self, py: Python<'_>) -> PyResult<String> {
        guarded(py, || Ok(text::render(&self.inner)))
    }

    /// The report as one self-contained HTML page (what `grail check --html` writes), built with
    /// the GIL released.
    #[pyo3(signature = (title = None))]
    fn to_html(&self, py: Python<'_>, title: Option<String>) -> PyResult<String> {
        run_detached(py, || Ok(self.session.html(&self.inner, title.as_deref().unwrap_or("history"))))
    }

    /// The report's cycle of `anomaly` through `txns` with this `explanation`, drawn by core as
    /// an SVG element (the HTML page's drawing); ValueError when the report holds no such cycle.
    fn cycle_svg(&self, py: Python<'_>, anomaly: &str, txns: Vec<u64>, explanation: &str) -> PyResult<String> {
        guarded(py, || match self.inner.cycle(anomaly, &txns, explanation) {
            Some(c) => Ok(self.session.cycle_svg(c)),
            None => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "this report has no {anomaly} cycle through {txns:?} with that explanation"
            ))),
        })
    }

    /// The certificate of the levels that hold, as JSON (what `grail check --certificate`
    /// writes), built with the GIL released.
    fn certificate_json(&self, py: Python<'_>) -> PyResult<String> {
        run_detached(py, || Ok(serde_json::to_string(&self.session.certificate(&self.inner)).unwrap_or_default()))
    }

    /// True when every checked level holds, False when one is violated, None when undecided.
    #[getter]
    fn valid(&self) -> Option<bool> {
        self.inner.valid
    }
}
