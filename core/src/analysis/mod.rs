//! Anomaly analysis: every cycle classified (Zellag & Kemme 2014, Sect. 7.1; LDBC ACID, Waudby
//! et al. 2020; Adya), cycles counted up to a bound by class, by length and by the pattern of
//! transaction labels (Zellag & Kemme 7.2), how many transactions lie on 0, 1 and 2+ cycles
//! (Zellag & Kemme 10.3.1, Tables 3 and 4) and LDBC's read anomalies with evidence; the online
//! checker (Zellag & Kemme 5.2 and 6) is [`crate::online::cycles`].
//!
//! Requested through [`crate::CheckOptions::analyze`]; the result is [`crate::Report::analysis`].

pub mod classify;
pub mod count;
pub mod reads;

use crate::explain::{op_ref, OpRef};
use crate::graph::search::{components, Budget};
use crate::graph::{DependencyGraph, EdgeType};
use crate::hash::Map;
use crate::history::{History, TxnId};
use crate::infer::Inference;
use classify::{classify, min_rotation, Classes, LDBC_CYCLES, LDBC_READS, ZELLAG, ZELLAG_OTHER};
use serde::{Deserialize, Serialize};

pub use crate::engine::AnalyzeOptions;

/// How many cycles (or read anomalies) of one class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClassCount {
    /// `zellag`, `ldbc` or `adya`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::scheme"))]
    pub scheme: String,
    pub class: String,
    pub count: usize,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LengthCount {
    pub length: usize,
    pub count: usize,
}

/// A pattern of transaction labels (Zellag & Kemme 7.2): ordered (around the cycle, from its
/// least rotation) or unordered (the distinct labels, sorted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PatternCount {
    pub ordered: bool,
    pub labels: Vec<String>,
    pub count: usize,
}

/// How many transactions (graph vertices) lie on no, one, and two or more counted cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Participation {
    pub transactions: usize,
    pub none: usize,
    pub one: usize,
    pub many: usize,
}

/// One cycle with its classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClassifiedCycle {
    pub txns: Vec<u64>,
    /// `types[i]` joins `txns[i]` to the next transaction (the last back to the first).
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::edge_types"))]
    pub types: Vec<String>,
    /// The keys of each edge.
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::value_lists"))]
    pub keys: Vec<Vec<serde_json::Value>>,
    pub labels: Vec<String>,
    pub zellag: String,
    pub ldbc: String,
    pub adya: String,
}

/// A read anomaly (IMP, OTV, FR) with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReadAnomaly {
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::explain::schema::read_class"))]
    pub class: String,
    /// The reader.
    pub txn: u64,
    /// The writers whose versions matter (`null`: the initial version).
    pub writers: Vec<Option<u64>>,
    /// The key (`null` for PMP).
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::history::schema::key_or_null"))]
    pub key: serde_json::Value,
    /// PMP: the predicate read twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    pub ops: Vec<OpRef>,
    pub explanation: String,
}

/// The analysis section of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Analysis {
    /// What the classes classify, and why a level's counterexample through the same
    /// transactions can be named otherwise (it may be another cycle, through other edges).
    #[serde(default)]
    pub basis: String,
    pub max_length: usize,
    /// Every cycle of at most `max_length` transactions was counted.
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Cycles counted.
    pub cycles: usize,
    /// Counts per class, for every class of each scheme (zeros included), cycle classes first.
    pub classes: Vec<ClassCount>,
    pub lengths: Vec<LengthCount>,
    /// Label patterns, most frequent first.
    pub patterns: Vec<PatternCount>,
    pub participation: Participation,
    /// The first `examples` cycles counted.
    pub examples: Vec<ClassifiedCycle>,
    /// The first `examples` read anomalies of each class.
    pub reads: Vec<ReadAnomaly>,
}

/// The edge types the classes are about: Adya's dependencies (Zellag & Kemme's wr, ww, rw).
pub const DSG: u8 = 1 << EdgeType::Ww as u8 | 1 << EdgeType::Wr as u8 | 1 << EdgeType::Rw as u8;

/// The label a pattern shows for an unlabeled transaction.
pub const NO_LABEL: &str = "-";

/// The source of the `none` class rows: cycles no scheme classifies.
pub const UNCLASSED_SOURCE: &str =
    "a cycle through session, real-time or commit order, or through version-order choices (not of the dependency graph)";

