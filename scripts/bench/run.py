#!/usr/bin/env python3
"""grail's benchmark suite (issue 7): `make bench` runs it through scripts/bench.sh.

    python3 scripts/bench/run.py             # measure (scripts/bench.sh builds what it needs first)
    python3 scripts/bench/run.py --render    # print the tables of bench-out/bench.json again

For each size (GRAIL_BENCH_SIZES, default 10000,100000,1000000,10000000 transactions) it
generates a list-append history with `grail generate` (kept in bench-out/histories/ and reused
while the generator's parameters are the same), then measures:

- per phase, with grail-core in one process (scripts/bench/phases): load the file, parse, build
  the graph, each level's check alone, the five levels in one check; wall and CPU time;
- end to end, the CLI `grail check FILE --json` as a process: wall time, CPU time (user + sys)
  and peak resident set size from wait4(2) (what /usr/bin/time -v reports); transactions per
  second;
- the peer `adya` (crates.io; bench-out/peers/bin/adya, installed by scripts/bench.sh) on the
  same file and the same five levels: its times, the ratio to grail's, and whether the verdicts
  agree level by level;
- for GRAIL_BENCH_FRONTEND_SIZES (default 100000): grail.check(path) in Python (.venv) and
  check(bytes) in Node (bindings/wasm/pkg), against the native in-process time;

with 1M among the sizes, also issue 20's own history (1M serializable transactions, keys rotating
after 8 appends; GRAIL_BENCH_ISSUE=0 skips it): grail SER alone and the five levels, adya's five
models once, verdicts compared; then runs grail and adya on the 88 List1-List5 corpus histories and counts verdict agreements per
level. A size is skipped, with a message, when its generation or a check is predicted (from the
sizes measured before it) to exceed GRAIL_BENCH_MAX_SECONDS (600) or GRAIL_BENCH_MAX_RSS_GB (20);
each process also runs under those limits (a timer, RLIMIT_AS).

Prints Markdown tables; writes bench-out/bench.json (every number printed, and more) and
bench-out/bench.md (the tables). Asserts nothing about time: targets are reported, met or not.

Other settings: GRAIL_BENCH_GEN (generator options, default "--isolation read-committed
--keys 100 --seed 1"), GRAIL_BENCH_RUNS (repetitions; default 3 up to 1M transactions for grail,
100k for adya, else 1;
the minimum is reported), GRAIL_BENCH_PEER=0 (no adya), GRAIL_BENCH_CORPUS=0 (no corpus run),
GRAIL_BENCH_EXPLAIN_MAX (default 100000: up to this size adya is also run on each model alone, to
show which anomalies rule each one out), GRAIL_CORPUS (default ../shared/corpus), GRAIL_CLI
(default target/release/grail; make bench sets target/dist/grail, scripts/build-cli.sh).
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "bench-out"
LEVELS = ["SER", "SI", "PSI", "PL-2", "PL-1"]
# grail's levels as adya's (Elle's) consistency models.
ADYA_MODEL = {
    "SER": "serializable",
    "SI": "snapshot-isolation",
    "PSI": "parallel-snapshot-isolation",
    "PL-2": "read-committed",
    "PL-1": "read-uncommitted",
}
# adya's anomaly types that mean "could not decide" rather than "violated".
ADYA_UNKNOWN = {"cycle-search-timeout", "empty-transaction-graph"}
# adya's cycle search budget per strongly connected component (Elle's default is 1 s; a budget
# that runs out gives "unknown", which would make no fair comparison with grail's exact search).
ADYA_SEARCH_MS = 3_600_000


def env_list(name: str, default: str) -> list[int]:
    return [int(x) for x in os.environ.get(name, default).replace("_", "").split(",") if x.strip()]


SIZES = env_list("GRAIL_BENCH_SIZES", "10000,100000,1000000,10000000")
FRONTEND_SIZES = set(env_list("GRAIL_BENCH_FRONTEND_SIZES", "100000"))
GEN_ARGS = shlex.split(os.environ.get("GRAIL_BENCH_GEN", "--isolation read-committed --keys 100 --seed 1"))
# Issue 20's own history (its table: 1M serializable list-append transactions, 4-8 operations,
# keys rotating after 8 appends), checked at 1M beside the series; GRAIL_BENCH_ISSUE=0 skips it.
ISSUE_GEN_ARGS = ["--min-ops", "4", "--max-ops", "8", "--max-writes-per-key", "8", "--seed", "1"]
ISSUE_RUN = os.environ.get("GRAIL_BENCH_ISSUE", "1") != "0"
MAX_SECONDS = float(os.environ.get("GRAIL_BENCH_MAX_SECONDS", "600"))
MAX_RSS_KB = float(os.environ.get("GRAIL_BENCH_MAX_RSS_GB", "20")) * 1024 * 1024
PEER = os.environ.get("GRAIL_BENCH_PEER", "1") != "0"
CORPUS_RUN = os.environ.get("GRAIL_BENCH_CORPUS", "1") != "0"
EXPLAIN_MAX = int(os.environ.get("GRAIL_BENCH_EXPLAIN_MAX", "100000"))
CORPUS = Path(os.environ.get("GRAIL_CORPUS", ROOT.parent / "shared" / "corpus"))
CLI = Path(os.environ.get("GRAIL_CLI", ROOT / "target" / "release" / "grail"))
PHASES = OUT / "target" / "release" / "grail-bench-phases"
ADYA = OUT / "peers" / "bin" / "adya"
VENV_PY = ROOT / ".venv" / "bin" / "python"
WASM_PKG = ROOT / "bindings" / "wasm" / "pkg" / "node.mjs"
LOGS = OUT / "logs"


def say(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def runs_for(n: int, slow: bool = False) -> int:
    """Repetitions of a measurement (the minimum is kept): grail's up to 1M transactions, where
    one run on a shared machine can be off by a tenth; a slow peer's (`slow`) up to 100k."""
    env = os.environ.get("GRAIL_BENCH_RUNS")
    return max(1, int(env)) if env else (3 if n <= (100_000 if slow else 1_000_000) else 1)


