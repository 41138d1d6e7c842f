// The page's pure helpers, in Node, with grail's JS package: the spans grail gives transactions
// and operations mark exactly their text (after multi-byte characters, in EDN and JSON), a
// step's value comes from the typed operation, sub-histories grail writes read back to the same
// transactions, and share links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { lineStarts, lineOf, offsetOf, spanRange } from '../src/text.mjs';
import { encodeShare, decodeShare, fileText, base64url, fromBase64url } from '../src/share.mjs';

const demoDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const grail = await import(join(demoDir, '..', 'bindings', 'wasm', 'pkg', 'node.mjs'));
// graph.mjs draws with the DOM, but stepValue and keyText do not need one.
const { stepValue, keyText } = await import('../src/graph.mjs');

/** The text of every transaction and operation at the places grail gives them. */
function marked(text) {
    const h = grail.read(text);
    try {
        const starts = lineStarts(text);
        const slice = (span) => {
            const r = spanRange(text, starts, span);
            return r && text.slice(r.start, r.end);
        };
        return {
            txns: h.transactions().map((t) => ({ id: t.id, text: slice(t.span), ops: t.op_spans.map(slice), keys: t.op_keys })),
            report: h.check({ levels: ['SER'] }),
            slice,
        };
    } finally {
        h.free();
    }
}

test('lines: starts, line of an offset', () => {
    const s = lineStarts('a\nbc\n\nd');
    assert.deepEqual(s, [0, 2, 5, 6]);
    assert.equal(lineOf(s, 0), 1);
    assert.equal(lineOf(s, 3), 2);
    assert.equal(lineOf(s, 5), 3);
    assert.equal(lineOf(s, 6), 4);
});

test('columns are characters (as grail counts them), offsets UTF-16 units', () => {
    const text = 'ok\n{:a "é€😀" :b}';
    const s = lineStarts(text);
    // "😀" is one character but two UTF-16 units: column 11 is the ':' of :b.
    const off = offsetOf(text, s, 2, 11);
    assert.equal(text.slice(off, off + 2), ':b');
    assert.equal(offsetOf(text, s, 1, 1), 0);
    assert.equal(offsetOf(text, s, 9, 1), null);
    // A span's end is in UTF-8 bytes: 😀 is 4 of them, é 2, € 3.
    assert.deepEqual(spanRange(text, s, { start: 7, end: 18, line: 2, column: 5 }), { start: 7, end: 13 });
    assert.equal(spanRange(text, s, { start: 0, end: 99, line: 1, column: 1 }), null, 'past the end');
    assert.equal(spanRange(text, s, null), null);
});

test('EDN: grail marks each operation and transaction, after multi-byte characters', () => {
    const edn = [
        '; a comment with [brackets], {braces} and ünïcødé',
        '{:index 0, :type :invoke, :process 0, :value [[:r "ключ" nil] [:append "ключ" 1]]}',
        '{:index 2, :type :ok, :process 0, :label "😀 €", :value [[:r "ключ" []] [:append "ключ" 1]]}',
        '[{:type :ok, :process 1, :value [[:r "ключ" [1]]  (:append "😀" 2)]}',
        '  {:index 9, :type :ok, :process 2,',
        '   :value [[:r "😀" [2]]]}]',
    ].join('\n');
    // One map a line, then a vector of maps across lines: read separately (one layout each).
    const lines = edn.split('\n');
    const first = marked(lines.slice(0, 3).join('\n'));
    assert.deepEqual(first.txns.map((t) => t.ops), [['[:r "ключ" []]', '[:append "ключ" 1]']]);
    assert.equal(first.txns[0].text, lines[2]);
    assert.deepEqual(first.txns[0].keys, ['ключ', 'ключ']);
    const vector = ['; 😀', ...lines.slice(3)].join('\n');
    const second = marked(vector);
    assert.deepEqual(
        second.txns.map((t) => t.ops),
        [['[:r "ключ" [1]]', '(:append "😀" 2)'], ['[:r "😀" [2]]']],
    );
    assert.equal(second.txns[1].text, '{:index 9, :type :ok, :process 2,\n   :value [[:r "😀" [2]]]}');
});

