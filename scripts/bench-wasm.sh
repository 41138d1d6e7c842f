#!/usr/bin/env bash
# Benchmark the WebAssembly package against the native CLI (not part of make test):
# builds what is missing, then runs scripts/bench-wasm.mjs with the given arguments.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/deps-wasm.sh"
(cd "$root" && cargo build --release -p grail-cli)
node "$root/scripts/bench-wasm.mjs" "$@"
