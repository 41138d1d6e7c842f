// Positions in the history text: line starts, the offset of a line and column, and the range a
// grail span covers. Not a reader: every position comes from grail (errors' lines and columns,
// the spans of transactions and operations), and this only turns it into string indices. No DOM.

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

/** Bytes a code point takes in UTF-8 (a lone surrogate is encoded as U+FFFD: 3). */
function utf8Length(cp) {
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * The string range `{start, end}` of a grail span (`{start, end, line, column}`: UTF-8 bytes
 * of the text grail read, and where it starts): the start from its line and column, the end
 * by counting its bytes from there. Null for a missing span or one outside the text.
 */
export function spanRange(text, starts, span) {
    if (!span) return null;
    const start = offsetOf(text, starts, span.line, span.column);
    if (start === null) return null;
    let bytes = span.end - span.start;
    let i = start;
    while (bytes > 0 && i < text.length) {
        const cp = text.codePointAt(i);
        bytes -= utf8Length(cp);
        i += cp > 0xffff ? 2 : 1;
    }
    return bytes > 0 ? null : { start, end: i };
}
