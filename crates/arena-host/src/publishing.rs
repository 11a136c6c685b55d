//! What the contest server publishes of its games: a finished game's replay (played again for
//! built-in bots, which keep none) and the export of every finished game as an `arena tournament`
//! folder.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::HostError;
use crate::host::{Host, gunzip};
use crate::store::{Role, User};
use crate::workers::all_builtin;

impl Host {
    /// Game `id`'s replay as `user` may see it: other contestants' stderr removed (whole-game and
    /// per answer); `None` when it has none (not played, or no such game). The API and the pages
    /// show replays only through it.
    pub async fn visible_replay(
        self: &Arc<Self>,
        user: &User,
        id: i64,
    ) -> Result<Option<Value>, HostError> {
        let Some(gz) = self.replay(id).await? else {
            return Ok(None);
        };
        let broken = |e: String| HostError::Io(format!("replay {id}: {e}"));
        let json = gunzip(&gz, 256 << 20).map_err(|e| broken(e.to_string()))?;
        let mut replay: Value = serde_json::from_slice(&json).map_err(|e| broken(e.to_string()))?;
        arena_formats::version::check_replay(&replay).map_err(|e| broken(e.to_string()))?;
        if user.role != Role::Organiser {
            let seats = self.store.seats(id).await?;
            let mut owners = Vec::new();
            for submission in &seats {
                owners.push(self.store.submission(*submission).await?.map(|s| s.user_id));
            }
            if let Some(players) = replay.get_mut("players").and_then(Value::as_array_mut) {
                for (seat, player) in players.iter_mut().enumerate() {
                    if owners.get(seat).copied().flatten() != Some(user.id)
                        && let Some(object) = player.as_object_mut()
                    {
                        object.insert(
                            "stderr".into(),
                            Value::String("(hidden: another contestant's bot)".into()),
                        );
                        object.remove("stderr_dropped");
                    }
                }
            }
            // And the stderr each of their answers carries.
            if let Some(steps) = replay.get_mut("steps").and_then(Value::as_array_mut) {
                for step in steps {
                    let seat = step["player"].as_u64().map(|p| p as usize);
                    if seat.and_then(|seat| owners.get(seat).copied().flatten()) != Some(user.id)
                        && let Some(object) = step.as_object_mut()
                    {
                        object.remove("stderr");
                    }
                }
            }
        }
        Ok(Some(replay))
    }

    /// A finished game's gzipped replay: the stored one, or, for a game of built-in bots (which
    /// keeps none), the game played again from its seed, recording.
    pub async fn replay(self: &Arc<Self>, game: i64) -> Result<Option<Vec<u8>>, HostError> {
        if let Some(replay) = self.store.replay(game).await? {
            return Ok(Some(replay));
        }
        let Some(claimed) = self.store.finished_game(game).await? else {
            return Ok(None);
        };
        if !all_builtin(&claimed) {
            return Ok(None);
        }
        let host = Arc::clone(self);
        let handle = tokio::runtime::Handle::current();
        tokio::task::spawn_blocking(move || {
            let local = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start a runtime: {e}"))?;
            // Games of built-in bots only: no sandbox to keep.
            let mut kept = crate::workers::KeptSandboxes::default();
            host.play(&claimed, None, &handle, &local, true, &mut kept)
                .map(|finished| finished.replay)
                .map_err(|not_played| not_played.to_string())
        })
        .await
        .map_err(|e| HostError::Io(format!("replaying game {game}: {e}")))?
        .map_err(|e| HostError::Io(format!("replaying game {game}: {e}")))
    }

