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

/// A state at or above this gives a `next(31)` of `2^31 - LIMIT_TABLE` or more: the only values that
/// `nextInt(bound)` can reject for a bound up to `LIMIT_TABLE` (`REJECT_AT[bound] > 2^31 - bound`).
/// Below it, a draw is accepted whatever its bound, which one comparison with a constant tells.
const MAY_REJECT: u64 = ((1 << 31) - LIMIT_TABLE as u64) << 17;

/// `nextInt(bound)` of an accepted `u` is `(u >> DRAW_SHIFT[bound]) % bound`: the high bits for a
/// power of two (`(bound·u) >> 31`), the remainder of `u` otherwise (shift 0).
static DRAW_SHIFT: [u8; LIMIT_TABLE] = draw_shift_table();

const fn draw_shift_table() -> [u8; LIMIT_TABLE] {
    let mut table = [0u8; LIMIT_TABLE];
    let mut bound = 1;
    while bound < LIMIT_TABLE {
        if bound & (bound - 1) == 0 {
            table[bound] = 31 - bound.trailing_zeros() as u8;
        }
        bound += 1;
    }
    table
}

/// `ceil(2^64 / d)`: for `n < 2^32`, `n % d == 0` iff `n·M (mod 2^64) < M` (Lemire, Kaser and Kurz,
/// "Faster remainder by direct computation", 2019). Entries 0 and 1 are unused.
static DIVISIBILITY: [u64; LIMIT_TABLE] = divisibility_table();

const fn divisibility_table() -> [u64; LIMIT_TABLE] {
    let mut table = [0u64; LIMIT_TABLE];
    let mut d = 2;
    while d < LIMIT_TABLE {
        table[d] = u64::MAX / d as u64 + 1;
        d += 1;
    }
    table
}

/// What `nextInt(bound)` returns for an accepted `next(31)` value `u`.
#[inline]
fn draw_value(u: u32, bound: usize) -> usize {
    if bound.is_power_of_two() {
        ((bound as u64 * u as u64) >> 31) as usize
    } else {
        u as usize % bound
    }
}

/// `draw_value` for `2 <= bound < LIMIT_TABLE`, without a division or a branch: `u % bound` as
/// `((u·M mod 2^64)·bound) >> 64` (Lemire, Kaser and Kurz), after the shift that turns the power-of-two
/// case into a remainder too.
#[inline]
fn draw_value_fast(u: u32, bound: usize) -> usize {
    let u = u >> DRAW_SHIFT[bound];
    let low = DIVISIBILITY[bound].wrapping_mul(u as u64);
    ((low as u128 * bound as u128) >> 64) as usize
}

/// `draw_value(u, bound) == at`, for `at < bound`, without a division.
#[inline]
fn draw_is(u: u32, bound: usize, at: usize) -> bool {
    if bound.is_power_of_two() {
        ((bound as u64 * u as u64) >> 31) as usize == at
    } else if bound < LIMIT_TABLE {
        let m = DIVISIBILITY[bound];
        u as usize >= at && ((u as usize - at) as u64).wrapping_mul(m) < m
    } else {
        u as usize % bound == at
    }
}

/// The generator's arithmetic with the 48-bit state kept in the high bits of a `u64`
/// (`state << 16`): the modulo 2^48 is then the wrapping of `u64` arithmetic, with no mask, and
/// `next(31)` is the top 31 bits. Used where states are computed in bulk (`skip_shuffles`,
/// `shuffled_origin`).
const HIGH: u32 = 16;
const HIGH_ADDEND: u64 = ADDEND << HIGH;
const HIGH_MAY_REJECT: u64 = MAY_REJECT << HIGH;

/// Jumps of up to this many steps are one multiply-add (`JUMP_A`, `JUMP_C`).
const JUMPS: usize = 128;

/// `high_{n+k} = JUMP_A[k]·high_n + JUMP_C[k]` (wrapping) for k = 0..=JUMPS, in the high form.
static JUMP_A: [u64; JUMPS + 1] = long_jumps().0;
static JUMP_C: [u64; JUMPS + 1] = long_jumps().1;

const fn long_jumps() -> ([u64; JUMPS + 1], [u64; JUMPS + 1]) {
    let mut a = [0u64; JUMPS + 1];
    let mut c = [0u64; JUMPS + 1];
    a[0] = 1;
    let mut k = 1;
    while k <= JUMPS {
        a[k] = a[k - 1].wrapping_mul(MULTIPLIER);
        c[k] = c[k - 1].wrapping_mul(MULTIPLIER).wrapping_add(HIGH_ADDEND);
        k += 1;
    }
    (a, c)
}

