//! `results.jsonl`: one line per finished game, appended as games finish. A line is written with one
//! `write` of the whole line, so a crash can leave at most a torn last line; opening the journal again
//! cuts it off. A game whose line is missing is simply played again on resume (built-in bots are
//! deterministic given the seed, so the result is the same).

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use arena_core::score::ScoreValues;
use arena_core::{FaultKind, Score, SeatTiming};
use serde::{Deserialize, Serialize};

use crate::schedule::Plan;

pub const RESULTS_FILE: &str = "results.jsonl";

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub index: u64,
    pub game: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(with = "arena_core::seed::as_text")]
    pub seed: u64,
    pub pair: u64,
    /// Bot index per seat.
    pub seats: Vec<usize>,
    /// Bot name per seat.
    pub bots: Vec<String>,
    pub scores: Vec<Score>,
    /// The scores as floats (written for tools; the statistics read `scores`).
    #[serde(default)]
    pub score_values: Vec<f64>,
    pub ranks: Vec<u32>,
    pub winner: Option<usize>,
    /// Fault kinds per seat.
    pub faults: Vec<Vec<FaultKind>>,
    /// Replay path relative to the tournament directory.
    pub replay: Option<String>,
    /// Answer times per seat, wall and CPU (`null` for built-in bots); absent in games between
    /// built-in bots and in journals from before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timing: Vec<Option<SeatTiming>>,
}

/// An [`Entry`] borrowed from what the worker already holds: the same JSON line, without copying the
/// bot names and vectors of every game (at hundreds of thousands of games a second that copying was a
/// large part of a worker's time).
#[derive(Serialize)]
pub struct EntryRef<'a> {
    pub index: u64,
    pub game: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'a str>,
    #[serde(with = "arena_core::seed::as_text")]
    pub seed: u64,
    pub pair: u64,
    pub seats: &'a [usize],
    pub bots: SeatNames<'a>,
    pub scores: &'a [Score],
    pub score_values: ScoreValues<'a>,
    pub ranks: &'a [u32],
    pub winner: Option<usize>,
    pub faults: &'a [Vec<FaultKind>],
    pub replay: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub timing: &'a [Option<SeatTiming>],
}

/// The name of the bot in each seat, looked up when serialised.
pub struct SeatNames<'a> {
    pub seats: &'a [usize],
    pub names: &'a [String],
}

impl Serialize for SeatNames<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.seats.iter().map(|&bot| &self.names[bot]))
    }
}

impl EntryRef<'_> {
    pub fn to_entry(&self) -> Entry {
        Entry {
            index: self.index,
            game: self.game.to_string(),
            variant: self.variant.map(str::to_string),
            seed: self.seed,
            pair: self.pair,
            seats: self.seats.to_vec(),
            bots: self
                .seats
                .iter()
                .map(|&b| self.bots.names[b].clone())
                .collect(),
            scores: self.scores.to_vec(),
            score_values: self.scores.iter().map(|s| s.to_f64()).collect(),
            ranks: self.ranks.to_vec(),
            winner: self.winner,
            faults: self.faults.to_vec(),
            replay: self.replay.map(str::to_string),
            timing: self.timing.to_vec(),
        }
    }
}

/// Games already in a journal: a bit per scheduled index.
pub struct Done {
    bits: Vec<u64>,
    count: u64,
}

impl Done {
    pub fn new(total: u64) -> Self {
        Done {
            bits: vec![0; total.div_ceil(64) as usize],
            count: 0,
        }
    }

