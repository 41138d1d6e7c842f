// The page: input (editor, files, gallery, shared links), checking through the worker, and the
// results (levels, counterexamples with their graphs, anomalies, statistics, exports).
// History text and everything derived from it is put in the page with textContent only.

import { Checker } from './checker.mjs';
import { Editor, VIEW_LIMIT } from './editor.mjs';
import { drawCycle, markSelected, exportSvg, keyText, stepValue } from './graph.mjs';
import { encodeShare, decodeShare, fileText, MAX_FRAGMENT } from './share.mjs';
import { offsetOf, spanRange } from './text.mjs';

/** Every level, strongest first (the package's ALL_LEVELS), and the five checked by default. */
const LEVELS = [
    'strict-SER', 'strong-session-SER', 'SER', 'strong-SI', 'strong-session-SI', 'SI', 'PSI', 'CC', 'RA', 'RC', 'PL-2', 'PL-1',
];
const DEFAULT_LEVELS = ['SER', 'SI', 'PSI', 'PL-2', 'PL-1'];
/** Texts up to this size are checked as you type. */
const AUTO_LIMIT = 200_000;
/**
 * The progress box appears when a check takes longer than this: 150 ms, or `?progress-delay=MS`
 * (the browser tests show it at once: a fast machine checks their largest history within 150 ms).
 */
const PROGRESS_DELAY_MS = (() => {
    const given = new URLSearchParams(location.search).get('progress-delay');
    const ms = given === null ? NaN : Number(given);
    return Number.isFinite(ms) && ms >= 0 ? ms : 150;
})();
const DEFAULT_EXAMPLE = 'h5-lost-update';
const MAX_LISTED = 200;

const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes, never markup). */
function h(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
        if (c === null || c === undefined || c === false) continue;
        e.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return e;
}

const nf = new Intl.NumberFormat('en');
/** `n` and the noun, singular for 1: "1 transaction", "2 vertices". */
const counted = (n, one, many = `${one}s`) => `${nf.format(n)} ${n === 1 ? one : many}`;

function ms(x) {
    return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.max(0, Math.round(x))} ms`;
}

function bytes(n) {
    return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} bytes`;
}

const state = {
    run: null, // {id, t0, text, levels, event, timer, shown}
    result: null, // {id, report, info, timings}
    checkedText: null,
    txns: new Map(), // id -> {id, status, process, line, ops}
    cycles: [],
    cycle: null,
    svg: null,
    selection: null,
    examples: [],
    example: null,
    version: null,
    autoTimer: 0,
};

const results = $('results');
const editor = new Editor($('editor'), { onInput: onEdit });
const checker = new Checker(new URL('./worker.mjs', import.meta.url), (s, extra) => {
    const engine = $('engine');
    document.body.dataset.engine = s;
    if (s === 'loading') engine.textContent = 'Loading grail…';
    else if (s === 'ready') {
        state.version = extra.version;
        $('version').textContent = extra.version;
        engine.textContent = `grail ${extra.version} is ready; checks run in a Web Worker.`;
    } else engine.textContent = `grail could not be loaded: ${extra.error.message}`;
});

// ---- stream replay ------------------------------------------------------------------------

/** One line of the replay for a cycle or a read finding, with the line the stream had reached when it closed. */
function streamEvent(line, text) {
    return h('li', {}, h('span', { class: 'stream-line' }, `by line ${line}`), ' ', text);
}

function cycleText(c) {
    // A step whose order the polygraph chose (a register stream's round) is no dependency shown.
    const steps = c.txns.map((t, i) => `T${t} -${c.types[i]}${c.chosen?.includes(i) ? ' (chosen)' : ''}->`).join(' ');
    // A cycle through session, real-time or commit order has no class (`none`): its anomaly names it.
    const [what, name] = c.zellag === 'none' ? ['a cycle', c.anomaly] : [c.zellag === 'other' ? 'a cycle of class other' : `a ${c.zellag}`, c.adya];
    // Found by a later check of the offline engine, not as closed_by arrived: it may have closed before.
    const by = c.closed_by;
    const when = { round: `Found by a round at T${by}'s arrival:`, pause: `Found at a pause in the input (after T${by}):`, end: `Found at the end of the stream (after T${by}):` }[c.found] ?? `T${by} closed`;
    return `${when} ${what} (${name}${c.provisional ? ', provisional' : ''}): ${steps} T${c.txns[0]}`;
}

/** What the replay's table says beside a level's verdict, as grail online's summary does. */
function levelNote(l) {
    if (l.anomalies.length) return l.anomalies.join(', ');
    const aside = l.set_aside?.length ? `with ${l.set_aside.join(', ')} set aside` : '';
    const as = l.implied_by ? `as ${l.implied_by} is` : '';
    return [as, aside].filter(Boolean).join(', ') || (l.reason ?? '');
}

