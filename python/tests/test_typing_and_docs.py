"""Stubs checked against the compiled module (mypy.stubtest), the package's types seen by a
user's mypy run (py.typed), and every docstring example run (doctest)."""

from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from conftest import REPO

import grail

MYPY_CONFIG = REPO / "python" / "pyproject.toml"


def run_mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy")
    return subprocess.run(
        # mypy itself writes no cache; stubtest runs in a temporary folder.
        [sys.executable, "-m", *args, *(["--cache-dir", os.devnull] if args[0] == "mypy" else [])],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def test_stubtest(tmp_path):
    allowlist = Path(__file__).with_name("stubtest-allowlist.txt")
    out = run_mypy(
        "mypy.stubtest", "grail", "--mypy-config-file", str(MYPY_CONFIG), "--allowlist", str(allowlist), cwd=tmp_path
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_package_is_strictly_typed():
    out = run_mypy("mypy", "--strict", "--no-incremental", "--config-file", str(MYPY_CONFIG), "grail", cwd=REPO / "python")
    assert out.returncode == 0, out.stdout + out.stderr


USER_CODE = '''
from pathlib import Path
from typing import List, Optional
import grail

report: grail.Report = grail.check(Path("h.edn"), levels=["SER", "SI"], budget=1.5)
valid: Optional[bool] = report.valid
level: grail.LevelResult = report.levels["SER"]
steps = [(s.from_, s.to, s.type) for c in level.cycles for s in c.steps]
weakest: List[grail.Level] = report.weakest_violated
stronger = [report.levels[name] for name in report.also_violated if name in report.levels]
h: grail.History = grail.read(b"...", wal="log", format="edn")
n: int = len(h)
graph: grail.Graph = h.graph()
density: float = graph.stats.density
try:
    grail.read("x")
except grail.HistoryError as e:
    line: Optional[int] = e.line
'''


def test_user_code_type_checks(tmp_path):
    (tmp_path / "user.py").write_text(USER_CODE)
    out = run_mypy("mypy", "--strict", "--no-incremental", "user.py", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    # The types are really seen: a misuse is caught.
    (tmp_path / "wrong.py").write_text(
        USER_CODE
        + "\nwrong: int = report.valid\nlen(report.levels['SER'].cycles[0].txns.upper())\n"
        + "report.weakest_violated.append('Serializable')\n"
    )
    out = run_mypy("mypy", "--strict", "--no-incremental", "wrong.py", cwd=tmp_path)
    assert out.returncode == 1
    assert 'Incompatible types in assignment (expression has type "bool | None"' in out.stdout
    assert "has no attribute \"upper\"" in out.stdout
    # The level names are a Literal type: a name no report gives is caught.
    assert 'Argument 1 to "append" of "list" has incompatible type "Literal[\'Serializable\']"' in out.stdout


def test_level_type_names_every_level():
    assert typing.get_args(grail.Level) == grail.ALL_LEVELS
    assert "weakest_violated" in (grail.Level.__doc__ or "")


MODULES = ["grail", "grail._errors", "grail._history", "grail._page", "grail._report", "grail._strategy"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, verbose=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0


def test_public_names_have_docstrings():
    for name in grail.__all__:
        obj = getattr(grail, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__.strip()) > 20, name
