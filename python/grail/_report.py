"""The verdict of a check, as Python objects over the native report."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional, Tuple

from . import _grail, _html
from ._page import HTMLPage

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ._analysis import Analysis

__all__ = ["Level", "Report", "LevelResult", "Cycle", "OtherOrder", "ForcedOrder", "Step", "OpRef", "Anomaly", "Stats"]

Level = Literal[
    "strict-SER",
    "strong-session-SER",
    "SER",
    "strong-SI",
    "strong-session-SI",
    "SI",
    "PSI",
    "CC",
    "RA",
    "RC",
    "PL-2",
    "PL-1",
]
Level.__doc__ = """The name of a level as reports give it (the type of ``weakest_violated`` and the
other lists of levels): one of :data:`grail.ALL_LEVELS`, listed here strongest first; which
implies which is in ``docs/levels.md``."""

# At most this many lines of the explanation in IPython's text display.
_PRETTY_LINES = 80


@dataclass(frozen=True)
class OpRef:
    """A micro-operation: its transaction's id, its position there (0-based), the operation in
    the input's notation (Jepsen's, e.g. ``[:append 5 3]``, or Plume's ``r(5,3,1,7)``), its ``kind`` ("r", "w" or "append"), ``key`` and
    ``value`` (written, or read: a list, or None for nil), and ``span``, where it is in the
    input (``start``/``end`` bytes, ``line``, ``column``) when the reader recorded it. An order
    edge's missing operation has only ``txn``."""

    txn: int
    index: int
    op: str
    kind: Optional[str] = None
    key: Any = None
    value: Any = None
    span: Optional[Dict[str, int]] = None

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "OpRef":
        return cls(
            txn=d["txn"],
            index=d["index"],
            op=d["op"],
            kind=d.get("kind"),
            key=d.get("key"),
            value=d.get("value"),
            span=d.get("span"),
        )


@dataclass(frozen=True)
class Step:
    """One edge of a cycle: ``from_`` → ``to`` of a ``type`` ("ww", "wr", "rw"; "so", "rt" for
    session and real-time order, with ``key`` None; "co" for a weak level's forced commit order)
    on ``key``, justified by the two operations, with ``why`` in one sentence. ``certain`` is set
    in counterexamples that rest on a choice of order only (registers without a version order,
    list appends no read observed): True for a known edge, False for one a choice made.
    ``claimed`` is True for an edge the database's claimed timestamps or commit order give
    ("rt": committed before the other started; "co": earlier in the commit order), None
    otherwise (``docs/timestamps.md``).

    ``from_`` is the attribute for what the data calls ``"from"`` (the report's JSON and
    :meth:`Report.to_dict`, the dicts of :meth:`Graph.edges`, the columns of
    :meth:`Report.edges_frame` and :meth:`Graph.to_pandas`): ``from`` is a Python keyword.
    Only ``dataclasses.asdict`` of a step keeps the attribute's name."""

    from_: int
    to: int
    type: str
    key: Any
    from_op: OpRef
    to_op: OpRef
    why: str
    certain: Optional[bool] = None
    claimed: Optional[bool] = None
    #: A chosen ``rw`` edge only: the transaction whose version ``from_`` read (the edge stands
    #: for its ``wr`` edge to ``from_`` and a chosen ``ww`` edge from it to ``to``).
    read_from: Optional[int] = None
    #: An edge resting on an order of versions assumed, not shown by the history: the
    #: assumption's name (Elle's ``linearizable-keys``, say; ``grail elle`` only).
    assumed: Optional[str] = None

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Step":
        return cls(
            from_=d["from"],
            to=d["to"],
            type=d["type"],
            key=d["key"],
            from_op=OpRef._from(d["from_op"]),
            to_op=OpRef._from(d["to_op"]),
            why=d["why"],
            certain=d.get("certain"),
            claimed=d.get("claimed"),
            read_from=d.get("read_from"),
            assumed=d.get("assumed"),
        )


@dataclass(frozen=True)
class OtherOrder:
    """PolySI's case split as data: the cycle's steps put ``first``'s version of ``key`` before
    ``second``'s, and the reverse order closes the cycle of ``steps`` here. ``forced`` counts the
    other orders the two cycles use that pruning forced (explained in the text)."""

    key: Any
    first: int
    second: int
    steps: Tuple[Step, ...]
    forced: int

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "OtherOrder":
        return cls(
            key=d["key"],
            first=d["first"],
            second=d["second"],
            steps=tuple(Step._from(s) for s in d["steps"]),
            forced=d["forced"],
        )


