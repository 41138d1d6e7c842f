#!/usr/bin/env python3
"""When a recorded history first violates a level: the shortest prefix, in time, that grail
finds violating it, by bisection over the transactions' completion times.

    record-first-violation.py GRAIL HISTORY.json LEVEL

HISTORY.json is grail's native JSON as `grail record --format json` writes it (each
transaction's `start` and `end` in nanoseconds since the recording began). The prefix at time t
holds the transactions that ended by t as they ended, and those running at t as indeterminate
with their writes only (their reads are not known yet); later ones are left out. Prints the time
in seconds and the number of transactions that had ended, or `none` when the whole history does
not violate the level.
"""
import json
import os
import subprocess
import sys
import tempfile


def prefix(txns, t):
    out = []
    for x in txns:
        if x.get("start", 0) > t:
            continue
        if "end" in x and x["end"] <= t:
            out.append(x)
            continue
        running = {k: v for k, v in x.items() if k not in ("end", "predicate_reads")}
        running["status"] = "indeterminate"
        running["ops"] = [op for op in x["ops"] if op[0] != "r"]
        out.append(running)
    return {"transactions": out}


def violated(grail, level, history, tmp):
    with open(tmp, "w") as f:
        json.dump(history, f)
    run = subprocess.run([grail, "check", "--json", "--levels", level, tmp], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"grail check failed on a prefix: {run.stderr.strip()}")
    return json.loads(run.stdout)["levels"][level]["verdict"] == "violated"


def main():
    grail, path, level = sys.argv[1:4]
    with open(path) as f:
        txns = json.load(f)["transactions"]
    ends = sorted(x["end"] for x in txns if "end" in x)
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "prefix.json")
        if not ends or not violated(grail, level, {"transactions": txns}, tmp):
            print("none")
            return
        lo, hi = 0, len(ends) - 1  # the prefix at ends[hi] violates the level
        while lo < hi:
            mid = (lo + hi) // 2
            if violated(grail, level, prefix(txns, ends[mid]), tmp):
                hi = mid
            else:
                lo = mid + 1
        print(f"{ends[hi] / 1e9:.3f} {hi + 1}")


if __name__ == "__main__":
    main()
