//! The first outputs of MT19937 after `init_genrand(seed)`, computed without the full state.
//!
//! Lang Wars draws only 6 or 8 numbers per game, while a full MT19937 initialises and twists 624 words
//! first: that would be most of a game's cost. Output `i` (< 227) after the first twist depends only on
//! state words `i`, `i + 1` and `i + 397` of the initial state, so only words `0..=n` and `397..397+n` are
//! needed. Hand-written because no MT crate exposes such a prefix; tested against `rand_mt` (the full
//! generator) below.

const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// At most this many outputs can be asked for (the games need 8).
pub const MAX_PREFIX: usize = 8;

/// The first `out.len()` outputs (`genrand_int32`) of MT19937 seeded with `init_genrand(seed)`.
pub fn genrand_prefix(seed: u32, out: &mut [u32]) {
    let n = out.len();
    assert!(n <= MAX_PREFIX, "at most {MAX_PREFIX} outputs");
    let mut low = [0u32; MAX_PREFIX + 1];
    let mut high = [0u32; MAX_PREFIX];
    let mut word = seed;
    low[0] = word;
    for i in 1..M + n {
        word = 1_812_433_253u32
            .wrapping_mul(word ^ (word >> 30))
            .wrapping_add(i as u32);
        if i <= n {
            low[i] = word;
        }
        if i >= M {
            high[i - M] = word;
        }
    }
    for i in 0..n {
        let y = (low[i] & UPPER_MASK) | (low[i + 1] & LOWER_MASK);
        let mut value = high[i] ^ (y >> 1) ^ if y & 1 == 1 { MATRIX_A } else { 0 };
        // Tempering.
        value ^= value >> 11;
        value ^= (value << 7) & 0x9d2c_5680;
        value ^= (value << 15) & 0xefc6_0000;
        value ^= value >> 18;
        out[i] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_full_generator() {
        for seed in [0u32, 1, 4, 9, 5489, 12345, 0xdead_beef, u32::MAX] {
            let mut full = rand_mt::Mt::new(seed);
            let expected: Vec<u32> = (0..MAX_PREFIX).map(|_| full.next_u32()).collect();
            let mut prefix = [0u32; MAX_PREFIX];
            genrand_prefix(seed, &mut prefix);
            assert_eq!(prefix.to_vec(), expected, "seed {seed}");
        }
    }

    #[test]
    fn reference_value_of_seed_5489() {
        // The first output of the reference mt19937ar.c with its default seed.
        let mut out = [0u32; 1];
        genrand_prefix(5489, &mut out);
        assert_eq!(out[0], 3_499_211_612);
    }
}
