#!/usr/bin/env bash
# What the JS package needs, installed when missing, then the package built into
# bindings/wasm/pkg/ (skipped while it is newer than its sources). Each step skips work done:
#   - the rustup target wasm32-unknown-unknown;
#   - the wasm-bindgen CLI at exactly the version of the wasm-bindgen crate in Cargo.lock;
#   - npm ci in bindings/wasm (binaryen's wasm-opt and typescript, from the npm registry; not
#     Debian's binaryen, which cannot read wasm-bindgen's output), while node_modules is current;
#   - bindings/wasm/build.sh (cargo, wasm-bindgen, wasm-opt).
# Environment: CARGO_TARGET_DIR (default target), GRAIL_WASM_FORCE=1 to rebuild the package.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wasm_dir="$root/bindings/wasm"
export PATH="$HOME/.cargo/bin:$PATH"

for tool in cargo rustup node npm; do
    command -v "$tool" >/dev/null || { echo "deps-wasm: $tool is required but not on PATH" >&2; exit 1; }
done

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "deps-wasm: rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi

# The crate's version, from the lock file (the CLI must match it exactly).
want="$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock")"
if [[ -z "$want" ]]; then
    # Not locked yet: let cargo resolve the workspace once.
    (cd "$root" && cargo metadata --format-version 1 >/dev/null)
    want="$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock")"
fi
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [[ "$have" != "$want" ]]; then
    echo "deps-wasm: cargo install wasm-bindgen-cli --version $want (found '${have:-none}'; takes a few minutes)"
    # Not --locked: its lock file wants a crate version the registry no longer serves.
    cargo install wasm-bindgen-cli --version "$want"
fi

# npm ci when node_modules is missing or older than the lock file.
if [[ ! -f "$wasm_dir/node_modules/.package-lock.json" || "$wasm_dir/package-lock.json" -nt "$wasm_dir/node_modules/.package-lock.json" ]]; then
    echo "deps-wasm: npm ci in bindings/wasm"
    (cd "$wasm_dir" && npm ci --no-audit --no-fund)
fi

bash "$wasm_dir/build.sh"
