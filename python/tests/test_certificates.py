"""Certificates from Python: ``report.certificate`` and ``grail.verify`` give what the CLI's
``grail check --certificate`` and ``grail verify`` give, and a wrong certificate is rejected."""

import json
import os
import subprocess

import pytest

import grail

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
CLI = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "grail")

WRITE_SKEW = """{:index 0, :type :ok, :process 0, :value [[:r :x []] [:r :y []] [:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x []] [:r :y []] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :x [1]] [:r :y [1]]]}"""


def test_a_certificate_proves_the_levels_that_hold():
    report = grail.check(WRITE_SKEW, levels="all")
    cert = report.certificate
    assert cert["format"] == "grail-certificate" and cert["version"] == 1
    holds = {name for name, lv in report.levels.items() if lv.valid}
    v = grail.verify(WRITE_SKEW, cert)
    assert v.ok and bool(v)
    assert set(v.proved) == holds
    assert "SER" not in v.proved and "SI" in v.proved
    assert v.witnesses[0]["kind"] == "snapshot" and v.witnesses[0]["failure"] is None
    assert v.failure is None and "verified" in repr(v)


def test_a_wrong_certificate_is_rejected_with_the_place():
    text = """{:index 0, :type :ok, :value [[:r :x []] [:append :x 1]]}
{:index 1, :type :ok, :value [[:r :x [1]] [:append :x 2]]}"""
    cert = grail.check(text).certificate
    cert["witnesses"][0]["order"].reverse()
    v = grail.verify(text, cert)
    assert not v.ok and v.proved == []
    assert v.failure == "T1 read x = [1] but the replay has []"
    assert "fails" in repr(v)


def test_certificates_in_every_form(tmp_path):
    h = grail.read(os.path.join(EXAMPLES, "lost-update.edn"))
    report = h.check(levels="all")
    cert = report.certificate
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    for form in (cert, json.dumps(cert), json.dumps(cert).encode(), path):
        v = h.verify(form)
        assert v.ok and "CC" in v.proved and "PL-2" in v.proved, form
    # SER and SI are violated by the lost update: nothing proves them, counterexamples show it.
    v = h.verify(cert)
    assert "SER" not in v.proved and "SER" in v.disproved and "SI" in v.disproved
    assert all(c["failure"] is None for c in v.counterexamples)
    # The weak levels hold; nothing violated is left without its reason.
    assert set(v.violations_not_certified) | set(v.disproved) == {
        name for name, lv in report.levels.items() if lv.valid is False
    }
    with pytest.raises(TypeError):
        h.verify(42)  # type: ignore[arg-type]


def test_weak_levels_counterexamples_carry_their_premise():
    # T1 read y from T0, then the initial x, though T0 appended to x: RC, RA and CC are violated.
    h = grail.read(
        "{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :y 1]]}\n"
        "{:index 1, :type :ok, :process 1, :value [[:r :y [1]] [:r :x []]]}\n"
    )
    cert = h.check(levels=["RC", "RA", "CC"]).certificate
    rc = next(c for c in cert["counterexamples"] if c["level"] == "RC")
    assert rc["read"] == {"txn": 1, "index": 1}
    assert [(s["from"], s["to"], s["type"]) for s in rc["observed"]] == [(0, 1, "wr")]
    v = h.verify(cert)
    assert v.ok and set(v.disproved) == {"RC", "RA", "CC"}
    # The same certificate against a history where T1 read T0's x: no initial read.
    other = grail.read(
        "{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :y 1]]}\n"
        "{:index 1, :type :ok, :process 1, :value [[:r :y [1]] [:r :x [1]]]}\n"
    )
    v = other.verify(cert)
    assert not v.ok and "did not read the initial value" in v.failure


def test_case_splits_are_data_and_counterexamples():
    # Registers without a version order: if T0's x comes first, T2 read it after T1's y; if T1's
    # comes first, T3 read it after T0's z. Either order closes a cycle.
    h = grail.read(
        "{:index 0, :type :ok, :value [[:w :x 1] [:w :z 1]]}\n"
        "{:index 1, :type :ok, :value [[:w :x 2] [:w :y 2]]}\n"
        "{:index 2, :type :ok, :value [[:r :x 1] [:r :y 2]]}\n"
        "{:index 3, :type :ok, :value [[:r :x 2] [:r :z 1]]}\n"
    )
    report = h.check(levels=["SER"])
    (cycle,) = report.levels["SER"].cycles
    o = cycle.other_order
    assert isinstance(o, grail.OtherOrder)
    assert (o.key, {o.first, o.second}, o.forced) == ("x", {0, 1}, 0)
    assert {s.type for s in o.steps} == {"rw", "wr"}
    cert = report.certificate
    (cx,) = cert["counterexamples"]
    assert cx["split"]["key"] == "x" and cx["split"]["other"]
    assert h.verify(cert).disproved == ["SER"]
    # One order alone proves nothing.
    del cx["split"]
    assert not h.verify(cert).ok


