//! `flushscope`: runs FlushScope scenarios headless. See DESIGN.md's CLI contract.
//!
//! Exit codes: 0 when the run executed (whatever the model's outcome), 1 when
//! `explore` found a violation, 2 on bad input, 3 when the output could not be
//! written (a full disk, say; a closed pipe, as in `| head`, ends quietly instead).

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use flush_core::explore::{self, bytes_words, Options, Order, OutcomesStop, Progress};
use flush_core::scenario::MAX_SCENARIO_BYTES;
use flush_core::{builtin, link, AnyScenario, Choice, Policy};

#[derive(Parser)]
#[command(
    name = "flushscope",
    version,
    about = "Step through Milvus's datanode flush machinery (flush-2021, sync-2024), headless",
    long_about = "Runs FlushScope scenarios: the 2021 flush manager (orderFlushQueue, flushTaskRunner, injections, drop mode) and the 2024 metacache / SyncSegments race (#34018). Every step names the Go function it models.\n\nFILE is a scenario file (JSON), `-` for standard input, or `builtin:NAME` for a built-in scenario (see `flushscope list`).\n\nExit codes: 0 the run executed (whatever the model's outcome: completed, panic, deadlock, invariant, step_limit); 1 `explore` found a violation; 2 bad input; 3 the output could not be written (a reader that closes the pipe early, as `head` does, ends the output quietly)."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Which code a scenario runs: its Milvus version and what-if knobs.
#[derive(clap::Args)]
struct At {
    /// Milvus version, for a model with several (sync-2024: ca7ef26e4b, b5c9a7364b,
    /// c65f41dc60, 4cf1a358ba, 2e434e4453, 439fb24b32).
    #[arg(long)]
    version: Option<String>,
    /// Set a what-if knob, `KEY=SETTING` (repeatable; flush-2021: `handler_chains_tail=on`,
    /// ...; sync-2024: `request=`, `keep=`, `load=`, `deadline=`), after --version: the run is
    /// labelled "proposed" when it differs from the version.
    #[arg(long = "knob", value_name = "KEY=SETTING")]
    knobs: Vec<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario once and print its trace, one line per step, then the outcome.
    Run {
        /// Scenario file, `-` for stdin, or `builtin:NAME`.
        file: String,
        /// Seed of the random scheduler (default: the scenario's seed).
        #[arg(long)]
        seed: Option<u64>,
        #[command(flatten)]
        at: At,
        /// Replay a schedule: goroutine numbers, e.g. `0,0,1,3,3,2` (`5.1` = select case 1).
        /// When it runs out or names a goroutine that cannot run, the seeded scheduler takes over.
        #[arg(long, conflicts_with = "scripted")]
        schedule: Option<String>,
        /// Replay the schedule embedded in the scenario file.
        #[arg(long)]
        scripted: bool,
        /// Stop after this many steps (default: the scenario's max_steps).
        #[arg(long, value_parser = steps)]
        max_steps: Option<u32>,
        /// Also check for data races at every state the run passes through: two
        /// runnable steps of different goroutines touching one plain Go field (one
        /// writing) with no mutex held at both.
        #[arg(long)]
        races: bool,
        /// Model steps the race check may spend (with --races; default 5000000):
        /// a long run's checks stop there, and the report says so.
        #[arg(long, value_parser = states, requires = "races")]
        race_budget: Option<u64>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Also print the Milvus log lines the steps correspond to (text mode).
        #[arg(long)]
        logs: bool,
    },
    /// Search interleavings for a violation (invariant, Go panic, deadlock).
    ///
    /// By default breadth first, stopping at the first state that shows a violation:
    /// its schedule is a shortest one. `--all` goes on to every distinct violation
    /// (depth first, unless `--order bfs`); depth-first schedules are shrunk.
    /// Once the states breadth first has queued fill half the memory budget, it
    /// goes on depth first from each of them (the report says so).
    /// Progress goes to stderr on a terminal.
    Explore(ExploreArgs),
    /// The policy matrix: the scenario under every combination of its model's
    /// knobs (flush-2021: the what_if changes; sync-2024: request, keep, load, and
    /// deadline where an op is "retried" or the file's policy sets it), each
    /// explored to the end or the budget; the Milvus versions are rows of it.
    Matrix {
        /// Scenario file, `-` for stdin, or `builtin:NAME`.
        file: String,
        /// Longest schedule to explore in each row (at most the scenario's
        /// max_steps, where its runs stop).
        #[arg(long, default_value_t = 200, value_parser = steps)]
        max_steps: u32,
        /// Distinct states each row may explore.
        #[arg(long, default_value_t = 1_000_000, value_parser = states)]
        max_states: u64,
        /// Memory each row's search may hold, as for `explore --max-memory`.
        #[arg(long, value_parser = parse_bytes)]
        max_memory: Option<u64>,
        /// The page's address, for each finding's link (as for `explore --page`);
        /// `none` for no link.
        #[arg(long, value_name = "URL", default_value = DEFAULT_PAGE, value_parser = page_url)]
        page: String,
        #[arg(long)]
        json: bool,
    },
    /// Read a Milvus log (zap's text format; panics and goroutine dumps; alone
    /// or after a `docker compose logs` or CRI (kubelet) log file prefix; other
    /// lines kept as unmatched), infer the sync-2024 scenario and version it
    /// shows, and search for a schedule that prints its lines in order. Exit 0
    /// when a replay matches every line the model knows, 1 when none does.
    /// At most 64 MB are read.
    Logs(LogsArgs),
    /// List the built-in scenarios.
    List,
}

/// `explore --max-steps` unless given.
const DEFAULT_MAX_STEPS: u32 = 200;

#[derive(clap::Args)]
struct ExploreArgs {
    /// Scenario file, `-` for stdin, or `builtin:NAME`.
    file: String,
    #[command(flatten)]
    at: At,
    /// Longest schedule to explore (deeper paths are cut and the search reported
    /// incomplete); at most the scenario's max_steps, where its runs stop (a
    /// schedule past it would not replay).
    #[arg(long, default_value_t = DEFAULT_MAX_STEPS, value_parser = steps)]
    max_steps: u32,
    /// Stop after this many distinct states.
    #[arg(long, default_value_t = 50_000_000, value_parser = states)]
    max_states: u64,
    /// Memory the search may hold, e.g. `512M`, `4G` (default: a quarter of the memory the
    /// process may use: the machine's, its cgroup's limit or `ulimit -v`, the least).
    #[arg(long, value_parser = parse_bytes)]
    max_memory: Option<u64>,
    /// Go on after the first violation, to every distinct one.
    #[arg(long)]
    all: bool,
    /// Search order: `bfs` (shortest schedules; depth first from the queued
    /// states once they fill half of --max-memory) or `dfs` (least memory).
    /// Default: bfs, or dfs with `--all`.
    #[arg(long, value_parser = ["bfs", "dfs"])]
    order: Option<String>,
    /// Keep what the search found: depth-first schedules unshrunk, and the
    /// scenario's ops whole (by default each violation's ops are cut while it
    /// still occurs, and the smaller scenario is printed).
    #[arg(long)]
    no_shrink: bool,
    /// Also report data races: at every state, two runnable steps of different
    /// goroutines that touch one plain Go field (one writing) with no mutex held at
    /// both. Each comes with both Go lines and a schedule that reaches them.
    #[arg(long)]
    races: bool,
    /// Threads of the search (default: every core); the result is the same for
    /// any count. Depth first runs on them while nothing it finds could depend
    /// on its order (no violation, cut or memory budget; every path to a state
    /// one length), else one thread searches again from the start (the report's `threads:`
    /// line says how far they went and why, and lists a violation they found
    /// that it stopped short of). The state budget, where it stops them
    /// first, ends the search with their report (which states a stopped
    /// search covers depends on its order on any number of threads). The race
    /// check and --reduce run on one.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Try steps that commute in one order only (sleep sets): the same states
    /// and violations (breadth first, with schedules as short) in fewer model
    /// steps, on one thread. For models whose steps declare all they touch
    /// (flush-2021, sync-2024); others explore in full, and a note says so.
    #[arg(long)]
    reduce: bool,
    /// Tell apart states that differ only in the numbers the model gives what it
    /// creates: goroutines (and in flush-2021 runners, channels and the order of
    /// queues). By default they are one state (a Go program sees none of these
    /// numbers): far fewer states, the same violations. --reduce needs this.
    #[arg(long)]
    keep_ids: bool,
    #[arg(long)]
    json: bool,
    /// When stderr is not a terminal (a CI log, a file), a line saying where
    /// the search stands every this many seconds; 0 for none. On a terminal
    /// one line is redrawn instead.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    progress: u32,
    /// Instead of violations, list every distinct observable outcome (flush-2021:
    /// the packs SaveBinlogPaths received in order, the packs of flushAndDrop, and
    /// how the run ended), each with the number of end states reaching it.
    #[arg(long)]
    outcomes: bool,
    /// The page's address (`cargo xtask serve` serves it at the default): each
    /// violation comes with a link that opens its schedule in the page's
    /// stepper, at the version and knobs explored; `none` for no link.
    #[arg(long, value_name = "URL", default_value = DEFAULT_PAGE, value_parser = page_url)]
    page: String,
}

