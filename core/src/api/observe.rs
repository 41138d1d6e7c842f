//! What a front end hears of long work, and how it stops it: core has no clock, so deadlines,
//! progress lines and cancellation live in the front end's [`Observer`].

use crate::history::Model;

/// A phase of a session's work, begun or ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    /// Reading `bytes` of input begins.
    Reading { bytes: usize },
    /// Reading ended.
    Read { transactions: usize, model: Model },
    /// Building the dependency graph begins (only when a check or view needs a new one).
    Inferring,
    /// The graph is built.
    Inferred { vertices: usize, edges: usize },
    /// The levels' search begins.
    Checking,
    /// The check ended with this overall verdict (`None`: some level unknown).
    Checked { valid: Option<bool> },
}

/// Hears a session's events and may stop its searches. Every method has a default that does
/// nothing, and `()` is the observer that hears nothing.
pub trait Observer {
    fn event(&mut self, _e: Event) {}

    /// Polled during long searches (every few thousand steps): `true` stops the search, and the
    /// levels not decided yet become `unknown` with the reason.
    fn interrupted(&mut self) -> bool {
        false
    }

    /// The reader is done with the input's bytes before `end` (a mapped file may let them go).
    fn consumed(&mut self, _end: usize) {}
}

impl Observer for () {}
