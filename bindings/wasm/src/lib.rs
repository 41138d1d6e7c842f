//! grail for WebAssembly: the low-level bindings under the JS package in `js/`.
//!
//! The functions here take bytes and plain JS values and return plain JS values with the same
//! schema as the CLI's `--json` output. The hand-written wrapper (`js/grail.mjs`) is the public
//! API: it turns strings and gzip into bytes, splits the options object, turns the errors thrown
//! here into `GrailError`s, and resets the module after a panic.
//!
//! Errors are JS `Error`s with `name = "GrailError"` and the properties `kind`, `line`,
//! `column` and `txn`. A panic never aborts silently: the hook throws a `GrailError` of kind
//! `panic` straight out of the module (the Rust stack is not unwound, so the wrapper then
//! re-instantiates the module with wasm-bindgen's `__wbg_reset_state`).

use grail_core::api::{Event, Observer, ReadRequest, Session};
use grail_core::report::CycleReport;
use grail_core::{CheckOptions, Format, Report};
use js_sys::{Date, Function, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[cfg(feature = "full")]
mod full;

/// The interrupt closure of the core is polled once per this many search steps.
const STEPS_PER_POLL: u64 = 4096;

/// Run when the module is instantiated (and again after each reset): install the panic hook.
#[wasm_bindgen(start)]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let place =
            info.location().map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column())).unwrap_or_default();
        // `payload_as_str` is Rust 1.91; the workspace keeps to 1.85.
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or(payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let err = grail_error("panic", &format!("grail panicked{place}: {message}"), None, None, None);
        // Leave the module at once: the wrapper resets it (its stack and borrows are not unwound).
        wasm_bindgen::throw_val(err);
    }));
}

/// A JS `Error` named `GrailError` with `kind`, `line`, `column`, `txn` (`null` when unknown).
fn grail_error(kind: &str, message: &str, line: Option<u32>, column: Option<u32>, txn: Option<u64>) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("GrailError");
    let num = |v: Option<f64>| v.map_or(JsValue::NULL, JsValue::from_f64);
    let obj: &JsValue = err.as_ref();
    let _ = Reflect::set(obj, &"kind".into(), &kind.into());
    let _ = Reflect::set(obj, &"line".into(), &num(line.map(f64::from)));
    let _ = Reflect::set(obj, &"column".into(), &num(column.map(f64::from)));
    let _ = Reflect::set(obj, &"txn".into(), &num(txn.map(|t| t as f64)));
    err.into()
}

fn core_error(e: grail_core::Error) -> JsValue {
    grail_error(e.kind.as_str(), &e.to_string(), e.line, e.column, e.txn)
}

fn usage(message: String) -> JsValue {
    grail_error("usage", &message, None, None, None)
}

/// The message of a serde-wasm-bindgen error (which wraps a JS `Error`).
#[cfg(feature = "full")]
fn serde_message(e: serde_wasm_bindgen::Error) -> String {
    let v = JsValue::from(e);
    match v.dyn_ref::<js_sys::Error>() {
        Some(err) => err.message().into(),
        None => format!("{v:?}"),
    }
}

/// Plain JS data with the CLI's JSON schema: objects (not `Map`s) and `null` for `None`.
#[cfg(feature = "full")]
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| usage(format!("cannot represent the result in JavaScript: {}", serde_message(e))))
}

/// A value of `T` from plain JS data; the message of what is wrong with it.
#[cfg(feature = "full")]
fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(serde_message)
}

/// The demo's: through `JSON.stringify` and serde_json, whose deserializer the JSON readers
/// already have, so that serde-wasm-bindgen's is not linked.
#[cfg(not(feature = "full"))]
fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, String> {
    let text = js_sys::JSON::stringify(&value).ok().and_then(|t| t.as_string());
    let text = text.ok_or_else(|| "expected plain data (an object)".to_string())?;
    serde_json::from_slice(text.as_bytes()).map_err(|e| e.to_string())
}

