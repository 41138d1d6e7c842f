#!/usr/bin/env bash
# The CLI as published (make dist) and benchmarked (make bench), into target/dist/grail:
# cargo's `dist` profile (fat LTO, one codegen unit), optimised with the profile of a training
# run (PGO) when the LLVM tools matching rustc are at hand (rustup's llvm-tools component, added
# here when rustup is present).
#   1. An instrumented build (target/pgo/instrumented), run on histories it generates: both data
#      models, the five classic levels, SER alone, and the weak levels; seeds and sizes of their
#      own, not the benchmark's histories.
#   2. llvm-profdata merge (target/pgo/grail.profdata).
#   3. The dist build with -Cprofile-use.
# Without the tools, the dist build alone (LTO), with a warning. Skipped while target/dist/grail
# is newer than every source. GRAIL_PGO=0: no PGO. Prints the binary's path last.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/dist/grail"
stamp="$target/dist/.grail-build"

newer_source() {
    find core/src core/Cargo.toml bindings/cli Cargo.toml Cargo.lock scripts/build-cli.sh \
        -newer "$stamp" -print -quit 2>/dev/null
}
if [[ -x "$out" && -f "$stamp" && -z "$(newer_source)" && "$(cat "$stamp")" == "pgo=${GRAIL_PGO:-1}" ]]; then
    echo "build-cli: $out is up to date ($(cat "$stamp"))" >&2
    echo "$out"
    exit 0
fi

profdata=""
if [[ "${GRAIL_PGO:-1}" != 0 ]]; then
    sysroot="$(rustc --print sysroot)"
    host="$(rustc -vV | sed -n 's/^host: //p')"
    profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
    if [[ ! -x "$profdata" ]] && command -v rustup >/dev/null; then
        echo "build-cli: rustup component add llvm-tools (for llvm-profdata)" >&2
        rustup component add llvm-tools >&2 || true
    fi
    if [[ ! -x "$profdata" ]]; then
        echo "build-cli: warning: no llvm-profdata matching rustc; building without PGO" >&2
        profdata=""
    fi
fi

flags=""
if [[ -n "$profdata" ]]; then
    pgo="$target/pgo"
    raw="$pgo/raw"
    echo "build-cli: instrumented build (PGO step 1 of 3)" >&2
    CARGO_TARGET_DIR="$pgo/instrumented" RUSTFLAGS="-Cprofile-generate=$raw" \
        cargo build --release -p grail-cli >&2
    trained="$pgo/instrumented/release/grail"
    work="$pgo/histories"
    mkdir -p "$work"
    # Generated first, then the profiles cleared: only the checks train.
    gen() { [[ -s "$work/$1" ]] || "$trained" generate "${@:2}" -o "$work/$1" >/dev/null 2>&1; }
    gen list-200k.edn --txns 200000 --min-ops 4 --max-ops 8 --max-writes-per-key 8 --seed 7
    gen series-100k.edn --txns 100000 --isolation read-committed --keys 100 --seed 7
    gen register-100k.edn --txns 100000 --model rw-register --seed 7
    gen causal-100k.txt --txns 100000 --sessions 100 --keys 2000 --min-ops 5 --max-ops 5 \
        --read-ratio 0.8 --distribution zipfian --isolation causal --output polysi --seed 7
    rm -rf "$raw"
    echo "build-cli: training run (PGO step 2 of 3)" >&2
    train() { LLVM_PROFILE_FILE="$raw/grail-%p-%m.profraw" "$trained" check "$@" >/dev/null 2>&1 || true; }
    train "$work/list-200k.edn" --json
    train "$work/list-200k.edn" --levels SER
    train "$work/series-100k.edn" --json
    train "$work/register-100k.edn" --json
    train "$work/causal-100k.txt" --levels RC,RA,CC
    "$profdata" merge -o "$pgo/grail.profdata" "$raw"
    flags="-Cprofile-use=$pgo/grail.profdata -Cllvm-args=-pgo-warn-missing-function=false"
    echo "build-cli: dist build with the profile (PGO step 3 of 3)" >&2
else
    echo "build-cli: dist build (fat LTO)" >&2
fi
RUSTFLAGS="$flags" cargo build --profile dist -p grail-cli >&2
echo "pgo=$([[ -n "$profdata" ]] && echo 1 || echo 0)" >"$stamp"
echo "$out"
