// In headless Chromium: every gallery example gives the expected verdicts; counterexample
// graphs have their edges coloured by type, and selecting an edge or a transaction shows and
// marks the operations behind it, by mouse and by keyboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useDemoPage, startServer, launch, openPage, loadExample, verdicts, anomalyTypes, screenshot, manifest } from './helpers.mjs';

let server;
let browser;
let page;

// With no link, the page opens on the H5 lost update and checks it.
useDemoPage((d) => ({ server, browser, page } = d));

test('the page loads grail in a worker, cross-origin isolated, without console errors', async () => {
    assert.equal(await page.evaluate(() => document.body.dataset.example), 'h5-lost-update');
    assert.match(await page.textContent('#engine'), /^grail \d+\.\d+\.\d+ is ready/);
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    assert.match(await page.textContent('[data-stat="engine"]'), /cancels by progress callback/);
    assert.ok(server.requests.includes('/grail/grail_wasm_bg.wasm'));
    assert.deepEqual(page.problems, []);
});

for (const ex of manifest.examples) {
    test(`gallery: ${ex.id} gives the expected verdicts`, async () => {
        await loadExample(page, ex.id);
        assert.deepEqual(await verdicts(page), ex.expected.levels);
        assert.deepEqual(await anomalyTypes(page), [...ex.expected.anomalies].sort());
        const status = await page.textContent('#status');
        const violated = Object.entries(ex.expected.levels).filter(([, v]) => v === 'violated').map(([l]) => l);
        if (violated.length) assert.ok(status.includes(`Violated: ${violated.join(', ')}.`), status);
        else assert.match(status, /Holds: SER, SI, PSI, PL-2, PL-1\./);
        const cx = await page.evaluate(() => [...document.querySelectorAll('.cx-choice strong')].map((e) => e.textContent));
        if (ex.expected.cycle) {
            assert.ok(cx.some((t) => t.startsWith(ex.expected.cycle)), `a ${ex.expected.cycle} counterexample, got ${cx}`);
            assert.equal(await page.isVisible('#graph-box svg'), true);
        } else if (!ex.expected.anomalies.some((a) => ['G0', 'G1c', 'G-single', 'G-nonadjacent', 'G2-item'].includes(a))) {
            assert.equal(await page.isVisible('#counterexamples'), false, 'no counterexample without a cycle');
        }
        assert.deepEqual(page.problems, []);
    });
}

test('a counterexample graph: edges coloured by type, an edge shows and marks its two operations', async () => {
    await loadExample(page, 'h5-lost-update');
    const edges = await page.evaluate(() =>
        [...document.querySelectorAll('#graph-box [data-edge]')].map((g) => ({ cls: g.getAttribute('class'), stroke: g.querySelector('.line').getAttribute('stroke'), label: g.querySelector('.label').textContent })),
    );
    assert.deepEqual(
        edges.map((e) => [e.cls, e.stroke]),
        [
            ['edge edge-rw', '#d62728'],
            ['edge edge-ww', '#1f77b4'],
        ],
    );
    assert.deepEqual(edges.map((e) => e.label), ['rw members \u21a6 2', 'ww members \u21a6 1']);

    await page.click('#graph-box [data-edge="0"] .label');
    await page.waitForSelector('#selection .why');
    assert.match(await page.textContent('#selection h4'), /T2 → T3: rw on key members, value 2/);
    assert.match(await page.textContent('#selection .why'), /T2 read key members = \[\], which does not include T3's append of 2/);
    // The editor marks T2's read (line 4) and T3's append (line 5), exactly.
    const marks = await page.evaluate(() => {
        const ta = document.getElementById('history');
        const gutter = [...document.querySelectorAll('.gutter-inner > div')].filter((d) => d.className).map((d) => [d.textContent, d.className]);
        const boxes = [...document.querySelectorAll('.overlay .mark')].map((d) => d.className);
        return { gutter, boxes, lines: ta.value.split('\n').length };
    });
    assert.deepEqual(marks.gutter, [
        ['4', 'mark-from'],
        ['5', 'mark-to'],
    ]);
    assert.deepEqual(marks.boxes.sort(), ['mark mark-from', 'mark mark-to']);
    // The from-operation button selects exactly that text in the editor.
    await page.click('#selection .op-from');
    const selected = await page.evaluate(() => {
        const ta = document.getElementById('history');
        return ta.value.slice(ta.selectionStart, ta.selectionEnd);
    });
    assert.equal(selected, '[:r members []]');
    await screenshot(page, '01-lost-update-edge');
});

test('a transaction node lists its operations, marking those on the cycle', async () => {
    await loadExample(page, 'h3-long-fork');
    await page.click('#graph-box [data-node="6"] .disc');
    await page.waitForSelector('#selection .txn-ops');
    assert.match(await page.textContent('#selection h4'), /^T6 · committed · process 2 · line 8$/);
    const ops = await page.evaluate(() => [...document.querySelectorAll('#selection .txn-ops li')].map((li) => [li.className, li.textContent]));
    assert.deepEqual(ops, [
        ['involved', '[:r forum1 [1]] wr from T2'],
        ['involved', '[:r forum2 []] rw to T3'],
    ]);
    const gutter = await page.evaluate(() => [...document.querySelectorAll('.gutter-inner > div')].filter((d) => d.className).map((d) => d.textContent));
    assert.deepEqual(gutter, ['8']);
    await screenshot(page, '02-long-fork-transaction');
});

test('keyboard: Tab reaches the graph, Enter selects an edge', async () => {
    await loadExample(page, 'h8-write-cycle');
    await page.focus('#graph-box [data-edge="0"]');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement.getAttribute('data-edge'));
    assert.equal(focused, '1');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#selection .why');
    assert.match(await page.textContent('#selection h4'), /ww on key (alice|bob)/);
    assert.equal(await page.evaluate(() => document.querySelector('#graph-box [data-edge="1"]').classList.contains('selected')), true);
    // Every control has an accessible name.
    const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll('button, input, textarea, [role=button]')]
            .filter((e) => !e.closest('[hidden]'))
            .filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e.closest('label')))
            .map((e) => e.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unnamed, []);
});

test('phone width: one column, no horizontal scrolling of the page', async () => {
    const phone = await openPage(browser, server.url, { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
    try {
        await phone.waitForFunction(() => document.getElementById('results').dataset.state === 'done');
        const layout = await phone.evaluate(() => ({
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            inputLeft: document.querySelector('.input').getBoundingClientRect().left,
            resultsLeft: document.querySelector('.results').getBoundingClientRect().left,
            resultsTop: document.querySelector('.results').getBoundingClientRect().top,
            inputBottom: document.querySelector('.input').getBoundingClientRect().bottom,
        }));
        assert.ok(layout.overflow <= 0, `page overflows by ${layout.overflow}px`);
        assert.equal(layout.inputLeft, layout.resultsLeft);
        assert.ok(layout.resultsTop >= layout.inputBottom);
        await phone.evaluate(() => document.getElementById('results').scrollIntoView());
        await screenshot(phone, '06-phone-results');
        assert.deepEqual(phone.problems, []);
    } finally {
        await phone.context().close();
    }
});
