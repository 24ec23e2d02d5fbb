//! Milvus logs read into records (issue 12, first part): zap's text format,
//! `[2024/06/19 10:09:59.079 +00:00] [INFO] [metacache/meta_cache.go:299]
//! ["remove dropped segment"] [segmentID=300] [segments="[1,2]"]`, the lines the
//! models print (the same without the time), Go panics with their goroutine dumps,
//! each alone or after a container's prefix (`prefix`: `docker compose logs`,
//! CRI log files, whose partial records are joined), and everything else kept
//! as unmatched text. Sans-IO and bounded: at most
//! [`MAX_LOG_BYTES`] are read, [`MAX_RECORDS`] records made, and each line is
//! scanned once, so 50 MB of log takes time and memory in proportion.

use serde::Serialize;

/// Bytes of log read; the rest is left, and [`Parsed::cut`] says so.
pub const MAX_LOG_BYTES: usize = 64 << 20;
/// Records made; past it the parse stops, and [`Parsed::cut`] says so.
pub const MAX_RECORDS: usize = 1_000_000;
/// Characters kept of one line's text (a longer line is cut and marked).
pub const MAX_LINE_CHARS: usize = 16 * 1024;
/// Bracketed groups read of one line (time, level, caller, message and fields);
/// the rest of a longer line is skipped and the line marked cut.
pub const MAX_GROUPS: usize = 64;

/// One zap log line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogLine {
    /// `2024/06/19 10:09:59.079 +00:00`, when the line has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// `INFO`, `WARN`, ...
    pub level: String,
    /// The caller: `metacache/meta_cache.go`.
    pub file: String,
    /// The caller's line, when the caller has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
    /// `key=value` fields in order, quoted values unquoted.
    pub fields: Vec<(String, String)>,
    /// The line was cut: it ended before its last bracket closed (a cut log),
    /// or its bracketed parts were longer than `MAX_LINE_CHARS` characters in
    /// all (each keeps its first `MIN_GROUP_CHARS`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Where the log ends inside the line: `message`, or the name of the field
    /// (dropped when its value is no list, else kept without its last entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_in: Option<String>,
}

impl LogLine {
    /// A field's value.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.0 == key)
            .map(|f| f.1.as_str())
    }
}

/// What a line (or a run of lines) of the input is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    Log(LogLine),
    /// `panic: MESSAGE [recovered]`, with the goroutine dump lines after it.
    Panic {
        message: String,
        recovered: bool,
        dump_lines: u32,
    },
    /// Not a log line FlushScope reads: kept, with why.
    Unmatched {
        text: String,
        why: &'static str,
    },
}

impl Kind {
    /// The record in one line, as `flushscope logs` prints it.
    pub fn text(&self) -> String {
        // Control and bidi characters are shown as escapes: a field may hold a
        // stack trace (its newlines stay escapes, one record a line), and a log
        // is untrusted text.
        let esc = |v: &str| crate::scenario::json::escape_unsafe(v, false).into_owned();
        match self {
            Kind::Log(l) => {
                let fields: Vec<_> = l
                    .fields
                    .iter()
                    .map(|(k, v)| format!("{}={}", esc(k), esc(v)))
                    .collect();
                format!(
                    "{:<5} {}:{} \"{}\" {}{}",
                    esc(&l.level),
                    esc(&l.file),
                    l.line.map_or("?".to_owned(), |n| n.to_string()),
                    esc(&l.message),
                    fields.join(" "),
                    if l.truncated { " (cut short)" } else { "" }
                )
            }
            Kind::Panic {
                message,
                recovered,
                dump_lines,
            } => format!(
                "panic: {}{} ({dump_lines} lines of goroutine dump)",
                esc(message),
                if *recovered { " [recovered]" } else { "" }
            ),
            Kind::Unmatched { text, why } => format!("?     {}  ({why})", esc(text)),
        }
    }
}

/// A record and the input line it starts at (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    pub at: u32,
    #[serde(flatten)]
    pub kind: Kind,
}

/// The `why` of the record a CRI line's first partial part holds until its
/// last part comes ([`Reader::line`]); one still so at the end is dropped.
const PLACEHOLDER: &str = "";

