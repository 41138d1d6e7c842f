//! List-append inference: the version order of a key is its longest read (traceability), as in
//! GRAIL (thesis Appendix D, Algorithm 11) and Elle.
//!
//! WW joins the writers of consecutive elements; WR joins the writer of a read's last element to
//! the reader; RW joins a reader to the writer of the element after its last. Appends no read
//! observed come after every observed version, in an unknown order: WW from the last observed
//! writer and RW from its readers to each (Algorithm 11, lines 16-18). A read after the
//! transaction's own append to the key is internal: checked, never an edge.

use super::{Ctx, WriteInfo, Writes};
use crate::anomaly::AnomalyKind;
use crate::graph::EdgeType;
use crate::history::{Arg, History, KeyId, OpKind, Status, TxnId, Value};

pub(crate) fn infer(h: &History, cx: &mut Ctx) {
    let index = cx.index;
    let appends = &index.writes;
    let nkeys = h.keys.len();
    let (reads, longest) = scan_reads(h, cx);
    // Each key's version order: the op of its longest read.
    let order: Vec<Option<u32>> = longest.iter().map(|l| l.map(|x| x.1)).collect();
    drop(longest);

    // Promote first: an indeterminate append that anyone observed committed.
    let indeterminate = h.txns.iter().any(|t| t.status == Status::Indeterminate);
    if indeterminate {
        let observed = crate::par::map_ranges(nkeys, PARALLEL_KEYS, |keys| {
            let mut txns = Vec::new();
            for k in keys {
                let list = order_of(h, order[k]);
                txns.extend(order_writers(appends, k as KeyId, list).flatten().map(|w| w.txn));
            }
            txns
        });
        for t in observed.into_iter().flatten() {
            cx.promote(t);
        }
    }
    // Without indeterminate transactions no range can promote one: each range's reads are
    // given back once its edges are made.
    match indeterminate {
        false => match keys_on_pool(h, cx, &order, reads) {
            Ok(forks) => join(cx, forks),
            Err(reads) => edges_of_keys(h, cx, &order, reads),
        },
        true => edges_of_keys(h, cx, &order, reads),
    }
    cx.list_order = order;
}

/// Every key's edges from its version order (`order`, the op of its longest read) and its
/// reads: in ranges of keys on the pool unless a range promotes a transaction, else here.
fn edges_of_keys(h: &History, cx: &mut Ctx, order: &[Option<u32>], reads: Reads) {
    let index = cx.index;
    let appends = &index.writes;
    let nkeys = h.keys.len();
    // Each key's appenders are looked up again for its edges rather than kept for all keys
    // (half a gigabyte at 10M transactions).
    let keys_edges = |cx: &mut Ctx, keys: std::ops::Range<usize>| {
        let mut s = Scratch::default();
        for k in keys {
            key_edges(h, cx, appends, k as KeyId, order.get(k).copied().flatten(), reads.of(k), &mut s);
        }
    };
    match parallel_keys(cx, nkeys, &keys_edges) {
        None => keys_edges(cx, 0..nkeys),
        Some(forks) => {
            // The reads per key go before the forks' edges are gathered, the build's peak.
            drop(reads);
            join(cx, forks);
        }
    }
}

/// The edges [`super::provenance`] asks for, where the full inference promoted no transaction:
/// its vertices were the committed transactions throughout, so each key's edges follow from its
/// version order (`list_order`, the full inference's) and its reads alone. WW edges come from
/// the orders; a WR or RW edge from a read of its reader, one of `txns` (every transaction of
/// a pair asked for, ascending): only their reads are scanned again.
pub(crate) fn wanted_edges(h: &History, cx: &mut Ctx, list_order: &[Option<u32>], txns: &[TxnId]) {
    let nkeys = h.keys.len();
    let mut all: Vec<Read> = Vec::new();
    let mut fork = None;
    let mut own = Vec::new();
    for &t in txns {
        if h.txns.get(t as usize).is_none_or(|x| x.status != Status::Committed) {
            continue;
        }
        let ops = h.op_range(t);
        for o in ops.clone() {
            if h.ops[o].kind() == OpKind::Read {
                all.push(scan_read(h, cx, &mut fork, t, ops.start as u32, o as u32, &mut own));
            }
        }
    }
    // Its findings are the full inference's.
    drop(fork);
    // By key, then in input order, as `scan_reads` lists them.
    all.sort_unstable_by_key(|r| (r.key, r.txn, r.op));
    let mut starts = vec![0u32; nkeys + 1];
    let mut pairs = Vec::with_capacity(all.len());
    for r in all.iter().filter(|r| r.external && (r.key as usize) < nkeys) {
        starts[r.key as usize + 1] += 1;
        pairs.push(ExtRead { op: r.op, prefix_len: if r.prefix { r.len } else { NOT_PREFIX } });
    }
    crate::bucket_sort::starts_from_counts(&mut starts);
    edges_of_keys(h, cx, list_order, Reads { starts, pairs });
}