test('EDN: the operations of a cycle carry their kind, key, value and span', () => {
    const edn = [
        '{:index 0, :type :invoke, :process 0, :value [[:r "ü x" nil] [:append "ü x" 1]]}',
        '{:index 1, :type :invoke, :process 1, :value [[:r "ü x" nil] [:append "ü x" 2]]}',
        '{:index 2, :type :ok, :process 0, :value [[:r "ü x" []] [:append "ü x" 1]]}',
        '{:index 3, :type :ok, :process 1, :value [[:r "ü x" []] [:append "ü x" 2]]}',
        '{:index 5, :type :ok, :process 2, :value [[:r "ü x" [2 1]]]}',
    ].join('\n');
    const { report, slice } = marked(edn);
    const steps = report.levels.SER.cycles.flatMap((c) => c.steps);
    assert.ok(steps.length > 0);
    for (const s of steps) {
        for (const op of [s.from_op, s.to_op]) {
            const text = slice(op.span);
            assert.ok(text.startsWith(`[:${op.kind} "ü x" `), text);
            assert.equal(op.key, 'ü x');
            assert.equal(text, `[:${op.kind} "ü x" ${op.kind === 'r' ? `[${op.value.join(' ')}]` : op.value}]`);
        }
        // The edge's value: the version written (wr: the one read).
        const writer = s.type === 'wr' ? s.from_op : s.to_op;
        assert.equal(stepValue(s), writer.kind === 'append' ? String(writer.value) : null);
    }
    assert.equal(keyText('ü x'), 'ü x');
});

test('JSON: grail marks the operations of elle operations and native transactions', () => {
    const elle = '[{"type": "invoke", "process": 0, "value": [["append", "é", 2], ["r", "é", null]]},\n {"type": "ok", "process": 0, "index": 3, "value": null},\n {"type":"ok","index":4,"value":[["r","é",[2]]]}]';
    const e = marked(elle);
    assert.deepEqual(e.txns.map((t) => [t.id, t.ops]), [[3, ['["append", "é", 2]', '["r", "é", null]']], [4, ['["r","é",[2]]']]]);
    assert.equal(e.txns[0].text, '{"type": "ok", "process": 0, "index": 3, "value": null}');
    const native = '{"transactions": [\n {"id": 1, "session": 1, "label": "😀", "status": "committed", "ops": [["r", "x", null], ["w", "x", 1]]},\n {"id": 2, "ops": [["r", "x", 1]]}\n]}';
    const n = marked(native);
    assert.deepEqual(n.txns.map((t) => t.ops), [['["r", "x", null]', '["w", "x", 1]'], ['["r", "x", 1]']]);
    assert.equal(n.txns[1].text, '{"id": 2, "ops": [["r", "x", 1]]}');
});

test('sub-histories: grail writes the chosen transactions in the input\'s format and reads them back alike', () => {
    const same = (t) => ({ id: t.id, status: t.status, process: t.process, label: t.label, ops: t.ops });
    for (const text of [
        '{:index 2, :type :ok, :process 0, :value [[:r x []] [:append "k y" 1]]}\n{:type :ok, :process 1, :f :audit, :value [[:r x [1 2]]]}\n{:index 4, :type :fail, :value [[:append x 9]]}',
        '{"transactions": [{"id": 1, "session": 1, "ops": [["r", "x", null], ["w", "x", 1]]}, {"id": 2, "status": "indeterminate", "ops": [["w", "é", 2]]}]}',
    ]) {
        const h = grail.read(text);
        try {
            const all = h.transactions();
            const ids = all.map((t) => t.id);
            const sub = h.subHistory(ids, { comment: 'two\nlines' });
            // EDN keeps the comment; grail's native JSON, which has none, is written as such.
            const json = text.startsWith('{"');
            assert.ok(json ? sub.startsWith('{"transactions": [\n') : sub.startsWith('; two\n; lines\n{'), sub);
            const back = grail.read(sub);
            assert.deepEqual(back.transactions().map(same), all.map(same));
            back.free();
            const one = grail.read(h.subHistory([ids[1]]));
            assert.deepEqual(one.transactions().map(same), [same(all[1])]);
            one.free();
            assert.throws(() => h.subHistory([12345]), { name: 'GrailError', kind: 'usage' });
            assert.deepEqual(h.transactions([ids[1], 12345]).map(same), [same(all[1])]);
        } finally {
            h.free();
        }
    }
});

test('share links: deflate-raw and base64url round trip, levels kept', async () => {
    const text = '{:index 0, :type :ok, :value [[:append "é" 1]]}\n'.repeat(50);
    const frag = await encodeShare(text, ['SER', 'PL-2']);
    assert.match(frag, /^levels=SER,PL-2&h=[A-Za-z0-9_-]+$/);
    assert.ok(frag.length < text.length / 4, 'compressed');
    assert.deepEqual(await decodeShare(`#${frag}`), { text, levels: ['SER', 'PL-2'] });
    assert.equal(await decodeShare('#nothing=here'), null);
    const bytes = new Uint8Array([0, 250, 251, 252, 253, 254, 255, 62, 63]);
    assert.deepEqual(fromBase64url(base64url(bytes)), bytes);
});

test('files: gzip is unpacked by its magic number, plain text passes', async () => {
    const text = '{:index 0, :type :ok, :value [[:r x []]]}\n';
    assert.deepEqual(await fileText(new Uint8Array(gzipSync(text))), { text, gzip: true });
    assert.deepEqual(await fileText(new TextEncoder().encode(text)), { text, gzip: false });
});
