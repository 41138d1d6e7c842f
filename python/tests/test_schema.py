"""Python's report classes checked against core's JSON Schema (``_grail.report_schema()``,
derived from the Rust report types): a field added to, renamed in or dropped from the report
fails here until the Python classes follow."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, Set

import pytest

import grail
from grail import _grail
from grail._analysis import Analysis
from grail._report import Anomaly, Cycle, ForcedOrder, LevelResult, OpRef, OtherOrder, Report, Stats, Step


@pytest.fixture(scope="module")
def schema() -> Dict[str, Any]:
    s: Dict[str, Any] = json.loads(_grail.report_schema())
    return s


def props(schema: Dict[str, Any], name: str) -> Set[str]:
    d = schema if name == "Report" else schema["$defs"][name]
    found = set(d.get("properties", {}))
    assert found, f"no properties for {name} in the schema"
    return found


def py_fields(cls: type) -> Set[str]:
    # ``from_`` stands for the JSON's ``from`` (a Python keyword); a private field (``_native``,
    # the report a cycle is drawn from) is not data.
    return {f.name.rstrip("_") for f in dataclasses.fields(cls) if not f.name.startswith("_")}


# Python class -> (schema definition, fields Python adds that the JSON keys it by instead).
DATACLASSES = [
    (OpRef, "OpRef", set()),
    (Step, "Step", set()),
    (Cycle, "CycleReport", set()),
    (OtherOrder, "OtherOrder", set()),
    (ForcedOrder, "ForcedOrder", set()),
    (LevelResult, "LevelReport", {"name"}),  # the level's name is the key of `levels`
    (Anomaly, "AnomalyReport", set()),
    (Stats, "Stats", set()),
]


@pytest.mark.parametrize("cls,definition,extra", DATACLASSES, ids=[c[1] for c in DATACLASSES])
def test_dataclasses_have_exactly_the_schemas_fields(
    schema: Dict[str, Any], cls: type, definition: str, extra: Set[str]
) -> None:
    assert py_fields(cls) - extra == props(schema, definition), cls.__name__


def test_report_exposes_every_top_level_field(schema: Dict[str, Any]) -> None:
    missing = {p for p in props(schema, "Report") if not isinstance(getattr(Report, p, None), property)}
    assert not missing, f"Report has no property for {sorted(missing)}"


def test_analysis_exposes_every_section(schema: Dict[str, Any]) -> None:
    # Scalars are properties; lists of rows are DataFrames whose columns are the rows' fields.
    frames = {"classes": "classes_frame", "lengths": "lengths_frame", "patterns": "patterns_frame",
              "examples": "cycles_frame", "reads": "reads_frame"}
    for p in props(schema, "Analysis"):
        where = frames.get(p, p)
        assert hasattr(Analysis, where), f"Analysis has no {where} for {p}"


def test_a_real_report_matches_the_schema(schema: Dict[str, Any]) -> None:
    # Every key of a report with cycles, findings, spans and an analysis is in the schema, so the
    # classes above cover what reports really hold.
    r = grail.check(
        "{:type :ok, :value [[:r :x []] [:append :x 1]]}\n"
        "{:type :ok, :value [[:r :x []] [:append :x 2]]}\n"
        "{:type :fail, :value [[:append :y 9]]}\n"
        "{:type :ok, :value [[:r :x [2]] [:r :y [9]]]}\n",
        levels="all",
        analyze=True,
    )
    d = r.to_dict()
    assert set(d) <= props(schema, "Report")
    for c in r.cycles:
        assert {f.name for f in dataclasses.fields(c)} >= {"anomaly", "steps"}
    step = d["levels"]["SER"]["cycles"][0]["steps"][0]
    assert set(step) <= props(schema, "Step")
    assert set(step["from_op"]) <= props(schema, "OpRef")
    assert step["from_op"]["kind"] in ("r", "append")
    finding = next(a for a in d["anomalies"] if a["type"] == "G1a")
    assert set(finding) <= props(schema, "AnomalyReport")
    # The typed operation made it through the Python class too.
    op = next(a for a in r.anomalies if a.type == "G1a").ops[0]
    assert (op.kind, op.key, op.value) == ("append", "y", 9)
