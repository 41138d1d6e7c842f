// In headless Chromium: the editor. A broken history shows its error at the right line and
// column; history text is only ever text; files open by picking (gzip too) and by dropping;
// JSON histories get their operations marked as EDN ones do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { useDemoPage, startServer, launch, openPage, waitForCheck, finishedCount, verdicts, setEditorText, screenshot, demoDir, serialHistory } from './helpers.mjs';

let server;
let browser;
let page;

// With no link, the page opens on the H5 lost update and checks it.
useDemoPage((d) => ({ server, browser, page } = d));

const checkId = () => finishedCount(page);

/** Geometry of the editor's marks: [{line (from the box's top), kind}]. */
/** The marked lines, once at least `atLeast` marks are drawn (they follow the selection). */
async function markLines(atLeast = 1) {
    await page.waitForFunction((n) => document.querySelectorAll('.overlay .mark').length >= n, atLeast);
    return page.evaluate(() => {
        const ta = document.getElementById('history');
        const cs = getComputedStyle(ta);
        const lh = parseFloat(cs.lineHeight);
        const pad = parseFloat(cs.paddingTop);
        return [...document.querySelectorAll('.overlay .mark')].map((d) => ({
            line: Math.round((parseFloat(d.style.top) + ta.scrollTop - pad) / lh) + 1,
            left: parseFloat(d.style.left),
            kind: d.className.replace('mark mark-', ''),
        }));
    });
}

test('a syntax error is shown at its line and column, and the caret can go there', async () => {
    const lines = [
        '; a broken history',
        '{:index 0, :type :ok, :process 0, :value [[:append x 1]]}',
        '{:index 1, :type :ok, :process 1, :value [[:r x [1 }',
        '{:index 2, :type :ok, :process 2, :value [[:r x [1]]]}',
    ];
    const text = lines.join('\n');
    const column = lines[2].indexOf('}') + 1;
    const prev = await checkId();
    await setEditorText(page, text);
    assert.equal(await waitForCheck(page, { previous: prev }), 'error');
    const message = await page.textContent('#error-text');
    assert.ok(message.startsWith(`line 3, column ${column}:`), message);
    assert.equal(await page.getAttribute('#history', 'aria-invalid'), 'true');
    assert.equal(await page.isVisible('#report'), false);
    // The gutter and the overlay mark line 3; the mark starts at the column.
    const gutter = await page.evaluate(() => [...document.querySelectorAll('.gutter-inner > div.mark-error')].map((d) => d.textContent));
    assert.deepEqual(gutter, ['3']);
    const marks = await markLines();
    assert.equal(marks.length, 1);
    assert.equal(marks[0].line, 3);
    assert.equal(marks[0].kind, 'error');
    const expectedLeft = await page.evaluate((col) => {
        const ta = document.getElementById('history');
        const probe = document.querySelector('.measure').getBoundingClientRect().width / 100;
        return parseFloat(getComputedStyle(ta).paddingLeft) + (col - 1) * probe - ta.scrollLeft;
    }, column);
    assert.ok(Math.abs(marks[0].left - expectedLeft) < 1, `mark at ${marks[0].left}px, column ${column} at ${expectedLeft}px`);
    await screenshot(page, '03-syntax-error');
    await page.click('#goto-error');
    const caret = await page.evaluate(() => {
        const ta = document.getElementById('history');
        return { focused: document.activeElement === ta, at: ta.value.slice(ta.selectionStart, ta.selectionStart + 1), start: ta.selectionStart };
    });
    assert.equal(caret.focused, true);
    assert.equal(caret.at, '}');
    assert.equal(caret.start, text.indexOf('}', text.indexOf('[:r x [1 ')));
});