impl Record {
    fn is_placeholder(&self) -> bool {
        matches!(self.kind, Kind::Unmatched { why, .. } if why == PLACEHOLDER)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Parsed {
    pub records: Vec<Record>,
    /// Input lines read.
    pub lines: u32,
    /// What a budget left unread, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
}

/// Reads a log. Never fails: what it cannot read is kept as unmatched.
pub fn parse(text: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() > MAX_LOG_BYTES {
        let mut end = MAX_LOG_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        out.cut = Some(format!(
            "the log is longer than {} MB; the first {} MB were read",
            MAX_LOG_BYTES >> 20,
            MAX_LOG_BYTES >> 20
        ));
        text = &text[..end];
    }
    let mut reader = Reader::default();
    for (i, line) in text.lines().enumerate() {
        out.lines = i as u32 + 1;
        if !reader.line(&mut out, i as u32 + 1, line) {
            out.cut = Some(format!(
                "more than {MAX_RECORDS} records; the log was read to line {i}"
            ));
            // Line i + 1 was not read.
            out.lines = i as u32;
            break;
        }
    }
    reader.finish(&mut out);
    out
}

/// What [`parse`] carries from one line to the next.
#[derive(Default)]
struct Reader {
    /// The panic whose goroutine dump is being read (its record's index).
    dump: Option<usize>,
    /// Per CRI stream (stdout, stderr), a line read so far from its partial
    /// (`P`) records: its record's index (kept in the log's order, at its
    /// first part's line) and its text.
    partial: [Option<(usize, String)>; 2],
}

impl Reader {
    /// Reads input line `at`; `false` when it would make a record past
    /// [`MAX_RECORDS`] (it is not read).
    fn line(&mut self, out: &mut Parsed, at: u32, raw: &str) -> bool {
        let (line, slot): (std::borrow::Cow<str>, _) = match prefix::content(raw) {
            prefix::Content::Text(t) => (t.into(), None),
            prefix::Content::Cri(c) => match self.partial[c.stream].take() {
                Some((slot, mut text)) => {
                    text.push_str(c.content);
                    if c.partial {
                        self.partial[c.stream] = Some((slot, text));
                        return true;
                    }
                    (text.into(), Some(slot))
                }
                None if c.partial => {
                    if out.records.len() >= MAX_RECORDS {
                        return false;
                    }
                    // Its kind is read when its last part comes (or the log ends).
                    self.partial[c.stream] = Some((out.records.len(), c.content.to_owned()));
                    out.records.push(Record {
                        at,
                        kind: Kind::Unmatched {
                            text: String::new(),
                            why: PLACEHOLDER,
                        },
                    });
                    return true;
                }
                None => (prefix::zap_start(c.content).into(), None),
            },
        };
        if let Some(slot) = slot {
            // A joined line fills the record its first part made, read as any
            // line is (a blank one or a goroutine dump's stays a placeholder,
            // dropped at the end).
            if let Some(kind) = self.read(out, prefix::zap_start(&line)) {
                self.took(&kind, slot);
                out.records[slot].kind = kind;
            }
            return true;
        }
        let Some(kind) = self.read(out, &line) else {
            return true;
        };
        if out.records.len() >= MAX_RECORDS {
            return false;
        }
        self.took(&kind, out.records.len());
        out.records.push(Record { at, kind });
        true
    }

    /// What `line` is, or `None` when it adds no record: a blank line, or a
    /// line of the goroutine dump being read (counted on its panic).
    fn read(&self, out: &mut Parsed, line: &str) -> Option<Kind> {
        if line.trim().is_empty() {
            return None;
        }
        if let Some(p) = self.dump.filter(|_| is_dump_line(line)) {
            if let Kind::Panic { dump_lines, .. } = &mut out.records[p].kind {
                *dump_lines += 1;
            }
            return None;
        }
        Some(read_line(line))
    }

    /// Whether a dump is read on after record `index`, of `kind`.
    fn took(&mut self, kind: &Kind, index: usize) {
        match kind {
            Kind::Panic { .. } => self.dump = Some(index),
            // Other goroutines log on while the runtime writes the dump (the
            // real #34018 log has a zap line inside it): the dump goes on.
            Kind::Log(_) => {}
            Kind::Unmatched { .. } => self.dump = None,
        }
    }

    /// The CRI lines the log ends inside, read as far as they go.
    fn finish(mut self, out: &mut Parsed) {
        for (slot, text) in std::mem::take(&mut self.partial).into_iter().flatten() {
            if let Some(kind) = self.read(out, prefix::zap_start(&text)) {
                out.records[slot].kind = kind;
            }
        }
        // The records of joined lines that were blank or a dump's.
        out.records.retain(|r| !r.is_placeholder());
    }
}

/// A line of a Go goroutine dump: `goroutine 7 [running]:`, a function, a
/// tab-indented file:line, `created by`, `[recovered]` repeats.
fn is_dump_line(line: &str) -> bool {
    line.starts_with("goroutine ")
        || line.starts_with('\t')
        || line.starts_with("created by ")
        || line.starts_with("panic(")
        || (!line.starts_with('[') && line.contains('(') && line.ends_with(')'))
        || line.starts_with("exit status")
}

fn short_text(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}

fn read_line(line: &str) -> Kind {
    if let Some(rest) = line.strip_prefix("panic: ") {
        let (message, recovered) = match rest.strip_suffix(" [recovered]") {
            Some(m) => (m, true),
            None => (rest, false),
        };
        return Kind::Panic {
            message: short_text(message),
            recovered,
            dump_lines: 0,
        };
    }
    if !line.starts_with('[') {
        return Kind::Unmatched {
            text: short_text(line),
            why: "not a Milvus log line (they start with [, alone or after a docker compose or CRI prefix)",
        };
    }
    match log_line(line) {
        Some(l) => Kind::Log(l),
        None => Kind::Unmatched {
            text: short_text(line),
            why: "a bracketed line without a level and a caller (file:line)",
        },
    }
}

/// Characters each group keeps even when the line's [`MAX_LINE_CHARS`] are
/// spent: a long field must not starve the short ones after it (a segment ID).
const MIN_GROUP_CHARS: usize = 256;

/// The bracketed groups of a line, each unquoted when it is one quoted string;
/// `false` when a group was cut (the last one unclosed, or the groups longer
/// than `MAX_LINE_CHARS` characters in all, each group keeping its first
/// `MIN_GROUP_CHARS` whatever the others took: a line's record stays under
/// `MAX_LINE_CHARS + MAX_GROUPS * MIN_GROUP_CHARS` characters however many
/// groups share it). A list cut short loses its last, partial, entry. Text
/// between groups is skipped. Third: where the line ends inside a group, that
/// group's place among them (kept or not) and its text up to `=`.
fn groups(line: &str) -> (Vec<String>, bool, Option<(usize, String)>) {
    let mut out = Vec::new();
    let mut cut = false;
    // Characters the line's groups may still keep beyond their own minimum.
    let mut room = MAX_LINE_CHARS;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '[' {
            continue;
        }
        let mut g = String::new();
        let mut quoted = false;
        let mut closed = false;
        let mut this_cut = false;
        let mut kept = 0;
        let mut keep = |g: &mut String, c: char, cut: &mut bool| {
            if kept < MIN_GROUP_CHARS || room > 0 {
                kept += 1;
                room = room.saturating_sub(1);
                g.push(c);
            } else {
                *cut = true;
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '"' => quoted = !quoted,
                '\\' if quoted => {
                    keep(&mut g, c, &mut this_cut);
                    if let Some(n) = chars.next() {
                        keep(&mut g, n, &mut this_cut);
                    }
                    continue;
                }
                ']' if !quoted => {
                    closed = true;
                    break;
                }
                _ => {}
            }
            keep(&mut g, c, &mut this_cut);
        }
        // A group the line ends inside (a log cut off mid-line) is cut short
        // too: its list's last entry may be partial (a helper found a log
        // that ended in `segments="[A,B,4505` read 4505 as a segment, and A
        // not at all, its opening quote kept).
        if this_cut || !closed {
            cut = true;
            drop_partial_entry(&mut g);
            // A quoted value cut short keeps its closing quote (it is unquoted then).
            if quoted_at_start(&g) && !g.ends_with('"') {
                g.push('"');
            }
        }
        // A field the line ends inside whose value is no list is dropped: an
        // ID there may be partial (`segmentID=45057`), and would name a
        // segment that is not in the log.
        let partial_scalar = !closed
            && g.split_once('=')
                .is_some_and(|(_, v)| !v.trim_start_matches('"').starts_with('['));
        let inside = (!closed).then(|| (out.len(), g.split('=').next().unwrap_or("").to_owned()));
        if !partial_scalar {
            out.push(g);
        }
        if !closed || out.len() == MAX_GROUPS {
            return (
                out,
                closed && !cut && chars.all(char::is_whitespace),
                inside,
            );
        }
    }
    (out, !cut, None)
}

/// A list value cut short (`segments="[1,2,45`) without its partial last entry,
/// closed: `segments="[1,2]`; a cut `45` would read as another segment.
fn drop_partial_entry(g: &mut String) {
    let value = g.split_once('=').map_or(g.as_str(), |(_, v)| v);
    let Some(list) = value.trim_start_matches('"').strip_prefix('[') else {
        return;
    };
    if list.contains(']') {
        return;
    }
    let open = g.len() - list.len();
    let end = g[open..].rfind(',').map_or(open, |i| open + i);
    g.truncate(end);
    g.push(']');
}

/// A group that is one quoted value, or a `key="value"` field.
fn quoted_at_start(g: &str) -> bool {
    g.starts_with('"') || g.split_once('=').is_some_and(|(_, v)| v.starts_with('"'))
}

/// `"a \"b\""` → `a "b"`; a bare word stays as it is.
fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return s.to_owned();
    };
    let mut out = String::with_capacity(inner.len());
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

