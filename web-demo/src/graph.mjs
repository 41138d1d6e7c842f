// A cycle as an SVG picture: transactions on a circle, one curved arrow per step, coloured by
// dependency type and labelled with key and value. Nodes and edges are focusable buttons.
// Built with DOM calls and textContent only: history text never becomes markup.

const SVG = 'http://www.w3.org/2000/svg';

export const EDGE_STYLE = {
    ww: { color: '#1f77b4', dash: '', meaning: 'write-write: the second installed a later version of the key' },
    wr: { color: '#2ca02c', dash: '7 4', meaning: 'write-read: the second read what the first wrote' },
    rw: { color: '#d62728', dash: '2 4', meaning: 'read-write (anti-dependency): the first read a version the second overwrote' },
    so: { color: '#7f7f7f', dash: '1 3', meaning: 'session order: the same process ran the first, then the second' },
    rt: { color: '#9467bd', dash: '10 3', meaning: 'real-time order: the first completed before the second began' },
    co: { color: '#ff7f0e', dash: '5 2 1 2', meaning: 'commit order a weak level forces: a reader saw the first, yet read the second' },
};

let counter = 0;

function el(name, attrs = {}, text) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
}

/** The value an edge is about: the version written (wr: the one read; ww and rw: the later one). */
export function stepValue(step) {
    const op = step.type === 'wr' ? step.from_op : step.to_op;
    return (op.kind === 'append' || op.kind === 'w') && op.value !== undefined && op.value !== null ? keyText(op.value) : null;
}

export function keyText(key) {
    return typeof key === 'string' ? key : JSON.stringify(key);
}

/** Keys and values longer than this are abbreviated in labels (the full text is on hover). */
const LABEL_PART = 14;

function short(text) {
    return text.length > LABEL_PART ? `${text.slice(0, LABEL_PART - 1)}\u2026` : text;
}

/** Short label of an edge: `rw p1 ↦ 2`, long keys and values abbreviated, `(chosen)` for an order the history leaves open. */
export function stepLabel(step) {
    const v = stepValue(step);
    const chosen = step.certain === false ? ' (chosen)' : '';
    if (step.key === null || step.key === undefined) return `${step.type}${chosen}`; // session and real-time order
    return `${step.type} ${short(keyText(step.key))}${v === null ? '' : ` \u21a6 ${short(v)}`}${chosen}`;
}

/** The full label (for hover): nothing abbreviated. */
function fullLabel(step) {
    const v = stepValue(step);
    if (step.key === null || step.key === undefined) return step.type;
    return `${step.type} ${keyText(step.key)}${v === null ? '' : ` \u21a6 ${v}`}`;
}

/** A node's half width and half height: a circle, or a pill wide enough for a long name. */
function nodeBox(label, nodeR) {
    const w = Math.max(nodeR, (label.length * 8.8 + 14) / 2);
    return [w, nodeR];
}

/** How far from a node's centre its outline is in direction (ux, uy). */
function reach([hw, hh], ux, uy) {
    if (hw === hh) return hw; // a circle
    return Math.min(Math.abs(ux) > 1e-9 ? hw / Math.abs(ux) : Infinity, Math.abs(uy) > 1e-9 ? hh / Math.abs(uy) : Infinity);
}

function unit(x, y) {
    const l = Math.hypot(x, y) || 1;
    return [x / l, y / l];
}

/**
 * Draw `cycle` (a report cycle, or `{txns, steps}`). `txnInfo(id)` gives `{status, line}` or
 * undefined. `onSelect({kind: 'edge', index} | {kind: 'node', id})` is called on click, Enter or
 * Space; without it the drawing is a picture only. Edges an order the history leaves open
 * gives (`certain: false`) are drawn hollow and labelled `(chosen)`; the writer behind a chosen
 * `rw` edge (`read_from`), and the reader behind a `co` step, are drawn beside the cycle,
 * dashed, with the edges they stand for.
 * Returns the <svg> element.
 */