test('an error after a check leaves no verdict of the text before', async () => {
    let prev = await checkId();
    await setEditorText(page, '{:index 0, :type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}\n{:index 2, :type :ok, :process 2, :value [[:r :x [1 2]]]}');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.match(await page.textContent('#lattice'), /Weakest violated/);
    prev = await checkId();
    await setEditorText(page, '{:index 0, :type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}\n{:index 1, :type :ok, :process 1, :value [[:r :x [');
    assert.equal(await waitForCheck(page, { previous: prev }), 'error');
    assert.equal(await page.isVisible('#editor-error'), true);
    assert.equal(await page.textContent('#lattice'), '');
    assert.match(await page.textContent('#status'), /could not be read/);
});

test('one transaction is one, not "1 transactions"', async () => {
    const prev = await checkId();
    await setEditorText(page, '{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    const status = await page.textContent('#status');
    assert.match(status, /^Checked 1 transaction \(list-append\)/);
    assert.doesNotMatch(status, /1 transactions/);
});

test('a shape error after wide characters: the column counts characters', async () => {
    const text = '{:index 0, :type :ok, :value [[:append "😀é€" 1] [:bogus x 1]]}\n';
    const prev = await checkId();
    await setEditorText(page, text);
    assert.equal(await waitForCheck(page, { previous: prev }), 'error');
    assert.match(await page.textContent('#error-text'), /^line 1, column 50: .*bogus/);
    await page.click('#goto-error');
    const at = await page.evaluate(() => {
        const ta = document.getElementById('history');
        return ta.value.slice(ta.selectionStart, ta.selectionStart + 6);
    });
    assert.equal(at, ':bogus');
    // Fixing the text (typing) clears the error and checks again.
    const fixed = text.replace(':bogus', ':append');
    const prev2 = await checkId();
    await setEditorText(page, fixed);
    assert.equal(await waitForCheck(page, { previous: prev2 }), 'done');
    assert.equal(await page.isVisible('#editor-error'), false);
    assert.equal(await page.getAttribute('#history', 'aria-invalid'), null);
});

test('history text is rendered as text, never as markup', async () => {
    const key = '"<img src=x onerror=window.__xss=1><b>bold</b>"';
    const text = [
        `{:index 0, :type :ok, :process 0, :value [[:r ${key} []] [:append ${key} 1]]}`,
        `{:index 1, :type :ok, :process 1, :value [[:r ${key} []] [:append ${key} 2]]}`,
        `{:index 2, :type :ok, :process 2, :value [[:r ${key} [2]]]}`,
    ].join('\n');
    const prev = await checkId();
    await setEditorText(page, text);
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    await page.click('#graph-box [data-edge="0"] .label');
    await page.waitForSelector('#selection .why');
    const seen = await page.evaluate(() => ({
        img: document.querySelectorAll('#results img, #results b').length,
        xss: window.__xss,
        explanation: document.getElementById('explanation').textContent,
        selection: document.getElementById('selection').textContent,
        label: document.querySelector('#graph-box [data-edge="0"] .label').textContent,
    }));
    assert.equal(seen.img, 0);
    assert.equal(seen.xss, undefined);
    assert.ok(seen.explanation.includes('<img src=x onerror=window.__xss=1><b>bold</b>'));
    assert.ok(seen.selection.includes('<b>bold</b>'));
    assert.ok(seen.label.includes('<img src=x'));
    assert.deepEqual(page.problems, []);
});

test('open a gzip file: it is unpacked in the browser and checked', async () => {
    const text = readFileSync(join(demoDir, 'examples', 'h2-write-skew.edn'));
    const prev = await checkId();
    await page.setInputFiles('#file', { name: 'write-skew.edn.gz', mimeType: 'application/gzip', buffer: gzipSync(text) });
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.equal(await page.inputValue('#history'), text.toString());
    assert.match(await page.textContent('#source-info'), /write-skew\.edn\.gz \(gzip, unpacked\)/);
    assert.deepEqual(await verdicts(page), { SER: 'violated', SI: 'holds', PSI: 'holds', 'PL-2': 'holds', 'PL-1': 'holds' });
});

test('drop a file on the editor', async () => {
    const text = readFileSync(join(demoDir, 'examples', 'h8-write-cycle.edn'), 'utf8');
    const prev = await checkId();
    const dt = await page.evaluateHandle((t) => {
        const d = new DataTransfer();
        d.items.add(new File([t], 'write-cycle.edn', { type: 'text/plain' }));
        return d;
    }, text);
    await page.dispatchEvent('#editor', 'dragover', { dataTransfer: dt });
    assert.equal(await page.evaluate(() => document.getElementById('editor').classList.contains('dragging')), true);
    await page.dispatchEvent('#editor', 'drop', { dataTransfer: dt });
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.equal(await page.inputValue('#history'), text);
    assert.deepEqual(await verdicts(page), { SER: 'violated', SI: 'violated', PSI: 'violated', 'PL-2': 'violated', 'PL-1': 'violated' });
});

test('an elle JSON history: verdicts, and its operations marked in the editor', async () => {
    const text = readFileSync(join(demoDir, '..', 'tests', 'cases', 'elle-json', 'read-skew.json'), 'utf8');
    const prev = await checkId();
    await setEditorText(page, text);
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.deepEqual(await verdicts(page), { SER: 'violated', SI: 'violated', PSI: 'violated', 'PL-2': 'holds', 'PL-1': 'holds' });
    await page.click('#graph-box [data-edge="0"] .label');
    await page.waitForSelector('#selection .why');
    const marks = await markLines(2);
    assert.deepEqual(marks.map((m) => m.line).sort(), [3, 4]);
    await page.click('#selection .op-to');
    const selected = await page.evaluate(() => {
        const ta = document.getElementById('history');
        return ta.value.slice(ta.selectionStart, ta.selectionEnd);
    });
    assert.match(selected, /^\["(append|r)", [23], (1|\[\]|\[1\])\]$/);
});

/** Select each edge of the graph in turn: the text of the marks, and of the op buttons' selections. */
async function edgeMarks() {
    const n = await page.evaluate(() => document.querySelectorAll('#graph-box [data-edge]').length);
    const out = [];
    for (let i = 0; i < n; i++) {
        await page.click(`#graph-box [data-edge="${i}"] .label`);
        await page.waitForFunction((j) => document.querySelector(`#graph-box [data-edge="${j}"]`).classList.contains('selected'), i);
        await markLines(2);
        const marks = await page.evaluate(() => {
            const { editor } = window.grailDemo;
            return editor.marks.map((m) => [m.kind, editor.text.slice(m.start, m.end)]);
        });
        const selected = [];
        for (const role of ['from', 'to']) {
            await page.click(`#selection .op-${role}`);
            selected.push(await page.evaluate(() => {
                const ta = document.getElementById('history');
                return ta.value.slice(ta.selectionStart, ta.selectionEnd);
            }));
        }
        out.push({ marks, selected });
    }
    return out;
}

test('marks land on the operations grail read, after wide characters, in EDN and in JSON', async () => {
    const edn = [
        '; Ünïcødé, Кириллица and 😀 before the operations: the marks must still land on them.',
        '{:index 0, :type :invoke, :process 0, :value [[:r "ключ😀" nil] [:append "ключ😀" 1]]}',
        '{:index 1, :type :invoke, :process 1, :value [[:r "ключ😀" nil] [:append "ключ😀" 2]]}',
        '{:index 2, :type :ok, :process 0, :label "😀😀", :value [[:r "ключ😀" []] [:append "ключ😀" 1]]}',
        '{:index 3, :type :ok, :process 1, :label "éé", :value [[:r "ключ😀" []]   [:append "ключ😀" 2]]}',
        '{:index 5, :type :ok, :process 2, :value [[:r "ключ😀" [2 1]]]}',
    ].join('\n');
    const json = [
        '{"transactions": [',
        ' {"id": 2, "session": 0, "label": "😀😀", "ops": [["r", "ключ😀", []], ["append", "ключ😀", 1]]},',
        ' {"id": 3, "session": 1, "label": "éé", "ops": [["r", "ключ😀", []],   ["append", "ключ😀", 2]]},',
        ' {"id": 5, "session": 2, "ops": [["r", "ключ😀", [2, 1]]]}',
        ']}',
    ].join('\n');
    const op = { edn: /^\[:(r "ключ😀" \[\]|append "ключ😀" [12])\]$/, json: /^\["(r", "ключ😀", \[\]|append", "ключ😀", [12])\]$/ };
    for (const [format, text] of [['edn', edn], ['json', json]]) {
        const prev = await checkId();
        await setEditorText(page, text);
        assert.equal(await waitForCheck(page, { previous: prev }), 'done');
        assert.equal((await verdicts(page)).SER, 'violated');
        const edges = await edgeMarks();
        assert.ok(edges.length >= 2, format);
        for (const { marks, selected } of edges) {
            assert.deepEqual(marks.map(([kind]) => kind).sort(), ['from', 'to'], format);
            for (const [, t] of marks) assert.match(t, op[format]);
            // The operation buttons select exactly what is marked.
            assert.deepEqual(selected, [marks.find(([k]) => k === 'from')[1], marks.find(([k]) => k === 'to')[1]]);
        }
        // A transaction node marks its whole map and its operations on the cycle.
        await page.click('#graph-box [data-node="3"] .disc');
        await page.waitForSelector('#selection .txn-ops');
        const txn = await page.evaluate(() => {
            const { editor } = window.grailDemo;
            return editor.marks.filter((m) => m.kind === 'txn').map((m) => editor.text.slice(m.start, m.end));
        });
        assert.deepEqual(txn, [text.split('\n')[format === 'edn' ? 4 : 2].trim().replace(/,$/, '')]);
    }
    await page.click('#graph-box [data-edge="0"] .label');
    await page.click('#selection .op-to');
    await screenshot(page, '10-spans-unicode');
});

test('with checking as you type off, the text is checked on Ctrl+Enter only', async () => {
    await page.uncheck('#auto');
    const prev = await checkId();
    await setEditorText(page, readFileSync(join(demoDir, 'examples', 'h1-serial.edn'), 'utf8'));
    await page.waitForTimeout(600);
    assert.equal(await checkId(), prev, 'no check while typing');
    assert.match(await page.textContent('#status'), /changed since the last check/);
    await page.focus('#history');
    await page.keyboard.press('Control+Enter');
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.deepEqual(await verdicts(page), { SER: 'holds', SI: 'holds', PSI: 'holds', 'PL-2': 'holds', 'PL-1': 'holds' });
    assert.equal(await page.textContent('#anomaly-list'), 'No anomaly found.');
    await page.check('#auto');
});

test('pasting a history over 1 MB shows it read-only (never laid out in the textarea); Clear returns to editing', async () => {
    const text = serialHistory(13_000);
    assert.ok(text.length > 1_000_000);
    const prev = await checkId();
    await page.focus('#history');
    const handled = await page.evaluate((t) => {
        const dt = new DataTransfer();
        dt.setData('text/plain', t);
        const ev = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
        document.getElementById('history').dispatchEvent(ev);
        return ev.defaultPrevented;
    }, text);
    assert.equal(handled, true);
    assert.equal(await waitForCheck(page, { previous: prev }), 'done');
    assert.equal(await page.getAttribute('#editor', 'data-mode'), 'view');
    assert.equal(await page.inputValue('#history'), '');
    assert.equal(await page.evaluate(() => window.grailDemo.editor.text.length), text.length);
    assert.match(await page.textContent('[data-stat="transactions"]'), /^13,000 /);
    assert.deepEqual(await verdicts(page), { SER: 'holds', SI: 'holds', PSI: 'holds', 'PL-2': 'holds', 'PL-1': 'holds' });
    await page.click('#clear');
    assert.equal(await page.getAttribute('#editor', 'data-mode'), 'edit');
    assert.equal(await page.isVisible('#view-note'), false);
    assert.equal(await page.textContent('#status'), 'Paste a history, open a file or pick an example.');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'history');
});