@dataclass(frozen=True)
class ForcedOrder:
    """An order of two writes a cycle's chosen edges use that is forced: ``first``'s version of
    ``key`` before ``second``'s, as the other order closes the cycle of ``steps`` (PolySI 4.2)."""

    key: Any
    first: int
    second: int
    steps: Tuple[Step, ...]

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "ForcedOrder":
        return cls(key=d["key"], first=d["first"], second=d["second"], steps=tuple(Step._from(s) for s in d["steps"]))


@dataclass(frozen=True)
class Cycle:
    """A counterexample: a cycle in the dependency graph.

    ``anomaly`` is Adya's name (G0, G1c, G-single, G-nonadjacent, G2-item), ``name`` the plain
    one (lost update, write skew, ...); ``minimal`` says no shorter cycle of the anomaly exists
    in its strongly connected component. In Jupyter a cycle shows as a drawing
    (:meth:`to_svg`).
    """

    anomaly: str
    name: str
    txns: Tuple[int, ...]
    steps: Tuple[Step, ...]
    minimal: bool
    explanation: str
    #: Where the cycle rests on one order of two writes the history leaves open: the other
    #: order and the cycle it closes.
    other_order: Optional[OtherOrder] = None
    #: The forced orders of two writes the cycle's chosen edges use, each with the cycle its
    #: other order closes.
    forced: Tuple[ForcedOrder, ...] = ()
    #: The anomaly of the cycle alone, where it is more specific than ``anomaly``: a cycle
    #: through forced choices (two ww steps that read-skew cycles forced: G0 alone, G-single
    #: with the cycles that forced them, while PL-1 may hold).
    cycle_anomaly: Optional[str] = None
    # The native report this cycle came from: core draws it from there.
    _native: Optional[Any] = field(default=None, compare=False, repr=False)

    @classmethod
    def _from(cls, d: Dict[str, Any], native: Optional[Any] = None) -> "Cycle":
        return cls(
            anomaly=d["anomaly"],
            name=d["name"],
            txns=tuple(d["txns"]),
            steps=tuple(Step._from(s) for s in d["steps"]),
            minimal=d["minimal"],
            explanation=d["explanation"],
            other_order=OtherOrder._from(d["other_order"]) if d.get("other_order") else None,
            forced=tuple(ForcedOrder._from(f) for f in d.get("forced", ())),
            cycle_anomaly=d.get("cycle_anomaly"),
            _native=native,
        )

    def to_svg(self) -> str:
        """The cycle drawn by grail's core as an SVG element, the drawing of the HTML report:
        each transaction a box listing its operations, each dependency an arrow coloured by
        type (ww blue, wr green, rw red) from one operation to the other, labelled with the
        relation and the key. Only a cycle taken from a report can be drawn."""
        if self._native is None:
            raise ValueError("this Cycle was not taken from a report: draw one from report.cycles")
        svg: str = self._native.cycle_svg(self.anomaly, list(self.txns), self.explanation)
        return svg

    def _repr_svg_(self) -> str:
        return self.to_svg()


@dataclass(frozen=True)
class LevelResult:
    """The verdict for one level: ``valid`` is True (holds), False (violated) or None (unknown:
    a budget ran out, see ``reason``); ``anomalies`` names what was found that the level
    proscribes; ``cycles`` gives the shortest proscribed cycle per strongly connected
    component."""

    name: str
    valid: Optional[bool]
    verdict: str
    anomalies: Tuple[str, ...]
    cycles: Tuple[Cycle, ...]
    reason: Optional[str] = None
    #: The level this verdict follows from when it was not searched for: a stronger level that
    #: holds, or a weaker one that is violated (whose counterexample ``cycles`` gives).
    implied_by: Optional[str] = None
    #: The level whose counterexample shows this one violated when this level's own check did
    #: not decide it (its search was cut short): a cycle of certain edges only, which this level
    #: forbids too (``cycles`` gives it).
    cycle_from: Optional[str] = None
    #: Findings that break the model's assumptions which this level does not proscribe: its
    #: verdict was computed with them set aside.
    set_aside: Tuple[str, ...] = ()

    @classmethod
    def _from(cls, name: str, d: Dict[str, Any], native: Optional[Any] = None) -> "LevelResult":
        return cls(
            name=name,
            valid=d["valid"],
            verdict=d["verdict"],
            anomalies=tuple(d["anomalies"]),
            cycles=tuple(Cycle._from(c, native) for c in d["cycles"]),
            reason=d.get("reason"),
            implied_by=d.get("implied_by"),
            cycle_from=d.get("cycle_from"),
            set_aside=tuple(d.get("set_aside", ())),
        )


