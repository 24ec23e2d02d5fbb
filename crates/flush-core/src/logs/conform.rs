//! Conformance (issue 12): a schedule of a scenario whose Milvus log lines are
//! the imported log's lines, in order.
//!
//! Each process writes its own log in order, but two processes' clocks differ, so
//! a merged log's order across them says little. The search therefore keeps one
//! cursor per process (datacoord, datanode): a step's log line that is the next
//! line of its process's log advances that cursor; a line that the log has later
//! (and not next) ends that branch, since the log says something else came
//! first; a line the log lacks is allowed and listed (a log may be filtered, or
//! one process's log missing). Lines the model never prints are kept and listed
//! as not modelled. Best-first: the states that matched most lines go first,
//! then the deepest, so the search follows the log.

use std::collections::VecDeque;

use serde::Serialize;

use super::{Kind, LogLine, Parsed, Record};
use crate::engine::Model;
use crate::explore::fingerprint::{fingerprint, model_state_bytes, FpSet};
use crate::sched::{format_schedule, Choice};

/// A log line as the search compares it: the caller's package directory and
/// file as zap's short caller gives them (`metacache/meta_cache.go`; the line
/// number moves between commits), the level, the message, the subject (the
/// segment, the sorted segment list of a partition, or the panic), and the
/// error where the model knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Key {
    pub file: String,
    pub level: String,
    pub message: String,
    pub subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The fields that name what a line is about, most specific first.
const SUBJECT_FIELDS: [&str; 6] = ["segmentID", "SegmentID", "key", "id", "segment", "panic"];

/// Whether [`Key::of`] would have read the subject from field `f` of `l`, had
/// the log not ended inside it: a key made without it (or with a list short
/// of its last ID) names another subject. The partition and a request's list
/// count only where the line has no subject field; a subject field only where
/// none it comes after in [`SUBJECT_FIELDS`] is there.
fn keyed_by(l: &LogLine, f: &str) -> bool {
    let present = |fields: &[&str]| fields.iter().any(|g| l.field(g).is_some());
    match SUBJECT_FIELDS.iter().position(|g| *g == f) {
        Some(at) => !present(&SUBJECT_FIELDS[..at]),
        None => (f == "segments" || f == "partitionID") && !present(&SUBJECT_FIELDS),
    }
}

impl Key {
    /// The key of a record; `None` for text that is no log line.
    pub fn of(kind: &Kind) -> Option<Key> {
        match kind {
            Kind::Log(l) => {
                let partition = l.field("partitionID").map(number);
                let subject = SUBJECT_FIELDS
                    .iter()
                    .find_map(|f| l.field(f))
                    .map(number)
                    .or_else(|| {
                        // A request's list belongs to its partition.
                        let list = sorted_list(l.field("segments")?);
                        Some(format!(
                            "[{list}] of partition {}",
                            partition.clone().unwrap_or_default()
                        ))
                    })
                    .or(partition)
                    .unwrap_or_default();
                Some(Key {
                    file: short_caller(&l.file).to_owned(),
                    level: l.level.clone(),
                    message: l.message.clone(),
                    subject,
                    error: l.field("error").map(str::to_owned),
                })
            }
            Kind::Panic { message, .. } => Some(Key {
                file: PANIC.to_owned(),
                level: String::new(),
                message: PANIC.to_owned(),
                subject: message.clone(),
                error: None,
            }),
            Kind::Unmatched { .. } => None,
        }
    }

    /// Which process writes this line.
    pub fn process(&self) -> Process {
        if self.file.starts_with("datacoord/") {
            Process::Datacoord
        } else {
            Process::Datanode
        }
    }

    pub fn words(&self) -> String {
        if self.file == PANIC {
            return format!("panic: {}", self.subject);
        }
        let mut s = format!("{} {} \"{}\"", self.level, self.file, self.message);
        if !self.subject.is_empty() {
            s.push_str(&format!(" ({})", self.subject));
        }
        if let Some(e) = &self.error {
            s.push_str(&format!(" error=\"{e}\""));
        }
        s
    }
}

/// The first ID of a record's subject (as [`Key::of`] makes it: its segment
/// field, else its list's entries and partition, else its partition) that is
/// not an ID a model holds (an i64): no schedule prints such a line, whatever
/// the model does (`partitionID=99999999999999999999999` was put down to "the
/// model never takes the path that logs it").
pub fn unreadable_id(kind: &Kind) -> Option<(&'static str, &str)> {
    let Kind::Log(l) = kind else {
        return None;
    };
    let bad = |v: &&str| v.trim().parse::<i64>().is_err();
    if let Some((k, v)) = SUBJECT_FIELDS
        .iter()
        .find_map(|&f| l.field(f).map(|v| (f, v)))
    {
        // A panic's subject is its message.
        return (k != "panic" && bad(&v)).then_some((k, v));
    }
    let entries = l
        .field("segments")
        .into_iter()
        .flat_map(|v| {
            v.trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split([',', ' '])
        })
        .filter(|t| !t.trim().is_empty())
        .map(|v| ("segments", v));
    entries
        .chain(l.field("partitionID").map(|v| ("partitionID", v)))
        .find(|(_, v)| bad(v))
}

