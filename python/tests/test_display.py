"""Jupyter display: the verdict table, cycles as inline SVG, escaping of history text."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

from conftest import CASES

import grail

SVG_NS = "{http://www.w3.org/2000/svg}"

HOSTILE_KEY = "<script>alert('x')</script>&amp;"
HOSTILE = [
    {"id": 1, "status": "committed", "ops": [["r", HOSTILE_KEY, []], ["append", HOSTILE_KEY, "<b>1</b>"]]},
    {"id": 2, "status": "committed", "ops": [["r", HOSTILE_KEY, []], ["append", HOSTILE_KEY, "\"2'"]]},
    {"id": 3, "status": "committed", "ops": [["r", HOSTILE_KEY, ["\"2'"]]]},
]


def parse_svg(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    return root


def _texts(root: ET.Element, cls: "str | None" = None) -> list:
    return ["".join(t.itertext()) for t in root.iter(SVG_NS + "text") if cls is None or t.get("class") == cls]


def test_cycle_svg_is_cores_drawing_coloured_by_type():
    r = grail.check(CASES / "G2-item" / "write-skew.edn")
    cycle = r.levels["SER"].cycles[0]
    svg = cycle.to_svg()
    root = parse_svg(svg)
    edges = [p for p in root.iter(SVG_NS + "path") if p.get("class") == "edge"]
    assert len(edges) == len(cycle.steps)
    assert [p.get("stroke") for p in edges] == [grail._grail.EDGE_COLOURS[s.type] for s in cycle.steps]
    # One box per transaction, titled with its id; one label per step: the relation and the key.
    assert _texts(root, "txn-title") == [f"T{t}" for t in cycle.txns]
    assert _texts(root, "edge-label") == [f"{s.type} {s.key}" for s in cycle.steps]
    # The boxes list the transactions' operations (`r y []`), among them each step's two.
    rows = _texts(root)
    for s in cycle.steps:
        for o in (s.from_op, s.to_op):
            assert any(row.startswith(f"{o.kind[0]} {o.key} ") for row in rows), (o, rows)
    assert cycle._repr_svg_() == svg
    # It is core's drawing: the HTML report draws this cycle the same, byte for byte.
    assert svg in r.to_html()


def test_cycle_not_from_a_report_is_not_drawn():
    c = grail.check(CASES / "G2-item" / "write-skew.edn").cycles[0]
    alone = grail.Cycle(c.anomaly, c.name, c.txns, c.steps, c.minimal, c.explanation)
    assert alone == c  # the native report is not part of a cycle's value
    try:
        alone.to_svg()
    except ValueError as e:
        assert "not taken from a report" in str(e)
    else:
        raise AssertionError("a cycle with no report was drawn")
    # A cycle its report does not hold (here: other steps, told by the explanation) is not drawn
    # as if it were the report's.
    other = dataclasses.replace(c, explanation=c.explanation + " (edited)")
    try:
        other.to_svg()
    except ValueError as e:
        assert f"has no {c.anomaly} cycle through" in str(e)
    else:
        raise AssertionError("a cycle the report does not hold was drawn")


def test_svg_for_long_and_two_cycles():
    for case in ("G-nonadjacent/long-fork.edn", "G-single/lost-update.edn", "G0/write-cycle.edn", "G1c/circular-information-flow.edn"):
        r = grail.check(CASES / case)
        assert r.cycles, case
        for c in r.cycles:
            root = parse_svg(c.to_svg())
            assert len([b for b in root.iter(SVG_NS + "rect") if b.get("class") == "txn"]) == len(c.txns)
            assert len([p for p in root.iter(SVG_NS + "path") if p.get("class") == "edge"]) == len(c.steps)
            w, h = float(root.get("width")), float(root.get("height"))
            assert 200 < w < 3000 and 100 < h < 3000


def test_repr_html_shows_table_and_each_cycle():
    r = grail.check(CASES / "G-single" / "lost-update.edn")
    html = r._repr_html_()
    assert html.count("<svg") == 1  # SER, SI and PSI share one cycle: drawn once
    for name, lv in r.levels.items():
        assert re.search(rf"<b>{re.escape(name)}</b></td><td[^>]*>{lv.verdict}</td>", html), name
    assert "lost update" in html
    assert f"{r.stats.transactions} transactions" in html


def test_repr_html_valid_history_has_no_svg():
    r = grail.check(CASES / "valid" / "serial.edn")
    html = r._repr_html_()
    assert "<svg" not in html
    assert html.count(">holds<") == 5


def test_repr_html_lists_findings():
    r = grail.check(CASES / "G1a" / "aborted-read.edn")
    html = r._repr_html_()
    assert "G1a" in html
    assert "Other anomalies" in html


def test_history_text_is_escaped():
    r = grail.check(HOSTILE)
    assert r.valid is False
    html = r._repr_html_()
    assert "<script>" not in html
    assert "<b>1</b>" not in html
    assert "&lt;script&gt;" in html
    assert "&amp;amp;" in html  # the key's own "&amp;" is escaped, not taken as an entity
    for c in r.cycles:
        svg = c.to_svg()
        assert "<script>" not in svg
        root = parse_svg(svg)  # quotes in values do not break attributes
        texts = " ".join("".join(t.itertext()) for t in root.iter(SVG_NS + "text"))
        assert HOSTILE_KEY in texts  # shown as text, exactly
    stats_html = r.stats._repr_html_()
    assert "<table" in stats_html and "density" in stats_html


def test_repr_html_caps_findings():
    garbage = [{"id": i, "status": "committed", "ops": [["r", f"k{i}", [i + 1000]]]} for i in range(300)]
    r = grail.check(garbage)
    html = r._repr_html_()
    assert html.count("<li><b>garbage-read</b>") == 20
    assert "… and 280 more" in html


# The implications of docs/levels.md, written out here as the oracle the headline is held to.
IMPLIES = {
    "strict-SER": ["SER", "strong-SI"],
    "strong-session-SER": ["SER", "strong-session-SI"],
    "SER": ["SI"],
    "strong-SI": ["SI"],
    "strong-session-SI": ["SI", "CC"],
    "SI": ["PSI"],
    "PSI": ["PL-2"],
    "CC": ["RA"],
    "RA": ["RC"],
    "RC": ["PL-2"],
    "PL-2": ["PL-1"],
    "PL-1": [],
}


def weaker(level: str) -> set:
    out, todo = set(), list(IMPLIES[level])
    while todo:
        lv = todo.pop()
        if lv not in out:
            out.add(lv)
            todo.extend(IMPLIES[lv])
    return out


def test_headline_leads_with_the_weakest_violated_levels():
    cases = [
        ("G-single/lost-update.edn", "PSI is violated, and so is every stronger level"),
        ("fractured-read/saw-half.edn", "PSI and RA are violated, and so is every level stronger than one of them"),
    ]
    assert set(IMPLIES) == set(grail.ALL_LEVELS)
    for case, lead in cases:
        r = grail.check(CASES / case, levels="all")
        html = r._repr_html_()
        first = re.search(r"<p class='grail-headline'><b>grail</b>: ([^<]*) <span", html)
        assert first and first.group(1) == lead, case
        # What it says is true by the lattice: each named level is violated, none weaker is,
        # and every level stronger than one of them is violated (here all twelve are checked).
        verdicts = {n: lv.verdict for n, lv in r.levels.items()}
        for w in r.weakest_violated:
            assert w in lead and verdicts[w] == "violated"
            assert all(verdicts[x] != "violated" for x in weaker(w)), (case, w)
        stronger = {s for s in IMPLIES if weaker(s) & set(r.weakest_violated)}
        assert stronger == set(r.also_violated), case
        assert all(verdicts[s] == "violated" for s in stronger), case
        # The first cycle drawn is named after the weakest level it violates, not strict-SER.
        summary = re.search(r"<summary>(\S+) is violated by this", html)
        assert summary and summary.group(1) in r.weakest_violated, case
    # lost-update's stale read (through real-time order) is drawn after, under strong-SI: the
    # weakest level it violates, where strict-SER led before.
    html = grail.check(CASES / cases[0][0], levels="all")._repr_html_()
    summaries = re.findall(r"<summary>(.*?) is violated by this (\S+) cycle", html)
    assert summaries == [("PSI", "G-single"), ("strong-SI", "G-single-realtime")]


def test_headline_of_holding_unknown_and_broken_histories():
    assert "<b>grail</b>: every checked level holds " in grail.check(CASES / "valid" / "serial.edn")._repr_html_()
    garbage = grail.check([{"id": 1, "status": "committed", "ops": [["r", "k", [7]]]}])
    html = garbage._repr_html_()
    assert "Invalid history: it breaks the data model's assumptions (garbage-read)" in html
    assert f"<b>grail</b>: {garbage.weakest_violated[0]} is violated" in html
