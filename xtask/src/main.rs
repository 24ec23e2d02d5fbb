//! `cargo xtask serve | test | bench | size` (see README.md).
//!
//! Each command first installs what is missing, and only that: the wasm32 target,
//! trunk 0.21.14, wasm-bindgen-cli at the version of Cargo.lock, the npm packages of
//! e2e/ (binaryen's wasm-opt, playwright-core) and, for the browser tests, Debian's
//! Chromium. Nothing downloads a browser or a binary of its own (see TOOLCHAIN notes
//! in README.md).

use std::io::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const TRUNK_VERSION: &str = "0.21.14";
/// The budget: 250 KB (decimal, as its ~91 KB for an empty Yew + plotters page).
const WASM_GOAL_GZIP: u64 = 250_000;

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("test") => test(),
        Some("bench") => bench(),
        Some("size") => size(),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n  serve [--port N]  install what is missing, build, serve the visualizer on http://127.0.0.1:8080\n  test              every test: core, CLI, browser (headless Chromium), with figures\n  bench             criterion benchmarks of the engine (steps/s, jump time)\n  size              build the release bundle and print its sizes against the budget"
            );
            return ExitCode::from(2);
        }
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

fn say(s: &str) {
    println!("\n=== {s}");
}

/// PATH with npm's binaryen first (Debian's wasm-opt is too old) and cargo's bin dir.
fn tool_path() -> String {
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo")
        });
    let npm_bin = root().join("e2e/node_modules/.bin");
    format!(
        "{}:{}:{}",
        npm_bin.display(),
        home.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn cmd(program: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root())
        .env("PATH", tool_path())
        // trunk 0.21 accepts only "true"/"false" for its boolean variables.
        .env("TRUNK_SKIP_VERSION_CHECK", "true")
        .env_remove("NO_COLOR");
    c
}

fn run(c: &mut Command) -> Result {
    let shown = format!("{c:?}");
    let status = c
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn output_of(c: &mut Command) -> Option<String> {
    let o = c.stderr(Stdio::null()).output().ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

fn wasm_bindgen_version() -> Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_owned());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen".into())
}

