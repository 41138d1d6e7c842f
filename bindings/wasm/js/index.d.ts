// Types of grail's JS package (both entries: node.mjs and web.mjs). Reports, graphs and stats
// have the schema of the CLI's JSON (`grail check --json`, `grail graph --json`,
// `grail stats --json`); field names are snake_case as there.

/** The five classic levels: serializability, snapshot isolation, parallel SI, Adya's PL-2 and PL-1. */
export type ClassicLevel = 'SER' | 'SI' | 'PSI' | 'PL-2' | 'PL-1';

/**
 * An isolation level, strongest first: the classic five, their strong-session and strict
 * (real-time) variants, and the weak levels of Biswas and Enea: causal (CC), read atomic (RA)
 * and read committed (RC). Options also accept aliases (`strict-serializable`, `PL-3`, ...).
 */
export type Level =
    | 'strict-SER'
    | 'strong-session-SER'
    | 'SER'
    | 'strong-SI'
    | 'strong-session-SI'
    | 'SI'
    | 'PSI'
    | 'CC'
    | 'RA'
    | 'RC'
    | 'PL-2'
    | 'PL-1';

/** The five classic levels, strongest first: checked when `levels` is not given. */
export declare const LEVELS: readonly ['SER', 'SI', 'PSI', 'PL-2', 'PL-1'];

/** Every level, strongest first. */
export declare const ALL_LEVELS: readonly Level[];

/** A level's verdict; `unknown` when the step or time budget ran out first. */
export type Verdict = 'holds' | 'violated' | 'unknown';

/** Adya's cycle anomalies. */
export type AdyaCycle = 'G0' | 'G1c' | 'G-single' | 'G-nonadjacent' | 'G2-item';

/**
 * Cycle anomalies: Adya's, Elle's variants that need session (`-process`) or real-time
 * (`-realtime`) order, and the weak levels' (Plume's names).
 */
export type CycleAnomaly =
    | AdyaCycle
    | `${AdyaCycle}-process`
    | `${AdyaCycle}-realtime`
    /** A cycle through an edge the database's claimed timestamps or commit order give. */
    | `${AdyaCycle}-claimed`
    | 'causality-cycle'
    | 'non-monotonic-read'
    | 'non-repeatable-read'
    | 'fractured-read'
    | 'causal-violation';

/** Every anomaly type a report lists: the cycles, and the findings on reads and writes. */
export type AnomalyType =
    | CycleAnomaly
    | 'G1a'
    | 'G1b'
    | 'internal'
    | 'garbage-read'
    | 'duplicate-write'
    | 'incompatible-order'
    | WhiteBoxFindingType;

/**
 * Violations of the orders a history claims (`docs/timestamps.md`): a read outside its
 * snapshot (Chronos's EXT), overlapping writers of a key (NOCONFLICT), a session out of order
 * (SESSION), a read out of commit order (SER), a claim contradicting a proven dependency.
 */
export type WhiteBoxFindingType =
    | 'snapshot-read'
    | 'write-conflict'
    | 'session-order'
    | 'commit-order-read'
    | 'claimed-order';

/** The plain-language name of an anomaly that is not a cycle (Plume's names for reads). */
export type FindingName =
    | 'aborted read'
    | 'intermediate read'
    | 'thin-air read'
    | 'future read'
    | 'not my own write'
    | 'not my last write'
    | 'non-repeatable read'
    | 'duplicate write'
    | 'incompatible order'
    | 'non-monotonic read'
    | 'fractured read'
    | 'causal violation'
    | 'read outside its snapshot'
    | 'concurrent writes (no first committer wins)'
    | 'session order not kept'
    | 'read out of commit order'
    | 'claimed order contradicts the history';

/** The plain-language name of a cycle. */
export type CycleName =
    | 'write cycle'
    | 'circular information flow'
    | 'non-repeatable read'
    | 'lost update'
    | 'write skew'
    | 'long fork'
    | 'stale read'
    | 'causality cycle'
    | 'non-monotonic read'
    | 'fractured read'
    | 'causal violation';

/**
 * Edge types: write-write, write-read, read-write (anti-dependency); session and real-time
 * order (strong-session and strict levels); commit order a weak level's axiom forces (`co`).
 */
export type EdgeType = 'ww' | 'wr' | 'rw' | 'so' | 'rt' | 'co';

/** The data model of a history. */
export type Model = 'list-append' | 'rw-register' | 'empty';

/** A key or value as the history has it. */
export type Value = number | string;

