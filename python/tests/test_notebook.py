"""python/examples/quickstart.ipynb runs headless (nbclient) and shows the cycle as SVG and the
statistics table."""

from __future__ import annotations

from conftest import CORPUS, REPO, need

import pytest

NOTEBOOK = REPO / "python" / "examples" / "quickstart.ipynb"


def outputs_of(cell):
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append(out.get("text", ""))
        for mime, value in out.get("data", {}).items():
            texts.append(f"[{mime}]" + (value if isinstance(value, str) else "".join(value)))
    return "\n".join(texts)


def test_quickstart_notebook_executes(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    need(CORPUS / "grail" / "anti-patterns" / "lost-update" / "history.edn.gz", "the lost-update history")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()  # raises CellExecutionError if any cell fails
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code)
    for c in code:
        assert not any(o.get("output_type") == "error" for o in c.get("outputs", [])), outputs_of(c)
    everything = "\n".join(outputs_of(c) for c in code)
    # The report: verdict table and the cycle drawn inline as SVG.
    report_cell = next(c for c in code if c.source.strip().endswith("report"))
    html = outputs_of(report_cell)
    assert "[text/html]" in html
    assert "<svg" in html and "grail-verdicts" in html
    assert "violated" in html and "holds" in html
    # The cycle on its own (its _repr_svg_), and its explanation.
    assert "[image/svg+xml]<svg" in everything
    assert "a contradiction!" in everything
    # The statistics table.
    assert "grail-stats" in everything and "9570" in everything
    # pandas and networkx cells ran.
    assert "transactions," in everything and "edges" in everything
    nbformat.write(nb, tmp_path / "executed.ipynb")  # the executed notebook is valid
    nbformat.validate(nbformat.read(tmp_path / "executed.ipynb", as_version=4))