/// The demo's: through JSON text and `JSON.parse`, with serde_json's serializer (much of it
/// shared by all types) instead of serde-wasm-bindgen's. An integer beyond 2^53 - 1 is refused
/// as serde-wasm-bindgen refuses it, rather than rounded by `JSON.parse`.
#[cfg(not(feature = "full"))]
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let cannot = |why: String| usage(format!("cannot represent the result in JavaScript: {why}"));
    let text = serde_json::to_string(value).map_err(|e| cannot(e.to_string()))?;
    if let Some(n) = unsafe_integer(&text) {
        return Err(cannot(format!("{n} can't be represented as a JavaScript number")));
    }
    js_sys::JSON::parse(&text)
}

/// The first integer in JSON text (outside strings) that a JS number does not hold exactly.
/// serde_json writes integer types as digits alone and floats with a `.` or an exponent.
#[cfg(not(feature = "full"))]
fn unsafe_integer(text: &str) -> Option<&str> {
    const MAX_SAFE: &str = "9007199254740991";
    let b = text.as_bytes();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        i += 1;
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i - 1;
            while i < b.len() && matches!(b[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                i += 1;
            }
            let token = &text[start..i];
            let digits = token.strip_prefix('-').unwrap_or(token);
            let integer = digits.bytes().all(|d| d.is_ascii_digit());
            if integer && (digits.len(), digits) > (MAX_SAFE.len(), MAX_SAFE) {
                return Some(token);
            }
        }
    }
    None
}

/// The progress callback: phase events, throttled while searching; it may cancel.
struct Progress {
    callback: Option<Function>,
    interval_ms: f64,
    start: f64,
    last: f64,
    /// The callback returned `false`.
    cancelled: bool,
    /// What the callback threw.
    thrown: Option<JsValue>,
    /// The check's time limit in seconds, and its deadline (`Date.now()` milliseconds) once the
    /// search begins.
    timeout: Option<f64>,
    deadline: Option<f64>,
    /// Times the search asked whether to stop.
    polls: u64,
}

impl Progress {
    fn new(callback: Option<Function>, interval_ms: Option<f64>) -> Progress {
        let now = Date::now();
        Progress {
            callback,
            interval_ms: interval_ms.unwrap_or(100.0).max(0.0),
            start: now,
            last: now,
            cancelled: false,
            thrown: None,
            timeout: None,
            deadline: None,
            polls: 0,
        }
    }

    fn stopped(&self) -> bool {
        self.cancelled || self.thrown.is_some()
    }

    /// Send `{phase, done, elapsed_ms, ...fields}`; true when the work should stop.
    fn emit(&mut self, phase: &str, done: bool, fields: &[(&str, JsValue)]) -> bool {
        let Some(f) = &self.callback else {
            return false;
        };
        if self.stopped() {
            return true;
        }
        let now = Date::now();
        self.last = now;
        let ev = Object::new();
        let _ = Reflect::set(&ev, &"phase".into(), &phase.into());
        let _ = Reflect::set(&ev, &"done".into(), &done.into());
        let _ = Reflect::set(&ev, &"elapsed_ms".into(), &(now - self.start).into());
        for (k, v) in fields {
            let _ = Reflect::set(&ev, &(*k).into(), v);
        }
        match f.call1(&JsValue::UNDEFINED, &ev) {
            Ok(r) if r == JsValue::FALSE => self.cancelled = true,
            Ok(_) => {}
            Err(e) => self.thrown = Some(e),
        }
        self.stopped()
    }

    /// The end of a call: rethrow what the callback threw, or report the cancellation.
    fn finish(&mut self) -> Result<(), JsValue> {
        if let Some(e) = self.thrown.take() {
            return Err(e);
        }
        if self.cancelled {
            return Err(grail_error("cancelled", "the check was cancelled by the progress callback", None, None, None));
        }
        Ok(())
    }
}

