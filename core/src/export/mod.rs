//! The dependency graph in the forms GRAIL loaded into graph databases, with GRAIL's queries
//! (thesis chapter 4 and Appendix E) for each level, so a history too large for one machine can
//! be checked in ArangoDB or Neo4j (`docs/large-histories.md`). No IO: [`export`] returns the
//! files as (relative path, contents); the CLI writes them.
//!
//! * `arangodb`: `txn.json` and `dep.json`, JSON arrays for `arangoimport` into a document
//!   collection `txn` and an edge collection `dep` (GRAIL's layout: `_key`, `_from: "txn/<id>"`,
//!   `_to`, `type`, `from_evt`/`to_evt` such as `"a_evt/1002,7"`: event kind `a` append, `r`
//!   read, `w` write; the transaction's `:index`; the operation's index in it), plus
//!   `queries/cycle-<LEVEL>.aql` and `queries/sp-<LEVEL>.aql`.
//! * `neo4j`: `nodes.csv` (`txnId:ID,:LABEL`) and `relationships.csv`
//!   (`:START_ID,:END_ID,:TYPE,key,from_evt,to_evt`) for `neo4j-admin database import`, plus
//!   `queries/cycle-<LEVEL>.cypher`, `queries/apoc-cycles.cypher`, `queries/gds-scc.cypher`.
//! * `graphml`: `graph.graphml`; `dot`: `graph.dot`.
//!
//! Vertex ids are the transactions' ids (the Jepsen `:index`). One edge per (from, to, type,
//! key), with the provenance grail keeps for it.

pub mod edn;
pub mod elle_json;
pub mod native;
pub mod plume;
pub mod reproduce;
pub mod timekiller;

use crate::graph::{DependencyGraph, Edge};
use crate::history::{History, Notation, OpKind, TxnId};
use crate::level::Level;
use serde_json::json;

/// The transactions `txns` written back in the input's notation: Jepsen EDN after `comment` as
/// `;` lines ([`edn::sub_history`]), or Plume's text, grail's native JSON or elle-cli's JSON,
/// which have no comments (`comment` is not written).
pub fn sub_history(h: &History, txns: &[TxnId], comment: Option<&str>) -> String {
    match h.notation {
        Notation::Jepsen => edn::sub_history(h, txns, comment),
        Notation::Plume => plume::sub_history(h, txns),
        Notation::Native => native::sub_history(h, txns),
        Notation::ElleJson => elle_json::sub_history(h, txns),
        Notation::TimeKiller => timekiller::sub_history(h, txns),
    }
}

/// The transactions `txns` (indices into [`History::txns`]) each once, out of range ones
/// left out, in the order they were invoked (the order of the input's records).
fn invocation_order(h: &History, txns: &[TxnId]) -> Vec<TxnId> {
    let mut order: Vec<TxnId> = txns.iter().copied().filter(|&t| (t as usize) < h.txns.len()).collect();
    crate::par::sort::sort_unstable_by_key(&mut order, |&t| (h.txns[t as usize].first_pos(), t));
    order.dedup();
    order
}

/// The file extension of a history in `notation`: `edn`, `txt` for Plume's text, `json` for the JSON ones.
pub fn extension(notation: Notation) -> &'static str {
    match notation {
        Notation::Jepsen => "edn",
        Notation::Plume => "txt",
        Notation::Native | Notation::ElleJson | Notation::TimeKiller => "json",
    }
}

/// The reader of a history written in `notation` ([`sub_history`]'s text).
pub fn reader_format(notation: Notation) -> crate::read::Format {
    use crate::read::Format;
    match notation {
        Notation::Jepsen => Format::Edn,
        Notation::Plume => Format::Plume,
        Notation::Native | Notation::ElleJson => Format::Json,
        Notation::TimeKiller => Format::TimeKiller,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    ArangoDb,
    Neo4j,
    GraphMl,
    Dot,
}

impl ExportFormat {
    pub fn parse(s: &str) -> Result<ExportFormat, crate::error::Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "arangodb" | "arango" => Ok(ExportFormat::ArangoDb),
            "neo4j" => Ok(ExportFormat::Neo4j),
            "graphml" => Ok(ExportFormat::GraphMl),
            "dot" => Ok(ExportFormat::Dot),
            _ => Err(crate::error::Error::new(
                crate::error::ErrorKind::Usage,
                format!("unknown export format {s:?}: expected arangodb, neo4j, graphml or dot"),
            )),
        }
    }
}

