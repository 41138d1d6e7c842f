"""Shared paths and fixtures: the repository, its conformance cases, the corpus, the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "cases"
# The corpus lives beside the checkout (../shared/corpus), never inside it; GRAIL_CORPUS
# points elsewhere.
CORPUS = Path(os.environ.get("GRAIL_CORPUS") or REPO.parent / "shared" / "corpus")
IN_CI = os.environ.get("CI", "").lower() == "true"


def need(path: Path, what: str) -> Path:
    """Skip when a shared file is absent, except in CI (CI=true), where that fails."""
    if not path.exists():
        msg = f"{what} not found at {path} (the corpus is expected at ../shared/corpus beside the checkout)"
        if IN_CI:
            pytest.fail(msg + "; CI=true, so this is a failure")
        pytest.skip(msg)
    return path


def cli_path() -> Optional[str]:
    env = os.environ.get("GRAIL_CLI")
    if env:
        return env if Path(env).exists() else None
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for p in (target / "release" / "grail", REPO / "target" / "release" / "grail"):
        if p.exists():
            return str(p)
    return shutil.which("grail")


@pytest.fixture(scope="session")
def cli() -> str:
    """The grail CLI binary (scripts/test-python.sh builds it and sets GRAIL_CLI)."""
    path = cli_path()
    if path is None:
        msg = "the grail CLI is not built (cargo build --release -p grail-cli, or set GRAIL_CLI)"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    return path


def run_cli(cli: str, *args: str) -> Dict[str, Any]:
    """`grail check ... --json`, parsed (exit 0 or 1 are verdicts, 2 is an error)."""
    out = subprocess.run([cli, "check", *args, "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), f"grail CLI failed ({out.returncode}): {out.stderr}"
    return json.loads(out.stdout)


def conformance_cases():
    """Every case of tests/cases: (id, history path, log path or None, expected)."""
    cases = []
    for expected in sorted(CASES.glob("*/*.expected.json")):
        stem = expected.name[: -len(".expected.json")]
        histories = [p for p in (expected.with_name(stem + ".edn"), expected.with_name(stem + ".json")) if p.exists()]
        assert len(histories) == 1, f"{expected}: expected exactly one history beside it, found {histories}"
        log = expected.with_name(stem + ".log")
        cases.append(
            pytest.param(
                histories[0],
                log if log.exists() else None,
                json.loads(expected.read_text()),
                id=f"{expected.parent.name}/{stem}",
            )
        )
    return cases