impl Observer for Progress {
    fn event(&mut self, e: Event) {
        let num = |n: usize| JsValue::from_f64(n as f64);
        match e {
            Event::Reading { bytes } => self.emit("read", false, &[("bytes", num(bytes))]),
            Event::Read { transactions, model } => {
                self.emit("read", true, &[("transactions", num(transactions)), ("model", model.name().into())])
            }
            Event::Inferring => self.emit("infer", false, &[]),
            Event::Inferred { vertices, edges } => {
                self.emit("infer", true, &[("vertices", num(vertices)), ("edges", num(edges))])
            }
            Event::Checking => {
                self.polls = 0;
                self.deadline = self.timeout.map(|s| Date::now() + (s.max(0.0) * 1000.0));
                self.emit("check", false, &[("steps", 0.into())])
            }
            Event::Checked { valid } => {
                let valid = valid.map_or(JsValue::NULL, JsValue::from_bool);
                self.emit("check", true, &[("steps", num((self.polls * STEPS_PER_POLL) as usize)), ("valid", valid)])
            }
        };
    }

    fn interrupted(&mut self) -> bool {
        self.polls += 1;
        let now = Date::now();
        if self.deadline.is_some_and(|d| now >= d) {
            return true;
        }
        if self.callback.is_some() && now - self.last >= self.interval_ms {
            return self.emit("check", false, &[("steps", ((self.polls * STEPS_PER_POLL) as f64).into())]);
        }
        self.stopped()
    }
}

/// Read a history: `format` is `auto` (default), `edn`, `json`, `plume`, `dbcop`, `dbcop-bin`,
/// `cobra` or `timekiller`; `wal` the write-ahead log giving the version order of a register
/// history; `initial_value` TimeKiller's `--initial_value` (TimeKiller histories only).
#[wasm_bindgen]
pub fn read(
    text: &[u8],
    format: Option<String>,
    wal: Option<Vec<u8>>,
    progress: Option<Function>,
    progress_interval_ms: Option<f64>,
    initial_value: Option<f64>,
) -> Result<History, JsValue> {
    let format = Format::parse(format.as_deref().unwrap_or("auto")).map_err(core_error)?;
    let initial_value = match initial_value {
        Some(v) if v.fract() != 0.0 || !v.is_finite() => {
            return Err(usage(format!("initial_value must be an integer, not {v}")))
        }
        v => v.map(|v| v as i64),
    };
    let mut p = Progress::new(progress, progress_interval_ms);
    let req = ReadRequest { format, wal: wal.as_deref(), initial_value, ..ReadRequest::default() };
    let session = Session::read(text, &req, &mut p).map_err(core_error)?;
    p.finish()?;
    Ok(History {
        session,
        #[cfg(not(feature = "full"))]
        last: std::cell::RefCell::new(None),
    })
}

/// A history read into the module's memory. Free it with `free()` when done (or let the
/// garbage collector's finalizer do it).
#[wasm_bindgen]
pub struct History {
    session: Session,
    /// The last report `check` returned, and the JS object it returned it as: the demo's
    /// `renderHtml` renders it, so that its module need not deserialize a `Report`
    /// (serde-wasm-bindgen's code for it and its parts is most of 117 kB).
    #[cfg(not(feature = "full"))]
    last: std::cell::RefCell<Option<(JsValue, Report)>>,
}

#[wasm_bindgen]
impl History {
    /// `list-append`, `rw-register` or `empty`.
    #[wasm_bindgen(getter)]
    pub fn model(&self) -> String {
        self.session.history().model.name().into()
    }

    /// Number of transactions (committed, aborted and indeterminate).
    #[wasm_bindgen(getter, js_name = transactionCount)]
    pub fn transaction_count(&self) -> usize {
        self.session.history().txns.len()
    }