# ---------------------------------------------------------------------------------------------
# Running a process and measuring it


def measure(cmd: list[str], name: str, *, limit: bool = True, timeout: float | None = None) -> dict:
    """Run `cmd` with stdout and stderr to bench-out/logs/NAME.{out,err}; return its wall time,
    CPU time, peak RSS (wait4), exit code, whether the time limit killed it, and the load."""
    LOGS.mkdir(parents=True, exist_ok=True)
    out_path, err_path = LOGS / f"{name}.out", LOGS / f"{name}.err"
    timeout = MAX_SECONDS if timeout is None else timeout

    def rlimit() -> None:
        cap = int(MAX_RSS_KB * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    load0 = loadavg()
    with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, preexec_fn=rlimit if limit else None, cwd=ROOT)
        killed = []

        def kill() -> None:
            killed.append(True)
            p.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
    code = os.waitstatus_to_exitcode(status)
    p.returncode = code
    return {
        "cmd": [str(c) for c in cmd],
        "wall": wall,
        "cpu": ru.ru_utime + ru.ru_stime,
        "user": ru.ru_utime,
        "sys": ru.ru_stime,
        "rss_kb": ru.ru_maxrss,
        "exit": code,
        "timed_out": bool(killed),
        "load": [load0, loadavg()],
        "stdout": str(out_path.relative_to(ROOT)),
        "stderr": str(err_path.relative_to(ROOT)),
    }


def read_json(m: dict) -> dict | None:
    try:
        return json.loads((ROOT / m["stdout"]).read_text())
    except (OSError, ValueError):
        return None


def tail(m: dict, n: int = 400) -> str:
    try:
        return (ROOT / m["stderr"]).read_text(errors="replace")[-n:].strip()
    except OSError:
        return ""


def best(ms: list[dict]) -> dict:
    """Several runs of one command: the minimum wall and CPU time (each on its own), the largest
    peak RSS, the last run's other fields."""
    out = dict(ms[-1])
    out["runs"] = len(ms)
    out["wall"] = min(m["wall"] for m in ms)
    out["cpu"] = min(m["cpu"] for m in ms)
    out["rss_kb"] = max(m["rss_kb"] for m in ms)
    out["all_wall"] = [m["wall"] for m in ms]
    out["all_cpu"] = [m["cpu"] for m in ms]
    return out


def failed(m: dict) -> str | None:
    """Why a measured run does not count, or None."""
    if m["timed_out"]:
        return f"killed after {MAX_SECONDS:g} s (GRAIL_BENCH_MAX_SECONDS)"
    if m["exit"] < 0 or m["exit"] > 1:
        hint = " (the memory limit GRAIL_BENCH_MAX_RSS_GB?)" if m["exit"] < 0 or "memory" in tail(m) else ""
        return f"exit {m['exit']}{hint}: {tail(m)}"
    return None


# ---------------------------------------------------------------------------------------------
# Predicting whether a step fits the limits, from the sizes measured before


class Predictor:
    def __init__(self) -> None:
        self.points: dict[str, list[tuple[int, float, float]]] = {}

    def add(self, step: str, n: int, m: dict) -> None:
        self.points.setdefault(step, []).append((n, m["wall"], m["rss_kb"]))

    def predict(self, step: str, n: int) -> tuple[float, float] | None:
        pts = sorted(p for p in self.points.get(step, []) if p[0] < n)
        if not pts:
            return None
        n1, w1, r1 = pts[-1]

        def exponent(i: int, lo: float, hi: float) -> float:
            if len(pts) < 2:
                return lo
            n0, a, b = pts[-2][0], pts[-2][i], pts[-1][i]
            if a <= 0 or b <= 0 or n0 == n1:
                return lo
            return min(hi, max(lo, math.log(b / a) / math.log(n1 / n0)))

        f = n / n1
        return w1 * f ** exponent(1, 1.0, 2.0), r1 * f ** exponent(2, 1.0, 1.5)

    def too_big(self, step: str, n: int) -> str | None:
        p = self.predict(step, n)
        if p is None:
            return None
        wall, rss = p
        if wall > MAX_SECONDS or rss > MAX_RSS_KB:
            return (
                f"{step} of {n:,} transactions predicted to take {wall:.0f} s and {rss / 1024 / 1024:.1f} GB "
                f"(limits {MAX_SECONDS:g} s, {MAX_RSS_KB / 1024 / 1024:g} GB: GRAIL_BENCH_MAX_SECONDS, "
                "GRAIL_BENCH_MAX_RSS_GB)"
            )
        return None


# ---------------------------------------------------------------------------------------------
# Verdicts


def grail_verdicts(report: dict) -> dict:
    return {l: {"verdict": report["levels"][l]["verdict"], "anomalies": report["levels"][l]["anomalies"]} for l in LEVELS}


def adya_verdicts(report: dict) -> dict:
    """Per grail level: violated when adya rules out the matching model (its `not` and `also_not`),
    unknown when it did not decide (a search timeout, an empty graph), else holds."""
    ruled_out = set(report.get("not", [])) | set(report.get("also_not", []))
    types = report.get("anomaly_types", [])
    undecided = report.get("valid") == "unknown" or any(t in ADYA_UNKNOWN for t in types)
    out = {}
    for l in LEVELS:
        if ADYA_MODEL[l] in ruled_out:
            v = "violated"
        elif undecided:
            v = "unknown"
        else:
            v = "holds"
        out[l] = {"verdict": v}
    return out


def adya_cmd(path: Path, models: list[str]) -> list[str]:
    return [
        str(ADYA),
        "check",
        "-m",
        "list-append",
        "-c",
        ",".join(models),
        "--cycle-search-timeout",
        str(ADYA_SEARCH_MS),
        "--json",
        str(path),
    ]


