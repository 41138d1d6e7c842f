//! The search that learns: conflict-driven clause learning (Marques-Silva and Sakallah's GRASP,
//! with MiniSat's first-UIP analysis) over the constraints pruning left open, modulo the
//! level's cycles, as PolySI's MonoSAT is (4.4). Each open constraint is a boolean (its first
//! or second choice). The theory is the incremental cycle test of [`super::graph`]: a choice
//! whose edges close a forbidden cycle is refuted by the choices whose edges lie on that cycle
//! (known edges and choices pruning forced are facts and leave no literal), so a conflict
//! clause names only the constraints on one shortest cycle. The clause is learned (watched
//! literals, [`super::clauses`]) and the search jumps back to the second-highest level in it.
//!
//! Decisions take the constraints in the order given (earliest first) with their preferred
//! choice, then the choice they last had (phase saving). Before a decision both choices are
//! tested: one that closes a cycle implies the other at once, with that cycle as the reason,
//! so the first descent is the greedy pass and a conflict is only met when both close one.
//! On small problems every open constraint is tested after each propagation (the pruning rule
//! on the partial choice, as [`super::solve`]'s DPLL does), which is cheap there and prunes more.
//! The transitivity of each key's version order is given as clauses from the start
//! ([`super::transitivity`]).

use super::clauses::{first, lit, var, Clauses, Lit};
use super::constraints::Polygraph;
use super::graph::{Closes, DynGraph, Origin};
use super::transitivity;
use crate::graph::search::Budget;
use crate::graph::Edge;

/// Open constraints up to which every one is tested after each propagation (with `sweep`).
pub const SWEEP_MAX: usize = 2000;

/// Jumps back over more levels than this go back one level instead.
pub const CHRONO_JUMP: usize = 100;

/// Bytes of learned clauses beyond which the search stops with `unknown`.
const LEARNED_BYTES: usize = 512 << 20;

pub enum Learned {
    /// An acyclic resolution exists (the graph holds it).
    Acyclic,
    /// Every resolution has a cycle. `cons`: the constraint of the last conflict (both of its
    /// choices may close a cycle in the graph left); `cycle`: the last cycle met.
    Conflict {
        cons: Option<u32>,
        cycle: Vec<(Edge, Origin)>,
    },
    Unknown,
}

#[derive(Clone, Copy)]
enum Reason {
    Decision,
    Clause(u32),
    /// A slice of the theory stack: the implied literal, then the negated choices on its cycle.
    Theory(u32, u32),
}

/// How the search runs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Test every open constraint after each propagation, on problems of at most
    /// [`SWEEP_MAX`] open constraints.
    pub sweep: bool,
    /// Jumps back over more levels than this go back one level instead ([`CHRONO_JUMP`]).
    pub chrono_jump: usize,
}

/// Counts for the report and the benchmark.
#[derive(Default, Debug, Clone)]
pub struct Work {
    pub decisions: u64,
    pub conflicts: u64,
    /// Conflicts after which the search went back more than one level.
    pub backjumps: u64,
    /// Constraints not searched (their edges facts in the graph) on the cycles met, each once:
    /// where [`super::repair`] looks for what to free next.
    pub facts_on_cycles: Vec<u32>,
}

struct Learner<'p> {
    pg: &'p Polygraph,
    /// Variable -> constraint, and back (`u32::MAX`: not a variable).
    cons_of: &'p [u32],
    var_of: Vec<u32>,
    /// Per variable: 0 unassigned, 1 first choice, 2 second.
    value: Vec<u8>,
    level: Vec<u32>,
    reason: Vec<Reason>,
    phase: Vec<bool>,
    trail: Vec<Lit>,
    /// Per trail entry: the graph's edge count before its edges, and the theory stack's size
    /// before its reason.
    edge_mark: Vec<u32>,
    theory_mark: Vec<u32>,
    /// Trail length where each decision level starts.
    limits: Vec<u32>,
    /// Next trail entries for the theory (edges) and for the clauses.
    tq: usize,
    cq: usize,
    theory: Vec<Lit>,
    clauses: Clauses,
    implied: Vec<(Lit, u32)>,
    /// No variable below this one is unassigned.
    cursor: usize,
    seen: Vec<bool>,
    sweep: bool,
    chrono_jump: usize,
    last: (Option<u32>, Vec<(Edge, Origin)>),
    work: Work,
    /// Per constraint: already in `work.facts_on_cycles`.
    fact_seen: Vec<bool>,
}

