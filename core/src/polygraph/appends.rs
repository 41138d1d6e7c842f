//! The polygraph of a list-append history's unobserved appends: the order of two appends to a
//! key that no read observed is open, as a register's version order is without a log (PolySI
//! Def. 9). Such appends have no readers, so a choice adds its WW edge alone; the RW edges to
//! them (from the reads of the whole observed list) are known already. A choice can close a
//! cycle only inside a strongly connected component of the known graph: ordering the appends of
//! different components along the components' topological order adds no cycle. So the
//! constraints are the pairs of unobserved appends of one key within one component, and the
//! known edges those components' own.

use super::constraints::{Constraint, KeyInfo, Polygraph, Version};
use crate::graph::{DependencyGraph, Edge};
use crate::hash::Map;
use crate::history::{History, KeyId, OpKind, TxnId};

/// The polygraph of `g`'s unobserved appends (`open_appends`, grouped by key, as inference
/// lists them) whose order can matter, `comps` being `g`'s strongly connected components; `None`
/// when no two of them share a component.
pub fn build(
    h: &History,
    g: &DependencyGraph,
    comps: &[Vec<TxnId>],
    open_appends: &[(KeyId, TxnId)],
    max_constraints: u64,
) -> Option<Polygraph> {
    let mut comp_of: Map<TxnId, u32> = Map::default();
    for (i, c) in comps.iter().enumerate().filter(|(_, c)| c.len() > 1) {
        for &t in c {
            comp_of.insert(t, i as u32);
        }
    }
    let mut keys: Vec<KeyInfo> = Vec::new();
    let mut involved: Vec<u32> = Vec::new();
    for group in open_appends.chunk_by(|x, y| x.0 == y.0) {
        let k = group[0].0;
        let mut by_comp: Map<u32, Vec<TxnId>> = Map::default();
        for &(_, t) in group {
            if let Some(&c) = comp_of.get(&t) {
                by_comp.entry(c).or_default().push(t);
            }
        }
        let mut shared: Vec<(u32, Vec<TxnId>)> = by_comp.into_iter().filter(|(_, ts)| ts.len() > 1).collect();
        crate::par::sort::sort_unstable(&mut shared);
        for (c, mut ts) in shared {
            crate::par::sort::sort_unstable(&mut ts);
            ts.dedup();
            let versions: Vec<Version> = ts
                .iter()
                .filter_map(|&t| last_append(h, t, k).map(|op| Version { txn: t, op, readers: Vec::new() }))
                .collect();
            if versions.len() < 2 {
                continue;
            }
            involved.push(c);
            let chain_ends = (1..=versions.len() as u32).collect();
            keys.push(KeyInfo { key: k, versions, chain_ends, initial_readers: Vec::new() });
        }
    }
    if keys.is_empty() {
        return None;
    }
    crate::par::sort::sort_unstable(&mut involved);
    involved.dedup();
    let inside = |t: TxnId| comp_of.get(&t).is_some_and(|c| involved.binary_search(c).is_ok());
    let known: Vec<Edge> = g.edges.iter().filter(|e| inside(e.from) && inside(e.to)).copied().collect();
    let choose2 = |m: u64| m * m.saturating_sub(1) / 2;
    let pairs: u64 = keys.iter().map(|k| choose2(k.versions.len() as u64)).sum();
    let mut cons = Vec::new();
    if pairs <= max_constraints {
        for (ki, k) in keys.iter().enumerate() {
            let m = k.versions.len() as u32;
            for a in 0..m {
                for b in a + 1..m {
                    cons.push(Constraint { key: ki as u32, a, b });
                }
            }
        }
    }
    let n = h.txns.len();
    Some(Polygraph {
        n,
        known,
        keys,
        cons,
        pairs,
        version_pairs: pairs,
        compact: false,
        limit: max_constraints,
        rank: (0..n as u32).collect(),
        session: Vec::new(),
        assumed: Vec::new(),
    })
}

/// Transaction `t`'s last append to key `k`.
fn last_append(h: &History, t: TxnId, k: KeyId) -> Option<u32> {
    let txn = &h.txns[t as usize];
    (txn.ops_start..txn.ops_end).rev().find(|&o| {
        let op = h.ops[o as usize];
        op.kind() == OpKind::Append && op.key == k
    })
}