/// Where `cargo xtask serve` serves the page.
const DEFAULT_PAGE: &str = "http://127.0.0.1:8080/";

/// `--page`: an http(s) address with a host, without a fragment, spaces or
/// control characters (printed in a terminal), or `none`.
fn page_url(s: &str) -> Result<String, String> {
    let lower = s.to_ascii_lowercase();
    let rest = ["http://", "https://"]
        .iter()
        .find_map(|scheme| lower.strip_prefix(scheme));
    let host = rest.is_some_and(|r| !r.starts_with(['/', '?']) && !r.is_empty());
    let ok = s == "none"
        || (host && !s.contains('#') && !s.chars().any(|c| c.is_whitespace() || c.is_control()));
    match ok {
        true => Ok(s.to_owned()),
        false => Err("expected the page's http:// or https:// address, with a host and without a #fragment, spaces or control characters (such as http://127.0.0.1:8080/), or none".into()),
    }
}

/// What each violation's link to the page is made of (`--page`).
struct PageLink<'a> {
    base: &'a str,
    file: &'a str,
}

impl PageLink<'_> {
    /// The page's address with `f`'s schedule in its stepper at `version`
    /// with `knobs` set, or `None` when a browser would not open one so long
    /// (a file of megabytes).
    fn finding(
        &self,
        text: Option<&str>,
        version: Option<&str>,
        knobs: &[(String, String)],
        f: &explore::Found,
    ) -> Option<String> {
        self.link(text, (version, knobs), &f.schedule, f.open_step())
    }

    /// The page's address with `schedule` in its stepper at `step`, at
    /// `version` with `knobs` set.
    fn link(
        &self,
        text: Option<&str>,
        (version, knobs): (Option<&str>, &[(String, String)]),
        schedule: &str,
        step: u32,
    ) -> Option<String> {
        let source = match (self.file.strip_prefix("builtin:"), text) {
            (Some(name), _) => link::Scenario::Builtin(name),
            (None, Some(text)) => link::Scenario::File {
                name: match self.file {
                    "-" => "stdin.json",
                    file => file.rsplit(['/', '\\']).next().unwrap_or(file),
                },
                text,
            },
            (None, None) => return None,
        };
        let frag = link::schedule_fragment(source, version, knobs, schedule, step)?;
        Some(format!("{}#{frag}", self.base))
    }
}

#[derive(clap::Args)]
struct LogsArgs {
    /// Log file, or `-` for stdin.
    file: String,
    /// Replay under this version only (a short commit); by default every
    /// version whose line numbers fit the log.
    #[arg(long)]
    version: Option<String>,
    /// Distinct states each version's search may visit.
    #[arg(long, default_value_t = 500_000, value_parser = states)]
    max_states: u64,
    /// Steps a replay may take.
    #[arg(long, default_value_t = 400, value_parser = steps)]
    max_steps: u32,
    /// Memory each version's search may hold, e.g. `512M` (default 256M, or a
    /// quarter of the memory the process may use where that is less).
    #[arg(long, value_parser = parse_bytes)]
    max_memory: Option<u64>,
    /// Print only the records read, without inferring or replaying.
    #[arg(long)]
    records: bool,
    /// Print only the inferred scenario file (for `flushscope run`).
    #[arg(long, conflicts_with = "records")]
    scenario: bool,
    /// Replay the log against this scenario (a file or builtin:NAME, any model)
    /// instead of inferring one: how a flush-2021 log is read.
    #[arg(long, value_name = "SCENARIO", conflicts_with_all = ["records", "scenario"])]
    against: Option<String>,
    /// The page's address, for the link that opens the replay in its stepper
    /// (as for `explore --page`); `none` for no link.
    #[arg(long, value_name = "URL", default_value = DEFAULT_PAGE, value_parser = page_url)]
    page: String,
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version go to stdout: one that cannot be written exits
        // 3 as any other output does (clap's own exit would say 0).
        Err(e) if !e.use_stderr() => {
            return match e.print() {
                Err(io) if io.kind() != std::io::ErrorKind::BrokenPipe => {
                    finish(Err(Failure::Output(io)))
                }
                _ => ExitCode::SUCCESS,
            };
        }
        Err(e) => e.exit(),
    };
    finish(run(cli))
}

/// The exit code of a command's result, with its message on stderr.
fn finish(result: Result<ExitCode, Failure>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Failure::Input(msg)) => {
            say(&msg);
            ExitCode::from(2)
        }
        Err(Failure::Output(e)) => {
            say(&format!("cannot write the output: {e}"));
            ExitCode::from(3)
        }
    }
}

/// Why a command failed: bad input (exit 2) or an output that could not be written
/// (exit 3).
enum Failure {
    Input(String),
    Output(std::io::Error),
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::Input(s)
    }
}

/// A message on stderr, with control and bidi characters from the input escaped.
/// A stderr that cannot be written to is ignored (there is nowhere left to say so).
fn say(msg: &str) {
    let msg = flush_core::scenario::json::escape_unsafe(msg, false);
    let _ = writeln!(std::io::stderr(), "flushscope: {msg}");
}

