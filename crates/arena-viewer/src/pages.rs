//! Server-rendered pages: the list of tournaments, one tournament (leaderboard, pairwise table, games)
//! and error pages. Plain HTML with every inserted text escaped.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use arena_tournament::RunSummary;
use arena_tournament::summary::Source;

use crate::export::{escape, fill};
use crate::store::{
    ResultLine, RootListing, TOURNAMENT_FILE, Tournament, TournamentDir, score_text, url_path,
    url_segment,
};

const SITE_TEMPLATE: &str = include_str!("../assets/site.html");
const SITE_STYLE: &str = include_str!("../assets/site.css");

/// Games listed per page of a tournament.
pub const GAMES_PER_PAGE: usize = 500;

pub fn layout(title: &str, body: &str) -> String {
    fill(
        SITE_TEMPLATE,
        &[
            ("{{TITLE}}", &escape(title)),
            ("{{STYLE}}", SITE_STYLE),
            ("{{BODY}}", body),
        ],
    )
}

pub fn error_page(status: u16, reason: &str, detail: &str) -> String {
    layout(
        &format!("{status} {reason}"),
        &format!(
            "<h1>{status} {}</h1><p class=\"error\">{}</p><p><a href=\"/\">All tournaments</a></p>",
            escape(reason),
            escape(detail)
        ),
    )
}

/// The front page: every root with its tournaments and loose replays, then the files given.
pub fn index(roots: &[(&Path, RootListing)], files: &[&Path]) -> String {
    let mut body = String::from("<h1>arena</h1>");
    if roots.is_empty() && files.is_empty() {
        body.push_str("<p>Nothing to show: start the server with a tournament directory.</p>");
    }
    for (index, (path, listing)) in roots.iter().enumerate() {
        let _ = write!(
            body,
            "<section><h2>{}</h2>",
            escape(&path.display().to_string())
        );
        if listing.tournaments.is_empty() && listing.replays.is_empty() {
            body.push_str(
                "<p class=\"muted\">No tournament here (no tournament.json or results.jsonl, in the \
                 directory or one level below) and no replay file.</p>",
            );
        }
        if !listing.tournaments.is_empty() {
            body.push_str("<table class=\"list\"><thead><tr><th>Tournament</th><th>Game</th><th>Bots</th><th>Games</th></tr></thead><tbody>");
            for tournament in &listing.tournaments {
                let loaded = crate::store::load_tournament(&tournament.path);
                let (game, bots) = describe(&loaded);
                let planned = loaded
                    .info
                    .as_ref()
                    .and_then(|info| info.games.as_ref())
                    .map(|g| format!(" / {}", score_text(g)))
                    .unwrap_or_default();
                let _ = write!(
                    body,
                    "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"num\">{}{}</td></tr>",
                    tournament.href(),
                    escape(tournament.sub.as_deref().unwrap_or("(this directory)")),
                    escape(&game),
                    escape(&bots.join(", ")),
                    loaded.results.len(),
                    escape(&planned)
                );
            }
            body.push_str("</tbody></table>");
        }
        if !listing.replays.is_empty() {
            body.push_str("<h3>Replay files</h3><ul class=\"files\">");
            for name in &listing.replays {
                let _ = write!(
                    body,
                    "<li><a href=\"/g/{index}/{}\">{}</a></li>",
                    url_path(name),
                    escape(name)
                );
            }
            body.push_str("</ul>");
        }
        body.push_str("</section>");
    }
    if !files.is_empty() {
        body.push_str("<section><h2>Replay files</h2><ul class=\"files\">");
        for (index, path) in files.iter().enumerate() {
            let _ = write!(
                body,
                "<li><a href=\"/f/{index}\">{}</a></li>",
                escape(&path.display().to_string())
            );
        }
        body.push_str("</ul></section>");
    }
    layout("arena", &body)
}

/// Game id and bot names of a tournament, from `tournament.json` or else from its results.
fn describe(tournament: &Tournament) -> (String, Vec<String>) {
    let mut game = tournament
        .info
        .as_ref()
        .and_then(|info| info.game.clone())
        .or_else(|| tournament.results.first().and_then(|r| r.game.clone()))
        .unwrap_or_else(|| "?".into());
    if let Some(variant) = tournament.info.as_ref().and_then(|i| i.variant.as_ref()) {
        let _ = write!(game, " ({variant})");
    }
    (game, bot_names(tournament))
}

