// The README's examples run: the opening Node example (its import pointed at pkg/node.mjs),
// and the error example's place and kind.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as grail from '../pkg/node.mjs';
import { pkgDir } from './helpers.mjs';

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../README.md'), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test('README: the opening example runs and prints what its comments say', () => {
    const code = blocks[0].replace("from 'grail-isolation'", `from '${pathToFileURL(join(pkgDir, 'node.mjs'))}'`);
    assert.notEqual(code, blocks[0], 'the example should import grail-isolation');
    const dir = mkdtempSync(join(tmpdir(), 'grail-readme-'));
    try {
        writeFileSync(join(dir, 'example.mjs'), code);
        const r = spawnSync(process.execPath, [join(dir, 'example.mjs')], { encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stdout.split('\n');
        assert.match(lines[0], /^violated \[ 'G-single',/);
        assert.equal(lines[1], 'holds');
        assert.match(r.stdout, /SER is violated by this G-single cycle \(lost update/);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test('README: the error example gives the kind and place it shows', () => {
    const block = blocks.find((b) => b.includes('e.kind;'));
    const input = block.match(/check\('(.*)'\)/)[1];
    const [line, column] = block.match(/e\.line, e\.column; \/\/ (\d+), (\d+)/).slice(1).map(Number);
    assert.throws(
        () => grail.check(input),
        (e) => e.kind === block.match(/e\.kind; \/\/ "(\w+)"/)[1] && e.line === line && e.column === column && e.message.startsWith(`line ${line}, column ${column}: `),
    );
});
