"""Anomaly analysis from Python: counts by class as DataFrames, the same numbers as the CLI,
and the online checker fed from a generator."""

from __future__ import annotations

import json
import subprocess

import pytest

import grail

LOST_UPDATES = """
{:type :ok, :f :deposit, :value [[:r :x []] [:append :x 1]]}
{:type :ok, :f :deposit, :value [[:r :x []] [:append :x 2]]}
{:type :ok, :f :audit, :value [[:r :x [1 2]]]}
{:type :ok, :f :a, :value [[:r :u []] [:r :v []] [:append :u 1]]}
{:type :ok, :f :b, :value [[:r :u []] [:r :v []] [:append :v 1]]}
{:type :ok, :f :audit, :value [[:r :y []] [:r :y [1]]]}
{:type :ok, :f :deposit, :value [[:append :y 1]]}
"""


def test_analysis_is_absent_unless_asked():
    r = grail.check(LOST_UPDATES)
    assert r.analysis is None
    assert "analysis" not in r.to_dict()
    with pytest.raises(grail.UsageError):
        r.class_counts_frame()


def test_counts_by_class_length_and_pattern():
    r = grail.check(LOST_UPDATES, analyze=True)
    a = r.analysis
    assert a is not None and a.complete and a.cycles == 3
    assert a.count("zellag", "lost update") == 1
    assert a.count("zellag", "write skew") == 1
    assert a.count("zellag", "unrepeatable read") == 1
    assert a.count("ldbc", "IMP") == 1 and a.count("ldbc", "FR") == 1
    assert a.participation == {"transactions": 7, "none": 1, "one": 6, "many": 0}
    assert r.to_dict()["analysis"]["cycles"] == 3
    with pytest.raises(KeyError):
        a.count("zellag", "no such class")


def test_frames():
    pd = pytest.importorskip("pandas")
    r = grail.check(LOST_UPDATES, analyze={"max_length": 4, "examples": 5})
    classes = r.class_counts_frame()
    assert list(classes.columns) == ["scheme", "class", "count", "source"]
    z = classes[classes.scheme == "zellag"].set_index("class")["count"]
    assert z["lost update"] == 1 and z["t-read skew"] == 0
    assert int(classes[classes.scheme == "adya"]["count"].sum()) == 3
    lengths = r.length_counts_frame()
    assert lengths.to_dict("records") == [{"length": 2, "count": 3}]
    pats = r.pattern_counts_frame()
    ordered = pats[pats.ordered].set_index("pattern")["count"].to_dict()
    assert ordered == {"a -> b": 1, "audit -> deposit": 1, "deposit -> deposit": 1}
    unordered = pats[~pats.ordered].set_index("pattern")["count"].to_dict()
    assert unordered["deposit"] == 1 and unordered["a, b"] == 1
    a = r.analysis
    assert a is not None
    assert len(a.cycles_frame()) == 3
    assert set(a.reads_frame()["class"]) == {"IMP", "FR"}
    part = a.participation_frame()
    assert part.loc[0, "one"] == 6 and round(part.loc[0, "none_pct"], 1) == 14.3
    assert isinstance(classes, pd.DataFrame)


def test_bad_analyze_options():
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATES, analyze={"max_lenght": 3})
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATES, analyze="yes")  # type: ignore[arg-type]


def test_same_counts_as_the_cli(cli, tmp_path):
    path = tmp_path / "h.edn"
    path.write_text(LOST_UPDATES)
    out = subprocess.run([cli, "check", str(path), "--analyze", "--json"], capture_output=True, text=True)
    assert json.loads(out.stdout)["analysis"] == grail.check(path, analyze=True).to_dict()["analysis"]


def native_txns(n: int):
    """A generator of native transactions: lost updates on fresh keys every ten transactions."""
    for i in range(n):
        if i % 10 == 0:
            k = f"k{i}"
            yield {"id": 3 * i, "label": "inc", "ops": [["r", k, []], ["append", k, 1]]}
            yield {"id": 3 * i + 1, "label": "inc", "ops": [["r", k, []], ["append", k, 2]]}
            yield {"id": 3 * i + 2, "label": "read", "ops": [["r", k, [1, 2]]]}
        else:
            yield {"id": 3 * i, "ops": [["append", f"f{i}", 1]], "status": "committed"}


def test_online_checker_from_a_generator():
    oc = grail.OnlineChecker(window=50, max_length=4)
    found = list(oc.feed(native_txns(200)))
    assert len(found) == 20
    assert all(a["labels"] == ["inc", "inc"] for a in found)
    assert all(a["closed_by"] == a["txns"][0] or a["closed_by"] in a["txns"] for a in found)
    s = oc.stats
    assert s["cycles"] == 20 and s["peak_live"] <= 50 and s["transactions"] == 240
    assert oc.memory_estimate() > 0
    pytest.importorskip("pandas")
    ldbc = oc.classes_frame().query("scheme == 'ldbc'").set_index("class")["count"]
    assert ldbc["LU"] == 20


def test_online_checker_add_and_errors():
    oc = grail.OnlineChecker()
    assert oc.add({"ops": [["append", "x", 1]]}) == []
    # Register operations after list appends: a stream keeps to one data model.
    with pytest.raises(grail.HistoryError, match="one data model"):
        oc.add({"ops": [["r", "x", 5]]})
    with pytest.raises(grail.HistoryError, match="one data model"):
        oc.add({"ops": [["w", "x", 5]]})
    with pytest.raises(grail.UsageError):
        grail.OnlineChecker(window=0)
    assert "OnlineChecker" in repr(oc)


def test_online_notes_evictions():
    oc = grail.OnlineChecker(window=5)
    oc.add({"ops": [["r", "x", []], ["append", "x", 1]]})
    for i in range(10):
        oc.add({"ops": [["append", f"f{i}", 1]]})
    oc.add({"ops": [["r", "x", []], ["append", "x", 2]]})
    assert oc.add({"ops": [["r", "x", [1, 2]]]}) == []
    assert any("left the window" in n for n in oc.notes)


def test_docs_python_example_runs(monkeypatch):
    import re

    from conftest import REPO

    doc = (REPO / "docs" / "analysis.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert blocks, "docs/analysis.md has a Python example"
    monkeypatch.chdir(REPO)
    for code in blocks:
        exec(compile(code, "docs/analysis.md", "exec"), {})
