// The web demo's module (pkg-demo/: built without the feature `full`, for size; build.sh) under
// the package's own JS: on every conformance case it gives the same reports as the package's
// module for what the demo calls (check with the demo's options, renderHtml, transactions,
// reproducingSubHistory, the online checker over the bytes), and it has left out the rest.
// One difference the demo does not meet: its renderHtml takes only the report object the
// history's last check returned.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as full from '../pkg/node.mjs';
import { conformanceCases, pkgDir } from './helpers.mjs';

const demoDir = join(pkgDir, '..', 'pkg-demo');
if (!existsSync(join(demoDir, 'grail_wasm_bg.wasm'))) {
    throw new Error(`${demoDir} is not built: run bash scripts/deps-wasm.sh`);
}
// The package's JS files with the demo's module and glue, as web-demo/build.mjs puts them.
const dir = mkdtempSync(join(tmpdir(), 'grail-demo-module-'));
after(() => rmSync(dir, { recursive: true, force: true }));
for (const f of readdirSync(pkgDir).filter((f) => f.endsWith('.mjs') || f === 'package.json')) cpSync(join(pkgDir, f), join(dir, f));
for (const f of ['grail_wasm.js', 'grail_wasm_bg.wasm']) cpSync(join(demoDir, f), join(dir, f));
const demo = await import(join(dir, 'node.mjs'));
const demoRaw = await import(join(dir, 'grail_wasm.js'));

// What web-demo/src/grail-api.mjs asks for.
const ANALYZE = { max_length: 6, max_cycles: 10000, max_steps: 2000000, examples: 0 };

test('the demo module leaves out what the demo never calls', () => {
    for (const name of ['renderText', 'cycleDot', 'coreTables', 'TimestampOnlineChecker', '__testPanic']) {
        assert.equal(demoRaw[name], undefined, name);
    }
    for (const name of ['certificate', 'verify', 'checkStrategy', 'graph', 'stats', 'subHistory']) {
        assert.equal(demoRaw.History.prototype[name], undefined, `History.${name}`);
    }
    for (const name of ['push', 'end', 'flush', 'setWal', 'memoryEstimate']) {
        assert.equal(demoRaw.OnlineChecker.prototype[name], undefined, `OnlineChecker.${name}`);
    }
    assert.equal(demo.version(), full.version());
});

/**
 * The online checker's results over the history's bytes, fed in two pieces, as the demo's replay;
 * or its error (a JSON document that is not one value a line is not a stream).
 */
function replay(grail, text) {
    const oc = new grail.OnlineChecker();
    try {
        const half = text.length >> 1;
        const cycles = [...oc.feedBytes(text.subarray(0, half)), ...oc.feedBytes(text.subarray(half)), ...oc.finishBytes()];
        return { cycles, findings: oc.takeFindings(), summary: oc.summary() };
    } catch (e) {
        return { error: e.message, kind: e.kind };
    } finally {
        oc.free();
    }
}

for (const c of conformanceCases()) {
    test(`case ${c.name}: the demo's module gives the package's results`, () => {
        const text = readFileSync(c.history);
        if (c.wal) {
            // The demo takes no write-ahead log: its module leaves the reader out (compact-log).
            assert.throws(() => demo.read(text, { wal: readFileSync(c.wal) }), { name: 'GrailError', kind: 'wal' });
            const withLog = full.read(text, { wal: readFileSync(c.wal) });
            assert.ok(withLog.check().levels);
            withLog.free();
        }
        const read = (grail) => grail.read(text);
        const [a, b] = [read(full), read(demo)];
        try {
            assert.deepEqual(b.check(), a.check());
            const ra = a.check({ analyze: ANALYZE });
            const rb = b.check({ analyze: ANALYZE });
            assert.deepEqual(rb, ra);
            // The demo's module keeps its last report to render (it has no Report deserializer):
            // the very object, not a copy, as web-demo/src/worker.mjs passes it.
            assert.equal(b.renderHtml(rb, c.name), a.renderHtml(ra, c.name));
            assert.throws(() => b.renderHtml(structuredClone(rb), c.name), { name: 'GrailError', kind: 'usage' });
            assert.deepEqual(b.transactions(), a.transactions());
            const cycle = Object.values(ra.levels).flatMap((l) => l.cycles ?? [])[0];
            if (cycle) {
                const levels = Object.keys(ra.levels).filter((l) => ra.levels[l].valid === false);
                assert.deepEqual(b.reproducingSubHistory(cycle, { levels }), a.reproducingSubHistory(cycle, { levels }));
            }
        } finally {
            a.free();
            b.free();
        }
        assert.deepEqual(replay(demo, text), replay(full, text));
    });
}