/// A key's version order: the list of its longest read (`longest_op`), empty without one.
fn order_of(h: &History, longest_op: Option<u32>) -> &[Value] {
    longest_op.map_or(&[], |o| h.list(&h.ops[o as usize]))
}

/// The appender of each element of key `k`'s version order.
fn order_writers<'a>(
    appends: &'a Writes,
    k: KeyId,
    order: &'a [Value],
) -> impl Iterator<Item = Option<WriteInfo>> + 'a {
    order.iter().map(move |&e| appends.get(&(k, e)))
}

/// Below this many keys (or transactions) one thread does the work.
const PARALLEL_KEYS: usize = 1 << 12;

/// A committed read as the scan found it.
#[derive(Debug, Clone, Copy, Default)]
struct Read {
    key: KeyId,
    txn: TxnId,
    op: u32,
    len: u32,
    /// Not after the transaction's own append to the key: an observation of the database.
    external: bool,
    /// Trustworthy as the key's version order (consistent with the transaction's own
    /// operations, or external).
    candidate: bool,
    /// Stored as a prefix of its key's canonical list ([`Arg::Prefix`]).
    prefix: bool,
}

/// An external read of a committed transaction, with its length, so that the keys' edges need
/// not look the operation up (a cache miss per read, 4% of a check at 1M). 8 bytes: a third
/// word for its transaction (the index gives it) put the 10M peak 90 MB higher, past 6 GB.
#[derive(Debug, Clone, Copy)]
struct ExtRead {
    op: u32,
    /// Its length when it is a prefix of its key's canonical list, else [`NOT_PREFIX`].
    prefix_len: u32,
}

const NOT_PREFIX: u32 = u32::MAX;

impl ExtRead {
    /// The elements read: as [`History::list`] gives them.
    fn list<'h>(&self, h: &'h History, k: KeyId) -> &'h [Value] {
        match h.canon.get(k as usize) {
            Some(canon) if self.prefix_len != NOT_PREFIX => &canon[..(self.prefix_len as usize).min(canon.len())],
            _ => h.list(&h.ops[self.op as usize]),
        }
    }
}

/// External reads of committed transactions, per key, in input order.
struct Reads {
    /// `pairs[starts[k]..starts[k + 1]]` are key k's.
    starts: Vec<u32>,
    pairs: Vec<ExtRead>,
}

impl Reads {
    fn of(&self, k: usize) -> &[ExtRead] {
        crate::bucket_sort::bucket(&self.pairs, &self.starts, k)
    }
}

/// Every committed transaction's reads, checked against the transaction's own operations:
/// the reads per key, and per key the longest trustworthy read (len, op), the first of that
/// length in input order. Ranges of transactions on the pool, each writing its reads into its
/// own slice of one vector; the ranges' findings are added in order, so the result is the one
/// of a single pass.
fn scan_reads(h: &History, cx: &mut Ctx) -> (Reads, Vec<Option<(usize, u32)>>) {
    let nkeys = h.keys.len();
    let base: &Ctx = cx;
    let (mut all, forks) = crate::par::fill_ranges(
        h.txns.len(),
        PARALLEL_KEYS,
        |txns| super::committed_reads(h, txns),
        |txns, out| {
            let mut fork = None;
            let mut own = Vec::new();
            let mut out = out.iter_mut();
            for t in txns {
                if h.txns[t].status != Status::Committed {
                    continue;
                }
                let ops = h.op_range(t as TxnId);
                for o in ops.clone() {
                    if h.ops[o].kind() != OpKind::Read {
                        continue;
                    }
                    let read = scan_read(h, base, &mut fork, t as TxnId, ops.start as u32, o as u32, &mut own);
                    if let Some(slot) = out.next() {
                        *slot = read;
                    }
                }
            }
            fork
        },
    );
    for f in forks.into_iter().flatten() {
        cx.findings.extend(f.findings);
    }
    // By key, then in input order (transaction, then operation): the order of one pass.
    crate::bucket_sort::sort_by_bucket(&mut all, nkeys, |r| r.key as usize, |r| (r.key, r.txn, r.op));
    // One pass over the sorted reads: each key's longest candidate (the first of its length in
    // input order), and its external reads in 8 bytes each, so that the records can go before
    // the keys' edges.
    let mut longest: Vec<Option<(usize, u32)>> = vec![None; nkeys];
    let mut starts = vec![0u32; nkeys + 1];
    let mut pairs = Vec::with_capacity(all.len());
    for r in all.iter().filter(|r| (r.key as usize) < nkeys) {
        let k = r.key as usize;
        if r.candidate && longest[k].is_none_or(|(l, _)| r.len as usize > l) {
            longest[k] = Some((r.len as usize, r.op));
        }
        if r.external {
            starts[k + 1] += 1;
            pairs.push(ExtRead { op: r.op, prefix_len: if r.prefix { r.len } else { NOT_PREFIX } });
        }
    }
    crate::bucket_sort::starts_from_counts(&mut starts);
    (Reads { starts, pairs }, longest)
}

