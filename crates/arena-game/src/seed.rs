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

/// Seeds in JSON, as `#[serde(with = "arena_core::seed::as_text")]`: written as decimal strings
/// (JSON numbers above 2^53 are rounded by jq and JavaScript, and a rounded seed plays another
/// game), read back from a string or a number (files written before seeds were text). A negative
/// number or string is taken as its 64-bit pattern, as `--seed` takes Java's long seeds.
/// The JSON Schema of a seed as [`as_text`] writes it, for `#[schemars(with = "SeedText")]` on a
/// seed field.
pub struct SeedText;

impl schemars::JsonSchema for SeedText {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "seed".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]{1,20}$",
            "description": "A 64-bit seed as decimal text (JSON numbers would be rounded above 2^53). arena play --seed takes it back as it is."
        })
    }
}

pub mod as_text {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(seed: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(itoa::Buffer::new().format(*seed))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        deserializer.deserialize_any(SeedVisitor)
    }

    pub(super) struct SeedVisitor;

    impl serde::de::Visitor<'_> for SeedVisitor {
        type Value = u64;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a seed: a 64-bit integer, as a string or a number")
        }

        fn visit_u64<E: serde::de::Error>(self, seed: u64) -> Result<u64, E> {
            Ok(seed)
        }

        fn visit_i64<E: serde::de::Error>(self, seed: i64) -> Result<u64, E> {
            Ok(seed as u64)
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<u64, E> {
            super::parse(text).ok_or_else(|| E::custom(format!("`{text}` is not a 64-bit seed")))
        }
    }
}

/// [`as_text`] for optional seeds (`null` when absent).
pub mod option_as_text {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(seed: &Option<u64>, serializer: S) -> Result<S::Ok, S::Error> {
        match seed {
            Some(seed) => super::as_text::serialize(seed, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<u64>, D::Error> {
        struct OptionVisitor;
        impl<'de> serde::de::Visitor<'de> for OptionVisitor {
            type Value = Option<u64>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a seed or null")
            }

            fn visit_none<E: serde::de::Error>(self) -> Result<Option<u64>, E> {
                Ok(None)
            }

            fn visit_unit<E: serde::de::Error>(self) -> Result<Option<u64>, E> {
                Ok(None)
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
                d.deserialize_any(super::as_text::SeedVisitor).map(Some)
            }
        }
        deserializer.deserialize_option(OptionVisitor)
    }
}

/// A seed from text: a decimal u64, or a negative i64 taken as its bit pattern.
pub fn parse(text: &str) -> Option<u64> {
    let text = text.trim();
    text.parse::<u64>()
        .ok()
        .or_else(|| text.parse::<i64>().ok().map(|s| s as u64))
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

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Seeded {
        #[serde(with = "as_text")]
        seed: u64,
        #[serde(with = "option_as_text", default)]
        other: Option<u64>,
    }

    #[test]
    fn seeds_are_written_as_text_and_read_from_text_or_numbers() {
        let big = Seeded {
            seed: 13_202_931_382_145_363_662,
            other: Some(u64::MAX),
        };
        let text = serde_json::to_string(&big).expect("encodes");
        assert_eq!(
            text,
            r#"{"seed":"13202931382145363662","other":"18446744073709551615"}"#
        );
        assert_eq!(serde_json::from_str::<Seeded>(&text).expect("decodes"), big);
        let numbers: Seeded =
            serde_json::from_str(r#"{"seed":13202931382145363662,"other":null}"#).expect("numbers");
        assert_eq!(numbers.seed, 13_202_931_382_145_363_662);
        assert_eq!(numbers.other, None);
        let negative: Seeded = serde_json::from_str(r#"{"seed":"-1"}"#).expect("java long");
        assert_eq!(negative.seed, u64::MAX);
        assert!(serde_json::from_str::<Seeded>(r#"{"seed":"x1"}"#).is_err());
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = bot_rng(3);
        for n in 1..50 {
            assert!(below(&mut rng, n) < n);
        }
    }
}
