//! SVG drawings of transaction graphs, drawn by grail itself (no Graphviz): each transaction a
//! box listing its micro-operations (`a 255 8`, `r 253 [1 3 4]`, as Elle's plots label them),
//! placed on a circle; each dependency an arrow from the operation that justifies it to the
//! operation it points at, coloured by type ([`super::palette`], as every drawing) and labelled
//! as Elle's plots label them. Edges a polygraph search chose, rather than read
//! from the history, are dashed.

use super::palette;
use crate::graph::{DependencyGraph, EdgeType};
use crate::history::{Arg, History, Model, OpKind, Status, TxnId};
use std::fmt::Write;

/// Edge colours are the one palette of every drawing.
pub use super::palette::edge_color;

/// A box: a title and one row per micro-operation.
#[derive(Debug, Clone)]
pub struct Node {
    pub title: String,
    pub rows: Vec<String>,
    /// Border and text colour.
    pub color: &'static str,
    /// Drawn with a heavier border (a transaction of a counterexample).
    pub emphasis: bool,
}

/// An arrow between boxes, from a row of one to a row of the other.
#[derive(Debug, Clone)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub from_row: Option<usize>,
    pub to_row: Option<usize>,
    pub label: String,
    pub color: &'static str,
    pub dashed: bool,
}

/// Elle's colour of an operation's type (`elle.viz/type->color`).
pub fn status_color(s: Status) -> &'static str {
    match s {
        Status::Committed => "#0058AD",
        Status::Indeterminate => "#AC6E00",
        Status::Aborted => "#A50053",
    }
}

/// Elle's short name of a relation in plots.
pub fn edge_label(ty: &str) -> &'static str {
    match ty {
        "ww" => "ww",
        "wr" => "wr",
        "rw" => "rw",
        "rt" => "rt",
        "so" => "p",
        "co" => "co",
        _ => "?",
    }
}

