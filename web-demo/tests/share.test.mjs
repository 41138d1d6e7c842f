// In headless Chromium: a shared link opens the same history and levels and gives the same
// result; a counterexample exports as SVG, as JSON, and as a minimal sub-history in EDN that
// grail (here, and in the page) finds the same cycle in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useDemoPage, startServer, launch, openPage, loadExample, waitForCheck, finishedCount, verdicts, anomalyTypes, screenshot, demoDir, setEditorText } from './helpers.mjs';

const pkgNode = join(demoDir, '..', 'bindings', 'wasm', 'pkg', 'node.mjs');
let server;
let browser;
let page;

// With no link, the page opens on the H5 lost update and checks it.
useDemoPage((d) => ({ server, browser, page } = d));

function levelsChecked(p) {
    return p.evaluate(() => [...document.querySelectorAll('input[name=level]:checked')].map((i) => i.value));
}

test('a shared link gives the same history, levels and result', async () => {
    await loadExample(page, 'h3-long-fork');
    const prev = await finishedCount(page);
    await page.uncheck('input[name=level][value="PL-1"]');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    const before = {
        verdicts: await verdicts(page),
        anomalies: await anomalyTypes(page),
        explanation: await page.textContent('#explanation'),
        text: await page.inputValue('#history'),
    };
    assert.equal(before.verdicts['PL-1'], 'not-checked');
    assert.equal(before.verdicts.SI, 'violated');

    await page.click('#share');
    await page.waitForFunction(() => document.getElementById('share-url').value !== '');
    const url = await page.inputValue('#share-url');
    assert.ok(url.startsWith(`${server.url}#levels=SER,SI,PSI,PL-2&h=`), url);
    assert.match(url.split('&h=')[1], /^[A-Za-z0-9_-]+$/);
    assert.equal(page.url(), url, 'the page URL holds the link too');
    assert.match(await page.textContent('#share-status'), /Link copied|Copy the link/);

    const other = await openPage(browser, url, { width: 1280, height: 900 });
    try {
        await other.waitForFunction(() => document.getElementById('results').dataset.finished === '1');
        assert.equal(await other.inputValue('#history'), before.text);
        assert.deepEqual(await levelsChecked(other), ['SER', 'SI', 'PSI', 'PL-2']);
        assert.deepEqual(await verdicts(other), before.verdicts);
        assert.deepEqual(await anomalyTypes(other), before.anomalies);
        assert.equal(await other.textContent('#explanation'), before.explanation);
        assert.match(await other.textContent('#source-info'), /^Shared link:/);
        await screenshot(other, '07-shared-link');
        assert.deepEqual(other.problems, []);
    } finally {
        await other.context().close();
    }
    await page.check('input[name=level][value="PL-1"]');
    await page.waitForFunction(() => document.getElementById('results').dataset.state === 'done');
});

async function downloadOf(selector) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