/// What a test of one choice found.
enum Test {
    /// Its edges were added (none closes a cycle).
    Added,
    /// It closes a cycle: the negated choices on it (its own excluded).
    Cycle(Vec<Lit>),
}

/// `g` holds the known and forced edges; `open` the constraints left, in the order to decide
/// them; `prefer` each constraint's first choice to try. On `Acyclic` the graph holds the
/// resolution; on `Conflict`, the choices every resolution must make.
pub fn solve(
    pg: &Polygraph,
    g: &mut DynGraph,
    open: &[u32],
    prefer: &[bool],
    options: Options,
    budget: &mut Budget,
    work: &mut Work,
) -> Learned {
    let Options { sweep, chrono_jump } = options;
    let n = open.len();
    let mut var_of = vec![u32::MAX; pg.cons.len()];
    for (v, &c) in open.iter().enumerate() {
        var_of[c as usize] = v as u32;
    }
    let mut s = Learner {
        pg,
        cons_of: open,
        var_of,
        value: vec![0; n],
        level: vec![0; n],
        reason: vec![Reason::Decision; n],
        phase: open.iter().map(|&c| prefer.get(c as usize).copied().unwrap_or(true)).collect(),
        trail: Vec::new(),
        edge_mark: Vec::new(),
        theory_mark: Vec::new(),
        limits: Vec::new(),
        tq: 0,
        cq: 0,
        theory: Vec::new(),
        clauses: Clauses::new(n),
        implied: Vec::new(),
        cursor: 0,
        seen: vec![false; n],
        sweep: sweep && n <= SWEEP_MAX,
        chrono_jump,
        last: (None, Vec::new()),
        work: Work::default(),
        fact_seen: vec![false; pg.cons.len()],
    };
    // Settled constraints (pruning forced them) are those with edges in the graph already.
    let mut settled: Vec<Option<bool>> = vec![None; pg.cons.len()];
    for id in 0..g.len() as u32 {
        if let Origin::Chosen { cons, first } = g.origin(id) {
            if let Some(x) = settled.get_mut(cons as usize) {
                *x = Some(first);
            }
        }
    }
    // A quarter of the clauses' memory for transitivity (4 bytes a literal).
    for clause in transitivity::clauses(pg, &s.var_of, &settled, LEARNED_BYTES / 4 / 4) {
        // Shorter ones cannot arise after pruning; leaving a clause out is always sound.
        if clause.len() >= 2 {
            s.clauses.add(&clause);
        }
    }
    let out = s.run(g, budget);
    *work = std::mem::take(&mut s.work);
    out
}

fn value_of(value: &[u8], l: Lit) -> Option<bool> {
    match value[var(l) as usize] {
        0 => None,
        1 => Some(first(l)),
        _ => Some(!first(l)),
    }
}

