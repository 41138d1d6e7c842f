//! The one builder of a "Let: ... Then: ..." counterexample, in grail's wording or Elle's
//! (`elle/core.clj`, `render-cycle-explanation`):
//!
//! ```text
//! Let:
//!   T1 = {:index 3, ...}
//!   T2 = {:index 5, ...}
//!
//! Then:
//!   - T1 < T2 (rw), because T1 read key 5 = [1], which does not include T2's append of 2.
//!   - However, T2 < T1 (wr), because T1 read key 5 = [1 2], which ends with T2's append of 2: a contradiction!
//!
//! The cycle is G-single (non-repeatable read).
//! ```
//!
//! Lines are separated by one line break and groups by a blank line; the text ends without a
//! line break. Grail's counterexamples may add notes (a blank line, then a sentence) between
//! groups of steps, and close with the sentence naming the cycle; Elle's ends on its contradiction.

use std::fmt::{Display, Write};

/// What differs between grail's wording and Elle's; the rest is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wording {
    /// A step shows its label: grail's `T1 < T2 (rw, certain)`, Elle's `T1 < T2`.
    pub labels: bool,
    /// A list of no bindings or no steps still leaves an empty line after its header, as Elle's
    /// `(str "Let:\n" (str/join "\n" bindings) "\n\nThen:\n" ...)` does; grail's leaves none.
    pub empty_list_line: bool,
}

impl Wording {
    pub const GRAIL: Wording = Wording { labels: true, empty_list_line: false };
    pub const ELLE: Wording = Wording { labels: false, empty_list_line: true };
}

/// A "Let / Then" text being written: [`bind`](Self::bind) each transaction, [`then`](Self::then),
/// a [`step`](Self::step) per edge (the last of a cycle closes it), then [`close`](Self::close)
/// or [`finish`](Self::finish).
pub struct LetThen {
    wording: Wording,
    text: String,
    /// Lines since the last header.
    listed: usize,
}

impl LetThen {
    pub fn new(wording: Wording) -> LetThen {
        LetThen { wording, text: String::from("Let:"), listed: 0 }
    }

    fn line(&mut self, line: impl Display) {
        let _ = write!(self.text, "\n{line}");
    }

    /// Ends a list under a header: an empty one leaves an empty line where the wording says so.
    fn end_list(&mut self) {
        if self.listed == 0 && self.wording.empty_list_line {
            self.text.push('\n');
        }
        self.listed = 0;
    }

    /// A blank line, then `header` (the lines that follow are its list).
    fn group(&mut self, header: impl Display) {
        self.end_list();
        self.text.push('\n');
        self.line(header);
    }

    /// `  T1 = ...`: a name bound to its transaction.
    pub fn bind(&mut self, name: &str, txn: impl Display) {
        self.line(format_args!("  {name} = {txn}"));
        self.listed += 1;
    }

    /// `Then:`, after the bindings.
    pub fn then(&mut self) {
        self.group("Then:");
    }

    /// A sentence of its own between groups of steps (`The other order ... does not help:`).
    pub fn note(&mut self, sentence: impl Display) {
        self.group(sentence);
    }

    /// `  - T1 < T2 (label), because why.`; the `last` step of a cycle closes it: `  - However,
    /// T2 < T1 (label), because why: a contradiction!`.
    pub fn step(&mut self, from: &str, to: &str, label: &str, why: &str, last: bool) {
        let (lead, tail) = if last { ("However, ", ": a contradiction!") } else { ("", ".") };
        let (open, label, close) = if self.wording.labels { (" (", label, ")") } else { ("", "", "") };
        self.line(format_args!("  - {lead}{from} < {to}{open}{label}{close}, because {why}{tail}"));
        self.listed += 1;
    }

    /// The text, ending on its last line.
    pub fn finish(mut self) -> String {
        self.end_list();
        self.text
    }

    /// The text, closed by the sentence naming the cycle: `The cycle is G-single (lost update).`
    pub fn close(mut self, anomaly: &str, name: &str) -> String {
        self.note(format_args!("The cycle is {anomaly} ({name})."));
        self.text
    }

    /// The text closed for a cycle through chosen versions whose anomaly is more specific than
    /// the violation (`own`: the cycle's; `anomaly`: with the cycles that forced its choices, or,
    /// when not all are shown (`covered` false), the least specific the level forbids).
    pub fn close_forced(mut self, own: &str, name: &str, anomaly: &str, order: &str, covered: bool) -> String {
        match covered {
            true => self.note(format_args!(
                "The cycle is {own} ({name}) through forced choices; with the cycles that forced them, the violation is {anomaly}: every {order} closes one of these cycles, not always a {own} one."
            )),
            false => self.note(format_args!(
                "The cycle is {own} ({name}) through chosen versions, not all of them shown forced; the violation is named {anomaly}, the least specific anomaly the level forbids, which every violation of it is."
            )),
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle(wording: Wording, txns: &[&str], steps: usize) -> LetThen {
        let mut lt = LetThen::new(wording);
        for (i, t) in txns.iter().enumerate() {
            lt.bind(&format!("T{}", i + 1), t);
        }
        lt.then();
        for i in 0..steps {
            lt.step(&format!("T{}", i + 1), &format!("T{}", (i + 1) % steps + 1), "rw", "why", i + 1 == steps);
        }
        lt
    }

    #[test]
    fn grail_closes_with_the_cycle_s_name() {
        let mut lt = cycle(Wording::GRAIL, &["a", "b"], 2);
        lt.note("Another:");
        lt.step("T2", "T1", "ww, chosen", "why", true);
        assert_eq!(
            lt.close("G-single", "lost update"),
            "Let:\n  T1 = a\n  T2 = b\n\nThen:\n  - T1 < T2 (rw), because why.\n  - However, T2 < T1 (rw), because \
             why: a contradiction!\n\nAnother:\n  - However, T2 < T1 (ww, chosen), because why: a contradiction!\n\n\
             The cycle is G-single (lost update)."
        );
    }

    #[test]
    fn elle_ends_on_its_contradiction_without_labels() {
        assert_eq!(
            cycle(Wording::ELLE, &["a", "b"], 2).finish(),
            "Let:\n  T1 = a\n  T2 = b\n\nThen:\n  - T1 < T2, because why.\n  - However, T2 < T1, because why: a \
             contradiction!"
        );
    }

    #[test]
    fn empty_lists_as_each_wording_leaves_them() {
        // Elle: (str "Let:\n" (str/join "\n" []) "\n\nThen:\n" (str/join "\n" [])).
        assert_eq!(cycle(Wording::ELLE, &[], 0).finish(), "Let:\n\n\nThen:\n");
        // grail: "Let:\n", no bindings, "\nThen:\n", no steps, "\nThe cycle is ...".
        assert_eq!(
            cycle(Wording::GRAIL, &[], 0).close("G0", "write cycle"),
            "Let:\n\nThen:\n\nThe cycle is G0 (write cycle)."
        );
    }
}