const LEVELS: [&str; 7] = ["DEBUG", "INFO", "WARN", "ERROR", "DPANIC", "PANIC", "FATAL"];

fn log_line(line: &str) -> Option<LogLine> {
    let (gs, closed, inside) = groups(line);
    let mut it = gs.into_iter().peekable();
    let time = match it.peek() {
        Some(g) if !LEVELS.contains(&g.as_str()) => it.next(),
        _ => None,
    };
    // The message is the group after the level and the caller.
    let message_at = usize::from(time.is_some()) + 2;
    let cut_in = inside.map(|(at, key)| match at <= message_at {
        true => "message".to_owned(),
        false => key,
    });
    let level = it.next().filter(|l| LEVELS.contains(&l.as_str()))?;
    let caller = it.next()?;
    let (file, num) = match caller.rsplit_once(':') {
        Some((f, n)) => match n.parse::<u32>() {
            Ok(n) => (f.to_owned(), Some(n)),
            Err(_) => (caller.clone(), None),
        },
        None => (caller.clone(), None),
    };
    if file.is_empty() || file.contains(' ') {
        return None;
    }
    let message = it.next().map(|m| unquote(&m)).unwrap_or_default();
    let fields = it
        .map(|g| match g.split_once('=') {
            Some((k, v)) => (k.to_owned(), unquote(v)),
            None => (String::new(), unquote(&g)),
        })
        .collect();
    Some(LogLine {
        time,
        level,
        file,
        line: num,
        message,
        fields,
        truncated: !closed,
        cut_in,
    })
}

