// grail's JS API over the wasm-bindgen module. Imported by node.mjs (Node) and web.mjs
// (browsers, bundlers, workers), which load the WebAssembly and re-export what is public here.
//
// Responsibilities of this layer: turn strings and gzip into bytes; check and split the options
// object; turn errors into GrailError; pass progress events to the user's callback (catching
// what it throws); and, after a panic or a trap, re-instantiate the module so it stays usable.

import * as raw from './grail_wasm.js';

/** The five classic levels, strongest first: checked when `levels` is not given. */
export const LEVELS = Object.freeze(['SER', 'SI', 'PSI', 'PL-2', 'PL-1']);

/** Every level, strongest first: the classic five, strong-session and strict variants, RC, RA, CC. */
export const ALL_LEVELS = Object.freeze([
    'strict-SER', 'strong-session-SER', 'SER', 'strong-SI', 'strong-session-SI', 'SI', 'PSI',
    'CC', 'RA', 'RC', 'PL-2', 'PL-1',
]);

const READ_KEYS = ['format', 'wal', 'initial_value'];
const CHECK_KEYS = ['levels', 'max_steps', 'max_cycles', 'timeout', 'analyze', 'register_mode', 'white_box'];
const TS_ONLINE_KEYS = ['window', 'level', 'session'];
const ONLINE_KEYS = ['window', 'max_length', 'max_steps'];
const CALL_KEYS = ['progress', 'progress_interval_ms'];
const STRATEGY_KEYS = ['strategy', 'max_depth', 'levels'];

/**
 * Core's tables (`levels` with `name` and `classic`, `edge_colours` as [type, colour] pairs,
 * `default_max_cycles`): what LEVELS and ALL_LEVELS above, and the demo's colours, are tested
 * against.
 */
export function coreTables() {
    return raw.coreTables();
}

/** The strategies: the default engine and GRAIL's three checkers. */
export const STRATEGIES = Object.freeze(['scc', 'dfs', 'shortest-path', 'gabow']);

/** Check strategy options; the arguments of the module's `checkStrategy`. */
function strategyArgs(o) {
    const strategy = o.strategy ?? 'scc';
    if (typeof strategy !== 'string') {
        throw usage('option `strategy` must be "scc", "dfs", "shortest-path" or "gabow"');
    }
    const d = o.max_depth;
    if (d !== undefined && d !== null && !(Number.isInteger(d) && d >= 0 && d <= 0xffffffff)) {
        throw usage('option `max_depth` must be an integer >= 2');
    }
    let levels;
    if (o.levels !== undefined && o.levels !== null) {
        if (!Array.isArray(o.levels) || o.levels.some((l) => typeof l !== 'string' || l.includes(','))) {
            throw usage('option `levels` must be an array of level names such as ["SER", "PL-2"]');
        }
        levels = o.levels.join(',');
    }
    return [strategy, d ?? undefined, levels];
}

const encoder = new TextEncoder();

const env = {
    /** The WebAssembly module is instantiated. */
    ready: false,
    /** Synchronous gunzip (Node's zlib), or null where there is none (browsers). */
    gunzipSync: null,
    /** Counts resets; a History read before a reset cannot be used after it. */
    epoch: 0,
};

/** Internal: called by node.mjs / web.mjs once the module is instantiated. */
export function _configure(settings) {
    Object.assign(env, settings);
}

/**
 * An error from grail: bad input (with line and column), bad options, a cancelled check, or a
 * panic (after which the module was reset and still works).
 */
export class GrailError extends Error {
    constructor(message, { kind = 'usage', line = null, column = null, txn = null, cause } = {}) {
        super(message, cause === undefined ? undefined : { cause });
        this.name = 'GrailError';
        this.kind = kind;
        this.line = line;
        this.column = column;
        this.txn = txn;
    }
}

function usage(message) {
    return new GrailError(message, { kind: 'usage' });
}

function ensureReady() {
    if (!env.ready) {
        throw usage('the grail WebAssembly module is not loaded yet: call `await init()` first');
    }
}

