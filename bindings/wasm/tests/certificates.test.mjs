// Certificates from JS: `report.certificate` (not enumerable, built on first use) and `verify`
// give what `grail check --certificate` and `grail verify --json` give; a tampered certificate
// fails with the place, and bad input throws a GrailError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, read, verify, GrailError, ALL_LEVELS } from '../pkg/node.mjs';
import { skipOrFail } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = process.env.GRAIL_CLI ?? join(here, '../../../target/release/grail');

const SKEW = `{:index 0, :type :ok, :process 0, :value [[:r :x []] [:r :y []] [:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x []] [:r :y []] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :x [1]] [:r :y [1]]]}`;

test('report.certificate proves the levels that hold, and verify accepts it', () => {
    const report = check(SKEW, { levels: [...ALL_LEVELS] });
    assert.ok(!Object.keys(report).includes('certificate'), 'not enumerable');
    assert.ok(!('certificate' in JSON.parse(JSON.stringify(report))));
    const cert = report.certificate;
    assert.equal(cert.format, 'grail-certificate');
    assert.equal(report.certificate, cert, 'built once');
    const v = verify(SKEW, cert);
    const proved = v.witnesses.filter((w) => w.failure === null).flatMap((w) => w.levels);
    const holds = Object.entries(report.levels).filter(([, l]) => l.valid === true).map(([n]) => n);
    assert.deepEqual([...new Set(proved)].sort(), holds.sort());
    assert.ok(!proved.includes('SER'));
});

test('levels given as a string is a clear usage error', () => {
    assert.throws(() => check(SKEW, { levels: 'all' }), (e) => e instanceof GrailError && /must be an array of level names/.test(e.message));
});

test('a History gives and checks certificates as objects, text or bytes', () => {
    const h = read(SKEW);
    try {
        const cert = h.certificate(h.check());
        for (const form of [cert, JSON.stringify(cert), new TextEncoder().encode(JSON.stringify(cert))]) {
            const v = h.verify(form);
            assert.ok(v.witnesses.length > 0 && v.witnesses.every((w) => w.failure === null));
        }
        const bad = structuredClone(cert);
        bad.witnesses[0].order.reverse();
        const v = h.verify(bad);
        assert.match(v.witnesses[0].failure, /^T\d read . = \[\] but the replay has \[1\]$|^T2 read x = \[1\] but the replay has \[\]$/);
        assert.throws(() => h.verify('{"format": "grail-certificate",\n "version": 1, "transactions": [}'), (e) => e instanceof GrailError && e.line === 2);
        assert.throws(() => h.verify(42), (e) => e instanceof GrailError && e.kind === 'usage');
    } finally {
        h.free();
    }
});

test('JS and the CLI write the same certificate and the same verification', (t) => {
    if (!existsSync(cli) && skipOrFail(t, `the CLI is not built at ${cli}`)) return;
    const dir = mkdtempSync(join(tmpdir(), 'grail-cert-'));
    const file = join(dir, 'h.edn');
    writeFileSync(file, SKEW);
    const out = join(dir, 'c.json');
    const r = spawnSync(cli, ['check', file, '--levels', 'all', '--certificate', out], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    const fromCli = JSON.parse(spawnSync('cat', [out], { encoding: 'utf8' }).stdout);
    assert.deepEqual(check(SKEW, { levels: [...ALL_LEVELS] }).certificate, fromCli);
    const v = spawnSync(cli, ['verify', file, out, '--json'], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.deepEqual(verify(SKEW, fromCli), JSON.parse(v.stdout));
});

test('a weak level violated by a non-monotonic read: its co step names the read and how it was observed', () => {
    // T2 read y from T1, then x from T0, though T1 appended to x after T0 (T3's read).
    const h = `{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 2] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :y [1]] [:r :x [1]]]}
{:index 3, :type :ok, :process 3, :value [[:r :x [1 2]]]}`;
    const cert = check(h, { levels: ['RC'] }).certificate;
    const [cx] = cert.counterexamples;
    assert.equal(cx.level, 'RC');
    const co = cx.steps.find((s) => s.type === 'co');
    assert.deepEqual([co.from, co.to, co.read], [1, 0, { txn: 2, index: 1 }]);
    assert.deepEqual(co.observed.map((s) => [s.from, s.to, s.type, s.read.index]), [[1, 2, 'wr', 0]]);
    const v = verify(h, cert);
    assert.deepEqual(v.counterexamples.map((c) => [c.level, c.failure]), [['RC', null]]);
    // The premise's read moved after the read it forces: RC's axiom does not apply.
    co.observed[0].read.index = 1;
    assert.match(verify(h, cert).counterexamples[0].failure, /RC's premise is an earlier read/);
});

test('a case split over two writes is report data and a counterexample', () => {
    // Registers without a version order: either order of T0's and T1's x closes a cycle.
    const h = `{:index 0, :type :ok, :value [[:w :x 1] [:w :z 1]]}
{:index 1, :type :ok, :value [[:w :x 2] [:w :y 2]]}
{:index 2, :type :ok, :value [[:r :x 1] [:r :y 2]]}
{:index 3, :type :ok, :value [[:r :x 2] [:r :z 1]]}`;
    const report = check(h, { levels: ['SER'] });
    const [cycle] = report.levels.SER.cycles;
    assert.equal(cycle.other_order.key, 'x');
    assert.deepEqual([cycle.other_order.first, cycle.other_order.second].sort(), [0, 1]);
    const cert = report.certificate;
    const [cx] = cert.counterexamples;
    assert.equal(cx.split.key, 'x');
    assert.deepEqual(verify(h, cert).counterexamples.map((c) => [c.level, c.failure]), [['SER', null]]);
    delete cx.split;
    assert.notEqual(verify(h, cert).counterexamples[0].failure, null);
});
