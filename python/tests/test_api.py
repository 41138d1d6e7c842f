"""The Python API: inputs, options, the report's views, errors with positions."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

import pytest
from conftest import CASES, CORPUS, need

import grail

LOST_UPDATE = """\
{:index 0, :type :invoke, :process 0, :value [[:r x nil] [:append x 1]]}
{:index 1, :type :invoke, :process 1, :value [[:r x nil] [:append x 2]]}
{:index 2, :type :ok, :process 0, :value [[:r x []] [:append x 1]]}
{:index 3, :type :ok, :process 1, :value [[:r x []] [:append x 2]]}
{:index 4, :type :invoke, :process 2, :value [[:r x nil]]}
{:index 5, :type :ok, :process 2, :value [[:r x [2]]]}
"""

NATIVE_LOST_UPDATE = [
    {"id": 1, "session": 0, "status": "committed", "ops": [["r", "x", []], ["append", "x", 1]]},
    {"id": 2, "session": 1, "status": "committed", "ops": [["r", "x", []], ["append", "x", 2]]},
    {"id": 3, "session": 2, "status": "committed", "ops": [["r", "x", [2]]]},
]

EXPECTED_LOST_UPDATE = {"SER": "violated", "SI": "violated", "PSI": "violated", "PL-2": "holds", "PL-1": "holds"}


def verdicts(report):
    return {name: lv.verdict for name, lv in report.levels.items()}


# --- inputs ----------------------------------------------------------------------------------


def test_text_input():
    r = grail.check(LOST_UPDATE)
    assert verdicts(r) == EXPECTED_LOST_UPDATE
    assert r.valid is False
    assert r.model == "list-append"


def test_native_list_of_dicts():
    r = grail.check(NATIVE_LOST_UPDATE)
    assert verdicts(r) == EXPECTED_LOST_UPDATE
    cycle = r.levels["PSI"].cycles[0]
    assert cycle.anomaly == "G-single"
    assert cycle.name == "lost update"
    assert set(cycle.txns) == {1, 2}


def test_native_dict_with_version_order():
    """A register history whose version order comes with it: x = 1 then 2."""
    txns = [
        {"id": 1, "status": "committed", "ops": [["r", "x", None], ["w", "x", 1]]},
        {"id": 2, "status": "committed", "ops": [["r", "x", None], ["w", "x", 2]]},
    ]
    with_order = grail.read({"transactions": txns, "version_order": {"x": [1, 2]}})
    assert with_order.model == "rw-register"
    assert with_order.has_version_order
    r = with_order.check()
    # Both read the initial value and both wrote: a lost update (G-single).
    assert verdicts(r) == EXPECTED_LOST_UPDATE
    without = grail.read(txns)
    assert not without.has_version_order
    assert with_order.graph().stats.ww == 1
    assert without.graph().stats.ww == 0


def test_tuples_and_dict_rows_are_json():
    as_tuples = [dict(t, ops=[tuple(op) for op in t["ops"]]) for t in NATIVE_LOST_UPDATE]
    assert grail.check(tuple(as_tuples)).to_dict() == grail.check(NATIVE_LOST_UPDATE).to_dict()


def test_paths_bytes_gzip(tmp_path):
    plain = tmp_path / "h.edn"
    plain.write_text(LOST_UPDATE)
    zipped = tmp_path / "h.edn.gz"
    zipped.write_bytes(gzip.compress(LOST_UPDATE.encode()))
    odd_name = tmp_path / "gzipped-without-suffix"
    odd_name.write_bytes(gzip.compress(LOST_UPDATE.encode()))
    want = grail.check(LOST_UPDATE).to_dict()
    for source in (plain, str(plain), zipped, str(zipped), odd_name, LOST_UPDATE.encode(),
                   bytearray(gzip.compress(LOST_UPDATE.encode())), memoryview(LOST_UPDATE.encode())):
        assert grail.check(source).to_dict() == want, source


def test_format_option():
    native_json = json.dumps(NATIVE_LOST_UPDATE)
    assert verdicts(grail.check(native_json, format="json")) == EXPECTED_LOST_UPDATE
    with pytest.raises(grail.HistoryError):
        grail.check(native_json, format="edn")
    with pytest.raises(grail.UsageError) as e:
        grail.check(NATIVE_LOST_UPDATE, format="edn")
    assert e.value.kind == "usage"


def test_dbcop_bincode_bytes_and_directory(tmp_path):
    # dbcop's history.bincode: two sessions each read 1 = 0 (initial) and write it: a lost update.
    u = lambda x: x.to_bytes(8, "little")
    b = b"".join(u(x) for x in (0, 2, 1, 2, 4, 0, 0, 0, 2))
    for v in (1, 2):
        b += u(1) + u(2) + b"\x00" + u(1) + u(0) + b"\x01" + b"\x01" + u(1) + u(v) + b"\x01" + b"\x01"
    (tmp_path / "history.bincode").write_bytes(b)
    for source in (b, tmp_path, str(tmp_path)):
        r = grail.check(source, levels=["SI"])
        assert r.levels["SI"].verdict == "violated", source
    assert grail.read(b, format="dbcop-bin").model == "rw-register"
    with pytest.raises(grail.HistoryError) as e:
        grail.read(b[:100], format="dbcop-bin")
    assert "byte offset" in str(e.value)


def test_missing_file_and_bad_types(tmp_path):
    with pytest.raises(FileNotFoundError):
        grail.check(tmp_path / "absent.edn")
    with pytest.raises(FileNotFoundError) as e:
        grail.check("absent-history.edn")
    assert "not a file" in str(e.value)
    with pytest.raises(TypeError):
        grail.check(42)
    with pytest.raises(TypeError):
        grail.check([{"id": 1, "status": "committed", "ops": [["w", "x", object()]]}])
    with pytest.raises(TypeError):
        grail.read(grail.read(LOST_UPDATE))


def test_empty_history():
    # Nothing committed, nothing proven (issue 33): unknown with the reason, not a pass.
    r = grail.check("")
    assert r.valid is None
    assert r.model == "empty"
    assert r.stats.transactions == 0
    assert all(lv.verdict == "unknown" and "no committed transaction" in lv.reason for lv in r.levels.values())


# --- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", ["SER,PL-2", ["SER", "PL-2"], ("PL-2", "SER"), ["pl2", "serializable"]])
def test_levels_option(levels):
    r = grail.check(LOST_UPDATE, levels=levels)
    assert list(r.levels) == ["SER", "PL-2"]
    assert verdicts(r) == {"SER": "violated", "PL-2": "holds"}
    assert r.to_dict()["levels"].keys() == {"SER", "PL-2"}


def test_only_weak_levels_hold():
    r = grail.check(LOST_UPDATE, levels="PL-2,PL-1")
    assert r.valid is True


def test_bad_options():
    with pytest.raises(grail.UsageError, match="XYZ"):
        grail.check(LOST_UPDATE, levels="SER,XYZ")
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATE, levels=[])
    with pytest.raises(TypeError):
        grail.check(LOST_UPDATE, levels=[1])
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATE, budget=-1)
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATE, budget=float("nan"))
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATE, max_steps=-5)
    with pytest.raises(grail.UsageError):
        grail.check(LOST_UPDATE, max_cycles=0)
    with pytest.raises(grail.UsageError):
        grail.check(grail.read(LOST_UPDATE), wal="{}")


def test_max_steps_zero_leaves_cycle_levels_unknown():
    r = grail.check(LOST_UPDATE, max_steps=0)
    assert r.valid is None
    for lv in r.levels.values():
        assert lv.verdict == "unknown"
        assert lv.valid is None
        assert lv.reason
    assert any("cut short" in n for n in r.notes)


def long_chain(n):
    """A history whose PSI search is quadratic: a chain T1 -wr-> T2 ... -wr-> Tn with a forward
    rw edge beside each wr edge, closed by two adjacent rw edges Tn -> X -> T1. Every cycle
    has two adjacent rw edges: SER is violated (G2-item), SI and PSI hold."""
    txns = []
    for i in range(1, n + 1):
        ops = []
        if i > 1:
            ops += [["r", f"c{i-1}", [1]], ["append", f"d{i-1}", 1], ["r", f"d{i-1}", [1]]]
        ops += [["append", f"c{i}", 1], ["r", f"d{i}", []]]
        if i == 1:
            ops += [["append", "f", 1], ["r", "f", [1]]]
        if i == n:
            ops += [["r", "e", []]]
        txns.append({"id": i, "session": i, "status": "committed", "ops": ops})
    txns.append({"id": n + 1, "status": "committed", "ops": [["append", "e", 1], ["r", "e", [1]], ["r", "f", []]]})
    return txns


def test_budget_leaves_levels_unknown():
    h = grail.read(long_chain(400))
    full = h.check()
    assert verdicts(full) == {"SER": "violated", "SI": "holds", "PSI": "holds", "PL-2": "holds", "PL-1": "holds"}
    assert full.levels["SER"].cycles[0].anomaly == "G2-item"
    assert not any("cut short" in n for n in full.notes)
    # A budget of 0 s runs out at the first poll of the clock, in the search for SER's shortest
    # cycle (every cycle here is long): what was decided keeps its verdict, the rest is unknown
    # with a reason, and the cycle found is a real one, not claimed minimal.
    cut = h.check(budget=0)
    assert any("time budget" in n for n in cut.notes)
    for name, lv in cut.levels.items():
        assert lv.verdict in (full.levels[name].verdict, "unknown")
        assert lv.verdict != "unknown" or lv.reason
    assert cut.levels["PL-1"].verdict == "holds"
    assert cut.levels["SER"].cycles[0].minimal is False
    # A step budget cuts the detection itself: levels become unknown, never guessed.
    few = h.check(max_steps=1000)
    assert {"SER", "SI", "PSI"} <= {name for name, lv in few.levels.items() if lv.verdict == "unknown"}
    assert few.valid is None
    # A generous budget decides everything.
    assert h.check(budget=3600).to_dict() == full.to_dict()


def test_max_cycles():
    # Two disjoint lost updates: one cycle per strongly connected component.
    two = [dict(t, ops=[[f, "y", v] for f, _, v in t["ops"]], id=t["id"] + 10) for t in NATIVE_LOST_UPDATE]
    r = grail.check(NATIVE_LOST_UPDATE + two)
    assert len(r.levels["SER"].cycles) == 2
    r1 = grail.check(NATIVE_LOST_UPDATE + two, max_cycles=1)
    assert len(r1.levels["SER"].cycles) == 1


# --- the report --------------------------------------------------------------------------------


def test_report_views_agree_with_dict():
    r = grail.check(CASES / "G2-item" / "write-skew.edn")
    d = r.to_dict()
    assert set(d) == {
        "valid",
        "model",
        "levels",
        "weakest_violated",
        "also_violated",
        "strongest_satisfied",
        "anomalies",
        "stats",
        "notes",
    }
    assert r.valid == d["valid"]
    assert [a.type for a in r.anomalies] == [a["type"] for a in d["anomalies"]]
    assert [a.name for a in r.anomalies] == [a["name"] for a in d["anomalies"]]
    assert r.weakest_violated == d["weakest_violated"] == ["SER"]
    assert r.also_violated == d["also_violated"]
    assert r.strongest_satisfied == d["strongest_satisfied"] == ["SI"]
    assert r.stats.to_dict() == d["stats"]
    assert r.notes == d["notes"]
    for name, lv in r.levels.items():
        dl = d["levels"][name]
        assert lv.name == name
        assert list(lv.anomalies) == dl["anomalies"]
        assert [list(c.txns) for c in lv.cycles] == [c["txns"] for c in dl["cycles"]]
        for c, dc in zip(lv.cycles, dl["cycles"]):
            assert [(s.from_, s.to, s.type, s.key, s.from_op.op, s.to_op.op, s.why) for s in c.steps] == [
                (s["from"], s["to"], s["type"], s["key"], s["from_op"]["op"], s["to_op"]["op"], s["why"])
                for s in dc["steps"]
            ]
            # A cycle closes: each step starts where the last ended.
            for a, b in zip(c.steps, c.steps[1:] + c.steps[:1]):
                assert a.to == b.from_
    assert json.loads(r.to_json()) == d
    d["valid"] = "mutated"
    assert r.to_dict()["valid"] is False  # to_dict returns a fresh copy


def test_cycles_are_unique_and_have_explanations():
    r = grail.check(LOST_UPDATE)
    assert r.cycles
    assert len({c.txns for c in r.cycles}) == len(r.cycles)
    for c in r.cycles:
        assert c.explanation.startswith("Let:")
        assert c.anomaly in c.explanation


def test_explain_and_reprs():
    r = grail.check(LOST_UPDATE)
    text = r.explain()
    assert text.splitlines()[0].split() == ["level", "verdict", "anomalies"]
    assert "SER    violated" in text
    assert str(r) == text
    assert repr(r) == "<grail.Report valid=False model='list-append' SER=violated SI=violated PSI=violated PL-2=holds PL-1=holds>"
    h = grail.read(LOST_UPDATE)
    assert repr(h) == "<grail.History: 3 transactions, list-append>"
    assert len(h) == 3
    t = h.transaction(5)
    assert str(t) == "{:index 5, :type :ok, :process 2, :value [[:r x [2]]]} (from line 6)"
    assert isinstance(t, grail.Transaction)
    assert (t.id, t.status, t.vertex, t.process, t.ops, t.line) == (5, "committed", True, 2, ("[:r x [2]]",), 6)
    assert t.keys == ("x",) and t.span is not None
    assert h.transaction(12345) is None


def test_repr_pretty_for_ipython():
    class Printer:
        def __init__(self):
            self.out = []

        def text(self, s):
            self.out.append(s)

    r = grail.check(LOST_UPDATE)
    p = Printer()
    r._repr_pretty_(p, False)
    # A headline led by the weakest violated level, then the explanation.
    lead = "PSI is violated, and so is every stronger level"
    assert p.out == [lead + "\n\n" + r.explain().rstrip("\n")]
    # With every level checked, the strongest (strict-SER, the table's first row) is not the lead.
    p = Printer()
    grail.check(LOST_UPDATE, levels="all")._repr_pretty_(p, False)
    assert p.out[0].startswith(lead + "\n\nlevel ")
    # Hundreds of findings: the text display is capped, explain() is not.
    garbage = [{"id": i, "status": "committed", "ops": [["r", f"k{i}", [i + 1000]]]} for i in range(300)]
    big = grail.check(garbage)
    assert sum(a.type == "garbage-read" for a in big.anomalies) == 300
    p = Printer()
    big._repr_pretty_(p, False)
    shown = p.out[0].split("\n")
    assert len(shown) == 81
    assert shown[0] == "PL-2 is violated, and so is every stronger level"
    assert shown[2:80] == big.explain().split("\n")[:78]
    assert shown[-1].startswith("... ") and "more lines" in shown[-1]
    assert len(big.explain().split("\n")) > 600


def test_history_reuse_across_levels():
    h = grail.read(LOST_UPDATE)
    a = h.check(levels="SER")
    b = h.check(levels="PL-1")
    c = h.check()
    assert verdicts(a) == {"SER": "violated"}
    assert verdicts(b) == {"PL-1": "holds"}
    assert verdicts(c) == EXPECTED_LOST_UPDATE
    assert grail.check(h).to_dict() == c.to_dict()


# --- errors ------------------------------------------------------------------------------------

ERROR_INPUTS = {
    "syntax": (dict(history='{:type :ok, :value [[:append :x 1]]}\n{:type :ok :value [[:r :x [1 }'), 2, 30),
    "shape": (dict(history='{:type :ok, :value [[:append :x 1]]}\n{:type :ok, :value [[:frob :x 1]]}'), 2, 22),
    "mixed-model": (dict(history='{:type :ok, :value [[:append :x 1]]}\n{:type :ok, :value [[:w :y 1]]}'), 2, 28),
    "wal": (dict(history='{:type :ok, :value [[:w :x 1]]}', wal='{"type": 2300, "data": {"_key": "x"}}\n'), 1, 1),
    "usage": (dict(history='{:type :ok, :value [[:w :x 1]]}', format="xml"), None, None),
}

ERROR_CLASSES = {
    "syntax": grail.HistoryError,
    "shape": grail.HistoryError,
    "mixed-model": grail.HistoryError,
    "wal": grail.WalError,
    "usage": grail.UsageError,
}


def test_every_error_kind_is_exercised():
    assert set(ERROR_INPUTS) == set(grail._grail.ERROR_KINDS)
    assert set(ERROR_CLASSES) == set(grail._grail.ERROR_KINDS)


@pytest.mark.parametrize("kind", sorted(ERROR_INPUTS))
def test_error_kinds_carry_positions(kind):
    kwargs, line, column = ERROR_INPUTS[kind]
    with pytest.raises(grail.GrailError) as e:
        grail.check(**kwargs)
    err = e.value
    assert type(err) is ERROR_CLASSES[kind]
    assert isinstance(err, ValueError)
    assert err.kind == kind
    assert (err.line, err.column) == (line, column)
    if line is not None:
        assert str(err).startswith(f"line {line}, column {column}: ")
    assert err.message and err.message in str(err)


def test_exception_tree():
    assert issubclass(grail.HistoryError, grail.GrailError)
    assert issubclass(grail.HistoryError, ValueError)
    assert issubclass(grail.WalError, grail.HistoryError)
    assert issubclass(grail.UsageError, grail.GrailError)
    assert issubclass(grail.UsageError, ValueError)
    assert not issubclass(grail.GrailError, ValueError)


def test_json_syntax_error_position():
    with pytest.raises(grail.HistoryError) as e:
        grail.read('[{"id": 1, "status": "committed",\n "ops": [["append", "x", 1],]}]')
    assert (e.value.kind, e.value.line, e.value.column) == ("syntax", 2, 29)


def test_error_in_a_file_has_its_line(tmp_path):
    p = tmp_path / "bad.edn.gz"
    lines = [f"{{:index {i}, :type :ok, :process 0, :value [[:append :x {i}]]}}" for i in range(40)]
    lines[33] = "{:index 33, :type :ok, :process 0, :value [[:frob :x 1]]}"
    p.write_bytes(gzip.compress("\n".join(lines).encode()))
    with pytest.raises(grail.HistoryError) as e:
        grail.read(p)
    assert e.value.line == 34
    assert e.value.kind == "shape"


def test_bad_gzip():
    with pytest.raises(grail.HistoryError, match="gzip") as e:
        grail.read(b"\x1f\x8b\x08\x00garbage")
    assert e.value.kind == "syntax"


def test_errors_pickle():
    with pytest.raises(grail.HistoryError) as e:
        grail.read('{:type :ok :value [[:r :x [1 }')
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is grail.HistoryError
    assert (back.kind, back.line, back.column, back.message) == (e.value.kind, e.value.line, e.value.column, e.value.message)
    assert str(back) == str(e.value)


def test_no_panic_reaches_python():
    """A panic inside Rust becomes a GrailError of kind "internal", not PanicException."""
    with pytest.raises(grail.GrailError) as e:
        grail._grail._panic_for_tests()
    assert type(e.value) is grail.GrailError
    assert e.value.kind == "internal"
    assert "deliberate panic" in str(e.value)


@pytest.mark.parametrize(
    "text",
    [
        "{", "[", "{:type", "{:type :ok, :value [[:r :x [1 2 3]]]", "[{\"id\": 1}]", b"\x00\xff", b"\xff\xfe{",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "{:type :ok, :value [[:append :x 99999999999999999999999]]}",
        '{"transactions": 3}', '[{"id": -1, "status": "committed", "ops": [["r", "x", 5]]}]',
    ],
)
def test_malformed_input_raises_grail_errors_only(text):
    try:
        r = grail.check(text)
    except grail.GrailError as e:
        assert e.kind in grail._grail.ERROR_KINDS
    else:
        assert r.valid in (True, False, None)


# --- packaging ---------------------------------------------------------------------------------


def test_installed_package_is_tested():
    """The tests import the wheel pip installed, not the source folder."""
    pkg = Path(grail.__file__).resolve().parent
    assert "site-packages" in pkg.parts
    native = Path(grail._grail.__file__).name
    assert native.endswith(".abi3.so"), native
    assert (pkg / "py.typed").exists()
    assert (pkg / "_grail.pyi").exists()


def test_version_and_levels():
    assert grail.__version__ == grail._grail.__version__
    assert grail.LEVELS == ("SER", "SI", "PSI", "PL-2", "PL-1")
    assert set(grail.__all__) <= set(dir(grail))


def test_all_levels_and_elle_names():
    """The twelve levels by name or alias; the weak levels' anomalies carry Plume's names."""
    assert len(grail.ALL_LEVELS) == 12 and set(grail.LEVELS) <= set(grail.ALL_LEVELS)
    r = grail.check(CASES / "fractured-read" / "saw-half.edn", levels="all")
    assert list(r.levels) == list(grail.ALL_LEVELS)
    assert list(r.levels["RA"].anomalies) == ["fractured-read"] and r.levels["RC"].valid is True
    assert r.weakest_violated == ["PSI", "RA"] and r.strongest_satisfied == ["RC"]
    same = grail.check(CASES / "fractured-read" / "saw-half.edn", levels=["read-atomic", "PL-3"])
    assert list(same.levels) == ["SER", "RA"]
    fractured = [a for a in r.anomalies if a.type == "fractured-read"]
    assert fractured and fractured[0].name == "fractured read" and fractured[0].cycle is not None
    assert any(s.type == "co" for s in fractured[0].cycle.steps)
    with pytest.raises(grail.UsageError, match="strong-session-SER"):
        grail.check(CASES / "fractured-read" / "saw-half.edn", levels="snapshot")
