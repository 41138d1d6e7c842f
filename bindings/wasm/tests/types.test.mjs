// The package's TypeScript types (pkg/index.d.ts) compile under strict settings, and misuses
// marked `@ts-expect-error` in tests/types/usage.ts are errors (which `any` types would not be).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipOrFail } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(here, '../node_modules/typescript/bin/tsc');

test('TypeScript: strict type check of tests/types/usage.ts against pkg/index.d.ts', (t) => {
    if (!existsSync(tsc) && skipOrFail(t, 'typescript is not installed (npm ci in bindings/wasm)')) return;
    const r = spawnSync(process.execPath, [tsc, '-p', join(here, 'types/tsconfig.json')], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});
