#!/usr/bin/env bash
# Python tests: a virtualenv at .venv (made once, reused while current), the package installed
# with pip from ./python (rebuilt only when its sources changed), the test tools from
# python/requirements-test.txt, the CLI (to compare against), then pytest on python/tests.
#
# Environment: PYTHON (default python3), GRAIL_VENV (default .venv), CARGO_TARGET_DIR (default
# target), CI=true (a missing ../shared/corpus then fails instead of skipping).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="${GRAIL_VENV:-$ROOT/.venv}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

say() { echo "test-python: $*"; }

hash_files() { # a digest of the given files' names and contents
    sha256sum "$@" | sha256sum | cut -c1-32
}

# 1. The virtualenv: remade when missing or made by another interpreter.
interp="$("$PY" -c 'import sys; print(sys.version.split()[0], sys.executable)')"
if [[ ! -x "$VENV/bin/python" || "$(cat "$VENV/.grail-interpreter" 2>/dev/null)" != "$interp" ]]; then
    say "creating $VENV ($interp)"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    echo "$interp" >"$VENV/.grail-interpreter"
fi
VPY="$VENV/bin/python"

# 2. The test tools, when the requirements changed.
req_stamp="$(hash_files python/requirements-test.txt)"
if [[ "$(cat "$VENV/.grail-test-deps" 2>/dev/null)" != "$req_stamp" ]]; then
    say "installing test tools"
    "$VPY" -m pip install --quiet -r python/requirements-test.txt
    echo "$req_stamp" >"$VENV/.grail-test-deps"
fi

# 3. The package, with pip as a user would, when any of its sources changed.
mapfile -t sources < <(find python/grail python/pyproject.toml python/README.md bindings/python/Cargo.toml \
    bindings/python/src core/Cargo.toml core/src Cargo.toml Cargo.lock -type f \
    -not -name '*.pyc' -not -path '*/__pycache__/*' | LC_ALL=C sort)
pkg_stamp="$(hash_files "${sources[@]}")"
if [[ "$(cat "$VENV/.grail-package" 2>/dev/null)" != "$pkg_stamp" ]] || ! "$VPY" -c 'import grail' 2>/dev/null; then
    say "building and installing ./python (pip install ./python)"
    "$VPY" -m pip install --quiet --force-reinstall --no-deps ./python
    echo "$pkg_stamp" >"$VENV/.grail-package"
else
    say "grail is installed and current"
fi

# 4. The CLI, which the tests compare the Python reports with.
cargo build --quiet --release -p grail-cli
export GRAIL_CLI="$CARGO_TARGET_DIR/release/grail"

# 5. pytest. Exit code 5 (no tests collected) is a failure: there are tests.
set +e
"$VPY" -m pytest python/tests -p no:cacheprovider "$@"
rc=$?
set -e
if [[ $rc -eq 5 ]]; then
    say "pytest collected no tests: failing"
    exit 1
fi
exit $rc