/// A place where Go logs, as a model prints it: the file (named as [`Key`] names
/// it), the message, every line number it has at the versions the model runs
/// (none for a panic's first line), and whether the model prints its error
/// (where it does not, a log's error is not compared).
#[derive(Clone, Copy, Debug)]
pub struct LogSite {
    pub file: &'static str,
    pub message: &'static str,
    pub lines: &'static [u32],
    pub error: bool,
}

impl LogSite {
    pub const fn new(file: &'static str, message: &'static str, lines: &'static [u32]) -> LogSite {
        LogSite {
            file,
            message,
            lines,
            error: false,
        }
    }

    /// A site whose error the model prints (it knows the error's text).
    pub const fn with_error(
        file: &'static str,
        message: &'static str,
        lines: &'static [u32],
    ) -> LogSite {
        LogSite {
            error: true,
            ..LogSite::new(file, message, lines)
        }
    }
}

/// Whether the model prints the error of `message` of `file` (see [`LogSite`]).
pub fn keeps_error(sites: &[LogSite], file: &str, message: &str) -> bool {
    sites
        .iter()
        .any(|s| s.file == file && s.message == message && s.error)
}

/// The one line `sites` logs `message` of `file` at, if it has one line.
pub fn line_here(sites: &[LogSite], file: &str, message: &str) -> Option<u32> {
    let s = sites
        .iter()
        .find(|s| s.file == file && s.message == message)?;
    match s.lines {
        [one] => Some(*one),
        _ => None,
    }
}

/// Whether `sites` has a line of `file` saying `message` at `line`.
pub fn knows(sites: &[LogSite], file: &str, message: &str, line: Option<u32>) -> bool {
    sites.iter().any(|s| {
        s.file == file
            && s.message == message
            && (s.lines.is_empty() || line.is_none_or(|n| s.lines.contains(&n)))
    })
}

/// The file and message of a Go panic's first line (`panic: ...`).
pub const PANIC: &str = "panic";

/// The caller as zap's short caller encoder prints it: the package directory
/// and the file (`datacoord/services.go` and `datanode/services.go` are two
/// files); a longer path is cut to that.
pub fn short_caller(file: &str) -> &str {
    match file.rmatch_indices('/').nth(1) {
        Some((i, _)) => &file[i + 1..],
        None => file,
    }
}

/// An id as Go prints it: `007`, `+7` and ` 7` are 7 (text that is no number stays).
fn number(s: &str) -> String {
    s.trim()
        .parse::<i64>()
        .map_or_else(|_| s.to_owned(), |n| n.to_string())
}

/// `[3,1,2]` → `1,2,3` (Go ranges over a map to build the list: its order is random).
fn sorted_list(s: &str) -> String {
    let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
    let mut ids: Vec<String> = inner
        .split([',', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(number)
        .collect();
    ids.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    ids.join(",")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Process {
    Datacoord,
    Datanode,
}

impl Process {
    pub fn as_str(self) -> &'static str {
        match self {
            Process::Datacoord => "datacoord",
            Process::Datanode => "datanode",
        }
    }
}

/// The search's budgets.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Distinct (state, cursors) pairs visited.
    pub max_states: u64,
    /// Steps in a schedule.
    pub max_steps: u32,
    /// Bytes the search may hold (estimated): the states waiting, those seen.
    pub max_bytes: u64,
    /// How the reader raises the budgets, appended to a budget's message.
    pub hint: &'static str,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_states: 500_000,
            max_steps: 400,
            max_bytes: 256 << 20,
            hint: " (flushscope logs --max-states, --max-steps and --max-memory raise it)",
        }
    }
}

/// The longest replay a search may be given (the scenarios' own step limit).
pub const MAX_MAX_STEPS: u32 = crate::scenario::MAX_MAX_STEPS;
/// The most states a search may be given.
pub const MAX_MAX_STATES: u64 = 100_000_000;

impl Options {
    /// Refuses budgets that cannot work.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_MAX_STATES).contains(&self.max_states) {
            return Err(format!(
                "--max-states {}: give 1 to {MAX_MAX_STATES}",
                self.max_states
            ));
        }
        if !(1..=MAX_MAX_STEPS).contains(&self.max_steps) {
            return Err(format!(
                "--max-steps {}: give 1 to {MAX_MAX_STEPS}",
                self.max_steps
            ));
        }
        crate::explore::check_max_memory(self.max_bytes)
    }
}

/// A log record the replay printed, and at which step (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Matched {
    /// Index into [`Parsed::records`].
    pub record: usize,
    /// The record's input line.
    pub at: u32,
    pub step: u32,
}

/// A line the replay printed that the log lacks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Extra {
    pub step: u32,
    pub line: String,
}

