// Shared by the browser tests: a static server for web-demo/dist on a free localhost port,
// headless Chromium through playwright-core, and helpers to drive the page.
import { before, after } from 'node:test';
import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const demoDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const distDir = join(demoDir, 'dist');
export const screenshotDir = join(demoDir, 'screenshots');
export const manifest = JSON.parse(readFileSync(join(demoDir, 'examples', 'manifest.json'), 'utf8'));
export const LEVELS = ['SER', 'SI', 'PSI', 'PL-2', 'PL-1'];

const TYPES = {
    '.html': 'text/html; charset=utf-8',
    '.mjs': 'text/javascript',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
    '.edn': 'text/plain; charset=utf-8',
    '.ts': 'text/plain; charset=utf-8',
};

/**
 * Serve dist/ on 127.0.0.1 and a free port. `isolated` adds the COOP/COEP headers that the
 * demo's server sends (cross-origin isolation: cancel through the progress callback).
 * Returns `{url, close()}`; `requests` counts what was served.
 */
export async function startServer({ isolated = true } = {}) {
    if (!existsSync(join(distDir, 'index.html'))) throw new Error('web-demo/dist is not built: run node web-demo/build.mjs');
    const requests = [];
    const server = createServer((req, res) => {
        const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
        const file = normalize(join(distDir, path.endsWith('/') ? `${path}index.html` : path));
        requests.push(path);
        if (!file.startsWith(distDir + sep) || !existsSync(file) || !statSync(file).isFile()) {
            res.writeHead(404, { 'content-type': 'text/plain' });
            res.end('not found');
            return;
        }
        const headers = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
        if (isolated) {
            headers['cross-origin-opener-policy'] = 'same-origin';
            headers['cross-origin-embedder-policy'] = 'require-corp';
            headers['cross-origin-resource-policy'] = 'same-origin';
        }
        res.writeHead(200, headers);
        createReadStream(file).pipe(res);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    return {
        url: `http://127.0.0.1:${port}/`,
        requests,
        close: () => new Promise((resolve) => {
            server.closeAllConnections?.();
            server.close(resolve);
        }),
    };
}

export const CHROMIUM_ARGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
];

export async function launch() {
    return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

/**
 * A new page at `url`, recording console errors and page errors in `page.problems` (tests
 * assert it stays empty).
 */
export async function openPage(browser, url, { width = 1400, height = 1000, ...options } = {}) {
    const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true, ...options });
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (m) => {
        if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.engine === 'ready', null, { timeout: 30_000 });
    return page;
}

/** How many checks the page has finished (done, failed or cancelled). */
export function finishedCount(page) {
    return page.evaluate(() => document.getElementById('results').dataset.finished ?? '0');
}

/**
 * Wait until a check finishes after `previous` (a `finishedCount`); returns the results'
 * state: `done`, `error` or `cancelled`.
 */
export async function waitForCheck(page, { previous, timeout = 30_000 }) {
    await page.waitForFunction((prev) => (document.getElementById('results').dataset.finished ?? '0') !== prev, previous, { timeout });
    return page.evaluate(() => document.getElementById('results').dataset.state);
}

/** The verdicts the table shows: {SER: 'violated', ...}. */
export function verdicts(page) {
    return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#levels-table tbody tr')].map((tr) => [tr.dataset.level, tr.querySelector('.verdict').dataset.verdict])));
}

/** The anomaly types listed, sorted and without repeats. */
export function anomalyTypes(page) {
    return page.evaluate(() => [...new Set([...document.querySelectorAll('#anomaly-list .anomaly')].map((li) => li.dataset.type))].sort());
}

/** Load a gallery example by clicking it; resolves when its check is done. */
export async function loadExample(page, id) {
    const before = await finishedCount(page);
    await page.click(`button.example[data-example="${id}"]`);
    await page.waitForFunction((i) => document.body.dataset.example === i, id);
    const state = await waitForCheck(page, { previous: before, timeout: 20_000 });
    if (state !== 'done') throw new Error(`example ${id}: the check ended in state ${state}`);
}

/** Replace the editor's text as if typed or pasted (an input event follows). */
export async function setEditorText(page, text) {
    await page.evaluate((t) => {
        const ta = document.getElementById('history');
        ta.value = t;
        ta.dispatchEvent(new Event('input', { bubbles: true }));
    }, text);
}

export async function screenshot(page, name, options = {}) {
    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: join(screenshotDir, `${name}.png`), ...options });
}

/** A serial list-append history of `n` transactions (every level holds): EDN text. */
export function serialHistory(n) {
    const lines = ['; A serial list-append history, generated by the browser tests.'];
    const lists = new Map();
    for (let i = 0; i < n; i++) {
        const k = Math.floor(i / 5);
        const l = lists.get(k) ?? [];
        lines.push(`{:index ${i}, :type :ok, :process ${i % 8}, :value [[:r ${k} [${l.join(' ')}]] [:append ${k} ${i}]]}`);
        l.push(i);
        lists.set(k, l);
    }
    return lines.join('\n') + '\n';
}

/**
 * A server, a browser and the demo page for a test file: started before its tests (the page
 * checks the example it opens on first), closed after them. `use` receives them.
 */
export function useDemoPage(use) {
    const ctx = {};
    before(async () => {
        ctx.server = await startServer();
        ctx.browser = await launch();
        ctx.page = await openPage(ctx.browser, ctx.server.url);
        await ctx.page.waitForFunction(() => document.getElementById('results').dataset.finished === '1');
        use(ctx);
    });
    after(async () => {
        await ctx.browser?.close();
        await ctx.server?.close();
    });
}
