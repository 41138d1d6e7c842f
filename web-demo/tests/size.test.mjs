// The size of the WebAssembly module the demo loads (dist/grail/grail_wasm_bg.wasm, the demo's
// own build: bindings/wasm/build.sh, pkg-demo/), raw and gzipped at zlib's default level (as a
// web server sends it). Not timed: it reads one file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmSize } from '../../bindings/wasm/scripts/wasm-size.mjs';

const demoDir = join(dirname(fileURLToPath(import.meta.url)), '..');

const wasm = join(demoDir, 'dist', 'grail', 'grail_wasm_bg.wasm');
const pkgWasm = join(demoDir, '..', 'bindings', 'wasm', 'pkg', 'grail_wasm_bg.wasm');
const notBuilt = !existsSync(wasm) && 'web-demo/dist is not built (node web-demo/build.mjs)';

// What it was when the demo got its own build: 1,278,034 bytes, 521,080 gzipped; 1,345,344 and
// 547,966 with the readers added since; 1,200,246 and 498,286 with core's compact sorts;
// 927,453 and 394,957 with the report kept in Rust for renderHtml, JSON across the boundary,
// the readers' short paths left out, less inlining and functions sorted by name
// (bindings/wasm/README.md); 935,492 and 398,516 with core's `compact-graph` after the core
// grew; 946,870 and 402,995 with the trust fixes of 2026-11-28 (honest names of counterexamples
// and online cycles, claimed orders refused online, real-time levels unknown without real-time
// order) and wasm-opt's --converge; 953,648 and 406,337 as the core grew; 939,301 and 399,568
// with three more sorts through core's compact sort, no stable sort for the HTML report's
// marked transactions and the compact sort's short sorts on positions; 950,508 and 404,012 with
// the trust fixes of 2026-11-29 (a cycle of certain edges deciding the levels that forbid it,
// PL-2/PL-1 decided without a search, findings set aside and chosen steps online); 949,645 and
// 403,857 the same source rebuilt later; 939,377 and 399,629 with core's own sine and cosine for
// the drawings (core/src/render/trig.rs: no large-argument reduction), the polygraph's assumed
// edges sorted with the compact sort and no [&str]::join; 942,876 and 401,480 with the second
// audit's fixes of 2026-11-29 (an anomaly's levels only those it shows violated, real-time
// notes, the aborted writes named, register steps' times; HistoryBuilder::new kept out of line).
// The budget leaves 1% for the core to grow; more than that is a regression to look at.
const BUDGET = { raw: 949_000, gzip: 403_600 };
// Issue 37's target: met at 399,713 gzipped, at 399,568, lost with the trust fixes of
// 2026-11-29, met again at 399,629, lost again at 401,480 (a todo until it is met again).
const TARGET = { raw: 1_000_000, gzip: 400_000 };

test('the demo loads its own module, smaller than the JS package\'s', { skip: notBuilt }, () => {
    assert.ok(wasmSize(wasm).raw < wasmSize(pkgWasm).raw);
});

test(`the demo's module is within its budget (${BUDGET.raw} bytes, ${BUDGET.gzip} gzipped)`, { skip: notBuilt }, () => {
    const s = wasmSize(wasm);
    assert.ok(s.raw <= BUDGET.raw, `${s.raw} bytes`);
    assert.ok(s.gzip <= BUDGET.gzip, `${s.gzip} bytes gzipped`);
});

test(`the demo's module is under 1 MB (${TARGET.gzip} gzipped: issue 37)`, { skip: notBuilt, todo: 'issue 37: 401,480 gzipped at 1263a9c and the merge of trig' }, () => {
    const s = wasmSize(wasm);
    assert.ok(s.raw <= TARGET.raw, `${s.raw} bytes`);
    assert.ok(s.gzip <= TARGET.gzip, `${s.gzip} bytes gzipped`);
});
