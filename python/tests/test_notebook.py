"""The example notebooks (python/examples/*.ipynb) run headless with a real kernel (nbclient,
ipykernel in the test virtualenv) and their outputs are checked against the CLI's verdicts for
the same history; an nbconvert HTML export of the executed quickstart carries the report page
itself (in the frame's ``srcdoc``), not a frame pointing at a file the export does not have."""

from __future__ import annotations

import html
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Dict, List, Optional

import nbclient
import nbconvert
import nbformat
import pytest
from conftest import CORPUS, REPO, need, run_cli

EXAMPLES = REPO / "python" / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
QUICKSTART = EXAMPLES / "quickstart.ipynb"
LOST_UPDATE = CORPUS / "grail" / "anti-patterns" / "lost-update" / "history.edn.gz"


def outputs_of(cell: Any) -> str:
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append(out.get("text", ""))
        for mime, value in out.get("data", {}).items():
            texts.append(f"[{mime}]" + (value if isinstance(value, str) else "".join(value)))
    return "\n".join(texts)


def html_of(cell: Any) -> str:
    (out,) = [o for o in cell.get("outputs", []) if "text/html" in o.get("data", {})]
    value = out["data"]["text/html"]
    return value if isinstance(value, str) else "".join(value)


def cell_ending(nb: Any, text: str) -> Any:
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.strip().endswith(text)]
    return cell


