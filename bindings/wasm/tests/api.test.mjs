// The package's API besides the verdicts: graph, stats and text equal to the CLI's; the
// History object; inputs (string, bytes, gzip, ArrayBuffer); progress, cancellation and budgets.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import * as grail from '../pkg/node.mjs';
import { cli, cliPath, conformanceCases, skipOrFail } from './helpers.mjs';

const cases = conformanceCases();
const lostUpdate = cases.find((c) => c.name === 'G-single/lost-update.edn');

/** A ring of `n` transactions, each reading the next one's key before its append: one big
 * strongly connected component of rw edges whose shortest-cycle search takes many steps. */
function ring(n) {
    const lines = [];
    for (let i = 0; i < n; i++) {
        lines.push(`{:type :ok, :process ${i % 10}, :value [[:append ${i} 1] [:r ${i} [1]] [:r ${(i + 1) % n} []]]}`);
    }
    return lines.join('\n');
}

test('version and levels', () => {
    assert.match(grail.version(), /^\d+\.\d+\.\d+/);
    assert.deepEqual([...grail.LEVELS], ['SER', 'SI', 'PSI', 'PL-2', 'PL-1']);
});

test('all twelve levels, Elle\'s names, and the lattice of verdicts', (t) => {
    assert.equal(grail.ALL_LEVELS.length, 12);
    assert.ok(grail.LEVELS.every((l) => grail.ALL_LEVELS.includes(l)));
    const saw = cases.find((c) => c.name === 'fractured-read/saw-half.edn');
    const r = grail.check(readFileSync(saw.history), { levels: [...grail.ALL_LEVELS] });
    assert.deepEqual(Object.keys(r.levels), [...grail.ALL_LEVELS]);
    assert.deepEqual(r.levels.RA.anomalies, ['fractured-read']);
    assert.deepEqual(r.weakest_violated, ['PSI', 'RA']);
    assert.deepEqual(r.strongest_satisfied, ['RC']);
    const fractured = r.anomalies.find((a) => a.type === 'fractured-read');
    assert.equal(fractured.name, 'fractured read');
    assert.ok(fractured.cycle.steps.some((s) => s.type === 'co' && /must precede/.test(s.why)));
    const byAlias = grail.check(readFileSync(saw.history), { levels: ['read-atomic', 'strict-serializable'] });
    assert.deepEqual(Object.keys(byAlias.levels), ['strict-SER', 'RA']);
    if (!cliPath && skipOrFail(t, 'the grail CLI is not built (cargo build --release -p grail-cli)')) return;
    assert.deepEqual(r, JSON.parse(cli(['check', saw.history, '--json', '--levels', 'all'])));
});

test('init() resolves in Node (the module is loaded at import)', async () => {
    await grail.init();
    // An empty history proves nothing (issue 33): unknown, with the reason.
    const r = grail.check('');
    assert.equal(r.valid, null);
    assert.match(r.levels.SER.reason, /no committed transaction/);
});

for (const c of cases) {
    test(`graph, stats and text of ${c.name} equal the CLI's`, (t) => {
        if (!cliPath && skipOrFail(t, 'the grail CLI is not built (cargo build --release -p grail-cli)')) return;
        const wal = c.wal ? ['--wal', c.wal] : [];
        const h = grail.read(readFileSync(c.history, 'utf8'), c.wal ? { wal: readFileSync(c.wal, 'utf8') } : {});
        try {
            assert.deepEqual(h.graph(), JSON.parse(cli(['graph', c.history, '--json', ...wal])));
            assert.deepEqual(h.stats(), JSON.parse(cli(['stats', c.history, '--json', ...wal])));
            const report = h.check();
            assert.equal(grail.renderText(report), cli(['check', c.history, ...wal]));
            assert.equal(h.model, report.model);
            assert.equal(h.transactionCount, report.stats.transactions);
        } finally {
            h.free();
        }
    });
}

