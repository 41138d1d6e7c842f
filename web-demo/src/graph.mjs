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

/** Short label of an edge: `rw p1 ↦ 2`. */
export function stepLabel(step) {
    const v = stepValue(step);
    if (step.key === null || step.key === undefined) return step.type; // session and real-time order
    return `${step.type} ${keyText(step.key)}${v === null ? '' : ` \u21a6 ${v}`}`;
}

function unit(x, y) {
    const l = Math.hypot(x, y) || 1;
    return [x / l, y / l];
}

/**
 * Draw `cycle` (a report cycle). `txnInfo(id)` gives `{status, line}` or undefined.
 * `onSelect({kind: 'edge', index} | {kind: 'node', id})` is called on click, Enter or Space.
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
        'aria-label': `${cycle.name ?? cycle.anomaly} cycle: ${ids.map((t) => `T${t}`).join(', ')}`,
        'font-family': 'system-ui, sans-serif',
    });
    svg.append(el('title', {}, `${cycle.anomaly} (${cycle.name ?? 'cycle'}): ${[...ids, ids[0]].map((t) => `T${t}`).join(' \u2192 ')}`));
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

    const edges = el('g', { class: 'edges' });
    cycle.steps.forEach((step, i) => {
        const st = EDGE_STYLE[step.type] ?? EDGE_STYLE.ww;
        const [x0, y0] = pos.get(step.from);
        const [x2, y2] = pos.get(step.to);
        const mx = (x0 + x2) / 2;
        const my = (y0 + y2) / 2;
        const chord = Math.hypot(x2 - x0, y2 - y0);
        // Bend outwards (away from the centre), or to the left of the direction for two nodes.
        let [ox, oy] = unit(mx - c, my - c);
        if (Math.hypot(mx - c, my - c) < 1) [ox, oy] = unit(y2 - y0, -(x2 - x0));
        const bend = n === 2 ? chord * 0.35 : chord * 0.22;
        const cx = mx + ox * bend;
        const cy = my + oy * bend;
        const [ux0, uy0] = unit(cx - x0, cy - y0);
        const [ux2, uy2] = unit(cx - x2, cy - y2);
        const sx = x0 + ux0 * nodeR;
        const sy = y0 + uy0 * nodeR;
        const ex = x2 + ux2 * (nodeR + 3);
        const ey = y2 + uy2 * (nodeR + 3);
        const d = `M${sx.toFixed(1)},${sy.toFixed(1)} Q${cx.toFixed(1)},${cy.toFixed(1)} ${ex.toFixed(1)},${ey.toFixed(1)}`;
        const label = stepLabel(step);
        grow(0.25 * sx + 0.5 * cx + 0.25 * ex, 0.25 * sy + 0.5 * cy + 0.25 * ey, label.length * 4.2 + 6, 14);
        const g = el('g', {
            class: `edge edge-${step.type}`,
            tabindex: 0,
            role: 'button',
            'data-edge': i,
            'aria-label': `Edge T${step.from} to T${step.to}: ${step.type} on key ${keyText(step.key)}${stepValue(step) === null ? '' : `, value ${stepValue(step)}`}`,
        });
        g.append(el('title', {}, `T${step.from} \u2192 T${step.to} (${step.type}): ${step.why}`));
        g.append(el('path', { d, fill: 'none', stroke: 'transparent', 'stroke-width': 16, class: 'hit' }));
        const line = el('path', { d, fill: 'none', stroke: st.color, 'stroke-width': 2.5, class: 'line', 'marker-end': `url(#${uid}-${step.type})` });
        if (st.dash) {
            line.setAttribute('stroke-dasharray', st.dash);
            line.setAttribute('stroke-linecap', 'round');
        }
        g.append(line);
        // The label sits at the middle of the curve, on a white halo.
        const lx = 0.25 * sx + 0.5 * cx + 0.25 * ex;
        const ly = 0.25 * sy + 0.5 * cy + 0.25 * ey;
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
        t.append(tt, document.createTextNode(label.slice(step.type.length)));
        g.append(t);
        g.addEventListener('click', () => onSelect({ kind: 'edge', index: i }));
        edges.append(g);
    });
    svg.append(edges);

    const nodes = el('g', { class: 'nodes' });
    for (const id of ids) {
        const [x, y] = pos.get(id);
        grow(x, y, nodeR + 6, nodeR + 6);
        const info = txnInfo(id);
        const g = el('g', {
            class: 'node',
            tabindex: 0,
            role: 'button',
            'data-node': id,
            'aria-label': `Transaction T${id}${info?.status ? `, ${info.status}` : ''}${info?.line ? `, line ${info.line}` : ''}`,
        });
        g.append(el('title', {}, `T${id}${info?.line ? ` (line ${info.line})` : ''}`));
        g.append(el('circle', { cx: x, cy: y, r: nodeR, fill: '#f4f6fa', stroke: '#333333', 'stroke-width': 1.5, class: 'disc' }));
        g.append(el('text', { x, y: y + 5, 'text-anchor': 'middle', 'font-size': 15, 'font-weight': 600, fill: '#111111' }, `T${id}`));
        g.addEventListener('click', () => onSelect({ kind: 'node', id }));
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