    /// Check isolation levels. `options` is a `CheckOptions` object (`levels`, `max_steps`,
    /// `max_cycles`; unknown fields are an error); `timeout` in seconds, like the CLI's `--timeout`.
    pub fn check(
        &self,
        options: JsValue,
        timeout: Option<f64>,
        progress: Option<Function>,
        progress_interval_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let opts: CheckOptions = if options.is_undefined() || options.is_null() {
            CheckOptions::default()
        } else {
            from_js(options).map_err(|e| usage(format!("invalid check options: {e}")))?
        };
        let mut p = Progress::new(progress, progress_interval_ms);
        p.timeout = timeout;
        let report = self.session.check(&opts, &mut p);
        p.finish()?;
        let js = to_js(&report)?;
        #[cfg(not(feature = "full"))]
        self.last.replace(Some((js.clone(), report)));
        Ok(js)
    }

    /// A report of this history as one self-contained HTML page (what `grail check --html`
    /// writes); `title` names the history.
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = renderHtml)]
    pub fn render_html(&self, report: JsValue, title: Option<String>) -> Result<String, JsValue> {
        let report: Report = serde_wasm_bindgen::from_value(report)
            .map_err(|e| usage(format!("not a grail report: {}", serde_message(e))))?;
        Ok(self.session.html(&report, title.as_deref().unwrap_or("history")))
    }

    /// The demo's `renderHtml`: only of the very object the last `check` returned (not a copy).
    #[cfg(not(feature = "full"))]
    #[wasm_bindgen(js_name = renderHtml)]
    pub fn render_html(&self, report: JsValue, title: Option<String>) -> Result<String, JsValue> {
        match &*self.last.borrow() {
            Some((js, r)) if *js == report => Ok(self.session.html(r, title.as_deref().unwrap_or("history"))),
            _ => Err(usage("this module renders only the report the history's last check returned".into())),
        }
    }

    /// Every transaction, or those whose ids are in `ids` (in the history's order): `id`,
    /// `status`, `vertex`, `process`, `invoke_time`, `complete_time`, `label`, `line`, `ops`
    /// (the input's notation: Jepsen's, or Plume's; long lists shortened), `span`, `op_spans` and `op_keys`.
    pub fn transactions(&self, ids: Option<Vec<f64>>) -> Result<JsValue, JsValue> {
        let ids: Option<Vec<u64>> = ids.map(|ids| ids.into_iter().filter_map(whole).collect());
        to_js(&self.session.transactions(ids.as_deref()))
    }

    /// The smallest sub-history core's search finds in `max_checks` checks that shows `cycle` (a
    /// cycle of a report of this history) again under one of `levels` (comma-separated: the
    /// levels it was reported for): `text` (in the input's notation), `extension`,
    /// `transactions`, `reproduces`, `minimal`, `checks`, `with_log`.
    #[wasm_bindgen(js_name = reproducingSubHistory)]
    pub fn reproducing_sub_history(&self, cycle: JsValue, levels: String, max_checks: u32) -> Result<JsValue, JsValue> {
        let cycle = cycle_from_js(cycle)?;
        let levels = grail_core::Level::parse_list(&levels).map_err(core_error)?;
        to_js(&self.session.reproducing_sub_history(&cycle, &levels, max_checks as usize))
    }
}

/// The cycle `reproducingSubHistory` takes, whole in the package's build.
#[cfg(feature = "full")]
fn cycle_from_js(cycle: JsValue) -> Result<CycleReport, JsValue> {
    serde_wasm_bindgen::from_value(cycle).map_err(|e| usage(format!("not a grail cycle: {}", serde_message(e))))
}

