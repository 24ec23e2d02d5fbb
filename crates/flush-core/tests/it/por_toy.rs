//! The search's sleep sets on their own, apart from any Milvus model: random
//! little programs over three shared variables, whose steps declare exactly
//! what they read and write. The full search and the reduced one must visit
//! the same states and find the same violations, panics and deadlocks, depth
//! first and breadth first (`reduction::sleep_sets_agree`). Unlike a flush
//! scenario, any goroutine here may read or write any variable, block on one
//! or panic on one, so the search meets conflicts a Milvus model would need a
//! large scenario to show. The test fails when a sleeping step is kept asleep
//! past a step it conflicts with, or when the relation calls a read and a
//! write of one variable independent (both checked by breaking them).

use flush_core::engine::{
    Access, FactKind, Footprint, GoFn, GoSite, GoroutineView, Model, Violation,
};
use flush_core::scenario::Header;
use flush_core::sched::Choice;
use proptest::prelude::*;

/// One statement of a toy goroutine; variables hold 0, 1 or 2.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `v = val`.
    Write(u8, u8),
    /// `v = (v + 1) % 3`.
    Add(u8),
    /// `to = from`.
    Copy(u8, u8),
    /// Blocks until `v == val`, then goes on.
    Await(u8, u8),
    /// Panics when `v == val`.
    PanicIf(u8, u8),
}

#[derive(Clone, Debug)]
struct Toy {
    head: Header,
    progs: Vec<Vec<Op>>,
    /// A bug of the model's own (a Rust panic in `step`) on any thread but
    /// a test's (which are named): the searches' other threads.
    crash_off_main: bool,
}

/// A violation per variable: it once held 2.
const HIT: [&str; 3] = ["v0-held-2", "v1-held-2", "v2-held-2"];
const PANIC: [&str; 3] = ["panic on v0", "panic on v1", "panic on v2"];
const SITE: GoSite = GoSite {
    file: "toy.go",
    line: 1,
    func: "toy",
    code: "",
};
const GO: GoFn = GoFn {
    file: "toy.go",
    func: "toy",
    excerpt: "",
};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct World {
    pc: Vec<u8>,
    vars: [u8; 3],
    /// The variables that once held 2, sorted.
    hits: Vec<u8>,
    panic: Option<(u32, &'static str)>,
    fp: Footprint,
}

impl World {
    fn access(&mut self, v: u8, write: bool) {
        self.fp.access(Access {
            field: "v",
            object: i64::from(v),
            write,
            locks: &[],
            site: SITE,
        });
    }

    fn set(&mut self, v: u8, val: u8) {
        self.access(v, true);
        self.vars[v as usize] = val;
        if val == 2 {
            if let Err(i) = self.hits.binary_search(&v) {
                self.hits.insert(i, v);
            }
        }
    }

    fn get(&mut self, v: u8) -> u8 {
        self.access(v, false);
        self.vars[v as usize]
    }
}

impl Toy {
    fn next_op(&self, s: &World, g: usize) -> Option<Op> {
        self.progs[g].get(s.pc[g] as usize).copied()
    }
}

impl Model for Toy {
    type State = World;
    type Fact = ();
    type Who = u32;
    const FOOTPRINTS: bool = true;
    const REDUCIBLE: bool = true;

    fn header(&self) -> &Header {
        &self.head
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.head
    }
    fn init(&self) -> World {
        World {
            pc: vec![0; self.progs.len()],
            vars: [0; 3],
            hits: Vec::new(),
            panic: None,
            fp: Footprint::default(),
        }
    }
    fn runnable(&self, s: &World, out: &mut Vec<Choice>) {
        out.clear();
        if s.panic.is_some() {
            return;
        }
        for g in 0..self.progs.len() {
            let ready = match self.next_op(s, g) {
                None => false,
                Some(Op::Await(v, val)) => s.vars[v as usize] == val,
                Some(_) => true,
            };
            if ready {
                out.push(Choice::new(g as u32, 0));
            }
        }
    }
    fn step(&self, s: &mut World, c: Choice, _: &mut Vec<()>) -> u32 {
        if self.crash_off_main && std::thread::current().name().is_none() {
            panic!("a bug in the toy model");
        }
        s.fp.clear();
        let g = c.g as usize;
        match self.next_op(s, g).expect("a runnable goroutine") {
            Op::Write(v, val) => s.set(v, val),
            Op::Add(v) => {
                let x = s.get(v);
                s.set(v, (x + 1) % 3);
            }
            Op::Copy(from, to) => {
                let x = s.get(from);
                s.set(to, x);
            }
            Op::Await(v, _) => {
                s.get(v);
            }
            Op::PanicIf(v, val) => {
                if s.get(v) == val {
                    s.panic = Some((c.g, PANIC[v as usize]));
                }
            }
        }
        s.pc[g] += 1;
        c.g
    }
    fn who_name(&self, who: &u32) -> String {
        format!("g{who}")
    }
    fn go_panic<'s>(&self, s: &'s World) -> Option<(u32, &'s str)> {
        s.panic
    }
    fn violations(&self, s: &World) -> Vec<Violation> {
        s.hits
            .iter()
            .map(|&v| Violation {
                id: HIT[v as usize],
                message: format!("v{v} held 2"),
            })
            .collect()
    }
    fn goroutine_ids(&self, s: &World) -> Vec<u32> {
        (0..self.progs.len() as u32)
            .filter(|&g| self.next_op(s, g as usize).is_some())
            .collect()
    }
    fn describe(&self, s: &World, g: u32) -> Option<GoroutineView> {
        let op = self.next_op(s, g as usize)?;
        Some(GoroutineView {
            id: g,
            name: format!("g{g}"),
            waits_on: format!("{op:?}"),
            go: GO,
            idle: false,
        })
    }
    fn fact_go(&self, _: &()) -> GoFn {
        GO
    }
    fn fact_words(&self, _: &(), _: &mut String) {}
    fn fact_kind(&self, _: &()) -> FactKind {
        FactKind::Plain
    }
    fn accesses<'s>(&self, s: &'s World) -> &'s [Access] {
        s.fp.accesses()
    }
}