class Tables(HTMLParser):
    """The tables by class (in order), each a list of rows of cell texts, and each iframe's
    attributes (unescaped, as a browser reads them)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: Dict[str, List[List[List[str]]]] = {}
        self.iframes: List[Dict[str, Optional[str]]] = []
        self._table: Optional[str] = None
        self._row: Optional[List[str]] = None
        self._cell: Optional[List[str]] = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("class") or ""
            self.tables.setdefault(self._table, []).append([])
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "iframe":
            self.iframes.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table][-1].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def execute(path: Path) -> Any:
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError if any cell fails
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Dict[Path, Any]:
    need(LOST_UPDATE, "the lost-update history")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAIL_CORPUS", str(CORPUS))  # the kernel inherits it
        return {path: execute(path) for path in NOTEBOOKS}


def test_examples_exist():
    assert QUICKSTART in NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_without_errors_or_warnings(executed: Dict[Path, Any], path: Path, tmp_path: Path):
    nb = executed[path]
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code)
    for c in code:
        kinds = [(o.get("output_type"), o.get("name")) for o in c.get("outputs", [])]
        assert ("error", None) not in kinds and ("stream", "stderr") not in kinds, (c.source, outputs_of(c))
    nbformat.write(nb, tmp_path / path.name)  # the executed notebook is valid
    nbformat.validate(nbformat.read(tmp_path / path.name, as_version=4))


def verdict_rows(levels: Dict[str, Any]) -> List[List[str]]:
    return [[name, lv["verdict"], ", ".join(lv["anomalies"])] for name, lv in levels.items()]


def lead(weakest: List[str]) -> str:
    # The headline's wording for one or two weakest levels, as docs/levels.md's lattice puts it.
    if len(weakest) == 1:
        return f"{weakest[0]} is violated, and so is every stronger level"
    return f"{' and '.join(weakest)} are violated, and so is every level stronger than one of them"


def test_quickstart_shows_the_clis_verdicts(executed: Dict[Path, Any], cli: str):
    nb = executed[QUICKSTART]
    everything = "\n".join(outputs_of(c) for c in nb.cells if c.cell_type == "code")
    # The report: the verdict table is the CLI's, led by the weakest violated level.
    expected = run_cli(cli, str(LOST_UPDATE))
    report = html_of(cell_ending(nb, "report"))
    (table,) = Tables(report).tables["grail-verdicts"]
    assert table[1:] == verdict_rows(expected["levels"])
    assert expected["weakest_violated"] == ["PSI"]
    assert f"<b>grail</b>: {lead(expected['weakest_violated'])} " in report
    assert "<svg" in report
    # Every level: the weakest violated printed, and the levels frame's verdicts, the CLI's.
    every = run_cli(cli, str(LOST_UPDATE), "--levels", "all")
    report = html_of(cell_ending(nb, "\nevery"))
    (table,) = Tables(report).tables["grail-verdicts"]
    assert table[1:] == verdict_rows(every["levels"])
    assert every["weakest_violated"] == ["PSI", "RC"]
    assert f"<b>grail</b>: {lead(every['weakest_violated'])} " in report
    # Cycles drawn weakest level first: RA's fractured read (RC's violation, a non-monotonic
    # read, is a finding without a cycle); none under strict-SER: each of its cycles is drawn
    # under a weaker level it also violates.
    drawn = re.findall(r"<summary>(\S+) is violated by this", report)
    with_cycles = [n for n, lv in every["levels"].items() if lv["cycles"]]
    assert drawn[0] == with_cycles[-1] == "RA" and "strict-SER" not in drawn
    assert "<b>non-monotonic-read</b>" in report
    cell = cell_ending(nb, "every.levels_frame()")
    assert f"weakest violated: {every['weakest_violated']}\n" in outputs_of(cell)
    ((frame,),) = Tables(html_of(cell)).tables.values()
    assert frame[0][:4] == ["", "level", "verdict", "valid"]
    assert [row[1:3] for row in frame[1:]] == [[n, lv["verdict"]] for n, lv in every["levels"].items()]
    # The cycle on its own (its _repr_svg_), and its explanation.
    assert "[image/svg+xml]<svg" in everything
    assert "a contradiction!" in everything
    # The statistics table.
    assert "grail-stats" in everything and str(expected["stats"]["transactions"]) in everything
    # pandas and networkx cells ran.
    assert "transactions," in everything and "edges" in everything


def the_page(cli: str, tmp_path: Path) -> str:
    out = tmp_path / "page.html"
    done = subprocess.run([cli, "check", str(LOST_UPDATE), "--html", str(out)], capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return out.read_text()


def test_quickstart_shows_the_report_page_inline(executed: Dict[Path, Any], cli: str, tmp_path: Path):
    cell = cell_ending(executed[QUICKSTART], "titles it")
    (frame,) = Tables(html_of(cell)).iframes
    # The whole page the CLI writes, byte for byte, in a sandbox that runs no script of it.
    assert frame["srcdoc"] == the_page(cli, tmp_path)
    assert frame["class"] == "grail-page" and frame["sandbox"] == "allow-same-origin"
    (plain,) = [o["data"]["text/plain"] for o in cell.outputs if "text/plain" in o.get("data", {})]
    assert plain.startswith("<grail HTML page, ") and len(plain) < 200  # not the page twice


def test_nbconvert_html_export_carries_the_page(executed: Dict[Path, Any], cli: str, tmp_path: Path):
    nb = executed[QUICKSTART]
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    (tmp_path / "quickstart.html").write_text(body)
    parsed = Tables(body)
    (frame,) = [f for f in parsed.iframes if f.get("class") == "grail-page"]
    page = the_page(cli, tmp_path)
    assert frame["srcdoc"] == page
    # What the page shows is in the export: its verdict table (the CLI's verdicts), the
    # counterexample drawn, the statistics.
    expected = run_cli(cli, str(LOST_UPDATE))
    inner = Tables(frame["srcdoc"] or "").tables
    assert [row[:3] for row in inner["verdicts"][0][1:]] == verdict_rows(expected["levels"])
    assert ["transactions", str(expected["stats"]["transactions"])] in inner["stats"][0]
    assert "<svg" in page and html.escape("<svg") in body  # escaped once, inside the attribute
    # The notebook's own outputs are in the export too: the two reports' verdict tables.
    default, every = parsed.tables["grail-verdicts"]
    assert default[1:] == verdict_rows(expected["levels"])
    assert every[1:] == verdict_rows(run_cli(cli, str(LOST_UPDATE), "--levels", "all")["levels"])
