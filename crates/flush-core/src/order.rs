//! One sort for the crate's composite keys.
//!
//! Every `sort_by` over a new element type makes the compiler emit another copy of
//! the standard library's sort (about 5 KB of wasm each). The browser bundle has a
//! size budget, so the setup and view code sort through [`sort_by`], which sorts
//! indices with one non-generic comparator and then moves the elements: one copy of
//! the sort for all of them. Primitive keys (`i64`, `u32`, `usize`) still use
//! `sort_unstable`, which is instantiated once per primitive type.

use std::cmp::Ordering;

/// The indices `0..n` in the order `cmp` gives, equal ones by index.
#[inline(never)]
pub fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_unstable_by(|a, b| cmp(*a, *b).then(a.cmp(b)));
    idx
}

/// Sorts `v` by `cmp`, keeping equal elements in their order (a stable sort).
pub fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let idx = order(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(idx.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts `v` by `key`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// Sorts `v` and removes repeated elements.
pub fn sort_dedup<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
    v.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_and_dedups() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd'), (1, 'e')];
        sort_by_key(&mut v, |x| x.0);
        assert_eq!(v, [(0, 'd'), (1, 'b'), (1, 'e'), (2, 'a'), (2, 'c')]);
        let mut w = vec!["b".to_owned(), "a".to_owned(), "b".to_owned()];
        sort_dedup(&mut w);
        assert_eq!(w, ["a", "b"]);
        let mut e: Vec<u8> = Vec::new();
        sort_dedup(&mut e);
        assert!(e.is_empty());
    }
}
