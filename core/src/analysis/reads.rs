//! LDBC's read anomalies, from the reads of each committed transaction (Waudby et al. 2020):
//!
//! * IMP (Item-Many-Preceders, 3.5): a transaction read one key in versions installed by two
//!   different transactions (the initial version counts as one), before writing the key itself.
//! * FR (Fractured Read, 3.7): a transaction read a version `x_a` written by `Ti`, and a version
//!   `y_c` of a key `Ti` also wrote as `y_b`, with `c < b` (x and y may be the same key).
//! * OTV (Observed Transaction Vanishes, 3.6): an FR where the read that saw `Ti` came first: the
//!   observed transaction then vanished (the LDBC test's anomaly check; Adya's USG cycle).
//! * PMP (Predicate-Many-Preceders, 3.5): a transaction read one predicate twice and matched
//!   different versions (as sets). Predicate reads are recorded in the native format only: a
//!   transaction's `"predicate_reads": [{"predicate": name, "matches": [versions]}]`, in order.
//!
//! A version's place in its key's order is the length of the list read (list-append: the order
//! is the longest committed read, as inference takes it) or the write's place in the version order (rw-register, when a log or the
//! native `version_order` gives one; without it only the initial version is known to come first).

use crate::hash::Map;
use crate::history::{Arg, History, KeyId, Model, Status, Sym, TxnId, Value};
use crate::infer::Inference;

/// One read anomaly with its evidence: the reader, the writers, the operations (op indices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFinding {
    pub class: &'static str,
    pub reader: TxnId,
    /// IMP: the two writers seen (`None`: the initial version); FR/OTV: the writer `Ti`.
    pub writers: Vec<Option<TxnId>>,
    /// IMP: the two reads; FR/OTV: the read of `Ti`'s version, then the read of the older one.
    pub ops: Vec<u32>,
    /// The key (IMP, FR, OTV); `None` for PMP.
    pub key: Option<KeyId>,
    /// PMP: the predicate and the two match sets, in the order read.
    pub predicate: Option<(Sym, Vec<Value>, Vec<Value>)>,
}

/// What one external read saw.
#[derive(Clone, Copy)]
struct Seen {
    op: u32,
    key: KeyId,
    /// `None`: the initial version.
    writer: Option<TxnId>,
    /// The version's place in the key's order (0: initial), when known.
    pos: Option<u32>,
}

struct Versions<'a> {
    h: &'a History,
    inf: &'a Inference,
    /// (key, value) -> place in the key's order, for the versions the order lists.
    place: Map<(KeyId, Value), u32>,
}

impl<'a> Versions<'a> {
    /// The versions as inference ordered them: the key's longest committed read (list-append)
    /// or the given version order (rw-register), so that these findings agree with the graph.
    fn new(h: &'a History, inf: &'a Inference) -> Versions<'a> {
        let mut place: Map<(KeyId, Value), u32> = Map::default();
        match h.model {
            Model::RwRegister => {
                if let Some(vo) = &h.version_order {
                    for (&k, vals) in &vo.per_key {
                        for (i, &v) in vals.iter().enumerate() {
                            place.insert((k, v), i as u32 + 1);
                        }
                    }
                }
            }
            _ => {
                for k in 0..h.keys.len() as KeyId {
                    for (i, &v) in inf.version_list(h, k).iter().enumerate() {
                        place.insert((k, v), i as u32 + 1);
                    }
                }
            }
        }
        Versions { h, inf, place }
    }

    /// The writer of a version, when it is a vertex of the graph (the index's lookup).
    fn writer(&self, k: KeyId, v: Value) -> Option<TxnId> {
        let w = self.inf.index.writes.get(&(k, v))?;
        self.inf.graph.is_vertex.get(w.txn as usize).copied().unwrap_or(false).then_some(w.txn)
    }

    /// A version's place; a list append no read observed comes after every observed version.
    fn place_of(&self, k: KeyId, v: Value) -> Option<u32> {
        self.place.get(&(k, v)).copied().or_else(|| match self.h.model {
            Model::RwRegister => None,
            _ => Some(self.inf.version_list(self.h, k).len() as u32 + 1),
        })
    }

    fn seen(&self, o: u32) -> Option<Seen> {
        let h = self.h;
        let op = h.ops[o as usize];
        let (writer, pos) = match (h.model, op.arg()) {
            (_, Arg::Nil) => (None, Some(0)),
            (Model::RwRegister, Arg::Val(v)) => (Some(self.writer(op.key, v)?), self.place_of(op.key, v)),
            _ => {
                let (list, order) = (h.list(&op), self.inf.version_list(h, op.key));
                if !order.starts_with(list) {
                    return None; // not a prefix of the key's order: incompatible-order, reported apart
                }
                match list.last() {
                    None => (None, Some(0)),
                    Some(&last) => (Some(self.writer(op.key, last)?), Some(list.len() as u32)),
                }
            }
        };
        Some(Seen { op: o, key: op.key, writer, pos })
    }

    /// The place of the version `t` installed on `k` (its last write to the key).
    fn installed(&self, t: TxnId, k: KeyId) -> Option<u32> {
        let o = self.inf.index.last_write(self.h, t, k)?;
        let v = self.h.written(o)?;
        self.writer(k, v)?;
        self.place_of(k, v)
    }
}

