//! The simulation behind [`super::generate`].

mod shapes;

use super::cobra::{CobraLogs, LogOp};
use super::{DataModel, GenOptions, Generated, Injection, Isolation, KeyDistribution, Output};
use crate::hash::Map;
use std::fmt::Write;

/// xorshift64*: small, fast, and the same everywhere (wasm included).
#[derive(Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value; zero too).
    pub(crate) fn seeded(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// A micro-operation as executed: key, and for reads the result.
#[derive(Clone)]
enum Done {
    Read(u64, Option<Vec<i64>>),
    Write(u64, i64),
}

/// What a transaction can see.
#[derive(Clone, Copy)]
enum Snapshot {
    /// Everything committed (read committed; serializable at commit).
    Latest,
    /// Commits with timestamp <= ts (snapshot isolation).
    At(u64),
    /// Own site's commits up to `own`, the other site's up to `remote` (PSI).
    Site { site: u8, own: u64, remote: u64 },
}

impl Snapshot {
    fn sees(self, ts: u64, site: u8) -> bool {
        match self {
            Snapshot::Latest => true,
            Snapshot::At(s) => ts <= s,
            Snapshot::Site { site: mine, own, remote } => ts <= if site == mine { own } else { remote },
        }
    }
}

struct Txn {
    process: usize,
    /// (is a read, key, value to write).
    plan: Vec<(bool, u64, i64)>,
    done: Vec<Done>,
    snapshot: Snapshot,
    site: u8,
    client_abort: bool,
    /// Read committed: a write found its key locked by another transaction (no-wait: abort).
    lock_conflict: bool,
    /// Start (snapshot) and commit timestamps of the simulated clock (`ts`): a version with
    /// commit timestamp `c` is in the snapshot at `s` when `c <= s`.
    sts: u64,
    cts: u64,
}

/// Committed writes of a key, in commit order: (commit timestamp, site, value).
type Versions = Vec<(u64, u8, i64)>;

struct Sim<'o> {
    o: &'o GenOptions,
    /// Where EDN output goes as it is made, in pieces of about [`PIECE`] bytes.
    sink: &'o mut dyn FnMut(&str),
    rng: Rng,
    store: Map<u64, Versions>,
    next_value: Map<u64, i64>,
    /// Retired list keys whose versions are still kept: dropped once no transaction in flight
    /// plans to touch them, so a long history's state stays bounded.
    retired: Vec<u64>,
    /// Keys in use, for lists (which retire keys); registers use keys `0..key_count` as they are,
    /// so that a billion keys (PolySI Fig. 11) cost no memory.
    active: Vec<u64>,
    /// The slot of each active key in `active`.
    slot_of: Map<u64, usize>,
    key_count: usize,
    next_key: u64,
    cdf: Vec<f64>,
    ts: u64,
    index: u64,
    time: u64,
    out: String,
    /// A line's operations as EDN, rendered here, reused (no allocation a transaction).
    scratch: String,
    wal: String,
    native: Vec<String>,
    committed: usize,
    aborted: usize,
    /// Register version order for the native form: key -> values in commit order.
    order: Map<u64, Vec<i64>>,
    /// PSI: how far each site has seen the other site's commits.
    remote_seen: [u64; 2],
    /// Read committed: write locks held to commit, by process.
    locks: Map<u64, usize>,
    /// PolySI text: the keys written or read, for an explicit initialising transaction.
    keys_used: std::collections::BTreeSet<u64>,
    /// The clock (`ts`) when the injection being spliced in began.
    inject_base: u64,
    /// TimeKiller's JSON: one object per committed transaction.
    timekiller: Vec<String>,
    /// Zipfian distributions of the benchmark shapes' tables, by table size.
    cdfs: Map<u64, Vec<f64>>,
    /// Rows inserted so far, by table.
    rows: Map<u64, u64>,
    cobra: CobraLogs,
}

/// EDN output is handed on in pieces of about this many bytes, so that a history of any length
/// is written as it is made instead of held whole.
const PIECE: usize = 1 << 20;

