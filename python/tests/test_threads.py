"""Checks run with the GIL released: threads check several histories at once, or one shared
History, and get exactly the reports a sequential run gives."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from conftest import CASES, CORPUS

import grail


def histories():
    paths = sorted(CASES.glob("*/*.edn"))
    big = CORPUS / "grail" / "anti-patterns"
    paths += sorted(big.glob("*/history.edn.gz"))
    paths += sorted((CORPUS / "grail" / "list" / "list-rate").glob("*.edn.gz"))[:6]
    return paths


def test_threads_check_several_histories_at_once():
    paths = histories()
    assert len(paths) >= 10
    sequential = [grail.check(p).to_json() for p in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(2):
            parallel = list(pool.map(lambda p: grail.check(p).to_json(), paths))
            assert parallel == sequential


def test_threads_share_one_history():
    """One History checked from many threads at once: the graph is built once, safely."""
    paths = histories()
    source = paths[-1]
    want = grail.check(source)
    h = grail.read(source)  # the graph is not built yet: the threads race to build it
    barrier = threading.Barrier(6)
    results = {}
    errors = []

    def work(i):
        try:
            barrier.wait()
            levels = ["SER", "SI", "PSI", "PL-2", "PL-1"][i % 5]
            results[i] = (levels, h.check(levels=levels).to_dict(), h.check().to_json())
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 6
    full = want.to_dict()
    for levels, one, all_levels in results.values():
        assert all_levels == want.to_json()
        assert one["levels"] == {levels: full["levels"][levels]}
        assert one["stats"] == full["stats"]


def test_errors_in_threads_are_grail_errors():
    bad = ['{:type :ok :value [[:r :x [1 }', "[1, 2", '{:type :ok, :value [[:w :x 1]]}\n{:type :ok, :value [[:append :y 1]]}']

    def run(text):
        try:
            grail.read(text)
        except grail.HistoryError as e:
            return (e.kind, e.line, e.column)
        return None

    with ThreadPoolExecutor(max_workers=3) as pool:
        out = list(pool.map(run, bad * 10))
    assert None not in out
    assert out == [run(t) for t in bad] * 10


def test_ctrl_c_interrupts_a_long_check():
    """Ctrl-C (SIGINT) during a check raises KeyboardInterrupt from inside it: the check polls
    Python's signals while the GIL is released. The check takes seconds; the interrupt comes
    0.2 s after it starts."""
    import _thread

    from test_api import long_chain

    h = grail.read(long_chain(6000))
    h.graph()  # build the graph first, so the interrupt lands in the search
    reached = []

    def interrupt():
        started.wait()
        threading.Event().wait(0.2)
        _thread.interrupt_main()

    started = threading.Event()
    t = threading.Thread(target=interrupt)
    t.start()
    try:
        started.set()
        h.check()
        reached.append("check returned")
        threading.Event().wait(30)  # were the check to finish first, the interrupt lands here
    except KeyboardInterrupt:
        pass
    t.join()
    assert reached == [], "the check ran to its end instead of honouring Ctrl-C"
    # The History is still usable afterwards.
    assert h.check(levels="PL-1").levels["PL-1"].verdict == "holds"