/// The wasm target, trunk, wasm-bindgen-cli and the npm packages, when missing.
fn ensure_web_tools() -> Result {
    let targets =
        output_of(cmd("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !targets.lines().any(|t| t == "wasm32-unknown-unknown") {
        say("installing the wasm32-unknown-unknown target");
        run(cmd("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    if output_of(cmd("trunk").arg("--version")).as_deref()
        != Some(&format!("trunk {TRUNK_VERSION}"))
    {
        say(&format!("installing trunk {TRUNK_VERSION} (about 10 minutes on 2 cores; 0.22 needs a newer rustc)"));
        run(cmd(&cargo()).args(["install", "trunk", "--version", TRUNK_VERSION, "--locked"]))?;
    }
    let wbg = wasm_bindgen_version()?;
    if output_of(cmd("wasm-bindgen").arg("--version")).as_deref()
        != Some(&format!("wasm-bindgen {wbg}"))
    {
        say(&format!("installing wasm-bindgen-cli {wbg} (about 3 minutes; not --locked: its lockfile pins a crate the registry lacks)"));
        run(cmd(&cargo()).args(["install", "wasm-bindgen-cli", "--version", &wbg]))?;
    }
    let opt = root().join("e2e/node_modules/.bin/wasm-opt");
    let pw = root().join("e2e/node_modules/playwright-core/package.json");
    let axe = root().join("e2e/node_modules/axe-core/axe.min.js");
    if !opt.exists() || !pw.exists() || !axe.exists() {
        say("installing e2e/ npm packages (binaryen for wasm-opt, playwright-core, axe-core; no browser download)");
        run(cmd("npm")
            .current_dir(root().join("e2e"))
            .args(["ci", "--no-audit", "--no-fund"]))?;
    }
    Ok(())
}

fn chromium() -> Option<PathBuf> {
    let p = std::env::var("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("/usr/bin/chromium"));
    p.exists().then_some(p)
}

fn ensure_chromium() -> Result<PathBuf> {
    if let Some(p) = chromium() {
        return Ok(p);
    }
    let root_user = output_of(Command::new("id").arg("-u")).as_deref() == Some("0");
    if root_user && Path::new("/usr/bin/apt-get").exists() {
        say("installing Debian's chromium and chromium-driver");
        run(Command::new("apt-get").args(["update", "-q"]))?;
        run(Command::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "-q", "chromium", "chromium-driver"]))?;
    }
    chromium().ok_or_else(|| {
        "Chromium is missing: install Debian's chromium (apt-get install chromium chromium-driver) or set CHROMIUM=/path/to/chromium".into()
    })
}

fn trunk_build() -> Result {
    say("trunk build --release");
    run(cmd("trunk").args(["build", "--release"]))
}

fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Serves dist/ (python3's http.server sends .wasm as application/wasm).
struct Server(Child);

impl Server {
    fn start(port: u16) -> Result<Server> {
        let child = Command::new("python3")
            .args([
                "-m",
                "http.server",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--directory",
            ])
            .arg(root().join("dist"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start python3 -m http.server: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err("the static server did not start".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(Server(child))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(args: &[String]) -> Result {
    let port = match args {
        [] => 8080,
        [flag, p] if flag == "--port" => p
            .parse()
            .map_err(|_| format!("--port: \"{p}\" is not a port number"))?,
        _ => return Err("usage: cargo xtask serve [--port N]".into()),
    };
    ensure_web_tools()?;
    say(&format!(
        "serving on http://127.0.0.1:{port}/ (opens on the #34018 scenario; Ctrl-C stops)"
    ));
    run(cmd("trunk").args(["serve", "--release", "--port", &port.to_string()]))
}

fn test() -> Result {
    let started = Instant::now();
    say("core and CLI tests (cargo test)");
    run(cmd(&cargo()).args([
        "test",
        "--locked",
        "-p",
        "flush-core",
        "-p",
        "flush-cli",
        "-p",
        "flush-web",
        "-p",
        "flush-worker",
        "-p",
        "flush-bench-wasm",
        "-p",
        "flush-alloc",
        "-p",
        "xtask",
    ]))?;
    ensure_web_tools()?;
    let chrome = ensure_chromium()?;
    run(cmd(&cargo()).args(["build", "--locked", "-p", "flush-cli"]))?;
    trunk_build()?;
    size_report()?;
    let port = free_port()?;
    let _server = Server::start(port)?;
    say("browser tests (playwright-core driving headless Chromium)");
    // TAP as it goes, and the spec reporter's summary of each failure (its
    // error and line) printed again at the end, where a CI log's tail shows
    // it (a failure told only by its name was seen in CI).
    let summary = root().join("test-output/e2e-failures.txt");
    let _ = std::fs::create_dir_all(root().join("test-output"));
    let e2e = run(cmd("node")
        .current_dir(root().join("e2e"))
        .args([
            "--test",
            "--test-reporter=tap",
            "--test-reporter-destination=stdout",
        ])
        .args(["--test-reporter=spec", "--test-reporter-destination"])
        .arg(&summary)
        .arg("app.test.mjs")
        .env("APP_URL", format!("http://127.0.0.1:{port}/"))
        .env("CHROMIUM", chrome)
        .env("FLUSHSCOPE_BIN", root().join("target/debug/flushscope")));
    if e2e.is_err() {
        let spec = std::fs::read_to_string(&summary).unwrap_or_default();
        if let Some(at) = spec.find("failing tests:") {
            eprintln!(
                "xtask: the browser tests that failed, and why:\n{}",
                &spec[at..]
            );
        }
    }
    e2e?;
    say(&format!(
        "all tests passed in {:.0} s; screenshots in test-output/screenshots/, figures in test-output/figures.json",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

fn bench() -> Result {
    say("criterion benchmarks (goals: >= 5 M steps/s on pairs-1000, jump < 1 ms)");
    run(cmd(&cargo()).args(["bench", "--locked", "-p", "flush-core", "--bench", "engine"]))?;
    wasm_bench()
}

/// The explorer's search in wasm, as the worker runs it (its profile and
/// allocator), timed in node: the worker's rate without a browser's noise or
/// the worker's start (goal: >= 0.6 M states/s).
fn wasm_bench() -> Result {
    say("explorer in wasm (profile.worker), timed in node (goal: >= 0.6 M states/s)");
    ensure_web_tools()?;
    run(cmd(&cargo()).args([
        "build",
        "--locked",
        "--profile",
        "worker",
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        "flush-bench-wasm",
    ]))?;
    let wasm = root().join("target/wasm32-unknown-unknown/worker/flush_bench_wasm.wasm");
    run(cmd("node")
        .arg(root().join("xtask/wasm-bench.mjs"))
        .arg(&wasm)
        .arg("300000"))
}

fn size() -> Result {
    ensure_web_tools()?;
    trunk_build()?;
    size_report()
}

fn gzip_len(bytes: &[u8]) -> u64 {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).expect("gzip into memory");
    e.finish().expect("gzip into memory").len() as u64
}

fn size_report() -> Result {
    say("bundle size (dist/)");
    let mut total = (0u64, 0u64);
    let (mut wasm_gz, mut worker_gz) = (0, 0);
    let mut rows: Vec<(String, u64, u64)> = Vec::new();
    for e in std::fs::read_dir(root().join("dist")).map_err(|e| format!("dist/: {e}"))? {
        let p = e.map_err(|e| e.to_string())?.path();
        let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let gz = gzip_len(&bytes);
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // The budget is the page's module; the explorer's worker loads its own
        // (flush-worker_bg.wasm) only when a search may start.
        if name.ends_with(".wasm") {
            if name.starts_with("flush-worker") {
                worker_gz = gz;
            } else {
                wasm_gz = gz;
            }
        }
        total = (total.0 + bytes.len() as u64, total.1 + gz);
        rows.push((name, bytes.len() as u64, gz));
    }
    rows.sort();
    for (name, raw, gz) in &rows {
        println!("{name:<45} {raw:>9} B raw {gz:>9} B gzip -9");
    }
    println!(
        "{:<45} {:>9} B raw {:>9} B gzip -9",
        "total", total.0, total.1
    );
    println!(
        "wasm gzipped: {wasm_gz} B = {:.1} KB (budget {} KB: {})",
        wasm_gz as f64 / 1000.0,
        WASM_GOAL_GZIP / 1000,
        if wasm_gz <= WASM_GOAL_GZIP {
            "within"
        } else {
            "OVER"
        }
    );
    println!(
        "worker wasm gzipped: {worker_gz} B = {:.1} KB (the explorer and the log import; loaded when one may start)",
        worker_gz as f64 / 1000.0
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_wasm_bindgen_version_of_the_lockfile() {
        let v = super::wasm_bindgen_version().unwrap();
        assert!(v.starts_with("0.2."), "{v}");
    }

    /// Tidy: the tree is rustfmt-clean (run `cargo fmt --all` to fix).
    #[test]
    fn formatting_is_tidy() {
        let out = std::process::Command::new(super::cargo())
            .current_dir(super::root())
            .args(["fmt", "--all", "--", "--check"])
            .output()
            .expect("cargo fmt runs");
        assert!(
            out.status.success(),
            "cargo fmt --check:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }

    #[test]
    fn gzip_shrinks_repetition() {
        assert!(super::gzip_len(&[b'a'; 10_000]) < 100);
    }
}