/// Whether the history has a write-ahead log ([`GenOptions::has_wal`]); the WAL is written only then.
fn keeps_wal(o: &GenOptions) -> bool {
    o.has_wal()
}

/// Retired keys gathered before their versions are looked at for dropping.
const FORGET_AFTER: usize = 4096;

/// Generate a history.
pub fn generate(o: &GenOptions) -> Generated {
    let mut history = String::new();
    let mut g = generate_streaming(o, &mut |piece| history.push_str(piece));
    g.history = history;
    g
}

/// Generate a history, its text handed to `sink` piece by piece as it is made (Jepsen EDN; the
/// other outputs, which need the whole history to be written, in one piece at the end); the
/// returned `history` is empty.
pub fn generate_streaming(o: &GenOptions, sink: &mut dyn FnMut(&str)) -> Generated {
    let registers;
    let o = if matches!(o.output, Output::Polysi | Output::Cobra) && o.model != DataModel::RwRegister {
        registers = GenOptions { model: DataModel::RwRegister, ..o.clone() };
        &registers
    } else {
        o
    };
    let keys = o.keys.max(1);
    let cdf = o.distribution.cdf(keys);
    let mut sim = Sim {
        o,
        sink,
        rng: Rng::seeded(o.seed),
        store: Map::default(),
        next_value: Map::default(),
        retired: Vec::new(),
        active: if o.model == DataModel::ListAppend { (0..keys as u64).collect() } else { Vec::new() },
        slot_of: if o.model == DataModel::ListAppend {
            (0..keys).map(|k| (k as u64, k)).collect()
        } else {
            Map::default()
        },
        key_count: keys,
        next_key: keys as u64,
        cdf,
        ts: 0,
        index: 0,
        time: 0,
        out: String::new(),
        scratch: String::new(),
        wal: String::new(),
        native: Vec::new(),
        committed: 0,
        aborted: 0,
        order: Map::default(),
        remote_seen: [0; 2],
        locks: Map::default(),
        keys_used: Default::default(),
        inject_base: 0,
        timekiller: Vec::new(),
        cdfs: Map::default(),
        rows: Map::default(),
        cobra: CobraLogs::default(),
    };
    sim.run();
    let history = match o.output {
        Output::Edn => std::mem::take(&mut sim.out),
        // Id 0 is free: every completion comes after its invocation, which took an index.
        Output::Polysi if o.explicit_init => {
            let mut s: String = sim.keys_used.iter().map(|k| format!("w({k},0,0,0)\n")).collect();
            s.push_str(&sim.out);
            s
        }
        Output::Polysi | Output::Cobra => std::mem::take(&mut sim.out),
        Output::Timekiller => format!("[\n{}\n]\n", sim.timekiller.join(",\n")),
        Output::Native => {
            let mut s = String::from("{\"transactions\": [\n");
            s.push_str(&sim.native.join(",\n"));
            s.push_str("\n]");
            if o.model == DataModel::RwRegister {
                let mut keys: Vec<&u64> = sim.order.keys().collect();
                keys.sort_unstable();
                let parts: Vec<String> = keys
                    .iter()
                    .map(|k| {
                        format!(
                            "\"{k}\": [{}]",
                            sim.order[k].iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
                        )
                    })
                    .collect();
                let _ = write!(s, ",\n\"version_order\": {{{}}}", parts.join(", "));
            }
            s.push_str("}\n");
            s
        }
    };
    (sim.sink)(&history);
    let wal = keeps_wal(o).then(|| std::mem::take(&mut sim.wal));
    let logs = if o.output == Output::Cobra { std::mem::take(&mut sim.cobra).finish() } else { Vec::new() };
    Generated { history: String::new(), wal, committed: sim.committed, aborted: sim.aborted, logs }
}