/// The edge types and keys of a cycle of transactions, and whether one key induces every edge.
pub(crate) fn cycle_shape(g: &DependencyGraph, txns: &[TxnId]) -> (Vec<EdgeType>, Vec<Vec<u32>>, bool) {
    let n = txns.len();
    let mut types = Vec::with_capacity(n);
    let mut keys: Vec<Vec<u32>> = Vec::with_capacity(n);
    for i in 0..n {
        let (u, v) = (txns[i], txns[(i + 1) % n]);
        let mask = g.out(u).iter().find(|x| x.to == v).map_or(0, |x| x.mask) & DSG;
        let ty = EdgeType::ALL.into_iter().find(|t| mask & t.bit() != 0).unwrap_or(EdgeType::Rw);
        types.push(ty);
        let lo = g.edges.partition_point(|e| (e.from, e.to, e.ty) < (u, v, ty));
        keys.push(g.edges[lo..].iter().take_while(|e| e.from == u && e.to == v && e.ty == ty).map(|e| e.key).collect());
    }
    let same = keys.first().is_some_and(|first| first.iter().any(|k| keys.iter().all(|ks| ks.contains(k))));
    (types, keys, same)
}

/// Counts of classes, lengths and label patterns, shared by the offline and online analyses.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub cycles: usize,
    pub zellag: Map<&'static str, usize>,
    pub ldbc: Map<&'static str, usize>,
    pub adya: Map<&'static str, usize>,
    pub lengths: Map<usize, usize>,
    pub ordered: Map<Vec<String>, usize>,
    pub unordered: Map<Vec<String>, usize>,
}

impl Tally {
    pub fn add(&mut self, c: Classes, len: usize, labels: &[String]) {
        self.cycles += 1;
        *self.zellag.entry(c.zellag).or_default() += 1;
        *self.ldbc.entry(c.ldbc).or_default() += 1;
        *self.adya.entry(c.adya).or_default() += 1;
        *self.lengths.entry(len).or_default() += 1;
        *self.ordered.entry(min_rotation(labels)).or_default() += 1;
        let mut u = labels.to_vec();
        crate::par::sort::sort(&mut u);
        u.dedup();
        *self.unordered.entry(u).or_default() += 1;
    }

    /// Class counts, every class of each scheme listed (zeros too); `reads` adds IMP/PMP/OTV/FR.
    pub fn classes(&self, reads: Option<&Map<&'static str, usize>>) -> Vec<ClassCount> {
        let row = |scheme: &str, class: &str, count: usize, source: &str| ClassCount {
            scheme: scheme.into(),
            class: class.into(),
            count,
            source: source.into(),
        };
        let mut out = Vec::new();
        for c in &ZELLAG {
            out.push(row("zellag", c.name, self.zellag.get(c.name).copied().unwrap_or(0), c.source));
        }
        let other = self.zellag.get(ZELLAG_OTHER).copied().unwrap_or(0);
        out.push(row("zellag", ZELLAG_OTHER, other, "Zellag & Kemme 2014, 10.3.1 (other cycles)"));
        for (name, _, source) in LDBC_CYCLES {
            out.push(row("ldbc", name, self.ldbc.get(name).copied().unwrap_or(0), source));
        }
        if let Some(reads) = reads {
            for (name, _, source) in LDBC_READS {
                out.push(row("ldbc", name, reads.get(name).copied().unwrap_or(0), source));
            }
        }
        for k in classify::ADYA {
            out.push(row("adya", k.name(), self.adya.get(k.name()).copied().unwrap_or(0), "Adya 1999; docs/levels.md"));
        }
        // Cycles through session, real-time or commit order or through chosen versions (the
        // online checker's rounds) are in no class: counted under `none`, after each scheme's
        // rows, so that each scheme's cycle counts add up to the cycles. Offline analysis
        // counts dependency cycles only: no row.
        let unclassed = self.adya.get(classify::UNCLASSED).copied().unwrap_or(0);
        if unclassed > 0 {
            for scheme in ["adya", "ldbc", "zellag"] {
                let i = out.iter().rposition(|r| r.scheme == scheme).map_or(out.len(), |i| i + 1);
                out.insert(i, row(scheme, classify::UNCLASSED, unclassed, UNCLASSED_SOURCE));
            }
        }
        out
    }

    pub fn lengths(&self) -> Vec<LengthCount> {
        let mut v: Vec<LengthCount> =
            self.lengths.iter().map(|(&length, &count)| LengthCount { length, count }).collect();
        crate::par::sort::sort_by_key(&mut v, |x| x.length);
        v
    }

    pub fn patterns(&self) -> Vec<PatternCount> {
        let mut v: Vec<PatternCount> = self
            .ordered
            .iter()
            .map(|(l, &count)| PatternCount { ordered: true, labels: l.clone(), count })
            .chain(self.unordered.iter().map(|(l, &count)| PatternCount { ordered: false, labels: l.clone(), count }))
            .collect();
        crate::par::sort::sort_by(&mut v, |a, b| {
            b.ordered.cmp(&a.ordered).then(b.count.cmp(&a.count)).then(a.labels.cmp(&b.labels))
        });
        v
    }
}

