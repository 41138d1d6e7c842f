"""Report.to_html(): the self-contained page of `grail check --html`, from Python."""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from conftest import CASES

import grail

WITH_NEMESIS = """\
{:index 0, :type :invoke, :f :txn, :process 0, :time 10, :value [[:r x nil] [:append x 1]]}
{:index 1, :type :invoke, :f :txn, :process 1, :time 11, :value [[:r x nil] [:append x 2]]}
{:index 2, :type :info, :f :start-partition, :process :nemesis, :time 12, :value :majority}
{:index 3, :type :ok, :f :txn, :process 0, :time 20, :value [[:r x []] [:append x 1]]}
{:index 4, :type :ok, :f :txn, :process 1, :time 21, :value [[:r x []] [:append x 2]]}
{:index 5, :type :info, :f :stop-partition, :process :nemesis, :time 25, :value nil}
{:index 6, :type :invoke, :f :txn, :process 2, :time 30, :value [[:r x nil]]}
{:index 7, :type :ok, :f :txn, :process 2, :time 40, :value [[:r x [2]]]}
"""


def test_to_html_is_a_self_contained_page_with_the_counterexample_and_the_nemesis():
    report = grail.check(WITH_NEMESIS)
    page = report.to_html(title="lost <update>.edn")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "grail report: <span class=\"mono\">lost &lt;update&gt;.edn</span>" in page
    assert '<span class="badge invalid">INVALID</span>' in page
    assert re.search(r'<tr data-level="PSI"><td><strong>PSI</strong></td><td class="verdict violated">violated', page)
    assert page.count('<section class="counterexample"') == 1
    section = page[page.index('<section class="counterexample"') : page.index("</section>")]
    assert section.count('class="txn"') == 2  # the two boxes of the drawn cycle
    assert page.count('class="txn marked"') == 2  # and their bars on the timeline
    # The sub-history: the two transactions alone show the lost update (their appends' order is
    # open), with their invocation times.
    assert "{:index 0, :type :invoke, :process 0, :value [[:r x nil] [:append x 1]], :time 10}" in page
    assert "Minimal sub-history (2 transactions;" in page
    # The timeline: one bar per transaction, the nemesis operations and the partition's span.
    assert page.count('class="nemesis"') == 2
    assert "<title>start-partition .. stop-partition</title>" in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_to_html_is_what_the_cli_writes(cli: str, tmp_path: Path):
    path = CASES / "G-single" / "lost-update.edn"
    out = tmp_path / "r.html"
    subprocess.run([cli, "check", str(path), "--html", str(out)], capture_output=True, check=False)
    assert grail.check(path).to_html(title="lost-update.edn") == out.read_text()


class Frames(HTMLParser):
    """The elements and their attributes as a browser reads them (entities decoded)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_to_html_shows_inline_in_a_sandboxed_frame():
    hostile = [
        {"id": 1, "status": "committed", "ops": [["r", '"x"&<script>', []], ["append", '"x"&<script>', "'1'"]]},
        {"id": 2, "status": "committed", "ops": [["r", '"x"&<script>', []], ["append", '"x"&<script>', "</iframe>"]]},
        {"id": 3, "status": "committed", "ops": [["r", '"x"&<script>', ["</iframe>"]]]},
    ]
    page = grail.check(hostile).to_html(title='a "title" & </iframe>')
    assert isinstance(page, str) and isinstance(page, grail.HTMLPage)
    assert page.startswith("<!DOCTYPE html>") and "&lt;/iframe&gt;" in page
    shown = page._repr_html_()
    # One element, whose srcdoc is the page exactly: the quotes, ampersands and tags the
    # history puts in the page neither end the attribute nor the frame.
    (tag, attrs), = Frames(shown).tags
    assert tag == "iframe" and attrs["srcdoc"] == page
    assert attrs["sandbox"] == "allow-same-origin"  # no allow-scripts: nothing in it runs
    assert shown.count("<") == 2 and shown.endswith("></iframe>")
    # The text copy a notebook stores beside it is a line, not the page again.
    out = []
    page._repr_pretty_(type("P", (), {"text": lambda self, s: out.append(s)})(), False)
    assert out == [f"<grail HTML page, {len(page):,} characters: print() it or write it to a file>"]
    # Still the string the CLI writes: equal to it, saved as is.
    assert str(page) == page and page == grail.check(hostile).to_html(title='a "title" & </iframe>')
