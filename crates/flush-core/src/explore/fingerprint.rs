//! State fingerprints: a fixed-seed 64-bit hash of a whole state (foldhash's
//! quality variant), a compact set of them, and an estimate of a state's bytes
//! for the memory budget.
//!
//! A fingerprint is the same on every 64-bit machine; in wasm32 it is another
//! (foldhash multiplies 64-bit words by 32-bit halves there, and a `usize` is
//! 4 bytes: native `5d2e1b279dfe48b0`, node `d8759bb8fe392eb7` for
//! `(5u64, 7u32, "a", 9usize)`). No count or schedule depends on the values,
//! only on which states share one (a search up to goroutine ids also orders
//! goroutines by their roles' fingerprints, which changes the order on each
//! target but not which worlds are one): the page and the CLI report alike
//! but for a collision, of two states ([`collision_bound`]) or of two roles'
//! 64-bit keys, which a sync-2024 state's fingerprint hashes for its roles.

use std::hash::{BuildHasher, Hash, Hasher};

use crate::engine::Model;

/// The same seed everywhere: the same scenario gives the same counts and schedules.
const SEED: u64 = 0x5eed_f105_0000_0001;

/// A 64-bit fingerprint of `t` (what the explorer remembers of a visited state).
pub fn fingerprint<T: Hash + ?Sized>(t: &T) -> u64 {
    let mut h = fingerprint_hasher();
    t.hash(&mut h);
    h.finish()
}

/// The hasher of [`fingerprint`], for a model that feeds it a state's parts
/// itself (see `Model::fingerprint_up_to_ids`).
pub fn fingerprint_hasher() -> impl Hasher {
    let h = foldhash::quality::FixedState::with_seed(SEED).build_hasher();
    // On 64-bit targets foldhash's own `u128` sponge is cheaper (callgrind,
    // sync-scaled-3x3 depth first: 1% fewer instructions than [`Sponge`]).
    #[cfg(target_pointer_width = "32")]
    let h = Sponge::new(h);
    h
}

/// foldhash's hasher with its numbers gathered here, in two `u64` halves,
/// instead of in its `u128` sponge: on wasm32 a `u128` shifted by a variable
/// amount is a call (`__ashlti3`), 4% of the worker's search (node
/// `--cpu-prof`, sync-scaled-5x3 depth first). The bits, the points where a
/// full sponge is mixed in ([`Hasher::write_u128`] mixes exactly as foldhash
/// does a full sponge) and byte writes (which foldhash mixes in without
/// touching its sponge) are foldhash 0.2's own (`fast.rs`, `write_num`), so
/// every fingerprint is the one foldhash gives; a test checks it.
#[cfg(any(test, target_pointer_width = "32"))]
struct Sponge<H> {
    inner: H,
    lo: u64,
    hi: u64,
    /// Bits gathered, up to 128.
    len: u32,
}

#[cfg(any(test, target_pointer_width = "32"))]
impl<H: Hasher> Sponge<H> {
    fn new(inner: H) -> Self {
        Sponge {
            inner,
            lo: 0,
            hi: 0,
            len: 0,
        }
    }

    #[inline(always)]
    fn num(&mut self, x: u64, bits: u32) {
        if self.len + bits > 128 {
            self.inner
                .write_u128(u128::from(self.lo) | (u128::from(self.hi) << 64));
            (self.lo, self.hi, self.len) = (x, 0, bits);
        } else {
            if self.len < 64 {
                self.lo |= x << self.len;
                if self.len > 0 && self.len + bits > 64 {
                    self.hi |= x >> (64 - self.len);
                }
            } else {
                self.hi |= x << (self.len - 64);
            }
            self.len += bits;
        }
    }
}

