// Errors: GrailErrors with kind, line and column (the same place and message as the CLI's);
// bad options; bad input of every sort never panics; the module works after an error; a
// panic becomes a GrailError and the module is reset and usable.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grail from '../pkg/node.mjs';
import { _panicForTest } from '../pkg/grail.mjs';
import { cliPath, conformanceCases, skipOrFail } from './helpers.mjs';

const cases = conformanceCases();
const lostUpdate = readFileSync(cases.find((c) => c.name === 'G-single/lost-update.edn').history, 'utf8');
const baseline = grail.check(lostUpdate);

const INPUT_KINDS = ['syntax', 'shape', 'mixed-model', 'wal', 'usage'];

/** Inputs with a known error: kind, line and column. */
const bad = [
    {
        name: 'EDN: unterminated vector',
        text: '{:type :ok, :value [[:append :x 1]]}\n{:type :ok, :value [[:r :x [1]]]}\n{:type :ok, :value [[:r :x [1 }\n',
        kind: 'syntax',
        line: 3,
    },
    {
        name: 'EDN: a :value that is not a vector',
        text: '{:type :ok, :value [[:append :x 1]]}\n{:type :ok, :value 7}\n',
        kind: 'shape',
        line: 2,
        column: 20,
    },
    {
        name: 'EDN: an unknown micro-operation',
        text: '{:type :ok, :value [[:append :x 1]]}\n\n  {:type :ok, :value [[:frobnicate :x 1]]}\n',
        kind: 'shape',
        line: 3,
    },
    {
        name: 'EDN: list and register operations mixed',
        text: '{:type :ok, :value [[:append :x 1]]}\n{:type :ok, :value [[:w :y 1]]}\n',
        kind: 'mixed-model',
        line: 2,
    },
    {
        name: 'JSON: a missing value',
        text: '[{"type": "ok", "process": 0, "index": 0, "value": [["append", 1, 1]]},\n {"type": "ok", "process": 0, "index": 1, "value": [["r", 1, ]]}]\n',
        kind: 'syntax',
        line: 2,
    },
    {
        // A JSON shape error is placed at its entry (and names it).
        name: 'native JSON: an unknown operation',
        text: '{"transactions": [\n  {"id": 1, "status": "committed", "ops": [["w", "x", 1]]},\n  {"id": 2, "status": "committed", "ops": [["q", "x", 1]]}\n]}\n',
        kind: 'shape',
        line: 3,
        column: 3,
    },
];