def explain_disagreement(path: Path, level: str, name: str) -> dict:
    """adya run on one model alone: which of its anomaly types rule that model out."""
    m = measure(adya_cmd(path, [ADYA_MODEL[level]]), f"{name}-adya-{level}")
    r = read_json(m) or {}
    return {
        "adya_alone_valid": r.get("valid"),
        "adya_alone_anomaly_types": r.get("anomaly_types", []),
        "adya_alone_counts": {k: len(v) for k, v in (r.get("anomalies") or {}).items()},
    }


def compare(g: dict, a: dict) -> tuple[dict, list[dict]]:
    agree = {l: g[l]["verdict"] == a[l]["verdict"] for l in LEVELS}
    dis = [
        {"level": l, "grail": g[l]["verdict"], "grail_anomalies": g[l]["anomalies"], "adya": a[l]["verdict"]}
        for l in LEVELS
        if not agree[l]
    ]
    return agree, dis


# ---------------------------------------------------------------------------------------------
# Steps


def git_state() -> dict:
    def run(*args: str) -> str:
        r = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return r.stdout.strip()

    return {"commit": run("rev-parse", "HEAD"), "dirty": bool(run("status", "--porcelain", "--untracked-files=no"))}


def cli_build() -> str:
    """How the measured CLI was built: scripts/build-cli.sh leaves `pgo=1` or `pgo=0` beside it."""
    stamp = CLI.parent / ".grail-build"
    if CLI.parent.name == "dist" and stamp.exists():
        pgo = stamp.read_text().strip() == "pgo=1"
        return f"dist profile (fat LTO{', PGO' if pgo else ''})"
    return f"{CLI.parent.name} profile"


