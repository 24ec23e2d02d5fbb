//! The model-independent engine: a [`Model`] is a world that knows its runnable
//! choices and how to step; a [`Run`] drives one with a [`Scheduler`], records the
//! trace, checks for the end, and can revisit any step (snapshots plus replay).

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use crate::scenario::{Header, VersionInfo};
use crate::sched::{Choice, Policy, SchedNote, Scheduler};

/// One what-if knob of a model: a choice in the Go code that the Milvus versions
/// made differently, or that a reviewer proposes to change. Plain data for every
/// face (the page's selects, the matrix's columns, `docs/scenario-format.md`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Knob {
    /// The scenario key (`"policy"` or `"what_if"`): `request`, `handler_chains_tail`.
    pub key: &'static str,
    /// What it decides, in a few words: "Datacoord's request filter".
    pub label: &'static str,
    /// Where the Go code decides it (file:line@commit).
    pub go: &'static str,
    pub settings: Vec<KnobSetting>,
    /// The setting this scenario runs with.
    pub current: &'static str,
    /// The setting of the scenario's version (the code as it is).
    pub preset: &'static str,
}

/// One setting of a [`Knob`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KnobSetting {
    pub name: &'static str,
    /// One sentence: what the Go code does with this setting.
    pub about: &'static str,
    /// The Milvus versions that have it (empty: only ever proposed).
    pub presets: Vec<&'static str>,
}

