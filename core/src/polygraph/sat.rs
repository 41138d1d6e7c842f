//! The search as SAT modulo acyclicity, the way PolySI uses MonoSAT (4.4): one boolean per
//! open constraint, and a theory that adds each chosen side's edges to the graph with its
//! incremental topological order; a cycle becomes a conflict clause (not all of the chosen
//! sides on the cycle), which the CDCL solver (batsat, a pure-Rust MiniSat) learns from.

use super::constraints::Polygraph;
use super::graph::{Closes, DynGraph, Origin};
use crate::graph::search::Budget;
use crate::graph::Edge;
use batsat::{lbool, Lit, SolverInterface, Theory, TheoryArg, Var};

pub enum SatOutcome {
    Acyclic,
    /// Every resolution has a cycle; the last cycle the theory met (in one resolution).
    Unsat(Vec<(Edge, Origin)>),
    Unknown,
}

struct Acyclic<'a, 'b, 'c, 'p> {
    pg: &'a Polygraph,
    g: &'a mut DynGraph<'p>,
    budget: &'a mut Budget<'b>,
    /// Variable index -> constraint.
    cons_of: &'a [u32],
    /// Constraint -> variable index (u32::MAX when fixed).
    var_of: &'c [u32],
    /// Per level: edges and trail literals processed before it.
    levels: Vec<(usize, usize)>,
    done: usize,
    out_of_budget: bool,
    clause: Vec<Lit>,
    last_cycle: Vec<(Edge, Origin)>,
}

impl Acyclic<'_, '_, '_, '_> {
    fn lit(&self, cons: u32, first: bool) -> Option<Lit> {
        let v = *self.var_of.get(cons as usize)?;
        (v != u32::MAX).then(|| Lit::new(Var::unsafe_from_idx(v), first))
    }

    /// Add the edges of the new literals; on a cycle, raise the conflict.
    fn check(&mut self, acts: &mut TheoryArg) {
        let model: Vec<Lit> = acts.model().to_vec();
        if self.done > model.len() {
            self.done = model.len();
        }
        while self.done < model.len() {
            let lit = model[self.done];
            self.done += 1;
            let Some(&c) = self.cons_of.get(lit.var().idx() as usize) else { continue };
            let first = lit.sign();
            for (e, place) in self.pg.side_at(self.pg.cons[c as usize], first) {
                match self.g.closes(&e, self.budget) {
                    Closes::No => self.g.push_side(e, c, first, place),
                    Closes::Unknown => {
                        // Stop the search: a conflict on this literal, and no more work.
                        self.out_of_budget = true;
                        acts.raise_conflict(&[!lit], false);
                        return;
                    }
                    Closes::Yes(path) => {
                        self.last_cycle.clear();
                        self.last_cycle.push((e, Origin::Chosen { cons: c, first }));
                        self.last_cycle.extend(path.iter().map(|&id| self.g.edge(id)));
                        self.clause.clear();
                        self.clause.push(!lit);
                        for id in path {
                            if let (_, Origin::Chosen { cons, first }) = self.g.edge(id) {
                                if let Some(l) = self.lit(cons, first) {
                                    if !self.clause.contains(&!l) {
                                        self.clause.push(!l);
                                    }
                                }
                            }
                        }
                        let clause = std::mem::take(&mut self.clause);
                        acts.raise_conflict(&clause, true);
                        self.clause = clause;
                        return;
                    }
                }
            }
        }
    }
}

impl Theory for Acyclic<'_, '_, '_, '_> {
    fn final_check(&mut self, acts: &mut TheoryArg) {
        self.check(acts)
    }

    fn partial_check(&mut self, acts: &mut TheoryArg) {
        self.check(acts)
    }

    fn create_level(&mut self) {
        self.levels.push((self.g.len(), self.done));
    }

    fn pop_levels(&mut self, n: usize) {
        let keep = self.levels.len().saturating_sub(n);
        if let Some(&(edges, done)) = self.levels.get(keep) {
            self.g.truncate(edges);
            self.done = done;
        }
        self.levels.truncate(keep);
    }

    fn n_levels(&self) -> usize {
        self.levels.len()
    }

    fn explain_propagation(&mut self, _p: Lit) -> &[Lit] {
        &[]
    }
}

/// Resolve the `open` constraints acyclically in `g` (which holds the known and forced edges).
pub fn solve(pg: &Polygraph, g: &mut DynGraph, open: &[u32], prefer: &[bool], budget: &mut Budget) -> SatOutcome {
    let mut solver = batsat::BasicSolver::new(Default::default(), Default::default());
    let mut var_of = vec![u32::MAX; pg.cons.len()];
    for (i, &c) in open.iter().enumerate() {
        let pol = if prefer.get(c as usize).copied().unwrap_or(true) { lbool::TRUE } else { lbool::FALSE };
        let v = solver.new_var(pol, true);
        debug_assert_eq!(v.idx() as usize, i);
        var_of[c as usize] = i as u32;
    }
    let base = g.len();
    let mut th = Acyclic {
        pg,
        g,
        budget,
        cons_of: open,
        var_of: &var_of,
        levels: Vec::new(),
        done: 0,
        out_of_budget: false,
        clause: Vec::new(),
        last_cycle: Vec::new(),
    };
    let r = solver.solve_limited_th(&mut th, &[]);
    let out = if th.out_of_budget {
        SatOutcome::Unknown
    } else if r == lbool::TRUE {
        SatOutcome::Acyclic
    } else if r == lbool::FALSE {
        SatOutcome::Unsat(std::mem::take(&mut th.last_cycle))
    } else {
        SatOutcome::Unknown
    };
    if !matches!(out, SatOutcome::Acyclic) {
        th.g.truncate(base);
    }
    out
}
