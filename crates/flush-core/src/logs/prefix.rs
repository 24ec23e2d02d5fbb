//! What a container runtime puts before a Milvus log line, taken off before the
//! line is read (F12: `docker compose logs` output and kubelet's log files
//! were refused as "no log FlushScope reads"). Each prefix is recognised
//! whole, by its format, or not at all: a line is never read from its first
//! `[` on, so text that only contains a log line stays unmatched.
//!
//! * `docker compose logs` (compose's `cmd/formatter/logs.go`): the service
//!   or container name padded with spaces, then `| `
//!   (`fmt.Sprintf("%-*s | ", width, name)`, `width` one more than the longest
//!   name), in an ANSI colour when compose colours it; with `--timestamps`,
//!   an RFC 3339 time and a space after it.
//! * CRI log files (kubelet's `pkg/kubelet/kuberuntime/logs` `parseCRILog`,
//!   the cri-api's `LogStreamType` and `LogTag`): `<RFC 3339 time with
//!   nanoseconds> <stdout|stderr> <tags> <content>`, the tags `:`-separated,
//!   the first `P` (partial: the line goes on in the stream's next record)
//!   or `F` (full: the line, or its last part).
//! * `docker logs --timestamps`: an RFC 3339 time and a space.
//! * Spaces before a zap line's first `[`.

/// One input line with its prefix taken off.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Content<'a> {
    Text(&'a str),
    Cri(Cri<'a>),
}

/// A CRI log record.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Cri<'a> {
    /// 0: stdout, 1: stderr.
    pub stream: usize,
    /// Tag `P`: the content goes on in the stream's next record.
    pub partial: bool,
    pub content: &'a str,
}

/// The line without its container prefix, if it has one.
pub(super) fn content(line: &str) -> Content<'_> {
    // The common case, and every line the models print, first.
    if line.starts_with('[') {
        return Content::Text(line);
    }
    if let Some(c) = cri(line) {
        return Content::Cri(c);
    }
    let s = compose(line).unwrap_or(line);
    let s = timestamped(s).unwrap_or(s);
    Content::Text(zap_start(s))
}

/// A zap line without the spaces before its first `[`; any other text as it is.
pub(super) fn zap_start(s: &str) -> &str {
    let t = s.trim_start_matches(' ');
    match t.starts_with('[') {
        true => t,
        false => s,
    }
}

/// `2024-06-19T10:09:59.079123456Z stderr F text` (see the module's words).
fn cri(line: &str) -> Option<Cri<'_>> {
    let (time, rest) = line.split_once(' ')?;
    if !rfc3339(time) {
        return None;
    }
    let (stream, rest) = rest.split_once(' ')?;
    let stream = match stream {
        "stdout" => 0,
        "stderr" => 1,
        _ => return None,
    };
    // kubelet wants the space after the tags; an editor may have taken it
    // off an empty line's record.
    let (tags, content) = rest.split_once(' ').unwrap_or((rest, ""));
    let partial = match tags.split(':').next() {
        Some("P") => true,
        Some("F") => false,
        _ => return None,
    };
    Some(Cri {
        stream,
        partial,
        content,
    })
}

/// `milvus-standalone  | text`, perhaps coloured (see the module's words).
fn compose(line: &str) -> Option<&str> {
    let (coloured, rest) = match line.strip_prefix("\u{1b}[") {
        Some(r) => {
            let end = r.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
            (true, r[end..].strip_prefix('m')?)
        }
        None => (false, line),
    };
    let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let end = rest.find(|c: char| !name_char(c))?;
    if end == 0 || !rest.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    let padded = &rest[end..];
    let after = padded.trim_start_matches(' ');
    if after.len() == padded.len() {
        return None;
    }
    let after = after.strip_prefix('|')?;
    // An empty line's prefix may have lost its last space.
    let after = match after.is_empty() {
        true => after,
        false => after.strip_prefix(' ')?,
    };
    match coloured {
        true => after
            .strip_prefix("\u{1b}[0m")
            .or(after.is_empty().then_some(after)),
        false => Some(after),
    }
}

