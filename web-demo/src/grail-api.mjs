// The demo's one point of contact with grail's JS package (bindings/wasm/js/index.d.ts), copied
// to ./grail/ by build.mjs. Runs in the Web Worker. If the package's API changes, this is the
// file to adjust: everything else in the demo sees only the plain objects returned here.
// The WebAssembly module under it is the demo's own build (bindings/wasm/pkg-demo), which has
// only the calls made here: one more must be taken out of bindings/wasm/src/full.rs.

import { init, read, version, LEVELS, GrailError, OnlineChecker } from './grail/web.mjs';

export { LEVELS };

/** What the demo asks grail to count (see docs/analysis.md). */
export const ANALYZE = Object.freeze({ max_length: 6, max_cycles: 10000, max_steps: 2000000, examples: 0 });

/** Load the WebAssembly module; resolves to grail's version. */
export async function load() {
    await init(new URL('./grail/grail_wasm_bg.wasm', import.meta.url));
    return version();
}

/**
 * Read a history (a string) into the module. `onProgress(event)` receives grail's progress
 * events (`{phase, done, elapsed_ms, ...}`); returning `false` from it cancels the call.
 * Returns an opaque handle for the other functions here.
 */
export function readHistory(text, onProgress) {
    return read(text, { progress: onProgress, progress_interval_ms: 100 });
}

/** Model (`list-append`, `rw-register`, `empty`) and number of transactions of a handle. */
export function describe(history) {
    return { model: history.model, transactions: history.transactionCount };
}

/**
 * Check the levels (an array of `SER`, `SI`, `PSI`, `PL-2`, `PL-1`; empty means all five).
 * Returns the report, with the schema of `grail check --json`.
 */
export function checkHistory(history, levels, onProgress) {
    // The counts the demo shows (report.analysis): cycles of up to 6 transactions, bounded so
    // that a large history's count stays quick (it says when it stopped early).
    const options = { progress: onProgress, progress_interval_ms: 100, analyze: ANALYZE };
    if (levels && levels.length) options.levels = levels;
    return history.check(options);
}

/**
 * The transactions of the history (all, or those whose ids are in `ids`) as `{id, status,
 * process, line, ops, span, op_spans, op_keys}`: ops in the input's notation (long lists shortened),
 * where the transaction and each operation are in the text (grail's spans, or null), and each
 * operation's key. All of them cost about a second per 100,000 transactions.
 */
export function transactions(history, ids) {
    return history.transactions(ids).map((t) => ({
        id: t.id,
        status: t.status,
        process: t.process,
        line: t.line,
        ops: t.ops,
        span: t.span,
        op_spans: t.op_spans,
        op_keys: t.op_keys,
    }));
}

/**
 * The report of `history` as the self-contained HTML page `grail check --html` writes. The demo's
 * module renders only the report object its last `checkHistory` returned (not a copy of it).
 */
export function renderHtml(history, report, title) {
    return history.renderHtml(report, title);
}

/** Checks the sub-history search may spend. */
const SUB_MAX_CHECKS = 400;

/**
 * The smallest sub-history core's search finds that shows `cycle` again under one of `levels`,
 * in the input's notation: `{text, extension, transactions, reproduces, minimal, checks}`.
 */
export function reproducingSubHistory(history, cycle, levels) {
    return history.reproducingSubHistory(cycle, { levels, maxChecks: SUB_MAX_CHECKS });
}

/**
 * Replay a history as a stream through grail's online checker (`OnlineChecker.feedBytes`, as
 * `grail online -` reads a pipe): its lines in `steps` pieces, `onStep({line, of, cycles,
 * findings})` after each, a pause of `pauseMs` between them, so that each violation shows when
 * the line that closes it has arrived. Resolves to the summary (`levels`, `stats`, `notes`);
 * rejects as a cancelled check when `cancelled()` says so.
 */
export async function replay(text, { steps = 100, pauseMs = 20, onStep, cancelled }) {
    const oc = new OnlineChecker();
    try {
        const lines = text.split(/(?<=\n)/);
        const per = Math.max(1, Math.ceil(lines.length / steps));
        for (let i = 0; i < lines.length; i += per) {
            if (cancelled()) throw new GrailError('the replay was cancelled', { kind: 'cancelled' });
            const cycles = oc.feedBytes(lines.slice(i, i + per).join(''));
            onStep({ line: Math.min(i + per, lines.length), of: lines.length, cycles, findings: oc.takeFindings() });
            await new Promise((r) => setTimeout(r, pauseMs));
        }
        const cycles = oc.finishBytes();
        onStep({ line: lines.length, of: lines.length, cycles, findings: oc.takeFindings() });
        return oc.summary();
    } finally {
        oc.free();
    }
}

/** Release a handle. */
export function free(history) {
    history?.free();
}

/**
 * What the UI needs of an error thrown by the calls above: `{message, kind, line, column, txn}`;
 * `kind` is grail's (`syntax`, `shape`, `mixed-model`, `usage`, `cancelled`, `panic`, ...) or
 * `internal` for anything that is not a GrailError.
 */
export function describeError(e) {
    if (e instanceof GrailError || (e && e.name === 'GrailError')) {
        return { message: e.message, kind: e.kind, line: e.line ?? null, column: e.column ?? null, txn: e.txn ?? null };
    }
    return { message: e instanceof Error ? `${e.name}: ${e.message}` : String(e), kind: 'internal', line: null, column: null, txn: null };
}
