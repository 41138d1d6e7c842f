//! Compaction of a key's versions into read-modify-write chains (PolySI 4.2; Cobra's
//! "combining writes", Tan et al., OSDI 2020, 4.2): version `v` follows version `u` at once in
//! every order without a lost update when `v`'s writer read `u` and nothing else of the key,
//! and no other writer of the key read `u`. Links that meet these conditions form chains (a
//! read-modify-write cycle of links, itself a violation the known WR edges show, is left
//! unlinked); the known edges of a chain are WW between consecutive versions and RW from the
//! other readers of a version to the next one.

use super::constraints::KeyInfo;
use crate::graph::{Edge, EdgeType};
use crate::hash::Map;
use crate::history::TxnId;

const NONE: u32 = u32::MAX;
/// More than one candidate: no link.
const MANY: u32 = u32::MAX - 1;

/// Order `k.versions` chain by chain and set `k.chain_ends`; push each chain's edges to `known`.
/// Without `compact`, every version is a chain of its own.
pub fn chains(k: &mut KeyInfo, compact: bool, known: &mut Vec<Edge>) {
    let m = k.versions.len();
    if !compact || m < 2 {
        k.chain_ends = (1..=m as u32).collect();
        return;
    }
    let writer: Map<TxnId, u32> = k.versions.iter().enumerate().map(|(i, v)| (v.txn, i as u32)).collect();
    let (mut succ, mut pred) = (vec![NONE; m], vec![NONE; m]);
    let note = |slot: &mut u32, x: u32| {
        *slot = match *slot {
            NONE => x,
            s if s == x => s,
            _ => MANY,
        }
    };
    for (u, ver) in k.versions.iter().enumerate() {
        for &(r, _) in &ver.readers {
            if let Some(&v) = writer.get(&r) {
                if v as usize != u {
                    note(&mut succ[u], v);
                    note(&mut pred[v as usize], u as u32);
                }
            }
        }
    }
    // Reading the initial value as well as `u` also spoils the link.
    for &(r, _) in &k.initial_readers {
        if let Some(&v) = writer.get(&r) {
            pred[v as usize] = MANY;
        }
    }
    let linked = |u: usize| -> Option<usize> {
        let v = succ[u];
        (v < MANY && pred[v as usize] == u as u32).then_some(v as usize)
    };
    let mut has_prev = vec![false; m];
    for u in 0..m {
        if let Some(v) = linked(u) {
            has_prev[v] = true;
        }
    }
    let mut order: Vec<usize> = Vec::with_capacity(m);
    let mut ends: Vec<u32> = Vec::new();
    let mut placed = vec![false; m];
    for head in (0..m).filter(|&h| !has_prev[h]) {
        let mut u = head;
        loop {
            placed[u] = true;
            order.push(u);
            match linked(u) {
                Some(v) if !placed[v] => {
                    let (a, b) = (&k.versions[u], &k.versions[v]);
                    known.push(Edge {
                        from: a.txn,
                        to: b.txn,
                        ty: EdgeType::Ww,
                        key: k.key,
                        from_op: a.op,
                        to_op: b.op,
                    });
                    for &(r, o) in a.readers.iter().filter(|r| r.0 != b.txn) {
                        known.push(Edge { from: r, to: b.txn, ty: EdgeType::Rw, key: k.key, from_op: o, to_op: b.op });
                    }
                    u = v;
                }
                _ => break,
            }
        }
        ends.push(order.len() as u32);
    }
    // Versions on a cycle of links: chains of their own.
    for u in (0..m).filter(|&u| !placed[u]) {
        order.push(u);
        ends.push(order.len() as u32);
    }
    let mut old: Vec<Option<super::constraints::Version>> =
        std::mem::take(&mut k.versions).into_iter().map(Some).collect();
    k.versions = order.iter().filter_map(|&i| old[i].take()).collect();
    k.chain_ends = ends;
}