pub mod conform;
mod prefix;

/// A scenario inferred from a log and how it was inferred.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Inferred {
    /// The scenario file (JSON), for the scenario parser, the editor and downloads.
    pub json: String,
    /// The versions (short commits) whose file:line numbers fit the log, oldest first.
    pub versions: Vec<&'static str>,
    /// What was inferred from which line, in words.
    pub notes: Vec<String>,
    /// Segments the log names that the scenario leaves out (the model holds
    /// a bounded number): a line about one cannot be explained.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<i64>,
}

impl Inferred {
    /// The scenario file, set to `version` (one of [`Inferred::versions`]).
    pub fn file_at(&self, version: &str) -> String {
        match self.versions.first() {
            Some(first) if *first != version => self.json.replacen(
                &format!("\"version\": \"{first}\""),
                &format!("\"version\": \"{version}\""),
                1,
            ),
            _ => self.json.clone(),
        }
    }
}

/// One version the log was replayed under.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tried {
    pub version: &'static str,
    /// The knobs the scenario sets apart from this version
    /// ([`crate::Model::proposed`]): the replay is of a proposal, not of it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<&'static str>,
    pub complete: bool,
    /// Records explained in order, of those the model prints.
    pub matched: usize,
    pub wanted: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexplained: Option<conform::Unexplained>,
}