/** The format of a history; `auto` decides from the first characters. */
export type Format = 'auto' | 'edn' | 'json' | 'plume' | 'dbcop' | 'dbcop-bin' | 'cobra' | 'timekiller';

/** History text: a string, or bytes (gzip-compressed bytes are unpacked in Node; see `gunzip`). */
export type Input = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Where something is in the input: a range of UTF-8 bytes (`end` exclusive), and the 1-based
 * line and column (in characters, as errors count them) where it starts.
 */
export interface Span {
    start: number;
    end: number;
    line: number;
    column: number;
}

/** A micro-operation as reports show it. */
export interface OpRef {
    /** The transaction's id. */
    txn: number;
    /** Position of the operation in its transaction (0-based). */
    index: number;
    /** Jepsen notation, long lists shortened: `[:append 5 3]`, `[:r 5 [1 2 3]]`. */
    op: string;
    /** `r`, `w` or `append`; absent for an order edge's missing operation. */
    kind?: 'r' | 'w' | 'append';
    key?: Value;
    /** The value written or appended, or what a read returned (a list, or `null` for nil). */
    value?: Value | Value[] | null;
    /** Where the operation is in the input (EDN and JSON histories). */
    span?: Span;
}

/** One edge of a cycle, with the micro-operations that justify it. */
export interface Step extends GraphEdge {
    /** Why the edge holds, in one sentence. */
    why: string;
    /** Counterexamples that rest on a choice of order only (registers without a version order, list appends no read observed): `true` for a known edge, `false` for one a choice made. */
    certain?: boolean;
    /** `true` for an edge the database's claimed timestamps (`rt`) or commit order (`co`) give. */
    claimed?: boolean;
}

/** A cycle in the dependency graph. */
export interface Cycle {
    anomaly: CycleAnomaly;
    name: CycleName;
    /** Transaction ids along the cycle. */
    txns: number[];
    steps: Step[];
    /** No shorter cycle of this anomaly exists in its strongly connected component. */
    minimal: boolean;
    explanation: string;
}

/** An anomaly: a cycle, or a finding on reads and writes. */
export interface Anomaly {
    type: AnomalyType;
    /** The plain-language name: the cycle's, or the read's (aborted read, thin-air read, ...). */
    name: CycleName | FindingName;
    /** Levels this anomaly violates (empty: it breaks an assumption of the model instead). */
    levels: Level[];
    key?: Value;
    value?: Value;
    /** Transactions involved (for a read anomaly: the writer, if known, first). */
    txns: number[];
    ops: OpRef[];
    /** Present for cycle anomalies. */
    cycle?: Cycle;
    explanation: string;
}

/** The verdict for one level. */
export interface LevelReport {
    /** `true` holds, `false` violated, `null` unknown. */
    valid: boolean | null;
    verdict: Verdict;
    /** Anomalies found that this level proscribes. */
    anomalies: AnomalyType[];
    /** The shortest proscribed cycle per violating component. */
    cycles: Cycle[];
    /** Why the verdict is unknown. */
    reason?: string;
    /** The level this verdict follows from when it was not searched for: a stronger level
     * that holds, or a weaker one that is violated (whose counterexample `cycles` gives). */
    implied_by?: Level;
    /** Findings that break the model's assumptions which this level does not proscribe: its
     * verdict was computed with them set aside. */
    set_aside?: AnomalyType[];
}

/** Graph statistics (GRAIL thesis, Table 5.3). */
export interface Stats {
    transactions: number;
    committed: number;
    aborted: number;
    indeterminate: number;
    /** Committed transactions, plus indeterminate ones whose writes were observed. */
    vertices: number;
    /**
     * ww, wr and rw dependencies counted once per (from, to, type), however many keys induce
     * them: `ww + wr + rw`. `History.graph().edges` lists one edge per (from, to, type, key),
     * so it has at least this many; a report also counts rw pairs left out of the graph.
     */
    edges: number;
    /** Distinct (from, to) pairs with a ww edge. */
    ww: number;
    /** Distinct (from, to) pairs with a wr edge. */
    wr: number;
    /** Distinct (from, to) pairs with an rw edge. */
    rw: number;
    /** Edges per vertex. */
    density: number;
}

