//! A JSON tree for checking scenario files, and a reader over it that names the
//! path, the place and what was expected in every refusal.
//!
//! serde_json parses (so syntax errors come with its line and column); the tree
//! keeps keys in file order and refuses a key given twice in one object (serde's
//! maps keep the last one silently). Checking then walks the tree with [`Node`]:
//! each accessor says what it expected and where, in words rather than Rust types.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::locate::{locate, JsonPath};
use super::ScenarioError;

/// A JSON value, objects keeping their keys in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(serde_json::Number),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// How a value is called in a message: `a string "x"`, `an array`, ...
    pub fn describe(&self) -> String {
        match self {
            Json::Null => "null".to_owned(),
            Json::Bool(b) => format!("{b}"),
            // `number` gives words ("a very large number") for what it cannot
            // write exactly: "the number a very large number" read garbled.
            Json::Num(n) => match number(n) {
                s if s.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
                    format!("the number {s}")
                }
                words => words,
            },
            Json::Str(s) => format!("the string \"{}\"", short(s)),
            Json::Arr(_) => "an array".to_owned(),
            Json::Obj(_) => "an object".to_owned(),
        }
    }
}

/// Writes `v`: indented by two spaces a level from `indent`, or on one line
/// with no spaces when `indent` is `None`.
fn write(v: &Json, indent: Option<usize>, out: &mut String) {
    let string = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let pad = |out: &mut String, n: Option<usize>| {
        if let Some(n) = n {
            out.push('\n');
            out.push_str(&"  ".repeat(n));
        }
    };
    let inner = indent.map(|n| n + 1);
    match v {
        Json::Obj(fields) if !fields.is_empty() => {
            out.push('{');
            for (i, (k, x)) in fields.iter().enumerate() {
                out.push_str(if i > 0 { "," } else { "" });
                pad(out, inner);
                out.push_str(&string(k));
                out.push_str(if indent.is_some() { ": " } else { ":" });
                write(x, inner, out);
            }
            pad(out, indent);
            out.push('}');
        }
        Json::Arr(items) if !items.is_empty() => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                out.push_str(if i > 0 { "," } else { "" });
                pad(out, inner);
                write(x, inner, out);
            }
            pad(out, indent);
            out.push(']');
        }
        Json::Obj(_) => out.push_str("{}"),
        Json::Arr(_) => out.push_str("[]"),
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => out.push_str(&number(n)),
        Json::Str(s) => out.push_str(&string(s)),
    }
}

/// The tree as a scenario file (keys in the order they came, two-space indent).
pub fn text(v: &Json) -> String {
    let mut s = String::new();
    write(v, Some(0), &mut s);
    s.push('\n');
    s
}

/// The tree on one line, with no spaces (the smallest text of it).
pub fn compact(v: &Json) -> String {
    let mut s = String::new();
    write(v, None, &mut s);
    s
}

