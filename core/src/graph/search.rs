//! One cycle search for every anti-pattern.
//!
//! A [`Pattern`] says which edge types a cycle may use, which it must use, which it may use at
//! most once, and which may not stand next to each other (cyclically: the last edge is next
//! to the first). The search runs on the product of the graph with one bit of state (was the
//! last edge of a no-adjacent type), so a cycle of the product is a closed walk whose word
//! matches; for these patterns but G-nonadjacent a matching closed walk contains a matching
//! simple cycle (`../shared/LEVELS.md` claims it for all five: splitting a walk at a repeated
//! vertex makes two edges adjacent, so rw ww ww rw ww through a ww-ww cycle splits into a
//! cycle with adjacent rw edges and one without rw). Witnesses are always simple matching
//! cycles; a G-nonadjacent walk without one leaves its component to the G0 or G1c search.
//! Detection is linear (strongly connected components: an iterative Pearce-Tarjan on the graph's
//! adjacency arrays) except for at-most-once types, which need a reachability question per
//! edge: asked by BFS under the step budget. The witness is the shortest matching cycle of
//! each violating component, found by BFS from every vertex, bounded by the best so far.

use super::{DependencyGraph, EdgeType, Succ};
use crate::history::TxnId;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::VecDeque;

/// An anti-pattern over edge types (bit masks of [`EdgeType::bit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// Types a cycle may use.
    pub allowed: u8,
    /// Types a cycle must use at least once.
    pub must: u8,
    /// Types a cycle may use at most once, in all (must be a subset of `must` or disjoint from it).
    pub once: u8,
    /// Types no two of which may be adjacent in the cycle.
    pub no_adjacent: u8,
}

/// A cycle: `txns[i] -types[i]-> txns[i+1]`, the last edge closing back to `txns[0]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub txns: Vec<TxnId>,
    pub types: Vec<EdgeType>,
    /// No shorter cycle of this pattern exists in the same strongly connected component.
    pub minimal: bool,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Searched {
    Holds,
    /// At least one cycle; one (the shortest found) per violating component.
    Violated(Vec<Cycle>),
    /// The budget ran out before the question was decided.
    Unknown(String),
}

/// A bound on the work of a search: steps (edge visits), and an optional interrupt polled every
/// few thousand steps (a clock, Ctrl-C), since core itself cannot read a clock.
pub struct Budget<'a> {
    pub steps: u64,
    pub interrupt: Option<&'a mut dyn FnMut() -> bool>,
    pub exhausted: Option<String>,
    tick: u32,
    interrupted: bool,
}

impl<'a> Budget<'a> {
    pub fn new(steps: u64, interrupt: Option<&'a mut dyn FnMut() -> bool>) -> Self {
        Budget { steps, interrupt, exhausted: None, tick: 0, interrupted: false }
    }

    pub fn unlimited() -> Budget<'static> {
        Budget::new(u64::MAX, None)
    }

    /// Whether the interrupt (a time limit, a user) stopped the work, rather than the steps.
    pub(crate) fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Spend `n` steps; false once the budget is gone.
    pub(crate) fn spend(&mut self, n: u64) -> bool {
        if self.exhausted.is_some() {
            return false;
        }
        if self.steps < n {
            self.exhausted = Some("the step budget ran out".into());
            return false;
        }
        self.steps -= n;
        self.tick = self.tick.wrapping_add(1);
        if self.tick % 4096 == 0 {
            if let Some(f) = self.interrupt.as_mut() {
                if f() {
                    self.interrupted = true;
                    self.exhausted = Some("the time budget ran out or the check was interrupted".into());
                    return false;
                }
            }
        }
        true
    }
}

