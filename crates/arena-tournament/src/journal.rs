//! `results.jsonl`: one line per finished game, appended as games finish. A line is written with one
//! `write` of the whole line, so a crash can leave at most a torn last line; opening the journal again
//! cuts it off. A game whose line is missing is simply played again on resume (built-in bots are
//! deterministic given the seed, so the result is the same).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

use arena_core::score::ScoreValues;
use arena_core::{FaultKind, Score, SeatTiming};
use serde::Serialize;

use crate::schedule::{Plan, PlanSchedule as _};

// The results line and the journal's name are part of the formats' contract (arena-formats);
// their old paths stay.
pub use arena_formats::Entry;
pub use arena_formats::layout::RESULTS_FILE;

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

/// Every entry of a journal in schedule order, without holding the journal in memory (see
/// [`lines_in_order`]).
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

/// Lines per block of the first pass, which keeps the lowest index of each block.
const BLOCK_LINES: u64 = 1024;
/// Bytes of held lines (read before their turn) kept in memory; a line held past them is read
/// again from the file when its turn comes.
const HELD_BYTES: usize = 4 << 20;
/// The journal is read in chunks of this size.
const READ_BUFFER: usize = 64 << 10;

/// The journal's lines in schedule order, each with its line number in the file, read one at a time
/// into one buffer (so a reader can parse only what it needs of each).
///
/// In the order of (index, place in the file), as a sort of every line would give, in memory that
/// does not grow with the journal: a first pass keeps the lowest index of each block of
/// [`BLOCK_LINES`] lines; the second reads the file in order and holds a line back only until no
/// line still unread can come before it. A journal in index order (one worker) holds none; the
/// journal of parallel workers, whose batches interleave, holds about as many lines as a few
/// batches. Held lines are kept in [`HELD_BYTES`] of memory, and past that as 24 bytes each, read
/// again when their turn comes (a journal shuffled by hand, which no run writes).
pub struct LinesInOrder {
    path: std::path::PathBuf,
    reader: BufReader<File>,
    /// The lowest index of each block of lines and of every block after it.
    lowest_from: Vec<u64>,
    /// Whether the indices never decrease in the file: then no line is held.
    sorted: bool,
    /// Complete lines found by the first pass: the second reads no further.
    lines: u64,
    /// Lines read by the second pass, and the offset of the next one.
    read: u64,
    offset: u64,
    held: BinaryHeap<Reverse<Held>>,
    /// The bytes of held lines, by offset, while they fit in [`HELD_BYTES`].
    held_bytes: HashMap<u64, Box<[u8]>>,
    held_size: usize,
    /// Bytes of held lines kept in memory at most ([`HELD_BYTES`]).
    held_limit: usize,
    /// The most lines held at once.
    most_held: usize,
    buffer: Vec<u8>,
}

/// A line read before its turn: ordered by index, then by its place in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Held {
    index: u64,
    offset: u64,
    len: u32,
    line_number: u32,
}

impl LinesInOrder {
    /// The next line: its line number in the file and its bytes (newline included).
    pub fn next_line(&mut self) -> Option<Result<(u64, &[u8]), JournalError>> {
        match self.advance() {
            Ok(Some(line_number)) => Some(Ok((line_number, &self.buffer[..]))),
            Ok(None) => None,
            Err(source) => {
                // Nothing more after an error.
                self.lines = self.read;
                self.held.clear();
                Some(Err(source))
            }
        }
    }