fn op() -> impl Strategy<Value = Op> {
    let v = 0u8..3;
    let val = 0u8..3;
    prop_oneof![
        3 => (v.clone(), val.clone()).prop_map(|(v, x)| Op::Write(v, x)),
        3 => v.clone().prop_map(Op::Add),
        2 => (v.clone(), v.clone()).prop_map(|(a, b)| Op::Copy(a, b)),
        1 => (v.clone(), val.clone()).prop_map(|(v, x)| Op::Await(v, x)),
        1 => (v, val).prop_map(|(v, x)| Op::PanicIf(v, x)),
    ]
}

fn toy(progs: Vec<Vec<Op>>) -> Toy {
    Toy {
        head: Header {
            name: "toy".into(),
            title: "toy".into(),
            description: String::new(),
            model: "toy",
            version: None,
            seed: 1,
            max_steps: 100,
            schedule: None,
        },
        progs,
        crash_off_main: false,
    }
}

/// A model that panics on a search thread of depth first on several
/// threads: the panic comes out of the search, which does not hang (the
/// thread that reports progress waited for the panicked one forever; found
/// by a review helper).
#[test]
fn a_panic_on_another_thread_ends_the_search() {
    use flush_core::explore::{explore_swarm, Options, Order};
    let progs = vec![
        vec![Op::Add(0), Op::Add(1)],
        vec![Op::Add(2), Op::Write(0, 1)],
    ];
    let toy = Toy {
        crash_off_main: true,
        ..toy(progs)
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("swarm-test".into())
        .spawn(move || {
            let o = Options {
                order: Order::Dfs,
                ..Options::exhaustive(100, 10_000)
            };
            let r = std::panic::catch_unwind(|| explore_swarm(&toy, &o, 2, &mut |_| true));
            let _ = tx.send(r.is_err());
        })
        .unwrap();
    let panicked = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the search ended");
    assert!(panicked, "the model's panic came out of the search");
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::props::cases(),
        ..ProptestConfig::default()
    })]

    /// Sleep sets visit every state and find every violation of random toy
    /// programs, depth first and breadth first.
    #[test]
    fn sleep_sets_agree_on_random_programs(
        progs in prop::collection::vec(prop::collection::vec(op(), 1..6), 2..5),
    ) {
        let r = crate::reduction::sleep_sets_agree(&toy(progs), 200_000);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
