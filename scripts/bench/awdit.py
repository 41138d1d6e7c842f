#!/usr/bin/env python3
"""The weak levels on an AWDIT-shaped history (issue 20), for `make bench` (scripts/bench.sh).

    python3 scripts/bench/awdit.py

Generates, once, a history shaped like AWDIT's own benchmark (PLDI 2025, arXiv 2504.06975):
GRAIL_BENCH_AWDIT_TXNS (200000) transactions over 1,000 sessions and 10,000 keys, 5 operations
each, 80% reads, zipfian keys, causal isolation, written by `grail generate --output polysi` in
the PolySI/Plume text AWDIT reads (`r(key,value,session,txn)` a line). Then runs `grail check
--levels RC`, `RA` and `CC` on it, each as its own process, GRAIL_BENCH_RUNS times (default 3; the
minimum wall and CPU time and the largest peak RSS are reported), and the same with the `awdit`
binary when one is on PATH or in GRAIL_AWDIT (AWDIT is not on crates.io: build it from
github.com/lassemoldrup/AWDIT and point GRAIL_AWDIT at it; it is run as `awdit check -f plume -i
LEVEL FOLDER`, its Plume reader taking a folder that holds the one history file). Prints a Markdown table and writes
bench-out/awdit.json. The machine's load is printed too: on a shared machine wall time is noisy,
CPU time (user + sys) much less.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import CLI, OUT, ROOT, failed, loadavg, measure, say  # noqa: E402

TXNS = int(os.environ.get("GRAIL_BENCH_AWDIT_TXNS", "200000"))
RUNS = max(1, int(os.environ.get("GRAIL_BENCH_RUNS", "3")))
GEN = ["--sessions", "1000", "--keys", "10000", "--min-ops", "5", "--max-ops", "5", "--read-ratio", "0.8",
       "--distribution", "zipfian", "--isolation", "causal", "--model", "rw-register", "--output", "polysi",
       "--seed", "1"]
LEVELS = {"RC": "read-committed", "RA": "read-atomic", "CC": "causal"}


def history() -> Path:
    path = OUT / "histories" / f"awdit-shaped-{TXNS}.txt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        m = measure([str(CLI), "generate", "--txns", str(TXNS), *GEN, "-o", str(tmp)], f"awdit-generate-{TXNS}")
        if m["exit"] != 0:
            sys.exit(f"awdit bench: generation failed: {failed(m)}")
        tmp.rename(path)
    return path


def best(cmd: list[str], name: str) -> dict:
    ms = [measure(cmd, f"{name}-{i}") for i in range(RUNS)]
    out = dict(ms[-1])
    out["wall"], out["cpu"] = min(m["wall"] for m in ms), min(m["cpu"] for m in ms)
    out["rss_kb"] = max(m["rss_kb"] for m in ms)
    out["all_wall"] = [round(m["wall"], 3) for m in ms]
    return out


def grail_verdict(m: dict, level: str) -> str:
    try:
        return json.loads((ROOT / m["stdout"]).read_text())["levels"][level]["verdict"]
    except (OSError, ValueError, KeyError):
        return "?"


def awdit_input(path: Path) -> Path:
    """AWDIT's Plume reader takes a folder holding one history file: a folder with a link to it."""
    folder = path.with_suffix(".plume")
    folder.mkdir(exist_ok=True)
    link = folder / "history.txt"
    if not link.exists():
        link.symlink_to(path.resolve())
    return folder


def awdit_verdict(m: dict) -> str:
    try:
        out = (ROOT / m["stdout"]).read_text()
    except OSError:
        return "?"
    return "violated" if "Inconsistent" in out else "holds" if "Consistent" in out else "?"


def main() -> int:
    path = history()
    lines = sum(1 for _ in path.open())
    awdit = os.environ.get("GRAIL_AWDIT") or shutil.which("awdit")
    if not awdit:
        say("no awdit binary (not on crates.io; set GRAIL_AWDIT): grail alone")
    res = {"history": str(path.relative_to(ROOT)), "events": lines, "generator": GEN, "runs": RUNS,
           "load_before": loadavg(), "levels": {}}
    for level, name in LEVELS.items():
        say(f"{level} on {path.name}")
        g = best([str(CLI), "check", str(path), "--levels", level, "--json"], f"awdit-grail-{level}")
        row = {"grail": g, "grail_verdict": grail_verdict(g, level)}
        if awdit:
            a = best([awdit, "check", "-f", "plume", "-i", name, str(awdit_input(path))], f"awdit-peer-{level}")
            row["awdit"] = a
            row["awdit_verdict"] = awdit_verdict(a)
        res["levels"][level] = row
    res["load_after"] = loadavg()
    (OUT / "awdit.json").write_text(json.dumps(res, indent=1))
    print(f"\n### Weak levels on an AWDIT-shaped history ({TXNS:,} transactions, {lines:,} events)\n")
    print(f"`grail generate --txns {TXNS} {' '.join(GEN)}`; best of {RUNS}; load {res['load_before'][0]:.1f}"
          f" before, {res['load_after'][0]:.1f} after (2 cores: wall time is noisy, CPU time less so).\n")
    print("| level | grail verdict | grail wall s | grail CPU s | grail peak MB | AWDIT verdict | AWDIT wall s | AWDIT CPU s | AWDIT peak MB | grail / AWDIT (wall) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for level, row in res["levels"].items():
        g, a = row["grail"], row.get("awdit")
        if not a:
            peer = "not installed | — | — | — | —"
        elif failed(a):
            peer = f"failed: {(failed(a) or '').splitlines()[0]} | — | — | — | —"
        else:
            peer = (f"{row['awdit_verdict']} | {a['wall']:.2f} | {a['cpu']:.2f} | {a['rss_kb'] / 1024:.0f}"
                    f" | {g['wall'] / a['wall']:.2f}×")
        print(f"| {level} | {row['grail_verdict']} | {g['wall']:.2f} | {g['cpu']:.2f} | {g['rss_kb'] / 1024:.0f} | {peer} |")
    say("wrote bench-out/awdit.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
