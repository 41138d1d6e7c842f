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

use crate::error::{Error, ErrorKind};
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
        refuse_claimed_orders(h, None)?;
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

/// A claimed version or commit order (native `version_order`/`commit_order`, EDN
/// `{:commit-order [...]}`) orders the whole history, and the online checkers do not check one:
/// taking the transactions without it decided levels the claim violates (a G0 that only a
/// native document's version order shows was `holds` at every level; a read the commit order
/// puts after its writer left SER `holds`). Refused, at its place in `text` when given (a
/// record of a stream). A register stream's version order comes as a write-ahead log
/// (`OnlineChecker::set_wal`), not in the history.
pub fn refuse_claimed_orders(h: &History, text: Option<&[u8]>) -> Result<(), Error> {
    let (what, keys): (&str, &[&[u8]]) = match (&h.version_order, &h.commit_order) {
        (Some(_), _) => ("version order", &[b"\"version_order\""]),
        (_, Some(_)) => ("commit order", &[b"\"commit_order\"", b"{:commit-order", b":commit-order"]),
        _ => return Ok(()),
    };
    Err(match text {
        Some(text) => {
            let at = keys.iter().find_map(|k| text.windows(k.len()).position(|w| w == *k)).unwrap_or(0);
            claimed_order_error(what, text, at)
        }
        None => Error::new(ErrorKind::Usage, claimed_order_message(what)),
    })
}

/// The refusal of a claimed order at `at` in a record's `text`.
pub(crate) fn claimed_order_error(what: &str, text: &[u8], at: usize) -> Error {
    Error::at_offset(ErrorKind::Usage, text, at, claimed_order_message(what))
}

fn claimed_order_message(what: &str) -> String {
    let wal = match what {
        "version order" => ", or give a register stream's version order as a write-ahead log (--wal)",
        _ => "",
    };
    format!(
        "expected no claimed {what} in a stream: the online checker does not check one (check the history with grail check{wal})"
    )
}
