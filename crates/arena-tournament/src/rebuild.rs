//! Replays of games between built-in bots, rebuilt on demand instead of stored.
//!
//! A game whose every seat is a built-in bot is a pure function of the plan and its seed: the rules
//! are deterministic, built-in bots draw only from their seat's seed, and in-process bots are never
//! timed out. Storing its replay would cost far more than playing it (a Spring 2021 replay is about
//! 170 KB of JSON against 0.1 ms of play), so by default such games are journaled without a replay
//! file and played again, recording, when someone asks to watch one. The rebuilt game is checked
//! against the journal (scores and winner): a different result means the built-in bots or rules
//! changed since the tournament ran, and the rebuild is refused rather than shown as that game.

use std::path::Path;

use arena_core::registry::{GameEntry, GameRequest, PlayerSpec, SeatRequest};

use crate::journal::{self, Entry};
use crate::schedule::Plan;
use crate::schedule::PlanSchedule as _;
use arena_core::runner::RulesOptions as _;

/// Whether game `index` of `plan` can be rebuilt (every seat is a built-in bot).
pub fn can_rebuild(plan: &Plan, index: u64) -> bool {
    index < plan.total_games()
        && plan
            .game(index)
            .seats
            .iter()
            .all(|&bot| plan.bots[bot].builtin().is_some())
}

/// The journal's entry of game `index`, if it has been played.
pub fn journaled(dir: &Path, index: u64) -> Result<Option<Entry>, String> {
    let entries = journal::entries_in_order(dir).map_err(|e| e.to_string())?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.index == index {
            return Ok(Some(entry));
        }
        if entry.index > index {
            break;
        }
    }
    Ok(None)
}

/// Plays game `index` of the tournament in `dir` (whose plan is `plan`) again, recording it, and
/// returns its replay JSON (the same record `arena play` writes). `played` is the game's journal
/// entry ([`journaled`]), read once by the caller. Refused when a seat is not a built-in bot, when
/// the game has not been played, or when the result differs from the journal's.
pub async fn rebuild_replay(
    dir: &Path,
    plan: &Plan,
    index: u64,
    played: Option<&Entry>,
    entry: &dyn GameEntry,
) -> Result<Vec<u8>, String> {
    if index >= plan.total_games() {
        return Err(format!(
            "the tournament in {} has no game {index} (it schedules {})",
            dir.display(),
            plan.total_games()
        ));
    }
    if !can_rebuild(plan, index) {
        return Err(format!(
            "game {index} has a bot that is not built in: only a stored replay can show it"
        ));
    }
    let journaled = played.ok_or_else(|| {
        format!("game {index} has not been played yet (resume the tournament to play it)")
    })?;
    let scheduled = plan.game(index);
    let seats = scheduled
        .seats
        .iter()
        .map(|&bot| {
            let bot = &plan.bots[bot];
            SeatRequest {
                name: bot.name.clone(),
                spec: PlayerSpec::Builtin(bot.builtin().unwrap_or_default().to_string()),
                workdir: None,
            }
        })
        .collect();
    let request = GameRequest {
        variant: plan.variant.clone(),
        seed: scheduled.seed,
        seats,
        // Only games between built-in bots are rebuilt: no process to sandbox.
        options: plan.settings.rules.match_options(true, None, None),
        stderr_cap: plan.settings.stderr_cap,
        prepared: Default::default(),
    };
    let result = entry.play(request).await.map_err(|e| e.to_string())?;
    if result.outcome.scores != journaled.scores || result.outcome.winner != journaled.winner {
        return Err(format!(
            "game {index} played again gives scores {} where the journal has {}: the built-in bots \
             or the rules changed since this tournament was run, so its replay cannot be rebuilt \
             (run the tournament again with this arena, or with --replays all to store every replay)",
            format_scores(&result.outcome.scores),
            format_scores(&journaled.scores),
        ));
    }
    result
        .record
        .to_json()
        .map_err(|e| format!("cannot encode the replay of game {index}: {e}"))
}

fn format_scores(scores: &[arena_core::Score]) -> String {
    let texts: Vec<String> = scores.iter().map(ToString::to_string).collect();
    format!("[{}]", texts.join(", "))
}