function findingText(f) {
    const reader = f.reader === null || f.reader === undefined ? 'a committed transaction' : `T${f.reader}`;
    if (f.anomaly === 'internal') return `${reader} read a key against its own earlier operations (internal)`;
    // A value nobody wrote (a register stream's rounds) has no writer.
    if (f.anomaly !== 'G1a' && f.anomaly !== 'G1b') return `${reader} read a value nobody wrote (${f.anomaly})`;
    return `${reader} read ${f.anomaly === 'G1a' ? 'an aborted' : 'an intermediate'} append (${f.anomaly}) of T${f.writer}`;
}

/** Replay the editor's history through the online checker, showing each violation as it closes. */
function replayStream() {
    const text = editor.text;
    const box = $('stream');
    const list = $('stream-events');
    if (state.replay) checker.cancel(state.replay);
    list.replaceChildren();
    $('stream-levels').hidden = true;
    box.hidden = false;
    box.dataset.state = 'running';
    $('stream-status').textContent = 'Replaying…';
    let seen = 0;
    const run = checker.replay(text, (ev) => {
        const s = ev.stream;
        if (!s || state.replay !== run.id) return;
        for (const c of s.cycles) list.append(streamEvent(s.line, cycleText(c)));
        for (const f of s.findings) list.append(streamEvent(s.line, findingText(f)));
        seen += s.cycles.length + s.findings.length;
        $('stream-status').textContent = `Line ${s.line} of ${s.of}: ${seen} violation${seen === 1 ? '' : 's'} so far.`;
    });
    state.replay = run.id;
    state.replayText = text;
    run.promise.then(
        (summary) => {
            if (state.replay !== run.id) return;
            state.replay = null;
            const body = $('stream-levels').querySelector('tbody');
            body.replaceChildren(
                ...summary.levels.map((l) =>
                    h('tr', { class: `verdict-${l.verdict}` }, h('th', { scope: 'row' }, l.level), h('td', {}, l.verdict),
                        h('td', {}, levelNote(l))),
                ),
            );
            $('stream-levels').hidden = false;
            const n = summary.stats.transactions;
            $('stream-status').textContent = `Replayed ${n} transaction${n === 1 ? '' : 's'}: ${seen} violation${seen === 1 ? '' : 's'} reported as they closed.`;
            box.dataset.state = 'done';
        },
        (e) => {
            if (state.replay !== run.id) return;
            state.replay = null;
            $('stream-status').textContent = `The replay stopped: ${e.message}`;
            box.dataset.state = 'error';
        },
    );
}

// ---- input --------------------------------------------------------------------------------

function chosenLevels() {
    return [...document.querySelectorAll('input[name=level]:checked')].map((i) => i.value);
}

function setLevels(levels) {
    const want = levels && levels.length ? new Set(levels) : new Set(DEFAULT_LEVELS);
    for (const i of document.querySelectorAll('input[name=level]')) i.checked = want.has(i.value);
}

/** Put `text` in the editor; `example` is the gallery example it is, if any. */
function setText(text, source, example = null) {
    editor.text = text;
    state.title = null;
    $('share-box').hidden = true;
    state.example = example;
    if (example) document.body.dataset.example = example;
    else delete document.body.dataset.example;
    for (const b of document.querySelectorAll('.example')) b.setAttribute('aria-pressed', String(b.dataset.example === example));
    const lines = editor.lines.length;
    $('source-info').textContent = `${source}: ${nf.format(lines)} lines, ${bytes(text.length)}.`;
    const view = editor.mode === 'view';
    $('view-note').hidden = !view;
    if (view) {
        $('view-note-text').textContent = `This history is large (${bytes(text.length)}, ${nf.format(lines)} lines): it is shown read-only, so that the page stays fast. Edit it in a text editor and open it again, or clear the editor to type.`;
    }
    setError(null);
}

function onEdit() {
    if (editor.text.length > VIEW_LIMIT) {
        setText(editor.text, 'Text');
        check();
        return;
    }
    $('source-info').textContent = '';
    $('share-box').hidden = true;
    if (state.example) {
        state.example = null;
        delete document.body.dataset.example;
        for (const b of document.querySelectorAll('.example')) b.setAttribute('aria-pressed', 'false');
    }
    clearTimeout(state.autoTimer);
    if ($('auto').checked && editor.text.length <= AUTO_LIMIT) {
        state.autoTimer = setTimeout(check, 300);
    } else if (state.result) {
        $('status').textContent = 'The history changed since the last check: press Check (or Ctrl+Enter).';
    }
}

async function loadExample(id) {
    const ex = state.examples.find((e) => e.id === id);
    if (!ex) return;
    const res = await fetch(`examples/${ex.file}`);
    if (!res.ok) {
        $('status').textContent = `Could not load the example ${ex.file} (HTTP ${res.status}).`;
        return;
    }
    setText(await res.text(), `Example “${ex.title}”`, id);
    state.title = ex.file;
    check();
}

