#!/usr/bin/env python3
"""Time a check from Python against the CLI's, on the largest corpus history.

    .venv/bin/python scripts/bench-python.py [--runs N] [--history PATH]

Not a test (timings vary with the machine's load): it prints both numbers and their ratio.
The target is Python at most 10% over the CLI. Compared:

- python: ``grail.check(path)`` in this process (read the file, unzip, parse, build the
  graph, search, build the report);
- cli: ``grail check PATH --json`` as a subprocess, wall time (process start and JSON output
  included), and the CLI's own time for the same phases (its ``-v`` timings: read, graph, check).

Each is run ``--runs`` times after one warm-up; the minimum and the median are printed.
Run ``make test-python`` first (it makes .venv with grail installed and builds the CLI).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HISTORY = ROOT.parent / "shared" / "corpus" / "grail" / "anti-patterns" / "lost-update" / "history.edn.gz"


def find_cli() -> str:
    env = os.environ.get("GRAIL_CLI")
    if env:
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    cli = target / "release" / "grail"
    if not cli.exists():
        print(f"building the CLI ({cli})", file=sys.stderr)
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "grail-cli"], cwd=ROOT, check=True)
    return str(cli)


def summary(xs: list[float]) -> str:
    return f"min {min(xs) * 1000:8.1f} ms   median {statistics.median(xs) * 1000:8.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--history", type=Path, default=DEFAULT_HISTORY)
    args = ap.parse_args()
    if not args.history.exists():
        print(f"history not found: {args.history}", file=sys.stderr)
        return 2
    try:
        import grail
    except ImportError:
        print("grail is not installed in this interpreter: run make test-python, then "
              ".venv/bin/python scripts/bench-python.py", file=sys.stderr)
        return 2
    cli = find_cli()
    path = str(args.history)

    # Both must give the same report before their times mean anything.
    out = subprocess.run([cli, "check", path, "--json"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        print(out.stderr, file=sys.stderr)
        return 2
    import json

    if json.loads(out.stdout) != grail.check(path).to_dict():
        print("the Python report differs from the CLI's", file=sys.stderr)
        return 1

    py_times, cli_wall, cli_inner = [], [], []
    phase = re.compile(r"in ([0-9.]+) s")
    for i in range(args.runs + 1):
        t0 = time.perf_counter()
        grail.check(path)
        t1 = time.perf_counter()
        r = subprocess.run([cli, "check", path, "--json", "-v"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        t2 = time.perf_counter()
        if i == 0:
            continue  # warm-up: page cache, allocator
        py_times.append(t1 - t0)
        cli_wall.append(t2 - t1)
        cli_inner.append(sum(float(x) for x in phase.findall(r.stderr)))

    print(f"history: {path}")
    print(f"runs:    {args.runs} (after one warm-up)")
    print(f"python   grail.check(path)            {summary(py_times)}")
    print(f"cli      grail check --json (wall)    {summary(cli_wall)}")
    print(f"cli      read + graph + check (-v)    {summary(cli_inner)}")
    ratio_wall = statistics.median(py_times) / statistics.median(cli_wall)
    ratio_inner = statistics.median(py_times) / statistics.median(cli_inner)
    print(f"python / cli wall:   {ratio_wall:.3f}")
    print(f"python / cli phases: {ratio_inner:.3f}")
    verdict = "within" if ratio_wall <= 1.10 else "OVER"
    print(f"target: python at most 10% over the CLI: {verdict} ({(ratio_wall - 1) * 100:+.1f}% vs wall time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
