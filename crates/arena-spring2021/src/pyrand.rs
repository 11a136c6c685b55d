//! Python 3's `random` module, as far as the official boss (`config/Boss.py`) uses it: string seeding,
//! the Mersenne Twister and `choice`. Reproduced bit for bit so that `builtin:random` plays the official
//! boss's moves; its constant seed makes its outputs a constant sequence, recorded once
//! ([`Recording`]) and replayed in every game ([`Replay`]).

use rand_mt::Mt;
use sha2::{Digest, Sha512};

/// `random.Random` seeded like `random.seed(text)` (version 2, the default since Python 3.2).
#[derive(Clone)]
pub struct PyRandom {
    mt: Mt,
}

impl PyRandom {
    /// `random.seed(text)`: the UTF-8 bytes with their SHA-512 appended, read as one big-endian
    /// integer, whose 32-bit words (least significant first, no leading zero words) seed
    /// `init_by_array`.
    pub fn from_str_seed(text: &str) -> Self {
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(&Sha512::digest(text.as_bytes()));
        // Left-pad to whole words so that the chunks from the end are the integer's 32-bit digits.
        let pad = (4 - bytes.len() % 4) % 4;
        let mut padded = vec![0u8; pad];
        padded.extend_from_slice(&bytes);
        let mut key: Vec<u32> = padded
            .rchunks(4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        // Python sizes the key by the integer's bit length: high zero words are not part of it.
        while key.len() > 1 && key.last() == Some(&0) {
            key.pop();
        }
        PyRandom {
            mt: Mt::new_with_key(key),
        }
    }

    /// One 32-bit output of the Mersenne Twister (`getrandbits(32)`).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.mt.next_u32()
    }

    /// `getrandbits(k)` for `1 <= k <= 32`: the top `k` bits of one 32-bit output.
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        debug_assert!((1..=32).contains(&k));
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` (`_randbelow_with_getrandbits`): rejection sampling on `n.bit_length()` bits.
    /// `n` must be positive, as in `choice` of a non-empty list.
    pub fn randbelow(&mut self, n: u32) -> u32 {
        randbelow(n, || self.next_u32())
    }

    /// `choice(items)`: `items[_randbelow(len)]`, `None` for an empty list (Python raises).
    pub fn choice<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        choice(items, || self.next_u32())
    }
}

fn randbelow(n: u32, mut next_u32: impl FnMut() -> u32) -> u32 {
    let k = 32 - n.leading_zeros();
    loop {
        let r = next_u32() >> (32 - k);
        if r < n {
            return r;
        }
    }
}

fn choice<T>(items: &[T], next_u32: impl FnMut() -> u32) -> Option<&T> {
    if items.is_empty() {
        return None;
    }
    let len = u32::try_from(items.len()).unwrap_or(u32::MAX);
    items.get(randbelow(len, next_u32) as usize)
}

/// The outputs of a generator whose seed is a constant (the official boss's), computed once: its
/// first words, and the generator as it stands after them.
pub struct Recording {
    words: Box<[u32]>,
    after: PyRandom,
}

impl Recording {
    /// Records the next `len` outputs of `rng`.
    pub fn new(mut rng: PyRandom, len: usize) -> Self {
        let words = (0..len).map(|_| rng.next_u32()).collect();
        Recording { words, after: rng }
    }
}

/// A [`Recording`] played back from its start: the outputs of the recorded generator, without
/// seeding it (a SHA-512 and `init_by_array`) or twisting its state (624 words at a time). A game
/// that draws past the recorded words goes on with a copy of the generator as it stood after them.
#[derive(Clone)]
pub struct Replay {
    recording: &'static Recording,
    next: usize,
    tail: Option<PyRandom>,
}

impl Replay {
    pub fn new(recording: &'static Recording) -> Self {
        Replay {
            recording,
            next: 0,
            tail: None,
        }
    }

    /// Back to the first output (as the generator seeded again).
    pub fn rewind(&mut self) {
        self.next = 0;
        self.tail = None;
    }

    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if let Some(&word) = self.recording.words.get(self.next) {
            self.next += 1;
            return word;
        }
        self.tail
            .get_or_insert_with(|| self.recording.after.clone())
            .next_u32()
    }

    /// [`PyRandom::randbelow`]. The recorded words are read four at a time and the first accepted
    /// one taken, so that the rejections (up to half of the draws) cost no branch.
    #[inline]
    pub fn randbelow(&mut self, n: u32) -> u32 {
        let shift = n.leading_zeros();
        if let Some(ahead) = self.recording.words.get(self.next..self.next + 4) {
            let mut accepted = 0u32;
            for (i, &word) in ahead.iter().enumerate() {
                accepted |= u32::from(word >> shift < n) << i;
            }
            if accepted != 0 {
                let i = accepted.trailing_zeros() as usize;
                self.next += i + 1;
                return ahead[i] >> shift;
            }
            self.next += 4;
        }
        randbelow(n, || self.next_u32())
    }

    /// [`PyRandom::choice`].
    pub fn choice<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        choice(items, || self.next_u32())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Printed by Python 3.11: `random.seed('🌱'); [random.getrandbits(32) for _ in range(3)]`, then
    // after seeding again, `[random.choice(list(range(n))) for n in (1, 2, 3, 5, 7, 10, 17, 33)]`.
    #[test]
    fn matches_python() {
        let mut rng = PyRandom::from_str_seed("🌱");
        let words: Vec<u32> = (0..3).map(|_| rng.getrandbits(32)).collect();
        assert_eq!(words, [2161611514, 2976470539, 4169511860]);
        let mut rng = PyRandom::from_str_seed("🌱");
        let picks: Vec<u32> = [1u32, 2, 3, 5, 7, 10, 17, 33]
            .iter()
            .map(|&n| rng.randbelow(n))
            .collect();
        assert_eq!(picks, [0, 0, 1, 1, 5, 4, 2, 14]);
    }

    #[test]
    fn a_replay_is_the_generator() {
        let recording: &'static Recording =
            Box::leak(Box::new(Recording::new(PyRandom::from_str_seed("🌱"), 700)));
        let mut replay = Replay::new(recording);
        for round in 0..3 {
            let mut rng = PyRandom::from_str_seed("🌱");
            // Past the recorded words and past a twist of the copy.
            for i in 0..2000 {
                let n = 1 + (i * 7919 + round) % 50;
                assert_eq!(replay.randbelow(n), rng.randbelow(n), "draw {i}");
            }
            replay.rewind();
        }
        let items = [10, 20, 30];
        let mut rng = PyRandom::from_str_seed("🌱");
        assert_eq!(replay.choice(&items), rng.choice(&items));
        assert_eq!(replay.choice::<u8>(&[]), None);
    }
}