/// The first record no schedule explains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unexplained {
    pub record: usize,
    pub at: u32,
    pub line: String,
    pub why: String,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Conformance {
    /// Every record the model prints was matched, in its process's order.
    pub complete: bool,
    /// Records the model prints (matched or not).
    pub wanted: usize,
    /// Records explained in order before the search could go no further (all
    /// of `wanted` when `complete`).
    pub explained: usize,
    /// The schedule: a matching one when `complete`, else the one that matched most.
    #[serde(serialize_with = "schedule_text")]
    pub schedule: Vec<Choice>,
    pub matched: Vec<Matched>,
    /// Records the model has no line for (other components, other code paths).
    pub not_modelled: Vec<usize>,
    /// Records the log ends inside, in their message or a field that says
    /// what the line is about (its subject, partition or error): which line
    /// of the model each would be cannot be told, so they are not judged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cut_short: Vec<usize>,
    pub extra: Vec<Extra>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexplained: Option<Unexplained>,
    pub states: u64,
    /// The budget that stopped the search, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

fn schedule_text<S: serde::Serializer>(s: &[Choice], ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(&format_schedule(s))
}

impl Conformance {
    /// Records matched at `step`.
    pub fn at_step(&self, step: u32) -> impl Iterator<Item = &Matched> {
        self.matched.iter().filter(move |m| m.step == step)
    }

    /// What the replay made of record `n` (`r`).
    pub fn mark(&self, n: usize, r: &Record) -> Mark {
        if let Ok(i) = self.matched.binary_search_by_key(&n, |m| m.record) {
            return Mark::Step(self.matched[i].step);
        }
        if self.unexplained.as_ref().is_some_and(|u| u.record == n) {
            Mark::Unexplained
        } else if self.not_modelled.binary_search(&n).is_ok() {
            Mark::NotModelled
        } else if self.cut_short.binary_search(&n).is_ok() {
            Mark::CutShort
        } else if matches!(r.kind, Kind::Unmatched { .. }) {
            Mark::NotALogLine
        } else {
            Mark::NotReached
        }
    }
}

/// What the replay made of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Printed at this step (1-based).
    Step(u32),
    /// The first record no schedule explains.
    Unexplained,
    /// The model has no line like it.
    NotModelled,
    /// The log ends inside what tells which line it is ([`Conformance::cut_short`]).
    CutShort,
    NotALogLine,
    /// After the unexplained record: not tried.
    NotReached,
}

impl Mark {
    pub fn words(self) -> String {
        match self {
            Mark::Step(n) => format!("step {n}"),
            Mark::Unexplained => "UNEXPLAINED".to_owned(),
            Mark::NotModelled => "not modelled".to_owned(),
            Mark::CutShort => "cut short".to_owned(),
            Mark::NotALogLine => "not a log line".to_owned(),
            Mark::NotReached => "not reached".to_owned(),
        }
    }
}

/// The records a model prints, split by process, with their keys.
struct Wanted {
    seqs: [Vec<(usize, Key)>; 2],
    /// Per process, each key's last place in `seqs` (whether the log has a
    /// line later is one lookup: a step may print 100,000 lines).
    last: [std::collections::HashMap<Key, u32, foldhash::fast::RandomState>; 2],
    not_modelled: Vec<usize>,
    /// [`Conformance::cut_short`].
    cut_short: Vec<usize>,
    /// Records logged at a line the model prints at another version, not at the
    /// scenario's: (record, the line this version logs it at). Their keys are
    /// made unmatchable, so the search stops at the first of them.
    other_version: Vec<(usize, u32)>,
}

fn wanted<M: Model>(sc: &M, log: &Parsed) -> Wanted {
    let mut w = Wanted {
        seqs: [Vec::new(), Vec::new()],
        last: Default::default(),
        not_modelled: Vec::new(),
        cut_short: Vec::new(),
        other_version: Vec::new(),
    };
    for (i, r) in log.records.iter().enumerate() {
        let Some(mut k) = Key::of(&r.kind) else {
            continue;
        };
        let line = match &r.kind {
            Kind::Log(l) => l.line,
            _ => None,
        };
        let logged = match &r.kind {
            Kind::Log(l) => Some(l),
            _ => None,
        };
        let cut_in = logged.and_then(|l| l.cut_in.as_deref());
        if cut_in == Some("message") {
            w.cut_short.push(i);
            continue;
        }
        if !sc.log_known(&k.file, &k.message, line) {
            w.not_modelled.push(i);
            continue;
        }
        let keeps_error = sc.log_keeps_error(&k.file, &k.message);
        if !keeps_error {
            k.error = None;
        }
        let keyed = |f: &str| logged.is_some_and(|l| keyed_by(l, f));
        if cut_in.is_some_and(|f| keyed(f) || (keeps_error && f == "error")) {
            w.cut_short.push(i);
            continue;
        }
        if let (Some(here), Some(got)) = (sc.log_line_at(&k.file, &k.message), line) {
            if here != got {
                w.other_version.push((i, here));
                k.subject.push_str(" (at another version's line)");
            }
        }
        w.seqs[k.process() as usize].push((i, k));
    }
    // A Go panic ends the model's run, but not the log: the runtime prints it
    // to stderr as the goroutine dies, and the other goroutines' log lines go
    // on to stdout until the process is gone (the real #34018 log has eleven
    // lines of the next request's handler after its panic). So a panic is
    // matched after the datanode lines that follow it, up to the first that
    // names what panicked (the panicking goroutine's own lines come before
    // its panic).
    let dn = &mut w.seqs[Process::Datanode as usize];
    let mut j = 0;
    while j < dn.len() {
        if !matches!(log.records[dn[j].0].kind, Kind::Panic { .. }) {
            j += 1;
            continue;
        }
        let names = |k: &Key, panic: &Key| {
            k.subject == panic.subject || panic.subject.contains(&format!("={}]", k.subject))
        };
        let mut to = j;
        while to + 1 < dn.len()
            && !matches!(log.records[dn[to + 1].0].kind, Kind::Panic { .. })
            && !names(&dn[to + 1].1, &dn[j].1)
        {
            to += 1;
        }
        dn[j..=to].rotate_left(1);
        j = to + 1;
    }
    for p in 0..2 {
        for (n, (_, k)) in w.seqs[p].iter().enumerate() {
            w.last[p].insert(k.clone(), n as u32);
        }
    }
    w
}

