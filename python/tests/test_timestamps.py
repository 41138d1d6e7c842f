"""White-box orders (issue 18): start/commit timestamps, a claimed commit order, TimeKiller's
format and the online checker with timestamps, through the Python package."""

from __future__ import annotations

import pytest
from conftest import CASES, run_cli

import grail

TK = [
    {"tid": 1, "sid": 1, "sts": {"p": "100", "l": 0}, "cts": {"p": "101", "l": 0},
     "ops": [{"t": "r", "k": 1, "v": 0}, {"t": "w", "k": 1, "v": 10}]},
    {"tid": 2, "sid": 2, "sts": {"p": 100, "l": 0}, "cts": {"p": 102, "l": 0},
     "ops": [{"t": "r", "k": 1, "v": 0}, {"t": "w", "k": 1, "v": 20}]},
]


def test_timekiller_dicts_and_initial_value():
    h = grail.read(TK, initial_value=0)
    assert h.has_timestamps and h.model == "rw-register"
    r = h.check(levels="SI")
    assert r.levels["SI"].verdict == "violated"
    assert r.white_box["si"] == "full"
    (f,) = [f for f in r.white_box["findings"] if f["type"] == "write-conflict"]
    assert [t["id"] for t in f["txns"]] == [1, 2]
    assert f["txns"][0]["commit_ts"] == 101
    assert "T1 (start 100, commit 101) and T2 (start 100, commit 102) both wrote key 1" in f["explanation"]
    # Without TimeKiller's --initial_value 0, the reads of 0 read a value nobody wrote.
    r = grail.check(TK, levels="SI")
    assert any(a.type == "garbage-read" for a in r.anomalies)


def test_white_box_modes():
    text = """{"transactions": [
      {"id": 1, "session": 1, "ops": [["append", "x", 1]], "start_ts": 1, "commit_ts": 2},
      {"id": 2, "session": 2, "ops": [["r", "x", []]], "start_ts": 3, "commit_ts": 4}]}"""
    assert grail.check(text, white_box="ignore").white_box is None
    assert grail.check(text, white_box="ignore").levels["SI"].valid is True
    r = grail.check(text, white_box="auto")
    assert r.levels["SI"].valid is False
    assert "snapshot-read" in r.levels["SI"].anomalies
    only = grail.check(text, white_box="only", levels=["SI", "PSI"])
    assert only.levels["SI"].verdict == "violated" and only.levels["PSI"].verdict == "unknown"
    assert only.stats.edges == 0
    assert "white-box: SI full" in r.explain()
    with pytest.raises(grail.UsageError):
        grail.check(text, white_box="sometimes")


def test_claimed_steps_are_marked():
    r = grail.check(CASES / "timestamps" / "mixed-claimed.json")
    (c,) = [c for c in r.levels["SI"].cycles if c.anomaly == "G-single-claimed"]
    assert [s.claimed for s in c.steps].count(True) == 1
    assert all(s.certain is None for s in c.steps)
    claimed = next(s for s in c.steps if s.claimed)
    assert claimed.type == "rt" and "claimed timestamps" in claimed.why


def test_same_report_as_the_cli_with_claims_only(cli):
    path = CASES / "timestamps" / "timekiller-list.json"
    assert grail.check(path, white_box="only", levels="SI,SER").to_dict() == run_cli(
        cli, str(path), "--white-box", "only", "--levels", "SI,SER"
    )


def test_bad_timestamps_have_a_place():
    with pytest.raises(grail.HistoryError) as e:
        grail.read('[\n{"tid": 1, "sid": 1, "sts": {"p": 5, "l": 0}, "cts": {"p": 4, "l": 0}, "ops": []}]')
    assert (e.value.line, e.value.column) == (2, 1)
    assert "after the commit timestamp" in str(e.value)
    with pytest.raises(grail.UsageError):
        grail.read('{:type :ok, :value []}', initial_value=0)


def test_online_with_timestamps():
    oc = grail.TimestampOnlineChecker(window=2, level="SI")
    txns = [
        {"id": 1, "session": 1, "start_ts": 1, "commit_ts": 2, "ops": [["w", "x", 1]]},
        {"id": 2, "session": 1, "start_ts": 1, "commit_ts": 4, "ops": [["r", "x", None]]},
        {"tid": 3, "sid": 2, "sts": {"p": 5, "l": 0}, "cts": {"p": 6, "l": 0}, "ops": [{"t": "r", "k": "x", "v": None}]},
    ]
    found = list(oc.feed(txns))
    assert [v["type"] for v in found] == ["session-order", "snapshot-read"]
    assert found[1]["txns"] == [3] and found[1]["expected"] == 1
    assert oc.stats["transactions"] == 3 and oc.stats["peak_live"] <= 3
    with pytest.raises(grail.UsageError):
        grail.TimestampOnlineChecker(level="PSI")


def test_docs_python_example_runs_and_gives_what_its_comments_say(monkeypatch):
    import re

    from conftest import REPO

    doc = (REPO / "docs" / "timestamps.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", doc, re.S)
    monkeypatch.chdir(REPO)
    env: dict = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  # ")
        if not comment:
            exec(code, env)
            continue
        assert repr(eval(code, env)) == comment.strip(), line
        checked += 1
    assert checked == 5
