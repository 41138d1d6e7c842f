//! Elle's consistency models and anomalies as data: the three tables of Elle's
//! `elle/consistency_model.clj` (jepsen-io/elle, the copy at commit
//! 04d7400ffec5c9cc838839bb858269602f01daa3), copied entry for entry with Elle's own citations,
//! and the functions Elle derives from them (`anomalies-prohibited-by`,
//! `anomalies->impossible-models`, `boundary`, `friendly-boundary`).
//!
//! These give the *names* of `grail elle -c ...` Elle's meaning. grail's own levels
//! ([`crate::level`]) keep grail's meaning; `docs/elle.md` lists where the two differ (for
//! instance a G-single cycle rules out Elle's snapshot-isolation but not its
//! parallel-snapshot-isolation, where grail's PSI forbids it).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A directed acyclic graph as an adjacency list: `(from, [to, ...])`.
type Dag = &'static [(&'static str, &'static [&'static str])];

/// Elle's `implied-anomalies`: when `a -> b`, finding `a` is also a sign of `b` ("if G1a is
/// present, so is G1").
pub const IMPLIED_ANOMALIES: Dag = &[
    ("G0", &["G1c", "G0-process"]),                  // Adya; G0 is a trivial G0-process
    ("G0-process", &["G1c-process", "G0-realtime"]), // processes are single-threaded
    ("G0-realtime", &["G1c-realtime"]),
    ("G1a", &["G1"]), // G1 is defined in terms of these three anomalies
    ("G1b", &["G1"]),
    ("G1c", &["G1", "G1c-process"]), // Adya; G1c is a trivial G1c-process
    ("G1c-process", &["G1c-realtime", "G1-process"]),
    ("G1c-realtime", &["G1-realtime"]),
    ("G1", &["G1-process"]), // trivial
    ("G1-process", &["G1-realtime"]),
    // G-single-item is a special case of G-single, G-nonadjacent-item
    ("G-single-item", &["G-single", "G-single-item-process", "G-nonadjacent-item"]),
    ("G-single-item-process", &["G-single-process", "G-single-item-realtime", "G-nonadjacent-item-process"]),
    ("G-single-item-realtime", &["G-single-realtime", "G-nonadjacent-item-realtime"]),
    // G-single is a special case of G-nonadjacent; Adya: a cycle with one rw edge in the DSG is
    // one in the SSG as well
    ("G-single", &["G-nonadjacent", "GSIb", "G-single-process"]),
    ("G-single-process", &["G-nonadjacent-process", "G-single-realtime"]),
    ("G-single-realtime", &["G-nonadjacent-realtime"]),
    // G-nonadjacent-item: G-nonadjacent restricted to item rw edges, so also G2-item
    ("G-nonadjacent-item", &["G-nonadjacent", "G2-item", "G-nonadjacent-item-process"]),
    ("G-nonadjacent-item-process", &["G-nonadjacent-process", "G2-item-process", "G-nonadjacent-item-realtime"]),
    ("G-nonadjacent-item-realtime", &["G2-item-realtime", "G-nonadjacent-realtime"]),
    // G-nonadjacent is a special kind of G2 where rw edges alternate (Adya)
    ("G-nonadjacent", &["G2", "G-nonadjacent-process"]),
    ("G-nonadjacent-process", &["G2-process", "G-nonadjacent-realtime"]),
    ("G-nonadjacent-realtime", &["G2-realtime"]),
    ("G2", &["G2-process"]),
    ("G2-item", &["G2", "G2-item-process"]), // Adya
    ("G2-item-process", &["G2-process", "G2-item-realtime"]),
    ("G2-item-realtime", &["G2-realtime"]),
    // a process violation is also a realtime one: processes are single-threaded
    ("G2-process", &["G2-realtime"]),
    ("GSIa", &["GSI"]), // SI properties, per Adya
    ("GSIb", &["GSI"]),
    // two committed reads that cannot come from one timeline imply a dirty read
    ("incompatible-order", &["G1a"]),
    // a future read is essentially a trivial cycle T1 -wr-> T1
    ("future-read", &["G1c"]),
    // a dirty update is like a dirty read, but affects writes as well
    ("dirty-update", &["G1a"]),
    // lost update is a special case of write skew (Bailis) and, on one record, of G2-item
    ("lost-update", &["write-skew", "G2-item"]),
    ("write-skew", &["G2"]), // Hermitage
];

