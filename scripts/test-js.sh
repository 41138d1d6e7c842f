#!/usr/bin/env bash
# Node tests of the JS package: bindings/wasm/tests/*.test.mjs with node's test runner.
# Needs the package built (scripts/deps-wasm.sh, which `make test-js` runs first) and builds the
# CLI, whose JSON and text output the tests compare with. Without ../shared/corpus the corpus
# test is skipped, unless CI=true, where that fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ ! -f bindings/wasm/pkg/grail_wasm_bg.wasm ]]; then
    echo "test-js: bindings/wasm/pkg is not built: run bash scripts/deps-wasm.sh first" >&2
    exit 1
fi
cargo build --release -p grail-cli
export GRAIL_CLI="${GRAIL_CLI:-${CARGO_TARGET_DIR:-$root/target}/release/grail}"

# Node's default reporter (TAP when not on a terminal); its closing lines are the summary.
# --single-threaded (V8's "disable the use of background tasks"; node passes it on to each test
# file's process). Node 20 can deadlock at a process's exit with one outstanding: its main
# thread waits in NodePlatform::DrainTasks for a task that waits for the main thread
# (nodejs/node#54918; nodejs/node#61963 proposed a fix). Here online_stream.test.mjs
# hung so after its last test passed, held there (gdb), and the suite waited for it forever.
node --single-threaded --test bindings/wasm/tests/*.test.mjs