/** The whole verdict (schema of `grail check --json`). `L` is the set of levels checked. */
export interface Report<L extends Level = Level> {
    /** Every checked level holds and no finding breaks the model's assumptions; `null` when
     * a level is unknown and nothing is violated. */
    valid: boolean | null;
    model: Model;
    /** One entry per checked level, strongest first. */
    levels: { [K in L]: LevelReport };
    /** The weakest checked levels violated (Elle's `not`). */
    weakest_violated: Level[];
    /** Every level stronger than those, checked or not (Elle's `also-not`). */
    also_violated: Level[];
    /** The strongest checked levels that hold with nothing set aside. */
    strongest_satisfied: Level[];
    /** Kinds of findings that break the data model's assumptions (garbage-read,
     * duplicate-write, internal, incompatible-order): the history is invalid. */
    broken_assumptions?: AnomalyType[];
    /** Every anomaly found, cycles and findings alike. */
    anomalies: Anomaly[];
    stats: Stats;
    /** What could not be inferred, and other caveats. */
    notes: string[];
    /** Cycle classes and counts, read anomalies: present only when `analyze` was asked. */
    analysis?: Analysis;
    /** What the history's claimed start/commit timestamps and commit order say, when it has any. */
    white_box?: WhiteBoxReport;
}

/** A timestamp: an integer, or a hybrid logical clock `{p, l}`. */
export type Timestamp = number | { p: number; l: number };

/** A transaction's claims. */
export interface TxnClaim {
    id: number;
    start_ts?: Timestamp;
    commit_ts?: Timestamp;
    /** Its place (0-based) in the claimed `commit_order`. */
    commit_position?: number;
}

/** One violation of the claims, explained with the timestamps involved. */
export interface WhiteBoxFinding {
    type: WhiteBoxFindingType;
    name: FindingName;
    levels: Level[];
    txns: TxnClaim[];
    key?: Value;
    /** What was read, and what the claims say should have been. */
    read?: Value | Value[] | null;
    expected?: Value | Value[] | null;
    explanation: string;
}

/** The white-box section of a report. */
export interface WhiteBoxReport {
    /** `full`: Chronos's axioms; `mixed`: claimed edges in the dependency graph; `none`. */
    si: 'full' | 'mixed' | 'none';
    ser: 'full' | 'mixed' | 'none';
    /** Where the commit order comes from. */
    order: 'commit_order' | 'commit_ts';
    transactions: number;
    timestamped: number;
    ordered: number;
    findings: WhiteBoxFinding[];
    counts: { [type: string]: number };
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
}

/** A classification scheme: Zellag & Kemme 2014 (7.1), the LDBC ACID suite, Adya. */
export type Scheme = 'zellag' | 'ldbc' | 'adya';

/** How many cycles (or read anomalies) of one class. */
export interface ClassCount {
    scheme: Scheme;
    /** e.g. `lost update`, `t-read skew`, `other` (zellag); `G0`, `G1c`, `LU`, `WS`, `IMP`,
     * `PMP`, `OTV`, `FR` (ldbc); `G0` ... `G2-item` (adya). */
    class: string;
    count: number;
    source: string;
}

export interface LengthCount {
    length: number;
    count: number;
}

/** A pattern of transaction labels: ordered (around the cycle) or unordered (distinct, sorted);
 * unlabeled transactions show as `-`. */
export interface PatternCount {
    ordered: boolean;
    labels: string[];
    count: number;
}

/** Transactions (graph vertices) on no, one, and two or more counted cycles. */
export interface Participation {
    transactions: number;
    none: number;
    one: number;
    many: number;
}

/** A cycle with its classes; `types[i]` joins `txns[i]` to the next (the last to the first). */
export interface ClassifiedCycle {
    txns: number[];
    types: EdgeType[];
    keys: Value[][];
    labels: string[];
    zellag: string;
    ldbc: string;
    adya: string;
}

/** A read anomaly with its evidence. */
export interface ReadAnomaly {
    class: 'IMP' | 'OTV' | 'FR' | 'PMP';
    txn: number;
    /** `null`: the initial version. */
    writers: (number | null)[];
    /** `null` for PMP. */
    key: Value | null;
    /** PMP: the predicate read twice. */
    predicate?: string;
    ops: OpRef[];
    explanation: string;
}

/** The analysis section of a report (`docs/analysis.md`). */
export interface Analysis {
    /**
     * What the classes classify (cycles of the inferred graph's ww, wr and rw edges), and why a
     * level's counterexample through the same transactions can be named otherwise.
     */
    basis: string;
    max_length: number;
    /** Every cycle of at most `max_length` transactions was counted. */
    complete: boolean;
    reason?: string;
    cycles: number;
    classes: ClassCount[];
    lengths: LengthCount[];
    patterns: PatternCount[];
    participation: Participation;
    examples: ClassifiedCycle[];
    reads: ReadAnomaly[];
}

