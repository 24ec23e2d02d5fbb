//! The scenario editor's decisions, with no DOM (native tests): a scenario as a
//! JSON tree, edits at a path, undo and redo, and the checker's verdict. The
//! editor knows no model: it edits whatever the scenario file holds (actors and
//! ops, datacoord and datanode tables, injections), and the core's checker, the
//! one the CLI runs, says what is wrong and where (a JSON path).

use std::rc::Rc;

use flush_core::scenario::json::{self, Json};
use flush_core::{AnyScenario, ScenarioError};

/// The tree: the core's JSON value, objects in file order (and no float
/// formatting in the page's bundle).
pub type Value = Json;

/// Versions kept for undo.
pub const MAX_HISTORY: usize = 200;
/// The largest scenario the editor takes (a form per field: a bigger file is
/// better edited in a text editor, after "Download JSON").
pub const MAX_EDIT_BYTES: usize = 256 * 1024;

/// One step of a path into the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// `actors[0].ops[2].segment`: the checker's way of naming a place.
pub fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A change to the tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// The value at a path replaced.
    Set(Vec<Seg>, Value),
    /// An item added to the array at a path, at an index (a copy of its last item).
    Add(Vec<Seg>),
    /// The item at an index of the array at a path: removed, duplicated, moved.
    Remove(Vec<Seg>, usize),
    Duplicate(Vec<Seg>, usize),
    Move {
        array: Vec<Seg>,
        from: usize,
        to: usize,
    },
    /// The whole tree (the JSON view's text, parsed).
    Replace(Value),
    /// What was typed into a field: a number or text, whichever the checker
    /// takes at that place (see [`typed`]).
    Text(Vec<Seg>, String),
}

/// The value at `path` in `v`, if there is one.
pub fn get<'v>(v: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, seg| match (seg, v) {
        (Seg::Key(k), Json::Obj(fields)) => fields.iter().find(|f| f.0 == *k).map(|f| &f.1),
        (Seg::Index(i), Json::Arr(items)) => items.get(*i),
        _ => None,
    })
}

fn at_mut<'v>(v: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    path.iter().try_fold(v, |v, seg| match (seg, v) {
        (Seg::Key(k), Json::Obj(fields)) => fields.iter_mut().find(|f| f.0 == *k).map(|f| &mut f.1),
        (Seg::Index(i), Json::Arr(items)) => items.get_mut(*i),
        _ => None,
    })
}

fn array_mut<'v>(v: &'v mut Value, path: &[Seg]) -> Result<&'v mut Vec<Value>, String> {
    match at_mut(v, path) {
        Some(Json::Arr(items)) => Ok(items),
        _ => Err(format!("{} is not a list", path_text(path))),
    }
}

/// `v` with `e` applied, or why it cannot be.
pub fn apply(v: &Value, e: &Edit) -> Result<Value, String> {
    let mut v = v.clone();
    let missing = |p: &[Seg], i: usize| format!("{} has no item {i}", path_text(p));
    match e {
        Edit::Set(p, x) => {
            *at_mut(&mut v, p).ok_or_else(|| format!("nothing at {}", path_text(p)))? = x.clone()
        }
        Edit::Add(p) => {
            let a = array_mut(&mut v, p)?;
            a.push(a.last().cloned().unwrap_or(Json::Obj(Vec::new())));
        }
        Edit::Remove(p, i) => {
            let a = array_mut(&mut v, p)?;
            if *i >= a.len() {
                return Err(missing(p, *i));
            }
            a.remove(*i);
        }
        Edit::Duplicate(p, i) => {
            let a = array_mut(&mut v, p)?;
            let x = a.get(*i).cloned().ok_or_else(|| missing(p, *i))?;
            a.insert(i + 1, x);
        }
        Edit::Move { array, from, to } => {
            let a = array_mut(&mut v, array)?;
            if *from >= a.len() || *to >= a.len() {
                return Err(missing(array, (*from).max(*to)));
            }
            let x = a.remove(*from);
            a.insert(*to, x);
        }
        Edit::Replace(x) => v = x.clone(),
        Edit::Text(p, t) => {
            let x = typed(&v, p, t);
            *at_mut(&mut v, p).ok_or_else(|| format!("nothing at {}", path_text(p)))? = x
        }
    }
    if let Some(size) = too_big(&v) {
        return Err(format!(
            "That would make the scenario {} KB; the editor takes up to {} KB.",
            size / 1024,
            MAX_EDIT_BYTES / 1024
        ));
    }
    Ok(v)
}