def machine() -> dict:
    mem_kb = next(int(l.split()[1]) for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal"))
    model = next(
        (l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")),
        platform.processor(),
    )
    return {"cpus": os.cpu_count(), "cpu": model, "mem_gb": round(mem_kb / 1024 / 1024, 1), "kernel": platform.release()}


def generate(n: int, pred: Predictor, gen_args: list[str] | None = None) -> tuple[Path | None, dict]:
    """The history of n transactions, generated once per set of parameters (GEN_ARGS unless given)."""
    gen_args = GEN_ARGS if gen_args is None else gen_args
    d = OUT / "histories"
    d.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", " ".join(gen_args)).strip("-") or "default"
    path = d / f"list-append-{slug}-{n}.edn"
    meta_path = path.with_suffix(".json")
    args = ["generate", "--txns", str(n), "--model", "list-append", *gen_args]
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError):
        meta = None
    if path.exists() and meta and meta.get("args") == args:
        say(f"reusing {path.relative_to(ROOT)}")
        return path, {"reused": True, "args": args, **meta.get("generated", {})}
    why = pred.too_big("generate", n)
    if why:
        return None, {"skipped": why}
    say(f"generating {n:,} transactions into {path.relative_to(ROOT)}")
    tmp = path.with_suffix(".edn.tmp")
    m = measure([str(CLI), *args, "-o", str(tmp)], f"generate-{n}")
    if failed(m) or m["exit"] != 0:
        tmp.unlink(missing_ok=True)
        return None, {"failed": failed(m) or tail(m), **m}
    tmp.rename(path)
    pred.add("generate", n, m)
    info = {k: m[k] for k in ("wall", "cpu", "rss_kb", "load")}
    meta_path.write_text(json.dumps({"args": args, "generated": info, "grail": git_state()}, indent=1))
    return path, {"reused": False, "args": args, **info}


def frontends(path: Path, n: int, native: dict, cli_report: dict) -> dict:
    out: dict = {}
    runs = runs_for(n)
    want = grail_verdicts(cli_report)
    for name, ok, cmd, hint in [
        ("python", VENV_PY.exists(), [str(VENV_PY), "scripts/bench/frontend.py", str(path), "--runs", str(runs)],
         "make test-python"),
        ("wasm", WASM_PKG.exists() and shutil.which("node"),
         ["node", "scripts/bench/frontend.mjs", str(path), "--runs", str(runs)], "make deps-wasm"),
    ]:
        if not ok:
            out[name] = {"skipped": f"not built ({hint})"}
            say(f"{name}: not built; run {hint} to include it")
            continue
        say(f"{name} front end on {n:,} transactions")
        # Node reserves far more address space than it uses: no RLIMIT_AS for it.
        m = measure(cmd, f"{name}-{n}", limit=False)
        r = read_json(m)
        if failed(m) or not r or "runs" not in r:
            out[name] = {"failed": failed(m) or tail(m) or (r or {}).get("error", "no output"), **m}
            continue
        wall = min(x["wall"] for x in r["runs"])
        cpu = min(x["cpu"] for x in r["runs"])
        got = {l: r["levels"][l] for l in LEVELS}
        out[name] = {
            "wall": wall,
            "cpu": cpu,
            "first": r["first"],
            "peak_rss_kb": r["peak_rss_kb"],
            "ratio_cpu": cpu / native["cpu"],
            "ratio_wall": wall / native["wall"],
            "same_verdicts_as_cli": got == want,
            "detail": r,
            "process": m,
        }
    return out


def bench_size(n: int, pred: Predictor) -> dict:
    row: dict = {"txns": n}
    path, gen = generate(n, pred)
    row["generate"] = gen
    if path is None:
        row["skipped"] = gen.get("skipped") or f"generation failed: {gen.get('failed')}"
        say(f"skipping {n:,}: {row['skipped']}")
        return row
    row["history"] = str(path.relative_to(ROOT))
    row["bytes"] = path.stat().st_size
    runs = runs_for(n)

    why = pred.too_big("grail", n)
    if why:
        row["skipped"] = why
        say(f"skipping {n:,}: {why}")
        return row

    # 1. Phases, in process.
    say(f"phases of {n:,} transactions ({runs} run{'s' * (runs > 1)})")
    ph_runs = []
    for i in range(runs):
        m = measure([str(PHASES), str(path)], f"phases-{n}-{i}")
        r = read_json(m)
        if failed(m) or m["exit"] != 0 or not r:
            row["skipped"] = f"phases failed: {failed(m) or tail(m)}"
            return row
        ph_runs.append((m, r))
    phases = {
        k: {"wall": min(r["phases"][k]["wall"] for _, r in ph_runs), "cpu": min(r["phases"][k]["cpu"] for _, r in ph_runs)}
        for k in ph_runs[0][1]["phases"]
    }
    first = ph_runs[0][1]
    row["phases"] = phases
    row["phases_peak_rss_kb"] = max(m["rss_kb"] for m, _ in ph_runs)
    for k in ("transactions", "committed", "aborted", "indeterminate", "vertices", "edges"):
        row[k] = first[k]
    # parse + build + all five levels (the issue's target), in process.
    row["pbc"] = {t: phases["parse"][t] + phases["build"][t] + phases["all"][t] for t in ("wall", "cpu")}
    row["in_process"] = {t: row["pbc"][t] + phases["load"][t] for t in ("wall", "cpu")}

    # 2. The CLI, end to end.
    say(f"grail check on {n:,} transactions ({runs} run{'s' * (runs > 1)})")
    cli_runs = []
    for i in range(runs):
        m = measure([str(CLI), "check", str(path), "--json", "-v"], f"grail-{n}-{i}")
        if failed(m):
            row["skipped"] = f"grail check failed: {failed(m)}"
            return row
        cli_runs.append(m)
    cli = best(cli_runs)
    report = read_json(cli_runs[-1])
    if not report:
        row["skipped"] = "grail check printed no JSON report"
        return row
    pred.add("grail", n, cli)
    cli["verdicts"] = grail_verdicts(report)
    cli["phase_lines"] = [l for l in (ROOT / cli["stderr"]).read_text().splitlines() if " in " in l]
    row["cli"] = cli
    row["txn_per_s"] = {"wall": n / cli["wall"], "cpu": n / cli["cpu"]}
    if cli["verdicts"] != {l: {"verdict": v["verdict"], "anomalies": v["anomalies"]} for l, v in first["levels"].items()}:
        row["note"] = "the phases harness and the CLI gave different verdicts"

    # 2b. The CLI checking SER alone: issue 20's end-to-end target, with its phases (-v).
    say(f"grail check --levels SER on {n:,} transactions ({runs} run{'s' * (runs > 1)})")
    ser = ser_alone(path, runs, f"grail-ser-{n}")
    if "failed" not in ser:
        row["cli_ser"] = ser

    # 3. The peer.
    if PEER and ADYA.exists():
        why = pred.too_big("adya", n)
        if why:
            row["adya"] = {"skipped": why}
            say(f"adya on {n:,}: skipped: {why}")
        else:
            adya_runs = runs_for(n, slow=True)
            say(f"adya on {n:,} transactions ({adya_runs} run{'s' * (adya_runs > 1)})")
            ms = []
            for i in range(adya_runs):
                m = measure(adya_cmd(path, list(ADYA_MODEL.values())), f"adya-{n}-{i}")
                ms.append(m)
                if failed(m) or m["exit"] > 2:
                    break
            a = best(ms)
            r = read_json(ms[-1])
            if failed(ms[-1]) or ms[-1]["exit"] > 2 or not r:
                row["adya"] = {"failed": failed(ms[-1]) or tail(ms[-1]), **a}
                say(f"adya on {n:,}: failed: {row['adya']['failed']}")
            else:
                pred.add("adya", n, a)
                a = adya_against(a, r, cli)
                for d in a["disagreements"]:
                    if not pred.too_big("adya", n):
                        d.update(explain_disagreement(path, d["level"], f"disagree-{n}"))
                if n <= EXPLAIN_MAX:
                    # Why each model fails, by adya's own account: each model checked alone.
                    a["alone"] = {l: explain_disagreement(path, l, f"alone-{n}") for l in LEVELS}
                row["adya"] = a
    elif PEER:
        row["adya"] = {"skipped": f"adya not installed at {ADYA.relative_to(ROOT)}"}

    # 4. Python and WASM.
    if n in FRONTEND_SIZES:
        row["frontends"] = frontends(path, n, row["in_process"], report)
    return row


def issue_history(pred: Predictor) -> dict:
    """Issue 20's own 1M history: grail (SER alone with its phases, and the five levels with
    --json, each the best of runs_for) against one adya run of the five models, verdicts compared."""
    n = 1_000_000
    path, gen = generate(n, pred, ISSUE_GEN_ARGS)
    if path is None:
        return {"skipped": gen.get("skipped") or f"generation failed: {gen.get('failed')}"}
    row: dict = {"txns": n, "history": str(path.relative_to(ROOT)), "bytes": path.stat().st_size, "generate": gen}
    runs = runs_for(n)
    say(f"issue 20's history: grail check --levels SER ({runs} runs)")
    ser = ser_alone(path, runs, "issue-grail-ser")
    if "failed" in ser:
        return {**row, "skipped": f"grail check failed: {ser['failed']}"}
    row["cli_ser"] = ser
    say(f"issue 20's history: grail check --json, five levels ({runs} runs)")
    cli_runs = [measure([str(CLI), "check", str(path), "--json", "-v"], f"issue-grail-{i}") for i in range(runs)]
    report = read_json(cli_runs[-1])
    if any(failed(m) for m in cli_runs) or not report:
        return {**row, "skipped": "grail check --json failed or printed no report"}
    cli = best(cli_runs)
    cli["verdicts"] = grail_verdicts(report)
    row["cli"] = cli
    if not (PEER and ADYA.exists()):
        return row
    say("issue 20's history: adya, five models (1 run)")
    m = measure(adya_cmd(path, list(ADYA_MODEL.values())), "issue-adya")
    r = read_json(m)
    if failed(m) or m["exit"] > 2 or not r:
        row["adya"] = {"failed": failed(m) or tail(m), **m}
        return row
    row["adya"] = adya_against(dict(m), r, cli)
    return row


def ser_alone(path: Path, runs: int, name: str) -> dict:
    """`grail check --levels SER -v`, the best of `runs`, with its phases; `{"failed": why}` if a
    run failed."""
    ms = [measure([str(CLI), "check", str(path), "--levels", "SER", "-v"], f"{name}-{i}") for i in range(runs)]
    why = next((failed(m) for m in ms if failed(m)), None)
    if why:
        return {"failed": why}
    ser = best(ms)
    ser["phases"] = cli_phases((ROOT / ser["stderr"]).read_text())
    return ser


def adya_against(a: dict, r: dict, cli: dict) -> dict:
    """adya's measured run `a` with its report `r`: what it found, its verdicts, its ratios to
    grail's five-level run `cli`, and where the verdicts agree."""
    a["valid"] = r.get("valid")
    a["anomaly_types"] = r.get("anomaly_types", [])
    a["anomaly_counts"] = {k: len(v) for k, v in (r.get("anomalies") or {}).items()}
    a["not"], a["also_not"] = r.get("not", []), r.get("also_not", [])
    a["verdicts"] = adya_verdicts(r)
    a["ratio_cpu"] = a["cpu"] / cli["cpu"]
    a["ratio_wall"] = a["wall"] / cli["wall"]
    a["agree"], a["disagreements"] = compare(cli["verdicts"], a["verdicts"])
    return a


def cli_phases(stderr: str) -> dict:
    """The wall seconds of the CLI's phases, from its -v lines (read, build, check)."""
    out = {}
    for name, pattern in (("read", r"read \d+ transactions in ([0-9.]+) s"), ("build", r"built the graph in ([0-9.]+) s"),
                          ("check", r"checked in ([0-9.]+) s")):
        m = re.search(pattern, stderr)
        if m:
            out[name] = float(m.group(1))
    return out


def corpus_run() -> dict:
    files = sorted((CORPUS / "grail" / "list").glob("*/*.edn.gz"))
    if not files:
        return {"skipped": f"no histories at {CORPUS / 'grail' / 'list'}"}
    if not (PEER and ADYA.exists()):
        return {"skipped": "adya not installed"}
    # The thesis verdicts (and Elle's) for each history, to say who is right.
    table = {}
    verdicts_csv = CORPUS / "grail" / "list" / "verdicts.csv"
    if verdicts_csv.exists():
        with open(verdicts_csv, newline="") as f:
            for row in csv.DictReader(f):
                key = "/".join(row["edn_path"].split("/")[-2:])
                table[key] = row
    say(f"corpus: grail and adya on {len(files)} List histories")
    d = OUT / "corpus"
    per_level = {
        l: {"agree": 0, "disagree": 0, "grail_violated": 0, "adya_violated": 0, "adya_unknown": 0,
            "grail_matches_thesis": 0, "adya_matches_thesis": 0, "adya_matches_elle": 0, "with_reference": 0}
        for l in LEVELS
    }
    disagreements = []
    adya_errors = []
    times = {"grail_cpu": 0.0, "adya_cpu": 0.0, "grail_wall": 0.0, "adya_wall": 0.0}
    count = 0
    for gz in files:
        rel = f"{gz.parent.name}/{gz.name}"
        edn = d / gz.parent.name / gz.name[: -len(".gz")]
        if not edn.exists():
            edn.parent.mkdir(parents=True, exist_ok=True)
            tmp = edn.with_suffix(".tmp")
            with gzip.open(gz, "rb") as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
            tmp.rename(edn)
        tag = f"corpus-{gz.parent.name}-{gz.stem}"
        g = measure([str(CLI), "check", str(edn), "--json"], f"{tag}-grail")
        a = measure(adya_cmd(edn, list(ADYA_MODEL.values())), f"{tag}-adya")
        gr, ar = read_json(g), read_json(a)
        if failed(g) or not gr:
            adya_errors.append({"history": rel, "tool": "grail", "error": failed(g) or tail(g)})
            continue
        if failed(a) or a["exit"] > 2 or not ar:
            adya_errors.append({"history": rel, "tool": "adya", "error": failed(a) or tail(a)})
            continue
        count += 1
        times["grail_cpu"] += g["cpu"]
        times["adya_cpu"] += a["cpu"]
        times["grail_wall"] += g["wall"]
        times["adya_wall"] += a["wall"]
        gv, av = grail_verdicts(gr), adya_verdicts(ar)
        _, dis = compare(gv, av)
        for l in LEVELS:
            st = per_level[l]
            st["grail_violated"] += gv[l]["verdict"] == "violated"
            st["adya_violated"] += av[l]["verdict"] == "violated"
            st["adya_unknown"] += av[l]["verdict"] == "unknown"
            st["agree" if gv[l]["verdict"] == av[l]["verdict"] else "disagree"] += 1
        ref = table.get(rel, {})
        for l in LEVELS:
            thesis = {"1": "violated", "0": "holds"}.get(ref.get(f"expected_{l}_violated", ""))
            elle = {"1": "violated", "0": "holds"}.get(ref.get(f"elle_{l}", ""))
            if thesis:
                per_level[l]["with_reference"] += 1
                per_level[l]["grail_matches_thesis"] += gv[l]["verdict"] == thesis
                per_level[l]["adya_matches_thesis"] += av[l]["verdict"] == thesis
                per_level[l]["adya_matches_elle"] += av[l]["verdict"] == elle
        for x in dis:
            x["history"] = rel
            x["thesis"] = {"1": "violated", "0": "holds"}.get(ref.get(f"expected_{x['level']}_violated", ""), "?")
            x["elle"] = {"1": "violated", "0": "holds"}.get(ref.get(f"elle_{x['level']}", ""), "?")
            x["adya_anomaly_types"] = ar.get("anomaly_types", [])
            x.update(explain_disagreement(edn, x["level"], tag))
            disagreements.append(x)
    return {
        "histories": count,
        "files": len(files),
        "errors": adya_errors,
        "per_level": per_level,
        "disagreements": disagreements,
        "times": times,
    }


# ---------------------------------------------------------------------------------------------
# Output


def short(reason: str) -> str:
    """A skip or failure reason, cut for a table cell (bench.json has it whole)."""
    m = re.search(r"predicted to take (\d+) s and ([\d.]+) GB", reason)
    if m:
        return f"skipped: predicted {m.group(1)} s, {m.group(2)} GB (over the limits)"
    return reason if len(reason) <= 90 else reason[:87] + "..."


def s(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.4f}" if x < 0.1 else f"{x:.3f}" if x < 10 else f"{x:.1f}"


def mb(kb: float | None) -> str:
    return "—" if kb is None else f"{kb / 1024:,.0f}"


def table(head: list[str], rows: list[list[str]]) -> str:
    w = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    line = lambda cells: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(cells)) + " |"  # noqa: E731
    return "\n".join([line(head), "|" + "|".join("-" * (x + 2) for x in w) + "|", *map(line, rows)])