/// Elle's `canonical-model-names`: friendly names to canonical ones.
pub const CANONICAL_MODEL_NAMES: &[(&str, &str)] = &[
    ("consistent-view", "PL-2+"),          // Adya
    ("conflict-serializable", "PL-3"),     // Adya
    ("cursor-stability", "PL-CS"),         // Adya
    ("forward-consistent-view", "PL-FCV"), // Adya
    ("monotonic-snapshot-read", "PL-MSR"), // Adya
    ("monotonic-view", "PL-2L"),           // Adya
    ("read-committed", "PL-2"),
    ("read-uncommitted", "PL-1"),
    ("repeatable-read", "PL-2.99"),   // Adya
    ("serializable", "PL-3"),         // "serializable" means "conflict serializable"
    ("snapshot-isolation", "PL-SI"),  // Adya
    ("strict-serializable", "PL-SS"), // Adya
    ("strong-serializable", "PL-SS"), // "strong and strict serializable are the same thing"
    ("update-serializable", "PL-3U"), // Adya
    ("strong-session-read-uncommitted", "strong-session-PL-1"),
    ("strong-session-read-committed", "strong-session-PL-2"),
    ("strong-read-uncommitted", "strong-PL-1"),
    ("strong-read-committed", "strong-PL-2"),
    // Not in the copy at 04d7400: the name newer Elle gives ROLA, as elle-cli 0.1.10 prints it
    // (`test/test-data/list-append-anomaly-lost-update-result.json`, elle-cli commit fc4f9fa).
    ("update-atomic", "ROLA"),
];

/// Elle's `models`: `a -> b` when a history satisfying `a` satisfies `b` (names before
/// canonicalization, as Elle writes them; https://jepsen.io/consistency for the sources).
pub const MODELS: Dag = &[
    ("causal-cerone", &["read-atomic"]),                          // Cerone
    ("consistent-view", &["cursor-stability", "monotonic-view"]), // Adya
    ("conflict-serializable", &["view-serializable"]),
    ("cursor-stability", &["read-committed", "PL-2"]), // Bailis, Adya
    ("forward-consistent-view", &["consistent-view"]), // Adya
    ("PL-2", &["PL-1"]),                               // Adya
    ("PL-3", &["repeatable-read", "update-serializable"]), // Adya
    ("update-serializable", &["forward-consistent-view"]), // Adya
    ("monotonic-atomic-view", &["read-committed"]),    // Bailis
    ("monotonic-view", &["PL-2"]),                     // Adya
    ("monotonic-snapshot-read", &["PL-2"]),            // Adya
    ("parallel-snapshot-isolation", &["causal-cerone", "ROLA"]), // Cerone, ROLA
    ("prefix", &["causal-cerone"]),                    // Cerone
    ("read-atomic", &["monotonic-atomic-view"]),       // Cerone
    ("read-committed", &["read-uncommitted"]),         // SQL
    ("repeatable-read", &["cursor-stability", "monotonic-atomic-view"]), // Adya, Bailis
    ("ROLA", &["read-atomic"]),                        // ROLA
    ("serializable", &["repeatable-read", "snapshot-isolation", "view-serializable"]), // SQL, Bailis/Cerone, Bernstein
    ("session-serializable", &["1SR"]),                // Zuikeviciute
    (
        "snapshot-isolation",
        &[
            "forward-consistent-view",     // Adya
            "monotonic-atomic-view",       // Bailis
            "monotonic-snapshot-read",     // Adya
            "parallel-snapshot-isolation", // Cerone
            "prefix",                      // Cerone
        ],
    ),
    (
        "strict-serializable",
        &[
            "PL-3",                        // Adya
            "serializable",                // Bailis
            "linearizable",                // Bailis
            "snapshot-isolation",          // Adya
            "strong-snapshot-isolation",   // (no citation in Elle)
            "strong-session-serializable", // Daudjee
        ],
    ),
    ("strong-session-PL-1", &["PL-1"]),
    ("strong-session-PL-2", &["PL-2", "strong-session-PL-1"]),
    ("strong-PL-1", &["strong-session-PL-1"]),
    ("strong-PL-2", &["strong-session-PL-2", "strong-PL-1"]),
    ("strong-session-serializable", &["serializable", "strong-session-snapshot-isolation"]), // Daudjee
    ("strong-session-snapshot-isolation", &["snapshot-isolation", "strong-session-PL-2"]),   // Daudjee-SI, Cerone-SI
    ("strong-serializable", &["session-serializable"]),                                      // Zuikeviciute
    ("strong-snapshot-isolation", &["strong-session-snapshot-isolation", "strong-PL-2"]),    // Daudjee-SI
    ("linearizable", &["sequential"]),                                                       // Bailis
    ("sequential", &["causal"]),                                                             // Bailis
    ("causal", &["writes-follow-reads", "PRAM"]),                                            // Bailis
    ("PRAM", &["monotonic-reads", "monotonic-writes", "read-your-writes"]),                  // Bailis
];

