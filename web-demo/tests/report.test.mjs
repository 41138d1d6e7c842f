// In headless Chromium: the files grail writes for CI render on their own (file://, no server,
// no network). An SVG of `grail elle -d` (a cycle, drawn by grail, no Graphviz), the HTML report
// of `grail check --html` for a small history and for a 100,000-transaction one (generated here,
// with nemesis operations added), whose page must stay within its size bound. Screenshots go to
// web-demo/screenshots/ (elle-cycle.png, report-small.png, report-100k*.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, screenshot, demoDir } from './helpers.mjs';

const root = join(demoDir, '..');
const grail = join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'release', 'grail');
const lostUpdate = join(root, 'tests', 'cases', 'G-single', 'lost-update.edn');
/** The page bound the HTML report keeps whatever the history (bytes). */
const PAGE_BOUND = 2_000_000;

let browser;
let dir;

before(async () => {
    if (!existsSync(grail)) {
        execFileSync('cargo', ['build', '--release', '-p', 'grail-cli'], { cwd: root, stdio: 'inherit' });
    }
    dir = mkdtempSync(join(tmpdir(), 'grail-report-'));
    browser = await launch();
});

after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(args, { okCodes = [0, 1] } = {}) {
    try {
        return { code: 0, out: execFileSync(grail, args, { encoding: 'utf8', maxBuffer: 1 << 28 }) };
    } catch (e) {
        if (okCodes.includes(e.status)) return { code: e.status, out: e.stdout };
        throw e;
    }
}

/** Open a local file; record console errors and every request that is not that file. */
async function openFile(path, { width = 1280, height = 900 } = {}) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    const url = pathToFileURL(path).href;
    page.problems = [];
    page.requests = [];
    page.on('console', (m) => m.type() === 'error' && page.problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => r.url() !== url && page.requests.push(r.url()));
    await page.goto(url);
    return page;
}

test('an SVG of grail elle -d renders in Chromium', async () => {
    const out = join(dir, 'elle');
    const { code, out: stdout } = run(['elle', '-m', 'list-append', '-c', 'serializable', '-d', out, lostUpdate]);
    assert.equal(code, 1);
    assert.match(stdout, /\t false\n$/);
    const svg = join(out, 'G-single-item', '0.svg');
    const page = await openFile(svg, { width: 700, height: 360 });
    const shown = await page.evaluate(() => {
        const s = document.querySelector('svg');
        const box = s.getBoundingClientRect();
        return {
            width: box.width,
            height: box.height,
            txns: document.querySelectorAll('rect.txn').length,
            edges: [...document.querySelectorAll('path.edge')].map((p) => p.getTotalLength()),
            titles: [...document.querySelectorAll('text.txn-title')].map((t) => t.textContent).sort(),
            labels: [...document.querySelectorAll('text.edge-label')].map((t) => t.textContent).sort(),
        };
    });
    assert.ok(shown.width > 200 && shown.height > 80, JSON.stringify(shown));
    assert.equal(shown.txns, 2);
    assert.deepEqual(shown.titles, ['T2', 'T3']);
    assert.ok(shown.edges.length >= 2 && shown.edges.every((l) => l > 20), JSON.stringify(shown.edges));
    assert.ok(shown.labels.includes('rw'), JSON.stringify(shown.labels));
    assert.deepEqual(page.problems, []);
    assert.deepEqual(page.requests, []);
    await screenshot(page, 'elle-cycle');
    await page.context().close();
});

test('the HTML report of a small history renders, self-contained', async () => {
    const html = join(dir, 'small.html');
    assert.equal(run(['check', lostUpdate, '--html', html]).code, 1);
    const page = await openFile(html);
    const shown = await page.evaluate(() => ({
        badge: document.querySelector('#verdict .badge').textContent,
        levels: Object.fromEntries([...document.querySelectorAll('table.verdicts tbody tr')].map((tr) => [tr.dataset.level, tr.querySelector('.verdict').textContent])),
        cycles: document.querySelectorAll('section.counterexample').length,
        boxes: document.querySelectorAll('section.counterexample svg rect.txn').length,
        edges: document.querySelectorAll('section.counterexample svg path.edge').length,
        steps: document.querySelectorAll('section.counterexample table.steps tbody tr').length,
        sub: document.querySelector('pre.subhistory').textContent,
        stats: document.querySelectorAll('table.stats tr').length,
        timeline: document.querySelectorAll('svg.timeline rect.txn').length,
        marked: document.querySelectorAll('svg.timeline rect.txn.marked').length,
        scripts: document.querySelectorAll('script').length,
        drawn: document.querySelector('section.counterexample svg').getBoundingClientRect().width,
    }));
    assert.equal(shown.badge, 'INVALID');
    assert.deepEqual(shown.levels, { SER: 'violated', SI: 'violated', PSI: 'violated', 'PL-2': 'holds', 'PL-1': 'holds' });
    assert.equal(shown.cycles, 1);
    assert.equal(shown.boxes, 2);
    assert.equal(shown.edges, 2);
    assert.equal(shown.steps, 2);
    // The two cycle transactions alone: their appends' order is open, and either closes the
    // same G-single (docs/levels.md, unobserved appends).
    assert.match(shown.sub, /^; A sub-history of 2 transactions .*\(minimal\)\.\n\{:index 0, :type :invoke, :process 0, :value \[\[:r x nil\] \[:append x 1\]\]\}/);
    assert.equal(shown.stats, 10);
    assert.equal(shown.timeline, 3);
    assert.equal(shown.marked, 2);
    assert.equal(shown.scripts, 0);
    assert.ok(shown.drawn > 200);
    assert.deepEqual(page.problems, []);
    assert.deepEqual(page.requests, [], 'no request beyond the page itself');
    await screenshot(page, 'report-small', { fullPage: true });
    await page.context().close();
});

