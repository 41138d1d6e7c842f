"""Jupyter display: the verdict table, cycles as inline SVG, escaping of history text."""

from __future__ import annotations

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


def test_cycle_svg_is_well_formed_and_coloured():
    r = grail.check(CASES / "G2-item" / "write-skew.edn")
    cycle = r.levels["SER"].cycles[0]
    root = parse_svg(cycle.to_svg())
    paths = root.findall(f".//{SVG_NS}path")
    assert len(paths) == len(cycle.steps)
    colours = [p.get("stroke") for p in paths]
    assert colours == [grail._grail.EDGE_COLOURS[s.type] for s in cycle.steps]
    texts = ["".join(t.itertext()) for t in root.iter(SVG_NS + "text")]
    for s in cycle.steps:
        assert f"T{s.from_}" in texts
        # Each edge is labelled with its type, key and the two operations (the values).
        assert f"{s.type} on key {s.key}" in texts
        assert any(s.from_op.op in t and s.to_op.op in t for t in texts)
    titles = ["".join(t.itertext()) for t in root.iter(SVG_NS + "title")]
    for s in cycle.steps:
        assert s.why in titles
    assert cycle._repr_svg_() == cycle.to_svg()


def test_svg_for_long_and_two_cycles():
    for case in ("G-nonadjacent/long-fork.edn", "G-single/lost-update.edn", "G0/write-cycle.edn", "G1c/circular-information-flow.edn"):
        r = grail.check(CASES / case)
        assert r.cycles, case
        for c in r.cycles:
            root = parse_svg(c.to_svg())
            assert len(root.findall(f".//{SVG_NS}rect")) == len(c.txns)
            assert len(root.findall(f".//{SVG_NS}polygon")) == len(c.steps)
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
