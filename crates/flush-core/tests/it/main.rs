//! flush-core's integration tests, in one binary (see matklad's "delete cargo
//! integration tests"). Each module starts with what it checks and how.

mod bad_input;
mod common;
mod conformance;
mod cut;
mod deepen;
mod explore;
mod flush2021;
mod golden;
mod knobs;
mod logs;
mod parallel;
mod por_toy;
mod props;
mod races;
mod reduction;
mod stage;
mod sync2024;
mod tidy;
mod timetravel;
mod tours;
mod verdicts;
