// Finding things in the history text: lines, the text of a transaction and of its operations,
// the value an operation wrote, and a sub-history as EDN. A small reader for the EDN subset
// Jepsen writes and for JSON, keeping the source span of every form. Used by the page (to
// highlight operations in the editor) and by the worker (to write sub-histories). No DOM.

/** Offsets where each line starts (line 1 at index 0). */
export function lineStarts(text) {
    const starts = [0];
    let i = text.indexOf('\n');
    while (i !== -1) {
        starts.push(i + 1);
        i = text.indexOf('\n', i + 1);
    }
    return starts;
}

/** 1-based line of a string offset, by binary search in `starts`. */
export function lineOf(starts, offset) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= offset) lo = mid;
        else hi = mid - 1;
    }
    return lo + 1;
}

/**
 * String offset of a (1-based) line and column. grail counts columns in characters (Unicode
 * code points); the editor counts UTF-16 units, which differ for characters beyond U+FFFF.
 */
export function offsetOf(text, starts, line, column) {
    if (!line || line < 1 || line > starts.length) return null;
    const start = starts[line - 1];
    const end = line < starts.length ? starts[line] - 1 : text.length;
    let i = start;
    for (let n = 1; n < Math.max(1, column || 1) && i < end; n++) {
        i += text.codePointAt(i) > 0xffff ? 2 : 1;
    }
    return i;
}

// ---- a reader with spans -------------------------------------------------------------------

const DELIM = new Set([' ', '\t', '\n', '\r', ',', '(', ')', '[', ']', '{', '}', '"', ';']);

/** A form: `{kind, start, end, ...}`; kinds map, vector, list, string, number, keyword, symbol, nil, bool. */
class Reader {
    constructor(text, pos = 0) {
        this.s = text;
        this.pos = pos;
    }

    ws() {
        const s = this.s;
        for (;;) {
            const c = s[this.pos];
            if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ',') {
                this.pos++;
            } else if (c === ';') {
                const nl = s.indexOf('\n', this.pos);
                this.pos = nl === -1 ? s.length : nl + 1;
            } else if (c === ':' && (this.pos + 1 >= s.length || DELIM.has(s[this.pos + 1]) || this.afterString())) {
                // JSON's key separator: a lone ':', or one right after a string (a key).
                this.pos++;
            } else if (c === '#' && s[this.pos + 1] === '_') {
                this.pos += 2;
                this.form();
            } else {
                return;
            }
        }
    }

    afterString() {
        let j = this.pos - 1;
        while (j >= 0 && (this.s[j] === ' ' || this.s[j] === '\t')) j--;
        return this.s[j] === '"';
    }

    /** The next form, or null at the end or before a closing bracket. */
    form() {
        this.ws();
        const s = this.s;
        const start = this.pos;
        const c = s[start];
        if (c === undefined || c === ']' || c === '}' || c === ')') return null;
        if (c === '{' || c === '[' || c === '(') {
            const close = c === '{' ? '}' : c === '[' ? ']' : ')';
            this.pos++;
            const items = [];
            for (;;) {
                const f = this.form();
                if (f === null) break;
                items.push(f);
            }
            if (s[this.pos] !== close) throw new SyntaxError(`unclosed ${c} at offset ${start}`);
            this.pos++;
            const kind = c === '{' ? 'map' : c === '[' ? 'vector' : 'list';
            return { kind, start, end: this.pos, items };
        }
        if (c === '"') {
            let i = start + 1;
            let value = '';
            while (i < s.length && s[i] !== '"') {
                if (s[i] === '\\') {
                    const n = s[i + 1];
                    value += n === 'n' ? '\n' : n === 't' ? '\t' : n;
                    i += 2;
                } else {
                    value += s[i++];
                }
            }
            if (i >= s.length) throw new SyntaxError(`unclosed string at offset ${start}`);
            this.pos = i + 1;
            return { kind: 'string', start, end: this.pos, value };
        }
        if (c === '#' && s[start + 1] === '{') {
            this.pos++;
            const set = this.form();
            return { ...set, kind: 'set', start };
        }
        let i = start;
        while (i < s.length && !DELIM.has(s[i])) i++;
        if (i === start) i++;
        this.pos = i;
        const tok = s.slice(start, i);
        if (tok === 'nil' || tok === 'null') return { kind: 'nil', start, end: i, value: null };
        if (tok === 'true' || tok === 'false') return { kind: 'bool', start, end: i, value: tok === 'true' };
        if (/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?N?M?$/.test(tok)) return { kind: 'number', start, end: i, value: Number(tok.replace(/[NM]$/, '')) };
        if (tok[0] === ':') return { kind: 'keyword', start, end: i, value: tok.slice(1) };
        return { kind: 'symbol', start, end: i, value: tok };
    }
}