/// A model: a checked scenario (`&self`) that knows its initial state, the
/// runnable choices of a state and how to step one. Front ends drive a model
/// through this trait (and [`Run`]) without naming its internals.
pub trait Model: Clone + Sized + 'static {
    /// The whole state of a run: small, `Clone + Eq + Hash` (the explorer hashes it).
    type State: Clone + Eq + Hash;
    /// One fact of a step, compact; rendered to words only when read.
    type Fact: Clone;
    /// Who ran a step, captured before it ran (the goroutine may be gone after).
    type Who: Copy;

    fn header(&self) -> &Header;
    fn header_mut(&mut self) -> &mut Header;
    /// The Milvus versions the model can run at; empty for a model fixed at one.
    fn versions(&self) -> &'static [VersionInfo] {
        &[]
    }
    /// Runs the scenario at another version (`id`: a commit prefix).
    fn set_version(&mut self, id: &str) -> Result<(), String> {
        Err(format!(
            "{} has no versions to choose from (asked for \"{id}\")",
            self.header().model
        ))
    }
    fn init(&self) -> Self::State;
    /// The runnable choices, sorted by goroutine then `select` case.
    fn runnable(&self, s: &Self::State, out: &mut Vec<Choice>);
    /// How many choices are runnable (as `runnable` would list them).
    fn runnable_len(&self, s: &Self::State) -> u32 {
        let mut v = Vec::new();
        self.runnable(s, &mut v);
        v.len() as u32
    }
    /// The `i`-th runnable choice, `i < runnable_len()`.
    fn runnable_at(&self, s: &Self::State, i: u32) -> Choice {
        let mut v = Vec::new();
        self.runnable(s, &mut v);
        v[i as usize]
    }
    /// Runs a runnable choice; appends the facts to `facts`; returns who ran.
    fn step(&self, s: &mut Self::State, c: Choice, facts: &mut Vec<Self::Fact>) -> Self::Who;
    fn who_name(&self, who: &Self::Who) -> String;
    /// The Go panic that ended the run, if any: goroutine and message.
    fn go_panic<'s>(&self, s: &'s Self::State) -> Option<(u32, &'s str)>;
    /// Invariants broken so far (the run goes on, as Go would).
    fn violations(&self, s: &Self::State) -> Vec<Violation>;
    /// The ids of [`Model::violations`], in its order, without their messages:
    /// the explorer asks per state and builds the messages of new ones only (a
    /// state keeps every invariant broken on its path). A model overrides it
    /// when its messages cost (the default builds them).
    fn violation_ids(&self, s: &Self::State, f: &mut dyn FnMut(&'static str)) {
        self.violations(s).iter().for_each(|v| f(v.id));
    }
    /// Ids of the live goroutines, in id order.
    fn goroutine_ids(&self, s: &Self::State) -> Vec<u32>;
    /// A live goroutine described for a reader.
    fn describe(&self, s: &Self::State, g: u32) -> Option<GoroutineView>;
    /// What a runnable choice does, for a button: "run", or which case of a select.
    fn choice_label(&self, _s: &Self::State, _c: Choice) -> String {
        "run".to_owned()
    }
    /// The Go function a fact models.
    fn fact_go(&self, f: &Self::Fact) -> GoFn;
    /// The fact in words.
    fn fact_words(&self, f: &Self::Fact, out: &mut String);
    /// The Milvus log line a fact corresponds to, if Milvus logs there.
    fn fact_log(&self, _f: &Self::Fact) -> Option<String> {
        None
    }
    /// Whether some fact's [`Model::fact_log`] is a line of `file` (its name, as
    /// `crate::logs::conform::Key` gives it) with `message`, at `line` (at some
    /// version; `None`: a log without line numbers): the lines of an imported log
    /// the model can explain. The line number tells call sites with one message
    /// apart (task.go:150 and :169 both say "failed to save serialized data").
    fn log_known(&self, _file: &str, _message: &str, _line: Option<u32>) -> bool {
        false
    }
    /// The line this scenario's version logs `message` of `file` at, when the
    /// model knows one: a log line of the same site at another line number is
    /// another version's.
    fn log_line_at(&self, _file: &str, _message: &str) -> Option<u32> {
        None
    }
    /// What a scenario needs for the model to print that site's line at all,
    /// where that is more than running (an op's mark, a knob): told where no
    /// schedule of a scenario prints a log's line.
    fn log_needs(&self, _file: &str, _message: &str) -> Option<&'static str> {
        None
    }
    /// Whether the model prints the error of that site's line (where it does
    /// not, an imported line's error is not compared).
    fn log_keeps_error(&self, _file: &str, _message: &str) -> bool {
        false
    }
    fn fact_kind(&self, f: &Self::Fact) -> FactKind;
    /// Asks the processor for the memory of `s`, which the search reads next
    /// (see [`crate::explore::prefetch`]): a hint that changes no result.
    fn prefetch(&self, _s: &Self::State) {}
    /// The footprint of the step that produced `s`: its accesses to plain shared Go
    /// fields (what no channel, mutex or sync.Map guards by itself), in order. The race
    /// check compares the footprints of steps that are runnable together. Empty for a
    /// model that declares none.
    fn accesses<'s>(&self, _s: &'s Self::State) -> &'s [Access] {
        &[]
    }
    /// The synchronisation of the step that produced `s` (see [`SyncOp`]), for the
    /// happens-before check along a run. Empty for a model that declares none:
    /// the check then orders steps only by program order, `go` and the locks held
    /// at the accesses, and shows each pair it leaves unordered by a schedule
    /// before it calls it a race.
    fn syncs<'s>(&self, _s: &'s Self::State) -> &'s [SyncOp] {
        &[]
    }
    /// What else the step that produced `s` touched that orders it against other
    /// goroutines' steps, as (object, id) keys named like [`SyncOp`]'s: a
    /// channel it found open and waits on (its close decides whether this step
    /// blocks), an id counter it drew from (ids are given in step order). Not Go
    /// memory and no happens-before edge: only the partial-order reduction's
    /// independence reads them ([`crate::explore::reduce`]).
    fn order_keys<'s>(&self, _s: &'s Self::State) -> &'s [(&'static str, (i64, i64))] {
        &[]
    }
    /// Whether the steps taken from `s` on (and from its copies) record their
    /// footprints ([`Model::accesses`], [`Model::syncs`], [`Model::order_keys`]):
    /// on in a new state. The explorer turns them off where nothing reads them
    /// (no race check, no sleep sets): making them is a step's work (a
    /// SyncSegments call names every segment of the metacache), and changes no
    /// state. A model without footprints has nothing to turn off.
    fn record_footprints(&self, _s: &mut Self::State, _on: bool) {}
    /// The changes to the Go code the scenario asks for (its what-if knobs), each
    /// a name a reader can look up; empty for the code as it is. Every face labels
    /// a run with any of them "proposed".
    fn proposed(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// The knobs set apart from the version that change nothing in this
    /// scenario, each with why, in a sentence (a run is labelled "proposed"
    /// all the same, so the faces say so).
    fn idle_knobs(&self) -> Vec<String> {
        Vec::new()
    }
    /// The model's what-if knobs, each with its settings and where this scenario
    /// stands (see [`Knob`]); empty for a model without knobs.
    fn knobs(&self) -> Vec<Knob> {
        Vec::new()
    }
    /// Sets one knob (`key` and `value` as [`Model::knobs`] names them), or says
    /// what is wrong, naming the knobs or settings there are.
    fn set_knob(&mut self, key: &str, _value: &str) -> Result<(), String> {
        Err(format!(
            "this model has no knob \"{}\"",
            crate::scenario::json::short(key)
        ))
    }
    /// The policy matrix's rows: this scenario under every combination of its
    /// model's knobs, each with the Milvus versions whose preset it is (none: a
    /// proposal). Empty for a model without knobs.
    fn variants(&self) -> Vec<(Vec<&'static str>, Self)> {
        Vec::new()
    }
    /// How the explorer's op cut treats an op of this model's scenario files (see
    /// [`CutGroup`]); by default each op may go alone.
    fn cut_group(&self, _op: &crate::scenario::json::Json) -> CutGroup {
        CutGroup::Alone
    }
    /// The scenario's knobs as its file sets them: the top-level key and its
    /// entries (the knobs set apart from the version's preset); `None` for a
    /// model without knobs.
    fn knob_entries(&self) -> Option<(&'static str, Vec<(String, crate::scenario::json::Json)>)> {
        None
    }
    /// True when the model's steps declare their footprints (see [`Model::accesses`]),
    /// so an empty race check means something.
    const FOOTPRINTS: bool = false;
    /// The footprints ([`Model::accesses`], [`Model::syncs`], [`Model::order_keys`])
    /// name everything a step touches that another goroutine's step may touch:
    /// steps [`crate::explore::reduce::Touched::independent`] calls independent
    /// commute (tested step by step over the built-ins), so the explorer may try
    /// them in one order only ([`crate::explore::Options::reduce`]).
    const REDUCIBLE: bool = false;
    /// `size_of::<Self::State>()` on a 64-bit machine. The explorer's byte budget
    /// estimates a state with it on every target, so the page (wasm32, where
    /// pointers are 4 bytes) stops where the CLI does. A model states it; a test
    /// checks it on 64-bit builds.
    const STATE_SIZE_64: usize = std::mem::size_of::<Self::State>();
    /// The explorer's 64-bit fingerprint of a state, what it remembers of a
    /// visited one: by default the whole state's. A model may leave out fields
    /// the others decide (indexes, caches), never one that tells states apart.
    fn fingerprint(&self, s: &Self::State) -> u64 {
        crate::explore::fingerprint(s)
    }
    /// True when [`Model::fingerprint_up_to_ids`] gives one fingerprint to
    /// states that [`Model::fingerprint`] tells apart by goroutine ids alone.
    const MERGES_IDS: bool = false;
    /// A fingerprint of a state up to the ids of its goroutines. A model numbers
    /// its goroutines in the order they were spawned; a Go program has no
    /// goroutine ids to see, so two interleavings that spawn the same goroutines
    /// in another order reach one Go state as two worlds. States with one such
    /// fingerprint must have the same futures up to those ids (no step may
    /// depend on the order of ids): the explorer visits one of them (unless
    /// [`crate::explore::Options::ids`]). By default [`Model::fingerprint`].
    fn fingerprint_up_to_ids(&self, s: &Self::State) -> u64 {
        self.fingerprint(s)
    }

    // ----- provided -----

    /// True when the run cannot go on: a Go panic, or nothing runnable.
    fn ended(&self, s: &Self::State) -> bool {
        self.go_panic(s).is_some() || self.runnable_len(s) == 0
    }

    /// How a state stands: the invariants broken on the way, and how the run ended
    /// if it did. The run and the explorer both judge by this.
    fn verdict(&self, s: &Self::State) -> Verdict {
        Verdict {
            violations: self.violations(s),
            end: self.run_end(s),
        }
    }

    /// How the run ended at `s`, if it did (the `end` of [`Model::verdict`]).
    fn run_end(&self, s: &Self::State) -> Option<End> {
        if let Some((g, message)) = self.go_panic(s) {
            Some(End::Panic {
                goroutine: g,
                message: message.to_owned(),
            })
        } else if self.runnable_len(s) > 0 {
            None
        } else {
            let blocked: Vec<GoroutineView> = self
                .goroutine_ids(s)
                .into_iter()
                .filter_map(|g| self.describe(s, g))
                .filter(|v| !v.idle)
                .collect();
            Some(if blocked.is_empty() {
                End::Completed
            } else {
                End::Deadlock(blocked)
            })
        }
    }

    /// Live goroutines described for a reader: the runnable ones (`runnable`) first,
    /// then the others, each group by id, at most `max`.
    fn goroutines(&self, s: &Self::State, runnable: &[Choice], max: usize) -> Vec<GoroutineView> {
        let ids = self.goroutine_ids(s);
        let can_run = |id: &u32| runnable.iter().any(|c| c.g == *id);
        let first = ids.iter().filter(|g| can_run(g));
        let rest = ids.iter().filter(|g| !can_run(g));
        first
            .chain(rest)
            .take(max)
            .filter_map(|g| self.describe(s, *g))
            .collect()
    }
}