#[cfg(any(test, target_pointer_width = "32"))]
impl<H: Hasher + Clone> Hasher for Sponge<H> {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        self.inner.write(bytes);
    }
    #[inline(always)]
    fn write_u8(&mut self, i: u8) {
        self.num(i.into(), 8);
    }
    #[inline(always)]
    fn write_u16(&mut self, i: u16) {
        self.num(i.into(), 16);
    }
    #[inline(always)]
    fn write_u32(&mut self, i: u32) {
        self.num(i.into(), 32);
    }
    #[inline(always)]
    fn write_u64(&mut self, i: u64) {
        self.num(i, 64);
    }
    #[inline(always)]
    fn write_u128(&mut self, i: u128) {
        self.inner.write_u128(i);
    }
    #[inline(always)]
    fn write_usize(&mut self, i: usize) {
        // As foldhash: the pointer's width.
        #[cfg(target_pointer_width = "32")]
        self.num(i as u64, 32);
        #[cfg(not(target_pointer_width = "32"))]
        self.num(i as u64, 64);
    }
    #[inline(always)]
    fn finish(&self) -> u64 {
        if self.len == 0 {
            return self.inner.finish();
        }
        // foldhash mixes a partial sponge in at the end as a full one.
        let mut h = self.inner.clone();
        h.write_u128(u128::from(self.lo) | (u128::from(self.hi) << 64));
        h.finish()
    }
}

/// An upper bound on the chance that two of `n` distinct states share a 64-bit
/// fingerprint (so that one was taken for the other and not explored):
/// n(n-1)/2 pairs, each colliding with probability 2^-64.
pub fn collision_bound(n: u64) -> f64 {
    let n = n as f64;
    (n * (n - 1.0) / 2.0 / 18_446_744_073_709_551_616.0).min(1.0)
}

/// Counts the bytes a value feeds its hasher: its data, without allocator slack.
/// A `usize` (a length, an index) counts 8 bytes on every target, as on a 64-bit
/// machine: the page (wasm32) and the CLI estimate a state alike.
#[derive(Default)]
struct Counter(usize);

