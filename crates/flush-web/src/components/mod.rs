//! The page's components. Each takes plain data (from the core's view types or
//! the app state) in props that compare by value, so a step redraws only what it
//! changed; callbacks carry `Action`s to the reducer.

pub mod controls;
pub mod editor;
pub mod explore;
pub mod glossary;
pub mod intro;
pub mod lockstep;
pub mod logs;
pub mod overlays;
pub mod plots;
pub mod races;
pub mod side;
pub mod stage;
pub mod tour;
pub mod verdicts;
pub mod whatif;
