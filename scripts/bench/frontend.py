#!/usr/bin/env python3
"""Time grail.check(path) in this interpreter, for scripts/bench/run.py (make bench).

    .venv/bin/python scripts/bench/frontend.py HISTORY [--runs N]

Prints one JSON object: the import time, the first call (cold), then ``--runs`` more calls, each
with its wall time and this process's CPU time (``time.process_time``), the peak resident set
size, and the verdicts and anomaly names of the last report (to compare with the CLI's).
The time covers what ``grail.check(path)`` does: read the file, parse, build the graph, check the
five levels, and build the report object.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("history")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        import grail
    except ImportError as e:
        print(json.dumps({"error": f"cannot import grail: {e}"}))
        return 2
    imported = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    runs = []
    report = None
    for _ in range(args.runs + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        report = grail.check(args.history)
        runs.append({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0})
    d = report.to_dict()
    out = {
        "python": sys.version.split()[0],
        "import": imported,
        "first": runs[0],
        "runs": runs[1:],
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "levels": {k: {"verdict": v["verdict"], "anomalies": v["anomalies"]} for k, v in d["levels"].items()},
        "transactions": d["stats"]["transactions"],
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
