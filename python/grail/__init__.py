"""grail: check transaction histories for isolation anomalies.

grail reads a history that a database test recorded (Jepsen EDN, elle-cli JSON, or grail's
native JSON form, gzip accepted), builds its dependency graph (Adya's ww, wr and rw edges) and
decides isolation levels, each with a counterexample cycle when it is violated: by default the
five classic ones (SER, SI, PSI, PL-2, PL-1); with ``levels="all"`` also strict and
strong-session SER and SI, and the weak levels RC, RA and causal consistency (``ALL_LEVELS``).

>>> import grail
>>> report = grail.check('''
... {:type :ok, :value [[:r :x []] [:append :x 1]]}
... {:type :ok, :value [[:r :x []] [:append :x 2]]}
... {:type :ok, :value [[:r :x [2]]]}''')
>>> report.valid
False
>>> [name for name, level in report.levels.items() if level.valid is False]
['SER', 'SI', 'PSI']

In Jupyter a report shows as a verdict table with each counterexample drawn as SVG;
``report.edges_frame()`` and ``history.to_pandas()`` give pandas DataFrames, and
``history.graph().to_networkx()`` a networkx graph (pandas and networkx are optional), and
``history.graph().to_graphdb()`` the graph in an embedded graph database (LadybugDB, optional)
with GRAIL's Cypher queries for the five levels.
``grail.check(..., analyze=True).analysis`` counts cycles by class and label pattern, and
``grail.OnlineChecker`` checks a stream of transactions as they complete. Histories whose
transactions carry the database's start and commit timestamps (``start_ts``/``commit_ts``,
TimeKiller's ``sts``/``cts``) or a ``commit_order`` are also checked against those claims
(``report.white_box``; ``grail.TimestampOnlineChecker`` online; ``docs/timestamps.md``).
"""

from ._analysis import Analysis, OnlineChecker, TimestampOnlineChecker
from ._errors import GrailError, HistoryError, UsageError, WalError
from ._grail import ALL_LEVELS as _ALL_LEVELS
from ._grail import LEVELS as _LEVELS
from ._grail import __version__
from ._certificate import Verification
from ._graphdb import GraphDB, GraphDBLevel
from ._history import Graph, History, Transaction, check, check_strategy, read, verify
from ._page import HTMLPage
from ._report import Anomaly, Cycle, ForcedOrder, Level, LevelResult, OpRef, OtherOrder, Report, Stats, Step
from ._strategy import STRATEGIES, StrategyReport

#: The five classic levels, strongest first: checked when ``levels`` is not given.
LEVELS = tuple(_LEVELS)
#: Every level grail checks, strongest first (``levels="all"``): the classic five, their
#: strong-session and strict variants, and the weak levels RC, RA and CC.
ALL_LEVELS = tuple(_ALL_LEVELS)

__all__ = [
    "check",
    "verify",
    "Verification",
    "check_strategy",
    "read",
    "History",
    "Transaction",
    "Graph",
    "GraphDB",
    "GraphDBLevel",
    "Report",
    "HTMLPage",
    "Level",
    "LevelResult",
    "Cycle",
    "OtherOrder",
    "ForcedOrder",
    "Step",
    "OpRef",
    "Anomaly",
    "Stats",
    "StrategyReport",
    "STRATEGIES",
    "Analysis",
    "OnlineChecker",
    "TimestampOnlineChecker",
    "GrailError",
    "HistoryError",
    "WalError",
    "UsageError",
    "LEVELS",
    "ALL_LEVELS",
    "__version__",
]