impl Hasher for Counter {
    fn write(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
    fn write_usize(&mut self, _: usize) {
        self.0 += 8;
    }
    fn write_isize(&mut self, _: isize) {
        self.0 += 8;
    }
    fn finish(&self) -> u64 {
        self.0 as u64
    }
}

/// An estimate of the memory one value takes: its inline size plus its data
/// counted through `Hash`, with half again for allocation headers and slack.
pub fn state_bytes<T: Hash>(t: &T) -> u64 {
    bytes_with_inline(t, std::mem::size_of::<T>())
}

/// [`state_bytes`] of a model's state, with the inline size the state has on a
/// 64-bit machine ([`Model::STATE_SIZE_64`]) on every target: a search that
/// stops at a byte budget stops at the same state in the page and in the CLI.
pub fn model_state_bytes<M: Model>(s: &M::State) -> u64 {
    bytes_with_inline(s, M::STATE_SIZE_64)
}

pub(crate) fn bytes_with_inline<T: Hash>(t: &T, inline: usize) -> u64 {
    let mut c = Counter::default();
    t.hash(&mut c);
    (inline + c.0 + c.0 / 2) as u64
}

/// A set of fingerprints: open addressing, linear probing, 8 bytes a slot. It
/// grows by 7/4 when 7/8 full, so it holds between 9.2 and 16 bytes per entry.
#[derive(Default)]
pub struct FpSet {
    slots: Vec<u64>,
    len: usize,
}

/// A slot that holds nothing: fingerprint 0 is stored as 1.
const EMPTY: u64 = 0;
const MIN_SLOTS: usize = 1024;

impl FpSet {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties it, keeping its table.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = EMPTY);
        self.len = 0;
    }

    /// The bytes its table takes.
    pub fn bytes(&self) -> u64 {
        (self.slots.len() * 8) as u64
    }

    /// The bytes its table will take after the next insert (the old and the new
    /// table both live while it grows).
    pub fn bytes_to_insert(&self) -> u64 {
        if self.needs_growth() {
            self.bytes() + (Self::grown(self.slots.len()) * 8) as u64
        } else {
            self.bytes()
        }
    }

    fn needs_growth(&self) -> bool {
        (self.len + 1) * 8 > self.slots.len() * 7
    }

    fn grown(n: usize) -> usize {
        (n / 4 * 7).max(MIN_SLOTS)
    }

    /// The most [`FpSet::bytes_to_insert`] says over a search that visits
    /// `states` states (its table grows at the same counts whatever their
    /// order), counting a growth due at the last as made.
    pub fn peak_bytes_for(states: u64) -> u64 {
        let (mut slots, mut peak) = (0u64, 0u64);
        while states >= slots * 7 / 8 {
            let grown = Self::grown(slots as usize) as u64;
            peak = peak.max((slots + grown) * 8);
            slots = grown;
        }
        peak
    }

    /// Whether `fp` is in the set.
    pub fn contains(&self, fp: u64) -> bool {
        let fp = if fp == EMPTY { 1 } else { fp };
        let n = self.slots.len();
        if n == 0 {
            return false;
        }
        let mut i = Self::home(fp, n);
        loop {
            match self.slots[i] {
                EMPTY => return false,
                x if x == fp => return true,
                _ => i = if i + 1 == n { 0 } else { i + 1 },
            }
        }
    }

    /// Grows the table as an insert would before it looks (an insert of a
    /// fingerprint already there grows a table due to grow too), without adding.
    pub fn grow_if_due(&mut self) {
        if self.needs_growth() {
            self.grow();
        }
    }

    /// Asks for the memory of the slot an insert of `fp` looks at first: a
    /// table past the caches misses there once per transition (perf,
    /// sync-scaled-5x3 depth first: the load of that slot was 20% of the
    /// search). A hint only: a table that grows before the insert just looks
    /// elsewhere.
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        let n = self.slots.len();
        if n > 0 {
            let fp = if fp == EMPTY { 1 } else { fp };
            super::prefetch::slice(&self.slots[Self::home(fp, n)..][..1]);
        }
    }

    /// Adds `fp`; false when it was there already.
    pub fn insert(&mut self, fp: u64) -> bool {
        let fp = if fp == EMPTY { 1 } else { fp };
        self.grow_if_due();
        let n = self.slots.len();
        let mut i = Self::home(fp, n);
        loop {
            match self.slots[i] {
                EMPTY => {
                    self.slots[i] = fp;
                    self.len += 1;
                    return true;
                }
                x if x == fp => return false,
                _ => i = if i + 1 == n { 0 } else { i + 1 },
            }
        }
    }

    /// The first slot to try: the fingerprint scaled onto the table (its high
    /// bits, so a table of any size works).
    fn home(fp: u64, n: usize) -> usize {
        #[cfg(not(target_pointer_width = "32"))]
        return ((u128::from(fp) * n as u128) >> 64) as usize;
        // A u128 product is a call on wasm32 (`__multi3`, 1% of the worker's
        // search); with `n` below 2^32 the same high word comes from two u64
        // products (a test checks both ways agree).
        #[cfg(target_pointer_width = "32")]
        return home32(fp, n as u32) as usize;
    }

    fn grow(&mut self) {
        let grown = vec![EMPTY; Self::grown(self.slots.len())];
        let old = std::mem::replace(&mut self.slots, grown);
        let n = self.slots.len();
        for fp in old.into_iter().filter(|&x| x != EMPTY) {
            let mut i = Self::home(fp, n);
            while self.slots[i] != EMPTY {
                i = if i + 1 == n { 0 } else { i + 1 };
            }
            self.slots[i] = fp;
        }
    }
}

/// A fingerprint and the depth its state was first visited at, in 10 bytes
/// (one cache line holds the probes of a lookup, mostly).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy)]
#[repr(C, packed(2))]
struct Slot {
    fp: u64,
    depth: u16,
}

/// Fingerprints with the depth each state was first visited at, for
/// [`SharedFpSet`]'s shards: [`FpSet`]'s table, each slot with its depth.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct DepthSet {
    slots: Vec<Slot>,
    len: usize,
}

#[cfg(not(target_arch = "wasm32"))]
impl DepthSet {
    /// The bytes its table takes.
    fn bytes(&self) -> u64 {
        std::mem::size_of_val(&self.slots[..]) as u64
    }

