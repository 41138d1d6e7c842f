// In headless Chromium: a register history without a version order. Edges an order of two
// writes gives (chosen) are drawn hollow and labelled, with a legend; the writer behind a chosen
// rw edge is drawn beside the cycle; the cycles the forced and other orders close are drawn
// under it, so every transaction the explanation names is drawn. A PolySI/Plume text history is
// shown in its own notation, with each operation's real line, marked in the editor, and its
// sub-history is exported as Plume text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { useDemoPage, loadExample, setEditorText, finishedCount, waitForCheck, verdicts, screenshot, demoDir } from './helpers.mjs';

let page;
useDemoPage((d) => ({ page } = d));

/** Every transaction named `Tn` in the explanation, and every transaction drawn anywhere. */
async function namedAndDrawn() {
    return page.evaluate(() => {
        const named = new Set([...document.getElementById('explanation').textContent.matchAll(/\bT(\d+)\b/g)].map((m) => Number(m[1])));
        const drawn = new Set([...document.querySelectorAll('#graph-box [data-node], #cases [data-node]')].map((n) => Number(n.dataset.node)));
        return { named: [...named].sort(), drawn: [...drawn].sort() };
    });
}

test('chosen edges are drawn hollow and labelled, with a legend; the writer beside the cycle and the forced orders are drawn', async () => {
    await loadExample(page, 'reg-write-skew');
    assert.deepEqual(await verdicts(page), { SER: 'violated', SI: 'holds', PSI: 'holds', 'PL-2': 'holds', 'PL-1': 'holds' });
    const g = await page.evaluate(() => ({
        edges: [...document.querySelectorAll('#graph-box g.edge')].map((e) => ({
            chosen: e.classList.contains('chosen'),
            label: e.querySelector('text.label').textContent,
            hollow: !!e.querySelector('path.core'),
        })),
        aside: [...document.querySelectorAll('#graph-box .node.aside')].map((n) => n.dataset.node),
        asideEdges: [...document.querySelectorAll('#graph-box .aside-edge')].map((e) => [...e.classList].find((c) => c.startsWith('edge-'))),
        legendChosen: !document.getElementById('legend-chosen').hidden,
        legendAside: !document.getElementById('legend-aside').hidden,
        cases: [...document.querySelectorAll('#cases figure')].map((f) => f.querySelector('figcaption').textContent),
    }));
    // Both rw edges rest on forced orders of T0's writes: chosen, hollow, labelled so.
    assert.deepEqual(g.edges.map((e) => [e.chosen, e.hollow]), [[true, true], [true, true]]);
    for (const e of g.edges) assert.match(e.label, /^rw [xy] ↦ 2 \(chosen\)$/);
    // T0, whose versions both readers read, is not on the cycle: drawn beside it, with its wr and ww edges.
    assert.deepEqual(g.aside, ['0']);
    assert.deepEqual(g.asideEdges, ['edge-wr', 'edge-ww', 'edge-wr', 'edge-ww']);
    assert.ok(g.legendChosen && g.legendAside);
    assert.equal(g.cases.length, 2);
    for (const c of g.cases) assert.match(c, /^Why T0's write of key [xy] comes before T[12]'s \(forced\): the other order closes this cycle\.$/);
    const { named, drawn } = await namedAndDrawn();
    assert.deepEqual(drawn, named, 'every transaction the explanation names is drawn');
    await page.locator('.cx').screenshot({ path: join(demoDir, 'screenshots', '10-chosen-edges.png') });

    // The whole report downloads as the page `grail check --html` writes, named after the example.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-html')]);
    assert.equal(download.suggestedFilename(), 'grail-report-reg-write-skew.edn.html');
    const html = readFileSync(await download.path(), 'utf8');
    assert.match(html, /<title>grail report: reg-write-skew\.edn<\/title>/);
    assert.match(html, /G2-item/);
    const cli = join(demoDir, '..', 'target', 'release', 'grail');
    if (existsSync(cli)) {
        // The page the CLI writes for the same file with the demo's analysis (the report is core's).
        const out = join(demoDir, '..', 'target', 'browser-tmp', 'reg-write-skew.html');
        spawnSync(cli, ['check', join(demoDir, 'examples', 'reg-write-skew.edn'), '--analyze', '--max-length', '6', '--max-counted', '10000', '--html', out]);
        const fromCli = readFileSync(out, 'utf8');
        assert.equal(html, fromCli);
    }

    // A certain cycle (H2, list-append) shows no chosen legend and no cases.
    await loadExample(page, 'h2-write-skew');
    assert.equal(await page.isVisible('#legend-chosen'), false);
    assert.equal(await page.isVisible('#cases'), false);
    assert.equal(await page.locator('#graph-box g.edge.chosen').count(), 0);
});

