// The Web Worker that runs grail, so that the page never freezes. Messages in:
//   {type: 'init', flag}                      flag: a SharedArrayBuffer (Int32 cancel mark) or null
//   {type: 'check', id, text, levels}         read and check a history; it stays loaded here
//   {type: 'transactions', id, check, ids}    {id: {id, status, process, line, ops}} of the loaded history
//   {type: 'subhistory', id, check, cycle}    a small sub-history (EDN) that still has the cycle
//   {type: 'replay', id, text}                the history replayed as a stream (online checker):
//                                             progress events {stream: {line, of, cycles, findings}}
// Messages out: {type: 'ready', version} or {type: 'load-error', error}; {type: 'progress', id,
// event}; {type: 'result', id, ...}; {type: 'reply', id, value}; {type: 'error', id, error}.

import * as grail from './grail-api.mjs';

/** Histories with at most this many transactions send their involved transactions with the result. */
const EAGER_TRANSACTIONS = 20000;
/** Budget of the sub-history search. */
const SUB_MAX_CHECKS = 400;
const SUB_MAX_MS = 4000;

let flag = null;
let loaded = null;
/** The history of the last check: {check, history, byId}. */
let current = null;

function post(msg) {
    self.postMessage(msg);
}

function cancelled(id) {
    return flag !== null && Atomics.load(flag, 0) >= id;
}

function progressFor(id) {
    return (event) => {
        post({ type: 'progress', id, event: { ...event } });
        return !cancelled(id);
    };
}

function release() {
    if (current) {
        grail.free(current.history);
        current = null;
    }
}

/** Map id -> transaction of the loaded history (computed once). */
function byId(cur) {
    if (!cur.byId) {
        cur.byId = new Map(grail.transactions(cur.history).map((t) => [t.id, t]));
    }
    return cur.byId;
}

/** Transaction ids a report mentions: anomalies and every level's cycles. */
function involvedIds(report) {
    const ids = new Set();
    for (const a of report.anomalies) {
        for (const t of a.txns) ids.add(t);
        for (const o of a.ops) ids.add(o.txn);
        if (a.cycle) for (const t of a.cycle.txns) ids.add(t);
    }
    for (const l of Object.values(report.levels)) {
        for (const c of l.cycles) for (const t of c.txns) ids.add(t);
    }
    return [...ids];
}

/** {id: transaction} for `ids`, asking grail for those only unless all are known already. */
function pick(cur, ids) {
    const out = {};
    const found = cur.byId ? ids.map((id) => cur.byId.get(id)).filter(Boolean) : grail.transactions(cur.history, ids);
    for (const t of found) out[t.id] = t;
    return out;
}

function runCheck(m) {
    release();
    const t0 = performance.now();
    const timings = {};
    const progress = progressFor(m.id);
    const history = grail.readHistory(m.text, progress);
    timings.read = performance.now() - t0;
    const cur = { check: m.id, history, byId: null };
    current = cur;
    const t1 = performance.now();
    const report = grail.checkHistory(history, m.levels, progress);
    timings.check = performance.now() - t1;
    const info = grail.describe(history);
    let txns = null;
    if (info.transactions <= EAGER_TRANSACTIONS) {
        txns = pick(cur, involvedIds(report));
    }
    timings.total = performance.now() - t0;
    post({ type: 'result', id: m.id, report, info, txns, timings });
}

function loadedFor(m) {
    if (!current || current.check !== m.check) {
        throw new Error('that history is no longer loaded: check it again');
    }
    return current;
}

function signature(c) {
    return `${c.anomaly}:${[...c.txns].sort((a, b) => a - b).join(',')}`;
}

/**
 * The transactions of the cycle, plus as few others as the search can find that are needed
 * for grail to infer the same cycle again (readers that fix the version order, for instance).
 * Candidates are the transactions touching a key of the cycle; a ddmin search removes those
 * not needed. Every candidate sub-history is checked by grail itself.
 */