    fn needs_growth(&self) -> bool {
        (self.len + 1) * 8 > self.slots.len() * 7
    }

    /// The slot of `fp` (stored as [`FpSet`] stores it), or the empty one it goes in.
    fn slot(&self, fp: u64) -> usize {
        let n = self.slots.len();
        let mut i = FpSet::home(fp, n);
        loop {
            let at = self.slots[i].fp;
            if at == EMPTY || at == fp {
                return i;
            }
            i = if i + 1 == n { 0 } else { i + 1 };
        }
    }

    /// Adds `fp` first visited at `depth`: `None` when it is new, else the
    /// depth it was first visited at.
    fn insert(&mut self, fp: u64, depth: u16) -> Option<u16> {
        let fp = if fp == EMPTY { 1 } else { fp };
        if self.needs_growth() {
            let empty = Slot {
                fp: EMPTY,
                depth: 0,
            };
            let n = FpSet::grown(self.slots.len());
            let old = std::mem::replace(&mut self.slots, vec![empty; n]);
            for e in old.into_iter().filter(|e| e.fp != EMPTY) {
                let i = self.slot(e.fp);
                self.slots[i] = e;
            }
        }
        let i = self.slot(fp);
        let at = self.slots[i];
        if at.fp == fp {
            return Some(at.depth);
        }
        self.slots[i] = Slot { fp, depth };
        self.len += 1;
        None
    }
}

/// A shard of [`SharedFpSet`]: its set behind a lock, a cache line of its
/// own (two threads' locks of neighbouring shards took turns at one line).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
#[repr(align(128))]
struct Shard {
    set: std::sync::Mutex<DepthSet>,
}

/// Where a shard's table is and its slots, kept as it grows and read without
/// its lock: for a prefetch (a table just replaced may be asked for) and the
/// memory budget. Written only when a table grows, so both threads' caches
/// keep them.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct Table {
    at: std::sync::atomic::AtomicPtr<Slot>,
    slots: std::sync::atomic::AtomicUsize,
}

/// A set of fingerprints several threads insert into at once (depth first on
/// several threads, [`super::swarm`]), each with the depth its state was
/// first visited at: [`DepthSet`]s in shards by the low bits of a fingerprint
/// (a table places one by its high bits), each behind its own lock, so two
/// threads rarely wait on one. 10 bytes a slot, 11.4 to 20 a state.
#[cfg(not(target_arch = "wasm32"))]
pub struct SharedFpSet {
    shards: Box<[Shard]>,
    tables: Box<[Table]>,
    /// The bytes of the shards' tables, kept as they grow.
    bytes: std::sync::atomic::AtomicU64,
    /// Some state was reached at a depth other than the one it was first
    /// visited at: paths of two lengths lead to it.
    ungraded: std::sync::atomic::AtomicBool,
    /// States the searches have visited, as they tell ([`SharedFpSet::add_states`]).
    states: std::sync::atomic::AtomicU64,
}

#[cfg(not(target_arch = "wasm32"))]
impl SharedFpSet {
    const SHARDS: u64 = 256;

    pub fn new() -> SharedFpSet {
        let shards = (0..Self::SHARDS).map(|_| Shard::default()).collect();
        let tables = (0..Self::SHARDS).map(|_| Table::default()).collect();
        SharedFpSet {
            shards,
            tables,
            bytes: Default::default(),
            ungraded: Default::default(),
            states: Default::default(),
        }
    }