/// A log imported: its records, the scenario inferred from them, and the
/// schedule that replays them under the chosen version.
#[derive(Clone, Debug, Serialize)]
pub struct Import {
    pub log: Parsed,
    /// The scenario inferred from the log; `None` when it was replayed against a
    /// given one ([`import_against`]).
    pub inferred: Option<Inferred>,
    /// Every candidate version (or the one asked for), in order.
    pub tried: Vec<Tried>,
    /// The version shown: the one asked for, else the first that explains the
    /// whole log, else the one that explains most; `""` for a model without
    /// versions (flush-2021 runs 891c202b73 only).
    pub version: &'static str,
    pub conformance: conform::Conformance,
    #[serde(skip)]
    pub scenario: crate::models::AnyScenario,
}

/// Why a log could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportError {
    /// The log has no line the model knows (the words say which lines it reads).
    Unknown(String),
    /// Not one line is a log line or a Go panic the reader reads (a scenario
    /// file given by mistake, a JSON-format log): bad input, not a log.
    NotALog(String),
    /// The version asked for is not one of the model's.
    Version(String),
    /// The inferred scenario failed its own check: a FlushScope bug.
    Bug(String),
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportError::Unknown(s) | ImportError::NotALog(s) | ImportError::Version(s) => {
                f.write_str(s)
            }
            ImportError::Bug(s) => {
                write!(f, "{s} (a FlushScope bug; please report it with the log)")
            }
        }
    }
}

/// Reads `text`, infers a scenario and searches for the schedule that prints the
/// log under each version the log's line numbers allow (or `version` alone).
pub fn import(
    text: &str,
    version: Option<&str>,
    o: &conform::Options,
) -> Result<Import, ImportError> {
    Importing::new(text, version)?.finish(o)
}

/// Reads `text` and searches `sc` (any model, as given) for the schedule that
/// prints it, under `version`, else under each version the model has.
pub fn import_against(
    text: &str,
    sc: &crate::models::AnyScenario,
    version: Option<&str>,
    o: &conform::Options,
) -> Result<Import, ImportError> {
    Importing::against(text, sc, version)?.finish(o)
}

/// The first segment a log line names (as the inference reads them) that
/// `pick` picks: one left out of an inferred scenario, one a given scenario
/// lacks.
fn segment_named(r: &Record, pick: impl Fn(i64) -> bool) -> Option<i64> {
    let Kind::Log(l) = &r.kind else {
        return None;
    };
    crate::models::AnyScenario::segments_named(l)
        .into_iter()
        .find(|&id| pick(id))
}

/// The version `v` names for `sc`, or why not.
fn asked(sc: &crate::models::AnyScenario, v: &str) -> Result<&'static str, ImportError> {
    let mut sc = sc.clone();
    sc.set_version(v).map_err(ImportError::Version)?;
    // A model fixed at one version takes its own commit: as the scenario is.
    Ok(sc.header().version.unwrap_or(""))
}

/// Where and why reading stopped before the end of the log (a budget of
/// [`parse`]), and how to read the rest, for an error that says what the log
/// lacks: "" when it was read to its end. (With more than a million junk
/// lines before the real log, the error said that none of its lines was a
/// log line, and nothing of the limit; found by a review helper.)
fn stopped(log: &Parsed) -> String {
    let Some(cut) = &log.cut else {
        return String::new();
    };
    // At the record limit line `lines` was read whole, and the next was not;
    // at the byte limit the last line read may be cut.
    let next = match log.records.len() >= MAX_RECORDS {
        true => log.lines + 1,
        false => log.lines.max(1),
    };
    format!(
        ". Reading stopped before the end of the log: {cut}; to read the rest, give FlushScope the log from line {next} on (for example `tail -n +{next} FILE`), or only its Milvus lines"
    )
}

