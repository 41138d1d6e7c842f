//! Causal consistency's saturation (Biswas and Enea, OOPSLA 2019, the Causal axiom): for a read
//! by t3 of key x from t1, every writer t2 of x in t3's causal past must commit before t1.
//!
//! Vector clocks over a chain cover (sessions, extended greedily for transactions without one),
//! computed in Kahn's order of session order and reads-from and freed after their last use;
//! transactions on a cycle of those are skipped (the cycle itself is reported as a causality
//! cycle). Per chain only the latest observed writer counts: earlier ones reach it through session
//! order. And t2 -> t1 is drawn only when t1 had not itself seen t2: otherwise causality already
//! orders them, as in AWDIT's partial commit relation (Møldrup and Pavlogiannis, PLDI 2025,
//! arXiv 2504.06975). Each read then costs a comparison per chain that wrote its key, O(n·k) in all.

use super::weak::{Input, Out, Redundant};
use crate::hash::Map;
use crate::history::{KeyId, OpKind, TxnId};

/// Each key's writes, per chain, in chain order: the groups of key k are
/// `groups[key_starts[k]..key_starts[k + 1]]`, each `(chain, start, end)` into `writes`, whose
/// entries are `(position in the chain, op)` of each transaction's last write of the key.
struct ChainWrites {
    key_starts: Vec<u32>,
    groups: Vec<(u32, u32, u32)>,
    writes: Vec<(u32, u32)>,
}

impl ChainWrites {
    fn new(inp: &Input, order: &[TxnId], chain: &[u32], pos: &[u32]) -> ChainWrites {
        let h = inp.h;
        let mut all: Vec<(KeyId, u32, u32, u32)> = Vec::new();
        for &t in order {
            let txn = &h.txns[t as usize];
            for o in txn.ops_start..txn.ops_end {
                let op = h.ops[o as usize];
                if op.kind() != OpKind::Read {
                    all.push((op.key, chain[t as usize], pos[t as usize], o));
                }
            }
        }
        crate::par::sort::sort_unstable(&mut all);
        // Of one transaction's writes of a key, the last.
        all.dedup_by(|later, earlier| {
            let same = (later.0, later.1, later.2) == (earlier.0, earlier.1, earlier.2);
            if same {
                earlier.3 = later.3;
            }
            same
        });
        let mut key_starts = vec![0u32; h.keys.len() + 1];
        let mut groups: Vec<(u32, u32, u32)> = Vec::new();
        let mut writes = Vec::with_capacity(all.len());
        for (i, &(k, c, p, o)) in all.iter().enumerate() {
            if i == 0 || (all[i - 1].0, all[i - 1].1) != (k, c) {
                groups.push((c, writes.len() as u32, writes.len() as u32));
                if let Some(s) = key_starts.get_mut(k as usize + 1) {
                    *s += 1;
                }
            }
            writes.push((p, o));
            if let Some(g) = groups.last_mut() {
                g.2 = writes.len() as u32;
            }
        }
        for i in 1..key_starts.len() {
            key_starts[i] += key_starts[i - 1];
        }
        ChainWrites { key_starts, groups, writes }
    }

    /// The groups of key `k` (indices into `groups`).
    fn of_key(&self, k: KeyId) -> std::ops::Range<usize> {
        crate::bucket_sort::range(&self.key_starts, k as usize)
    }

    /// Of group `g`'s writes, how many are at positions before `upto`, given that the first
    /// `done[g]` are exactly those before `frontier` (how far its chain has been visited) and
    /// `upto <= frontier`. Moves `done[g]` up to `frontier` first, then gallops back from it: a
    /// transaction has usually seen its chains up to their recent past, so this takes a step or two
    /// where a binary search over the whole chain would miss the cache at each of its steps.
    fn before(&self, g: usize, upto: u32, frontier: u32, done: &mut [u32]) -> usize {
        let (_, s, e) = self.groups[g];
        let ws = &self.writes[s as usize..e as usize];
        let mut j = done[g] as usize;
        while j < ws.len() && ws[j].0 < frontier {
            j += 1;
        }
        done[g] = j as u32;
        let mut b = 1;
        while b <= j && ws[j - b].0 >= upto {
            b *= 2;
        }
        let hi = if b == 1 { j } else { j - b / 2 };
        let lo = if b > j { 0 } else { j - b + 1 };
        lo + ws[lo..hi].partition_point(|w| w.0 < upto)
    }
}

/// What every saturation pass over one history shares: Kahn's order of session order and
/// reads-from, the chain cover, and the writes per key and chain.
pub(super) struct Causal {
    preds: Vec<Vec<TxnId>>,
    order: Vec<TxnId>,
    chain: Vec<u32>,
    pos: Vec<u32>,
    chains: usize,
    writes: ChainWrites,
    /// The last use of each clock: its latest successor in the order.
    last_use: Vec<u32>,
    has_succs: Vec<bool>,
}

