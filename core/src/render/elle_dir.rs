//! The files of Elle's `--directory` (`elle.core/check`'s `:directory`): `<TYPE>.txt` per
//! reportable cycle type, `sccs/<i>.svg` per strongly connected component, `<TYPE>/<i>.svg` per
//! cycle, `incompatible-order/<key>.html` per key. Plots whose DOT would exceed the byte bound are
//! skipped, as Elle's `--max-plot-bytes` skips them. As data: the front end writes the files.

use super::{html, svg};
use crate::elle::{self, Checked, ElleCycle};
use crate::explain::Ids;
use crate::history::History;

/// The directory's files, as (path relative to the directory, with `/`, and contents).
pub struct ElleDirectory {
    pub files: Vec<(String, String)>,
    /// Plots left out for their size.
    pub skipped: usize,
}

/// A file name for a key or type: its text, with path separators and other awkward bytes
/// replaced; never empty, never hidden.
pub fn file_name(s: &str) -> String {
    let cleaned: String =
        s.chars().map(|c| if c.is_alphanumeric() || "-_.:+=@".contains(c) { c } else { '_' }).collect();
    if cleaned.is_empty() || cleaned.starts_with('.') {
        format!("_{cleaned}")
    } else {
        cleaned
    }
}

/// Every file of the directory for a finished Elle check, in the order they are written.
pub fn elle_directory(h: &History, a: &Checked, max_plot_bytes: usize) -> ElleDirectory {
    let mut files = Vec::new();
    let mut types: Vec<&str> = a.cycles.iter().map(|c| c.ty.as_str()).filter(|t| a.reportable.contains(*t)).collect();
    types.dedup();
    for ty in &types {
        let cycles: Vec<&ElleCycle> = a.cycles.iter().filter(|c| c.ty == *ty).collect();
        files.push((format!("{ty}.txt"), elle::cycles_file(h, &cycles)));
    }
    let mut skipped = 0;
    for (i, scc) in a.sccs.iter().enumerate() {
        if svg::elle_dot(h, &a.graph, scc).len() > max_plot_bytes {
            skipped += 1;
            continue;
        }
        let caption = format!("SCC {i}: {} transactions", scc.len());
        files.push((format!("sccs/{i}.svg"), svg::subgraph_svg(h, &a.graph, scc, &[], Some(&caption))));
    }
    let ids = Ids::new(h);
    for ty in &types {
        for (i, c) in a.cycles.iter().filter(|c| c.ty == *ty).enumerate() {
            let verts: Vec<u32> = c.txns.iter().filter_map(|&id| ids.txn(id)).collect();
            let caption = format!("{ty} #{i}");
            // Elle plots every edge among the cycle's transactions; a cycle through edges the
            // graph does not hold (a polygraph's choice) is drawn from its steps.
            let in_graph = c.steps.iter().all(|s| match (ids.txn(s.from), ids.txn(s.to)) {
                (Some(f), Some(t)) => a.graph.out(f).iter().any(|s| s.to == t),
                _ => false,
            });
            let text = if in_graph {
                if svg::elle_dot(h, &a.graph, &verts).len() > max_plot_bytes {
                    skipped += 1;
                    continue;
                }
                svg::subgraph_svg(h, &a.graph, &verts, &verts, Some(&caption))
            } else {
                svg::cycle_svg(h, &c.txns, &c.steps, Some(&caption))
            };
            files.push((format!("{}/{i}.svg", file_name(ty)), text));
        }
    }
    for &k in &a.incompatible_keys {
        let name = file_name(&h.plain(h.key(k)));
        files.push((format!("incompatible-order/{name}.html"), html::incompatible_order_html(h, k)));
    }
    ElleDirectory { files, skipped }
}