/// A line on stderr as it is (progress, notes), control and bidi characters
/// escaped; like [`say`], a stderr that cannot be written to is ignored.
fn note(line: &str) {
    let line = flush_core::scenario::json::escape_unsafe(line, false);
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Writes text output to stdout, with control and bidi characters that came from
/// the scenario escaped (names are checked, but titles and messages echo input).
/// A closed pipe ends the output quietly: the command keeps its exit code.
fn emit(text: &str) -> Result<(), Failure> {
    write_out(&flush_core::scenario::json::escape_unsafe(text, true))
}

/// Writes JSON to stdout as it is (serde_json escapes control characters).
fn write_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    written(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// What writing to stdout came to: a reader that closed the pipe early ends the
/// output quietly; any other error is exit 3.
fn written(r: std::io::Result<()>) -> Result<(), Failure> {
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::Output(e)),
        _ => Ok(()),
    }
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.cmd {
        Cmd::List => {
            emit(&list())?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Logs(a) => logs_cmd(&a),
        Cmd::Run {
            file,
            seed,
            at,
            schedule,
            scripted,
            max_steps,
            races,
            race_budget,
            json,
            logs,
        } => {
            let mut sc = load(&file)?;
            apply_version(&mut sc, &at)?;
            if let Some(m) = max_steps {
                if m == 0 {
                    return Err(Failure::Input("--max-steps must be at least 1".into()));
                }
                sc.header_mut().max_steps = m;
            }
            let seed = seed.unwrap_or(sc.header().seed);
            let policy = policy(&sc, &file, seed, schedule, scripted)?;
            let mut r = sc.run(policy);
            r.run_to_end();
            let races = races.then(|| race_budget.unwrap_or(RACE_CHECK_BUDGET));
            print_run(&r, races, json, logs)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Matrix {
            file,
            max_steps,
            max_states,
            max_memory,
            page,
            json,
        } => {
            let max_bytes = max_memory_of(max_memory, None)?;
            let (sc, text) = load_source(&file)?;
            let page = (page != "none").then_some(PageLink {
                base: &page,
                file: &file,
            });
            let limits = (max_steps, max_states, max_bytes);
            matrix(&sc, limits, json, page.map(|p| (p, text.as_deref())))
        }
        Cmd::Explore(a) => explore_cmd(a),
    }
}

/// `flushscope explore`: the search its flags ask for, printed.
fn explore_cmd(a: ExploreArgs) -> Result<ExitCode, Failure> {
    if a.outcomes {
        outcomes_note(&a);
    }
    let ExploreArgs {
        file,
        at,
        max_steps,
        max_states,
        max_memory,
        all,
        order,
        no_shrink,
        races,
        threads,
        reduce,
        keep_ids,
        json,
        progress,
        outcomes,
        page,
    } = a;
    let (mut sc, text) = load_source(&file)?;
    apply_version(&mut sc, &at)?;
    let max_bytes = max_memory_of(max_memory, None)?;
    let o = Options {
        max_steps,
        max_states,
        max_bytes,
        order: order_of(order.as_deref(), all),
        all,
        shrink: !no_shrink,
        races,
        target: None,
        threads: threads.unwrap_or_else(cores),
        detail_deadlocks: false,
        reduce,
        ids: keep_ids,
        from_depth: 0,
    };
    if outcomes {
        // Breadth first, whatever --order says: its budgets are checked as such.
        Options {
            order: Order::Bfs,
            ..o
        }
        .check()?;
        if !sc.observes() {
            note(&format!(
                "note: {} observes nothing along a run (what --outcomes lists of flush-2021 is the packs datacoord receives): each outcome here is one way a run ends, with the invariants it broke (I=)",
                sc.header().model
            ));
        }
        return print_outcomes(&sc, (max_states, max_bytes), (json, progress));
    }
    o.check()?;
    if races && !sc.footprints() {
        note(&format!(
            "note: --races: the {} model's steps declare no footprints, so no race was looked for",
            sc.header().model
        ));
    }
    // The knobs as `apply_version` read them (it refused any other shape).
    let knobs: Vec<(String, String)> = (at.knobs.iter())
        .filter_map(|k| k.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let page = (page != "none").then_some((
        PageLink {
            base: &page,
            file: &file,
        },
        knobs,
    ));
    explore(&sc, text.as_deref(), &o, (json, progress), page)
}

/// `--outcomes` enumerates every state breadth first on one thread, within
/// `--max-states` and `--max-memory`: a note names the other flags given, which
/// do not apply to it.
fn outcomes_note(a: &ExploreArgs) {
    let given = [
        ("--max-steps", a.max_steps != DEFAULT_MAX_STEPS),
        ("--all", a.all),
        ("--order", a.order.is_some()),
        ("--no-shrink", a.no_shrink),
        ("--races", a.races),
        ("--threads", a.threads.is_some()),
        ("--reduce", a.reduce),
        ("--keep-ids", a.keep_ids),
        ("--page", a.page != DEFAULT_PAGE),
    ];
    let ignored: Vec<&str> = given.iter().filter(|g| g.1).map(|g| g.0).collect();
    if !ignored.is_empty() {
        note(&format!(
            "note: --outcomes lists every state's outcome, breadth first on one thread, within --max-states, --max-memory and the scenario's step limit; {} do not apply to it",
            ignored.join(", ")
        ));
    }
}

/// The machine's cores (the default of `--threads`).
fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(256) as u32)
}

/// `--order`, or its default: breadth first (shortest schedules), depth first
/// with `--all` (least memory).
fn order_of(order: Option<&str>, all: bool) -> Order {
    match order {
        Some("bfs") => Order::Bfs,
        Some("dfs") => Order::Dfs,
        _ if all => Order::Dfs,
        _ => Order::Bfs,
    }
}

/// `flushscope list`: a line per built-in scenario.
fn list() -> String {
    let mut text = String::new();
    for name in builtin::names() {
        let sc = builtin::get(name).expect("built-in");
        let h = sc.header();
        text.push_str(&format!("{name:<26} {:<10} {}\n", h.model, h.title));
    }
    text
}

/// `flushscope matrix`: each row explored to the end of its budget, printed.
/// Exit codes as explore (DESIGN.md): 1 when some row finds a violation.
fn matrix(
    sc: &AnyScenario,
    (max_steps, max_states, max_bytes): (u32, u64, u64),
    json: bool,
    page: Option<(PageLink, Option<&str>)>,
) -> Result<ExitCode, Failure> {
    let o = Options {
        max_bytes,
        ..Options::exhaustive(max_steps, max_states)
    };
    o.check()?;
    let mut rows = sc.matrix(&o, &mut |r| {
        // The version's own knobs are named as the text's rows name them.
        let knobs = match r.proposed.is_empty() {
            true => "(the version's own)".to_owned(),
            false => r.proposed.join(", "),
        };
        note(&format!("matrix: {knobs}: {}", r.verdict()))
    });
    if rows.is_empty() {
        return Err(format!(
            "{}: the {} model has no knobs to combine",
            sc.header().name,
            sc.header().model
        )
        .into());
    }
    if let Some((page, text)) = &page {
        for r in &mut rows {
            // As the page's row opens it: at its version when it is one's
            // preset, every knob set.
            let version = match (r.presets.first(), sc.versions().is_empty()) {
                (Some(v), false) => Some(*v),
                _ => sc.header().version,
            };
            let knobs: Vec<_> = (r.settings.iter())
                .map(|(k, s)| ((*k).to_owned(), (*s).to_owned()))
                .collect();
            for f in &mut r.findings {
                f.link = page.finding(*text, version, &knobs, f);
            }
        }
    }
    if json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
        write_out(&format!("{text}\n"))?;
    } else {
        emit(&flush_core::explore::matrix_text(&sc.header().name, &rows))?;
    }
    Ok(match rows.iter().any(|r| !r.findings.is_empty()) {
        true => ExitCode::from(1),
        false => ExitCode::SUCCESS,
    })
}