/// The event an operation is, in GRAIL's naming: `a_evt/<txn id>,<index in txn>`.
/// `t` is the operation's transaction (an edge's end).
pub fn event(h: &History, t: TxnId, op: u32) -> String {
    let txn = &h.txns[t as usize];
    let kind = match h.ops.get(op as usize).map(|o| o.kind()) {
        Some(OpKind::Append) => 'a',
        Some(OpKind::Read) => 'r',
        Some(OpKind::Write) => 'w',
        None => return format!("txn/{}", txn.id),
    };
    format!("{kind}_evt/{},{}", txn.id, op.saturating_sub(txn.ops_start))
}

/// The files of an export. `max_depth` bounds the Cycle queries (`IN 2..max_depth`).
pub fn export(h: &History, g: &DependencyGraph, f: ExportFormat, max_depth: usize) -> Vec<(String, String)> {
    let ids: Vec<u64> = (0..h.txns.len()).filter(|&t| g.is_vertex[t]).map(|t| h.txns[t].id).collect();
    let id = |t: u32| h.txns[t as usize].id;
    let key = |e: &Edge| match h.value_json(h.key(e.key)) {
        serde_json::Value::String(s) => s,
        v => v.to_string(),
    };
    match f {
        ExportFormat::ArangoDb => {
            let txn: Vec<_> = ids.iter().map(|i| json!({ "_key": i.to_string() })).collect();
            let dep: Vec<_> = g
                .edges
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    json!({
                        "_key": i.to_string(),
                        "_from": format!("txn/{}", id(e.from)),
                        "_to": format!("txn/{}", id(e.to)),
                        "type": e.ty.as_str(),
                        "key": key(e),
                        "from_evt": event(h, e.from, e.from_op),
                        "to_evt": event(h, e.to, e.to_op),
                    })
                })
                .collect();
            let mut files = vec![
                ("txn.json".to_string(), serde_json::to_string_pretty(&txn).unwrap_or_default()),
                ("dep.json".to_string(), serde_json::to_string_pretty(&dep).unwrap_or_default()),
            ];
            for l in Level::CLASSIC {
                files.push((format!("queries/cycle-{}.aql", l.name()), aql_cycle(l, max_depth)));
                files.push((format!("queries/sp-{}.aql", l.name()), aql_sp(l)));
            }
            files.push(("queries/graph.js".into(), ARANGO_GRAPH.into()));
            files
        }
        ExportFormat::Neo4j => {
            let mut nodes = String::from("txnId:ID,:LABEL\n");
            for i in &ids {
                nodes.push_str(&format!("{i},txn\n"));
            }
            let mut rels = String::from(":START_ID,:END_ID,:TYPE,key,from_evt,to_evt\n");
            for e in &g.edges {
                rels.push_str(&format!(
                    "{},{},{},{},{},{}\n",
                    id(e.from),
                    id(e.to),
                    e.ty.as_str(),
                    csv(&key(e)),
                    csv(&event(h, e.from, e.from_op)),
                    csv(&event(h, e.to, e.to_op))
                ));
            }
            let mut files = vec![("nodes.csv".to_string(), nodes), ("relationships.csv".to_string(), rels)];
            for l in Level::CLASSIC {
                files.push((format!("queries/cycle-{}.cypher", l.name()), cypher_cycle(l, max_depth)));
            }
            files.push(("queries/apoc-cycles.cypher".into(), CYPHER_APOC.into()));
            files.push(("queries/gds-scc.cypher".into(), CYPHER_GDS.into()));
            files
        }
        ExportFormat::GraphMl => {
            let mut s = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                 <graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n\
                 \x20 <key id=\"type\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n\
                 \x20 <key id=\"key\" for=\"edge\" attr.name=\"key\" attr.type=\"string\"/>\n\
                 \x20 <key id=\"from_evt\" for=\"edge\" attr.name=\"from_evt\" attr.type=\"string\"/>\n\
                 \x20 <key id=\"to_evt\" for=\"edge\" attr.name=\"to_evt\" attr.type=\"string\"/>\n\
                 \x20 <graph id=\"dsg\" edgedefault=\"directed\">\n",
            );
            for i in &ids {
                s.push_str(&format!("    <node id=\"T{i}\"/>\n"));
            }
            for (n, e) in g.edges.iter().enumerate() {
                s.push_str(&format!(
                    "    <edge id=\"e{n}\" source=\"T{}\" target=\"T{}\"><data key=\"type\">{}</data><data key=\"key\">{}</data><data key=\"from_evt\">{}</data><data key=\"to_evt\">{}</data></edge>\n",
                    id(e.from),
                    id(e.to),
                    e.ty.as_str(),
                    xml(&key(e)),
                    xml(&event(h, e.from, e.from_op)),
                    xml(&event(h, e.to, e.to_op))
                ));
            }
            s.push_str("  </graph>\n</graphml>\n");
            vec![("graph.graphml".into(), s)]
        }
        ExportFormat::Dot => {
            let mut s = String::from("digraph dsg {\n  node [shape=circle];\n");
            for i in &ids {
                s.push_str(&format!("  T{i};\n"));
            }
            for e in &g.edges {
                let color = match e.ty.as_str() {
                    "ww" => "black",
                    "wr" => "blue",
                    _ => "red",
                };
                s.push_str(&format!(
                    "  T{} -> T{} [label=\"{} {}\", color={color}];\n",
                    id(e.from),
                    id(e.to),
                    e.ty.as_str(),
                    key(e).replace('\\', "\\\\").replace('"', "\\\"")
                ));
            }
            s.push_str("}\n");
            vec![("graph.dot".into(), s)]
        }
    }
}

fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The AQL filter on a path's or cycle's edges (`var.edges`) for a level's anti-pattern.
fn aql_filter(l: Level, var: &str) -> String {
    match l {
        // The other levels need order edges GRAIL's graphs lack; callers pass the classic five.
        Level::Ser | Level::StrictSer | Level::StrongSessionSer => "true".into(),
        Level::Si | Level::StrongSi | Level::StrongSessionSi => {
            format!("NOT REGEX_TEST(CONCAT_SEPARATOR(\" \", {var}.edges[*].type), \"^rw.*rw$|rw rw\")")
        }
        Level::Psi => format!("LENGTH(FOR e IN {var}.edges FILTER e.type == \"rw\" RETURN e) < 2"),
        Level::Pl2 | Level::Rc | Level::Ra | Level::Cc => format!("{var}.edges[*].type NONE == \"rw\""),
        Level::Pl1 => format!("{var}.edges[*].type ALL == \"ww\""),
    }
}

/// GRAIL's Cycle checker (Listings E.1, E.4, E.7, E.10, E.13).
pub fn aql_cycle(l: Level, max_depth: usize) -> String {
    format!(
        "// GRAIL Cycle checker for {} (thesis Appendix E.1): cycles of 2..{max_depth} transactions.\n\
         // No result: no anti-pattern of at most {max_depth} transactions (longer cycles are not searched).\n\
         FOR start IN txn\n  FOR vertex, edge, path IN 2..{max_depth}\n    OUTBOUND start._id\n    GRAPH txn_g\n    \
         FILTER edge._to == start._id AND {}\n    LIMIT 1\n    RETURN path.edges\n",
        l.name(),
        aql_filter(l, "path")
    )
}

