#!/usr/bin/env bash
# make fuzz: run each cargo-fuzz target of core/fuzz for a while (not part of make test).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60, or $FUZZ_SECONDS); targets default to all of them
# (read_edn read_json read_wal read_polysi check). Installs cargo-fuzz when missing. Only a stable
# toolchain exists here, so cargo-fuzz runs with RUSTC_BOOTSTRAP=1 and no sanitizer (grail has
# no unsafe code; what we look for is panics, overflows and hangs). Debug assertions are on,
# so integer overflow panics. Seeds: the small histories in tests/cases and, when present,
# ../shared/corpus/grail/tiny-*. New inputs go to core/fuzz/corpus/<target>, crashes to
# core/fuzz/artifacts/<target> (both ignored by git); every target runs, and the script fails at
# the end if any crashed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-${FUZZ_SECONDS:-60}}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(read_edn read_json read_wal read_polysi check)
fi
case "$seconds" in
    ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz"
    cargo install cargo-fuzz
fi

export RUSTC_BOOTSTRAP=1
shared="$root/../shared/corpus/grail"
cd "$root/core/fuzz"
failed=()

for t in "${targets[@]}"; do
    seeds=()
    case "$t" in
        read_edn|check) seeds+=("$root/tests/cases") ;;
        read_json) seeds+=("$root/tests/cases/elle-json" "$root/tests/cases/native") ;;
        read_wal) seeds+=("$root/tests/cases/register") ;;
        read_polysi) seeds+=("$root/tests/cases/G-single") ;;
        *) echo "fuzz.sh: unknown target '$t'" >&2; exit 2 ;;
    esac
    for d in "$shared"/tiny-list "$shared"/tiny-register; do
        [ -d "$d" ] && seeds+=("$d")
    done
    mkdir -p "corpus/$t" "artifacts/$t"
    echo "fuzz.sh: $t for ${seconds}s"
    # -rss_limit_mb: a reader must not need gigabytes for a few kilobytes of input.
    if ! cargo fuzz run "$t" --sanitizer none --debug-assertions --release \
        "corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1; then
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: failed: ${failed[*]} (a build error above, or a crash: its input is in" \
        "core/fuzz/artifacts/<target>/; fix it and add the input to core/tests/readers_prop.rs)" >&2
    exit 1
fi
echo "fuzz.sh: no crash in ${targets[*]}"
