#!/usr/bin/env bash
# Byte-identity harness for refactors: run one grail binary over a fixed set of inputs and write
# every output into a folder, so that two binaries' folders can be compared with `diff -r`.
#
#   scripts/same-reports.sh GRAIL_BINARY OUT_DIR
#   diff -r -x README.txt BASE_DIR OUT_DIR && echo identical
#
# Inputs: every history of the shared corpus (../shared/corpus, beside the checkout; with its
# write-ahead log where one goes with it), the conformance cases (tests/cases), histories that
# the binary itself generates (kept in OUT_DIR/gen, so generation is compared too) and one
# 1M-transaction list-append history (generated once, cached in $GRAIL_1M, default /tmp/grail-1m.edn).
#
# Each run writes OUT_DIR/<input>/<variant>.out (standard output) and <variant>.rc (the exit code,
# then standard error); `grail elle -d` writes Elle's directory into OUT_DIR/<input>/elle-dir. A run is bounded by `timeout 120` (300 for the few inputs in HEAVY); a
# timeout is written as `timeout` with no output. Every run starts in the input's folder and names the input by its file name, so that
# paths in messages are the same wherever OUT_DIR and the checkout are.
#
# Per-run times go to OUT_DIR.times.tsv (beside OUT_DIR, not compared); the total is printed.
set -uo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 GRAIL_BINARY OUT_DIR" >&2
    exit 2
fi
GRAIL=$(realpath "$1")
OUT=$(realpath -m "$2")
[ -x "$GRAIL" ] || { echo "$0: $1 is not an executable" >&2; exit 2; }
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    echo "$0: $OUT exists and is not empty" >&2
    exit 2
fi
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$(realpath -m "$ROOT/../shared/corpus")
[ -d "$CORPUS" ] || { echo "$0: no corpus at $CORPUS" >&2; exit 2; }
BIG=${GRAIL_1M:-/tmp/grail-1m.edn}
LIMIT=120
TIMES="$OUT.times.tsv"
: >"$TIMES"
START=$(date +%s.%N)
RUNS=0

# run ID VARIANT DIR ARGS...: grail ARGS in DIR, output under $OUT/ID/VARIANT.{out,rc}.
run() {
    local id=$1 variant=$2 dir=$3
    shift 3
    local o="$OUT/$id/$variant"
    mkdir -p "$OUT/$id"
    local t0 t1 rc limit=$LIMIT
    case "$HEAVY" in *" $id "*) limit=$HEAVY_LIMIT ;; esac
    t0=$(date +%s.%N)
    (cd "$dir" && exec timeout "$limit" "$GRAIL" "$@") </dev/null >"$o.out" 2>"$o.err"
    rc=$?
    t1=$(date +%s.%N)
    if [ $rc -eq 124 ]; then
        : >"$o.out"
        echo "timeout ${limit}s" >"$o.rc"
    else
        { echo "exit $rc"; cat "$o.err"; } >"$o.rc"
    fi
    rm -f "$o.err"
    RUNS=$((RUNS + 1))
    printf '%s\t%s\t%.2f\t%s\n' "$id" "$variant" "$(echo "$t1 - $t0" | bc)" "$rc" >>"$TIMES"
}

# Inputs whose check takes over 60 s: only the five-levels --json variant, bounded by
# $HEAVY_LIMIT s, not 120: AWDIT's 1M-event history takes 73-94 s alone on 2 cores and timed out
# at 120 s with a build running beside it, which would read as a difference.
HEAVY=" corpus/peers/awdit/big/causal-1000000.txt.gz "
HEAVY_LIMIT=300

# is_list FILE: a list-append history (it appends).
is_list() {
    case "$1" in
        *.gz) zcat -- "$1" | grep -q -m1 -e ':append' -e '"append"' ;;
        *) grep -q -m1 -e ':append' -e '"append"' -- "$1" ;;
    esac
}

# input ID FILE [WAL]: every variant over one history.
input() {
    local id=$1 file=$2 wal=${3:-}
    local dir base
    dir=$(dirname "$file")
    base=$(basename "$file")
    local w=()
    if [ -n "$wal" ]; then
        [ "$(dirname "$wal")" = "$dir" ] || { echo "$0: $wal is not beside $file" >&2; exit 2; }
        w=(--wal "$(basename "$wal")")
    fi
    run "$id" check-json "$dir" check "$base" "${w[@]}" --json
    case "$HEAVY" in *" $id "*) return ;; esac
    run "$id" check-text "$dir" check "$base" "${w[@]}"
    run "$id" check-all-analyze-json "$dir" check "$base" "${w[@]}" --levels all --analyze --json
    run "$id" check-all-analyze-text "$dir" check "$base" "${w[@]}" --levels all --analyze
    run "$id" stats-json "$dir" stats "$base" "${w[@]}" --json
    run "$id" graph-json "$dir" graph "$base" "${w[@]}" --json
    if is_list "$file"; then
        run "$id" online-json "$dir" online "$base" "${w[@]}" --json
    fi
    # elle-cli's interface: Elle's result map (its explanations) and its --directory files.
    case "$base" in
        *.edn | *.edn.gz | *.json)
            local model=rw-register
            is_list "$file" && model=list-append
            run "$id" elle-json "$dir" elle -m "$model" -v json -d "$OUT/$id/elle-dir" "$base"
            ;;
    esac
}

