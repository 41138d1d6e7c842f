//! grail-core: a checker of transaction isolation. No IO, no threads, no panics on any input.
//!
//! ```
//! let text = "{:type :ok, :value [[:r :x []] [:append :x 1]]}\n{:type :ok, :value [[:r :x []] [:append :x 2]]}\n{:type :ok, :value [[:r :x [2]]]}";
//! let history = grail_core::read(text.as_bytes(), grail_core::Format::Auto).unwrap();
//! let report = grail_core::check(&history, &grail_core::CheckOptions::default());
//! assert_eq!(report.valid, Some(false)); // a lost update: SER, SI and PSI are violated
//! assert_eq!(report.levels["PL-2"].valid, Some(true));
//! ```

pub mod analysis;
pub mod anomaly;
pub mod api;
mod bucket_sort;
pub mod elle;
pub mod error;
pub mod explain;
pub mod export;
pub mod generate;
pub mod graph;
pub mod hash;
pub mod history;
pub mod infer;
pub mod level;
mod par;
pub mod polygraph;
pub mod read;
pub mod render;
pub mod report;
pub mod strategy;
pub mod timestamps;

pub use analysis::online::{OnlineChecker, OnlineOptions, OnlineTxn};
pub use analysis::{Analysis, AnalyzeOptions};
pub use anomaly::{AnomalyKind, Finding};
pub use error::{Error, ErrorKind};
pub use graph::{DependencyGraph, Edge, EdgeType, Stats};
pub use history::{History, Status, Transaction};
pub use infer::{infer, infer_without_reads_from, infer_without_rw, Inference};
pub use level::Level;
pub use read::{read, read_releasing, read_wal, read_with, Format, ReadOptions};
pub use report::{check, check_inferred, infer_for, CheckOptions, Report};
