//! What front ends show of a run, as plain data: no model types, no DOM. A model's
//! `view` module implements [`Present`] from its state and facts; the page draws
//! the [`Stage`] with components, the CLI prints the summary.

use serde::Serialize;

use crate::engine::{Model, Run};

/// A model's presentation (its `view` module). A model's state and steps know
/// nothing of it.
pub trait Present: Model {
    /// What `flushscope run --json` adds after `invariants`: the run's end state.
    type Summary: Serialize;
    fn summary(&self, run: &Run<Self>) -> Self::Summary;
}