def render(res: dict) -> str:
    out = []
    m = res["machine"]
    out.append(
        f"Machine: {m['cpus']} CPUs ({m['cpu']}), {m['mem_gb']} GB; load average {' '.join(map(str, res['load_before']))} "
        f"at the start, {' '.join(map(str, res['load_after']))} at the end. grail {res['grail']['commit'][:10]}"
        f"{' (uncommitted changes)' if res['grail']['dirty'] else ''}; the CLI measured: "
        f"{res['grail'].get('build', 'release profile')}.\n"
        f"Histories: `grail generate --model list-append {' '.join(GEN_ARGS)} --txns N`. "
        "Times in seconds: CPU time (user + sys), wall time in parentheses; the minimum of the runs."
    )
    rows = [r for r in res["sizes"] if "phases" in r]
    out.append("\n### Phases (grail-core in process)\n")
    head = ["txns", "MB", "edges", "read file", "parse", "build", *LEVELS, "all five", "parse+build+all"]
    body = []
    for r in rows:
        p = r["phases"]
        cell = lambda k: f"{s(p[k]['cpu'])} ({s(p[k]['wall'])})"  # noqa: E731
        body.append(
            [f"{r['txns']:,}", f"{r['bytes'] / 1e6:,.0f}", f"{r['edges']:,}", cell("load"), cell("parse"), cell("build"),
             *(cell(l) for l in LEVELS), cell("all"), f"{s(r['pbc']['cpu'])} ({s(r['pbc']['wall'])})"]
        )
    out.append(table(head, body))
    out.append("\n### End to end (`grail check FILE --json`, one process)\n")
    head = ["txns", "runs", "CPU s", "wall s", "txn/s (CPU)", "txn/s (wall)", "peak RSS MB", "load (1 min)", "verdicts SER SI PSI PL-2 PL-1"]
    body = []
    for r in res["sizes"]:
        if "cli" not in r:
            body.append([f"{r['txns']:,}", "—", short("skipped: " + r.get("skipped", "?")), "", "", "", "", "", ""])
            continue
        c = r["cli"]
        v = " ".join({"holds": "✓", "violated": "✗", "unknown": "?"}[c["verdicts"][l]["verdict"]] for l in LEVELS)
        body.append(
            [f"{r['txns']:,}", str(c["runs"]), s(c["cpu"]), s(c["wall"]), f"{r['txn_per_s']['cpu']:,.0f}",
             f"{r['txn_per_s']['wall']:,.0f}", mb(c["rss_kb"]), f"{c['load'][0][0]:.1f}", v]
        )
    out.append(table(head, body))
    out.append("\n(✓ holds, ✗ violated.)")
    ser_rows = [r for r in res["sizes"] if "cli_ser" in r]
    if ser_rows:
        out.append("\n### SER alone (`grail check FILE --levels SER -v`, one process; phases are wall seconds from -v)\n")
        head = ["txns", "CPU s", "wall s", "peak RSS MB", "read", "build", "check", "load (1 min)"]
        body = []
        for r in ser_rows:
            c = r["cli_ser"]
            ph = c.get("phases", {})
            body.append([f"{r['txns']:,}", s(c["cpu"]), s(c["wall"]), mb(c["rss_kb"]), s(ph.get("read")),
                         s(ph.get("build")), s(ph.get("check")), f"{c['load'][0][0]:.1f}"])
        out.append(table(head, body))

    if PEER:
        out.append("\n### adya on the same files (`adya check -m list-append -c serializable,snapshot-isolation,"
                   "parallel-snapshot-isolation,read-committed,read-uncommitted`)\n")
        head = ["txns", "adya CPU s", "adya wall s", "adya peak RSS MB", "adya / grail CPU", "adya / grail wall",
                "verdicts agree", "disagreements (level: grail vs adya)", "adya found (count)"]
        body = []
        for r in rows:
            a = r.get("adya", {})
            if "verdicts" not in a:
                body.append([f"{r['txns']:,}", short(a.get("skipped") or str(a.get("failed", "—"))), "", "", "", "", "", "", ""])
                continue
            dis = "; ".join(f"{d['level']}: {d['grail']} vs {d['adya']}" for d in a["disagreements"]) or "none"
            found = ", ".join(f"{k} ({v:,})" for k, v in a["anomaly_counts"].items())
            body.append(
                [f"{r['txns']:,}", s(a["cpu"]), s(a["wall"]), mb(a["rss_kb"]), f"{a['ratio_cpu']:.1f}×",
                 f"{a['ratio_wall']:.1f}×", f"{sum(a['agree'].values())}/5", dis, found]
            )
        out.append(table(head, body))

    why_rows = [r for r in rows if "alone" in r.get("adya", {})]
    if why_rows:
        out.append("\nWhy each level fails: grail's anomalies for the level (its report also lists `internal` and the "
                   "other non-cycle anomalies apart, with no level); adya's anomaly types when asked for that model alone.\n")
        head = ["txns", "level", "grail", "grail anomalies", "adya", "adya alone: anomaly types (count)"]
        body = []
        for r in why_rows:
            for l in LEVELS:
                al = r["adya"]["alone"][l]
                body.append([f"{r['txns']:,}", l, r["cli"]["verdicts"][l]["verdict"],
                             ", ".join(r["cli"]["verdicts"][l]["anomalies"]) or "—", r["adya"]["verdicts"][l]["verdict"],
                             ", ".join(f"{k} ({v:,})" for k, v in al["adya_alone_counts"].items()) or "—"])
        out.append(table(head, body))

    fe_rows = [r for r in rows if "frontends" in r]
    if fe_rows:
        out.append("\n### Front ends (same history; native = grail-core in process: load + parse + build + all five)\n")
        head = ["txns", "front end", "CPU s", "wall s", "first call wall s", "/ native CPU", "/ native wall", "peak RSS MB", "same verdicts"]
        body = []
        for r in fe_rows:
            body.append([f"{r['txns']:,}", "native", s(r["in_process"]["cpu"]), s(r["in_process"]["wall"]), "", "1", "1",
                         mb(r["phases_peak_rss_kb"]), ""])
            for name, label in (("python", "Python grail.check(path)"), ("wasm", "WASM in Node check(bytes)")):
                f = r["frontends"].get(name, {})
                if "cpu" not in f:
                    body.append([f"{r['txns']:,}", label, short(f.get("skipped") or str(f.get("failed", "—"))), "", "", "", "", "", ""])
                    continue
                body.append([f"{r['txns']:,}", label, s(f["cpu"]), s(f["wall"]), s(f["first"]["wall"]),
                             f"{f['ratio_cpu']:.2f}×", f"{f['ratio_wall']:.2f}×", mb(f["peak_rss_kb"]),
                             "yes" if f["same_verdicts_as_cli"] else "NO"])
        out.append(table(head, body))

    ih = res.get("issue_history")
    if ih:
        out.append(f"\n### Issue 20's own history (`grail generate --model list-append {' '.join(ISSUE_GEN_ARGS)} "
                   f"--txns 1000000`), grail and adya\n")
        if "cli" not in ih:
            out.append(f"Skipped: {short(ih.get('skipped', '?'))}")
        else:
            c, sr = ih["cli"], ih["cli_ser"]
            ph = sr.get("phases", {})
            head = ["run", "CPU s", "wall s", "peak RSS MB", "verdicts SER SI PSI PL-2 PL-1", "adya / grail CPU",
                    "adya / grail wall", "verdicts agree"]
            v = lambda d: " ".join({"holds": "✓", "violated": "✗", "unknown": "?"}[d[l]["verdict"]] for l in LEVELS)  # noqa: E731
            a = ih.get("adya", {})
            body = [[f"grail --levels SER (read {s(ph.get('read'))}, build {s(ph.get('build'))}, check {s(ph.get('check'))})",
                     s(sr["cpu"]), s(sr["wall"]), mb(sr["rss_kb"]), "", "", "", ""],
                    ["grail, five levels, --json", s(c["cpu"]), s(c["wall"]), mb(c["rss_kb"]), v(c["verdicts"]), "", "", ""]]
            if "verdicts" in a:
                body.append(["adya, five models", s(a["cpu"]), s(a["wall"]), mb(a["rss_kb"]), v(a["verdicts"]),
                             f"{a['ratio_cpu']:.1f}×", f"{a['ratio_wall']:.1f}×", f"{sum(a['agree'].values())}/5"])
            elif a:
                body.append(["adya", short(a.get("failed", "?")), "", "", "", "", "", ""])
            out.append(table(head, body))

    c = res.get("corpus")
    if c and "per_level" in c:
        out.append(f"\n### Corpus: {c['histories']} List1–List5 histories, grail vs adya\n")
        head = ["level", "agree", "disagree", "grail violated", "adya violated", "adya unknown",
                "grail = thesis", "adya = thesis", "adya = Elle"]
        body = [[l, str(v["agree"]), str(v["disagree"]), str(v["grail_violated"]), str(v["adya_violated"]),
                 str(v["adya_unknown"]), f"{v['grail_matches_thesis']}/{v['with_reference']}",
                 f"{v['adya_matches_thesis']}/{v['with_reference']}", f"{v['adya_matches_elle']}/{v['with_reference']}"]
                for l, v in c["per_level"].items()]
        out.append(table(head, body))
        t = c["times"]
        if t["grail_cpu"] > 0:
            out.append(f"\nTotal CPU time over the corpus: grail {s(t['grail_cpu'])} s, adya {s(t['adya_cpu'])} s "
                       f"({t['adya_cpu'] / t['grail_cpu']:.1f}×); wall {s(t['grail_wall'])} s vs {s(t['adya_wall'])} s.")
        if c["disagreements"]:
            out.append("\nDisagreements (thesis = the agreed verdict of the GRAIL thesis; elle = Elle's, from verdicts.csv; "
                       "adya alone = the anomaly types adya reports when asked for that model alone):\n")
            groups: dict = {}
            for d in c["disagreements"]:
                alone = ", ".join(d.get("adya_alone_anomaly_types", [])) or (
                    "valid" if d.get("adya_alone_valid") is True else str(d.get("adya_alone_valid")))
                key = (d["level"], d["grail"], d["adya"], d["thesis"], d["elle"], ", ".join(d["grail_anomalies"]) or "—", alone)
                groups.setdefault(key, []).append(d["history"])
            head = ["level", "grail", "adya", "thesis", "elle", "grail anomalies", "adya alone", "histories"]
            body = [[*k, f"{len(v)} (e.g. {v[0]})"] for k, v in groups.items()]
            out.append(table(head, body))
        for e in c["errors"]:
            out.append(f"\n{e['tool']} failed on {e['history']}: {e['error']}")
    elif c:
        out.append(f"\nCorpus comparison skipped: {c.get('skipped')}")

    out.append("\n### Targets (reported, not asserted)\n")
    out.append(table(["target", "measured", "met"], [[t["target"], t["measured"], t["met"]] for t in res["targets"]]))
    return "\n".join(out)


