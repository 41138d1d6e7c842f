//! Bounded enumeration of the elementary cycles of the dependency graph, for counting them
//! (Zellag & Kemme 2014, Sect. 7 and 10.3: counts by class, by pattern, and per transaction).
//!
//! Each cycle is found once, from its least vertex `s` (in each strongly connected component):
//! a depth-first search of simple paths from `s` through vertices above `s`, as in Johnson's
//! algorithm, pruned by length instead of by blocking: a reverse breadth-first search from `s`
//! gives each vertex's distance back to `s`, and a path continues only while its length plus that
//! distance fits in the bound. Iterative (an explicit stack: wasm's stack is small), and bounded
//! by length, by count and by the step budget (which also polls the caller's clock).

use crate::graph::search::Budget;
use crate::graph::DependencyGraph;
use crate::history::TxnId;

/// Why an enumeration stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// `max_cycles` cycles were found.
    Count,
    /// The step budget ran out, or the caller's interrupt fired.
    Budget(String),
}

/// Call `visit` with every elementary cycle of at most `max_len` edges (its transactions, from
/// its least one), inside the given strongly connected components, until `max_cycles` are found.
/// Only Adya's dependencies count (ww, wr, rw: [`super::DSG`]); other edge types a graph may
/// carry (session or real-time order) are not anomalies of these classes.
pub fn enumerate(
    g: &DependencyGraph,
    comps: &[Vec<TxnId>],
    max_len: usize,
    max_cycles: usize,
    budget: &mut Budget,
    mut visit: impl FnMut(&[TxnId]),
) -> Result<usize, Stop> {
    let mut found = 0usize;
    let mut local = vec![u32::MAX; g.is_vertex.len()];
    for comp in comps {
        let n = comp.len();
        for (i, &v) in comp.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        // Local adjacency, both ways.
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut inn: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, &v) in comp.iter().enumerate() {
            for &crate::graph::Succ { to: w, mask } in g.out(v) {
                let j = local[w as usize];
                if j != u32::MAX && mask & super::DSG != 0 {
                    out[i].push(j);
                    inn[j as usize].push(i as u32);
                }
            }
        }
        let result = enumerate_component(comp, &out, &inn, max_len, max_cycles, &mut found, budget, &mut visit);
        for &v in comp {
            local[v as usize] = u32::MAX;
        }
        result?;
    }
    Ok(found)
}

#[allow(clippy::too_many_arguments)]
fn enumerate_component(
    comp: &[TxnId],
    out: &[Vec<u32>],
    inn: &[Vec<u32>],
    max_len: usize,
    max_cycles: usize,
    found: &mut usize,
    budget: &mut Budget,
    visit: &mut impl FnMut(&[TxnId]),
) -> Result<(), Stop> {
    let n = comp.len();
    let mut dist = vec![u32::MAX; n];
    let mut touched: Vec<u32> = Vec::new();
    let mut on_path = vec![false; n];
    let mut path: Vec<u32> = Vec::new();
    let mut path_txns: Vec<TxnId> = Vec::new();
    // (vertex, index of the next out-edge to try)
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let max_len = max_len as u32;
    for s in 0..n as u32 {
        // Distances back to s, through vertices above s, up to max_len - 1.
        for &t in &touched {
            dist[t as usize] = u32::MAX;
        }
        touched.clear();
        dist[s as usize] = 0;
        touched.push(s);
        let mut head = 0;
        while head < touched.len() {
            let x = touched[head];
            head += 1;
            let d = dist[x as usize];
            if d + 1 >= max_len {
                continue;
            }
            if !budget.spend(inn[x as usize].len() as u64 + 1) {
                return Err(Stop::Budget(budget.exhausted.clone().unwrap_or_default()));
            }
            for &y in &inn[x as usize] {
                if y > s && dist[y as usize] == u32::MAX {
                    dist[y as usize] = d + 1;
                    touched.push(y);
                }
            }
        }
        path.clear();
        path.push(s);
        on_path[s as usize] = true;
        stack.clear();
        stack.push((s, 0));
        while let Some(top) = stack.last_mut() {
            let (x, next) = *top;
            let edges = &out[x as usize];
            if next >= edges.len() {
                stack.pop();
                path.pop();
                on_path[x as usize] = false;
                continue;
            }
            top.1 += 1;
            if !budget.spend(1) {
                on_path.iter_mut().for_each(|b| *b = false);
                return Err(Stop::Budget(budget.exhausted.clone().unwrap_or_default()));
            }
            let y = edges[next];
            let used = path.len() as u32; // edges once y is added
            if y == s {
                if used <= max_len {
                    path_txns.clear();
                    path_txns.extend(path.iter().map(|&i| comp[i as usize]));
                    visit(&path_txns);
                    *found += 1;
                    if *found >= max_cycles {
                        on_path.iter_mut().for_each(|b| *b = false);
                        return Err(Stop::Count);
                    }
                }
                continue;
            }
            if y < s || on_path[y as usize] {
                continue;
            }
            let d = dist[y as usize];
            if d == u32::MAX || used + d > max_len {
                continue;
            }
            on_path[y as usize] = true;
            path.push(y);
            stack.push((y, 0));
        }
    }
    Ok(())
}
