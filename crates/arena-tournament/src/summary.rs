//! A run's statistics as people read them: one [`RunSummary`], made once from the journal's
//! [`StatsReport`] by [`RunSummary::of`], and shown by every view of the run — the terminal's
//! leaderboard, `summary.json` (its `run` field), `report.html` and `arena serve` (which reads it
//! back from `summary.json`, see [`current`]).
//!
//! Each view used to format the same statistics on its own and they disagreed in the last digits
//! (`100.0% [96,100]` on the terminal, `[96.5, 100.0]` in the report, and the server, which also
//! computed them again over the journal in file order, `[97.7% – 100.0%]`). Here every figure
//! is formatted once, by the helpers below, and the views place those strings: what one view
//! prints, the others print to the last digit.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use arena_formats::summary::{BotFit, Interval, SkillRating, SprtVerdict, Unbounded};
use arena_stats::{CONFIDENCE, SprtReport, SprtUnit, StatsReport};

use crate::TournamentError;
use crate::schedule::Plan;
use crate::stats;
use crate::summary_file as to_file;

/// The file that keeps a run's summary (its `run` field) beside its raw statistics, written with
/// the other reports after the run.
pub use arena_formats::layout::SUMMARY_FILE;

/// Bootstrap resamples of the rating intervals when the run does not say otherwise (the
/// command's `--bootstrap` default, and what [`current`] uses when it computes a summary itself).
pub const DEFAULT_BOOTSTRAP: usize = 200;

// The summary's types are the formats' (it is `summary.json`'s `run`); their old paths stay.
pub use arena_formats::summary::{BotRow, BotText, PairCell, RunSummary, SprtSummary};

/// How a [`RunSummary`] is made of the statistics. A trait because the summary's type is the
/// formats' (arena-formats).
pub trait SummaryOf {
    /// The summary of `report`, the statistics of `plan`'s journal ([`stats::compute`]) with
    /// `bootstrap` resamples.
    fn of(plan: &Plan, report: &StatsReport, bootstrap: usize) -> Self;
}

