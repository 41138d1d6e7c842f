//! Which of core's online checkers a finished history streams through.

use crate::error::{Error, ErrorKind};
use crate::history::{History, Model, Status};

/// The online checker for a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineKind {
    /// List-append cycles as transactions arrive ([`crate::analysis::online`]).
    Cycles,
    /// Start and commit timestamps checked as they arrive, as Aion does ([`crate::timestamps::online`]).
    Timestamps,
}

impl OnlineKind {
    /// Timestamps when asked for, or when every committed transaction carries both; list-append
    /// cycles otherwise. A register history without them has no online checker.
    pub fn choose(h: &History, timestamps: bool) -> Result<OnlineKind, Error> {
        let mut committed = h.txns.iter().filter(|t| t.status == Status::Committed).peekable();
        let all_timed =
            committed.peek().is_some() && committed.all(|t| t.start_ts().is_some() && t.commit_ts().is_some());
        if timestamps || all_timed {
            Ok(OnlineKind::Timestamps)
        } else if h.model == Model::RwRegister {
            Err(Error::new(
                ErrorKind::Usage,
                "online checking takes list-append histories (append and r), not register writes, unless every committed transaction carries start and commit timestamps",
            ))
        } else {
            Ok(OnlineKind::Cycles)
        }
    }
}
