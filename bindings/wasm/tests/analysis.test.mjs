// Anomaly analysis from JS: check(..., {analyze}) gives the CLI's analysis section, and the
// online checker finds cycles as transactions arrive, within its window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, OnlineChecker, GrailError } from '../pkg/node.mjs';

const HISTORY = `
{:type :ok, :f :deposit, :value [[:r :x []] [:append :x 1]]}
{:type :ok, :f :deposit, :value [[:r :x []] [:append :x 2]]}
{:type :ok, :f :audit, :value [[:r :x [1 2]]]}
{:type :ok, :f :a, :value [[:r :u []] [:r :v []] [:append :u 1]]}
{:type :ok, :f :b, :value [[:r :u []] [:r :v []] [:append :v 1]]}
`;

test('analysis is absent unless asked, and counts classes when asked', () => {
    assert.equal(check(HISTORY).analysis, undefined);
    const a = check(HISTORY, { analyze: true }).analysis;
    assert.equal(a.cycles, 2);
    const count = (scheme, cls) => a.classes.find((c) => c.scheme === scheme && c.class === cls).count;
    assert.equal(count('zellag', 'lost update'), 1);
    assert.equal(count('zellag', 'write skew'), 1);
    assert.equal(count('ldbc', 'LU'), 1);
    assert.equal(count('ldbc', 'WS'), 1);
    assert.deepEqual(a.participation, { transactions: 5, none: 1, one: 4, many: 0 });
    const ordered = a.patterns.filter((p) => p.ordered).map((p) => p.labels.join(' -> ')).sort();
    assert.deepEqual(ordered, ['a -> b', 'deposit -> deposit']);
});

test('analysis options are checked', () => {
    assert.throws(() => check(HISTORY, { analyze: 3 }), (e) => e instanceof GrailError && e.kind === 'usage');
    assert.throws(() => check(HISTORY, { analyze: { max_lenght: 3 } }), (e) => e instanceof GrailError && e.kind === 'usage');
    assert.equal(check(HISTORY, { analyze: { max_length: 2, examples: 0 } }).analysis.examples.length, 0);
});

test('the same analysis as the CLI', () => {
    const cli = process.env.GRAIL_CLI;
    if (!cli) return;
    const dir = mkdtempSync(join(tmpdir(), 'grail-analysis-'));
    const path = join(dir, 'h.edn');
    writeFileSync(path, HISTORY);
    const out = spawnSync(cli, ['check', path, '--analyze', '--json'], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out.stdout).analysis, check(HISTORY, { analyze: true }).analysis);
});

function* stream(n) {
    for (let i = 0; i < n; i++) {
        if (i % 10 === 0) {
            const k = `k${i}`;
            yield { id: 3 * i, label: 'inc', ops: [['r', k, []], ['append', k, 1]] };
            yield { id: 3 * i + 1, label: 'inc', ops: [['r', k, []], ['append', k, 2]] };
            yield { id: 3 * i + 2, ops: [['r', k, [1, 2]]] };
        } else {
            yield { id: 3 * i, ops: [['append', `f${i}`, 1]] };
        }
    }
}

test('online checker: cycles as they close, memory within the window', () => {
    const oc = new OnlineChecker({ window: 50, max_length: 4 });
    const found = [...oc.feed(stream(300))];
    assert.equal(found.length, 30);
    for (const f of found) {
        assert.deepEqual(f.labels, ['inc', 'inc']);
        assert.ok(f.txns.includes(f.closed_by));
    }
    const s = oc.summary();
    assert.equal(s.stats.cycles, 30);
    assert.ok(s.stats.peak_live <= 50);
    assert.equal(s.classes.find((c) => c.scheme === 'ldbc' && c.class === 'LU').count, 30);
    assert.ok(oc.memoryEstimate() > 0);
    oc.free();
    assert.throws(() => oc.add({ ops: [] }), GrailError);
});

test('online checker: bad transactions and evictions', () => {
    const oc = new OnlineChecker({ window: 5 });
    assert.throws(() => oc.add({ ops: [['append', 'x', []]] }), (e) => e.kind === 'shape');
    assert.throws(() => new OnlineChecker({ windw: 5 }), (e) => e.kind === 'usage');
    oc.add({ ops: [['r', 'x', []], ['append', 'x', 1]] });
    // Register operations after list appends: a stream keeps to one data model.
    assert.throws(() => oc.add({ ops: [['w', 'x', 1]] }), (e) => e.kind === 'shape' && /one data model/.test(e.message));
    assert.throws(() => oc.add({ ops: [['r', 'x', 5]] }), (e) => e.kind === 'shape' && /one data model/.test(e.message));
    for (let i = 0; i < 10; i++) oc.add({ ops: [['append', `f${i}`, 1]] });
    oc.add({ ops: [['r', 'x', []], ['append', 'x', 2]] });
    assert.deepEqual(oc.add({ ops: [['r', 'x', [1, 2]]] }), []);
    assert.ok(oc.summary().notes.some((n) => n.includes('left the window')));
});

test('docs/analysis.md: every JS example runs and prints what its comments say', async () => {
    const { readFileSync: read, rmSync } = await import('node:fs');
    const { fileURLToPath, pathToFileURL } = await import('node:url');
    const here = fileURLToPath(new URL('.', import.meta.url));
    const root = join(here, '..', '..', '..');
    const doc = read(join(root, 'docs', 'analysis.md'), 'utf8');
    const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.ok(blocks.length >= 2, `${blocks.length} JS examples`);
    for (const block of blocks) {
        const code = block.replace("from 'grail-isolation'", `from '${pathToFileURL(join(here, '..', 'pkg', 'node.mjs'))}'`);
        assert.notEqual(code, block);
        const dir = mkdtempSync(join(tmpdir(), 'grail-doc-'));
        try {
            writeFileSync(join(dir, 'example.mjs'), code);
            const r = spawnSync(process.execPath, [join(dir, 'example.mjs')], { encoding: 'utf8', cwd: root });
            assert.equal(r.status, 0, r.stderr);
            const want = [...block.matchAll(/\/\/ (.*)$/gm)].map((m) => m[1]).filter((c) => /^[\d ]+$/.test(c));
            assert.ok(want.length > 0, block);
            assert.deepEqual(r.stdout.trim().split('\n'), want);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    }
});