/// Elle's `direct-proscribed-anomalies`: the anomalies each model forbids over the models it
/// implies (names before canonicalization).
pub const DIRECT_PROSCRIBED_ANOMALIES: Dag = &[
    ("causal-cerone", &["internal", "G1a"]),                  // Cerone (incomplete)
    ("cursor-stability", &["G1", "G-cursor", "lost-update"]), // Adya, Bailis
    ("monotonic-view", &["G1", "G-monotonic"]),               // Adya
    ("monotonic-snapshot-read", &["G1", "G-MSR"]),            // Adya
    ("consistent-view", &["G1", "G-single"]),                 // Adya
    ("forward-consistent-view", &["G1", "G-SIb"]),            // Adya
    ("parallel-snapshot-isolation", &["internal", "G1a"]),    // Cerone (incomplete)
    ("PL-3", &["G1", "G2", "predicate-read-miss", "PL-3-cycle-exists"]), // Adya
    ("PL-2", &["G1", "PL-2-cycle-exists"]),                   // Adya
    ("PL-1", &["G0", "duplicate-elements", "cyclic-versions", "PL-1-cycle-exists"]), // Adya
    ("prefix", &["internal", "G1a"]),                         // Cerone (incomplete)
    ("serializable", &["internal"]),                          // Cerone (incomplete)
    ("snapshot-isolation", &["internal", "G1", "G-SI", "G-nonadjacent", "PL-SI-cycle-exists"]), // Cerone, Adya, Daudjee-SI
    ("read-atomic", &["internal", "G1a", "future-read"]),                                       // Cerone (incomplete)
    ("repeatable-read", &["G1", "G2-item", "PL-2.99-cycle-exists", "lost-update"]),             // Adya, Bailis
    ("ROLA", &["lost-update"]),                                                                 // ROLA
    ("strict-serializable", &["G1", "G1c-realtime", "G2-realtime", "PL-SS-cycle-exists"]),      // Adya
    ("strong-session-PL-1", &["strong-session-PL-1-cycle-exists", "G0-process"]),
    ("strong-session-PL-2", &["strong-session-PL-2-cycle-exists", "G1c-process"]),
    ("strong-PL-1", &["strong-PL-1-cycle-exists", "G0-realtime"]),
    ("strong-PL-2", &["strong-PL-2-cycle-exists", "G1c-realtime"]),
    (
        "strong-session-snapshot-isolation",
        &["internal", "G1-process", "G-nonadjacent-process", "strong-session-snapshot-isolation-cycle-exists"],
    ),
    (
        "strong-snapshot-isolation",
        &["internal", "G1-realtime", "G-nonadjacent-realtime", "strong-snapshot-isolation-cycle-exists"],
    ),
    ("strong-session-serializable", &["G1-process", "G2-process", "strong-session-serializable-cycle-exists"]), // Daudjee, Alvaro
    ("update-serializable", &["G1", "G-update"]),                                                               // Adya
];

/// Anomalies that make Elle's verdict `unknown` rather than `false` (Elle's
/// `unknown-anomaly-types`), and grail's additions (`docs/elle.md`): a value written twice,
/// which Elle answers with `:valid? :unknown` (`:duplicate-appends`) since reads of it are
/// ambiguous, and a read of a value no transaction wrote (`garbage-read`), which Elle's tables
/// do not name: reported, and the verdict unknown rather than true, so that `--strict-exit`
/// fails on it while the exit code stays elle-cli's.
pub const UNKNOWN_ANOMALY_TYPES: &[&str] =
    &["empty-transaction-graph", "cycle-search-timeout", "duplicate-appends", "duplicate-writes", "garbage-read"];

