"""A cycle as an inline SVG, drawn by grail itself (no graphviz needed).

Transactions are boxes on a circle (side by side for a two-cycle); each dependency is an arc
bent away from the centre, coloured by type (the colours of grail's DOT output), with an
arrowhead and a label giving the type, the key and the two operations. Every piece of history
text is escaped.
"""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING, List, Sequence, Tuple

from . import _grail

if TYPE_CHECKING:
    from ._report import Cycle

__all__ = ["cycle_svg", "EDGE_COLOURS"]

#: Colour per edge type, shared with the CLI's DOT files.
EDGE_COLOURS = dict(_grail.EDGE_COLOURS)

_FONT = 12.0
_CHAR_W = 7.3  # width of a monospace character at 12 px, a little generous
_NODE_H = 28.0
_LABEL_MAX = 48  # characters of an operation shown in a label before it is shortened


def _esc(s: object) -> str:
    return escape(str(s), quote=True)


def _shorten(s: str, n: int = _LABEL_MAX) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _key_text(key: object) -> str:
    return key if isinstance(key, str) else repr(key)


def _clip(cx: float, cy: float, hw: float, hh: float, tx: float, ty: float) -> Tuple[float, float]:
    """Where the ray from a box's centre towards (tx, ty) leaves the box (half sizes hw, hh)."""
    dx, dy = tx - cx, ty - cy
    if dx == 0 and dy == 0:
        return cx, cy
    t = min(hw / abs(dx) if dx else math.inf, hh / abs(dy) if dy else math.inf)
    return cx + dx * t, cy + dy * t


def _text_width(lines: Sequence[str]) -> float:
    return max((len(s) for s in lines), default=0) * _CHAR_W