/// The keys of the log lines a step printed.
fn step_keys<M: Model>(sc: &M, facts: &[M::Fact], out: &mut Vec<(Key, String)>) {
    out.clear();
    for f in facts {
        let Some(text) = sc.fact_log(f) else { continue };
        let lines: Vec<&str> = text.lines().collect();
        for r in super::parse(&text).records {
            if let Some(k) = Key::of(&r.kind) {
                let line = lines.get(r.at as usize - 1).copied().unwrap_or_default();
                out.push((k, line.to_owned()));
            }
        }
    }
}

/// Advances the cursors over a step's keys, in the order the step printed
/// them, except that a run of lines of one site (file and message) matches in
/// any order: Go prints such a run ranging over a map (UpdateSegmentView's
/// removals), whose order is random. A key the log has later, not next, is
/// returned: the log says another line came first.
///
/// A key with no subject (datacoord's "success to sync segments" names no
/// partition) may be any request's: it matches the next log line unless the
/// step's next line of its process is about another partition's request than
/// the log's line after it, and it never ends a branch (a log that starts
/// inside a request lacks an earlier request's lines, but has this line of
/// the next one; found by replaying the real #34018 excerpt).
///
/// Linear in the step's lines: one step may print a line per segment of a
/// scenario of 100,000 (a helper's `logs --against` ran for minutes).
fn advance<'k>(w: &Wanted, cur: &mut [u32; 2], keys: &'k [(Key, String)]) -> Result<(), &'k Key> {
    advance_with(w, cur, keys, |_, _| {})
}

/// [`advance`], telling `matched(key, record)` each key that matched a record
/// (the report's alignment, [`align`], matches as the search did).
fn advance_with<'k>(
    w: &Wanted,
    cur: &mut [u32; 2],
    keys: &'k [(Key, String)],
    mut matched: impl FnMut(usize, usize),
) -> Result<(), &'k Key> {
    let seqs = &w.seqs;
    let mut i = 0;
    while i < keys.len() {
        let site = (&keys[i].0.file, &keys[i].0.message);
        let run = keys[i..]
            .iter()
            .take_while(|(k, _)| (&k.file, &k.message) == site)
            .count();
        // One site, one process.
        let p = keys[i].0.process() as usize;
        let mut used = vec![false; run];
        if run == 1 {
            let k = &keys[i].0;
            let after = seqs[p].get(cur[p] as usize + 1).map(|(_, w)| w);
            let ambiguous_elsewhere = k.subject.is_empty()
                && keys[i + 1..]
                    .iter()
                    .find(|(n, _)| n.process() as usize == p)
                    .zip(after)
                    .is_some_and(|((n, _), w)| other_request(n, w));
            if next_is(seqs, cur, p, k) && !ambiguous_elsewhere {
                matched(i, seqs[p][cur[p] as usize].0);
                cur[p] += 1;
                used[0] = true;
            }
        } else {
            // The run's keys by key: the log's next lines take them in its order.
            let mut left: std::collections::HashMap<&Key, Vec<usize>, foldhash::fast::RandomState> =
                Default::default();
            for j in (i..i + run).rev() {
                left.entry(&keys[j].0).or_default().push(j);
            }
            while let Some((rec, k)) = seqs[p].get(cur[p] as usize) {
                let Some(j) = left.get_mut(k).and_then(|js| js.pop()) else {
                    break;
                };
                matched(j, *rec);
                cur[p] += 1;
                used[j - i] = true;
            }
        }
        let later = |k: &Key| w.last[p].get(k).is_some_and(|&n| n >= cur[p]);
        if let Some(j) = (i..i + run)
            .find(|&j| !used[j - i] && !keys[j].0.subject.is_empty() && later(&keys[j].0))
        {
            return Err(&keys[j].0);
        }
        i += run;
    }
    Ok(())
}

/// Whether the next line of process `p`'s log is `k`.
fn next_is(seqs: &[Vec<(usize, Key)>; 2], cur: &[u32; 2], p: usize, k: &Key) -> bool {
    seqs[p].get(cur[p] as usize).is_some_and(|(_, w)| w == k)
}

