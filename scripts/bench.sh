#!/usr/bin/env bash
# Benchmarks (make bench): native throughput, then the Python and WASM front ends if built.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -p grail-core --bench throughput
if [ -x .venv/bin/python ] && [ -f scripts/bench-python.py ]; then .venv/bin/python scripts/bench-python.py; fi
if [ -f scripts/bench-wasm.mjs ] && [ -d bindings/wasm/pkg ]; then node scripts/bench-wasm.mjs; fi