/// The cycle-exists specs of Elle's `elle/txn.clj` (`cycle-exists-specs`), in Elle's order: a
/// canonical model, and the relations whose subgraph must be acyclic for it to hold.
/// `Rels::Extension` is Elle's `[:extension [ww wr ...] rw]`: no two rw edges adjacent.
pub const CYCLE_EXISTS: &[(&str, Rels)] = &[
    ("PL-1", Rels::Ww),
    ("PL-2", Rels::WwWr),
    ("PL-SI", Rels::Extension),
    ("PL-2.99", Rels::All),
    ("PL-3", Rels::All),
    ("strong-session-PL-1", Rels::Ww),
    ("strong-session-PL-2", Rels::WwWr),
    ("strong-session-snapshot-isolation", Rels::Extension),
    ("strong-session-serializable", Rels::All),
    ("strong-PL-1", Rels::Ww),
    ("strong-PL-2", Rels::WwWr),
    ("strong-snapshot-isolation", Rels::Extension),
    ("PL-SS", Rels::All),
];

/// The data relations of a cycle-exists subgraph (session or real-time order comes on top for
/// the strong-session and strong models).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rels {
    Ww,
    WwWr,
    Extension,
    All,
}

impl Rels {
    /// The subgraph as Elle prints it in a cycle-exists anomaly (`[:union :ww :wr]`), with the
    /// order relation a strong model adds.
    pub fn subgraph(self, order: Option<&str>) -> serde_json::Value {
        let mut base: Vec<serde_json::Value> = match self {
            Rels::Ww => vec!["ww".into(), "wwp".into()],
            Rels::WwWr | Rels::Extension => vec!["ww".into(), "wwp".into(), "wr".into(), "wrp".into()],
            Rels::All => vec!["ww".into(), "wwp".into(), "wr".into(), "wrp".into(), "rw".into(), "rwp".into()],
        };
        if let Some(o) = order {
            base.push(o.into());
        }
        let mut union = vec![serde_json::Value::from("union")];
        union.extend(base);
        match self {
            Rels::Extension => serde_json::json!(["extension", union, ["union", "rw", "rwp"]]),
            _ => serde_json::Value::Array(union),
        }
    }
}

/// The canonical name of a model (Elle's `canonical-model-name`).
pub fn canonical(m: &str) -> &str {
    CANONICAL_MODEL_NAMES.iter().find(|(f, _)| *f == m).map_or(m, |(_, c)| c)
}

/// The friendly name of a canonical model (Elle's `friendly-model-name`). Where two friendly
/// names share a canonical one, the one Elle prints: `serializable` for PL-3 (Elle says so),
/// `strong-serializable` for PL-SS (what elle-cli 0.1.10 prints).
pub fn friendly(m: &str) -> &str {
    match m {
        "PL-3" => "serializable",
        "PL-SS" => "strong-serializable",
        _ => CANONICAL_MODEL_NAMES.iter().find(|(_, c)| *c == m).map_or(m, |(f, _)| f),
    }
}

/// A graph over names, both directions.
#[derive(Default)]
struct Graph {
    out: BTreeMap<String, BTreeSet<String>>,
    inn: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn from(dags: &[Dag], canon: bool) -> Graph {
        let mut g = Graph::default();
        let name = |s: &str| if canon { canonical(s).to_string() } else { s.to_string() };
        for dag in dags {
            for (a, bs) in dag.iter() {
                let a = name(a);
                g.out.entry(a.clone()).or_default();
                g.inn.entry(a.clone()).or_default();
                for b in bs.iter() {
                    let b = name(b);
                    g.out.entry(a.clone()).or_default().insert(b.clone());
                    g.inn.entry(b.clone()).or_default().insert(a.clone());
                    g.out.entry(b.clone()).or_default();
                }
            }
        }
        g
    }

    fn vertices(&self) -> impl Iterator<Item = &String> {
        self.out.keys()
    }

    fn next(&self, v: &str, forward: bool) -> Vec<String> {
        let m = if forward { &self.out } else { &self.inn };
        m.get(v).map(|s| s.iter().cloned().collect()).unwrap_or_default()
    }

    /// Every vertex reachable from `start` (itself included), following edges forwards or
    /// backwards (Elle's `g/bfs` with `g/out` or `g/in`).
    fn bfs<'a>(&self, start: impl IntoIterator<Item = &'a str>, forward: bool) -> BTreeSet<String> {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut todo: VecDeque<String> = start.into_iter().map(str::to_string).collect();
        while let Some(v) = todo.pop_front() {
            if seen.insert(v.clone()) {
                todo.extend(self.next(&v, forward));
            }
        }
        seen
    }
}