/// Whether two lines of one site are about two requests: their subjects are
/// lists of two partitions ("sync segments success").
fn other_request(a: &Key, b: &Key) -> bool {
    let partition = |k: &Key| {
        k.subject
            .rsplit_once("] of partition ")
            .map(|(_, p)| p.to_owned())
    };
    (&a.file, &a.message) == (&b.file, &b.message)
        && matches!((partition(a), partition(b)), (Some(x), Some(y)) if x != y)
}

struct Node {
    parent: u32,
    choice: Choice,
}

/// States between two samples of a state's bytes (states grow as goroutines
/// start and segments are added; the first one is the smallest).
const SAMPLE_EVERY: u64 = 256;

/// The states waiting to be expanded, most lines matched first, then fewest
/// lines printed that the log lacks, then the deepest, then first come: the
/// search goes where the log leads, keeps to the log's own lines, and between two
/// lines goes depth-first to the next one (a breadth-first search drowns in the
/// interleavings of steps that print nothing).
struct Frontier<S> {
    heap: std::collections::BinaryHeap<Waiting<S>>,
    seq: u64,
}

impl<S> Default for Frontier<S> {
    fn default() -> Self {
        Frontier {
            heap: std::collections::BinaryHeap::new(),
            seq: 0,
        }
    }
}

struct Waiting<S> {
    /// (lines matched, lines the log lacks, steps, first come), a max-heap key.
    key: (u32, std::cmp::Reverse<u32>, u32, std::cmp::Reverse<u64>),
    node: u32,
    state: S,
    cur: [u32; 2],
}

impl<S> PartialEq for Waiting<S> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<S> Eq for Waiting<S> {}
impl<S> PartialOrd for Waiting<S> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<S> Ord for Waiting<S> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

impl<S> Frontier<S> {
    fn push(&mut self, node: u32, state: S, cur: [u32; 2], (depth, extra): (u32, u32)) {
        use std::cmp::Reverse;
        self.seq += 1;
        let key = (cur[0] + cur[1], Reverse(extra), depth, Reverse(self.seq));
        self.heap.push(Waiting {
            key,
            node,
            state,
            cur,
        });
    }
    fn pop(&mut self) -> Option<Waiting<S>> {
        self.heap.pop()
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
}

fn path(nodes: &[Node], mut at: u32) -> Vec<Choice> {
    let mut out = Vec::new();
    while at != 0 {
        out.push(nodes[at as usize].choice);
        at = nodes[at as usize].parent;
    }
    out.reverse();
    out
}

/// Searches `sc` for a schedule that prints `log`'s modelled lines in order.
pub fn conform<M: Model>(sc: &M, log: &Parsed, o: &Options) -> Conformance {
    // No schedule past the scenario's step limit: a run stops there.
    let asked_steps = o.max_steps;
    let o = &Options {
        max_steps: o.max_steps.min(sc.header().max_steps),
        ..*o
    };
    let w = wanted(sc, log);
    let goal = [w.seqs[0].len() as u32, w.seqs[1].len() as u32];
    let s = Search::new(sc, &w, goal, (o, asked_steps));
    let (node, stopped, mut s) = s.run();
    let mut schedule = path(&s.nodes, node);
    // What the search held is freed before the search for an unexplained line's
    // cause, which has the same memory budget.
    (s.nodes, s.seen) = (Vec::new(), FpSet::default());
    schedule.extend(s.tail.as_ref().map(|t| t.0));
    let (mut c, end) = align(sc, &w, &schedule, log);
    c.not_modelled = w.not_modelled.clone();
    c.cut_short = w.cut_short.clone();
    c.wanted = (goal[0] + goal[1]) as usize;
    c.explained = s.best as usize;
    c.states = s.states;
    c.complete = goal != [0, 0] && s.best_cursors == goal;
    if goal != [0, 0] && !c.complete {
        let mut u = s.unexplained(log, stopped.as_deref());
        // A datanode line after the log's panic, which the replay matched: the
        // datanode process is gone (datacoord's lines are another process's).
        let datanode =
            Key::of(&log.records[u.record].kind).is_some_and(|k| k.process() == Process::Datanode);
        let after_panic = c.matched.iter().any(|m| {
            m.record < u.record && matches!(log.records[m.record].kind, Kind::Panic { .. })
        });
        if stopped.is_none() && s.tail.is_none() && datanode && after_panic {
            if let Some((_, message)) = sc.go_panic(&end) {
                u.why = format!(
                    "the replay that explains the lines before it ends at step {} in the Go panic \"{message}\"; nothing runs after a panic, and the log goes on",
                    schedule.len()
                );
            }
        }
        c.unexplained = Some(u);
    }
    c.stopped = stopped;
    c
}

struct Search<'a, M: Model> {
    sc: &'a M,
    w: &'a Wanted,
    goal: [u32; 2],
    o: &'a Options,
    nodes: Vec<Node>,
    seen: FpSet,
    /// Fingerprints of every key any explored step printed.
    printed: FpSet,
    /// The same without level and error (see [`site_fingerprint`]).
    printed_sites: FpSet,
    states: u64,
    best: u32,
    best_cursors: [u32; 2],
    /// Some schedule reached the step limit and was not followed further.
    cut: bool,
    /// A budget (states, bytes) stopped the search, not the step limit.
    by_budget: bool,
    /// The step limit the caller asked for, before the scenario's own cut it
    /// (a line no run prints even that far is not the scenario limit's doing).
    asked_steps: u32,
    /// When the best is a step cut short by a line out of order: that step's
    /// choice and the line (see `partial`).
    tail: Option<(Choice, Key)>,
}