/// Bots in their tournament order; when `tournament.json` is missing, in order of first appearance.
fn bot_names(tournament: &Tournament) -> Vec<String> {
    if let Some(info) = &tournament.info
        && !info.bots.is_empty()
    {
        return info.bots.iter().map(|b| b.name.clone()).collect();
    }
    let mut names: Vec<String> = Vec::new();
    for result in &tournament.results {
        for name in &result.bots {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// Filters of the games table (and of the JSON list, `/api/t/...`).
#[derive(Debug, Default, serde::Deserialize)]
pub struct GameFilter {
    /// Games this bot played.
    pub bot: Option<String>,
    /// With `bot`: `won`, `lost` or `drawn` (a shared first place), for that bot.
    pub result: Option<String>,
    /// Games with a fault of this kind (`timeout`, `crashed`, ...; `any` for any fault), of `bot`
    /// when it is given.
    pub fault: Option<String>,
    /// Games played on this seed.
    pub seed: Option<String>,
    pub page: Option<usize>,
    /// `viewer.html?game=N`: the report's link to a game (see [`crate::published_viewer_page`]).
    pub game: Option<String>,
}

/// A games filter that cannot mean anything, with what to write instead (a 400 to the browser).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BadFilter {
    #[error("result={0}: give won, lost or drawn (for the bot given with bot=NAME)")]
    UnknownResult(String),
    #[error("result= is a bot's result: give bot=NAME too")]
    ResultWithoutBot,
}

/// Why a run has no summary to show.
#[derive(Debug, thiserror::Error)]
pub enum NoSummary {
    /// The folder's plan is missing or unreadable: without it nothing is known of the run.
    #[error("no statistics without the tournament's plan ({TOURNAMENT_FILE}): {0}")]
    NoPlan(#[source] arena_tournament::TournamentError),
    /// The saved summary and the journal could not be read, or the statistics not computed.
    #[error(transparent)]
    Summary(arena_tournament::TournamentError),
}

/// The outcome of a game for one seat, in the filter's words.
fn seat_result(result: &ResultLine, seat: usize) -> &'static str {
    match (result.winner, result.ranks.get(seat)) {
        (Some(winner), _) if winner == seat => "won",
        (None, Some(1)) => "drawn",
        _ => "lost",
    }
}

impl GameFilter {
    /// Refuses filters that cannot mean anything, with what to write instead.
    pub fn check(&self) -> Result<(), BadFilter> {
        match self.result.as_deref().filter(|r| !r.is_empty()) {
            Some(result) if !["won", "lost", "drawn"].contains(&result) => {
                return Err(BadFilter::UnknownResult(result.to_string()));
            }
            Some(_) if self.bot.as_deref().is_none_or(str::is_empty) => {
                return Err(BadFilter::ResultWithoutBot);
            }
            _ => {}
        }
        Ok(())
    }

    fn given(value: &Option<String>) -> Option<&str> {
        value.as_deref().filter(|v| !v.is_empty())
    }

    /// Whether a game passes every filter given.
    pub fn matches(&self, result: &ResultLine) -> bool {
        let seats: Vec<usize> = match Self::given(&self.bot) {
            Some(bot) => result
                .bots
                .iter()
                .enumerate()
                .filter(|(_, name)| *name == bot)
                .map(|(seat, _)| seat)
                .collect(),
            None => (0..result.bots.len()).collect(),
        };
        if seats.is_empty() {
            return false;
        }
        if let Some(wanted) = Self::given(&self.result)
            && !seats
                .iter()
                .any(|&seat| seat_result(result, seat) == wanted)
        {
            return false;
        }
        if let Some(kind) = Self::given(&self.fault) {
            let faulty = seats.iter().any(|&seat| {
                result
                    .faults
                    .get(seat)
                    .is_some_and(|kinds| kinds.iter().any(|k| kind == "any" || k == kind))
            });
            if !faulty {
                return false;
            }
        }
        if let Some(seed) = Self::given(&self.seed) {
            let text = result.seed.as_ref().map(score_text).unwrap_or_default();
            if text != seed.trim() {
                return false;
            }
        }
        true
    }

    /// The filters as a query string (without `page`), starting with `&` when not empty.
    fn query(&self) -> String {
        let mut query = String::new();
        for (key, value) in [
            ("bot", &self.bot),
            ("result", &self.result),
            ("fault", &self.fault),
            ("seed", &self.seed),
        ] {
            if let Some(value) = Self::given(value) {
                let _ = write!(query, "&{key}={}", url_segment(value));
            }
        }
        query
    }

    fn any(&self) -> bool {
        !self.query().is_empty()
    }
}

/// The `arena play` command of each game, when the tournament's plan can be read.
pub struct Commands(Option<arena_tournament::Plan>);

impl Commands {
    pub fn of(dir: &Path) -> Commands {
        Commands(arena_tournament::load(dir).ok())
    }

    pub fn command(&self, result: &ResultLine) -> Option<String> {
        let plan = self.0.as_ref()?;
        let seed = result.seed.as_ref().map(score_text)?.parse::<u64>().ok()?;
        (result.seats.len() == result.bots.len() && !result.seats.is_empty())
            .then(|| arena_tournament::reproduce::play_command(plan, &result.seats, seed))
    }
}

/// The games that pass `filter`, as JSON for tools: each with its seed (text), seats, scores,
/// faults, where to watch it and the command that plays it again.
pub fn games_json(
    dir: &TournamentDir,
    tournament: &Tournament,
    filter: &GameFilter,
    rebuild: bool,
) -> serde_json::Value {
    let commands = Commands::of(&dir.path);
    let games: Vec<serde_json::Value> = tournament
        .results
        .iter()
        .filter(|r| filter.matches(r))
        .map(|r| {
            serde_json::json!({
                "index": r.index,
                "seed": r.seed.as_ref().map(score_text),
                "bots": r.bots,
                "scores": r.scores,
                "ranks": r.ranks,
                "winner": r.winner,
                "faults": r.faults,
                "watch": watch_href(dir, tournament, r, rebuild),
                "command": commands.command(r),
            })
        })
        .collect();
    serde_json::json!({ "count": games.len(), "games": games })
}

/// Where a game's viewer is, if it can be shown.
fn watch_href(
    dir: &TournamentDir,
    tournament: &Tournament,
    result: &ResultLine,
    rebuild: bool,
) -> Option<String> {
    match &result.replay {
        Some(replay) => Some(format!(
            "/g/{}/{}",
            dir.root,
            url_path(&dir.root_relative(replay))
        )),
        None if rebuild && all_built_in(tournament, result) => Some(format!(
            "/g/{}/{}",
            dir.root,
            url_path(&dir.root_relative(&arena_formats::layout::replay_path(result.index)))
        )),
        None => None,
    }
}

/// `rebuild`: the server can play again the games between built-in bots whose replay was not
/// stored, so they get a link too.
pub fn tournament_page(
    dir: &TournamentDir,
    tournament: &Tournament,
    filter: &GameFilter,
    rebuild: bool,
) -> String {
    let (game, _) = describe(tournament);
    let title = dir
        .sub
        .clone()
        .unwrap_or_else(|| dir.path.display().to_string());
    let mut body = String::new();
    let _ = write!(
        body,
        "<p><a href=\"/\">← All tournaments</a></p><h1>{}</h1><p class=\"meta\">{}",
        escape(&title),
        escape(&game)
    );
    if let Some(info) = &tournament.info {
        if let Some(schedule) = &info.schedule {
            let _ = write!(body, " · schedule {}", escape(&score_text(schedule)));
        }
        if let Some(seed) = &info.seed {
            let _ = write!(body, " · seed {}", escape(&score_text(seed)));
        }
        let planned = info.games.as_ref().map(score_text);
        let _ = write!(
            body,
            " · {} games played{}",
            tournament.results.len(),
            planned
                .map(|p| format!(" of {}", escape(&p)))
                .unwrap_or_default()
        );
    } else {
        let _ = write!(body, " · {} games played", tournament.results.len());
    }
    if dir.path.join(crate::store::REPORT_FILE).is_file() {
        let _ = write!(
            body,
            " · <a href=\"{}/{}\">report</a>",
            dir.href(),
            crate::store::REPORT_FILE
        );
    }
    body.push_str("</p>");
    if let Some(error) = &tournament.info_error {
        let _ = write!(body, "<p class=\"error\">{}</p>", escape(error));
    }
    if tournament.bad_lines > 0 {
        let _ = write!(
            body,
            "<p class=\"warn\">{} line(s) of results.jsonl could not be read and are left out.</p>",
            tournament.bad_lines
        );
    }
    let specs: HashMap<&str, &str> = tournament
        .info
        .iter()
        .flat_map(|info| info.bots.iter())
        .map(|b| (b.name.as_str(), b.spec.as_str()))
        .collect();
    leaderboard(&mut body, dir, tournament, &specs);
    games_table(&mut body, dir, tournament, filter, rebuild);
    layout(&format!("{title} · arena"), &body)
}

/// The run's summary as the run computed it ([`arena_tournament::summary::current`]: from
/// `summary.json`, or from the journal while the run goes on), or why there is none.
pub fn run_summary(dir: &TournamentDir) -> Result<(RunSummary, Source), NoSummary> {
    let plan = arena_tournament::load(&dir.path).map_err(NoSummary::NoPlan)?;
    arena_tournament::summary::current(&dir.path, &plan).map_err(NoSummary::Summary)
}

/// The run's summary as JSON for tools (`/api/summary/ROOT[/SUB]`): `source` (`saved`: the
/// run's own, from summary.json; `computed`: from the journal now) and `run`.
pub fn summary_json(dir: &TournamentDir) -> Result<serde_json::Value, NoSummary> {
    let (run, source) = run_summary(dir)?;
    Ok(serde_json::json!({
        "source": match source {
            Source::Saved => "saved",
            Source::Computed => "computed",
        },
        "run": run,
    }))
}

/// The leaderboard, head-to-head table and SPRT of the run: the strings of its [`RunSummary`],
/// the ones the terminal printed and report.html shows.
fn leaderboard(
    body: &mut String,
    dir: &TournamentDir,
    tournament: &Tournament,
    specs: &HashMap<&str, &str>,
) {
    body.push_str("<h2>Leaderboard</h2>");
    if tournament.results.is_empty() {
        body.push_str("<p class=\"muted\">No finished game yet.</p>");
        return;
    }
    let (run, source) = match run_summary(dir) {
        Ok(summary) => summary,
        Err(e) => {
            let _ = write!(
                body,
                "<p class=\"error\">Cannot compute statistics: {}</p>",
                escape(&e.to_string())
            );
            return;
        }
    };
    if source == Source::Computed {
        let _ = write!(
            body,
            "<p class=\"muted\">Computed now from the {} games in results.jsonl: the run has not \
             written its summary of them (still running, or interrupted); rating intervals from \
             {} bootstrap resamples.</p>",
            run.games, run.bootstrap
        );
    }
    body.push_str(
        "<table class=\"board\"><thead><tr><th>#</th><th>Bot</th><th>Games</th><th>W</th><th>D</th>\
         <th>L</th><th>Score [95%]</th><th>Mean score [95%]</th><th>Mean rank</th>\
         <th>Rating [95%]</th><th>TrueSkill</th><th>Weng-Lin</th><th>2014 Elo</th>\
         <th>Faults</th></tr></thead><tbody>",
    );
    for row in &run.bots {
        let text = &row.text;
        let spec = specs.get(row.name.as_str()).copied().unwrap_or("");
        let _ = write!(
            body,
            "<tr><td class=\"num\">{}</td><td><a href=\"?bot={}\" title=\"{}\">{}</a></td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num interval\">{}</td><td class=\"num interval\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num interval\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td>{}</td></tr>",
            row.place,
            url_segment(&row.name),
            escape(spec),
            escape(&row.name),
            row.games,
            row.wins,
            row.draws,
            row.losses,
            escape(&text.score_rate),
            escape(&text.mean_score),
            escape(&text.mean_rank),
            escape(&text.rating),
            escape(&text.trueskill),
            escape(&text.weng_lin),
            escape(&text.elo_2014),
            escape(&text.faults),
        );
    }
    body.push_str("</tbody></table>");
    let _ = write!(
        body,
        "<p class=\"muted\">Score: points per game (a win 1, a shared first place ½); intervals \
         measured between {}. {}.</p>",
        escape(&run.units),
        escape(&run.rating_note)
    );
    for note in &run.rating_bounds {
        let _ = write!(body, "<p class=\"muted\">{}</p>", escape(note));
    }
    if let Some(sprt) = &run.sprt {
        let _ = write!(
            body,
            "<h2>SPRT</h2>{}",
            arena_tournament::report::sprt_html(sprt)
        );
    }

    if run.bots.len() < 2 {
        return;
    }
    body.push_str(
        "<h2>Head to head</h2><p class=\"muted\">Row against column: share of points of the row bot \
         in percent (a draw counts half) ± the 95% half-width, over the games both played.</p>\
         <table class=\"pairs\"><thead><tr><th></th>",
    );
    for column in &run.bots {
        let _ = write!(body, "<th>{}</th>", escape(&column.name));
    }
    body.push_str("</tr></thead><tbody>");
    for (row, cells) in run.bots.iter().zip(&run.pairwise) {
        let _ = write!(body, "<tr><th>{}</th>", escape(&row.name));
        for cell in cells {
            match cell {
                Some(pair) => {
                    let share = pair.score.as_ref().map_or(0.5, |i| i.estimate);
                    // Green above one half, red below, stronger the further from it.
                    let hue = if share >= 0.5 { 130 } else { 0 };
                    let alpha = ((share - 0.5).abs() * 1.1).min(0.5);
                    let _ = write!(
                        body,
                        "<td class=\"num\" style=\"background:hsla({hue},60%,45%,{alpha:.2})\" \
                         title=\"{} W / {} D / {} L{}{}\">{}<span class=\"n\">{}</span></td>",
                        pair.wins,
                        pair.draws,
                        pair.losses,
                        if pair.los_text.is_empty() { "" } else { ", " },
                        escape(&pair.los_text),
                        escape(&pair.text),
                        pair.games
                    );
                }
                None => body.push_str("<td class=\"none\"></td>"),
            }
        }
        body.push_str("</tr>");
    }
    body.push_str("</tbody></table>");
}

/// Whether every seat of a game is a built-in bot (its replay can be rebuilt from the seed).
fn all_built_in(tournament: &Tournament, result: &ResultLine) -> bool {
    let Some(info) = &tournament.info else {
        return false;
    };
    !result.seats.is_empty()
        && result.seats.iter().all(|&bot| {
            info.bots
                .get(bot)
                .is_some_and(|b| b.spec.starts_with("builtin:"))
        })
}

fn games_table(
    body: &mut String,
    dir: &TournamentDir,
    tournament: &Tournament,
    filter: &GameFilter,
    rebuild: bool,
) {
    let selected: Vec<_> = tournament
        .results
        .iter()
        .filter(|r| filter.matches(r))
        .collect();
    let pages = selected.len().div_ceil(GAMES_PER_PAGE).max(1);
    let page = filter.page.unwrap_or(1).clamp(1, pages);
    body.push_str("<h2>Games</h2>");
    filter_form(body, tournament, filter);
    let _ = write!(body, "<p class=\"meta\">{} game(s)", selected.len());
    if let Some(bot) = GameFilter::given(&filter.bot) {
        let _ = write!(body, " with <b>{}</b>", escape(bot));
    }
    if let Some(result) = GameFilter::given(&filter.result) {
        let _ = write!(body, " that it {}", escape(result));
    }
    if let Some(fault) = GameFilter::given(&filter.fault) {
        let _ = write!(body, " with a fault ({})", escape(fault));
    }
    if let Some(seed) = GameFilter::given(&filter.seed) {
        let _ = write!(body, " on seed {}", escape(seed));
    }
    if filter.any() {
        let _ = write!(
            body,
            " · <a href=\"{}\">all games</a> · <a href=\"{}?{}\">as JSON</a>",
            dir.href(),
            dir.href().replacen("/t/", "/api/t/", 1),
            filter.query().trim_start_matches('&')
        );
    }
    if pages > 1 {
        body.push_str(" · page");
        let query = filter.query();
        for p in 1..=pages {
            if p == page {
                let _ = write!(body, " <b>{p}</b>");
            } else {
                let _ = write!(body, " <a href=\"?page={p}{query}\">{p}</a>");
            }
        }
    }
    body.push_str("</p>");
    if selected.is_empty() {
        return;
    }
    let commands = Commands::of(&dir.path);
    body.push_str(
        "<table class=\"games\"><thead><tr><th>#</th><th>Seed</th><th>Seats (score)</th><th>Faults</th>\
         <th></th><th>Play it again</th></tr></thead><tbody>",
    );
    for result in selected
        .iter()
        .skip((page - 1) * GAMES_PER_PAGE)
        .take(GAMES_PER_PAGE)
    {
        let mut seats = String::new();
        for (seat, name) in result.bots.iter().enumerate() {
            let score = result.scores.get(seat).map(score_text).unwrap_or_default();
            let class = match seat_result(result, seat) {
                "won" => "seat win",
                "drawn" => "seat draw",
                _ => "seat",
            };
            let _ = write!(
                seats,
                "<span class=\"{class}\">{} <b>{}</b></span>",
                escape(name),
                escape(&score)
            );
        }
        let faults: Vec<String> = result
            .faults
            .iter()
            .enumerate()
            .filter(|(_, kinds)| !kinds.is_empty())
            .map(|(seat, kinds)| {
                format!(
                    "{}: {}",
                    escape(result.bots.get(seat).map_or("?", String::as_str)),
                    escape(&kinds.join(", "))
                )
            })
            .collect();
        let watch = match watch_href(dir, tournament, result, rebuild) {
            Some(href) if result.replay.is_some() => {
                format!("<a class=\"watch\" href=\"{href}\">watch ▶</a>")
            }
            Some(href) => format!(
                "<a class=\"watch\" title=\"built-in bots only: played again from the seed\" \
                 href=\"{href}\">watch ▶</a>"
            ),
            None => "<span class=\"muted\">no replay</span>".into(),
        };
        let command = commands
            .command(result)
            .map(|c| format!("<code class=\"command\">{}</code>", escape(&c)))
            .unwrap_or_default();
        let _ = write!(
            body,
            "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{seats}</td><td class=\"faults\">{}</td><td>{watch}</td><td>{command}</td></tr>",
            result.index,
            escape(&result.seed.as_ref().map(score_text).unwrap_or_default()),
            faults.join("<br>")
        );
    }
    body.push_str("</tbody></table>");
}

/// The filter form above the games: bot, its result, fault kind, seed.
fn filter_form(body: &mut String, tournament: &Tournament, filter: &GameFilter) {
    let option = |value: &str, label: &str, current: Option<&str>| {
        format!(
            "<option value=\"{}\"{}>{}</option>",
            escape(value),
            if current == Some(value) {
                " selected"
            } else {
                ""
            },
            escape(label)
        )
    };
    let bot = GameFilter::given(&filter.bot);
    let mut bots = option("", "any bot", bot);
    for name in bot_names(tournament) {
        bots.push_str(&option(&name, &name, bot));
    }
    let result = GameFilter::given(&filter.result);
    let mut results = option("", "any result", result);
    for value in ["won", "lost", "drawn"] {
        results.push_str(&option(value, value, result));
    }
    let fault = GameFilter::given(&filter.fault);
    let mut kinds: Vec<&str> = tournament
        .results
        .iter()
        .flat_map(|r| r.faults.iter().flatten())
        .map(String::as_str)
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut faults = option("", "any or no fault", fault);
    faults.push_str(&option("any", "some fault", fault));
    for kind in kinds {
        faults.push_str(&option(kind, kind, fault));
    }
    let _ = write!(
        body,
        "<form class=\"filters\" method=\"get\"><label>bot <select name=\"bot\">{bots}</select></label> \
         <label>its result <select name=\"result\">{results}</select></label> \
         <label>fault <select name=\"fault\">{faults}</select></label> \
         <label>seed <input name=\"seed\" size=\"22\" value=\"{}\"></label> \
         <button>filter</button></form>",
        escape(GameFilter::given(&filter.seed).unwrap_or(""))
    );
}