    pub fn contains(&self, index: u64) -> bool {
        self.bits
            .get((index / 64) as usize)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    /// Marks `index`; false if it was already there (or outside the schedule).
    pub fn insert(&mut self, index: u64) -> bool {
        let Some(word) = self.bits.get_mut((index / 64) as usize) else {
            return false;
        };
        let bit = 1 << (index % 64);
        if *word & bit != 0 {
            return false;
        }
        *word |= bit;
        self.count += 1;
        true
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot use the journal {path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path} line {line}: {why}")]
    Corrupt {
        path: String,
        line: u64,
        why: String,
    },
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Opens (or creates) the journal of `plan` for appending: cuts a torn last line, reads which games
/// are done. Every line must be the game the schedule has at its index ([`check_entry`]); a line
/// that is not, that names a game twice, or that is not UTF-8 JSON is refused with its line number.
pub fn open(dir: &Path, plan: &Plan) -> Result<(File, Done), JournalError> {
    open_with(dir, plan.total_games(), |entry| check_entry(plan, entry))
}

/// Whether a journal line is the game `plan` schedules at its index: same game, variant, seed, pair,
/// seats and bot names, one score and rank per seat, ranks that are the competition ranks of the
/// scores and a winner that is the seat alone in first place. A line edited by hand or by a bot
/// (a forged result for a game not played yet, say) fails one of these.
pub fn check_entry(plan: &Plan, entry: &Entry) -> Result<(), String> {
    if entry.index >= plan.total_games() {
        return Err(format!(
            "game {} is not scheduled (the plan has {} games)",
            entry.index,
            plan.total_games()
        ));
    }
    let scheduled = plan.game(entry.index);
    let names: Vec<&str> = scheduled
        .seats
        .iter()
        .map(|&bot| plan.bots[bot].name.as_str())
        .collect();
    let mismatch = |what: &str, found: String, expected: String| {
        Err(format!(
            "game {}: {what} is {found}, the schedule says {expected}",
            entry.index
        ))
    };
    if entry.game != plan.game || entry.variant != plan.variant {
        return mismatch(
            "the game",
            format!("{} {:?}", entry.game, entry.variant),
            format!("{} {:?}", plan.game, plan.variant),
        );
    }
    if entry.seed != scheduled.seed {
        return mismatch(
            "the seed",
            entry.seed.to_string(),
            scheduled.seed.to_string(),
        );
    }
    if entry.pair != scheduled.pair {
        return mismatch(
            "the pair",
            entry.pair.to_string(),
            scheduled.pair.to_string(),
        );
    }
    if entry.seats != scheduled.seats {
        return mismatch(
            "the seat order",
            format!("{:?}", entry.seats),
            format!("{:?}", scheduled.seats),
        );
    }
    if entry.bots != names {
        return mismatch(
            "the bots",
            format!("{:?}", entry.bots),
            format!("{names:?}"),
        );
    }
    let seats = scheduled.seats.len();
    if entry.scores.len() != seats || entry.ranks.len() != seats || entry.faults.len() != seats {
        return Err(format!(
            "game {}: scores, ranks and faults need one entry per seat ({seats})",
            entry.index
        ));
    }
    let ranks: Vec<u32> = entry
        .scores
        .iter()
        .map(|mine| 1 + entry.scores.iter().filter(|other| *other > mine).count() as u32)
        .collect();
    if ranks != entry.ranks {
        return mismatch(
            "the ranking",
            format!("{:?}", entry.ranks),
            format!("{ranks:?} from the scores"),
        );
    }
    let firsts: Vec<usize> = (0..seats).filter(|&seat| ranks[seat] == 1).collect();
    let winner = (firsts.len() == 1).then(|| firsts[0]);
    if entry.winner != winner {
        return mismatch(
            "the winner",
            format!("{:?}", entry.winner),
            format!("{winner:?} from the scores"),
        );
    }
    Ok(())
}

/// [`open`] with the check of each line given by the caller.
pub fn open_with(
    dir: &Path,
    total: u64,
    check: impl Fn(&Entry) -> Result<(), String>,
) -> Result<(File, Done), JournalError> {
    let path = dir.join(RESULTS_FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&path)
        .map_err(io_error(&path))?;
    let mut done = Done::new(total);
    let mut complete_len = 0u64;
    {
        let mut reader = BufReader::new(&mut file);
        reader.seek(SeekFrom::Start(0)).map_err(io_error(&path))?;
        let mut line = Vec::new();
        let mut number = 0u64;
        loop {
            line.clear();
            let read = reader
                .read_until(b'\n', &mut line)
                .map_err(io_error(&path))?;
            if read == 0 || line.last() != Some(&b'\n') {
                break;
            }
            number += 1;
            let corrupt = |why: String| JournalError::Corrupt {
                path: path.display().to_string(),
                line: number,
                why,
            };
            let text =
                std::str::from_utf8(&line).map_err(|e| corrupt(format!("not UTF-8 text ({e})")))?;
            let entry: Entry = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
            check(&entry).map_err(corrupt)?;
            if !done.insert(entry.index) {
                return Err(JournalError::Corrupt {
                    path: path.display().to_string(),
                    line: number,
                    why: format!("game {} is not scheduled or appears twice", entry.index),
                });
            }
            complete_len += read as u64;
        }
    }
    // A torn last line (the process died in the middle of a write) is cut off.
    if file.metadata().map_err(io_error(&path))?.len() != complete_len {
        file.set_len(complete_len).map_err(io_error(&path))?;
    }
    Ok((file, done))
}

/// Appends whole lines with one write each.
pub fn append(file: &mut File, lines: &[u8]) -> io::Result<()> {
    file.write_all(lines)
}

/// Every entry of a journal in schedule order, without holding the journal in memory: the lines'
/// offsets are sorted by index, then read one by one.
pub fn entries_in_order(
    dir: &Path,
) -> Result<impl Iterator<Item = Result<Entry, JournalError>>, JournalError> {
    let path = dir.join(RESULTS_FILE);
    let mut lines = lines_in_order(dir)?;
    Ok(std::iter::from_fn(move || {
        let next = lines.next_line()?;
        Some(next.and_then(|(line_number, bytes)| {
            serde_json::from_slice(bytes).map_err(|e| JournalError::Corrupt {
                path: path.display().to_string(),
                line: line_number,
                why: e.to_string(),
            })
        }))
    }))
}

/// The journal's lines in schedule order, each with its line number in the file, read one at a time
/// into one buffer (so a reader can parse only what it needs of each).
pub struct LinesInOrder {
    path: std::path::PathBuf,
    file: File,
    /// (index, offset, length, line number), sorted by index: 24 bytes a game.
    offsets: std::vec::IntoIter<(u64, u64, u32, u32)>,
    buffer: Vec<u8>,
}

impl LinesInOrder {
    /// The next line: its line number in the file and its bytes (newline included).
    pub fn next_line(&mut self) -> Option<Result<(u64, &[u8]), JournalError>> {
        let (_, start, len, line_number) = self.offsets.next()?;
        let line_number = u64::from(line_number);
        self.buffer.resize(len as usize, 0);
        let read = self
            .file
            .seek(SeekFrom::Start(start))
            .and_then(|_| self.file.read_exact(&mut self.buffer));
        Some(match read {
            Ok(()) => Ok((line_number, &self.buffer[..])),
            Err(source) => Err(JournalError::Io {
                path: self.path.display().to_string(),
                source,
            }),
        })
    }
}

pub fn lines_in_order(dir: &Path) -> Result<LinesInOrder, JournalError> {
    let path = dir.join(RESULTS_FILE);
    let file = File::open(&path).map_err(io_error(&path))?;
    let mut reader = BufReader::new(file);
    let mut offsets: Vec<(u64, u64, u32, u32)> = Vec::new();
    let mut line = Vec::new();
    let mut offset = 0u64;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(io_error(&path))?;
        if read == 0 || line.last() != Some(&b'\n') {
            break;
        }
        let line_number = offsets.len() as u64 + 1;
        let index = index_of(&line).ok_or_else(|| JournalError::Corrupt {
            path: path.display().to_string(),
            line: line_number,
            why: "no game index".into(),
        })?;
        // Line numbers past u32::MAX (4 billion games) saturate; they only label errors.
        let short_number = u32::try_from(line_number).unwrap_or(u32::MAX);
        offsets.push((index, offset, read as u32, short_number));
        offset += read as u64;
    }
    offsets.sort_unstable();
    Ok(LinesInOrder {
        path,
        file: reader.into_inner(),
        offsets: offsets.into_iter(),
        buffer: Vec::new(),
    })
}

/// The `index` field of a journal line without parsing the rest (lines start with it).
fn index_of(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"index\":")?;
    let end = rest.iter().position(|c| !c.is_ascii_digit())?;
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: u64) -> Entry {
        Entry {
            index,
            game: "g".into(),
            variant: None,
            seed: index * 7,
            pair: index / 2,
            seats: vec![0, 1],
            bots: vec!["a".into(), "b".into()],
            scores: vec![Score::ratio(23, 3), Score::int(-1)],
            score_values: vec![23.0 / 3.0, -1.0],
            ranks: vec![1, 2],
            winner: Some(0),
            faults: vec![vec![], vec![FaultKind::Timeout]],
            replay: None,
            timing: vec![
                None,
                Some(SeatTiming {
                    answers: 3,
                    wall_us: 30_000,
                    max_wall_us: 12_000,
                    cpu_us: Some(9_000),
                    max_cpu_us: Some(4_000),
                    starved_timeouts: 1,
                }),
            ],
        }
    }

