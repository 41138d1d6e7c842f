//! `Report`: the verdict of a check, as core built it.

use crate::guarded;
use grail_core::render::text;
use grail_core::Report;
use pyo3::prelude::*;

/// The verdict of a check. The Python class `grail.Report` wraps it and gives the Pythonic view.
#[pyclass(name = "Report", module = "grail._grail", frozen)]
pub struct PyReport {
    inner: Report,
}

impl PyReport {
    pub(crate) fn new(inner: Report) -> Self {
        PyReport { inner }
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

    /// True when every checked level holds, False when one is violated, None when undecided.
    #[getter]
    fn valid(&self) -> Option<bool> {
        self.inner.valid
    }
}
