//! The engine's own PRNG: SplitMix64. Never the OS, never `usize`, so a seed
//! gives the same numbers natively and in wasm32.

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0), by Lemire's multiply-shift: no modulo bias worth
    /// noticing for the small n a scheduler sees, and the same on every target.
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        ((u64::from(self.next_u64() as u32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_bounded() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for n in 1..200u32 {
            let x = a.below(n);
            assert_eq!(x, b.below(n));
            assert!(x < n);
        }
        // Pinned values: a change of generator would silently change every seeded trace.
        let mut r = Rng::new(1);
        assert_eq!(r.next_u64(), 0x910A_2DEC_8902_5CC1);
    }
}