impl SummaryOf for RunSummary {
    fn of(plan: &Plan, report: &StatsReport, bootstrap: usize) -> RunSummary {
        let order = stats::standings(report);
        let places = stats::places(report);
        let fit = report.global_fit.as_ref().ok();
        let bots = order
            .iter()
            .map(|&bot| {
                let s = &report.summaries[bot];
                let rating = fit.and_then(|fit| fit.bots.get(bot)).map(to_file::bot_fit);
                let trueskill = report.trueskill.ratings.get(bot).map(to_file::skill);
                let weng_lin = report.weng_lin.ratings.get(bot).map(to_file::skill);
                let score_rate = s.score_rate.as_ref().map(to_file::interval);
                let score = s.score.as_ref().map(to_file::interval);
                let elo_2014 = report.elo_2014.ratings.get(bot).copied();
                BotRow {
                    bot,
                    name: report.bots[bot].clone(),
                    place: places[bot],
                    games: s.games,
                    wins: s.wins,
                    draws: s.draws,
                    losses: s.losses,
                    units: s.units,
                    mean_score: s.mean_score,
                    mean_rank: s.mean_rank,
                    text: BotText {
                        score_rate: rate_text(score_rate.as_ref()),
                        mean_score: mean_text(score.as_ref(), s.mean_score),
                        mean_rank: s.mean_rank.map_or(NONE.into(), |r| format!("{r:.2}")),
                        rating: rating.as_ref().map_or(NONE.into(), rating_text),
                        trueskill: trueskill.as_ref().map_or(NONE.into(), skill_text),
                        weng_lin: weng_lin.as_ref().map_or(NONE.into(), skill_text),
                        elo_2014: elo_2014.map_or(NONE.into(), |elo| format!("{elo:.0}")),
                        faults: faults_text(&s.faults),
                    },
                    score_rate,
                    score,
                    rating,
                    trueskill,
                    weng_lin,
                    elo_2014,
                    faults: s.faults.clone(),
                }
            })
            .collect();
        let pairwise = order
            .iter()
            .map(|&row| {
                order
                    .iter()
                    .map(|&column| match report.pairwise.get(row, column) {
                        Some(pair) if row != column && pair.games > 0 => Some(PairCell {
                            games: pair.games,
                            wins: pair.wins,
                            draws: pair.draws,
                            losses: pair.losses,
                            score: pair.score.as_ref().map(to_file::interval),
                            los: pair.los,
                            text: pair_text(pair.score.as_ref().map(to_file::interval).as_ref()),
                            los_text: pair
                                .los
                                .map_or(String::new(), |los| format!("LOS {:.0}%", 100.0 * los)),
                        }),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let rating_note = match &report.global_fit {
            Ok(fit) => format!(
                "rating: {} fit (Elo scale, mean 0){}; intervals from {} bootstrap resamples",
                fit.model,
                if report.fit_sample.sampled() {
                    format!(
                        " on a uniform sample of {} of {} seed groups",
                        report.fit_sample.units_used, report.fit_sample.units_seen
                    )
                } else {
                    String::new()
                },
                fit.resamples_used
            ),
            Err(e) => format!("rating: no global fit ({e})"),
        };
        let rating_bounds = fit
            .map(|fit| {
                fit.bots
                    .iter()
                    .filter_map(|b| Some((b, b.unbounded?)))
                    .map(|(b, unbounded)| {
                        format!(
                            "note: {} {}: its rating has no {} limit; shown is the 95 % profile-likelihood bound",
                            report.bots[b.bot],
                            match unbounded {
                                arena_stats::Unbounded::Above => "never finished behind the others",
                                arena_stats::Unbounded::Below => "never finished ahead of the others",
                                arena_stats::Unbounded::Both => "has no decided game against the others",
                            },
                            match unbounded {
                                arena_stats::Unbounded::Below => "lower",
                                arena_stats::Unbounded::Above => "upper",
                                arena_stats::Unbounded::Both => "upper or lower",
                            },
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        RunSummary {
            games: report.games,
            confidence: CONFIDENCE,
            bootstrap,
            units: unit_words(plan).to_string(),
            bots,
            rating_note,
            rating_bounds,
            pairwise,
            sprt: report.sprt.as_ref().map(|sprt| sprt_summary(report, sprt)),
        }
    }
}

/// Where a [`RunSummary`] came from (see [`current`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `summary.json`, written by the run over the same journal.
    Saved,
    /// The journal now (the run is going on, or its summary is older than the journal or
    /// predates [`RunSummary`]), with [`DEFAULT_BOOTSTRAP`] resamples.
    Computed,
}

/// The summary of the run in `dir` as it stands: the one the run wrote into `summary.json`
/// while that still covers every game of the journal (so a view shows exactly what the run
/// printed, rating intervals included, whatever `--bootstrap` it had), else computed now.
pub fn current(dir: &Path, plan: &Plan) -> Result<(RunSummary, Source), TournamentError> {
    if let Some(saved) = saved(dir)
        && saved.games == journal_lines(dir)?
    {
        return Ok((saved, Source::Saved));
    }
    let stats = stats::statistics(dir, plan, DEFAULT_BOOTSTRAP)?;
    Ok((
        RunSummary::of(plan, &stats, DEFAULT_BOOTSTRAP),
        Source::Computed,
    ))
}

/// The summary in `summary.json`, if there is one that reads.
fn saved(dir: &Path) -> Option<RunSummary> {
    #[derive(Deserialize)]
    struct File {
        run: Option<RunSummary>,
    }
    let text = std::fs::read(dir.join(SUMMARY_FILE)).ok()?;
    serde_json::from_slice::<File>(&text).ok()?.run
}

/// Complete lines of the journal: the games the statistics count (a line being written has no
/// newline yet and is not counted, as [`crate::journal::lines_in_order`] skips it).
fn journal_lines(dir: &Path) -> Result<u64, TournamentError> {
    let path = dir.join(crate::journal::RESULTS_FILE);
    let mut file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(TournamentError::io(&path, e)),
    };
    let mut buffer = vec![0u8; 1 << 16];
    let mut lines = 0u64;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|e| TournamentError::io(&path, e))?;
        if read == 0 {
            return Ok(lines);
        }
        lines += buffer[..read].iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

/// Shown for a figure there is none of.
pub const NONE: &str = "-";

/// A rate in [0, 1] with its interval, in percent to one decimal: `81.2% [66.3, 90.1]`.
/// Brackets rather than ±: a Wilson interval is not symmetric.
pub fn rate_text(interval: Option<&Interval>) -> String {
    match interval {
        Some(i) => format!(
            "{:.1}% [{:.1}, {:.1}]",
            100.0 * i.estimate,
            100.0 * i.low,
            100.0 * i.high
        ),
        None => NONE.into(),
    }
}

/// A mean with its half-width, to two decimals: `7.48 ± 2.05`; the mean alone before it has an
/// interval. ± rather than brackets: a Student-t interval is symmetric, so the half-width says it
/// all and cannot round differently on its two sides.
pub fn mean_text(interval: Option<&Interval>, mean: Option<f64>) -> String {
    match (interval, mean) {
        (Some(i), _) => format!("{:.2} ± {:.2}", i.estimate, (i.high - i.low) / 2.0),
        (None, Some(mean)) => format!("{mean:.2}"),
        (None, None) => NONE.into(),
    }
}

/// A fitted rating: the estimate with its bootstrap interval (`+323 [+257, +430]`), or for a
/// rating the games leave unbounded, the one bound they give (`≥+400 (unbounded)`).
pub fn rating_text(fit: &BotFit) -> String {
    match (fit.unbounded, fit.rating_bound) {
        (Some(Unbounded::Above), Some(bound)) => format!("≥{bound:+.0} (unbounded)"),
        (Some(Unbounded::Below), Some(bound)) => format!("≤{bound:+.0} (unbounded)"),
        (Some(_), _) => "unbounded".into(),
        (None, _) => match &fit.rating_interval {
            Some(i) => format!("{:+.0} [{:+.0}, {:+.0}]", fit.rating, i.low, i.high),
            None => format!("{:+.0}", fit.rating),
        },
    }
}

/// A Bayesian skill rating: `29.1 ± 1.2` (mean and uncertainty σ).
pub fn skill_text(rating: &SkillRating) -> String {
    format!("{:.1} ± {:.1}", rating.mean, rating.uncertainty)
}

/// One bot's score against another in percent with its half-width: `84±13` (short, for the
/// terminal's columns).
pub fn pair_text(score: Option<&Interval>) -> String {
    match score {
        Some(score) => format!(
            "{:.0}±{:.0}",
            100.0 * score.estimate,
            50.0 * (score.high - score.low)
        ),
        None => NONE.into(),
    }
}

/// Fault counts: `timeout 3, crashed 1`.
pub fn faults_text(faults: &BTreeMap<String, u64>) -> String {
    if faults.is_empty() {
        return NONE.into();
    }
    faults
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a unit of the intervals is, for the notes under the tables.
fn unit_words(plan: &Plan) -> &'static str {
    if plan.players > 2 {
        "seed groups (every seat order of one seed)"
    } else {
        "game pairs (one seed, seats swapped)"
    }
}

fn sprt_summary(report: &StatsReport, sprt: &SprtReport) -> SprtSummary {
    let a = &report.bots[sprt.setup.a];
    let b = &report.bots[sprt.setup.b];
    let status = sprt.status().as_ref().ok();
    SprtSummary {
        a: a.clone(),
        b: b.clone(),
        verdict: status.map(|s| to_file::verdict(s.verdict)),
        llr: status.map(|s| s.llr),
        units: sprt.units,
        decided: sprt.decision.is_some(),
        verdict_text: status.map_or(NONE.into(), |s| {
            sprt_verdict_text(a, b, to_file::verdict(s.verdict))
        }),
        text: sprt_text(report, sprt),
    }
}

fn sprt_text(report: &StatsReport, sprt: &SprtReport) -> String {
    use std::fmt::Write as _;
    let a = &report.bots[sprt.setup.a];
    let b = &report.bots[sprt.setup.b];
    let config = &sprt.setup.config;
    let unit = match sprt.unit {
        SprtUnit::Game => "game",
        SprtUnit::Pair => "game pair",
        SprtUnit::SeedGroup => "seed group",
    };
    // Whole sentences, one a line (the report makes each line a paragraph): the setting, the
    // verdict, the evidence, then what the test left out.
    match sprt.status() {
        Ok(status) => {
            let decided = sprt.decision.is_some();
            let mut text = format!(
                "SPRT of {a} against {b} (elo0 {}, elo1 {}, alpha {}, beta {}). {}.\n",
                config.elo0,
                config.elo1,
                config.alpha,
                config.beta,
                capitalised(&sprt_verdict_text(a, b, to_file::verdict(status.verdict))),
            );
            let _ = writeln!(
                text,
                "  After {} {unit}{} ({}-{}-{} in games) the LLR is {:.3}, {} [{:.3}, {:.3}].",
                sprt.units,
                if sprt.units == 1 { "" } else { "s" },
                sprt.games.wins,
                sprt.games.draws,
                sprt.games.losses,
                status.llr,
                if decided { "outside" } else { "inside" },
                status.lower,
                status.upper,
            );
            if !decided {
                let _ = writeln!(
                    text,
                    "  No verdict is possible before {} {unit}s; counts are per {unit}, in schedule order.",
                    sprt.min_units
                );
            }
            if sprt.uncounted_games > 0 {
                let _ = writeln!(
                    text,
                    "  {} games of {a} against {b} are not in the test ({}).",
                    sprt.uncounted_games,
                    if decided {
                        "finished after the deciding unit, or in incomplete units"
                    } else {
                        "their unit is incomplete"
                    }
                );
            }
            text
        }
        Err(e) => format!("SPRT: {e}\n"),
    }
}

/// A sentence's start: the text with its first letter upper-case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// How many games the run played, for a report's header: `40 games (10 rounds)`, or for a run
/// that stopped early `102 of 408 planned games (34 rounds): the SPRT decided and stopped the
/// run` (a run interrupted, or still going, says so without naming a cause).
pub fn games_played_text(plan: &Plan, games: u64, sprt_decided: bool) -> String {
    let planned = plan.total_games();
    let rounds = match plan.rounds {
        1 => "1 round".to_string(),
        n => format!("{n} rounds"),
    };
    if games >= planned {
        format!("{games} games ({rounds})")
    } else if sprt_decided {
        format!(
            "{games} of {planned} planned games ({rounds}): the SPRT decided after {games} games and stopped the run"
        )
    } else {
        format!("{games} of {planned} planned games ({rounds}) played")
    }
}

/// The verdict in words, from A's side.
pub fn sprt_verdict_text(a: &str, b: &str, verdict: SprtVerdict) -> String {
    match verdict {
        SprtVerdict::AcceptH1 => {
            format!("H1 accepted: {a} is stronger than {b} by about elo1 or more")
        }
        SprtVerdict::AcceptH0 => format!("H0 accepted: {a} is not elo1 stronger than {b}"),
        SprtVerdict::Continue => "undecided (more games needed)".into(),
    }
}

/// The short verdict word of the CSV: `H1`, `H0` or `undecided`.
pub fn sprt_verdict_word(verdict: SprtVerdict) -> &'static str {
    match verdict {
        SprtVerdict::AcceptH1 => "H1",
        SprtVerdict::AcceptH0 => "H0",
        SprtVerdict::Continue => "undecided",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(estimate: f64, low: f64, high: f64) -> Interval {
        Interval {
            estimate,
            low,
            high,
        }
    }

    #[test]
    fn each_figure_has_one_printed_form() {
        assert_eq!(
            rate_text(Some(&interval(1.0, 0.96512, 1.0))),
            "100.0% [96.5, 100.0]"
        );
        assert_eq!(rate_text(None), "-");
        assert_eq!(
            mean_text(Some(&interval(124.7612, 123.08, 126.44)), Some(124.7612)),
            "124.76 ± 1.68"
        );
        assert_eq!(mean_text(None, Some(3.0)), "3.00");
        assert_eq!(pair_text(Some(&interval(0.84, 0.71, 0.97))), "84±13");
        let fit = BotFit {
            bot: 0,
            rating: 323.4,
            rank: 1,
            rating_interval: Some(interval(323.4, 256.9, 429.8)),
            rank_interval: Some((1, 1)),
            unbounded: None,
            rating_bound: None,
        };
        assert_eq!(rating_text(&fit), "+323 [+257, +430]");
        let open = BotFit {
            unbounded: Some(Unbounded::Above),
            rating_bound: Some(304.2),
            rating_interval: None,
            ..fit
        };
        assert_eq!(rating_text(&open), "≥+304 (unbounded)");
        let faults = BTreeMap::from([("crashed".to_string(), 1), ("timeout".to_string(), 3)]);
        assert_eq!(faults_text(&faults), "crashed 1, timeout 3");
    }
}
