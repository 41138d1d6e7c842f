"""A history checked as it is written: OnlineChecker.feed_bytes and .watch (issue 35)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import threading

import pytest

import grail

# A lost update that closes on line 2, then a transaction on another key.
FIRST = (
    b"{:type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}\n"
    b"{:type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}\n"
)
REST = b"{:type :ok, :process 2, :value [[:r :x [1 2]]]}\n{:type :ok, :process 3, :value [[:append :y 1]]}\n"


def test_bytes_cut_anywhere_give_the_cycles_of_the_whole_text(cli):
    text = subprocess.run(
        [cli, "generate", "--txns", "800", "--isolation", "snapshot-isolation", "--inject", "lost-update:3", "--seed", "4"],
        check=True,
        capture_output=True,
    ).stdout
    whole = grail.OnlineChecker()
    expected = whole.feed_bytes(text) + whole.finish_bytes()
    assert len(expected) >= 3
    for size in (1, 13, 4096):
        oc = grail.OnlineChecker()
        found = []
        for i in range(0, len(text), size):
            found += oc.feed_bytes(text[i : i + size])
        found += oc.finish_bytes()
        assert found == expected, size
        assert oc.stats == whole.stats
    # The CLI's online check of the same history gives the same cycles.
    out = subprocess.run([cli, "online", "-", "--json"], input=text, capture_output=True).stdout
    lines = out.decode().splitlines()
    assert [grail._analysis.json.loads(line) for line in lines[:-1]] == expected


def test_watch_yields_a_cycle_while_the_writer_is_still_writing():
    read_fd, write_fd = os.pipe()
    go_on = threading.Event()

    def writer() -> None:
        with os.fdopen(write_fd, "wb", buffering=0) as w:
            w.write(FIRST)
            # The rest only once the reader has yielded the cycle: the pipe is open until then.
            go_on.wait(timeout=300)
            w.write(REST)

    t = threading.Thread(target=writer)
    t.start()
    oc = grail.OnlineChecker()
    with os.fdopen(read_fd, "rb") as r:
        stream = oc.watch(r)
        first = next(stream)
        assert not go_on.is_set()  # yielded before the writer went on
        assert first["closed_by"] == 1 and sorted(first["txns"]) == [0, 1]
        go_on.set()
        rest = list(stream)
    t.join()
    assert rest == []
    assert oc.stats["transactions"] == 4 and oc.stats["cycles"] == 1


def test_a_refused_line_is_named_in_the_stream():
    oc = grail.OnlineChecker()
    found = oc.feed_bytes(FIRST)
    assert len(found) == 1
    with pytest.raises(grail.GrailError) as e:
        oc.feed_bytes(b"\n{:type :ok, :value [[:r :x\n")
    assert e.value.kind == "syntax"
    assert e.value.line == 4, e.value


def test_levels_online_hold_only_after_the_end_and_reads_of_aborted_appends_are_found():
    oc = grail.OnlineChecker()
    oc.feed_bytes(FIRST + REST)
    levels = oc.levels()
    assert levels["SI"]["verdict"] == "violated" and "G-single" in levels["SI"]["anomalies"]
    # Not ended yet: a reader or writer still to come could change it.
    assert levels["PL-2"]["verdict"] == "unknown" and "not ended" in levels["PL-2"]["reason"]
    oc.finish_bytes()
    levels = oc.levels()
    assert levels["PL-2"]["verdict"] == "holds" and levels["PL-1"]["verdict"] == "holds"
    assert levels["SER"]["verdict"] == "violated" and sorted(levels["SER"]["witness"]) == [0, 1]
    # Decided at the end by the offline engine over the kept transactions, not by the lattice.
    assert levels["RC"]["verdict"] == "holds" and levels["RC"]["implied_by"] is None
    # An aborted append read by a committed transaction: G1a, when the second of them arrives.
    oc = grail.OnlineChecker()
    oc.add({"id": 1, "status": "aborted", "ops": [["append", "k", 7]]})
    assert oc.take_findings() == []
    oc.add({"id": 2, "ops": [["r", "k", [7]]]})
    assert oc.take_findings() == [{"anomaly": "G1a", "reader": 2, "writer": 1, "found_by": 2}]
    oc.end()
    assert oc.levels()["PL-2"]["verdict"] == "violated"
    assert oc.levels()["PL-1"]["verdict"] == "holds"


def test_timestamps_from_bytes_cut_anywhere_give_the_clis_violations(cli):
    text = subprocess.run(
        [cli, "generate", "--txns", "1500", "--model", "rw-register", "--timestamps", "--isolation", "read-committed", "--seed", "5"],
        check=True,
        capture_output=True,
    ).stdout
    out = subprocess.run([cli, "online", "-", "--json"], input=text, capture_output=True).stdout.decode().splitlines()
    expected = [json.loads(line) for line in out[:-1]]
    assert len(expected) > 10
    for size in (1, 97, 1 << 16):
        oc = grail.TimestampOnlineChecker()
        found = []
        for i in range(0, len(text), size):
            found += oc.feed_bytes(text[i : i + size])
        found += oc.finish_bytes()
        assert found == expected, size
        assert oc.stats["untimed"] == 0
    # TimeKiller's transactions one a line: what its array file gives.
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "timekiller.json")) as f:
        array = json.load(f)
    oc = grail.TimestampOnlineChecker()
    lines = "".join(json.dumps(t) + "\n" for t in array).encode()
    found = list(oc.watch(io.BytesIO(lines)))
    assert [v["type"] for v in found] == ["write-conflict"]


def test_a_register_stream_is_checked_in_rounds_and_ends_as_grail_check():
    # A lost update on a register: no list read orders the writes, so the polygraph decides it,
    # in a round when the stream pauses (flush) or at its end.
    txns = [
        {"id": 1, "ops": [["r", "x", None], ["w", "x", 1]]},
        {"id": 2, "ops": [["r", "x", None], ["w", "x", 2]]},
        {"id": 3, "ops": [["r", "x", 2]]},
    ]
    oc = grail.OnlineChecker(window=1000)
    assert list(oc.feed(txns)) == []  # too few arrivals for a round of their own
    found = oc.flush()
    # Its cycle runs through an order of the writes the polygraph chose: no class of the
    # dependency graph, named by its anomaly (as grail check names it).
    assert [(c["anomaly"], c["adya"]) for c in found] == [("G-single", "none")]
    assert "SI" in found[0]["violates"] and sorted(found[0]["txns"]) == [1, 2]
    assert oc.flush() == []  # nothing arrived since
    assert oc.end() == []  # reported once
    levels = oc.levels()
    report = grail.check(json.dumps({"transactions": txns}), levels="all")
    for name, online in levels.items():
        if name in ("strict-SER", "strong-SI") and online["verdict"] == "unknown":
            assert "no invocation and completion times" in online["reason"]
            continue
        assert online["verdict"] == report.levels[name].verdict, name
    # A list-append transaction after registers: refused, naming it.
    with pytest.raises(grail.GrailError, match="one data model"):
        oc.add({"id": 4, "ops": [["append", "x", 3]]})


def test_a_register_stream_with_a_write_ahead_log_gives_grail_checks_verdicts():
    here = os.path.dirname(os.path.abspath(__file__))
    case = os.path.join(here, "..", "..", "tests", "cases", "register", "lost-update-wal")
    oc = grail.OnlineChecker()
    with open(case + ".log", "rb") as f:
        oc.set_wal(f.read())
    with open(case + ".edn", "rb") as f:
        list(oc.watch(f))
    report = grail.check(case + ".edn", wal=case + ".log", levels="all")
    for name, online in oc.levels().items():
        if name in ("strict-SER", "strong-SI") and online["verdict"] == "unknown":
            continue
        assert online["verdict"] == report.levels[name].verdict, name
    assert oc.levels()["SER"]["verdict"] == "violated"
    with pytest.raises(grail.GrailError):
        grail.OnlineChecker().set_wal(b"not a log\n")


# Key 1 written 1 then 2, key 2 written 2 then 1: a write cycle only the log shows.
G0_TXNS = b"{:type :ok, :process 0, :value [[:w 1 1] [:w 2 1]]}\n{:type :ok, :process 1, :value [[:w 1 2] [:w 2 2]]}\n"
G0_LOG = [
    b'{"type":2200,"tid":"a"}\n{"type":2300,"tid":"a","data":{"_key":"1","rwAttr":1}}\n{"type":2201,"tid":"a"}\n',
    b'{"type":2300,"tid":"b","data":{"_key":"2","rwAttr":2}}\n{"type":2300,"tid":"b","data":{"_key":"1","rwAttr":2}}\n',
    b'{"type":2200,"tid":"c"}\n{"type":2300,"tid":"c","data":{"_key":"2","rwAttr":1}}\n{"type":22',
    b'01,"tid":"c"}',
]


def test_a_write_ahead_log_pushed_as_it_is_written_orders_the_next_round():
    oc = grail.OnlineChecker()
    assert oc.feed_bytes(G0_TXNS) == []
    assert oc.flush() == [], "no order before the log"
    for piece in G0_LOG[:3]:
        oc.push_wal(piece)
    assert oc.flush() == [], "c's commit record has not arrived (a line without its break)"
    oc.push_wal(G0_LOG[3])
    oc.end_wal()
    found = oc.flush()
    assert [(c["anomaly"], c["adya"]) for c in found] == [("G0", "G0")], found  # the log fixes the order
    oc.end()
    assert oc.levels()["PL-1"]["verdict"] == "violated"
    with pytest.raises(grail.GrailError, match="line 2"):
        grail.OnlineChecker().push_wal('{"type":2200,"tid":"a"}\nnot a log\n')


def test_a_cycle_through_session_order_is_named_by_its_anomaly_not_a_dependency_class():
    # Process 0 writes x, then reads x's initial value: Elle's G-single-process. Its so step is no
    # rw edge: once "G2-item, LU", now no class (none) and the anomaly grail check names.
    oc = grail.OnlineChecker(window=1000)
    txns = [{"id": 1, "process": 0, "ops": [["w", "x", 1]]}, {"id": 3, "process": 0, "ops": [["r", "x", None]]}]
    found = list(oc.feed(txns)) + oc.flush() + oc.end()
    session = [c for c in found if "so" in c["types"]]
    assert [(c["anomaly"], c["zellag"], c["ldbc"], c["adya"]) for c in session] == [("G-single-process", "none", "none", "none")], found
    levels = oc.levels()
    assert levels["SER"]["verdict"] == "holds"
    assert "G-single" not in levels["strong-session-SER"]["anomalies"]
    assert "G-single-process" in levels["strong-session-SER"]["anomalies"]
