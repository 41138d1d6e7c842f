//! What the JS package has beyond the web demo's calls (feature `full`, on by default): the
//! certificates and their verifier, GRAIL's strategies, the graph and stats views, sub-histories,
//! the text and DOT renderings, core's tables, the online checker's record-at-a-time calls and
//! the online checker with timestamps. The demo's module (`build.sh`, without `full`) leaves them
//! out, and with them the code only they reach (web-demo/src/grail-api.mjs calls none of them).

use super::*;
use grail_core::render::{dot, text};

#[wasm_bindgen]
impl History {
    /// The certificate of the levels `report` (a check of this history) found to hold: the
    /// file `grail check --certificate` writes.
    pub fn certificate(&self, report: JsValue) -> Result<JsValue, JsValue> {
        let report: Report = serde_wasm_bindgen::from_value(report)
            .map_err(|e| usage(format!("not a grail report: {}", serde_message(e))))?;
        to_js(&self.session.certificate(&report))
    }

    /// Check a certificate (its JSON text) against this history, as `grail verify --json`.
    pub fn verify(&self, certificate: &str) -> Result<JsValue, JsValue> {
        to_js(&self.session.verify(certificate.as_bytes()).map_err(core_error)?)
    }

    /// Decide levels with one of GRAIL's checkers: `strategy` is `scc`, `dfs`, `shortest-path`
    /// or `gabow`; `max_depth` applies to `dfs` (default 4); `levels` is comma-separated (all
    /// five when absent or empty). The report has the schema of `grail check --strategy S --json`.
    #[wasm_bindgen(js_name = checkStrategy)]
    pub fn check_strategy(
        &self,
        strategy: String,
        max_depth: Option<u32>,
        levels: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let s = grail_core::strategy::Strategy::parse(&strategy, max_depth.map(|d| d as usize)).map_err(core_error)?;
        let levels = grail_core::Level::parse_list(levels.as_deref().unwrap_or("")).map_err(core_error)?;
        to_js(&self.session.check_strategy(s, &levels).map_err(core_error)?)
    }

    /// The dependency graph as the CLI's `graph --json` prints it: `vertices` (transaction ids),
    /// `edges` (`from`, `to`, `type`, `key`, `from_op`, `to_op`), `stats`, `notes`.
    pub fn graph(&self) -> Result<JsValue, JsValue> {
        to_js(&self.session.graph())
    }

    /// Graph statistics and the anomalies found while building the graph (no cycle search),
    /// as the CLI's `stats --json` prints them: `model`, `stats`, `anomalies`, `notes`.
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        to_js(&self.session.stats())
    }

    /// The transactions whose ids are in `ids` in the input's notation: Jepsen EDN, one
    /// completion map a line, after `comment` as `;` lines, or Plume's text, grail's native JSON
    /// or elle-cli's JSON (`grail_core::export::sub_history`).
    #[wasm_bindgen(js_name = subHistory)]
    pub fn sub_history(&self, ids: Vec<f64>, comment: Option<String>) -> Result<String, JsValue> {
        let ids = ids.into_iter().map(|id| whole(id).ok_or_else(|| usage(format!("no transaction has id {id}"))));
        let ids = ids.collect::<Result<Vec<u64>, JsValue>>()?;
        self.session.sub_history(&ids, comment.as_deref()).map_err(core_error)
    }
}

#[wasm_bindgen]
impl OnlineChecker {
    /// Take the next transaction; the anomalies (cycles) it closed. The object is read as its
    /// JSON text by core's JSON reader, as `check` reads a history.
    pub fn push(&mut self, txn: JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker_mut().push_json(json_text(&txn)?.as_bytes()).map_err(core_error)?)
    }

    /// The stream ended (core's `OnlineChecker::end`): a level may now hold; the cycles the
    /// offline engine found at the end.
    pub fn end(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker_mut().end())
    }

    /// A register stream's round now (core's `OnlineChecker::flush`); the cycles it found.
    pub fn flush(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker_mut().flush())
    }

    /// A register stream's write-ahead log (core's `OnlineChecker::set_wal`).
    #[wasm_bindgen(js_name = setWal)]
    pub fn set_wal(&mut self, wal: &[u8]) -> Result<(), JsValue> {
        self.inner.checker_mut().set_wal(wal).map_err(core_error)
    }

    /// More of the write-ahead log, as it is written (core's `OnlineChecker::push_wal`).
    #[wasm_bindgen(js_name = pushWal)]
    pub fn push_wal(&mut self, more: &[u8]) -> Result<(), JsValue> {
        self.inner.checker_mut().push_wal(more).map_err(core_error)
    }

    /// The write-ahead log ended (core's `OnlineChecker::end_wal`).
    #[wasm_bindgen(js_name = endWal)]
    pub fn end_wal(&mut self) -> Result<(), JsValue> {
        self.inner.checker_mut().end_wal().map_err(core_error)
    }

    /// An estimate of the memory the checker holds, in bytes.
    #[wasm_bindgen(js_name = memoryEstimate)]
    pub fn memory_estimate(&self) -> f64 {
        self.inner.checker().memory_estimate() as f64
    }
}