function subHistory(m) {
    const cur = loadedFor(m);
    const all = byId(cur);
    const cycle = m.cycle;
    const want = signature(cycle);
    const base = cycle.txns.map((id) => all.get(id));
    if (base.some((t) => !t)) throw new Error('the cycle names a transaction the history does not have');
    const inCycle = new Set(cycle.txns);
    const keys = new Set(cycle.steps.filter((s) => s.key !== null && s.key !== undefined).map((s) => JSON.stringify(s.key)));
    const candidates = [];
    for (const t of all.values()) {
        if (!inCycle.has(t.id) && t.op_keys.some((k) => keys.has(JSON.stringify(k)))) candidates.push(t);
    }
    const edn = (txns, note) => grail.subHistory(cur.history, txns.map((t) => t.id), note);
    const start = performance.now();
    let checks = 0;
    const comment = (kept, note) =>
        `A sub-history of ${cycle.txns.length + kept.length} transactions with the ${cycle.name ?? cycle.anomaly} (${cycle.anomaly}) cycle ` +
        `${cycle.txns.map((t) => `T${t}`).join(' -> ')}, ${note}.\nWritten by grail's web demo; check it with: grail check FILE`;
    const fails = (extra) => {
        checks++;
        const text = edn([...base, ...extra]);
        const r = grail.checkText(text, []);
        return r.anomalies.some((a) => a.cycle && signature(a.cycle) === want) || Object.values(r.levels).some((l) => l.cycles.some((c) => signature(c) === want));
    };
    if (!fails(candidates)) {
        return {
            edn: edn(base, comment([], 'which these transactions alone do not show again (grail inferred it from more of the history)')),
            transactions: cycle.txns,
            verified: false,
            minimal: false,
            checks,
        };
    }
    let kept = candidates;
    let exhausted = false;
    const budgetLeft = () => checks < SUB_MAX_CHECKS && performance.now() - start < SUB_MAX_MS;
    if (kept.length > 0 && fails([])) {
        kept = [];
    } else {
        let n = 2;
        while (kept.length >= 2) {
            if (!budgetLeft()) {
                exhausted = true;
                break;
            }
            const size = Math.ceil(kept.length / n);
            let reduced = false;
            for (let i = 0; i < kept.length && budgetLeft(); i += size) {
                const rest = kept.slice(0, i).concat(kept.slice(i + size));
                if (fails(rest)) {
                    kept = rest;
                    n = Math.max(n - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (!budgetLeft()) {
                    exhausted = true;
                    break;
                }
                if (n >= kept.length) break;
                n = Math.min(n * 2, kept.length);
            }
        }
    }
    const txns = [...base, ...kept];
    const note = exhausted
        ? 'reduced as far as the search budget allowed (some transactions may not be needed)'
        : 'minimal: removing any one of the other transactions loses the cycle';
    return {
        edn: edn(txns, comment(kept, note)),
        transactions: txns.map((t) => t.id).sort((a, b) => a - b),
        verified: true,
        minimal: !exhausted,
        checks,
    };
}

async function handle(m) {
    if (m.type === 'init') {
        flag = m.flag ? new Int32Array(m.flag) : null;
        loaded = grail.load();
        try {
            post({ type: 'ready', version: await loaded });
        } catch (e) {
            post({ type: 'load-error', error: grail.describeError(e) });
        }
        return;
    }
    try {
        await loaded;
        if (m.type === 'check') {
            runCheck(m);
        } else if (m.type === 'transactions') {
            post({ type: 'reply', id: m.id, value: pick(loadedFor(m), m.ids) });
        } else if (m.type === 'replay') {
            const onStep = (step) => post({ type: 'progress', id: m.id, event: { stream: step } });
            const summary = await grail.replay(m.text, { onStep, cancelled: () => cancelled(m.id) });
            post({ type: 'reply', id: m.id, value: summary });
        } else if (m.type === 'subhistory') {
            post({ type: 'reply', id: m.id, value: subHistory(m) });
        } else {
            throw new Error(`unknown message ${m.type}`);
        }
    } catch (e) {
        if (m.type === 'check') release();
        post({ type: 'error', id: m.id, error: grail.describeError(e) });
    }
}

// One message at a time, in order: a check is synchronous, but init is not.
let queue = Promise.resolve();
self.onmessage = (e) => {
    queue = queue.then(() => handle(e.data));
};
