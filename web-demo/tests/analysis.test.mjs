// In headless Chromium: the results show grail's anomaly counts (report.analysis): cycles by
// Zellag & Kemme's, LDBC's and Adya's classes, LDBC's read anomalies, lengths, label patterns
// and how many transactions lie on cycles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useDemoPage, finishedCount, waitForCheck, setEditorText, loadExample, screenshot } from './helpers.mjs';

let page;
useDemoPage((d) => ({ page } = d));

/** The class-count rows shown: {"zellag lost update": 1, ...}. */
function counts(page) {
    return page.evaluate(() =>
        Object.fromEntries([...document.querySelectorAll('#class-counts tbody tr[data-class]')].map((tr) => [`${tr.dataset.scheme} ${tr.dataset.class}`, Number(tr.querySelector('.count').textContent.replace(/,/g, ''))])),
    );
}

test('the counts of the opening example (H5 lost update)', async () => {
    assert.equal(await page.isVisible('#analysis'), true);
    const c = await counts(page);
    // The lost update, and the reader that saw the lost write (Zellag & Kemme's v-lost update).
    assert.equal(c['zellag lost update'], 1);
    assert.equal(c['zellag v-lost update'], 1);
    assert.equal(c['ldbc LU'], 2);
    assert.equal(c['adya G-single'], 1);
    assert.equal(c['adya G2-item'], 1);
    assert.match(await page.textContent('#analysis-summary'), /^2 cycles of at most 6 transactions\./);
    assert.match(await page.textContent('#length-counts'), /By length: 2: 1, 3: 1\./);
});

test('counts by class, read anomaly and label pattern for a pasted history', async () => {
    const before = await finishedCount(page);
    await setEditorText(
        page,
        [
            '{:type :ok, :f :deposit, :value [[:r :x []] [:append :x 1]]}',
            '{:type :ok, :f :deposit, :value [[:r :x []] [:append :x 2]]}',
            '{:type :ok, :f :audit, :value [[:r :x [1 2]]]}',
            '{:type :ok, :f :a, :value [[:r :u []] [:r :v []] [:append :u 1]]}',
            '{:type :ok, :f :b, :value [[:r :u []] [:r :v []] [:append :v 1]]}',
            '{:type :ok, :f :pay, :value [[:append :p 1] [:append :q 1]]}',
            '{:type :ok, :f :audit, :value [[:r :p [1]] [:r :q []]]}',
        ].join('\n'),
    );
    assert.equal(await waitForCheck(page, { previous: before }), 'done');
    const c = await counts(page);
    assert.equal(c['zellag lost update'], 1);
    assert.equal(c['zellag write skew'], 1);
    assert.equal(c['zellag read skew'], 1);
    assert.equal(c['ldbc OTV'], 1);
    assert.equal(c['ldbc FR'], 1);
    assert.equal(c['zellag t-read skew'], undefined, 'classes with no cycle are not listed');
    assert.match(await page.textContent('#analysis-summary'), /on no cycle: 1 \(14\.3%\), on one: 6 \(85\.7%\)/);
    const patterns = await page.evaluate(() => [...document.querySelectorAll('#pattern-counts li')].map((li) => li.textContent));
    assert.ok(patterns.includes('{a, b}: 1') && patterns.includes('{audit, pay}: 1') && patterns.includes('{deposit}: 1'), patterns.join(' | '));
    await screenshot(page, '09-anomaly-counts', { fullPage: true });
});

test('a history without cycles says so', async () => {
    await loadExample(page, 'h1-serial');
    assert.match(await page.textContent('#class-counts tbody'), /No cycle and no read anomaly\./);
    assert.match(await page.textContent('#analysis-summary'), /^0 cycles/);
});
