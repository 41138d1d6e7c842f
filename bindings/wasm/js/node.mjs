// grail for Node (>= 18): loads the WebAssembly synchronously at import; gzip input is unpacked
// with zlib. `init()` exists for symmetry with the browser entry and does nothing here.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { gunzip as gunzipCallback } from 'node:zlib';
import { initSync } from './grail_wasm.js';
import { _configure } from './grail.mjs';

initSync({ module: readFileSync(new URL('./grail_wasm_bg.wasm', import.meta.url)) });
_configure({ ready: true, gunzipSync });

/** Already loaded in Node: resolves at once. */
export async function init() {}

/** Decompress gzip bytes. */
export function gunzip(bytes) {
    return new Promise((resolve, reject) => {
        gunzipCallback(bytes, (err, out) => (err ? reject(err) : resolve(new Uint8Array(out.buffer, out.byteOffset, out.byteLength))));
    });
}

export { LEVELS, ALL_LEVELS, STRATEGIES, GrailError, History, OnlineChecker, TimestampOnlineChecker, read, check, checkStrategy, verify, renderText, cycleDot, coreTables, version } from './grail.mjs';
