// report.toHTML(): the self-contained page of `grail check --html`, from JS, byte for byte.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grail from '../pkg/node.mjs';
import { cliPath, conformanceCases, skipOrFail } from './helpers.mjs';

const lostUpdate = conformanceCases().find((c) => c.name === 'G-single/lost-update.edn');

const withNemesis = `{:index 0, :type :invoke, :f :txn, :process 0, :time 10, :value [[:r x nil] [:append x 1]]}
{:index 1, :type :invoke, :f :txn, :process 1, :time 11, :value [[:r x nil] [:append x 2]]}
{:index 2, :type :info, :f :start-partition, :process :nemesis, :time 12, :value :majority}
{:index 3, :type :ok, :f :txn, :process 0, :time 20, :value [[:r x []] [:append x 1]]}
{:index 4, :type :ok, :f :txn, :process 1, :time 21, :value [[:r x []] [:append x 2]]}
{:index 5, :type :info, :f :stop-partition, :process :nemesis, :time 25, :value nil}
{:index 6, :type :invoke, :f :txn, :process 2, :time 30, :value [[:r x nil]]}
{:index 7, :type :ok, :f :txn, :process 2, :time 40, :value [[:r x [2]]]}
`;

test('check(...).toHTML() is the page, and the report data is unchanged', () => {
    const report = grail.check(withNemesis);
    assert.equal(typeof report.toHTML, 'function');
    assert.ok(!Object.keys(report).includes('toHTML'), 'not enumerable');
    assert.ok(!JSON.stringify(report).includes('toHTML'));
    assert.deepEqual(structuredClone(report), JSON.parse(JSON.stringify(report)));
    const page = report.toHTML('partitioned.edn');
    assert.match(page, /^<!DOCTYPE html>/);
    assert.match(page, /<span class="badge invalid">INVALID<\/span>/);
    assert.match(page, /<tr data-level="PSI"><td><strong>PSI<\/strong><\/td><td class="verdict violated">violated/);
    assert.equal((page.match(/class="nemesis"/g) ?? []).length, 2);
    assert.match(page, /<title>start-partition \.\. stop-partition<\/title>/);
    assert.ok(!/<script/.test(page));
    // History.check gives the same page.
    const h = grail.read(withNemesis);
    try {
        assert.equal(h.check().toHTML('partitioned.edn'), page);
        assert.throws(() => h.renderHtml(report, 42), /title must be a string/);
    } finally {
        h.free();
    }
});

test('toHTML equals grail check --html', (t) => {
    const cli = cliPath;
    if (!cli && skipOrFail(t, 'the grail CLI is not built')) return;
    const dir = mkdtempSync(join(tmpdir(), 'grail-html-'));
    try {
        const out = join(dir, 'r.html');
        try {
            execFileSync(cli, ['check', lostUpdate.history, '--html', out]);
        } catch (e) {
            assert.equal(e.status, 1);
        }
        assert.equal(grail.check(readFileSync(lostUpdate.history)).toHTML('lost-update.edn'), readFileSync(out, 'utf8'));
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test('a write cycle of forced choices is named by the cycles that forced it, in the data and on the page', () => {
    const c = conformanceCases().find((x) => x.name === 'G-single/forced-write-cycle.edn');
    const report = grail.check(readFileSync(c.history), { levels: [...grail.ALL_LEVELS] });
    assert.equal(report.levels['PL-1'].verdict, 'holds');
    const cycle = report.levels.SI.cycles[0];
    assert.deepEqual([cycle.anomaly, cycle.cycle_anomaly, cycle.name], ['G-single', 'G0', 'write cycle']);
    assert.match(report.toHTML('forced.edn'), /<h3>G-single: write cycle \(a G0 cycle through chosen versions\)<\/h3>/);
});
