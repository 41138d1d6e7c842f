#!/usr/bin/env bash
# Build grail's JS package into bindings/wasm/pkg/:
#   cargo (wasm32-unknown-unknown, release) -> wasm-bindgen --target web -> wasm-opt -O3 -> copy js/.
# Needs: the wasm32-unknown-unknown target, the wasm-bindgen CLI at the crate's version, and
# `npm ci` done in this folder (for binaryen's wasm-opt). scripts/deps-wasm.sh installs them.
# Skips everything when pkg/ is newer than every source (set GRAIL_WASM_FORCE=1 to rebuild).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pkg="$here/pkg"
stamp="$pkg/.build-stamp"

# Sources the package is built from: the core, this crate, the JS files, the lock file.
newer_source() {
    find "$root/core/src" "$root/core/Cargo.toml" "$here/src" "$here/Cargo.toml" "$here/js" \
        "$root/Cargo.lock" "$here/build.sh" -newer "$stamp" -print -quit 2>/dev/null
}
if [[ "${GRAIL_WASM_FORCE:-0}" != 1 && -f "$stamp" && -z "$(newer_source)" ]]; then
    echo "grail-wasm: pkg/ is up to date"
    exit 0
fi

target_dir="${CARGO_TARGET_DIR:-$root/target}"
echo "grail-wasm: cargo build (wasm32-unknown-unknown, release, fat LTO)"
# Fat LTO and one codegen unit make the module smaller and its hot loops faster than the
# workspace's release profile (thin LTO, 4 units); no debug info (wasm-bindgen drops it anyway).
# These touch only the wasm32 artifacts, not the host ones the CLI shares.
# 128-bit SIMD (every engine since Chrome 91, Firefox 89, Safari 16.4 and Node 16.4 runs it):
# 6% less time at 100k transactions in Node.
(cd "$root" && CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
    cargo build --release -p grail-wasm --target wasm32-unknown-unknown)
wasm="$target_dir/wasm32-unknown-unknown/release/grail_wasm.wasm"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/grail-wasm.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# --target web: one ES module that browsers, bundlers and Node (through js/node.mjs, which
# instantiates it synchronously) all load. The reset function lets js/grail.mjs re-instantiate
# the module after a panic.
wasm-bindgen --target web --experimental-reset-state-function --out-dir "$tmp" "$wasm"

opt="$here/node_modules/.bin/wasm-opt"
if [[ -x "$opt" ]]; then
    echo "grail-wasm: wasm-opt -O3"
    "$opt" -O3 --enable-bulk-memory --enable-simd "$tmp/grail_wasm_bg.wasm" -o "$tmp/grail_wasm_bg.opt.wasm"
    mv "$tmp/grail_wasm_bg.opt.wasm" "$tmp/grail_wasm_bg.wasm"
elif [[ "${CI:-}" == true ]]; then
    echo "grail-wasm: $opt is missing (run npm ci in bindings/wasm)" >&2
    exit 1
else
    echo "grail-wasm: warning: $opt is missing (run npm ci in bindings/wasm); the .wasm is not optimised" >&2
fi

rm -rf "$pkg"
mkdir -p "$pkg"
cp "$tmp/grail_wasm.js" "$tmp/grail_wasm_bg.wasm" "$pkg/"
# The generated grail_wasm.d.ts types the low-level exports; the package's types are js/index.d.ts.
cp "$tmp/grail_wasm.d.ts" "$pkg/grail_wasm.d.ts"
cp "$here"/js/*.mjs "$here/js/index.d.ts" "$here/js/types.generated.d.ts" "$pkg/"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)"
sed "s/\"version\": \"0.0.0\"/\"version\": \"$version\"/" "$here/js/package.json" >"$pkg/package.json"
cp "$here/README.md" "$pkg/README.md"
touch "$stamp"
echo "grail-wasm: built $pkg ($(wc -c <"$pkg/grail_wasm_bg.wasm") bytes of wasm)"
