//! A list shared between a model's states until one of them writes it, with its
//! fingerprint cached.
//!
//! The explorer copies a state per transition and fingerprints each copy. A
//! state with thousands of segments that a step does not touch (a metacache, a
//! datacoord meta) would cost a copy and a hash of every one of them per
//! transition; a [`Shared`] list costs a reference count and a cached `u64`
//! instead, and a step that writes it copies it once ([`std::sync::Arc::make_mut`]).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

/// A `Vec<T>`, behind an [`Arc`] when it is long: reading is reading the
/// vector; writing (any `&mut` use, through [`DerefMut`]) copies a shared one
/// first, and forgets its cached fingerprint. A short list (under
/// [`SHARE_FROM`] items when made) is a plain vector, copied with its state as
/// before: an allocation per write would cost it more than the copy.
///
/// It hashes, compares and prints as the vector does (so a state's [`Hash`], what
/// the explorer's byte budget counts, is unchanged); [`Shared::hash_fingerprint`]
/// feeds a hasher the list's fingerprint, computed once per version of the list.
pub struct Shared<T>(Repr<T>);

enum Repr<T> {
    /// With its fingerprint once asked for (0: not known), forgotten at a write
    /// (a step writes a short list less often than the explorer fingerprints
    /// it). An atomic rather than a `OnceLock`: 8 bytes less in every state.
    Own(Vec<T>, AtomicU64),
    Arc(Arc<Inner<T>>),
}

/// Lists this long or longer when made are shared.
pub const SHARE_FROM: usize = 64;

struct Inner<T> {
    items: Vec<T>,
    fingerprint: OnceLock<u64>,
}

impl<T: Clone> Clone for Inner<T> {
    fn clone(&self) -> Inner<T> {
        Inner {
            items: self.items.clone(),
            fingerprint: self.fingerprint.clone(),
        }
    }
}

impl<T> Shared<T> {
    pub fn new(items: Vec<T>) -> Shared<T> {
        Shared(if items.len() < SHARE_FROM {
            Repr::Own(items, AtomicU64::new(0))
        } else {
            Repr::Arc(Arc::new(Inner {
                items,
                fingerprint: OnceLock::new(),
            }))
        })
    }

    /// True when the list is long enough to be shared (see [`SHARE_FROM`]).
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Arc(_))
    }

    /// True when both are the same shared list (no copy was made since one was
    /// cloned from the other).
    pub fn same(&self, o: &Shared<T>) -> bool {
        match (&self.0, &o.0) {
            (Repr::Arc(a), Repr::Arc(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl<T: Hash> Shared<T> {
    /// Feeds `h` the list's [`crate::explore::fingerprint`], computed once per
    /// version of a long list. The same items give the same fingerprint
    /// whichever way they are held (a long list cut short stays shared, and a
    /// short one grown long by a write stays plain).
    pub fn hash_fingerprint<H: Hasher>(&self, h: &mut H) {
        h.write_u64(match &self.0 {
            Repr::Own(v, known) => match known.load(Relaxed) {
                0 => {
                    let fp = crate::explore::fingerprint(v);
                    known.store(fp, Relaxed);
                    fp
                }
                fp => fp,
            },
            Repr::Arc(a) => *a
                .fingerprint
                .get_or_init(|| crate::explore::fingerprint(&a.items)),
        })
    }
}

impl<T> Default for Shared<T> {
    fn default() -> Shared<T> {
        Shared::new(Vec::new())
    }
}

/// A long list: a new reference, not a copy.
impl<T: Clone> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared(match &self.0 {
            Repr::Own(v, fp) => Repr::Own(v.clone(), AtomicU64::new(fp.load(Relaxed))),
            Repr::Arc(a) => Repr::Arc(Arc::clone(a)),
        })
    }
    /// A short list into a short one reuses its buffer (the explorer clones
    /// into spare states).
    fn clone_from(&mut self, o: &Shared<T>) {
        match (&mut self.0, &o.0) {
            (Repr::Own(a, fa), Repr::Own(b, fb)) => {
                a.clone_from(b);
                *fa.get_mut() = fb.load(Relaxed);
            }
            _ => *self = o.clone(),
        }
    }
}

impl<T> Deref for Shared<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        match &self.0 {
            Repr::Own(v, _) => v,
            Repr::Arc(a) => &a.items,
        }
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        match &mut self.0 {
            Repr::Own(v, fp) => {
                *fp.get_mut() = 0;
                v
            }
            Repr::Arc(a) => {
                let inner = Arc::make_mut(a);
                inner.fingerprint = OnceLock::new();
                &mut inner.items
            }
        }
    }
}

