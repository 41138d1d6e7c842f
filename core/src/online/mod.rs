//! The online checkers: transactions taken one at a time as they arrive, each anomaly reported
//! when the transaction that closes it arrives, in memory bounded by a window.
//!
//! [`cycles`]: list-append cycles with their classes (Zellag & Kemme 2014, Sect. 5.2 and 6), and
//! register streams in rounds of the offline engine over the window;
//! [`timestamps`]: start and commit timestamps against Chronos's axioms, as Aion checks them.
//! Both take a record the same way, `push_json` (grail's native JSON form of a transaction,
//! the text a JSON-lines file holds), so every front end feeds them alike.

pub mod cycles;
pub mod plume;
pub mod stream;
pub mod timestamps;

use crate::error::Error;
use crate::history::{History, Status};

/// The online checker for a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineKind {
    /// List-append cycles as transactions arrive ([`crate::online::cycles`]).
    Cycles,
    /// Start and commit timestamps checked as they arrive, as Aion does ([`crate::online::timestamps`]).
    Timestamps,
}

impl OnlineKind {
    /// Timestamps when asked for, or when every committed transaction carries both; the
    /// [`cycles`] checker otherwise (list-append cycles as they close; registers in rounds of
    /// the offline engine over the window, with a write-ahead log's version order when given:
    /// `OnlineChecker::set_wal`).
    pub fn choose(h: &History, timestamps: bool) -> Result<OnlineKind, Error> {
        let mut committed = h.txns.iter().filter(|t| t.status == Status::Committed).peekable();
        let all_timed =
            committed.peek().is_some() && committed.all(|t| t.start_ts().is_some() && t.commit_ts().is_some());
        if timestamps || all_timed {
            Ok(OnlineKind::Timestamps)
        } else {
            Ok(OnlineKind::Cycles)
        }
    }
}