impl<'a, M: Model> Search<'a, M> {
    fn new(sc: &'a M, w: &'a Wanted, goal: [u32; 2], (o, asked_steps): (&'a Options, u32)) -> Self {
        Search {
            sc,
            w,
            goal,
            o,
            nodes: vec![Node {
                parent: 0,
                choice: Choice::new(0, 0),
            }],
            seen: FpSet::default(),
            printed: FpSet::default(),
            printed_sites: FpSet::default(),
            states: 1,
            best: 0,
            best_cursors: [0, 0],
            cut: false,
            by_budget: false,
            asked_steps,
            tail: None,
        }
    }

    /// Breadth-first from the initial state: the node reached (the goal, or the
    /// one that matched most) and the budget that stopped it.
    fn run(mut self) -> (u32, Option<String>, Self) {
        let root = self.sc.init();
        let mut bytes_each = model_state_bytes::<M>(&root).max(1);
        let mut queue = Frontier::default();
        queue.push(0, root, [0, 0], (0, 0));
        let mut best_node = 0;
        let (mut runnable, mut facts, mut keys) = (Vec::new(), Vec::new(), Vec::new());
        if self.goal == [0, 0] {
            return (0, None, self);
        }
        while let Some(w) = queue.pop() {
            let (node, s, cur) = (w.node, w.state, w.cur);
            let (depth, extra) = (w.key.2, w.key.1 .0);
            if self.sc.ended(&s) {
                continue;
            }
            if depth >= self.o.max_steps {
                self.cut = true;
                continue;
            }
            self.sc.runnable(&s, &mut runnable);
            for &c in &runnable {
                let mut s2 = s.clone();
                facts.clear();
                self.sc.step(&mut s2, c, &mut facts);
                step_keys(self.sc, &facts, &mut keys);
                for (k, _) in &keys {
                    self.printed.insert(fingerprint(k));
                    self.printed_sites.insert(site_fingerprint(k));
                }
                let mut cur2 = cur;
                if let Err(early) = advance(self.w, &mut cur2, &keys) {
                    // The step printed a line out of the log's order; the lines it
                    // matched before that still count as how far the log is explained.
                    if cur2[0] + cur2[1] > self.best {
                        best_node = node;
                        self.partial(cur2, c, early.clone());
                    }
                    continue;
                }
                if !self.seen.insert(fingerprint(&(&s2, cur2))) {
                    continue;
                }
                if let Some(why) = self.count(&s2, &mut bytes_each) {
                    self.by_budget = true;
                    return (best_node, Some(why), self);
                }
                self.nodes.push(Node {
                    parent: node,
                    choice: c,
                });
                let id = self.nodes.len() as u32 - 1;
                if cur2[0] + cur2[1] > self.best {
                    (self.best, self.best_cursors, best_node) = (cur2[0] + cur2[1], cur2, id);
                    self.tail = None;
                }
                if cur2 == self.goal {
                    return (id, None, self);
                }
                if let Some(why) = self.over_budget(self.held(queue.len(), bytes_each)) {
                    self.by_budget = true;
                    return (best_node, Some(why), self);
                }
                let matched = cur2[0] + cur2[1] - cur[0] - cur[1];
                queue.push(
                    id,
                    s2,
                    cur2,
                    (depth + 1, extra + keys.len() as u32 - matched),
                );
            }
        }
        let why = self.cut.then(|| self.cut_words());
        (best_node, why, self)
    }

    /// Which step limit cut the search: the scenario's, or the search's own.
    fn cut_words(&self) -> String {
        match self.o.max_steps >= self.sc.header().max_steps {
            true => format!(
                "the search followed schedules up to the scenario's step limit (its \"max_steps\", {}), where its runs stop, and went no further",
                self.o.max_steps
            ),
            false => format!(
                "the search followed schedules up to its step limit of {} steps{}, and went no further",
                self.o.max_steps, self.o.hint
            ),
        }
    }

    /// The best so far is a step that matched lines and then printed `early`,
    /// a line the log has later: the report replays up to it (`tail`).
    fn partial(&mut self, cur: [u32; 2], c: Choice, early: Key) {
        (self.best, self.best_cursors) = (cur[0] + cur[1], cur);
        self.tail = Some((c, early));
    }

    /// Counts a new state `s`, within the state budget (the first state
    /// included), and now and then takes its bytes as a state's (states grow).
    fn count(&mut self, s: &M::State, bytes_each: &mut u64) -> Option<String> {
        if self.states >= self.o.max_states {
            return self.over_budget(0);
        }
        self.states += 1;
        if self.states % SAMPLE_EVERY == 0 {
            *bytes_each = (*bytes_each).max(model_state_bytes::<M>(s));
        }
        None
    }

    /// The bytes the search holds: `queued` states of `bytes_each`, the
    /// fingerprints seen and the schedule tree.
    fn held(&self, queued: usize, bytes_each: u64) -> u64 {
        queued as u64 * bytes_each
            + self.seen.bytes()
            + (self.nodes.len() * std::mem::size_of::<Node>()) as u64
    }

    /// `held`: the bytes of the states waiting (each as large as the largest
    /// sampled), of the fingerprints seen and of the schedule tree.
    fn over_budget(&self, held: u64) -> Option<String> {
        if self.states >= self.o.max_states {
            return Some(format!(
                "the search stopped at its budget of {} states{}",
                self.o.max_states, self.o.hint
            ));
        }
        (held > self.o.max_bytes).then(|| {
            format!(
                "the search stopped at its memory budget of about {} MB (the states waiting and those seen){}",
                self.o.max_bytes >> 20,
                self.o.hint
            )
        })
    }

    /// The earliest record (in the log) past the best cursors, and why.
    fn unexplained(&self, log: &Parsed, stopped: Option<&str>) -> Unexplained {
        let next = (0..2)
            .filter_map(|p| {
                self.w.seqs[p]
                    .get(self.best_cursors[p] as usize)
                    .map(|x| (p, x))
            })
            .min_by_key(|(_, (i, _))| *i);
        let Some((p, (i, k))) = next else {
            unreachable!("an incomplete search has a record left")
        };
        let before = self.best_cursors[p];
        let process = if p == 0 { "datacoord" } else { "datanode" };
        let other = self.w.other_version.iter().find(|o| o.0 == *i);
        let why = match (stopped, other, &self.tail) {
            (_, Some((_, here)), _) => format!(
                "this version logs it at line {here}; the log's line number is another version's (try that version)"
            ),
            (None, None, Some((_, early)))
                if self.printed.contains(fingerprint(k))
                    || prints_anywhere(self.sc, k, self.o) == Some(Prints::Yes) =>
            {
                // The same line explained before it: the log repeats it.
                let again = self.w.seqs[p][..before as usize]
                    .iter()
                    .rfind(|(_, w)| w == k)
                    .map(|(j, _)| log.records[*j].at);
                match again {
                    Some(at) => format!(
                        "the log has this line again (line {at} has it, explained already); no schedule prints it a second time here: the step that prints the line(s) before it prints {} next, which the log has only later",
                        early.words()
                    ),
                    None => format!(
                        "the step that prints the line(s) before it also prints {}, which the log has only later: in the model these lines come out in another order",
                        early.words()
                    ),
                }
            }
            (stopped, None, _) => self.why(k, stopped, before, process),
        };
        Unexplained {
            record: *i,
            at: log.records[*i].at,
            line: record_words(&log.records[*i]),
            why,
        }
    }

    /// When the search was cut at the scenario's step limit only (no budget)
    /// and no schedule prints `k` even past it, within the steps the caller
    /// asked for: why, since the limit is not.
    fn past_the_limit(&self, k: &Key) -> Option<String> {
        let limit = self.sc.header().max_steps;
        if !(self.cut && !self.by_budget && self.o.max_steps >= limit) {
            return None;
        }
        // Past the limit as far as the caller asked; at it, a search cut there
        // has seen every run.
        let further = Options {
            max_steps: self.asked_steps.max(limit),
            ..*self.o
        };
        let never = match further.max_steps > limit {
            true => format!("no schedule of this scenario prints this line, even past its step limit (its \"max_steps\", {limit}): the model never takes the path that logs it"),
            false => format!("no run of this scenario prints this line within its step limit (its \"max_steps\", {limit}), where its runs stop"),
        };
        match prints_anywhere(self.sc, k, &further) {
            Some(Prints::No) if !self.printed_sites.contains(site_fingerprint(k)) => {
                Some(self.needs(k, never))
            }
            Some(Prints::No | Prints::Otherwise) => Some(OTHER_LEVEL.to_owned()),
            Some(Prints::Yes) | None => None,
        }
    }

    /// `never` (no schedule prints `k`), with what the scenario would need
    /// for the model to print it, where the model says ([`Model::log_needs`]).
    fn needs(&self, k: &Key, never: String) -> String {
        match self.sc.log_needs(&k.file, &k.message) {
            Some(n) => format!("{never} here: {n}"),
            None => never,
        }
    }

    fn why(&self, k: &Key, stopped: Option<&str>, before: u32, process: &str) -> String {
        match stopped {
            Some(s) => self
                .past_the_limit(k)
                .unwrap_or_else(|| format!("{s} before a schedule printed it")),
            None if self.printed.contains(fingerprint(k)) => format!(
                "the model prints this line, but never after the {before} {process} line(s) before it, in their order"
            ),
            None => match prints_anywhere(self.sc, k, self.o) {
                Some(Prints::Yes) => format!(
                    "the model prints this line, but no schedule prints it after the {before} {process} line(s) before it without printing other lines of the log out of their order first"
                ),
                Some(Prints::Otherwise) => OTHER_LEVEL.to_owned(),
                Some(Prints::No) if self.printed_sites.contains(site_fingerprint(k)) => {
                    OTHER_LEVEL.to_owned()
                }
                Some(Prints::No) => self.needs(
                    k,
                    "no schedule of this scenario prints this line: the model never takes the path that logs it".to_owned(),
                ),
                None => format!(
                    "no schedule printed this line within {} states and {} steps{}",
                    self.o.max_states, self.o.max_steps, self.o.hint
                ),
            },
        }
    }
}

const OTHER_LEVEL: &str =
    "the model prints this line, but with another level or error than the log's";

/// Whether some schedule prints a line ([`prints_anywhere`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prints {
    Yes,
    /// Not the line, but its call site (file, message, subject) with another
    /// level or error.
    Otherwise,
    No,
}