    /// Puts the next line in `buffer` and gives its line number.
    fn advance(&mut self) -> Result<Option<u64>, JournalError> {
        loop {
            if let Some(&Reverse(next)) = self.held.peek()
                && next.index <= self.floor()
            {
                self.held.pop();
                self.take_held(next)?;
                return Ok(Some(u64::from(next.line_number)));
            }
            if self.read == self.lines {
                return Ok(None);
            }
            self.buffer.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.buffer)
                .map_err(self.io_error())?;
            let offset = self.offset;
            self.read += 1;
            self.offset += read as u64;
            // Line numbers past u32::MAX (4 billion games) saturate; they only label errors.
            let line_number = u32::try_from(self.read).unwrap_or(u32::MAX);
            let index = match index_of(&self.buffer) {
                Some(index) if self.buffer.last() == Some(&b'\n') => index,
                _ => {
                    return Err(JournalError::Corrupt {
                        path: self.path.display().to_string(),
                        line: self.read,
                        why: "the journal changed while it was read".into(),
                    });
                }
            };
            let first = self
                .held
                .peek()
                .is_none_or(|&Reverse(held)| held.index > index);
            if self.sorted || (first && index <= self.floor()) {
                return Ok(Some(u64::from(line_number)));
            }
            let len = read as u32;
            if self.held_size + read <= self.held_limit {
                self.held_size += read;
                self.held_bytes
                    .insert(offset, self.buffer.as_slice().into());
            }
            self.held.push(Reverse(Held {
                index,
                offset,
                len,
                line_number,
            }));
            self.most_held = self.most_held.max(self.held.len());
        }
    }

    /// No line still unread has an index below this (the lowest of the block of the next line
    /// to read and of the blocks after it).
    fn floor(&self) -> u64 {
        if self.read < self.lines {
            self.lowest_from[(self.read / BLOCK_LINES) as usize]
        } else {
            u64::MAX
        }
    }

    /// Puts a held line in `buffer`: from memory, or read again from the file.
    fn take_held(&mut self, held: Held) -> Result<(), JournalError> {
        self.buffer.clear();
        if let Some(bytes) = self.held_bytes.remove(&held.offset) {
            self.held_size -= bytes.len();
            self.buffer.extend_from_slice(&bytes);
            return Ok(());
        }
        use std::os::unix::fs::FileExt as _;
        self.buffer.resize(held.len as usize, 0);
        self.reader
            .get_ref()
            .read_exact_at(&mut self.buffer, held.offset)
            .map_err(self.io_error())
    }

    /// The most lines held back at once so far (for checking that memory stays bounded).
    pub fn most_held(&self) -> usize {
        self.most_held
    }

    fn io_error(&self) -> impl Fn(io::Error) -> JournalError + '_ {
        io_error(&self.path)
    }
}

/// The journal's lines in schedule order ([`LinesInOrder`]). Fails at once on a line without an
/// index; a torn last line (no newline) is left out.
pub fn lines_in_order(dir: &Path) -> Result<LinesInOrder, JournalError> {
    lines_in_order_holding(dir, HELD_BYTES)
}

