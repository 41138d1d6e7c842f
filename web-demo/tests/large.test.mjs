// In headless Chromium: a 100,000-transaction history (generated here) is checked in the
// worker with progress shown and the page responsive; a running check can be cancelled, through
// grail's progress callback (cross-origin isolated page) or by stopping the worker (not isolated).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, waitForCheck, finishedCount, verdicts, screenshot, serialHistory, manifest, loadExample } from './helpers.mjs';

const N = 100_000;
const big = Buffer.from(serialHistory(N));
let server;
let browser;

before(async () => {
    server = await startServer();
    browser = await launch();
});

after(async () => {
    await browser?.close();
    await server?.close();
});

/**
 * Record what the progress box says, and the longest stall of the page's main thread. Also while
 * the box is still hidden (it shows after a delay): a warm read of this history can end within it.
 */
function watch(page) {
    return page.evaluate(() => {
        const w = { seen: [], maxGap: 0 };
        window.__watch = w;
        const box = document.getElementById('progress');
        const note = () => {
            w.seen.push(document.getElementById('progress-text').textContent);
        };
        w.observer = new MutationObserver(note);
        w.observer.observe(box, { attributes: true, childList: true, subtree: true, characterData: true });
        let last = performance.now();
        w.timer = setInterval(() => {
            const now = performance.now();
            if (document.getElementById('results').dataset.state === 'running') w.maxGap = Math.max(w.maxGap, now - last);
            last = now;
        }, 20);
    });
}

/**
 * Cancel the next check as soon as its progress box shows (in the page, so that the check
 * cannot end first): by clicking Cancel, or by pressing Escape.
 */
// Cancel as soon as the page reports the check as running. (Not when the progress box shows:
// it shows after a delay, and a warm check of this history can finish within it.)
function armCancel(page, how) {
    return page.evaluate((how) => {
        const status = document.getElementById('status');
        const o = new MutationObserver(() => {
            if (status.textContent !== 'Checking…') return;
            o.disconnect();
            window.__cancelledAt = performance.now();
            if (how === 'click') document.getElementById('cancel').click();
            else document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
        });
        o.observe(status, { childList: true, characterData: true, subtree: true });
    }, how);
}

function watched(page) {
    return page.evaluate(() => {
        const w = window.__watch;
        w.observer.disconnect();
        clearInterval(w.timer);
        return { seen: w.seen, maxGap: w.maxGap };
    });
}

