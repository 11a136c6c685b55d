//! `java.util.Random` and `Collections.shuffle`, bit-exact.
//!
//! Hand-written on purpose: the referee's board, starting trees and the order of every possible-actions
//! list depend on the exact 48-bit LCG, on `nextInt(bound)` with its rejection loop and on the swap order
//! of `Collections.shuffle`. The crates that exist for this (`java_random`, `javarandom`, `java-rand`)
//! are small, little used and unmaintained, and the whole algorithm is a dozen lines of published
//! arithmetic (the `java.util.Random` class documentation specifies it), so a dependency buys nothing.

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// Bounds up to this size use the precomputed rejection limits below (a possible-actions list is never
/// longer than 37 sources × 36 targets).
const LIMIT_TABLE: usize = 2048;

/// `nextInt(bound)` draws `u = next(31)` and rejects it iff `u - u % bound + (bound - 1)` overflows an
/// `int`, which is the same as `u >= (2^31 / bound) * bound`. Tabulated so that skipping a shuffle
/// costs one multiply per draw instead of a division.
static REJECT_AT: [u32; LIMIT_TABLE] = reject_table();

const fn reject_limit(bound: u32) -> u32 {
    let two31: u64 = 1 << 31;
    ((two31 / bound as u64) * bound as u64) as u32
}

const fn reject_table() -> [u32; LIMIT_TABLE] {
    // Bounds 0 and 1 never reject (see `skip_shuffle`, which reads them for draws past the end).
    let mut table = [u32::MAX; LIMIT_TABLE];
    let mut bound = 2;
    while bound < LIMIT_TABLE {
        table[bound] = reject_limit(bound as u32);
        bound += 1;
    }
    table
}

/// `(a, c)` with `state_{n+k} = a·state_n + c (mod 2^48)` for k = 1..4.
const JUMP: [(u64, u64); 4] = jump_table();

const fn jump_table() -> [(u64, u64); 4] {
    let mut out = [(0u64, 0u64); 4];
    let (mut a, mut c) = (1u64, 0u64);
    let mut k = 0;
    while k < 4 {
        a = a.wrapping_mul(MULTIPLIER) & MASK;
        c = (c.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        out[k] = (a, c);
        k += 1;
    }
    out
}

/// `java.util.Random`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JavaRandom {
    state: u64,
}

impl JavaRandom {
    /// `new Random(seed)`.
    pub fn new(seed: i64) -> Self {
        JavaRandom {
            state: (seed as u64 ^ MULTIPLIER) & MASK,
        }
    }

    /// The internal 48-bit state (to resume a generator later with [`JavaRandom::from_state`]).
    pub fn state(&self) -> u64 {
        self.state
    }

    pub fn from_state(state: u64) -> Self {
        JavaRandom {
            state: state & MASK,
        }
    }

    #[inline]
    fn step(&mut self) -> u64 {
        self.state = (self.state.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        self.state
    }

    /// `next(bits)`.
    #[inline]
    pub fn next(&mut self, bits: u32) -> i32 {
        (self.step() >> (48 - bits)) as i32
    }

    /// `nextInt(bound)`; `bound` must be positive (as in Java, which throws otherwise).
    pub fn next_int(&mut self, bound: i32) -> i32 {
        debug_assert!(bound > 0);
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((bound as i64 * r as i64) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextInt()`.
    pub fn next_i32(&mut self) -> i32 {
        self.next(32)
    }

    /// `Collections.shuffle(list, this)`: swaps `i - 1` with `nextInt(i)` for `i = len .. 2`.
    pub fn shuffle<T>(&mut self, list: &mut [T]) {
        for i in (2..=list.len()).rev() {
            let j = self.next_int(i as i32) as usize;
            list.swap(i - 1, j);
        }
    }

    /// Advances the generator exactly as `Collections.shuffle` of a list of `len` elements would,
    /// without computing the swaps (the draws depend only on the length, not on the contents).
    ///
    /// Up to four draws at a time: the next four states are computed from the current one with the
    /// precomputed jump constants (independent multiplies instead of a chain), then the draws that
    /// belong to this shuffle are checked against the rejection limits; a block with a rejection
    /// (probability below 2^-20) is redone one draw at a time.
    #[inline]
    pub fn skip_shuffle(&mut self, len: usize) {
        let mut bound = len;
        while bound >= 2 {
            if bound > 2 && bound < LIMIT_TABLE {
                let draws = (bound - 1).min(4);
                let s = self.state;
                let next = [
                    (s.wrapping_mul(JUMP[0].0).wrapping_add(JUMP[0].1)) & MASK,
                    (s.wrapping_mul(JUMP[1].0).wrapping_add(JUMP[1].1)) & MASK,
                    (s.wrapping_mul(JUMP[2].0).wrapping_add(JUMP[2].1)) & MASK,
                    (s.wrapping_mul(JUMP[3].0).wrapping_add(JUMP[3].1)) & MASK,
                ];
                // Draw k uses bound - k; the slots past this shuffle's end land on the limits of
                // bounds 1 and 0, which accept everything, so no draw-count test is needed.
                let mut accepted = true;
                for k in 0..4 {
                    accepted &= ((next[k] >> 17) as u32) < REJECT_AT[bound - k];
                }
                if accepted {
                    self.state = next[draws - 1];
                    bound -= draws;
                    continue;
                }
            }
            self.skip_draw(bound);
            bound -= 1;
        }
    }

    /// One `nextInt(bound)` whose value is not needed.
    #[inline]
    fn skip_draw(&mut self, bound: usize) {
        let limit = if bound < LIMIT_TABLE {
            REJECT_AT[bound]
        } else {
            reject_limit(bound as u32)
        };
        while (self.step() >> 17) as u32 >= limit {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_java_reference_values() {
        // new Random(42).nextInt() and new Random(0).nextInt(): values printed by a JVM.
        assert_eq!(JavaRandom::new(42).next_i32(), -1170105035);
        assert_eq!(JavaRandom::new(0).next_i32(), -1155484576);
        let mut rng = JavaRandom::new(42);
        let draws: Vec<i32> = (0..5).map(|_| rng.next_int(10)).collect();
        assert_eq!(draws, vec![0, 3, 8, 4, 0]);
    }

    #[test]
    fn skip_equals_shuffle() {
        for seed in 0..200i64 {
            for len in 0..80usize {
                let mut a = JavaRandom::new(seed * 7919 + len as i64);
                let mut b = a;
                let mut list: Vec<usize> = (0..len).collect();
                a.shuffle(&mut list);
                b.skip_shuffle(len);
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn rejection_loop_is_taken() {
        // A bound just above 2^30 rejects about half of the draws: skip and draw must agree.
        let bound = (1 << 30) + 1;
        let mut a = JavaRandom::new(5);
        let mut b = a;
        for _ in 0..100 {
            let r = a.next_int(bound);
            assert!((0..bound).contains(&r));
            let limit = reject_limit(bound as u32);
            while (b.step() >> 17) as u32 >= limit {}
        }
        assert_eq!(a, b);
    }
}