/** Re-instantiate the module after a panic or trap: its memory may be inconsistent. */
function reset() {
    env.epoch += 1;
    raw.__wbg_reset_state();
}

/** Run a call into the module, turning what it throws into a GrailError. */
function guard(fn) {
    ensureReady();
    try {
        return fn();
    } catch (e) {
        if (e instanceof Error && e.name === 'GrailError' && typeof e.kind === 'string') {
            // Thrown by the module on purpose; only a panic leaves it in a bad state.
            if (e.kind === 'panic') {
                reset();
            }
            return rethrow(new GrailError(e.message, { kind: e.kind, line: e.line, column: e.column, txn: e.txn, cause: e.kind === 'panic' ? e : undefined }));
        }
        // Anything else escaped mid-call (a trap: unreachable, out of memory, stack overflow).
        reset();
        const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        return rethrow(new GrailError(`grail's WebAssembly module trapped (${what}); it has been reset`, { kind: 'panic', cause: e }));
    }
}

function rethrow(e) {
    throw e;
}

function isGzip(b) {
    return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** Text or bytes (gzip is unpacked) as a Uint8Array. */
function toBytes(input, what) {
    let b;
    if (typeof input === 'string') {
        return encoder.encode(input);
    } else if (input instanceof Uint8Array) {
        b = input;
    } else if (input instanceof ArrayBuffer) {
        b = new Uint8Array(input);
    } else if (ArrayBuffer.isView(input)) {
        b = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    } else {
        throw usage(`${what} must be a string, a Uint8Array or an ArrayBuffer, not ${input === null ? 'null' : typeof input}`);
    }
    if (isGzip(b)) {
        if (!env.gunzipSync) {
            throw usage(`${what} is gzip-compressed: decompress it first, with \`await gunzip(bytes)\``);
        }
        try {
            b = env.gunzipSync(b);
        } catch (e) {
            throw new GrailError(`${what} is not a valid gzip file: ${e.message}`, { kind: 'usage', cause: e });
        }
    }
    return b;
}

/** Check an options object against the keys a function takes. */
function options(opts, allowed, fn) {
    if (opts === undefined || opts === null) {
        return {};
    }
    if (typeof opts !== 'object' || Array.isArray(opts)) {
        throw usage(`${fn}: options must be an object`);
    }
    for (const k of Object.keys(opts)) {
        if (!allowed.includes(k)) {
            throw usage(`${fn}: unknown option \`${k}\`: expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
        }
    }
    const o = opts;
    if (o.format !== undefined && typeof o.format !== 'string') throw usage('option `format` must be a string such as "auto", "edn", "json" or "timekiller"');
    if (o.timeout !== undefined && o.timeout !== null && !(typeof o.timeout === 'number' && o.timeout >= 0)) {
        throw usage('option `timeout` must be a number of seconds (>= 0)');
    }
    if (o.progress !== undefined && o.progress !== null && typeof o.progress !== 'function') {
        throw usage('option `progress` must be a function');
    }
    if (o.progress_interval_ms !== undefined && !(typeof o.progress_interval_ms === 'number' && o.progress_interval_ms >= 0)) {
        throw usage('option `progress_interval_ms` must be a number (>= 0)');
    }
    return o;
}

/**
 * The progress callback handed to the module: adds elapsed_ms since the user's call began,
 * keeps what the user's callback throws (to rethrow it after the module returns) and turns a
 * `false` return into cancellation.
 */
class Progress {
    constructor(callback) {
        this.callback = callback ?? null;
        this.t0 = Date.now();
        this.thrown = undefined;
        this.hasThrown = false;
        this.fn = this.callback
            ? (ev) => {
                  ev.elapsed_ms = Date.now() - this.t0;
                  try {
                      return this.callback(ev) !== false;
                  } catch (e) {
                      this.thrown = e;
                      this.hasThrown = true;
                      return false;
                  }
              }
            : undefined;
    }

    /** Call into the module; rethrow what the callback threw, if it did. */
    run(fn) {
        try {
            return guard(fn);
        } catch (e) {
            if (this.hasThrown) {
                throw this.thrown;
            }
            throw e;
        }
    }
}

function checkArgs(o) {
    if (o.levels !== undefined && o.levels !== null && !Array.isArray(o.levels)) {
        throw usage('option `levels` must be an array of level names, such as ALL_LEVELS or ["SER", "PL-2"]');
    }
    const check = {};
    for (const k of ['levels', 'max_steps', 'max_cycles', 'register_mode', 'white_box']) {
        if (o[k] !== undefined) check[k] = o[k];
    }
    // `analyze`: true for the defaults, or {max_length, max_cycles, max_steps, examples}.
    if (o.analyze === true) {
        check.analyze = {};
    } else if (o.analyze !== undefined && o.analyze !== null && o.analyze !== false) {
        if (typeof o.analyze !== 'object' || Array.isArray(o.analyze)) {
            throw usage('option `analyze` must be true or an object {max_length, max_cycles, max_steps, examples}');
        }
        // serde-wasm-bindgen reads only the fields it knows: unknown ones are caught here.
        const known = ['max_length', 'max_cycles', 'max_steps', 'examples'];
        const bad = Object.keys(o.analyze).find((k) => !known.includes(k));
        if (bad !== undefined) {
            throw usage(`option \`analyze\`: unknown field \`${bad}\`: expected one of ${known.map((k) => `\`${k}\``).join(', ')}`);
        }
        check.analyze = o.analyze;
    }
    return check;
}

/** Transaction ids (non-negative integers) as the module takes them. */
function idList(ids, fn) {
    if (!Array.isArray(ids) || !ids.every((i) => Number.isSafeInteger(i) && i >= 0)) {
        throw usage(`${fn}: ids must be an array of transaction ids (non-negative integers)`);
    }
    return Float64Array.from(ids);
}

const token = Symbol('grail.History');

/** A history read into the WebAssembly module's memory. */
export class History {
    #raw;
    #epoch;

    constructor(key, rawHistory) {
        if (key !== token) {
            throw new TypeError('History cannot be constructed directly: use read(text)');
        }
        this.#raw = rawHistory;
        this.#epoch = env.epoch;
    }

    #get() {
        if (this.#raw === null) {
            throw usage('this History was freed');
        }
        if (this.#epoch !== env.epoch) {
            throw usage('this History was read before the module was reset after a panic: read it again');
        }
        return this.#raw;
    }

    /** `list-append`, `rw-register` or `empty`. */
    get model() {
        const h = this.#get();
        return guard(() => h.model);
    }

    /** Number of transactions (committed, aborted and indeterminate). */
    get transactionCount() {
        const h = this.#get();
        return guard(() => h.transactionCount);
    }

    /** Check isolation levels; the report has the schema of `grail check --json`. */
    check(opts) {
        const o = options(opts, [...CHECK_KEYS, ...CALL_KEYS], 'History.check');
        return this._check(o, new Progress(o.progress));
    }

    _check(o, progress) {
        const h = this.#get();
        const report = progress.run(() => h.check(checkArgs(o), o.timeout ?? undefined, progress.fn, o.progress_interval_ms));
        return withHtml(report, (title) => this.renderHtml(report, title), () => this.certificate(report));
    }

    /**
     * The certificate of the levels `report` (a check of this history) found to hold: witnesses
     * `verify` checks from the history alone (`grail check --certificate`; docs/certificates.md).
     */
    certificate(report) {
        const h = this.#get();
        return guard(() => h.certificate(report));
    }

    /**
     * Check a certificate (the object `certificate` gives, its JSON text, or its bytes) against
     * this history, as `grail verify --json`: `{witnesses: [{kind, respects, levels, failure}],
     * not_certified}`; a witness verified has `failure: null`.
     */
    verify(certificate) {
        const text = certificateText(certificate);
        const h = this.#get();
        return guard(() => h.verify(text));
    }

    /** A report of this history as one self-contained HTML page (what `grail check --html` writes). */
    renderHtml(report, title) {
        if (title !== undefined && title !== null && typeof title !== 'string') throw usage('title must be a string');
        const h = this.#get();
        return guard(() => h.renderHtml(report, title ?? undefined));
    }

    /**
     * Decide levels with one of GRAIL's checkers (`strategy`: `scc`, `dfs`, `shortest-path`,
     * `gabow`; `max_depth` for `dfs`, default 4); the report has the schema of
     * `grail check --strategy S --json`.
     */
    checkStrategy(opts) {
        const o = options(opts, STRATEGY_KEYS, 'History.checkStrategy');
        const args = strategyArgs(o);
        const h = this.#get();
        return guard(() => h.checkStrategy(...args));
    }

    /** The dependency graph (schema of `grail graph --json`): vertices and edges with provenance. */
    graph() {
        const h = this.#get();
        return guard(() => h.graph());
    }

    /** Statistics and the anomalies found without a cycle search (schema of `grail stats --json`). */
    stats() {
        const h = this.#get();
        return guard(() => h.stats());
    }

    /**
     * Every transaction, or those whose ids are in `ids`, with its operations in the input's notation (Jepsen's, or Plume's)
     * and where it and each operation are in the input.
     */
    transactions(ids) {
        const list = ids === undefined || ids === null ? undefined : idList(ids, 'History.transactions');
        const h = this.#get();
        return guard(() => h.transactions(list));
    }

    /**
     * The transactions with these ids in the input's notation (Jepsen EDN, one map a line, which
     * grail reads back to the same transactions, whatever the input's format; or Plume's text for
     * a Plume history); `comment` becomes `;` lines first in EDN (Plume's text has no comments).
     */
    subHistory(ids, opts) {
        const o = options(opts, ['comment'], 'History.subHistory');
        if (o.comment !== undefined && o.comment !== null && typeof o.comment !== 'string') {
            throw usage('option `comment` must be a string');
        }
        const list = idList(ids, 'History.subHistory');
        const h = this.#get();
        return guard(() => h.subHistory(list, o.comment ?? undefined));
    }

    /**
     * The smallest sub-history grail's search finds that shows `cycle` (a cycle of a report of
     * this history) again, checked by grail: `{text, extension, transactions, reproduces,
     * minimal, checks, with_log}` (`with_log`: checked with the write-ahead log's order, which
     * the text does not carry), `text` in the input's notation. `levels` (required): the levels the
     * cycle was reported for, one of which the sub-history must violate with it; `maxChecks`: the
     * search's budget (default 64).
     */
    reproducingSubHistory(cycle, opts) {
        const o = options(opts, ['levels', 'maxChecks'], 'History.reproducingSubHistory');
        const levels = o.levels;
        if (!Array.isArray(levels) || !levels.length || levels.some((l) => typeof l !== 'string')) {
            throw usage('option `levels` must be a non-empty array of level names (those the cycle was reported for)');
        }
        const max = o.maxChecks ?? 64;
        if (!Number.isInteger(max) || max < 1 || max > 1e6) throw usage('option `maxChecks` must be a whole number from 1 to 1000000');
        const h = this.#get();
        return guard(() => h.reproducingSubHistory(cycle, levels.join(','), max));
    }

    /** Release the module memory the history holds. Idempotent. */
    free() {
        const h = this.#raw;
        this.#raw = null;
        if (h !== null && this.#epoch === env.epoch) {
            guard(() => h.free());
        }
    }

    [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
        this.free();
    }
}

function readWith(input, o, progress) {
    const text = toBytes(input, 'the history');
    const wal = o.wal === undefined || o.wal === null ? undefined : toBytes(o.wal, 'the write-ahead log');
    if (o.initial_value !== undefined && o.initial_value !== null && !Number.isInteger(o.initial_value)) {
        throw usage('option `initial_value` must be an integer');
    }
    const h = progress.run(() => raw.read(text, o.format, wal, progress.fn, o.progress_interval_ms, o.initial_value ?? undefined));
    return new History(token, h);
}

/** Read a history (Jepsen EDN, elle JSON or grail's native JSON; text, bytes or gzip bytes). */
export function read(input, opts) {
    const o = options(opts, [...READ_KEYS, ...CALL_KEYS], 'read');
    return readWith(input, o, new Progress(o.progress));
}

/**
 * A report with `toHTML(title)`, not enumerable: JSON, structured clones and deep comparisons
 * see the report's data only.
 */
function withHtml(report, render, certify) {
    if (report !== null && typeof report === 'object') {
        Object.defineProperty(report, 'toHTML', { value: render, enumerable: false, configurable: true, writable: true });
        let cert;
        // Built on first use: a certificate costs a topological order or two of the graph.
        Object.defineProperty(report, 'certificate', {
            get: () => (cert ??= certify()),
            enumerable: false,
            configurable: true,
        });
    }
    return report;
}

/** A certificate's JSON text, from the object, its text or its bytes. */
function certificateText(certificate) {
    if (typeof certificate === 'string') return certificate;
    if (certificate instanceof Uint8Array) return new TextDecoder().decode(certificate);
    if (certificate !== null && typeof certificate === 'object') return JSON.stringify(certificate);
    throw usage('a certificate is an object, its JSON text or its bytes');
}

/** Read and check a history in one call; the report has the schema of `grail check --json`. */
export function check(input, opts) {
    const o = options(opts, [...READ_KEYS, ...CHECK_KEYS, ...CALL_KEYS], 'check');
    const progress = new Progress(o.progress);
    const h = readWith(input, o, progress);
    let report;
    try {
        report = h._check(o, progress);
    } finally {
        h.free();
    }
    // The history is freed: toHTML and the certificate read it again (a moment, next to the check).
    const withAgain = (f) => {
        const again = readWith(input, o, new Progress(undefined));
        try {
            return f(again);
        } finally {
            again.free();
        }
    };
    return withHtml(
        report,
        (title) => withAgain((h) => h.renderHtml(report, title)),
        () => withAgain((h) => h.certificate(report)),
    );
}

/**
 * Read a history and check a certificate against it, as `grail verify --json` (options as for
 * `read`): each witness verified (`failure: null`) or the first place it fails.
 */
export function verify(input, certificate, opts) {
    const o = options(opts, [...READ_KEYS, ...CALL_KEYS], 'verify');
    const text = certificateText(certificate);
    const h = readWith(input, o, new Progress(o.progress));
    try {
        return h.verify(text);
    } finally {
        h.free();
    }
}

/** Read a history and decide its levels with one strategy (schema of `grail check --strategy S --json`). */
export function checkStrategy(input, opts) {
    const o = options(opts, [...READ_KEYS, ...STRATEGY_KEYS], 'checkStrategy');
    const args = strategyArgs(o);
    const h = readWith(input, o, new Progress(undefined));
    try {
        return h.checkStrategy({ strategy: args[0], max_depth: o.max_depth, levels: o.levels });
    } finally {
        h.free();
    }
}

/**
 * What both online checkers share: the module object they wrap, freed once, and refused after
 * the module was reset following a panic.
 */
class Streaming {
    #raw;
    #epoch;
    #name;

    constructor(name, make) {
        this.#name = name;
        this.#raw = guard(make);
        this.#epoch = env.epoch;
    }

    /** The module object, or a usage error when freed or made before a reset. */
    _live() {
        if (this.#raw === null) {
            throw usage(`this ${this.#name} was freed`);
        }
        if (this.#epoch !== env.epoch) {
            throw usage(`this ${this.#name} was made before the module was reset after a panic`);
        }
        return this.#raw;
    }

    /** Take one transaction; what it made final (see the class). */
    add(txn) {
        const c = this._live();
        return guard(() => c.push(txn));
    }

    /** An estimate of the memory the checker holds, in bytes. */
    memoryEstimate() {
        const c = this._live();
        return guard(() => c.memoryEstimate());
    }

    /** Release the module memory the checker holds. Idempotent. */
    free() {
        const c = this.#raw;
        this.#raw = null;
        if (c !== null && this.#epoch === env.epoch) {
            guard(() => c.free());
        }
    }

    [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
        this.free();
    }
}

/**
 * Check a list-append history online: `add` transactions in completion order (plain objects in
 * grail's native form: `{id, label, status, ops: [["append", k, v], ["r", k, [..]]]}`); each
 * call returns the cycles that transaction closed (`txns`, `types`, `keys`, `labels`, `zellag`,
 * `ldbc`, `adya` (each `none` for a cycle through session, real-time or commit order, or chosen
 * versions), `anomaly` (grail check's name of it), `closed_by`, `found`, `provisional`, `violates`). Memory stays bounded by `window` committed
 * transactions (Zellag & Kemme 2014, Sect. 6); `summary()` gives the counts and notes.
 */
export class OnlineChecker extends Streaming {
    constructor(opts) {
        const o = options(opts, ONLINE_KEYS, 'OnlineChecker');
        for (const k of ONLINE_KEYS) {
            if (o[k] !== undefined && !(Number.isInteger(o[k]) && o[k] >= 1)) {
                throw usage(`option \`${k}\` must be a positive integer`);
            }
        }
        super('OnlineChecker', () => new raw.OnlineChecker(o));
    }

    /** Take transactions from any iterable, yielding each cycle as soon as it is found. */
    *feed(txns) {
        for (const t of txns) {
            yield* this.add(t);
        }
    }

    /**
     * Take the next bytes (a `Uint8Array`, or a string) of a history as it is written: Jepsen
     * EDN, one operation a line, or JSON lines, cut anywhere; the cycles that the lines they
     * complete closed. A refused line throws a GrailError naming its line in the stream.
     */
    feedBytes(data) {
        const bytes = bytesOf(data, 'feedBytes');
        const c = this._live();
        return guard(() => c.feedBytes(bytes));
    }

    /** The end of a byte stream: its last line, when no line break ended it. */
    finishBytes() {
        const c = this._live();
        return guard(() => c.finishBytes());
    }

    /**
     * Check a stream as it is written (any async iterable of chunks: a Node Readable, a web
     * ReadableStream, a child process's stdout): each cycle is yielded as soon as its line has
     * arrived; the stream is read to its end.
     */
    watch(stream) {
        return watchStream(this, stream);
    }

    /**
     * Say the stream ended (`finishBytes` and `watch` say it themselves): a level may hold.
     * Returns the cycles the offline engine found at the end (a register stream's last round;
     * a list-append stream's RC, RA and CC).
     */
    end() {
        const c = this._live();
        return guard(() => c.end());
    }

    /**
     * A register stream's write-ahead log (ArangoDB's JSON lines, a Uint8Array or a string): every
     * round reads it as the kept transactions' version order, as `grail check --wal` does.
     */
    setWal(data) {
        const bytes = bytesOf(data, 'setWal');
        const c = this._live();
        return guard(() => c.setWal(bytes));
    }

    /**
     * More of a register stream's write-ahead log, as the database writes it: each round reads
     * the version order from the lines arrived so far (a line once its line break has arrived;
     * `endWal` takes a last line without one).
     */
    pushWal(data) {
        const bytes = bytesOf(data, 'pushWal');
        const c = this._live();
        return guard(() => c.pushWal(bytes));
    }

    /** The write-ahead log ended: its last line is taken even without a line break. */
    endWal() {
        const c = this._live();
        return guard(() => c.endWal());
    }

    /**
     * A register stream: a round of the offline engine now, if anything arrived since the last
     * (call it when the input pauses); the cycles it found. Nothing for list-append streams.
     */
    flush() {
        const c = this._live();
        return guard(() => c.flush());
    }

    /** Reads of aborted (G1a) and intermediate (G1b) appends, and reads that disagree with their own transaction (internal), found since the last call. */
    takeFindings() {
        const c = this._live();
        return guard(() => c.takeFindings());
    }

    /** Counters (`stats`), class counts, lengths, label patterns, `levels` and notes so far. */
    summary() {
        const c = this._live();
        return guard(() => c.summary());
    }

    /** Each level's verdict so far, by name (`holds` only after the end of a stream that fit the window). */
    levels() {
        return Object.fromEntries(this.summary().levels.map((l) => [l.level, l]));
    }
}

/** A `Uint8Array`, or a string as UTF-8; anything else is a usage error of `method`. */
function bytesOf(data, method) {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    if (!(bytes instanceof Uint8Array)) throw usage(`${method} takes a Uint8Array or a string`);
    return bytes;
}

/**
 * Read a stream of chunks to its end through a checker's feedBytes, then its finishBytes; after
 * a chunk shorter than a full one (the writer paused), its flush, where it has one.
 */
async function* watchStream(checker, stream) {
    for await (const chunk of stream) {
        yield* checker.feedBytes(chunk);
        if (typeof checker.flush === 'function' && chunk.length < FULL_CHUNK) yield* checker.flush();
    }
    yield* checker.finishBytes();
}

/** A Node stream's chunk when more was waiting (its default highWaterMark). */
const FULL_CHUNK = 65536;

/**
 * Check committed transactions that carry start and commit timestamps as they arrive, in any
 * order (as TimeKiller's Aion does), memory bounded by `window` transactions. `level` is "SI"
 * (snapshot reads, no overlapping writers) or "SER" (reads in commit order); `session` checks
 * that a session's transaction starts after its previous one committed. A read's verdict is
 * final, and reported, when its transaction leaves the window or at `finish()`; `add` returns
 * the violations that became final (`type`, `txns`, `key`, `read`, `expected`, `explanation`).
 */
export class TimestampOnlineChecker extends Streaming {
    constructor(opts) {
        const o = options(opts, TS_ONLINE_KEYS, 'TimestampOnlineChecker');
        if (o.window !== undefined && !(Number.isInteger(o.window) && o.window >= 1)) {
            throw usage('option `window` must be a positive integer');
        }
        if (o.level !== undefined && o.level !== 'SI' && o.level !== 'SER') {
            throw usage('option `level` must be "SI" or "SER"');
        }
        if (o.session !== undefined && typeof o.session !== 'boolean') {
            throw usage('option `session` must be a boolean');
        }
        super('TimestampOnlineChecker', () => new raw.TimestampOnlineChecker(o));
    }

    /** Take transactions from any iterable, yielding each violation once final, the rest at the end. */
    *feed(txns) {
        for (const t of txns) {
            yield* this.add(t);
        }
        yield* this.finish();
    }

    /** Make every pending verdict final; the violations left. */
    finish() {
        const c = this._live();
        return guard(() => c.finish());
    }

    /**
     * Take the next bytes (a `Uint8Array`, or a string) of a history as it is written (a record a
     * line: EDN or JSON with timestamps, or TimeKiller's transactions one a line); the
     * violations that became final. A committed transaction without timestamps is counted
     * (`untimed()`), not checked.
     */
    feedBytes(data) {
        const bytes = bytesOf(data, 'feedBytes');
        const c = this._live();
        return guard(() => c.feedBytes(bytes));
    }

    /** The end of a byte stream: its last line, then every pending verdict final. */
    finishBytes() {
        const c = this._live();
        return guard(() => c.finishBytes());
    }

    /** Check a stream of chunks as it is written, yielding each violation once final, the rest at its end. */
    watch(stream) {
        return watchStream(this, stream);
    }

    /** Committed transactions of a byte stream without timestamps: counted, not checked. */
    untimed() {
        const c = this._live();
        return guard(() => c.untimed());
    }

    /** Counters: transactions, reads_checked, rechecks, flips, violations, late, ... */
    stats() {
        const c = this._live();
        return guard(() => c.stats());
    }
}

/** The report as terminal text (what `grail check` prints without `--json`, every finding
 * written out where the CLI counts those past twenty of a kind). */
export function renderText(report) {
    return guard(() => raw.renderText(report));
}

/** Graphviz DOT of a cycle (`report.levels.SER.cycles[0]`, or an anomaly's `cycle`). */
export function cycleDot(cycle) {
    return guard(() => raw.cycleDot(cycle));
}

/** grail's version. */
export function version() {
    return guard(() => raw.version());
}

/** Internal, for tests: panic inside the module. */
export function _panicForTest(message) {
    return guard(() => raw.__testPanic(message));
}
