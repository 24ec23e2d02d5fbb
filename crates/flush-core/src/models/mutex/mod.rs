//! A toy third model: goroutines that lock a `sync.Mutex`, increment a shared
//! counter (a read, then a write) and unlock. Without the lock an increment can
//! be lost, which the explorer finds. It is here to show (and test) how a model
//! plugs in: this folder and one line per list in `registry.rs`
//! (ARCHITECTURE.md, "Add a model").

mod facts;
mod go;
pub mod setup;
pub mod view;
pub mod world;

pub use facts::Fact;
pub use setup::{Op, Scenario, FORMAT, MODEL};
pub use world::World;

use crate::engine::{FactKind, GoFn, GoroutineView, Model, Violation};
use crate::scenario::Header;
use crate::sched::Choice;

impl Model for Scenario {
    type State = World;
    type Fact = Fact;
    /// The actor that ran.
    type Who = u16;

    const STATE_SIZE_64: usize = 120;
    fn header(&self) -> &Header {
        &self.head
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.head
    }
    fn init(&self) -> World {
        World::new(self)
    }
    fn runnable(&self, s: &World, out: &mut Vec<Choice>) {
        out.clear();
        if s.panic.is_some() {
            return;
        }
        out.extend(
            s.goroutines
                .iter()
                .filter(|g| s.ready(self, g))
                .map(|g| Choice::new(u32::from(g.actor), 0)),
        );
    }
    fn step(&self, s: &mut World, c: Choice, facts: &mut Vec<Fact>) -> u16 {
        s.step(self, c.g, facts);
        c.g as u16
    }
    fn who_name(&self, who: &u16) -> String {
        self.actors[*who as usize].name.clone()
    }
    fn go_panic<'s>(&self, s: &'s World) -> Option<(u32, &'s str)> {
        s.panic.as_ref().map(|p| (p.goroutine, p.message.as_str()))
    }
    fn violations(&self, s: &World) -> Vec<Violation> {
        s.violations
            .iter()
            .map(|v| {
                let world::Violation::LostUpdate { counter, expected } = *v;
                Violation {
                    id: v.id(),
                    message: format!(
                        "the counter is {counter}, but the increments make {expected}"
                    ),
                }
            })
            .collect()
    }
    fn violation_ids(&self, s: &World, f: &mut dyn FnMut(&'static str)) {
        s.violations.iter().for_each(|v| f(v.id()));
    }
    fn goroutine_ids(&self, s: &World) -> Vec<u32> {
        s.goroutines.iter().map(|g| u32::from(g.actor)).collect()
    }
    fn describe(&self, s: &World, g: u32) -> Option<GoroutineView> {
        let gr = s.goroutine(g)?;
        let ops = &self.actors[gr.actor as usize].ops;
        let op = ops.get(crate::scenario::past_waits(ops, gr.pc as usize, &s.done));
        let (waits_on, go) = match (gr.at, op) {
            (world::At::Read { read }, _) => {
                (format!("nothing: writes {} next", read + 1), go::INCR)
            }
            (_, Some(Op::Lock)) => ("the mutex (mu.Lock)".to_owned(), go::LOCK),
            (_, Some(Op::WaitFor(w))) => (
                format!(
                    "{} to return from its op #{}",
                    self.actors[w.actor as usize].name, w.index
                ),
                go::ACTOR,
            ),
            (_, Some(op)) => (format!("nothing: {} next", op.name()), go::ACTOR),
            (_, None) => ("nothing".to_owned(), go::ACTOR),
        };
        Some(GoroutineView {
            id: g,
            name: self.actors[gr.actor as usize].name.clone(),
            waits_on,
            go,
            idle: false,
        })
    }
    fn fact_go(&self, f: &Fact) -> GoFn {
        f.go_fn()
    }
    fn fact_words(&self, f: &Fact, out: &mut String) {
        f.words(&self.actors, out)
    }
    fn fact_kind(&self, f: &Fact) -> FactKind {
        match f {
            Fact::Invariant(_) => FactKind::Violation,
            Fact::Panic => FactKind::Panic,
            _ => FactKind::Plain,
        }
    }
}