fn anomaly_graph() -> Graph {
    Graph::from(&[IMPLIED_ANOMALIES], false)
}

fn model_graph() -> Graph {
    Graph::from(&[MODELS], true)
}

fn proscribed_graph() -> Graph {
    Graph::from(&[DIRECT_PROSCRIBED_ANOMALIES], true)
}

/// Every model name Elle knows (Elle's `all-models`): the models graph's vertices and both sides
/// of the canonical-name table.
pub fn all_models() -> BTreeSet<String> {
    let mut s: BTreeSet<String> = model_graph().vertices().cloned().collect();
    for (f, c) in CANONICAL_MODEL_NAMES {
        s.insert(f.to_string());
        s.insert(c.to_string());
    }
    s
}

/// Elle's `validate-models`: an error naming the unknown models.
pub fn validate_models(ms: &[String]) -> Result<(), String> {
    let all = all_models();
    let unknown: Vec<&String> = ms.iter().filter(|m| !all.contains(m.as_str())).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let show = |v: &[&String]| v.iter().map(|m| format!(":{m}")).collect::<Vec<_>>().join(" ");
    let known: Vec<&String> = all.iter().collect();
    Err(format!("Unknown consistency model ({}); known models are:\n#{{{}}}", show(&unknown), show(&known)))
}

/// Every anomaly that implies one of these (themselves included): Elle's
/// `all-anomalies-implying`.
pub fn all_anomalies_implying(anomalies: &[String]) -> BTreeSet<String> {
    anomaly_graph().bfs(anomalies.iter().map(String::as_str), false)
}

/// Every anomaly these imply (themselves included): Elle's `all-implied-anomalies`.
pub fn all_implied_anomalies(anomalies: &[String]) -> BTreeSet<String> {
    anomaly_graph().bfs(anomalies.iter().map(String::as_str), true)
}

/// Every model these imply, canonical names (Elle's `all-implied-models`).
pub fn all_implied_models(ms: &[String]) -> BTreeSet<String> {
    model_graph().bfs(ms.iter().map(|m| canonical(m)), true)
}

/// Every model that implies one of these, canonical names (Elle's `all-impossible-models`).
pub fn all_impossible_models(ms: &[String]) -> BTreeSet<String> {
    model_graph().bfs(ms.iter().map(|m| canonical(m)), false)
}

/// The anomalies that cannot be present if all these models hold: Elle's
/// `anomalies-prohibited-by`.
pub fn anomalies_prohibited_by(models: &[String]) -> BTreeSet<String> {
    let p = proscribed_graph();
    let direct: Vec<String> = all_implied_models(models).iter().flat_map(|m| p.next(m, true)).collect();
    all_anomalies_implying(&direct)
}

/// The models that cannot hold given these anomalies: Elle's `anomalies->impossible-models`.
pub fn anomalies_to_impossible_models(anomalies: &[String]) -> BTreeSet<String> {
    let p = proscribed_graph();
    let direct: Vec<String> = all_implied_anomalies(anomalies).iter().flat_map(|a| p.next(a, false)).collect();
    all_impossible_models(&direct)
}

/// The models of a set implied by none of the others (`forward`), or implying none of the others
/// (backward): Elle's `most-models`, `strongest-models` and `weakest-models`.
fn most_models(ms: &BTreeSet<String>, forward: bool) -> BTreeSet<String> {
    let g = model_graph();
    let mut out: BTreeSet<String> = ms.iter().map(|m| canonical(m).to_string()).collect();
    for m in ms.iter().map(|m| canonical(m).to_string()).collect::<Vec<_>>() {
        let mut others = out.clone();
        others.remove(&m);
        if g.bfs([m.as_str()], forward).iter().any(|x| others.contains(x)) {
            out = others;
        }
    }
    out
}

/// Elle's `weakest-models`: those implied by all the rest.
pub fn weakest_models(ms: &BTreeSet<String>) -> BTreeSet<String> {
    most_models(ms, true)
}

