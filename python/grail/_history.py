"""Histories and their dependency graphs, over the native module."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _grail
from ._certificate import CertificateSource, Verification, certificate_bytes
from ._errors import UsageError
from ._input import HistorySource, LogSource, to_bytes
from ._report import Report, Stats, _import
from ._strategy import StrategyReport

if TYPE_CHECKING:  # pragma: no cover
    import os

    import networkx
    import pandas

    from ._graphdb import GraphDB

__all__ = ["History", "Graph", "read", "check", "check_strategy", "verify"]

Levels = Union[None, str, Iterable[str]]


def _levels_arg(levels: Levels) -> Optional[str]:
    if levels is None:
        return None
    if isinstance(levels, str):
        return levels
    items = list(levels)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"levels must be names such as 'SER' or 'PL-2', not {item!r}")
        if "," in item:
            raise UsageError(f"unknown level {item!r}: give one name per item", kind="usage")
    if not items:
        raise UsageError("levels is empty: give at least one level, or None for the five classic ones", kind="usage")
    return ",".join(items)


class History:
    """A parsed history, to check once or many times (the dependency graph is built once).

    Create one with :func:`grail.read`.

    >>> import grail
    >>> h = grail.read([
    ...     {"id": 1, "status": "committed", "ops": [["r", "x", []], ["append", "x", 1]]},
    ...     {"id": 2, "status": "committed", "ops": [["r", "x", []], ["append", "x", 2]]},
    ...     {"id": 3, "status": "committed", "ops": [["r", "x", [2]]]},
    ... ])
    >>> len(h), h.model
    (3, 'list-append')
    >>> h.check(levels="PL-2").valid
    True
    """

    __slots__ = ("_native",)

    def __init__(self, native: _grail.History) -> None:
        if not isinstance(native, _grail.History):
            raise TypeError("use grail.read(...) to make a History")
        self._native = native

    def __len__(self) -> int:
        return len(self._native)

    @property
    def model(self) -> str:
        """The data model: "list-append", "rw-register" or "empty"."""
        return self._native.model

    @property
    def has_version_order(self) -> bool:
        """Whether a version order is attached (a write-ahead log, or the native form's
        ``"version_order"``)."""
        return self._native.has_version_order

    @property
    def has_timestamps(self) -> bool:
        """Whether the history claims an order: a start or commit timestamp on some
        transaction, or a commit order (``docs/timestamps.md``)."""
        return self._native.has_timestamps

    def check(
        self,
        *,
        levels: Levels = None,
        budget: Optional[float] = None,
        max_steps: Optional[int] = None,
        max_cycles: int = _grail.DEFAULT_MAX_CYCLES,
        analyze: Union[bool, Mapping[str, Any]] = False,
        register_mode: str = "auto",
        white_box: str = "auto",
    ) -> Report:
        """Check isolation levels; see :func:`grail.check`."""
        if not isinstance(register_mode, str):
            raise UsageError(f"register_mode must be 'auto', 'polygraph' or 'sure-edges', not {register_mode!r}", kind="usage")
        if not isinstance(white_box, str):
            raise UsageError(f"white_box must be 'auto', 'ignore' or 'only', not {white_box!r}", kind="usage")
        if budget is not None:
            budget = float(budget)
            if math.isnan(budget) or budget < 0:
                raise UsageError(f"budget must be a number of seconds >= 0, not {budget!r}", kind="usage")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 0):
            raise UsageError(f"max_steps must be an int >= 0, not {max_steps!r}", kind="usage")
        if not isinstance(max_cycles, int) or max_cycles < 1:
            raise UsageError(f"max_cycles must be an int >= 1, not {max_cycles!r}", kind="usage")
        if analyze is True:
            analyze_arg: Optional[str] = "{}"
        elif analyze is False or analyze is None:
            analyze_arg = None
        elif isinstance(analyze, Mapping):
            analyze_arg = json.dumps(dict(analyze))
        else:
            raise UsageError(f"analyze must be a bool or a dict of options, not {analyze!r}", kind="usage")
        native = self._native.check(
            _levels_arg(levels), max_steps, max_cycles, budget, analyze_arg, register_mode, white_box
        )
        return Report(native)

    def verify(self, certificate: CertificateSource) -> Verification:
        """Check a certificate (:attr:`Report.certificate`, its JSON text, or a file's path) against
        this history, sharing nothing with the checker's graph or engine; see :func:`grail.verify`."""
        return Verification(json.loads(self._native.verify(certificate_bytes(certificate))))

    def check_strategy(
        self,
        strategy: str = "scc",
        *,
        max_depth: Optional[int] = None,
        levels: Levels = None,
    ) -> StrategyReport:
        """Decide the levels with one of GRAIL's checkers; see :func:`grail.check_strategy`."""
        if not isinstance(strategy, str):
            raise TypeError(f"strategy must be a str such as 'dfs', not {type(strategy).__name__}")
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0):
            raise UsageError(f"max_depth must be an int >= 2, not {max_depth!r}", kind="usage")
        native = self._native.check_strategy(strategy, max_depth, _levels_arg(levels))
        return StrategyReport(json.loads(native))

    def graph(self) -> "Graph":
        """The dependency graph (ww, wr and rw edges between committed transactions)."""
        return Graph(self._native.graph(), self.model)

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per micro-operation: txn, status, process, invoke_time, complete_time, op
        (position in the transaction), f ("r", "w" or "append"), key, value (a list for list
        reads, None for nil). Needs pandas (``pip install grail-isolation[pandas]``)."""
        pd = _import("pandas", "to_pandas")
        cols = self._native.op_columns()
        frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
        for c in ("txn", "op"):
            frame[c] = pd.Series(cols[c], dtype="int64")
        for c in ("process", "invoke_time", "complete_time"):
            frame[c] = pd.array(cols[c], dtype="Int64")
        for c in ("status", "f"):
            frame[c] = pd.Series(cols[c], dtype="string")
        return frame

    def transaction(self, id: int) -> Optional["Transaction"]:
        """One transaction by id (its status, process, times, operations and place in the
        input), or None when no transaction has that id. ``str()`` of it is the transaction in
        the input's notation (Jepsen's, or Plume's), as reports show it.

        >>> import grail
        >>> t = grail.read('{:index 0, :type :ok, :process 3, :value [[:append :x 1] [:r :x [1]]]}').transaction(0)
        >>> t.status, t.process, t.ops
        ('committed', 3, ('[:append x 1]', '[:r x [1]]'))
        """
        data = self._native.txn_json(id)
        if data is None:
            return None
        return Transaction._from(json.loads(data), self._native.txn_text(id) or "")

    def __repr__(self) -> str:
        return repr(self._native)


@dataclass(frozen=True)
class Transaction:
    """One transaction of a history: ``status`` (committed, aborted, indeterminate), whether it is
    a ``vertex`` of the dependency graph, its ``process``, invocation and completion times, its
    operations in the input's notation (``ops``: Jepsen's, or Plume's ``r(k,v,s,t)``) with their
    ``keys``, and where it is in the input (``line``, ``span``). ``str()`` gives it in that
    notation, as reports show it."""

    id: int
    status: str
    vertex: bool
    process: Optional[int]
    invoke_time: Optional[int]
    complete_time: Optional[int]
    label: Optional[str]
    line: Optional[int]
    ops: Tuple[str, ...]
    keys: Tuple[Any, ...]
    span: Optional[Dict[str, int]]
    text: str

    @classmethod
    def _from(cls, d: Dict[str, Any], text: str) -> "Transaction":
        return cls(
            id=d["id"],
            status=d["status"],
            vertex=d["vertex"],
            process=d.get("process"),
            invoke_time=d.get("invoke_time"),
            complete_time=d.get("complete_time"),
            label=d.get("label"),
            line=d.get("line"),
            ops=tuple(d["ops"]),
            keys=tuple(d["op_keys"]),
            span=d.get("span"),
            text=text,
        )

    def __str__(self) -> str:
        return self.text


class Graph:
    """The dependency graph of a history.

    Vertices are transaction ids; edges are (from, to, type, key), each with the version each
    end wrote or observed (``values``) and the two operations that justify it.

    >>> import grail
    >>> g = grail.read('''
    ... {:type :ok, :value [[:r :x []] [:append :x 1]]}
    ... {:type :ok, :value [[:r :x []] [:append :x 2]]}
    ... {:type :ok, :value [[:r :x [2]]]}''').graph()
    >>> sorted((e["from"], e["to"], e["type"]) for e in g.edges())
    [(0, 1, 'rw'), (1, 0, 'ww'), (1, 2, 'wr'), (2, 0, 'rw')]
    """

    __slots__ = ("_native", "_model")

    def __init__(self, native: _grail.Graph, model: str) -> None:
        self._native = native
        self._model = model

    def __len__(self) -> int:
        """The number of edges listed: one per (from, to, type, key). ``stats.edges`` counts each
        (from, to, type) once, so it is smaller where two transactions depend on several keys."""
        return len(self._native)

    @property
    def vertices(self) -> List[int]:
        """The ids of the transactions that are vertices."""
        return list(self._native.vertex_columns()["txn"])

    def edges(self) -> List[Dict[str, Any]]:
        """Every edge as a dict: from, to, type, key, values (the versions the two ends wrote or
        observed), from_op, to_op, why."""
        cols = self._native.edge_columns()
        return [
            {
                "from": f,
                "to": t,
                "type": ty,
                "key": k,
                "values": (fv, tv),
                "from_op": fo,
                "to_op": to,
                "why": w,
            }
            for f, t, ty, k, fv, tv, fo, to, w in zip(
                cols["from"],
                cols["to"],
                cols["type"],
                cols["key"],
                cols["from_value"],
                cols["to_value"],
                cols["from_op"],
                cols["to_op"],
                cols["why"],
            )
        ]

    @property
    def stats(self) -> Stats:
        """Graph statistics (GRAIL thesis, Table 5.3)."""
        return Stats._from(json.loads(self._native.stats_json()))

    @property
    def notes(self) -> List[str]:
        """What could not be inferred, and other caveats."""
        return self._native.notes

    def to_pandas(self) -> "pandas.DataFrame":
        """The edges as a pandas DataFrame: from, to, type, key, from_value, to_value, from_op,
        to_op, why. Needs pandas."""
        pd = _import("pandas", "to_pandas")
        cols = self._native.edge_columns()
        frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
        for c in ("from", "to"):
            frame[c] = pd.Series(cols[c], dtype="int64")
        for c in ("type", "from_op", "to_op", "why"):
            frame[c] = pd.Series(cols[c], dtype="string")
        return frame

    def to_networkx(self) -> "networkx.MultiDiGraph":
        """The graph as a ``networkx.MultiDiGraph``: nodes are transaction ids (attributes
        status, process); each edge's key is ``(type, key)`` and its attributes are type, key,
        values, from_op, to_op and why. Needs networkx (``pip install grail-isolation[networkx]``)."""
        nx = _import("networkx", "to_networkx")
        g = nx.MultiDiGraph(model=self._model, stats=self.stats.to_dict())
        vc = self._native.vertex_columns()
        g.add_nodes_from(
            (t, {"status": s, "process": p}) for t, s, p in zip(vc["txn"], vc["status"], vc["process"])
        )
        # 4-tuples (u, v, key, data): the attribute named "key" cannot clash with add_edge's
        # own keyword.
        g.add_edges_from(
            (e["from"], e["to"], (e["type"], e["key"]), {k: v for k, v in e.items() if k not in ("from", "to")})
            for e in self.edges()
        )
        return g

    def to_graphdb(self, path: Union[None, str, "os.PathLike[str]"] = None) -> "GraphDB":
        """The graph loaded into an embedded LadybugDB database (in memory, or a new database at
        ``path``): a node table ``txn`` and one relationship table per edge type, as ``grail
        export --format neo4j`` writes them. ``.check()`` runs GRAIL's queries for the five levels
        and ``.execute(cypher)`` any query (``docs/graphdb.md``). Needs LadybugDB
        (``pip install grail-isolation[ladybug]``)."""
        from ._graphdb import GraphDB

        return GraphDB(self, path)

    def __repr__(self) -> str:
        return f"<grail.Graph: {len(self.vertices)} vertices, {len(self)} edges>"


def read(
    history: HistorySource,
    *,
    wal: Optional[LogSource] = None,
    format: str = "auto",
    initial_value: Optional[int] = None,
) -> History:
    """Read a history once, to check it (or look at its graph) as often as needed.

    ``history`` is a path (``str`` or ``os.PathLike``; ``.gz`` or any gzip content is unzipped),
    text (a ``str`` that opens with ``{``, ``[`` or ``;`` or spans lines), ``bytes``, or grail's
    native form as Python objects: a list of transaction dicts, or a dict with
    ``"transactions"`` (and optionally ``"version_order"``). ``wal`` is a write-ahead log giving
    the version order of a register history (path, text or bytes). ``format`` is "auto", "edn",
    "json", "plume" (PolySI/Plume text), "dbcop" (JSON), "dbcop-bin" (dbcop's
    ``history.bincode``; a directory holding one is read as it), "cobra" or "timekiller"
    (TimeKiller's JSON, with start and commit timestamps; ``initial_value`` is TimeKiller's
    ``--initial_value``). Transactions may carry ``start_ts``/``commit_ts`` and the native form a
    ``"commit_order"``: see ``docs/timestamps.md``. The GIL is released while parsing.

    Raises :class:`HistoryError` (with ``.line`` and ``.column``), :class:`WalError` or
    :class:`UsageError`; ``FileNotFoundError`` for a missing file.

    >>> import grail
    >>> h = grail.read('[{"id": 1, "status": "committed", "ops": [["w", "x", 1]]}]')
    >>> h.model
    'rw-register'
    """
    if isinstance(history, History):
        raise TypeError("history is already a grail.History")
    if not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    data, fmt = to_bytes(history, "the history", format)
    log = None if wal is None else to_bytes(wal, "the write-ahead log", "auto")[0]
    if initial_value is not None and (isinstance(initial_value, bool) or not isinstance(initial_value, int)):
        raise UsageError(f"initial_value must be an int, not {initial_value!r}", kind="usage")
    return History(_grail.read(data, fmt, log, initial_value))



def _history_of(history: Union[HistorySource, History], wal: Optional[LogSource], format: str) -> History:
    """A History as given, or read from what the caller passed."""
    if isinstance(history, History):
        if wal is not None:
            raise UsageError("wal is read with the history: pass it to grail.read", kind="usage")
        return history
    return read(history, wal=wal, format=format)

def check(
    history: Union[HistorySource, History],
    *,
    levels: Levels = None,
    wal: Optional[LogSource] = None,
    format: str = "auto",
    budget: Optional[float] = None,
    max_steps: Optional[int] = None,
    max_cycles: int = _grail.DEFAULT_MAX_CYCLES,
    analyze: Union[bool, Mapping[str, Any]] = False,
    register_mode: str = "auto",
    white_box: str = "auto",
) -> Report:
    """Check a history for isolation anomalies (SER, SI, PSI, PL-2 and PL-1 by default).

    ``history`` is anything :func:`grail.read` takes, or a :class:`History`. ``levels`` chooses
    the levels ("SER,SI" or ["SER", "SI"]; "all" for the twelve of :data:`grail.ALL_LEVELS`;
    Elle's names such as "strict-serializable" work too; the five classic ones by default). ``budget`` bounds the search in
    seconds and ``max_steps`` in edge visits: levels still undecided then are "unknown". At most
    ``max_cycles`` cycles are reported per anomaly. The GIL is released while checking, so
    threads can check several histories at once; Ctrl-C interrupts (KeyboardInterrupt).
    ``analyze=True`` (or a dict of options: ``max_length``, ``max_cycles``, ``max_steps``,
    ``examples``) also classifies and counts cycles: see :attr:`Report.analysis`.
    ``register_mode`` says how a register history's SER and SI are decided: "auto" (exactly, on
    PolySI's generalized polygraph, when the history has no version order), "polygraph" (always)
    or "sure-edges" (only the edges sure without a version order: fast, may miss cycles).
    ``white_box`` says how start/commit timestamps and a commit order the history claims are
    used: "auto" (where present), "ignore" (black box only) or "only" (the claims alone, no
    graph); see :attr:`Report.white_box` and ``docs/timestamps.md``.

    >>> import grail
    >>> report = grail.check('''
    ... {:index 0, :type :ok, :value [[:r :x []] [:append :x 1]]}
    ... {:index 1, :type :ok, :value [[:r :x []] [:append :x 2]]}
    ... {:index 2, :type :ok, :value [[:r :x [2]]]}''')
    >>> {name: lv.verdict for name, lv in report.levels.items()}
    {'SER': 'violated', 'SI': 'violated', 'PSI': 'violated', 'PL-2': 'holds', 'PL-1': 'holds'}
    >>> report.levels["SER"].cycles[0].txns
    (0, 1)
    """
    h = _history_of(history, wal, format)
    return h.check(
        levels=levels,
        budget=budget,
        max_steps=max_steps,
        max_cycles=max_cycles,
        analyze=analyze,
        register_mode=register_mode,
        white_box=white_box,
    )


def check_strategy(
    history: Union[HistorySource, History],
    strategy: str = "scc",
    *,
    max_depth: Optional[int] = None,
    levels: Levels = None,
    wal: Optional[LogSource] = None,
    format: str = "auto",
) -> StrategyReport:
    """Decide the levels with one of GRAIL's checkers and count its work.

    ``strategy`` is "scc" (the default engine), "dfs" (GRAIL's depth-bounded Cycle checker:
    cycles of at most ``max_depth`` transactions, 4 by default; a level without one is
    "not-detected"), "shortest-path" (a shortest back-path from every edge) or "gabow"
    (Gabow's path-based SCC algorithm). Levels are decided on dependency cycles only, as GRAIL
    does; for "scc" the verdicts are :func:`grail.check`'s and the counters zero. The report
    equals ``grail check FILE --strategy S --json`` (dfs, shortest-path, gabow). ``history`` is
    anything :func:`grail.check` takes. The GIL is released while checking. Raises
    :class:`UsageError` for an unknown strategy or a misplaced ``max_depth``.

    >>> import grail
    >>> r = grail.check_strategy('[{"id": 1, "status": "committed", "ops": [["w", "x", 1]]}]',
    ...                          "dfs", max_depth=3)
    >>> r.levels["SER"], r.max_depth
    ('holds', 3)
    """
    h = _history_of(history, wal, format)
    return h.check_strategy(strategy, max_depth=max_depth, levels=levels)



def verify(
    history: Union[HistorySource, History],
    certificate: CertificateSource,
    *,
    wal: Optional[LogSource] = None,
    format: str = "auto",
) -> Verification:
    """Check a certificate written by ``grail check --certificate`` or given by
    :attr:`Report.certificate` against a history, as ``grail verify`` does: each witness (a
    serial order, or an order of starts and commits) is replayed from the history alone, with
    nothing of the checker's graph, inference or engine. ``certificate`` is the dict, its JSON
    text, or the path of its file (an ``os.PathLike``). Raises :class:`UsageError` when it is
    not a certificate.

    >>> import grail
    >>> text = '''{:index 0, :type :ok, :value [[:r :x []] [:append :x 1]]}
    ... {:index 1, :type :ok, :value [[:r :x [1]] [:append :x 2]]}'''
    >>> cert = grail.check(text).certificate
    >>> grail.verify(text, cert).ok
    True
    >>> cert["witnesses"][0]["order"].reverse()
    >>> grail.verify(text, cert).failure
    'T1 read x = [1] but the replay has []'
    """
    return _history_of(history, wal, format).verify(certificate)