/// How the op cut (`explore::OpShrink`) may remove an op of a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CutGroup {
    /// On its own.
    Alone,
    /// Only with every op of the same group (a flush's two halves, an
    /// injection's three calls): a file without one of them would show a run
    /// the flow graph or the compactor never makes.
    With(String),
    /// Never: it orders the others (a barrier), as `wait_for` does.
    Never,
}

/// What kind of fact: most are plain; some report a broken invariant or a Go panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactKind {
    Plain,
    Violation,
    Panic,
}

/// A broken invariant: its stable id (`fifo-per-enqueuer`) and what happened.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Violation {
    pub id: &'static str,
    pub message: String,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// Nothing left to run but goroutines that may wait forever harmlessly.
    Completed,
    /// Nothing can run; these goroutines wait forever.
    Deadlock(Vec<GoroutineView>),
    /// A Go panic: the process exits.
    Panic { goroutine: u32, message: String },
}

/// How a state stands (see [`Model::verdict`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub violations: Vec<Violation>,
    /// `None` while something can run.
    pub end: Option<End>,
}

/// `g3 runner seg=2 pos=a waits on ...; g5 ...`: a deadlock's blocked goroutines.
pub fn blocked_words(blocked: &[GoroutineView]) -> String {
    blocked
        .iter()
        .map(|v| format!("g{} {} waits on {}", v.id, v.name, v.waits_on))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A Go function a step stands for: its file, its name, and what it does (a
/// sentence or two, written from the Go code at the commits MODEL.md names).
/// Printed as `file.go: function`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GoFn {
    pub file: &'static str,
    pub func: &'static str,
    pub excerpt: &'static str,
}

/// Not Go: a fact FlushScope's checker adds (an invariant broke at this step).
pub const INVARIANT_CHECK: GoFn = GoFn {
    file: "flushscope",
    func: "invariant",
    excerpt: "FlushScope's checker, not Go: a property the Go code guarantees (or that the scenario's story depends on) does not hold after this step. The run goes on as Go would.",
};

impl fmt::Display for GoFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` keeps width and alignment (`{:<52}`) working.
        f.pad(&format!("{}: {}", self.file, self.func))
    }
}

impl serde::Serialize for GoFn {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A live goroutine as the UI lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoroutineView {
    pub id: u32,
    /// e.g. `runner seg=2 pos=a`.
    pub name: String,
    /// What it waits on (or stands at), with the blocking point's label.
    pub waits_on: String,
    /// The Go function it sits in.
    pub go: GoFn,
    /// It may wait forever harmlessly (Go leaves an idle inject handler in its select).
    pub idle: bool,
}

/// Where in the Go code an access is: file, line and function at the commit the
/// model follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct GoSite {
    pub file: &'static str,
    pub line: u32,
    pub func: &'static str,
    /// The Go statement at that line.
    pub code: &'static str,
}

impl fmt::Display for GoSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.func)
    }
}

/// One access of a step to a plain shared Go field (see [`Model::accesses`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Access {
    /// `orderFlushQueue.postInjection`.
    pub field: &'static str,
    /// Which instance (the queue's segment; 0 for a singleton).
    pub object: i64,
    pub write: bool,
    /// The mutexes of that instance held at the access, e.g. `["injectMut"]`.
    pub locks: &'static [&'static str],
    pub site: GoSite,
}

impl Access {
    /// Two accesses race when they touch one field of one instance, at least one
    /// writes, and no mutex is held at both (the Go memory model: unordered by
    /// happens-before; steps runnable together are unordered unless a shared lock
    /// orders them).
    pub fn conflicts(&self, o: &Access) -> bool {
        self.field == o.field
            && self.object == o.object
            && (self.write || o.write)
            && !self.locks.iter().any(|l| o.locks.contains(l))
    }

    /// ` of segment 2`, or nothing for a singleton (instance 0).
    pub fn of_instance(&self) -> String {
        if self.object != 0 {
            format!(" of segment {}", self.object)
        } else {
            String::new()
        }
    }

    /// `write orderFlushQueue.postInjection (segment 2) at flush_manager.go:212
    /// (injectHandler.handleInjection), holding nothing`.
    pub fn words(&self) -> String {
        format!(
            "{} {}{} at {}, {}",
            if self.write { "write" } else { "read" },
            self.field,
            if self.object != 0 {
                format!(" (segment {})", self.object)
            } else {
                String::new()
            },
            self.site,
            if self.locks.is_empty() {
                "holding no lock".to_owned()
            } else {
                format!("holding {}", self.locks.join(", "))
            }
        )
    }
}