async function loadGallery() {
    const box = $('gallery-groups');
    try {
        const res = await fetch('examples/manifest.json');
        const manifest = await res.json();
        state.examples = manifest.examples;
        box.replaceChildren(
            ...manifest.groups.map((g) =>
                h(
                    'div',
                    { class: 'gallery-group' },
                    h('h3', {}, g.title),
                    h(
                        'ul',
                        { class: 'examples' },
                        manifest.examples
                            .filter((e) => e.group === g.id)
                            .map((e) =>
                                h(
                                    'li',
                                    {},
                                    h(
                                        'button',
                                        { type: 'button', class: 'example', 'data-example': e.id, 'aria-pressed': 'false', onclick: () => loadExample(e.id) },
                                        h('strong', {}, e.title),
                                        h('span', {}, e.shows),
                                    ),
                                ),
                            ),
                    ),
                ),
            ),
        );
    } catch (e) {
        box.replaceChildren(h('p', {}, `The examples could not be loaded: ${e.message}`));
    }
}

async function openFile(file) {
    if (!file) return;
    try {
        const { text, gzip } = await fileText(new Uint8Array(await file.arrayBuffer()));
        setText(text, `${file.name}${gzip ? ' (gzip, unpacked)' : ''}`);
        state.title = file.name;
        check();
    } catch (e) {
        $('status').textContent = `Could not open ${file.name}: ${e.message}`;
    }
}