/** What to analyze (`check(..., {analyze: true})` takes the defaults). */
export interface AnalyzeOptions {
    /** Count cycles of at most this many transactions; default 8. */
    max_length?: number;
    /** Stop after this many cycles; default 100000. */
    max_cycles?: number;
    /** Bound on enumeration steps; default 1e8. */
    max_steps?: number | null;
    /** Cycles (and read anomalies per class) listed with evidence; default 20. */
    examples?: number;
}

/** Options of the online checker. */
export interface OnlineOptions {
    /** Committed transactions kept in memory; default 100000. */
    window?: number;
    /** Report cycles of at most this many transactions; default 8. */
    max_length?: number;
    /** Bound on search steps per transaction; default 1000000. */
    max_steps?: number;
}

/** A transaction in grail's native form, as the online checker takes it. */
export interface OnlineTxn {
    id?: number;
    label?: string | null;
    status?: 'committed' | 'ok' | 'aborted' | 'fail' | 'indeterminate' | 'info';
    ops: (['append', Value, Value] | ['r', Value, Value[] | null])[];
}

/** A cycle the online checker found, when the transaction that closed it arrived. */
export interface OnlineAnomaly extends ClassifiedCycle {
    closed_by: number;
    /** Some edge went to an append no read had ordered yet. */
    provisional: boolean;
}

export interface OnlineStats {
    transactions: number;
    committed: number;
    live: number;
    peak_live: number;
    cycles: number;
    evicted: number;
    evicted_unordered: number;
    edges_to_evicted: number;
    truncated_searches: number;
    incompatible_reads: number;
    keys: number;
    peak_keys: number;
}

export interface OnlineSummary {
    stats: OnlineStats;
    classes: ClassCount[];
    lengths: LengthCount[];
    patterns: PatternCount[];
    notes: string[];
}

/** The online checker (Zellag & Kemme 2014, Sects. 5.2 and 6). */
export declare class OnlineChecker {
    constructor(options?: OnlineOptions);
    /** Take the next transaction; the cycles it closed. */
    add(txn: OnlineTxn): OnlineAnomaly[];
    /** Take transactions from an iterable, yielding each cycle as soon as it is found. */
    feed(txns: Iterable<OnlineTxn>): Generator<OnlineAnomaly, void, undefined>;
    summary(): OnlineSummary;
    memoryEstimate(): number;
    free(): void;
    [Symbol.dispose](): void;
}