impl Causal {
    pub(super) fn new(inp: &Input) -> Causal {
        let (h, is_vertex, so) = (inp.h, &inp.inf.graph.is_vertex, &inp.so);
        let n = is_vertex.len();
        // Predecessors: the session predecessor and the writers read from.
        let mut so_pred: Vec<TxnId> = vec![TxnId::MAX; n];
        for e in so {
            so_pred[e.to as usize] = e.from;
        }
        let mut preds: Vec<Vec<TxnId>> = vec![Vec::new(); n];
        let mut succs: Vec<Vec<TxnId>> = vec![Vec::new(); n];
        for t in 0..n as TxnId {
            let mut p: Vec<TxnId> =
                inp.reads_of(t).iter().filter_map(|r| r.from).map(|w| inp.op_txn[w as usize]).collect();
            if so_pred[t as usize] != TxnId::MAX {
                p.push(so_pred[t as usize]);
            }
            crate::par::sort::sort_unstable(&mut p);
            p.dedup();
            p.retain(|&x| x != t);
            for &x in &p {
                succs[x as usize].push(t);
            }
            // The session predecessor first: its clock is the one the others most often add
            // nothing to (see `saturate`).
            if let Some(i) = p.iter().position(|&x| x == so_pred[t as usize]) {
                p[..=i].rotate_right(1);
            }
            preds[t as usize] = p;
        }
        // Kahn's order.
        let mut indeg: Vec<u32> = preds.iter().map(|p| p.len() as u32).collect();
        let mut order: Vec<TxnId> =
            (0..n as TxnId).filter(|&t| is_vertex[t as usize] && indeg[t as usize] == 0).collect();
        let mut i = 0;
        while i < order.len() {
            let t = order[i];
            i += 1;
            for &s in &succs[t as usize] {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    order.push(s);
                }
            }
        }
        let mut rank = vec![u32::MAX; n];
        for (i, &t) in order.iter().enumerate() {
            rank[t as usize] = i as u32;
        }
        // Chains: each session is one; a transaction without one extends the chain of a predecessor
        // that is still that chain's tail, or starts its own.
        let mut chain = vec![u32::MAX; n];
        let mut pos = vec![0u32; n];
        let mut tails: Vec<TxnId> = Vec::new();
        let mut by_process: Map<i64, u32> = Map::default();
        for &t in &order {
            let c = match h.txns[t as usize].process() {
                Some(p) => *by_process.entry(p).or_insert_with(|| {
                    tails.push(TxnId::MAX);
                    tails.len() as u32 - 1
                }),
                None => {
                    let free = preds[t as usize].iter().map(|&p| chain[p as usize]).find(|&c| {
                        c != u32::MAX
                            && tails[c as usize] != TxnId::MAX
                            && preds[t as usize].contains(&tails[c as usize])
                    });
                    free.unwrap_or_else(|| {
                        tails.push(TxnId::MAX);
                        tails.len() as u32 - 1
                    })
                }
            };
            let tail = tails[c as usize];
            pos[t as usize] = if tail == TxnId::MAX { 0 } else { pos[tail as usize] + 1 };
            chain[t as usize] = c;
            tails[c as usize] = t;
        }
        let chains = tails.len();
        let writes = ChainWrites::new(inp, &order, &chain, &pos);
        let last_use: Vec<u32> = (0..n)
            .map(|t| succs[t].iter().map(|&s| rank[s as usize]).filter(|&r| r != u32::MAX).max().unwrap_or(0))
            .collect();
        let has_succs = succs.iter().map(|s| !s.is_empty()).collect();
        Causal { preds, order, chain, pos, chains, writes, last_use, has_succs }
    }

    /// One saturation pass: `redundant` says which implied edges to draw (see the module doc).
    pub(super) fn saturate(&self, inp: &Input, out: &mut Out, redundant: &Redundant) {
        let Causal { preds, order, chain, pos, chains, writes, last_use, has_succs } = self;
        let (n, chains) = (chain.len(), *chains);
        let mut slot = vec![u32::MAX; n];
        let mut pool: Vec<Vec<u32>> = Vec::new();
        let mut free: Vec<u32> = Vec::new();
        // Per held clock: the latest writer per chain that must precede its transaction.
        let mut latest: Vec<Latest> = Vec::new();
        let mut clock: Vec<u32> = vec![0; chains];
        // How far each chain has been visited, and per group how many of its writes are before that.
        let mut frontier: Vec<u32> = vec![0; chains];
        let mut done: Vec<u32> = vec![0; writes.groups.len()];
        let none: Vec<u32> = vec![0; chains];
        for (i, &t) in order.iter().enumerate() {
            // t's clock is the join of its predecessors'. A predecessor the clock has seen
            // already adds nothing (its past is in the past of whoever saw it): its clock is not
            // read (220k of 707k joins on AWDIT's 200k history).
            let mut empty = true;
            for &p in &preds[t as usize] {
                let Some(pc) = pool.get(slot[p as usize] as usize) else { continue };
                if empty {
                    clock.copy_from_slice(pc);
                    empty = false;
                } else if clock[chain[p as usize] as usize] <= pos[p as usize] {
                    for (c, &x) in clock.iter_mut().zip(pc) {
                        *c = (*c).max(x);
                    }
                }
            }
            if empty {
                clock.iter_mut().for_each(|c| *c = 0);
            }
            // The clock is t's causal past, t excluded: the writers it observed.
            for r in inp.reads_of(t) {
                // What the writer read from had seen (a predecessor of t, so its clock is held; t1
                // included), or nothing for a read of the initial value.
                let t1 = r.from.map(|w| inp.op_txn[w as usize]);
                if !redundant.wanted(t1) {
                    continue;
                }
                let seen_by_t1 = t1.and_then(|t1| pool.get(slot[t1 as usize] as usize)).unwrap_or(&none);
                for g in writes.of_key(r.key) {
                    let (c, s, _) = writes.groups[g];
                    let (upto, before) = (clock[c as usize], seen_by_t1[c as usize]);
                    if upto <= before && matches!(redundant, Redundant::Drop) {
                        continue; // t saw no more of chain c than t1 did
                    }
                    let k = writes.before(g, upto, frontier[c as usize], &mut done);
                    let Some(&(p2, w2)) = k.checked_sub(1).and_then(|k| writes.writes.get(s as usize + k)) else {
                        continue;
                    };
                    let implied = p2 < before;
                    match (t1, redundant) {
                        // Of the writers on chain c that must precede t1, only the latest counts:
                        // the others reach it by session order. Drawn when t1's clock is freed.
                        (Some(t1), Redundant::Drop) if !implied => {
                            latest[slot[t1 as usize] as usize].offer(c, p2 + 1, w2, r.op, r.key);
                        }
                        _ if !implied || redundant.keeps(inp.op_txn[w2 as usize], t1) => out.infer(inp, w2, r),
                        _ => {}
                    }
                }
            }
            clock[chain[t as usize] as usize] = pos[t as usize] + 1;
            frontier[chain[t as usize] as usize] = pos[t as usize] + 1;
            if has_succs[t as usize] {
                let s = match free.pop() {
                    Some(s) => {
                        pool[s as usize].copy_from_slice(&clock);
                        s
                    }
                    None => {
                        pool.push(clock.clone());
                        latest.push(Latest::default());
                        pool.len() as u32 - 1
                    }
                };
                slot[t as usize] = s;
            }
            for &p in &preds[t as usize] {
                if last_use[p as usize] == i as u32 && slot[p as usize] != u32::MAX {
                    latest[slot[p as usize] as usize].draw(out, inp, p);
                    free.push(slot[p as usize]);
                    slot[p as usize] = u32::MAX;
                }
            }
        }
        for (t, &s) in slot.iter().enumerate() {
            if let Some(l) = latest.get_mut(s as usize) {
                l.draw(out, inp, t as TxnId);
            }
        }
    }
}

