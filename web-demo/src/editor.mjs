// The history editor: a plain <textarea> (so typing, selection, undo and screen readers work as
// everywhere), a line-number gutter, and an overlay that marks ranges (the error, the operations
// of a selected edge). Only the visible lines are numbered and marked.
//
// A browser lays out a whole textarea on every change: about two seconds for a 9 MB history.
// So a history larger than VIEW_LIMIT is shown read-only instead, in a viewer that draws only
// its visible lines; it keeps the gutter, the marks and scrolling to a line.

import { lineStarts, lineOf } from './text.mjs';

const TAB = 8;
/** Histories longer than this (in UTF-16 units) are shown read-only. */
export const VIEW_LIMIT = 1_000_000;

export class Editor {
    /**
     * `root` holds `.gutter`, `.code > textarea`, `.code > .viewer` and `.code > .overlay`.
     * `onInput()` is called after each edit.
     */
    constructor(root, { onInput = () => {} } = {}) {
        this.root = root;
        this.textarea = root.querySelector('textarea');
        this.viewer = root.querySelector('.viewer');
        this.viewerLines = this.viewer.querySelector('.viewer-lines');
        this.spacer = this.viewer.querySelector('.viewer-space');
        this.gutter = root.querySelector('.gutter');
        this.overlay = root.querySelector('.overlay');
        this.measure = document.createElement('span');
        this.measure.className = 'measure';
        this.measure.setAttribute('aria-hidden', 'true');
        this.measure.textContent = '0'.repeat(100);
        root.querySelector('.code').append(this.measure);
        // Measures the text before a mark on a line with wide characters (emoji, CJK).
        this.ruler = this.measure.cloneNode();
        root.querySelector('.code').append(this.ruler);
        this.mode = 'edit';
        this.value = '';
        this.starts = null;
        this.marks = [];
        this.error = null;
        this.frame = 0;
        this.textarea.addEventListener('input', () => {
            this.starts = null;
            this.marks = [];
            this.error = null;
            this.schedule();
            onInput();
        });
        this.textarea.addEventListener('scroll', () => this.schedule());
        this.viewer.addEventListener('scroll', () => this.schedule());
        const resized = new ResizeObserver(() => {
            this.metrics = null;
            this.schedule();
        });
        resized.observe(this.textarea);
        resized.observe(this.viewer);
        root.dataset.mode = this.mode;
    }

    get text() {
        return this.mode === 'view' ? this.value : this.textarea.value;
    }

    /** Replace the text; long texts switch to the read-only viewer. */
    set text(value) {
        this.mode = value.length > VIEW_LIMIT ? 'view' : 'edit';
        this.root.dataset.mode = this.mode;
        this.starts = null;
        this.marks = [];
        this.error = null;
        if (this.mode === 'view') {
            this.value = value;
            this.textarea.value = '';
            this.textarea.hidden = true;
            this.viewer.hidden = false;
            let widest = 0;
            const s = this.lines;
            for (let i = 0; i < s.length; i++) {
                const end = i + 1 < s.length ? s[i + 1] - 1 : value.length;
                widest = Math.max(widest, end - s[i]);
            }
            this.widest = widest;
            this.viewer.scrollTop = 0;
            this.viewer.scrollLeft = 0;
        } else {
            this.value = '';
            this.viewer.hidden = true;
            this.textarea.hidden = false;
            this.textarea.value = value;
            this.textarea.scrollTop = 0;
            this.textarea.scrollLeft = 0;
        }
        this.metrics = null;
        this.schedule();
    }

    /** The element that scrolls: the textarea, or the viewer. */
    get scroller() {
        return this.mode === 'view' ? this.viewer : this.textarea;
    }

    /** Line start offsets of the current text. */
    get lines() {
        this.starts ??= lineStarts(this.text);
        return this.starts;
    }

    /** Mark the text invalid (or not) for assistive technology. */
    setInvalid(on) {
        for (const e of [this.textarea, this.viewer]) {
            if (on) e.setAttribute('aria-invalid', 'true');
            else e.removeAttribute('aria-invalid');
        }
    }

    /**
     * Set the marked ranges: `[{start, end, kind}]` with kind `from`, `to`, `txn`, `op` (string
     * offsets). Replaces the previous marks; the error stays.
     */
    setMarks(marks) {
        this.marks = marks;
        this.schedule();
    }

    /** Mark an error at a string offset (a token's width), or clear it with null. */
    setError(offset) {
        if (offset === null || offset === undefined) {
            this.error = null;
        } else {
            const text = this.text;
            let end = offset;
            while (end < text.length && !/[\s,\[\]{}()]/.test(text[end])) end++;
            this.error = { start: offset, end: Math.max(end, offset + 1) };
        }
        this.schedule();
    }

    /** Scroll so that the line of `offset` is in view (centred if it was not). */
    reveal(offset) {
        const m = this.geometry();
        const line = lineOf(this.lines, offset);
        const top = m.padTop + (line - 1) * m.lh;
        const sc = this.scroller;
        if (top < sc.scrollTop || top + m.lh > sc.scrollTop + sc.clientHeight) {
            sc.scrollTop = Math.max(0, top - sc.clientHeight / 2);
        }
        const col = this.visualColumn(line, offset);
        const left = m.padLeft + col * m.cw;
        if (left < sc.scrollLeft || left > sc.scrollLeft + sc.clientWidth - 40) {
            sc.scrollLeft = Math.max(0, left - 40);
        }
        this.schedule();
    }

