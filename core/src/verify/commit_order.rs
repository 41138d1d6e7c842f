//! The `commit-order` witness: read committed, read atomic and causal consistency as Biswas and
//! Enea define them ("On the complexity of checking transactional consistency", OOPSLA 2019,
//! §2; as Plume and AWDIT check them). The witness is a commit order `co` of the transactions;
//! it must contain session order and reads-from, and for each read of key x by t3 from t1, every
//! other writer t2 of x that t3 observed commits before t1, where "observed" is: t3 read from t2
//! earlier (RC); t2 is a session predecessor of t3 or t3 read from it (RA); t2 is a causal
//! predecessor, `(so ∪ wr)+` (CC). A read of the initial value observes no writer of its key.
//!
//! Reads-from comes from values: a register read names the writer of its value, a list read
//! the writer of its last element, and the list must be that writer's version, the appends of
//! the key's writers up to it in `co`. Each version is its writer's last write to the key.

use super::{name, show_list, Execution};
use crate::hash::{Map, Set};
use crate::history::{Arg, History, KeyId, Model, OpKind, Status, Value};

/// Which axiom a witness is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Axiom {
    /// Reads only: versions of committed writers, `co ⊇ so ∪ wr` (PL-2).
    None,
    ReadCommitted,
    ReadAtomic,
    Causal,
}

/// The most transactions times sessions the causal check keeps vector clocks for (4 bytes each).
pub const MAX_CLOCKS: usize = 100_000_000;

/// The writer of each (key, value), and whether it is its last write of the key.
type Writers = Map<(KeyId, Value), (u32, bool)>;

/// Each list key's list in `co`; each (writer, key)'s version length in it, and its length
/// before the writer's appends.
struct Lists {
    lists: Vec<Vec<Value>>,
    ends: Map<(u32, KeyId), usize>,
    before: Map<(u32, KeyId), usize>,
}

/// An external read: its key, and the writer it read from (`None`: the initial value).
type Read = (KeyId, Option<u32>);

pub(super) fn check(h: &History, ex: &Execution, axiom: Axiom) -> Result<(), String> {
    let pos = |t: u32| ex.start.get(t as usize).copied().unwrap_or(usize::MAX);
    let (writer, versions) = writers(h, ex);
    let mut initial = super::versions::Initial::new(h);
    let writes: Set<(u32, KeyId)> =
        writer.values().map(|&(t, _)| t).flat_map(|t| keys_written(h, t).map(move |k| (t, k))).collect();
    // Each committed transaction's external reads, with their writers.
    let mut reads: Map<u32, Vec<Read>> = Map::default();
    for &t3 in &ex.order {
        if h.txns.get(t3 as usize).is_none_or(|x| x.status != Status::Committed) {
            continue;
        }
        let rs = external_reads(h, ex, t3, &writer, &versions, &mut initial)?;
        for &(k, t1) in &rs {
            if let Some(t1) = t1.filter(|&t1| pos(t1) > pos(t3)) {
                return Err(format!(
                    "{} read {} from {}, which the commit order puts after it",
                    name(h, t3),
                    h.show(h.key(k)),
                    name(h, t1)
                ));
            }
        }
        reads.insert(t3, rs);
    }
    super::orders::session(h, ex, super::format::WitnessKind::CommitOrder)?;
    let observed = |t3: u32, k: KeyId, t1: Option<u32>, t2: u32| -> Result<(), String> {
        if Some(t2) == t1 || !writes.contains(&(t2, k)) || t1.is_some_and(|t1| pos(t2) < pos(t1)) {
            return Ok(());
        }
        let key = h.show(h.key(k));
        Err(match t1 {
            None => format!("{} read the initial {key} though it observed {}, which writes {key}", name(h, t3), name(h, t2)),
            Some(t1) => format!(
                "{} read {key} from {} though it observed {}, which writes {key} and which the commit order puts after {}",
                name(h, t3),
                name(h, t1),
                name(h, t2),
                name(h, t1)
            ),
        })
    };
    match axiom {
        Axiom::None => Ok(()),
        Axiom::ReadCommitted => {
            for (&t3, rs) in &reads {
                let mut seen: Vec<u32> = Vec::new();
                for &(k, t1) in rs {
                    for &t2 in &seen {
                        observed(t3, k, t1, t2)?;
                    }
                    if let Some(t1) = t1.filter(|t1| !seen.contains(t1)) {
                        seen.push(t1);
                    }
                }
            }
            Ok(())
        }
        Axiom::ReadAtomic => {
            // Per session, the latest writer (in co) of each key so far.
            for session in super::orders::sessions(h, ex) {
                let mut latest: Map<KeyId, u32> = Map::default();
                for t3 in session {
                    let rs = reads.get(&t3).map_or(&[][..], |r| &r[..]);
                    let from: Vec<u32> = rs.iter().filter_map(|r| r.1).collect();
                    for &(k, t1) in rs {
                        if let Some(&t2) = latest.get(&k) {
                            observed(t3, k, t1, t2)?;
                        }
                        for &t2 in &from {
                            observed(t3, k, t1, t2)?;
                        }
                    }
                    for k in keys_written(h, t3) {
                        let e = latest.entry(k).or_insert(t3);
                        if pos(t3) > pos(*e) {
                            *e = t3;
                        }
                    }
                }
            }
            Ok(())
        }
        Axiom::Causal => causal(h, ex, &reads, &writes, &pos, &observed),
    }
}

