// The page's pure helpers, in Node: finding transactions and operations in the history text
// (EDN, elle JSON, grail JSON), columns in bytes, sub-histories as EDN, and share links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineStarts, lineOf, offsetOf, opSpan, txnSpan, parseOp, transactionEdn, subHistoryEdn, transactionLines, fillLines } from '../src/source.mjs';
import { encodeShare, decodeShare, fileText, base64url, fromBase64url } from '../src/share.mjs';
import { gzipSync } from 'node:zlib';

const edn = [
    '; a comment with [brackets] and {braces}',
    '{:index 0, :type :invoke, :process 0, :value [[:r x nil] [:append x 1]]}',
    '{:index 2, :type :ok, :process 0, :value [[:r x []] [:append "k y" 1]]}',
    '{:type :ok, :process 1, :value [[:r x [1 2]]]}',
].join('\n');

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
});

test('EDN: the operation of a transaction, found by line and :index', () => {
    const s = lineStarts(edn);
    const span = opSpan(edn, s, 3, 2, 1);
    assert.equal(edn.slice(span.start, span.end), '[:append "k y" 1]');
    const t = txnSpan(edn, s, 3, 2);
    assert.ok(edn.slice(t.start, t.end).startsWith('{:index 2, :type :ok'));
    // No :index: the map on that line.
    const u = opSpan(edn, s, 4, 3, 0);
    assert.equal(edn.slice(u.start, u.end), '[:r x [1 2]]');
    assert.equal(opSpan(edn, s, 3, 2, 5), null);
});

test('EDN: one vector of maps on one line, picked by :index', () => {
    const text = '[{:index 1, :type :ok, :value [[:append 1 1]]} {:index 2, :type :ok, :value [[:r 1 [1]] [:append 1 2]]}]';
    const s = lineStarts(text);
    const span = opSpan(text, s, 1, 2, 1);
    assert.equal(text.slice(span.start, span.end), '[:append 1 2]');
});

test('JSON: elle operations and grail transactions', () => {
    const elle = '[{"type": "ok", "process": 0, "index": 3, "value": [["append", 1, 2], ["r", 1, [2]]]},\n {"type":"ok","index":4,"value":[["r",1,[2]]]}]';
    const s = lineStarts(elle);
    const span = opSpan(elle, s, 1, 3, 1);
    assert.equal(elle.slice(span.start, span.end), '["r", 1, [2]]');
    const v = opSpan(elle, s, 2, 4, 0);
    assert.equal(elle.slice(v.start, v.end), '["r",1,[2]]');
    const native = '{"transactions": [\n {"id": 1, "session": 1, "status": "committed", "ops": [["r", "x", null], ["w", "x", 1]]}\n]}';
    const n = lineStarts(native);
    const w = opSpan(native, n, 2, 1, 1);
    assert.equal(native.slice(w.start, w.end), '["w", "x", 1]');
    assert.equal(
        transactionEdn(native, n, { id: 1, status: 'committed', process: 1, line: 2 }),
        '{:index 1, :type :ok, :process 1, :value [[:r "x" nil] [:w "x" 1]]}',
    );
});

test('lines of transactions by id, for readers that report none (JSON)', () => {
    const elle = '[{"type": "invoke", "process": 1, "index": 1, "value": [["append", 2, 1]]},\n {"type": "ok", "process": 1, "index": 2, "value": [["append", 2, 1]]},\n\n {"type": "ok", "index": 3, "value": [["r", 2, [1]]]}]';
    assert.deepEqual([...transactionLines(elle)], [[1, 1], [2, 2], [3, 4]]);
    const txns = fillLines(elle, [{ id: 2, line: null }, { id: 3, line: 9 }, { id: 7, line: null }]);
    assert.deepEqual(txns, [{ id: 2, line: 2 }, { id: 3, line: 9 }, { id: 7, line: null }]);
});

test('operations as grail prints them', () => {
    assert.deepEqual(parseOp('[:append x 2]'), { f: 'append', key: 'x', value: '2' });
    assert.deepEqual(parseOp('[:w p1 -30]'), { f: 'w', key: 'p1', value: '-30' });
    assert.deepEqual(parseOp('[:r "a b" [1 2]]'), { f: 'r', key: 'a b', value: '[1 2]' });
    assert.equal(parseOp('not an op'), null);
});

test('sub-histories: EDN maps kept as written, :index added when missing, in source order', () => {
    const s = lineStarts(edn);
    const out = subHistoryEdn(edn, s, [{ id: 3, status: 'committed', process: 1, line: 4 }, { id: 2, status: 'committed', process: 0, line: 3 }], 'two\nlines');
    assert.equal(
        out,
        '; two\n; lines\n{:index 2, :type :ok, :process 0, :value [[:r x []] [:append "k y" 1]]}\n{:index 3, :type :ok, :process 1, :value [[:r x [1 2]]]}\n',
    );
    assert.throws(() => subHistoryEdn(edn, s, [{ id: 9, status: 'committed', line: 1 }]), /T9/);
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