    /// Counts `n` more states visited (a search tells a few at a time, so
    /// that the threads do not take turns at one line per state).
    pub fn add_states(&self, n: u64) {
        self.states
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// The states visited, as told so far.
    pub fn states(&self) -> u64 {
        self.states.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The shard of `fp`: by its low bits, as stored (0 as 1, as [`FpSet`]
    /// stores it, so the two are one state in both sets).
    fn shard_of(fp: u64) -> usize {
        (fp.max(1) % Self::SHARDS) as usize
    }

    fn lock(&self, fp: u64) -> std::sync::MutexGuard<'_, DepthSet> {
        let set = &self.shards[Self::shard_of(fp)].set;
        set.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn table(&self, fp: u64) -> &Table {
        &self.tables[Self::shard_of(fp)]
    }

    /// Asks for the memory of the slot an insert of `fp` looks at first (see
    /// [`FpSet::prefetch`]).
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let table = self.table(fp);
        let n = table.slots.load(Relaxed);
        if n > 0 {
            let fp = if fp == EMPTY { 1 } else { fp };
            let at = table.at.load(Relaxed).wrapping_add(FpSet::home(fp, n));
            super::prefetch::address(at.cast());
        }
    }

    /// Adds `fp`, reached at `depth`; false when it was there already
    /// (another thread's insert counts), and then notes whether it was first
    /// visited at another depth ([`SharedFpSet::ungraded`]).
    pub fn insert(&self, fp: u64, depth: u32) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let Ok(depth) = u16::try_from(depth) else {
            self.ungraded.store(true, Relaxed);
            return false;
        };
        let mut s = self.lock(fp);
        let before = s.bytes();
        let found = s.insert(fp, depth);
        if s.bytes() != before {
            self.bytes.fetch_add(s.bytes() - before, Relaxed);
            let table = self.table(fp);
            table.at.store(s.slots.as_mut_ptr(), Relaxed);
            table.slots.store(s.slots.len(), Relaxed);
        }
        drop(s);
        match found {
            None => true,
            Some(d) => {
                if d != depth {
                    self.ungraded.store(true, Relaxed);
                }
                false
            }
        }
    }

    pub fn contains(&self, fp: u64) -> bool {
        let s = self.lock(fp);
        let fp = if fp == EMPTY { 1 } else { fp };
        !s.slots.is_empty() && s.slots[s.slot(fp)].fp == fp
    }

    /// The bytes the tables take.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The bytes the tables may take after `fp` is inserted: as if its
    /// shard's table grew (both of its tables live while it grows), so at
    /// most a shard's grown table more than an exact count, which would take
    /// the shard's lock a second time per lookup.
    pub fn bytes_to_insert(&self, fp: u64) -> u64 {
        let slots = self
            .table(fp)
            .slots
            .load(std::sync::atomic::Ordering::Relaxed);
        self.bytes() + (FpSet::grown(slots) * size_of::<Slot>()) as u64
    }

    /// Whether some state was reached by paths of two lengths (a state's
    /// depth then depends on the order of the search). Not seen, every path
    /// from the start to a state has one length: each step that looked a
    /// state up arrived at the depth it was first visited at.
    pub fn ungraded(&self) -> bool {
        self.ungraded.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// One thread's memory of the fingerprints it has put into or found in a
/// [`SharedFpSet`], with their depths: direct mapped, a slot per few bits of a
/// fingerprint, the last one met there kept. Three steps in four reach a
/// state visited before, most often one this thread reached a few steps back
/// (the other order of two steps that commute); found here, the shared set's
/// lock is not taken, and its line does not cross to this thread's core.
/// [`SLOTS`](Recent::SLOTS) × 10 bytes, counted in the shared set's bytes.
#[cfg(not(target_arch = "wasm32"))]
pub struct Recent {
    fps: Box<[u64]>,
    depths: Box<[u16]>,
}

#[cfg(not(target_arch = "wasm32"))]
impl Recent {
    const SLOTS: usize = 1 << 14;

    /// A thread's memory, its bytes added to `set`'s.
    pub fn new(set: &SharedFpSet) -> Recent {
        let bytes = Self::SLOTS * (size_of::<u64>() + size_of::<u16>());
        set.bytes
            .fetch_add(bytes as u64, std::sync::atomic::Ordering::Relaxed);
        Recent {
            fps: vec![EMPTY; Self::SLOTS].into_boxed_slice(),
            depths: vec![0; Self::SLOTS].into_boxed_slice(),
        }
    }

    /// As [`SharedFpSet::insert`] (0 is 1 there too): a fingerprint this
    /// thread met at its slot is not looked up again, and a depth other than
    /// the one it was met at is told as the shared set tells it. A depth met
    /// there is the state's first depth, or the set has been told of another.
    pub fn insert(&mut self, set: &SharedFpSet, fp: u64, depth: u32) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let fp = if fp == EMPTY { 1 } else { fp };
        let i = (fp >> 8) as usize & (Self::SLOTS - 1);
        if self.fps[i] == fp {
            if u32::from(self.depths[i]) != depth {
                set.ungraded.store(true, Relaxed);
            }
            return false;
        }
        let new = set.insert(fp, depth);
        if let Ok(d) = u16::try_from(depth) {
            (self.fps[i], self.depths[i]) = (fp, d);
        }
        new
    }
}

/// `fp * n / 2^64` rounded down, in u64 arithmetic: `(fp >> 32) * n` and the
/// low half's product shifted down cannot overflow when added (at most
/// `2^64 - 2^33 + 1` and `2^32 - 1`).
#[cfg(any(test, target_pointer_width = "32"))]
fn home32(fp: u64, n: u32) -> u64 {
    let n = u64::from(n);
    ((fp >> 32) * n + (((fp & 0xffff_ffff) * n) >> 32)) >> 32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared set keeps every fingerprint and its first depth across its
    /// shards' growth, tells a state reached again at another depth, and
    /// takes 10 bytes a slot.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_shared_set_keeps_each_first_depth() {
        assert_eq!(size_of::<Slot>(), 10);
        let set = SharedFpSet::new();
        let fps: Vec<u64> = (0..100_000u64).map(|i| fingerprint(&i)).collect();
        for (i, &fp) in fps.iter().enumerate() {
            assert!(set.insert(fp, (i % 50) as u32));
        }
        assert!(set.insert(0, 3) && set.contains(0) && !set.insert(0, 3));
        for (i, &fp) in fps.iter().enumerate() {
            assert!(set.contains(fp) && !set.insert(fp, (i % 50) as u32));
        }
        assert!(!set.ungraded());
        assert!(!set.contains(fingerprint(&100_000u64)));
        assert!(!set.insert(fps[7], 8));
        assert!(set.ungraded());
        // 100,001 fingerprints over 256 shards, each at most 7/8 full.
        assert!(set.bytes() >= 100_001 * 10 * 8 / 7, "{}", set.bytes());
        // A depth no slot holds stops the search (it is told as a mismatch).
        let deep = SharedFpSet::new();
        assert!(!deep.insert(1, 70_000) && deep.ungraded());
    }

    /// A thread's memory of the shared set answers as the set does: what
    /// another thread put there is found, a state met again at another depth
    /// is told, 0 is 1, and its bytes are counted in the set's.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_threads_memory_of_the_shared_set_answers_as_the_set() {
        let set = SharedFpSet::new();
        let empty = set.bytes();
        let (mut a, mut b) = (Recent::new(&set), Recent::new(&set));
        assert_eq!(set.bytes() - empty, 2 * Recent::SLOTS as u64 * 10);
        let fps: Vec<u64> = (0..3 * Recent::SLOTS as u64)
            .map(|i| fingerprint(&i))
            .collect();
        for (i, &fp) in fps.iter().enumerate() {
            assert!(a.insert(&set, fp, (i % 7) as u32), "{i}");
            assert!(!a.insert(&set, fp, (i % 7) as u32), "{i}");
        }
        // Most are no longer in `a`'s memory; each is in the set.
        for (i, &fp) in fps.iter().enumerate() {
            assert!(!a.insert(&set, fp, (i % 7) as u32) && !b.insert(&set, fp, (i % 7) as u32));
        }
        assert!(!set.ungraded());
        assert!(b.insert(&set, 0, 3) && !a.insert(&set, 1, 3) && !b.insert(&set, 0, 3));
        assert!(!set.ungraded());
        // In `b`'s memory at depth 3: another depth is told without the set.
        assert!(!b.insert(&set, 0, 4));
        assert!(set.ungraded());
        let deep = SharedFpSet::new();
        let mut c = Recent::new(&deep);
        assert!(!c.insert(&deep, 5, 70_000) && deep.ungraded());
        assert!(c.insert(&deep, 5, 9), "a depth beyond u16 is not kept");
    }

