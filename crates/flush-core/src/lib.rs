//! FlushScope's core: a deterministic, sans-IO simulator of Milvus's datanode
//! flush machinery, one goroutine step at a time.
//!
//! * [`engine`]: the [`Model`] trait and [`Run`], which drives any model: a
//!   [`sched::Scheduler`] picks the next runnable goroutine, every step is
//!   recorded, and any step can be revisited.
//! * Each model is one folder of [`models`]: `flush2021` is the 2021 flush manager
//!   (`flush_manager.go` at `891c202b73`); `sync2024` is the 2024 metacache /
//!   SyncSegments machinery of issue #34018; `mutex` is a toy that shows how a
//!   model plugs in. Each owns its scenario part (`setup`), its state and steps,
//!   its facts, and its `view` (what front ends show). [`models`] itself is the
//!   registry, the one place that names every model.
//! * [`scenario`] is the file format every model shares (header, actors, checking).
//! * [`report`] prints traces (text and JSON) the same way for the CLI and the
//!   browser; [`explore`] searches every interleaving; [`view`] is the plain-data
//!   stage the page draws.
//!
//! There is no IO, no clock and no OS randomness here: the same scenario, version
//! and schedule give the same trace, byte for byte, natively and in wasm.

pub mod builtin;
pub mod engine;
pub mod explore;
pub mod glossary;
pub mod link;
pub mod logs;
pub mod models;
pub mod order;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod shared;
pub mod tours;
pub mod verdicts;
pub mod view;

pub use engine::{Model, Outcome, OutcomeKind, Run, Stop};
pub use models::{AnyExplorer, AnyRun, AnyScenario, LockstepRow, Lockstepping};
pub use scenario::{Header, ScenarioError};
pub use sched::{Choice, Policy};
