//! Python 3's `random` module, as far as the official boss (`config/Boss.py`) uses it: string seeding,
//! the Mersenne Twister and `choice`. Reproduced bit for bit so that `builtin:random` plays the official
//! boss's moves.

use rand_mt::Mt;
use sha2::{Digest, Sha512};

/// `random.Random` seeded like `random.seed(text)` (version 2, the default since Python 3.2).
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

    /// `getrandbits(k)` for `1 <= k <= 32`: the top `k` bits of one 32-bit output.
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        debug_assert!((1..=32).contains(&k));
        self.mt.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` (`_randbelow_with_getrandbits`): rejection sampling on `n.bit_length()` bits.
    /// `n` must be positive, as in `choice` of a non-empty list.
    pub fn randbelow(&mut self, n: u32) -> u32 {
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `choice(items)`: `items[_randbelow(len)]`, `None` for an empty list (Python raises).
    pub fn choice<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        let len = u32::try_from(items.len()).unwrap_or(u32::MAX);
        items.get(self.randbelow(len) as usize)
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
}
