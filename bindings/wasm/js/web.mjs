// grail for browsers, bundlers and Web Workers: `await init()` once, then call the API.
// init() fetches grail_wasm_bg.wasm next to this file unless told where it is.

import initWasm from './grail_wasm.js';
import { _configure } from './grail.mjs';

let loading;

/**
 * Load the WebAssembly module. `input` is optional: a URL or path of grail_wasm_bg.wasm, a
 * Response, its bytes, or a compiled WebAssembly.Module. Safe to call more than once.
 */
export function init(input) {
    loading ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(
        () => _configure({ ready: true }),
        (e) => {
            loading = undefined;
            throw e;
        },
    );
    return loading;
}

/** Decompress gzip bytes (with the browser's DecompressionStream). */
export async function gunzip(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
}

export { LEVELS, ALL_LEVELS, STRATEGIES, GrailError, History, OnlineChecker, TimestampOnlineChecker, read, check, checkStrategy, verify, renderText, cycleDot, coreTables, version } from './grail.mjs';
