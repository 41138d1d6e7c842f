//! `History` and `Graph`: a parsed history, kept for reuse, and its dependency graph.

use crate::convert::to_py;
use crate::report::PyReport;
use crate::{guarded, interrupter, run_detached, to_pyerr, Failure};
use grail_core::api::{Observer, Session};
use grail_core::explain as text;
use grail_core::history::{Arg, OpKind};
use grail_core::{CheckOptions, History, Level};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;

/// A parsed history: core's session. Immutable; each dependency graph is built once, on first
/// use, and shared by every later check (from any thread).
#[pyclass(name = "History", module = "grail._grail", frozen)]
pub struct PyHistory {
    session: Arc<Session>,
}

impl PyHistory {
    pub(crate) fn new(session: Session) -> Self {
        PyHistory { session: Arc::new(session) }
    }

    fn h(&self) -> &History {
        self.session.history()
    }
}

/// The budget in seconds and Ctrl-C, heard during a search ([`interrupter`]).
struct Interrupt<F: FnMut() -> bool>(F);

impl<F: FnMut() -> bool> Observer for Interrupt<F> {
    fn interrupted(&mut self) -> bool {
        (self.0)()
    }
}

/// The version an operation wrote or observed: the value written or appended; a register read's
/// value; the last element of a list read. `None` for nil and for an empty list.
fn version(h: &History, o: u32) -> Option<grail_core::history::Value> {
    let op = h.ops.get(o as usize)?;
    match (op.kind(), op.arg()) {
        (_, Arg::Val(v)) => Some(v),
        (OpKind::Read, Arg::Prefix(_) | Arg::List { .. }) => h.list(op).last().copied(),
        _ => None,
    }
}

/// An operation's value as JSON: a scalar, a list for list reads, null for nil.
fn op_value(h: &History, o: u32) -> serde_json::Value {
    let op = &h.ops[o as usize];
    match op.arg() {
        Arg::Nil => serde_json::Value::Null,
        Arg::Val(v) => h.value_json(v),
        Arg::Prefix(_) | Arg::List { .. } => {
            serde_json::Value::Array(h.list(op).iter().map(|&v| h.value_json(v)).collect())
        }
    }
}

fn opt_json(h: &History, v: Option<grail_core::history::Value>) -> serde_json::Value {
    v.map_or(serde_json::Value::Null, |v| h.value_json(v))
}

#[pymethods]
impl PyHistory {
    fn __len__(&self) -> usize {
        self.h().txns.len()
    }

