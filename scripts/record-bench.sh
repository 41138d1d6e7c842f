#!/usr/bin/env bash
# `grail record` on live databases (docs/record.md), its numbers printed:
#   1. throughput per database and level (10 sessions, 20 keys, list-append, 5000 transactions,
#      a 20 ms lock timeout), with grail's verdicts on each history;
#   2. at PostgreSQL read committed, with the database's own settings, the time from the start of
#      the recording until the first prefix of the history that violates SI (three seeds);
#   3. PostgreSQL histories in the shapes of PolySI's Fig. 6 (registers at repeatable read, as
#      PolySI recorded them: its default point and the ends of the ranges it varies), kept in
#      target/record-bench/ as the benchmark histories of the checker's limits, with the time
#      grail takes to check SI and SER on each;
#   4. with RECORD_BENCH_100K=1, 100,000 transactions at PostgreSQL serializable (list-append,
#      100 keys), checked.
#
# Servers: GRAIL_TEST_POSTGRES_URL and GRAIL_TEST_MYSQL_URL, else target/db/env (written by
# `bash scripts/db-servers.sh start`). A server without a URL is left out; SQLite always runs.
# Environment: CARGO_TARGET_DIR (default target).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ -z "${GRAIL_TEST_POSTGRES_URL:-}${GRAIL_TEST_MYSQL_URL:-}" && -f target/db/env ]]; then
    # shellcheck source=/dev/null
    source target/db/env
fi
PG="${GRAIL_TEST_POSTGRES_URL:-}"
MY="${GRAIL_TEST_MYSQL_URL:-}"

cargo build --release -q -p grail-cli
G="$CARGO_TARGET_DIR/release/grail"
OUT="$CARGO_TARGET_DIR/record-bench"
mkdir -p "$OUT"

field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(*(d[k] if not isinstance(d[k], float) else round(d[k], 2) for k in sys.argv[1:]))' "$@"; }

# verdicts FILE LEVELS: "SER holds, SI holds, ..." and the seconds grail took.
verdicts() {
    python3 - "$G" "$1" "$2" <<'EOF'
import json, subprocess, sys, time
grail, path, levels = sys.argv[1:4]
start = time.monotonic()
run = subprocess.run([grail, "check", "--json", "--levels", levels, path], capture_output=True, text=True)
took = time.monotonic() - start
if run.returncode not in (0, 1):
    sys.exit(f"grail check {path}: {run.stderr.strip()}")
d = json.loads(run.stdout)
print(", ".join(f"{l} {v['verdict']}" for l, v in d["levels"].items()) + f" (checked in {took:.2f} s)")
EOF
}

echo "== 1. throughput: 10 sessions, 20 keys, 1-6 operations, list-append, 5000 transactions, --lock-timeout 20"
printf '%-28s %-17s %10s %10s %9s  %s\n' database level "txn/s" committed aborted "grail check"
throughput() { # NAME URL LEVEL
    local f="$OUT/throughput-$1-${3// /-}.edn" s
    s=$("$G" record --json --db "$2" --isolation "$3" --txns 5000 --lock-timeout 20 --table grail_record_bench --out "$f")
    read -r rate committed aborted < <(echo "$s" | field transactions_per_second committed aborted)
    printf '%-28s %-17s %10s %10s %9s  %s\n' "$(echo "$s" | field database | sed 's/ (.*//; s/-.*//')" "$3" "$rate" "$committed" "$aborted" \
        "$(verdicts "$f" SER,SI,PL-2)"
}
if [[ -n "$PG" ]]; then
    for l in "read committed" "repeatable read" serializable; do throughput pg "$PG" "$l"; done
fi
if [[ -n "$MY" ]]; then
    for l in "read uncommitted" "read committed" "repeatable read" serializable; do throughput my "$MY" "$l"; done
fi
rm -f "$OUT/sqlite.db" "$OUT/sqlite.db-wal" "$OUT/sqlite.db-shm"
throughput sqlite "sqlite:$OUT/sqlite.db" serializable

if [[ -n "$PG" ]]; then
    echo
    echo "== 2. PostgreSQL read committed, the database's own settings (10 sessions, 20 keys, list-append, 5 s):"
    echo "   time from the start until the first prefix of the history that violates SI"
    for seed in 1 2 3; do
        f="$OUT/pg-rc-first-violation-$seed.json"
        s=$("$G" record --json --db "$PG" --isolation "read committed" --duration 5 --seed "$seed" --table grail_record_bench --out "$f")
        read -r n rate < <(echo "$s" | field transactions transactions_per_second)
        read -r t k < <(python3 scripts/record-first-violation.py "$G" "$f" SI)
        if [[ "$t" == none ]]; then
            echo "   seed $seed: $n transactions ($rate/s); SI not violated"
        else
            echo "   seed $seed: $n transactions ($rate/s); SI first violated after $t s, when $k transactions had ended"
        fi
    done

    echo
    echo "== 3. PolySI Fig. 6 shapes on PostgreSQL (rw-register, repeatable read; sessions x transactions/session x operations, keys)"
    fig6() { # NAME SESSIONS TXNS_PER_SESSION OPS KEYS
        local f="$OUT/fig6-$1.edn" s
        s=$("$G" record --json --db "$PG" --workload rw-register --isolation "repeatable read" --shape polysi \
            --sessions "$2" --txns $(($2 * $3)) --ops "$4" --keys "$5" --table grail_record_bench --out "$f")
        read -r rate committed aborted < <(echo "$s" | field transactions_per_second committed aborted)
        printf '   %-8s %2s x %3s x %2s, %5s keys: %7s txn/s, %5s committed, %4s aborted; %s\n' "$1" "$2" "$3" "$4" "$5" \
            "$rate" "$committed" "$aborted" "$(verdicts "$f" SI,SER)"
    }
    fig6 default 20 100 15 10000
    fig6 keys1k 20 100 15 1000
    fig6 sess10 10 100 15 10000
    fig6 sess30 30 100 15 10000
    fig6 txns250 20 250 15 10000
    fig6 ops30 20 100 30 10000
    echo "   histories kept in $OUT/fig6-*.edn"

    if [[ "${RECORD_BENCH_100K:-}" == 1 ]]; then
        echo
        echo "== 4. 100,000 transactions at PostgreSQL serializable (10 sessions, 100 keys, list-append, --lock-timeout 20)"
        f="$OUT/pg-ser-100k.edn"
        s=$("$G" record --json --db "$PG" --isolation serializable --txns 100000 --keys 100 --lock-timeout 20 --table grail_record_bench --out "$f")
        read -r rate committed aborted secs < <(echo "$s" | field transactions_per_second committed aborted seconds)
        echo "   recorded in $secs s ($rate txn/s): $committed committed, $aborted aborted; $(verdicts "$f" SER,SI,PL-2)"
    fi
fi
