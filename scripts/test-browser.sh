#!/usr/bin/env bash
# The web demo's tests: build web-demo/dist from grail's JS package (bindings/wasm/pkg, built by
# scripts/deps-wasm.sh), then run web-demo/tests/*.test.mjs with node's test runner. The browser
# tests start their own static server on a free 127.0.0.1 port and headless Chromium
# (/usr/bin/chromium through playwright-core), and stop both at the end. `make test-browser`
# runs scripts/deps-browser.sh and scripts/deps-wasm.sh first.
# Screenshots of the main states are written to web-demo/screenshots/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

node web-demo/build.mjs

# Chromium leaves profile folders in TMPDIR: keep them under target/ and remove them after.
tmp="$root/target/browser-tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"

# One file at a time: each starts a browser, and the machine has two cores.
# --single-threaded: see scripts/test-js.sh (Node 20's deadlock at exit, nodejs/node#54918).
node --single-threaded --test --test-concurrency=1 web-demo/tests/*.test.mjs
