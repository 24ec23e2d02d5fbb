//! FlushScope's core: a deterministic, sans-IO simulator of Milvus's datanode
//! flush machinery, one goroutine step at a time.
//!
//! * [`scenario`] parses and checks scenario files (the public JSON format).
//! * [`flush2021`] is the 2021 flush manager (`flush_manager.go` at `891c202b73`);
//!   [`sync2024`] is the 2024 metacache / SyncSegments machinery of issue #34018.
//! * [`engine`] drives either model: a [`sched::Scheduler`] picks the next runnable
//!   goroutine, every step is recorded, invariants are checked after every step,
//!   and any step can be revisited.
//! * [`report`] prints traces (text and JSON) the same way for the CLI and the browser.
//!
//! There is no IO, no clock and no OS randomness here: the same scenario, version
//! and schedule give the same trace, byte for byte, natively and in wasm.

pub mod builtin;
pub mod engine;
pub mod explore;
pub mod flush2021;
pub mod locate;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod sync2024;
pub mod verdicts;

mod any;

pub use any::AnyRun;
pub use engine::{Model, Outcome, OutcomeKind, Run, Stop};
pub use scenario::{ModelKind, Scenario, ScenarioError, Version};
pub use sched::{Choice, Policy};
