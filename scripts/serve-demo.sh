#!/usr/bin/env bash
# Build the web demo (grail's JS package first, when it is missing or older than its sources)
# and serve web-demo/dist on http://127.0.0.1:${PORT:-8000}/ until Ctrl-C. `make run` runs this.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${PORT:-8000}"

# The JS package: scripts/deps-wasm.sh installs what it needs and skips a build that is current.
bash "$root/scripts/deps-wasm.sh"
node "$root/web-demo/build.mjs"

echo "serve-demo: serving $root/web-demo/dist"
exec python3 "$root/web-demo/serve.py" --bind 127.0.0.1 --port "$port" --dir "$root/web-demo/dist"
