"""Issue 33 through Python: what the report says is true (empty captures are unknown with
their reason, an implied verdict names a level with the same verdict, two unobserved appends
after one read version are a lost update with the order marked chosen, a thin-air read
violates every level but PL-1)."""

from __future__ import annotations

from pathlib import Path

import grail

ROOT = Path(__file__).resolve().parents[2]

REGISTER_NOT_TXN = (
    "{:type :invoke, :f :write, :value 1, :process 0}\n"
    "{:type :ok, :f :write, :value 1, :process 0}\n"
    "{:type :invoke, :f :read, :value nil, :process 1}\n"
    "{:type :ok, :f :read, :value 1, :process 1}\n"
)


def test_an_empty_or_non_transactional_capture_is_unknown_with_its_reason():
    for text in (b"", REGISTER_NOT_TXN):
        report = grail.check(text, levels="all")
        assert report.valid is None
        for name, lv in report.levels.items():
            assert lv.verdict == "unknown", name
            assert lv.valid is None
            assert "no committed transaction" in (lv.reason or ""), name
        assert report.strongest_satisfied == []
        assert "unknown: strict-SER, " in report.explain()


def test_an_implied_verdict_names_a_level_with_the_same_verdict():
    report = grail.check(ROOT / "web-demo" / "examples" / "ldbc-g1a.edn", levels="all")
    assert report.levels["SI"].verdict == "violated"
    assert report.levels["PL-1"].verdict == "holds"
    for name, lv in report.levels.items():
        if lv.implied_by:
            assert report.levels[lv.implied_by].verdict == lv.verdict, (name, lv.implied_by)
    assert "(as SI holds)" not in report.explain()


def test_unobserved_appends_after_one_version_are_a_lost_update_with_a_chosen_order():
    report = grail.check(ROOT / "tests" / "cases" / "G-single" / "unobserved-appends.edn")
    assert report.levels["SI"].verdict == "violated"
    assert report.levels["PL-2"].verdict == "holds"
    cycle = report.levels["SI"].cycles[0]
    assert (cycle.anomaly, cycle.name) == ("G-single", "lost update")
    assert [s.certain for s in cycle.steps] == [False, True]
    assert "one of the two orders of the appends" in cycle.steps[0].why


def test_a_thin_air_read_violates_every_level_but_pl1():
    report = grail.check(ROOT / "tests" / "cases" / "garbage-read" / "thin-air-register.json", levels="all")
    for name, lv in report.levels.items():
        assert lv.verdict == ("holds" if name == "PL-1" else "violated"), name
    assert report.broken_assumptions == ["garbage-read"]


def test_a_write_cycle_of_forced_choices_is_named_by_the_cycles_that_forced_it():
    # Each ww step is forced by a read skew: the violation is G-single, not G0 (PL-1 holds).
    report = grail.check(ROOT / "tests" / "cases" / "G-single" / "forced-write-cycle.edn", levels="all")
    assert report.levels["PL-1"].verdict == "holds"
    assert list(report.levels["SI"].anomalies) == ["G-single"]
    cycle = report.levels["SI"].cycles[0]
    assert (cycle.anomaly, cycle.cycle_anomaly, cycle.name) == ("G-single", "G0", "write cycle")
    assert [s.type for s in cycle.steps] == ["ww", "ww"]
    assert len(cycle.forced) == 2
    assert "the violation is G-single" in cycle.explanation
    text = report.explain()
    assert " is violated by this G-single counterexample: a G0 cycle (write cycle) through chosen versions:" in text
    si = grail.check(ROOT / "tests" / "cases" / "G-single" / "forced-write-cycle.edn", levels="SI,PL-1")
    assert "G-single counterexample: a G0 cycle (write cycle) through chosen versions" in si._repr_html_()
    # A cycle of the dependency graph has no cycle_anomaly.
    lost = grail.check(ROOT / "tests" / "cases" / "G-single" / "lost-update.edn")
    assert lost.levels["SI"].cycles[0].cycle_anomaly is None