impl Json {
    /// The value of `key` in an object (`None` in anything else).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The array at `key` of an object (`actors`, an actor's `ops`); empty when
    /// there is none.
    pub fn arr(&self, key: &str) -> &[Json] {
        match self.get(key) {
            Some(Json::Arr(a)) => a,
            _ => &[],
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(fields) => fields.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key` of an object (added last when new); nothing for other values.
    pub fn set(&mut self, key: &str, value: Json) {
        if let Json::Obj(fields) = self {
            match fields.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = value,
                None => fields.push((key.to_owned(), value)),
            }
        }
    }

    /// Removes `key` of an object.
    pub fn remove(&mut self, key: &str) {
        if let Json::Obj(fields) = self {
            fields.retain(|(k, _)| k != key);
        }
    }
}

/// The value of a number written with a decimal point or an exponent (`1e2`,
/// `10.0`) when it is whole: JSON reads it as a float, not an integer.
pub fn whole_float(n: &serde_json::Number) -> Option<f64> {
    let f = n.as_f64().filter(|_| n.is_f64())?;
    (f.is_finite() && f.fract() == 0.0).then_some(f)
}

/// Why a whole number written as a float is refused (the scenario formats read
/// integers as JSON writes them: plain digits).
fn not_plain(f: f64) -> String {
    // JSON's `-0` is read as a float (serde_json has no negative integer zero).
    if f == 0.0 && f.is_sign_negative() {
        return "a negative zero (write 0)".to_owned();
    }
    // Whole and within an i64 or a u64 here: an i128 holds it exactly.
    format!(
        "a number with a decimal point or an exponent (it is {}; write it in plain digits)",
        f as i128
    )
}

/// Why a whole float at the edge of an integer type's range is refused: the
/// float cannot tell a number just inside the range from one just past it
/// (`18446744073709551615.0` and `18446744073709551616.0` are both 2^64).
fn at_edge(edge: &str, range: &str) -> String {
    // Plain digits just past the range read as the same float: the message
    // covers both (found by a page review: 18446744073709551616, in plain
    // digits, was told to write plain digits).
    format!(
        "a number that reads as {edge}: past the range ({range}), or written with a decimal point or an exponent that cannot be read exactly (write plain digits)"
    )
}

/// A number for a message: integers as they are, others with up to six decimals
/// (by integer arithmetic: float formatting would cost the page's bundle).
pub fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    // (NaN cannot come from JSON; infinities and huge values are described in words.)
    if f.is_nan() || f.abs() >= 1e15 {
        return if f < 0.0 {
            "a very large negative number"
        } else {
            "a very large number"
        }
        .to_owned();
    }
    let micros = (f.abs() * 1e6).round() as u64;
    let (int, frac) = (micros / 1_000_000, micros % 1_000_000);
    let mut s = format!("{}{int}", if f < 0.0 { "-" } else { "" });
    if frac > 0 {
        let digits = format!("{frac:06}");
        s.push('.');
        s.push_str(digits.trim_end_matches('0'));
    }
    s
}

/// At most 40 characters of `s`, for messages, with control and bidi characters
/// escaped (see [`escape_unsafe`]).
pub fn short(s: &str) -> String {
    const MAX: usize = 40;
    let mut out: String = s.chars().take(MAX).collect();
    if s.chars().nth(MAX).is_some() {
        out.push('…');
    }
    escape_unsafe(&out, false).into_owned()
}

/// Characters a terminal or a text view would act on rather than show: C0/C1
/// controls and DEL, and the bidirectional formatting characters (LRM, RLM, ALM,
/// the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069) and
/// the BOM, which reorder or hide the text around them (the "Trojan Source" class),
/// and the line and paragraph separators U+2028 and U+2029, which a text view
/// breaks a line at as at a newline.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}'
        )
}

/// A name shown on every trace line and lane (a scenario's or actor's name, an
/// injection id, a title): 1 to `max` characters, not only spaces, and no control
/// or bidi characters ([`is_unsafe_char`]); `lines` allows newlines and tabs (a
/// description). The refusal's words otherwise.
pub fn check_name(s: &str, what: &str, max: usize, lines: bool) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err(format!("{what} is empty; give it 1 to {max} characters"));
    }
    let n = s.chars().count();
    if n > max {
        return Err(format!(
            "{what} is {n} characters long (\"{}\"); at most {max}",
            short(s)
        ));
    }
    let bad = s
        .chars()
        .enumerate()
        .find(|&(_, c)| is_unsafe_char(c) && !(lines && (c == '\n' || c == '\t')));
    match bad {
        Some((i, c)) => Err(format!(
            "{what} has the control, line-separator or bidirectional-formatting character U+{:04X} at character {}; it is shown as text, so such characters are refused",
            c as u32,
            i + 1
        )),
        None => Ok(()),
    }
}

/// `s` with every [`is_unsafe_char`] written as `\u{1b}`; with `keep_lines`,
/// newlines and tabs stay (for whole reports whose lines are structure).
pub fn escape_unsafe(s: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    let keep = |c: char| keep_lines && (c == '\n' || c == '\t');
    // Fast path: printable ASCII (and kept newlines and tabs) has nothing to escape.
    let plain = |b: u8| (0x20..0x7f).contains(&b) || keep(char::from(b));
    if s.bytes().all(plain) || !s.chars().any(|c| is_unsafe_char(c) && !keep(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe_char(c) && !keep(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Num(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Num(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Num)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::Str(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(Json::Arr(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
        let mut v: Vec<(String, Json)> = Vec::new();
        while let Some(k) = a.next_key::<String>()? {
            // Small objects are searched as each key comes (the error points at the
            // key); a larger one is checked once it ends, by sorting, so a hostile
            // object of 10^5 keys costs no 10^10 comparisons.
            if v.len() < SEARCHED_KEYS && v.iter().any(|(x, _)| *x == k) {
                return Err(twice::<A::Error>(&k));
            }
            let val = a.next_value()?;
            v.push((k, val));
        }
        if v.len() > SEARCHED_KEYS {
            let order = crate::order::order(v.len(), &|i, j| v[i].0.cmp(&v[j].0));
            if let Some(w) = order.windows(2).find(|w| v[w[0]].0 == v[w[1]].0) {
                return Err(twice::<A::Error>(&v[w[0]].0));
            }
        }
        Ok(Json::Obj(v))
    }
}

/// Parses `text` into a tree, or a syntax error with its line and column.
fn twice<E: de::Error>(k: &str) -> E {
    de::Error::custom(format!(
        "the key \"{}\" appears twice in one object",
        short(k)
    ))
}

/// Objects up to this many keys are checked for duplicates key by key, larger ones
/// when they end.
const SEARCHED_KEYS: usize = 32;

pub fn parse(text: &str, file: &str) -> Result<Json, ScenarioError> {
    if text.trim().is_empty() {
        return Err(ScenarioError::whole(
            file,
            "the file is empty; a scenario is a JSON object",
        ));
    }
    serde_json::from_str::<Json>(text).map_err(|e| {
        let (line, mut column) = (e.line(), e.column());
        let mut message = e.to_string();
        // serde_json appends " at line L column C"; the place is printed up front.
        if let Some(cut) = message.rfind(" at line ") {
            message.truncate(cut);
        }
        // A bare word (`name:` of a YAML file) stops serde_json at its first
        // letter that does not spell true, false or null: the place is the word's.
        if message == "expected ident" {
            let at = byte_offset(text, line, column);
            let word = text.as_bytes()[..at]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
            column = column.saturating_sub(word).max(1);
        }
        if let Some(words) = syntax_words(&message) {
            message = words.to_owned();
        }
        // A comment (JSON has none) stops serde_json at its first slash.
        if message.starts_with("expected") && at_line_column(text, line, column).starts_with('/') {
            message.push_str("; JSON has no comments (// or /* */)");
        }
        if message == "number out of range" {
            message = match path_before(text, line, column) {
                Some(key) => format!("{key}: a number too large to read (over 1.8e308)"),
                None => "a number too large to read (over 1.8e308)".to_owned(),
            };
        }
        // serde_json ends lines at "\n" only: with lone "\r" line ends (old Mac
        // files) the place is counted again (in characters, as `locate` counts).
        let (line, column) = match line > 0 && super::locate::has_lone_cr(text) {
            true => super::locate::line_col(text, byte_offset(text, line, column)),
            false => (line, column),
        };
        ScenarioError {
            file: file.to_owned(),
            line: (line > 0).then_some(line),
            // serde_json says column 0 at the start of a line it ended on
            // (the text ends after a newline): columns count from 1 here.
            column: (line > 0).then_some(column.max(1)),
            path: None,
            message,
        }
    })
}

/// The byte offset of `line`:`column` (1-based, as serde_json gives them: the
/// column counts bytes), at most the text's length.
pub fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// The text from `line`:`column` on (empty when that is not a character's start).
fn at_line_column(text: &str, line: usize, column: usize) -> &str {
    text.get(byte_offset(text, line, column)..)
        .unwrap_or_default()
}

/// The JSON path of the value that ends at `line`:`column` (1-based, as
/// serde_json reports an error), such as `actors[0].ops[2].rows`: a number too
/// large to read is refused before the tree, and so before any path, exists. The
/// text before it is scanned for its brackets, keys and commas (one pass).
fn path_before(text: &str, line: usize, column: usize) -> Option<String> {
    enum Frame {
        Obj(Option<String>),
        Arr(usize),
    }
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let before = text.get(..(start + column).min(text.len()))?;
    let (mut stack, mut last) = (Vec::new(), String::new());
    let mut chars = before.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                last.clear();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            last.push('\\');
                            last.extend(chars.next());
                        }
                        c => last.push(c),
                    }
                }
            }
            '{' => stack.push(Frame::Obj(None)),
            '[' => stack.push(Frame::Arr(0)),
            '}' | ']' => drop(stack.pop()),
            ':' => {
                if let Some(Frame::Obj(key)) = stack.last_mut() {
                    // The key as written, its escapes (`\u0067`) decoded.
                    let raw = std::mem::take(&mut last);
                    *key = Some(serde_json::from_str(&format!("\"{raw}\"")).unwrap_or(raw));
                }
            }
            ',' => match stack.last_mut() {
                Some(Frame::Arr(i)) => *i += 1,
                Some(Frame::Obj(key)) => *key = None,
                None => {}
            },
            _ => {}
        }
    }
    let mut path = String::new();
    for f in &stack {
        match f {
            Frame::Obj(Some(key)) if path.is_empty() => path.push_str(&short(key)),
            Frame::Obj(Some(key)) => path.push_str(&format!(".{}", short(key))),
            Frame::Obj(None) => return None,
            Frame::Arr(i) => path.push_str(&format!("[{i}]")),
        }
    }
    (!path.is_empty()).then_some(path)
}

/// Plain words for serde_json's terse syntax errors (the others name what they
/// expected already, e.g. "expected `,` or `}`").
fn syntax_words(message: &str) -> Option<&'static str> {
    Some(match message {
        "expected value" | "expected ident" => {
            "expected a JSON value here (an object, array, string, number, true, false or null)"
        }
        "trailing characters" => {
            "text after the end of the scenario's JSON object; a file holds one scenario"
        }
        "key must be a string" => "an object's key must be a string in double quotes",
        "EOF while parsing an object" => "the text ends inside an object: a closing } is missing",
        "EOF while parsing a list" => "the text ends inside an array: a closing ] is missing",
        "EOF while parsing a string" => "the text ends inside a string: a closing \" is missing",
        "EOF while parsing a value" => "the text ends where a value was expected",
        "trailing comma" => "a comma before a closing ] or }: JSON allows none there",
        "recursion limit exceeded" => {
            "arrays and objects nested deeper than 128 levels (a scenario needs a few)"
        }
        // serde_json 1.0.154 read.rs:955-1012 `parse_unicode_escape`: a second
        // half alone (\uDC00-\uDFFF), or a first half followed by a \u that is
        // not a second half.
        "lone leading surrogate in hex escape" => {
            "a \\u escape of half a UTF-16 pair (a lone surrogate): the text must be Unicode"
        }
        // The same: a first half (\uD800-\uDBFF) with no \u right after it.
        "unexpected end of hex escape" => {
            "a \\u escape of the first half of a UTF-16 pair (\\uD800-\\uDBFF) with no second half right after it (a lone surrogate): the text must be Unicode"
        }
        // read.rs:370-380 `decode_hex_escape` and :942: a \u without four hex
        // digits, or a letter after the backslash that JSON has no escape for.
        "invalid escape" => {
            "a backslash escape JSON does not have, or a \\u without four hex digits (\\n, \\t, \\\" and \\uXXXX are escapes)"
        }
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            "a control character (a raw newline or tab) inside a string: write it as \\n or \\t"
        }
        _ => return None,
    })
}

/// Where errors are reported: the file name and its text (for line and column).
#[derive(Clone, Copy)]
pub struct Src<'t> {
    pub file: &'t str,
    pub text: &'t str,
}

impl Src<'_> {
    /// A refusal at `path`, located in the text.
    #[inline(never)]
    pub fn err(&self, path: &JsonPath, message: impl Into<String>) -> Refusal {
        let at = locate(self.text, path);
        Box::new(ScenarioError {
            file: self.file.to_owned(),
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
            path: Some(path.to_string()),
            message: message.into(),
        })
    }
}

/// A refusal, boxed: the checking code passes it up through many `?`, and a
/// pointer keeps each of them small (this cut the wasm bundle by several KB).
pub type Refusal = Box<ScenarioError>;

pub type Res<T> = Result<T, Refusal>;

/// A value of the tree with its path, for checking.
#[derive(Clone)]
pub struct Node<'a, 't> {
    pub json: &'a Json,
    pub path: JsonPath,
    pub src: Src<'t>,
}

/// The fields of an object node, checked against the allowed names.
pub struct Fields<'a, 't> {
    node: Node<'a, 't>,
    fields: &'a [(String, Json)],
}

impl<'a, 't> Fields<'a, 't> {
    /// The field `key`, if given.
    #[inline(never)]
    pub fn get(&self, key: &str) -> Option<Node<'a, 't>> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| self.node.child_key(key, v))
    }

    /// The field `key`, which must be given.
    #[inline(never)]
    pub fn req(&self, key: &str, what: &str) -> Res<Node<'a, 't>> {
        self.get(key)
            .ok_or_else(|| self.node.err(format!("{what} needs the field \"{key}\"")))
    }

    /// The object's own node.
    pub fn node(&self) -> &Node<'a, 't> {
        &self.node
    }

    /// The keys given, in file order.
    pub fn keys(&self) -> impl Iterator<Item = &'a str> {
        self.fields.iter().map(|(k, _)| k.as_str())
    }
}

impl<'a, 't> Node<'a, 't> {
    pub fn root(json: &'a Json, src: Src<'t>) -> Node<'a, 't> {
        Node {
            json,
            path: JsonPath::root(),
            src,
        }
    }

    fn child_key(&self, key: &str, json: &'a Json) -> Node<'a, 't> {
        Node {
            json,
            path: self.path.key(key),
            src: self.src,
        }
    }

    #[inline(never)]
    pub fn err(&self, message: impl Into<String>) -> Refusal {
        self.src.err(&self.path, message)
    }

    #[inline(never)]
    fn expected(&self, what: &str) -> Refusal {
        self.err(format!("expected {what}, found {}", self.json.describe()))
    }

    /// [`Node::expected`] for a number, which says what a string of digits is:
    /// a number in quotes, or one too large to be one (the page's editor keeps
    /// such digits as the text typed, as they hold no number it can write).
    #[inline(never)]
    fn expected_number(&self, what: &str) -> Refusal {
        let mut e = self.expected(what);
        if let Json::Str(s) = self.json {
            let t = s.trim();
            let digits = t.strip_prefix('-').unwrap_or(t);
            // JSON writes no leading zeros: "007" unquoted is no number either.
            let plain = digits == "0" || !digits.starts_with('0');
            if plain && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                e.message
                    .push_str(if t.parse::<i64>().is_ok() || t.parse::<u64>().is_ok() {
                        " (a number in quotes: write it without them)"
                    } else {
                        " (digits, but more than a whole number holds)"
                    });
            }
        }
        e
    }

    /// An object, any keys.
    #[inline(never)]
    pub fn object(&self, what: &str) -> Res<Fields<'a, 't>> {
        let Json::Obj(fields) = self.json else {
            return Err(self.expected(&format!("an object ({what})")));
        };
        Ok(Fields {
            node: self.clone(),
            fields,
        })
    }

    /// An object whose keys are all in `allowed`.
    #[inline(never)]
    pub fn fields(&self, what: &str, allowed: &[&str]) -> Res<Fields<'a, 't>> {
        let Json::Obj(fields) = self.json else {
            return Err(self.expected(&format!("an object ({what})")));
        };
        for (k, _) in fields {
            if !allowed.contains(&k.as_str()) {
                return Err(self.src.err(
                    &self.path.key(k),
                    format!(
                        "unknown field \"{}\" in {what}; its fields are {}",
                        short(k),
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(Fields {
            node: self.clone(),
            fields,
        })
    }

    /// An object with any keys (a map from ids to values): its entries.
    #[inline(never)]
    pub fn entries(&self, what: &str) -> Res<Vec<(&'a str, Node<'a, 't>)>> {
        let Json::Obj(fields) = self.json else {
            return Err(self.expected(&format!("an object ({what})")));
        };
        Ok(fields
            .iter()
            .map(|(k, v)| (k.as_str(), self.child_key(k, v)))
            .collect())
    }

    /// An array's items.
    #[inline(never)]
    pub fn items(&self, what: &str) -> Res<Vec<Node<'a, 't>>> {
        let Json::Arr(v) = self.json else {
            return Err(self.expected(&format!("an array ({what})")));
        };
        Ok(v.iter()
            .enumerate()
            .map(|(i, x)| Node {
                json: x,
                path: self.path.index(i),
                src: self.src,
            })
            .collect())
    }

    #[inline(never)]
    pub fn str(&self, what: &str) -> Res<&'a str> {
        match self.json {
            Json::Str(s) => Ok(s),
            _ => Err(self.expected(&format!("a string ({what})"))),
        }
    }

    /// A name shown on every trace line and lane (see [`check_name`]).
    #[inline(never)]
    pub fn name(&self, what: &str, max: usize, lines: bool) -> Res<&'a str> {
        let s = self.str(what)?;
        check_name(s, what, max, lines).map_err(|m| self.err(m))?;
        Ok(s)
    }

    #[inline(never)]
    pub fn bool(&self, what: &str) -> Res<bool> {
        match self.json {
            Json::Bool(b) => Ok(*b),
            _ => Err(self.expected(&format!("true or false ({what})"))),
        }
    }

    /// A whole number within `lo..=hi`.
    #[inline(never)]
    pub fn int(&self, what: &str, lo: i64, hi: i64) -> Res<i64> {
        let range = || format!("a whole number from {lo} to {hi} ({what})");
        let Json::Num(n) = self.json else {
            return Err(self.expected_number(&range()));
        };
        match n.as_i64() {
            Some(v) if (lo..=hi).contains(&v) => Ok(v),
            Some(v) => Err(self.err(format!("{v} is out of range: expected {}", range()))),
            None if n.is_u64() => Err(self.err(format!(
                "{} is out of range: expected {}",
                number(n),
                range()
            ))),
            None => {
                let why = if let Some(f) =
                    whole_float(n).filter(|f| (lo as f64..=hi as f64).contains(f))
                {
                    not_plain(f)
                } else if whole_float(n).is_some() {
                    format!("{} is out of range", number(n))
                } else {
                    format!("{} is not a whole number", number(n))
                };
                Err(self.err(format!("{why}: expected {}", range())))
            }
        }
    }

    /// Any whole number an `int64` holds (an id).
    #[inline(never)]
    pub fn i64(&self, what: &str) -> Res<i64> {
        match self.json {
            Json::Num(n) if n.as_i64().is_some() => Ok(n.as_i64().unwrap_or_default()),
            Json::Num(n) if n.is_u64() => Err(self.err(format!(
                "{} is out of range: expected a whole number that fits an int64 ({what})",
                number(n)
            ))),
            Json::Num(n) => Err(self.err(format!(
                "{}: expected a whole number ({what})",
                match whole_float(n) {
                    // Within ±2^63, strict: plain digits just past an i64 round to ±2^63.
                    Some(f) if f.abs() < 2f64.powi(63) => not_plain(f),
                    Some(f) if f.abs() == 2f64.powi(63) => at_edge(
                        if f < 0.0 {
                            "-9223372036854775808"
                        } else {
                            "9223372036854775808"
                        },
                        "from -9223372036854775808 to 9223372036854775807",
                    ),
                    Some(_) => format!("{} is out of range", number(n)),
                    None => format!("{} is not a whole number", number(n)),
                }
            ))),
            _ => Err(self.expected_number(&format!("a whole number ({what})"))),
        }
    }

    /// A whole number from 0 to `u64::MAX`.
    #[inline(never)]
    pub fn u64(&self, what: &str) -> Res<u64> {
        let Json::Num(n) = self.json else {
            return Err(
                self.expected_number(&format!("a whole number from 0 to {} ({what})", u64::MAX))
            );
        };
        if let Some(v) = n.as_u64() {
            return Ok(v);
        }
        let why = match whole_float(n) {
            _ if n.as_i64().is_some() => format!("{} is negative", number(n)),
            Some(f) if f < 0.0 => format!("{} is negative", number(n)),
            // Below 2^64, strict: plain digits just past u64 round to 2^64.
            Some(f) if f < 2f64.powi(64) => not_plain(f),
            Some(f) if f == 2f64.powi(64) => {
                at_edge("18446744073709551616", "from 0 to 18446744073709551615")
            }
            Some(_) => format!("{} is out of range", number(n)),
            None => format!("{} is not a whole number", number(n)),
        };
        Err(self.err(format!(
            "{why}: expected a whole number from 0 to {} ({what})",
            u64::MAX
        )))
    }

    /// One of `names`: its index.
    #[inline(never)]
    pub fn one_of(&self, what: &str, names: &[&str]) -> Res<usize> {
        let Json::Str(s) = self.json else {
            return Err(self.expected(&format!("a string ({what}: one of {})", names.join(", "))));
        };
        names.iter().position(|n| n == s).ok_or_else(|| {
            self.err(format!(
                "unknown {what} \"{}\"; expected one of {}",
                short(s),
                names.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// serde_json's terse messages are said in words, and a comment gets a hint.
    #[test]
    fn syntax_errors_in_words() {
        let msg = |t: &str| parse(t, "f.json").unwrap_err().message;
        assert!(
            msg("{\"a\": [1,]}").starts_with("a comma before a closing"),
            "{}",
            msg("{\"a\": [1,]}")
        );
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(
            msg(&deep).contains("nested deeper than 128"),
            "{}",
            msg(&deep)
        );
        assert!(
            msg("{\"a\": \"\\ud800\"}").contains("\\u escape"),
            "{}",
            msg("{\"a\": \"\\ud800\"}")
        );
        let c = "// a scenario\n{\"name\": \"x\"}";
        assert!(
            msg(c).ends_with("JSON has no comments (// or /* */)"),
            "{}",
            msg(c)
        );
        assert!(!msg("{\"a\": x}").contains("comments"));
    }

    /// A text that ends just after a newline is located at column 1 of the
    /// next line, not column 0 (serde_json's).
    #[test]
    fn columns_count_from_one() {
        let e = parse("{\"a\": 1,\n", "f.json").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)), "{e}");
    }

    #[test]
    fn escape_unsafe_writes_controls_and_bidi_as_escapes() {
        assert!(matches!(
            escape_unsafe("plain text", false),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            escape_unsafe("café → ok\n", true),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape_unsafe("a\u{1b}[31mb\n", true), "a\\u{1b}[31mb\n");
        assert_eq!(escape_unsafe("a\u{1b}b\n", false), "a\\u{1b}b\\u{a}");
        assert_eq!(
            escape_unsafe("x\u{202e}y\u{2066}\u{0}", true),
            "x\\u{202e}y\\u{2066}\\u{0}"
        );
        assert_eq!(short(&"é".repeat(50)), format!("{}…", "é".repeat(40)));
        assert_eq!(short("k\u{7}"), "k\\u{7}");
        assert_eq!(
            escape_unsafe("a\u{2028}b\u{2029}", true),
            "a\\u{2028}b\\u{2029}"
        );
    }

    #[test]
    fn names_are_refused_with_what_and_where() {
        assert!(check_name("flowgraph", "an actor's name", 100, false).is_ok());
        let e = check_name("  ", "an actor's name", 100, false).unwrap_err();
        assert!(e.contains("is empty"), "{e}");
        let e = check_name(&"n".repeat(101), "an actor's name", 100, false).unwrap_err();
        assert!(
            e.contains("is 101 characters long") && e.contains("at most 100"),
            "{e}"
        );
        let e = check_name("ab\u{202e}c", "an actor's name", 100, false).unwrap_err();
        assert!(e.contains("U+202E at character 3"), "{e}");
        assert!(check_name("line one\nline two", "the description", 100, true).is_ok());
        assert!(check_name("line one\nline two", "the title", 100, false).is_err());
    }
}
