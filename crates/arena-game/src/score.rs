//! Exact game scores. Lang Wars splits values between tied players (thirds, quarters), so scores are
//! rationals; other games use integers. Never floats.

use std::fmt;
use std::str::FromStr;

use num_rational::Rational64;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An exact score: an integer or a reduced fraction. Displayed and serialised as `7`, `-1/3`, `23/3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Score(pub Rational64);

impl Score {
    pub const ZERO: Score = Score(Rational64::new_raw(0, 1));

    pub fn int(value: i64) -> Self {
        Score(Rational64::from_integer(value))
    }

    /// `numerator / denominator`, reduced. Panics on a zero denominator (a programming error).
    pub fn ratio(numerator: i64, denominator: i64) -> Self {
        Score(Rational64::new(numerator, denominator))
    }

    pub fn numer(&self) -> i64 {
        *self.0.numer()
    }

    pub fn denom(&self) -> i64 {
        *self.0.denom()
    }

    /// For statistics only (means, intervals); game logic compares exact values.
    pub fn to_f64(self) -> f64 {
        self.numer() as f64 / self.denom() as f64
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Denominators are positive (Rational64 keeps them so): compare by cross-multiplying in i128,
        // which cannot overflow and is much cheaper than Ratio's division-based comparison.
        (self.numer() as i128 * other.denom() as i128)
            .cmp(&(other.numer() as i128 * self.denom() as i128))
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denom() == 1 {
            write!(f, "{}", self.numer())
        } else {
            write!(f, "{}/{}", self.numer(), self.denom())
        }
    }
}

impl FromStr for Score {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a score (expected an integer or `a/b`)");
        match text.split_once('/') {
            None => text.trim().parse().map(Score::int).map_err(|_| bad()),
            Some((n, d)) => {
                let n: i64 = n.trim().parse().map_err(|_| bad())?;
                let d: i64 = d.trim().parse().map_err(|_| bad())?;
                if d == 0 {
                    return Err(bad());
                }
                Ok(Score::ratio(n, d))
            }
        }
    }
}

/// In JSON a score is always its exact text (`"23/3"`, `"-2"`), one form for every score; where
/// scores are listed, [`ScoreValues`] gives the same scores as floats beside them. Numbers are
/// still read (files written before scores were text).
/// In JSON a score is its exact text.
impl schemars::JsonSchema for Score {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "score".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^-?[0-9]+(/[0-9]+)?$",
            "description": "An exact score: an integer or a reduced fraction such as 23/3."
        })
    }
}

impl Serialize for Score {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Scores as JSON floats (`7.666666666666667`), written beside their exact text for tools that
/// want numbers.
pub struct ScoreValues<'a>(pub &'a [Score]);

impl Serialize for ScoreValues<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|score| score.to_f64()))
    }
}

impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A visitor rather than an untagged enum: untagged buffers every value and builds an error
        // for each variant it rejects, which made scores the dearest part of reading a journal.
        struct ScoreVisitor;

        impl serde::de::Visitor<'_> for ScoreVisitor {
            type Value = Score;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer or an exact fraction such as \"23/3\"")
            }

            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Score, E> {
                Ok(Score::int(value))
            }

            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Score, E> {
                i64::try_from(value)
                    .map(Score::int)
                    .map_err(|_| E::custom(format!("score {value} is too large")))
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Score, E> {
                text.parse().map_err(E::custom)
            }
        }

        deserializer.deserialize_any(ScoreVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_reduced_fractions() {
        assert_eq!(Score::ratio(184, 24).to_string(), "23/3");
        assert_eq!(Score::ratio(-8, 24).to_string(), "-1/3");
        assert_eq!(Score::ratio(48, 24).to_string(), "2");
    }

    #[test]
    fn orders_exactly() {
        assert!(Score::ratio(23, 3) > Score::ratio(15, 2));
        assert!(Score::ratio(-1, 3) < Score::ZERO);
        assert_eq!(
            Score::ratio(2, 4).cmp(&Score::ratio(1, 2)),
            std::cmp::Ordering::Equal
        );
    }

    #[test]
    fn json_round_trip() {
        for score in [Score::int(-10), Score::ratio(23, 3), Score::ZERO] {
            let text = serde_json::to_string(&score).unwrap();
            assert_eq!(serde_json::from_str::<Score>(&text).unwrap(), score);
        }
        assert_eq!(
            serde_json::to_string(&Score::ratio(-1, 3)).unwrap(),
            "\"-1/3\""
        );
    }
}
