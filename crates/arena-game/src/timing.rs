//! Time policies: how an answer's time is judged against the game's nominal limit.
//!
//! - `strict`: the nominal limit is the deadline (the 2014 contests, Coup).
//! - `strikes`: CodinGame's engine since release 4.7.7 (after its pull request #78 about random server
//!   delays): every ask gets `slack` more real deadline, an answer later than the nominal limit counts
//!   a strike, and the `strikes`-th strike is the timeout. Spring 2021's default.
//! - `grace`: a flat extra `grace` on every ask, no strikes.
//! - `bank`: a per-game time bank; whatever an answer takes beyond the nominal limit is drawn from it,
//!   and the ask's deadline is the nominal limit plus what is left.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fault::{Fault, FaultKind};

/// CodinGame's tolerance: 50 ms of extra real deadline per turn.
pub const STRIKE_SLACK_MS: u64 = 50;
/// CodinGame's tolerance: the third late answer is the timeout.
pub const STRIKES_ALLOWED: u32 = 3;
/// Default per-game bank: 2 s. Modelled on the best-documented per-game bank of a bot contest, Lux AI
/// 2021 on Kaggle (kaggle-environments' `lux_ai_2021.json`: 1 s per step, `remainingOverageTime` 60 s
/// for a 360-step game): a sixth of a game's nominal time. A Spring 2021 bot answers about 60–100
/// times a game (reference §4), 6–10 s at 100 ms, so a sixth is 1–1.7 s, rounded up to 2 s.
/// CodinGame's engine offers a bank to referees but fixes no size.
pub const DEFAULT_BANK_MS: u64 = 2000;

/// Which clock an answer's time is read on.
///
/// `wall` (the default, as the original contests did) is real time from the input being written to
/// the answer; it counts time the bot waited for a core, so on a loaded machine it measures the
/// machine as much as the bot. `cpu` is the CPU time the bot's processes used for the answer (their
/// cgroup when sandboxed, `/proc` otherwise): the same on a loaded machine as on an idle one. A bot
/// judged on CPU time still gets a wall-clock cap ([`ClockKind::wall_cap`]), so a bot that sleeps or
/// waits forever is still stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "clock")]
pub enum ClockKind {
    #[default]
    Wall,
    Cpu,
}

impl ClockKind {
    /// The wall-clock cap of an answer judged on CPU time with limit `limit`: three times the limit
    /// plus one second. Generous, so that a bot waiting for a busy core is not cut off (two games per
    /// core still fit), yet finite, so that a bot that sleeps or blocks cannot hold the game.
    pub fn wall_cap(limit: Duration) -> Duration {
        limit.saturating_mul(3) + Duration::from_secs(1)
    }

    /// The clock named on the command line.
    pub fn from_name(name: &str) -> Result<ClockKind, String> {
        match name {
            "wall" => Ok(ClockKind::Wall),
            "cpu" => Ok(ClockKind::Cpu),
            other => Err(format!("unknown clock `{other}` (wall, cpu)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Wall => "wall",
            ClockKind::Cpu => "cpu",
        }
    }

    pub fn is_wall(&self) -> bool {
        *self == ClockKind::Wall
    }
}

/// How answer times are judged. The durations are nominal: `--time-scale` multiplies them like the
/// game's own limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "policy", rename_all = "snake_case")]
#[schemars(rename = "time_policy", deny_unknown_fields)]
pub enum TimePolicy {
    #[default]
    Strict,
    Strikes {
        slack_ms: u64,
        #[schemars(range(min = 1))]
        strikes: u32,
    },
    Grace {
        grace_ms: u64,
    },
    Bank {
        bank_ms: u64,
    },
}

impl TimePolicy {
    /// CodinGame's strike rule (50 ms, third strike).
    pub const CODINGAME: TimePolicy = TimePolicy::Strikes {
        slack_ms: STRIKE_SLACK_MS,
        strikes: STRIKES_ALLOWED,
    };

    /// The policy named on the command line (`strict`, `strikes`, `grace`, `bank`); `grace_ms` and
    /// `bank_ms` set the sizes (a grace needs one; the bank defaults to [`DEFAULT_BANK_MS`]).
    pub fn from_name(
        name: &str,
        grace_ms: Option<u64>,
        bank_ms: Option<u64>,
    ) -> Result<TimePolicy, String> {
        let policy = match name {
            "strict" => TimePolicy::Strict,
            "strikes" => TimePolicy::CODINGAME,
            "grace" => TimePolicy::Grace {
                grace_ms: grace_ms.ok_or("the grace policy needs --grace MS")?,
            },
            "bank" => TimePolicy::Bank {
                bank_ms: bank_ms.unwrap_or(DEFAULT_BANK_MS),
            },
            other => {
                return Err(format!(
                    "unknown time policy `{other}` (strict, strikes, grace, bank)"
                ));
            }
        };
        if grace_ms.is_some() && !matches!(policy, TimePolicy::Grace { .. }) {
            return Err("--grace goes with the grace policy".into());
        }
        if bank_ms.is_some() && !matches!(policy, TimePolicy::Bank { .. }) {
            return Err("--bank goes with the bank policy".into());
        }
        Ok(policy)
    }

    /// Whether answers are counted as strikes (the result table shows them then).
    pub fn counts_strikes(&self) -> bool {
        matches!(self, TimePolicy::Strikes { .. })
    }
}

impl std::fmt::Display for TimePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimePolicy::Strict => write!(f, "strict (the nominal limit)"),
            TimePolicy::Strikes { slack_ms, strikes } => write!(
                f,
                "strikes (+{slack_ms} ms real deadline; over the limit is a strike, strike {strikes} is the timeout)"
            ),
            TimePolicy::Grace { grace_ms } => write!(f, "grace (+{grace_ms} ms on every answer)"),
            TimePolicy::Bank { bank_ms } => {
                write!(f, "bank ({bank_ms} ms per game beyond the limits)")
            }
        }
    }
}

