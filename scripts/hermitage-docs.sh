#!/usr/bin/env bash
# Regenerates docs/hermitage/: `grail hermitage` on the test servers (scripts/db-servers.sh) and
# on SQLite, each table as text and each test's history (native JSON, EDN) and transcript.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo build --release -q -p grail-cli
bash scripts/db-servers.sh start
# shellcheck disable=SC1091
source target/db/env
out=docs/hermitage
rm -rf "$out" && mkdir -p "$out"
lite="$(mktemp -d)"
for db in "postgresql=$GRAIL_TEST_POSTGRES_URL" "mariadb=$GRAIL_TEST_MYSQL_URL" "sqlite=sqlite:$lite/hermitage.db"; do
    name="${db%%=*}" url="${db#*=}"
    mkdir -p "$out/$name"
    ./target/release/grail hermitage --db "$url" --out "$out/$name" >"$out/$name/table.md"
    find "$out/$name" -name '*.report.json' -delete
    echo "hermitage-docs: $out/$name/table.md"
done
rm -rf "$lite"
