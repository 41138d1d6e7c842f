"""GRAIL's checkers as strategies: the same five levels decided by another search, with its work
counted (GRAIL thesis, chapter 4 and Figure 5.1)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple


__all__ = ["StrategyReport", "STRATEGIES"]

#: The strategies: the default engine and GRAIL's three checkers.
STRATEGIES = ("scc", "dfs", "shortest-path", "gabow")


class StrategyReport:
    """The verdicts of one strategy, as ``grail check FILE --strategy S --json`` prints them.

    ``levels`` maps each level to "violated", "holds", "not-detected" (a depth-bounded ``dfs``
    found no short cycle; longer ones were not searched) or "unknown"; ``cycles`` gives each
    violated level's cycle as ``(txns, types)``; ``counters`` the work per level (traversals
    started, edges visited); ``to_dict()`` the whole report.

    >>> import grail
    >>> r = grail.check_strategy('''
    ... {:index 0, :type :ok, :value [[:r :x []] [:append :x 1]]}
    ... {:index 1, :type :ok, :value [[:r :x []] [:append :x 2]]}
    ... {:index 2, :type :ok, :value [[:r :x [2]]]}''', "gabow")
    >>> r.levels
    {'SER': 'violated', 'SI': 'violated', 'PSI': 'violated', 'PL-2': 'holds', 'PL-1': 'holds'}
    >>> r.cycles["SER"]
    ((2, 0, 1), ('rw', 'rw', 'wr'))
    >>> r.valid
    False
    """

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @property
    def strategy(self) -> str:
        """The strategy's name: "scc", "dfs", "shortest-path" or "gabow"."""
        return str(self._data["strategy"])

    @property
    def max_depth(self) -> Optional[int]:
        """For ``dfs``, the longest cycle searched (in transactions); otherwise None."""
        d = self._data.get("max_depth")
        return None if d is None else int(d)

    @property
    def levels(self) -> Dict[str, str]:
        """Level name → verdict, strongest level first."""
        return {o["level"]: o["verdict"] for o in self._data["levels"]}

    @property
    def cycles(self) -> Dict[str, Optional[Tuple[Tuple[int, ...], Tuple[str, ...]]]]:
        """Level name → the cycle found, as (transaction ids, edge types), or None."""
        out: Dict[str, Optional[Tuple[Tuple[int, ...], Tuple[str, ...]]]] = {}
        for o in self._data["levels"]:
            c = o.get("cycle")
            out[o["level"]] = None if c is None else (tuple(c["txns"]), tuple(c["types"]))
        return out

    @property
    def counters(self) -> Dict[str, Dict[str, int]]:
        """Level name → ``{"traversals": ..., "edges_visited": ...}`` (zeros for ``scc``)."""
        return {o["level"]: dict(o["counters"]) for o in self._data["levels"]}

    @property
    def traversals(self) -> int:
        """Traversals started, over all levels."""
        return sum(int(o["counters"]["traversals"]) for o in self._data["levels"])

    @property
    def edges_visited(self) -> int:
        """Edges visited, over all levels."""
        return sum(int(o["counters"]["edges_visited"]) for o in self._data["levels"])

    @property
    def notes(self) -> List[str]:
        """Caveats (what the strategy does not decide)."""
        return list(self._data["notes"])

    @property
    def valid(self) -> Optional[bool]:
        """False when a level is violated, True when every level holds, otherwise None."""
        verdicts = self.levels.values()
        if "violated" in verdicts:
            return False
        if all(v == "holds" for v in verdicts):
            return True
        return None

    def to_dict(self) -> Dict[str, Any]:
        """The report as plain data, equal to the CLI's ``--strategy S --json`` output for dfs,
        shortest-path and gabow (for scc the CLI prints the full report of :func:`grail.check`)."""
        data: Dict[str, Any] = json.loads(json.dumps(self._data))
        return data

    def to_json(self, indent: Optional[int] = None) -> str:
        """The report as JSON."""
        return json.dumps(self._data, indent=indent)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StrategyReport) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        depth = "" if self.max_depth is None else f" (max depth {self.max_depth})"
        verdicts = ", ".join(f"{k}: {v}" for k, v in self.levels.items())
        return f"<grail.StrategyReport {self.strategy}{depth}: {verdicts}>"
