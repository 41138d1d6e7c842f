// The package's TypeScript types (pkg/index.d.ts and the pkg/types.generated.d.ts it re-exports)
// compile under strict settings, and misuses marked `@ts-expect-error` in tests/types/usage.ts
// are errors (which `any` types would not be). The generated declarations are what
// scripts/gen-types.mjs makes from core's Rust types today: drift fails here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipOrFail } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(here, '../node_modules/typescript/bin/tsc');
const committed = join(here, '../js/types.generated.d.ts');

test('TypeScript: strict type check of tests/types/usage.ts against pkg/index.d.ts', (t) => {
    if (!existsSync(tsc) && skipOrFail(t, 'typescript is not installed (npm ci in bindings/wasm)')) return;
    const r = spawnSync(process.execPath, [tsc, '-p', join(here, 'types/tsconfig.json')], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});

test('TypeScript: pkg/ has the committed generated declarations', () => {
    const built = join(here, '../pkg/types.generated.d.ts');
    assert.ok(existsSync(built), 'pkg/types.generated.d.ts is missing: build.sh copies it');
    assert.equal(readFileSync(built, 'utf8'), readFileSync(committed, 'utf8'), 'pkg/ is stale: rebuild the package');
});

test('TypeScript: js/types.generated.d.ts is what core\'s Rust types give today', async (t) => {
    if (!existsSync(join(here, '../node_modules/json-schema-to-typescript'))) {
        if (skipOrFail(t, 'json-schema-to-typescript is not installed (npm ci in bindings/wasm)')) return;
    }
    if (spawnSync('cargo', ['--version']).status !== 0 && skipOrFail(t, 'cargo is not on PATH')) return;
    const { cargoSchema, generate } = await import('../scripts/gen-types.mjs');
    const fresh = await generate(cargoSchema());
    const dir = mkdtempSync(join(tmpdir(), 'grail-types-'));
    try {
        const out = join(dir, 'types.generated.d.ts');
        writeFileSync(out, fresh);
        const diff = spawnSync('diff', ['-u', committed, out], { encoding: 'utf8' });
        assert.equal(
            fresh,
            readFileSync(committed, 'utf8'),
            `js/types.generated.d.ts differs from what core's types give: run npm run gen-types in bindings/wasm\n${diff.stdout ?? ''}`,
        );
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});
