//! Finds where a JSON path (`actors[1].ops[0].id`) sits in a JSON text, so that a
//! semantic error found after parsing can still name a line and a column.
//!
//! serde_json reports line and column for syntax and type errors itself; this
//! covers the errors found later (an op naming an unknown injection, ...). The
//! text has already parsed, so the scanner may assume well-formed JSON; on any
//! surprise it gives up and returns `None` rather than guess.

/// One step of a path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A path into a JSON document, printed as `actors[1].ops[0].id`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonPath(pub Vec<Seg>);

impl JsonPath {
    pub fn root() -> JsonPath {
        JsonPath(Vec::new())
    }
    pub fn key(&self, k: &str) -> JsonPath {
        let mut p = self.clone();
        p.0.push(Seg::Key(k.to_owned()));
        p
    }
    pub fn index(&self, i: usize) -> JsonPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
}

impl std::fmt::Display for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(top level)");
        }
        for (n, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if n == 0 => write!(f, "{}", super::json::short(k))?,
                Seg::Key(k) => write!(f, ".{}", super::json::short(k))?,
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// Line and column (both from 1, columns in characters) where the value at
/// `path` starts, or `None` when the path is not in the text.
pub fn locate(text: &str, path: &JsonPath) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    for seg in &path.0 {
        at = match seg {
            Seg::Key(k) => find_key(bytes, at, k)?,
            Seg::Index(i) => find_index(bytes, at, *i)?,
        };
    }
    Some(line_col(text, at))
}

/// Line and column (both from 1, the column in characters) of byte `offset`
/// (or of the character it falls in). A line ends at "\n", "\r\n" or a lone
/// "\r", as in a file saved with old Mac line endings, which would otherwise
/// read as one long line.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let b = text.as_bytes();
    let (mut line, mut start) = (1, 0);
    for (i, &c) in b[..offset].iter().enumerate() {
        if c == b'\n' || lone_cr(b, i) {
            line += 1;
            start = i + 1;
        }
    }
    (line, text[start..offset].chars().count() + 1)
}

/// Whether byte `i` is a "\r" that ends a line without a "\n" after it.
fn lone_cr(b: &[u8], i: usize) -> bool {
    b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')
}

/// Whether some line of `text` ends at a lone "\r" (see [`line_col`]).
pub fn has_lone_cr(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).any(|i| lone_cr(b, i))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Index just past the string starting at `i` (which must be a `"`).
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Index just past the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

fn find_key(b: &[u8], at: usize, key: &str) -> Option<usize> {
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(b, at + 1);
    while b.get(i) == Some(&b'"') {
        let end = skip_string(b, i)?;
        let raw = std::str::from_utf8(&b[i..end]).ok()?;
        let name: String = serde_json::from_str(raw).ok()?;
        i = skip_ws(b, end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value = skip_ws(b, i + 1);
        if name == key {
            return Some(value);
        }
        i = skip_ws(b, skip_value(b, value)?);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    None
}

fn find_index(b: &[u8], at: usize, index: usize) -> Option<usize> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let mut i = skip_ws(b, at + 1);
    let mut n = 0;
    while i < b.len() && b[i] != b']' {
        if n == index {
            return Some(i);
        }
        i = skip_ws(b, skip_value(b, i)?);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
        n += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_keys_and_indexes() {
        let text = "{\n  \"a\": [1, {\"b\": \"x,]}\"}, {\"c\": 7}],\n  \"d\": {\"e\": null}\n}";
        let p = JsonPath::root().key("a").index(2).key("c");
        assert_eq!(p.to_string(), "a[2].c");
        assert_eq!(locate(text, &p), Some((2, 33)));
        assert_eq!(
            locate(text, &JsonPath::root().key("d").key("e")),
            Some((3, 14))
        );
        assert_eq!(locate(text, &JsonPath::root().key("a").index(3)), None);
        assert_eq!(locate(text, &JsonPath::root().key("zz")), None);
    }
}
