//! The one door of grail-core: what the CLI, Python and WebAssembly bindings call, so that they
//! only convert types and errors.
//!
//! A [`Session`] reads a history once ([`ReadRequest`]: format, write-ahead log, TimeKiller's
//! initial value, spans), chooses the inference each check needs and keeps it, and gives the
//! report ([`Session::check`]), a GRAIL strategy's report, the graph, statistics, transactions,
//! sub-histories and the HTML page. Progress, time limits and cancellation come from the
//! front end's [`Observer`]; core has no clock.
//!
//! ```
//! use grail_core::api::{ReadRequest, Session};
//! let text = b"{:type :ok, :value [[:append :x 1]]}\n{:type :ok, :value [[:r :x [1]]]}";
//! let s = Session::read(text, &ReadRequest::default(), &mut ()).unwrap();
//! let report = s.check(&grail_core::CheckOptions::default(), &mut ());
//! assert_eq!(report.valid, Some(true));
//! ```

mod observe;
#[cfg(feature = "schema")]
pub mod schema;
mod session;
mod views;

pub use crate::online::OnlineKind;
pub use observe::{Event, Observer};
#[cfg(feature = "schema")]
pub use schema::{data_schemas, report_schema};
pub use session::{ReadRequest, Session};
pub use views::*;
