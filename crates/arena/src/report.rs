//! The end of `arena tournament`: statistics over the journal, the files beside it, the leaderboard.

use std::path::Path;

use anyhow::Result;
use arena_tournament::Plan;
use arena_tournament::folder::{OutputOptions, Outputs};
use arena_tournament::report;
use arena_tournament::stats::SprtRule;
use arena_tournament::timing::MachineLoad;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
    Csv,
}

/// The plan's SPRT stop rule, counting the games of an earlier run on resume.
pub fn sprt_rule(plan: &Plan, dir: &Path) -> Result<Option<SprtRule>> {
    let Some(mut rule) = SprtRule::new(plan) else {
        return Ok(None);
    };
    rule.preload(dir)?;
    Ok(Some(rule))
}

pub fn finish(
    dir: &Path,
    plan: &Plan,
    format: FormatArg,
    bootstrap: usize,
    machine: MachineLoad,
) -> Result<()> {
    // Built-ins that search are timed like process bots.
    let game = crate::games::find_game_of_plan(plan)?;
    let timed = |bot: &arena_tournament::BotPlan| {
        bot.builtin().is_none_or(|name| game.builtin_thinks(name))
    };
    // The page report.html's replay links open (viewer.html?game=N), so that the folder works
    // copied anywhere, opened from disk. The one summary every view shows is printed below, and
    // is in summary.json and report.html.
    let viewer_page = || arena_viewer::published_viewer_page(&crate::games::viewer_games());
    let Outputs { stats, run, timing } = arena_tournament::folder::finish(
        dir,
        plan,
        &OutputOptions {
            bootstrap,
            machine,
            timed: &timed,
            viewer_page: &viewer_page,
        },
    )?;
    match format {
        FormatArg::Text => {
            print!("{}", report::leaderboard_text(plan, &run));
            let table = arena_tournament::timing::text(&timing);
            if !table.is_empty() {
                print!("\n{table}");
            }
        }
        FormatArg::Csv => print!("{}", report::leaderboard_csv(&stats)),
        FormatArg::Json => println!(
            "{}",
            serde_json::to_string_pretty(&arena_tournament::summary_file::stats_of(&stats))?
        ),
    }
    // The other formats are for programs: the warning goes to the person, on stderr.
    if format != FormatArg::Text
        && let Some(warning) = &timing.warning
    {
        eprintln!("warning: {warning}");
    }
    eprintln!(
        "wrote {} ({}, {}, {}, {})",
        dir.display(),
        report::SUMMARY_FILE,
        report::LEADERBOARD_FILE,
        report::REPORT_FILE,
        report::VIEWER_FILE
    );
    Ok(())
}