/// Strongly connected components with more than one vertex, each sorted, ordered by first vertex.
///
/// Pearce's variant of Tarjan's algorithm ("A space-efficient algorithm for finding strongly
/// connected components", 2016, PEA_FIND_SCC2), iterative (a deep history must not overflow
/// wasm's small stack), run on the graph's own adjacency arrays: copying a million-vertex graph
/// into petgraph first cost more than the search, and its memory. One word per vertex where
/// Tarjan keeps an index, a low link and an on-stack flag, and only vertices that are not the
/// root of their component on the component stack: at ten million vertices, a check's peak.
pub fn components(g: &DependencyGraph) -> Vec<Vec<TxnId>> {
    let n = g.is_vertex.len();
    let mut p = Pearce {
        g,
        rindex: vec![UNSEEN; n],
        root: vec![0; n.div_ceil(64)],
        stack: Vec::new(),
        call: Vec::new(),
        next: 1,
        done: n as u32,
    };
    let mut comps: Vec<Vec<TxnId>> = Vec::new();
    for start in 0..n as u32 {
        if p.rindex[start as usize] != UNSEEN {
            continue;
        }
        p.visit(start);
        while let Some(&(v, i)) = p.call.last() {
            if i < g.offsets[v as usize + 1] {
                let w = g.adj[i as usize].to;
                if let Some(top) = p.call.last_mut() {
                    top.1 += 1;
                }
                if p.rindex[w as usize] == UNSEEN {
                    p.visit(w);
                } else {
                    p.low(v, w);
                }
                continue;
            }
            p.call.pop();
            if p.is_root(v) {
                comps.extend(p.finish(v));
            } else {
                p.stack.push(v);
            }
            if let Some(&(parent, _)) = p.call.last() {
                p.low(parent, v);
            }
        }
    }
    crate::par::sort::sort_unstable_by_key(&mut comps, |c| c[0]);
    comps
}

/// Not yet visited: visit numbers count up from 1 and component numbers down from n (one per
/// component, so never to 0).
const UNSEEN: u32 = 0;

/// Pearce's state: `rindex` is a vertex's visit number while it is open and its component's
/// number (counting down from n) once done, so a done vertex never lowers an open one; `root`
/// a bit per vertex; `stack` the visited non-roots not yet in a component; `call` the stack of
/// (vertex, next adjacency position) that replaces recursion.
struct Pearce<'g> {
    g: &'g DependencyGraph,
    rindex: Vec<u32>,
    root: Vec<u64>,
    stack: Vec<u32>,
    call: Vec<(u32, u32)>,
    next: u32,
    done: u32,
}

impl Pearce<'_> {
    fn visit(&mut self, v: u32) {
        self.rindex[v as usize] = self.next;
        self.next += 1;
        self.root[v as usize / 64] |= 1 << (v % 64);
        self.call.push((v, self.g.offsets[v as usize]));
    }

    fn is_root(&self, v: u32) -> bool {
        self.root[v as usize / 64] & (1 << (v % 64)) != 0
    }

    /// After v's successor w (visited, or done with): w reaches lower, so v is no root.
    fn low(&mut self, v: u32, w: u32) {
        if self.rindex[w as usize] < self.rindex[v as usize] {
            self.rindex[v as usize] = self.rindex[w as usize];
            self.root[v as usize / 64] &= !(1 << (v % 64));
        }
    }

    /// v is the root of a component: it and the stack's vertices from its number up. The
    /// component, sorted, when it has more than one vertex: in an acyclic graph every vertex is
    /// a root, and a vector for each was an allocation per vertex.
    fn finish(&mut self, v: u32) -> Option<Vec<TxnId>> {
        let mut at = self.stack.len();
        while at > 0 && self.rindex[self.stack[at - 1] as usize] >= self.rindex[v as usize] {
            at -= 1;
        }
        let c = (at < self.stack.len()).then(|| {
            let mut c = self.stack.split_off(at);
            c.push(v);
            crate::par::sort::sort_unstable(&mut c);
            c
        });
        for &w in c.as_deref().unwrap_or(&[v]) {
            self.rindex[w as usize] = self.done;
        }
        self.next -= c.as_ref().map_or(1, |c| c.len() as u32);
        self.done -= 1;
        c
    }
}

/// Reusable buffers for searches over one graph.
pub struct Searcher<'g> {
    g: &'g DependencyGraph,
    /// Local index of each vertex in the current component, or `u32::MAX`.
    local: Vec<u32>,
    seen: Vec<u32>,
    parent: Vec<(u32, u8)>,
    epoch: u32,
}

const STATES: usize = 8; // (adjacent bit, once count, must seen)

fn bits(mask: u8) -> impl Iterator<Item = EdgeType> {
    EdgeType::ALL.into_iter().filter(move |t| mask & t.bit() != 0)
}

impl<'g> Searcher<'g> {
    pub fn new(g: &'g DependencyGraph) -> Self {
        // `local` is made at the first component: a history without cycles needs none (40 MB at 10M).
        Searcher { g, local: Vec::new(), seen: Vec::new(), parent: Vec::new(), epoch: 0 }
    }