# --- the shared corpus ------------------------------------------------------------------------
# Not histories, so not here: grail/dsg-list5 (GRAIL's exported graphs), the *.csv/*.tsv verdict
# tables, grail/anti-patterns/*/{checker,jepsen}.log* (logs), the README files and licenses.
corpus_histories() {
    (cd "$CORPUS" && find grail/tiny-register grail/tiny-list grail/anti-patterns grail/list grail/reg-max-write elle \
        -type f \( -name '*.edn' -o -name '*.edn.gz' -o -name '*.json' \) | LC_ALL=C sort)
    (cd "$CORPUS" && find peers -type f \( -name '*.txt.gz' -o -name '*.bincode' \) | LC_ALL=C sort)
}
while read -r rel; do
    f="$CORPUS/$rel"
    wal=""
    case "$rel" in
        *.edn.gz) [ -f "${f%.edn.gz}.log.gz" ] && wal="${f%.edn.gz}.log.gz" ;;
        *.edn) [ -f "${f%.edn}.log" ] && wal="${f%.edn}.log" ;;
    esac
    input "corpus/$rel" "$f" "$wal"
done < <(corpus_histories)

# --- the conformance cases --------------------------------------------------------------------
while read -r rel; do
    f="$ROOT/tests/cases/$rel"
    wal=""
    case "$rel" in
        *.edn) [ -f "${f%.edn}.log" ] && wal="${f%.edn}.log" ;;
        *.json) [ -f "${f%.json}.log" ] && wal="${f%.json}.log" ;;
    esac
    input "cases/$rel" "$f" "$wal"
done < <(cd "$ROOT/tests/cases" && find . -type f \( -name '*.edn' -o -name '*.json' \) ! -name '*.expected.json' \
    | sed 's|^\./||' | LC_ALL=C sort)

# --- generated histories (the files themselves are compared too) ------------------------------
# gen NAME WAL? GENERATE-ARGS...: generate into $OUT/gen/NAME/, then check it.
gen() {
    local name=$1 with_wal=$2
    shift 2
    local d="$OUT/gen/$name" ext=edn
    mkdir -p "$d"
    case " $* " in *" native "* | *" timekiller "*) ext=json ;; *" polysi "*) ext=txt ;; esac
    local args=(generate "$@" -o "history.$ext")
    [ "$with_wal" = wal ] && args+=(--wal-out history.log)
    run "gen/$name" generate "$d" "${args[@]}"
    if [ "$with_wal" = wal ]; then
        input "gen/$name" "$d/history.$ext" "$d/history.log"
    else
        input "gen/$name" "$d/history.$ext"
    fi
}
gen la-ser-s1 - --model list-append --isolation serializable --seed 1
gen la-rc-s2 - --model list-append --isolation read-committed --seed 2
gen la-si-inject-s3 - --model list-append --isolation snapshot-isolation --inject lost-update:3,write-skew:2 --seed 3
gen la-ser-inject-ts-s4 - --model list-append --isolation serializable --inject lost-update:3,write-skew:2 --timestamps --seed 4
gen la-causal-s5 - --model list-append --isolation causal --txns 2000 --distribution zipfian --seed 5
gen rr-ser-wal-s6 wal --model rw-register --isolation serializable --seed 6
gen rr-rc-wal-s7 wal --model rw-register --isolation read-committed --seed 7
gen rr-ser-inject-wal-s8 wal --model rw-register --isolation serializable --inject lost-update:3,write-skew:2 --seed 8
gen rr-ser-inject-s9 - --model rw-register --isolation serializable --inject lost-update:3,write-skew:2 --seed 9
gen rr-si-ts-s10 - --model rw-register --isolation snapshot-isolation --timestamps --seed 10
gen native-la-rc-s11 - --model list-append --isolation read-committed --inject lost-update:2 --output native --seed 11
gen polysi-s12 - --isolation snapshot-isolation --inject write-skew:2 --output polysi --seed 12

# --- one 1M-transaction list-append history (five levels only: --json and text) ---------------
if [ ! -s "$BIG" ]; then
    echo "generating $BIG (once)" >&2
    "$GRAIL" generate --model list-append --txns 1000000 --seed 1 -o "$BIG.tmp" 2>/dev/null && mv "$BIG.tmp" "$BIG"
fi
run gen-1m check-json "$(dirname "$BIG")" check "$(basename "$BIG")" --json
run gen-1m check-text "$(dirname "$BIG")" check "$(basename "$BIG")"

END=$(date +%s.%N)
printf 'same-reports: %d runs, %.0f s, into %s (times: %s)\n' "$RUNS" "$(echo "$END - $START" | bc)" "$OUT" "$TIMES" >&2