    /// Writes every finished game as an `arena tournament` folder in `dir` (made; refused when it
    /// holds a journal already): `tournament.json`, `results.jsonl` (games in completion order,
    /// bots numbered by first appearance, named `user#submission`), the replays (bundled for the
    /// published viewer page, those the report links), `summary.json`, `leaderboard.csv`, `report.html` and `viewer.html`. The
    /// folder opens in `arena serve` and from disk like a tournament's. Returns the games written.
    pub async fn export(
        self: &Arc<Self>,
        dir: &Path,
        bootstrap: usize,
    ) -> Result<usize, HostError> {
        use arena_tournament::folder::{OutputOptions, TournamentFolder};
        let failed = |e: arena_tournament::TournamentError| HostError::Io(e.to_string());
        let results = self.store.contest_results().await?;
        let mut all_seats = self.store.contest_seats().await?;
        // First the bots (the plan names them all), then the folder, then each game's line and
        // replay, one at a time.
        let mut bots: Vec<(i64, String)> = Vec::new();
        let mut seated = Vec::new();
        for (game, _, _) in &results {
            let seats = all_seats.remove(game).unwrap_or_default();
            let mut indices = Vec::new();
            for submission in &seats {
                let index = match bots.iter().position(|(id, _)| id == submission) {
                    Some(index) => index,
                    None => {
                        let user = self
                            .store
                            .submission(*submission)
                            .await?
                            .map_or_else(|| "?".to_string(), |s| s.user);
                        bots.push((*submission, format!("{user}#{submission}")));
                        bots.len() - 1
                    }
                };
                indices.push(index);
            }
            seated.push(indices);
        }
        if bots.len() < 2 {
            return Err(HostError::Refused(
                "nothing to export yet: no game has finished between two submissions".into(),
            ));
        }
        let plan = arena_tournament::Plan {
            format: arena_tournament::schedule::PLAN_FORMAT,
            arena: Some(arena_core::format::ARENA_VERSION.to_string()),
            game: self.game.id().to_string(),
            variant: self.contest.leagues.first().and_then(|l| l.variant.clone()),
            players: self.game.players(),
            bots: bots
                .iter()
                .map(|(_, name)| arena_tournament::BotPlan {
                    name: name.clone(),
                    spec: format!("contest submission {name}"),
                    workdir: None,
                    source: None,
                })
                .collect(),
            schedule: arena_tournament::Schedule::RoundRobin,
            seat_orders: arena_tournament::SeatOrders::Rotations,
            rounds: 1,
            seed: self.contest.seed,
            settings: arena_tournament::RunSettings {
                rules: self.run_rules(),
                stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
                replays: true,
                builtin_replays: true,
                game_options: Default::default(),
                kept_folders: false,
            },
            groups: Vec::new(),
            groups_per_round: 0,
            sprt: None,
        };
        let mut folder = TournamentFolder::create(dir, &plan).map_err(failed)?;
        let mut replay_dir = false;
        for (position, ((game, _, line), indices)) in results.iter().zip(seated).enumerate() {
            let mut entry: arena_tournament::Entry = serde_json::from_str(line)
                .map_err(|e| HostError::Database(format!("the result of game {game}: {e}")))?;
            entry.index = position as u64;
            entry.pair = position as u64;
            entry.bots = indices.iter().map(|&i| bots[i].1.clone()).collect();
            entry.seats = indices;
            entry.replay = None;
            if let Some(replay) = self.replay(*game).await? {
                if !replay_dir {
                    folder.replay_dir().map_err(failed)?;
                    replay_dir = true;
                }
                let name = arena_formats::layout::replay_path(position as u64);
                folder.write_replay(&name, &replay).map_err(failed)?;
                entry.replay = Some(name);
            }
            folder.append(&entry).map_err(failed)?;
        }
        let game = self.game.clone();
        let timed = |bot: &arena_tournament::BotPlan| {
            bot.builtin().is_none_or(|name| game.builtin_thinks(name))
        };
        let viewer_page = || arena_viewer::published_viewer_page(&self.viewer_games());
        folder
            .finish(
                &plan,
                &OutputOptions {
                    bootstrap,
                    machine: arena_tournament::timing::MachineLoad {
                        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
                        max_load: None,
                    },
                    timed: &timed,
                    viewer_page: &viewer_page,
                },
            )
            .map_err(failed)?;
        Ok(results.len())
    }
}