/// The size of `v` as the editor shows it, when that is over [`MAX_EDIT_BYTES`]
/// (whatever its kind: a huge array is as big as a huge object).
pub fn too_big(v: &Json) -> Option<usize> {
    let size = text(v).len();
    (size > MAX_EDIT_BYTES).then_some(size)
}

/// What text typed at `path` becomes: a whole number where the field held one
/// and the text reads as one; text where the field held text, unless the checker
/// refuses text there and takes the number (a number field that was given a word
/// becomes a number again once a number is typed). Fields are never typed by
/// name: the checker, the CLI's, knows each model's fields.
pub fn typed(tree: &Value, path: &[Seg], text: &str) -> Value {
    let number = text
        .trim()
        .parse::<i64>()
        .map(|n| Json::Num(n.into()))
        .or_else(|_| text.trim().parse::<u64>().map(|n| Json::Num(n.into())))
        .ok();
    let word = Json::Str(text.to_owned());
    let mut probe = tree.clone();
    let Some(slot) = at_mut(&mut probe, path) else {
        return word;
    };
    let Some(number) = number else { return word };
    if let Json::Num(_) = slot {
        return number;
    }
    let here = path_text(path);
    let refused_here = |v: &Value| {
        check(v, "edited.json")
            .err()
            .is_some_and(|e| e.path.as_deref() == Some(here.as_str()))
    };
    *slot = word.clone();
    if !refused_here(&probe) {
        return word;
    }
    *at_mut(&mut probe, path).expect("the slot is there") = number.clone();
    if refused_here(&probe) {
        word
    } else {
        number
    }
}

/// The edits so far: each version of the tree, and which one is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    versions: Vec<Rc<Value>>,
    at: usize,
}

impl History {
    pub fn new(v: Value) -> History {
        History {
            versions: vec![Rc::new(v)],
            at: 0,
        }
    }
    pub fn current(&self) -> &Rc<Value> {
        &self.versions[self.at]
    }
    pub fn can_undo(&self) -> bool {
        self.at > 0
    }
    pub fn can_redo(&self) -> bool {
        self.at + 1 < self.versions.len()
    }
    /// Applies `e`: the redo steps are dropped, the oldest beyond [`MAX_HISTORY`] too.
    pub fn edit(&mut self, e: &Edit) -> Result<(), String> {
        let next = apply(self.current(), e)?;
        if next == **self.current() {
            return Ok(());
        }
        self.versions.truncate(self.at + 1);
        self.versions.push(Rc::new(next));
        if self.versions.len() > MAX_HISTORY {
            self.versions.remove(0);
        }
        self.at = self.versions.len() - 1;
        Ok(())
    }
    pub fn undo(&mut self) {
        self.at = self.at.saturating_sub(1);
    }
    pub fn redo(&mut self) {
        if self.can_redo() {
            self.at += 1;
        }
    }
}

/// The tree as the file `flushscope run` reads (keys in the order they came).
pub fn text(v: &Value) -> String {
    json::text(v)
}

/// The checker's verdict on the tree: the parsed scenario, or its first error.
pub fn check(v: &Value, file: &str) -> Result<AnyScenario, ScenarioError> {
    AnyScenario::parse(&text(v), file)
}