/// The scheduler `run` asks for: a schedule given, the file's, or the seed.
fn policy(
    sc: &AnyScenario,
    file: &str,
    seed: u64,
    schedule: Option<String>,
    scripted: bool,
) -> Result<Policy, String> {
    if let Some(s) = schedule {
        if s.trim().is_empty() {
            return Err(
                "--schedule is empty; give goroutine numbers such as 0,0,1,3 (or leave --schedule out for the seeded scheduler)"
                    .into(),
            );
        }
        return Ok(Policy::Scripted {
            script: Choice::parse_list(&s).map_err(|e| format!("--schedule: {e}"))?,
            fallback_seed: seed,
        });
    }
    if scripted {
        let script =
            sc.header().schedule.clone().ok_or_else(|| {
                format!("{file}: --scripted, but the scenario has no \"schedule\"")
            })?;
        return Ok(Policy::Scripted {
            script,
            fallback_seed: seed,
        });
    }
    Ok(Policy::Seeded(seed))
}

/// Prints a run's trace (text or JSON), with the race check along it when asked.
/// `races`: the race check's budget, when asked for.
fn print_run(
    r: &flush_core::AnyRun,
    races: Option<u64>,
    json: bool,
    logs: bool,
) -> Result<(), Failure> {
    let races = races.map(|budget| r.races(budget));
    if json {
        let Some(races) = &races else {
            // Written as it is made: the trace's lines are not held.
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            return written(
                r.write_json(true, &mut out)
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| out.flush()),
            );
        };
        let text = r.report_json(true);
        let mut v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        v["races"] = serde_json::to_value(races).map_err(|e| e.to_string())?;
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        write_out(&format!("{text}\n"))
    } else {
        let mut out = Stdout::new();
        let made = r.write_text(logs, &mut out).and_then(|()| match &races {
            Some(races) => std::fmt::Write::write_str(&mut out, &races.text(r.len() + 1)),
            None => Ok(()),
        });
        out.finish(made)
    }
}

/// Standard output as [`emit`] writes it (unsafe characters escaped, a reader
/// that closed the pipe ends it quietly), for text made and written a line at
/// a time.
struct Stdout {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    failed: Option<std::io::Error>,
}

impl Stdout {
    fn new() -> Stdout {
        Stdout {
            out: std::io::BufWriter::new(std::io::stdout().lock()),
            failed: None,
        }
    }

    /// The end of the text: `made` is what making it returned (an error
    /// there is this writer's).
    fn finish(mut self, made: std::fmt::Result) -> Result<(), Failure> {
        if made.is_ok() {
            if let Err(e) = self.out.flush() {
                self.failed = Some(e);
            }
        }
        written(self.failed.map_or(Ok(()), Err))
    }
}

impl std::fmt::Write for Stdout {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let text = flush_core::scenario::json::escape_unsafe(s, true);
        self.out.write_all(text.as_bytes()).map_err(|e| {
            self.failed = Some(e);
            std::fmt::Error
        })
    }
}

/// Model steps the race check of `run --races` may spend on footprints (a run of
/// 100,000 steps with a few goroutines runnable at each stays within it).
const RACE_CHECK_BUDGET: u64 = 5_000_000;

/// Where a long command stands, on stderr: on a terminal, one line redrawn
/// five times a second; elsewhere (a CI log, a file), a line of its own every
/// `plain_secs` (0: none), so a long search is never silent.
struct Ticker {
    started: std::time::Instant,
    last: std::time::Instant,
    every_ms: u128,
    tty: bool,
    /// A terminal line is on screen (to clear at the end).
    shown: bool,
}

impl Ticker {
    fn new(plain_secs: u32) -> Ticker {
        use std::io::IsTerminal;
        let tty = std::io::stderr().is_terminal();
        let now = std::time::Instant::now();
        Ticker {
            started: now,
            last: now,
            every_ms: match (tty, plain_secs) {
                (true, _) => 200,
                (false, 0) => u128::MAX,
                (false, secs) => u128::from(secs) * 1000,
            },
            tty,
            shown: false,
        }
    }

    fn secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Shows `line()` if it is time to.
    fn tick(&mut self, line: impl FnOnce(f64) -> String) {
        if self.last.elapsed().as_millis() < self.every_ms {
            return;
        }
        self.last = std::time::Instant::now();
        let line = line(self.secs());
        match self.tty {
            true => {
                let _ = write!(std::io::stderr(), "\r{line}  ");
                self.shown = true;
            }
            false => say(&line),
        }
        let _ = std::io::stderr().flush();
    }

    /// Shows `line` on a line of its own, where progress is shown at all.
    fn note(&mut self, line: &str) {
        if self.every_ms == u128::MAX {
            return;
        }
        self.done();
        self.shown = false;
        say(line);
    }

    /// Clears a terminal line.
    fn done(&self) {
        if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

/// A progress line of a search: `what` it does, then where it stands.
fn search_line(what: &str, p: &Progress, secs: f64) -> String {
    format!(
        "{what}: {} states, {:.0} states/s, depth {}, {} held, {secs:.1} s",
        p.states,
        p.states as f64 / secs.max(1e-9),
        p.depth,
        bytes_words(p.bytes),
    )
}

/// Runs the search; `json` for the output, `plain_secs` between progress lines
/// when stderr is not a terminal (0: none).
fn explore(
    sc: &AnyScenario,
    text: Option<&str>,
    o: &Options,
    (json, plain_secs): (bool, u32),
    page: Option<(PageLink, Vec<(String, String)>)>,
) -> Result<ExitCode, Failure> {
    let mut ticker = Ticker::new(plain_secs);
    let mut last = 0;
    let mut report = sc.explore_with(o, &mut |p: &Progress| {
        // Only a search that starts again counts fewer states.
        if p.states < last {
            ticker.note("the threads gave way to one, which searches again from the start (the report says why)");
        }
        last = p.states;
        ticker.tick(|secs| search_line("exploring", p, secs));
        true
    });
    // The search's time: cutting ops after it is reported by its tries.
    report.time_ms = Some(ticker.started.elapsed().as_millis() as u64);
    if let (true, Some(text)) = (o.shrink, text) {
        cut_ops(sc, text, o, &mut report, &mut |tries, cut| {
            ticker.tick(|secs| format!("cutting ops: {tries} tries, {cut} cut, {secs:.1} s"));
        });
    }
    ticker.done();
    if let Some((page, knobs)) = &page {
        for f in &mut report.violations {
            f.link = page.finding(text, sc.header().version, knobs, f);
        }
        if report.violations.iter().any(|f| f.link.is_none()) {
            note("note: no link to the page: the scenario is too long for a link a browser opens (2 MiB); open the file in the page with Upload and paste the schedule");
        }
    }
    if o.reduce && !report.reduced {
        let why = match report.ids_merged {
            true => "states that differ only in the names of goroutines (and other objects numbered as created) were taken as one instead, which cuts more (sleep sets name goroutines by id: add --keep-ids to use them)",
            false => "steps do not declare all they touch, so every order was explored",
        };
        note(&format!(
            "note: --reduce was not used: {}'s {why}",
            sc.header().model
        ));
    }
    if json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        write_out(&format!("{text}\n"))?;
    } else {
        emit(&report.text())?;
    }
    Ok(if report.violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Cuts the ops of each violation's scenario while it still occurs (see
/// `OpShrink`); `progress` hears the tries made and the ops cut.
fn cut_ops(
    sc: &AnyScenario,
    text: &str,
    o: &Options,
    report: &mut explore::Exploration,
    progress: &mut dyn FnMut(u32, u32),
) {
    let budget = explore::CutBudget::cli(report.states, o.max_bytes);
    for f in &mut report.violations {
        let cut = match explore::OpShrink::new(text, sc, f, o, budget.clone()) {
            Ok(mut s) => {
                while !s.run(explore::PROGRESS_EVERY) {
                    let (tries, cut) = s.progress();
                    progress(tries, cut);
                }
                s.finish()
            }
            Err(why) => explore::not_cut(why),
        };
        f.cut = Some(cut);
    }
}

/// A count of steps or states: digits, up to the most the search counts
/// (zero is refused where it is used, with what it would mean). One message for
/// every count: clap's own said `is not in 0..=4294967295` for steps (0 is
/// refused) and Rust's `number too large to fit in target type` for states.
fn count(s: &str, most: u64) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a whole number (digits only, such as 200)".into());
    }
    match s.parse::<u64>() {
        Ok(n) if n <= most => Ok(n),
        _ => Err(format!("more than the most it takes, {most}")),
    }
}

fn steps(s: &str) -> Result<u32, String> {
    count(s, u32::MAX.into()).map(|n| n as u32)
}

fn states(s: &str) -> Result<u64, String> {
    count(s, u64::MAX)
}

/// `512M`, `4G`, `1024K`, `1000000` (bytes).
fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let mul: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ if t[..i].trim().parse::<u64>().is_ok() => {
                    return Err(format!("\"{s}\": the unit must be K, M, G or T"))
                }
                _ => return Err(format!("\"{s}\" is not a size such as 512M or 4G")),
            };
            (&t[..i], mul)
        }
        _ => (t, 1),
    };
    let num = num.trim();
    // A fraction of a unit (1.5G): whole bytes, rounded down.
    if let Some((whole, frac)) = num.split_once('.') {
        let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
        if mul > 1 && digits(whole) && digits(frac) && frac.len() <= 6 {
            let scale = 10u64.pow(frac.len() as u32);
            let n = whole.parse::<u64>().ok().and_then(|w| w.checked_mul(scale));
            let n = n.and_then(|w| w.checked_add(frac.parse::<u64>().ok()?));
            return n
                .and_then(|n| n.checked_mul(mul))
                .map(|b| b / scale)
                .ok_or_else(|| format!("\"{s}\" is too large"));
        }
    }
    let n: u64 = num
        .parse()
        .map_err(|e: std::num::ParseIntError| match e.kind() {
            std::num::IntErrorKind::PosOverflow => format!("\"{s}\" is too large"),
            _ => format!("\"{s}\" is not a size such as 512M, 1.5G or 4G"),
        })?;
    n.checked_mul(mul)
        .ok_or_else(|| format!("\"{s}\" is too large"))
}