/// In the demo's build, only the fields the sub-history search reads (`anomaly`, `name`,
/// `txns`, `cycle_anomaly`; core's export::reproduce), so that a whole `CycleReport`'s
/// deserializer stays out. The demo-module test compares the result with the package's on
/// every conformance case.
#[cfg(not(feature = "full"))]
fn cycle_from_js(cycle: JsValue) -> Result<CycleReport, JsValue> {
    #[derive(serde::Deserialize)]
    struct Cycle {
        anomaly: String,
        name: String,
        txns: Vec<u64>,
        #[serde(default)]
        cycle_anomaly: Option<String>,
    }
    let c: Cycle = from_js(cycle).map_err(|e| usage(format!("not a grail cycle: {e}")))?;
    Ok(CycleReport {
        anomaly: c.anomaly,
        name: c.name,
        txns: c.txns,
        steps: Vec::new(),
        minimal: false,
        explanation: String::new(),
        other_order: None,
        forced: Vec::new(),
        cycle_anomaly: c.cycle_anomaly,
    })
}

/// A JS number that is a transaction id (a whole number, not negative).
fn whole(id: f64) -> Option<u64> {
    (id >= 0.0 && id.fract() == 0.0 && id.is_finite()).then_some(id as u64)
}

/// The version of grail.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

/// The online checker (`grail_core::online::cycles`): transactions in completion order, each
/// a plain object in grail's native form; the cycles each one closed come back as plain objects.
#[wasm_bindgen]
pub struct OnlineChecker {
    /// The checker, with the line reader of a byte stream (`feedBytes`).
    inner: grail_core::online::stream::LineStream,
}

#[wasm_bindgen]
impl OnlineChecker {
    /// `options`: `{window, max_length, max_steps}` (unknown fields are an error).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<OnlineChecker, JsValue> {
        let opts: grail_core::OnlineOptions = if options.is_undefined() || options.is_null() {
            grail_core::OnlineOptions::default()
        } else {
            from_js(options).map_err(|e| usage(format!("invalid online options: {e}")))?
        };
        let checker = grail_core::OnlineChecker::new(opts);
        Ok(OnlineChecker { inner: grail_core::online::stream::LineStream::new(checker, grail_core::Format::Auto) })
    }

    /// Take the next bytes of a history being written (core's `LineStream`: Jepsen EDN, one
    /// operation a line, or JSON lines); the cycles the lines they complete closed.
    #[wasm_bindgen(js_name = feedBytes)]
    pub fn feed_bytes(&mut self, data: &[u8]) -> Result<JsValue, JsValue> {
        let mut found = Vec::new();
        self.inner.feed(data, &mut |a| found.push(a)).map_err(core_error)?;
        to_js(&found)
    }

    /// The end of a byte stream: its last line, when no line break ended it.
    #[wasm_bindgen(js_name = finishBytes)]
    pub fn finish_bytes(&mut self) -> Result<JsValue, JsValue> {
        let mut found = Vec::new();
        self.inner.finish(&mut |a| found.push(a)).map_err(core_error)?;
        to_js(&found)
    }

    /// Reads of aborted and intermediate appends, and reads that disagree with their own
    /// transaction (internal), found since the last call.
    #[wasm_bindgen(js_name = takeFindings)]
    pub fn take_findings(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker_mut().take_findings())
    }

    /// Counters, class counts, lengths, label patterns, levels and notes so far.
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.checker().summary())
    }
}

#[cfg(all(test, not(feature = "full")))]
mod tests {
    use super::unsafe_integer;

    #[test]
    fn unsafe_integers_are_found_outside_strings_only() {
        assert_eq!(unsafe_integer(r#"{"a":9007199254740991,"b":-9007199254740991,"c":1e300,"d":2.5}"#), None);
        assert_eq!(
            unsafe_integer(r#"{"a":"90071992547409912","b\"":[1,-9007199254740992]}"#),
            Some("-9007199254740992")
        );
        assert_eq!(unsafe_integer(r#"[18446744073709551615]"#), Some("18446744073709551615"));
        assert_eq!(unsafe_integer(r#"["\\",9007199254740993.0]"#), None);
    }
}
