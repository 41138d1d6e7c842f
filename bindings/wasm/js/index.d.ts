// Types of grail's JS package (both entries: node.mjs and web.mjs). Reports, graphs and stats
// have the schema of the CLI's JSON (`grail check --json`, `grail graph --json`,
// `grail stats --json`); field names are snake_case as there.
//
// The data types (Report, LevelReport, Cycle, Step, OpRef, Anomaly, Stats, Analysis, Graph,
// HistoryStats, Transaction, StrategyReport, the online checkers' results, the options core
// reads) are generated from core's Rust types into types.generated.d.ts (npm run gen-types;
// tests/types.test.mjs fails when it is stale) and re-exported here. This file declares the API:
// the functions and classes of grail.mjs, the options the wrapper adds, and the level-generic
// forms of the report types.

import type * as Data from './types.generated.js';
import type {
    AnalyzeOptions,
    Cycle,
    CycleAnomaly,
    Graph,
    HistoryStats,
    Level,
    LevelReport,
    Model,
    OnlineAnomaly,
    OnlineOptions,
    OnlineSummary,
    OnlineFinding,
    OnlineLevel,
    Strategy,
    TimestampOnlineOptions,
    TimestampOnlineStats,
    Timestamp,
    TimestampViolation,
    Transaction,
    Value,
} from './types.generated.js';

export * from './types.generated.js';

/** The five classic levels: serializability, snapshot isolation, parallel SI, Adya's PL-2 and PL-1. */
export type ClassicLevel = 'SER' | 'SI' | 'PSI' | 'PL-2' | 'PL-1';

/** The five classic levels, strongest first: checked when `levels` is not given. */
export declare const LEVELS: readonly ['SER', 'SI', 'PSI', 'PL-2', 'PL-1'];

/** Every level, strongest first. */
export declare const ALL_LEVELS: readonly Level[];

/** Adya's cycle anomalies. */
export type AdyaCycle = Extract<CycleAnomaly, 'G0' | 'G1c' | 'G-single' | 'G-nonadjacent' | 'G2-item'>;

/** The format of a history; `auto` decides from the first characters. */
export type Format = 'auto' | 'edn' | 'json' | 'plume' | 'dbcop' | 'dbcop-bin' | 'cobra' | 'timekiller';

/** History text: a string, or bytes (gzip-compressed bytes are unpacked in Node; see `gunzip`). */
export type Input = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/** The whole verdict (schema of `grail check --json`). `L` is the set of levels checked. */
export interface Report<L extends Level = Level> extends Omit<Data.Report, 'levels'> {
    /** One entry per checked level, strongest first. */
    levels: { [K in L]: LevelReport };
}

/**
 * A report as `check` returns it: the data (schema of `grail check --json`) and `toHTML`, a
 * method that is not enumerable (JSON and structured clones carry the data only).
 */
export interface CheckedReport<L extends Level = Level> extends Report<L> {
    /** The report as one self-contained HTML page, as `grail check --html` writes it: verdicts,
     * counterexamples drawn, sub-histories, statistics, a timeline with nemesis operations; no
     * script, no network, bounded in size. `title` names the history. */
    toHTML(title?: string): string;
    /** Witnesses of the levels that hold, which `verify` checks from the history alone (the file
     * `grail check --certificate` writes; docs/certificates.md). Built on first use; not enumerable. */
    readonly certificate: Certificate;
}

/** A certificate: witnesses (serial orders, or orders of starts and commits) of the levels that hold. */
export type Certificate = Data.Certificate;
/** What `verify` found: each witness verified (`failure: null`) or the first place it fails. */
export type Verification = Data.Verification;

/** A transaction in grail's native form, as the online checker takes it. */
export interface OnlineTxn {
    id?: number;
    label?: string | null;
    status?: 'committed' | 'ok' | 'aborted' | 'fail' | 'indeterminate' | 'info';
    ops: (['append', Value, Value] | ['r', Value, Value[] | null] | ['w', Value, Value] | ['r', Value, Value])[];
}

