//! Transactions of a history written back in PolySI's and Plume's text (`r(key,value,session,txn)`
//! a line, [`crate::read::read_plume`]), for a history read from that text: a sub-history the
//! peers' loaders and grail read to the same transactions. No IO.
//!
//! Each operation on a line as [`crate::explain::op_text`] writes it (0 for a read of the initial
//! value; an aborted write, `txn = -1`, with session 0), in the order of the input's lines
//! (operations without a place: in transaction order, after them). The text has no comments: a
//! loader would refuse one.

use crate::explain::plume_op_text;
use crate::history::{History, TxnId};

/// The operations of transactions `txns` (indices into [`History::txns`]; out of range and
/// repeated ones skipped), a line each.
pub fn sub_history(h: &History, txns: &[TxnId]) -> String {
    let mut ts: Vec<TxnId> = txns.iter().copied().filter(|&t| (t as usize) < h.txns.len()).collect();
    crate::par::sort::sort_unstable(&mut ts);
    ts.dedup();
    let mut ops: Vec<(u32, u32)> = ts
        .iter()
        .flat_map(|&t| h.op_range(t))
        .map(|o| (h.op_span(o as u32).map_or(u32::MAX, |s| s.line), o as u32))
        .collect();
    crate::par::sort::sort_unstable(&mut ops);
    let mut out = String::new();
    for (_, o) in ops {
        // An aborted write's session is not kept; its loaders ignore it.
        out.push_str(&plume_op_text(h, o, "0"));
        out.push('\n');
    }
    out
}