/// Every IMP, FR and OTV of the history's committed transactions: IMP once per (reader, key),
/// FR and OTV once per (reader, writer).
pub fn read_anomalies(h: &History, inf: &Inference) -> Vec<ReadFinding> {
    let versions = Versions::new(h, inf);
    let mut out = Vec::new();
    let mut seen: Vec<Seen> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        if txn.status != Status::Committed {
            continue;
        }
        let t = t as TxnId;
        seen.clear();
        seen.extend(h.external_reads(t).filter_map(|o| versions.seen(o)));
        // IMP: per key, the first read and the first one of another writer.
        let mut keys_done: Vec<KeyId> = Vec::new();
        for (i, a) in seen.iter().enumerate() {
            if keys_done.contains(&a.key) {
                continue;
            }
            if let Some(b) = seen[i + 1..].iter().find(|b| b.key == a.key && b.writer != a.writer) {
                keys_done.push(a.key);
                out.push(ReadFinding {
                    class: "IMP",
                    reader: t,
                    writers: vec![a.writer, b.writer],
                    ops: vec![a.op, b.op],
                    key: Some(a.key),
                    predicate: None,
                });
            }
        }
        // FR and OTV, per writer seen.
        let mut writers_done: Vec<TxnId> = Vec::new();
        for r1 in &seen {
            let Some(w) = r1.writer.filter(|&w| w != t) else { continue };
            if writers_done.contains(&w) {
                continue;
            }
            let mut fr: Option<&Seen> = None;
            let mut otv: Option<&Seen> = None;
            for r2 in &seen {
                if r2.op == r1.op || r2.writer == Some(w) {
                    continue;
                }
                let (Some(c), Some(b)) = (r2.pos, versions.installed(w, r2.key)) else { continue };
                if c < b {
                    fr.get_or_insert(r2);
                    if r2.op > r1.op && otv.is_none() {
                        otv = Some(r2);
                    }
                }
            }
            if let Some(r2) = fr {
                writers_done.push(w);
                out.push(ReadFinding {
                    class: "FR",
                    reader: t,
                    writers: vec![Some(w)],
                    ops: vec![r1.op, r2.op],
                    key: Some(r2.key),
                    predicate: None,
                });
            }
            if let Some(r2) = otv {
                out.push(ReadFinding {
                    class: "OTV",
                    reader: t,
                    writers: vec![Some(w)],
                    ops: vec![r1.op, r2.op],
                    key: Some(r2.key),
                    predicate: None,
                });
            }
        }
    }
    out.extend(predicate_many_preceders(h));
    out
}

/// PMP (LDBC ACID 3.5): a committed transaction read one predicate twice and the versions it
/// matched differ (as sets), once per (transaction, predicate). Predicate reads come from the
/// native format's `predicate_reads` (`docs/analysis.md`).
pub fn predicate_many_preceders(h: &History) -> Vec<ReadFinding> {
    let mut out = Vec::new();
    let reads = &h.predicate_reads;
    let mut i = 0;
    while i < reads.len() {
        let t = reads[i].txn;
        let mut j = i;
        while j < reads.len() && reads[j].txn == t {
            j += 1;
        }
        if h.txns.get(t as usize).is_some_and(|x| x.status == Status::Committed) {
            let set = |m: &[Value]| {
                let mut v = m.to_vec();
                crate::par::sort::sort_unstable(&mut v);
                v.dedup();
                v
            };
            let mut done: Vec<Sym> = Vec::new();
            for a in i..j {
                let pa = &reads[a];
                if done.contains(&pa.predicate) {
                    continue;
                }
                if let Some(pb) = reads[a + 1..j]
                    .iter()
                    .find(|pb| pb.predicate == pa.predicate && set(&pb.matches) != set(&pa.matches))
                {
                    done.push(pa.predicate);
                    out.push(ReadFinding {
                        class: "PMP",
                        reader: t,
                        writers: Vec::new(),
                        ops: Vec::new(),
                        key: None,
                        predicate: Some((pa.predicate, pa.matches.clone(), pb.matches.clone())),
                    });
                }
            }
        }
        i = j;
    }
    out
}