/// One end of a happens-before edge a step makes, as the Go memory model gives
/// them: a `release` (a close, a send, `wg.Done`, the end of a `Once`'s function,
/// an unlock, a `sync.Map` store) publishes the goroutine's past to `object`
/// (`"chan"` and a channel id, `"injectCh"` and a (segment, injection) pair, ...);
/// an acquire (a receive, a returning `Wait` or `Once.Do`, a lock, a load that
/// sees the store) takes in all that was published there. `at` places it among
/// the step's accesses: after the first `at` of them, as the Go statements run.
/// A mutex held at an [`Access`] is taken just before it and released just after.
///
/// A release of [`GO`] with a goroutine's id is its `go` statement: the
/// goroutine starts with what that release published (without it, with the
/// stepping goroutine's clock before the step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct SyncOp {
    pub object: &'static str,
    pub id: (i64, i64),
    pub release: bool,
    pub at: u32,
}

/// The [`SyncOp`] object of a `go` statement, by the new goroutine's id.
pub const GO: &str = "go";

/// An order key ([`Model::order_keys`]) object that orders a step against every
/// other goroutine's step: for a step that changes what every later step does
/// or checks (flush-2021's `close()` ranges over every queue stored so far and
/// turns the queue invariants off), where no finer key says it.
pub const EVERY_STEP: &str = "every step";

/// A step's accesses and synchronisation, kept beside a state: it never makes two
/// states different (equal, hashes to nothing), and a copy starts empty (it is the
/// footprint of the step that produced *this* state; the explorer copies states by
/// the million). The third list holds what else orders the step against other
/// goroutines' steps without being Go memory or a happens-before edge (see
/// [`Model::order_keys`]).
#[derive(Debug, Default)]
pub struct Footprint {
    accesses: Vec<Access>,
    syncs: Vec<SyncOp>,
    order_keys: Vec<(&'static str, (i64, i64))>,
    /// Steps record nothing ([`Model::record_footprints`]); a copy keeps it.
    off: bool,
}

impl Footprint {
    /// Empties it for the next step.
    pub fn clear(&mut self) {
        self.accesses.clear();
        self.syncs.clear();
        self.order_keys.clear();
    }

    /// Whether steps record their footprints (see [`Model::record_footprints`]):
    /// a model may skip the work of making an entry when they do not.
    pub fn records(&self) -> bool {
        !self.off
    }

    pub fn set_records(&mut self, on: bool) {
        self.off = !on;
        self.clear();
    }

    pub fn access(&mut self, a: Access) {
        if !self.off {
            self.accesses.push(a);
        }
    }

    pub fn sync(&mut self, s: SyncOp) {
        if !self.off {
            self.syncs.push(s);
        }
    }

    pub fn order(&mut self, object: &'static str, id: (i64, i64)) {
        if !self.off {
            self.order_keys.push((object, id));
        }
    }

    pub fn accesses(&self) -> &[Access] {
        &self.accesses
    }

    pub fn syncs(&self) -> &[SyncOp] {
        &self.syncs
    }