test(`a ${N.toLocaleString('en')}-transaction history: progress appears, the page stays responsive, the result arrives`, async (t) => {
    // The box at once: with the usual 150 ms delay, a fast machine can finish before it shows.
    const page = await openPage(browser, `${server.url}?progress-delay=0`);
    await page.waitForFunction(() => document.getElementById('results').dataset.finished === '1');
    await watch(page);
    const prev = await finishedCount(page);
    await page.setInputFiles('#file', { name: 'serial-100k.edn', mimeType: 'text/plain', buffer: big });
    await page.waitForSelector('#progress:not([hidden])', { timeout: 20_000 });
    await page.waitForFunction(() => /Read 100,000 transactions/.test(document.getElementById('progress-text').textContent), null, { timeout: 60_000 });
    await screenshot(page, '04-large-progress');
    assert.equal(await waitForCheck(page, { previous: prev, timeout: 120_000 }), 'done');
    const { seen, maxGap } = await watched(page);
    assert.ok(seen.some((t) => /^Reading 9\.\d MB…/.test(t)), `progress while reading: ${seen.slice(0, 3)}`);
    assert.ok(seen.some((t) => t.includes('Read 100,000 transactions (list-append).')), 'progress after reading');
    assert.ok(seen.some((t) => t.includes('Dependency graph: 100,000 vertices')), 'progress after the graph');
    t.diagnostic(`longest stall of the page's main thread during the check: ${Math.round(maxGap)} ms`);
    assert.ok(maxGap < 750, `the main thread stalled for ${Math.round(maxGap)} ms during the check`);
    assert.equal(await page.isVisible('#progress'), false);
    assert.deepEqual(await verdicts(page), { SER: 'holds', SI: 'holds', PSI: 'holds', 'PL-2': 'holds', 'PL-1': 'holds' });
    assert.match(await page.textContent('[data-stat="transactions"]'), /^100,000 \(100,000 committed, 0 aborted, 0 indeterminate\)$/);
    assert.match(await page.textContent('[data-stat="graph"]'), /^100,000 vertices/);
    assert.match(await page.textContent('#status'), /^Checked 100,000 transactions \(list-append\) in .*Holds: SER, SI, PSI, PL-2, PL-1\.$/);
    // Shown read-only in the viewer, which draws only the lines in view.
    assert.equal(await page.getAttribute('#editor', 'data-mode'), 'view');
    assert.match(await page.textContent('#view-note-text'), /is large \(9\.\d MB, 100,002 lines\): it is shown read-only/);
    assert.equal(await page.textContent('.viewer-lines > div:first-child'), '; A serial list-append history, generated by the browser tests.');
    assert.ok((await page.$$('.viewer-lines > div')).length < 100);
    await page.evaluate(() => {
        document.querySelector('.viewer').scrollTop = 1e9;
    });
    await page.waitForFunction(() => document.querySelector('.gutter-inner > div:last-child')?.textContent === '100002');
    assert.equal(
        await page.evaluate(() => [...document.querySelectorAll('.viewer-lines > div')].at(-2).textContent),
        '{:index 99999, :type :ok, :process 7, :value [[:r 19999 [99995 99996 99997 99998]] [:append 19999 99999]]}',
    );
    await screenshot(page, '05-large-done');

    // Cancel a running check (cross-origin isolated: through the progress callback, or by
    // stopping the worker if it is busy reading); then the page checks again as before.
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    const prev2 = await finishedCount(page);
    await armCancel(page, 'click');
    await page.click('#check');
    assert.equal(await waitForCheck(page, { previous: prev2, timeout: 5_000 }), 'cancelled');
    const late = await page.evaluate(() => performance.now() - window.__cancelledAt);
    assert.ok(late < 2000, `cancelled ${Math.round(late)} ms after the click`);
    const restarts = await page.evaluate(() => window.grailDemo.checker.restarts);
    t.diagnostic(`cancelled ${Math.round(late)} ms after the click, ${restarts ? 'by restarting the worker' : "through grail's progress callback"}`);
    assert.equal(await page.textContent('#status'), 'The check was cancelled.');
    assert.equal(await page.isVisible('#report'), false);
    // The cancel flag reaches grail itself: a check whose id is already marked stops at grail's
    // first progress event, with grail's own message, and the worker is not restarted.
    const viaGrail = await page.evaluate(async () => {
        const c = window.grailDemo.checker;
        const restarts = c.restarts;
        Atomics.store(c.flag, 0, c.nextId);
        const req = c.check('{:index 0, :type :ok, :value [[:r x []]]}', []);
        try {
            await req.promise;
            return 'not cancelled';
        } catch (e) {
            return [e.kind, e.message, c.restarts - restarts];
        }
    });
    assert.deepEqual(viaGrail, ['cancelled', 'the check was cancelled by the progress callback', 0]);
    const ws = manifest.examples.find((e) => e.id === 'h2-write-skew');
    await loadExample(page, ws.id);
    assert.deepEqual(await verdicts(page), ws.expected.levels);
    assert.deepEqual(page.problems, []);
    await page.context().close();
});

test('without cross-origin isolation, Escape cancels by stopping the worker, which starts again', async () => {
    const plain = await startServer({ isolated: false });
    const page = await openPage(browser, plain.url);
    try {
        await page.waitForFunction(() => document.getElementById('results').dataset.finished === '1');
        assert.equal(await page.evaluate(() => crossOriginIsolated), false);
        assert.match(await page.textContent('[data-stat="engine"]'), /cancels by terminate/);
        const prev = await finishedCount(page);
        await armCancel(page, 'escape');
        await page.setInputFiles('#file', { name: 'serial-100k.edn', mimeType: 'text/plain', buffer: big });
        assert.equal(await waitForCheck(page, { previous: prev, timeout: 20_000 }), 'cancelled');
        assert.equal(await page.textContent('#status'), 'The check was cancelled.');
        assert.equal(await page.evaluate(() => window.grailDemo.checker.restarts), 1);
        // A new worker loads grail again; the next check works.
        await page.waitForFunction(() => document.body.dataset.engine === 'ready');
        const lu = manifest.examples.find((e) => e.id === 'ldbc-lu');
        await loadExample(page, lu.id);
        assert.deepEqual(await verdicts(page), lu.expected.levels);
        assert.deepEqual(page.problems, []);
    } finally {
        await page.context().close();
        await plain.close();
    }
});