test('transactions(): ids, statuses, vertices and operations', () => {
    const h = grail.read(readFileSync(lostUpdate.history));
    const txns = h.transactions();
    const graph = h.graph();
    const report = h.check();
    h.free();
    assert.equal(txns.length, report.stats.transactions);
    assert.deepEqual(txns.filter((t) => t.vertex).map((t) => t.id), graph.vertices);
    assert.equal(txns.filter((t) => t.status === 'committed').length, report.stats.committed);
    // Every operation a cycle step cites is that transaction's operation at that index.
    const byId = new Map(txns.map((t) => [t.id, t]));
    const steps = report.levels.SER.cycles.flatMap((c) => c.steps);
    assert.ok(steps.length > 0);
    for (const s of steps) {
        assert.equal(byId.get(s.from_op.txn).ops[s.from_op.index], s.from_op.op);
        assert.equal(byId.get(s.to_op.txn).ops[s.to_op.index], s.to_op.op);
    }
    for (const t of txns) {
        assert.ok(t.line === null || t.line >= 1);
        assert.ok(t.ops.every((op) => /^\[:(r|w|append) /.test(op)), t.ops.join(' '));
    }
});

test('spans: every operation and transaction of every EDN and JSON case, and the report\'s operations', () => {
    for (const c of cases) {
        const bytes = readFileSync(c.history);
        const h = grail.read(bytes);
        try {
            const slice = (s) => bytes.subarray(s.start, s.end).toString('utf8');
            const txns = h.transactions();
            const byId = new Map(txns.map((t) => [t.id, t]));
            for (const t of txns) {
                assert.equal(t.op_spans.length, t.ops.length, c.name);
                assert.equal(t.op_keys.length, t.ops.length, c.name);
                assert.match(slice(t.span), /^\{[^]*\}$/, c.name);
                for (const s of t.op_spans) {
                    // The form of a micro-operation (a vector, list or TimeKiller's object), at the line and column where it starts.
                    assert.match(slice(s), /^[[({][^]*[\])}]$/, c.name);
                    const before = bytes.subarray(0, s.start).toString('utf8').split('\n');
                    assert.deepEqual([s.line, s.column], [before.length, [...before.at(-1)].length + 1], c.name);
                }
            }
            const report = h.check();
            for (const a of report.anomalies) {
                for (const op of [...a.ops, ...(a.cycle?.steps.flatMap((s) => [s.from_op, s.to_op]) ?? [])]) {
                    if (op.span) assert.deepEqual(op.span, byId.get(op.txn).op_spans[op.index], c.name);
                }
            }
        } finally {
            h.free();
        }
    }
});

test('transactions(ids) and subHistory(ids): the chosen transactions, written back as EDN', () => {
    const h = grail.read(readFileSync(lostUpdate.history));
    try {
        const all = h.transactions();
        const ids = all.map((t) => t.id);
        assert.deepEqual(h.transactions([ids[2], ids[0], 987654]), [all[0], all[2]]);
        const sub = h.subHistory([ids[2], ids[0]], { comment: 'two of them' });
        assert.match(sub, /^; two of them\n\{:index /);
        const back = grail.read(sub);
        const same = (t) => [t.id, t.status, t.process, t.label, t.ops];
        assert.deepEqual(back.transactions().map(same), [all[0], all[2]].map(same));
        back.free();
        assert.throws(() => h.subHistory([987654]), { name: 'GrailError', kind: 'usage' });
        assert.throws(() => h.subHistory('1'), { name: 'GrailError', kind: 'usage' });
        assert.throws(() => h.transactions([1.5]), { name: 'GrailError', kind: 'usage' });
        assert.throws(() => h.subHistory([ids[0]], { bogus: 1 }), { name: 'GrailError', kind: 'usage' });
    } finally {
        h.free();
    }
});

test('reproducingSubHistory: core\'s smallest sub-history with the cycle, in the input\'s notation', () => {
    // EDN: the lost update of the conformance cases; the JSON of the report's cycle is taken as is.
    const h = grail.read(readFileSync(lostUpdate.history));
    try {
        const c = h.check({ levels: ['SER'] }).levels.SER.cycles[0];
        const sub = h.reproducingSubHistory(c, { levels: ['SER'] });
        assert.equal(sub.extension, 'edn');
        assert.equal(sub.reproduces, true);
        assert.ok(sub.checks >= 1);
        assert.match(sub.text, /^; A sub-history of \d+ transactions/);
        const back = grail.check(sub.text, { levels: ['SER'] });
        // The level's cycles, or the anomalies' (an open pair of appends is listed there).
        const cycles = [...back.levels.SER.cycles, ...back.anomalies.filter((a) => a.cycle).map((a) => a.cycle)];
        assert.ok(cycles.some((x) => x.anomaly === c.anomaly && [...x.txns].sort().join() === [...c.txns].sort().join()));
        assert.throws(() => h.reproducingSubHistory(c), { name: 'GrailError', kind: 'usage' });
        assert.throws(() => h.reproducingSubHistory(c, { levels: [] }), { name: 'GrailError', kind: 'usage' });
        assert.throws(() => h.reproducingSubHistory({ not: 'a cycle' }, { levels: ['SER'] }), { name: 'GrailError', kind: 'usage' });
        assert.throws(() => h.reproducingSubHistory(c, { levels: ['SER'], maxChecks: 0 }), { name: 'GrailError', kind: 'usage' });
    } finally {
        h.free();
    }
    // Plume text: Plume lines back, no comment (the format has none).
    const plume = 'w(1,1,0,0)\nw(2,1,0,0)\nr(1,1,1,1)\nr(2,1,2,2)\nw(2,2,1,1)\nw(1,2,2,2)\n';
    const p = grail.read(plume);
    try {
        const c = p.check({ levels: ['SER'] }).levels.SER.cycles[0];
        assert.equal(c.steps[0].from_op.op.startsWith('r('), true);
        const sub = p.reproducingSubHistory(c, { levels: ['SER'] });
        assert.deepEqual([sub.extension, sub.text, sub.reproduces, sub.minimal], ['txt', plume, true, true]);
        assert.equal(p.subHistory([1], { comment: 'dropped' }), 'r(1,1,1,1)\nw(2,2,1,1)\n');
    } finally {
        p.free();
    }
    // grail's native JSON: native JSON back, which reads to the same cycle.
    const native = cases.find((c) => c.name === 'native/write-skew.json');
    const n = grail.read(readFileSync(native.history));
    try {
        const c = n.check({ levels: ['SER'] }).levels.SER.cycles[0];
        const sub = n.reproducingSubHistory(c, { levels: ['SER'] });
        assert.deepEqual([sub.extension, sub.reproduces, sub.minimal], ['json', true, true]);
        assert.deepEqual(JSON.parse(sub.text).transactions.map((t) => t.id), c.txns.toSorted((x, y) => x - y));
        assert.equal(grail.check(sub.text, { levels: ['SER'] }).levels.SER.valid, false);
    } finally {
        n.free();
    }
    // Aborted writes (txn = -1) are one transaction whose id JavaScript holds (2^53 - 1).
    const g1a = grail.check('r(1,0,1,1)\nw(1,5,2,-1)\nr(1,5,3,3)\n');
    const a = g1a.anomalies.find((x) => x.type === 'G1a');
    assert.deepEqual(a.txns, [Number.MAX_SAFE_INTEGER, 3]);
    assert.equal(a.ops[0].op, 'w(1,5,_,-1)');
});

test('graph edges carry provenance that matches the cycles of the report', () => {
    const h = grail.read(readFileSync(lostUpdate.history));
    const { edges, vertices, stats } = h.graph();
    const report = h.check();
    h.free();
    assert.equal(vertices.length, stats.vertices);
    for (const s of report.levels.SER.cycles[0].steps) {
        const e = edges.find((e) => e.from === s.from && e.to === s.to && e.type === s.type && e.key === s.key);
        assert.ok(e, `no graph edge for step ${JSON.stringify(s)}`);
        assert.deepEqual([e.from_op, e.to_op], [s.from_op, s.to_op]);
    }
});

test('cycleDot draws a cycle of the report', () => {
    const cycle = grail.check(readFileSync(lostUpdate.history)).levels.SER.cycles[0];
    const dot = grail.cycleDot(cycle);
    assert.match(dot, /^digraph /);
    for (const t of cycle.txns) assert.ok(dot.includes(`T${t}`), `T${t} missing from ${dot}`);
    assert.throws(() => grail.cycleDot({ not: 'a cycle' }), { name: 'GrailError', kind: 'usage' });
});

test('renderText rejects what is not a report', () => {
    assert.throws(() => grail.renderText({ valid: true }), (e) => e instanceof grail.GrailError && e.kind === 'usage' && /not a grail report/.test(e.message));
});

test('input as string, Uint8Array, ArrayBuffer, DataView and gzip give the same report', () => {
    const text = readFileSync(lostUpdate.history, 'utf8');
    const bytes = new TextEncoder().encode(text);
    const expected = grail.check(text);
    assert.equal(expected.valid, false);
    assert.deepEqual(grail.check(bytes), expected);
    assert.deepEqual(grail.check(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), expected);
    assert.deepEqual(grail.check(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)), expected);
    assert.deepEqual(grail.check(gzipSync(bytes)), expected);
    // A sub-view of a larger buffer: only the view's bytes are read.
    const padded = new Uint8Array(bytes.length + 10).fill(0x41);
    padded.set(bytes, 5);
    assert.deepEqual(grail.check(padded.subarray(5, 5 + bytes.length)), expected);
});

test('gunzip() unpacks gzip bytes', async () => {
    const out = await grail.gunzip(gzipSync(Buffer.from('hello grail')));
    assert.ok(out instanceof Uint8Array);
    assert.equal(new TextDecoder().decode(out), 'hello grail');
});

test('format and wal options', () => {
    const reg = cases.find((c) => c.wal);
    const withWal = grail.check(readFileSync(reg.history), { wal: readFileSync(reg.wal), format: 'edn' });
    const withoutWal = grail.check(readFileSync(reg.history), { format: 'edn' });
    assert.notDeepEqual(withWal.stats, withoutWal.stats, 'the log should change the graph');
    assert.throws(() => grail.check(readFileSync(reg.history), { format: 'json' }), { name: 'GrailError', kind: 'syntax' });
    assert.throws(() => grail.check('{}', { format: 'yaml' }), (e) => e.kind === 'usage' && /unknown format/.test(e.message));
});

test('levels, max_cycles and max_steps', () => {
    const text = readFileSync(lostUpdate.history);
    const r = grail.check(text, { levels: ['PL-1', 'SER'] });
    assert.deepEqual(Object.keys(r.levels), ['SER', 'PL-1']);
    assert.equal(grail.check(text, { levels: ['PL-2'] }).valid, true);

    const big = ring(60);
    const unlimited = grail.check(big, { levels: ['SER'] });
    assert.equal(unlimited.levels.SER.verdict, 'violated');
    const starved = grail.check(big, { levels: ['SER'], max_steps: 0 });
    assert.equal(starved.levels.SER.verdict, 'unknown');
    assert.equal(starved.levels.SER.valid, null);
    assert.equal(starved.valid, null);
    assert.match(starved.levels.SER.reason, /undecided/);
    assert.ok(starved.notes.some((n) => /step budget/.test(n)), starved.notes.join('; '));
});

test('History: check twice, free, use after free', () => {
    const h = grail.read(readFileSync(lostUpdate.history));
    assert.equal(h.model, 'list-append');
    const a = h.check({ levels: ['SER'] });
    const b = h.check();
    assert.deepEqual(a.levels.SER, b.levels.SER);
    h.free();
    h.free(); // idempotent
    assert.throws(() => h.check(), (e) => e instanceof grail.GrailError && /freed/.test(e.message));
    assert.throws(() => new grail.History(), TypeError);
});

test('progress: phases in order, with counts that match the report', () => {
    const events = [];
    const report = grail.check(readFileSync(lostUpdate.history), { progress: (e) => void events.push(structuredClone(e)) });
    assert.deepEqual(events.map((e) => `${e.phase}:${e.done}`), ['read:false', 'read:true', 'infer:false', 'infer:true', 'check:false', 'check:true']);
    const done = Object.fromEntries(events.filter((e) => e.done).map((e) => [e.phase, e]));
    assert.equal(done.read.transactions, report.stats.transactions);
    assert.equal(done.read.model, report.model);
    assert.equal(done.infer.vertices, report.stats.vertices);
    assert.equal(done.infer.edges, report.stats.edges);
    assert.equal(done.check.valid, report.valid);
    assert.ok(events[0].bytes > 0);
    for (let i = 1; i < events.length; i++) assert.ok(events[i].elapsed_ms >= events[i - 1].elapsed_ms);
});

test('progress during a long search, then cancel from the callback', () => {
    const text = ring(400);
    const steps = [];
    grail.check(text, { levels: ['SER'], progress: (e) => void (e.phase === 'check' && steps.push(e.steps)), progress_interval_ms: 0 });
    assert.ok(steps.length > 4, `only ${steps.length} check events`);
    for (let i = 1; i < steps.length; i++) assert.ok(steps[i] >= steps[i - 1]);

    let calls = 0;
    assert.throws(
        () =>
            grail.check(text, {
                levels: ['SER'],
                progress_interval_ms: 0,
                progress: (e) => (e.phase === 'check' && !e.done && ++calls === 3 ? false : undefined),
            }),
        (e) => e instanceof grail.GrailError && e.kind === 'cancelled',
    );
    assert.equal(calls, 3, 'no event after the cancellation');
    // A cancel before the search (at a phase boundary) stops as well.
    assert.throws(() => grail.check(text, { progress: (e) => e.phase !== 'infer' }), { kind: 'cancelled' });
    assert.equal(grail.check(readFileSync(lostUpdate.history)).valid, false);
});

test('an exception in the progress callback comes out of the call as it was thrown', () => {
    const mine = new RangeError('stop here');
    for (const phase of ['read', 'infer', 'check']) {
        assert.throws(
            () => grail.check(ring(50), { progress: (e) => { if (e.phase === phase) throw mine; } }),
            (e) => e === mine,
        );
    }
    // And the module still works.
    assert.equal(grail.check(ring(50), { levels: ['SER'] }).levels.SER.verdict, 'violated');
});

test('timeout cuts the search short', () => {
    const text = ring(400);
    let full;
    grail.check(text, { levels: ['SER'], progress: (e) => void (e.done && e.phase === 'check' && (full = e.steps)), progress_interval_ms: 0 });
    let cut;
    const r = grail.check(text, { levels: ['SER'], timeout: 0, progress: (e) => void (e.done && e.phase === 'check' && (cut = e.steps)), progress_interval_ms: 0 });
    assert.ok(cut < full, `timeout 0 searched ${cut} steps, the full search ${full}`);
    assert.ok(r.notes.some((n) => /time budget/.test(n)), r.notes.join('; '));
    const full2 = grail.check(text, { levels: ['SER'] });
    assert.equal(full2.levels.SER.cycles[0].minimal, true);
    assert.ok(!full2.notes.some((n) => /cut short/.test(n)));
});

test('the JS constants and the demo colours are core tables, not copies that can drift', async () => {
    const { coreTables, LEVELS, ALL_LEVELS, check } = await import('../pkg/node.mjs');
    const t = coreTables();
    assert.deepEqual([...ALL_LEVELS], t.levels.map((l) => l.name));
    assert.deepEqual([...LEVELS], t.levels.filter((l) => l.classic).map((l) => l.name));
    const { EDGE_STYLE } = await import('../../../web-demo/src/graph.mjs');
    assert.deepEqual(
        Object.fromEntries(Object.entries(EDGE_STYLE).map(([k, v]) => [k, v.color])),
        Object.fromEntries(t.edge_colours),
    );
    // The default max_cycles is core's: a history with more components than it lists that many.
    let text = '';
    for (let i = 0; i < t.default_max_cycles + 3; i++) {
        text += `{:type :ok, :value [[:r :k${i} []] [:append :k${i} 1]]}\n{:type :ok, :value [[:r :k${i} []] [:append :k${i} 2]]}\n{:type :ok, :value [[:r :k${i} [2]]]}\n`;
    }
    assert.equal(check(text, { levels: ['SI'] }).levels.SI.cycles.length, t.default_max_cycles);
});
