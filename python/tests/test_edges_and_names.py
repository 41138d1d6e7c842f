"""Issue 33's edges: a string key keeps its quotes in explanations, the graph's edge list and
``stats.edges`` relate as their docs say, and the analysis says what its classes classify."""

from __future__ import annotations

import dataclasses

import grail

# A lost update on the string key "a b".
QUOTED = """
{:index 0, :type :ok, :process 0, :value [[:r "a b" nil] [:append "a b" 1]]}
{:index 1, :type :ok, :process 1, :value [[:r "a b" nil] [:append "a b" 2]]}
{:index 2, :type :ok, :process 2, :value [[:r "a b" [2 1]]]}
"""


def test_an_explanation_quotes_a_string_key_with_a_space():
    r = grail.check(QUOTED)
    c = r.cycles[0]
    assert '[:append "a b" 1]' in c.explanation
    assert 'key "a b"' in c.explanation
    assert "[:r a b" not in c.explanation
    assert all('"a b"' in s.from_op.op for s in c.steps)


def test_graph_edges_and_stats_edges_relate_as_documented():
    # Writers appending to the same keys, readers of growing prefixes, one lost update.
    lines, seen = [], {"x": [], "y": [], "z": []}
    for i in range(1, 40):
        keys = ["x", "y", "z"][: 1 + i % 3]
        for k in keys:
            seen[k].append(str(i))
        ops = " ".join(f"[:append {k} {i}]" for k in keys)
        lines.append(f"{{:type :ok, :value [{ops}]}}")
        reads = " ".join(f"[:r {k} [{' '.join(v)}]]" for k, v in seen.items())
        lines.append(f"{{:type :ok, :value [{reads}]}}")
    lines.append("{:type :ok, :value [[:r w []] [:append w 1]]}")
    lines.append("{:type :ok, :value [[:r w []] [:append w 2]]}")
    lines.append("{:type :ok, :value [[:r w [2 1]]]}")
    h = grail.read("\n".join(lines))
    g = h.graph()
    edges = g.edges()
    triples = {(e["from"], e["to"], e["type"]) for e in edges if e["type"] in ("ww", "wr", "rw")}
    s = g.stats
    assert s.edges == len(triples) == s.ww + s.wr + s.rw
    for ty in ("ww", "wr", "rw"):
        assert getattr(s, ty) == len({(f, t) for f, t, y in triples if y == ty})
    # One edge per key: more than the triples on this history (few keys, many transactions).
    assert len(g) == len(edges) > s.edges
    assert h.check().stats.edges >= s.edges
    assert "(from, to, type, key)" in (type(g).__len__.__doc__ or "")
    assert "once per (from, to, type)" in (grail.Stats.__doc__ or "")


def test_the_analysis_says_why_a_counterexample_is_named_otherwise():
    history = """{"transactions": [
      {"id": 1, "session": 1, "ops": [["w", "x", 0]]},
      {"id": 2, "session": 2, "ops": [["r", "x", 0], ["w", "x", 1]]},
      {"id": 3, "session": 3, "ops": [["r", "x", 0], ["w", "x", 2]]}]}"""
    r = grail.check(history, levels="all", analyze=True)
    named = {c.anomaly for c in r.cycles if sorted(c.txns) == [2, 3]}
    counted = {e["adya"] for e in r.analysis.to_dict()["examples"] if sorted(e["txns"]) == [2, 3]}
    assert "G-single" in named and counted == {"G2-item"}
    assert "chosen" in r.analysis.basis and "no version order" in r.analysis.basis


def test_one_spelling_of_an_edges_ends():
    # Data says "from" and "to" (the JSON, dicts, DataFrame columns); an attribute cannot be
    # named `from` (a Python keyword), so Step's is `from_`, and only that.
    r = grail.check(QUOTED, levels="all")
    h = grail.read(QUOTED)
    step = r.cycles[0].steps[0]
    ends = {"from", "to"}
    others = {"from_", "source", "src", "frm", "target", "dst", "u", "v"}
    tables = {
        "Report.to_dict() steps": set(r.to_dict()["anomalies"][0]["cycle"]["steps"][0]),
        "Report.certificate steps": set(r.certificate["counterexamples"][0]["steps"][0]),
        "Report.edges_frame()": set(r.edges_frame().columns),
        "Graph.edges()": set(h.graph().edges()[0]),
        "Graph.to_pandas()": set(h.graph().to_pandas().columns),
    }
    for where, names in tables.items():
        assert ends <= names and not names & others, (where, names)
    fields = {f.name for f in dataclasses.fields(step)}
    assert {"from_", "to"} <= fields and not fields & (others - {"from_"}) and "from" not in fields
    frame = r.edges_frame()
    assert (frame["from"][0], frame["to"][0]) == (step.from_, step.to)
    assert "``from_``" in (grail.Step.__doc__ or "") and '"from"' in (grail.Step.__doc__ or "")
