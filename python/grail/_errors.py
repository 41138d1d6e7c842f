"""The exceptions grail raises, one tree rooted at :class:`GrailError`.

The native module raises these classes (it imports this module when an error happens), so
every error that comes out of Rust carries its kind and, where the input has one, its place.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = ["GrailError", "HistoryError", "WalError", "UsageError"]


class GrailError(Exception):
    """Base class of every grail error.

    Attributes:
        message: what went wrong, without the place.
        kind: ``"syntax"``, ``"shape"``, ``"mixed-model"``, ``"wal"``, ``"usage"``, or
            ``"internal"`` (a bug in grail, caught before it could crash Python).
        line: 1-based line in the input, when the error has a place there.
        column: 1-based column (in characters), when the error has a place there.
        txn: the id of the transaction the error is about, when there is one.
    """

    message: str
    kind: str
    line: Optional[int]
    column: Optional[int]
    txn: Optional[int]

    def __init__(
        self,
        message: str,
        *,
        kind: str = "internal",
        line: Optional[int] = None,
        column: Optional[int] = None,
        txn: Optional[int] = None,
    ) -> None:
        self.message = message
        self.kind = kind
        self.line = line
        self.column = column
        self.txn = txn
        super().__init__(self._place() + message)

    def _place(self) -> str:
        if self.line is not None and self.column is not None:
            return f"line {self.line}, column {self.column}: "
        if self.line is not None:
            return f"line {self.line}: "
        if self.txn is not None:
            return f"transaction {self.txn}: "
        return ""

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # Keyword-only fields survive pickling (multiprocessing, concurrent.futures).
        return (_rebuild, (type(self), self.message, self.kind, self.line, self.column, self.txn))


def _rebuild(
    cls: type[GrailError],
    message: str,
    kind: str,
    line: Optional[int],
    column: Optional[int],
    txn: Optional[int],
) -> GrailError:
    return cls(message, kind=kind, line=line, column=column, txn=txn)


class HistoryError(GrailError, ValueError):
    """The history cannot be read: bad EDN or JSON (``kind="syntax"``), not the shape of a
    history (``"shape"``), or list appends mixed with register writes (``"mixed-model"``).

    >>> import grail
    >>> try:
    ...     grail.read('{:type :ok, :value [[:append :x 1]]}\\n{:type :ok, :value [[:r :x [1')
    ... except grail.HistoryError as e:
    ...     print(e.kind, e.line)
    syntax 2
    """


class WalError(HistoryError):
    """The write-ahead log is malformed or does not fit the history (``kind="wal"``)."""


class UsageError(GrailError, ValueError):
    """An invalid argument: an unknown format or level name (``kind="usage"``)."""