impl Learner<'_> {
    fn run(&mut self, g: &mut DynGraph, budget: &mut Budget) -> Learned {
        loop {
            let conflict = match self.propagate(g, budget) {
                Err(()) => return Learned::Unknown,
                Ok(Some(c)) => Some(c),
                Ok(None) => match self.sweep_all(g, budget) {
                    Err(()) => return Learned::Unknown,
                    Ok(Some(c)) => Some(c),
                    Ok(None) if self.tq < self.trail.len() || self.cq < self.trail.len() => continue,
                    Ok(None) => match self.decide(g, budget) {
                        Err(()) => return Learned::Unknown,
                        Ok(Some(c)) => Some(c),
                        Ok(None) if self.tq < self.trail.len() || self.cq < self.trail.len() => continue,
                        Ok(None) if self.cursor >= self.value.len() => return Learned::Acyclic,
                        Ok(None) => continue,
                    },
                },
            };
            if let Some(clause) = conflict {
                self.work.conflicts += 1;
                if !budget.spend(1 + clause.len() as u64) {
                    return Learned::Unknown;
                }
                if !self.learn(g, clause) {
                    let (cons, cycle) = std::mem::take(&mut self.last);
                    return Learned::Conflict { cons, cycle };
                }
                if self.clauses.size() * 4 > LEARNED_BYTES {
                    budget.exhausted = Some(format!(
                        "the search's learned clauses outgrew {} MB after {} conflicts",
                        LEARNED_BYTES >> 20,
                        self.work.conflicts
                    ));
                    return Learned::Unknown;
                }
            }
        }
    }

    fn value(&self, l: Lit) -> Option<bool> {
        value_of(&self.value, l)
    }

    fn assign(&mut self, l: Lit, reason: Reason, theory_before: usize) {
        self.assign_at(l, reason, theory_before, self.limits.len() as u32);
    }

    /// Assign `l` at `level`, which is below the current one for a literal asserted after a
    /// chronological backtrack.
    fn assign_at(&mut self, l: Lit, reason: Reason, theory_before: usize, level: u32) {
        let v = var(l) as usize;
        self.value[v] = if first(l) { 1 } else { 2 };
        self.level[v] = level;
        self.reason[v] = reason;
        self.trail.push(l);
        self.edge_mark.push(u32::MAX);
        self.theory_mark.push(theory_before as u32);
    }

    /// Assign `l` implied by a cycle: `because` holds the negated choices on it.
    fn imply(&mut self, l: Lit, because: &[Lit]) {
        let start = self.theory.len();
        self.theory.push(l);
        self.theory.extend(because.iter().filter(|&&q| var(q) != var(l)));
        let len = self.theory.len() - start;
        self.assign(l, Reason::Theory(start as u32, len as u32), start);
    }

    /// Add the edges of choice `first` of variable `v`, unless one closes a cycle (then none).
    fn test(&mut self, g: &mut DynGraph, v: u32, first: bool, budget: &mut Budget) -> Result<Test, ()> {
        let c = self.cons_of[v as usize];
        let cons = self.pg.cons[c as usize];
        let origin = Origin::Chosen { cons: c, first };
        if self.pg.side(cons, first).all(|e| g.forward(&e)) {
            g.push_choice(c, first);
            return Ok(Test::Added);
        }
        let before = g.len();
        for (e, place) in self.pg.side_at(cons, first) {
            match g.closes(&e, budget) {
                Closes::No => g.push_side(e, c, first, place),
                Closes::Unknown => {
                    g.truncate(before);
                    return Err(());
                }
                Closes::Yes(path) => {
                    let mut lits = Vec::new();
                    let mut cycle = vec![(e, origin)];
                    for &id in &path {
                        let (f, o) = g.edge(id);
                        cycle.push((f, o));
                        if let Origin::Chosen { cons, first: side } = o {
                            let w = self.var_of.get(cons as usize).copied().unwrap_or(u32::MAX);
                            if w != u32::MAX && w != v {
                                let q = lit(w, side) ^ 1;
                                if !lits.contains(&q) {
                                    lits.push(q);
                                }
                            } else if w == u32::MAX && self.fact_seen.get(cons as usize) == Some(&false) {
                                self.fact_seen[cons as usize] = true;
                                self.work.facts_on_cycles.push(cons);
                            }
                        }
                    }
                    g.truncate(before);
                    self.last = (Some(c), cycle);
                    return Ok(Test::Cycle(lits));
                }
            }
        }
        Ok(Test::Added)
    }

    /// Unit propagation: the pending choices' edges, then the clauses watching them.
    /// `Ok(Some(clause))`: a conflict, every literal of the clause false.
    fn propagate(&mut self, g: &mut DynGraph, budget: &mut Budget) -> Result<Option<Vec<Lit>>, ()> {
        loop {
            if self.tq < self.trail.len() {
                let p = self.trail[self.tq];
                self.edge_mark[self.tq] = g.len() as u32;
                match self.test(g, var(p), first(p), budget)? {
                    Test::Added => self.tq += 1,
                    Test::Cycle(mut lits) => {
                        lits.push(p ^ 1);
                        return Ok(Some(lits));
                    }
                }
                continue;
            }
            if self.cq < self.trail.len() {
                let p = self.trail[self.cq];
                self.cq += 1;
                let mut implied = std::mem::take(&mut self.implied);
                let value = &self.value;
                let conflict = self.clauses.propagate(p, &|l| value_of(value, l), &mut implied);
                if !budget.spend(1) {
                    return Err(());
                }
                if let Some(id) = conflict {
                    implied.clear();
                    self.implied = implied;
                    self.last.0 = None;
                    return Ok(Some(self.clauses.get(id).to_vec()));
                }
                let mut clash = None;
                for &(l, id) in &implied {
                    match self.value(l) {
                        Some(true) => {}
                        Some(false) => {
                            clash = Some(id);
                            break;
                        }
                        None => self.assign(l, Reason::Clause(id), self.theory.len()),
                    }
                }
                implied.clear();
                self.implied = implied;
                if let Some(id) = clash {
                    self.last.0 = None;
                    return Ok(Some(self.clauses.get(id).to_vec()));
                }
                continue;
            }
            return Ok(None);
        }
    }

    /// On small problems: the pruning rule on every unassigned constraint.
    fn sweep_all(&mut self, g: &mut DynGraph, budget: &mut Budget) -> Result<Option<Vec<Lit>>, ()> {
        if !self.sweep {
            return Ok(None);
        }
        for v in self.cursor as u32..self.value.len() as u32 {
            if self.value[v as usize] != 0 {
                continue;
            }
            if let Some(conflict) = self.lookahead(g, v, None, budget)? {
                return Ok(Some(conflict));
            }
        }
        Ok(None)
    }

    /// Test both choices of `v`: one closing a cycle implies the other; both, a conflict.
    /// With `decide`, the preferred choice is then taken as a decision if both are open.
    /// Edges of a choice taken here stay in the graph.
    fn lookahead(
        &mut self,
        g: &mut DynGraph,
        v: u32,
        decide: Option<bool>,
        budget: &mut Budget,
    ) -> Result<Option<Vec<Lit>>, ()> {
        let pref = decide.unwrap_or(self.phase[v as usize]);
        let mark = g.len();
        let why = match self.test(g, v, pref, budget)? {
            Test::Added if decide.is_some() => {
                self.limits.push(self.trail.len() as u32);
                self.work.decisions += 1;
                self.assign(lit(v, pref), Reason::Decision, self.theory.len());
                return Ok(self.taken(mark));
            }
            Test::Added => {
                g.truncate(mark);
                // The other choice may still close a cycle.
                match self.test(g, v, !pref, budget)? {
                    Test::Added => {
                        g.truncate(mark);
                        return Ok(None);
                    }
                    Test::Cycle(lits) => {
                        self.imply(lit(v, pref), &lits);
                        return self.taken_after(g, v, pref, budget);
                    }
                }
            }
            Test::Cycle(lits) => lits,
        };
        match self.test(g, v, !pref, budget)? {
            Test::Added => {
                self.imply(lit(v, !pref), &why);
                Ok(self.taken(mark))
            }
            Test::Cycle(mut lits) => {
                for q in why {
                    if !lits.contains(&q) {
                        lits.push(q);
                    }
                }
                Ok(Some(lits))
            }
        }
    }

    /// The last trail entry's edges are in the graph already (from `mark`).
    fn taken(&mut self, mark: usize) -> Option<Vec<Lit>> {
        let i = self.trail.len() - 1;
        self.edge_mark[i] = mark as u32;
        if self.tq == i {
            self.tq += 1;
        }
        None
    }

    /// Add the edges of a choice just implied (tested before, so they close no cycle).
    fn taken_after(
        &mut self,
        g: &mut DynGraph,
        v: u32,
        pref: bool,
        budget: &mut Budget,
    ) -> Result<Option<Vec<Lit>>, ()> {
        let mark = g.len();
        match self.test(g, v, pref, budget)? {
            Test::Added => Ok(self.taken(mark)),
            Test::Cycle(mut lits) => {
                lits.push(lit(v, pref) ^ 1);
                Ok(Some(lits))
            }
        }
    }

    /// Take the next unassigned constraint, testing both choices first.
    fn decide(&mut self, g: &mut DynGraph, budget: &mut Budget) -> Result<Option<Vec<Lit>>, ()> {
        while self.cursor < self.value.len() && self.value[self.cursor] != 0 {
            self.cursor += 1;
        }
        if self.cursor >= self.value.len() {
            return Ok(None);
        }
        if !budget.spend(1) {
            return Err(());
        }
        let v = self.cursor as u32;
        self.lookahead(g, v, Some(self.phase[v as usize]), budget)
    }

    /// Undo every level above `level`. Literals asserted out of order at `level` or below
    /// (after a chronological backtrack) are kept: taken off and put back, their edges added
    /// again by propagation.
    fn backjump(&mut self, g: &mut DynGraph, level: usize) {
        if self.limits.len() <= level {
            return;
        }
        let t = self.limits[level] as usize;
        let mut keep: Vec<(Lit, u32, Result<u32, Vec<Lit>>)> = Vec::new();
        for &l in &self.trail[t..] {
            let v = var(l) as usize;
            if self.level[v] as usize <= level {
                let why = match self.reason[v] {
                    Reason::Clause(id) => Ok(id),
                    r => Err(self.reason_of(r).to_vec()),
                };
                keep.push((l, self.level[v], why));
                continue;
            }
            self.phase[v] = first(l);
            self.value[v] = 0;
            self.cursor = self.cursor.min(v);
        }
        if t < self.tq {
            g.truncate(self.edge_mark[t] as usize);
        }
        self.theory.truncate(self.theory_mark[t] as usize);
        self.trail.truncate(t);
        self.edge_mark.truncate(t);
        self.theory_mark.truncate(t);
        self.tq = self.tq.min(t);
        self.cq = self.cq.min(t);
        self.limits.truncate(level);
        for (l, at, why) in keep {
            match why {
                Ok(id) => self.assign_at(l, Reason::Clause(id), self.theory.len(), at),
                Err(lits) => {
                    let start = self.theory.len();
                    self.theory.extend_from_slice(&lits);
                    let r = Reason::Theory(start as u32, lits.len() as u32);
                    self.assign_at(l, r, start, at);
                }
            }
        }
    }

    fn reason_lits(&self, v: u32) -> &[Lit] {
        self.reason_of(self.reason[v as usize])
    }

    fn reason_of(&self, r: Reason) -> &[Lit] {
        match r {
            Reason::Decision => &[],
            Reason::Clause(id) => self.clauses.get(id),
            Reason::Theory(s, n) => &self.theory[s as usize..(s + n) as usize],
        }
    }

    /// Learn from a clause all of whose literals are false: first-UIP analysis, the jump back,
    /// and the learned clause's literal asserted. `false` when the conflict needs no choice
    /// (every resolution has a cycle).
    fn learn(&mut self, g: &mut DynGraph, conflict: Vec<Lit>) -> bool {
        let top = conflict.iter().map(|&q| self.level[var(q) as usize]).max().unwrap_or(0) as usize;
        if top == 0 {
            // Leave the graph with the choices every resolution makes, for the explanation.
            self.backjump(g, 0);
            return false;
        }
        // The conflict may lie wholly below the current level (a choice tested late).
        self.backjump(g, top);
        let mut learnt: Vec<Lit> = vec![0];
        let mut count = 0usize;
        let mut idx = self.trail.len();
        let mut clause = conflict;
        let mut skip_first = false;
        let uip = loop {
            for &q in clause.iter().skip(usize::from(skip_first)) {
                let v = var(q) as usize;
                if !self.seen[v] && self.level[v] > 0 {
                    self.seen[v] = true;
                    if self.level[v] as usize == top {
                        count += 1;
                    } else {
                        learnt.push(q);
                    }
                }
            }
            let p = loop {
                idx -= 1;
                let p = self.trail[idx];
                let v = var(p) as usize;
                if self.seen[v] && self.level[v] as usize == top {
                    break p;
                }
            };
            self.seen[var(p) as usize] = false;
            count -= 1;
            if count == 0 {
                break p;
            }
            clause = self.reason_lits(var(p)).to_vec();
            skip_first = true;
        };
        learnt[0] = uip ^ 1;
        for &q in &learnt[1..] {
            self.seen[var(q) as usize] = false;
        }
        let back = if learnt.len() == 1 {
            0
        } else {
            let (i, _) = learnt
                .iter()
                .enumerate()
                .skip(1)
                .max_by_key(|&(_, &q)| self.level[var(q) as usize])
                .unwrap_or((1, &learnt[1]));
            learnt.swap(1, i);
            self.level[var(learnt[1]) as usize] as usize
        };
        self.work.backjumps += u64::from(back + 1 < top);
        // A long jump back would undo many choices the conflict does not involve, each to be
        // taken again: go back one level only and assert the literal at its own level
        // (Nadel and Ryvchin, "Chronological Backtracking", SAT 2018).
        let to = if top - back > self.chrono_jump { top - 1 } else { back };
        self.backjump(g, to);
        let id = self.clauses.add(&learnt);
        self.assign_at(learnt[0], Reason::Clause(id), self.theory.len(), back as u32);
        true
    }
}
