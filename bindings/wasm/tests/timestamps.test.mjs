// White-box orders (issue 18) through the JS package: timestamps in grail's JSON and in
// TimeKiller's, the white_box option and report section, claimed steps, the online checker.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grail from '../pkg/node.mjs';
import { casesDir, cli, cliPath, skipOrFail } from './helpers.mjs';

const tk = [
    { tid: 1, sid: 1, sts: { p: '100', l: 0 }, cts: { p: '101', l: 0 }, ops: [{ t: 'r', k: 1, v: 0 }, { t: 'w', k: 1, v: 10 }] },
    { tid: 2, sid: 2, sts: { p: 100, l: 0 }, cts: { p: 102, l: 0 }, ops: [{ t: 'r', k: 1, v: 0 }, { t: 'w', k: 1, v: 20 }] },
];

test('TimeKiller JSON, auto-detected, with its initial value', () => {
    const r = grail.check(JSON.stringify(tk), { levels: ['SI'], initial_value: 0 });
    assert.equal(r.levels.SI.verdict, 'violated');
    assert.equal(r.white_box.si, 'full');
    const f = r.white_box.findings.find((x) => x.type === 'write-conflict');
    assert.deepEqual(f.txns.map((t) => [t.id, t.start_ts, t.commit_ts]), [[1, 100, 101], [2, 100, 102]]);
    assert.match(f.explanation, /T1 \(start 100, commit 101\) and T2 \(start 100, commit 102\) both wrote key 1/);
    assert.throws(() => grail.check('{:type :ok, :value []}', { initial_value: 0 }), (e) => e.kind === 'usage');
    assert.throws(() => grail.check('[\n{"tid": 1, "sts": {"p": 5}, "cts": {"p": 4}, "ops": []}]'), (e) => e.line === 2 && e.column === 1);
});

test('white_box: auto, ignore, only', () => {
    const text = readFileSync(join(casesDir, 'timestamps/stale-snapshot.json'));
    assert.equal(grail.check(text, { white_box: 'ignore' }).levels.SI.verdict, 'holds');
    assert.equal(grail.check(text, { white_box: 'ignore' }).white_box, undefined);
    assert.equal(grail.check(text).levels.SI.verdict, 'violated');
    const only = grail.check(text, { white_box: 'only', levels: ['SI', 'PSI'] });
    assert.deepEqual([only.levels.SI.verdict, only.levels.PSI.verdict], ['violated', 'unknown']);
    assert.match(grail.renderText(only), /white-box: SI full/);
    assert.throws(() => grail.check(text, { white_box: 'sometimes' }), (e) => e.kind === 'usage');
});

test('claimed steps are marked, and the report is the CLI\'s', (t) => {
    const path = join(casesDir, 'timestamps/mixed-claimed.json');
    const r = grail.check(readFileSync(path));
    const c = r.levels.SI.cycles.find((x) => x.anomaly === 'G-single-claimed');
    assert.equal(c.steps.filter((s) => s.claimed === true).length, 1);
    assert.ok(c.steps.every((s) => s.certain === undefined));
    if (!cliPath && skipOrFail(t, 'the grail CLI is not built')) return;
    assert.deepEqual(r, JSON.parse(cli(['check', path, '--json'])));
    const only = grail.check(readFileSync(path), { white_box: 'only', levels: ['SI', 'SER'] });
    assert.deepEqual(only, JSON.parse(cli(['check', path, '--json', '--white-box', 'only', '--levels', 'SI,SER'])));
});

test('the online checker with timestamps', () => {
    const oc = new grail.TimestampOnlineChecker({ window: 2 });
    const found = [...oc.feed([
        { id: 1, session: 1, start_ts: 1, commit_ts: 2, ops: [['w', 'x', 1]] },
        { id: 2, session: 1, start_ts: 1, commit_ts: 4, ops: [['r', 'x', null]] },
        { tid: 3, sid: 2, sts: { p: 5, l: 0 }, cts: { p: 6, l: 0 }, ops: [{ t: 'r', k: 'x', v: null }] },
    ])];
    assert.deepEqual(found.map((v) => v.type), ['session-order', 'snapshot-read']);
    assert.equal(found[1].expected, 1);
    assert.equal(oc.stats().transactions, 3);
    oc.free();
    assert.throws(() => new grail.TimestampOnlineChecker({ level: 'PSI' }), (e) => e.kind === 'usage');
});

test('docs/timestamps.md: the JS example runs and prints what its comments say', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const { tmpdir } = await import('node:os');
    const { pathToFileURL } = await import('node:url');
    const { pkgDir, root } = await import('./helpers.mjs');
    const doc = readFileSync(join(root, 'docs/timestamps.md'), 'utf8');
    const [block] = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    const code = block.replace("from 'grail-wasm'", `from '${pathToFileURL(join(pkgDir, 'node.mjs'))}'`);
    const dir = mkdtempSync(join(tmpdir(), 'grail-doc-'));
    try {
        writeFileSync(join(dir, 'example.mjs'), code);
        const r = spawnSync(process.execPath, [join(dir, 'example.mjs')], { encoding: 'utf8', cwd: root });
        assert.equal(r.status, 0, r.stderr);
        const want = [...block.matchAll(/\/\/ (.*)/g)].map((m) => m[1]);
        assert.deepEqual(r.stdout.trim().split('\n'), want);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});
