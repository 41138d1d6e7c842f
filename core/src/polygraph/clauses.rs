//! Learned clauses over the open constraints, with two watched literals each (Moskewicz et al.,
//! "Chaff", DAC 2001): a clause is visited only when one of its two watched literals becomes
//! false, so unit propagation costs nothing for clauses that are already satisfied.
//!
//! A literal is one choice of one open constraint: `2 * var` its first choice, `2 * var + 1`
//! its second (`lit ^ 1` is the other choice).

pub type Lit = u32;

pub const fn lit(var: u32, first: bool) -> Lit {
    2 * var + (!first) as u32
}

pub const fn var(l: Lit) -> u32 {
    l / 2
}

pub const fn first(l: Lit) -> bool {
    l % 2 == 0
}

/// The clause store: literals in one arena, and per literal the clauses watching it.
#[derive(Default)]
pub struct Clauses {
    lits: Vec<Lit>,
    spans: Vec<(u32, u32)>,
    watches: Vec<Vec<u32>>,
}

impl Clauses {
    pub fn new(vars: usize) -> Self {
        Clauses { lits: Vec::new(), spans: Vec::new(), watches: vec![Vec::new(); 2 * vars] }
    }

    /// Literals held, for the memory bound.
    pub fn size(&self) -> usize {
        self.lits.len()
    }

    pub fn get(&self, id: u32) -> &[Lit] {
        let (s, n) = self.spans[id as usize];
        &self.lits[s as usize..(s + n) as usize]
    }

    /// Add a clause whose first literal is the one it asserts and whose second is false at
    /// the highest level of the rest (so both watches are right after the backjump).
    pub fn add(&mut self, clause: &[Lit]) -> u32 {
        let id = self.spans.len() as u32;
        self.spans.push((self.lits.len() as u32, clause.len() as u32));
        self.lits.extend_from_slice(clause);
        for &l in clause.iter().take(2) {
            if let Some(w) = self.watches.get_mut(l as usize) {
                w.push(id);
            }
        }
        id
    }

    /// `p` became true: visit the clauses watching `!p`, moving each watch to a literal not
    /// false where there is one. `value` gives a literal's value (`None`: unassigned). Implied
    /// literals go to `out`; the first all-false clause ends the visit.
    pub fn propagate(&mut self, p: Lit, value: &dyn Fn(Lit) -> Option<bool>, out: &mut Vec<(Lit, u32)>) -> Option<u32> {
        let falsified = p ^ 1;
        let list = std::mem::take(self.watches.get_mut(falsified as usize)?);
        let mut kept = Vec::with_capacity(list.len());
        let mut conflict = None;
        for (i, &id) in list.iter().enumerate() {
            if conflict.is_some() {
                kept.extend_from_slice(&list[i..]);
                break;
            }
            let (s, n) = self.spans[id as usize];
            let c = &mut self.lits[s as usize..(s + n) as usize];
            if c[0] == falsified {
                c.swap(0, 1);
            }
            if value(c[0]) == Some(true) {
                kept.push(id);
                continue;
            }
            if let Some(k) = (2..c.len()).find(|&k| value(c[k]) != Some(false)) {
                c.swap(1, k);
                let w = c[1] as usize;
                self.watches[w].push(id);
                continue;
            }
            kept.push(id);
            match value(c[0]) {
                Some(false) => conflict = Some(id),
                _ => out.push((c[0], id)),
            }
        }
        self.watches[falsified as usize] = kept;
        conflict
    }
}