/** The CLI's error for the same input: "LINE, column COL: message" after the file name. */
function cliError(text, extra = []) {
    const dir = mkdtempSync(join(tmpdir(), 'grail-js-'));
    try {
        const file = join(dir, 'h.edn');
        writeFileSync(file, text);
        const r = spawnSync(cliPath, ['check', file, ...extra], { encoding: 'utf8' });
        assert.equal(r.status, 2, `the CLI should reject it: ${r.stdout}`);
        return r.stderr.trim().replace(`grail: ${file}: `, '');
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

for (const b of bad) {
    test(`error ${b.line === null ? 'without a place' : 'with line and column'}: ${b.name}`, async (t) => {
        let err;
        assert.throws(() => grail.check(b.text), (e) => ((err = e), true));
        assert.ok(err instanceof grail.GrailError, `not a GrailError: ${err}`);
        assert.ok(err instanceof Error);
        assert.equal(err.name, 'GrailError');
        assert.equal(err.kind, b.kind, err.message);
        assert.equal(err.line, b.line, err.message);
        if (b.line === null) {
            assert.equal(err.column, null);
            assert.doesNotMatch(err.message, /^line /);
        } else {
            assert.equal(typeof err.column, 'number');
            assert.ok(err.column >= 1);
            if (b.column) assert.equal(err.column, b.column);
            assert.ok(err.message.startsWith(`line ${err.line}, column ${err.column}: `), err.message);
        }
        assert.equal(typeof err.stack, 'string');
        // read() throws the same error.
        assert.throws(() => grail.read(b.text), (e) => e.kind === err.kind && e.line === err.line && e.column === err.column);

        await t.test('the same place and message as the CLI', (t) => {
            if (!cliPath && skipOrFail(t, 'the grail CLI is not built')) return;
            assert.equal(err.message, cliError(b.text));
        });
    });
}

test('write-ahead log errors have kind wal and a line', (t) => {
    const reg = cases.find((c) => c.wal);
    const history = readFileSync(reg.history, 'utf8');
    const log = '{"tick":"1","type":2200,"tid":"7"}\nnot json\n';
    let err;
    assert.throws(() => grail.check(history, { wal: log }), (e) => ((err = e), true));
    assert.equal(err.kind, 'wal');
    assert.equal(err.line, 2);
    assert.ok(err.column >= 1);
    if (!cliPath) return void skipOrFail(t, 'the grail CLI is not built');
    const dir = mkdtempSync(join(tmpdir(), 'grail-js-'));
    try {
        writeFileSync(join(dir, 'h.log'), log);
        const r = spawnSync(cliPath, ['check', reg.history, '--wal', join(dir, 'h.log')], { encoding: 'utf8' });
        assert.equal(r.status, 2);
        assert.ok(r.stderr.trim().endsWith(err.message), `${r.stderr} vs ${err.message}`);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test('bad options and arguments are usage errors, without a place', () => {
    const usage = (fn, pattern) =>
        assert.throws(fn, (e) => e instanceof grail.GrailError && e.kind === 'usage' && e.line === null && e.column === null && pattern.test(e.message));
    usage(() => grail.check(lostUpdate, { level: ['SER'] }), /unknown option `level`/);
    usage(() => grail.check(lostUpdate, { levels: ['SNAPSHOT'] }), /unknown level "SNAPSHOT".*strong-session-SER/);
    usage(() => grail.check(lostUpdate, { levels: 'SER' }), /must be an array of level names/);
    usage(() => grail.check(lostUpdate, { max_steps: -1 }), /invalid check options/);
    usage(() => grail.check(lostUpdate, { max_cycles: 'many' }), /invalid check options/);
    usage(() => grail.check(lostUpdate, { timeout: 'soon' }), /timeout/);
    usage(() => grail.check(lostUpdate, { progress: 42 }), /progress/);
    usage(() => grail.check(lostUpdate, { format: 'yaml' }), /unknown format/);
    usage(() => grail.check(lostUpdate, 'SER'), /options must be an object/);
    usage(() => grail.read(lostUpdate, { levels: ['SER'] }), /unknown option `levels`/);
    usage(() => grail.check(42), /must be a string, a Uint8Array or an ArrayBuffer/);
    usage(() => grail.check(null), /must be a string/);
    usage(() => grail.check(new Uint8Array([0x1f, 0x8b, 1, 2, 3])), /not a valid gzip file/);
    const h = grail.read(lostUpdate);
    usage(() => h.check({ format: 'edn' }), /unknown option `format`/);
    h.free();
});

test('the module works after errors', () => {
    for (const b of bad) assert.throws(() => grail.check(b.text), grail.GrailError);
    assert.throws(() => grail.check(lostUpdate, { levels: ['nope'] }), grail.GrailError);
    assert.deepEqual(grail.check(lostUpdate), baseline);
    assert.equal(baseline.valid, false);
});

/** A small deterministic PRNG (mulberry32). */
function prng(seed) {
    return () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** Run one bad input: a report or a GrailError of an input kind with a sane place; never a panic. */
function tryOne(bytes, stats, wal) {
    try {
        const r = grail.check(bytes, wal ? { wal } : {});
        assert.ok(['holds', 'violated', 'unknown'].includes(r.levels.SER.verdict));
        stats.ok += 1;
    } catch (e) {
        assert.ok(e instanceof grail.GrailError, `not a GrailError: ${e && e.stack}`);
        assert.notEqual(e.kind, 'panic', `panic on input ${JSON.stringify(new TextDecoder().decode(bytes))}: ${e.message}`);
        assert.ok(INPUT_KINDS.includes(e.kind), e.kind);
        if (e.line !== null) {
            assert.ok(Number.isInteger(e.line) && e.line >= 1, `line ${e.line}`);
            assert.ok(Number.isInteger(e.column) && e.column >= 1, `column ${e.column}`);
        }
        stats.errors += 1;
    }
}

test('bad input never panics: every truncation of every case', () => {
    const stats = { ok: 0, errors: 0 };
    for (const c of cases) {
        const bytes = readFileSync(c.history);
        const wal = c.wal ? readFileSync(c.wal) : undefined;
        for (let n = 0; n < bytes.length; n++) tryOne(bytes.subarray(0, n), stats, wal);
        if (wal) for (let n = 0; n < wal.length; n++) tryOne(bytes, stats, wal.subarray(0, n));
    }
    assert.ok(stats.errors > 100 && stats.ok > 10, JSON.stringify(stats));
});

test('bad input never panics: random byte edits, seeded', () => {
    const rand = prng(20240521);
    const alphabet = new TextEncoder().encode('{}[]()":,; \n\\#^@~`0123456789-+.eE:okfailnfoinvokeappendrwxnil"\u00e9');
    const stats = { ok: 0, errors: 0 };
    for (const c of cases) {
        const orig = readFileSync(c.history);
        for (let i = 0; i < 300; i++) {
            const b = new Uint8Array(orig);
            const edits = 1 + Math.floor(rand() * 4);
            for (let k = 0; k < edits; k++) {
                const at = Math.floor(rand() * b.length);
                const r = rand();
                if (r < 0.6) b[at] = alphabet[Math.floor(rand() * alphabet.length)];
                else if (r < 0.8) b[at] = Math.floor(rand() * 256);
                else b.copyWithin(at, Math.floor(rand() * b.length));
            }
            tryOne(b, stats);
        }
    }
    assert.ok(stats.errors > 100 && stats.ok > 10, JSON.stringify(stats));
});

test('a panic becomes a GrailError of kind panic, and the module is reset and usable', () => {
    const before = grail.read(lostUpdate);
    let err;
    assert.throws(() => _panicForTest('deliberate test panic'), (e) => ((err = e), true));
    assert.ok(err instanceof grail.GrailError);
    assert.equal(err.kind, 'panic');
    assert.match(err.message, /grail panicked at .*src\/full\.rs:\d+:\d+: deliberate test panic/);
    // A History read before the reset is refused, with a message saying why.
    assert.throws(() => before.check(), (e) => e instanceof grail.GrailError && /reset after a panic/.test(e.message));
    before.free();
    // The module works: same report as before the panic, many times over.
    for (let i = 0; i < 20; i++) {
        assert.throws(() => _panicForTest(`panic ${i}`), { kind: 'panic' });
        assert.deepEqual(grail.check(lostUpdate), baseline);
    }
    const after = grail.read(lostUpdate);
    assert.deepEqual(after.check(), baseline);
    after.free();
});