/// The keys' edges on several threads, each on its own range of keys, in forks of `cx` to
/// [`join`]: `None` (nothing done) when a range promoted an indeterminate transaction, which may
/// change the edges of later keys: then one thread does it all again, in key order.
#[cfg(feature = "parallel")]
fn parallel_keys<'h>(
    cx: &Ctx<'h>,
    nkeys: usize,
    keys_edges: &(impl Fn(&mut Ctx, std::ops::Range<usize>) + Sync),
) -> Option<Vec<Ctx<'h>>> {
    if rayon::current_num_threads() < 2 || nkeys < 2 {
        return None;
    }
    let forks = crate::par::map_ranges(nkeys, 2, |keys| {
        let mut fork = cx.fork();
        keys_edges(&mut fork, keys);
        fork
    });
    forks.iter().all(|f| f.promotions == 0).then_some(forks)
}

/// The keys' edges on the pool, each range of keys in a fork of `cx` with its own share of the
/// reads, dropped when the range is done; for a history without indeterminate transactions
/// (no range promotes one, so every fork is kept). `Err` (nothing done) without threads.
#[cfg(feature = "parallel")]
fn keys_on_pool<'h>(h: &History, cx: &Ctx<'h>, order: &[Option<u32>], reads: Reads) -> Result<Vec<Ctx<'h>>, Reads> {
    use rayon::prelude::*;
    let nkeys = reads.starts.len().saturating_sub(1);
    let threads = rayon::current_num_threads();
    if threads < 2 || nkeys < 2 {
        return Err(reads);
    }
    let ranges = (4 * threads).min(nkeys);
    let parts: Vec<(std::ops::Range<usize>, Reads)> = (0..ranges)
        .map(|i| {
            let keys = i * nkeys / ranges..(i + 1) * nkeys / ranges;
            let first = reads.starts[keys.start];
            let starts: Vec<u32> = reads.starts[keys.start..=keys.end].iter().map(|s| s - first).collect();
            let pairs = reads.pairs[first as usize..reads.starts[keys.end] as usize].to_vec();
            (keys, Reads { starts, pairs })
        })
        .collect();
    drop(reads);
    let appends = &cx.index.writes;
    let forks: Vec<Ctx<'h>> = parts
        .into_par_iter()
        .map(|(keys, part)| {
            let mut fork = cx.fork();
            let mut s = Scratch::default();
            for k in keys.clone() {
                let of = part.of(k - keys.start);
                key_edges(h, &mut fork, appends, k as KeyId, order[k], of, &mut s);
            }
            fork
        })
        .collect();
    debug_assert!(forks.iter().all(|f| f.promotions == 0));
    Ok(forks)
}

#[cfg(not(feature = "parallel"))]
fn keys_on_pool<'h>(_: &History, _: &Ctx<'h>, _: &[Option<u32>], reads: Reads) -> Result<Vec<Ctx<'h>>, Reads> {
    Err(reads)
}

#[cfg(feature = "parallel")]
fn join<'h>(cx: &mut Ctx<'h>, forks: Vec<Ctx<'h>>) {
    // Room for all at once: growing by doubling copied the edges again and again.
    cx.raw.reserve(forks.iter().map(|f| f.raw.len()).sum());
    if let Some(p) = cx.pairs.as_mut() {
        p.reserve(forks.iter().filter_map(|f| f.pairs.as_ref()).map(Vec::len).sum());
    }
    if let Some(r) = cx.reads_from.as_mut() {
        r.reserve(forks.iter().filter_map(|f| f.reads_from.as_ref()).map(Vec::len).sum());
    }
    for f in forks {
        cx.join(f);
    }
}

#[cfg(not(feature = "parallel"))]
fn parallel_keys<'h>(_: &Ctx<'h>, _: usize, _: &impl Fn(&mut Ctx, std::ops::Range<usize>)) -> Option<Vec<Ctx<'h>>> {
    None
}