fn label(h: &History, t: TxnId) -> String {
    h.label(t).unwrap_or(NO_LABEL).to_string()
}

/// Analyze a checked graph: classify and count its cycles, and find the read anomalies.
pub fn analyze(
    h: &History,
    inf: &Inference,
    opts: &AnalyzeOptions,
    interrupt: Option<&mut dyn FnMut() -> bool>,
) -> Analysis {
    let g = &inf.graph;
    let comps = components(g);
    let mut budget = Budget::new(opts.max_steps.unwrap_or(u64::MAX), interrupt);
    let mut tally = Tally::default();
    let mut on = vec![0u32; h.txns.len()];
    let mut examples = Vec::new();
    let max_len = opts.max_length.max(2);
    let stop = count::enumerate(g, &comps, max_len, opts.max_cycles.max(1), &mut budget, |cyc| {
        let (types, keys, same) = cycle_shape(g, cyc);
        let c = classify(&types, same);
        let labels: Vec<String> = cyc.iter().map(|&t| label(h, t)).collect();
        tally.add(c, cyc.len(), &labels);
        for &t in cyc {
            on[t as usize] = on[t as usize].saturating_add(1);
        }
        if examples.len() < opts.examples {
            examples.push(ClassifiedCycle {
                txns: cyc.iter().map(|&t| h.txns[t as usize].id).collect(),
                types: types.iter().map(|t| t.as_str().to_string()).collect(),
                keys: keys.iter().map(|ks| ks.iter().map(|&k| h.value_json(h.key(k))).collect()).collect(),
                labels,
                zellag: c.zellag.into(),
                ldbc: c.ldbc.into(),
                adya: c.adya.into(),
            });
        }
    });
    let (complete, reason) = match stop {
        Ok(_) => (true, None),
        Err(count::Stop::Count) => (false, Some(format!("stopped after max_cycles = {} cycles", opts.max_cycles))),
        Err(count::Stop::Budget(why)) => (false, Some(format!("enumeration cut short: {why}"))),
    };
    let mut participation = Participation::default();
    for (t, &n) in on.iter().enumerate() {
        if !g.is_vertex[t] {
            continue;
        }
        participation.transactions += 1;
        match n {
            0 => participation.none += 1,
            1 => participation.one += 1,
            _ => participation.many += 1,
        }
    }
    let found = reads::read_anomalies(h, inf);
    let mut read_counts: Map<&'static str, usize> = Map::default();
    let mut listed: Map<&'static str, usize> = Map::default();
    let mut read_reports = Vec::new();
    for f in &found {
        *read_counts.entry(f.class).or_default() += 1;
        let n = listed.entry(f.class).or_default();
        if *n < opts.examples {
            *n += 1;
            read_reports.push(read_report(h, &inf.index, f));
        }
    }
    Analysis {
        basis: basis(h),
        max_length: max_len,
        complete,
        reason,
        cycles: tally.cycles,
        classes: tally.classes(Some(&read_counts)),
        lengths: tally.lengths(),
        patterns: tally.patterns(),
        participation,
        examples,
        reads: read_reports,
    }
}

/// The analysis's own account of what it counts, for the history at hand.
fn basis(h: &History) -> String {
    let mut s = String::from(
        "Each cycle counted is one of the dependency graph inferred from the history, of ww, wr and rw \
         edges only, each step taken at the lowest type between its two transactions (ww, then wr, then rw); \
         the three schemes classify that same cycle. A level's counterexample through the same transactions \
         can be another cycle, named by its own edges: one through session or real-time order \
         (G-single-process, G-single-realtime, ...), through another type between two transactions, or \
         through edges it marks chosen (a version order a search chose where the history fixes none: this \
         graph holds only the edges the history fixes) is not the cycle counted here",
    );
    if h.model == crate::history::Model::RwRegister && h.version_order.is_none() {
        s.push_str("; this register history has no version order, so its levels' counterexamples may choose one");
    }
    if h.commit_order.is_some() || h.txns.iter().any(|t| t.start_ts().is_some() || t.commit_ts().is_some()) {
        s.push_str("; the orders the database claims (timestamps, commit order) are not in this graph");
    }
    s.push('.');
    s
}