def cycle_svg(cycle: "Cycle") -> str:
    """Draw a cycle as a standalone ``<svg>`` element (a string)."""
    steps = cycle.steps
    n = len(steps)
    names = [f"T{s.from_}" for s in steps]
    node_w = [max(56.0, len(name) * _CHAR_W + 20) for name in names]
    labels: List[Tuple[str, str]] = [
        (
            f"{s.type} on key {_key_text(s.key)}",
            f"{_shorten(s.from_op.op)} → {_shorten(s.to_op.op)}",
        )
        for s in steps
    ]
    label_w = max((_text_width(lines) for lines in labels), default=0.0)
    label_h = 2 * _FONT * 1.25

    # Node centres around (0, 0), clockwise from the top; the radius leaves room for the
    # labels, which sit outside the arcs at their midpoints.
    if n <= 1:
        radius = 0.0
    elif n == 2:
        radius = max(90.0, label_w * 0.35 + 40)
    else:
        half = math.pi / n
        # Adjacent label centres must be a label's width apart.
        need = (label_w + 24) / (2 * math.sin(half)) - label_h / 2
        radius = max(110.0, n * (max(node_w) + 70) / (2 * math.pi), need / (math.cos(half) + 0.44 * math.sin(half)))
    pos = []
    for i in range(n):
        theta = (math.pi if i == 0 else 0.0) if n == 2 else -math.pi / 2 + 2 * math.pi * i / n
        pos.append((radius * math.cos(theta), radius * math.sin(theta)))

    parts: List[str] = []
    xs: List[float] = []
    ys: List[float] = []

    def extent(x: float, y: float, hw: float, hh: float) -> None:
        xs.extend((x - hw, x + hw))
        ys.extend((y - hh, y + hh))

    for i, s in enumerate(steps):
        colour = EDGE_COLOURS.get(s.type, "#555555")
        (x0, y0), (x1, y1) = pos[i], pos[(i + 1) % n]
        dx, dy = x1 - x0, y1 - y0
        dist = math.hypot(dx, dy) or 1.0
        # Bend to the left of the direction of travel: outward on a clockwise circle, and the
        # two edges of a two-cycle on opposite sides.
        nx, ny = dy / dist, -dx / dist
        bend = 46.0 if n == 2 else 0.22 * dist
        mx, my = (x0 + x1) / 2 + nx * bend, (y0 + y1) / 2 + ny * bend
        sx, sy = _clip(x0, y0, node_w[i] / 2 + 3, _NODE_H / 2 + 3, mx, my)
        ex, ey = _clip(x1, y1, node_w[(i + 1) % n] / 2 + 5, _NODE_H / 2 + 5, mx, my)
        # Arrowhead along the curve's tangent at its end (from the control point to the end).
        tx, ty = ex - mx, ey - my
        tl = math.hypot(tx, ty) or 1.0
        ux, uy = tx / tl, ty / tl
        head = [
            (ex, ey),
            (ex - 10 * ux + 4.5 * uy, ey - 10 * uy - 4.5 * ux),
            (ex - 10 * ux - 4.5 * uy, ey - 10 * uy + 4.5 * ux),
        ]
        # The label sits outside the curve's midpoint: its box is pushed along the normal by
        # its own half extent in that direction.
        line1, line2 = labels[i]
        w = _text_width((line1, line2))
        push = 6 + abs(nx) * (w / 2 + 4) + abs(ny) * label_h / 2
        lx = 0.25 * sx + 0.5 * mx + 0.25 * ex + nx * push
        ly = 0.25 * sy + 0.5 * my + 0.25 * ey + ny * push
        extent(lx, ly, w / 2 + 4, label_h / 2 + 2)
        extent(mx, my, 2, 2)
        points = " ".join(f"{px:.1f},{py:.1f}" for px, py in head)
        parts.append(
            f'<g class="grail-edge grail-{_esc(s.type)}">'
            f"<title>{_esc(s.why)}</title>"
            f'<path d="M{sx:.1f},{sy:.1f} Q{mx:.1f},{my:.1f} {ex:.1f},{ey:.1f}" '
            f'fill="none" stroke="{colour}" stroke-width="2"/>'
            f'<polygon points="{points}" fill="{colour}"/>'
            f'<text x="{lx:.1f}" y="{ly - 3:.1f}" text-anchor="middle" fill="{colour}" '
            f'font-weight="bold" paint-order="stroke" stroke="white" stroke-width="4">'
            f"{_esc(line1)}</text>"
            f'<text x="{lx:.1f}" y="{ly + _FONT:.1f}" text-anchor="middle" fill="#333333" '
            f'paint-order="stroke" stroke="white" stroke-width="4">{_esc(line2)}</text>'
            f"</g>"
        )

    for i, name in enumerate(names):
        x, y = pos[i]
        hw = node_w[i] / 2
        extent(x, y, hw, _NODE_H / 2)
        parts.append(
            f'<g class="grail-txn"><title>{_esc(name)}</title>'
            f'<rect x="{x - hw:.1f}" y="{y - _NODE_H / 2:.1f}" width="{node_w[i]:.1f}" '
            f'height="{_NODE_H:.1f}" rx="6" fill="#f7f7f7" stroke="#444444"/>'
            f'<text x="{x:.1f}" y="{y + _FONT / 2 - 1:.1f}" text-anchor="middle" '
            f'font-weight="bold" fill="#111111">{_esc(name)}</text></g>'
        )

    if not xs:
        xs, ys = [0.0, 0.0], [0.0, 0.0]
    pad = 12.0
    title = f"{cycle.anomaly} ({cycle.name})"
    min_x, max_x = min(xs) - pad, max(xs) + pad
    min_y, max_y = min(ys) - pad - 24, max(ys) + pad + 22
    legend_y = max_y - 8
    width = max(max_x - min_x, _text_width([title]) + 2 * pad, 260.0)
    cx = (min_x + max_x) / 2
    min_x, max_x = cx - width / 2, cx + width / 2
    legend = []
    for j, kind in enumerate(("ww", "wr", "rw")):
        gx = min_x + pad + j * 70
        legend.append(
            f'<line x1="{gx:.1f}" y1="{legend_y - 4:.1f}" x2="{gx + 22:.1f}" y2="{legend_y - 4:.1f}" '
            f'stroke="{EDGE_COLOURS[kind]}" stroke-width="3"/>'
            f'<text x="{gx + 27:.1f}" y="{legend_y:.1f}" fill="#333333">{kind}</text>'
        )
    height = max_y - min_y
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="grail-cycle" '
        f'width="{width:.0f}" height="{height:.0f}" style="max-width:100%;height:auto" '
        f'viewBox="{min_x:.1f} {min_y:.1f} {width:.1f} {height:.1f}" '
        f'font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" '
        f'font-size="{_FONT:.0f}" role="img" aria-label="{_esc(title)}">'
        f"<title>{_esc(title)}</title>"
        f'<text x="{min_x + pad:.1f}" y="{min_y + pad + 8:.1f}" font-weight="bold" '
        f'fill="#111111">{_esc(title)}</text>'
        + "".join(parts)
        + "".join(legend)
        + "</svg>"
    )