    #[test]
    fn a_slot_is_placed_alike_on_32_and_64_bit_targets() {
        for i in 0..100_000u64 {
            let x = fingerprint(&i);
            for n in [1u32, 1024, 1792, 1 << 20, u32::MAX - 1, u32::MAX] {
                let wide = (u128::from(x) * u128::from(n)) >> 64;
                assert_eq!(u128::from(home32(x, n)), wide, "{x} * {n}");
            }
        }
        assert_eq!(home32(u64::MAX, u32::MAX), u64::from(u32::MAX) - 1);
    }

    #[test]
    fn the_set_keeps_every_fingerprint_once_across_growth() {
        let mut s = FpSet::default();
        for i in 0..50_000u64 {
            assert!(s.insert(fingerprint(&i)));
        }
        assert!(
            s.insert(0) && !s.insert(0) && !s.insert(1),
            "0 is stored as 1"
        );
        for i in 0..50_000u64 {
            assert!(!s.insert(fingerprint(&i)), "{i} was inserted before");
        }
        assert!((0..50_000u64).all(|i| s.contains(fingerprint(&i))));
        assert!(!(50_000..60_000u64).any(|i| s.contains(fingerprint(&i))));
        assert!(!FpSet::default().contains(7) && s.contains(0));
        assert_eq!(s.len(), 50_001);
        let per = s.bytes() as f64 / s.len() as f64;
        assert!((9.0..=16.0).contains(&per), "{per} bytes per fingerprint");
    }

