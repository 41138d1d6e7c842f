"""Type stubs of the native module grail._grail (checked against it by mypy.stubtest)."""

from typing import Any, Dict, List, Optional, final

__all__ = [
    "read",
    "parse_levels",
    "_panic_for_tests",
    "History",
    "Graph",
    "Report",
    "OnlineChecker",
    "ERROR_KINDS",
    "LEVELS",
    "ALL_LEVELS",
    "ANOMALY_KINDS",
    "EDGE_COLOURS",
    "DEFAULT_MAX_CYCLES",
    "report_schema",
    "__version__",
]

__version__: str
ERROR_KINDS: List[str]
LEVELS: List[str]
ALL_LEVELS: List[str]
ANOMALY_KINDS: List[str]
EDGE_COLOURS: Dict[str, str]
DEFAULT_MAX_CYCLES: int

@final
class History:
    def __len__(self) -> int: ...
    @property
    def model(self) -> str: ...
    @property
    def has_version_order(self) -> bool: ...
    def check(
        self,
        levels: Optional[str] = None,
        max_steps: Optional[int] = None,
        max_cycles: int = ...,
        budget: Optional[float] = None,
        analyze: Optional[str] = None,
        register_mode: str = "auto",
    ) -> Report: ...
    def check_strategy(
        self,
        strategy: str,
        max_depth: Optional[int] = None,
        levels: Optional[str] = None,
    ) -> str: ...
    def graph(self) -> Graph: ...
    def op_columns(self) -> Dict[str, List[Any]]: ...
    def txn_text(self, id: int) -> Optional[str]: ...

@final
class Graph:
    def __len__(self) -> int: ...
    def vertex_columns(self) -> Dict[str, List[Any]]: ...
    def edge_columns(self) -> Dict[str, List[Any]]: ...
    def stats_json(self) -> str: ...
    @property
    def notes(self) -> List[str]: ...

@final
class Report:
    def to_json(self) -> str: ...
    def explain(self) -> str: ...
    def to_html(self, title: Optional[str] = None) -> str: ...
    @property
    def valid(self) -> Optional[bool]: ...

@final
class OnlineChecker:
    def __new__(cls, options: str = "{}") -> OnlineChecker: ...
    def push_json(self, txn: str) -> List[str]: ...
    def summary_json(self) -> str: ...
    def memory_estimate(self) -> int: ...

def read(data: bytes, format: str = "auto", wal: Optional[bytes] = None) -> History: ...
def parse_levels(levels: str) -> List[str]: ...
def report_schema() -> str: ...
def _panic_for_tests() -> None: ...
