//! The one writer of a tournament folder: made with its plan (`tournament.json`), its results lines
//! appended to `results.jsonl`, each replay written beside them (`replays/N.json.gz`; bundled
//! for the published viewer page for the games the report links), and finished with its outputs (`summary.json`, `leaderboard.csv`,
//! `report.html`, `viewer.html`). `arena tournament` (the runner) and the contest server's
//! export write their folders through it, so both are the same folder.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use arena_stats::StatsReport;

use crate::journal::{self, Done, Entry};
use crate::schedule::{BotPlan, Plan};
use crate::summary::{RunSummary, SummaryOf as _};
use crate::timing::{MachineLoad, TimingSummary};
use crate::{PLAN_FILE, TournamentError, report};

/// Where replays go, relative to the tournament directory (the layout is the formats').
pub use arena_formats::layout::REPLAY_DIR;

/// A tournament folder open for writing: its plan is on disk and its journal open for appending.
pub struct TournamentFolder {
    dir: PathBuf,
    journal: File,
}

impl TournamentFolder {
    /// Makes the folder and writes its plan, then opens its (empty) journal. A folder that holds a
    /// journal already is refused: resume it instead.
    pub fn create(dir: &Path, plan: &Plan) -> Result<TournamentFolder, TournamentError> {
        write_plan(dir, plan)?;
        Ok(TournamentFolder::open(dir, plan)?.0)
    }

