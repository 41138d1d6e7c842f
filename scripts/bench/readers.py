#!/usr/bin/env python3
"""Readers side by side (make bench, step 9; issue 37: every reader within 1.5x of EDN's MB/s).

One generated register history (GRAIL_READERS_TXNS, 1M by default: 75 to 310 MB a format) in
each format grail reads that its generator writes (EDN, native JSON, PolySI/Plume text,
TimeKiller JSON, Cobra logs: the sessions' logs concatenated, as one log reads), and as
elle-cli's JSON (one Jepsen event a line, converted from the EDN below: the generator writes
no elle-cli JSON). Then `cargo bench -p grail-core --bench readers` reads them in turn
(GRAIL_READ_RUNS times, interleaved) and prints each one's MB/s and its ratio to EDN's.
Files in bench-out/readers/ (kept between runs).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "bench-out" / "readers"
CLI = os.environ.get("GRAIL_CLI", str(ROOT / "target" / "release" / "grail"))
TXNS = os.environ.get("GRAIL_READERS_TXNS", "1000000")
GEN = ["generate", "--txns", TXNS, "--model", "rw-register", "--abort-rate", "0", "--sessions", "20",
       "--keys", "1000", "--seed", "3"]

OP = re.compile(r"\[:(\w+) (-?\d+) (nil|-?\d+)\]")
KEY = re.compile(r":(type|f|value|time|process|index) ")
KW = re.compile(r'"(type|f)": :(\w+)')


def elle_json(edn: Path, out: Path) -> None:
    """The generator's EDN (one operation a line, integer keys and values) as elle-cli's JSON."""
    with open(edn) as src, open(out, "w") as dst:
        for line in src:
            line = line.strip()
            if not line:
                continue
            line = OP.sub(lambda m: '["%s", %s, %s]' % (m[1], m[2], "null" if m[3] == "nil" else m[3]), line)
            line = KW.sub(r'"\1": "\2"', KEY.sub(r'"\1": ', line)).replace("] [", "], [")
            dst.write(line + "\n")


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    files = []
    for fmt, name in [("edn", "h.edn"), ("native", "h.json"), ("polysi", "h.txt"), ("timekiller", "h.tk.json")]:
        path = OUT / name
        if not path.exists():
            subprocess.run([CLI, *GEN, "--output", fmt, "-o", str(path)], check=True)
        files.append(path)
    elle = OUT / "h.elle.json"
    if not elle.exists():
        elle_json(OUT / "h.edn", elle)
    files.append(elle)
    cobra = OUT / "h.cobra"
    if not cobra.exists():
        logs = OUT / "cobra"
        subprocess.run([CLI, *GEN, "--output", "cobra", "-o", str(logs)], check=True)
        with open(cobra, "wb") as dst:
            for log in sorted(logs.glob("*.log")):
                dst.write(log.read_bytes())
    files.append(cobra)
    env = dict(os.environ, GRAIL_READ_FILES=",".join(map(str, files)))
    env.setdefault("GRAIL_READ_RUNS", "5")
    return subprocess.run(["cargo", "bench", "-p", "grail-core", "--bench", "readers"], cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
