//! The statistics of a tournament's journal, in one pass: every game fed in schedule order to
//! arena-stats' accumulator (the journal read and parsed on a thread of its own), the SPRT stop
//! rule that decides at the same game, and the bots' order and places. The run's summary and
//! the reports are made of them.

use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::path::Path;

use arena_stats::{
    Accumulator, FitConfig, GameResult, SequentialSprt, SprtReport, SprtSetup, StatsConfig,
    StatsReport,
};

use crate::TournamentError;
use crate::journal::{self, Entry};
use crate::schedule::Plan;
use crate::schedule::PlanSchedule as _;
use crate::session::{SessionEvent, SessionObserver};

/// Games listed with their replay links in the HTML report (the journal lists them all).
const REPORT_GAME_LINKS: usize = 2000;
/// A journal entry as the statistics see it.
pub fn game_result(entry: &Entry) -> GameResult {
    result_of(
        entry.seats.clone(),
        &entry.scores,
        entry.ranks.clone(),
        entry.winner,
        &entry.faults,
        entry.pair,
    )
}

/// The statistics' view of a journaled game, from its fields (a whole [`Entry`] or a
/// [`StatsLine`]).
fn result_of(
    seats: Vec<usize>,
    scores: &[arena_core::Score],
    ranks: Vec<u32>,
    winner: Option<usize>,
    faults: &[Vec<arena_core::FaultKind>],
    pair: u64,
) -> GameResult {
    GameResult {
        players: seats,
        scores: scores.iter().map(|s| s.to_f64()).collect(),
        ranks,
        winner,
        faults: faults
            .iter()
            .map(|kinds| kinds.iter().map(|k| k.label().to_string()).collect())
            .collect(),
        pair_id: Some(pair),
    }
}

/// Seats kept inline when parsing a journal line (larger games spill to the heap, correctly).
const INLINE_SEATS: usize = 8;

/// The part of a journal line the statistics read, parsed without allocating (a million-game pass
/// spent a tenth of its time allocating and freeing these fields). Scores are read from
/// `score_values`, the floats the statistics use (written from the exact scores, and read back to
/// the same bits), and from the exact `scores` only in journals written before there were values.
#[derive(serde::Deserialize)]
struct StatsLine {
    index: u64,
    pair: u64,
    seats: SmallVec<[usize; INLINE_SEATS]>,
    #[serde(default)]
    score_values: SmallVec<[f64; INLINE_SEATS]>,
    ranks: SmallVec<[u32; INLINE_SEATS]>,
    winner: Option<usize>,
    faults: SmallVec<[SmallVec<[arena_core::FaultKind; 2]>; INLINE_SEATS]>,
}

/// The exact scores of a journal line without `score_values`.
#[derive(serde::Deserialize)]
struct ExactScores {
    scores: SmallVec<[arena_core::Score; INLINE_SEATS]>,
}

impl StatsLine {
    /// Parses the statistics' part of a journal line.
    fn parse(bytes: &[u8]) -> serde_json::Result<StatsLine> {
        let mut line: StatsLine = serde_json::from_slice(bytes)?;
        if line.score_values.len() != line.seats.len() {
            let exact: ExactScores = serde_json::from_slice(bytes)?;
            line.score_values = exact.scores.iter().map(|s| s.to_f64()).collect();
        }
        Ok(line)
    }

    /// Fills `result` (reusing its vectors) with this game.
    fn fill(&self, result: &mut GameResult) {
        result.players.clear();
        result.players.extend_from_slice(&self.seats);
        result.scores.clear();
        result.scores.extend_from_slice(&self.score_values);
        result.ranks.clear();
        result.ranks.extend_from_slice(&self.ranks);
        result.winner = self.winner;
        result.faults.resize_with(self.faults.len(), Vec::new);
        for (kept, kinds) in result.faults.iter_mut().zip(&self.faults) {
            kept.clear();
            kept.extend(kinds.iter().map(|k| k.label().to_string()));
        }
        result.pair_id = Some(self.pair);
    }
}

