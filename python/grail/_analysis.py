"""Anomaly analysis: cycle counts by class, length and label pattern, read anomalies, and the
online checker (see ``docs/analysis.md``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Union

from . import _grail
from ._errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["Analysis", "OnlineChecker"]


def _frame(rows: List[Dict[str, Any]], columns: List[str], what: str) -> "pandas.DataFrame":
    from ._report import _import

    pd = _import("pandas", what)
    return pd.DataFrame(rows, columns=columns)


def _patterns(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [
        {
            "ordered": p["ordered"],
            "pattern": (" -> " if p["ordered"] else ", ").join(p["labels"]),
            "labels": tuple(p["labels"]),
            "count": p["count"],
        }
        for p in rows
    ]


class Analysis:
    """The ``analysis`` section of a report (``grail.check(..., analyze=True)``): cycles counted
    up to ``max_length`` transactions by Zellag & Kemme's classes, LDBC's and Adya's, by length
    and by the pattern of transaction labels; how many transactions lie on 0, 1 and 2+ cycles;
    and LDBC's read anomalies (IMP, OTV, FR) with evidence. The ``*_frame`` methods give pandas
    DataFrames.

    >>> import grail
    >>> a = grail.check('''
    ... {:type :ok, :f :deposit, :value [[:r :x []] [:append :x 1]]}
    ... {:type :ok, :f :deposit, :value [[:r :x []] [:append :x 2]]}
    ... {:type :ok, :value [[:r :x [1 2]]]}''', analyze=True).analysis
    >>> a.cycles, a.count("zellag", "lost update"), a.count("ldbc", "LU")
    (1, 1, 1)
    >>> a.participation
    {'transactions': 3, 'none': 1, 'one': 2, 'many': 0}
    """

    __slots__ = ("_d",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._d = data

    @property
    def cycles(self) -> int:
        """How many cycles were counted."""
        n: int = self._d["cycles"]
        return n

    @property
    def complete(self) -> bool:
        """Every cycle of at most ``max_length`` transactions was counted (no bound was hit)."""
        c: bool = self._d["complete"]
        return c

    @property
    def reason(self) -> Optional[str]:
        """Why counting stopped early, when it did."""
        r: Optional[str] = self._d.get("reason")
        return r

    @property
    def basis(self) -> str:
        """What the classes classify (cycles of the inferred graph's ww, wr and rw edges), and why
        a counterexample through the same transactions can be named otherwise."""
        b: str = self._d.get("basis", "")
        return b

    @property
    def max_length(self) -> int:
        n: int = self._d["max_length"]
        return n

    @property
    def participation(self) -> Dict[str, int]:
        """Transactions (graph vertices) on no, one, and two or more counted cycles."""
        return dict(self._d["participation"])

    def count(self, scheme: str, cls: str) -> int:
        """The count of one class: ``scheme`` is "zellag", "ldbc" or "adya"."""
        for c in self._d["classes"]:
            if c["scheme"] == scheme and c["class"] == cls:
                n: int = c["count"]
                return n
        raise KeyError(f"no class {cls!r} in scheme {scheme!r}")

    def to_dict(self) -> Dict[str, Any]:
        """The section as plain data (the report JSON's ``analysis``)."""
        copy: Dict[str, Any] = json.loads(json.dumps(self._d))
        return copy

    def classes_frame(self) -> "pandas.DataFrame":
        """Counts per class: columns scheme, class, count, source (every class, zeros too)."""
        return _frame(self._d["classes"], ["scheme", "class", "count", "source"], "classes_frame")

    def lengths_frame(self) -> "pandas.DataFrame":
        """Counts per cycle length (transactions)."""
        return _frame(self._d["lengths"], ["length", "count"], "lengths_frame")

    def patterns_frame(self) -> "pandas.DataFrame":
        """Counts per label pattern, ordered and unordered (Zellag & Kemme 7.2), most frequent
        first; unlabeled transactions show as "-"."""
        return _frame(_patterns(self._d["patterns"]), ["ordered", "pattern", "labels", "count"], "patterns_frame")

    def participation_frame(self) -> "pandas.DataFrame":
        """One row: transactions on 0, 1 and 2+ cycles, with percentages (Zellag & Kemme,
        Tables 3 and 4)."""
        p = self._d["participation"]
        total = max(p["transactions"], 1)
        row = dict(p)
        for k in ("none", "one", "many"):
            row[f"{k}_pct"] = 100.0 * p[k] / total
        cols = ["transactions", "none", "one", "many", "none_pct", "one_pct", "many_pct"]
        return _frame([row], cols, "participation_frame")

    def cycles_frame(self) -> "pandas.DataFrame":
        """The cycles listed (the first ``examples``) with their classes."""
        rows = [
            {
                "txns": tuple(c["txns"]),
                "types": tuple(c["types"]),
                "labels": tuple(c["labels"]),
                "length": len(c["txns"]),
                "zellag": c["zellag"],
                "ldbc": c["ldbc"],
                "adya": c["adya"],
            }
            for c in self._d["examples"]
        ]
        return _frame(rows, ["txns", "types", "labels", "length", "zellag", "ldbc", "adya"], "cycles_frame")

    def reads_frame(self) -> "pandas.DataFrame":
        """The read anomalies listed (IMP, OTV, FR, and PMP from the native format's
        ``predicate_reads``), with their evidence."""
        rows = [
            {
                "class": r["class"],
                "txn": r["txn"],
                "writers": tuple(r["writers"]),
                "key": r["key"],
                "predicate": r.get("predicate"),
                "ops": tuple(o["op"] for o in r["ops"]),
                "explanation": r["explanation"],
            }
            for r in self._d["reads"]
        ]
        return _frame(rows, ["class", "txn", "writers", "key", "predicate", "ops", "explanation"], "reads_frame")

    def __repr__(self) -> str:
        return f"<grail.Analysis cycles={self.cycles} complete={self.complete}>"


class OnlineChecker:
    """Check a history online: feed transactions in completion order. List-append: each cycle
    is reported when the transaction that closes it arrives, and memory stays bounded by
    ``window`` committed transactions (Zellag & Kemme 2014, Sects. 5.2 and 6). Registers without
    a version order (``["w", k, v]``, ``["r", k, v]``): checked in rounds of the offline engine
    over the last ``window`` transactions (``docs/analysis.md``, Register streams).

    A transaction is a dict in grail's native form: ``{"id": 1, "label": "pay", "status":
    "committed", "ops": [["append", "x", 1], ["r", "x", [1]]]}`` (``status`` defaults to
    committed).

    >>> import grail
    >>> oc = grail.OnlineChecker(window=1000)
    >>> txns = [{"id": 1, "ops": [["r", "x", []], ["append", "x", 1]]},
    ...         {"id": 2, "ops": [["r", "x", []], ["append", "x", 2]]},
    ...         {"id": 3, "ops": [["r", "x", [1, 2]]]}]
    >>> [(a["closed_by"], sorted(a["txns"])) for a in oc.feed(txns)]
    [(2, [1, 2])]
    >>> oc.stats["cycles"]
    1
    """

    __slots__ = ("_native",)

    def __init__(self, window: int = 100_000, max_length: int = 8, max_steps: int = 1_000_000) -> None:
        for name, v, low in (("window", window, 2), ("max_length", max_length, 2), ("max_steps", max_steps, 1)):
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise UsageError(f"{name} must be an int >= {low}, not {v!r}", kind="usage")
        opts = {"window": window, "max_length": max_length, "max_steps": max_steps}
        self._native = _grail.OnlineChecker(json.dumps(opts))

    def add(self, txn: Mapping[str, Any]) -> List[Dict[str, Any]]:
        """Take the next transaction; the anomalies (cycles) it closed, as dicts with ``txns``,
        ``types``, ``keys``, ``labels``, ``zellag``, ``ldbc``, ``adya`` (each ``"none"`` for a
        cycle through session, real-time or commit order, or chosen versions), ``anomaly``
        (``grail check``'s name of it), ``closed_by``, ``found`` (``arrival``, or ``round``,
        ``pause``, ``end`` for a cycle a later check of the offline engine found),
        ``provisional`` and ``violates``."""
        return [json.loads(a) for a in self._native.push_json(json.dumps(txn))]

    def feed(self, txns: Iterable[Mapping[str, Any]]) -> Iterator[Dict[str, Any]]:
        """Take transactions from any iterable (a generator too), yielding each anomaly as soon
        as it is found."""
        for t in txns:
            yield from self.add(t)

    def feed_bytes(self, data: bytes) -> List[Dict[str, Any]]:
        """Take the next bytes of a history as it is written (Jepsen EDN, one operation a line,
        or JSON lines; a line may be cut across calls): every line they complete is checked;
        the cycles those lines closed. A line the readers refuse raises :class:`grail.GrailError`
        naming its line in the stream. Records without an id are numbered by arrival."""
        return [json.loads(a) for a in self._native.feed_bytes(bytes(data))]

    def finish_bytes(self) -> List[Dict[str, Any]]:
        """The end of a byte stream: its last line, when no line break ended it."""
        return [json.loads(a) for a in self._native.finish_bytes()]

    def watch(self, stream: Any, chunk_size: int = 1 << 16) -> Iterator[Dict[str, Any]]:
        """Check a file-like object as it is written (a test's output pipe, a file being
        appended to, a socket's file): each cycle is yielded as soon as the line that closes it
        has been read, and the stream is read until its end. ``read1`` is used where the stream
        has it, so that a pipe's data is taken as it comes."""
        return _watch(stream, chunk_size, self.feed_bytes, self.finish_bytes, self.flush)

    def end(self) -> List[Dict[str, Any]]:
        """Say the stream ended (``finish_bytes`` and ``watch`` say it themselves): what only
        the end tells is judged, and a level may hold in :meth:`levels`. Returns the cycles the
        offline engine found at the end (a register stream's last round; a list-append stream's
        RC, RA and CC)."""
        return [json.loads(a) for a in self._native.end()]

    def set_wal(self, wal: Union[bytes, str]) -> None:
        """A register stream's write-ahead log (ArangoDB's JSON lines, as ``grail check --wal``
        reads it): every round reads it as the kept transactions' version order. A line that is
        not a log record raises :class:`grail.GrailError` naming it."""
        self._native.set_wal(wal.encode() if isinstance(wal, str) else bytes(wal))

    def push_wal(self, more: Union[bytes, str]) -> None:
        """More of a register stream's write-ahead log, as the database writes it: each round
        reads the version order from the lines arrived so far (a line once its line break has
        arrived; :meth:`end_wal` takes a last line without one). A write whose record has not
        arrived is left unordered by a round, as offline leaves a write the log lacks. A line
        that is not a log record raises :class:`grail.GrailError` naming its line in the log."""
        self._native.push_wal(more.encode() if isinstance(more, str) else bytes(more))

    def end_wal(self) -> None:
        """The write-ahead log ended: its last line is taken even without a line break."""
        self._native.end_wal()

    def flush(self) -> List[Dict[str, Any]]:
        """A register stream: a round of the offline engine now, if anything arrived since the
        last (call it when the input pauses); the cycles it found. Nothing for list-append
        streams, whose cycles come as they close."""
        return [json.loads(a) for a in self._native.flush()]

    def take_findings(self) -> List[Dict[str, Any]]:
        """Reads of aborted (G1a) and intermediate (G1b) appends, and reads that disagree with
        their own transaction (``internal``), found since the last call, as dicts with
        ``anomaly``, ``reader``, ``writer`` and ``found_by``."""
        return [json.loads(f) for f in self._native.take_findings_json()]

    def summary(self) -> Dict[str, Any]:
        """Counters (``stats``), class counts, lengths, label patterns, ``levels`` and notes so far."""
        s: Dict[str, Any] = json.loads(self._native.summary_json())
        return s

    def levels(self) -> Dict[str, Dict[str, Any]]:
        """Each level's verdict so far, by name: ``verdict`` (``holds`` only after the end of a
        stream that fit the window), ``anomalies``, ``witness``, ``implied_by``, ``reason``, and
        ``set_aside`` (when present: findings that break the model's assumptions that a level
        that holds does not proscribe)."""
        return {lv["level"]: lv for lv in self.summary()["levels"]}

    @property
    def stats(self) -> Dict[str, Any]:
        """Counters: transactions, committed, live, peak_live, cycles, evicted, ..."""
        s: Dict[str, Any] = self.summary()["stats"]
        return s

    @property
    def notes(self) -> List[str]:
        """What the window could not judge (evicted transactions, edges to them)."""
        n: List[str] = self.summary()["notes"]
        return n

    def memory_estimate(self) -> int:
        """An estimate of the memory the checker holds, in bytes."""
        return self._native.memory_estimate()

    def classes_frame(self) -> "pandas.DataFrame":
        """Counts per class so far, as a pandas DataFrame (as :meth:`Analysis.classes_frame`)."""
        return _frame(self.summary()["classes"], ["scheme", "class", "count", "source"], "classes_frame")

    def patterns_frame(self) -> "pandas.DataFrame":
        """Counts per label pattern so far."""
        return _frame(_patterns(self.summary()["patterns"]), ["ordered", "pattern", "labels", "count"], "patterns_frame")

    def __repr__(self) -> str:
        s = self.stats
        return f"<grail.OnlineChecker transactions={s['transactions']} cycles={s['cycles']} live={s['live']}>"


def _watch(
    stream: Any,
    chunk_size: int,
    feed: Callable[[bytes], List[Dict[str, Any]]],
    finish: Callable[[], List[Dict[str, Any]]],
    pause: Optional[Callable[[], List[Dict[str, Any]]]] = None,
) -> Iterator[Dict[str, Any]]:
    """Read a file-like object to its end, ``read1`` where it has it (a pipe's data as it comes),
    feeding each piece and yielding what it gave, then what the end gives. After a piece shorter
    than asked for (the writer paused), what ``pause`` gives (a register stream's round)."""
    read = getattr(stream, "read1", None) or stream.read
    while True:
        data = read(chunk_size)
        if not data:
            break
        yield from feed(data.encode() if isinstance(data, str) else data)
        if pause is not None and len(data) < chunk_size:
            yield from pause()
    yield from finish()


class TimestampOnlineChecker:
    """Check committed transactions that carry start and commit timestamps as they arrive, in
    any order (as TimeKiller's Aion does), memory bounded by ``window`` transactions.

    ``level`` is "SI" (snapshot reads at the start timestamp, no overlapping writers of a key)
    or "SER" (reads in commit order); ``session`` checks that a session's transaction starts
    after its previous one committed. A read's verdict may change as later transactions arrive
    (a *flip*); it is final, and reported, when its transaction leaves the window or at
    :meth:`finish`. A transaction is a dict in grail's native form (``{"id", "session",
    "start_ts", "commit_ts", "ops": [["r", k, v], ["w", k, v], ["append", k, v]]}``) or
    TimeKiller's (``{"tid", "sid", "sts": {"p", "l"}, "cts": {"p", "l"}, "ops": [{"t", "k",
    "v"}]}``).

    >>> import grail
    >>> oc = grail.TimestampOnlineChecker(window=1000)
    >>> oc.add({"id": 1, "start_ts": 1, "commit_ts": 2, "ops": [["w", "x", 1]]})
    []
    >>> oc.add({"id": 2, "start_ts": 3, "commit_ts": 4, "ops": [["r", "x", None]]})
    []
    >>> [v["explanation"] for v in oc.finish()]
    ['T2 (start 3) read key x = nil (the initial value), but the last version committed by 3 is 1']
    """

    __slots__ = ("_native",)

    def __init__(self, window: int = 100_000, level: str = "SI", session: bool = True) -> None:
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise UsageError(f"window must be an int >= 1, not {window!r}", kind="usage")
        if level not in ("SI", "SER"):
            raise UsageError(f"level must be 'SI' or 'SER', not {level!r}", kind="usage")
        opts = {"window": window, "level": level, "session": bool(session)}
        self._native = _grail.TimestampOnlineChecker(json.dumps(opts))

    def add(self, txn: Mapping[str, Any]) -> List[Dict[str, Any]]:
        """Take one committed transaction; the violations that became final, as dicts with
        ``type``, ``txns``, ``key``, ``read``, ``expected`` and ``explanation``."""
        return [json.loads(v) for v in self._native.push_json(json.dumps(txn))]

    def feed(self, txns: Iterable[Mapping[str, Any]]) -> Iterator[Dict[str, Any]]:
        """Take transactions from any iterable, yielding each violation once it is final, and
        the rest at the end."""
        for t in txns:
            yield from self.add(t)
        yield from self.finish()

    def finish(self) -> List[Dict[str, Any]]:
        """Make every pending verdict final; the violations left."""
        return [json.loads(v) for v in self._native.finish_json()]

    def feed_bytes(self, data: bytes) -> List[Dict[str, Any]]:
        """Take the next bytes of a history as it is written (a record a line: Jepsen EDN or
        grail's JSON with timestamps, or TimeKiller's transactions one a line; a line may be cut
        across calls): the violations that became final. A committed transaction without
        timestamps is counted (``stats["untimed"]``), not checked."""
        return [json.loads(v) for v in self._native.feed_bytes(bytes(data))]

    def finish_bytes(self) -> List[Dict[str, Any]]:
        """The end of a byte stream: its last line, then every pending verdict final."""
        return [json.loads(v) for v in self._native.finish_bytes()]

    def watch(self, stream: Any, chunk_size: int = 1 << 16) -> Iterator[Dict[str, Any]]:
        """Check a file-like object as it is written, yielding each violation once it is final
        (the rest at its end), as :meth:`OnlineChecker.watch` does for cycles."""
        return _watch(stream, chunk_size, self.feed_bytes, self.finish_bytes)

    @property
    def stats(self) -> Dict[str, Any]:
        """Counters: transactions, reads_checked, rechecks, flips, violations, late,
        unchecked_reads, live, peak_live, evicted, untimed."""
        s: Dict[str, Any] = json.loads(self._native.stats_json())
        return s

    def memory_estimate(self) -> int:
        """An estimate of the memory the checker holds, in bytes."""
        return self._native.memory_estimate()