/// A quarter of the memory this process may use: the least of the machine's
/// (`MemTotal`), its cgroup's limit and its address-space limit (`ulimit -v`),
/// else 2 GiB. A search holds a little more than its budget (the allocator's
/// slack, the stack of a depth-first search), and the process maps more than it
/// holds: a budget of the whole limit would abort on an allocation, not stop.
fn default_of(usable: Option<u64>) -> u64 {
    // At least the smallest budget a search takes (a tiny limit would otherwise
    // refuse a --max-memory nobody gave).
    usable.map_or(2 << 30, |bytes| (bytes / 4).max(1 << 20))
}

/// The memory this process may use: the least of the machine's (`MemTotal`),
/// its cgroup's limit and its address-space limit (`ulimit -v`); `None` when
/// none of them can be read.
fn usable_memory() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cgroups = cgroup_files(&read("/proc/self/cgroup"));
    [
        mem_total(&read("/proc/meminfo")),
        address_space_limit(&read("/proc/self/limits")),
    ]
    .into_iter()
    .chain(cgroups.iter().map(|f| cgroup_limit(&read(f))))
    .flatten()
    .min()
}

/// The byte budget of a search: `--max-memory` as given, or the default. A
/// budget above what the process may use is refused: the search would not stop
/// at it but abort on an allocation, with nothing printed.
/// `cap`: the command's own default where that is less than a quarter of the
/// usable memory (`logs`: 256M).
fn max_memory_of(given: Option<u64>, cap: Option<u64>) -> Result<u64, Failure> {
    check_max_memory(given, usable_memory(), cap).map_err(Failure::Input)
}

fn check_max_memory(
    given: Option<u64>,
    usable: Option<u64>,
    cap: Option<u64>,
) -> Result<u64, String> {
    let default = |usable| default_of(usable).min(cap.unwrap_or(u64::MAX));
    match (given, usable) {
        (None, _) => Ok(default(usable)),
        (Some(bytes), Some(usable)) if bytes > usable => Err(format!(
            "--max-memory {}: more than this process may use (~{}, the least of the machine's memory, its cgroup's limit and `ulimit -v`); a search that outgrew it would abort on an allocation instead of stopping with a report. Give less than that (the default is {}, {})",
            bytes_words(bytes),
            bytes_words(usable),
            match cap {
                Some(c) => format!("the less of {} and a quarter of it", bytes_words(c)),
                None => "a quarter of it".to_owned(),
            },
            bytes_words(default(Some(usable))),
        )),
        (Some(bytes), _) => Ok(bytes),
    }
}

/// `MemTotal:  24000000 kB` of /proc/meminfo, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let kb = meminfo.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
    let kb: u64 = kb.trim().trim_end_matches("kB").trim().parse().ok()?;
    kb.checked_mul(1024)
}

/// The memory limit files of the process's cgroups (from /proc/self/cgroup) and
/// of their ancestors, whose limits bind it too: v2's `memory.max` and v1's
/// `memory.limit_in_bytes`. In a container the path is `/` (the container's
/// root); on a host it is a systemd slice, such as `/user.slice/...`.
/// The roots' files are always read: they are the container's limit where
/// /proc/self/cgroup cannot be read or names a cgroup outside the namespace
/// (`/..`, see cgroup_namespaces(7)).
fn cgroup_files(self_cgroup: &str) -> Vec<String> {
    /// Lines of /proc/self/cgroup, and a cgroup's depth, looked at.
    const MAX_LINES: usize = 64;
    const MAX_DEPTH: usize = 32;
    const ROOTS: [&str; 2] = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ];
    let mut files: Vec<String> = Vec::new();
    for line in self_cgroup.lines().take(MAX_LINES) {
        let mut f = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let (dir, file) = match (id, controllers) {
            ("0", "") => ("/sys/fs/cgroup", "memory.max"),
            (_, c) if c.split(',').any(|c| c == "memory") => {
                ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
            }
            _ => continue,
        };
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        if parts.len() > MAX_DEPTH || parts.iter().any(|p| *p == ".." || *p == ".") {
            continue;
        }
        for depth in (1..=parts.len()).rev() {
            let mut at = dir.to_owned();
            for p in &parts[..depth] {
                at.push('/');
                at.push_str(p);
            }
            files.push(format!("{at}/{file}"));
        }
    }
    files.extend(ROOTS.map(str::to_owned));
    files
}

