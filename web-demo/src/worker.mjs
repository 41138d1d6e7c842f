// The Web Worker that runs grail, so that the page never freezes. Messages in:
//   {type: 'init', flag}                      flag: a SharedArrayBuffer (Int32 cancel mark) or null
//   {type: 'check', id, text, levels}         read and check a history; it stays loaded here
//   {type: 'transactions', id, check, ids}    {id: {id, status, process, line, ops}} of the loaded history
//   {type: 'subhistory', id, check, cycle, levels}  the smallest sub-history core finds that still
//                                             has the cycle under one of levels (input's notation)
//   {type: 'html', id, check, title}         the check's report as one HTML page (grail check --html)
//   {type: 'replay', id, text}                the history replayed as a stream (online checker):
//                                             progress events {stream: {line, of, cycles, findings}}
// Messages out: {type: 'ready', version} or {type: 'load-error', error}; {type: 'progress', id,
// event}; {type: 'result', id, ...}; {type: 'reply', id, value}; {type: 'error', id, error}.

import * as grail from './grail-api.mjs';

/** Histories with at most this many transactions send their involved transactions with the result. */
const EAGER_TRANSACTIONS = 20000;

let flag = null;
let loaded = null;
/** The history of the last check: {check, history, report, byId}. */
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
    const cur = { check: m.id, history, report: null, byId: null };
    current = cur;
    const t1 = performance.now();
    const report = grail.checkHistory(history, m.levels, progress);
    // Kept for 'html': the demo's module renders only the very report its last check returned.
    cur.report = report;
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

/** The smallest sub-history core's search finds that shows the cycle again (core checks each candidate). */
function subHistory(m) {
    return grail.reproducingSubHistory(loadedFor(m).history, m.cycle, m.levels);
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
        } else if (m.type === 'html') {
            const cur = loadedFor(m);
            post({ type: 'reply', id: m.id, value: grail.renderHtml(cur.history, cur.report, m.title) });
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