    /// The data model: "list-append", "rw-register" or "empty".
    #[getter]
    fn model(&self) -> &'static str {
        self.h().model.name()
    }

    /// Whether a version order (from a write-ahead log or the native "version_order") is attached.
    #[getter]
    fn has_version_order(&self) -> bool {
        self.h().version_order.is_some()
    }

    /// Whether the history claims an order: some transaction's start or commit timestamp, or a
    /// commit order (white-box checking).
    #[getter]
    fn has_timestamps(&self) -> bool {
        grail_core::timestamps::Claims::any(self.h())
    }

    /// Check isolation levels with the GIL released.
    ///
    /// `levels` is a comma-separated list ("SER,SI"; all five when None); `max_steps` bounds the
    /// search (edge visits); `budget` bounds it in seconds. When a bound is hit, undecided levels
    /// are "unknown". Ctrl-C interrupts the check and raises KeyboardInterrupt.
    /// `analyze`, when given, is the JSON of core's `AnalyzeOptions` (`{}` for the defaults):
    /// the report then has its `analysis` section.
    /// `register_mode` is "auto", "polygraph" or "sure-edges" (register histories, SER and SI).
    /// `white_box` is "auto" (use the start/commit timestamps and commit order the history
    /// claims, where it has them), "ignore" or "only" (the claims alone, no dependency graph).
    #[pyo3(signature = (levels = None, max_steps = None, max_cycles = grail_core::api::DEFAULT_MAX_CYCLES, budget = None, analyze = None, register_mode = "auto", white_box = "auto"))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, one each
    fn check(
        &self,
        py: Python<'_>,
        levels: Option<&str>,
        max_steps: Option<u64>,
        max_cycles: usize,
        budget: Option<f64>,
        analyze: Option<&str>,
        register_mode: &str,
        white_box: &str,
    ) -> PyResult<PyReport> {
        let register_mode =
            grail_core::report::RegisterMode::parse(register_mode).map_err(|e| to_pyerr(py, e.into()))?;
        let white_box = grail_core::timestamps::WhiteBoxMode::parse(white_box).map_err(|e| to_pyerr(py, e.into()))?;
        let analyze: Option<grail_core::AnalyzeOptions> = match analyze {
            Some(a) => Some(serde_json::from_str(a).map_err(|e| {
                to_pyerr(py, grail_core::Error::new(grail_core::ErrorKind::Usage, format!("analyze: {e}")).into())
            })?),
            None => None,
        };
        let levels: Vec<Level> = match levels {
            Some(s) => Level::parse_list(s).map_err(|e| to_pyerr(py, e.into()))?,
            None => Vec::new(),
        };
        if budget.is_some_and(|b| b.is_nan()) {
            return Err(to_pyerr(
                py,
                grail_core::Error::new(grail_core::ErrorKind::Usage, "budget must be a number of seconds, not NaN")
                    .into(),
            ));
        }
        let opts = CheckOptions {
            levels,
            max_steps,
            max_cycles,
            analyze,
            register_mode,
            white_box,
            ..CheckOptions::default()
        };
        let report = run_detached(py, || {
            let mut signal: Option<PyErr> = None;
            let report = self.session.check(&opts, &mut Interrupt(interrupter(budget, &mut signal)));
            match signal {
                Some(e) => Err(Failure::Python(e)),
                None => Ok(report),
            }
        })?;
        Ok(PyReport::new(report, self.session.clone()))
    }

    /// Check a certificate (its JSON text) against this history, with the GIL released: the
    /// verification as JSON, or GrailError when the text is not a certificate.
    fn verify(&self, py: Python<'_>, certificate: &[u8]) -> PyResult<String> {
        run_detached(py, || {
            let v = self.session.verify(certificate)?;
            Ok(serde_json::to_string(&v).unwrap_or_default())
        })
    }

    /// Decide levels with one of GRAIL's checkers (`scc`, `dfs`, `shortest-path`, `gabow`), with
    /// the GIL released; the report as JSON, the same as `grail check --strategy S --json`.
    /// `max_depth` applies to `dfs` only (default 4); `levels` as in `check` (all five when None).
    #[pyo3(signature = (strategy, max_depth = None, levels = None))]
    fn check_strategy(
        &self,
        py: Python<'_>,
        strategy: &str,
        max_depth: Option<usize>,
        levels: Option<&str>,
    ) -> PyResult<String> {
        let s = grail_core::strategy::Strategy::parse(strategy, max_depth).map_err(|e| to_pyerr(py, e.into()))?;
        let levels: Vec<Level> = match levels {
            Some(l) => Level::parse_list(l).map_err(|e| to_pyerr(py, e.into()))?,
            None => Vec::new(),
        };
        run_detached(py, || {
            let r = self.session.check_strategy(s, &levels)?;
            serde_json::to_string(&r)
                .map_err(|e| Failure::Internal(format!("cannot serialise the strategy report: {e}")))
        })
    }

    /// The dependency graph (built with the GIL released, then kept).
    fn graph(&self, py: Python<'_>) -> PyResult<PyGraph> {
        run_detached(py, || Ok(self.session.inference()).map(|_| ()))?;
        Ok(PyGraph { session: self.session.clone() })
    }

    /// One row per micro-operation, as columns (a dict of equal-length lists): txn, status,
    /// process, invoke_time, complete_time, op (position in the transaction), f ("r", "w" or
    /// "append"), key, value (a list for list reads, None for nil).
    fn op_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guarded(py, || self.op_columns_inner(py))
    }

    /// One transaction in the input's notation (Jepsen's, or Plume's), by id (`None` when no transaction has that id).
    fn txn_text(&self, py: Python<'_>, id: u64) -> PyResult<Option<String>> {
        guarded(py, || {
            let t = self.h().txns.iter().position(|t| t.id == id);
            Ok(t.map(|t| text::txn_text(self.h(), t as u32)))
        })
    }

    /// One transaction as JSON, by id, as core's view gives it (status, process, times,
    /// operations, where it is in the input); `None` when no transaction has that id.
    fn txn_json(&self, py: Python<'_>, id: u64) -> PyResult<Option<String>> {
        guarded(py, || {
            let views = self.session.transactions(Some(&[id]));
            Ok(views.first().map(|v| serde_json::to_string(v).unwrap_or_default()))
        })
    }

    fn __repr__(&self) -> String {
        format!("<grail.History: {} transactions, {}>", self.h().txns.len(), self.h().model.name())
    }
}

