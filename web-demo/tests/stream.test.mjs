// In headless Chromium: the pasted history replayed as a stream (issue 35). The page feeds it to
// grail's online checker line by line, shows each violation when the line that closes it has
// arrived (before the replay ends), then the levels online.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useDemoPage, waitForCheck, finishedCount, setEditorText, screenshot } from './helpers.mjs';

let page;

useDemoPage((d) => ({ page } = d));

// A lost update that closes at line 2 of 10 (the rest: transactions on other keys).
const LOST_UPDATE = [
    '{:type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}',
    '{:type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}',
    '{:type :ok, :process 2, :value [[:r :x [1 2]]]}',
    ...Array.from({ length: 7 }, (_, i) => `{:type :ok, :process ${3 + i}, :value [[:r :k${i} []] [:append :k${i} 1]]}`),
].join('\n') + '\n';

test('a replay shows the lost update while the stream goes on, then the levels online', async () => {
    const prev = await finishedCount(page);
    await setEditorText(page, LOST_UPDATE);
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    await page.click('#replay');
    await page.waitForSelector('#stream-events li');
    // The first violation is shown before the stream has ended.
    const first = await page.evaluate(() => ({
        event: document.querySelector('#stream-events li').textContent,
        status: document.getElementById('stream-status').textContent,
        state: document.getElementById('stream').dataset.state,
    }));
    assert.match(first.event, /^by line 2 T1 closed a cycle of class other \(G2-item, provisional\): T0 -rw-> T1 -rw-> T0$/, first.event);
    assert.equal(first.state, 'running', `the replay had ended: ${first.status}`);
    assert.match(first.status, /^Line [2-9] of 10/);
    await page.waitForFunction(() => document.getElementById('stream').dataset.state === 'done');
    const levels = await page.evaluate(() =>
        Object.fromEntries([...document.querySelectorAll('#stream-levels tbody tr')].map((r) => [r.cells[0].textContent, r.cells[1].textContent])),
    );
    assert.equal(levels.SI, 'violated');
    assert.equal(levels['PL-2'], 'holds');
    assert.equal(levels.RC, 'holds'); // decided at the end by the offline engine
    assert.match(await page.textContent('#stream-status'), /Replayed 10 transactions: 1 violation reported as they closed\./);
    await screenshot(page, 'stream-replay');
    // Another text: the replay of the old one goes (it would mislead).
    const prev2 = await finishedCount(page);
    await setEditorText(page, LOST_UPDATE.split('\n').slice(3).join('\n'));
    assert.equal(await waitForCheck(page, { previous: prev2 }), 'done');
    assert.equal(await page.evaluate(() => document.getElementById('stream').hidden), true);
});

test('a register history is replayed in rounds: its lost update is shown, then the levels', async () => {
    const prev = await finishedCount(page);
    await setEditorText(page, '{:type :ok, :process 0, :value [[:r :x nil] [:w :x 1]]}\n{:type :ok, :process 1, :value [[:r :x nil] [:w :x 2]]}\n{:type :ok, :process 2, :value [[:r :x 2]]}\n');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    await page.click('#replay');
    await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('stream').dataset.state));
    assert.equal(await page.evaluate(() => document.getElementById('stream').dataset.state), 'done', await page.textContent('#stream-status'));
    assert.match(await page.textContent('#stream-events'), /G-single/);
    const levels = await page.evaluate(() =>
        Object.fromEntries([...document.querySelectorAll('#stream-levels tbody tr')].map((r) => [r.cells[0].textContent, r.cells[1].textContent])),
    );
    assert.equal(levels.SI, 'violated');
    assert.equal(levels['PL-2'], 'holds');
});

test('a cycle through session order is replayed by its anomaly, with no class of the dependency graph', async () => {
    // Process 0 writes x, then reads x's initial value (tests/cases/session/read-your-writes.edn).
    const prev = await finishedCount(page);
    await setEditorText(page, '{:type :ok, :process 0, :value [[:w :x 1]]}\n{:type :ok, :process 0, :value [[:r :x nil]]}\n');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    await page.click('#replay');
    await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('stream').dataset.state));
    const events = await page.textContent('#stream-events');
    // Once "a cycle of class other (G2-item)": a session step is no rw edge.
    // Found by the engine's check at the end, not as T1 arrived: the line says so.
    assert.match(events, /Found at the end of the stream \(after T1\): a cycle \(G-single-process\): T0 -so-> T1 -rw-> T0/, events);
    assert.doesNotMatch(events, /G2-item|class other/, events);
});
