"""The conformance cases of tests/cases, run through Python: the same verdicts as the expected
files, and the same report as the CLI's JSON."""

from __future__ import annotations

import json

import pytest
from conftest import CASES, conformance_cases, run_cli

import grail

CASE_PARAMS = conformance_cases()


def test_cases_exist():
    assert len(CASE_PARAMS) >= 15, f"only {len(CASE_PARAMS)} conformance cases under {CASES}"


@pytest.mark.parametrize("history,log,expected", CASE_PARAMS)
def test_case_verdicts(history, log, expected):
    report = grail.check(history, wal=log, levels=list(expected["levels"]))
    got_levels = {name: lv.verdict for name, lv in report.levels.items()}
    assert got_levels == expected["levels"]
    got_anomalies = sorted({a.type for a in report.anomalies})
    assert got_anomalies == sorted(expected["anomalies"])
    # The level objects agree with the dict form and with report.valid.
    d = report.to_dict()
    for name, lv in report.levels.items():
        assert d["levels"][name]["verdict"] == lv.verdict
        assert lv.valid == {"holds": True, "violated": False, "unknown": None}[lv.verdict]
        assert (lv.verdict == "violated") == bool(lv.anomalies)
    verdicts = set(got_levels.values())
    by_levels = False if "violated" in verdicts else None if "unknown" in verdicts else True
    # One rule in the three runners: `valid` from the expected file when it gives one (broken
    # assumptions), else False if a level is violated, None if one is unknown, else True.
    assert report.valid == expected.get("valid", by_levels)
    assert (report.valid is False) >= bool(report.broken_assumptions)


@pytest.mark.parametrize("history,log,expected", CASE_PARAMS)
def test_case_same_report_as_cli(cli, history, log, expected):
    levels = list(expected["levels"])
    args = [str(history), "--levels", ",".join(levels)] + (["--wal", str(log)] if log else [])
    assert grail.check(history, wal=log, levels=levels).to_dict() == run_cli(cli, *args)


@pytest.mark.parametrize("history,log,expected", CASE_PARAMS)
def test_case_every_input_form_agrees(history, log, expected):
    """A path, a str path, text, bytes and a reused History give one report."""
    wal_text = log.read_text() if log else None
    by_path = grail.check(history, wal=log).to_json()
    assert grail.check(str(history), wal=str(log) if log else None).to_json() == by_path
    assert grail.check(history.read_bytes(), wal=log.read_bytes() if log else None).to_json() == by_path
    assert grail.check(history.read_text(), wal=wal_text).to_json() == by_path
    h = grail.read(history, wal=log)
    assert h.check().to_json() == by_path
    assert h.check().to_json() == by_path  # the cached graph gives the same report


def test_every_anomaly_kind_has_a_case():
    seen = set()
    for p in CASES.glob("*/*.expected.json"):
        seen.update(json.loads(p.read_text())["anomalies"])
    assert set(grail._grail.ANOMALY_KINDS) <= seen


def test_explain_is_the_cli_text(cli):
    import subprocess

    history = CASES / "G-single" / "lost-update.edn"
    out = subprocess.run([cli, "check", str(history)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert grail.check(history).explain() == out.stdout
    assert "G-single" in out.stdout