    /// Search every component for the pattern, reporting at most `max_cycles` cycles.
    pub fn search(&mut self, comps: &[Vec<TxnId>], p: &Pattern, budget: &mut Budget, max_cycles: usize) -> Searched {
        let mut cycles = Vec::new();
        let mut undecided = None;
        for comp in comps {
            if cycles.len() >= max_cycles {
                break;
            }
            self.enter(comp);
            let found = self.detect(comp, p, budget);
            match found {
                Detect::No => {}
                Detect::Unknown(why) => undecided = Some(why),
                Detect::Yes(hint) => {
                    if let Some(c) = self.witness(comp, p, hint, budget) {
                        cycles.push(c);
                    }
                }
            }
            self.leave(comp);
        }
        match (cycles.is_empty(), undecided) {
            (false, _) => Searched::Violated(cycles),
            (true, Some(why)) => Searched::Unknown(why),
            (true, None) => Searched::Holds,
        }
    }

    fn enter(&mut self, comp: &[TxnId]) {
        if self.local.is_empty() {
            self.local = vec![u32::MAX; self.g.is_vertex.len()];
        }
        for (i, &v) in comp.iter().enumerate() {
            self.local[v as usize] = i as u32;
        }
        let need = comp.len() * STATES;
        if self.seen.len() < need {
            self.seen.resize(need, 0);
            self.parent.resize(need, (0, 0));
        }
    }

    fn leave(&mut self, comp: &[TxnId]) {
        for &v in comp {
            self.local[v as usize] = u32::MAX;
        }
    }

    /// Edges inside the current component: (from local, to local, type).
    fn inner_edges<'s>(&'s self, comp: &'s [TxnId], mask: u8) -> impl Iterator<Item = (u32, u32, EdgeType)> + 's {
        comp.iter().enumerate().flat_map(move |(i, &v)| {
            self.g
                .out(v)
                .iter()
                .filter(move |s| self.local[{ s.to } as usize] != u32::MAX && s.mask & mask != 0)
                .flat_map(move |&Succ { to: w, mask: m }| {
                    let wl = self.local[w as usize];
                    bits(m & mask).map(move |t| (i as u32, wl, t))
                })
        })
    }

    fn detect(&mut self, comp: &[TxnId], p: &Pattern, budget: &mut Budget) -> Detect {
        let s = if p.no_adjacent != 0 { 2 } else { 1 };
        let free = p.allowed & !p.once;
        let step = |a: u32, t: EdgeType| -> Option<u32> {
            if p.no_adjacent & t.bit() != 0 {
                (a == 0).then_some(1)
            } else {
                Some(0)
            }
        };
        let mut pg: DiGraph<(), (), u32> = DiGraph::with_capacity(comp.len() * s as usize, 0);
        for _ in 0..comp.len() * s as usize {
            pg.add_node(());
        }
        let node = |v: u32, a: u32| NodeIndex::new((v * s + a) as usize);
        let edges: Vec<(u32, u32, EdgeType)> = self.inner_edges(comp, p.allowed).collect();
        if !budget.spend(edges.len() as u64) {
            return Detect::Unknown(budget.exhausted.clone().unwrap_or_default());
        }
        for &(u, v, t) in &edges {
            if free & t.bit() == 0 {
                continue;
            }
            for a in 0..s {
                if let Some(b) = step(a, t) {
                    pg.add_edge(node(u, a), node(v, b), ());
                }
            }
        }
        let sccs = petgraph::algo::kosaraju_scc(&pg);
        let mut scc_of = vec![0u32; pg.node_count()];
        for (i, c) in sccs.iter().enumerate() {
            for n in c {
                scc_of[n.index()] = i as u32;
            }
        }
        if p.once == 0 {
            for &(u, v, t) in &edges {
                if p.must != 0 && p.must & t.bit() == 0 {
                    continue;
                }
                for a in 0..s {
                    if let Some(b) = step(a, t) {
                        if scc_of[node(u, a).index()] == scc_of[node(v, b).index()] {
                            return Detect::Yes(comp[u as usize]);
                        }
                    }
                }
            }
            return Detect::No;
        }
        // Types used at most once: a once-edge u -> v closes a cycle iff v reaches u without one.
        let mut targets: Vec<(u32, u32, u32)> = Vec::new(); // (to node, from node, from vertex)
        for &(u, v, t) in &edges {
            if p.once & t.bit() == 0 {
                continue;
            }
            for a in 0..s {
                if let Some(b) = step(a, t) {
                    let (from, to) = (node(u, a).index() as u32, node(v, b).index() as u32);
                    if scc_of[from as usize] == scc_of[to as usize] {
                        return Detect::Yes(comp[u as usize]);
                    }
                    targets.push((to, from, u));
                }
            }
        }
        if p.must == 0 {
            // A cycle without the once-type matches too.
            if sccs.iter().any(|c| c.len() > 1) {
                let n = sccs.iter().find(|c| c.len() > 1).map(|c| c[0].index()).unwrap_or(0);
                return Detect::Yes(comp[n / s as usize]);
            }
        }
        crate::par::sort::sort_unstable(&mut targets);
        // Topological rank of each node's SCC in the free graph: a node reaches only nodes of
        // equal or higher rank, so a search stops at the highest rank it looks for. (petgraph
        // lists SCCs in one topological direction; which one is read off a crossing edge.)
        let k = sccs.len() as u32;
        let reverse = pg
            .edge_indices()
            .find_map(|e| {
                let (a, b) = pg.edge_endpoints(e)?;
                let (sa, sb) = (scc_of[a.index()], scc_of[b.index()]);
                (sa != sb).then_some(sa > sb)
            })
            .unwrap_or(true);
        let rank = |n: usize| if reverse { k - 1 - scc_of[n] } else { scc_of[n] };
        let mut reach = vec![0u32; pg.node_count()];
        let mut stamp = 0u32;
        let mut queue = VecDeque::new();
        let mut i = 0;
        while i < targets.len() {
            let to = targets[i].0;
            let group = targets[i..].iter().take_while(|t| t.0 == to).count();
            let bound = targets[i..i + group].iter().map(|t| rank(t.1 as usize)).max().unwrap_or(0);
            if rank(to as usize) <= bound {
                stamp += 1;
                reach[to as usize] = stamp;
                queue.clear();
                queue.push_back(NodeIndex::new(to as usize));
                while let Some(x) = queue.pop_front() {
                    for y in pg.neighbors(x) {
                        if !budget.spend(1) {
                            return Detect::Unknown(budget.exhausted.clone().unwrap_or_default());
                        }
                        if reach[y.index()] != stamp && rank(y.index()) <= bound {
                            reach[y.index()] = stamp;
                            queue.push_back(y);
                        }
                    }
                }
                if let Some(t) = targets[i..i + group].iter().find(|t| reach[t.1 as usize] == stamp) {
                    return Detect::Yes(comp[t.2 as usize]);
                }
            }
            i += group;
        }
        Detect::No
    }