/// The writers per chain that must precede one transaction t1, the latest of each drawn as a
/// commit-order edge into t1 when its clock is freed. Offers are listed as they come and sorted
/// at the draw: a row of 16 bytes per chain per held clock, read whole at each free, was 236 MB
/// on AWDIT's 200k history (1,000 chains, 14,772 clocks held at once), and with a row of 4 bytes
/// the comparison at each offer, a cache miss, was 15% of the check's samples.
#[derive(Default)]
struct Latest {
    /// (chain, position + 1, write op, read op, key) in the order offered.
    offers: Vec<(u32, u32, u32, u32, KeyId)>,
}

impl Latest {
    fn offer(&mut self, c: u32, p: u32, w2: u32, read_op: u32, key: KeyId) {
        self.offers.push((c, p, w2, read_op, key));
    }

    /// The commit-order edges into `t1`, one per chain: of a chain's offers, the first of the
    /// latest position (the one a slot per chain, raised only by a later position, would hold).
    fn draw(&mut self, out: &mut Out, inp: &Input, t1: TxnId) {
        // Stable: offers of one chain and position stay in the order offered.
        crate::par::sort::sort_by_key(&mut self.offers, |o| (o.0, std::cmp::Reverse(o.1)));
        for (i, &(c, _, w2, read_op, key)) in self.offers.iter().enumerate() {
            if i == 0 || self.offers[i - 1].0 != c {
                out.co(inp.op_txn[w2 as usize], t1, key, w2, read_op);
            }
        }
        self.offers.clear();
    }
}