export function drawCycle(cycle, txnInfo, onSelect) {
    const uid = `g${++counter}`;
    const ids = cycle.txns;
    const n = ids.length;
    const R = n <= 2 ? 120 : Math.max(120, n * 36);
    const margin = 80;
    const size = 2 * (R + margin);
    const c = size / 2;
    const nodeR = 24;
    const boxes = new Map();
    const boxOf = (id) => {
        if (!boxes.has(id)) boxes.set(id, nodeBox(`T${id}`, nodeR));
        return boxes.get(id);
    };
    const pos = new Map();
    ids.forEach((id, i) => {
        const a = n === 2 ? Math.PI * (1 - i) : -Math.PI / 2 + (2 * Math.PI * i) / n;
        pos.set(id, [c + R * Math.cos(a), c + R * Math.sin(a)]);
    });

    const svg = el('svg', {
        xmlns: SVG,
        viewBox: `0 0 ${size} ${size}`,
        width: size,
        height: size,
        class: 'cycle-graph',
        role: 'group',
        'aria-label': `${cycle.name ?? cycle.anomaly ?? 'a'} cycle: ${ids.map((t) => `T${t}`).join(', ')}`,
        'font-family': 'system-ui, sans-serif',
    });
    // A cycle through chosen versions may be more specific than the violation it shows.
    const named = cycle.cycle_anomaly ? `${cycle.anomaly} counterexample, a ${cycle.cycle_anomaly} ${cycle.name ?? 'cycle'} through chosen versions` : `${cycle.anomaly} (${cycle.name ?? 'cycle'})`;
    svg.append(el('title', {}, `${cycle.anomaly ? `${named}: ` : ''}${[...ids, ids[0]].map((t) => `T${t}`).join(' \u2192 ')}`));
    const defs = el('defs');
    for (const [type, st] of Object.entries(EDGE_STYLE)) {
        const m = el('marker', { id: `${uid}-${type}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 13, markerHeight: 13, orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' });
        m.append(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: st.color }));
        defs.append(m);
    }
    svg.append(defs);
    const background = el('rect', { x: 0, y: 0, width: size, height: size, fill: '#ffffff', class: 'background' });
    svg.append(background);
    // The picture's extent, to crop the viewBox to what is drawn.
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    const grow = (x, y, dx, dy) => {
        box.x0 = Math.min(box.x0, x - dx);
        box.x1 = Math.max(box.x1, x + dx);
        box.y0 = Math.min(box.y0, y - dy);
        box.y1 = Math.max(box.y1, y + dy);
    };
    // How an edge between two nodes of the circle bends: its chord's middle, the direction away
    // from the centre (to the left of the edge for two nodes), and how far (a share of the chord).
    const bendOf = (from, to) => {
        const [x0, y0] = pos.get(from);
        const [x2, y2] = pos.get(to);
        const mid = [(x0 + x2) / 2, (y0 + y2) / 2];
        let out = unit(mid[0] - c, mid[1] - c);
        if (Math.hypot(mid[0] - c, mid[1] - c) < 1) out = unit(y2 - y0, -(x2 - x0));
        return { mid, out, bend: Math.hypot(x2 - x0, y2 - y0) * (n === 2 ? 0.35 : 0.22) };
    };
    // A quadratic curve from node `from` to node `to` through control point `[cx, cy]`, from one
    // outline to the other (3 px short, for the arrowhead): `{d, start, end}`.
    const curve = (from, to, [cx, cy]) => {
        const [x0, y0] = pos.get(from);
        const [x2, y2] = pos.get(to);
        const [ux0, uy0] = unit(cx - x0, cy - y0);
        const [ux2, uy2] = unit(cx - x2, cy - y2);
        const r0 = reach(boxOf(from), ux0, uy0);
        const r2 = reach(boxOf(to), ux2, uy2) + 3;
        const start = [x0 + ux0 * r0, y0 + uy0 * r0];
        const end = [x2 + ux2 * r2, y2 + uy2 * r2];
        const f = (v) => v.toFixed(1);
        return { d: `M${f(start[0])},${f(start[1])} Q${f(cx)},${f(cy)} ${f(end[0])},${f(end[1])}`, start, end };
    };

    const edges = el('g', { class: 'edges' });
    cycle.steps.forEach((step, i) => {
        const st = EDGE_STYLE[step.type] ?? EDGE_STYLE.ww;
        const { mid, out, bend } = bendOf(step.from, step.to);
        const [ox, oy] = out;
        const cx = mid[0] + ox * bend;
        const cy = mid[1] + oy * bend;
        const { d, start, end } = curve(step.from, step.to, [cx, cy]);
        const [sx, sy] = start;
        const [ex, ey] = end;
        const label = stepLabel(step);
        // The label sits beside the middle of the curve, on its outer side, so that the curve
        // does not run through it.
        const lx = 0.25 * sx + 0.5 * cx + 0.25 * ex + ox * 11;
        const ly = 0.25 * sy + 0.5 * cy + 0.25 * ey + oy * 11;
        grow(lx, ly, label.length * 4.2 + 6, 14);
        const chosen = step.certain === false;
        const g = el('g', {
            class: `edge edge-${step.type}${chosen ? ' chosen' : ''}`,
            ...(onSelect ? { tabindex: 0, role: 'button' } : {}),
            'data-edge': i,
            'aria-label': `Edge T${step.from} to T${step.to}: ${step.type} on key ${keyText(step.key)}${stepValue(step) === null ? '' : `, value ${stepValue(step)}`}${chosen ? ', chosen (an order the history leaves open)' : ''}`,
        });
        g.append(el('title', {}, `T${step.from} \u2192 T${step.to} (${fullLabel(step)}${chosen ? ', chosen' : ''}): ${step.why}`));
        g.append(el('path', { d, fill: 'none', stroke: 'transparent', 'stroke-width': 16, class: 'hit' }));
        const line = el('path', { d, fill: 'none', stroke: st.color, 'stroke-width': chosen ? 5 : 2.5, class: 'line', 'marker-end': `url(#${uid}-${step.type})` });
        if (st.dash) {
            line.setAttribute('stroke-dasharray', st.dash);
            line.setAttribute('stroke-linecap', 'round');
        }
        g.append(line);
        if (chosen) {
            // Hollow: a white core inside the coloured line.
            const core = el('path', { d, fill: 'none', stroke: '#ffffff', 'stroke-width': 2, class: 'core' });
            if (st.dash) core.setAttribute('stroke-dasharray', st.dash);
            g.append(core);
        }
        const t = el('text', {
            x: lx.toFixed(1),
            y: (ly + 4).toFixed(1),
            'text-anchor': 'middle',
            'font-size': 13,
            fill: '#1a1a1a',
            stroke: '#ffffff',
            'stroke-width': 5,
            'paint-order': 'stroke',
            'stroke-linejoin': 'round',
            class: 'label',
        });
        const tt = el('tspan', { fill: st.color === '#2ca02c' ? '#1e7b1e' : st.color, 'font-weight': 700 }, step.type);
        const rest = chosen ? label.slice(step.type.length, -' (chosen)'.length) : label.slice(step.type.length);
        t.append(tt, document.createTextNode(rest));
        if (chosen) t.append(el('tspan', { 'font-style': 'italic' }, ' (chosen)'));
        g.append(t);
        if (onSelect) g.addEventListener('click', () => onSelect({ kind: 'edge', index: i }));
        edges.append(g);
    });
    svg.append(edges);

    // Transactions a step rests on that are not on the cycle, beside the step, outside it: the
    // writer whose version a chosen rw edge's reader read (read_from), and the reader a
    // commit-order step names (its read is the step's to_op). Each comes with the edges it
    // stands for: [from, to, type, dash, title].
    const beside = (step) => {
        if (step.read_from !== undefined && step.read_from !== null) {
            const w = step.read_from;
            return [w, [
                [w, step.from, 'wr', EDGE_STYLE.wr.dash, `T${w} \u2192 T${step.from} (wr): T${step.from} read T${w}'s version`],
                [w, step.to, 'ww', '4 3', `T${w} \u2192 T${step.to} (ww, chosen): T${step.to}'s version after T${w}'s`],
            ]];
        }
        if (step.type === 'co' && step.to_op && step.to_op.txn !== step.to) {
            const r = step.to_op.txn;
            return [r, [
                [step.to, r, 'wr', EDGE_STYLE.wr.dash, `T${step.to} \u2192 T${r} (wr): T${r} read T${step.to}'s version`],
                [step.from, r, 'co', '2 3', `T${step.from} \u2192 T${r}: T${r} had observed T${step.from}`],
            ]];
        }
        return null;
    };
    const aside = new Map();
    cycle.steps.forEach((step) => {
        const b = beside(step);
        if (!b || pos.has(b[0]) || aside.has(b[0])) return;
        // Beyond the step's curve, on its outer side.
        const { mid, out, bend } = bendOf(step.from, step.to);
        aside.set(b[0], [mid[0] + out[0] * (bend + 110), mid[1] + out[1] * (bend + 110)]);
    });
    const asideEdges = el('g', { class: 'aside-edges' });
    for (const [w, at] of aside) pos.set(w, at);
    for (const step of cycle.steps) {
        const b = beside(step);
        if (!b || !aside.has(b[0])) continue;
        b[1].forEach(([from, to, type, dash, title], i) => {
            // Two edges can join the same two transactions: bent to opposite sides.
            const side = i === 0 ? 1 : -1;
            const [x0, y0] = pos.get(from);
            const [x2, y2] = pos.get(to);
            const [nx, ny] = unit(-(y2 - y0), x2 - x0);
            const control = [(x0 + x2) / 2 + nx * 16 * side, (y0 + y2) / 2 + ny * 16 * side];
            const st = EDGE_STYLE[type];
            const a = el('path', {
                d: curve(from, to, control).d,
                fill: 'none',
                stroke: st.color,
                'stroke-width': 1.5,
                'stroke-dasharray': dash,
                opacity: 0.8,
                'marker-end': `url(#${uid}-${type})`,
                class: `aside-edge edge-${type}`,
            });
            a.append(el('title', {}, title));
            asideEdges.append(a);
        });
    }
    svg.append(asideEdges);

    const nodes = el('g', { class: 'nodes' });
    for (const id of [...ids, ...aside.keys()]) {
        const [x, y] = pos.get(id);
        const [hw, hh] = boxOf(id);
        grow(x, y, hw + 6, hh + 6);
        const info = txnInfo(id);
        const isAside = aside.has(id);
        const g = el('g', {
            class: isAside ? 'node aside' : 'node',
            ...(onSelect ? { tabindex: 0, role: 'button' } : {}),
            'data-node': id,
            'aria-label': `Transaction T${id}${info?.status ? `, ${info.status}` : ''}${info?.line ? `, line ${info.line}` : ''}${isAside ? ', beside the cycle: a step rests on it' : ''}`,
        });
        g.append(el('title', {}, `T${id}${info?.line ? ` (line ${info.line})` : ''}${isAside ? ': not on the cycle; a step rests on it (see the explanation)' : ''}`));
        g.append(el('rect', {
            x: (x - hw).toFixed(1),
            y: (y - hh).toFixed(1),
            width: (2 * hw).toFixed(1),
            height: (2 * hh).toFixed(1),
            rx: hh,
            fill: isAside ? '#ffffff' : '#f4f6fa',
            stroke: '#333333',
            'stroke-width': 1.5,
            ...(isAside ? { 'stroke-dasharray': '4 3' } : {}),
            class: 'disc',
        }));
        g.append(el('text', { x, y: y + 5, 'text-anchor': 'middle', 'font-size': 15, 'font-weight': 600, fill: '#111111' }, `T${id}`));
        if (onSelect) g.addEventListener('click', () => onSelect({ kind: 'node', id }));
        nodes.append(g);
    }
    svg.append(nodes);
    const pad = 8;
    const vb = [box.x0 - pad, box.y0 - pad, box.x1 - box.x0 + 2 * pad, box.y1 - box.y0 + 2 * pad].map((v) => Math.round(v));
    svg.setAttribute('viewBox', vb.join(' '));
    // Small cycles are drawn a little larger than life; the page scales down to fit.
    const scale = n <= 3 ? 1.2 : 1;
    svg.setAttribute('width', Math.round(vb[2] * scale));
    svg.setAttribute('height', Math.round(vb[3] * scale));
    for (const [k, v] of Object.entries({ x: vb[0], y: vb[1], width: vb[2], height: vb[3] })) background.setAttribute(k, v);

    svg.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        const target = e.target.closest?.('[data-edge],[data-node]');
        if (!target) return;
        e.preventDefault();
        target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    });
    return svg;
}