/// Games parsed by the journal-reading thread, in schedule order, with the gaps in the indices
/// (an interrupted run) before each; sent back empty to be filled again, so that the games'
/// vectors are allocated once per pass, not once per game.
#[derive(Default)]
struct ParsedBatch {
    games: Vec<GameResult>,
    gap_before: Vec<bool>,
    len: usize,
}

impl ParsedBatch {
    fn push(&mut self, line: &StatsLine, gap_before: bool) {
        if self.len == self.games.len() {
            self.games.push(GameResult {
                players: Vec::new(),
                scores: Vec::new(),
                ranks: Vec::new(),
                winner: None,
                faults: Vec::new(),
                pair_id: None,
            });
            self.gap_before.push(false);
        }
        line.fill(&mut self.games[self.len]);
        self.gap_before[self.len] = gap_before;
        self.len += 1;
    }
}

fn config(plan: &Plan, bootstrap: usize, sprt: Option<SprtSetup>) -> StatsConfig {
    StatsConfig {
        fit: FitConfig {
            bootstrap_resamples: bootstrap,
            seed: plan.seed,
            ..FitConfig::default()
        },
        sprt,
        ..StatsConfig::default()
    }
}

/// Statistics of every game in the journal, fed in schedule order (so they do not depend on which
/// worker finished first), and the first games for the report's list, in one pass. Memory stays
/// bounded however many games there are.
pub fn compute(
    dir: &Path,
    plan: &Plan,
    bootstrap: usize,
) -> Result<(StatsReport, Vec<Entry>), TournamentError> {
    compute_keeping(dir, plan, bootstrap, REPORT_GAME_LINKS)
}

/// The statistics of [`compute`] alone, without the report's games.
pub fn statistics(
    dir: &Path,
    plan: &Plan,
    bootstrap: usize,
) -> Result<StatsReport, TournamentError> {
    Ok(compute_keeping(dir, plan, bootstrap, 0)?.0)
}

/// [`compute`], keeping the first `keep` games whole.
fn compute_keeping(
    dir: &Path,
    plan: &Plan,
    bootstrap: usize,
    keep: usize,
) -> Result<(StatsReport, Vec<Entry>), TournamentError> {
    let names = plan.bots.iter().map(|b| b.name.clone()).collect();
    let mut stats = Accumulator::new(names, config(plan, bootstrap, plan.sprt_setup()));
    let mut first_games = Vec::new();
    let mut lines = journal::lines_in_order(dir)?;
    let corrupt = |line: u64, why: String| {
        TournamentError::Journal(journal::JournalError::Corrupt {
            path: dir.join(journal::RESULTS_FILE).display().to_string(),
            line,
            why,
        })
    };
    // Reading and parsing the journal runs on a thread of its own, a batch of games ahead of the
    // tallies: the two halves of the pass then overlap on two cores. Batches come back empty.
    let (sender, receiver) =
        std::sync::mpsc::sync_channel::<Result<ParsedBatch, TournamentError>>(8);
    let (recycle, recycled) = std::sync::mpsc::sync_channel::<ParsedBatch>(16);
    std::thread::scope(|scope| -> Result<(), TournamentError> {
        let first_games = &mut first_games;
        scope.spawn(move || {
            let fresh = || recycled.try_recv().unwrap_or_default();
            let mut batch = fresh();
            let mut expected = 0u64;
            while let Some(next) = lines.next_line() {
                let parsed = next
                    .map_err(TournamentError::from)
                    .and_then(|(line, bytes)| {
                        // Only what the statistics read is parsed (names and replay paths are
                        // skipped), and the whole entry only for the games the report lists.
                        let game =
                            StatsLine::parse(bytes).map_err(|e| corrupt(line, e.to_string()))?;
                        if first_games.len() < keep {
                            let entry: Entry = serde_json::from_slice(bytes)
                                .map_err(|e| corrupt(line, e.to_string()))?;
                            first_games.push(entry);
                        }
                        Ok(game)
                    });
                let game = match parsed {
                    Ok(game) => game,
                    Err(error) => {
                        let _ = sender.send(Err(error));
                        return;
                    }
                };
                // A gap in the indices (an interrupted run) is passed on, so that the sequential
                // test stops there, as the stop rule does.
                batch.push(&game, game.index != expected);
                expected = game.index + 1;
                if batch.len >= PARSE_BATCH
                    && sender
                        .send(Ok(std::mem::replace(&mut batch, fresh())))
                        .is_err()
                {
                    return;
                }
            }
            let _ = sender.send(Ok(batch));
        });
        for batch in receiver {
            let mut batch = batch?;
            stats
                .add_batch(&batch.games[..batch.len], &batch.gap_before[..batch.len])
                .map_err(|e| TournamentError::Invalid(format!("in the journal: {e}")))?;
            batch.len = 0;
            // The reader makes a new batch when none comes back in time.
            let _ = recycle.try_send(batch);
        }
        Ok(())
    })?;
    Ok((stats.report(), first_games))
}