test('export the counterexample as SVG and as JSON', async () => {
    await loadExample(page, 'h5-lost-update');
    const svg = await downloadOf('#export-svg');
    assert.equal(svg.name, 'grail-G-single-T2-T3.svg');
    assert.ok(svg.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg'));
    const parsed = await page.evaluate((s) => {
        const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
        return {
            error: doc.querySelector('parsererror')?.textContent ?? null,
            strokes: [...doc.querySelectorAll('path.line')].map((p) => p.getAttribute('stroke')),
            nodes: [...doc.querySelectorAll('.node text')].map((t) => t.textContent),
            focusable: doc.querySelectorAll('[tabindex]').length,
            legend: [...doc.querySelectorAll('.legend text')].map((t) => t.textContent),
        };
    }, svg.text);
    assert.equal(parsed.error, null);
    assert.deepEqual(parsed.strokes, ['#d62728', '#1f77b4']);
    assert.deepEqual(parsed.nodes, ['T2', 'T3']);
    assert.equal(parsed.focusable, 0);
    assert.deepEqual(parsed.legend, ['ww', 'wr', 'rw']);

    const json = await downloadOf('#export-json');
    assert.equal(json.name, 'grail-G-single-T2-T3.json');
    const doc = JSON.parse(json.text);
    assert.equal(doc.anomaly, 'G-single');
    assert.equal(doc.name, 'lost update');
    assert.deepEqual(doc.levels_violated, ['SER', 'SI', 'PSI']);
    assert.deepEqual(doc.steps.map((s) => [s.from, s.to, s.type, s.key]), [
        [2, 3, 'rw', 'members'],
        [3, 2, 'ww', 'members'],
    ]);
    assert.deepEqual(doc.transactions.map((t) => [t.id, t.line, t.ops]), [
        [2, 4, ['[:r members []]', '[:append members 1]']],
        [3, 5, ['[:r members []]', '[:append members 2]']],
    ]);
});

/** Export the sub-history of the current counterexample; returns {file, shown, status, verified}. */
async function subHistory() {
    const file = await downloadOf('#export-edn');
    await page.waitForFunction(() => document.getElementById('sub-text').textContent !== '');
    return {
        file,
        shown: await page.textContent('#sub-text'),
        status: await page.textContent('#sub-status'),
        verified: await page.getAttribute('#sub', 'data-verified'),
    };
}

/** The completion maps of a sub-history (core writes each invocation before them, for real-time order). */
function mapLines(edn) {
    return edn.split('\n').filter((l) => l.startsWith('{') && !l.includes(':type :invoke'));
}

test('the minimal sub-history of a lost update is its two transactions, and grail finds the cycle in them', async () => {
    await loadExample(page, 'h5-lost-update');
    const sub = await subHistory();
    assert.equal(sub.file.name, 'grail-G-single-T2-T3.edn');
    assert.equal(sub.file.text, sub.shown);
    assert.equal(sub.verified, 'true');
    assert.match(sub.status, /^2 transactions \(T2, T3\); grail finds the same cycle in them, and none can be left out\./);
    // Without T5's read of [2] the order of their appends is open, and either order closes the
    // G-single (issue 33; docs/levels.md, unobserved appends).
    const source = readFileSync(join(demoDir, 'examples', 'h5-lost-update.edn'), 'utf8').split('\n');
    assert.deepEqual(mapLines(sub.shown), [source[3], source[4]]);
    const grail = await import(pkgNode);
    const report = grail.check(sub.shown);
    const cycle = report.anomalies.find((a) => a.type === 'G-single')?.cycle;
    assert.deepEqual(cycle && [...cycle.txns].sort(), [2, 3]);
    assert.deepEqual(cycle.steps.map((s) => s.certain), [false, true], 'the order of the appends is chosen');

    // Opening it in the editor gives the same verdicts as the whole history.
    const prev = await finishedCount(page);
    await page.click('#sub-open');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.deepEqual(await verdicts(page), { SER: 'violated', SI: 'violated', PSI: 'violated', 'PL-2': 'holds', 'PL-1': 'holds' });
});

test('the minimal sub-history drops what the cycle does not need', async () => {
    await loadExample(page, 'ldbc-ws');
    const sub = await subHistory();
    assert.equal(sub.verified, 'true');
    // The loader T1 stays (without it the reads of 70 and 80 are garbage); the final reader T7 goes.
    assert.match(sub.status, /^3 transactions \(T1, T4, T5\)/);
    assert.deepEqual(
        mapLines(sub.shown).map((l) => Number(/:index (\d+)/.exec(l)[1])),
        [1, 4, 5],
    );
    await screenshot(page, '08-sub-history');
});

test('a native JSON history gives its sub-history in native JSON, which reads to the same cycle', async () => {
    const text = readFileSync(join(demoDir, '..', 'tests', 'cases', 'native', 'write-skew.json'), 'utf8');
    const prev = await finishedCount(page);
    await setEditorText(page, text);
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    await page.click('#graph-box [data-edge="0"] .label');
    const sub = await subHistory();
    assert.match(sub.file.name, /^grail-G2-item-T\d+-T\d+\.json$/);
    assert.equal(sub.file.text, sub.shown);
    assert.equal(sub.verified, 'true');
    const doc = JSON.parse(sub.shown);
    assert.deepEqual(doc.transactions.map((t) => t.id).sort(), [1, 2]);
    const grail = await import(pkgNode);
    assert.equal(grail.check(sub.shown, { levels: ['SER'] }).levels.SER.valid, false);
});
