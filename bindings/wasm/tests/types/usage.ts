// Type-checked by tests/types.test.mjs (tsc --noEmit): the package's types are precise enough
// that these uses compile and the marked misuses do not.
import {
    check,
    checkStrategy,
    verify,
    type Certificate,
    type Verification,
    STRATEGIES,
    read,
    init,
    gunzip,
    renderText,
    cycleDot,
    version,
    LEVELS,
    GrailError,
    History,
    OnlineChecker,
    TimestampOnlineChecker,
    type Analysis,
    type TimestampViolation,
    type WhiteBoxReport,
    type OnlineAnomaly,
    type Report,
    type Level,
    type Verdict,
    type ProgressEvent,
    type AnomalyType,
    type EdgeType,
    type Strategy,
    type StrategyReport,
    type StrategyVerdict,
    type Span,
} from 'grail-isolation';

export async function main(text: string, bytes: Uint8Array): Promise<void> {
    await init();
    const all: Report = check(text);
    const v: Verdict = all.levels.SER.verdict;
    const valid: boolean | null = all.levels['PL-1'].valid;
    const kinds: AnomalyType[] = all.anomalies.map((a) => a.type);
    const firstStep = all.levels.SER.cycles[0]?.steps[0];
    const edgeType: EdgeType | undefined = firstStep?.type;

    const some = check(bytes, { levels: ['SER', 'SI'], max_steps: 1000, timeout: 2.5 });
    const ser: Verdict = some.levels.SER.verdict;
    const page: string = some.toHTML('history.edn');
    const cert: Certificate = some.certificate;
    const witnessKind: 'serial' | 'snapshot' | 'versions' | 'commit-order' | undefined = cert.witnesses[0]?.kind;
    const checked: Verification = verify(text, cert);
    const failure: string | null | undefined = checked.witnesses[0]?.failure;
    // @ts-expect-error a certificate is not a number
    verify(text, 42);
    // @ts-expect-error PSI was not checked
    some.levels.PSI;

    // @ts-expect-error not a level
    check(text, { levels: ['SERIALIZABLE'] });
    // @ts-expect-error misspelt option
    check(text, { level: ['SER'] });
    // @ts-expect-error read takes no check options
    read(text, { max_steps: 5 });
    // @ts-expect-error History is made by read()
    new History();

    const h = read(await gunzip(bytes), {
        format: 'edn',
        progress: (e: ProgressEvent) => {
            if (e.phase === 'read' && e.done) {
                const n: number = e.transactions;
                void n;
            }
            if (e.phase === 'check' && !e.done) {
                const steps: number = e.steps;
                return steps < 1e9;
            }
            // @ts-expect-error only check events carry steps
            void e.steps;
        },
    });
    const graph = h.graph();
    const t: EdgeType | undefined = graph.edges[0]?.type;
    const from: number | undefined = graph.edges[0]?.from_op.txn;
    const txns = h.transactions();
    const status: 'committed' | 'aborted' | 'indeterminate' | undefined = txns[0]?.status;
    const where: number | undefined = txns[0]?.span?.start;
    const opLine: number | undefined = h.transactions([2, 3])[0]?.op_spans[0]?.line;
    const opSpan: Span | undefined = graph.edges[0]?.to_op.span;
    const kind: 'r' | 'w' | 'append' | undefined = graph.edges[0]?.to_op.kind;
    const sub: string = h.subHistory([2, 3], { comment: 'two' });
    void [where, opLine, opSpan, kind, sub];
    const report = h.check({ levels: ['PL-2'] });
    const pl2: boolean | null = report.levels['PL-2'].valid;
    h.free();

    try {
        check('{');
    } catch (e) {
        if (e instanceof GrailError) {
            const line: number | null = e.line;
            const kind: 'syntax' | 'shape' | 'mixed-model' | 'wal' | 'usage' | 'cancelled' | 'panic' = e.kind;
            void [line, kind];
        }
    }
    const levels: readonly Level[] = LEVELS;
    const text2: string = renderText(some) + renderText(all) + version();
    const cycle = all.levels.SER.cycles[0];
    if (cycle) cycleDot(cycle);

    const sr: StrategyReport = checkStrategy(text, { strategy: 'dfs', max_depth: 3 });
    const sv: StrategyVerdict | undefined = sr.levels[0]?.verdict;
    const edges: number | undefined = sr.levels[0]?.counters.edges_visited;
    const strat: Strategy = sr.strategy;
    const names: readonly Strategy[] = STRATEGIES;
    const hs = read(text).checkStrategy({ strategy: 'gabow', levels: ['SER'] });
    const hsl: 'SER' | undefined = hs.levels[0]?.level;
    // @ts-expect-error not a strategy
    checkStrategy(text, { strategy: 'bfs' });
    // @ts-expect-error checkStrategy takes no check options
    checkStrategy(text, { max_steps: 5 });
    void [sv, edges, strat, names, hsl];
    void [v, valid, kinds, edgeType, ser, t, from, status, pl2, levels, text2];
}

export function analysis(text: string): number {
    const r: Report = check(text, { analyze: { max_length: 4 } });
    const a: Analysis | undefined = r.analysis;
    const lost: number = a?.classes.find((c) => c.scheme === 'zellag' && c.class === 'lost update')?.count ?? 0;
    // @ts-expect-error analyze takes true or options, not a number
    check(text, { analyze: 3 });
    const oc = new OnlineChecker({ window: 1000 });
    const found: OnlineAnomaly[] = oc.add({ id: 1, ops: [['append', 'x', 1], ['r', 'x', [1]]] });
    for (const f of oc.feed([{ ops: [['r', 'x', null]] }])) {
        const closer: number = f.closed_by;
        void closer;
    }
    // @ts-expect-error an op is [f, key, value]
    oc.add({ ops: [['append', 'x']] });
    const streamed: OnlineAnomaly[] = [...oc.feedBytes(new Uint8Array([0x0a])), ...oc.feedBytes('\n'), ...oc.finishBytes()];
    void streamed;
    // @ts-expect-error bytes, or a string
    oc.feedBytes([1, 2]);
    oc.free();
    return lost + found.length + oc.summary().stats.cycles;
}

export function whiteBox(text: string): number {
    const r = check(text, { white_box: 'only', levels: ['SI'], format: 'timekiller', initial_value: 0 });
    const w: WhiteBoxReport | undefined = r.white_box;
    const mode: 'full' | 'mixed' | 'none' | undefined = w?.si;
    const claimed: boolean | undefined = r.levels.SI.cycles[0]?.steps[0]?.claimed;
    // @ts-expect-error white_box is auto, ignore or only
    check(text, { white_box: 'yes' });
    const oc = new TimestampOnlineChecker({ window: 10, level: 'SER' });
    const vs: TimestampViolation[] = oc.add({ id: 1, start_ts: 1, commit_ts: { p: 2, l: 0 }, ops: [['w', 'x', 1]] });
    oc.add({ tid: '2', sid: 1, sts: { p: '3' }, cts: { p: 4, l: 0 }, ops: [{ t: 'r', k: 1, v: null }] });
    // @ts-expect-error a timestamped transaction needs its commit timestamp
    oc.add({ id: 3, start_ts: 1, ops: [] });
    // @ts-expect-error level is SI or SER
    new TimestampOnlineChecker({ level: 'PSI' });
    void [mode, claimed];
    return vs.length + oc.finish().length + oc.stats().flips;
}
