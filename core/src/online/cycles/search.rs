//! The bounded back-path search: the cycles a new edge closes.
//!
//! Takes the window and a new edge `u -> v`; gives the simple paths back from `v` to `u`, each
//! as a cycle `[u, v, ...]` of at most `max_length` transactions, and whether `max_steps` cut
//! the search short. A bidirectional breadth-first search (forward from `v`, backward from `u`,
//! the smaller frontier first) first asks whether any path short enough exists, visiting each
//! vertex once, since most new edges close no cycle; it leaves each vertex's distance to `u`
//! for the depth-first enumeration, which prunes every path that cannot return in time. Most
//! new edges point forward in completion order, so paths back are short (Zellag & Kemme 5.2,
//! the Last-Committer-Border).

use super::graph::Window;
use super::Seq;

/// Reusable buffers, indexed by position in the window.
#[derive(Debug, Default)]
pub(super) struct PathSearch {
    /// (epoch, distance to `u`) per vertex reached by the backward search.
    dist: Vec<(u32, u8)>,
    /// Epoch of the forward search's visit, then of the depth-first path.
    on_path: Vec<u32>,
    epoch: u32,
    /// The breadth-first search's frontiers and visits, kept between calls: a search runs for
    /// every new pair of transactions, and allocating them each time cost a tenth of a stream.
    touched: Vec<Seq>,
    ffront: Vec<Seq>,
    bfront: Vec<Seq>,
    next: Vec<Seq>,
}

impl PathSearch {
    /// Cycles through the edge `u -> v`: simple paths `v ~> u`, as `[u, v, ...]`; and whether
    /// the search was cut short by `max_steps`. `max_length` is at most 255.
    pub fn cycles(&mut self, w: &Window, u: Seq, v: Seq, max_length: usize, max_steps: u64) -> (Vec<Vec<Seq>>, bool) {
        let mut found = Vec::new();
        let l = max_length as u32;
        let n = w.len();
        if self.dist.len() < n {
            self.dist.resize(n, (0, 0));
            self.on_path.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.dist.iter_mut().for_each(|d| d.0 = 0);
            self.on_path.iter_mut().for_each(|d| *d = 0);
            self.epoch = 1;
        }
        let ep = self.epoch;
        let mut steps = 0u64;
        // Is there a path v ~> u of at most l - 1 edges?
        let reach = l - 1;
        let base = w.base();
        let (dist, fwd) = (&mut self.dist, &mut self.on_path);
        let slot = |x: Seq| (x - base) as usize;
        dist[slot(u)] = (ep, 0);
        fwd[slot(v)] = ep;
        let (touched, ffront, bfront, next) = (&mut self.touched, &mut self.ffront, &mut self.bfront, &mut self.next);
        touched.clear();
        touched.push(v);
        ffront.clear();
        ffront.push(v);
        bfront.clear();
        bfront.push(u);
        let (mut fdepth, mut back) = (0u32, 0u32);
        let mut ok = false;
        'bfs: while fdepth + back < reach && !ffront.is_empty() && !bfront.is_empty() {
            next.clear();
            if ffront.len() <= bfront.len() {
                for &x in ffront.iter() {
                    let Some(node) = w.node(x) else { continue };
                    steps += node.out.len() as u64;
                    for a in &node.out {
                        if a.to < base {
                            continue;
                        }
                        let sy = slot(a.to);
                        if dist[sy].0 == ep {
                            ok = true;
                            break 'bfs;
                        }
                        if fwd[sy] != ep {
                            fwd[sy] = ep;
                            touched.push(a.to);
                            next.push(a.to);
                        }
                    }
                }
                fdepth += 1;
                std::mem::swap(ffront, next);
            } else {
                for &x in bfront.iter() {
                    let Some(node) = w.node(x) else { continue };
                    steps += node.inn.len() as u64;
                    for &y in &node.inn {
                        if y < base {
                            continue;
                        }
                        let sy = slot(y);
                        if fwd[sy] == ep {
                            ok = true;
                            break 'bfs;
                        }
                        if dist[sy].0 != ep {
                            dist[sy] = (ep, (back + 1) as u8);
                            next.push(y);
                        }
                    }
                }
                back += 1;
                std::mem::swap(bfront, next);
            }
        }
        for &x in touched.iter() {
            fwd[slot(x)] = 0;
        }
        if !ok {
            return (found, false);
        }
        // Unlabelled vertices are more than `back` edges from u.
        let h = back;
        let mut truncated = false;
        // Depth-first from v.
        let mut path: Vec<Seq> = vec![v];
        let mut stack: Vec<(Seq, usize)> = vec![(v, 0)];
        self.on_path[slot(v)] = ep;
        while let Some(top) = stack.last_mut() {
            let (x, next) = *top;
            let Some((len, y)) = w.node(x).map(|n| (n.out.len(), n.out.get(next).map_or(0, |a| a.to))) else {
                stack.pop();
                path.pop();
                continue;
            };
            if next >= len {
                stack.pop();
                path.pop();
                if x >= base {
                    self.on_path[slot(x)] = 0;
                }
                continue;
            }
            top.1 += 1;
            steps += 1;
            if steps > max_steps {
                truncated = true;
                break;
            }
            if y < base {
                continue;
            }
            let used = path.len() as u32 + 1; // edges of the cycle once y is reached (u -> v counted)
            if y == u {
                if used <= l {
                    let mut cyc = Vec::with_capacity(path.len() + 1);
                    cyc.push(u);
                    cyc.extend_from_slice(&path);
                    found.push(cyc);
                }
                continue;
            }
            let sy = slot(y);
            if self.on_path[sy] == ep {
                continue;
            }
            let lb = if self.dist[sy].0 == ep { self.dist[sy].1 as u32 } else { h + 1 };
            if used + lb > l {
                continue;
            }
            self.on_path[sy] = ep;
            path.push(y);
            stack.push((y, 0));
        }
        for &x in &path {
            if x >= base {
                self.on_path[slot(x)] = 0;
            }
        }
        (found, truncated)
    }

    /// Give back the buffers beyond a window of `n`.
    pub fn shrink(&mut self, n: usize) {
        self.dist.truncate(n);
        self.on_path.truncate(n);
        for b in [&mut self.touched, &mut self.ffront, &mut self.bfront, &mut self.next] {
            b.clear();
            b.shrink_to(n.min(1024));
        }
    }

    /// An estimate of the heap memory held (bytes).
    pub fn memory(&self) -> usize {
        self.dist.capacity() * 8
            + self.on_path.capacity() * 4
            + (self.touched.capacity() + self.ffront.capacity() + self.bfront.capacity() + self.next.capacity()) * 8
    }
}