    pub fn order_keys(&self) -> &[(&'static str, (i64, i64))] {
        &self.order_keys
    }
}

impl Clone for Footprint {
    fn clone(&self) -> Footprint {
        Footprint {
            off: self.off,
            ..Footprint::default()
        }
    }
    fn clone_from(&mut self, o: &Footprint) {
        self.clear();
        self.off = o.off;
    }
}

impl PartialEq for Footprint {
    fn eq(&self, _: &Footprint) -> bool {
        true
    }
}
impl Eq for Footprint {}
impl std::hash::Hash for Footprint {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Completed,
    Panic,
    Deadlock,
    Invariant,
    StepLimit,
    /// A data race (the explorer's race check): two unordered accesses, one a write.
    Race,
}

impl OutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Completed => "completed",
            OutcomeKind::Panic => "panic",
            OutcomeKind::Deadlock => "deadlock",
            OutcomeKind::Invariant => "invariant",
            OutcomeKind::StepLimit => "step_limit",
            OutcomeKind::Race => "race",
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Outcome {
    pub kind: OutcomeKind,
    pub message: String,
    /// The goroutine concerned (the panicking one), as `g3 name`.
    pub goroutine: Option<String>,
}

impl Outcome {
    /// The outcome of an ended run: a Go panic (`who` names the goroutine that ran
    /// last), else the first invariant broken (and the deadlock, if one ended
    /// the run), else completed or deadlock.
    pub fn of(v: &Verdict, who: impl FnOnce() -> String) -> Outcome {
        let (kind, message, goroutine) = match &v.end {
            Some(End::Panic { goroutine, message }) => (
                OutcomeKind::Panic,
                message.clone(),
                Some(format!("g{goroutine} {}", who())),
            ),
            // The first broken invariant is the finding; a deadlock that then
            // ended the run is said with it, not dropped (as the step limit is).
            _ if !v.violations.is_empty() => {
                let first = &v.violations[0];
                let then = match &v.end {
                    Some(End::Deadlock(blocked)) => {
                        format!(" (the run then deadlocked: {})", blocked_words(blocked))
                    }
                    _ => String::new(),
                };
                (
                    OutcomeKind::Invariant,
                    format!("{}: {}{then}", first.id, first.message),
                    None,
                )
            }
            Some(End::Deadlock(blocked)) => (OutcomeKind::Deadlock, blocked_words(blocked), None),
            Some(End::Completed) | None => (OutcomeKind::Completed, String::new(), None),
        };
        Outcome {
            kind,
            message,
            goroutine,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.as_str())?;
        if let Some(g) = &self.goroutine {
            write!(f, " in {g}")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// One step of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRecord<W> {
    /// Steps are numbered from 1.
    pub step: u32,
    pub choice: Choice,
    pub who: W,
    /// The step's facts are `events[ev_start..ev_end]`.
    pub ev_start: u32,
    pub ev_end: u32,
    pub note: Option<SchedNote>,
}

/// A world is snapshotted every `SNAPSHOT_EVERY` steps; revisiting step N costs a
/// clone plus at most that many replayed steps. When the snapshots of a long run of
/// a large world would outgrow `SNAPSHOT_BUDGET` bytes, every other one is dropped
/// and the spacing doubles: memory stays bounded, revisiting costs more replay.
pub const SNAPSHOT_EVERY: u32 = 256;
/// Bytes the snapshots of one run may hold (estimated, see `state_bytes`).
pub const SNAPSHOT_BUDGET: u64 = 96 * 1024 * 1024;

/// The worlds after steps 0, `every`, 2·`every`, ... of a run, within a byte budget.
#[derive(Clone)]
struct Snapshots<S> {
    every: u32,
    worlds: Vec<S>,
    bytes: Vec<u64>,
    total: u64,
    budget: u64,
    /// A world's inline size as the byte estimate takes it ([`Model::STATE_SIZE_64`]).
    inline: usize,
}

impl<S: Clone + Hash> Snapshots<S> {
    fn new(world: S, budget: u64, inline: usize) -> Snapshots<S> {
        let b = crate::explore::fingerprint::bytes_with_inline(&world, inline);
        Snapshots {
            every: SNAPSHOT_EVERY,
            worlds: vec![world],
            bytes: vec![b],
            total: b,
            budget,
            inline,
        }
    }

    /// After step `step`: keeps `world` if the step is on the spacing.
    fn after_step(&mut self, step: u32, world: &S) {
        if step % self.every != 0 || step / self.every != self.worlds.len() as u32 {
            return;
        }
        let b = crate::explore::fingerprint::bytes_with_inline(world, self.inline);
        self.worlds.push(world.clone());
        self.bytes.push(b);
        self.total += b;
        while self.total > self.budget && self.worlds.len() > 1 {
            self.thin();
        }
    }

    /// Drops every other snapshot (keeping step 0) and doubles the spacing.
    fn thin(&mut self) {
        let mut i = 0;
        self.worlds.retain(|_| {
            i += 1;
            (i - 1) % 2 == 0
        });
        let mut i = 0;
        self.bytes.retain(|_| {
            i += 1;
            (i - 1) % 2 == 0
        });
        self.total = self.bytes.iter().sum();
        self.every = self.every.saturating_mul(2);
    }

    /// The latest snapshot at or before step `n`: its step and world.
    fn at_or_before(&self, n: u32) -> (u32, &S) {
        let i = ((n / self.every) as usize).min(self.worlds.len() - 1);
        (i as u32 * self.every, &self.worlds[i])
    }

    /// Forgets the snapshots after step `n`.
    fn truncate(&mut self, n: u32) {
        let keep = (n / self.every) as usize + 1;
        self.worlds.truncate(keep);
        self.bytes.truncate(keep);
        self.total = self.bytes.iter().sum();
    }
}

/// A run: the scenario, the schedule so far, the trace, and a cursor that can be
/// moved to any recorded step.
#[derive(Clone)]
pub struct Run<M: Model> {
    sc: Arc<M>,
    sched: Scheduler,
    /// State after `cursor` steps, when the cursor is behind the head.
    world: Option<M::State>,
    cursor: u32,
    /// State after `len()` steps (the end of the recorded run).
    head: M::State,
    records: Vec<StepRecord<M::Who>>,
    events: Vec<M::Fact>,
    snapshots: Snapshots<M::State>,
    outcome: Option<Outcome>,
    scratch: Vec<M::Fact>,
}

/// Why `advance` did not step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run has ended.
    Ended,
    /// The manual policy is waiting for the caller's choice.
    NeedChoice,
    /// The caller's choice is not runnable at the head.
    NotRunnable(Choice),
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Ended => f.write_str("the run has ended"),
            Stop::NeedChoice => f.write_str("the manual scheduler waits for a choice"),
            Stop::NotRunnable(c) => write!(f, "goroutine {c} is not runnable here"),
        }
    }
}

impl<M: Model> Run<M> {
    pub fn new(sc: Arc<M>, policy: Policy) -> Run<M> {
        let world = sc.init();
        let mut run = Run {
            sched: Scheduler::new(policy),
            head: world.clone(),
            snapshots: Snapshots::new(world, SNAPSHOT_BUDGET, M::STATE_SIZE_64),
            world: None,
            cursor: 0,
            records: Vec::new(),
            events: Vec::new(),
            outcome: None,
            scratch: Vec::new(),
            sc,
        };
        run.refresh_head();
        run
    }

