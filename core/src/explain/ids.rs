//! Transaction ids as reports give them, back to positions in the history: what a renderer or
//! an Elle explanation needs to find a report's operations.

use crate::hash::Map;
use crate::history::{History, TxnId};

/// Transaction ids (as reports give them) to positions in the history.
pub struct Ids(Map<u64, TxnId>);

impl Ids {
    pub fn new(h: &History) -> Ids {
        let mut m = Map::default();
        for (t, txn) in h.txns.iter().enumerate() {
            m.entry(txn.id).or_insert(t as TxnId);
        }
        Ids(m)
    }

    /// The transaction with this id.
    pub fn txn(&self, id: u64) -> Option<TxnId> {
        self.0.get(&id).copied()
    }

    /// The history's index of an operation of a report (`txn` id, position in the transaction).
    pub fn op(&self, h: &History, txn: u64, index: u32) -> Option<u32> {
        let t = &h.txns[self.txn(txn)? as usize];
        let o = t.ops_start.checked_add(index)?;
        (o < t.ops_end).then_some(o)
    }
}
