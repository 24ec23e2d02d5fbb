//! The toy's state and its steps: each actor is a goroutine; `lock` blocks while
//! another holds the mutex; `incr` reads in one step and writes in the next.

use super::facts::Fact;
use super::setup::{Op, Scenario};

/// Where an actor stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum At {
    /// Before its op at `pc` (`lock` blocks here while the mutex is held).
    Ready,
    /// Inside `incr`: read `read`; the write is next.
    Read { read: i64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Goroutine {
    /// The actor's index; goroutine ids are actor indices.
    pub actor: u16,
    pub pc: u32,
    pub at: At,
}

/// A Go panic (or fatal error): the process exits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GoPanic {
    pub goroutine: u32,
    pub message: String,
}

/// Properties of the toy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// Every actor finished, and the counter is not its start plus the increments.
    LostUpdate { counter: i64, expected: i64 },
}

impl Violation {
    pub fn id(self) -> &'static str {
        match self {
            Violation::LostUpdate { .. } => "lost-update",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct World {
    /// Live goroutines, by actor.
    pub goroutines: Vec<Goroutine>,
    /// The actor holding the mutex.
    pub holder: Option<u16>,
    pub counter: i64,
    /// Ops each actor has returned from (what `wait_for` waits on).
    pub done: Vec<u32>,
    pub panic: Option<GoPanic>,
    pub violations: Vec<Violation>,
}

impl World {
    pub fn new(sc: &Scenario) -> World {
        World {
            goroutines: (0..sc.actors.len())
                .filter(|a| !sc.actors[*a].ops.is_empty())
                .map(|a| Goroutine {
                    actor: a as u16,
                    pc: 0,
                    at: At::Ready,
                })
                .collect(),
            holder: None,
            counter: sc.start,
            done: vec![0; sc.actors.len()],
            panic: None,
            violations: Vec::new(),
        }
    }

    pub fn goroutine(&self, g: u32) -> Option<&Goroutine> {
        self.goroutines.iter().find(|x| u32::from(x.actor) == g)
    }

    /// Can goroutine `g` run? Waits pass when their op returned; `lock` when free.
    pub fn ready(&self, sc: &Scenario, g: &Goroutine) -> bool {
        if g.at != At::Ready {
            return true;
        }
        let ops = &sc.actors[g.actor as usize].ops;
        match ops.get(crate::scenario::past_waits(ops, g.pc as usize, &self.done)) {
            Some(Op::WaitFor(_)) => false,
            Some(Op::Lock) => self.holder.is_none(),
            _ => true,
        }
    }

    /// Runs goroutine `g` to its next point.
    pub fn step(&mut self, sc: &Scenario, g: u32, facts: &mut Vec<Fact>) {
        let Some(i) = self.goroutines.iter().position(|x| u32::from(x.actor) == g) else {
            return;
        };
        let Goroutine { actor, mut pc, at } = self.goroutines[i];
        let ops = &sc.actors[actor as usize].ops;
        if let At::Read { read } = at {
            self.counter = read + 1;
            facts.push(Fact::Wrote { value: read + 1 });
            return self.op_done(sc, i, pc, facts);
        }
        while let Some(Op::WaitFor(w)) = ops.get(pc as usize) {
            facts.push(Fact::Delivered {
                actor: w.actor,
                index: w.index,
            });
            self.done[actor as usize] = pc + 1;
            pc += 1;
        }
        self.goroutines[i].pc = pc;
        match ops.get(pc as usize) {
            Some(Op::Lock) => {
                self.holder = Some(actor);
                facts.push(Fact::Locked);
            }
            // sync/mutex.go's unlockSlow: only a mutex nobody holds is a fatal
            // error. "A locked Mutex is not associated with a particular
            // goroutine": another may unlock it (it was a panic here, a false
            // verdict an attack found).
            Some(Op::Unlock) if self.holder.is_none() => {
                facts.push(Fact::Panic);
                self.panic = Some(GoPanic {
                    goroutine: g,
                    message: "fatal error: sync: unlock of unlocked mutex".to_owned(),
                });
                return;
            }
            Some(Op::Unlock) => {
                self.holder = None;
                facts.push(Fact::Unlocked);
            }
            Some(Op::Incr) => {
                facts.push(Fact::Read {
                    value: self.counter,
                });
                self.goroutines[i].at = At::Read { read: self.counter };
                return;
            }
            // Only waits were left: passed above, the actor returns.
            Some(Op::WaitFor(_)) | None => return self.op_done(sc, i, pc.saturating_sub(1), facts),
        }
        self.op_done(sc, i, pc, facts)
    }

    /// The actor at index `i` returned from op `pc`: on to the next one, or gone.
    fn op_done(&mut self, sc: &Scenario, i: usize, pc: u32, facts: &mut Vec<Fact>) {
        let actor = self.goroutines[i].actor;
        self.done[actor as usize] = pc + 1;
        if pc as usize + 1 >= sc.actors[actor as usize].ops.len() {
            self.goroutines.remove(i);
            facts.push(Fact::Returned);
            if self.goroutines.is_empty() {
                self.check_end(sc, facts);
            }
        } else {
            self.goroutines[i].pc = pc + 1;
            self.goroutines[i].at = At::Ready;
        }
    }

    /// Every actor returned: the counter counts every increment, or one was lost.
    fn check_end(&mut self, sc: &Scenario, facts: &mut Vec<Fact>) {
        let expected = sc.start + sc.increments();
        if self.counter != expected {
            let v = Violation::LostUpdate {
                counter: self.counter,
                expected,
            };
            self.violations.push(v);
            facts.push(Fact::Invariant(v));
        }
    }
}
