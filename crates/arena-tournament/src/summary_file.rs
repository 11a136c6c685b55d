//! `summary.json` made of the statistics: the file's types are the formats' own
//! ([`arena_formats::summary`]), filled in here from arena-stats' values, which do not serialise
//! themselves (a change inside the statistics cannot change the file by accident).

use arena_formats::summary as file;
use arena_stats as stats;
use arena_stats::StatsReport;

use crate::schedule::{Plan, sprt_settings};

/// The whole file: the plan's game, the statistics, the run's summary and the answer times.
pub fn summary(
    plan: &Plan,
    report: &StatsReport,
    run: &file::RunSummary,
    timing: &file::Timing,
) -> file::Summary {
    file::Summary {
        game: plan.game.clone(),
        variant: plan.variant.clone(),
        seed: plan.seed,
        schedule: plan.schedule,
        stats: stats_of(report),
        run: Some(run.clone()),
        timing: timing.clone(),
    }
}

pub fn interval(interval: &stats::Interval) -> file::Interval {
    let stats::Interval {
        estimate,
        low,
        high,
    } = *interval;
    file::Interval {
        estimate,
        low,
        high,
    }
}

pub fn bot_fit(fit: &stats::BotFit) -> file::BotFit {
    file::BotFit {
        bot: fit.bot,
        rating: fit.rating,
        rank: fit.rank,
        rating_interval: fit.rating_interval.as_ref().map(interval),
        rank_interval: fit.rank_interval,
        unbounded: fit.unbounded.map(|side| match side {
            stats::Unbounded::Above => file::Unbounded::Above,
            stats::Unbounded::Below => file::Unbounded::Below,
            stats::Unbounded::Both => file::Unbounded::Both,
        }),
        rating_bound: fit.rating_bound,
    }
}

pub fn skill(rating: &stats::SkillRating) -> file::SkillRating {
    file::SkillRating {
        mean: rating.mean,
        uncertainty: rating.uncertainty,
        conservative: rating.conservative,
    }
}

pub fn verdict(verdict: stats::SprtVerdict) -> file::SprtVerdict {
    match verdict {
        stats::SprtVerdict::Continue => file::SprtVerdict::Continue,
        stats::SprtVerdict::AcceptH0 => file::SprtVerdict::AcceptH0,
        stats::SprtVerdict::AcceptH1 => file::SprtVerdict::AcceptH1,
    }
}

fn skill_ratings(ratings: &stats::SkillRatings) -> file::SkillRatings {
    file::SkillRatings {
        ratings: ratings.ratings.iter().map(skill).collect(),
        games_rated: ratings.games_rated,
        games_skipped: ratings.games_skipped,
    }
}

fn bot_stats(summary: &stats::BotSummary) -> file::BotStats {
    file::BotStats {
        bot: summary.bot,
        name: summary.name.clone(),
        games: summary.games,
        wins: summary.wins,
        draws: summary.draws,
        losses: summary.losses,
        score_rate: summary.score_rate.as_ref().map(interval),
        units: summary.units,
        score: summary.score.as_ref().map(interval),
        mean_score: summary.mean_score,
        mean_rank: summary.mean_rank,
        seats: summary
            .seats
            .iter()
            .map(|seat| file::SeatStats {
                games: seat.games,
                wins: seat.wins,
                draws: seat.draws,
                losses: seat.losses,
                mean_score: seat.mean_score,
            })
            .collect(),
        faults: summary.faults.clone(),
    }
}

fn pair_stats(pair: &stats::PairRecord) -> file::PairStats {
    file::PairStats {
        games: pair.games,
        wins: pair.wins,
        draws: pair.draws,
        losses: pair.losses,
        score: pair.score.as_ref().map(interval),
        units: pair.units,
        los: pair.los,
    }
}

fn global_fit(fit: &Result<stats::GlobalFit, String>) -> file::FitOrError {
    match fit {
        Ok(fit) => file::FitOrError::Fit(file::GlobalFit {
            model: match fit.model {
                stats::FitModel::BradleyTerry => file::FitModel::BradleyTerry,
                stats::FitModel::PlackettLuce => file::FitModel::PlackettLuce,
            },
            bots: fit.bots.iter().map(bot_fit).collect(),
            iterations: fit.iterations,
            converged: fit.converged,
            resamples_used: fit.resamples_used,
        }),
        Err(error) => file::FitOrError::Error {
            error: error.clone(),
        },
    }
}

fn sprt(report: &stats::SprtReport) -> file::Sprt {
    let setup = &report.setup;
    file::Sprt {
        setup: file::SprtSetup {
            config: sprt_settings(setup.config),
            a: setup.a,
            b: setup.b,
            unit_games: setup.unit_games,
        },
        unit: match report.unit {
            stats::SprtUnit::Game => file::SprtUnit::Game,
            stats::SprtUnit::Pair => file::SprtUnit::Pair,
            stats::SprtUnit::SeedGroup => file::SprtUnit::SeedGroup,
        },
        counts: report.counts.clone(),
        units: report.units,
        games: file::Trinomial {
            wins: report.games.wins,
            draws: report.games.draws,
            losses: report.games.losses,
        },
        uncounted_games: report.uncounted_games,
        status: match report.status() {
            Ok(status) => Ok(file::SprtStatus {
                llr: status.llr,
                lower: status.lower,
                upper: status.upper,
                verdict: verdict(status.verdict),
            }),
            Err(stats::SprtError::BadErrorRates) => Err(file::SprtProblem::BadErrorRates),
            Err(stats::SprtError::BadHypotheses) => Err(file::SprtProblem::BadHypotheses),
        },
        decision: report.decision.map(|decision| file::SprtDecision {
            verdict: verdict(decision.verdict),
            units: decision.units,
            pair_id: decision.pair_id,
        }),
        min_units: report.min_units,
    }
}

fn histogram(histogram: &stats::Histogram) -> file::Histogram {
    file::Histogram {
        count: histogram.count,
        min: histogram.min,
        max: histogram.max,
        exact: histogram.exact,
        bins: histogram
            .bins
            .iter()
            .map(|bin| file::HistogramBin {
                low: bin.low,
                high: bin.high,
                count: bin.count,
            })
            .collect(),
    }
}

/// The statistics part of the file.
pub fn stats_of(report: &StatsReport) -> file::Stats {
    file::Stats {
        bots: report.bots.clone(),
        games: report.games,
        summaries: report.summaries.iter().map(bot_stats).collect(),
        pairwise: file::Pairwise {
            bot_count: report.pairwise.bot_count,
            records: report.pairwise.records.iter().map(pair_stats).collect(),
        },
        trueskill: skill_ratings(&report.trueskill),
        weng_lin: skill_ratings(&report.weng_lin),
        elo_2014: file::EloRatings {
            ratings: report.elo_2014.ratings.clone(),
            games_rated: report.elo_2014.games_rated,
        },
        global_fit: global_fit(&report.global_fit),
        fit_sample: file::FitSample {
            units_used: report.fit_sample.units_used,
            units_seen: report.fit_sample.units_seen,
            games_used: report.fit_sample.games_used,
        },
        sprt: report.sprt.as_ref().map(sprt),
        score_histograms: report.score_histograms.iter().map(histogram).collect(),
    }
}