test('the unobserved appends of a lost update: the other order is drawn too', async () => {
    const prev = await finishedCount(page);
    await setEditorText(page, readFileSync(join(demoDir, '..', 'tests', 'cases', 'G-single', 'unobserved-appends.edn'), 'utf8'));
    await page.click('#check');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    const cases = await page.evaluate(() => [...document.querySelectorAll('#cases figure')].map((f) => ({
        caption: f.querySelector('figcaption').textContent,
        edges: [...f.querySelectorAll('g.edge')].map((e) => `${e.classList.contains('chosen') ? 'chosen ' : ''}${[...e.classList].find((c) => c.startsWith('edge-'))}`),
    })));
    assert.equal(cases.length, 1);
    assert.match(cases[0].caption, /^The other order \(T\d+'s write of key x before T\d+'s\) closes this cycle: every order is a violation\.$/);
    assert.deepEqual(cases[0].edges, ['chosen edge-ww', 'edge-rw']);
    const { named, drawn } = await namedAndDrawn();
    assert.deepEqual(drawn, named);
});

const plume = ['w(1,1,0,0)', 'w(2,1,0,0)', 'r(1,1,1,1)', 'r(2,1,2,2)', 'w(2,2,1,1)', 'w(1,2,2,2)', ''].join('\n');

test('a Plume text history is shown in its own notation, with real lines, marked in the editor', async () => {
    const prev = await finishedCount(page);
    await setEditorText(page, plume);
    await page.click('#check');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.deepEqual(await verdicts(page), { SER: 'violated', SI: 'holds', PSI: 'holds', 'PL-2': 'holds', 'PL-1': 'holds' });
    const explanation = await page.textContent('#explanation');
    assert.match(explanation, /T1 = r\(1,1,1,1\) w\(2,2,1,1\) \(lines 3, 5\)/);
    assert.match(explanation, /T0 = w\(1,1,0,0\) w\(2,1,0,0\) \(lines 1-2\)/);
    assert.doesNotMatch(explanation, /\[:|:index|nil/, 'no Jepsen notation');
    // Select the first edge: its operations are shown as written, with their own lines, and marked.
    await page.click('#graph-box [data-edge="0"] .label');
    await page.waitForSelector('#selection .why');
    const ops = await page.evaluate(() => [...document.querySelectorAll('#selection button.op')].map((b) => b.textContent));
    const lines = plume.split('\n');
    assert.equal(ops.length, 2);
    const opLines = ops.map((op) => {
        const m = /^T(\d+), op (\d+), line (\d+): (.*)$/.exec(op);
        assert.ok(m, op);
        assert.equal(lines[Number(m[3]) - 1], m[4], `${op}: the operation is on its line`);
        return m[3];
    });
    // The editor marks exactly those two lines, and the button selects the operation's text.
    const gutter = await page.evaluate(() => [...document.querySelectorAll('.gutter-inner > div')].filter((d) => d.className).map((d) => d.textContent));
    assert.deepEqual(gutter.sort(), [...opLines].sort());
    await page.click('#selection .op-from');
    const selected = await page.evaluate(() => {
        const ta = document.getElementById('history');
        return ta.value.slice(ta.selectionStart, ta.selectionEnd);
    });
    assert.equal(selected, /: (.*)$/.exec(ops[0])[1]);
    await screenshot(page, '11-plume-notation');
});

test('the sub-history of a Plume history is Plume text, and grail finds the cycle in it', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-edn')]);
    await page.waitForFunction(() => document.getElementById('sub-text').textContent !== '');
    const text = readFileSync(await download.path(), 'utf8');
    assert.match(download.suggestedFilename(), /^grail-G2-item-T1-T2\.txt$/);
    assert.equal(text, await page.textContent('#sub-text'));
    assert.equal(await page.getAttribute('#sub', 'data-verified'), 'true');
    // Every line is one of the input's, in the input's order.
    const lines = plume.split('\n').filter(Boolean);
    const got = text.split('\n').filter(Boolean);
    assert.deepEqual(got, lines.filter((l) => got.includes(l)));
    assert.equal(got.length, 6, 'T0 is needed: without it the reads of 1 read nothing written');
    const grail = await import(join(demoDir, '..', 'bindings', 'wasm', 'pkg', 'node.mjs'));
    const r = grail.check(text);
    assert.equal(r.levels.SER.verdict, 'violated');
    assert.match(await page.textContent('#sub-status'), /^3 transactions \(T0, T1, T2\); grail finds the same cycle in them, and none can be left out\. Downloaded as grail-G2-item-T1-T2\.txt\./);
});
