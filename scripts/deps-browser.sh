#!/usr/bin/env bash
# What the browser tests of the web demo need, installed when missing:
#   - Debian's chromium and chromium-driver, when /usr/bin/chromium is missing (apt-get);
#   - npm ci in web-demo (playwright-core, pinned in package-lock.json), when node_modules is
#     missing or older than the lock file.
# playwright-core drives the system Chromium (executablePath /usr/bin/chromium): it downloads no
# browser of its own.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
demo="$root/web-demo"

if [[ ! -x /usr/bin/chromium ]]; then
    sudo=""
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null || { echo "deps-browser: /usr/bin/chromium is missing and this user cannot apt-get install it" >&2; exit 1; }
        sudo="sudo"
    fi
    echo "deps-browser: apt-get install chromium chromium-driver"
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium chromium-driver
fi

for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "deps-browser: $tool is required but not on PATH" >&2; exit 1; }
done

stamp="$demo/node_modules/.package-lock.json"
if [[ ! -f "$stamp" || "$demo/package-lock.json" -nt "$stamp" || ! -d "$demo/node_modules/playwright-core" ]]; then
    echo "deps-browser: npm ci in web-demo"
    (cd "$demo" && npm ci --no-audit --no-fund)
fi
echo "deps-browser: $(/usr/bin/chromium --version 2>/dev/null | tail -n1), playwright-core $(node -p "require('$demo/node_modules/playwright-core/package.json').version")"
