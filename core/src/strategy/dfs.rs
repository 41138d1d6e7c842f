//! GRAIL's Cycle checker (thesis 4.1, Algorithm 2, Listing E.1): from every vertex, a DFS of
//! depth 2 to `max_depth` (depth = edges of the path, as in AQL's `IN 2..4`), reporting the first
//! path that returns to its start with a word the level forbids. Paths are simple (a vertex
//! once per path), which finds the same cycles as ArangoDB's default `uniqueEdges: "path"`: a
//! matching closed walk of at most `max_depth` edges contains a matching simple cycle no longer.
//! Iterative: the stack holds one frame per edge of the current path.

use super::{simple_cycle, Automaton, Counters};
use crate::graph::{DependencyGraph, EdgeType};
use crate::history::TxnId;
use crate::level::Level;

struct Frame {
    v: TxnId,
    /// Next pair in `g.out(v)` and next label slot on it ([`Automaton::labels`]).
    i: u32,
    k: u8,
    state: u8,
}

pub(super) fn search(
    g: &DependencyGraph,
    l: Level,
    max_depth: usize,
    c: &mut Counters,
) -> Option<Vec<(TxnId, EdgeType)>> {
    let a = Automaton::of_level(l);
    let n = g.is_vertex.len();
    let mut on_path = vec![false; n];
    let mut stack: Vec<Frame> = Vec::with_capacity(max_depth);
    let mut types: Vec<EdgeType> = Vec::with_capacity(max_depth);
    for start in (0..n as TxnId).filter(|&v| g.is_vertex[v as usize]) {
        c.traversals += 1;
        on_path[start as usize] = true;
        stack.push(Frame { v: start, i: 0, k: 0, state: 0 });
        while !stack.is_empty() {
            let depth = stack.len() - 1; // edges from start to f.v
            let f = &mut stack[depth];
            let out = g.out(f.v);
            if f.i as usize >= out.len() {
                on_path[f.v as usize] = false;
                stack.pop();
                types.pop();
                continue;
            }
            let crate::graph::Succ { to: w, mask } = out[f.i as usize];
            let Some(t) = a.labels(mask).get(f.k as usize) else {
                f.k = 0;
                f.i += 1;
                continue;
            };
            f.k += 1;
            c.edges_visited += 1;
            let Some(s2) = a.step(f.state, t) else { continue };
            if w == start {
                let t0 = if depth == 0 { t } else { types[0] };
                if depth >= 1 && a.closes(t0, s2) {
                    let mut walk: Vec<(TxnId, EdgeType)> =
                        stack.iter().zip(types.iter().chain(std::iter::once(&t))).map(|(f, &ty)| (f.v, ty)).collect();
                    walk.truncate(depth + 1);
                    if let Some(cycle) = simple_cycle(l, walk) {
                        for f in &stack {
                            on_path[f.v as usize] = false;
                        }
                        return Some(cycle);
                    }
                }
                continue;
            }
            if on_path[w as usize] || depth + 1 >= max_depth {
                continue;
            }
            on_path[w as usize] = true;
            types.push(t);
            stack.push(Frame { v: w, i: 0, k: 0, state: s2 });
        }
        debug_assert!(types.is_empty());
    }
    None
}
