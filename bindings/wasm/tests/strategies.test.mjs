// GRAIL's checkers through the JS package (checkStrategy), equal to the CLI's
// `grail check FILE --strategy S --json`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grail from '../pkg/node.mjs';
import { casesDir, cli, cliPath, skipOrFail } from './helpers.mjs';

const longFork = join(casesDir, 'G-nonadjacent/long-fork.edn');
const text = readFileSync(longFork);

// The CLI exits 1 when a level is not known to hold; cli() accepts 0 and 1.
function cliStrategy(args) {
    return JSON.parse(cli(['check', longFork, '--json', ...args]));
}

const runs = [
    ['dfs', {}, []],
    ['dfs', { max_depth: 2 }, ['--max-depth', '2']],
    ['shortest-path', {}, []],
    ['gabow', {}, []],
    ['gabow', { levels: ['SI', 'PL-2'] }, ['--levels', 'SI,PL-2']],
];

for (const [strategy, opts, args] of runs) {
    test(`checkStrategy ${strategy} ${JSON.stringify(opts)} equals the CLI`, (t) => {
        const r = grail.checkStrategy(text, { strategy, ...opts });
        assert.equal(r.strategy, strategy);
        if (!cliPath && skipOrFail(t, 'the grail CLI is not built (cargo build --release -p grail-cli)')) return;
        assert.deepEqual(r, cliStrategy(['--strategy', strategy, ...args]));
    });
}

test('History.checkStrategy reuses the history; default strategy is scc', () => {
    const h = grail.read(text);
    try {
        assert.equal(h.checkStrategy().strategy, 'scc');
        const g = h.checkStrategy({ strategy: 'gabow' });
        assert.deepEqual(g, grail.checkStrategy(text, { strategy: 'gabow' }));
        const ser = g.levels.find((l) => l.level === 'SER');
        assert.equal(ser.verdict, 'violated');
        assert.ok(ser.cycle.txns.length >= 2);
        assert.ok(ser.counters.traversals > 0 && ser.counters.edges_visited > 0);
    } finally {
        h.free();
    }
});

test('dfs with depth 2 does not detect the long fork; depth 4 does', () => {
    const shallow = grail.checkStrategy(text, { strategy: 'dfs', max_depth: 2 });
    assert.equal(shallow.max_depth, 2);
    assert.deepEqual(new Set(shallow.levels.map((l) => l.verdict)), new Set(['not-detected']));
    const deep = grail.checkStrategy(text, { strategy: 'dfs', max_depth: 4 });
    assert.equal(deep.levels.find((l) => l.level === 'SER').verdict, 'violated');
});

test('STRATEGIES lists the four strategies', () => {
    assert.deepEqual([...grail.STRATEGIES], ['scc', 'dfs', 'shortest-path', 'gabow']);
});

for (const [opts, message] of [
    [{ strategy: 'bogus' }, /unknown strategy "bogus": expected scc, dfs, shortest-path or gabow/],
    [{ strategy: 'gabow', max_depth: 3 }, /applies to the dfs strategy only/],
    [{ strategy: 'dfs', max_depth: 1 }, /at least 2/],
    [{ strategy: 'dfs', max_depth: 2.5 }, /max_depth/],
    [{ strategy: 7 }, /option `strategy`/],
    [{ strategy: 'gabow', levels: ['XYZ'] }, /XYZ/],
    [{ strategy: 'gabow', levels: 'SER' }, /option `levels`/],
    [{ strategy: 'gabow', max_steps: 5 }, /unknown option `max_steps`/],
]) {
    test(`checkStrategy rejects ${JSON.stringify(opts)}`, () => {
        assert.throws(
            () => grail.checkStrategy(text, opts),
            (e) => e instanceof grail.GrailError && e.kind === 'usage' && message.test(e.message),
        );
    });
}