@dataclass(frozen=True)
class Anomaly:
    """An anomaly: a cycle (``cycle`` set) or a finding on reads and writes (G1a, G1b,
    internal, garbage-read, duplicate-write, incompatible-order; for the weak levels also
    fractured-read and the others). ``name`` is its plain name (lost update, aborted read,
    thin-air read, future read, ...); ``levels`` are the levels it violates; ``txns`` and
    ``ops`` the evidence."""

    type: str
    name: str
    levels: Tuple[str, ...]
    txns: Tuple[int, ...]
    ops: Tuple[OpRef, ...]
    explanation: str
    key: Any = None
    value: Any = None
    cycle: Optional[Cycle] = None

    @classmethod
    def _from(cls, d: Dict[str, Any], native: Optional[Any] = None) -> "Anomaly":
        return cls(
            type=d["type"],
            name=d["name"],
            levels=tuple(d["levels"]),
            txns=tuple(d["txns"]),
            ops=tuple(OpRef._from(o) for o in d["ops"]),
            explanation=d["explanation"],
            key=d.get("key"),
            value=d.get("value"),
            cycle=Cycle._from(d["cycle"], native) if d.get("cycle") is not None else None,
        )


@dataclass(frozen=True)
class Stats:
    """Graph statistics (as in the GRAIL thesis, Table 5.3). In Jupyter they show as a table.

    ``edges`` counts ww, wr and rw dependencies once per (from, to, type), however many keys
    induce them (``ww + wr + rw``, each the distinct pairs of that type). :meth:`History.graph`
    lists one edge per (from, to, type, key), so ``len(graph)`` can be larger; a report's
    ``edges`` also counts rw pairs that inference left out of the graph (its notes say so).
    """

    transactions: int
    committed: int
    aborted: int
    indeterminate: int
    vertices: int
    edges: int
    ww: int
    wr: int
    rw: int
    density: float
    #: No dependency graph was inferred (white-box only): the edge counts describe nothing.
    not_inferred: bool = False

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Stats":
        return cls(**{f.name: d[f.name] for f in fields(cls) if f.name in d})

    def to_dict(self) -> Dict[str, Any]:
        """The statistics as a dict, in the order of the report's JSON (which has
        ``not_inferred`` only when true)."""
        d = asdict(self)
        if not self.not_inferred:
            del d["not_inferred"]
        return d

    def _repr_html_(self) -> str:
        return _html.stats_table(self.to_dict())