def test_levels_holding_with_reads_set_aside_are_listed_apart():
    # T1 read 9, which nobody wrote: PL-1 holds with that garbage read set aside.
    h = grail.read("{:index 0, :type :ok, :value [[:w :x 1]]}\n{:index 1, :type :ok, :value [[:r :x 9] [:w :x 2]]}\n")
    cert = h.check(levels="all").certificate
    (w,) = cert["witnesses"]
    assert w["set_aside"] == [{"txn": 1, "index": 0}]
    v = h.verify(cert)
    assert v.ok and v.proved_with_set_aside == ["PL-1"] and "PL-1" not in v.proved
    assert "SER" in v.disproved


def test_bad_certificates_raise_with_line_and_column():
    h = grail.read(WRITE_SKEW)
    with pytest.raises(grail.GrailError) as e:
        h.verify('{"format": "grail-certificate",\n "version": 1, "transactions": [}')
    assert e.value.line == 2
    with pytest.raises(grail.UsageError):
        h.verify('{"format": "something-else", "version": 1, "transactions": 0, "witnesses": []}')


@pytest.mark.skipif(not os.path.exists(CLI), reason="the CLI is not built")
def test_the_cli_writes_and_verifies_the_same_certificate(tmp_path):
    path = os.path.join(EXAMPLES, "anomaly-mix.edn")
    out = tmp_path / "c.json"
    r = subprocess.run([CLI, "check", path, "--levels", "all", "--certificate", str(out)], capture_output=True, text=True)
    assert r.returncode == 1  # some levels are violated
    assert "witness" in r.stderr
    from_cli = json.loads(out.read_text())
    from_python = grail.check(path, levels="all").certificate
    assert from_cli == from_python
    ok = subprocess.run([CLI, "verify", path, str(out)], capture_output=True, text=True)
    assert ok.returncode == 0 and "certificate verified" in ok.stdout
    from_cli["witnesses"][0]["order"].reverse()
    out.write_text(json.dumps(from_cli))
    bad = subprocess.run([CLI, "verify", path, str(out), "--json"], capture_output=True, text=True)
    assert bad.returncode == 1
    data = json.loads(bad.stdout)
    assert data["witnesses"][0]["failure"] == grail.verify(path, from_cli).failure


def test_forced_orders_and_the_writer_behind_a_chosen_rw_are_data():
    # A write skew on registers without a version order: T0 wrote x and y; T1 read x and wrote y,
    # T2 read y and wrote x. Both rw edges rest on orders of T0's writes that are forced (the
    # other order closes a cycle through T0), and both read T0's versions.
    report = grail.check(
        "{:index 0, :type :ok, :process 0, :value [[:w :x 1] [:w :y 1]]}\n"
        "{:index 1, :type :ok, :process 1, :value [[:r :x 1] [:w :y 2]]}\n"
        "{:index 2, :type :ok, :process 2, :value [[:r :y 1] [:w :x 2]]}\n",
        levels=["SER"],
    )
    (cycle,) = report.levels["SER"].cycles
    assert sorted(cycle.txns) == [1, 2]
    assert [(s.type, s.certain, s.read_from) for s in cycle.steps] == [("rw", False, 0), ("rw", False, 0)]
    assert {(f.key, f.first, f.second) for f in cycle.forced} == {("x", 0, 2), ("y", 0, 1)}
    for f in cycle.forced:
        assert isinstance(f, grail.ForcedOrder)
        # The other order's cycle: the later writer's chosen ww back to T0, T0's certain wr to it.
        assert [(s.type, s.from_, s.to, s.certain) for s in f.steps] == [
            ("ww", f.second, 0, False),
            ("wr", 0, f.second, True),
        ]
    assert cycle.other_order is None
