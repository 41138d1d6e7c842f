#!/usr/bin/env bash
# Benchmarks (make bench; not part of make test). See docs/benchmarks.md.
#
# 1. Builds the CLI as published (scripts/build-cli.sh: the dist profile with PGO, into
#    target/dist/grail; GRAIL_CLI names another) and the per-phase harness (scripts/bench/phases,
#    into bench-out/target).
# 2. Installs the peer checker adya from crates.io into bench-out/peers (once; a scratch folder,
#    not a project dependency). GRAIL_BENCH_PEER=0 skips it and the comparison.
# 3. Runs scripts/bench/run.py: generated list-append histories of 10k..10M transactions
#    (GRAIL_BENCH_SIZES), phases, end to end, peak memory, adya, Python and WASM, the corpus
#    comparison; tables on stdout, bench-out/bench.json and bench-out/bench.md.
# 4. Runs scripts/bench/awdit.py (GRAIL_BENCH_AWDIT=0 skips it): RC, RA and CC on a 200k-transaction
#    AWDIT-shaped history in Plume's text format, on AWDIT's shared 200k history and on a draw of
#    AWDIT's generator at each of its levels, times and peak memory, and AWDIT's when an `awdit`
#    binary is in GRAIL_AWDIT, on PATH or in ../shared/peers/bin (it is not on crates.io).
# 5. Runs scripts/bench/strategies.py (GRAIL_BENCH_STRATEGIES=0 skips it): each strategy's time
#    on the List1 series (thesis Figure 5.1), bench-out/strategies.json, docs/strategies-list1.svg.
# 6. Runs the white-box benchmark (`cargo bench -p grail-core --bench timestamps`): SI from the
#    timestamps of 1M generated transactions (GRAIL_BENCH_TIMESTAMPS=0 skips it).
# 7. Runs scripts/bench/stream.py (GRAIL_BENCH_STREAM=0 skips it): `grail generate` piped into
#    `grail online -`, GRAIL_STREAM_TXNS transactions (10M; issue 35 measured 100M), transactions/s,
#    resident memory every 10M, the injected anomalies found; and the time from writing a
#    violation's closing line to reading it back.
# 8. Runs scripts/bench/readers.py (GRAIL_BENCH_READERS=0 skips it): one 1M-transaction register
#    history in every format the generator writes, and as elle-cli's JSON, each read in turn;
#    MB/s and the ratio to the EDN reader's.
# 9. With GRAIL_BENCH_EXTRA=1, also the earlier benchmarks on the largest corpus history:
#    `cargo bench -p grail-core --bench throughput` (and a synthetic history of GRAIL_BENCH_TXNS
#    transactions), scripts/bench-python.py and scripts/bench-wasm.mjs (when those are built).
#
# The Python and WASM front ends are measured when built (make test-python, make deps-wasm).
set -euo pipefail
cd "$(dirname "$0")/.."

ADYA_VERSION=0.1.0

if [[ -z "${GRAIL_CLI:-}" ]]; then
    GRAIL_CLI="$(bash scripts/build-cli.sh)"
fi
export GRAIL_CLI
echo "bench: the CLI measured is $GRAIL_CLI" >&2
cargo build --release --manifest-path scripts/bench/phases/Cargo.toml --target-dir bench-out/target

if [[ "${GRAIL_BENCH_PEER:-1}" != 0 && ! -x bench-out/peers/bin/adya ]]; then
    echo "bench: installing adya $ADYA_VERSION into bench-out/peers (a few minutes, once)" >&2
    # Only the checker: its database drivers (default features) are not needed to read files.
    if ! cargo install adya --version "$ADYA_VERSION" --locked --no-default-features --root bench-out/peers; then
        echo "bench: could not install adya; the peer comparison will be skipped" >&2
    fi
fi

python3 scripts/bench/run.py

if [[ "${GRAIL_BENCH_AWDIT:-1}" != 0 ]]; then
    python3 scripts/bench/awdit.py
fi

if [[ "${GRAIL_BENCH_STRATEGIES:-1}" != 0 ]]; then
    python3 scripts/bench/strategies.py
fi

# White-box SI on 1M timestamped transactions (docs/timestamps.md); GRAIL_BENCH_TIMESTAMPS=0 skips it.
if [[ "${GRAIL_BENCH_TIMESTAMPS:-1}" != 0 ]]; then
    cargo bench -p grail-core --bench timestamps -- "${GRAIL_BENCH_TIMESTAMPS_TXNS:-1000000}"
fi

if [[ "${GRAIL_BENCH_STREAM:-1}" != 0 ]]; then
    python3 scripts/bench/stream.py
fi

if [[ "${GRAIL_BENCH_READERS:-1}" != 0 ]]; then
    python3 scripts/bench/readers.py
fi

if [[ "${GRAIL_BENCH_EXTRA:-0}" == 1 ]]; then
    cargo bench -p grail-core --bench throughput
    if [[ -x .venv/bin/python ]]; then .venv/bin/python scripts/bench-python.py; fi
    if [[ -d bindings/wasm/pkg ]]; then node scripts/bench-wasm.mjs; fi
fi