/// `high` advanced by `steps` (at most `JUMPS`).
#[inline(always)]
fn jump(high: u64, steps: usize) -> u64 {
    JUMP_A[steps].wrapping_mul(high).wrapping_add(JUMP_C[steps])
}

/// The four states after `state` (48-bit form), each a jump from it: independent multiplies
/// instead of a chain.
#[inline(always)]
fn next_four(state: u64) -> [u64; 4] {
    let high = state << HIGH;
    [1, 2, 3, 4].map(|k| jump(high, k) >> HIGH)
}

/// Whether any of the `steps` states after `high` (and up to three more) gives a `next(31)` that
/// `nextInt` may reject (`MAY_REJECT`). Four independent multiply-adds a round from the round's
/// first state, so the chain is one multiply-add per four states.
#[inline(always)]
fn may_reject_within(high: u64, steps: usize) -> bool {
    let mut base = high;
    let mut highest = 0u64;
    let mut done = 0;
    while done < steps {
        // Four calls: a `map` over `[1, 2, 3, 4]` compiled to slower code here (+5 % in the bench).
        let (s1, s2, s3, s4) = (jump(base, 1), jump(base, 2), jump(base, 3), jump(base, 4));
        highest = highest.max(s1.max(s2).max(s3.max(s4)));
        base = s4;
        done += 4;
    }
    highest >= HIGH_MAY_REJECT
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

    /// Which element `Collections.shuffle` of a list of `len` elements puts at position `pos`
    /// (`pos < len`): its index in the list before the shuffle. Only the draws that can move an element
    /// to `pos` are made (those of positions `len - 1` down to `pos`, or down to 1), so the generator
    /// is left part way through the shuffle. `draws` is scratch space (reused, so that a caller that
    /// keeps it allocates nothing).
    ///
    /// Position `pos` is final after its own swap (later swaps touch lower positions only), so the
    /// element there is found by following `pos` back through the swaps, the most recent first:
    /// before the swap of position `p` with `nextInt(p + 1)`, it was at the drawn position; before
    /// each earlier swap (of a higher position `q`), it was at `q` if the draw was its position.
    /// The draws are needed in the reverse of the order they are made: each one's state is a jump
    /// from the start (`shuffled_origin_back`), or, for a long run or one that may reject, they are
    /// made and kept first (`shuffled_origin_long`).
    #[inline]
    pub fn shuffled_origin(&mut self, len: usize, pos: usize, draws: &mut Vec<u32>) -> usize {
        debug_assert!(pos < len);
        // The smallest bound drawn: the swap of position `pos` draws with bound `pos + 1`; position
        // 0 has no swap of its own, its element is decided by the swap of position 1.
        let lowest = pos.max(1) + 1;
        if len < lowest {
            return pos;
        }
        let steps = len - lowest + 1;
        if steps <= JUMPS
            && len < LIMIT_TABLE
            && let Some(at) = self.shuffled_origin_back(len, pos, steps)
        {
            return at;
        }
        self.shuffled_origin_long(len, lowest, pos, draws)
    }

    /// `shuffled_origin` (`steps` its number of draws) with each draw's state a
    /// jump from the start (`JUMP_A`, `JUMP_C`), taken in the order the trace needs them: from the
    /// last draw (that of position `pos`) back to the first. The states do not wait on each other,
    /// nothing is stored, and each draw's value is a remainder without division computed apart
    /// from the trace, so only a compare and a select wait on the position followed. `None` (and
    /// the generator untouched) if a draw may have been rejected (`MAY_REJECT`): the general path
    /// redraws exactly.
    #[inline]
    fn shuffled_origin_back(&mut self, len: usize, pos: usize, steps: usize) -> Option<usize> {
        let start = self.state << HIGH;
        // Draw k (1-based) is made with bound len + 1 - k.
        let value = |k: usize| {
            let high = jump(start, k);
            (
                high,
                draw_value_fast((high >> (HIGH + 17)) as u32, len + 1 - k),
            )
        };
        let (last, first_value) = value(steps);
        let mut highest = last;
        let (mut at, mut k) = if pos == 0 {
            (0, steps)
        } else {
            (first_value, steps - 1)
        };
        while k >= 1 {
            let (high, drawn) = value(k);
            highest = highest.max(high);
            // A select, not a branch: whether a draw hits the position is a coin toss.
            at = std::hint::select_unpredictable(drawn == at, len - k, at);
            k -= 1;
        }
        if highest >= HIGH_MAY_REJECT {
            return None;
        }
        self.state = last >> HIGH;
        Some(at)
    }

    /// `shuffled_origin` of more than `JUMPS` draws, or of draws that may reject: each draw made
    /// and kept, four at a time as in `skip_shuffle_exact`.
    #[inline(never)]
    fn shuffled_origin_long(
        &mut self,
        len: usize,
        lowest: usize,
        pos: usize,
        draws: &mut Vec<u32>,
    ) -> usize {
        self.accepted_draws(len, lowest, draws);
        let (mut at, mut bound, earlier) = if pos == 0 {
            (0, lowest, &draws[..])
        } else {
            let (&last, earlier) = draws.split_last().unwrap_or((&0, &[]));
            (draw_value(last, lowest), lowest + 1, earlier)
        };
        for &u in earlier.iter().rev() {
            if draw_is(u, bound, at) {
                at = bound - 1;
            }
            bound += 1;
        }
        at
    }

    /// The accepted `next(31)` values of `nextInt(bound)` for `bound = from` down to `to` (`to >= 2`),
    /// in that order, into `out`.
    fn accepted_draws(&mut self, from: usize, to: usize, out: &mut Vec<u32>) {
        out.clear();
        let mut bound = from;
        while bound >= to {
            if bound - to >= 3 && bound < LIMIT_TABLE {
                let s = self.state;
                let next = next_four(s);
                let u = next.map(|state| (state >> 17) as u32);
                let mut accepted = true;
                for k in 0..4 {
                    accepted &= u[k] < REJECT_AT[bound - k];
                }
                if accepted {
                    out.extend_from_slice(&u);
                    self.state = next[3];
                    bound -= 4;
                    continue;
                }
            }
            let limit = if bound < LIMIT_TABLE {
                REJECT_AT[bound]
            } else {
                reject_limit(bound as u32)
            };
            let u = loop {
                let u = (self.step() >> 17) as u32;
                if u < limit {
                    break u;
                }
            };
            out.push(u);
            bound -= 1;
        }
    }

    /// Advances the generator exactly as `Collections.shuffle` of a list of `len` elements would,
    /// without computing the swaps (the draws depend only on the length, not on the contents).
    ///
    /// Usually none of the draws may reject at all (`MAY_REJECT`, checked four states at a time):
    /// then the end state is one jump from the start, whatever the bounds. Otherwise
    /// (probability below 2^-20 a draw) the draws are checked against each bound's own limit.
    #[inline]
    pub fn skip_shuffle(&mut self, len: usize) {
        if len < 2 {
            return;
        }
        let draws = len - 1;
        let high = self.state << HIGH;
        if draws <= JUMPS && !may_reject_within(high, draws) {
            self.state = jump(high, draws) >> HIGH;
            return;
        }
        self.skip_shuffle_exact(len);
    }

    /// `skip_shuffle` of three lists one after the other (the referee's COMPLETE, GROW and SEED
    /// groups), returning the state before each. When none of the draws may reject, the draws of
    /// the three shuffles are one run of the generator: the three states and the end are jumps
    /// from the start, and the whole run is checked at once.
    #[inline]
    pub fn skip_shuffles(&mut self, lens: [u32; 3]) -> [u64; 3] {
        let draws = lens.map(|len| len.saturating_sub(1) as usize);
        let total = draws[0] + draws[1] + draws[2];
        let high = self.state << HIGH;
        if total <= JUMPS && !may_reject_within(high, total) {
            let before = [
                self.state,
                jump(high, draws[0]) >> HIGH,
                jump(high, draws[0] + draws[1]) >> HIGH,
            ];
            self.state = jump(high, total) >> HIGH;
            return before;
        }
        lens.map(|len| {
            let before = self.state;
            self.skip_shuffle(len as usize);
            before
        })
    }

    /// `skip_shuffle` draw by draw against each bound's own rejection limit.
    #[inline(never)]
    fn skip_shuffle_exact(&mut self, len: usize) {
        let mut bound = len;
        while bound >= 2 {
            if bound > 2 && bound < LIMIT_TABLE {
                let draws = (bound - 1).min(4);
                let s = self.state;
                let next = next_four(s);
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
    fn shuffled_origin_finds_the_shuffled_element() {
        let mut draws = Vec::new();
        for seed in 0..100i64 {
            for len in 1..70usize {
                let start = JavaRandom::new(seed * 104_729 + len as i64);
                let mut list: Vec<usize> = (0..len).collect();
                let mut whole = start;
                whole.shuffle(&mut list);
                for pos in 0..len {
                    let mut rng = start;
                    assert_eq!(rng.shuffled_origin(len, pos, &mut draws), list[pos]);
                }
            }
        }
        // Past the short-list path, and a list as long as the longest possible-actions group.
        for len in [65, 100, 300] {
            let start = JavaRandom::new(len as i64);
            let mut list: Vec<usize> = (0..len).collect();
            let mut whole = start;
            whole.shuffle(&mut list);
            for pos in 0..len {
                let mut rng = start;
                assert_eq!(rng.shuffled_origin(len, pos, &mut draws), list[pos]);
            }
        }
        let start = JavaRandom::new(7);
        let mut list: Vec<usize> = (0..1332).collect();
        let mut whole = start;
        whole.shuffle(&mut list);
        for pos in [0, 1, 2, 665, 1330, 1331] {
            let mut rng = start;
            assert_eq!(rng.shuffled_origin(1332, pos, &mut draws), list[pos]);
        }
    }

    #[test]
    fn draw_values_without_division() {
        let mut rng = JavaRandom::new(11);
        for bound in 2..LIMIT_TABLE {
            let edges = [
                0,
                1,
                bound as u32 - 1,
                bound as u32,
                (1 << 31) - 1,
                (1 << 31) - 2,
            ];
            for u in edges
                .into_iter()
                .chain((0..200).map(|_| rng.next(31) as u32))
            {
                let value = draw_value(u, bound);
                assert_eq!(draw_value_fast(u, bound), value, "{u} {bound}");
                assert!(draw_is(u, bound, value));
                assert!(!draw_is(u, bound, (value + 1) % bound));
            }
        }
    }

    /// The state `steps` steps before `state` (the multiplier is odd, so the step is invertible).
    fn state_before(mut state: u64, steps: usize) -> u64 {
        let mut inverse = MULTIPLIER;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(MULTIPLIER.wrapping_mul(inverse)));
        }
        for _ in 0..steps {
            state = state.wrapping_sub(ADDEND).wrapping_mul(inverse) & MASK;
        }
        state
    }

    #[test]
    fn rejected_draws_are_redrawn() {
        // A state whose next(31) is 2^31 - 1 rejects for every bound that is not a power of two,
        // one at MAY_REJECT is suspect but accepted (for these bounds): place them at every draw of
        // shuffles, skips and traces.
        let mut draws = Vec::new();
        for (len, odd) in (3..40usize)
            .chain([70, 90])
            .flat_map(|len| [(len, MASK), (len, MAY_REJECT)])
        {
            for rejected in 1..len {
                let start = JavaRandom::from_state(state_before(odd, rejected));
                let mut list: Vec<usize> = (0..len).collect();
                let mut whole = start;
                whole.shuffle(&mut list);
                let mut skipped = start;
                skipped.skip_shuffle(len);
                assert_eq!(skipped, whole, "len {len}, draw {rejected}");
                for pos in 0..len {
                    let mut rng = start;
                    assert_eq!(rng.shuffled_origin(len, pos, &mut draws), list[pos]);
                }
            }
        }
    }

    #[test]
    fn three_skips_at_once_are_three_shuffles() {
        // Lengths from empty to past JUMPS draws in all, from ordinary states and from states
        // whose k-th draw is rejected (or only suspect) for every k of the run.
        let lengths = [
            [0, 0, 0],
            [1, 1, 1],
            [0, 2, 5],
            [3, 0, 17],
            [4, 9, 40],
            [2, 60, 80],
            [1, 1, 300],
        ];
        let mut starts: Vec<u64> = (0..50).map(|seed| JavaRandom::new(seed).state).collect();
        for odd in [MASK, MAY_REJECT] {
            starts.extend((1..60).map(|k| state_before(odd, k)));
        }
        for lens in lengths {
            for &start in &starts {
                let mut one = JavaRandom::from_state(start);
                let mut before = [0; 3];
                for (group, &len) in lens.iter().enumerate() {
                    before[group] = one.state;
                    let mut list: Vec<u32> = (0..len).collect();
                    one.shuffle(&mut list);
                }
                let mut all = JavaRandom::from_state(start);
                assert_eq!(all.skip_shuffles(lens), before, "{lens:?}");
                assert_eq!(all, one, "{lens:?}");
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