/// A scenario's text as a tree for the editor, or why it cannot be edited.
pub fn open(text: &str) -> Result<Value, String> {
    if text.len() > MAX_EDIT_BYTES {
        return Err(format!(
            "This scenario is {} KB; the editor takes up to {} KB. Download it (Trace JSON has the run; the file is in scenarios/) and edit it in a text editor.",
            text.len() / 1024,
            MAX_EDIT_BYTES / 1024
        ));
    }
    parse(text).map_err(|e| format!("The scenario is not JSON: {e}."))
}

/// JSON text as a tree, or where and why it is not JSON (`line:column: ...`).
/// Numbers must be whole (every number of a scenario is; the CLI refuses a
/// fraction too): the editor writes back only what it can write exactly.
pub fn parse(text: &str) -> Result<Value, String> {
    let v = json::parse(text, "JSON").map_err(|e| {
        e.to_string()
            .trim_start_matches("JSON:")
            .trim_start()
            .to_owned()
    })?;
    whole(&v, &mut Vec::new())?;
    Ok(v)
}

/// Where `text`'s JSON syntax error is, as a textarea counts (UTF-16 units from
/// the start), or `None` when it has none. serde_json gives the line (1-based)
/// and the column: the bytes of that line read up to the error. (`json::parse`
/// counts again, in characters, a text with lone "\r" line ends; a textarea's
/// value has none: the browser makes every line end "\n".)
pub fn error_offset(text: &str) -> Option<u32> {
    let e = json::parse(text, "JSON").err()?;
    // Located (an empty text is not): a syntax error.
    let (line, column) = (e.line?, e.column?);
    // serde_json places an error at the end of the text on the last character
    // it read: the caret goes after it, where the missing text belongs.
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err_and(|e| e.is_eof()) {
        return u32::try_from(text.encode_utf16().count()).ok();
    }
    let mut end = json::byte_offset(text, line, column);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    u32::try_from(text[..end].encode_utf16().count()).ok()
}