/// One player's clock over a game.
#[derive(Clone, Debug)]
pub struct Clock {
    policy: TimePolicy,
    scale: f64,
    strikes: u32,
    bank_left: Duration,
}

/// What the clock makes of one answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Within the nominal limit.
    InTime,
    /// Late but tolerated (a strike counted, the bank drawn on).
    Tolerated,
    /// Late beyond what the policy tolerates: a timeout.
    Timeout(Fault),
}

impl Clock {
    /// `scale` multiplies the policy's durations, as it does the game's limits.
    pub fn new(policy: TimePolicy, scale: f64) -> Self {
        let bank_left = match policy {
            TimePolicy::Bank { bank_ms } => scaled(bank_ms, scale),
            _ => Duration::ZERO,
        };
        Clock {
            policy,
            scale,
            strikes: 0,
            bank_left,
        }
    }

    /// The real deadline of an ask whose nominal (already scaled) limit is `limit`.
    pub fn deadline(&self, limit: Duration) -> Duration {
        match self.policy {
            TimePolicy::Strict => limit,
            TimePolicy::Strikes { slack_ms, .. } => limit + scaled(slack_ms, self.scale),
            TimePolicy::Grace { grace_ms } => limit + scaled(grace_ms, self.scale),
            TimePolicy::Bank { .. } => limit + self.bank_left,
        }
    }

    /// Judges an answer that arrived `elapsed` after its input. The agent already enforced
    /// `deadline(limit)`; an answer it let through may still be measured a hair past it, which the
    /// strict and grace policies accept as before.
    pub fn judge(&mut self, limit: Duration, elapsed: Duration) -> Verdict {
        if elapsed <= limit {
            return Verdict::InTime;
        }
        let over = elapsed - limit;
        match self.policy {
            TimePolicy::Strict | TimePolicy::Grace { .. } => Verdict::Tolerated,
            TimePolicy::Strikes { strikes, .. } => {
                self.strikes += 1;
                if self.strikes >= strikes {
                    Verdict::Timeout(late(
                        limit,
                        elapsed,
                        format!("strike {} of {strikes}", self.strikes),
                    ))
                } else {
                    Verdict::Tolerated
                }
            }
            TimePolicy::Bank { .. } => {
                self.bank_left = self.bank_left.saturating_sub(over);
                Verdict::Tolerated
            }
        }
    }

    /// Late answers counted so far (strike policy).
    pub fn strikes(&self) -> u32 {
        self.strikes
    }

    /// What is left of the bank (bank policy).
    pub fn bank_left(&self) -> Duration {
        self.bank_left
    }
}

fn scaled(ms: u64, scale: f64) -> Duration {
    Duration::from_millis(ms).mul_f64(scale.max(0.0))
}

fn late(limit: Duration, elapsed: Duration, why: String) -> Fault {
    Fault::new(
        FaultKind::Timeout,
        format!(
            "answered after {:.1} ms, limit {} ms ({why})",
            elapsed.as_secs_f64() * 1000.0,
            limit.as_millis()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_millis(100);

    fn ms(value: u64) -> Duration {
        Duration::from_millis(value)
    }

    #[test]
    fn strikes_time_out_at_the_third() {
        let mut clock = Clock::new(TimePolicy::CODINGAME, 1.0);
        assert_eq!(clock.deadline(LIMIT), ms(150));
        assert_eq!(clock.judge(LIMIT, ms(99)), Verdict::InTime);
        assert_eq!(clock.judge(LIMIT, ms(120)), Verdict::Tolerated);
        assert_eq!(clock.judge(LIMIT, ms(100)), Verdict::InTime);
        assert_eq!(clock.judge(LIMIT, ms(101)), Verdict::Tolerated);
        assert!(matches!(clock.judge(LIMIT, ms(120)), Verdict::Timeout(_)));
        assert_eq!(clock.strikes(), 3);
    }

    #[test]
    fn grace_and_bank() {
        let mut grace = Clock::new(TimePolicy::Grace { grace_ms: 20 }, 2.0);
        assert_eq!(grace.deadline(LIMIT), ms(140));
        assert_eq!(grace.judge(LIMIT, ms(140)), Verdict::Tolerated);

        let mut bank = Clock::new(TimePolicy::Bank { bank_ms: 30 }, 1.0);
        assert_eq!(bank.deadline(LIMIT), ms(130));
        assert_eq!(bank.judge(LIMIT, ms(120)), Verdict::Tolerated);
        assert_eq!(bank.deadline(LIMIT), ms(110));
        assert_eq!(bank.judge(LIMIT, ms(100)), Verdict::InTime);
        assert_eq!(bank.judge(LIMIT, ms(115)), Verdict::Tolerated);
        assert_eq!(bank.deadline(LIMIT), LIMIT);

        let strict = Clock::new(TimePolicy::Strict, 1.0);
        assert_eq!(strict.deadline(LIMIT), LIMIT);
    }

    #[test]
    fn names() {
        assert_eq!(
            TimePolicy::from_name("strikes", None, None),
            Ok(TimePolicy::CODINGAME)
        );
        assert_eq!(
            TimePolicy::from_name("grace", Some(5), None),
            Ok(TimePolicy::Grace { grace_ms: 5 })
        );
        assert!(TimePolicy::from_name("grace", None, None).is_err());
        assert!(TimePolicy::from_name("strict", Some(5), None).is_err());
        assert_eq!(
            TimePolicy::from_name("bank", None, None),
            Ok(TimePolicy::Bank {
                bank_ms: DEFAULT_BANK_MS
            })
        );
    }
}