/// GRAIL's SP checker (Listings E.16-E.20), with the thesis's typos fixed (`K_SHORTEST_PATHS`,
/// `edge.type != "rw"` for PL-2) and the collection named `dep` as in Listing 4.4.
pub fn aql_sp(l: Level) -> String {
    let edge_filter = match l {
        Level::Pl2 => "    FILTER edge.type != \"rw\"\n",
        Level::Pl1 => "    FILTER edge.type == \"ww\"\n",
        _ => "",
    };
    format!(
        "// GRAIL SP checker for {} (thesis Appendix E.2): a back-path from every edge, filtered.\n\
         // K_SHORTEST_PATHS enumerates paths by length; the filter keeps cycles of the anti-pattern.\n\
         LET cycles = (\n  FOR edge IN dep\n{edge_filter}    FOR p IN OUTBOUND K_SHORTEST_PATHS\n      \
         edge._to TO edge._from\n      GRAPH txn_g\n      \
         RETURN {{edges: UNSHIFT(p.edges, edge), vertices: UNSHIFT(p.vertices, p.vertices[LENGTH(p.vertices) - 1])}}\n)\n\
         FOR cycle IN cycles\n  FILTER {}\n  LIMIT 1\n  RETURN cycle\n",
        l.name(),
        aql_filter(l, "cycle")
    )
}

/// The Cycle checker in Cypher (variable-length patterns never repeat a relationship, as
/// ArangoDB's default `uniqueEdges: "path"`).
pub fn cypher_cycle(l: Level, max_depth: usize) -> String {
    let (rels, filter) = match l {
        Level::Ser | Level::StrictSer | Level::StrongSessionSer => (String::new(), String::new()),
        Level::Si | Level::StrongSi | Level::StrongSessionSi => (
            String::new(),
            "\nWITH p, [r IN relationships(p) | type(r)] AS t\n\
             WHERE NONE(i IN range(0, size(t) - 1) WHERE t[i] = 'rw' AND t[(i + 1) % size(t)] = 'rw')"
                .to_string(),
        ),
        Level::Psi => {
            (String::new(), "\nWITH p WHERE size([r IN relationships(p) WHERE type(r) = 'rw']) < 2".to_string())
        }
        Level::Pl2 | Level::Rc | Level::Ra | Level::Cc => (":ww|wr".to_string(), String::new()),
        Level::Pl1 => (":ww".to_string(), String::new()),
    };
    format!(
        "// GRAIL Cycle checker for {} in Cypher: cycles of 2..{max_depth} transactions.\n\
         // No result: no anti-pattern of at most {max_depth} transactions (longer cycles are not searched).\n\
         MATCH p = (s:txn)-[{rels}*2..{max_depth}]->(s){filter}\nRETURN p\nLIMIT 1;\n",
        l.name()
    )
}

const CYPHER_APOC: &str =
    "// Neo4j-APOC cycle detection (thesis Listing E.22): every cycle; filter by type(r) for a level.\n\
MATCH (n:txn) WITH collect(n) AS nodes\nCALL apoc.nodes.cycles(nodes)\nYIELD path\nRETURN path;\n";

const CYPHER_GDS: &str = "// Neo4j-GDS SCC (thesis Listing E.23): components of two or more transactions mean SER is violated.\n\
// For PL-2 or PL-1 project only the ww|wr or ww relationships.\n\
CALL gds.graph.project('g', 'txn', ['ww', 'wr', 'rw']);\n\
CALL gds.scc.stream('g', {})\nYIELD nodeId, componentId\nWITH componentId, collect(gds.util.asNode(nodeId).txnId) AS ns, count(nodeId) AS num\n\
WHERE num > 1\nRETURN ns;\n";

const ARANGO_GRAPH: &str = "// arangosh: the named graph the queries traverse (thesis: txn_g over txn and dep).\n\
var graph_module = require('@arangodb/general-graph');\n\
graph_module._create('txn_g', [graph_module._relation('dep', ['txn'], ['txn'])]);\n";