/// An import under way, one version at a time: the page's worker searches one
/// version per slice and reports after each, so that a Stop is heard between them.
pub struct Importing {
    log: Parsed,
    inferred: Option<Inferred>,
    base: crate::models::AnyScenario,
    /// The versions still to search (`""`: as the scenario is), in order.
    todo: std::collections::VecDeque<&'static str>,
    tried: Vec<Tried>,
    best: Option<(
        usize,
        &'static str,
        crate::models::AnyScenario,
        conform::Conformance,
    )>,
}

impl Importing {
    /// Reads `text` and infers its scenario (see [`import`]).
    pub fn new(text: &str, version: Option<&str>) -> Result<Importing, ImportError> {
        use crate::models::AnyScenario;
        if let Some(v) = version {
            // The inferred scenario is sync-2024's: a version it has not is refused first.
            let any = crate::builtin::get("segment-not-found")
                .ok_or_else(|| ImportError::Bug("no sync-2024 built-in".into()))?;
            asked(&any, v)?;
        }
        if text.trim().is_empty() {
            return Err(ImportError::Unknown("the log is empty".to_owned()));
        }
        let log = parse(text);
        if log
            .records
            .iter()
            .all(|r| matches!(r.kind, Kind::Unmatched { .. }))
        {
            let lines = match (log.lines, &log.cut) {
                (1, None) => "its one line is not".to_owned(),
                (n, None) => format!("none of its {n} lines is"),
                (n, Some(_)) => format!("none of the {n} lines read is"),
            };
            return Err(ImportError::NotALog(format!(
                "no log FlushScope reads: {lines} a Go panic or a line of zap's text format, `[time] [LEVEL] [file.go:line] [\"message\"] [key=value]...`, alone or after a container's prefix (`docker compose logs`' `NAME  | `, a CRI log file's `TIME stdout|stderr F|P `, `docker logs -t`'s `TIME `); Milvus's JSON log format is not read{}",
                stopped(&log)
            )));
        }
        let inferred = AnyScenario::infer_from_log(&log)
            .map_err(|e| ImportError::Unknown(format!("{e}{}", stopped(&log))))?;
        let base = AnyScenario::parse(&inferred.json, "the inferred scenario")
            .map_err(|e| ImportError::Bug(format!("the inferred scenario does not check: {e}")))?;
        let versions = match version {
            Some(v) => vec![asked(&base, v)?],
            None => inferred.versions.clone(),
        };
        Ok(Importing::start(log, Some(inferred), base, versions))
    }

    /// Reads `text` to replay against `sc` (see [`import_against`]).
    pub fn against(
        text: &str,
        sc: &crate::models::AnyScenario,
        version: Option<&str>,
    ) -> Result<Importing, ImportError> {
        if text.trim().is_empty() {
            return Err(ImportError::Unknown("the log is empty".to_owned()));
        }
        let versions = match version {
            Some(v) => vec![asked(sc, v)?],
            None if sc.versions().is_empty() => vec![""],
            None => sc.versions().iter().map(|v| v.id).collect(),
        };
        Ok(Importing::start(parse(text), None, sc.clone(), versions))
    }

    fn start(
        log: Parsed,
        inferred: Option<Inferred>,
        base: crate::models::AnyScenario,
        versions: Vec<&'static str>,
    ) -> Importing {
        Importing {
            log,
            inferred,
            base,
            todo: versions.into(),
            tried: Vec::new(),
            best: None,
        }
    }

    /// The versions searched so far and to search.
    pub fn progress(&self) -> (usize, usize) {
        (self.tried.len(), self.tried.len() + self.todo.len())
    }

    /// Searches the next version; `false` when none is left.
    pub fn next(&mut self, o: &conform::Options) -> Result<bool, ImportError> {
        let Some(v) = self.todo.pop_front() else {
            return Ok(false);
        };
        let mut sc = self.base.clone();
        if !v.is_empty() {
            sc.set_version(v).map_err(ImportError::Bug)?;
        }
        let mut c = sc.conform(&self.log, o);
        if let Some(u) = &mut c.unexplained {
            if let Some((why, short)) = self.cause(&self.log.records[u.record]) {
                // The budget's note would have the user raise it for nothing.
                if let Some(stopped) = &mut c.stopped {
                    stopped.push_str(&format!(
                        "; raising it would not explain line {}, {short}",
                        u.at
                    ));
                }
                u.why = why;
            }
        }
        self.tried.push(Tried {
            version: v,
            proposed: sc.proposed(),
            complete: c.complete,
            matched: c.explained,
            wanted: c.wanted,
            unexplained: c.unexplained.clone(),
        });
        let score = c.explained + if c.complete { 1 << 30 } else { 0 };
        if self.best.as_ref().is_none_or(|b| score > b.0) {
            self.best = Some((score, v, sc, c));
        }
        Ok(true)
    }