/// A cgroup's memory limit: v2's `memory.max` (`max`: none) or v1's
/// `memory.limit_in_bytes` (a number near 2^63: none, which `min` ignores).
fn cgroup_limit(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// The soft `Max address space` of /proc/self/limits (`unlimited`: none).
fn address_space_limit(limits: &str) -> Option<u64> {
    let row = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?;
    row.split_whitespace().next()?.parse().ok()
}

/// `explore --outcomes`; `plain_secs` as for [`explore`].
fn print_outcomes(
    sc: &AnyScenario,
    (max_states, max_bytes): (u64, u64),
    (json, plain_secs): (bool, u32),
) -> Result<ExitCode, Failure> {
    let name = &sc.header().name;
    let mut ticker = Ticker::new(plain_secs);
    let found = sc.outcomes_with((max_states, max_bytes), &mut |p: &Progress| {
        ticker.tick(|secs| search_line("finding outcomes", p, secs));
    });
    ticker.done();
    let stop = found.stopped.map(|why| match why {
        OutcomesStop::States => format!(
            "the state budget ({max_states}) was reached after {} states; raise --max-states",
            found.states
        ),
        OutcomesStop::Bytes => format!(
            "the memory budget ({}) was reached after {} states; raise --max-memory",
            bytes_words(max_bytes),
            found.states
        ),
    });
    if json {
        let v = serde_json::json!({
            "scenario": name,
            "outcomes": found.outcomes,
            "states": found.states,
            "complete": stop.is_none(),
            "stopped_by": found.stopped,
        });
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        write_out(&format!("{text}\n"))?;
    } else {
        let set = &found.outcomes;
        let mut text = match &stop {
            None => format!("# {name}: {} distinct outcome(s)\n", set.len()),
            Some(why) if set.is_empty() => {
                format!("# {name}: INCOMPLETE: {why}\n# no outcome seen yet: every end lies deeper\n")
            }
            Some(why) => format!(
                "# {name}: INCOMPLETE: {why}\n# {} outcome(s) seen so far, with the end states visited so far:\n",
                set.len()
            ),
        };
        for o in set {
            let steps = match o.steps {
                1 => "1 step".to_owned(),
                n => format!("{n} steps"),
            };
            let schedule = match o.steps {
                0 => flush_core::explore::ZERO_STEPS,
                _ => &o.schedule,
            };
            text.push_str(&format!(
                "{}\n  {} end state(s); a shortest schedule ({steps}): {schedule}\n",
                o.outcome, o.ends
            ));
            // flush-2021's line is what an observer sees: it does not name them.
            if !o.invariants.is_empty() && !o.outcome.contains(" | I=") {
                text.push_str(&format!(
                    "  invariants broken by some of these end states (not observable): {}\n",
                    o.invariants.join(", ")
                ));
            }
        }
        emit(&text)?;
    }
    if let Some(why) = &stop {
        say(&format!(
            "{name}: not every outcome was found: {why} ({} outcome(s) seen so far)",
            found.outcomes.len()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--version`, then each `--knob` (see `AnyScenario::set_knob`).
fn apply_version(sc: &mut AnyScenario, at: &At) -> Result<(), String> {
    if let Some(v) = &at.version {
        sc.set_version(v).map_err(|e| format!("--version: {e}"))?;
    }
    // An argument is quoted as a scenario's value is, cut to its first 40
    // characters (the message names the setting in full where it matters).
    let short = flush_core::scenario::json::short;
    for (i, k) in at.knobs.iter().enumerate() {
        let (key, setting) = k.split_once('=').ok_or_else(|| {
            format!(
                "--knob {}: expected KEY=SETTING, e.g. keep=growing",
                short(k)
            )
        })?;
        // A second setting of one knob is a mistake, not an override.
        if let Some(first) = at.knobs[..i]
            .iter()
            .find(|f| f.split_once('=').is_some_and(|(k2, _)| k2 == key))
        {
            return Err(format!(
                "--knob {}: {} is already set by --knob {}; give each knob once",
                short(k),
                short(key),
                short(first)
            ));
        }
        sc.set_knob(key, setting)
            .map_err(|e| format!("--knob {}: {e}", short(k)))?;
    }
    for why in sc.idle_knobs() {
        note(&format!("note: {why}"));
    }
    Ok(())
}

/// A file (or stdin, `-`) to read, its name for messages, and its length as the
/// file system says (0 for stdin; never trusted for the read itself).
fn open_input(file: &str, what: &str) -> Result<(Box<dyn std::io::Read>, String, u64), String> {
    if file == "-" {
        return Ok((Box::new(std::io::stdin()), "<stdin>".to_owned(), 0));
    }
    if file.is_empty() {
        return Err(format!("an empty file name: name {what}, or `-` for stdin"));
    }
    let path = Path::new(file);
    let meta = std::fs::metadata(path).map_err(|e| format!("{file}: {}", io_words(&e)))?;
    if meta.is_dir() {
        return Err(format!("{file}: is a directory, not {what}"));
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{file}: {}", io_words(&e)))?;
    Ok((Box::new(f), file.to_owned(), meta.len()))
}

/// `flushscope logs`: the records alone (`--records`), or the import.
fn logs_cmd(a: &LogsArgs) -> Result<ExitCode, Failure> {
    let file = a.file.as_str();
    if file == "-" && a.against.as_deref() == Some("-") {
        return Err(Failure::Input(
            "the log and --against cannot both come from stdin".to_owned(),
        ));
    }
    let text = read_log(file)?;
    if a.records {
        return print_records(file, &text, a.json);
    }
    let mut o = flush_core::logs::conform::Options {
        max_states: a.max_states,
        max_steps: a.max_steps,
        ..Default::default()
    };
    // Given, it is checked against what the process may use; by default 256M,
    // or a quarter of what the process may use where that is less (`ulimit -v`
    // of 150M aborted the search on an allocation, found by a CLI attack).
    o.max_bytes = max_memory_of(a.max_memory, Some(o.max_bytes))?;
    o.check()?;
    let against = a.against.as_deref().map(load_source).transpose()?;
    let page = (a.page != "none").then_some(PageLink {
        base: &a.page,
        file: a.against.as_deref().unwrap_or(IMPORTED_FILE),
    });
    let against_text = against.as_ref().and_then(|(_, t)| t.as_deref());
    print_import(
        file,
        &text,
        (a.version.as_deref(), against.as_ref().map(|(sc, _)| sc)),
        &o,
        (a.scenario, a.json),
        page.map(|p| (p, against_text)),
    )
}

/// The name the page gives the scenario it infers from a log (its log
/// panel's `IMPORTED_FILE`), and so the CLI's link to it.
const IMPORTED_FILE: &str = "imported-log.json";

/// The page's address with the log's replay in its stepper, from its start
/// (as the page's log panel opens it): the inferred scenario's file, or the
/// one replayed against (`against_text`, `None` for a generated built-in).
fn import_link(
    page: &PageLink,
    i: &flush_core::logs::Import,
    against_text: Option<&str>,
) -> Option<String> {
    let text = match &i.inferred {
        Some(inf) => Some(inf.json.as_str()),
        None => against_text,
    };
    let version = (!i.version.is_empty()).then_some(i.version);
    let schedule = flush_core::sched::format_schedule(&i.conformance.schedule);
    page.link(text, (version, &[]), &schedule, 0)
}

/// A log's text: at most `MAX_LOG_BYTES` (and one byte more, so that the parser
/// can say it cut), invalid UTF-8 replaced.
fn read_log(file: &str) -> Result<String, Failure> {
    let (source, shown, _) = open_input(file, "a log file")?;
    let mut buf = Vec::new();
    let limit = flush_core::logs::MAX_LOG_BYTES as u64;
    let mut source = source.take(limit + 1);
    // A chunk at a time: a NUL byte stops the reading there (a binary file or
    // /dev/urandom read all 64 MB first, found by a review), and a pipe that
    // sends one and stays open is answered at once.
    loop {
        let start = buf.len();
        let n = (&mut source)
            .take(1 << 16)
            .read_to_end(&mut buf)
            .map_err(|e| format!("{shown}: {}", io_words(&e)))?;
        if let Some(at) = buf[start..].iter().position(|&b| b == 0) {
            return Err(Failure::Input(format!(
                "{shown}: not a text log ({}); zap writes UTF-8 text lines",
                nul_words(&buf, start + at)
            )));
        }
        if n == 0 {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    // Bad input (exit 2), not a log that no replay explains (exit 1).
    if text.trim().is_empty() {
        return Err(Failure::Input(format!("{shown}: the log is empty")));
    }
    if let Some(why) = not_text(&buf, &text) {
        return Err(Failure::Input(format!(
            "{shown}: not a text log ({why}); zap writes UTF-8 text lines"
        )));
    }
    Ok(text)
}

/// Why `buf` is no text log, if it is not: NUL bytes, or more than one byte in
/// a hundred (and more than eight) that are not UTF-8. A text log with a few
/// damaged bytes is read, each replaced.
fn not_text(buf: &[u8], text: &str) -> Option<String> {
    if let Some(at) = buf.iter().position(|&b| b == 0) {
        return Some(nul_words(buf, at));
    }
    let bad = text
        .chars()
        .filter(|&c| c == char::REPLACEMENT_CHARACTER)
        .count();
    (bad > 8 && bad * 100 > buf.len())
        .then(|| format!("{bad} of its {} bytes are not UTF-8", buf.len()))
}

/// The records the log ends inside, where that leaves them unjudged.
fn cut_short_words(i: &flush_core::logs::Import) -> String {
    let mut out = String::new();
    for &n in &i.conformance.cut_short {
        if let flush_core::logs::Kind::Log(l) = &i.log.records[n].kind {
            out.push_str(&format!(
                "  line {} is cut short inside its {}: which line of the model it is cannot be told, so it is not judged\n",
                i.log.records[n].at,
                match l.cut_in.as_deref() {
                    Some("message") | None => "message".to_owned(),
                    Some(f) => format!("{f} field"),
                }
            ));
        }
    }
    out
}

/// Where a NUL byte at `at` is, and what the file may be instead: a gzip
/// file (`1f 8b`) is named, with the way to read it.
fn nul_words(buf: &[u8], at: usize) -> String {
    if buf.starts_with(&[0x1f, 0x8b]) {
        return "gzip-compressed: `zcat FILE | flushscope logs -` reads it".to_owned();
    }
    let line = buf[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    format!("a NUL byte at byte {at}, on line {line}")
}

fn shown_name(file: &str) -> &str {
    if file == "-" {
        "<stdin>"
    } else {
        file
    }
}

/// `flushscope logs --records`: the log read into records.
fn print_records(file: &str, text: &str, json: bool) -> Result<ExitCode, Failure> {
    let p = flush_core::logs::parse(text);
    if json {
        let text = serde_json::to_string_pretty(&p).map_err(|e| e.to_string())?;
        write_out(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = records_head(shown_name(file), &p);
    for r in &p.records {
        out.push_str(&format!("{:>6}  {}\n", r.at, r.kind.text()));
    }
    emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn records_head(shown: &str, p: &flush_core::logs::Parsed) -> String {
    use flush_core::logs::Kind;
    let count = |f: fn(&Kind) -> bool| p.records.iter().filter(|r| f(&r.kind)).count();
    let mut out = format!(
        "# {shown}: {} lines, {} log lines, {} panics, {} unmatched\n",
        p.lines,
        count(|k| matches!(k, Kind::Log(_))),
        count(|k| matches!(k, Kind::Panic { .. })),
        count(|k| matches!(k, Kind::Unmatched { .. }))
    );
    if let Some(c) = &p.cut {
        out.push_str(&format!("# cut: {c}\n"));
    }
    out
}

/// `flushscope logs`: the records, the inferred scenario, each version tried
/// and the matched replay (see `flush_core::logs::import`).
fn print_import(
    file: &str,
    text: &str,
    (version, against): (Option<&str>, Option<&AnyScenario>),
    o: &flush_core::logs::conform::Options,
    (scenario_only, json): (bool, bool),
    page: Option<(PageLink, Option<&str>)>,
) -> Result<ExitCode, Failure> {
    let shown = shown_name(file);
    use flush_core::logs::ImportError;
    let imported = match against {
        Some(sc) => flush_core::logs::import_against(text, sc, version, o),
        None => flush_core::logs::import(text, version, o),
    };
    let i = match imported {
        Ok(i) => i,
        Err(ImportError::Unknown(e)) => {
            emit(&records_head(shown, &flush_core::logs::parse(text)))?;
            say(&format!(
                "{shown}: {e} (a flush-2021 log replays against its scenario: flushscope logs FILE --against SCENARIO)"
            ));
            return Ok(ExitCode::from(1));
        }
        Err(ImportError::Version(e)) => return Err(Failure::Input(format!("--version: {e}"))),
        Err(ImportError::NotALog(e)) => return Err(Failure::Input(format!("{shown}: {e}"))),
        Err(e @ ImportError::Bug(_)) => return Err(Failure::Input(format!("{shown}: {e}"))),
    };
    let code = if i.conformance.complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if let (true, Some(inf)) = (scenario_only, &i.inferred) {
        write_out(&inf.file_at(i.version))?;
        return Ok(code);
    }
    let link = page.and_then(|(p, against)| import_link(&p, &i, against));
    if json {
        let mut v = serde_json::to_value(&i).map_err(|e| e.to_string())?;
        if let (Some(l), Some(o)) = (&link, v.as_object_mut()) {
            o.insert("link".into(), l.as_str().into());
        }
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        write_out(&format!("{text}\n"))?;
        return Ok(code);
    }
    let mut out = import_text(shown, &i);
    if let Some(l) = &link {
        out.push_str(&format!("open in the page: {l}\n"));
    }
    emit(&out)?;
    Ok(code)
}

/// A version as the log report names it; `""` is a model without versions.
fn version_words(v: &str) -> &str {
    if v.is_empty() {
        "the scenario's code"
    } else {
        v
    }
}

fn import_text(shown: &str, i: &flush_core::logs::Import) -> String {
    let c = &i.conformance;
    let mut out = records_head(shown, &i.log);
    match &i.inferred {
        Some(inf) => {
            out.push_str("\n# Inferred scenario (sync-2024; `--scenario` prints the file)\n");
            for n in &inf.notes {
                out.push_str(&format!("  {n}\n"));
            }
        }
        None => out.push_str(&format!(
            "\n# Replayed against {} ({})\n",
            i.scenario.header().name,
            i.scenario.header().model
        )),
    }
    if c.wanted == 0 {
        out.push_str("\n# No line of this log is one the model prints: nothing to replay.\n");
        return out;
    }
    out.push_str("\n# Replayed under\n");
    for t in &i.tried {
        out.push_str(&format!(
            "  {}{}: {} of {} modelled lines matched{}\n",
            version_words(t.version),
            flush_core::report::proposed_words(" (", &t.proposed),
            t.matched,
            t.wanted,
            if t.complete { " (every one)" } else { "" }
        ));
        if let Some(u) = &t.unexplained {
            out.push_str(&format!(
                "    line {} is not explained: {}\n      {}\n",
                u.at, u.line, u.why
            ));
        }
    }
    out.push_str(&cut_short_words(i));
    out.push_str(&format!(
        "\n# The log, replayed under {}{} (schedule {}; {} states searched)\n",
        version_words(i.version),
        flush_core::report::proposed_words(" (", &i.scenario.proposed()),
        flush_core::sched::format_schedule(&c.schedule),
        c.states
    ));
    for (n, r) in i.log.records.iter().enumerate() {
        let mark = match c.mark(n, r) {
            flush_core::logs::conform::Mark::Step(s) => format!("step {s:>3}"),
            m => m.words(),
        };
        out.push_str(&format!("{:>6}  {mark:<12}  {}\n", r.at, r.kind.text()));
    }
    if !c.extra.is_empty() {
        out.push_str("\n# Lines the replay prints that the log lacks\n");
        for e in &c.extra {
            out.push_str(&format!("  step {:>3}  {}\n", e.step, e.line));
        }
    }
    if let Some(s) = &c.stopped {
        out.push_str(&format!("\n# {s}\n"));
    }
    let mut run = i.scenario.run(flush_core::Policy::Scripted {
        script: c.schedule.clone(),
        fallback_seed: 1,
    });
    run.run_steps(c.schedule.len() as u32);
    let end = run.outcome().map_or_else(
        || format!("stopped after {} steps", run.len()),
        |o| o.to_string(),
    );
    out.push_str(&format!("\noutcome: {end}\n"));
    out
}

/// Reads a scenario from a file, stdin or the built-ins, refusing oversized input
/// before reading it whole.
fn load(file: &str) -> Result<AnyScenario, String> {
    load_source(file).map(|(sc, _)| sc)
}

/// The scenario and the file it was read from (`None`: a generated built-in).
fn load_source(file: &str) -> Result<(AnyScenario, Option<String>), String> {
    if let Some(name) = file.strip_prefix("builtin:") {
        let text = builtin::text(name).map(str::to_owned);
        return builtin::get(name)
            .map(|sc| (sc, text))
            .ok_or_else(|| builtin::unknown(name));
    }
    let limit = MAX_SCENARIO_BYTES as u64;
    let (source, shown, len) = open_input(file, "a scenario file")?;
    if len > limit {
        return Err(format!(
            "{file}: the file is {:.1} MB; scenario files are limited to {} MB",
            len as f64 / 1e6,
            limit / (1024 * 1024)
        ));
    }
    // At most the limit and one byte more, whatever the metadata says: /dev/zero,
    // a FIFO or a growing file report no length, or a wrong one.
    let mut buf = Vec::new();
    source
        .take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("{shown}: {}", io_words(&e)))?;
    if buf.len() as u64 > limit {
        return Err(format!(
            "{shown}: more than {limit} bytes; scenario files are limited to {} MB",
            limit / (1024 * 1024)
        ));
    }
    let text = String::from_utf8(buf).map_err(|e| {
        // Where, as the other errors say it: line and column (in characters).
        let ok = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let ok = std::str::from_utf8(ok).unwrap_or_default();
        let line = ok.matches('\n').count() + 1;
        let column = ok.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{shown}:{line}:{column}: not UTF-8 text (a scenario file is UTF-8 JSON)")
    })?;
    let sc = AnyScenario::parse(&text, &shown).map_err(|e| e.to_string())?;
    Ok((sc, Some(text)))
}

fn io_words(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        // A directory given as stdin (`- < dir`): named ones are caught before.
        std::io::ErrorKind::IsADirectory => "is a directory, not a file".to_owned(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes: whole units, fractions of a unit, and what is refused.
    #[test]
    fn sizes_read_with_fractions() {
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("1.5G"), Ok(3 << 29));
        assert_eq!(parse_bytes("0.5k"), Ok(512));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert!(parse_bytes("1.5").unwrap_err().contains("not a size"));
        assert!(parse_bytes("1.G").unwrap_err().contains("not a size"));
        assert!(parse_bytes("99999999999.5T")
            .unwrap_err()
            .contains("too large"));
    }

    /// A budget above what the process may use is refused, naming both; one
    /// within it is kept; none given is a quarter of it.
    #[test]
    fn a_budget_above_the_usable_memory_is_refused() {
        let usable = Some(4u64 << 30);
        let why = check_max_memory(Some(5 << 30), usable, None).unwrap_err();
        assert!(
            why.starts_with("--max-memory 5.0 GiB: more than this process may use (~4.0 GiB"),
            "{why}"
        );
        assert!(
            why.contains("(the default is a quarter of it, 1.0 GiB)"),
            "{why}"
        );
        assert_eq!(check_max_memory(Some(4 << 30), usable, None), Ok(4 << 30));
        assert_eq!(check_max_memory(None, usable, None), Ok(1 << 30));
        // Nothing known: the budget given stands.
        assert_eq!(check_max_memory(Some(1 << 50), None, None), Ok(1 << 50));
        assert_eq!(check_max_memory(None, None, None), Ok(2 << 30));
        // `logs` names its own default, 256M, not explore's (found by a
        // review: it said "a quarter of it, 5.9 GiB").
        let why = check_max_memory(Some(5 << 30), usable, Some(256 << 20)).unwrap_err();
        assert!(
            why.contains("(the default is the less of 256 MiB and a quarter of it, 256 MiB)"),
            "{why}"
        );
        assert_eq!(
            check_max_memory(None, usable, Some(256 << 20)),
            Ok(256 << 20)
        );
        assert_eq!(
            check_max_memory(None, Some(512 << 20), Some(256 << 20)),
            Ok(128 << 20)
        );
    }

    /// The default budget reads the limits as Linux writes them.
    #[test]
    fn memory_limits_are_read_as_linux_writes_them() {
        let meminfo = "MemTotal:       24567888 kB\nMemFree:        23000000 kB\n";
        assert_eq!(mem_total(meminfo), Some(24_567_888 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(cgroup_limit("max\n"), None);
        assert_eq!(cgroup_limit("4294967296\n"), Some(4 << 30));
        assert_eq!(cgroup_limit(""), None);
        // A systemd slice on a cgroup v2 host: the scope and every ancestor,
        // then the roots (read whatever the file says).
        let roots = [
            "/sys/fs/cgroup/memory.max",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        ];
        assert_eq!(
            cgroup_files("0::/user.slice/user-1000.slice/session-2.scope\n"),
            [
                "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope/memory.max",
                "/sys/fs/cgroup/user.slice/user-1000.slice/memory.max",
                "/sys/fs/cgroup/user.slice/memory.max",
            ]
            .into_iter()
            .chain(roots)
            .collect::<Vec<_>>()
        );
        // cgroup v1 (or hybrid): the memory controller's hierarchy only.
        let v1 = "5:devices:/x\n4:memory:/process_api/990c\n1:cpu,cpuacct:/\n0::/\n";
        assert_eq!(
            cgroup_files(v1),
            [
                "/sys/fs/cgroup/memory/process_api/990c/memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
            ]
            .into_iter()
            .chain(roots)
            .collect::<Vec<_>>()
        );
        assert_eq!(cgroup_files("4:cpu,memory:/\n"), roots);
        // Outside the namespace, unreadable, or nonsense: the roots alone.
        assert_eq!(cgroup_files("0::/../../etc\nnonsense\n"), roots);
        assert_eq!(cgroup_files(""), roots);
        let limits = |soft: &str| {
            format!(
                "Limit                     Soft Limit           Hard Limit           Units     \n\
                 Max stack size            8388608              unlimited            bytes     \n\
                 Max address space         {soft:<20} unlimited            bytes     \n\
                 Max file locks            unlimited            unlimited            locks     \n"
            )
        };
        assert_eq!(address_space_limit(&limits("unlimited")), None);
        assert_eq!(
            address_space_limit(&limits("8192000000")),
            Some(8_192_000_000)
        );
        assert_eq!(address_space_limit(""), None);
    }
}
