#!/usr/bin/env bash
# The database tests (bindings/cli/tests/databases.rs) against real servers: starts PostgreSQL and
# MariaDB (scripts/db-servers.sh start, which installs them when missing), runs the tests with the
# URLs it wrote to target/db/env, and stops the servers on exit.
#
# Arguments go to the test binary (a test name, --nocapture). Environment: GRAIL_KEEP_DB=1 leaves
# the servers running; CI=true (a server that cannot start then fails instead of skipping);
# CARGO_TARGET_DIR (default target).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
tests=bindings/cli/tests/databases.rs

if [[ ! -f "$tests" ]]; then
    echo "test-db: $tests does not exist: no database tests to run"
    exit 0
fi

if [[ "${GRAIL_KEEP_DB:-}" != 1 ]]; then
    trap 'bash scripts/db-servers.sh stop' EXIT
fi
bash scripts/db-servers.sh start

# Only the servers started here: a URL left in the environment from elsewhere is not tested.
unset GRAIL_TEST_POSTGRES_URL GRAIL_TEST_MYSQL_URL
# shellcheck source=/dev/null
source target/db/env

cargo test --release -p grail-cli --test databases -- --test-threads=1 "$@"
