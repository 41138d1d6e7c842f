//! grail-core: a checker of transaction isolation. No IO, and no panics on any input. No threads
//! are needed: with the default feature `parallel`, reading, sorting and inferring large
//! histories use rayon's pool; without it (WebAssembly) all runs on the calling thread.
//!
//! ```
//! let text = "{:type :ok, :value [[:r :x []] [:append :x 1]]}\n{:type :ok, :value [[:r :x []] [:append :x 2]]}\n{:type :ok, :value [[:r :x [2]]]}";
//! let history = grail_core::read(text.as_bytes(), grail_core::Format::Auto).unwrap();
//! let report = grail_core::check(&history, &grail_core::CheckOptions::default());
//! assert_eq!(report.valid, Some(false)); // a lost update: SER, SI and PSI are violated
//! assert_eq!(report.levels["PL-2"].valid, Some(true));
//! ```
//!
//! Front ends (the CLI, Python, WebAssembly) go through [`api::Session`] instead, which reads
//! with the request's options, picks the inference each check needs and keeps it.
//!
//! The modules in layers, lowest first. A module imports (`crate::...`) only modules of lower
//! layers, never its own layer's or a higher one's; `tests/layering.rs` reads this list and
//! checks every path in `src/` against it.
//!
//! 1. `error`, `hash`, `par`, `words`: errors; the hash maps; work on several threads when there
//!    are some, and the comparison sorts (`par::sort`: one for all element types in the web
//!    demo's module); counts in words.
//! 2. `bucket_sort`, `generate`: sorting by small keys; synthetic histories, as EDN text.
//! 3. `history`: the model (transactions, operations, values, claimed timestamps) and its index.
//! 4. `read`, `graph`, `anomaly`, `verify`: the readers; the dependency graph, its orders and the
//!    one cycle search; the anomaly kinds and the findings on reads and writes; the certificate
//!    format and its verifier, which knows only the history.
//! 5. `infer`, `level`: the dependency graph and findings from a history; the level table (what
//!    each level proscribes, what it implies).
//! 6. `polygraph`, `timestamps`: PolySI's exact search for registers without a version order;
//!    the orders a history claims (white-box checking).
//! 7. `engine`: the level engine, the weak levels' saturation, the typed verdicts and their closure.
//! 8. `explain`: counterexamples as data and as text (operations, why each edge holds, cycles).
//! 9. `analysis`: cycle classes, counts, LDBC read anomalies.
//! 10. `report`, `online`: the report as data, from a history and the options; the online
//!     checkers (cycles, timestamps), one record at a time, and a stream of bytes as it arrives
//!     (`online::stream`).
//! 11. `strategy`, `export`, `elle`, `certify`: GRAIL's checkers; exports and sub-histories; Elle's model
//!     names, result map and wording; the witnesses of the levels that hold (certificates).
//! 12. `render`, `record`: text, DOT, SVG and the HTML page of a report; the files of Elle's
//!     `--directory`. Recording real databases: the statements of a workload in each database's
//!     SQL, their results into a history, Hermitage's tests and the cells of its table.
//! 13. `api`: the one door of the bindings: a `Session` reads once, keeps each inference it
//!     built, checks and gives the views (graph, stats, transactions, HTML); its `Observer`
//!     hears progress and may stop a search; the tables and the JSON Schema.

pub mod analysis;
pub mod anomaly;
pub mod api;
mod bucket_sort;
pub mod certify;
pub mod elle;
pub mod engine;
pub mod error;
pub mod explain;
pub mod export;
pub mod generate;
pub mod graph;
pub mod hash;
pub mod history;
pub mod infer;
pub mod level;
pub mod online;
mod par;
pub mod polygraph;
pub mod read;
pub mod record;
pub mod render;
pub mod report;
pub mod strategy;
pub mod timestamps;
pub mod verify;
pub mod words;

pub use analysis::{Analysis, AnalyzeOptions};
pub use anomaly::{AnomalyKind, Finding};
pub use error::{Error, ErrorKind};
pub use graph::{DependencyGraph, Edge, EdgeType, Stats};
pub use history::{History, Status, Transaction};
pub use infer::{infer, infer_without_reads_from, infer_without_rw, Inference};
pub use level::Level;
pub use online::cycles::{OnlineChecker, OnlineOptions, OnlineTxn};
pub use read::{read, read_releasing, read_wal, read_with, Format, ReadOptions};
pub use report::{check, check_inferred, infer_for, CheckOptions, Report};
