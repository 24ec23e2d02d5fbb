//! Who runs next. A [`Choice`] names a runnable goroutine and, when it waits in a
//! Go `select` with several ready cases, which case it takes.

use std::fmt;

use crate::rng::Rng;

/// One scheduling decision: goroutine `g` runs to its next blocking point,
/// taking case `alt` of its `select` when it has more than one ready case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice {
    pub g: u32,
    pub alt: u32,
}

impl Choice {
    pub const fn new(g: u32, alt: u32) -> Choice {
        Choice { g, alt }
    }

    /// Parses `3`, `g3` or `5.1` (goroutine 5, select case 1).
    pub fn parse(s: &str) -> Option<Choice> {
        let s = s.trim();
        let s = s.strip_prefix('g').unwrap_or(s);
        let (g, alt) = match s.split_once('.') {
            Some((g, a)) => (g, a.parse().ok()?),
            None => (s, 0),
        };
        Some(Choice {
            g: g.parse().ok()?,
            alt,
        })
    }

    /// Parses a list separated by commas, spaces or both (`0,1`, `0 1`, `0, 1`).
    /// An entry missing between two commas, or before or after one (`0,,1`,
    /// `,`), is refused: it is a typo, not a choice.
    pub fn parse_list(s: &str) -> Result<Vec<Choice>, String> {
        let pieces: Vec<&str> = s.split(',').collect();
        let mut out = Vec::new();
        for (i, piece) in pieces.iter().enumerate() {
            if piece.trim().is_empty() && pieces.len() > 1 {
                let place = match i {
                    0 => "before the first comma".to_owned(),
                    i if i + 1 == pieces.len() => "after the last comma".to_owned(),
                    i => format!("between commas {i} and {}", i + 1),
                };
                return Err(format!("an entry is missing {place}"));
            }
            for t in piece.split_whitespace() {
                out.push(Choice::parse(t).ok_or_else(|| {
                    // `3`, `g3` or `5.1` in form, but a number beyond a u32.
                    let number = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
                    let body = t.strip_prefix('g').unwrap_or(t);
                    let (g, alt) = body.split_once('.').unwrap_or((body, "0"));
                    match number(g) && number(alt) {
                        true => {
                            format!("\"{t}\" is too large for a goroutine number or select case")
                        }
                        false => format!("\"{t}\" is not a schedule entry (3 or 5.1)"),
                    }
                })?);
            }
        }
        Ok(out)
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.alt == 0 {
            write!(f, "{}", self.g)
        } else {
            write!(f, "{}.{}", self.g, self.alt)
        }
    }
}

/// Prints a schedule as `0,3,3,5.1`.
pub fn format_schedule(s: &[Choice]) -> String {
    s.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// How the next goroutine is chosen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// The caller picks every step (the browser's buttons).
    Manual,
    /// Uniformly among the runnable choices, from a seeded PRNG.
    Seeded(u64),
    /// The listed choices, in order; when the list runs out or names a goroutine
    /// that is not runnable, the seeded PRNG takes over (the trace says so).
    Scripted {
        script: Vec<Choice>,
        fallback_seed: u64,
    },
    /// Choices drawn from a byte string (for property tests that shrink): each
    /// step takes one byte (two when more than 256 choices are runnable) modulo
    /// the number of choices; when the bytes run out the first choice is taken.
    Entropy(Vec<u8>),
}

/// A note the scheduler leaves in the trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SchedNote {
    ScriptDiverged { wanted: Choice, seed: u64 },
    ScriptEnded { seed: u64 },
}

impl fmt::Display for SchedNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedNote::ScriptDiverged { wanted, seed } => write!(
                f,
                "schedule entry {wanted} is not runnable here; the seeded scheduler (seed {seed}) takes over"
            ),
            SchedNote::ScriptEnded { seed } => {
                write!(f, "the schedule has run out; the seeded scheduler (seed {seed}) takes over")
            }
        }
    }
}

/// A policy plus its position. Cloned with the run, so a run can be resumed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scheduler {
    policy: Policy,
    rng: Rng,
    cursor: usize,
    off_script: bool,
}