/// `2024-06-19T10:09:59.079123456Z text` → `text`.
fn timestamped(line: &str) -> Option<&str> {
    let (time, rest) = line.split_once(' ')?;
    rfc3339(time).then_some(rest)
}

/// Go's `time.RFC3339Nano` as kubelet parses it (RFC3339NanoLenient,
/// `2006-01-02T15:04:05.999999999Z07:00`): the fraction optional, 1 to 9
/// digits, the zone `Z` or `±hh:mm`; fields in range.
fn rfc3339(t: &str) -> bool {
    let b = t.as_bytes();
    if b.len() < 20 || !t.is_ascii() {
        return false;
    }
    let num = |from: usize, len: usize| -> Option<u32> {
        let s = &t[from..from + len];
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let shape = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')]
        .iter()
        .all(|&(i, c)| b[i] == c);
    let fields = [
        (num(0, 4), 0, 9999),
        (num(5, 2), 1, 12),
        (num(8, 2), 1, 31),
        (num(11, 2), 0, 23),
        (num(14, 2), 0, 59),
        (num(17, 2), 0, 59),
    ];
    if !shape
        || !fields
            .iter()
            .all(|(v, lo, hi)| v.is_some_and(|v| (*lo..=*hi).contains(&v)))
    {
        return false;
    }
    let mut zone = &t[19..];
    if let Some(f) = zone.strip_prefix('.') {
        let digits = f.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=9).contains(&digits) {
            return false;
        }
        zone = &f[digits..];
    }
    let offset = |z: &str| {
        let z = z.as_bytes();
        z.len() == 6
            && matches!(z[0], b'+' | b'-')
            && z[3] == b':'
            && [1, 2, 4, 5].iter().all(|&i| z[i].is_ascii_digit())
    };
    zone == "Z" || offset(zone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_prefix_is_taken_whole_or_not_at_all() {
        let zap = "[INFO] [a/b.go:1] [\"m\"]";
        let text = |s: &str| match content(s) {
            Content::Text(t) => t.to_owned(),
            Content::Cri(c) => panic!("{c:?}"),
        };
        assert_eq!(text(&format!("milvus-standalone  | {zap}")), zap);
        assert_eq!(text(&format!("milvus_1 | {zap}")), zap);
        assert_eq!(
            text(&format!("\u{1b}[36mmilvus  | \u{1b}[0m{zap}")),
            zap,
            "compose's colours"
        );
        assert_eq!(
            text(&format!("milvus  | 2024-07-02T08:15:41.902345678Z {zap}")),
            zap
        );
        assert_eq!(text(&format!("2024-07-02T08:15:41+02:00 {zap}")), zap);
        assert_eq!(text(&format!("   {zap}")), zap);
        // Not a prefix: kept as they are.
        for s in [
            format!("milvus| {zap}"),
            format!(" milvus  | {zap}"),
            format!("milvus  |{zap}"),
            format!("mil vus  | x {zap}"),
            format!("note: {zap}"),
            format!("2024-07-02 08:15:41 {zap}"),
            format!("2024-13-02T08:15:41Z {zap}"),
            format!("2024-07-02T08:15:41.Z {zap}"),
            format!("2024-07-02T08:15:41.1234567890Z {zap}"),
            format!("2024-07-02T08:15:41+0200 {zap}"),
            "\tat [x]".to_owned(),
        ] {
            assert_eq!(text(&s), s);
        }
        assert_eq!(
            content(&format!("2024-06-19T10:09:59.079123456Z stderr P {zap}")),
            Content::Cri(Cri {
                stream: 1,
                partial: true,
                content: zap
            })
        );
        assert_eq!(
            content("2024-06-19T10:09:59Z stdout F:x a b"),
            Content::Cri(Cri {
                stream: 0,
                partial: false,
                content: "a b"
            })
        );
        for s in [
            format!("2024-06-19T10:09:59Z stdin F {zap}"),
            format!("2024-06-19T10:09:59Z stdout X {zap}"),
            format!("2024-06-19T10:09:59Z stdout  {zap}"),
        ] {
            assert!(matches!(content(&s), Content::Text(_)), "{s}");
        }
    }
}
