//! Built-in bots: looked up by name (with an optional handicap), played in process, benchmarked,
//! and run as programs on a stream protocol (`arena bot`).

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use crate::game::{Bot, BotEntry, Game, Outcome, StreamProtocol, play_in_process};
use crate::seed::derive_seed;

/// How long a benchmark plays: for a time (a rate to print), or an exact number of games (the same
/// work every run: what the speed guard counts the instructions of).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BenchLength {
    Seconds(f64),
    Games(u64),
}

/// Throughput of in-process games.
#[derive(Clone, Copy, Debug)]
pub struct BenchReport {
    pub games: u64,
    pub elapsed: Duration,
}

impl BenchReport {
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Looks up a built-in bot by name.
pub fn find_bot<'a, G: Game>(
    bots: &'a [BotEntry<G>],
    name: &str,
) -> Result<&'a BotEntry<G>, String> {
    bots.iter().find(|bot| bot.name == name).ok_or_else(|| {
        let known: Vec<&str> = bots.iter().map(|bot| bot.name).collect();
        format!(
            "no built-in bot `{name}` (built-in bots: {})",
            known.join(", ")
        )
    })
}

/// Splits `NAME@P` (a built-in bot with a handicap of P %, 0 to 100) into its parts; a plain name
/// has no handicap.
pub fn split_handicap(name: &str) -> Result<(&str, Option<u32>), String> {
    match name.split_once('@') {
        None => Ok((name, None)),
        Some((bot, percent)) => match percent.parse::<u32>() {
            Ok(p) if p <= 100 => Ok((bot, Some(p))),
            _ => Err(format!(
                "`{name}`: a handicap is `NAME@P` with P a whole percentage from 0 to 100"
            )),
        },
    }
}

/// Makes built-in bot `name` for a game seat. `NAME@P` is NAME with a handicap: each of its moves
/// is replaced, with probability P %, by the move the game's `random` bot makes in its place (both
/// see every observation, so each keeps its own state). Bots of known, graded strength: the contest
/// server's ladder tests play them. The draws come from the seat's seed.
/// Whether built-in `name` (a handicap suffix allowed) searches within the time limit, so that its
/// games must be played on the timed path. An unknown name does not (making it reports the error).
pub fn bot_thinks<G: Game>(bots: &[BotEntry<G>], name: &str) -> bool {
    split_handicap(name)
        .ok()
        .and_then(|(base, _)| find_bot(bots, base).ok())
        .is_some_and(|entry| entry.thinks)
}

pub fn make_bot<G: Game>(
    bots: &[BotEntry<G>],
    name: &str,
    seed: u64,
) -> Result<Box<dyn Bot<G>>, String> {
    let (base, handicap) = split_handicap(name)?;
    let bot = (find_bot(bots, base)?.make)(seed);
    let Some(percent) = handicap else {
        return Ok(bot);
    };
    let random = (find_bot(bots, "random")?.make)(derive_seed(seed, 0x6861_6e64));
    Ok(Box::new(Handicapped {
        bot,
        random,
        percent,
        rng: crate::seed::bot_rng(derive_seed(seed, 0x6361_7021)),
    }))
}

struct Handicapped<G: Game> {
    bot: Box<dyn Bot<G>>,
    random: Box<dyn Bot<G>>,
    percent: u32,
    rng: crate::seed::BotRng,
}

impl<G: Game> Bot<G> for Handicapped<G> {
    fn act(&mut self, obs: &G::Obs) -> G::Action {
        let own = self.bot.act(obs);
        let other = self.random.act(obs);
        if crate::seed::below(&mut self.rng, 100) < self.percent {
            other
        } else {
            own
        }
    }
}

/// The seed of seat `seat`'s built-in bot in a game with seed `game_seed`.
pub fn bot_seed(game_seed: u64, seat: usize) -> u64 {
    derive_seed(game_seed, 1 + seat as u64)
}

/// A game between built-in bots, in process.
pub fn play_builtin_game<G: Game>(
    config: &G::Config,
    bots: &[BotEntry<G>],
    names: &[String],
    seed: u64,
) -> Result<Outcome, String> {
    let mut players = names
        .iter()
        .enumerate()
        .map(|(seat, name)| make_bot(bots, name, bot_seed(seed, seat)))
        .collect::<Result<Vec<_>, String>>()?;
    let mut game = G::new(config, seed);
    if players.len() != game.num_players() {
        return Err(format!(
            "{} needs {} players, got {}",
            G::ID,
            game.num_players(),
            players.len()
        ));
    }
    let mut obs = G::Obs::default();
    Ok(play_in_process(&mut game, &mut players, &mut obs))
}

/// Games seeded together by the benchmark.
const BENCH_BATCH: usize = 32;