    // ----- getters -----

    /// The model (the checked scenario).
    pub fn scenario(&self) -> &M {
        &self.sc
    }
    pub fn scenario_arc(&self) -> &Arc<M> {
        &self.sc
    }
    pub fn header(&self) -> &Header {
        self.sc.header()
    }
    pub fn policy(&self) -> &Policy {
        self.sched.policy()
    }
    /// Number of recorded steps.
    pub fn len(&self) -> u32 {
        self.records.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    pub fn cursor(&self) -> u32 {
        self.cursor
    }
    /// The world after `cursor()` steps.
    pub fn world(&self) -> &M::State {
        self.world.as_ref().unwrap_or(&self.head)
    }
    /// The world at the end of the recorded run.
    pub fn head(&self) -> &M::State {
        &self.head
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    pub fn records(&self) -> &[StepRecord<M::Who>] {
        &self.records
    }
    pub fn record(&self, step: u32) -> Option<&StepRecord<M::Who>> {
        step.checked_sub(1)
            .and_then(|i| self.records.get(i as usize))
    }
    pub fn events_of(&self, r: &StepRecord<M::Who>) -> &[M::Fact] {
        &self.events[r.ev_start as usize..r.ev_end as usize]
    }
    pub fn schedule(&self) -> Vec<Choice> {
        self.records.iter().map(|r| r.choice).collect()
    }
    /// Choices that can be taken at the cursor: the model's runnable ones, none
    /// at the scenario's step limit (a step there would go past it, as
    /// [`Run::advance`] refuses to).
    pub fn runnable_here(&self) -> Vec<Choice> {
        let mut v = Vec::new();
        if self.cursor < self.sc.header().max_steps {
            self.sc.runnable(self.world(), &mut v);
        }
        v
    }

    // ----- stepping at the head -----

    /// Takes one step at the head, chosen by the scheduler. Moves the cursor to the head.
    pub fn advance(&mut self) -> Result<u32, Stop> {
        if self.outcome.is_some() {
            return Err(Stop::Ended);
        }
        let (head, sc) = (&self.head, &self.sc);
        let n = sc.runnable_len(head);
        // A script's next choice is looked for among all the runnable ones:
        // listed once, not asked for one by one (each `runnable_at` lists the
        // goroutines again: replaying a schedule of 1,000 actors took 15 times
        // as long as a seeded run, and the page's lockstep 6 s).
        let picked = match self.sched.scans() {
            true => {
                let mut all = Vec::with_capacity(n as usize);
                sc.runnable(head, &mut all);
                self.sched.pick(n, |i| all[i as usize])
            }
            false => self.sched.pick(n, |i| sc.runnable_at(head, i)),
        };
        let Some((choice, note)) = picked else {
            return Err(Stop::NeedChoice);
        };
        self.apply(choice, note);
        Ok(self.len())
    }

    /// Takes `choice` as the next step after the cursor. If the cursor is behind the
    /// head, the later history is dropped first (a new branch), and the scheduler
    /// becomes manual.
    pub fn advance_with(&mut self, choice: Choice) -> Result<u32, Stop> {
        if self.cursor < self.len() {
            self.truncate_to_cursor();
            self.sched = Scheduler::new(Policy::Manual);
        }
        if self.outcome.is_some() {
            return Err(Stop::Ended);
        }
        let mut here = Vec::new();
        self.sc.runnable(&self.head, &mut here);
        if !here.contains(&choice) {
            return Err(Stop::NotRunnable(choice));
        }
        self.apply(choice, None);
        Ok(self.len())
    }

    /// Steps until the run ends or the scheduler needs a manual choice.
    pub fn run_to_end(&mut self) -> Option<&Outcome> {
        while self.advance().is_ok() {}
        self.outcome.as_ref()
    }

    /// Steps at most `n` times.
    pub fn run_steps(&mut self, n: u32) {
        for _ in 0..n {
            if self.advance().is_err() {
                break;
            }
        }
    }

    fn apply(&mut self, choice: Choice, note: Option<SchedNote>) {
        let start = self.events.len() as u32;
        let who = self.sc.step(&mut self.head, choice, &mut self.events);
        let step = self.len() + 1;
        self.records.push(StepRecord {
            step,
            choice,
            who,
            ev_start: start,
            ev_end: self.events.len() as u32,
            note,
        });
        self.snapshots.after_step(step, &self.head);
        self.refresh_head();
        self.world = None;
        self.cursor = step;
    }

    fn refresh_head(&mut self) {
        let sc = &self.sc;
        if sc.ended(&self.head) {
            let v = sc.verdict(&self.head);
            let who = || {
                let name = self
                    .records
                    .last()
                    .map(|r| sc.who_name(&r.who))
                    .unwrap_or_default();
                name
            };
            self.outcome = Some(Outcome::of(&v, who));
            return;
        }
        if self.len() >= sc.header().max_steps {
            // A broken invariant is the finding; the step limit only ended the run.
            let v = sc.verdict(&self.head);
            self.outcome = Some(match v.violations.first() {
                Some(first) => Outcome {
                    kind: OutcomeKind::Invariant,
                    message: format!(
                        "{}: {} (the run then stopped at its step limit, {} steps)",
                        first.id,
                        first.message,
                        self.len()
                    ),
                    goroutine: None,
                },
                None => Outcome {
                    kind: OutcomeKind::StepLimit,
                    message: format!("stopped after {} steps with work left", self.len()),
                    goroutine: None,
                },
            });
        }
    }

    fn truncate_to_cursor(&mut self) {
        let n = self.cursor;
        if let Some(r) = self.records.get(n as usize) {
            self.events.truncate(r.ev_start as usize);
        }
        self.records.truncate(n as usize);
        self.snapshots.truncate(n);
        if let Some(w) = self.world.take() {
            self.head = w;
        }
        self.outcome = None;
        self.refresh_head();
    }

    // ----- time travel -----

    /// The world after `n` steps, without moving the cursor.
    pub fn world_at(&self, n: u32) -> M::State {
        let n = n.min(self.len());
        if n == self.cursor {
            return self.world().clone();
        }
        if n == self.len() {
            return self.head.clone();
        }
        let (base, w) = self.snapshots.at_or_before(n);
        let mut w = w.clone();
        let mut scratch = Vec::new();
        for i in base..n {
            scratch.clear();
            self.sc
                .step(&mut w, self.records[i as usize].choice, &mut scratch);
        }
        w
    }

    /// Replays the whole recorded run once, calling `f(step, world)` for step 0..=len.
    pub fn for_each_world(&self, mut f: impl FnMut(u32, &M::State)) {
        let mut w = self.snapshots.at_or_before(0).1.clone();
        f(0, &w);
        let mut scratch = Vec::new();
        for (i, r) in self.records.iter().enumerate() {
            scratch.clear();
            self.sc.step(&mut w, r.choice, &mut scratch);
            f(i as u32 + 1, &w);
        }
    }

    /// The spacing of the run's snapshots (a world every this many steps,
    /// wider for a run of large worlds, see [`SNAPSHOT_BUDGET`]): sampling at
    /// multiples of it replays nothing.
    pub fn snapshot_every(&self) -> u32 {
        self.snapshots.every
    }

    /// Calls `f(step, world)` for steps 0, `every`, 2·`every`, … and the last
    /// step, in order: each world replayed from the one before or from a
    /// snapshot, whichever is later (the figures sample a run of 145,740
    /// steps at 400 of them: replaying all of them took as long again as
    /// building the run).
    pub fn for_each_world_every(&self, every: u32, mut f: impl FnMut(u32, &M::State)) {
        let (len, every) = (self.len(), every.max(1));
        let mut w = self.snapshots.at_or_before(0).1.clone();
        let (mut at, mut next) = (0, 0);
        let mut scratch = Vec::new();
        loop {
            let (base, snap) = self.snapshots.at_or_before(next);
            if base > at {
                w.clone_from(snap);
                at = base;
            }
            for r in &self.records[at as usize..next as usize] {
                scratch.clear();
                self.sc.step(&mut w, r.choice, &mut scratch);
            }
            at = next;
            f(next, &w);
            if next == len {
                return;
            }
            next = next.saturating_add(every).min(len);
        }
    }

    /// Moves the cursor to step `n` (0 = the initial state), clamped to the run.
    pub fn goto(&mut self, n: u32) {
        let n = n.min(self.len());
        if n == self.cursor {
            return;
        }
        if n == self.len() {
            self.world = None;
            self.cursor = n;
            return;
        }
        // Replay forward from the cursor when it is close behind, else from a snapshot.
        let (base, snap) = self.snapshots.at_or_before(n);
        let mut world = match self.world.take() {
            Some(w) if self.cursor <= n && self.cursor >= base => w,
            _ => {
                self.cursor = base;
                snap.clone()
            }
        };
        while self.cursor < n {
            let c = self.records[self.cursor as usize].choice;
            self.scratch.clear();
            self.sc.step(&mut world, c, &mut self.scratch);
            self.cursor += 1;
        }
        self.world = Some(world);
    }
}

/// Copies each of the first `max` reachable states of `sc` over each other one
/// (as the explorer copies a parent over a sibling or a spare) and checks the
/// copy is its source, then `also(copy, source)`. Returns how many pairs: what
/// the models' hand-written `clone_from`s are tested by.
#[cfg(test)]
pub(crate) fn copy_each_over_each<M: Model>(
    sc: &M,
    max: usize,
    also: impl Fn(&M::State, &M::State),
) -> usize
where
    M::State: std::fmt::Debug,
{
    let ws = reachable_states(sc, max);
    for x in &ws {
        for y in &ws {
            let mut z = x.clone();
            z.clone_from(y);
            assert_eq!(&z, y, "{}", sc.header().name);
            also(&z, y);
        }
    }
    ws.len() * ws.len()
}

/// The states of `sc` reached breadth first (told apart by the whole state), at
/// most `max`: what the tests of the models' `ids` modules walk.
#[cfg(test)]
pub(crate) fn reachable_states<M: Model>(sc: &M, max: usize) -> Vec<M::State> {
    use std::collections::{HashSet, VecDeque};
    let root = sc.init();
    let mut seen = HashSet::from([crate::explore::fingerprint(&root)]);
    let (mut queue, mut out) = (VecDeque::from([root]), Vec::new());
    let (mut runnable, mut facts) = (Vec::new(), Vec::new());
    while let Some(w) = queue.pop_front() {
        sc.runnable(&w, &mut runnable);
        for &c in &runnable {
            let mut next = w.clone();
            sc.step(&mut next, c, &mut facts);
            if seen.len() < max && seen.insert(crate::explore::fingerprint(&next)) {
                queue.push_back(next);
            }
        }
        out.push(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long run of a large world: the snapshots stay within their byte budget by
    /// thinning, and each step still finds the latest snapshot at or before it.
    #[test]
    fn snapshots_thin_to_their_budget() {
        // A "world" of 10,000 u64s: ~120 KB by the estimate; budget for ~10 of them.
        let world = |step: u32| vec![u64::from(step); 10_000];
        let one = crate::explore::state_bytes(&world(0));
        let budget = 10 * one;
        let mut s = Snapshots::new(world(0), budget, 24);
        let steps = 200 * SNAPSHOT_EVERY;
        for step in 1..=steps {
            if step % SNAPSHOT_EVERY == 0 {
                s.after_step(step, &world(step));
            }
            assert!(s.total <= budget, "step {step}: {} > {budget}", s.total);
        }
        // 201 snapshots at the start spacing would take 201 worlds; thinned, the
        // spacing doubled until at most 10 fit.
        assert!(
            s.worlds.len() <= 10 && s.worlds.len() >= 5,
            "{}",
            s.worlds.len()
        );
        assert!(s.every >= 16 * SNAPSHOT_EVERY, "{}", s.every);
        for n in [0, 1, SNAPSHOT_EVERY, steps / 3, steps - 1, steps] {
            let (base, w) = s.at_or_before(n);
            assert!(base <= n && n - base < s.every, "n {n}: base {base}");
            assert_eq!(
                w[0],
                u64::from(base),
                "the snapshot at {base} is that step's world"
            );
        }
        // Going back forgets later snapshots; recording goes on from there.
        s.truncate(steps / 2);
        let (base, _) = s.at_or_before(steps);
        assert!(base <= steps / 2);
        assert_eq!(s.total, s.bytes.iter().sum::<u64>());
    }

    /// Under the budget nothing changes: every `SNAPSHOT_EVERY` steps, so `goto`
    /// replays at most that many steps.
    #[test]
    fn small_worlds_keep_the_fine_spacing() {
        let mut s = Snapshots::new(7u32, SNAPSHOT_BUDGET, 4);
        for step in 1..=100 * SNAPSHOT_EVERY {
            s.after_step(step, &step);
        }
        assert_eq!(s.every, SNAPSHOT_EVERY);
        assert_eq!(s.worlds.len(), 101);
        assert_eq!(
            s.at_or_before(5 * SNAPSHOT_EVERY + 3),
            (5 * SNAPSHOT_EVERY, &(5 * SNAPSHOT_EVERY))
        );
    }
}

#[cfg(test)]
mod footprint_switch {
    use super::*;

    /// Every step from the reachable states (up to `max`) of `sc`, taken with
    /// footprints on and off: the same state, facts and who; off, nothing is
    /// recorded. Returns how many steps recorded something when on.
    fn compare<M: Model>(sc: &M, max: usize) -> usize
    where
        M::State: std::fmt::Debug,
    {
        let (mut runnable, mut recorded) = (Vec::new(), 0);
        for w in reachable_states(sc, max) {
            sc.runnable(&w, &mut runnable);
            for &c in &runnable {
                let (mut on, mut off) = (w.clone(), w.clone());
                sc.record_footprints(&mut on, true);
                sc.record_footprints(&mut off, false);
                let (mut f_on, mut f_off) = (Vec::new(), Vec::new());
                let who = (
                    sc.step(&mut on, c, &mut f_on),
                    sc.step(&mut off, c, &mut f_off),
                );
                assert_eq!(on, off, "{c:?} from {w:?}");
                assert_eq!(sc.who_name(&who.0), sc.who_name(&who.1));
                let words = |fs: &[M::Fact]| {
                    let mut s = String::new();
                    fs.iter().for_each(|f| sc.fact_words(f, &mut s));
                    s
                };
                assert_eq!(words(&f_on), words(&f_off));
                assert!(sc.accesses(&off).is_empty() && sc.syncs(&off).is_empty());
                assert!(sc.order_keys(&off).is_empty());
                // A copy keeps the switch.
                let mut copy = on.clone();
                copy.clone_from(&off);
                if sc.runnable_len(&copy) > 0 {
                    let first = sc.runnable_at(&copy, 0);
                    sc.step(&mut copy, first, &mut f_off);
                    assert!(sc.accesses(&copy).is_empty() && sc.order_keys(&copy).is_empty());
                }
                recorded +=
                    usize::from(!sc.accesses(&on).is_empty() || !sc.order_keys(&on).is_empty());
            }
        }
        recorded
    }

    /// The explorer turns footprints off where nothing reads them: that must
    /// change no step, over every flush-2021 and sync-2024 built-in.
    #[test]
    fn footprints_off_change_no_step() {
        let mut recorded = 0;
        for name in crate::builtin::names() {
            if name == crate::builtin::PAIRS_1000 {
                continue;
            }
            recorded += match crate::builtin::get(name) {
                Some(crate::AnyScenario::Flush(sc)) => compare(&*sc, 1500),
                Some(crate::AnyScenario::Sync(sc)) => compare(&*sc, 1500),
                _ => 0,
            };
        }
        assert!(
            recorded > 10_000,
            "only {recorded} steps recorded a footprint"
        );
    }
}
