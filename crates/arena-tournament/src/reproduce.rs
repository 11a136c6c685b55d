//! The `arena play ...` command that plays one game of a tournament again: the game and its
//! league, the seed, the bots in seat order with their labels and working folders, the time
//! options and the game's own options, as the plan kept them.

use arena_core::TimePolicy;

use crate::journal::Entry;
use crate::schedule::Plan;

/// The command for the game at `seats` (bot indices in seat order) with `seed`. Bots that are
/// submissions are given by their source (built again, or found in the build cache).
pub fn play_command(plan: &Plan, seats: &[usize], seed: u64) -> String {
    let mut args: Vec<String> = vec!["arena".into(), "play".into(), plan.game.clone()];
    if let Some(variant) = &plan.variant {
        args.extend(["--league".into(), variant.clone()]);
    }
    let bots: Vec<_> = seats.iter().filter_map(|&b| plan.bots.get(b)).collect();
    for bot in &bots {
        let what = match &bot.source {
            Some(source) => source.to_string_lossy().into_owned(),
            None => bot.spec.clone(),
        };
        args.extend(["--bot".into(), format!("{}={what}", bot.name)]);
    }
    // `--workdir` is given for every seat or for none; `-` is a seat without one.
    if bots
        .iter()
        .any(|b| b.source.is_none() && b.workdir.is_some())
    {
        for bot in &bots {
            let dir = match (&bot.source, &bot.workdir) {
                (None, Some(dir)) => dir.to_string_lossy().into_owned(),
                _ => "-".into(),
            };
            args.extend(["--workdir".into(), dir]);
        }
    }
    args.extend(["--seed".into(), seed.to_string()]);
    let settings = &plan.settings;
    if settings.rules.time_scale != 1.0 {
        args.extend(["--time-scale".into(), settings.rules.time_scale.to_string()]);
    }
    match settings.rules.time_policy {
        None => {}
        Some(TimePolicy::Strict) => args.extend(["--time-policy".into(), "strict".into()]),
        Some(TimePolicy::Strikes { .. }) => {
            args.extend(["--time-policy".into(), "strikes".into()]);
        }
        Some(TimePolicy::Grace { grace_ms }) => {
            args.extend(["--grace".into(), grace_ms.to_string()]);
        }
        Some(TimePolicy::Bank { bank_ms }) => {
            args.extend(["--bank".into(), bank_ms.to_string()]);
        }
    }
    if !settings.rules.clock.is_wall() {
        args.extend(["--clock".into(), settings.rules.clock.name().into()]);
    }
    if !settings.rules.pause_idle {
        args.push("--no-pause".into());
    }
    args.extend(settings.game_options.to_args());
    args.iter()
        .map(|arg| shell_quote(arg))
        .collect::<Vec<_>>()
        .join(" ")
}

/// [`play_command`] of a journaled game.
pub fn entry_command(plan: &Plan, entry: &Entry) -> String {
    play_command(plan, &entry.seats, entry.seed)
}

/// `text` as one word for a POSIX shell: as it is when it holds only safe characters, else in
/// single quotes.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,#".contains(c));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_words_whole() {
        assert_eq!(
            shell_quote("greedy=builtin:greedy"),
            "greedy=builtin:greedy"
        );
        assert_eq!(shell_quote("a=python3 bot.py"), "'a=python3 bot.py'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("_0'<"), "'_0'\\''<'");
    }
}
