//! The end of `arena tournament`: statistics over the journal, the files beside it, the leaderboard.

use std::path::Path;

use anyhow::{Result, bail};
use arena_tournament::Plan;
use arena_tournament::report::{self, SprtRule};

use crate::tournament::FormatArg;

/// The SPRT stop rule when `--sprt ELO0 ELO1` was given (counting games of an earlier run on resume).
pub fn sprt_rule(
    plan: &Plan,
    dir: &Path,
    sprt: Option<&[f64]>,
    alpha: f64,
    beta: f64,
) -> Result<Option<SprtRule>> {
    let Some(bounds) = sprt else {
        return Ok(None);
    };
    let [elo0, elo1] = bounds else {
        bail!("--sprt takes two numbers: ELO0 ELO1");
    };
    let mut rule = SprtRule::new(plan, *elo0, *elo1, alpha, beta)?;
    rule.preload(dir)?;
    Ok(Some(rule))
}

pub fn finish(
    dir: &Path,
    plan: &Plan,
    format: FormatArg,
    bootstrap: usize,
    sprt: Option<&SprtRule>,
) -> Result<()> {
    let (stats, first_games) = report::compute(dir, plan, bootstrap)?;
    report::write_outputs(dir, plan, &stats, &first_games)?;
    match format {
        FormatArg::Text => {
            print!("{}", report::leaderboard_text(plan, &stats));
            if let Some(sprt) = sprt.and_then(SprtRule::report) {
                print!("{}", report::sprt_text(&stats, sprt));
            }
        }
        FormatArg::Csv => print!("{}", report::leaderboard_csv(&stats)),
        FormatArg::Json => println!("{}", serde_json::to_string_pretty(&stats)?),
    }
    eprintln!(
        "wrote {} ({}, {}, {})",
        dir.display(),
        report::SUMMARY_FILE,
        report::LEADERBOARD_FILE,
        report::REPORT_FILE
    );
    Ok(())
}
