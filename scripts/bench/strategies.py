#!/usr/bin/env python3
"""Each strategy's time on the List1 series (GRAIL thesis, Figure 5.1, redrawn).

Runs `grail check FILE --strategy S --json -v` for S in scc, dfs (max depth 4), shortest-path
and gabow on the 15 List1 histories (list-collection-time/{10..150}.edn.gz), best of
GRAIL_BENCH_STRATEGY_RUNS (default 3) wall times, with the check time the CLI reports (-v) and
the work counters (traversals, edges visited, summed over the five levels). Prints a Markdown
table, writes bench-out/strategies.json and the plot docs/strategies-list1.svg (hand-written
SVG: wall time and check time against collection time, one line per strategy).

Environment: GRAIL_CLI (default target/release/grail; make bench sets target/dist/grail), GRAIL_CORPUS (default ../shared/corpus),
GRAIL_BENCH_STRATEGY_RUNS. Python standard library only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("GRAIL_CLI") or ROOT / "target" / "release" / "grail")
CORPUS = Path(os.environ.get("GRAIL_CORPUS") or ROOT.parent / "shared" / "corpus")
SERIES = CORPUS / "grail" / "list" / "list-collection-time"
RUNS = int(os.environ.get("GRAIL_BENCH_STRATEGY_RUNS", "3"))
OUT_JSON = ROOT / "bench-out" / "strategies.json"
OUT_SVG = ROOT / "docs" / "strategies-list1.svg"

# (label, CLI arguments, colour)
STRATEGIES = [
    ("scc", ["--strategy", "scc"], "#1f77b4"),
    ("dfs (depth 4)", ["--strategy", "dfs", "--max-depth", "4"], "#d62728"),
    ("shortest-path", ["--strategy", "shortest-path"], "#2ca02c"),
    ("gabow", ["--strategy", "gabow"], "#ff7f0e"),
]
TIMES = list(range(10, 151, 10))
CHECKED = re.compile(r"checked (?:with \S+ )?in ([0-9.]+) s")


def run_one(path: Path, args: list[str]) -> dict:
    best_wall = best_check = None
    report = None
    for _ in range(RUNS):
        t0 = time.perf_counter()
        p = subprocess.run([str(CLI), "check", str(path), *args, "--json", "-v"], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise SystemExit(f"strategies: grail failed on {path} ({p.returncode}): {p.stderr}")
        m = CHECKED.search(p.stderr)
        check = float(m.group(1)) if m else None
        best_wall = wall if best_wall is None else min(best_wall, wall)
        if check is not None:
            best_check = check if best_check is None else min(best_check, check)
        report = json.loads(p.stdout)
    assert report is not None
    levels = report["levels"]
    if isinstance(levels, dict):  # scc: the CLI prints the default engine's full report
        return {
            "wall_ms": round(best_wall * 1000, 2),
            "check_ms": None if best_check is None else round(best_check * 1000, 1),
            "traversals": None,
            "edges_visited": None,
            "verdicts": {name: lv["verdict"] for name, lv in levels.items()},
        }
    return {
        "wall_ms": round(best_wall * 1000, 2),
        "check_ms": None if best_check is None else round(best_check * 1000, 1),
        "traversals": sum(o["counters"]["traversals"] for o in levels),
        "edges_visited": sum(o["counters"]["edges_visited"] for o in levels),
        "verdicts": {o["level"]: o["verdict"] for o in levels},
    }


def svg_panel(x0: float, y0: float, w: float, h: float, title: str, series: dict, key: str) -> list[str]:
    """One line chart: x = collection time (s), y = milliseconds."""
    ymax = max((r[key] or 0) for rows in series.values() for r in rows) or 1.0
    # A round upper bound: 1, 2 or 5 times a power of ten.
    mag = 10 ** len(str(int(ymax))) / 10 if ymax >= 1 else 0.1
    top = next(m * mag for m in (1, 2, 5, 10) if m * mag >= ymax)
    px = lambda t: x0 + (t - 10) / 140 * w  # noqa: E731
    py = lambda v: y0 + h - v / top * h  # noqa: E731
    out = [f'<text x="{x0 + w / 2:.1f}" y="{y0 - 12:.1f}" text-anchor="middle" font-weight="bold">{title}</text>']
    out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#444"/>')
    for i in range(6):
        v = top * i / 5
        y = py(v)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
    for t in TIMES:
        x = px(t)
        out.append(f'<line x1="{x:.1f}" y1="{y0 + h}" x2="{x:.1f}" y2="{y0 + h + 4}" stroke="#444"/>')
        if t % 20 == 10 or t == 150:
            out.append(f'<text x="{x:.1f}" y="{y0 + h + 18}" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{x0 + w / 2:.1f}" y="{y0 + h + 36}" text-anchor="middle">collection time (s)</text>')
    out.append(
        f'<text x="{x0 - 44}" y="{y0 + h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 {x0 - 44} {y0 + h / 2:.1f})">time (ms)</text>'
    )
    for label, _, colour in STRATEGIES:
        pts = [(px(r["t"]), py(r[key])) for r in series[label] if r[key] is not None]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>' for x, y in pts]
    return out


def write_svg(series: dict, load: str) -> None:
    w, h = 360, 240
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="380" viewBox="0 0 900 380" '
        'font-family="sans-serif" font-size="12">',
        '<rect width="900" height="380" fill="white"/>',
    ]
    parts += svg_panel(70, 40, w, h, f"wall time of grail check (best of {RUNS})", series, "wall_ms")
    parts += svg_panel(520, 40, w, h, "check time (reported by grail -v)", series, "check_ms")
    for i, (label, _, colour) in enumerate(STRATEGIES):
        x = 120 + i * 180
        parts.append(f'<line x1="{x}" y1="338" x2="{x + 24}" y2="338" stroke="{colour}" stroke-width="3"/>')
        parts.append(f'<text x="{x + 30}" y="342">{label}</text>')
    parts.append(
        f'<text x="450" y="368" text-anchor="middle" fill="#666">List1 series (15 histories), '
        f'grail {load}</text>'
    )
    parts.append("</svg>")
    OUT_SVG.write_text("\n".join(parts) + "\n")


def main() -> int:
    if not CLI.exists():
        print(f"strategies: {CLI} not built (cargo build --release -p grail-cli)", file=sys.stderr)
        return 1
    files = [SERIES / f"{t}.edn.gz" for t in TIMES]
    missing = [f for f in files if not f.exists()]
    if missing:
        print(f"strategies: the List1 series is missing ({missing[0]}); skipped", file=sys.stderr)
        return 0
    load_before = os.getloadavg()
    series: dict = {label: [] for label, _, _ in STRATEGIES}
    for t, f in zip(TIMES, files):
        for label, args, _ in STRATEGIES:
            r = run_one(f, args)
            r["t"] = t
            series[label].append(r)
    load_after = os.getloadavg()
    load = f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after (1 min), {os.cpu_count()} CPUs"

    labels = [label for label, _, _ in STRATEGIES]
    head = "| collection time (s) | " + " | ".join(f"{l} wall / check ms" for l in labels) + " |"
    lines = [head, "|---:|" + "---:|" * len(labels)]
    for i, t in enumerate(TIMES):
        cells = []
        for l in labels:
            r = series[l][i]
            check = "–" if r["check_ms"] is None else f"{r['check_ms']:g}"
            cells.append(f"{r['wall_ms']:.1f} / {check}")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    work = ["", "| collection time (s) | " + " | ".join(f"{l} traversals / edges" for l in labels[1:]) + " |",
            "|---:|" + "---:|" * (len(labels) - 1)]
    for i, t in enumerate(TIMES):
        work.append(
            f"| {t} | "
            + " | ".join(f"{series[l][i]['traversals']} / {series[l][i]['edges_visited']}" for l in labels[1:])
            + " |"
        )
    print("\n".join(lines + work))
    print(f"\n{load}")

    OUT_JSON.parent.mkdir(exist_ok=True)
    OUT_JSON.write_text(
        json.dumps(
            {
                "cli": str(CLI),
                "series": str(SERIES),
                "runs": RUNS,
                "load_average_before": load_before,
                "load_average_after": load_after,
                "strategies": series,
            },
            indent=2,
        )
        + "\n"
    )
    write_svg(series, load)
    print(f"wrote {OUT_JSON.relative_to(ROOT)} and {OUT_SVG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