class Report:
    """The verdict of :func:`grail.check`.

    >>> import grail
    >>> r = grail.check('''
    ... {:type :ok, :value [[:r :x []] [:append :x 1]]}
    ... {:type :ok, :value [[:r :x []] [:append :x 2]]}
    ... {:type :ok, :value [[:r :x [2]]]}''')
    >>> r.valid
    False
    >>> r.levels["SER"].verdict, r.levels["PL-2"].verdict
    ('violated', 'holds')
    >>> r.levels["PSI"].cycles[0].name
    'lost update'
    >>> r.to_dict()["levels"]["PSI"]["anomalies"]
    ['G-single']
    """

    __slots__ = ("_native", "_cache", "_certificate")

    def __init__(self, native: _grail.Report) -> None:
        self._native = native
        self._cache: Optional[Dict[str, Any]] = None
        self._certificate: Optional[str] = None

    @property
    def certificate(self) -> Dict[str, Any]:
        """Witnesses of the levels that hold, which :func:`grail.verify` (and ``grail verify``)
        check from the history alone: a serial order of the transactions, or an order of their
        starts and commits (``docs/certificates.md``). Levels that hold without a witness are
        listed under ``not_certified`` with the reason. Built on first use; a new dict each time.
        """
        if self._certificate is None:
            self._certificate = self._native.certificate_json()
        data: Dict[str, Any] = json.loads(self._certificate)
        return data

    def _data(self) -> Dict[str, Any]:
        if self._cache is None:
            self._cache = json.loads(self._native.to_json())
        return self._cache

    @property
    def valid(self) -> Optional[bool]:
        """True when every checked level holds, False when one is violated, None when a level
        is unknown and none is violated."""
        return self._native.valid

    @property
    def model(self) -> str:
        """The data model: "list-append", "rw-register" or "empty"."""
        model: str = self._data()["model"]
        return model

    @property
    def levels(self) -> Dict[str, LevelResult]:
        """The checked levels, strongest first, by name ("SER", "SI", "PSI", "PL-2", "PL-1" by
        default; see :data:`grail.ALL_LEVELS`)."""
        return {name: LevelResult._from(name, d, self._native) for name, d in self._data()["levels"].items()}

    @property
    def weakest_violated(self) -> List[Level]:
        """The weakest of the checked levels that are violated (Elle's ``not``), strongest
        first: each is violated and no weaker checked level is. Every level stronger than one
        of them is violated too (:attr:`also_violated`); a level weaker than all of them that
        was not checked may be violated as well. More than one when they are incomparable (PSI
        and RA: neither implies the other, ``docs/levels.md``); empty when no level is violated.

        >>> import grail
        >>> lost_update = '''
        ... {:type :ok, :value [[:r :x []] [:append :x 1]]}
        ... {:type :ok, :value [[:r :x []] [:append :x 2]]}
        ... {:type :ok, :value [[:r :x [2]]]}'''
        >>> r = grail.check(lost_update)
        >>> r.weakest_violated, r.also_violated
        (['PSI'], ['strict-SER', 'strong-session-SER', 'SER', 'strong-SI', 'strong-session-SI', 'SI'])
        >>> grail.check(lost_update, levels="all").weakest_violated
        ['PSI']
        >>> grail.check('{:type :ok, :value [[:append :x 1]]}').weakest_violated
        []
        """
        return list(self._data()["weakest_violated"])

    @property
    def also_violated(self) -> List[Level]:
        """Every level stronger than those of :attr:`weakest_violated`, checked or not (Elle's
        ``also-not``), strongest first."""
        return list(self._data()["also_violated"])

    @property
    def strongest_satisfied(self) -> List[Level]:
        """The strongest checked levels that hold with nothing set aside."""
        return list(self._data()["strongest_satisfied"])

    @property
    def broken_assumptions(self) -> List[str]:
        """Kinds of the findings that break the data model's assumptions (garbage-read,
        duplicate-write, internal, incompatible-order): the history is invalid (``valid`` is
        False) whatever the levels say."""
        return list(self._data().get("broken_assumptions", []))

    @property
    def anomalies(self) -> List[Anomaly]:
        """Every anomaly found: findings on reads and writes, then cycles (each cycle once)."""
        return [Anomaly._from(a, self._native) for a in self._data()["anomalies"]]

    @property
    def cycles(self) -> List[Cycle]:
        """Every distinct counterexample cycle of the report."""
        return [a.cycle for a in self.anomalies if a.cycle is not None]

    @property
    def stats(self) -> Stats:
        """Graph statistics: transactions by status, vertices, edges by type, density."""
        return Stats._from(self._data()["stats"])

    @property
    def notes(self) -> List[str]:
        """What could not be inferred, and other caveats."""
        return list(self._data()["notes"])

    @property
    def white_box(self) -> Optional[Dict[str, Any]]:
        """What the history's claimed start/commit timestamps and commit order say, when it has
        any (else None): ``si`` and ``ser`` ("full": the axioms; "mixed": claimed edges in the
        graph; "none"), ``order``, ``transactions``, ``timestamped``, ``ordered``, ``counts``
        by kind, and ``findings`` (each with ``type``, ``txns`` and their timestamps, ``key``,
        ``read``, ``expected``, ``explanation``). See ``docs/timestamps.md``."""
        d = self._data().get("white_box")
        return dict(d) if d is not None else None

    @property
    def analysis(self) -> Optional["Analysis"]:
        """Cycle counts by class, length and label pattern, and the read anomalies, when the
        check was asked to analyze (``grail.check(..., analyze=True)``); otherwise None."""
        from ._analysis import Analysis

        d = self._data().get("analysis")
        return Analysis(d) if d is not None else None

    def class_counts_frame(self) -> "pandas.DataFrame":
        """The analysis's counts per class (scheme, class, count, source) as a pandas DataFrame;
        raises UsageError when the check did not analyze."""
        return self._analysis("class_counts_frame").classes_frame()

    def length_counts_frame(self) -> "pandas.DataFrame":
        """The analysis's counts per cycle length as a pandas DataFrame."""
        return self._analysis("length_counts_frame").lengths_frame()

    def pattern_counts_frame(self) -> "pandas.DataFrame":
        """The analysis's counts per label pattern (ordered and unordered) as a DataFrame."""
        return self._analysis("pattern_counts_frame").patterns_frame()

    def _analysis(self, what: str) -> "Analysis":
        a = self.analysis
        if a is None:
            from ._errors import UsageError

            raise UsageError(f"{what}() needs a report checked with analyze=True", kind="usage")
        return a

    def to_dict(self) -> Dict[str, Any]:
        """The report as plain data: the schema of ``grail check --json`` (a fresh copy)."""
        data: Dict[str, Any] = json.loads(self._native.to_json())
        return data

    def to_json(self) -> str:
        """The report as JSON text, as ``grail check --json`` prints it."""
        return self._native.to_json()

    def explain(self) -> str:
        """The verdict table, the statistics and the explanation of each counterexample, as
        ``grail check`` prints them."""
        return self._native.explain()

    def to_html(self, title: Optional[str] = None) -> HTMLPage:
        """The report as one self-contained HTML page, as ``grail check --html`` writes it: the
        verdict table, each counterexample drawn with its steps and operations (edges a polygraph
        search chose dashed), the sub-history to paste into a bug report, the statistics and a
        timeline with the nemesis operations marked. No script and no network; bounded in size
        whatever the history (the page says what it leaves out). ``title`` names the history.

        The page is a ``str`` (:class:`HTMLPage`) that a notebook shows inline, whole, in a frame
        (also in an nbconvert HTML export); ``report`` alone shows the shorter summary.

        >>> import grail
        >>> page = grail.check('{:type :ok, :value [[:append :x 1]]}').to_html(title="one.edn")
        >>> page.startswith("<!DOCTYPE html>") and "one.edn</span>" in page
        True
        """
        return HTMLPage(self._native.to_html(title))

    def levels_frame(self) -> "pandas.DataFrame":
        """The verdicts as a pandas DataFrame, one row per level checked (strongest first):
        ``level``, ``verdict`` (holds, violated, unknown), ``valid``, ``anomalies`` (the names,
        comma-separated), ``reason`` (why unknown), ``implied_by`` and ``set_aside``. Needs pandas."""
        pd = _import("pandas", "levels_frame")
        rows = [
            {
                "level": lv.name,
                "verdict": lv.verdict,
                "valid": lv.valid,
                "anomalies": ", ".join(lv.anomalies),
                "reason": lv.reason,
                "implied_by": lv.implied_by,
                "set_aside": ", ".join(lv.set_aside),
            }
            for lv in self.levels.values()
        ]
        columns = ["level", "verdict", "valid", "anomalies", "reason", "implied_by", "set_aside"]
        return pd.DataFrame(rows, columns=columns)

    def edges_frame(self) -> "pandas.DataFrame":
        """The edges of every counterexample cycle as a pandas DataFrame: one row per step,
        with the cycle's anomaly and position; ``certain`` is False for a step that follows from
        a chosen version order (registers without a log, appends no read observed), True where
        the history fixes it, None where the question does not arise. Needs pandas
        (``pip install grail-isolation[pandas]``)."""
        pd = _import("pandas", "edges_frame")
        rows = []
        for i, c in enumerate(self.cycles):
            for j, s in enumerate(c.steps):
                rows.append(
                    {
                        "cycle": i,
                        "anomaly": c.anomaly,
                        "name": c.name,
                        "step": j,
                        "from": s.from_,
                        "to": s.to,
                        "type": s.type,
                        "key": s.key,
                        "from_op": s.from_op.op,
                        "to_op": s.to_op.op,
                        "why": s.why,
                        "certain": s.certain,
                    }
                )
        columns = ["cycle", "anomaly", "name", "step", "from", "to", "type", "key", "from_op", "to_op", "why", "certain"]
        return pd.DataFrame(rows, columns=columns)

    def _repr_html_(self) -> str:
        return _html.report_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        # IPython's display (and the text/plain copy Jupyter stores): the explanation, capped.
        if cycle:
            p.text(repr(self))
            return
        lines = [_html.headline(self._data()), ""] + self.explain().rstrip("\n").split("\n")
        if len(lines) > _PRETTY_LINES:
            more = len(lines) - _PRETTY_LINES
            lines = lines[:_PRETTY_LINES] + [f"... {more} more lines: print(report.explain()) shows them all"]
        p.text("\n".join(lines))

    def __str__(self) -> str:
        return self.explain()

    def __repr__(self) -> str:
        verdicts = " ".join(f"{n}={lv['verdict']}" for n, lv in self._data()["levels"].items())
        return f"<grail.Report valid={self.valid} model={self.model!r} {verdicts}>"


def _import(name: str, what: str) -> Any:
    """Import an optional dependency, or say which extra provides it."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(f"{what}() needs {name}: pip install {name} (or grail-isolation[{name}])") from e
