//! Graph export (issue 11): the ArangoDB layout against GRAIL's own List5 exports
//! (`grail/dsg-list5/{txn,dep}<N>.json.gz`), and the Neo4j, GraphML and DOT forms.

mod common;

use common::*;
use grail_core::export::{export, ExportFormat};
use grail_core::Level;
use std::collections::{HashMap, HashSet};

const LOST_UPDATE: &str = "{:index 1, :type :ok, :value [[:r :x []] [:append :x 1]]}\n\
{:index 2, :type :ok, :value [[:r :x []] [:append :x 2]]}\n\
{:index 3, :type :ok, :value [[:r :x [2 1]]]}\n";

fn files(h: &grail_core::History, f: ExportFormat) -> HashMap<String, String> {
    export(h, &grail_core::infer(h).graph, f, 4).into_iter().collect()
}

#[test]
fn small_history_in_every_format() {
    let h = grail_core::read(LOST_UPDATE.as_bytes(), grail_core::Format::Auto).unwrap();
    let g = grail_core::infer(&h).graph;
    let n_edges = g.edges.len();
    assert!(n_edges >= 3, "lost update: ww, wr and rw at least: {:?}", g.edges);

    let a = files(&h, ExportFormat::ArangoDb);
    let txn: serde_json::Value = serde_json::from_str(&a["txn.json"]).unwrap();
    let keys: HashSet<&str> = txn.as_array().unwrap().iter().map(|t| t["_key"].as_str().unwrap()).collect();
    assert_eq!(keys, HashSet::from(["1", "2", "3"]));
    let dep: serde_json::Value = serde_json::from_str(&a["dep.json"]).unwrap();
    let dep = dep.as_array().unwrap();
    assert_eq!(dep.len(), n_edges);
    // T1 read x = [] which T2 overwrote: rw from T1's read (op 0) to T2's append (op 1).
    assert!(
        dep.iter().any(|e| e["_from"] == "txn/1"
            && e["_to"] == "txn/2"
            && e["type"] == "rw"
            && e["from_evt"] == "r_evt/1,0"
            && e["to_evt"] == "a_evt/2,1"),
        "{dep:?}"
    );
    // T3 read [2 1]: wr from T1's append of 1.
    assert!(dep.iter().any(|e| e["_from"] == "txn/1" && e["_to"] == "txn/3" && e["to_evt"] == "r_evt/3,0"));
    for l in Level::CLASSIC {
        let q = &a[&format!("queries/cycle-{}.aql", l.name())];
        assert!(q.contains("IN 2..4") && q.contains("GRAPH txn_g") && q.contains("LIMIT 1"), "{q}");
        assert!(a[&format!("queries/sp-{}.aql", l.name())].contains("K_SHORTEST_PATHS"));
    }
    assert!(a["queries/cycle-SI.aql"].contains("^rw.*rw$|rw rw"));
    assert!(a["queries/cycle-PSI.aql"].contains("< 2"));
    assert!(a["queries/cycle-PL-1.aql"].contains("ALL == \"ww\""));
    assert!(a["queries/sp-PL-2.aql"].contains("edge.type != \"rw\""));

    let n = files(&h, ExportFormat::Neo4j);
    let nodes: Vec<&str> = n["nodes.csv"].lines().collect();
    assert_eq!(nodes[0], "txnId:ID,:LABEL");
    assert_eq!(nodes.len(), 4);
    let rels: Vec<&str> = n["relationships.csv"].lines().collect();
    assert_eq!(rels[0], ":START_ID,:END_ID,:TYPE,key,from_evt,to_evt");
    assert_eq!(rels.len(), n_edges + 1);
    assert!(rels.contains(&"1,2,rw,x,\"r_evt/1,0\",\"a_evt/2,1\""), "{rels:?}");
    assert!(n["queries/cycle-PL-2.cypher"].contains("[:ww|wr*2..4]"));
    assert!(n["queries/cycle-SI.cypher"].contains("t[(i + 1) % size(t)] = 'rw'"));
    assert!(n["queries/apoc-cycles.cypher"].contains("apoc.nodes.cycles"));

    let gm = &files(&h, ExportFormat::GraphMl)["graph.graphml"];
    assert_eq!(gm.matches("<node ").count(), 3);
    assert_eq!(gm.matches("<edge ").count(), n_edges);
    assert!(gm.ends_with("</graphml>\n"));
    let dot = &files(&h, ExportFormat::Dot)["graph.dot"];
    assert_eq!(dot.matches(" -> ").count(), n_edges);
    assert!(dot.contains("T1 -> T2 [label=\"rw x\", color=red]"), "{dot}");

    assert!(ExportFormat::parse("gexf").is_err());
    assert_eq!(ExportFormat::parse("ArangoDB").unwrap(), ExportFormat::ArangoDb);
}