/** Read one form from `text` at `pos` (null when there is none). */
export function readForm(text, pos = 0) {
    return new Reader(text, pos).form();
}

/** The name of a map key form (`:index`, `"index"` and `index` all give `index`). */
function keyName(f) {
    return f.kind === 'keyword' || f.kind === 'string' || f.kind === 'symbol' ? f.value : null;
}

/** A map form's entry by key name. */
export function mapGet(map, name) {
    for (let i = 0; i + 1 < map.items.length; i += 2) {
        if (keyName(map.items[i]) === name) return map.items[i + 1];
    }
    return null;
}

/** The operations vector of a transaction map: `:value` (Jepsen), `"value"` (elle) or `"ops"` (native). */
function opsOf(map) {
    const v = mapGet(map, 'value') ?? mapGet(map, 'ops');
    return v && v.kind === 'vector' ? v : null;
}

function idOf(map) {
    const v = mapGet(map, 'index') ?? mapGet(map, 'id');
    return v && v.kind === 'number' ? v.value : null;
}

/**
 * The map of transaction `id` whose form starts on `line` (1-based), or failing that the first
 * map with operations that starts on that line. Null when the text there cannot be read.
 */
export function findTransaction(text, starts, line, id) {
    if (!line || line > starts.length) return null;
    const lineStart = starts[line - 1];
    const lineEnd = line < starts.length ? starts[line] : text.length;
    const reader = new Reader(text, lineStart);
    const found = [];
    const visit = (f) => {
        if (f.kind === 'map') {
            if (f.start >= lineStart && f.start < lineEnd && opsOf(f)) found.push(f);
            for (const it of f.items) if (it.kind === 'map' || it.kind === 'vector') visit(it);
        } else if (f.kind === 'vector' || f.kind === 'list') {
            for (const it of f.items) if (it.kind === 'map' || it.kind === 'vector') visit(it);
        }
    };
    try {
        while (reader.pos < lineEnd) {
            const f = reader.form();
            if (f === null) {
                // A closing bracket of an enclosing vector: step over it.
                if (reader.pos < text.length && reader.pos < lineEnd) {
                    reader.pos++;
                    continue;
                }
                break;
            }
            visit(f);
            if (found.some((m) => idOf(m) === id)) break;
        }
    } catch {
        return null;
    }
    return found.find((m) => idOf(m) === id) ?? found[0] ?? null;
}

/**
 * Lines of the transactions that carry their id (`:index`, `"index"` or `"id"`), from one
 * reading of the whole text: for readers that do not report lines (grail's JSON reader).
 * Returns a Map id -> line; the last map with an id wins (the completion follows its invocation).
 */
export function transactionLines(text) {
    const starts = lineStarts(text);
    const lines = new Map();
    const visit = (f) => {
        if (f.kind === 'map') {
            const id = idOf(f);
            if (id !== null && opsOf(f)) lines.set(id, lineOf(starts, f.start));
            for (const it of f.items) if (it.kind === 'map' || it.kind === 'vector') visit(it);
        } else if (f.kind === 'vector' || f.kind === 'list') {
            for (const it of f.items) if (it.kind === 'map' || it.kind === 'vector') visit(it);
        }
    };
    const reader = new Reader(text, 0);
    try {
        for (;;) {
            const f = reader.form();
            if (f === null) break;
            visit(f);
        }
    } catch {
        // Keep what was found before the text stopped making sense.
    }
    return lines;
}

/** Fill in the `line` of transactions that have none, where the text names their id. */
export function fillLines(text, txns) {
    if (!txns.some((t) => !t.line)) return txns;
    const lines = transactionLines(text);
    for (const t of txns) if (!t.line && lines.has(t.id)) t.line = lines.get(t.id);
    return txns;
}

