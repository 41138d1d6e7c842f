#!/usr/bin/env bash
# Build what gets published, into dist/:
#   - the Python wheel (`grail-isolation` on PyPI, imported as `grail`): one abi3 wheel for
#     CPython 3.9 and later, built by `maturin build --release` (pyo3's abi3-py39 feature);
#   - the npm package (`grail-isolation`): bindings/wasm/pkg packed by `npm pack`;
#   - the CLI (`grail` and `elle-cli`): scripts/build-cli.sh (the dist profile: fat LTO, and PGO
#     when the LLVM tools are at hand), copied as they are.
# maturin is installed into the project's virtualenv (.venv, as scripts/test-python.sh makes
# it) when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dist="$root/dist"
mkdir -p "$dist"
VENV="${GRAIL_VENV:-$root/.venv}"
PY="${PYTHON:-python3}"
MATURIN_VERSION=1.16.0

if [[ ! -x "$VENV/bin/python" ]]; then
    echo "dist: creating $VENV"
    "$PY" -m venv "$VENV"
fi
if ! "$VENV/bin/maturin" --version 2>/dev/null | grep -q "$MATURIN_VERSION"; then
    echo "dist: pip install maturin==$MATURIN_VERSION"
    "$VENV/bin/python" -m pip install --quiet "maturin==$MATURIN_VERSION"
fi
echo "dist: maturin build --release (abi3 wheel)"
(cd python && "$VENV/bin/maturin" build --release --out "$dist")

bash scripts/deps-wasm.sh
echo "dist: npm pack bindings/wasm/pkg"
(cd bindings/wasm/pkg && npm pack --silent --pack-destination "$dist" >/dev/null)

cli="$(bash scripts/build-cli.sh)"
cp "$cli" "$(dirname "$cli")/elle-cli" "$dist/"

echo "dist: built"
ls -l "$dist"
