"""Turning what a user hands over (a path, text, bytes, dicts) into bytes for the reader."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Sequence, Tuple, Union

__all__ = ["HistorySource", "LogSource", "to_bytes"]

#: A write-ahead log: a path, text, or bytes (gzip accepted).
LogSource = Union[str, bytes, bytearray, memoryview, "os.PathLike[str]"]
#: A history: a path, text, bytes (gzip accepted), or grail's native form as Python objects
#: (a sequence of transaction dicts, or a dict with "transactions").
HistorySource = Union[LogSource, Sequence[Mapping[str, Any]], Mapping[str, Any]]

# The first characters of a history or log given as text rather than as a path: EDN and JSON
# open with a brace or bracket, EDN may open with a comment.
_TEXT_STARTS = ("{", "[", ";")


def _looks_like_text(s: str) -> bool:
    stripped = s.lstrip()
    return stripped == "" or "\n" in s or stripped.startswith(_TEXT_STARTS)


def _file_of(path: str) -> str:
    """A directory holding dbcop's ``history.bincode`` (as PolySI and AWDIT name one) is that file."""
    inner = os.path.join(path, "history.bincode")
    return inner if os.path.isdir(path) and os.path.isfile(inner) else path


def to_bytes(source: Any, what: str, format: str) -> Tuple[bytes, str]:
    """Return the bytes to parse and the format to parse them in.

    A ``str`` is text when it is empty, spans lines or opens like EDN/JSON, else a path;
    ``os.PathLike`` is a path; bytes-like objects are the content (gzip or not); a list or
    tuple of dicts, or a dict with ``"transactions"``, is grail's native JSON form.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), format
    if isinstance(source, os.PathLike):
        with open(_file_of(os.fspath(source)), "rb") as f:
            return f.read(), format
    if isinstance(source, str):
        if _looks_like_text(source):
            return source.encode("utf-8"), format
        if not os.path.exists(source):
            raise FileNotFoundError(
                f"{what} {source!r} is not a file; to pass {what} as text, give the text itself "
                "(it opens with '{', '[' or ';', or spans lines) or bytes"
            )
        with open(_file_of(source), "rb") as f:
            return f.read(), format
    if isinstance(source, (list, tuple, Mapping)):
        if format not in ("auto", "json", "native", "timekiller"):
            from ._errors import UsageError

            raise UsageError(
                f"{what} given as Python objects is read as JSON, not as {format!r}", kind="usage"
            )
        try:
            text = json.dumps(source, separators=(",", ":"))
        except (TypeError, ValueError) as e:
            raise TypeError(f"{what} given as Python objects must be JSON-serializable: {e}") from e
        # "auto" tells grail's JSON from TimeKiller's (both are lists of dicts).
        return text.encode("utf-8"), "auto" if format == "auto" else format
    raise TypeError(
        f"{what} must be a path, text, bytes, or a list of dicts in grail's native form, "
        f"not {type(source).__name__}"
    )