/// Games parsed per message from the reading thread.
const PARSE_BATCH: usize = 1024;

/// Journaled games, which parallel workers finish in any order, handed on in schedule order: a
/// game waits here until every game before it is in. At most the games in progress on other
/// workers wait.
#[derive(Default)]
struct InOrder {
    waiting: BTreeMap<u64, GameResult>,
    next: u64,
}

impl InOrder {
    /// Takes one journaled game; `take` gets every game that is now next, in index order.
    fn push(&mut self, entry: &Entry, mut take: impl FnMut(&GameResult)) {
        self.waiting.insert(entry.index, game_result(entry));
        while let Some(game) = self.waiting.remove(&self.next) {
            take(&game);
            self.next += 1;
        }
    }

    /// Every game of the journal in `dir` (an earlier run, on resume), in index order.
    fn preload(
        &mut self,
        dir: &Path,
        mut take: impl FnMut(&GameResult),
    ) -> Result<(), TournamentError> {
        if !dir.join(journal::RESULTS_FILE).exists() {
            return Ok(());
        }
        for entry in journal::entries_in_order(dir)? {
            self.push(&entry?, &mut take);
        }
        Ok(())
    }
}

/// Stops a two-bot tournament as soon as the sequential probability ratio test decides.
///
/// Games finish in any order on parallel workers; the test sees them in schedule order, so it
/// counts whole units in seed order and decides at exactly the unit where [`compute`], reading
/// the journal afterwards, also decides: the printed, saved and resumed verdicts are one.
pub struct SprtRule {
    test: SequentialSprt,
    order: InOrder,
}

impl SprtRule {
    /// The plan's test, if it has one.
    pub fn new(plan: &Plan) -> Option<Self> {
        Some(SprtRule {
            test: SequentialSprt::new(plan.sprt_setup()?),
            order: InOrder::default(),
        })
    }

    /// Counts the games of an earlier run (resume) before new ones arrive.
    pub fn preload(&mut self, dir: &Path) -> Result<(), TournamentError> {
        let test = &mut self.test;
        self.order.preload(dir, |game| test.add(game))
    }

    pub fn report(&self) -> SprtReport {
        self.test.report()
    }
}

/// The SPRT watches the session: it takes the journaled games in index order, so the live verdict
/// is the one a recomputation of the journal gives.
impl SessionObserver for SprtRule {
    fn stops(&self) -> bool {
        true
    }

    fn observe(&mut self, event: &SessionEvent<'_>) -> bool {
        if let SessionEvent::Journaled { entries, .. } = event {
            let test = &mut self.test;
            for entry in *entries {
                self.order.push(entry, |game| test.add(game));
            }
        }
        self.decided()
    }

    fn decided(&self) -> bool {
        self.test.decided().is_some()
    }
}

/// The statistics of a run while it plays (live standings): every journaled game fed, in schedule
/// order, to the accumulator [`compute`] uses, so a snapshot taken after the last game is the
/// final report's (up to the rating intervals: a snapshot's fit has `bootstrap` resamples). Memory
/// stays bounded however many games there are; a game costs the accumulator's update (a few
/// microseconds), and [`LiveStats::report`] the global fit.
pub struct LiveStats {
    stats: Accumulator,
    order: InOrder,
}

