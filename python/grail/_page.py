"""The HTML report page as a string that notebooks show inline.

The page is a whole document with its own stylesheet (``body``, ``table``, ``h2`` ...), so it is
shown in an iframe whose ``srcdoc`` holds it, escaped: its styles stay inside the frame, and the
frame is part of the cell's output, so an nbconvert HTML export carries the page itself rather
than a link to a file (an ``IFrame`` of a saved page is blank wherever the export is opened
without that file beside it).
"""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["HTMLPage"]

#: The frame's height before it is fitted to the page, and where fitting cannot run (an output
#: shown without its inline handler); the page scrolls inside it.
FALLBACK_HEIGHT = 640

# Once loaded, the frame takes the page's height, up to 90% of the window's (a report with a
# dozen counterexamples and a timeline is ten screens long: it scrolls inside the frame). The
# sandbox keeps the page's origin, so that the handler can measure it, but runs none of its
# scripts (it has none: grail's page is script-free).
_FIT = (
    "try{this.style.height=Math.min(this.contentDocument.documentElement.scrollHeight+4,"
    f"Math.max({FALLBACK_HEIGHT},Math.round(window.innerHeight*0.9)))+'px'}}catch(e){{}}"
)


class HTMLPage(str):
    """A self-contained HTML page (what :meth:`Report.to_html` returns): a ``str``, to write to
    a file or serve, that Jupyter (and an nbconvert HTML export of the notebook) shows inline,
    in a sandboxed frame fitted to its height.

    >>> import grail
    >>> page = grail.check('{:type :ok, :value [[:append :x 1]]}').to_html(title="one.edn")
    >>> isinstance(page, str), page.startswith("<!DOCTYPE html>")
    (True, True)
    >>> page._repr_html_().startswith('<iframe class="grail-page" title="grail report" srcdoc="&lt;!DOCTYPE html&gt;')
    True
    """

    __slots__ = ()

    def _repr_html_(self) -> str:
        return (
            f'<iframe class="grail-page" title="grail report" srcdoc="{escape(self, quote=True)}" '
            f'sandbox="allow-same-origin" onload="{_FIT}" '
            f'style="width:100%;height:{FALLBACK_HEIGHT}px;border:1px solid #ddd;border-radius:6px"></iframe>'
        )

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        # The text copy Jupyter stores beside the HTML: a line, not the page a second time.
        p.text(f"<grail HTML page, {len(self):,} characters: print() it or write it to a file>")