export interface TimestampOnlineOptions {
    /** Transactions kept in memory (default 100000). */
    window?: number;
    /** `SI` (snapshot reads, no conflicts; default) or `SER` (reads in commit order). */
    level?: 'SI' | 'SER';
    /** Check that a session's transaction starts after its previous one committed (default true). */
    session?: boolean;
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

/** A violation the timestamped online checker found, final. */
export interface TimestampViolation {
    type: 'snapshot-read' | 'commit-order-read' | 'write-conflict' | 'session-order';
    txns: number[];
    key?: Value;
    read?: Value | Value[] | null;
    expected?: Value | Value[] | null;
    explanation: string;
}

export interface TimestampOnlineStats {
    transactions: number;
    reads_checked: number;
    rechecks: number;
    flips: number;
    violations: number;
    late: number;
    unchecked_reads: number;
    live: number;
    peak_live: number;
    evicted: number;
}

/** Online checking with timestamps, as TimeKiller's Aion: transactions in any order. */
export declare class TimestampOnlineChecker {
    constructor(options?: TimestampOnlineOptions);
    /** Take one committed transaction; the violations that became final. */
    add(txn: TimestampTxn): TimestampViolation[];
    /** Take transactions from an iterable, yielding each violation once final, the rest at the end. */
    feed(txns: Iterable<TimestampTxn>): Generator<TimestampViolation, void, undefined>;
    /** Make every pending verdict final; the violations left. */
    finish(): TimestampViolation[];
    stats(): TimestampOnlineStats;
    memoryEstimate(): number;
    free(): void;
    [Symbol.dispose](): void;
}

/** An edge of the dependency graph with its provenance. */
export interface GraphEdge {
    from: number;
    to: number;
    type: EdgeType;
    /** `null` for session and real-time order. */
    key: Value | null;
    from_op: OpRef;
    to_op: OpRef;
}

/** The dependency graph (schema of `grail graph --json`). */
export interface Graph {
    /** Ids of the transactions that are vertices. */
    vertices: number[];
    /**
     * One edge per (from, to, type, key), sorted; the provenance kept is the first found. More
     * than `stats.edges` where two transactions depend on several keys: `stats` counts each
     * (from, to, type) once.
     */
    edges: GraphEdge[];
    stats: Stats;
    notes: string[];
}

/** Statistics and the anomalies found without a cycle search (schema of `grail stats --json`). */
export interface HistoryStats {
    model: Model;
    stats: Stats;
    anomalies: Anomaly[];
    notes: string[];
}

/** A transaction of the history. */
export interface Transaction {
    /** The id reports use: Jepsen's `:index`, the native `id`, or the position in the input. */
    id: number;
    status: 'committed' | 'aborted' | 'indeterminate';
    /** Whether it is a vertex of the dependency graph. */
    vertex: boolean;
    process: number | null;
    invoke_time: number | null;
    complete_time: number | null;
    label: string | null;
    /** 1-based line of the completion in the input. */
    line: number | null;
    /** Operations in Jepsen notation. */
    ops: string[];
    /** Where the transaction (its completion's map) is in the input (EDN and JSON histories). */
    span: Span | null;
    /** Where each operation is in the input. */
    op_spans: (Span | null)[];
    /** The key of each operation. */
    op_keys: Value[];
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

export interface CheckOptions<L extends Level = Level> extends CallOptions {
    /** Levels to check; the five classic ones when absent or empty. */
    levels?: readonly L[];
    /** Bound on search steps; undecided levels become `unknown` when it runs out. */
    max_steps?: number | null;
    /** At most this many cycles per anomaly (one per strongly connected component); default 8. */
    max_cycles?: number;
    /** Time budget of the cycle search in seconds (like the CLI's `--timeout`). */
    timeout?: number | null;
    /** Also classify and count cycles (`report.analysis`): `true` for the defaults. */
    analyze?: boolean | AnalyzeOptions;
    /**
     * How a register history's SER and SI (and strong-session forms) are decided: `auto` (on
     * PolySI's generalized polygraph when there is no version order), `polygraph` (always), or
     * `sure-edges` (only edges sure without a version order: fast, may miss cycles).
     */
    register_mode?: 'auto' | 'polygraph' | 'sure-edges';
    /**
     * How start/commit timestamps and a commit order the history claims are used: `auto`
     * (where present), `ignore` (black box only), `only` (the claims alone, no dependency graph).
     */
    white_box?: 'auto' | 'ignore' | 'only';
}

/** A strategy: the default engine or one of GRAIL's checkers. */
export type Strategy = 'scc' | 'dfs' | 'shortest-path' | 'gabow';

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

/**
 * A strategy's answer for a level. `not-detected`: a depth-bounded `dfs` found no cycle of at
 * most `max_depth` transactions; longer ones were not searched.
 */
export type StrategyVerdict = 'violated' | 'holds' | 'not-detected' | 'unknown';

export interface StrategyLevel<L extends Level = Level> {
    level: L;
    verdict: StrategyVerdict;
    /** The cycle found (violated levels): `txns[i] -types[i]-> txns[i+1]`, closing to `txns[0]`. */
    cycle?: { txns: number[]; types: EdgeType[] };
    /** Work done: traversals started and edges visited (zeros for `scc`). */
    counters: { traversals: number; edges_visited: number };
}

/** The report of a strategy (schema of `grail check --strategy S --json`). */
export interface StrategyReport<L extends Level = Level> {
    strategy: Strategy;
    /** For `dfs` only. */
    max_depth?: number;
    /** One entry per level, strongest first. */
    levels: StrategyLevel<L>[];
    notes: string[];
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
    /** Decide the levels with one of GRAIL's checkers, counting its work. */
    checkStrategy<L extends Level = Level>(options?: StrategyOptions<L>): StrategyReport<L>;
    graph(): Graph;
    stats(): HistoryStats;
    /** Every transaction, or those whose ids are in `ids` (in the history's order). */
    transactions(ids?: number[]): Transaction[];
    /**
     * The transactions with these ids as Jepsen EDN, one map a line, read back by grail to the
     * same transactions; `comment` comes first as `;` lines. Throws for an unknown id.
     */
    subHistory(ids: number[], options?: { comment?: string }): string;
    free(): void;
    [Symbol.dispose](): void;
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