impl Sim<'_> {
    fn pick_key(&mut self) -> u64 {
        let slot = super::pick(&mut self.rng, &self.cdf, self.key_count);
        self.active.get(slot).copied().unwrap_or(slot as u64)
    }

    fn fresh_value(&mut self, k: u64) -> i64 {
        let v = self.next_value.entry(k).or_insert(0);
        *v += 1;
        *v
    }

    fn run(&mut self) {
        let o = self.o;
        let sessions = o.sessions.max(1);
        // Where each injected instance goes: after this many regular completions.
        let mut injections: Vec<(usize, Injection)> = Vec::new();
        for &(inj, count) in &o.inject {
            for _ in 0..count {
                injections.push((self.rng.below(o.transactions + 1), inj));
            }
        }
        injections.sort_by_key(|x| x.0);
        let mut injections = injections.into_iter().peekable();
        let mut txns: Vec<Option<Txn>> = (0..sessions).map(|_| None).collect();
        let (mut started, mut finished) = (0usize, 0usize);
        while finished < o.transactions {
            while injections.peek().is_some_and(|x| x.0 <= finished) {
                let (_, inj) = injections.next().expect("peeked");
                self.inject(inj);
            }
            let s = self.rng.below(sessions);
            match txns[s].take() {
                None if started < o.transactions => {
                    txns[s] = Some(self.begin(s));
                    started += 1;
                }
                None => {}
                Some(mut t) => {
                    if t.done.len() < t.plan.len() && o.isolation != Isolation::Serializable {
                        self.step(&mut t);
                        txns[s] = Some(t);
                    } else {
                        self.commit(t);
                        finished += 1;
                        if o.output == Output::Edn && self.out.len() >= PIECE {
                            (self.sink)(&self.out);
                            self.out.clear();
                        }
                        if self.retired.len() >= FORGET_AFTER {
                            self.forget_retired(&txns);
                        }
                    }
                }
            }
        }
        for (_, inj) in injections {
            self.inject(inj);
        }
    }

    fn begin(&mut self, process: usize) -> Txn {
        let o = self.o;
        let n = o.min_ops.max(1) + self.rng.below(o.max_ops.max(o.min_ops).max(1) - o.min_ops.max(1) + 1);
        let ops: Vec<(bool, u64)> = match self.shape_plan() {
            Some(ops) => ops,
            None => (0..n).map(|_| (self.rng.chance(o.read_ratio), self.pick_key())).collect(),
        };
        let plan: Vec<(bool, u64, i64)> =
            ops.into_iter().map(|(read, k)| (read, k, if read { 0 } else { self.fresh_value(k) })).collect();
        let site = (process % 2) as u8;
        let snapshot = match o.isolation {
            Isolation::SnapshotIsolation => Snapshot::At(self.ts),
            Isolation::ParallelSnapshotIsolation | Isolation::Causal => {
                // The other site's commits arrive a few commits late, in order, and never go
                // back: a site's view stays causally closed.
                let lag = 1 + self.rng.below(4) as u64;
                let remote = self.ts.saturating_sub(lag).max(self.remote_seen[site as usize]);
                self.remote_seen[site as usize] = remote;
                Snapshot::Site { site, own: self.ts, remote }
            }
            _ => Snapshot::Latest,
        };
        let client_abort = self.rng.chance(o.abort_rate);
        let sts = match snapshot {
            Snapshot::At(s) => s,
            Snapshot::Site { own, .. } => own,
            Snapshot::Latest => self.ts,
        };
        let t =
            Txn { process, plan, done: Vec::new(), snapshot, site, client_abort, lock_conflict: false, sts, cts: 0 };
        self.time += 1000;
        let mut ops = std::mem::take(&mut self.scratch);
        ops.clear();
        if self.o.output == Output::Edn {
            let w = self.write_fn();
            for (i, &(r, k, v)) in t.plan.iter().enumerate() {
                if i > 0 {
                    ops.push(' ');
                }
                let _ = if r { write!(ops, "[:r {k} nil]") } else { write!(ops, "[{w} {k} {v}]") };
            }
        }
        self.invoke_line(process, &ops);
        self.scratch = ops;
        t
    }

    fn write_fn(&self) -> &'static str {
        match self.o.model {
            DataModel::ListAppend => ":append",
            DataModel::RwRegister => ":w",
        }
    }

    /// The value a read sees: the snapshot's versions, then the transaction's own writes.
    fn read(&self, t: &Txn, k: u64) -> Option<Vec<i64>> {
        let snap = t.snapshot;
        let seen = self.store.get(&k).map_or(&[][..], |v| &v[..]);
        let mut own = t.done.iter().filter_map(|d| match d {
            Done::Write(kk, v) if *kk == k => Some(*v),
            _ => None,
        });
        match self.o.model {
            DataModel::ListAppend => {
                let mut l: Vec<i64> = seen.iter().filter(|(ts, site, _)| snap.sees(*ts, *site)).map(|x| x.2).collect();
                l.extend(own);
                Some(l)
            }
            DataModel::RwRegister => own
                .next_back()
                .or_else(|| seen.iter().rev().find(|(ts, site, _)| snap.sees(*ts, *site)).map(|x| x.2))
                .map(|v| vec![v]),
        }
    }

    fn step(&mut self, t: &mut Txn) {
        let (is_read, k, v) = t.plan[t.done.len()];
        let d = if is_read {
            Done::Read(k, self.read(t, k))
        } else {
            if self.o.isolation == Isolation::ReadCommitted {
                // A write lock held to commit, as PL-1 asks: no other write to k in between.
                match self.locks.get(&k) {
                    Some(&holder) if holder != t.process => t.lock_conflict = true,
                    _ => {
                        self.locks.insert(k, t.process);
                    }
                }
            }
            Done::Write(k, v)
        };
        t.done.push(d);
    }

    /// Whether committing `t` would lose another transaction's write (first committer wins).
    fn conflicts(&self, t: &Txn) -> bool {
        let conflicts = match self.o.isolation {
            Isolation::SnapshotIsolation | Isolation::ParallelSnapshotIsolation => true,
            Isolation::Causal => self.o.model == DataModel::ListAppend,
            _ => false,
        };
        if !conflicts {
            return false;
        }
        t.done.iter().any(|d| match d {
            Done::Write(k, _) => {
                self.store.get(k).and_then(|v| v.last()).is_some_and(|&(ts, site, _)| !t.snapshot.sees(ts, site))
            }
            Done::Read(..) => false,
        })
    }

    fn commit(&mut self, mut t: Txn) {
        if self.o.isolation == Isolation::Serializable {
            t.sts = self.ts; // it reads at its commit
        }
        while t.done.len() < t.plan.len() {
            self.step(&mut t); // serializable: the whole transaction at its commit
        }
        let ok = !t.client_abort && !t.lock_conflict && !self.conflicts(&t);
        let process = t.process;
        self.locks.retain(|_, holder| *holder != process);
        self.time += 1000;
        if ok {
            self.ts += 1;
            let ts = self.ts;
            t.cts = ts;
            self.wal_txn(self.index, ts, t.done.iter());
            let mut last: Map<u64, i64> = Map::default();
            for d in &t.done {
                if let Done::Write(k, v) = d {
                    match self.o.model {
                        DataModel::ListAppend => self.store.entry(*k).or_default().push((ts, t.site, *v)),
                        DataModel::RwRegister => {
                            last.insert(*k, *v);
                        }
                    }
                }
            }
            let mut last: Vec<(u64, i64)> = last.into_iter().collect();
            last.sort_unstable();
            for (k, v) in last {
                self.store.entry(k).or_default().push((ts, t.site, v));
                self.order.entry(k).or_default().push(v);
            }
            self.committed += 1;
            self.retire_keys(&t);
        } else {
            self.aborted += 1;
        }
        self.completion_line(&t, ok);
    }

    /// Drop the versions of retired keys no transaction in flight plans to touch: new
    /// transactions pick active keys only, so nothing reads them again.
    fn forget_retired(&mut self, in_flight: &[Option<Txn>]) {
        let busy: std::collections::HashSet<u64> =
            in_flight.iter().flatten().flat_map(|t| t.plan.iter().map(|p| p.1)).collect();
        let mut retired = std::mem::take(&mut self.retired);
        retired.retain(|k| {
            if busy.contains(k) {
                return true;
            }
            self.store.remove(k);
            self.next_value.remove(k);
            false
        });
        self.retired = retired;
    }

    /// A list key retires after `max_writes_per_key` appends (Jepsen does the same). Only the
    /// keys `t` wrote can have reached the limit: their slots are looked at, in slot order.
    fn retire_keys(&mut self, t: &Txn) {
        if self.o.model != DataModel::ListAppend {
            return;
        }
        let mut slots: Vec<usize> = Vec::new();
        for d in &t.done {
            if let Done::Write(k, _) = d {
                if let Some(&slot) = self.slot_of.get(k) {
                    if !slots.contains(&slot) {
                        slots.push(slot);
                    }
                }
            }
        }
        slots.sort_unstable();
        for slot in slots {
            let k = self.active[slot];
            if self.store.get(&k).is_some_and(|v| v.len() >= self.o.max_writes_per_key.max(1)) {
                self.retired.push(k);
                self.slot_of.remove(&k);
                self.active[slot] = self.next_key;
                self.slot_of.insert(self.next_key, slot);
                self.next_key += 1;
            }
        }
    }

    /// Operations as EDN, separated by spaces, into `out` (what `op_text` gives, joined).
    fn push_ops(&self, out: &mut String, done: &[Done], invoke: bool) {
        let w = self.write_fn();
        for (i, d) in done.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let _ = match d {
                Done::Write(k, v) => write!(out, "[{w} {k} {v}]"),
                Done::Read(k, _) if invoke => write!(out, "[:r {k} nil]"),
                Done::Read(k, None) => write!(out, "[:r {k} nil]"),
                Done::Read(k, Some(l)) => match self.o.model {
                    DataModel::ListAppend => {
                        let _ = write!(out, "[:r {k} [");
                        for (j, v) in l.iter().enumerate() {
                            if j > 0 {
                                out.push(' ');
                            }
                            let _ = write!(out, "{v}");
                        }
                        out.push_str("]]");
                        Ok(())
                    }
                    DataModel::RwRegister => write!(out, "[:r {k} {}]", l[0]),
                },
            };
        }
    }

    /// The invocation: what the client asked for (reads of nil, the values it will write), its
    /// operations as EDN (written for EDN output only).
    fn invoke_line(&mut self, process: usize, ops: &str) {
        if self.o.output == Output::Edn {
            let _ = writeln!(
                self.out,
                "{{:type :invoke, :f :txn, :value [{ops}], :time {}, :process {process}, :index {}}}",
                self.time, self.index
            );
        }
        self.index += 1;
    }

    /// A committed transaction's writes in the write-ahead log: begin, each write, commit.
    fn wal_txn<'d>(&mut self, tid: u64, ts: u64, writes: impl Iterator<Item = &'d Done>) {
        if !keeps_wal(self.o) {
            return;
        }
        let _ = writeln!(self.wal, "{{\"tick\":\"{}\",\"type\":2200,\"tid\":\"{tid}\"}}", ts * 10);
        for d in writes {
            if let Done::Write(k, v) = d {
                let _ = writeln!(
                    self.wal,
                    "{{\"tick\":\"{}\",\"type\":2300,\"tid\":\"{tid}\",\"data\":{{\"_key\":\"{k}\",\"rwAttr\":{v}}}}}",
                    ts * 10 + 1
                );
            }
        }
        let _ = writeln!(self.wal, "{{\"tick\":\"{}\",\"type\":2201,\"tid\":\"{tid}\"}}", ts * 10 + 2);
    }

    fn completion_line(&mut self, t: &Txn, ok: bool) {
        match self.o.output {
            Output::Edn => {
                let mut ops = std::mem::take(&mut self.scratch);
                ops.clear();
                self.push_ops(&mut ops, &t.done, !ok);
                let _ = write!(
                    self.out,
                    "{{:type {}, :f :txn, :value [{ops}], :time {}, :process {}, :index {}",
                    if ok { ":ok" } else { ":fail" },
                    self.time,
                    t.process,
                    self.index
                );
                if ok && self.o.timestamps {
                    let _ = write!(self.out, ", :start-ts {}, :commit-ts {}", t.sts, t.cts);
                }
                self.out.push_str("}\n");
                self.scratch = ops;
            }
            Output::Timekiller => {
                if ok {
                    let ops: Vec<String> = t.done.iter().map(|d| self.timekiller_op(d)).collect();
                    self.timekiller.push(format!(
                        "  {{\"tid\": {}, \"sid\": {}, \"sts\": {{\"p\": {}, \"l\": 0}}, \"cts\": {{\"p\": {}, \"l\": 0}}, \"ops\": [{}]}}",
                        self.index,
                        t.process,
                        t.sts,
                        t.cts,
                        ops.join(", ")
                    ));
                }
            }
            Output::Polysi => {
                for d in &t.done {
                    let (k, line) = match d {
                        Done::Write(k, v) if ok => (k, format!("w({k},{v},{},{})", t.process, self.index)),
                        Done::Write(k, v) => (k, format!("w({k},{v},{},-1)", t.process)),
                        Done::Read(..) if !ok => continue,
                        Done::Read(k, l) => {
                            let v = l.as_ref().and_then(|l| l.first()).copied().unwrap_or(0);
                            (k, format!("r({k},{v},{},{})", t.process, self.index))
                        }
                    };
                    self.keys_used.insert(*k);
                    let _ = writeln!(self.out, "{line}");
                }
            }
            Output::Cobra if ok => {
                let ops: Vec<LogOp> = t
                    .done
                    .iter()
                    .map(|d| match d {
                        Done::Write(k, v) => LogOp::Write(*k, *v),
                        Done::Read(k, l) => LogOp::Read(*k, l.as_ref().and_then(|l| l.first()).copied()),
                    })
                    .collect();
                self.cobra.txn(t.process, self.index as i64 + 1, &ops);
            }
            Output::Cobra => {}
            Output::Native => {
                let ops: Vec<String> = t.done.iter().map(|d| self.native_op(d, !ok)).collect();
                let ts = if ok && self.o.timestamps {
                    format!(", \"start_ts\": {}, \"commit_ts\": {}", t.sts, t.cts)
                } else {
                    String::new()
                };
                self.native.push(format!(
                    "  {{\"id\": {}, \"session\": {}, \"status\": \"{}\", \"ops\": [{}]{ts}}}",
                    self.index,
                    t.process,
                    if ok { "committed" } else { "aborted" },
                    ops.join(", ")
                ));
            }
        }
        self.index += 1;
    }

    /// An operation in TimeKiller's JSON: `{"t": "w", "k": 3, "v": 7}`, `{"t": "r", "k": 3, "v": [1, 2]}`.
    fn timekiller_op(&self, d: &Done) -> String {
        let list = self.o.model == DataModel::ListAppend;
        match d {
            Done::Write(k, v) => format!("{{\"t\": \"{}\", \"k\": {k}, \"v\": {v}}}", if list { "a" } else { "w" }),
            Done::Read(k, l) => {
                let v = match (list, l) {
                    (true, l) => {
                        format!("[{}]", l.iter().flatten().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
                    }
                    (false, Some(l)) => l[0].to_string(),
                    (false, None) => "null".into(),
                };
                format!("{{\"t\": \"r\", \"k\": {k}, \"v\": {v}}}")
            }
        }
    }

    fn native_op(&self, d: &Done, invoke: bool) -> String {
        let f = if self.o.model == DataModel::ListAppend { "append" } else { "w" };
        match d {
            Done::Write(k, v) => format!("[\"{f}\", {k}, {v}]"),
            Done::Read(k, _) if invoke => format!("[\"r\", {k}, null]"),
            Done::Read(k, None) => format!("[\"r\", {k}, null]"),
            Done::Read(k, Some(l)) => match self.o.model {
                DataModel::ListAppend => {
                    format!("[\"r\", {k}, [{}]]", l.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
                }
                DataModel::RwRegister => format!("[\"r\", {k}, {}]", l[0]),
            },
        }
    }

    /// A whole transaction at once, on its own process (outside the regular sessions); `at`
    /// is its start and commit timestamps, as offsets from the injection's first timestamp.
    fn emit(&mut self, process: usize, ops: Vec<Done>, ok: bool, at: (u64, u64)) {
        let (sts, cts) = (self.inject_base + at.0, self.inject_base + at.1);
        let t = Txn {
            process,
            plan: ops.iter().map(|d| (matches!(d, Done::Read(..)), 0, 0)).collect(),
            done: ops,
            snapshot: Snapshot::Latest,
            site: 0,
            client_abort: false,
            lock_conflict: false,
            sts,
            cts,
        };
        self.time += 1000;
        let mut ops = std::mem::take(&mut self.scratch);
        ops.clear();
        if self.o.output == Output::Edn {
            self.push_ops(&mut ops, &t.done, true);
        }
        self.invoke_line(process, &ops);
        self.scratch = ops;
        self.time += 1000;
        if ok {
            self.ts = self.ts.max(cts);
            self.wal_txn(self.index, cts, t.done.iter());
            self.committed += 1;
        } else {
            self.aborted += 1;
        }
        self.completion_line(&t, ok);
    }

    /// Splice in one minimal instance of an anomaly, on fresh keys, by extra processes.
    fn inject(&mut self, inj: Injection) {
        self.inject_base = self.ts;
        let (a, b) = (self.next_key + 1_000_000_000, self.next_key + 1_000_000_001);
        self.next_key += 2;
        let p = self.o.sessions.max(1) + 1000 + self.index as usize * 8;
        let list = self.o.model == DataModel::ListAppend;
        // A read of key k returning these values (list) or the last of them (register).
        let r = |k: u64, vals: &[i64]| {
            Done::Read(k, if list { Some(vals.to_vec()) } else { vals.last().map(|v| vec![*v]) })
        };
        let w = Done::Write;
        // Register version orders are the WAL's: the order transactions commit in below.
        match inj {
            Injection::LostUpdate => {
                // Both read the initial state and write; the second's write is after the first's.
                self.emit(p, vec![r(a, &[]), w(a, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[]), w(a, 2)], true, (0, 2));
                self.emit(p + 2, vec![r(a, &[1, 2])], true, (2, 3));
                self.order_push(a, &[1, 2]);
            }
            Injection::WriteSkew => {
                self.emit(p, vec![r(a, &[]), r(b, &[]), w(a, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[]), r(b, &[]), w(b, 1)], true, (0, 2));
                self.order_push(a, &[1]);
                self.order_push(b, &[1]);
            }
            Injection::LongFork => {
                self.emit(p, vec![w(a, 1)], true, (0, 1));
                self.emit(p + 1, vec![w(b, 1)], true, (0, 2));
                self.emit(p + 2, vec![r(a, &[1]), r(b, &[])], true, (1, 3));
                self.emit(p + 3, vec![r(a, &[]), r(b, &[1])], true, (2, 4));
                self.order_push(a, &[1]);
                self.order_push(b, &[1]);
            }
            Injection::AbortedRead => {
                self.emit(p, vec![w(a, 1)], false, (0, 0));
                self.emit(p + 1, vec![r(a, &[1])], true, (0, 1));
            }
            Injection::IntermediateRead => {
                self.emit(p, vec![w(a, 1), w(a, 2)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[1])], true, (1, 2));
                self.order_push(a, &[2]);
            }
            Injection::ReadSkew => {
                self.emit(p, vec![w(a, 1), w(b, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[]), r(b, &[1])], true, (1, 2));
                self.order_push(a, &[1]);
                self.order_push(b, &[1]);
            }
            Injection::UnrepeatableRead => {
                self.emit(p, vec![w(a, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[]), r(a, &[1])], true, (1, 2));
                self.order_push(a, &[1]);
            }
            Injection::TReadSkew => {
                // T3 writes b; T2 reads b before it and writes a; T1 reads a before T2, b after T3.
                self.emit(p, vec![w(b, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(b, &[]), w(a, 1)], true, (0, 2));
                self.emit(p + 2, vec![r(a, &[]), r(b, &[1])], true, (1, 3));
                self.order_push(a, &[1]);
                self.order_push(b, &[1]);
            }
            Injection::VLostUpdate => {
                // T3 writes 1; T2 read before it and writes 2 after it; T1 saw 1; T4 orders 1, 2.
                self.emit(p, vec![w(a, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[]), w(a, 2)], true, (0, 2));
                self.emit(p + 2, vec![r(a, &[1])], true, (1, 3));
                self.emit(p + 3, vec![r(a, &[1, 2])], true, (2, 4));
                self.order_push(a, &[1, 2]);
            }
            Injection::TUnrepeatableRead => {
                self.emit(p, vec![w(a, 1)], true, (0, 1));
                self.emit(p + 1, vec![w(a, 2)], true, (1, 2));
                self.emit(p + 2, vec![r(a, &[]), r(a, &[1, 2])], true, (2, 3));
                self.order_push(a, &[1, 2]);
            }
            Injection::ObservedVanishes => {
                self.emit(p, vec![w(a, 1), w(b, 1)], true, (0, 1));
                self.emit(p + 1, vec![r(a, &[1]), r(b, &[])], true, (1, 2));
                self.order_push(a, &[1]);
                self.order_push(b, &[1]);
            }
            Injection::WriteCycle => {
                if list {
                    self.emit(p, vec![w(a, 1), w(b, 1)], true, (0, 1));
                    self.emit(p + 1, vec![w(a, 2), w(b, 2)], true, (1, 2));
                    self.emit(p + 2, vec![r(a, &[1, 2]), r(b, &[2, 1])], true, (2, 3));
                } else {
                    // The log orders a as 1, 2 and b as 2, 1: each write overwrote the other.
                    self.emit(p, vec![w(a, 1), w(b, 1)], true, (0, 1));
                    self.emit(p + 1, vec![w(a, 2), w(b, 2)], true, (1, 2));
                    self.fix_wal_order(b);
                }
                self.order_push(a, &[1, 2]);
                self.order_push(b, &[2, 1]);
            }
        }
    }

    fn order_push(&mut self, k: u64, vals: &[i64]) {
        if self.o.model == DataModel::RwRegister {
            self.order.entry(k).or_default().extend_from_slice(vals);
        }
    }

    /// Swap the last two WAL writes of key `k` (to build a write cycle).
    fn fix_wal_order(&mut self, k: u64) {
        let needle = format!("\"_key\":\"{k}\"");
        let mut lines: Vec<String> = self.wal.lines().map(String::from).collect();
        let idx: Vec<usize> = lines.iter().enumerate().filter(|(_, l)| l.contains(&needle)).map(|(i, _)| i).collect();
        if let [.., i, j] = idx[..] {
            lines.swap(i, j);
        }
        self.wal = lines.join("\n") + "\n";
    }
}

/// The cumulative distribution of `dist` over `keys` keys (empty for uniform).
pub(crate) fn key_cdf(dist: KeyDistribution, keys: usize) -> Vec<f64> {
    match dist {
        KeyDistribution::Uniform => Vec::new(),
        KeyDistribution::Zipfian(s) => shapes::zipf_cdf(keys, s),
        KeyDistribution::Hotspot(p) => {
            let hot = (keys / 10).max(1);
            (0..keys)
                .map(|i| {
                    if i < hot {
                        p * (i + 1) as f64 / hot as f64
                    } else {
                        p + (1.0 - p) * (i + 1 - hot) as f64 / (keys - hot).max(1) as f64
                    }
                })
                .collect()
        }
    }
}