    /// The shortest matching cycle of the component; `hint` lies on some matching cycle.
    fn witness(&mut self, comp: &[TxnId], p: &Pattern, hint: TxnId, budget: &mut Budget) -> Option<Cycle> {
        let mut best: Option<Vec<(u32, EdgeType)>> = None;
        let mut minimal = true;
        let starts = std::iter::once(self.local[hint as usize])
            .chain((0..comp.len() as u32).filter(|&v| v != self.local[hint as usize]));
        let adjacent_starts: &[u32] = if p.no_adjacent != 0 { &[0, 1] } else { &[0] };
        let starts: Vec<u32> = starts.collect();
        'outer: for s in starts {
            for &a0 in adjacent_starts {
                let bound = best.as_ref().map_or(usize::MAX, |b| b.len() - 1);
                if bound < 2 {
                    break 'outer;
                }
                let charge = best.is_some();
                match self.bfs(comp, p, s, a0, bound, budget, charge) {
                    Bfs::Found(walk) => {
                        // A closed walk without adjacent no-adjacent types may split only into
                        // cycles with adjacent ones and cycles without a must type (G-nonadjacent:
                        // rw ww ww rw ww through a ww-ww cycle): only a simple cycle that
                        // matches is a witness. Its component then holds a G0 or G1c cycle, so
                        // the levels proscribing G-nonadjacent are violated either way.
                        let (cycle, _) = simplify(p, walk.clone());
                        let word: Vec<EdgeType> = cycle.iter().map(|x| x.1).collect();
                        if matches(p, &word) {
                            best = Some(walk);
                        }
                    }
                    Bfs::None => {}
                    Bfs::OutOfBudget => {
                        minimal = false;
                        break 'outer;
                    }
                }
            }
        }
        let walk = best?;
        let walk = simplify(p, walk);
        let minimal = minimal && walk.1;
        let (txns, types) = walk.0.iter().map(|&(v, t)| (comp[v as usize], t)).unzip();
        Some(Cycle { txns, types, minimal })
    }

    /// Shortest closed walk from `s` (entered in adjacency state `a0`) matching the pattern, of
    /// length at most `bound`.
    #[allow(clippy::too_many_arguments)]
    fn bfs(
        &mut self,
        comp: &[TxnId],
        p: &Pattern,
        s: u32,
        a0: u32,
        bound: usize,
        budget: &mut Budget,
        charge: bool,
    ) -> Bfs {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.iter_mut().for_each(|x| *x = 0);
            self.epoch = 1;
        }
        let ep = self.epoch;
        let idx = |v: u32, st: u32| (v as usize) * STATES + st as usize;
        let start = a0 << 2;
        self.seen[idx(s, start)] = ep;
        let mut frontier = vec![(s, start)];
        let mut depth = 0;
        while !frontier.is_empty() && depth < bound {
            depth += 1;
            let mut next = Vec::new();
            for &(v, st) in &frontier {
                let (a, c, m) = (st >> 2, (st >> 1) & 1, st & 1);
                for &Succ { to: w, mask } in self.g.out(comp[v as usize]) {
                    let wl = self.local[w as usize];
                    if wl == u32::MAX {
                        continue;
                    }
                    if charge && !budget.spend(1) {
                        return Bfs::OutOfBudget;
                    }
                    for t in bits(mask & p.allowed) {
                        let na = if p.no_adjacent & t.bit() != 0 {
                            if a == 1 {
                                continue;
                            }
                            1
                        } else {
                            0
                        };
                        let nc = if p.once & t.bit() != 0 {
                            if c == 1 {
                                continue;
                            }
                            1
                        } else {
                            c
                        };
                        let nm = m | u32::from(p.must & t.bit() != 0);
                        let nst = (na << 2) | (nc << 1) | nm;
                        if wl == s && na == a0 && (p.must == 0 || nm == 1) {
                            // Closed: rebuild the walk.
                            let mut walk = vec![(v, t)];
                            let (mut cv, mut cst) = (v, st);
                            while !(cv == s && cst == start) {
                                let (pi, pt) = self.parent[idx(cv, cst)];
                                let (pv, pst) = (pi / STATES as u32, pi % STATES as u32);
                                walk.push((pv, EdgeType::ALL[pt as usize]));
                                cv = pv;
                                cst = pst;
                            }
                            walk.reverse();
                            return Bfs::Found(walk);
                        }
                        let i = idx(wl, nst);
                        if self.seen[i] != ep {
                            self.seen[i] = ep;
                            self.parent[i] = ((v as usize * STATES + st as usize) as u32, t as u8);
                            next.push((wl, nst));
                        }
                    }
                }
            }
            frontier = next;
        }
        Bfs::None
    }
}