/** Mark the selected edge or node (class `selected`). */
export function markSelected(svg, sel) {
    for (const e of svg.querySelectorAll('.selected')) e.classList.remove('selected');
    if (!sel) return;
    const q = sel.kind === 'edge' ? `[data-edge="${sel.index}"]` : `[data-node="${sel.id}"]`;
    svg.querySelector(q)?.classList.add('selected');
}

/** Standalone SVG markup of a drawn cycle (no interactivity, a legend added). */
export function exportSvg(svg) {
    const copy = svg.cloneNode(true);
    for (const e of copy.querySelectorAll('[tabindex]')) {
        e.removeAttribute('tabindex');
        e.removeAttribute('role');
    }
    for (const e of copy.querySelectorAll('.hit')) e.remove();
    for (const e of copy.querySelectorAll('.selected')) e.classList.remove('selected');
    const [vx, vy, vw, vh0] = copy.getAttribute('viewBox').split(' ').map(Number);
    const legendH = 28;
    const vwide = Math.max(vw, 230);
    const vh = vh0 + legendH;
    copy.setAttribute('viewBox', `${vx} ${vy} ${vwide} ${vh}`);
    copy.setAttribute('width', String(vwide));
    copy.setAttribute('height', String(vh));
    const bg = copy.querySelector('rect.background');
    bg?.setAttribute('width', String(vwide));
    bg?.setAttribute('height', String(vh));
    const legend = el('g', { class: 'legend', 'font-size': 12 });
    let x = vx + 10;
    const y = vy + vh0 + 12;
    // The legend lists the types the cycle uses (dependencies always, order edges when present).
    const used = new Set([...copy.querySelectorAll('g.edge')].map((g) => [...g.classList].find((c) => c.startsWith('edge-'))?.slice(5)));
    for (const [type, st] of Object.entries(EDGE_STYLE).filter(([t]) => ['ww', 'wr', 'rw'].includes(t) || used.has(t))) {
        const line = el('line', { x1: x, y1: y, x2: x + 26, y2: y, stroke: st.color, 'stroke-width': 2.5 });
        if (st.dash) line.setAttribute('stroke-dasharray', st.dash);
        legend.append(line, el('text', { x: x + 32, y: y + 4, fill: '#1a1a1a' }, type));
        x += 70;
    }
    copy.append(legend);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy) + '\n';
}
