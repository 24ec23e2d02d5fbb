//! `flushscope`: runs FlushScope scenarios headless. See DESIGN.md's CLI contract.
//!
//! Exit codes: 0 when the run executed (whatever the model's outcome), 1 when
//! `explore` found a violation, 2 on bad input.

use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use flush_core::explore::{self, Options, Order, Progress};
use flush_core::scenario::MAX_SCENARIO_BYTES;
use flush_core::{builtin, AnyScenario, Choice, Policy};

#[derive(Parser)]
#[command(
    name = "flushscope",
    version,
    about = "Step through Milvus's datanode flush machinery (flush-2021, sync-2024), headless",
    long_about = "Runs FlushScope scenarios: the 2021 flush manager (orderFlushQueue, flushTaskRunner, injections, drop mode) and the 2024 metacache / SyncSegments race (#34018). Every step names the Go function it models.\n\nFILE is a scenario file (JSON), `-` for standard input, or `builtin:NAME` for a built-in scenario (see `flushscope list`).\n\nExit codes: 0 the run executed (whatever the model's outcome: completed, panic, deadlock, invariant, step_limit); 1 `explore` found a violation; 2 bad input."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
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
        /// Milvus version, for a model with several (sync-2024: ca7ef26e4b, b5c9a7364b,
        /// c65f41dc60, 4cf1a358ba, 2e434e4453, 439fb24b32).
        #[arg(long)]
        version: Option<String>,
        /// Replay a schedule: goroutine numbers, e.g. `0,0,1,3,3,2` (`5.1` = select case 1).
        /// When it runs out or names a goroutine that cannot run, the seeded scheduler takes over.
        #[arg(long, conflicts_with = "scripted")]
        schedule: Option<String>,
        /// Replay the schedule embedded in the scenario file.
        #[arg(long)]
        scripted: bool,
        /// Stop after this many steps (default: the scenario's max_steps).
        #[arg(long)]
        max_steps: Option<u32>,
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
    /// Progress goes to stderr on a terminal.
    Explore {
        /// Scenario file, `-` for stdin, or `builtin:NAME`.
        file: String,
        /// Milvus version, for a model with several.
        #[arg(long)]
        version: Option<String>,
        /// Longest schedule to explore (deeper paths are cut and the search reported incomplete).
        #[arg(long, default_value_t = 200)]
        max_steps: u32,
        /// Stop after this many distinct states.
        #[arg(long, default_value_t = 50_000_000)]
        max_states: u64,
        /// Memory the search may hold, e.g. `512M`, `4G` (default: a quarter of the machine's memory).
        #[arg(long, value_parser = parse_bytes)]
        max_memory: Option<u64>,
        /// Go on after the first violation, to every distinct one.
        #[arg(long)]
        all: bool,
        /// Search order: `bfs` (shortest schedules) or `dfs` (least memory).
        /// Default: bfs, or dfs with `--all`.
        #[arg(long, value_parser = ["bfs", "dfs"])]
        order: Option<String>,
        /// Keep depth-first schedules as found (do not shrink them).
        #[arg(long)]
        no_shrink: bool,
        #[arg(long)]
        json: bool,
        /// Instead of violations, list every distinct observable outcome (flush-2021:
        /// the packs SaveBinlogPaths received in order, the packs of flushAndDrop, and
        /// how the run ended), each with the number of end states reaching it.
        #[arg(long)]
        outcomes: bool,
    },
    /// List the built-in scenarios.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("flushscope: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.cmd {
        Cmd::List => {
            for name in builtin::names() {
                let sc = builtin::get(name).expect("built-in");
                let h = sc.header();
                println!("{name:<26} {:<10} {}", h.model, h.title);
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Run {
            file,
            seed,
            version,
            schedule,
            scripted,
            max_steps,
            json,
            logs,
        } => {
            let mut sc = load(&file)?;
            apply_version(&mut sc, version.as_deref())?;
            if let Some(m) = max_steps {
                if m == 0 {
                    return Err("--max-steps must be at least 1".into());
                }
                sc.header_mut().max_steps = m;
            }
            let seed = seed.unwrap_or(sc.header().seed);
            let policy = policy(&sc, &file, seed, schedule, scripted)?;
            let mut r = sc.run(policy);
            r.run_to_end();
            if json {
                println!("{}", r.report_json(true));
            } else {
                print!("{}", r.text(logs));
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Explore {
            file,
            version,
            max_steps,
            max_states,
            max_memory,
            all,
            order,
            no_shrink,
            json,
            outcomes,
        } => {
            let mut sc = load(&file)?;
            apply_version(&mut sc, version.as_deref())?;
            if outcomes {
                return print_outcomes(&sc, max_states, json);
            }
            let order = match order.as_deref() {
                Some("bfs") => Order::Bfs,
                Some("dfs") => Order::Dfs,
                _ if all => Order::Dfs,
                _ => Order::Bfs,
            };
            let o = Options {
                max_steps,
                max_states,
                max_bytes: max_memory.unwrap_or_else(default_max_memory),
                order,
                all,
                shrink: !no_shrink,
            };
            o.check()?;
            explore(&sc, &o, json)
        }
    }
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

fn explore(sc: &AnyScenario, o: &Options, json: bool) -> Result<ExitCode, String> {
    use std::io::{IsTerminal, Write};
    let started = std::time::Instant::now();
    let tty = std::io::stderr().is_terminal();
    let mut shown = false;
    let mut last = started;
    let mut progress = |p: &Progress| {
        if tty && last.elapsed().as_millis() >= 200 {
            last = std::time::Instant::now();
            let secs = started.elapsed().as_secs_f64();
            eprint!(
                "\r{} states, {:.0} states/s, depth {}, {} held, {:.1} s  ",
                p.states,
                p.states as f64 / secs.max(1e-9),
                p.depth,
                explore::bytes_words(p.bytes),
                secs
            );
            let _ = std::io::stderr().flush();
            shown = true;
        }
        true
    };
    let mut report = sc.explore_with(o, &mut progress);
    if shown {
        eprint!("\r\x1b[K");
    }
    report.time_ms = Some(started.elapsed().as_millis() as u64);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", report.text());
    }
    Ok(if report.violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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
    let n: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("\"{s}\" is not a size such as 512M or 4G"))?;
    n.checked_mul(mul)
        .ok_or_else(|| format!("\"{s}\" is too large"))
}

/// A quarter of the machine's memory (Linux's /proc/meminfo), else 2 GiB.
fn default_max_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(2 << 30, |kb| kb * 1024 / 4)
}

fn print_outcomes(sc: &AnyScenario, max_states: u64, json: bool) -> Result<ExitCode, String> {
    let name = &sc.header().name;
    let Some(set) = sc.outcomes(max_states) else {
        return Err(format!(
            "{name}: more than {max_states} states; raise --max-states"
        ));
    };
    if json {
        let v = serde_json::json!({ "scenario": name, "outcomes": set });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        println!("# {name}: {} distinct outcome(s)", set.len());
        for o in &set {
            println!(
                "{}\n  {} end state(s); a shortest schedule ({} steps): {}",
                o.outcome, o.ends, o.steps, o.schedule
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn apply_version(sc: &mut AnyScenario, version: Option<&str>) -> Result<(), String> {
    match version {
        Some(v) => sc.set_version(v).map_err(|e| format!("--version: {e}")),
        None => Ok(()),
    }
}

/// Reads a scenario from a file, stdin or the built-ins, refusing oversized input
/// before reading it whole.
fn load(file: &str) -> Result<AnyScenario, String> {
    if let Some(name) = file.strip_prefix("builtin:") {
        return builtin::get(name).ok_or_else(|| {
            format!(
                "no built-in scenario \"{name}\"; known: {}",
                builtin::names().join(", ")
            )
        });
    }
    let limit = MAX_SCENARIO_BYTES as u64;
    let (text, shown) = if file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .take(limit + 1)
            .read_to_end(&mut buf)
            .map_err(|e| format!("<stdin>: {e}"))?;
        if buf.len() as u64 > limit {
            return Err(format!(
                "<stdin>: more than {limit} bytes; scenario files are limited to {limit} bytes"
            ));
        }
        (
            String::from_utf8(buf).map_err(|e| format!("<stdin>: not UTF-8 text ({e})"))?,
            "<stdin>".to_owned(),
        )
    } else {
        let path = Path::new(file);
        let meta = std::fs::metadata(path).map_err(|e| format!("{file}: {}", io_words(&e)))?;
        if meta.is_dir() {
            return Err(format!("{file}: is a directory, not a scenario file"));
        }
        if meta.len() > limit {
            return Err(format!(
                "{file}: the file is {:.1} MB; scenario files are limited to {} MB",
                meta.len() as f64 / 1e6,
                limit / (1024 * 1024)
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{file}: {}", io_words(&e)))?;
        (
            String::from_utf8(bytes).map_err(|e| format!("{file}: not UTF-8 text ({e})"))?,
            file.to_owned(),
        )
    };
    AnyScenario::parse(&text, &shown).map_err(|e| e.to_string())
}

fn io_words(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}
