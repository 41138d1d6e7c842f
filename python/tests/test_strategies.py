"""grail.check_strategy: GRAIL's checkers (dfs, shortest-path, gabow) beside the default engine,
compared with the CLI's `grail check --strategy S --json`."""

from __future__ import annotations

import json
import subprocess
from typing import Any, Dict

import pytest
from conftest import CASES

import grail

LONG_FORK = CASES / "G-nonadjacent" / "long-fork.edn"


def cli_strategy(cli: str, path: str, *args: str) -> Dict[str, Any]:
    out = subprocess.run([cli, "check", path, *args, "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "strategy,args",
    [
        ("dfs", ()),
        ("dfs", ("--max-depth", "2")),
        ("shortest-path", ()),
        ("gabow", ()),
    ],
)
def test_equals_cli(cli, strategy, args):
    depth = int(args[1]) if args else None
    r = grail.check_strategy(LONG_FORK, strategy, max_depth=depth)
    assert r.to_dict() == cli_strategy(cli, str(LONG_FORK), "--strategy", strategy, *args)
    assert r.strategy == strategy
    assert json.loads(r.to_json()) == r.to_dict()


def test_history_method_and_levels(cli):
    h = grail.read(LONG_FORK)
    r = h.check_strategy("gabow", levels=["SI", "PL-2"])
    assert list(r.levels) == ["SI", "PL-2"]
    assert r.to_dict() == cli_strategy(cli, str(LONG_FORK), "--strategy", "gabow", "--levels", "SI,PL-2")
    assert r == grail.check_strategy(h, "gabow", levels="SI,PL-2")


def test_long_fork_verdicts_agree_with_the_default_engine():
    expected = {name: lv.verdict for name, lv in grail.check(LONG_FORK).levels.items()}
    for s in ("gabow", "shortest-path"):
        r = grail.check_strategy(LONG_FORK, s)
        for level, verdict in expected.items():
            if verdict in ("holds", "violated"):
                assert r.levels[level] == verdict, (s, level)
        for level, verdict in r.levels.items():
            cyc = r.cycles[level]
            assert (cyc is not None) == (verdict == "violated")
        assert r.traversals > 0 and r.edges_visited > 0
        assert set(r.counters["SER"]) == {"traversals", "edges_visited"}


def test_depth_two_is_not_detected():
    r = grail.check_strategy(LONG_FORK, "dfs", max_depth=2)
    assert r.max_depth == 2
    assert set(r.levels.values()) == {"not-detected"}
    assert r.valid is None
    assert any("not detected" in n for n in r.notes)
    # The long fork's cycle has four transactions: depth 4 finds it.
    deep = grail.check_strategy(LONG_FORK, "dfs", max_depth=4)
    assert deep.levels["SER"] == "violated"
    assert deep.valid is False
    assert deep.cycles["SER"] is not None and len(deep.cycles["SER"][0]) == 4
    assert "max depth 4" in repr(deep)


def test_default_is_scc():
    r = grail.check_strategy(LONG_FORK)
    assert r.strategy == "scc" and r.max_depth is None
    assert r.traversals == 0


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"strategy": "bogus"}, "unknown strategy \"bogus\": expected scc, dfs, shortest-path or gabow"),
        ({"strategy": "gabow", "max_depth": 3}, "applies to the dfs strategy only"),
        ({"strategy": "dfs", "max_depth": 1}, "at least 2"),
        ({"strategy": "dfs", "max_depth": -1}, "max_depth must be an int"),
        ({"strategy": "gabow", "levels": ["XYZ"]}, "XYZ"),
    ],
)
def test_bad_arguments_raise_usage_error(kwargs, message):
    with pytest.raises(grail.UsageError) as e:
        grail.check_strategy(LONG_FORK, **kwargs)
    assert isinstance(e.value, grail.GrailError)
    assert e.value.kind == "usage"
    assert message in str(e.value)


def test_strategy_must_be_a_string():
    with pytest.raises(TypeError):
        grail.check_strategy(LONG_FORK, 3)  # type: ignore[arg-type]


def test_names_are_exported():
    assert grail.STRATEGIES == ("scc", "dfs", "shortest-path", "gabow")
    for s in grail.STRATEGIES:
        assert grail.check_strategy(LONG_FORK, s).strategy == s
