"""HTML for Jupyter: the verdict table, statistics, and each counterexample drawn as SVG.

Everything that comes from a history (keys, values, explanations) is escaped; what is shown is
capped so that a history with thousands of anomalies still renders quickly.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any, Dict, List

if TYPE_CHECKING:  # pragma: no cover
    from ._report import Report

#: At most this many cycles are drawn, and this many findings listed, in a report's HTML.
MAX_CYCLES_SHOWN = 6
MAX_FINDINGS_SHOWN = 20

_VERDICT_STYLE = {
    "holds": "background:#e6f4ea;color:#1e6b34",
    "violated": "background:#fce8e6;color:#a50e0e",
    "unknown": "background:#f1f3f4;color:#444",
}


def _e(s: object) -> str:
    return escape(str(s), quote=True)


def stats_table(stats: Dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th style='text-align:left'>{_e(k)}</th>"
        f"<td style='text-align:right'>{_e(f'{v:.4f}' if isinstance(v, float) else v)}</td></tr>"
        for k, v in stats.items()
    )
    return f"<table class='grail-stats'><tbody>{rows}</tbody></table>"


def _count(n: int, one: str, many: str = "") -> str:
    # As core's words: "1 transaction", "2 transactions", "1 vertex".
    return f"{n} {one if n == 1 else many or one + 's'}"


def _listed(names: List[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def headline(data: Dict[str, Any]) -> str:
    """The verdict in a sentence, led by the weakest violated levels: every level stronger than
    one of those is violated too (docs/levels.md), so naming the strongest (the first row of the
    table) would say the least. Also the text display's first line."""
    weakest = data["weakest_violated"]
    if weakest:
        one = len(weakest) == 1
        line = f"{_listed(weakest)} {'is' if one else 'are'} violated"
        if data["also_violated"]:
            line += f", and so is every {'stronger level' if one else 'level stronger than one of them'}"
        return line
    if data["valid"] is None:
        unknown = [n for n, lv in data["levels"].items() if lv["valid"] is None]
        return f"no checked level is violated; unknown: {', '.join(unknown)}"
    if data.get("broken_assumptions"):
        return "no checked level is violated"  # the broken assumptions follow
    return "every checked level holds"


def report_html(report: "Report") -> str:
    data = report.to_dict()
    out: List[str] = ["<div class='grail-report'>"]
    out.append(
        f"<p class='grail-headline'><b>grail</b>: {_e(headline(data))} "
        f"<span style='color:#666'>({_e(data['model'])} history)</span></p>"
    )
    if data.get("broken_assumptions"):
        out.append(
            "<p style='color:#a50e0e'>Invalid history: it breaks the data model's assumptions "
            f"({_e(', '.join(data['broken_assumptions']))}); levels that do not proscribe these were "
            "checked with them set aside.</p>"
        )
    if data["also_violated"]:
        out.append(f"<p style='color:#666'>also violated: {_e(', '.join(data['also_violated']))}</p>")
    out.append(
        "<table class='grail-verdicts'><thead><tr><th style='text-align:left'>level</th>"
        "<th style='text-align:left'>verdict</th><th style='text-align:left'>anomalies</th>"
        "</tr></thead><tbody>"
    )
    for name, lv in data["levels"].items():
        style = _VERDICT_STYLE.get(lv["verdict"], "")
        note = f" <span style='color:#666'>({_e(lv['reason'])})</span>" if lv.get("reason") else ""
        out.append(
            f"<tr><td style='text-align:left'><b>{_e(name)}</b></td>"
            f"<td style='text-align:left;{style}'>{_e(lv['verdict'])}</td>"
            f"<td style='text-align:left'>{_e(', '.join(lv['anomalies']))}{note}</td></tr>"
        )
    out.append("</tbody></table>")
    st = data["stats"]
    out.append(
        f"<p style='color:#444'>{_e(_count(st['transactions'], 'transaction'))} ({_e(st['committed'])} committed, "
        f"{_e(st['aborted'])} aborted, {_e(st['indeterminate'])} indeterminate); graph: "
        f"{_e(_count(st['vertices'], 'vertex', 'vertices'))}, {_e(_count(st['edges'], 'edge'))} ({_e(st['ww'])} ww, "
        f"{_e(st['wr'])} wr, {_e(st['rw'])} rw)</p>"
    )

    # Each level's first cycle, each distinct cycle once, weakest level first (the levels come
    # strongest first, an order the implications respect): a cycle is named after the weakest
    # level it violates.
    shown = set()
    drawn = 0
    levels = report.levels
    for name, lv in reversed(levels.items()):
        if not lv.cycles:
            continue
        c = lv.cycles[0]
        if c.txns in shown:
            continue
        shown.add(c.txns)
        if drawn == MAX_CYCLES_SHOWN:
            out.append("<p>More cycles: see <code>report.cycles</code>.</p>")
            break
        drawn += 1
        minimal = ", minimal" if c.minimal else ""
        # As core's text report heads it (CycleReport::heading).
        head = (
            f"{_e(c.anomaly)} counterexample: a {_e(c.cycle_anomaly)} cycle ({_e(c.name)}{minimal}) through chosen versions"
            if c.cycle_anomaly
            else f"{_e(c.anomaly)} cycle ({_e(c.name)}{minimal})"
        )
        out.append(
            f"<details open><summary>{_e(name)} is violated by this {head}</summary>"
            f"<div>{c.to_svg()}</div><pre style='white-space:pre-wrap'>{_e(c.explanation)}</pre>"
            "</details>"
        )

    findings = [a for a in data["anomalies"] if a.get("cycle") is None]
    if findings:
        out.append("<p><b>Other anomalies</b></p><ul>")
        for a in findings[:MAX_FINDINGS_SHOWN]:
            out.append(f"<li><b>{_e(a['type'])}</b>: {_e(a['explanation'])}</li>")
        if len(findings) > MAX_FINDINGS_SHOWN:
            out.append(f"<li>… and {len(findings) - MAX_FINDINGS_SHOWN} more</li>")
        out.append("</ul>")
    for n in data["notes"]:
        out.append(f"<p style='color:#666'>note: {_e(n)}</p>")
    out.append("</div>")
    return "".join(out)