/** Add nemesis operations (a partition from 30% to 60% of the run, a kill at 80%) to EDN text. */
function withNemesis(text) {
    const lines = text.split('\n');
    const timeAt = (i) => Number(/:time (\d+)/.exec(lines[i])?.[1] ?? 0);
    const insert = [
        [0.3, ':start-partition', ':majority'],
        [0.6, ':stop-partition', 'nil'],
        [0.8, ':kill', '["n1"]'],
    ];
    for (const [frac, f, value] of insert.reverse()) {
        const i = Math.floor(lines.length * frac);
        const t = timeAt(i);
        lines.splice(i, 0, `{:type :info, :f ${f}, :value ${value}, :process :nemesis, :time ${t}, :index ${1_000_000 + i}}`);
    }
    return lines.join('\n');
}

test('a 100,000-transaction history: the report stays within its bound and renders', async () => {
    const gen = join(dir, 'big-raw.edn');
    run(['generate', '--txns', '100000', '--inject', 'lost-update:3,write-skew:2', '--seed', '7', '--out', gen], { okCodes: [0] });
    const big = join(dir, 'big.edn');
    writeFileSync(big, withNemesis(readFileSync(gen, 'utf8')));
    const html = join(dir, 'big.html');
    const t0 = performance.now();
    assert.equal(run(['check', big, '--html', html]).code, 1);
    const seconds = (performance.now() - t0) / 1000;
    const bytes = statSync(html).size;
    console.log(`# 100k report: ${bytes} bytes, grail check --html in ${seconds.toFixed(2)} s`);
    assert.ok(bytes < PAGE_BOUND, `${bytes} bytes`);
    const page = await openFile(html, { width: 1280, height: 1000 });
    const shown = await page.evaluate(() => ({
        badge: document.querySelector('#verdict .badge').textContent,
        density: document.getElementById('timeline-density')?.textContent ?? '',
        polygons: [...document.querySelectorAll('svg.timeline polygon.density')].map((p) => p.getBBox().width),
        nemesis: document.querySelectorAll('svg.timeline line.nemesis').length,
        spans: [...document.querySelectorAll('svg.timeline rect.nemesis-span')].map((r) => r.querySelector('title').textContent),
        marked: document.querySelectorAll('svg.timeline line.marked').length,
        cycles: document.querySelectorAll('section.counterexample').length,
        perTxn: document.querySelectorAll('svg.timeline rect.txn').length,
        title: document.title,
    }));
    assert.equal(shown.badge, 'INVALID');
    assert.match(shown.density, /^100\d{3} transactions are too many to draw one by one/);
    assert.equal(shown.polygons.length, 3);
    assert.ok(shown.polygons[0] > 900, JSON.stringify(shown.polygons));
    assert.equal(shown.nemesis, 3);
    // The partition shaded from its start to its stop; the kill, never undone, to the end.
    assert.deepEqual(shown.spans, ['start-partition .. stop-partition', 'kill (never stopped)']);
    assert.ok(shown.marked >= 2);
    assert.ok(shown.cycles >= 1 && shown.cycles <= 20);
    assert.equal(shown.perTxn, 0, 'no per-transaction drawing beyond the bound');
    assert.equal(shown.title, 'grail report: big.edn');
    assert.deepEqual(page.problems, []);
    assert.deepEqual(page.requests, []);
    await screenshot(page, 'report-100k', { fullPage: true });
    await page.locator('svg.timeline').screenshot({ path: join(demoDir, 'screenshots', 'report-100k-timeline.png') });
    await page.context().close();

    // grail elle -d on the same history: plots bounded by --max-plot-bytes, and they render.
    const out = join(dir, 'big-elle');
    const t1 = performance.now();
    const r = run(['elle', '-m', 'list-append', '-c', 'serializable', '-d', out, big]);
    console.log(`# 100k grail elle -d in ${((performance.now() - t1) / 1000).toFixed(2)} s`);
    assert.equal(r.code, 1);
    const sccs = readdirSync(join(out, 'sccs'));
    assert.ok(sccs.length >= 1);
    const sizes = sccs.map((f) => statSync(join(out, 'sccs', f)).size);
    assert.ok(Math.max(...sizes) < 400_000, JSON.stringify(sizes));
    const svgPage = await openFile(join(out, 'sccs', sccs[0]), { width: 900, height: 700 });
    const boxes = await svgPage.evaluate(() => document.querySelectorAll('rect.txn').length);
    assert.ok(boxes >= 2);
    assert.deepEqual(svgPage.problems, []);
    await screenshot(svgPage, 'elle-100k-scc');
    await svgPage.context().close();
});