/// Priority of a relation when one edge stands for several (Elle's `rel-priority`).
fn priority(t: EdgeType) -> u8 {
    match t {
        EdgeType::Wr => 0,
        EdgeType::Ww => 1,
        EdgeType::Rw => 2,
        EdgeType::So => 3,
        EdgeType::Rt => 4,
        EdgeType::Co => 5,
    }
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A micro-operation as Elle's plots label it (`elle.viz/mop->str`): `a 255 8`, `r 253 [1 3 4]`,
/// `w 3 5`, `r 3 nil`.
pub fn mop_label(h: &History, o: u32) -> String {
    let op = &h.ops[o as usize];
    let f = match op.kind() {
        OpKind::Append => "a",
        OpKind::Read => "r",
        OpKind::Write => "w",
    };
    let v = match (op.kind(), op.arg(), h.model) {
        (OpKind::Read, Arg::Nil, Model::RwRegister) => "nil".to_string(),
        (_, Arg::Val(v), _) => h.show(v),
        (OpKind::Read, _, _) => format!("[{}]", h.list(op).iter().map(|&v| h.show(v)).collect::<Vec<_>>().join(" ")),
        _ => "nil".to_string(),
    };
    format!("{f} {} {v}", h.show(h.key(op.key)))
}

/// Rows longer than this many characters are cut, and boxes list at most this many rows.
const ROW_CHARS: usize = 44;
const MAX_ROWS: usize = 14;

fn cut(s: &str) -> String {
    if s.chars().count() <= ROW_CHARS {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(ROW_CHARS - 1).collect();
        t.push('…');
        t
    }
}

/// A transaction's box.
pub fn txn_node(h: &History, t: TxnId, emphasis: bool) -> Node {
    let txn = &h.txns[t as usize];
    Node {
        title: format!("T{}", txn.id),
        rows: (txn.ops_start..txn.ops_end).map(|o| mop_label(h, o)).collect(),
        color: status_color(txn.status),
        emphasis,
    }
}

const CHAR_W: f64 = 7.2;
const ROW_H: f64 = 15.0;
const HEAD_H: f64 = 19.0;

fn shown_rows(n: &Node) -> usize {
    if n.rows.len() > MAX_ROWS {
        MAX_ROWS
    } else {
        n.rows.len()
    }
}

fn size(n: &Node) -> (f64, f64) {
    let chars = n.rows.iter().take(MAX_ROWS).map(|r| cut(r).chars().count()).chain([n.title.chars().count() + 2]).max();
    let w = chars.unwrap_or(4) as f64 * CHAR_W + 14.0;
    let extra = if n.rows.len() > MAX_ROWS { 1 } else { 0 };
    (w.max(44.0), HEAD_H + (shown_rows(n) + extra) as f64 * ROW_H + 5.0)
}

/// The y of a row's middle, relative to the box top.
fn row_y(n: &Node, row: Option<usize>) -> f64 {
    match row {
        Some(r) if r < shown_rows(n) => HEAD_H + (r as f64 + 0.5) * ROW_H,
        Some(_) => HEAD_H + (shown_rows(n) as f64 + 0.5) * ROW_H,
        None => HEAD_H / 2.0,
    }
}

/// Where the boxes of `sizes` (width, height) go on a circle, their top-left corners, and the
/// drawing's width and height, with `top` left free above: `sin_cos` gives the angles' sine and
/// cosine ([`super::trig::sin_cos`]; a test compares the standard library's).
fn layout(sizes: &[(f64, f64)], top: f64, sin_cos: fn(f64) -> (f64, f64)) -> (Vec<(f64, f64)>, f64, f64) {
    let n = sizes.len().max(1);
    let maxw = sizes.iter().map(|s| s.0).fold(40.0, f64::max);
    // Neighbours on the circle stand a box width and room for labelled arrows apart.
    let half = sin_cos(std::f64::consts::PI / n as f64).0.max(1e-3);
    let perimeter: f64 = sizes.iter().map(|(w, h)| w.max(*h) + 70.0).sum();
    let r = match n {
        1 => 0.0,
        2 => maxw / 2.0 + 110.0,
        _ => (perimeter / std::f64::consts::TAU).max((maxw + 90.0) / (2.0 * half)).max(90.0),
    };
    // Two boxes side by side; more, clockwise from the top.
    let start = if n == 2 { std::f64::consts::PI } else { -std::f64::consts::FRAC_PI_2 };
    let centres: Vec<(f64, f64)> = (0..sizes.len())
        .map(|i| {
            let (sin, cos) = sin_cos(start + std::f64::consts::TAU * i as f64 / n as f64);
            (r * cos, r * sin)
        })
        .collect();
    // The drawing's extent: the boxes, and room for arrows bowing out between them.
    let margin = 40.0;
    let min_x = centres.iter().zip(sizes).map(|(c, s)| c.0 - s.0 / 2.0).fold(f64::MAX, f64::min) - margin;
    let min_y = centres.iter().zip(sizes).map(|(c, s)| c.1 - s.1 / 2.0).fold(f64::MAX, f64::min) - margin;
    let max_x = centres.iter().zip(sizes).map(|(c, s)| c.0 + s.0 / 2.0).fold(f64::MIN, f64::max) + margin;
    let max_y = centres.iter().zip(sizes).map(|(c, s)| c.1 + s.1 / 2.0).fold(f64::MIN, f64::max) + margin;
    let pos: Vec<(f64, f64)> =
        centres.iter().zip(sizes).map(|(c, s)| (c.0 - s.0 / 2.0 - min_x, c.1 - s.1 / 2.0 - min_y + top)).collect();
    let width = (max_x - min_x).max(200.0);
    let height = max_y - min_y + top;
    (pos, width, height)
}

/// Draw boxes on a circle and arrows between them; `caption` goes above.
pub fn draw(nodes: &[Node], arrows: &[Arrow], caption: Option<&str>) -> String {
    let sizes: Vec<(f64, f64)> = nodes.iter().map(size).collect();
    let top = if caption.is_some() { 26.0 } else { 0.0 };
    let (pos, width, height) = layout(&sizes, top, super::trig::sin_cos);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="grail-graph" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="12">"##
    );
    let mut colors: Vec<&str> = arrows.iter().map(|a| a.color).collect();
    crate::par::sort::sort_unstable(&mut colors);
    colors.dedup();
    s.push_str("<defs>");
    for c in &colors {
        let _ = write!(
            s,
            r##"<marker id="arrow{}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"##,
            c.trim_start_matches('#')
        );
    }
    s.push_str("</defs>");
    if let Some(c) = caption {
        let _ =
            write!(s, r##"<text x="10" y="17" font-size="13" font-weight="bold" fill="#222">{}</text>"##, escape(c));
    }
    // Arrows under the boxes' text but over their fill: boxes first (fill), arrows, then text.
    for (i, node) in nodes.iter().enumerate() {
        let ((x, y), (w, h)) = (pos[i], sizes[i]);
        let sw = if node.emphasis { 2.5 } else { 1.2 };
        let _ = write!(
            s,
            r##"<rect class="txn" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" rx="4" fill="#fff" stroke="{}" stroke-width="{sw}"/>"##,
            node.color
        );
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="0.6"/>"##,
            y + HEAD_H,
            x + w,
            y + HEAD_H,
            node.color
        );
    }
    for a in arrows {
        let (Some(&(fx, fy)), Some(&(tx, ty))) = (pos.get(a.from), pos.get(a.to)) else { continue };
        let ((fw, _), (tw, _)) = (sizes[a.from], sizes[a.to]);
        let (fcx, tcx) = (fx + fw / 2.0, tx + tw / 2.0);
        let (y0, y1) = (fy + row_y(&nodes[a.from], a.from_row), ty + row_y(&nodes[a.to], a.to_row));
        let (x0, x1) = if a.from == a.to {
            (fx + fw, tx + tw)
        } else if tcx >= fcx {
            (fx + fw, tx)
        } else {
            (fx, tx + tw)
        };
        let (dx, dy) = (x1 - x0, y1 - y0);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let bow = if a.from == a.to { 40.0 } else { 0.18 * len };
        let (qx, qy) = ((x0 + x1) / 2.0 - dy / len * bow, (y0 + y1) / 2.0 + dx / len * bow);
        let dash = if a.dashed { r##" stroke-dasharray="6 4""## } else { "" };
        let _ = write!(
            s,
            r##"<path class="edge" d="M{x0:.1},{y0:.1} Q{qx:.1},{qy:.1} {x1:.1},{y1:.1}" fill="none" stroke="{}" stroke-width="1.6"{dash} marker-end="url(#arrow{})"/>"##,
            a.color,
            a.color.trim_start_matches('#')
        );
        let (mx, my) = (0.25 * x0 + 0.5 * qx + 0.25 * x1, 0.25 * y0 + 0.5 * qy + 0.25 * y1);
        let lw = a.label.chars().count() as f64 * CHAR_W * 0.92 + 6.0;
        let _ = write!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="{lw:.1}" height="15" rx="3" fill="#fff" fill-opacity="0.85"/><text class="edge-label" x="{mx:.1}" y="{:.1}" text-anchor="middle" fill="{}">{}</text>"##,
            mx - lw / 2.0,
            my - 10.5,
            my + 1.5,
            a.color,
            escape(&a.label)
        );
    }
    for (i, node) in nodes.iter().enumerate() {
        let ((x, y), (w, _)) = (pos[i], sizes[i]);
        let _ = write!(
            s,
            r##"<text class="txn-title" x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold" fill="{}">{}</text>"##,
            x + w / 2.0,
            y + 14.0,
            node.color,
            escape(&node.title)
        );
        for (j, row) in node.rows.iter().take(MAX_ROWS).enumerate() {
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="{}">{}</text>"##,
                x + 7.0,
                y + HEAD_H + (j as f64 + 1.0) * ROW_H - 3.5,
                node.color,
                escape(&cut(row))
            );
        }
        if node.rows.len() > MAX_ROWS {
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#777">… {} more</text>"##,
                x + 7.0,
                y + HEAD_H + (MAX_ROWS as f64 + 1.0) * ROW_H - 3.5,
                node.rows.len() - MAX_ROWS
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// The subgraph of `g` induced by `verts`: one box per transaction, one arrow per pair of
/// transactions with an edge, labelled with every relation between them and drawn from the
/// operations of the highest-priority one (Elle's plots of an SCC or a cycle).
pub fn subgraph_svg(
    h: &History,
    g: &DependencyGraph,
    verts: &[TxnId],
    emphasis: &[TxnId],
    caption: Option<&str>,
) -> String {
    let nodes: Vec<Node> = verts.iter().map(|&t| txn_node(h, t, emphasis.contains(&t))).collect();
    let mut arrows = Vec::new();
    for (i, &v) in verts.iter().enumerate() {
        for &crate::graph::Succ { to: w, mask } in g.out(v) {
            let Some(j) = verts.iter().position(|&x| x == w) else { continue };
            let mut types: Vec<EdgeType> = EdgeType::ALL.into_iter().filter(|t| mask & t.bit() != 0).collect();
            crate::par::sort::sort_by_key(&mut types, |t| priority(*t));
            let Some(&best) = types.first() else { continue };
            let e = g.edge(v, w, best);
            let row = |o: Option<u32>, t: TxnId| {
                let txn = &h.txns[t as usize];
                o.filter(|&o| o >= txn.ops_start && o < txn.ops_end).map(|o| (o - txn.ops_start) as usize)
            };
            arrows.push(Arrow {
                from: i,
                to: j,
                from_row: row(e.map(|e| e.from_op), v),
                to_row: row(e.map(|e| e.to_op), w),
                label: types.iter().map(|t| edge_label(t.as_str())).collect::<Vec<_>>().join(","),
                color: palette::edge(best),
                dashed: false,
            });
        }
    }
    draw(&nodes, &arrows, caption)
}

/// A counterexample as reported: its transactions in cycle order (boxes from the history) and
/// one arrow per step, labelled with the relation and key, from the operation of the step's
/// `from_op` to that of its `to_op`; steps a polygraph search chose are dashed.
pub fn cycle_svg(h: &History, txns: &[u64], steps: &[crate::report::Step], caption: Option<&str>) -> String {
    let ids = crate::explain::Ids::new(h);
    let nodes: Vec<Node> = txns
        .iter()
        .map(|&id| match ids.txn(id) {
            Some(t) => txn_node(h, t, true),
            None => Node { title: format!("T{id}"), rows: Vec::new(), color: "#585858", emphasis: true },
        })
        .collect();
    let arrows: Vec<Arrow> = steps
        .iter()
        .filter_map(|st| {
            let from = txns.iter().position(|&x| x == st.from)?;
            let to = txns.iter().position(|&x| x == st.to)?;
            let key = if st.key.is_null() { String::new() } else { format!(" {}", super::key_text(&st.key)) };
            // A row of the box the arrow touches: a `co` step's `to_op` is another
            // transaction's read, not a row of its target.
            let rows = |o: &crate::report::OpRef, t: u64| (!o.op.is_empty() && o.txn == t).then_some(o.index as usize);
            Some(Arrow {
                from,
                to,
                from_row: rows(&st.from_op, st.from),
                to_row: rows(&st.to_op, st.to),
                // The report's own names (`so`, as its legend and steps say; Elle's plots say `p`).
                label: format!("{}{key}", st.ty.as_str()),
                color: palette::edge(st.ty),
                dashed: st.certain == Some(false),
            })
        })
        .collect();
    draw(&nodes, &arrows, caption)
}

/// The DOT text Elle would give Graphviz for the same subgraph (`elle.viz/scc->ast`): its length
/// is what Elle's `--max-plot-bytes` bounds, so grail skips the same plots.
pub fn elle_dot(h: &History, g: &DependencyGraph, verts: &[TxnId]) -> String {
    let esc = |s: &str| {
        let mut o = String::with_capacity(s.len());
        for c in s.chars() {
            if matches!(c, '\\' | '|' | '{' | '}' | '"') {
                o.push('\\');
            }
            o.push(c);
        }
        o
    };
    let mut s = String::from("digraph a_graph {\n");
    let mut lines = Vec::new();
    for &t in verts {
        let txn = &h.txns[t as usize];
        let label: Vec<String> = (txn.ops_start..txn.ops_end)
            .enumerate()
            .map(|(i, o)| format!("<f{i}> {}", esc(&mop_label(h, o))))
            .collect();
        let c = status_color(txn.status);
        lines.push(format!(
            "T{} [height=0.4,shape=record,label=\"{}\",color=\"{c}\",fontcolor=\"{c}\"]",
            txn.id,
            label.join("|")
        ));
    }
    for &v in verts {
        for &crate::graph::Succ { to: w, mask } in g.out(v) {
            if !verts.contains(&w) {
                continue;
            }
            let best = EdgeType::ALL.into_iter().filter(|t| mask & t.bit() != 0).min_by_key(|t| priority(*t));
            let Some(best) = best else { continue };
            let (a, b) = (&h.txns[v as usize], &h.txns[w as usize]);
            let port = |o: u32, t: &crate::history::Transaction| {
                if o >= t.ops_start && o < t.ops_end {
                    format!(":f{}", o - t.ops_start)
                } else {
                    String::new()
                }
            };
            let (fp, tp) =
                g.edge(v, w, best).map_or((String::new(), String::new()), |e| (port(e.from_op, a), port(e.to_op, b)));
            let c = palette::edge(best);
            lines.push(format!(
                "T{}{fp} -> T{}{tp} [label=\"{}\",fontcolor=\"{c}\",color=\"{c}\"]",
                a.id,
                b.id,
                edge_label(best.as_str())
            ));
        }
    }
    s.push_str(&lines.join("\n"));
    s.push_str("\n}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_is_drawn_with_boxes_rows_and_labelled_arrows() {
        let text = "{:type :ok, :value [[:r :x []] [:append :x 1]], :index 1}\n{:type :ok, :value [[:r :x []] [:append :x 2]], :index 2}\n{:type :ok, :value [[:r :x [2 1]]], :index 3}";
        let h = crate::read::read(text.as_bytes(), crate::read::Format::Auto).unwrap();
        let inf = crate::infer::infer(&h);
        let svg = subgraph_svg(&h, &inf.graph, &[0, 1], &[0, 1], Some("G-single #0"));
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>"));
        assert_eq!(svg.matches("class=\"txn\"").count(), 2);
        assert!(svg.contains(">T1<") && svg.contains(">a x 1<") && svg.contains(">r x []<"));
        assert!(svg.matches("class=\"edge\"").count() >= 2);
        assert!(svg.contains(">rw<") || svg.contains(">ww,rw<"));
        let dot = elle_dot(&h, &inf.graph, &[0, 1]);
        assert!(
            dot.starts_with("digraph a_graph {\nT1 [height=0.4,shape=record,label=\"<f0> r x []|<f1> a x 1\""),
            "{dot}"
        );
        assert!(dot.contains(" -> "), "{dot}");
        // Text is escaped.
        let n = Node { title: "<&>".into(), rows: vec!["\"'".into()], color: "#000000", emphasis: false };
        let svg = draw(&[n], &[], Some("a < b"));
        assert!(svg.contains("&lt;&amp;&gt;") && svg.contains("&quot;&#39;") && svg.contains("a &lt; b"));
    }

    /// The layout with core's sine and cosine (`trig::sin_cos`, musl's) against the standard
    /// library's (the platform's libm natively): for n = 1..=3000 boxes of a spread of sizes (so
    /// of radii), how many corners differ in their bits and how many as the drawing prints them
    /// (`{:.1}`, and `{:.0}` for the extent). Prints the counts; run with `--ignored --nocapture`.
    #[test]
    #[ignore = "a measurement (about 10 s): the drawings' coordinates with the platform's sin and cos"]
    fn layout_with_core_trig_prints_as_with_std() {
        fn std_sin_cos(x: f64) -> (f64, f64) {
            (x.sin(), x.cos())
        }
        let box_size =
            |chars: u64, rows: u64| ((chars as f64 * CHAR_W + 14.0).max(44.0), HEAD_H + rows as f64 * ROW_H + 5.0);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut layouts, mut corners, mut bits, mut printed, mut extents) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for n in 1..=3000u64 {
            let variants: [Vec<(f64, f64)>; 4] = [
                vec![box_size(4, 0); n as usize],
                vec![box_size(4 + n % 50, n % 16); n as usize],
                (0..n).map(|_| box_size(4 + next() % 60, next() % 16)).collect(),
                (0..n).map(|i| box_size(4 + (i * 7 + n) % 40, (i + n) % 15)).collect(),
            ];
            for (v, sizes) in variants.iter().enumerate() {
                let top = if v % 2 == 0 { 0.0 } else { 26.0 };
                let (a, aw, ah) = layout(sizes, top, std_sin_cos);
                let (b, bw, bh) = layout(sizes, top, crate::render::trig::sin_cos);
                layouts += 1;
                for (p, q) in a.iter().zip(&b) {
                    corners += 1;
                    if p.0.to_bits() != q.0.to_bits() || p.1.to_bits() != q.1.to_bits() {
                        bits += 1;
                    }
                    if format!("{:.1},{:.1}", p.0, p.1) != format!("{:.1},{:.1}", q.0, q.1) {
                        printed += 1;
                        eprintln!("n = {n}, variant {v}: {p:?} (std) printed unlike {q:?} (core)");
                    }
                }
                if format!("{aw:.0} {ah:.0}") != format!("{bw:.0} {bh:.0}") {
                    extents += 1;
                }
            }
        }
        eprintln!(
            "{layouts} layouts, {corners} corners: {bits} differ in their bits, {printed} as printed; {extents} extents differ as printed"
        );
    }
}