/// The terminal text of a report (the CLI's output without `--json`).
#[wasm_bindgen(js_name = renderText)]
pub fn render_text(report: JsValue) -> Result<String, JsValue> {
    let report: Report = serde_wasm_bindgen::from_value(report)
        .map_err(|e| usage(format!("not a grail report: {}", serde_message(e))))?;
    Ok(text::render(&report))
}

/// Graphviz DOT of one cycle of a report (`report.levels.SER.cycles[0]`, or an anomaly's `cycle`).
#[wasm_bindgen(js_name = cycleDot)]
pub fn cycle_dot(cycle: JsValue) -> Result<String, JsValue> {
    let cycle: CycleReport =
        serde_wasm_bindgen::from_value(cycle).map_err(|e| usage(format!("not a grail cycle: {}", serde_message(e))))?;
    Ok(dot::cycle_dot(&cycle))
}

/// Core's tables, so the JS layer and the demo are checked against them instead of copying:
/// `levels` (`name`, `classic`), `edge_colours` (`[type, colour]` pairs), `default_max_cycles`.
#[wasm_bindgen(js_name = coreTables)]
pub fn core_tables() -> Result<JsValue, JsValue> {
    #[derive(Serialize)]
    struct Tables {
        levels: Vec<grail_core::api::LevelInfo>,
        edge_colours: Vec<(&'static str, &'static str)>,
        default_max_cycles: usize,
    }
    to_js(&Tables {
        levels: grail_core::api::levels(),
        edge_colours: grail_core::api::edge_colours(),
        default_max_cycles: grail_core::api::DEFAULT_MAX_CYCLES,
    })
}

/// Panics on purpose, so that tests can check that a panic becomes a `GrailError` of kind
/// `panic` and that the module works afterwards. Not part of the public API.
#[wasm_bindgen(js_name = "__testPanic")]
pub fn test_panic(message: String) {
    panic!("{message}");
}

/// A transaction object as the JSON text core's online checkers take (`JSON.stringify`).
fn json_text(txn: &JsValue) -> Result<String, JsValue> {
    let not = |why: &str| grail_error("shape", &format!("not a transaction: {why}"), None, None, None);
    if !txn.is_object() {
        return Err(not("expected an object"));
    }
    let text = js_sys::JSON::stringify(txn).map_err(|_| not("it cannot be written as JSON"))?;
    text.as_string().ok_or_else(|| not("it cannot be written as JSON"))
}

/// The online checker with timestamps (`grail_core::online::timestamps`, as Aion): committed
/// transactions with start and commit timestamps, in any order, as plain objects (grail's
/// native form or TimeKiller's); the violations that became final come back as plain objects.
#[wasm_bindgen]
pub struct TimestampOnlineChecker {
    inner: grail_core::online::stream::TsLineStream,
}

#[wasm_bindgen]
impl TimestampOnlineChecker {
    /// `options`: `{window, level: "SI" | "SER", session}` (unknown fields are an error).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<TimestampOnlineChecker, JsValue> {
        let opts: grail_core::online::timestamps::TsOnlineOptions = if options.is_undefined() || options.is_null() {
            Default::default()
        } else {
            serde_wasm_bindgen::from_value(options)
                .map_err(|e| usage(format!("invalid online options: {}", serde_message(e))))?
        };
        let checker = grail_core::online::timestamps::TsOnlineChecker::new(opts);
        Ok(TimestampOnlineChecker {
            inner: grail_core::online::stream::TsLineStream::new(checker, grail_core::Format::Auto),
        })
    }

    /// Take one committed transaction; the violations that became final.
    pub fn push(&mut self, txn: JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker_mut().push_json(json_text(&txn)?.as_bytes()).map_err(core_error)?)
    }

    /// Take the next bytes of a history being written (core's `TsLineStream`); the violations
    /// that became final.
    #[wasm_bindgen(js_name = feedBytes)]
    pub fn feed_bytes(&mut self, data: &[u8]) -> Result<JsValue, JsValue> {
        let mut found = Vec::new();
        self.inner.feed(data, &mut |v| found.push(v)).map_err(core_error)?;
        to_js(&found)
    }

    /// The end of a byte stream: its last line, then every pending verdict final.
    #[wasm_bindgen(js_name = finishBytes)]
    pub fn finish_bytes(&mut self) -> Result<JsValue, JsValue> {
        let mut found = Vec::new();
        self.inner.finish(&mut |v| found.push(v)).map_err(core_error)?;
        to_js(&found)
    }

    /// Make every pending verdict final; the violations left.
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker_mut().finish())
    }

    /// Counters so far.
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker().stats())
    }

    /// Committed transactions of a byte stream without timestamps: counted, not checked.
    pub fn untimed(&self) -> f64 {
        self.inner.untimed() as f64
    }

    /// An estimate of the memory the checker holds, in bytes.
    #[wasm_bindgen(js_name = memoryEstimate)]
    pub fn memory_estimate(&self) -> f64 {
        self.inner.checker().memory_estimate() as f64
    }
}