impl LiveStats {
    pub fn new(plan: &Plan, bootstrap: usize) -> Self {
        let names = plan.bots.iter().map(|b| b.name.clone()).collect();
        LiveStats {
            stats: Accumulator::new(names, config(plan, bootstrap, plan.sprt_setup())),
            order: InOrder::default(),
        }
    }

    /// Counts the games of an earlier run (resume) before new ones arrive.
    pub fn preload(&mut self, dir: &Path) -> Result<(), TournamentError> {
        let stats = &mut self.stats;
        self.order.preload(dir, |game| add_checked(stats, game))
    }

    /// Games counted so far (those in schedule order: a game finished early waits for the ones
    /// before it).
    pub fn games(&self) -> u64 {
        self.stats.games()
    }

    /// Every statistic over the games counted so far.
    pub fn report(&self) -> StatsReport {
        self.stats.report()
    }
}

/// Adds a journaled game. The runner wrote it from a game it checked, so the accumulator takes
/// it; one it refused would be refused, with its line, by the final pass over the journal, which
/// is where such an error is reported.
fn add_checked(stats: &mut Accumulator, game: &GameResult) {
    let _ = stats.add(game);
}

impl SessionObserver for LiveStats {
    fn wants_entries(&self) -> bool {
        true
    }

    fn observe(&mut self, event: &SessionEvent<'_>) -> bool {
        if let SessionEvent::Journaled { entries, .. } = event {
            let stats = &mut self.stats;
            for entry in *entries {
                self.order.push(entry, |game| add_checked(stats, game));
            }
        }
        false
    }
}

/// Bots in leaderboard order: by the global fit's rating when there is one, else by score rate.
pub fn standings(report: &StatsReport) -> Vec<usize> {
    let mut order: Vec<usize> = (0..report.bots.len()).collect();
    let places = places(report);
    let key = |bot: usize| -> f64 {
        match &report.global_fit {
            Ok(fit) => fit.bots.get(bot).map_or(f64::MIN, |b| b.rating),
            Err(_) => score_rate_of(report, bot),
        }
    };
    order.sort_by(|&a, &b| {
        places[a]
            .cmp(&places[b])
            .then(key(b).total_cmp(&key(a)))
            .then(a.cmp(&b))
    });
    order
}

fn score_rate_of(report: &StatsReport, bot: usize) -> f64 {
    report.summaries[bot]
        .score_rate
        .as_ref()
        .map_or(f64::MIN, |i| i.estimate)
}

/// Each bot's place, 1 = best, tied bots sharing the better place: the fit's rank (equal
/// ratings tie) when there is a fit, else the competition rank of the score rate.
pub fn places(report: &StatsReport) -> Vec<u32> {
    let bots = report.bots.len();
    match &report.global_fit {
        Ok(fit) if fit.bots.len() == bots => fit.bots.iter().map(|b| b.rank).collect(),
        _ => (0..bots)
            .map(|bot| {
                let mine = score_rate_of(report, bot);
                1 + (0..bots)
                    .filter(|&other| score_rate_of(report, other) > mine)
                    .count() as u32
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::StatsLine;

    #[test]
    fn scores_come_from_the_values_or_from_the_exact_scores_of_older_journals() {
        let current = br#"{"index":3,"game":"langwars2","seed":"9","pair":0,"seats":[0,1],"bots":["a","b"],"scores":["23/3","-2"],"score_values":[7.666666666666667,-2.0],"ranks":[1,2],"winner":0,"faults":[[],["timeout"]],"replay":null}"#;
        let older = br#"{"index":3,"game":"langwars2","seed":9,"pair":0,"seats":[0,1],"bots":["a","b"],"scores":["23/3",-2],"ranks":[1,2],"winner":0,"faults":[[],["timeout"]],"replay":null}"#;
        for bytes in [&current[..], &older[..]] {
            let line = StatsLine::parse(bytes).expect("parses");
            assert_eq!(line.score_values.as_slice(), &[23.0 / 3.0, -2.0]);
            assert_eq!(line.seats.as_slice(), &[0, 1]);
            assert_eq!(line.faults[1].len(), 1);
        }
    }
}
