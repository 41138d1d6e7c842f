// The browser entry (web.mjs), run in Node: nothing works before init(); init() takes the
// .wasm's bytes or a compiled module; gzip goes through gunzip() (DecompressionStream).
// node --test runs each file in its own process, so node.mjs is not loaded here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as web from '../pkg/web.mjs';
import { _panicForTest } from '../pkg/grail.mjs';
import { conformanceCases, pkgDir } from './helpers.mjs';

const lostUpdate = readFileSync(conformanceCases().find((c) => c.name === 'G-single/lost-update.edn').history);

test('web entry: before init(), calls fail with a clear GrailError', () => {
    assert.throws(() => web.check(lostUpdate), (e) => e instanceof web.GrailError && e.kind === 'usage' && /await init\(\)/.test(e.message));
});

test('web entry: init() with the bytes of the .wasm, then check; init() again is a no-op', async () => {
    const bytes = readFileSync(join(pkgDir, 'grail_wasm_bg.wasm'));
    await web.init(bytes);
    await web.init(await WebAssembly.compile(bytes));
    await web.init();
    const r = web.check(lostUpdate);
    assert.equal(r.valid, false);
    assert.deepEqual(r.levels.SER.anomalies, ['G-single', 'G-nonadjacent', 'G2-item']);
    assert.throws(() => web.check('{:type :ok, :value [[:r :x [1 }'), (e) => e.kind === 'syntax' && e.line === 1 && e.column > 1);
});

test('web entry: gzip needs gunzip() first, which unpacks with DecompressionStream', async () => {
    const gz = gzipSync(lostUpdate);
    assert.throws(() => web.check(gz), (e) => e.kind === 'usage' && /gunzip/.test(e.message));
    const text = await web.gunzip(gz);
    assert.deepEqual(Buffer.from(text), lostUpdate);
    assert.equal(web.check(text).valid, false);
});

test('web entry: after a panic the module is re-instantiated and works', () => {
    const before = web.check(lostUpdate);
    assert.throws(() => _panicForTest('web panic'), (e) => e instanceof web.GrailError && e.kind === 'panic' && /web panic/.test(e.message));
    assert.deepEqual(web.check(lostUpdate), before);
});
