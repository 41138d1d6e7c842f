"""grail: check transaction histories for isolation anomalies.

grail reads a history that a database test recorded (Jepsen EDN, elle-cli JSON, or grail's
native JSON form, gzip accepted), builds its dependency graph (Adya's ww, wr and rw edges) and
decides five isolation levels: SER, SI, PSI, PL-2 and PL-1, each with a counterexample cycle
when it is violated.

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
``history.graph().to_networkx()`` a networkx graph (pandas and networkx are optional).
``grail.check(..., analyze=True).analysis`` counts cycles by class and label pattern, and
``grail.OnlineChecker`` checks a stream of transactions as they complete.
"""

from ._analysis import Analysis, OnlineChecker
from ._errors import GrailError, HistoryError, UsageError, WalError
from ._grail import LEVELS as _LEVELS
from ._grail import __version__
from ._history import Graph, History, check, check_strategy, read
from ._report import Anomaly, Cycle, LevelResult, OpRef, Report, Stats, Step
from ._strategy import STRATEGIES, StrategyReport

#: The five levels, strongest first.
LEVELS = tuple(_LEVELS)

__all__ = [
    "check",
    "check_strategy",
    "read",
    "History",
    "Graph",
    "Report",
    "LevelResult",
    "Cycle",
    "Step",
    "OpRef",
    "Anomaly",
    "Stats",
    "StrategyReport",
    "STRATEGIES",
    "Analysis",
    "OnlineChecker",
    "GrailError",
    "HistoryError",
    "WalError",
    "UsageError",
    "LEVELS",
    "__version__",
]