#[test]
fn list5_arangodb_export_reproduces_grails_files() {
    let Some(c) = corpus() else { return };
    let (mut only_theirs, mut only_ours, mut common_triples, mut same_events) = (0, 0, 0, 0);
    for n in (10..=200).step_by(10) {
        let h = load(&c.join(format!("grail/list/list-histories-30s/{n}.edn.gz")), None);
        let f = files(&h, ExportFormat::ArangoDb);
        let our_txn: serde_json::Value = serde_json::from_str(&f["txn.json"]).unwrap();
        let our_dep: serde_json::Value = serde_json::from_str(&f["dep.json"]).unwrap();
        let txn: serde_json::Value =
            serde_json::from_slice(&slurp(&c.join(format!("grail/dsg-list5/txn{n}.json.gz")))).unwrap();
        let dep: serde_json::Value =
            serde_json::from_slice(&slurp(&c.join(format!("grail/dsg-list5/dep{n}.json.gz")))).unwrap();
        let keys = |v: &serde_json::Value| -> HashSet<String> {
            v.as_array().unwrap().iter().map(|t| t["_key"].as_str().unwrap().to_string()).collect()
        };
        assert_eq!(keys(&our_txn), keys(&txn), "List5 {n}: vertices differ");

        // (from, to, type) -> the (from_evt, to_evt) pairs of its documents.
        type Triples = HashMap<(String, String, String), HashSet<(String, String)>>;
        let triples = |v: &serde_json::Value| -> Triples {
            let mut m: Triples = HashMap::new();
            for e in v.as_array().unwrap() {
                let s = |k: &str| e[k].as_str().unwrap().to_string();
                m.entry((s("_from"), s("_to"), s("type"))).or_default().insert((s("from_evt"), s("to_evt")));
            }
            m
        };
        let (ours, theirs) = (triples(&our_dep), triples(&dep));
        // Every event we name is an operation of the edge's transaction of the right kind.
        for ((from, to, ty), evts) in &ours {
            for (fe, te) in evts {
                let txn_of = |evt: &str| evt.split_once('/').unwrap().1.split_once(',').unwrap().0.to_string();
                assert_eq!(format!("txn/{}", txn_of(fe)), *from, "{fe}");
                assert_eq!(format!("txn/{}", txn_of(te)), *to, "{te}");
                let (fk, tk) = match ty.as_str() {
                    "ww" => ("a_evt", "a_evt"),
                    "wr" => ("a_evt", "r_evt"),
                    _ => ("r_evt", "a_evt"),
                };
                assert!(fe.starts_with(fk) && te.starts_with(tk), "List5 {n}: {ty} edge {fe} -> {te}");
            }
        }
        for (k, evts) in &theirs {
            match ours.get(k) {
                None => {
                    // Known difference (a) of core/tests/dsg_oracle.rs: GRAIL's RW edges from
                    // internal reads (that test checks each one).
                    assert_eq!(k.2, "rw", "List5 {n}: GRAIL has {k:?}, the export does not");
                    only_theirs += 1;
                }
                Some(o) => {
                    common_triples += 1;
                    same_events += !o.is_disjoint(evts) as usize;
                }
            }
        }
        for k in ours.keys().filter(|k| !theirs.contains_key(*k)) {
            // Known difference (b): WW edges between consecutive versions no read returned.
            assert_eq!(k.2, "ww", "List5 {n}: the export has {k:?}, GRAIL does not");
            only_ours += 1;
        }
    }
    eprintln!(
        "List5: {common_triples} (from, to, type) triples in both; {same_events} of them name the same \
         (from_evt, to_evt) in one of their documents; only GRAIL: {only_theirs} rw; only grail: {only_ours} ww"
    );
    // The totals core/tests/dsg_oracle.rs establishes edge by edge.
    assert_eq!((only_theirs, only_ours), (2398, 625));
    assert!(common_triples > 0 && same_events > 0);
}

/// A counterexample's DOT: a session step is labelled by its type alone (it is on no key: once
/// `so null`), a G0 through session order is a write cycle (once "circular information flow",
/// G1c's name, though no step is a read).
#[test]
fn a_cycle_through_session_order_in_dot() {
    let text = "{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}\n\
{:index 1, :type :ok, :process 0, :value [[:append :x 2]]}\n\
{:index 2, :type :ok, :process 1, :value [[:r :x [2 1]]]}\n";
    let h = grail_core::read(text.as_bytes(), grail_core::Format::Auto).unwrap();
    let r =
        grail_core::check(&h, &grail_core::CheckOptions { levels: vec![Level::StrongSessionSi], ..Default::default() });
    let c = &r.levels["strong-session-SI"].cycles[0];
    assert_eq!((c.anomaly.as_str(), c.name.as_str()), ("G0-process", "write cycle"));
    let dot = grail_core::render::dot::cycle_dot(c);
    assert!(dot.contains("[label=\"so\",") && dot.contains("[label=\"ww x\","), "{dot}");
    assert!(!dot.contains("null") && !dot.contains("information"), "{dot}");
}

/// An elle-cli JSON sub-history writes an invocation's list reads as the input does, `null`
/// (once `[]`, a read of the empty list no line of the input made).
#[test]
fn an_invocations_list_read_is_written_null() {
    let text = "{\"type\":\"invoke\",\"f\":\"txn\",\"process\":0,\"value\":[[\"r\",2,null]]}\n\
{\"type\":\"ok\",\"f\":\"txn\",\"process\":0,\"index\":1,\"value\":[[\"r\",2,[]]]}\n\
{\"type\":\"invoke\",\"f\":\"txn\",\"process\":1,\"value\":[[\"append\",2,1]]}\n\
{\"type\":\"ok\",\"f\":\"txn\",\"process\":1,\"index\":3,\"value\":[[\"append\",2,1]]}\n";
    let h = grail_core::read(text.as_bytes(), grail_core::Format::Auto).unwrap();
    let out = grail_core::export::elle_json::sub_history(&h, &[0, 1]);
    assert!(out.contains(r#"[["r",2,null]]"#), "{out}");
    assert!(out.contains(r#"[["r",2,[]]]"#), "the completion's empty list stays: {out}");
}
