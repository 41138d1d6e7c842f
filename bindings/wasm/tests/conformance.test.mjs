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
        // `valid` in the expected file when it is not what the levels say (broken assumptions).
        assert.equal(report.valid, c.expected.valid ?? Object.values(c.expected.levels).every((v) => v === 'holds'));

        await t.test('same report as the CLI', (t) => {
            if (!cliPath && skipOrFail(t, 'the grail CLI is not built (cargo build --release -p grail-cli)')) return;
            const args = ['check', c.history, '--json', '--levels', levels.join(','), ...(c.wal ? ['--wal', c.wal] : [])];
            assert.deepEqual(report, JSON.parse(cli(args)));
        });
    });
}
