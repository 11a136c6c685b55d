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
        out[i] = twist_and_temper(low[i], low[i + 1], high[i]);
    }
}

/// Seeds interleaved by [`genrand_prefix_lanes`].
pub const LANES: usize = 32;

/// [`genrand_prefix`] for `LANES` seeds at once. The initialisation is one long chain of dependent
/// multiplications per seed; running independent chains side by side hides the latency (with AVX2,
/// four vectors of eight seeds in flight: about 15x faster per seed than one seed at a time here).
pub fn genrand_prefix_lanes(seeds: [u32; LANES], n: usize) -> [[u32; MAX_PREFIX]; LANES] {
    assert!(n <= MAX_PREFIX, "at most {MAX_PREFIX} outputs");
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { prefix_lanes_avx2(seeds, n) };
    }
    prefix_lanes(seeds, n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn prefix_lanes_avx2(seeds: [u32; LANES], n: usize) -> [[u32; MAX_PREFIX]; LANES] {
    prefix_lanes(seeds, n)
}

#[inline(always)]
fn prefix_lanes(seeds: [u32; LANES], n: usize) -> [[u32; MAX_PREFIX]; LANES] {
    let mut low = [[0u32; LANES]; MAX_PREFIX + 1];
    let mut high = [[0u32; LANES]; MAX_PREFIX];
    let mut words = seeds;
    low[0] = words;
    for i in 1..M + n {
        for word in &mut words {
            *word = 1_812_433_253u32
                .wrapping_mul(*word ^ (*word >> 30))
                .wrapping_add(i as u32);
        }
        if i <= n {
            low[i] = words;
        }
        if i >= M {
            high[i - M] = words;
        }
    }
    let mut out = [[0u32; MAX_PREFIX]; LANES];
    for (lane, outputs) in out.iter_mut().enumerate() {
        for i in 0..n {
            outputs[i] = twist_and_temper(low[i][lane], low[i + 1][lane], high[i][lane]);
        }
    }
    out
}

/// Output `i` from initial state words `i`, `i + 1` and `i + 397`.
fn twist_and_temper(word: u32, next: u32, far: u32) -> u32 {
    let y = (word & UPPER_MASK) | (next & LOWER_MASK);
    let mut value = far ^ (y >> 1) ^ if y & 1 == 1 { MATRIX_A } else { 0 };
    value ^= value >> 11;
    value ^= (value << 7) & 0x9d2c_5680;
    value ^= (value << 15) & 0xefc6_0000;
    value ^= value >> 18;
    value
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
    fn lanes_match_single_seeds() {
        let mut seeds = [0u32; LANES];
        for (i, seed) in seeds.iter_mut().enumerate() {
            *seed = [0, 1, 4, 9, 5489, 12345, 0xdead_beef, u32::MAX][i % 8] ^ (i as u32 * 7919);
        }
        let lanes = genrand_prefix_lanes(seeds, MAX_PREFIX);
        for (lane, &seed) in seeds.iter().enumerate() {
            let mut single = [0u32; MAX_PREFIX];
            genrand_prefix(seed, &mut single);
            assert_eq!(lanes[lane], single, "seed {seed}");
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
