#!/usr/bin/env bash
# Build grail's JS package into bindings/wasm/pkg/:
#   cargo (wasm32-unknown-unknown, release) -> wasm-bindgen --target web -> wasm-opt -O3 -> copy js/;
# and the web demo's smaller module into bindings/wasm/pkg-demo/ (grail_wasm.js and
# grail_wasm_bg.wasm only; web-demo/build.mjs puts them beside the package's JS): without the
# feature `full` (only what web-demo/src/grail-api.mjs calls), with the feature `small` (core's
# compact sorts, core/src/par/sort.rs, and readers without their short paths), profile wasm-demo
# (opt-level "s") with less inlining, wasm-opt -Oz with functions sorted by name. Prints both
# modules' sizes, raw and gzipped.
# Needs: the wasm32-unknown-unknown target, the wasm-bindgen CLI at the crate's version, and
# `npm ci` done in this folder (for binaryen's wasm-opt). scripts/deps-wasm.sh installs them.
# Skips everything when pkg/ is newer than every source (set GRAIL_WASM_FORCE=1 to rebuild).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pkg="$here/pkg"
demo="$here/pkg-demo"
stamp="$pkg/.build-stamp"

# Sources the package is built from: the core, this crate, the JS files, the lock file.
newer_source() {
    find "$root/core/src" "$root/core/Cargo.toml" "$here/src" "$here/Cargo.toml" "$here/js" \
        "$root/Cargo.lock" "$here/build.sh" -newer "$stamp" -print -quit 2>/dev/null
}
if [[ "${GRAIL_WASM_FORCE:-0}" != 1 && -f "$stamp" && -f "$demo/grail_wasm_bg.wasm" && -z "$(newer_source)" ]]; then
    echo "grail-wasm: pkg/ is up to date"
    exit 0
fi

target_dir="${CARGO_TARGET_DIR:-$root/target}"
# 128-bit SIMD (every engine since Chrome 91, Firefox 89, Safari 16.4 and Node 16.4 runs it):
# 6% less time at 100k transactions in Node.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128"
echo "grail-wasm: cargo build (wasm32-unknown-unknown, release, fat LTO)"
# Fat LTO and one codegen unit make the module smaller and its hot loops faster than the
# workspace's release profile (thin LTO, 4 units); no debug info (wasm-bindgen drops it anyway).
# These touch only the wasm32 artifacts, not the host ones the CLI shares.
(cd "$root" && CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_DEBUG=0 \
    cargo build --release -p grail-wasm --target wasm32-unknown-unknown)
echo "grail-wasm: cargo build (wasm32-unknown-unknown, profile wasm-demo, without feature full, with feature small)"
# LLVM inlines less in the demo's module: at opt-level "s" a function marked #[inline] is
# inlined up to cost 325 (LLVM's inlinehint-threshold), any other up to 50. With no bonus for
# the mark and 40 for all, the module is 926 kB (394 kB gzipped) instead of 1,019 kB (425 kB);
# a read and check of 100k transactions in Node takes 21% (list-append) to 27% (rw-register)
# longer (issue 37; README).
demo_flags="$CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS -C llvm-args=-inlinehint-threshold=0 -C llvm-args=-inline-threshold=40"
(cd "$root" && CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$demo_flags" \
    cargo build --profile wasm-demo -p grail-wasm --no-default-features --features small --target wasm32-unknown-unknown)

tmp="$(mktemp -d "${TMPDIR:-/tmp}/grail-wasm.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
opt="$here/node_modules/.bin/wasm-opt"

# wasm-bindgen, then wasm-opt at $3 (and the passes after it), of the cargo output $1 into the
# folder $2. --target web: one ES module that browsers, bundlers and Node (through js/node.mjs,
# which instantiates it synchronously) all load. The reset function lets js/grail.mjs
# re-instantiate the module after a panic. With --reorder-functions-by-name, wasm-bindgen keeps
# the function names for wasm-opt to sort by (it writes none without -g): a generic function's
# copies end up side by side, within gzip's 32 kB window of each other.
bindgen() {
    local names=()
    if [[ -x "$opt" && " ${*:4} " == *" --reorder-functions-by-name "* ]]; then names=(--keep-debug); fi
    wasm-bindgen --target web --experimental-reset-state-function "${names[@]}" --out-dir "$2" "$1"
    if [[ -x "$opt" ]]; then
        echo "grail-wasm: wasm-opt ${*:3} ($(basename "$2"))"
        "$opt" "${@:3}" --enable-bulk-memory --enable-simd "$2/grail_wasm_bg.wasm" -o "$2/grail_wasm_bg.opt.wasm"
        mv "$2/grail_wasm_bg.opt.wasm" "$2/grail_wasm_bg.wasm"
    elif [[ "${CI:-}" == true ]]; then
        echo "grail-wasm: $opt is missing (run npm ci in bindings/wasm)" >&2
        exit 1
    else
        echo "grail-wasm: warning: $opt is missing (run npm ci in bindings/wasm); the .wasm is not optimised" >&2
    fi
}
bindgen "$target_dir/wasm32-unknown-unknown/release/grail_wasm.wasm" "$tmp/full" -O3
# -Oz: 1% smaller than -O3 on the demo's module, and checks as fast (within 2% at 100k);
# --converge (its passes until the module stops shrinking): 0.4% less gzipped.
bindgen "$target_dir/wasm32-unknown-unknown/wasm-demo/grail_wasm.wasm" "$tmp/demo" -Oz --converge --reorder-functions-by-name

rm -rf "$pkg"
mkdir -p "$pkg"
cp "$tmp/full/grail_wasm.js" "$tmp/full/grail_wasm_bg.wasm" "$pkg/"
# The generated grail_wasm.d.ts types the low-level exports; the package's types are js/index.d.ts.
cp "$tmp/full/grail_wasm.d.ts" "$pkg/grail_wasm.d.ts"
cp "$here"/js/*.mjs "$here/js/index.d.ts" "$here/js/types.generated.d.ts" "$pkg/"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)"
sed "s/\"version\": \"0.0.0\"/\"version\": \"$version\"/" "$here/js/package.json" >"$pkg/package.json"
cp "$here/README.md" "$pkg/README.md"
rm -rf "$demo"
mkdir -p "$demo"
cp "$tmp/demo/grail_wasm.js" "$tmp/demo/grail_wasm_bg.wasm" "$demo/"
touch "$stamp"
echo "grail-wasm: built $pkg and $demo"
node "$here/scripts/wasm-size.mjs"