#[cfg(not(feature = "parallel"))]
fn join<'h>(_: &mut Ctx<'h>, _: Vec<Ctx<'h>>) {}

/// Check one committed read against the transaction's own earlier operations on its key, and
/// say what it is. Findings go to a fork of `base`, made at the first. Out of line: one call per
/// read lets WebAssembly engines tier it up mid-run.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn scan_read<'h>(
    h: &History,
    base: &Ctx<'h>,
    fork: &mut Option<Ctx<'h>>,
    t: TxnId,
    start: u32,
    o: u32,
    own: &mut Vec<Value>,
) -> Read {
    let op = h.ops[o as usize];
    let list = h.list(&op);
    let (prev, internal) = own_view(h, start, o, op.key, own);
    let consistent = match prev {
        Some(p) => {
            let before = h.list(&h.ops[p as usize]);
            list.len() == before.len() + own.len() && is_prefix(before, list) && list.ends_with(own)
        }
        None => list.ends_with(own),
    };
    if !consistent {
        let earlier = prev.map(|p| (t, p));
        let cx = fork.get_or_insert_with(|| base.fork_findings());
        cx.finding(AnomalyKind::Internal, Some(op.key), None, earlier, &[(t, o)]);
    }
    // A read disagreeing with an earlier read is still an observation of the database.
    Read {
        key: op.key,
        txn: t,
        op: o,
        len: list.len() as u32,
        external: !internal,
        candidate: consistent || !internal,
        prefix: matches!(op.arg(), Arg::Prefix(_)),
    }
}

/// For a read at op `o`: the transaction's last earlier read of the key, its own appends to the
/// key since then (or since it began), and whether it appended to the key before at all.
fn own_view(h: &History, start: u32, o: u32, key: KeyId, own: &mut Vec<Value>) -> (Option<u32>, bool) {
    let mut prev = None;
    own.clear();
    let mut appended = false;
    for p in start..o {
        let op = &h.ops[p as usize];
        if op.key != key {
            continue;
        }
        match (op.kind(), op.arg()) {
            (OpKind::Read, _) => {
                prev = Some(p);
                own.clear();
            }
            (_, crate::history::Arg::Val(v)) => {
                own.push(v);
                appended = true;
            }
            _ => {}
        }
    }
    (prev, appended)
}

/// One key's working lists, kept from key to key (allocating them per key was millions of
/// allocations at 10M transactions).
#[derive(Default)]
struct Scratch {
    /// The appender of each element of the key's version order.
    writers: Vec<Option<WriteInfo>>,
    /// The key's appends that are their transaction's last to it, with the value, by operation.
    last_appends: Vec<(WriteInfo, Value)>,
    observed: Vec<Value>,
    unobserved: Vec<WriteInfo>,
}