enum Detect {
    No,
    Yes(TxnId),
    Unknown(String),
}

enum Bfs {
    Found(Vec<(u32, EdgeType)>),
    None,
    OutOfBudget,
}

/// Whether a cyclic word of edge types matches the pattern.
pub fn matches(p: &Pattern, types: &[EdgeType]) -> bool {
    if types.is_empty() || types.iter().any(|t| p.allowed & t.bit() == 0) {
        return false;
    }
    let once = types.iter().filter(|t| p.once & t.bit() != 0).count();
    let must = types.iter().any(|t| p.must & t.bit() != 0);
    let n = types.len();
    let adjacent = (0..n).any(|i| p.no_adjacent & types[i].bit() != 0 && p.no_adjacent & types[(i + 1) % n].bit() != 0);
    once <= 1 && (p.must == 0 || must) && !adjacent
}

/// A closed walk `(vertex, type of the edge leaving it)` made a simple cycle: split at a repeated
/// vertex and keep a part that still matches. Returns whether the walk was simple already.
fn simplify(p: &Pattern, mut walk: Vec<(u32, EdgeType)>) -> (Vec<(u32, EdgeType)>, bool) {
    let mut simple = true;
    loop {
        let n = walk.len();
        let mut split = None;
        'find: for i in 0..n {
            for j in i + 1..n {
                if walk[i].0 == walk[j].0 {
                    split = Some((i, j));
                    break 'find;
                }
            }
        }
        let Some((i, j)) = split else {
            return (walk, simple);
        };
        simple = false;
        let inner: Vec<(u32, EdgeType)> = walk[i..j].to_vec();
        let outer: Vec<(u32, EdgeType)> = walk[j..].iter().chain(&walk[..i]).copied().collect();
        let word = |w: &[(u32, EdgeType)]| w.iter().map(|x| x.1).collect::<Vec<_>>();
        walk = if matches(p, &word(&inner)) { inner } else { outer };
    }
}