    /**
     * Put the caret at `offset` (and select `length` characters), focusing the editor. The
     * read-only viewer has no caret: it scrolls there and takes the focus.
     */
    placeCaret(offset, length = 0) {
        if (this.mode === 'view') {
            this.viewer.focus();
        } else {
            this.textarea.focus();
            this.textarea.setSelectionRange(offset, offset + length);
        }
        this.reveal(offset);
    }

    geometry() {
        if (!this.metrics) {
            const cs = getComputedStyle(this.textarea);
            this.metrics = {
                lh: parseFloat(cs.lineHeight) || 20,
                cw: this.measure.getBoundingClientRect().width / 100 || 8,
                padTop: parseFloat(cs.paddingTop) || 0,
                padLeft: parseFloat(cs.paddingLeft) || 0,
            };
        }
        return this.metrics;
    }

    lineText(line) {
        const s = this.lines;
        const start = s[line - 1];
        const text = this.text;
        const end = line < s.length ? s[line] - 1 : text.length;
        return [start, text.slice(start, end)];
    }

    /** Screen column of a string offset on its line (tabs expanded). */
    visualColumn(line, offset) {
        const [start, text] = this.lineText(line);
        let col = 0;
        const upto = Math.min(offset - start, text.length);
        for (let i = 0; i < upto; i++) col = text[i] === '\t' ? col + TAB - (col % TAB) : col + 1;
        return col + Math.max(0, offset - start - text.length);
    }

    /**
     * Pixels from the start of a line to a string offset on it: the monospace grid for ASCII,
     * and the rendered width of the text before it otherwise (characters of other widths).
     */
    pixels(line, offset, cw) {
        const [start, text] = this.lineText(line);
        const before = text.slice(0, Math.max(0, offset - start));
        if (!/[^\x00-\x7f]/.test(before)) return this.visualColumn(line, offset) * cw;
        let col = 0;
        let expanded = '';
        for (const ch of before) {
            const n = ch === '\t' ? TAB - (col % TAB) : 1;
            expanded += ch === '\t' ? ' '.repeat(n) : ch;
            col += n;
        }
        this.ruler.textContent = expanded;
        return this.ruler.getBoundingClientRect().width;
    }

    schedule() {
        if (!this.frame) {
            this.frame = requestAnimationFrame(() => {
                this.frame = 0;
                this.render();
            });
        }
    }

    render() {
        const m = this.geometry();
        const sc = this.scroller;
        const starts = this.lines;
        const total = starts.length;
        const first = Math.max(1, Math.floor((sc.scrollTop - m.padTop) / m.lh) + 1);
        const last = Math.min(total, first + Math.ceil(sc.clientHeight / m.lh) + 1);

        if (this.mode === 'view') {
            this.spacer.style.height = `${2 * m.padTop + total * m.lh}px`;
            this.spacer.style.width = `${2 * m.padLeft + (this.widest + 1) * m.cw}px`;
            this.viewerLines.style.top = `${m.padTop + (first - 1) * m.lh}px`;
            this.viewerLines.style.left = `${m.padLeft}px`;
            const frag = document.createDocumentFragment();
            for (let line = first; line <= last; line++) {
                const d = document.createElement('div');
                d.textContent = this.lineText(line)[1] || ' ';
                frag.append(d);
            }
            this.viewerLines.replaceChildren(frag);
        }

        const all = this.error ? [...this.marks, { ...this.error, kind: 'error' }] : this.marks;
        const markedLines = new Map();
        const boxes = [];
        for (const mark of all) {
            const sl = lineOf(starts, mark.start);
            const el = lineOf(starts, Math.max(mark.start, mark.end - 1));
            for (let line = Math.max(sl, first); line <= Math.min(el, last); line++) {
                const [ls, lt] = this.lineText(line);
                const a = line === sl ? mark.start : ls;
                const b = line === el ? mark.end : ls + lt.length;
                const x0 = this.pixels(line, a, m.cw);
                const x1 = Math.max(x0 + m.cw, this.pixels(line, b, m.cw));
                boxes.push({ line, x0, x1, kind: mark.kind });
            }
            for (let line = sl; line <= el; line++) {
                if (!markedLines.has(line) || mark.kind === 'error') markedLines.set(line, mark.kind);
            }
        }

        // Gutter: the numbers of the visible lines.
        const digits = String(total).length;
        this.gutter.style.width = `${digits + 2}ch`;
        const frag = document.createDocumentFragment();
        for (let line = first; line <= last; line++) {
            const d = document.createElement('div');
            d.textContent = String(line);
            const kind = markedLines.get(line);
            if (kind) d.className = `mark-${kind}`;
            frag.append(d);
        }
        const inner = document.createElement('div');
        inner.className = 'gutter-inner';
        inner.style.transform = `translateY(${m.padTop + (first - 1) * m.lh - sc.scrollTop}px)`;
        inner.append(frag);
        this.gutter.replaceChildren(inner);

        // Overlay: one box per marked piece of a visible line.
        const boxFrag = document.createDocumentFragment();
        for (const b of boxes) {
            const d = document.createElement('div');
            d.className = `mark mark-${b.kind}`;
            d.style.top = `${m.padTop + (b.line - 1) * m.lh - sc.scrollTop}px`;
            d.style.left = `${m.padLeft + b.x0 - sc.scrollLeft}px`;
            d.style.width = `${b.x1 - b.x0}px`;
            d.style.height = `${m.lh}px`;
            boxFrag.append(d);
        }
        this.overlay.replaceChildren(boxFrag);
    }
}