#[inline(never)] // one call per key: lets WebAssembly engines tier it up mid-run
fn key_edges(
    h: &History,
    cx: &mut Ctx,
    appends: &Writes,
    k: KeyId,
    longest_op: Option<u32>,
    reads: &[ExtRead],
    s: &mut Scratch,
) {
    let order = order_of(h, longest_op);
    s.writers.clear();
    s.writers.extend(order_writers(appends, k, order));
    s.last_appends.clear();
    // A plain loop: `extend` over `filter` called an out-of-line `try_fold` per write, whose
    // result came back through memory (3% of a check at 1M).
    for (v, w) in appends.of_key(k) {
        if w.last {
            s.last_appends.push((w, v));
        }
    }
    // One write per op (an append is of one value), so the compact sort's order is the same.
    crate::par::sort::sort_unstable_by_key(&mut s.last_appends, |w| w.0.op);
    let writers = &s.writers;
    let writer = |i: usize| writers[i];
    s.observed.clear();
    s.observed.extend_from_slice(order);
    crate::par::sort::sort_unstable(&mut s.observed);
    let observed = &s.observed;

    // Elements nobody appended, or an aborted transaction appended.
    for (i, &e) in order.iter().enumerate() {
        let w = writer(i);
        let kind = match w {
            None => AnomalyKind::GarbageRead,
            // A vertex never aborted: the flag is at hand where the status is a cache miss.
            Some(w) if !good(cx, &w) && cx.status(w.txn) == Status::Aborted => AnomalyKind::G1a,
            _ => continue,
        };
        let readers: Vec<(TxnId, u32)> =
            reads.iter().filter(|r| r.list(h, k).len() > i).map(|r| (cx.index.txn_of(r.op), r.op)).collect();
        if !readers.is_empty() {
            cx.finding(kind, Some(k), Some(e), w.map(|w| (w.txn, w.op)), &readers);
        }
    }
    // A transaction's appends to a key are installed together, in its order: an element whose
    // writer appended another to the key just before it must follow that one (a list of
    // `[2]` where one transaction appended 1 and then 2 is no version).
    for (i, &e) in order.iter().enumerate() {
        let Some(w) = writer(i) else { continue };
        let start = h.txns.get(w.txn as usize).map_or(w.op, |t| t.ops_start);
        let prev = (start..w.op).rev().map(|o| h.ops[o as usize]).find(|o| o.key == k && o.kind() == OpKind::Append);
        let Some(prev) = prev else { continue };
        let fine = match (i.checked_sub(1).map(|j| order[j]), prev.arg()) {
            (Some(before), Arg::Val(p)) => before == p,
            _ => false,
        };
        if !fine {
            let readers: Vec<(TxnId, u32)> =
                reads.iter().filter(|r| r.list(h, k).len() > i).map(|r| (cx.index.txn_of(r.op), r.op)).collect();
            cx.finding(AnomalyKind::IncompatibleOrder, Some(k), Some(e), Some((w.txn, w.op)), &readers);
        }
    }
    // WW between consecutive versions.
    for i in 1..order.len() {
        if let (Some(a), Some(b)) = (writer(i - 1), writer(i)) {
            if good(cx, &a) && good(cx, &b) {
                cx.edge_on(EdgeType::Ww, k, (a.txn, a.op), (b.txn, b.op));
            }
        }
    }
    s.unobserved.clear();
    let unobserved =
        s.last_appends.iter().filter(|(w, v)| cx.is_vertex[w.txn as usize] && observed.binary_search(v).is_err());
    s.unobserved.extend(unobserved.map(|&(w, _)| w));
    let unobserved = &s.unobserved;
    if unobserved.len() > 1 {
        cx.open_appends.extend(unobserved.iter().map(|u| (k, u.txn)));
    }
    if let Some(last) = order.len().checked_sub(1).and_then(writer).filter(|w| good(cx, w)) {
        for u in unobserved {
            cx.edge_on(EdgeType::Ww, k, (last.txn, last.op), (u.txn, u.op));
        }
    }
    for read in reads {
        let (r, o) = (cx.index.txn_of(read.op), read.op);
        let list = read.list(h, k);
        let n = list.len();
        if !is_prefix(list, order) {
            let longest = longest_op.map(|lo| (cx.index.txn_of(lo), lo));
            cx.finding(AnomalyKind::IncompatibleOrder, Some(k), None, longest, &[(r, o)]);
            for &e in list {
                if let Some(w) = appends.get(&(k, e)) {
                    match cx.status(w.txn) {
                        Status::Aborted => {
                            cx.finding(AnomalyKind::G1a, Some(k), Some(e), Some((w.txn, w.op)), &[(r, o)])
                        }
                        _ => cx.promote(w.txn),
                    }
                }
            }
            continue;
        }
        if n > 0 {
            let Some(w) = writer(n - 1) else { continue };
            if !good(cx, &w) {
                continue; // aborted: G1a, reported above
            }
            if w.txn == r {
                // It read its own append before making it: a read of its own future.
                cx.finding(AnomalyKind::Internal, Some(k), Some(list[n - 1]), Some((w.txn, w.op)), &[(r, o)]);
                continue;
            }
            if !w.last {
                cx.finding(AnomalyKind::G1b, Some(k), Some(list[n - 1]), Some((w.txn, w.op)), &[(r, o)]);
                continue; // an intermediate read justifies no edge (thesis 2.2, H7)
            }
            cx.edge_on(EdgeType::Wr, k, (w.txn, w.op), (r, o));
        }
        if n < order.len() {
            if let Some(next) = writer(n).filter(|w| good(cx, w)) {
                cx.edge_on(EdgeType::Rw, k, (r, o), (next.txn, next.op));
            }
        } else {
            for u in unobserved {
                cx.edge_on(EdgeType::Rw, k, (r, o), (u.txn, u.op));
            }
        }
    }
}

/// Whether `list` begins `of`. Most reads are stored as prefixes of their key's one canonical
/// list ([`crate::history::Arg::Prefix`]): two of them start at the same place, and are equal as
/// far as the shorter goes without comparing their elements.
fn is_prefix(list: &[Value], of: &[Value]) -> bool {
    list.len() <= of.len() && (std::ptr::eq(list.as_ptr(), of.as_ptr()) || of[..list.len()] == *list)
}

fn good(cx: &Ctx, w: &WriteInfo) -> bool {
    cx.is_vertex[w.txn as usize]
}