    /// Why no schedule prints `record`, however far a search goes, where the
    /// log says so: an ID that is no ID, a segment the scenario lacks. That is
    /// the cause, before a budget the search reached (it blamed the memory
    /// budget, which raised explained nothing more) or the model. The reason
    /// in full, and in a few words.
    fn cause(&self, record: &Record) -> Option<(String, String)> {
        if let Some((k, v)) = conform::unreadable_id(&record.kind) {
            use crate::scenario::json::{escape_unsafe, short};
            let v = short(v);
            let v = escape_unsafe(&v, false);
            return Some((
                format!(
                    "line {}'s {k}={v} is not an ID FlushScope reads (a whole number from -9223372036854775808 to 9223372036854775807), and the model's lines name only such IDs: no schedule prints this line",
                    record.at
                ),
                format!("whose {k}={v} is not an ID"),
            ));
        }
        let lacked = match &self.inferred {
            Some(i) => segment_named(record, |id| i.left_out.contains(&id)).map(|id| {
                format!(
                    "segment {id} is not in the scenario: the log names more segments than the model holds (see the notes)"
                )
            }),
            None => self
                .base
                .segments()
                .and_then(|has| segment_named(record, |id| !has.contains(&id)))
                .map(|id| {
                    format!("segment {id} is not in the scenario: no schedule of it prints this line")
                }),
        };
        lacked.map(|why| (why, "whose segment is not in the scenario".to_owned()))
    }

    /// Searches what is left and gives the import: the version shown is the
    /// first that explains the whole log, else the one that explains most.
    pub fn finish(mut self, o: &conform::Options) -> Result<Import, ImportError> {
        while self.next(o)? {}
        let (_, version, scenario, conformance) = self
            .best
            .ok_or_else(|| ImportError::Bug("no version to replay the log under".into()))?;
        Ok(Import {
            version,
            log: self.log,
            inferred: self.inferred,
            tried: self.tried,
            conformance,
            scenario,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, Kind};

    /// A CRI line joined from `P` parts is read as any line is: a panic's
    /// goroutine dump after it is counted on it, and a blank line made of parts
    /// makes no record (helper-95's attack: the dump read as 8 lines the
    /// reader did not know, and a blank line as an empty one).
    #[test]
    fn a_joined_cri_line_is_read_as_any_line() {
        let t = "2024-07-02T08:15:42.100000000Z";
        let mut log = String::new();
        log += &format!("{t} stderr P panic: runtime error: invalid memory address\n");
        log += &format!("{t} stderr F  or nil pointer dereference\n");
        log += &format!("{t} stderr F goroutine 7 [running]:\n");
        log += &format!("{t} stderr P \n{t} stderr F \n");
        log += &format!("{t} stderr F main.f(0x1)\n");
        log += &format!("{t} stderr F \t/go/src/main.go:12 +0x1d\n");
        log += &format!("{t} stdout P \n{t} stdout F \n");
        log += &format!("{t} stdout F [2024/07/02 08:15:42.200 +00:00] [INFO] [datanode/services.go:284] [\"x\"]\n");
        let p = parse(&log);
        let kinds: Vec<_> = p.records.iter().map(|r| (r.at, &r.kind)).collect();
        assert_eq!(kinds.len(), 2, "{kinds:?}");
        assert!(
            matches!(kinds[0], (1, Kind::Panic { message, dump_lines: 3, .. })
                if message == "runtime error: invalid memory address or nil pointer dereference"),
            "{kinds:?}"
        );
        assert!(matches!(kinds[1], (10, Kind::Log(_))), "{kinds:?}");
    }
}