/// Elle's `friendly-boundary`: `not` (the weakest models these anomalies rule out) and
/// `also-not` (the stronger ones), friendly names, sorted.
pub fn friendly_boundary(anomalies: &[String]) -> (Vec<String>, Vec<String>) {
    let impossible = anomalies_to_impossible_models(anomalies);
    let not = weakest_models(&impossible);
    let f = |s: &mut dyn Iterator<Item = &String>| -> Vec<String> {
        let set: BTreeSet<String> = s.map(|m| friendly(m).to_string()).collect();
        set.into_iter().collect()
    };
    let also: Vec<&String> = impossible.iter().filter(|m| !not.contains(*m)).collect();
    (f(&mut not.iter()), f(&mut also.into_iter()))
}

/// Elle's `prohibited-anomaly-types`: the anomalies implying one of `anomalies`, and those the
/// `models` forbid.
pub fn prohibited_anomaly_types(models: &[String], anomalies: &[String]) -> BTreeSet<String> {
    let mut s = all_anomalies_implying(anomalies);
    s.extend(anomalies_prohibited_by(models));
    s
}

/// Elle's `reportable-anomaly-types`: the prohibited ones, and those that make a verdict unknown.
pub fn reportable_anomaly_types(models: &[String], anomalies: &[String]) -> BTreeSet<String> {
    let mut s = prohibited_anomaly_types(models, anomalies);
    s.extend(UNKNOWN_ANOMALY_TYPES.iter().map(|x| x.to_string()));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn g_single_rules_out_elle_si_but_not_psi() {
        let si = anomalies_prohibited_by(&v(&["snapshot-isolation"]));
        let psi = anomalies_prohibited_by(&v(&["parallel-snapshot-isolation"]));
        assert!(si.contains("G-single-item") && si.contains("G-single"));
        assert!(!psi.contains("G-single-item") && !psi.contains("G-single"));
        // Both forbid a lost update (PSI through ROLA) and G1.
        assert!(psi.contains("lost-update") && psi.contains("G1c") && psi.contains("G0"));
        assert!(!si.contains("G2-item"), "Elle's SI allows write skew");
    }

    #[test]
    fn boundary_of_a_g_single_item_is_what_elle_cli_prints() {
        // elle-cli's test data (paper-example-result.json) for a G-single-item cycle.
        let (not, also) = friendly_boundary(&v(&["G-single-item"]));
        assert_eq!(not, v(&["consistent-view", "repeatable-read"]));
        assert_eq!(
            also,
            v(&[
                "forward-consistent-view",
                "serializable",
                "snapshot-isolation",
                "strong-serializable",
                "strong-session-serializable",
                "strong-session-snapshot-isolation",
                "strong-snapshot-isolation",
                "update-serializable"
            ])
        );
        let (not, also) = friendly_boundary(&v(&["G2-item"]));
        assert_eq!(not, v(&["repeatable-read"]));
        assert_eq!(also, v(&["serializable", "strong-serializable", "strong-session-serializable"]));
    }

    #[test]
    fn unknown_models_are_refused_and_aliases_canonicalised() {
        assert!(validate_models(&v(&["serializable", "PL-SI", "strict-serializable"])).is_ok());
        let e = validate_models(&v(&["serialisable"])).unwrap_err();
        assert!(e.starts_with("Unknown consistency model (:serialisable)"), "{e}");
        assert_eq!(canonical("strict-serializable"), "PL-SS");
        assert_eq!(friendly("PL-2.99"), "repeatable-read");
        // Strict serializable forbids real-time anomalies; serializable does not.
        assert!(anomalies_prohibited_by(&v(&["strict-serializable"])).contains("G-single-item-realtime"));
        assert!(!anomalies_prohibited_by(&v(&["serializable"])).contains("G-single-item-realtime"));
        assert!(!anomalies_prohibited_by(&v(&["serializable"])).contains("G0-process"));
    }

    #[test]
    fn read_uncommitted_forbids_only_write_cycles_and_duplicates() {
        let ru = anomalies_prohibited_by(&v(&["read-uncommitted"]));
        assert!(ru.contains("G0") && ru.contains("duplicate-elements") && ru.contains("PL-1-cycle-exists"));
        assert!(!ru.contains("G1c") && !ru.contains("G1a"));
        let rc = anomalies_prohibited_by(&v(&["read-committed"]));
        assert!(rc.contains("G1a") && rc.contains("G1c") && rc.contains("incompatible-order"));
        assert!(!rc.contains("garbage-read"), "Elle's tables do not name thin-air reads");
        assert!(reportable_anomaly_types(&v(&["read-committed"]), &[]).contains("garbage-read"));
        assert!(!rc.contains("G-single-item") && !rc.contains("internal"));
    }
}