impl<'a, T> IntoIterator for &'a Shared<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T> From<Vec<T>> for Shared<T> {
    fn from(items: Vec<T>) -> Shared<T> {
        Shared::new(items)
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, o: &Shared<T>) -> bool {
        self.same(o) || **self == **o
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: Hash> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (**self).hash(h)
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{fingerprint, fingerprint_hasher};

    fn fp<T: Hash>(s: &Shared<T>) -> u64 {
        let mut h = fingerprint_hasher();
        s.hash_fingerprint(&mut h);
        h.finish()
    }

    #[test]
    fn a_write_copies_a_shared_list_and_renews_its_fingerprint() {
        let long: Vec<u32> = (0..SHARE_FROM as u32).collect();
        let a = Shared::new(long.clone());
        let fa = fp(&a);
        let mut b = a.clone();
        assert!(b.same(&a));
        // Reading does not copy.
        assert_eq!(b.iter().count(), SHARE_FROM);
        assert!(b.same(&a));
        b.push(4);
        assert!(!b.same(&a));
        assert_eq!(*a, long);
        assert_ne!(fp(&b), fa);
        // Back to the same items: equal, same fingerprint, another list.
        b.pop();
        assert!(!b.same(&a));
        assert_eq!(b, a);
        assert_eq!(fp(&b), fa);
        // It hashes as the vector does.
        assert_eq!(fingerprint(&b), fingerprint(&long));
        // A list nobody else holds is written in place, and its fingerprint renewed.
        let p = b.as_ptr();
        b[0] = 7;
        assert_eq!(b.as_ptr(), p);
        assert_ne!(fp(&b), fa);
        b[0] = 0;
        assert_eq!(fp(&b), fa);
    }

    #[test]
    fn a_short_list_is_a_plain_vector() {
        let a = Shared::new(vec![1u32, 2, 3]);
        let mut b = a.clone();
        assert!(!b.same(&a));
        b.push(4);
        assert_eq!(*a, vec![1, 2, 3]);
        assert_eq!(fingerprint(&b), fingerprint(&vec![1u32, 2, 3, 4]));
        // The same items held either way give one fingerprint.
        let mut long = Shared::new((0..SHARE_FROM as u32 + 1).collect());
        long.pop();
        assert!(long.is_shared());
        let plain = Shared::new((0..SHARE_FROM as u32).collect::<Vec<_>>());
        let mut grown = Shared::new((0..SHARE_FROM as u32 - 1).collect());
        grown.push(SHARE_FROM as u32 - 1);
        assert!(!grown.is_shared() && plain.is_shared());
        assert_eq!(fp(&long), fp(&plain));
        assert_eq!(fp(&grown), fp(&plain));
        // A write to a short list renews its cached fingerprint, and a copy
        // keeps it.
        let mut s = Shared::new(vec![1u32, 2, 3]);
        let f = fp(&s);
        s[0] = 9;
        assert_ne!(fp(&s), f);
        let mut copy = Shared::new(vec![5u32]);
        copy.clone_from(&s);
        assert_eq!((fp(&copy), fp(&s.clone())), (fp(&s), fp(&s)));
        s[0] = 1;
        assert_eq!(fp(&s), f);
        assert_eq!(fp(&s), fp(&Shared::new(vec![1u32, 2, 3])));
        let mut c = Shared::new(vec![9u32; 2]);
        let p = c.as_ptr();
        c.clone_from(&a);
        assert_eq!((c.as_ptr(), &*c), (p, &vec![1, 2, 3]));
    }
}