async function loadFromHash() {
    if (!/(^#|&)h=/.test(location.hash)) return false;
    try {
        const shared = await decodeShare(location.hash);
        if (!shared) return false;
        setLevels(shared.levels);
        setText(shared.text, 'Shared link');
        check();
        return true;
    } catch (e) {
        $('status').textContent = `This link's history could not be unpacked: ${e.message}`;
        return false;
    }
}

async function share() {
    const status = $('share-status');
    $('share-box').hidden = false;
    const all = chosenLevels();
    const isDefault = all.length === DEFAULT_LEVELS.length && DEFAULT_LEVELS.every((l) => all.includes(l));
    const fragment = await encodeShare(editor.text, isDefault ? [] : all);
    if (fragment.length > MAX_FRAGMENT) {
        $('share-url').value = '';
        status.textContent = `This history is too large for a link (${bytes(fragment.length)} compressed); share the file instead.`;
        return;
    }
    const url = `${location.href.split('#')[0]}#${fragment}`;
    history.replaceState(null, '', url);
    const input = $('share-url');
    input.value = url;
    input.focus();
    input.select();
    try {
        await navigator.clipboard.writeText(url);
        status.textContent = `Link copied to the clipboard (${bytes(url.length)}).`;
    } catch {
        status.textContent = `Copy the link from the box above (${bytes(url.length)}).`;
    }
}

// ---- checking -----------------------------------------------------------------------------

function phaseText(ev) {
    if (!ev) return 'Starting…';
    switch (ev.phase) {
        case 'read':
            return ev.done ? `Read ${counted(ev.transactions, 'transaction')} (${ev.model}).` : `Reading ${bytes(ev.bytes)}…`;
        case 'infer':
            return ev.done ? `Dependency graph: ${counted(ev.vertices, 'vertex', 'vertices')}, ${counted(ev.edges, 'edge')}.` : 'Building the dependency graph…';
        case 'check':
            return ev.done ? 'Search done.' : `Searching for cycles… ${nf.format(ev.steps)} steps`;
        default:
            return `${ev.phase}…`;
    }
}

function renderProgress() {
    const run = state.run;
    if (!run) return;
    const elapsed = (performance.now() - run.t0) / 1000;
    $('progress-text').textContent = `${run.log.join(' ')} ${run.event && run.event.done ? '' : phaseText(run.event)} (${elapsed.toFixed(1)} s)`.replace(/\s+/g, ' ').trim();
}

function setRunning(on) {
    results.dataset.state = on ? 'running' : results.dataset.state;
    results.setAttribute('aria-busy', String(on));
    $('check').disabled = false;
    $('cancel').disabled = !on;
    if (!on) $('progress').hidden = true;
    $('report').classList.toggle('stale', on);
}

function check() {
    clearTimeout(state.autoTimer);
    const text = editor.text;
    // A replay of another text would mislead: it goes.
    if (state.replayText !== undefined && state.replayText !== text) {
        if (state.replay) checker.cancel(state.replay);
        state.replay = null;
        state.replayText = undefined;
        $('stream').hidden = true;
    }
    if (state.run) {
        checker.cancel(state.run.id);
        stopProgress();
        state.run = null;
    }
    if (!text.trim()) {
        state.result = null;
        $('report').hidden = true;
        $('status').textContent = 'Paste a history, open a file or pick an example.';
        results.dataset.state = 'idle';
        setError(null);
        return;
    }
    const levels = chosenLevels();
    const run = checker.check(text, levels, (ev) => {
        if (state.run?.id !== run.id) return;
        if (ev.done) state.run.log.push(phaseText(ev));
        state.run.event = ev;
        renderProgress();
    });
    state.run = { id: run.id, t0: performance.now(), text, levels, event: null, log: [] };
    state.run.timer = setInterval(renderProgress, 100);
    state.run.show = setTimeout(() => {
        if (state.run?.id === run.id) {
            $('progress').hidden = false;
            renderProgress();
        }
    }, PROGRESS_DELAY_MS);
    // Results of another text would mislead while this one is checked; those of the same text
    // (checked again at other levels) stay, dimmed.
    if (state.checkedText !== text) $('report').hidden = true;
    setRunning(true);
    $('status').textContent = 'Checking…';
    run.promise.then(
        (res) => {
            if (state.run?.id !== run.id) return;
            stopProgress();
            state.run = null;
            setRunning(false);
            showResult(res, text);
            finished();
        },
        (e) => {
            if (state.run?.id !== run.id) return;
            stopProgress();
            state.run = null;
            setRunning(false);
            showFailure(e, text);
            finished();
        },
    );
}

/** Count finished checks (done, failed or cancelled) on the results element, for scripts and tests. */
function finished() {
    results.dataset.finished = String(Number(results.dataset.finished ?? 0) + 1);
}

function stopProgress() {
    if (!state.run) return;
    clearInterval(state.run.timer);
    clearTimeout(state.run.show);
}

function cancel() {
    if (!state.run) return;
    $('progress-text').textContent = 'Cancelling…';
    checker.cancel(state.run.id);
}

function setError(err, text) {
    const box = $('editor-error');
    if (!err) {
        box.hidden = true;
        editor.setInvalid(false);
        editor.setError(null);
        state.errorOffset = null;
        return;
    }
    $('error-text').textContent = err.message;
    box.hidden = false;
    editor.setInvalid(true);
    let offset = null;
    if (err.line && text === editor.text) offset = offsetOf(text, editor.lines, err.line, err.column);
    state.errorOffset = offset;
    $('goto-error').hidden = offset === null;
    editor.setError(offset);
    if (offset !== null) editor.reveal(offset);
}

function showFailure(e, text) {
    // No verdict stands for a text that was not checked: the lattice line of the last check goes.
    $('lattice').textContent = '';
    if (e.kind === 'cancelled') {
        results.dataset.state = 'cancelled';
        $('report').hidden = true;
        state.result = null;
        $('status').textContent = 'The check was cancelled.';
        return;
    }
    results.dataset.state = 'error';
    $('report').hidden = true;
    state.result = null;
    if (e.line) {
        setError(e, text);
        $('status').textContent = `The history could not be read (${e.kind} error): ${e.message}`;
    } else {
        setError(null);
        $('status').textContent = `The check failed (${e.kind}): ${e.message}`;
    }
}

// ---- results ------------------------------------------------------------------------------

function cycleKey(c) {
    return c.steps
        .map((s) => `${s.from}>${s.to}:${s.type}`)
        .sort()
        .join(' ');
}

function collectCycles(report) {
    const out = [];
    const seen = new Set();
    const add = (c) => {
        const k = cycleKey(c);
        if (seen.has(k)) return;
        seen.add(k);
        out.push(c);
    };
    for (const a of report.anomalies) if (a.cycle) add(a.cycle);
    for (const l of LEVELS) for (const c of report.levels[l]?.cycles ?? []) add(c);
    return out;
}

function levelsViolatedBy(report, anomaly) {
    return LEVELS.filter((l) => report.levels[l]?.anomalies.includes(anomaly));
}

function verdictCell(lr) {
    if (!lr) return h('td', { class: 'verdict', 'data-verdict': 'not-checked' }, h('span', { class: 'v v-none' }, '– not checked'));
    const label = { holds: '✓ holds', violated: '✗ violated', unknown: '? unknown' }[lr.verdict] ?? lr.verdict;
    const notes = [lr.reason, lr.implied_by && `as ${lr.implied_by} ${lr.verdict === 'holds' ? 'holds' : 'is violated'}`, lr.set_aside?.length && `with ${lr.set_aside.join(', ')} set aside`].filter(Boolean);
    return h('td', { class: 'verdict', 'data-verdict': lr.verdict }, h('span', { class: `v v-${lr.verdict}` }, label), notes.length ? h('span', { class: 'reason' }, ` (${notes.join('; ')})`) : null);
}

function showResult(res, text) {
    const { report, info, timings } = res;
    setError(null);
    state.result = res;
    state.checkedText = text;
    state.txns = new Map(Object.entries(res.txns ?? {}).map(([k, v]) => [Number(k), v]));
    const checked = LEVELS.filter((l) => report.levels[l]);
    const violated = checked.filter((l) => report.levels[l].verdict === 'violated');
    const unknown = checked.filter((l) => report.levels[l].verdict === 'unknown');
    const holds = checked.filter((l) => report.levels[l].verdict === 'holds');
    const parts = [`Checked ${counted(info.transactions, 'transaction')} (${info.model}) in ${ms(timings.total)}.`];
    if (violated.length) parts.push(`Violated: ${violated.join(', ')}.`);
    if (unknown.length) parts.push(`Unknown: ${unknown.join(', ')}.`);
    if (holds.length) parts.push(`Holds: ${holds.join(', ')}.`);
    $('status').textContent = parts.join(' ');
    // Derived from the levels' implications: what to tell a database engineer first.
    const lattice = [];
    // A history that breaks the model's assumptions is invalid whatever the levels say: first.
    if (report.broken_assumptions?.length) lattice.push(`Invalid history: it breaks the model's assumptions (${report.broken_assumptions.join(', ')}); levels that do not proscribe these were checked with them set aside.`);
    if (report.weakest_violated?.length) lattice.push(`Weakest violated: ${report.weakest_violated.join(', ')}.`);
    if (report.strongest_satisfied?.length && checked.length > 1) lattice.push(`Strongest satisfied: ${report.strongest_satisfied.join(', ')}.`);
    $('lattice').textContent = lattice.join(' ');

    // The classic five always have a row (unchecked: "not checked"); the others when checked.
    $('levels-table').tBodies[0].replaceChildren(
        ...LEVELS.filter((l) => DEFAULT_LEVELS.includes(l) || report.levels[l]).map((l) => {
            const lr = report.levels[l];
            return h('tr', { 'data-level': l }, h('th', { scope: 'row' }, l), verdictCell(lr), h('td', { class: 'found' }, lr ? lr.anomalies.join(', ') || 'none' : ''));
        }),
    );

    renderAnomalies(report);
    renderAnalysis(report.analysis);
    renderStats(report, info, timings);
    state.cycles = collectCycles(report);
    renderCycleList();
    $('report').hidden = false;
    results.dataset.state = 'done';
    results.dataset.check = String(res.id);
}

function renderCycleList() {
    const section = $('counterexamples');
    const list = $('cx-list');
    section.hidden = state.cycles.length === 0;
    if (!state.cycles.length) {
        state.cycle = null;
        return;
    }
    const report = state.result.report;
    list.replaceChildren(
        ...state.cycles.slice(0, MAX_LISTED).map((c, i) =>
            h(
                'button',
                { type: 'button', class: 'cx-choice', 'aria-pressed': 'false', 'data-cycle': i, onclick: () => selectCycle(i, true) },
                // A cycle through forced choices may be more specific than the violation it shows.
                h('strong', {}, c.cycle_anomaly ? `${c.anomaly}: a ${c.cycle_anomaly} ${c.name ?? 'cycle'} through chosen versions` : `${c.name ?? 'cycle'} (${c.anomaly})`),
                h('span', {}, ` ${[...c.txns, c.txns[0]].map((t) => `T${t}`).join(' → ')}`),
                h('span', { class: 'violates' }, ` · violates ${levelsViolatedBy(report, c.anomaly).join(', ') || '—'}`),
            ),
        ),
    );
    if (state.cycles.length > MAX_LISTED) list.append(h('p', { class: 'hint' }, `and ${nf.format(state.cycles.length - MAX_LISTED)} more (see the anomalies).`));
    selectCycle(0, false);
}

async function selectCycle(i, focus) {
    const c = state.cycles[i];
    state.cycle = c;
    state.selection = null;
    for (const b of document.querySelectorAll('.cx-choice')) b.setAttribute('aria-pressed', String(Number(b.dataset.cycle) === i));
    await txnInfo(c.txns);
    if (state.cycle !== c) return;
    const svg = drawCycle(c, (id) => state.txns.get(id), (sel) => select(sel));
    state.svg = svg;
    $('graph-box').replaceChildren(svg);
    drawCases(c);
    $('explanation').textContent = c.explanation;
    $('selection').replaceChildren(h('p', { class: 'hint' }, 'Select an edge or a transaction in the graph.'));
    $('sub').hidden = true;
    editor.setMarks([]);
    if (focus) svg.querySelector('[data-edge]')?.focus();
}

/**
 * The cycles behind a counterexample's chosen edges, drawn under it: the other order of the two
 * writes it chose (PolySI's case split) and, for each forced order, the cycle its other order
 * closes. With the writers beside chosen rw edges, every transaction the explanation names is drawn.
 */
function drawCases(c) {
    const chosen = c.steps.some((s) => s.certain === false) || (c.forced ?? []).length > 0;
    $('legend-chosen').hidden = !chosen;
    $('legend-aside').hidden = !c.steps.some(
        (s) => (s.read_from !== undefined && s.read_from !== null && !c.txns.includes(s.read_from)) || (s.type === 'co' && !c.txns.includes(s.to_op.txn)),
    );
    const cases = [];
    const picture = (steps) => drawCycle({ txns: steps.map((s) => s.from), steps }, (id) => state.txns.get(id));
    const key = (k) => keyText(k);
    if (c.other_order) {
        const o = c.other_order;
        cases.push(
            h('figure', { class: 'case case-other' }, h('figcaption', {}, `The other order (T${o.second}'s write of key ${key(o.key)} before T${o.first}'s) closes this cycle: every order is a violation.`), picture(o.steps)),
        );
    }
    for (const f of c.forced ?? []) {
        cases.push(
            h('figure', { class: 'case case-forced' }, h('figcaption', {}, `Why T${f.first}'s write of key ${key(f.key)} comes before T${f.second}'s (forced): the other order closes this cycle.`), picture(f.steps)),
        );
    }
    $('cases').hidden = cases.length === 0;
    $('cases').replaceChildren(...cases);
}

/** Transaction info for `ids`, asking the worker for what is not known yet. */
async function txnInfo(ids) {
    const missing = ids.filter((id) => !state.txns.has(id));
    if (!missing.length || !state.result) return;
    try {
        const got = await checker.transactions(state.result.id, missing);
        for (const [k, v] of Object.entries(got)) state.txns.set(Number(k), v);
    } catch {
        // The worker no longer has the history (a newer check replaced it): the drawing and the
        // explanation stand without the transactions' details.
    }
}

/** Where an operation `{txn, index, span}` is in the input, when grail recorded it. */
function opSpan(ref) {
    return ref.span ?? state.txns.get(ref.txn)?.op_spans?.[ref.index] ?? null;
}

/** The operation as the input wrote it (its text in the editor), else as grail writes it. */
function opSource(ref) {
    if (editor.text !== state.checkedText) return ref.op;
    const range = spanRange(editor.text, editor.lines, opSpan(ref));
    return range ? editor.text.slice(range.start, range.end) : ref.op;
}

/**
 * The editor mark of an operation `{txn, index, span}` at the span grail gave it, or of its
 * whole transaction when grail recorded no span for the operation.
 */
function opMark(ref, kind) {
    if (editor.text !== state.checkedText) return null;
    const t = state.txns.get(ref.txn);
    const range = spanRange(editor.text, editor.lines, opSpan(ref) ?? t?.span);
    return range ? { ...range, kind } : null;
}

/** The editor marks of a transaction: its span, or each operation's where it has none (Plume's lines). */
function txnMarks(id) {
    if (editor.text !== state.checkedText) return [];
    const t = state.txns.get(id);
    const spans = t?.span ? [t.span] : (t?.op_spans ?? []);
    return spans.map((sp) => spanRange(editor.text, editor.lines, sp)).filter(Boolean).map((r) => ({ ...r, kind: 'txn' }));
}

function showMarks(marks) {
    const ok = marks.filter(Boolean);
    editor.setMarks(ok);
    if (ok.length) editor.reveal(ok[0].start);
    return ok.length > 0;
}

function opButton(ref, role) {
    const line = opSpan(ref)?.line || state.txns.get(ref.txn)?.line;
    return h(
        'button',
        {
            type: 'button',
            class: `op op-${role}`,
            onclick: () => {
                const m = opMark(ref, role);
                if (m) {
                    // Keep the marks of the selection this operation belongs to.
                    if (!editor.marks.some((x) => x.start === m.start && x.end === m.end)) showMarks([m]);
                    editor.placeCaret(m.start, m.end - m.start);
                }
            },
        },
        h('span', { class: 'op-where' }, `T${ref.txn}, op ${ref.index + 1}${line ? `, line ${line}` : ''}: `),
        h('code', {}, opSource(ref)),
    );
}

function stale() {
    return editor.text !== state.checkedText ? [h('p', { class: 'hint' }, 'The history changed since this check, so nothing is marked in the editor.')] : [];
}

async function select(sel) {
    const c = state.cycle;
    if (!c) return;
    state.selection = sel;
    markSelected(state.svg, sel);
    const box = $('selection');
    if (sel.kind === 'edge') {
        const s = c.steps[sel.index];
        await txnInfo([s.from, s.to]);
        const value = stepValue(s);
        box.replaceChildren(
            h('h4', {}, `T${s.from} → T${s.to}: `, h('span', { class: `type type-${s.type}` }, s.type), ` on key ${keyText(s.key)}${value === null ? '' : `, value ${value}`}`),
            h('p', { class: 'why' }, `${s.why}.`),
            h('ul', { class: 'ops' }, h('li', {}, opButton(s.from_op, 'from')), h('li', {}, opButton(s.to_op, 'to'))),
            ...stale(),
        );
        showMarks([opMark(s.from_op, 'from'), opMark(s.to_op, 'to')]);
    } else {
        const id = sel.id;
        await txnInfo([id]);
        const t = state.txns.get(id);
        const roles = new Map();
        for (const s of c.steps) {
            if (s.from_op.txn === id) roles.set(s.from_op.index, [...(roles.get(s.from_op.index) ?? []), `${s.type} to T${s.to}`]);
            if (s.to_op.txn === id) roles.set(s.to_op.index, [...(roles.get(s.to_op.index) ?? []), `${s.type} from T${s.from}`]);
        }
        const ops = t?.ops ?? [];
        const head = [`T${id}`, t?.status, t?.process !== null && t?.process !== undefined ? `process ${t.process}` : null, t?.line ? `line ${t.line}` : null].filter(Boolean).join(' · ');
        box.replaceChildren(
            h('h4', {}, head),
            h(
                'ol',
                { class: 'txn-ops', start: 1 },
                ops.map((op, i) =>
                    h('li', { class: roles.has(i) ? 'involved' : null }, h('code', {}, op), roles.has(i) ? h('span', { class: 'role' }, ` ${roles.get(i).join(', ')}`) : null),
                ),
            ),
            ...stale(),
        );
        const marks = txnMarks(id);
        for (const i of roles.keys()) marks.push(opMark({ txn: id, index: i }, 'op'));
        showMarks(marks);
    }
}

function renderAnomalies(report) {
    const list = $('anomaly-list');
    if (!report.anomalies.length) {
        list.replaceChildren(h('li', { class: 'none' }, 'No anomaly found.'));
        return;
    }
    list.replaceChildren(
        ...report.anomalies.slice(0, MAX_LISTED).map((a) => {
            const where = a.levels.length ? `violates ${a.levels.join(', ')}` : "breaks an assumption of the model (no level verdict)";
            const showGraph = a.cycle
                ? h('button', {
                      type: 'button',
                      onclick: () => {
                          const i = state.cycles.findIndex((c) => cycleKey(c) === cycleKey(a.cycle));
                          if (i >= 0) {
                              selectCycle(i, true);
                              $('counterexamples').scrollIntoView({ block: 'start' });
                          }
                      },
                  }, 'Show the graph')
                : null;
            return h(
                'li',
                { class: 'anomaly', 'data-type': a.type },
                h('p', { class: 'anomaly-head' }, h('strong', {}, a.type), a.cycle?.name ? ` (${a.cycle.name})` : '', ` · ${where} · ${a.txns.map((t) => `T${t}`).join(', ')}`),
                a.cycle ? null : h('p', { class: 'anomaly-text' }, a.explanation),
                a.ops.length ? h('ul', { class: 'ops' }, a.ops.map((o) => h('li', {}, opButton(o, 'op')))) : null,
                showGraph,
            );
        }),
    );
    if (report.anomalies.length > MAX_LISTED) list.append(h('li', { class: 'none' }, `and ${nf.format(report.anomalies.length - MAX_LISTED)} more.`));
}

/** The counts of report.analysis: classes with a count, lengths, label patterns, participation. */
function renderAnalysis(a) {
    const box = $('analysis');
    box.hidden = !a;
    if (!a) return;
    const p = a.participation;
    const pct = (n) => (p.transactions ? ((100 * n) / p.transactions).toFixed(1) : '0.0');
    $('analysis-summary').textContent =
        `${counted(a.cycles, 'cycle')} of at most ${a.max_length} transactions${a.complete ? '' : ` (counting stopped early: ${a.reason})`}. ` +
        `Transactions on no cycle: ${nf.format(p.none)} (${pct(p.none)}%), on one: ${nf.format(p.one)} (${pct(p.one)}%), on two or more: ${nf.format(p.many)} (${pct(p.many)}%).`;
    const rows = a.classes.filter((c) => c.count > 0);
    $('class-counts').tBodies[0].replaceChildren(
        ...(rows.length
            ? rows.map((c) => h('tr', { 'data-scheme': c.scheme, 'data-class': c.class, title: c.source }, h('td', {}, c.scheme), h('td', {}, c.class), h('td', { class: 'count' }, nf.format(c.count))))
            : [h('tr', {}, h('td', { colspan: '3', class: 'none' }, 'No cycle and no read anomaly.'))]),
    );
    $('length-counts').textContent = a.lengths.length ? `By length: ${a.lengths.map((l) => `${l.length}: ${nf.format(l.count)}`).join(', ')}.` : '';
    const pats = a.patterns.filter((q) => !q.ordered).slice(0, 8);
    $('pattern-counts').replaceChildren(
        ...pats.map((q) => h('li', { 'data-pattern': q.labels.join(',') }, `{${q.labels.join(', ')}}: ${nf.format(q.count)}`)),
    );
}

function renderStats(report, info, timings) {
    const s = report.stats;
    const rows = [
        ['Model', report.model],
        ['Transactions', `${nf.format(s.transactions)} (${nf.format(s.committed)} committed, ${nf.format(s.aborted)} aborted, ${nf.format(s.indeterminate)} indeterminate)`],
        ['Graph', `${counted(s.vertices, 'vertex', 'vertices')}, ${counted(s.edges, 'edge')} (${nf.format(s.ww)} ww, ${nf.format(s.wr)} wr, ${nf.format(s.rw)} rw), density ${Number(s.density).toFixed(2)}`],
        ['Time', `read ${ms(timings.read)}, graph and search ${ms(timings.check)}, in all ${ms(timings.total)}`],
        ['Engine', `grail ${state.version ?? ''} (WebAssembly, in a Web Worker; cancels by ${checker.cancelMode})`],
    ];
    $('stats-list').replaceChildren(...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-stat': k.toLowerCase() }, v)]));
    $('notes').replaceChildren(...report.notes.map((n) => h('li', {}, n)));
}

// ---- exports ------------------------------------------------------------------------------

function download(name, type, content) {
    const url = URL.createObjectURL(new Blob([content], { type }));
    const a = h('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function baseName(c) {
    return `grail-${c.anomaly}-${c.txns.map((t) => `T${t}`).join('-')}`;
}

function exportJson() {
    const c = state.cycle;
    if (!c) return;
    const doc = {
        grail: state.version,
        levels_violated: levelsViolatedBy(state.result.report, c.anomaly),
        ...c,
        transactions: c.txns.map((id) => state.txns.get(id) ?? { id }),
    };
    download(`${baseName(c)}.json`, 'application/json', JSON.stringify(doc, null, 2) + '\n');
}

/** The whole report as the one self-contained HTML page `grail check --html` writes. */
async function exportHtml() {
    if (!state.result) return;
    const title = state.title ?? 'history';
    try {
        const html = await checker.html(state.result.id, title);
        download(`grail-report-${title.replace(/[^\w.-]+/g, '_')}.html`, 'text/html', html);
    } catch (e) {
        $('status').textContent = `Could not write the report: ${e.message}`;
    }
}

async function exportSubHistory() {
    const c = state.cycle;
    if (!c || !state.result) return;
    const box = $('sub');
    box.hidden = false;
    $('sub-text').textContent = '';
    $('sub-open').hidden = true;
    $('sub-status').textContent = 'Looking for the smallest sub-history that still has this cycle…';
    try {
        const sub = await checker.subHistory(state.result.id, c, levelsViolatedBy(state.result.report, c.anomaly));
        if (state.cycle !== c) return;
        const file = `${baseName(c)}.${sub.extension}`;
        $('sub-text').textContent = sub.text;
        $('sub-open').hidden = false;
        box.dataset.verified = String(sub.reproduces);
        const ids = sub.transactions.map((t) => `T${t}`).join(', ');
        $('sub-status').textContent = sub.reproduces
            ? `${counted(sub.transactions.length, 'transaction')} (${ids}); grail finds the same cycle in them${sub.minimal ? ', and none can be left out' : ' (reduced as far as the search budget allowed)'}. Downloaded as ${file}.`
            : `The cycle's transactions alone do not show the cycle again (grail inferred it from more of the history); downloaded them anyway as ${file}.`;
        download(file, { edn: 'application/edn', json: 'application/json' }[sub.extension] ?? 'text/plain', sub.text);
    } catch (e) {
        $('sub-status').textContent = `No sub-history: ${e.message}`;
    }
}

// ---- wiring -------------------------------------------------------------------------------

$('check').addEventListener('click', check);
$('cancel').addEventListener('click', cancel);
$('share').addEventListener('click', share);
$('replay').addEventListener('click', replayStream);
$('file').addEventListener('change', (e) => {
    openFile(e.target.files[0]);
    e.target.value = '';
});
$('goto-error').addEventListener('click', () => {
    if (state.errorOffset !== null) editor.placeCaret(state.errorOffset, 1);
});
$('export-svg').addEventListener('click', () => state.svg && download(`${baseName(state.cycle)}.svg`, 'image/svg+xml', exportSvg(state.svg)));
$('export-json').addEventListener('click', exportJson);
$('export-edn').addEventListener('click', exportSubHistory);
$('export-html').addEventListener('click', exportHtml);
$('clear').addEventListener('click', () => {
    setText('', 'Cleared');
    $('source-info').textContent = '';
    check();
    $('history').focus();
});
$('sub-open').addEventListener('click', () => {
    setText($('sub-text').textContent, 'Sub-history');
    check();
});
for (const i of document.querySelectorAll('input[name=level]')) {
    i.addEventListener('change', () => {
        if (editor.text.length <= AUTO_LIMIT) check();
        else $('status').textContent = 'The levels changed: press Check.';
    });
}
// A paste too large to edit goes to the read-only viewer instead (replacing the text), so that
// the textarea never has to lay it out.
$('history').addEventListener('paste', (e) => {
    const pasted = e.clipboardData?.getData('text/plain') ?? '';
    if (pasted.length > VIEW_LIMIT) {
        e.preventDefault();
        setText(pasted, 'Pasted text');
        check();
    }
});
$('history').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        check();
    }
});
document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.run) cancel();
});
const drop = $('editor');
drop.addEventListener('dragover', (e) => {
    if (![...e.dataTransfer.types].includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    drop.classList.add('dragging');
});
drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
drop.addEventListener('drop', (e) => {
    drop.classList.remove('dragging');
    if (!e.dataTransfer.files.length) return;
    e.preventDefault();
    openFile(e.dataTransfer.files[0]);
});
window.addEventListener('hashchange', loadFromHash);

results.dataset.state = 'idle';
/** For scripts and tests: the worker client, the editor and the page's state. */
window.grailDemo = { checker, editor, state };
await loadGallery();
if (!(await loadFromHash())) await loadExample(DEFAULT_EXAMPLE);
