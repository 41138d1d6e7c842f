"""pandas and networkx interop (optional extras, imported lazily)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import CASES, CORPUS, need

import grail

pd = pytest.importorskip("pandas")
nx = pytest.importorskip("networkx")


def test_extras_are_imported_lazily():
    code = "import sys, grail; grail.check('{:type :ok, :value [[:w :x 1]]}'); print('pandas' in sys.modules, 'networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_history_to_pandas():
    h = grail.read(CASES / "G-single" / "lost-update.edn")
    df = h.to_pandas()
    assert list(df.columns) == ["txn", "status", "process", "invoke_time", "complete_time", "op", "f", "key", "value"]
    assert len(df) == 5  # micro-operations of the three transactions
    assert df["txn"].tolist() == [2, 2, 3, 3, 5]
    assert df["f"].tolist() == ["r", "append", "r", "append", "r"]
    assert df["value"].tolist() == [[], 1, [], 2, [2]]
    assert df["process"].tolist() == [0, 0, 1, 1, 2]
    assert str(df["process"].dtype) == "Int64"
    assert set(df["status"]) == {"committed"}


def test_history_to_pandas_register_nil():
    h = grail.read([{"id": 7, "status": "aborted", "ops": [["r", 1, None], ["w", 1, 5]]}])
    df = h.to_pandas()
    assert df["value"].tolist() == [None, 5]
    assert df["key"].tolist() == [1, 1]
    assert df["process"].isna().all()
    assert df["status"].tolist() == ["aborted", "aborted"]


def test_edges_frame():
    r = grail.check(CASES / "G2-item" / "write-skew.edn")
    df = r.edges_frame()
    assert list(df.columns) == [
        "cycle", "anomaly", "name", "step", "from", "to", "type", "key", "from_op", "to_op", "why", "certain"
    ]
    steps = [s for c in r.cycles for s in c.steps]
    assert len(df) == len(steps) > 0
    assert df["type"].tolist() == [s.type for s in steps]
    assert df["from"].tolist() == [s.from_ for s in steps]
    assert df["why"].tolist() == [s.why for s in steps]
    assert grail.check(CASES / "valid" / "serial.edn").edges_frame().empty


def test_levels_frame_and_chosen_steps():
    # Registers without a version order: SER is violated through one chosen order of x.
    h = grail.read(
        "{:index 0, :type :ok, :value [[:w :x 1] [:w :z 1]]}\n"
        "{:index 1, :type :ok, :value [[:w :x 2] [:w :y 2]]}\n"
        "{:index 2, :type :ok, :value [[:r :x 1] [:r :y 2]]}\n"
        "{:index 3, :type :ok, :value [[:r :x 2] [:r :z 1]]}\n"
    )
    r = h.check(levels="all")
    df = r.levels_frame()
    assert df["level"].tolist() == list(r.levels)
    ser = df.set_index("level").loc["SER"]
    assert (ser["verdict"], ser["valid"]) == ("violated", False) and "G-single" in ser["anomalies"]
    assert df.set_index("level").loc["PL-2", "verdict"] == "holds"
    edges = r.edges_frame()
    assert False in edges["certain"].tolist() and True in edges["certain"].tolist()


def test_graph_to_networkx():
    h = grail.read(CASES / "G-single" / "lost-update.edn")
    g = h.graph()
    G = g.to_networkx()
    assert isinstance(G, nx.MultiDiGraph)
    assert sorted(G.nodes) == sorted(g.vertices) == [2, 3, 5]
    assert G.number_of_edges() == len(g) == len(g.edges())
    for u, v, k, data in G.edges(keys=True, data=True):
        assert set(data) == {"type", "key", "values", "from_op", "to_op", "why"}
        assert k == (data["type"], data["key"])
        assert data["type"] in ("ww", "wr", "rw")
        assert len(data["values"]) == 2
    # T3 appended 2 and T5 read [2]: a wr edge whose values are the version 2 at both ends.
    wr = G.get_edge_data(3, 5, key=("wr", "x"))
    assert wr["values"] == (2, 2)
    assert wr["to_op"] == "[:r x [2]]"
    # T2 read [] and T3 appended 2 afterwards: an rw edge from "no version" to 2.
    rw = G.get_edge_data(2, 3, key=("rw", "x"))
    assert rw["values"] == (None, 2)
    assert G.nodes[2]["status"] == "committed"
    assert G.nodes[2]["process"] == 0
    assert G.graph["model"] == "list-append"
    # networkx finds the same cycle grail reports.
    assert nx.is_directed_acyclic_graph(G) is False
    cycle_txns = set(grail.check(h).levels["SER"].cycles[0].txns)
    assert any(set(c) == cycle_txns for c in nx.simple_cycles(nx.DiGraph(G)))


def test_graph_stats_match_edges():
    path = need(CORPUS / "grail" / "anti-patterns" / "lost-update" / "history.edn.gz", "lost-update history")
    h = grail.read(path)
    g = h.graph()
    stats = g.stats
    assert stats == h.check(levels="PL-1").stats
    frame = g.to_pandas()
    assert len(frame) == len(g)
    distinct = frame[["from", "to", "type"]].drop_duplicates()
    assert len(distinct) == stats.edges
    for ty in ("ww", "wr", "rw"):
        assert (distinct["type"] == ty).sum() == getattr(stats, ty)
    assert len(g.vertices) == stats.vertices
    G = g.to_networkx()
    assert G.number_of_nodes() == stats.vertices
    assert G.number_of_edges() == len(frame)