/// Benchmark: games of `bot` against itself on this thread, seeds 0, 1, 2, ..., for about a time or
/// for an exact number of games.
pub fn bench_in_process<G: Game>(
    config: &G::Config,
    bot: &BotEntry<G>,
    length: BenchLength,
) -> BenchReport {
    let started = Instant::now();
    let (budget, limit) = match length {
        BenchLength::Seconds(seconds) => (Some(Duration::from_secs_f64(seconds.max(0.01))), None),
        BenchLength::Games(games) => (None, Some(games)),
    };
    let mut obs = G::Obs::default();
    let mut games = 0u64;
    let mut checksum = 0i64;
    let mut batch: Vec<G> = Vec::with_capacity(BENCH_BATCH);
    let mut seeds: Vec<u64> = Vec::with_capacity(BENCH_BATCH);
    let mut players: Vec<Box<dyn Bot<G>>> = Vec::new();
    'play: loop {
        // Batches keep the clock out of the measurement and let engines seed several games at once.
        for _ in 0..1024 / BENCH_BATCH {
            let size = limit.map_or(BENCH_BATCH as u64, |limit| {
                (limit - games).min(BENCH_BATCH as u64)
            });
            if size == 0 {
                break 'play;
            }
            seeds.clear();
            seeds.extend(games..games + size);
            batch.clear();
            G::new_batch(config, &seeds, &mut batch);
            for (game, &seed) in batch.iter_mut().zip(&seeds) {
                let seats = game.num_players();
                let reused = players.len() == seats
                    && players
                        .iter_mut()
                        .enumerate()
                        .all(|(seat, player)| player.reset(bot_seed(seed, seat)));
                if !reused {
                    players.clear();
                    players.extend((0..seats).map(|seat| (bot.make)(bot_seed(seed, seat))));
                }
                let outcome = play_in_process(game, &mut players, &mut obs);
                checksum = checksum.wrapping_add(outcome.winner.map_or(-1, |w| w as i64));
            }
            games += size;
        }
        if budget.is_some_and(|budget| started.elapsed() >= budget) {
            break;
        }
    }
    std::hint::black_box(checksum);
    BenchReport {
        games,
        elapsed: started.elapsed(),
    }
}

/// Runs a built-in bot over a stream protocol: handshake, then read an ask, answer, until input ends.
pub fn stream_bot_main<G: StreamProtocol>(
    bot: &BotEntry<G>,
    seed: u64,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<(), String> {
    if let Some(ready) = G::READY {
        writeln!(output, "{ready}").map_err(write_error)?;
        output.flush().map_err(write_error)?;
    }
    answer_stream(&mut *(bot.make)(seed), input, output)
}

fn write_error(e: std::io::Error) -> String {
    format!("cannot write the answer: {e}")
}

/// Reads an ask, answers with `player`, until input ends (the loop of [`stream_bot_main`] after its
/// handshake; also for a bot made otherwise than from the catalog, as development aids do).
pub fn answer_stream<G: StreamProtocol>(
    player: &mut dyn Bot<G>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<(), String> {
    let mut line = String::new();
    let mut previous: Option<G::Obs> = None;
    while let Some(obs) = G::read_input(input, previous.as_ref())? {
        let action = player.act(&obs);
        line.clear();
        G::encode_action(&action, &mut line);
        line.push('\n');
        output.write_all(line.as_bytes()).map_err(write_error)?;
        output.flush().map_err(write_error)?;
        previous = Some(obs);
    }
    Ok(())
}

/// FNV-1a, to seed a built-in bot run as a call-per-move program from what it was called with
/// (the same call makes the same choice).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for part in parts {
        for &b in *part {
            hash = (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        hash = (hash ^ 0xff).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A built-in bot's answer to one call of a call-per-move game, from the shared file's text and the
/// arguments after its path: what to append to the file and what to print. The program around it
/// (`arena bot`) does the file's reading and writing.
pub fn call_answer<G: crate::define::CallProtocol>(
    bots: &[BotEntry<G>],
    name: &str,
    file: String,
    args: &[String],
) -> Result<(String, String), String> {
    let bot = find_bot(bots, name)?;
    let seed = fnv1a(&[
        file.as_bytes(),
        args.join("\u{0}").as_bytes(),
        name.as_bytes(),
    ]);
    let obs = G::observe_call(file, args)?;
    let action = (bot.make)(seed).act(&obs);
    Ok(G::answer_call(&obs, &action))
}

#[cfg(test)]
mod tests {
    use super::split_handicap;

    #[test]
    fn a_handicap_is_a_whole_percentage_after_the_name() {
        assert_eq!(split_handicap("planner"), Ok(("planner", None)));
        assert_eq!(split_handicap("planner@0"), Ok(("planner", Some(0))));
        assert_eq!(split_handicap("planner@100"), Ok(("planner", Some(100))));
        for bad in [
            "planner@101",
            "planner@",
            "planner@x",
            "planner@-1",
            "planner@2.5",
        ] {
            assert!(split_handicap(bad).is_err(), "{bad}");
        }
    }
}