    /// The sponge gives foldhash's own hashes: every mix of numbers of each
    /// width, byte runs and strings, so every way its halves fill and spill.
    #[test]
    fn the_sponge_hashes_as_foldhash_does() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for _ in 0..20_000 {
            let mut ours =
                Sponge::new(foldhash::quality::FixedState::with_seed(SEED).build_hasher());
            let mut theirs = foldhash::quality::FixedState::with_seed(SEED).build_hasher();
            for _ in 0..next() % 12 {
                let x = next();
                match next() % 8 {
                    0 => (ours.write_u8(x as u8), theirs.write_u8(x as u8)),
                    1 => (ours.write_u16(x as u16), theirs.write_u16(x as u16)),
                    2 => (ours.write_u32(x as u32), theirs.write_u32(x as u32)),
                    3 => (ours.write_u64(x), theirs.write_u64(x)),
                    4 => (ours.write_usize(x as usize), theirs.write_usize(x as usize)),
                    5 => {
                        let i = u128::from(x) << 64 | u128::from(next());
                        (ours.write_u128(i), theirs.write_u128(i))
                    }
                    6 => {
                        let b = x.to_le_bytes();
                        let n = (next() % 9) as usize;
                        (ours.write(&b[..n]), theirs.write(&b[..n]))
                    }
                    _ => {
                        let s = format!("segment {x}");
                        (s.hash(&mut ours), s.hash(&mut theirs))
                    }
                };
            }
            assert_eq!(ours.finish(), theirs.finish());
        }
        let t = (1u8, 2u16, 3u32, 4u64, "five", [6usize; 7], Some(8i64));
        let mut ours = Sponge::new(foldhash::quality::FixedState::with_seed(SEED).build_hasher());
        t.hash(&mut ours);
        assert_eq!(ours.finish(), fingerprint(&t));
    }

    #[test]
    fn fingerprints_are_fixed() {
        // The same on every run: a state's fingerprint depends on nothing else.
        assert_eq!(fingerprint(&(1u32, "a")), fingerprint(&(1u32, "a")));
        assert_ne!(fingerprint(&(1u32, "a")), fingerprint(&(2u32, "a")));
        // The value the module's words give (and a change of hasher shows here).
        #[cfg(target_pointer_width = "64")]
        assert_eq!(
            fingerprint(&(5u64, 7u32, "a", 9usize)),
            0x5d2e_1b27_9dfe_48b0
        );
        assert!(collision_bound(1_000_000) < 3e-8);
        assert_eq!(collision_bound(1), 0.0);
    }
}