fn read_report(h: &History, idx: &crate::history::Index, f: &reads::ReadFinding) -> ReadAnomaly {
    let name = |t: Option<TxnId>| {
        t.map_or_else(|| "the initial version".to_string(), |t| format!("T{}", h.txns[t as usize].id))
    };
    let reader = format!("T{}", h.txns[f.reader as usize].id);
    let ops: Vec<OpRef> = f.ops.iter().map(|&o| op_ref(h, idx, idx.txn_of(o), o)).collect();
    let op = |i: usize| ops.get(i).map(|o| o.op.clone()).unwrap_or_default();
    let key = f.key.map(|k| h.show(h.key(k))).unwrap_or_default();
    let list =
        |vs: &[crate::history::Value]| format!("[{}]", vs.iter().map(|&v| h.show(v)).collect::<Vec<_>>().join(" "));
    let writer = name(f.writers.first().copied().flatten());
    let explanation = match f.class {
        "IMP" => format!(
            "{reader} read key {key} twice and saw versions of two writers: {} ({}) then {} ({})",
            name(f.writers.first().copied().flatten()),
            op(0),
            name(f.writers.get(1).copied().flatten()),
            op(1)
        ),
        "PMP" => {
            let (p, a, b) = f.predicate.as_ref().map_or((String::new(), String::new(), String::new()), |(p, a, b)| {
                (h.strings.get(*p).to_string(), list(a), list(b))
            });
            format!("{reader} read predicate {p:?} twice and matched different versions: {a}, then {b}")
        }
        "OTV" => format!(
            "{reader} saw {writer}'s write ({}), then read key {key} at a version before {writer}'s ({}): {writer} vanished",
            op(0),
            op(1)
        ),
        _ => format!(
            "{reader} read {writer}'s write ({}) and key {key} at a version before {writer}'s ({}): it read across {writer}'s boundary",
            op(0),
            op(1)
        ),
    };
    ReadAnomaly {
        class: f.class.into(),
        txn: h.txns[f.reader as usize].id,
        writers: f.writers.iter().map(|w| w.map(|t| h.txns[t as usize].id)).collect(),
        key: f.key.map_or(serde_json::Value::Null, |k| h.value_json(h.key(k))),
        predicate: f.predicate.as_ref().map(|p| h.strings.get(p.0).to_string()),
        ops,
        explanation,
    }
}

/// Class, length and pattern counts as text tables.
pub fn render_counts(classes: &[ClassCount], lengths: &[LengthCount], patterns: &[PatternCount]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "{:<7} {:<22} {:>8}  source", "scheme", "class", "count");
    for c in classes {
        let _ = writeln!(s, "{:<7} {:<22} {:>8}  {}", c.scheme, c.class, c.count, c.source);
    }
    if !lengths.is_empty() {
        let _ = writeln!(s, "\n{:<7} {:>8}", "length", "cycles");
        for l in lengths {
            let _ = writeln!(s, "{:<7} {:>8}", l.length, l.count);
        }
    }
    if !patterns.is_empty() {
        let _ = writeln!(s, "\n{:<10} {:>8}  labels", "pattern", "cycles");
        for p in patterns.iter().take(20) {
            let kind = if p.ordered { "ordered" } else { "unordered" };
            let sep = if p.ordered { " -> " } else { ", " };
            let _ = writeln!(s, "{:<10} {:>8}  {}", kind, p.count, p.labels.join(sep));
        }
        if patterns.len() > 20 {
            let _ = writeln!(s, "... and {} more patterns", patterns.len() - 20);
        }
    }
    s
}

/// The analysis as text, for terminals.
pub fn render(a: &Analysis) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let p = a.participation;
    let pct = |n: usize| if p.transactions == 0 { 0.0 } else { 100.0 * n as f64 / p.transactions as f64 };
    let _ = writeln!(
        s,
        "analysis: {} cycles of at most {} transactions{}",
        a.cycles,
        a.max_length,
        if a.complete { String::new() } else { format!(" (incomplete: {})", a.reason.clone().unwrap_or_default()) }
    );
    let _ = writeln!(
        s,
        "transactions on cycles: {} in none ({:.1}%), {} in one ({:.1}%), {} in two or more ({:.1}%)\n",
        p.none,
        pct(p.none),
        p.one,
        pct(p.one),
        p.many,
        pct(p.many)
    );
    let _ = writeln!(s, "{}\n", a.basis);
    s.push_str(&render_counts(&a.classes, &a.lengths, &a.patterns));
    for r in a.reads.iter().take(10) {
        let _ = writeln!(s, "\n{}: {}", r.class, r.explanation);
    }
    if a.reads.len() > 10 {
        let _ = writeln!(s, "\n... {} more read anomalies listed in the JSON report", a.reads.len() - 10);
    }
    s
}