impl Scheduler {
    pub fn new(policy: Policy) -> Scheduler {
        let seed = match &policy {
            Policy::Seeded(s) => *s,
            Policy::Scripted { fallback_seed, .. } => *fallback_seed,
            _ => 0,
        };
        Scheduler {
            policy,
            rng: Rng::new(seed),
            cursor: 0,
            off_script: false,
        }
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Whether the next [`Scheduler::pick`] looks at every runnable choice (a
    /// script's next choice is looked for among them), not at one.
    pub fn scans(&self) -> bool {
        matches!(self.policy, Policy::Scripted { .. }) && !self.off_script
    }

    /// Picks among `n` runnable choices (`n > 0`, sorted), the `i`-th given by `at(i)`.
    /// `None` under the manual policy.
    pub fn pick(
        &mut self,
        n: u32,
        at: impl Fn(u32) -> Choice,
    ) -> Option<(Choice, Option<SchedNote>)> {
        debug_assert!(n > 0);
        match &self.policy {
            Policy::Manual => None,
            Policy::Seeded(_) => Some((at(self.rng.below(n)), None)),
            Policy::Scripted {
                script,
                fallback_seed,
            } => {
                if !self.off_script {
                    if let Some(want) = script.get(self.cursor).copied() {
                        self.cursor += 1;
                        if (0..n).any(|i| at(i) == want) {
                            return Some((want, None));
                        }
                        self.off_script = true;
                        let c = at(self.rng.below(n));
                        return Some((
                            c,
                            Some(SchedNote::ScriptDiverged {
                                wanted: want,
                                seed: *fallback_seed,
                            }),
                        ));
                    }
                    self.off_script = true;
                    let c = at(self.rng.below(n));
                    return Some((
                        c,
                        Some(SchedNote::ScriptEnded {
                            seed: *fallback_seed,
                        }),
                    ));
                }
                Some((at(self.rng.below(n)), None))
            }
            Policy::Entropy(bytes) => {
                let need = if n > 256 { 2 } else { 1 };
                let idx = if self.cursor + need <= bytes.len() {
                    let mut v = 0u32;
                    for b in &bytes[self.cursor..self.cursor + need] {
                        v = (v << 8) | u32::from(*b);
                    }
                    self.cursor += need;
                    v % n
                } else {
                    0
                };
                Some((at(idx), None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_and_print() {
        assert_eq!(Choice::parse("5.1"), Some(Choice::new(5, 1)));
        assert_eq!(Choice::parse("g3"), Some(Choice::new(3, 0)));
        assert_eq!(Choice::parse("x"), None);
        assert_eq!(
            Choice::parse_list("0, 3 5.1").unwrap(),
            vec![Choice::new(0, 0), Choice::new(3, 0), Choice::new(5, 1)]
        );
        assert!(Choice::parse_list("0,zz").unwrap_err().contains("zz"));
        assert_eq!(Choice::parse_list(" 0 ,\t1 ").unwrap().len(), 2);
        assert_eq!(Choice::parse_list("").unwrap(), vec![]);
        // An entry missing next to a comma is refused, and placed.
        for (text, place) in [
            (",", "before the first comma"),
            ("0,,1", "between commas 1 and 2"),
            ("0, ,1,2", "between commas 1 and 2"),
            ("0,1,", "after the last comma"),
            (", 0", "before the first comma"),
        ] {
            let e = Choice::parse_list(text).unwrap_err();
            assert_eq!(e, format!("an entry is missing {place}"), "{text:?}");
        }
        assert_eq!(
            format_schedule(&[Choice::new(0, 0), Choice::new(5, 1)]),
            "0,5.1"
        );
    }

    #[test]
    fn script_diverges_to_the_seed_and_says_so() {
        let r = [Choice::new(1, 0), Choice::new(2, 0)];
        let mut s = Scheduler::new(Policy::Scripted {
            script: vec![Choice::new(2, 0), Choice::new(9, 0)],
            fallback_seed: 7,
        });
        assert_eq!(
            s.pick(r.len() as u32, |i| r[i as usize]),
            Some((Choice::new(2, 0), None))
        );
        let (_, note) = s.pick(r.len() as u32, |i| r[i as usize]).unwrap();
        assert_eq!(
            note,
            Some(SchedNote::ScriptDiverged {
                wanted: Choice::new(9, 0),
                seed: 7
            })
        );
        assert_eq!(s.pick(r.len() as u32, |i| r[i as usize]).unwrap().1, None);
    }

    #[test]
    fn entropy_takes_bytes_then_the_first_choice() {
        let r = [Choice::new(1, 0), Choice::new(2, 0), Choice::new(3, 0)];
        let mut s = Scheduler::new(Policy::Entropy(vec![5, 1]));
        assert_eq!(
            s.pick(r.len() as u32, |i| r[i as usize]).unwrap().0,
            Choice::new(3, 0)
        );
        assert_eq!(
            s.pick(r.len() as u32, |i| r[i as usize]).unwrap().0,
            Choice::new(2, 0)
        );
        assert_eq!(
            s.pick(r.len() as u32, |i| r[i as usize]).unwrap().0,
            Choice::new(1, 0)
        );
        assert_eq!(
            Scheduler::new(Policy::Manual).pick(r.len() as u32, |i| r[i as usize]),
            None
        );
    }

    /// An entry in the form of one but past a u32 says so; others are not entries.
    #[test]
    fn too_large_entries_say_so() {
        let e = |s: &str| Choice::parse_list(s).unwrap_err();
        assert!(e("0,99999999999").contains("too large"));
        assert!(e("5.99999999999").contains("too large"));
        for bad in ["5.", "1.2.3", "x", "g"] {
            assert!(
                e(bad).contains("is not a schedule entry"),
                "{bad}: {}",
                e(bad)
            );
        }
    }
}
