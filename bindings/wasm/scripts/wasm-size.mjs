// The sizes of the two WebAssembly modules build.sh makes, raw and gzipped (zlib's default
// level, as a web server compresses): the JS package's (pkg/) and the web demo's (pkg-demo/).
//   node bindings/wasm/scripts/wasm-size.mjs
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/** `{raw, gzip}` in bytes of the .wasm file at `path`. */
export function wasmSize(path) {
    const bytes = readFileSync(path);
    return { raw: bytes.length, gzip: gzipSync(bytes).length };
}

const kb = (n) => `${(n / 1000).toFixed(0)} kB`;

if (import.meta.url === `file://${process.argv[1]}`) {
    for (const [what, dir] of [['JS package', 'pkg'], ['web demo', 'pkg-demo']]) {
        const path = new URL(`../${dir}/grail_wasm_bg.wasm`, import.meta.url).pathname;
        if (!existsSync(path)) {
            console.log(`grail-wasm: ${what}: ${path} is not built`);
            continue;
        }
        const s = wasmSize(path);
        console.log(`grail-wasm: ${what}: ${dir}/grail_wasm_bg.wasm ${s.raw} bytes (${kb(s.raw)}), ${s.gzip} gzipped (${kb(s.gzip)})`);
    }
}