/** Source span `{start, end}` of operation `index` of transaction `id` (completion on `line`). */
export function opSpan(text, starts, line, id, index) {
    const map = findTransaction(text, starts, line, id);
    const ops = map && opsOf(map);
    const op = ops?.items[index];
    return op ? { start: op.start, end: op.end } : null;
}

/** Source span of a whole transaction map. */
export function txnSpan(text, starts, line, id) {
    const map = findTransaction(text, starts, line, id);
    return map ? { start: map.start, end: map.end } : null;
}

/**
 * Parse an operation as grail prints it (`[:append x 2]`, `[:w p1 -30]`, `[:r x [1 2]]`):
 * `{f, key, value}` as text, or null.
 */
export function parseOp(op) {
    try {
        const f = readForm(op);
        if (!f || f.kind !== 'vector' || f.items.length < 2) return null;
        const [fn, key, value] = f.items;
        return {
            f: fn.kind === 'keyword' || fn.kind === 'string' || fn.kind === 'symbol' ? fn.value : op.slice(fn.start, fn.end),
            key: key.kind === 'string' ? key.value : op.slice(key.start, key.end),
            value: value ? op.slice(value.start, value.end) : null,
        };
    } catch {
        return null;
    }
}

/** Whether an operation function writes (`append`, `w`, `write`). */
export function isWrite(f) {
    return f === 'append' || f === 'w' || f === 'write';
}

// ---- EDN output ----------------------------------------------------------------------------

/** A form as EDN text (JSON values become EDN: `"r"` in function position becomes `:r`). */
function toEdn(text, f, fnPosition = false) {
    switch (f.kind) {
        case 'map':
            return `{${pairs(f.items).map(([k, v]) => `${toEdn(text, k)} ${toEdn(text, v)}`).join(', ')}}`;
        case 'vector':
            return `[${f.items.map((x, i) => toEdn(text, x, i === 0)).join(' ')}]`;
        case 'list':
            return `(${f.items.map((x) => toEdn(text, x)).join(' ')})`;
        case 'set':
            return `#{${f.items.map((x) => toEdn(text, x)).join(' ')}}`;
        case 'string':
            return fnPosition && /^[a-z][\w-]*$/i.test(f.value) ? `:${f.value}` : JSON.stringify(f.value);
        case 'nil':
            return 'nil';
        default:
            return text.slice(f.start, f.end);
    }
}

function pairs(items) {
    const out = [];
    for (let i = 0; i + 1 < items.length; i += 2) out.push([items[i], items[i + 1]]);
    return out;
}

const STATUS_TYPE = { committed: ':ok', aborted: ':fail', indeterminate: ':info' };

/**
 * One transaction as a line of Jepsen EDN, from its source text: EDN maps are kept as written
 * (with `:index` added when missing, so the id stays the same); JSON objects are translated.
 * `txn` is `{id, status, process, line}`. Null when the source cannot be found.
 */
export function transactionEdn(text, starts, txn) {
    const map = findTransaction(text, starts, txn.line, txn.id);
    if (!map) return null;
    const ops = opsOf(map);
    const raw = text.slice(map.start, map.end);
    const isEdn = map.items.length > 0 && map.items[0].kind === 'keyword';
    if (isEdn) {
        const oneLine = raw.replace(/\s*\n\s*/g, ' ');
        return idOf(map) === txn.id ? oneLine : `{:index ${txn.id}, ${oneLine.slice(1).trimStart()}`;
    }
    const process = txn.process === null || txn.process === undefined ? '' : `, :process ${txn.process}`;
    return `{:index ${txn.id}, :type ${STATUS_TYPE[txn.status] ?? ':ok'}${process}, :value ${toEdn(text, ops)}}`;
}

/**
 * A sub-history as Jepsen EDN: the given transactions (`{id, status, process, line}`), in the
 * order of the source, one map a line, after a comment line. Throws when one cannot be found.
 */
export function subHistoryEdn(text, starts, txns, comment) {
    const sorted = [...txns].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.id - b.id);
    const lines = sorted.map((t) => {
        const edn = transactionEdn(text, starts, t);
        if (edn === null) throw new Error(`cannot find the text of T${t.id} (line ${t.line})`);
        return edn;
    });
    const head = comment ? comment.split('\n').map((l) => `; ${l}`) : [];
    return [...head, ...lines].join('\n') + '\n';
}
