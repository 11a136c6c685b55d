//! The tournament folder's layout: the name of every file a run (or a contest's export) writes
//! there, in one place, for the writers and the readers alike.
//!
//! ```text
//! DIR/tournament.json        the plan (PLAN_FILE): bots, schedule, seed, settings
//! DIR/results.jsonl          the journal (RESULTS_FILE): one results line per finished game
//! DIR/replays/NNNNNN.json.gz a game's replay, gzipped (replay_path)
//! DIR/replays/bundle-NNNNNN.js the replays of games NNNNNN.. for the published viewer page
//!                            (replay_bundle_path), written for the games the report links
//! DIR/summary.json           the statistics (SUMMARY_FILE)
//! DIR/leaderboard.csv        LEADERBOARD_FILE
//! DIR/report.html            REPORT_FILE
//! DIR/viewer.html            the viewer page of the report's replay links (VIEWER_FILE)
//! DIR/bots/NAME/             a bot's one working folder when the run keeps them (Coup's KotH:
//!                            `kept_folder`)
//! ```

/// The plan: everything that defines the tournament.
pub const PLAN_FILE: &str = "tournament.json";
/// The journal: one results line ([`crate::Entry`]) per finished game, appended as games finish.
pub const RESULTS_FILE: &str = "results.jsonl";
/// The folder of stored replays.
pub const REPLAY_DIR: &str = "replays";
pub const SUMMARY_FILE: &str = "summary.json";
pub const LEADERBOARD_FILE: &str = "leaderboard.csv";
pub const REPORT_FILE: &str = "report.html";
/// The viewer page of the report's replay links (`viewer.html?game=N`).
pub const VIEWER_FILE: &str = "viewer.html";

/// Every file at the top of a finished tournament folder (the replays are in [`REPLAY_DIR`]).
pub const FILES: [&str; 6] = [
    PLAN_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    LEADERBOARD_FILE,
    REPORT_FILE,
    VIEWER_FILE,
];

/// The folder of the bots' working folders kept from game to game (`RunSettings::kept_folders`).
pub const KEPT_FOLDERS_DIR: &str = "bots";

/// Bot `index`'s working folder, relative to the tournament folder, when the run keeps the
/// bots' folders: `bots/NAME` as the original KotH had `NAME/`, or `bots/bot-INDEX` for a name
/// that is no plain file name (a path separator, a leading dot, a control character).
pub fn kept_folder(index: usize, name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '#'));
    if plain {
        format!("{KEPT_FOLDERS_DIR}/{name}")
    } else {
        format!("{KEPT_FOLDERS_DIR}/bot-{index}")
    }
}

/// The stored replay of game `index`, relative to the folder (what a results line's `replay`
/// names): `replays/000042.json.gz`.
pub fn replay_path(index: u64) -> String {
    format!("{REPLAY_DIR}/{index:06}.json.gz")
}

/// Games per replay bundle ([`replay_bundle_path`]).
pub const REPLAY_BUNDLE_GAMES: u64 = 100;

/// The script that holds game `index`'s replay for the published viewer page (`viewer.html`
/// opened from disk, where a page may load scripts beside it but not read files): one per
/// [`REPLAY_BUNDLE_GAMES`] games, named by its first game, `replays/bundle-000100.js` for games
/// 100 to 199. One file for a hundred games: a file's creation costs more than its bytes.
pub fn replay_bundle_path(index: u64) -> String {
    let first = index / REPLAY_BUNDLE_GAMES * REPLAY_BUNDLE_GAMES;
    format!("{REPLAY_DIR}/bundle-{first:06}.js")
}