/// Whether any schedule prints `key`, whatever else it prints: `None` when the
/// budget ran out first. Breadth-first over states alone; a schedule cut at the
/// scenario's step limit is one whole run (it stops there).
fn prints_anywhere<M: Model>(sc: &M, key: &Key, o: &Options) -> Option<Prints> {
    let root = sc.init();
    let mut bytes_each = model_state_bytes::<M>(&root).max(1);
    let mut seen = FpSet::default();
    seen.insert(fingerprint(&root));
    let mut queue = VecDeque::from([(root, 0u32)]);
    let (mut runnable, mut facts, mut keys) = (Vec::new(), Vec::new(), Vec::new());
    let (mut states, mut cut, mut site) = (1u64, false, false);
    let key_site = site_fingerprint(key);
    while let Some((s, depth)) = queue.pop_front() {
        if sc.ended(&s) {
            continue;
        }
        if depth >= o.max_steps {
            // Cut where the runs stop, a schedule is whole; short of it or
            // past it (a search beyond the limit), it is cut.
            cut |= o.max_steps != sc.header().max_steps;
            continue;
        }
        sc.runnable(&s, &mut runnable);
        for &c in &runnable {
            let mut s2 = s.clone();
            facts.clear();
            sc.step(&mut s2, c, &mut facts);
            step_keys(sc, &facts, &mut keys);
            if keys.iter().any(|(k, _)| k == key) {
                return Some(Prints::Yes);
            }
            site |= keys.iter().any(|(k, _)| site_fingerprint(k) == key_site);
            if seen.insert(fingerprint(&s2)) {
                states += 1;
                if states % SAMPLE_EVERY == 0 {
                    bytes_each = bytes_each.max(model_state_bytes::<M>(&s2));
                }
                let full = queue.len() as u64 * bytes_each + seen.bytes() > o.max_bytes;
                if states >= o.max_states || full {
                    return None;
                }
                queue.push_back((s2, depth + 1));
            }
        }
    }
    (!cut).then_some(if site { Prints::Otherwise } else { Prints::No })
}

