// The example gallery, without a browser: every history in examples/ is in the manifest, the
// manifest covers the thesis's H1-H8 and the LDBC ACID cases, and grail (the JS package, and
// the CLI when it is built) gives exactly the expected verdicts for each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoDir, manifest, LEVELS } from './helpers.mjs';

const root = join(demoDir, '..');
const pkgNode = join(root, 'bindings', 'wasm', 'pkg', 'node.mjs');
const cli = join(root, 'target', 'release', 'grail');
const exampleDir = join(demoDir, 'examples');

test('every example file is in the manifest once, and every manifest entry is complete', () => {
    const files = readdirSync(exampleDir).filter((f) => f.endsWith('.edn')).sort();
    assert.deepEqual(manifest.examples.map((e) => e.file).sort(), files);
    const groups = new Set(manifest.groups.map((g) => g.id));
    for (const e of manifest.examples) {
        assert.ok(groups.has(e.group), `${e.id}: unknown group ${e.group}`);
        assert.ok(e.title && e.shows && e.shows.length < 200, `${e.id}: a title and a one-line description`);
        assert.deepEqual(Object.keys(e.expected.levels), LEVELS, `${e.id}: a verdict for each level`);
        for (const v of Object.values(e.expected.levels)) assert.ok(['holds', 'violated', 'unknown'].includes(v));
        // The history's first line says what it shows.
        assert.match(readFileSync(join(exampleDir, e.file), 'utf8'), /^; \S/, `${e.file}: a comment line first`);
    }
});

test('the gallery covers H1-H8 of the GRAIL thesis and the LDBC ACID anomalies', () => {
    const titles = manifest.examples.map((e) => `${e.group}: ${e.title}`);
    for (const h of ['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'H7', 'H8']) {
        assert.ok(titles.some((t) => t.startsWith(`thesis: ${h} `)), `thesis example ${h}`);
    }
    for (const a of ['G0', 'G1a', 'G1b', 'G1c', 'IMP', 'OTV', 'FR', 'LU', 'WS']) {
        assert.ok(titles.some((t) => t.startsWith(`ldbc: ${a} `)), `LDBC example ${a}`);
    }
    // The thesis's named anomalies, each with the cycle name grail gives it.
    const cycles = new Set(manifest.examples.map((e) => e.expected.cycle).filter(Boolean));
    for (const name of ['write skew', 'long fork', 'lost update', 'non-repeatable read', 'circular information flow', 'write cycle']) {
        assert.ok(cycles.has(name), `an example with a ${name} cycle`);
    }
});

/** The parts of a report the manifest fixes. */
function summary(report) {
    const names = new Set(report.anomalies.filter((a) => a.cycle).map((a) => a.cycle.name));
    return {
        levels: Object.fromEntries(LEVELS.map((l) => [l, report.levels[l].verdict])),
        anomalies: [...new Set(report.anomalies.map((a) => a.type))].sort(),
        names,
    };
}

test('the JS package gives each example its expected verdicts', { skip: !existsSync(pkgNode) && 'bindings/wasm/pkg is not built' }, async () => {
    const grail = await import(pkgNode);
    for (const e of manifest.examples) {
        const got = summary(grail.check(readFileSync(join(exampleDir, e.file))));
        assert.deepEqual(got.levels, e.expected.levels, `${e.id}: verdicts`);
        assert.deepEqual(got.anomalies, [...e.expected.anomalies].sort(), `${e.id}: anomalies`);
        if (e.expected.cycle) assert.ok(got.names.has(e.expected.cycle), `${e.id}: a ${e.expected.cycle} cycle, got ${[...got.names]}`);
    }
});

test('the CLI gives each example its expected verdicts', { skip: !existsSync(cli) && 'target/release/grail is not built' }, () => {
    for (const e of manifest.examples) {
        let out;
        try {
            out = execFileSync(cli, ['check', join(exampleDir, e.file), '--json'], { encoding: 'utf8' });
        } catch (err) {
            // Exit code 1: a level is violated; the report is on stdout all the same.
            assert.equal(err.status, 1, `${e.id}: grail check exited with ${err.status}: ${err.stderr}`);
            out = err.stdout;
        }
        const got = summary(JSON.parse(out));
        assert.deepEqual(got.levels, e.expected.levels, `${e.id}: verdicts`);
        assert.deepEqual(got.anomalies, [...e.expected.anomalies].sort(), `${e.id}: anomalies`);
        if (e.expected.cycle) assert.ok(got.names.has(e.expected.cycle), `${e.id}: a ${e.expected.cycle} cycle`);
    }
});