    /// Opens the folder's journal for appending (made when missing): a torn last line is cut, and
    /// every line is checked against the plan ([`journal::open`]). Returns the games already done.
    pub fn open(dir: &Path, plan: &Plan) -> Result<(TournamentFolder, Done), TournamentError> {
        let (journal, done) = journal::open(dir, plan)?;
        Ok((
            TournamentFolder {
                dir: dir.to_path_buf(),
                journal,
            },
            done,
        ))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends whole results lines (each ending in a newline) with one write: a game's replay must
    /// be written before its line ([`TournamentFolder::write_replay`]).
    pub fn append_lines(&mut self, lines: &[u8]) -> Result<(), TournamentError> {
        journal::append(&mut self.journal, lines).map_err(|e| self.journal_error(e))
    }

    /// Appends one results line.
    pub fn append(&mut self, entry: &Entry) -> Result<(), TournamentError> {
        let mut line = serde_json::to_vec(entry)
            .map_err(|e| TournamentError::Invalid(format!("cannot encode a result: {e}")))?;
        line.push(b'\n');
        self.append_lines(&line)
    }

    /// Writes a compressed replay at `relative` (under [`REPLAY_DIR`]), see [`write_replay`].
    pub fn write_replay(&self, relative: &str, compressed: &[u8]) -> Result<(), TournamentError> {
        write_replay(&self.dir, relative, compressed)
    }

    /// Makes the replay folder ([`REPLAY_DIR`]), before the first replay is written.
    pub fn replay_dir(&self) -> Result<PathBuf, TournamentError> {
        let folder = self.dir.join(REPLAY_DIR);
        std::fs::create_dir_all(&folder).map_err(|e| TournamentError::io(&folder, e))?;
        Ok(folder)
    }

    /// Flushes the journal.
    pub fn flush(&mut self) -> Result<(), TournamentError> {
        self.journal.flush().map_err(|e| self.journal_error(e))
    }

    /// Flushes the journal and writes the outputs (see [`finish`]).
    pub fn finish(
        mut self,
        plan: &Plan,
        outputs: &OutputOptions<'_>,
    ) -> Result<Outputs, TournamentError> {
        self.flush()?;
        finish(&self.dir, plan, outputs)
    }

    fn journal_error(&self, e: std::io::Error) -> TournamentError {
        TournamentError::io(&self.dir.join(journal::RESULTS_FILE), e)
    }
}

/// Makes the folder and writes its plan; a folder with a journal is refused.
pub fn write_plan(dir: &Path, plan: &Plan) -> Result<(), TournamentError> {
    if dir.join(journal::RESULTS_FILE).exists() {
        return Err(TournamentError::Invalid(format!(
            "{} already holds a tournament: resume it with --resume {0}, or choose another --out",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| TournamentError::io(dir, e))?;
    let text = serde_json::to_string_pretty(plan)
        .map_err(|e| TournamentError::Invalid(format!("cannot encode the plan: {e}")))?;
    let path = dir.join(PLAN_FILE);
    std::fs::write(&path, text).map_err(|e| TournamentError::io(&path, e))
}

/// Writes a compressed replay (`replays/N.json.gz`, relative to `dir`). Written in place, without a
/// temporary file and a rename (file creation is the costly part on some file systems): a replay
/// is read only once its game is in the journal, which is written after it, and a game cut short
/// by a crash is played again and its file rewritten. The replay folder must exist
/// ([`TournamentFolder::replay_dir`]). The published viewer page's copy is not written here: a
/// game's replay costs one file, and [`finish`] bundles the replays of the games the report links
/// ([`write_replay_bundles`]).
pub fn write_replay(dir: &Path, relative: &str, compressed: &[u8]) -> Result<(), TournamentError> {
    let path = dir.join(relative);
    std::fs::write(&path, compressed).map_err(|e| {
        TournamentError::Invalid(format!("cannot write the replay {}: {e}", path.display()))
    })
}

/// Writes the replay bundles ([`arena_formats::layout::replay_bundle_path`]) of the games in
/// `games` that have a stored replay (the games the report links, so that its links work with the
/// folder opened from disk), each rewritten whole.
fn write_replay_bundles(dir: &Path, games: &[Entry]) -> Result<(), TournamentError> {
    use arena_formats::layout::replay_bundle_path;
    // The games by bundle first, then each bundle's replays read and written: a bundle's hundred
    // replays are held at once, not the report's thousands.
    let mut bundles: std::collections::BTreeMap<String, Vec<(u64, &str)>> = Default::default();
    for game in games {
        if let Some(relative) = game.replay.as_deref() {
            bundles
                .entry(replay_bundle_path(game.index))
                .or_default()
                .push((game.index, relative));
        }
    }
    for (bundle, members) in bundles {
        let mut replays = Vec::with_capacity(members.len());
        for (index, relative) in members {
            let path = dir.join(relative);
            match std::fs::read(&path) {
                Ok(compressed) => replays.push((index, compressed)),
                // A replay lost since (a folder copied in part): the viewer says what is missing.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(TournamentError::io(&path, e)),
            }
        }
        if replays.is_empty() {
            continue;
        }
        let path = dir.join(bundle);
        std::fs::write(&path, replay_bundle_script(&replays))
            .map_err(|e| TournamentError::io(&path, e))?;
    }
    Ok(())
}

/// Compressed replays as the script the published viewer page loads (`viewer.html?game=N` loads
/// `replays/bundle-M.js`, see arena-viewer's `assets/published.js`): a call of `arenaReplays` with
/// an object from each game's number (six digits) to its gzip bytes in base64. Browsers load
/// scripts beside a page opened from disk, where they refuse `fetch`, so a tournament folder works
/// as files.
pub fn replay_bundle_script(replays: &[(u64, Vec<u8>)]) -> String {
    use base64::Engine as _;
    use std::fmt::Write as _;
    let mut script = String::from("arenaReplays({\n");
    for (index, compressed) in replays {
        let encoded = base64::engine::general_purpose::STANDARD.encode(compressed);
        let _ = writeln!(script, "\"{index:06}\": \"{encoded}\",");
    }
    script.push_str("});\n");
    script
}

/// What the outputs are made with.
pub struct OutputOptions<'a> {
    /// Resamples of the bootstrap intervals.
    pub bootstrap: usize,
    /// The machine the games ran on, for the timing summary's warning.
    pub machine: MachineLoad,
    /// Whether a bot's answers were timed (process bots, built-ins that search).
    pub timed: &'a dyn Fn(&BotPlan) -> bool,
    /// Makes the published viewer page (`viewer.html`, made by arena-viewer, which this crate does
    /// not depend on) that `report.html`'s replay links open. Called once the statistics are
    /// written: the page inlines every game's drawing, megabytes that the statistics pass, the
    /// run's peak of memory, need not hold.
    pub viewer_page: &'a dyn Fn() -> String,
}

/// The statistics a finished folder's outputs were made of, for the caller to show.
pub struct Outputs {
    pub stats: StatsReport,
    /// [`RunSummary::of`] the statistics: every view's strings.
    pub run: RunSummary,
    pub timing: TimingSummary,
}

/// Computes the statistics of the folder's journal (one pass) and its answer times, and writes
/// `summary.json`, `leaderboard.csv`, `report.html` and `viewer.html`.
pub fn finish(
    dir: &Path,
    plan: &Plan,
    options: &OutputOptions<'_>,
) -> Result<Outputs, TournamentError> {
    let (stats, first_games) = crate::stats::compute(dir, plan, options.bootstrap)?;
    write_replay_bundles(dir, &first_games)?;
    let run = RunSummary::of(plan, &stats, options.bootstrap);
    let timing = crate::timing::summarize(dir, plan, options.machine, options.timed)?;
    report::write_outputs(dir, plan, &stats, &run, &first_games, &timing)?;
    let viewer = dir.join(report::VIEWER_FILE);
    std::fs::write(&viewer, (options.viewer_page)())
        .map_err(|e| TournamentError::io(&viewer, e))?;
    Ok(Outputs { stats, run, timing })
}