/// Causal consistency with vector clocks: for each session, the last of its transactions in a
/// transaction's causal past; for each session and key, its writers of the key with the latest
/// in `co` so far, so that the latest writer in a causal past is one lookup per session.
fn causal(
    h: &History,
    ex: &Execution,
    reads: &Map<u32, Vec<Read>>,
    writes: &Set<(u32, KeyId)>,
    pos: &dyn Fn(u32) -> usize,
    observed: &dyn Fn(u32, KeyId, Option<u32>, u32) -> Result<(), String>,
) -> Result<(), String> {
    let sessions = super::orders::sessions(h, ex);
    let s = sessions.len();
    if ex.order.len().saturating_mul(s) > MAX_CLOCKS {
        return Err(format!(
            "the causal check needs a clock per transaction and session, {} × {s}: more than this verifier keeps",
            ex.order.len()
        ));
    }
    // (session, place in it, 1-based) of each transaction.
    let mut at: Map<u32, (usize, u32)> = Map::default();
    // Per (session, key): (place, the latest writer in co among the session's writers so far).
    let mut latest: Map<(usize, KeyId), Vec<(u32, u32)>> = Map::default();
    for (i, session) in sessions.iter().enumerate() {
        for (j, &t) in session.iter().enumerate() {
            at.insert(t, (i, j as u32 + 1));
            let mut keys: Vec<KeyId> = keys_written(h, t).collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                let list = latest.entry((i, k)).or_default();
                let best = match list.last() {
                    Some(&(_, w)) if pos(w) > pos(t) => w,
                    _ => t,
                };
                list.push((j as u32 + 1, best));
            }
        }
    }
    let mut clock: Vec<u32> = vec![0; ex.order.len() * s];
    let mut row: Map<u32, usize> = Map::default();
    for (r, &t3) in ex.order.iter().enumerate() {
        let Some(&(si, place)) = at.get(&t3) else { continue };
        let mine = r * s..(r + 1) * s;
        // The causal past: the session predecessor's and each writer read from, with theirs.
        let prev = place.checked_sub(2).and_then(|p| sessions[si].get(p as usize)).copied();
        let rs = reads.get(&t3).map_or(&[][..], |x| &x[..]);
        let preds = prev.into_iter().chain(rs.iter().filter_map(|r| r.1));
        for p in preds {
            let Some(&pr) = row.get(&p) else { continue };
            let (&(ps, pplace), from) = (at.get(&p).unwrap_or(&(0, 0)), pr * s);
            for c in 0..s {
                clock[mine.start + c] = clock[mine.start + c].max(clock[from + c]);
            }
            clock[mine.start + ps] = clock[mine.start + ps].max(pplace);
        }
        for &(k, t1) in rs {
            for c in 0..s {
                let upto = clock[mine.start + c];
                if upto == 0 {
                    continue;
                }
                let Some(list) = latest.get(&(c, k)) else { continue };
                let i = list.partition_point(|&(place, _)| place <= upto);
                if let Some(&(_, t2)) = i.checked_sub(1).and_then(|i| list.get(i)) {
                    if writes.contains(&(t2, k)) {
                        observed(t3, k, t1, t2)?;
                    }
                }
            }
        }
        row.insert(t3, r);
    }
    Ok(())
}

fn keys_written(h: &History, t: u32) -> impl Iterator<Item = KeyId> + '_ {
    h.ops_of(t).iter().filter(|o| o.kind() != OpKind::Read).map(|o| o.key)
}

