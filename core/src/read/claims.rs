//! The orders a history claims, as readers parse them: timestamps in JSON and the claimed
//! commit order (`crate::timestamps` checks them).

use crate::error::{Error, ErrorKind};
use crate::history::{History, Ts, TxnId};

/// A timestamp in JSON: an integer, a string holding one, or `{"p": .., "l": ..}` (each part an
/// integer or a string holding one; `l` 0 when absent).
pub fn ts_from_json(v: &serde_json::Value) -> Result<Ts, String> {
    fn part(v: &serde_json::Value) -> Option<i64> {
        match v {
            serde_json::Value::Number(n) => n.as_i64(),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    match v {
        serde_json::Value::Object(o) => {
            let p =
                o.get("p").and_then(part).ok_or("expected a hybrid logical clock {\"p\": integer, \"l\": integer}")?;
            let l = match o.get("l") {
                None | Some(serde_json::Value::Null) => 0,
                Some(l) => part(l).ok_or("expected \"l\" to be an integer")?,
            };
            Ok(Ts::new(p, l))
        }
        _ => part(v).map(Ts::int).ok_or_else(|| "expected an integer timestamp or {\"p\": .., \"l\": ..}".to_string()),
    }
}

/// The native `"commit_order": [ids]` as transactions, placed at the key in `text` on error.
pub(crate) fn commit_order_from_json(h: &History, v: &serde_json::Value, text: &[u8]) -> Result<Vec<TxnId>, Error> {
    let at = find(text, b"\"commit_order\"").unwrap_or(0);
    let ids =
        v.as_array().and_then(|a| a.iter().map(|x| x.as_u64()).collect::<Option<Vec<u64>>>()).ok_or_else(|| {
            Error::at_offset(ErrorKind::Shape, text, at, "expected \"commit_order\" to be an array of transaction ids")
        })?;
    resolve_commit_order(h, &ids, text, at)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Transaction ids to transactions: each must name a transaction, once.
pub(crate) fn resolve_commit_order(h: &History, ids: &[u64], text: &[u8], at: usize) -> Result<Vec<TxnId>, Error> {
    let by_id: crate::hash::Map<u64, TxnId> = h.txns.iter().enumerate().map(|(i, t)| (t.id, i as TxnId)).collect();
    let mut seen = crate::hash::Set::default();
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        let Some(&t) = by_id.get(&id) else {
            return Err(Error::at_offset(
                ErrorKind::Shape,
                text,
                at,
                format!("the commit order lists {id}, which is no transaction's id"),
            ));
        };
        if !seen.insert(t) {
            return Err(Error::at_offset(ErrorKind::Shape, text, at, format!("the commit order lists {id} twice")));
        }
        out.push(t);
    }
    Ok(out)
}
