//! Seeds. Every random choice in arena comes from a named generator seeded from the game seed, so a game
//! replays exactly.

use rand_pcg::Pcg64Mcg;

/// The generator of built-in bots (PCG64 MCG, stable output across crate versions).
pub type BotRng = Pcg64Mcg;

/// SplitMix64 step: derives independent seeds (per seat, per game of a tournament) from one seed.
/// Hand-written because it is one published mixing function, not worth a dependency.
pub fn derive_seed(base: u64, stream: u64) -> u64 {
    let mut z = base ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A bot generator for `seed`.
pub fn bot_rng(seed: u64) -> BotRng {
    use rand_core::SeedableRng;
    BotRng::seed_from_u64(seed)
}

/// Uniform-enough integer in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for small `n`,
/// irrelevant for bot play and much faster than rejection).
#[inline]
pub fn below(rng: &mut BotRng, n: u32) -> u32 {
    use rand_core::RngCore;
    ((rng.next_u32() as u64 * n as u64) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_seeds_differ_and_repeat() {
        assert_eq!(derive_seed(7, 1), derive_seed(7, 1));
        assert_ne!(derive_seed(7, 1), derive_seed(7, 2));
        assert_ne!(derive_seed(7, 1), derive_seed(8, 1));
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = bot_rng(3);
        for n in 1..50 {
            assert!(below(&mut rng, n) < n);
        }
    }
}