def targets(res: dict) -> list[dict]:
    out = []
    by_n = {r["txns"]: r for r in res["sizes"] if "phases" in r}
    r = by_n.get(1_000_000)
    if r:
        pbc = r["pbc"]
        ok = pbc["cpu"] <= 5
        out.append({"target": "1M txns: parse + build + five levels ≤ 5 s",
                    "measured": f"{pbc['cpu']:.2f} s CPU ({pbc['wall']:.2f} s wall, load {r['cli']['load'][0][0]:.1f}); "
                                f"CLI process {r['cli']['cpu']:.2f} s CPU, {r['cli']['wall']:.2f} s wall",
                    "met": ("yes" if ok else "no") + " (by CPU time)"})
        rss = max(r["cli"]["rss_kb"], r["phases_peak_rss_kb"])
        out.append({"target": "1M txns: peak memory ≤ 2 GB", "measured": f"{rss / 1024:,.0f} MB (CLI {mb(r['cli']['rss_kb'])} MB)",
                    "met": "yes" if rss <= 2 * 1024 * 1024 else "no"})
        a = r.get("adya", {})
        if "ratio_cpu" in a:
            out.append({"target": "1M txns: ≥ 5× faster than adya",
                        "measured": f"{a['ratio_cpu']:.1f}× by CPU time, {a['ratio_wall']:.1f}× by wall time",
                        "met": "yes" if a["ratio_cpu"] >= 5 else "no"})
    else:
        out.append({"target": "1M-transaction targets", "measured": "1M not measured", "met": "—"})
    # Issue 20: end to end, wall time, on this machine.
    ih = res.get("issue_history") or {}
    a = ih.get("adya", {})
    for label, r, ratio in (("the series' history", by_n.get(1_000_000), ((by_n.get(1_000_000) or {}).get("adya") or {})),
                            ("issue 20's own history", ih, a)):
        if r and "ratio_wall" in ratio:
            out.append({"target": f"1M txns, {label}: ≥ 20× adya, five levels (issue 20)",
                        "measured": f"{ratio['ratio_wall']:.1f}× by wall time, {ratio['ratio_cpu']:.1f}× by CPU time "
                                    f"(adya one run {ratio['wall']:.1f} s, grail best of {r['cli']['runs']} {r['cli']['wall']:.2f} s)",
                        "met": "yes" if ratio["ratio_wall"] >= 20 else "no"})
    for n, secs, gb in ((1_000_000, 2, 1), (10_000_000, 25, 6)):
        r = by_n.get(n)
        c = (r or {}).get("cli_ser")
        if not c:
            continue
        ok = c["wall"] <= secs and c["rss_kb"] <= gb * 1024 * 1024
        out.append({"target": f"{n // 1_000_000}M txns: SER end to end ≤ {secs} s, ≤ {gb} GB (issue 20)",
                    "measured": f"{c['wall']:.2f} s wall, {c['cpu']:.2f} s CPU, {mb(c['rss_kb'])} MB "
                                f"(load {c['load'][0][0]:.1f})",
                    "met": "yes" if ok else "no"})
    r = by_n.get(1_000_000)
    if r and "cli" in r:
        out.append({"target": "1M txns: all five levels end to end ≤ 2 s (issue 20)",
                    "measured": f"{r['cli']['wall']:.2f} s wall, {r['cli']['cpu']:.2f} s CPU",
                    "met": "yes" if r["cli"]["wall"] <= 2 else "no"})
    for r in by_n.values():
        fe = r.get("frontends", {})
        for name, limit, label in (("wasm", 2.0, "WASM ≤ 2× native"), ("python", 1.1, "Python ≤ 1.1× native")):
            f = fe.get(name, {})
            if "ratio_cpu" in f:
                out.append({"target": f"{r['txns']:,} txns: {label}",
                            "measured": f"{f['ratio_cpu']:.2f}× by CPU time, {f['ratio_wall']:.2f}× by wall time",
                            "met": "yes" if f["ratio_cpu"] <= limit else "no"})
    return out


