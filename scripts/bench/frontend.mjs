// Time grail's WebAssembly check in Node, for scripts/bench/run.py (make bench).
//
//   node scripts/bench/frontend.mjs HISTORY [--runs N]
//
// Prints one JSON object: the module load time, the first check (V8 runs wasm in its baseline
// tier until the optimised code is ready, so the first call of a fresh module is slower), three
// warm-up checks, then --runs checks, each with its wall time and the process's CPU time
// (process.cpuUsage: user + system, all of Node's threads), the peak resident set size, and the
// verdicts and anomaly names of the last report. A check covers reading the file (uncompressed;
// run.py passes the same .edn the CLI reads), parse, graph build, the five levels and building
// the JS report object.

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
const history = args[0];

const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
};
const timed = (f) => {
    const t0 = performance.now();
    const c0 = cpu();
    const value = f();
    return { value, wall: (performance.now() - t0) / 1000, cpu: cpu() - c0 };
};

const load = await (async () => {
    const t0 = performance.now();
    const c0 = cpu();
    const mod = await import(join(root, 'bindings/wasm/pkg/node.mjs'));
    return { mod, wall: (performance.now() - t0) / 1000, cpu: cpu() - c0 };
})();
const grail = load.mod;
const once = () => timed(() => grail.check(readFileSync(history)));

const first = once();
const warmup = [once(), once(), once()];
const measured = [];
let last = first.value;
for (let i = 0; i < runs; i++) {
    const r = once();
    measured.push({ wall: r.wall, cpu: r.cpu });
    last = r.value;
}
const levels = {};
for (const [k, v] of Object.entries(last.levels)) levels[k] = { verdict: v.verdict, anomalies: v.anomalies };
console.log(
    JSON.stringify({
        node: process.version,
        load: { wall: load.wall, cpu: load.cpu },
        first: { wall: first.wall, cpu: first.cpu },
        warmup: warmup.map((r) => ({ wall: r.wall, cpu: r.cpu })),
        runs: measured,
        peak_rss_kb: process.resourceUsage().maxRSS,
        levels,
        transactions: last.stats.transactions,
    }),
);