/// [`lines_in_order`] keeping at most `held_limit` bytes of held lines in memory.
fn lines_in_order_holding(dir: &Path, held_limit: usize) -> Result<LinesInOrder, JournalError> {
    let path = dir.join(RESULTS_FILE);
    let file = File::open(&path).map_err(io_error(&path))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER, file);
    let mut block_lowest: Vec<u64> = Vec::new();
    let mut sorted = true;
    let mut last = 0u64;
    let mut lines = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(io_error(&path))?;
        if read == 0 || line.last() != Some(&b'\n') {
            break;
        }
        let index = index_of(&line).ok_or_else(|| JournalError::Corrupt {
            path: path.display().to_string(),
            line: lines + 1,
            why: "no game index".into(),
        })?;
        if lines.is_multiple_of(BLOCK_LINES) {
            block_lowest.push(index);
        } else if let Some(lowest) = block_lowest.last_mut() {
            *lowest = (*lowest).min(index);
        }
        sorted &= lines == 0 || index >= last;
        last = index;
        lines += 1;
    }
    // From the last block back: the lowest index of each block and all after it.
    let mut lowest_from = block_lowest;
    for block in (0..lowest_from.len().saturating_sub(1)).rev() {
        lowest_from[block] = lowest_from[block].min(lowest_from[block + 1]);
    }
    reader.seek(SeekFrom::Start(0)).map_err(io_error(&path))?;
    Ok(LinesInOrder {
        path,
        reader,
        lowest_from,
        sorted,
        lines,
        read: 0,
        offset: 0,
        held: BinaryHeap::new(),
        held_bytes: HashMap::new(),
        held_size: 0,
        held_limit,
        most_held: 0,
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

    /// Lines of the given indices, each padded to a length of its own, and the order a sort of
    /// every complete line by (index, place in the file) gives: (line number, bytes).
    fn journal_of(indices: &[u64], torn: bool) -> (String, Vec<(u64, Vec<u8>)>) {
        let mut text = String::new();
        let mut lines = Vec::new();
        for (number, &index) in indices.iter().enumerate() {
            let line = format!(
                "{{\"index\":{index},\"pad\":\"{}\"}}\n",
                "x".repeat((index as usize * 7 + number) % 50)
            );
            text.push_str(&line);
            lines.push((index, number as u64 + 1, line.into_bytes()));
        }
        if torn {
            text.push_str("{\"index\":0,\"pad\":\"");
        }
        lines.sort();
        let expected = lines.into_iter().map(|(_, n, bytes)| (n, bytes)).collect();
        (text, expected)
    }

    /// Every line `lines_in_order_holding` gives, and the most it held.
    fn read_in_order(dir: &Path, held_limit: usize) -> (Vec<(u64, Vec<u8>)>, usize) {
        let mut lines = lines_in_order_holding(dir, held_limit).expect("opens");
        let mut read = Vec::new();
        while let Some(line) = lines.next_line() {
            let (number, bytes) = line.expect("reads");
            read.push((number, bytes.to_vec()));
        }
        (read, lines.most_held())
    }

    /// A small deterministic generator for the shuffles.
    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *state >> 33
    }

    #[test]
    fn lines_come_in_index_order_whatever_the_order_in_the_file() {
        let dir = tempfile::tempdir().expect("dir");
        let mut state = 7u64;
        // Shuffled, with gaps (every 13th index missing) and duplicates (every 101st twice).
        let mut indices: Vec<u64> = (0..5000u64)
            .filter(|i| i % 13 != 5)
            .flat_map(|i| if i % 101 == 3 { vec![i, i] } else { vec![i] })
            .collect();
        for i in (1..indices.len()).rev() {
            let j = lcg(&mut state) as usize % (i + 1);
            indices.swap(i, j);
        }
        // Then a stretch in order and one far-displaced line at the end.
        indices.extend(5000..7000u64);
        indices.push(2);
        let (text, expected) = journal_of(&indices, true);
        std::fs::write(dir.path().join(RESULTS_FILE), text).expect("write");
        // All in memory, none (each held line read again from the file), and a few.
        for limit in [HELD_BYTES, 0, 2000] {
            let (read, _) = read_in_order(dir.path(), limit);
            assert_eq!(read.len(), expected.len(), "limit {limit}");
            assert!(read == expected, "limit {limit}: not the sorted order");
        }
    }

    #[test]
    fn interleaved_batches_hold_few_lines_and_an_ordered_journal_none() {
        let dir = tempfile::tempdir().expect("dir");
        // Two workers claiming 64 indices at a time, each sending 256 games at once, one of them
        // sometimes late by a few batches: the journal parallel runs write.
        let total = 200_000u64;
        let mut queues: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        for chunk in 0..total / 64 {
            queues[(chunk % 2) as usize].extend(chunk * 64..(chunk + 1) * 64);
        }
        let mut state = 11u64;
        let mut indices = Vec::new();
        let mut taken = [0usize; 2];
        while taken[0] < queues[0].len() || taken[1] < queues[1].len() {
            let worker = (lcg(&mut state) % 2) as usize;
            let batches = 1 + (lcg(&mut state) % 3) as usize;
            let end = (taken[worker] + 256 * batches).min(queues[worker].len());
            indices.extend_from_slice(&queues[worker][taken[worker]..end]);
            taken[worker] = end;
        }
        let (text, expected) = journal_of(&indices, false);
        std::fs::write(dir.path().join(RESULTS_FILE), text).expect("write");
        let (read, most_held) = read_in_order(dir.path(), HELD_BYTES);
        assert!(read == expected, "not the sorted order");
        let most_behind = indices
            .iter()
            .scan(0u64, |highest, &index| {
                *highest = (*highest).max(index);
                Some(*highest - index)
            })
            .max()
            .unwrap_or(0);
        assert!(
            most_held < most_behind as usize + 2 * BLOCK_LINES as usize,
            "held {most_held} lines of {total}, the journal is at most {most_behind} behind"
        );

        let ordered: Vec<u64> = (0..5000).collect();
        let (text, expected) = journal_of(&ordered, true);
        std::fs::write(dir.path().join(RESULTS_FILE), text).expect("write");
        let (read, most_held) = read_in_order(dir.path(), HELD_BYTES);
        assert!(read == expected);
        assert_eq!(most_held, 0);
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