def main() -> int:
    if sys.argv[1:] == ["--render"]:
        # The tables again from bench-out/bench.json, without measuring anything.
        global GEN_ARGS
        res = json.loads((OUT / "bench.json").read_text())
        GEN_ARGS = res["generator"]
        text = render(res)
        (OUT / "bench.md").write_text(text + "\n")
        print(text)
        return 0
    for tool, hint in ((CLI, "cargo build --release -p grail-cli"), (PHASES, "scripts/bench.sh builds it")):
        if not tool.exists():
            say(f"{tool} not found ({hint})")
            return 2
    OUT.mkdir(exist_ok=True)
    res: dict = {
        "machine": machine(),
        "grail": {**git_state(), "cli": str(CLI), "build": cli_build()},
        "load_before": loadavg(),
        "generator": GEN_ARGS,
        "limits": {"seconds": MAX_SECONDS, "rss_gb": MAX_RSS_KB / 1024 / 1024},
        "adya": {"path": str(ADYA.relative_to(ROOT)), "installed": ADYA.exists(), "models": ADYA_MODEL,
                 "cycle_search_timeout_ms": ADYA_SEARCH_MS},
        "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    if PEER and ADYA.exists():
        v = subprocess.run([str(ADYA), "--version"], capture_output=True, text=True)
        res["adya"]["version"] = v.stdout.strip()
    pred = Predictor()
    res["sizes"] = []
    for n in sorted(SIZES):
        res["sizes"].append(bench_size(n, pred))
        (OUT / "bench.json").write_text(json.dumps(res, indent=1))  # partial results survive an interrupt
    if ISSUE_RUN and 1_000_000 in SIZES:
        res["issue_history"] = issue_history(pred)
        (OUT / "bench.json").write_text(json.dumps(res, indent=1))
    if CORPUS_RUN and PEER:
        res["corpus"] = corpus_run()
    res["load_after"] = loadavg()
    res["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    res["targets"] = targets(res)
    text = render(res)
    (OUT / "bench.json").write_text(json.dumps(res, indent=1))
    (OUT / "bench.md").write_text(text + "\n")
    print(text)
    say("wrote bench-out/bench.json and bench-out/bench.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