/** The online checker (Zellag & Kemme 2014, Sects. 5.2 and 6): list-append cycles as they close; register streams in rounds of the offline engine. */
export declare class OnlineChecker {
    constructor(options?: OnlineOptions);
    /** Take the next transaction; the cycles it closed. */
    add(txn: OnlineTxn): OnlineAnomaly[];
    /** Take transactions from an iterable, yielding each cycle as soon as it is found. */
    feed(txns: Iterable<OnlineTxn>): Generator<OnlineAnomaly, void, undefined>;
    /** Take the next bytes of a history being written (EDN or JSON lines, cut anywhere). */
    feedBytes(data: Uint8Array | string): OnlineAnomaly[];
    /** The end of a byte stream: its last line, when no line break ended it. */
    finishBytes(): OnlineAnomaly[];
    /** Check a stream of chunks as it is written, yielding each cycle when its line arrives. */
    watch(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<OnlineAnomaly, void, undefined>;
    /** Say the stream ended (finishBytes and watch say it themselves): a level may now hold; the cycles the offline engine found at the end (a register stream's last round, a list-append stream's RC, RA and CC). */
    end(): OnlineAnomaly[];
    /** A register stream: a round of the offline engine now, if anything arrived since the last (call it when the input pauses). */
    flush(): OnlineAnomaly[];
    /** A register stream's write-ahead log (ArangoDB's JSON lines): every round reads it as the version order. */
    setWal(data: Uint8Array | string): void;
    /** More of the write-ahead log, as the database writes it: each round reads the version order from the lines arrived so far. */
    pushWal(data: Uint8Array | string): void;
    /** The write-ahead log ended: its last line is taken even without a line break. */
    endWal(): void;
    /** Reads of aborted (G1a) and intermediate (G1b) appends, and reads that disagree with their own transaction (internal), found since the last call. */
    takeFindings(): OnlineFinding[];
    summary(): OnlineSummary;
    /** Each level's verdict so far, by name. */
    levels(): Record<string, OnlineLevel>;
    memoryEstimate(): number;
    free(): void;
    [Symbol.dispose](): void;
}

/** A committed transaction with its timestamps: grail's native form, or TimeKiller's. */
export type TimestampTxn =
    | {
          id?: number;
          session?: number | null;
          start_ts: Timestamp;
          commit_ts: Timestamp;
          ops: ['r' | 'w' | 'append', Value, Value | Value[] | null][];
      }
    | {
          tid?: number | string;
          sid?: number | string;
          sts: { p: number | string; l?: number | string };
          cts: { p: number | string; l?: number | string };
          ops: { t: string; k: number; v?: number | number[] | null }[];
      };

/** Online checking with timestamps, as TimeKiller's Aion: transactions in any order. */
export declare class TimestampOnlineChecker {
    constructor(options?: TimestampOnlineOptions);
    /** Take one committed transaction; the violations that became final. */
    add(txn: TimestampTxn): TimestampViolation[];
    /** Take transactions from an iterable, yielding each violation once final, the rest at the end. */
    feed(txns: Iterable<TimestampTxn>): Generator<TimestampViolation, void, undefined>;
    /** Make every pending verdict final; the violations left. */
    finish(): TimestampViolation[];
    /** Take the next bytes of a history being written (a record a line, cut anywhere). */
    feedBytes(data: Uint8Array | string): TimestampViolation[];
    /** The end of a byte stream: its last line, then every pending verdict final. */
    finishBytes(): TimestampViolation[];
    /** Check a stream of chunks as it is written, yielding each violation once final. */
    watch(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<TimestampViolation, void, undefined>;
    /** Committed transactions of a byte stream without timestamps: counted, not checked. */
    untimed(): number;
    stats(): TimestampOnlineStats;
    memoryEstimate(): number;
    free(): void;
    [Symbol.dispose](): void;
}

/** What a progress callback receives. `elapsed_ms` counts from the start of the call. */
export type ProgressEvent =
    | { phase: 'read'; done: false; elapsed_ms: number; bytes: number }
    | { phase: 'read'; done: true; elapsed_ms: number; transactions: number; model: Model }
    | { phase: 'infer'; done: false; elapsed_ms: number }
    | { phase: 'infer'; done: true; elapsed_ms: number; vertices: number; edges: number }
    | { phase: 'check'; done: false; elapsed_ms: number; /** Search steps so far (approximate). */ steps: number }
    | { phase: 'check'; done: true; elapsed_ms: number; steps: number; valid: boolean | null };

/**
 * Called at each phase boundary and, while searching, about every `progress_interval_ms`.
 * Return `false` to cancel: the call then throws a `GrailError` of kind `cancelled`. What it
 * throws is rethrown by the call (and stops it).
 */
export type ProgressCallback = (event: ProgressEvent) => boolean | void;

export interface CallOptions {
    progress?: ProgressCallback | null;
    /** Least time between two progress events while searching (default 100 ms). */
    progress_interval_ms?: number;
}

export interface ReadOptions extends CallOptions {
    format?: Format;
    /** Write-ahead log giving the version order of a register history. */
    wal?: Input | null;
    /** TimeKiller histories: the keys' initial value (TimeKiller's `--initial_value`). */
    initial_value?: number | null;
}

export interface CheckOptions<L extends Level = Level>
    extends CallOptions,
        Pick<Data.CheckOptions, 'max_steps' | 'max_cycles' | 'register_mode' | 'white_box'> {
    /** Levels to check; the five classic ones when absent or empty. */
    levels?: readonly L[];
    /** Time budget of the cycle search in seconds (like the CLI's `--timeout`). */
    timeout?: number | null;
    /** Also classify and count cycles (`report.analysis`): `true` for the defaults. */
    analyze?: boolean | AnalyzeOptions;
}

/** The strategies. */
export declare const STRATEGIES: readonly ['scc', 'dfs', 'shortest-path', 'gabow'];

export interface StrategyOptions<L extends Level = Level> {
    /** The checker; default `scc`. Also accepts `sp` (shortest-path) and `cycle` (dfs). */
    strategy?: Strategy;
    /** For `dfs`: the longest cycle searched, in transactions (at least 2; default 4). */
    max_depth?: number | null;
    /** Levels to decide; all five when absent or empty. */
    levels?: readonly L[] | null;
}

export interface StrategyLevel<L extends Level = Level> extends Omit<Data.StrategyLevel, 'level'> {
    level: L;
}

/** The report of a strategy (schema of `grail check --strategy S --json`). */
export interface StrategyReport<L extends Level = Level> extends Omit<Data.StrategyReport, 'levels'> {
    /** One entry per level, strongest first. */
    levels: StrategyLevel<L>[];
}

/** Kinds of GrailError. */
export type ErrorKind =
    | 'syntax'
    | 'shape'
    | 'mixed-model'
    | 'wal'
    | 'usage'
    | 'cancelled'
    | 'panic';

/**
 * An error from grail. `message` includes the place (`line 3, column 7: ...`); `line` and
 * `column` (1-based) and `txn` are also properties, `null` when unknown. After an error of kind
 * `panic` the module has been reset: it works, but History objects read before must be read again.
 */
export declare class GrailError extends Error {
    constructor(message: string, options?: { kind?: ErrorKind; line?: number | null; column?: number | null; txn?: number | null; cause?: unknown });
    readonly name: 'GrailError';
    kind: ErrorKind;
    line: number | null;
    column: number | null;
    txn: number | null;
}

/** A history read into the WebAssembly module's memory. Call `free()` when done with it. */
export declare class History {
    private constructor();
    readonly model: Model;
    readonly transactionCount: number;
    check<L extends Level = Level>(options?: CheckOptions<L>): CheckedReport<L>;
    /** A report of this history as one self-contained HTML page (`report.toHTML()` calls it). */
    renderHtml(report: Report, title?: string): string;
    /** The certificate of the levels `report` (a check of this history) found to hold. */
    certificate(report: Report): Certificate;
    /** Check a certificate (object, JSON text or bytes) against this history, as `grail verify --json`. */
    verify(certificate: Certificate | string | Uint8Array): Verification;
    /** Decide the levels with one of GRAIL's checkers, counting its work. */
    checkStrategy<L extends Level = Level>(options?: StrategyOptions<L>): StrategyReport<L>;
    graph(): Graph;
    stats(): HistoryStats;
    /** Every transaction, or those whose ids are in `ids` (in the history's order). */
    transactions(ids?: number[]): Transaction[];
    /**
     * The transactions with these ids in the input's notation (Jepsen EDN, one map a line, read
     * back by grail to the same transactions; Plume's text for a Plume history); `comment` comes
     * first as `;` lines in EDN. Throws for an unknown id.
     */
    subHistory(ids: number[], options?: { comment?: string }): string;
    /**
     * The smallest sub-history grail's search finds that shows `cycle` again under one of
     * `levels` (those it was reported for), each candidate checked by grail; `text` is in the
     * input's notation (Jepsen EDN, or Plume's text), `extension` its file extension.
     */
    reproducingSubHistory(cycle: Cycle, options: { levels: Level[]; maxChecks?: number }): ReproducingSubHistory;
    free(): void;
    [Symbol.dispose](): void;
}

/** A sub-history that shows a cycle again, and what checking it showed. */
export interface ReproducingSubHistory {
    text: string;
    extension: 'edn' | 'txt';
    /** Ids of its transactions, ascending. */
    transactions: number[];
    /** Checked alone, it violates one of the levels with a cycle of the same anomaly through the same transactions. */
    reproduces: boolean;
    /** It reproduces, and leaving out any one transaction beyond the cycle's loses the cycle. */
    minimal: boolean;
    checks: number;
}

/** Load the WebAssembly module (browsers: fetches it; Node: already loaded). */
export declare function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** Decompress gzip bytes. */
export declare function gunzip(bytes: Uint8Array | ArrayBuffer): Promise<Uint8Array>;

/** Read a history: Jepsen EDN, elle-cli JSON or grail's native JSON. */
export declare function read(input: Input, options?: ReadOptions): History;

/** Read and check a history in one call. */
export declare function check<L extends Level = Level>(input: Input, options?: ReadOptions & CheckOptions<L>): CheckedReport<L>;

/** Read a history and decide its levels with one of GRAIL's checkers. */
/** Read a history and check a certificate against it, as `grail verify --json`. */
export declare function verify(input: Input, certificate: Certificate | string | Uint8Array, options?: ReadOptions): Verification;

export declare function checkStrategy<L extends Level = Level>(input: Input, options?: Omit<ReadOptions, keyof CallOptions> & StrategyOptions<L>): StrategyReport<L>;

/** A report as terminal text (what `grail check` prints without `--json`). */
export declare function renderText<L extends Level>(report: Report<L>): string;

/** Graphviz DOT of a cycle. */
export declare function cycleDot(cycle: Cycle): string;

/** grail's version. */
/** Core's tables: the levels (name, and whether checked by default), each edge type's colour, and the default `max_cycles`. */
export declare function coreTables(): {
    levels: { name: string; classic: boolean }[];
    edge_colours: [string, string][];
    default_max_cycles: number;
};

export declare function version(): string;