impl PyHistory {
    fn op_columns_inner<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = self.h();
        let cols: [&str; 9] = ["txn", "status", "process", "invoke_time", "complete_time", "op", "f", "key", "value"];
        let lists: Vec<Bound<'py, PyList>> = cols.iter().map(|_| PyList::empty(py)).collect();
        for t in &h.txns {
            for o in t.ops_start..t.ops_end {
                let op = &h.ops[o as usize];
                lists[0].append(t.id)?;
                lists[1].append(t.status.as_str())?;
                lists[2].append(t.process())?;
                lists[3].append(t.invoke_time())?;
                lists[4].append(t.complete_time())?;
                lists[5].append(o - t.ops_start)?;
                lists[6].append(op.kind().jepsen())?;
                lists[7].append(to_py(py, &h.value_json(h.key(op.key)))?)?;
                lists[8].append(to_py(py, &op_value(h, o))?)?;
            }
        }
        let d = PyDict::new(py);
        for (c, l) in cols.iter().zip(lists) {
            d.set_item(c, l)?;
        }
        Ok(d)
    }
}

/// The dependency graph of a history: committed transactions (plus indeterminate ones whose
/// writes were observed) as vertices; ww, wr and rw edges, each with the two operations that
/// justify it.
#[pyclass(name = "Graph", module = "grail._grail", frozen)]
pub struct PyGraph {
    session: Arc<Session>,
}

impl PyGraph {
    fn h(&self) -> &History {
        self.session.history()
    }

    fn inf(&self) -> &grail_core::Inference {
        self.session.inference()
    }
}

#[pymethods]
impl PyGraph {
    /// Vertex columns: txn (id), status, process.
    fn vertex_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guarded(py, || self.vertex_columns_inner(py))
    }

    /// Edge columns (one row per edge, i.e. per from, to, type and key): from, to, type, key,
    /// from_value, to_value (the version each end wrote or observed: the value written, a
    /// register read's value, a list read's last element; None for nil or an empty list),
    /// from_op, to_op (the input's notation) and why (one sentence).
    fn edge_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guarded(py, || self.edge_columns_inner(py))
    }

    /// Graph statistics (GRAIL thesis Table 5.3) as JSON text.
    fn stats_json(&self, py: Python<'_>) -> PyResult<String> {
        guarded(py, || Ok(serde_json::to_string(&self.inf().graph.stats(self.h())).unwrap_or_default()))
    }

    /// What could not be inferred, and other caveats.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.inf().notes.clone()
    }

    fn __len__(&self) -> usize {
        self.inf().graph.edges.len()
    }
}

impl PyGraph {
    fn vertex_columns_inner<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (ids, statuses, processes) = (PyList::empty(py), PyList::empty(py), PyList::empty(py));
        for (t, txn) in self.h().txns.iter().enumerate() {
            if self.inf().graph.is_vertex[t] {
                ids.append(txn.id)?;
                statuses.append(txn.status.as_str())?;
                processes.append(txn.process())?;
            }
        }
        let d = PyDict::new(py);
        d.set_item("txn", ids)?;
        d.set_item("status", statuses)?;
        d.set_item("process", processes)?;
        Ok(d)
    }

    fn edge_columns_inner<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (h, inf) = (self.h(), self.inf());
        let cols: [&str; 9] = ["from", "to", "type", "key", "from_value", "to_value", "from_op", "to_op", "why"];
        let lists: Vec<Bound<'py, PyList>> = cols.iter().map(|_| PyList::empty(py)).collect();
        for e in &inf.graph.edges {
            lists[0].append(h.txns[e.from as usize].id)?;
            lists[1].append(h.txns[e.to as usize].id)?;
            lists[2].append(e.ty.as_str())?;
            lists[3].append(to_py(py, &h.value_json(h.key(e.key(h))))?)?;
            lists[4].append(to_py(py, &opt_json(h, version(h, e.from_op)))?)?;
            lists[5].append(to_py(py, &opt_json(h, version(h, e.to_op)))?)?;
            lists[6].append(text::op_text(h, e.from_op))?;
            lists[7].append(text::op_text(h, e.to_op))?;
            lists[8].append(text::why(h, &inf.index, e))?;
        }
        let d = PyDict::new(py);
        for (c, l) in cols.iter().zip(lists) {
            d.set_item(c, l)?;
        }
        Ok(d)
    }
}
