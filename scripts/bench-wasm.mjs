// Benchmark (not a test): grail's WebAssembly check in Node next to the native CLI, on the
// largest corpus history, and the size of the .wasm. Prints a table; exits 0 unless something
// is missing. Targets (from the issue): WASM <= 2x native; .wasm < 1 MB after optimisation.
//
//   node scripts/bench-wasm.mjs [HISTORY] [--runs N]
//
// Needs bindings/wasm/pkg built (scripts/deps-wasm.sh) and the CLI built
// (cargo build --release -p grail-cli); scripts/bench-wasm.sh does both, then runs this.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, gunzipSync } from 'node:zlib';
const isGzip = (b) => b.length > 1 && b[0] === 0x1f && b[1] === 0x8b;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 15;
const history = resolve(args[0] ?? join(root, '../shared/corpus/grail/anti-patterns/lost-update/history.edn.gz'));
const cliPath = process.env.GRAIL_CLI || join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'release/grail');
const pkg = join(root, 'bindings/wasm/pkg');

for (const [what, p, hint] of [
    ['history', history, 'pass a history file'],
    ['CLI', cliPath, 'cargo build --release -p grail-cli'],
    ['package', join(pkg, 'node.mjs'), 'bash scripts/deps-wasm.sh'],
]) {
    if (!existsSync(p)) {
        console.error(`bench-wasm: ${what} not found at ${p} (${hint})`);
        process.exit(2);
    }
}

const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(1)} ms`;

// Load the package first (its time is reported apart), then alternate one CLI run and one WASM
// run, so that both see the same load on a shared machine.
const t0 = performance.now();
const grail = await import(join(pkg, 'node.mjs'));
const loadMs = performance.now() - t0;
const gz = readFileSync(history);

// Native: the CLI's own phase timings (-v: read incl. file and gunzip, graph, check), and the
// wall time of the whole process.
const native = { read: [], infer: [], check: [], inproc: [], wall: [] };
let nativeReport;
function runNative() {
    const t0 = performance.now();
    const r = spawnSync(cliPath, ['check', history, '--json', '-v'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const wall = performance.now() - t0;
    if (r.status !== 0 && r.status !== 1) {
        console.error(`bench-wasm: the CLI failed: ${r.stderr}`);
        process.exit(2);
    }
    const secs = (re) => 1000 * Number((r.stderr.match(re) ?? [])[1]);
    const read = secs(/read .* in ([\d.]+) s/);
    const infer = secs(/built the graph in ([\d.]+) s/);
    const check = secs(/checked in ([\d.]+) s/);
    native.read.push(read);
    native.infer.push(infer);
    native.check.push(check);
    native.inproc.push(read + infer + check);
    native.wall.push(wall);
    nativeReport = JSON.parse(r.stdout);
}

// WASM in Node: the same work in-process, from the gzip bytes to the JS report.
const wasm = { gunzip: [], read: [], infer: [], check: [], total: [] };
let report;
function runWasm() {
    const marks = {};
    const start = performance.now();
    const text = isGzip(gz) ? gunzipSync(gz) : gz;
    marks.gunzip = performance.now();
    report = grail.check(text, {
        progress: (e) => {
            if (e.done) marks[e.phase] = performance.now();
        },
    });
    const end = performance.now();
    wasm.gunzip.push(marks.gunzip - start);
    wasm.read.push(marks.read - marks.gunzip);
    wasm.infer.push(marks.infer - marks.read);
    wasm.check.push(end - marks.infer); // search + building the JS report objects
    wasm.total.push(end - start);
    return end - start;
}

const first = runWasm(); // includes V8's first compilation of the hot functions
for (const k of Object.keys(wasm)) wasm[k].length = 0;
for (let i = 0; i < 3; i++) runWasm(); // warm-up: let V8 tier the hot functions up
for (const k of Object.keys(wasm)) wasm[k].length = 0;
for (let i = 0; i < runs; i++) {
    runNative();
    runWasm();
}
const same = JSON.stringify(report) === JSON.stringify(nativeReport);

const wasmBytes = readFileSync(join(pkg, 'grail_wasm_bg.wasm'));
const raw = wasmBytes.length;
const gzipped = gzipSync(wasmBytes, { level: 9 }).length;

const nativeInproc = median(native.inproc);
const wasmTotal = median(wasm.total);
const ratio = wasmTotal / nativeInproc;
const text = isGzip(gz) ? gunzipSync(gz) : gz;
console.log(`history: ${history}`);
console.log(`  ${(statSync(history).size / 1e6).toFixed(2)} MB gzip, ${(text.length / 1e6).toFixed(2)} MB text, ${report.stats.transactions} transactions, ${report.stats.edges} edges; ${runs} runs, medians`);
console.log(`  WASM report identical to the CLI's --json: ${same ? 'yes' : 'NO'}`);
console.log('');
console.log('phase                      native CLI    WASM in Node');
console.log(`read (incl. gunzip)      ${ms(median(native.read)).padStart(12)}    ${ms(median(wasm.gunzip) + median(wasm.read)).padStart(12)}  (gunzip ${ms(median(wasm.gunzip))} in JS)`);
console.log(`infer (build the graph)  ${ms(median(native.infer)).padStart(12)}    ${ms(median(wasm.infer)).padStart(12)}`);
console.log(`check (+ JS report)      ${ms(median(native.check)).padStart(12)}    ${ms(median(wasm.check)).padStart(12)}`);
console.log(`total in-process         ${ms(nativeInproc).padStart(12)}    ${ms(wasmTotal).padStart(12)}`);
console.log(`CLI process wall time    ${ms(median(native.wall)).padStart(12)}`);
console.log(`WASM first call (cold JIT): ${ms(first)}; module load (compile + instantiate): ${ms(loadMs)}`);
console.log('');
console.log(`WASM / native (in-process medians): ${ratio.toFixed(2)}x  [target <= 2x: ${ratio <= 2 ? 'met' : 'MISSED'}]`);
console.log(`WASM / CLI process wall time:       ${(wasmTotal / median(native.wall)).toFixed(2)}x`);
// V8 runs a wasm function in its baseline tier (Liftoff) until the function is called again
// after the optimised code is ready (there is no on-stack replacement for wasm), so the first
// check of a freshly loaded module runs the long reader and inference loops unoptimised.
console.log(`WASM first call / native:           ${(first / nativeInproc).toFixed(2)}x  (baseline-tier code; see the comment above)`);
console.log(`.wasm size: ${(raw / 1024).toFixed(0)} KiB raw (${raw} bytes), ${(gzipped / 1024).toFixed(0)} KiB gzip -9 (${gzipped} bytes)  [target < 1 MB: ${raw < 1e6 ? 'met' : 'MISSED'}]`);