    fn line(index: u64) -> String {
        serde_json::to_string(&entry(index)).expect("json") + "\n"
    }

    #[test]
    fn a_torn_last_line_is_cut_and_the_rest_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let text = format!("{}{}{}", line(3), line(0), &line(1)[..20]);
        std::fs::write(dir.path().join(RESULTS_FILE), text).expect("write");
        let (mut file, done) = open_with(dir.path(), 4, |_| Ok(())).expect("opens");
        assert_eq!(done.count(), 2);
        assert!(done.contains(0) && done.contains(3) && !done.contains(1));
        append(&mut file, line(1).as_bytes()).expect("append");
        drop(file);
        let order: Vec<u64> = entries_in_order(dir.path())
            .expect("reads")
            .map(|e| e.expect("entry").index)
            .collect();
        assert_eq!(order, vec![0, 1, 3]);
        assert_eq!(
            entries_in_order(dir.path())
                .expect("reads")
                .next()
                .expect("one")
                .expect("ok"),
            entry(0)
        );
    }

    #[test]
    fn a_borrowed_entry_writes_the_same_line() {
        let owned = entry(5);
        let names = vec!["a".to_string(), "b".to_string()];
        let borrowed = EntryRef {
            index: owned.index,
            game: &owned.game,
            variant: None,
            seed: owned.seed,
            pair: owned.pair,
            seats: &owned.seats,
            bots: SeatNames {
                seats: &owned.seats,
                names: &names,
            },
            scores: &owned.scores,
            score_values: ScoreValues(&owned.scores),
            ranks: &owned.ranks,
            winner: owned.winner,
            faults: &owned.faults,
            replay: None,
            timing: &owned.timing,
        };
        assert_eq!(
            serde_json::to_string(&borrowed).expect("json"),
            serde_json::to_string(&owned).expect("json")
        );
        assert_eq!(borrowed.to_entry(), owned);
    }

    #[test]
    fn duplicates_are_corruption() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(
            dir.path().join(RESULTS_FILE),
            format!("{}{}", line(1), line(1)),
        )
        .expect("write");
        assert!(matches!(
            open_with(dir.path(), 4, |_| Ok(())),
            Err(JournalError::Corrupt { line: 2, .. })
        ));
    }
}
