// The conformance cases of tests/cases/ through the JS package: each case's expected verdicts
// and anomaly types, and the whole report equal to the CLI's `check --json`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as grail from '../pkg/node.mjs';
import { anomalyTypes, cli, cliPath, conformanceCases, skipOrFail } from './helpers.mjs';

const cases = conformanceCases();

test('there are conformance cases, one with a write-ahead log', () => {
    assert.ok(cases.length >= 10, `only ${cases.length} cases found`);
    assert.ok(cases.some((c) => c.wal));
});

for (const c of cases) {
    test(`case ${c.name}`, async (t) => {
        const text = readFileSync(c.history);
        // The levels the case names are the levels checked.
        const levels = Object.keys(c.expected.levels);
        const options = c.wal ? { wal: readFileSync(c.wal), levels } : { levels };
        const report = grail.check(text, options);

        for (const [level, verdict] of Object.entries(c.expected.levels)) {
            assert.equal(report.levels[level]?.verdict, verdict, `${level}`);
            assert.equal(report.levels[level].valid, verdict === 'holds' ? true : verdict === 'violated' ? false : null);
        }
        assert.deepEqual(anomalyTypes(report), c.expected.anomalies);
        // One rule in the three runners: `valid` from the expected file when it gives one (broken
        // assumptions), else false if a level is violated, null if one is unknown, else true.
        const verdicts = Object.values(c.expected.levels);
        const byLevels = verdicts.includes('violated') ? false : verdicts.includes('unknown') ? null : true;
        assert.equal(report.valid, 'valid' in c.expected ? c.expected.valid : byLevels);

        await t.test('same report as the CLI', (t) => {
            if (!cliPath && skipOrFail(t, 'the grail CLI is not built (cargo build --release -p grail-cli)')) return;
            const args = ['check', c.history, '--json', '--levels', levels.join(','), ...(c.wal ? ['--wal', c.wal] : [])];
            assert.deepEqual(report, JSON.parse(cli(args)));
        });
    });
}