/// A key's file, message and subject: the line without its level and error.
fn site_fingerprint(k: &Key) -> u64 {
    fingerprint(&(&k.file, &k.message, &k.subject))
}

/// A record in one line, for messages.
pub fn record_words(r: &Record) -> String {
    match Key::of(&r.kind) {
        Some(k) => k.words(),
        None => match &r.kind {
            Kind::Unmatched { text, .. } => text.clone(),
            _ => String::new(),
        },
    }
}

/// Replays `schedule` and lines its printed lines up with the log's records;
/// also gives the state the replay ends in.
fn align<M: Model>(
    sc: &M,
    w: &Wanted,
    schedule: &[Choice],
    log: &Parsed,
) -> (Conformance, M::State) {
    let mut s = sc.init();
    let (mut facts, mut keys) = (Vec::new(), Vec::new());
    let mut cur = [0u32; 2];
    let mut c = Conformance {
        complete: false,
        wanted: 0,
        explained: 0,
        schedule: schedule.to_vec(),
        matched: Vec::new(),
        not_modelled: Vec::new(),
        cut_short: Vec::new(),
        extra: Vec::new(),
        unexplained: None,
        states: 0,
        stopped: None,
    };
    for (n, &choice) in schedule.iter().enumerate() {
        facts.clear();
        sc.step(&mut s, choice, &mut facts);
        step_keys(sc, &facts, &mut keys);
        let step = n as u32 + 1;
        let mut used = vec![false; keys.len()];
        // The last step may print a line the log has later (the search's
        // stop): what it matched before that still counts.
        let _ = advance_with(w, &mut cur, &keys, |j, record| {
            used[j] = true;
            let at = log.records[record].at;
            c.matched.push(Matched { record, at, step });
        });
        let extra = keys
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|((_, line), _)| Extra {
                step,
                line: line.clone(),
            });
        c.extra.extend(extra);
    }
    c.matched.sort_by_key(|m| m.record);
    (c, s)
}