/// The writer of each (key, value) among the witness's transactions, with whether it is its
/// last write of the key; and each list key's list in `co` with each writer's version length.
fn writers(h: &History, ex: &Execution) -> (Writers, Lists) {
    let mut writer = Map::default();
    let mut lists: Vec<Vec<Value>> = vec![Vec::new(); h.keys.len()];
    let mut ends: Map<(u32, KeyId), usize> = Map::default();
    let mut before: Map<(u32, KeyId), usize> = Map::default();
    for &t in &ex.order {
        let ops = h.ops_of(t);
        for (i, op) in ops.iter().enumerate() {
            let (k, kind, arg) = ({ op.key }, op.kind(), op.arg());
            let Arg::Val(v) = arg else { continue };
            if kind == OpKind::Read {
                continue;
            }
            let last = !ops[i + 1..].iter().any(|o| o.key == k && o.kind() != OpKind::Read);
            writer.entry((k, v)).or_insert((t, last));
            if kind == OpKind::Append {
                if let Some(l) = lists.get_mut(k as usize) {
                    before.entry((t, k)).or_insert(l.len());
                    l.push(v);
                    if last {
                        ends.insert((t, k), l.len());
                    }
                }
            }
        }
    }
    (writer, Lists { lists, ends, before })
}

/// Transaction `t3`'s external reads with their writers; its internal reads must return its own
/// writes, and each external read a version of a transaction of the witness.
fn external_reads(
    h: &History,
    ex: &Execution,
    t3: u32,
    writer: &Writers,
    versions: &Lists,
    initial: &mut super::versions::Initial,
) -> Result<Vec<Read>, String> {
    let Lists { lists, ends, before } = versions;
    let mut out = Vec::new();
    let ops = h.ops_of(t3);
    let lists_model = h.model == Model::ListAppend;
    for (i, op) in ops.iter().enumerate() {
        let (k, kind, arg) = ({ op.key }, op.kind(), op.arg());
        if kind != OpKind::Read || ex.skips(t3, i) {
            continue;
        }
        let key = || h.show(h.key(k));
        let mine: Vec<&crate::history::Op> =
            ops[..i].iter().filter(|o| o.key == k && o.kind() != OpKind::Read).collect();
        if lists_model {
            let own = super::cycles::values_written(&ops[..i], k);
            let read = h.list(op);
            let seen = read.strip_suffix(&own[..]).filter(|s| mine.is_empty() || s.len() + own.len() == read.len());
            let Some(seen) = seen else {
                return Err(format!("{} read {} without its own appends", name(h, t3), key()));
            };
            if !mine.is_empty() {
                // Its own appends follow what it saw: the list as the commit order has it when
                // they are installed.
                let at = before.get(&(t3, k)).copied().unwrap_or(0);
                if lists.get(k as usize).and_then(|l| l.get(..at)) != Some(seen) {
                    return Err(format!(
                        "{} read {} = {}: its own appends do not follow {} in the commit order",
                        name(h, t3),
                        key(),
                        show_list(h, read),
                        show_list(h, seen)
                    ));
                }
            }
            let Some(&last) = seen.last() else {
                out.push((k, None));
                continue;
            };
            let t1 = writer.get(&(k, last)).map(|w| w.0);
            let end = t1.and_then(|t1| ends.get(&(t1, k)).copied());
            let fits = end.is_some_and(|e| lists.get(k as usize).is_some_and(|l| l.get(..e) == Some(seen)));
            let Some(t1) = t1.filter(|_| fits) else {
                return Err(format!(
                    "{} read {} = {}, not a version the commit order installs",
                    name(h, t3),
                    key(),
                    show_list(h, seen)
                ));
            };
            if t1 == t3 {
                return Err(format!(
                    "{} read {} = {}, its own append, before making it",
                    name(h, t3),
                    key(),
                    show_list(h, seen)
                ));
            }
            out.push((k, Some(t1)));
            continue;
        }
        let v = match arg {
            Arg::Val(v) => Some(v),
            _ => None,
        };
        if let Some(w) = mine.last() {
            let written: Arg = w.arg();
            if Some(written) != v.map(Arg::Val) {
                return Err(format!("{} read {} after writing it, but not its own last write", name(h, t3), key()));
            }
            continue;
        }
        let Some(v) = v else {
            if !initial.agrees(k, arg) {
                return Err(format!("{} read {} = nil, not the initial value other reads found", name(h, t3), key()));
            }
            out.push((k, None));
            continue;
        };
        match writer.get(&(k, v)) {
            Some(&(t1, true)) if t1 != t3 => out.push((k, Some(t1))),
            None if h.initial_open && initial.agrees(k, arg) => out.push((k, None)),
            _ => {
                return Err(format!(
                    "{} read {} = {}, which no transaction of the witness installed",
                    name(h, t3),
                    key(),
                    h.show(v)
                ))
            }
        }
    }
    Ok(out)
}
