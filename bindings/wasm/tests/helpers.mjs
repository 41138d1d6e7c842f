// Shared by the Node tests: where things are, the CLI as a reference, the conformance cases
// and the List1-List5 corpus.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../../..');
export const pkgDir = resolve(here, '../pkg');
export const casesDir = join(root, 'tests/cases');
export const corpusDir = process.env.GRAIL_CORPUS ? resolve(process.env.GRAIL_CORPUS) : resolve(root, '../shared/corpus/grail');
export const inCI = process.env.CI === 'true';

/** The CLI binary, or null when it is not built. */
export const cliPath = (() => {
    const p = process.env.GRAIL_CLI || join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'release/grail');
    return existsSync(p) ? p : null;
})();

/**
 * Skip a test whose data or tool is missing; in CI (CI=true) that is a failure instead.
 * Returns true when the caller should return.
 */
export function skipOrFail(t, what) {
    if (inCI) {
        throw new Error(`${what} (CI=true: missing data or tools fail the run)`);
    }
    t.skip(what);
    return true;
}

/** Run the CLI; returns parsed JSON of stdout (exit 0 or 1 are both normal). */
export function cli(args) {
    const r = spawnSync(cliPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0 && r.status !== 1) {
        throw new Error(`grail ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    }
    return r.stdout;
}

/** Every conformance case: {name, history, wal, expected}. */
export function conformanceCases() {
    const out = [];
    for (const folder of readdirSync(casesDir, { withFileTypes: true })) {
        if (!folder.isDirectory()) continue;
        const dir = join(casesDir, folder.name);
        for (const f of readdirSync(dir).sort()) {
            const m = f.match(/^(.*)\.(edn|json)$/);
            if (!m || f.endsWith('.expected.json')) continue;
            const expected = join(dir, `${m[1]}.expected.json`);
            if (!existsSync(expected)) continue;
            const wal = join(dir, `${m[1]}.log`);
            out.push({
                name: `${folder.name}/${f}`,
                history: join(dir, f),
                wal: existsSync(wal) ? wal : null,
                expected: JSON.parse(readFileSync(expected, 'utf8')),
            });
        }
    }
    return out;
}

/** The rows of the List1-List5 verdicts table (all of them; `path` is null when missing). */
export function corpusRows() {
    const csv = join(corpusDir, 'list/verdicts.csv');
    if (!existsSync(csv)) return null;
    const [header, ...lines] = readFileSync(csv, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const cols = header.split(',');
    return lines.map((line) => {
        const cells = line.split(',');
        const row = Object.fromEntries(cols.map((c, i) => [c, cells[i]]));
        const prefix = 'go-graph-checker/histories/';
        const path = row.edn_path.startsWith(prefix) ? join(corpusDir, 'list', row.edn_path.slice(prefix.length)) : null;
        return { row, path };
    });
}

/** Sorted unique anomaly types of a report. */
export function anomalyTypes(report) {
    return [...new Set(report.anomalies.map((a) => a.type))].sort();
}