fn whole(v: &Value, path: &mut Vec<Seg>) -> Result<(), String> {
    match v {
        Json::Num(n) if n.as_i64().is_none() && n.as_u64().is_none() => Err(format!(
            "{}{}: {}",
            path_text(path),
            if path.is_empty() { "the value" } else { "" },
            // Whole, in range (below 2^64 and above -2^63), but written as a float.
            if json::whole_float(n).is_some_and(|f| f < 2f64.powi(64) && f > -(2f64.powi(63))) {
                "a scenario's numbers are written in plain digits, without a decimal point or an exponent"
            } else {
                "a scenario's numbers are whole numbers from -2^63 to 2^64-1"
            }
        )),
        Json::Arr(items) => items.iter().enumerate().try_for_each(|(i, x)| {
            path.push(Seg::Index(i));
            let r = whole(x, path);
            path.pop();
            r
        }),
        Json::Obj(fields) => fields.iter().try_for_each(|(k, x)| {
            path.push(Seg::Key(k.clone()));
            let r = whole(x, path);
            path.pop();
            r
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size limit holds for any JSON value, not only objects.
    #[test]
    fn too_big_measures_any_value() {
        let items = vec![Json::Str("x".repeat(8)); MAX_EDIT_BYTES / 8];
        assert!(too_big(&Json::Arr(items)).is_some());
        assert!(too_big(&Json::Str("x".repeat(MAX_EDIT_BYTES + 1))).is_some());
        assert!(too_big(&Json::Arr(vec![Json::Num(1.into())])).is_none());
    }

    /// The offset is where the error is, in UTF-16 units (é is one, 𝄞 two).
    #[test]
    fn error_offset_points_at_the_syntax_error() {
        let at = |t: &str| error_offset(t).map(|n| n as usize);
        let t = "{\n  \"name\": x\n}";
        assert_eq!(at(t), Some(t.find('x').unwrap()));
        let t = "{\"é𝄞\": 1,\n \"b\": ]}";
        let utf16 = |s: &str| s.encode_utf16().count();
        assert_eq!(at(t), Some(utf16(&t[..t.find(']').unwrap()])));
        assert_eq!(at("{\"a\": 1}"), None);
        assert_eq!(at(" \n "), None, "an empty text has no place");
        // Where the text ends too soon, the caret goes to its end.
        for t in ["{\"a\": 1", "{\"a\": [1,\n", "{\"é\": \"x"] {
            assert_eq!(at(t), Some(utf16(t)), "{t:?}");
        }
    }

    fn j(s: &str) -> Value {
        parse(s).unwrap()
    }
    fn at(v: &Value, path: &[Seg]) -> Value {
        get(v, path).unwrap().clone()
    }

    fn p(s: &[Seg]) -> Vec<Seg> {
        s.to_vec()
    }
    fn k(s: &str) -> Seg {
        Seg::Key(s.into())
    }

    #[test]
    fn paths_read_as_the_checker_writes_them() {
        assert_eq!(
            path_text(&[
                k("actors"),
                Seg::Index(0),
                k("ops"),
                Seg::Index(2),
                k("segment")
            ]),
            "actors[0].ops[2].segment"
        );
        assert_eq!(path_text(&[k("policy"), k("keep")]), "policy.keep");
    }

    #[test]
    fn edits_add_remove_duplicate_move_and_set() {
        let v = j(r#"{"actors": [{"name": "a", "ops": [1, 2, 3]}]}"#);
        let ops = p(&[k("actors"), Seg::Index(0), k("ops")]);
        let v = apply(&v, &Edit::Add(ops.clone())).unwrap();
        assert_eq!(at(&v, &ops), j(r#"[1, 2, 3, 3]"#));
        let v = apply(
            &v,
            &Edit::Move {
                array: ops.clone(),
                from: 0,
                to: 3,
            },
        )
        .unwrap();
        assert_eq!(at(&v, &ops), j(r#"[2, 3, 3, 1]"#));
        let v = apply(&v, &Edit::Remove(ops.clone(), 1)).unwrap();
        let v = apply(&v, &Edit::Duplicate(ops.clone(), 0)).unwrap();
        assert_eq!(at(&v, &ops), j(r#"[2, 2, 3, 1]"#));
        let mut name = p(&[k("actors"), Seg::Index(0)]);
        name.push(k("name"));
        let v = apply(&v, &Edit::Set(name, j(r#""b""#))).unwrap();
        assert_eq!(
            at(&v, &[k("actors"), Seg::Index(0), k("name")]),
            j(r#""b""#)
        );
        assert_eq!(
            apply(&v, &Edit::Remove(ops.clone(), 9)).unwrap_err(),
            "actors[0].ops has no item 9"
        );
        assert_eq!(
            apply(&v, &Edit::Add(p(&[k("actors"), Seg::Index(0), k("name")]))).unwrap_err(),
            "actors[0].name is not a list"
        );
        assert_eq!(
            apply(&j(r#"{"a": []}"#), &Edit::Add(p(&[k("a")]))).unwrap(),
            j(r#"{"a": [{}]}"#)
        );
    }

    #[test]
    fn a_typed_value_is_a_number_or_text_as_the_checker_takes_it() {
        let v = open(flush_core::builtin::FILES[0].1).unwrap();
        let seed = [k("seed")];
        // A number field given a word, then a number: a number again (the checker says so).
        let v = apply(&v, &Edit::Text(seed.to_vec(), "abc".into())).unwrap();
        assert_eq!(at(&v, &seed), j(r#""abc""#));
        let v = apply(&v, &Edit::Text(seed.to_vec(), "12".into())).unwrap();
        assert_eq!(at(&v, &seed), j("12"));
        assert!(check(&v, "x.json").is_ok());
        // A text field stays text when digits are typed (the name "7" is a name).
        let name = [k("actors"), Seg::Index(0), k("name")];
        let v = apply(&v, &Edit::Text(name.to_vec(), "7".into())).unwrap();
        assert_eq!(at(&v, &name), j(r#""7""#));
        // Fractions and huge numbers are refused where they come in, with the path.
        assert_eq!(
            parse(r#"{"a": [1, {"b": 4.5}]}"#).unwrap_err(),
            "a[1].b: a scenario's numbers are whole numbers from -2^63 to 2^64-1"
        );
        assert!(parse(r#"{"seed": 1e20}"#)
            .unwrap_err()
            .starts_with("seed: "));
        // A whole number in range written as a float is told to be plain digits.
        assert_eq!(
            parse(r#"{"rows": 1e2}"#).unwrap_err(),
            "rows: a scenario's numbers are written in plain digits, without a decimal point or an exponent"
        );
        assert!(parse(r#"{"seed": 1e20}"#)
            .unwrap_err()
            .ends_with("from -2^63 to 2^64-1"));
        assert!(parse(r#"{"seed": 18446744073709551615}"#).is_ok());
    }

    #[test]
    fn an_edit_past_the_size_limit_is_refused_and_changes_nothing() {
        let big = format!(r#"{{"a": ["{}"]}}"#, "x".repeat(MAX_EDIT_BYTES / 2));
        let mut h = History::new(j(&big));
        h.edit(&Edit::Duplicate(vec![k("a")], 0)).unwrap_err();
        assert!(h
            .edit(&Edit::Duplicate(vec![k("a")], 0))
            .unwrap_err()
            .starts_with("That would make the scenario 256 KB; the editor takes up to 256 KB."));
        assert!(!h.can_undo(), "nothing was added");
    }

    #[test]
    fn undo_and_redo_walk_the_versions_and_a_new_edit_drops_the_redo() {
        let mut h = History::new(j(r#"{"n": [0]}"#));
        let n = p(&[k("n")]);
        for _ in 0..3 {
            h.edit(&Edit::Add(n.clone())).unwrap();
        }
        assert_eq!(at(h.current(), &n), j(r#"[0, 0, 0, 0]"#));
        h.undo();
        h.undo();
        assert_eq!(at(h.current(), &n), j(r#"[0, 0]"#));
        h.redo();
        assert_eq!(at(h.current(), &n), j(r#"[0, 0, 0]"#));
        h.edit(&Edit::Remove(n.clone(), 0)).unwrap();
        assert!(!h.can_redo(), "a new edit drops what was undone");
        assert!(h.edit(&Edit::Remove(n.clone(), 7)).is_err());
        assert_eq!(
            at(h.current(), &n),
            j(r#"[0, 0]"#),
            "a refused edit changes nothing"
        );
        for _ in 0..MAX_HISTORY + 10 {
            h.edit(&Edit::Add(n.clone())).unwrap();
        }
        let mut undone = 0;
        while h.can_undo() {
            h.undo();
            undone += 1;
        }
        assert_eq!(undone, MAX_HISTORY - 1, "the history is bounded");
    }

    #[test]
    fn the_checker_names_the_place_and_a_built_in_round_trips() {
        let text0 = flush_core::builtin::FILES[0].1;
        let v = open(text0).unwrap();
        let a = check(&v, "edited.json").unwrap();
        assert_eq!(
            a,
            AnyScenario::parse(text0, "x.json").unwrap(),
            "the tree is the file"
        );
        let seg = p(&[k("datacoord"), Seg::Index(0), k("segment")]);
        let bad = apply(&v, &Edit::Text(seg, "one".into())).unwrap();
        let e = check(&bad, "edited.json").unwrap_err();
        assert_eq!(e.path.as_deref(), Some("datacoord[0].segment"), "{e}");
        let t = text(&v);
        assert!(
            t.starts_with("{\n  \"name\": \"segment-not-found\",\n  \"title\": "),
            "{t}"
        );
        assert_eq!(
            serde_json::from_str::<Value>(&t).unwrap(),
            v,
            "the text is the tree"
        );
        assert!(open(&" ".repeat(MAX_EDIT_BYTES + 1))
            .unwrap_err()
            .contains("the editor takes up to 256 KB"));
        assert_eq!(
            open("{").unwrap_err(),
            "The scenario is not JSON: 1:1: the text ends inside an object: a closing } is missing."
        );
    }
}
