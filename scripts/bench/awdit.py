#!/usr/bin/env python3
"""The weak levels on an AWDIT-shaped history (issue 20), for `make bench` (scripts/bench.sh).

    python3 scripts/bench/awdit.py

Generates, once, a history shaped like AWDIT's own benchmark (PLDI 2025, arXiv 2504.06975):
GRAIL_BENCH_AWDIT_TXNS (200000) transactions over 1,000 sessions and 10,000 keys, 5 operations
each, 80% reads, zipfian keys, causal isolation, written by `grail generate --output polysi` in
the PolySI/Plume text AWDIT reads (`r(key,value,session,txn)` a line). Then runs `grail check
--levels RC`, `RA` and `CC` on it, each as its own process, GRAIL_BENCH_RUNS times (default 3; the
minimum wall and CPU time and the largest peak RSS are reported), and the same with the `awdit`
binary (GRAIL_AWDIT, else on PATH, else ../shared/peers/bin/awdit; AWDIT is not on crates.io: build
it from github.com/lassemoldrup/AWDIT), run as `awdit check -f plume -i LEVEL -r first FILE.txt`
(stopping at the first violation), and again with `-s 2048` (a stack of 2 GiB) when its default
32 MiB overflows, as on the causal check of its own read-committed and read-atomic draws. The same on AWDIT's own
histories (issue 37): the shared 200k one in ../shared/corpus/peers/awdit/big and, with the
binary, a draw of AWDIT's generator at each of its three levels (`awdit generate -l 10000 -e
1000000 -i LEVEL`, kept in bench-out/histories; GRAIL_BENCH_AWDIT_DRAWS=0 skips them). Prints a
Markdown table and writes bench-out/awdit.json. The machine's load is printed too: on a shared machine wall time is noisy,
CPU time (user + sys) much less.
"""

from __future__ import annotations

import gzip
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


def awdit_verdict(m: dict) -> str:
    try:
        out = (ROOT / m["stdout"]).read_text()
    except OSError:
        return "?"
    return "violated" if "Inconsistent" in out else "holds" if "Consistent" in out else "?"


def awdit_binary() -> str | None:
    """GRAIL_AWDIT, else `awdit` on PATH, else the one built in ../shared/peers/bin."""
    shared = ROOT.parent / "shared" / "peers" / "bin" / "awdit"
    return os.environ.get("GRAIL_AWDIT") or shutil.which("awdit") or (str(shared) if shared.exists() else None)


def awdit_histories(awdit: str | None) -> list[tuple[str, Path]]:
    """AWDIT's own histories (issue 37): the shared 200k one (../shared/corpus/peers/awdit/big),
    unzipped once, and a draw of AWDIT's generator at each of its three levels with the same
    parameters (`awdit generate -l 10000 -e 1000000 -i LEVEL`), drawn once and kept."""
    out = []
    big = ROOT.parent / "shared" / "corpus" / "peers" / "awdit" / "big" / "causal-1000000.txt.gz"
    if big.exists():
        path = OUT / "histories" / "awdit-shared-causal-1000000.txt"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(big, "rb") as src, open(path.with_suffix(".tmp"), "wb") as dst:
                shutil.copyfileobj(src, dst)
            path.with_suffix(".tmp").rename(path)
        out.append(("AWDIT's shared history (causal, 1M events)", path))
    if awdit and os.environ.get("GRAIL_BENCH_AWDIT_DRAWS", "1") != "0":
        for name in LEVELS.values():
            path = OUT / "histories" / f"awdit-drawn-{name}-1000000.txt"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp")
                m = measure([awdit, "generate", "-l", "10000", "-e", "1000000", "-i", name, str(tmp)],
                            f"awdit-draw-{name}")
                if m["exit"] != 0:
                    say(f"awdit generate -i {name} failed: {failed(m)}")
                    continue
                tmp.rename(path)
            out.append((f"drawn by AWDIT at {name} (1M events)", path))
    return out


def main() -> int:
    awdit = awdit_binary()
    if not awdit:
        say("no awdit binary (not on crates.io; set GRAIL_AWDIT): grail alone")
    histories = [(f"grail's AWDIT-shaped history ({TXNS:,} transactions)", history())] + awdit_histories(awdit)
    res = {"generator": GEN, "runs": RUNS, "load_before": loadavg(), "histories": []}
    for title, path in histories:
        lines = sum(1 for _ in path.open())
        h = {"title": title, "history": str(path.relative_to(ROOT)), "events": lines, "levels": {}}
        for level, name in LEVELS.items():
            say(f"{level} on {path.name}")
            g = best([str(CLI), "check", str(path), "--levels", level, "--json"], f"awdit-grail-{path.stem}-{level}")
            row = {"grail": g, "grail_verdict": grail_verdict(g, level)}
            if awdit:
                cmd = [awdit, "check", "-f", "plume", "-i", name, "-r", "first", str(path)]
                a = best(cmd, f"awdit-peer-{path.stem}-{level}")
                if failed(a) and "overflowed its stack" in (ROOT / a["stderr"]).read_text(errors="replace"):
                    a = best(cmd[:-1] + ["-s", "2048", str(path)], f"awdit-peer-{path.stem}-{level}-stack")
                    a["stack"] = "2048 MiB"
                row["awdit"] = a
                row["awdit_verdict"] = awdit_verdict(a)
            h["levels"][level] = row
        res["histories"].append(h)
    res["load_after"] = loadavg()
    (OUT / "awdit.json").write_text(json.dumps(res, indent=1))
    print("\n### Weak levels on AWDIT's histories and an AWDIT-shaped one\n")
    print(f"grail's: `grail generate --txns {TXNS} {' '.join(GEN)}`; best of {RUNS}; load"
          f" {res['load_before'][0]:.1f} before, {res['load_after'][0]:.1f} after (2 cores: wall time is noisy,"
          " CPU time less so). Targets (issue 37): RC and RA at most AWDIT's time, CC at most 0.3×.\n")
    print("| history | level | grail verdict | grail wall s | grail CPU s | grail peak MB | AWDIT verdict | AWDIT wall s | AWDIT CPU s | AWDIT peak MB | grail / AWDIT (wall) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for h in res["histories"]:
        for level, row in h["levels"].items():
            g, a = row["grail"], row.get("awdit")
            if not a:
                peer = "not installed | — | — | — | —"
            elif failed(a):
                peer = f"failed: {(failed(a) or '').splitlines()[0]} | — | — | — | —"
            else:
                stack = " (stack 2 GiB)" if a.get("stack") else ""
                peer = (f"{row['awdit_verdict']}{stack} | {a['wall']:.2f} | {a['cpu']:.2f} | {a['rss_kb'] / 1024:.0f}"
                        f" | {g['wall'] / a['wall']:.2f}×")
            print(f"| {h['title']} | {level} | {row['grail_verdict']} | {g['wall']:.2f} | {g['cpu']:.2f}"
                  f" | {g['rss_kb'] / 1024:.0f} | {peer} |")
    say("wrote bench-out/awdit.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
