//! The reports made of a tournament's statistics ([`crate::stats`]): a text leaderboard, CSV, JSON
//! (`summary.json`) and a self-contained HTML page.

use std::fmt::Write as _;
use std::path::Path;

use arena_stats::{StatsReport, Unbounded};

use crate::TournamentError;
use crate::journal::Entry;
use crate::schedule::{Plan, Schedule};
use crate::stats::{places, standings};
use crate::summary::{
    BotRow, NONE, RunSummary, SprtSummary, faults_text, games_played_text, sprt_verdict_word,
};
use crate::text::{NAME_MAX, TEXT_WIDTH, truncate, wrapped};
use crate::timing::TimingSummary;

// Their old paths, which other crates use: `report::compute` (arena-host, the benches), and
// `report::SUMMARY_FILE` beside the other files' names.
pub use crate::stats::compute;
pub use crate::summary::SUMMARY_FILE;

/// The report's files, named by the folder's layout (`VIEWER_FILE`, the viewer page of the report's
/// replay links, is written by the caller: the `arena` command, from arena-viewer).
pub use arena_formats::layout::{LEADERBOARD_FILE, REPORT_FILE, VIEWER_FILE};

/// Writes `summary.json`, `leaderboard.csv` and `report.html` (which lists `games`). `run` is
/// the summary of `report` ([`RunSummary::of`]); `summary.json` keeps it as `run`, beside the
/// raw statistics (`stats`), for the views that show the run later (`arena serve`).
pub fn write_outputs(
    dir: &Path,
    plan: &Plan,
    report: &StatsReport,
    run: &RunSummary,
    games: &[Entry],
    timing: &TimingSummary,
) -> Result<(), TournamentError> {
    let summary = crate::summary_file::summary(plan, report, run, timing);
    // Through a JSON tree, whose keys are in alphabetical order: the order summary.json has
    // always had.
    let summary = serde_json::to_value(&summary)
        .and_then(|tree| serde_json::to_string_pretty(&tree))
        .map_err(|e| TournamentError::Invalid(format!("cannot encode the summary: {e}")))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| TournamentError::io(&path, e))
    };
    write(SUMMARY_FILE, &summary)?;
    write(LEADERBOARD_FILE, &leaderboard_csv(report))?;
    write(REPORT_FILE, &report_html(plan, report, run, games, timing))
}

/// Width of the bot-name column.
fn name_width(run: &RunSummary) -> usize {
    run.bots
        .iter()
        .map(|b| b.name.chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, NAME_MAX)
}

/// The leaderboard's table (a header and a row per bot, in places), as the final leaderboard and
/// the live standings show it.
fn standings_text(plan: &Plan, run: &RunSummary) -> String {
    let mut out = String::new();
    let four = plan.players > 2;
    let width = name_width(run);
    // Columns as wide as their usual text (`81.2% [66.4, 100.0]`, `-2.34 ± 1.23`,
    // `+323 [+257, +430]`), so that the header and a row of the longest names fit in
    // TEXT_WIDTH; a longer text pushes the rest of its line right (and the line is cut there).
    let _ = writeln!(
        out,
        "  # {:<width$} {:>5} {:>9} {:<19} {:<12}{} {:<17} faults",
        "bot",
        "games",
        "W-D-L",
        "score [95%]",
        "mean score",
        if four { "  rank" } else { "" },
        "rating [95%]",
    );
    for row in &run.bots {
        let line = format!(
            "{:>3} {:<width$} {:>5} {:>9} {:<19} {:<12}{} {:<17} {}",
            row.place,
            truncate(&row.name, width),
            row.games,
            format!("{}-{}-{}", row.wins, row.draws, row.losses),
            row.text.score_rate,
            row.text.mean_score,
            if four {
                format!(" {:>5}", row.text.mean_rank)
            } else {
                String::new()
            },
            row.text.rating,
            row.text.faults,
        );
        let _ = writeln!(out, "{}", truncate(line.trim_end(), TEXT_WIDTH));
    }
    out
}

/// The standings while a run plays (`arena tournament --live`): the leaderboard's table over the
/// `games` counted so far of `total`, and the SPRT's evidence when the run has one. Ratings are
/// the fit's estimate alone (their intervals come with the final report).
pub fn live_text(plan: &Plan, run: &RunSummary, total: u64) -> String {
    let mut out = format!("standings after {} of {} games:\n", run.games, total);
    out.push_str(&standings_text(plan, run));
    if let Some(sprt) = &run.sprt {
        // The status line of the test alone (its first two sentences).
        for line in sprt.text.lines().take(2) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The leaderboard and pairwise table as text, in [`TEXT_WIDTH`] columns (TrueSkill, Weng-Lin and
/// the full pairwise table are in summary.json and report.html): the strings of `run`, placed.
pub fn leaderboard_text(plan: &Plan, run: &RunSummary) -> String {
    let mut out = String::new();
    let four = plan.players > 2;
    if plan.schedule == Schedule::Koth {
        // The original KotH leaderboard: one point per win.
        let _ = writeln!(out, "King of the Hill ({} games):", run.games);
        let mut by_points: Vec<&BotRow> = run.bots.iter().collect();
        by_points.sort_by_key(|row| (std::cmp::Reverse(row.wins), row.bot));
        for row in by_points {
            let _ = writeln!(out, "{:5} {}", row.wins, row.name);
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{} games of {}{}",
        run.games,
        plan.game,
        plan.variant
            .as_ref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default()
    );
    out.push_str(&standings_text(plan, run));
    out.push_str(&wrapped(&run.rating_note));
    out.push_str(&wrapped(&format!(
        "score: points per game (a win 1, a shared first place ½, as in every table here); \
         W-D-L: wins, draws, losses; intervals measured between {}; TrueSkill, Weng-Lin and the \
         full pairwise table: report.html and summary.json",
        run.units
    )));
    for note in &run.rating_bounds {
        out.push_str(&wrapped(note));
    }
    if four {
        let elo: Vec<String> = run
            .bots
            .iter()
            .map(|row| format!("{} {}", row.name, row.text.elo_2014))
            .collect();
        out.push_str(&wrapped(&format!(
            "2014 contests' Elo (K=32, schedule order, noisy): {}",
            elo.join(", ")
        )));
    }
    out.push('\n');
    out.push_str(&pairwise_text(run));
    if let Some(sprt) = &run.sprt {
        out.push_str(&sprt.text);
    }
    out
}

/// Width of a pairwise cell (`100±40`) and the space before it.
const PAIR_CELL: usize = 7;

/// Each row's score against each column in percent (draws count half) with its 95 % half-width,
/// in [`TEXT_WIDTH`] columns: rows are every bot, columns the leaders that fit, named by place.
/// The full table, with the likelihood of superiority, is in report.html.
pub fn pairwise_text(run: &RunSummary) -> String {
    let width = name_width(run);
    let label = 4 + width;
    let fit = (TEXT_WIDTH.saturating_sub(label) / PAIR_CELL).max(1);
    let columns = run.bots.len().min(fit);
    let mut out = if columns < run.bots.len() {
        format!(
            "row's score against column, % ±95% (columns: the top {columns} by place; all in report.html):\n"
        )
    } else {
        "row's score against column, % ±95% (columns by place; LOS in report.html):\n".to_string()
    };
    let _ = write!(out, "{:label$}", "");
    for column in &run.bots[..columns] {
        let _ = write!(out, " {:>6}", format!("#{}", column.place));
    }
    out.push('\n');
    for (row, cells) in run.bots.iter().zip(&run.pairwise) {
        let _ = write!(
            out,
            "{:>3} {:<width$}",
            row.place,
            truncate(&row.name, width)
        );
        for cell in &cells[..columns] {
            let _ = write!(out, " {:>6}", cell.as_ref().map_or(NONE, |c| &c.text));
        }
        out.push('\n');
    }
    out
}

/// One CSV row per bot, in leaderboard order.
pub fn leaderboard_csv(report: &StatsReport) -> String {
    let mut out = String::from(
        "place,bot,games,wins,draws,losses,units,score_rate,score_rate_low,score_rate_high,mean_score,score_low,score_high,mean_rank,rating,rating_low,rating_high,rating_unbounded,rating_bound,rank_low,rank_high,trueskill_mean,trueskill_sigma,weng_lin_mean,weng_lin_sigma,elo_2014,faults,sprt_role,sprt_verdict,sprt_llr,sprt_units\n",
    );
    // Six decimals at most (no statistic here is known better than that, and 17-digit floats
    // only clutter a spreadsheet); integers stay integers.
    let number = |value: Option<f64>| {
        value.map_or(String::new(), |v| {
            let text = format!("{v:.6}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            if text == "-0" {
                "0".into()
            } else {
                text.to_string()
            }
        })
    };
    let places = places(report);
    let sprt = report.sprt.as_ref();
    for &bot in &standings(report) {
        let s = &report.summaries[bot];
        let fit = report
            .global_fit
            .as_ref()
            .ok()
            .and_then(|f| f.bots.get(bot));
        let fields = [
            places[bot].to_string(),
            csv_field(&report.bots[bot]),
            s.games.to_string(),
            s.wins.to_string(),
            s.draws.to_string(),
            s.losses.to_string(),
            s.units.to_string(),
            number(s.score_rate.as_ref().map(|i| i.estimate)),
            number(s.score_rate.as_ref().map(|i| i.low)),
            number(s.score_rate.as_ref().map(|i| i.high)),
            number(s.mean_score),
            number(s.score.as_ref().map(|i| i.low)),
            number(s.score.as_ref().map(|i| i.high)),
            number(s.mean_rank),
            number(fit.map(|f| f.rating)),
            number(fit.and_then(|f| f.rating_interval.as_ref()).map(|i| i.low)),
            number(fit.and_then(|f| f.rating_interval.as_ref()).map(|i| i.high)),
            match fit.and_then(|f| f.unbounded) {
                Some(Unbounded::Above) => "above".into(),
                Some(Unbounded::Below) => "below".into(),
                Some(Unbounded::Both) => "both".into(),
                None => String::new(),
            },
            number(fit.and_then(|f| f.rating_bound)),
            number(fit.and_then(|f| f.rank_interval).map(|r| r.0 as f64)),
            number(fit.and_then(|f| f.rank_interval).map(|r| r.1 as f64)),
            number(report.trueskill.ratings.get(bot).map(|r| r.mean)),
            number(report.trueskill.ratings.get(bot).map(|r| r.uncertainty)),
            number(report.weng_lin.ratings.get(bot).map(|r| r.mean)),
            number(report.weng_lin.ratings.get(bot).map(|r| r.uncertainty)),
            number(report.elo_2014.ratings.get(bot).copied()),
            csv_field(&faults_text(&s.faults)),
            match sprt {
                Some(t) if t.setup.a == bot => "A".into(),
                Some(t) if t.setup.b == bot => "B".into(),
                _ => String::new(),
            },
            sprt.filter(|t| t.setup.a == bot || t.setup.b == bot)
                .and_then(|t| t.status().as_ref().ok())
                .map_or(String::new(), |status| {
                    sprt_verdict_word(crate::summary_file::verdict(status.verdict)).to_string()
                }),
            number(
                sprt.filter(|t| t.setup.a == bot || t.setup.b == bot)
                    .and_then(|t| t.status().as_ref().ok())
                    .map(|status| status.llr),
            ),
            sprt.filter(|t| t.setup.a == bot || t.setup.b == bot)
                .map_or(String::new(), |t| t.units.to_string()),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The self-contained HTML report (opens from disk; links to the replay files beside it). Its
/// statistics are the strings of `run`; `report` adds the score histograms.
pub fn report_html(
    plan: &Plan,
    report: &StatsReport,
    run: &RunSummary,
    games: &[Entry],
    timing: &TimingSummary,
) -> String {
    let title = format!("arena: {} tournament, {} games", plan.game, run.games);
    let mut html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style></head><body>",
        html_escape(&title),
        REPORT_CSS
    );
    let _ = write!(
        html,
        "<h1>{}</h1><p>seed {} · schedule {} · {} bots · {}</p>",
        html_escape(&title),
        plan.seed,
        plan.schedule,
        plan.bots.len(),
        html_escape(&games_played_text(
            plan,
            run.games,
            run.sprt.as_ref().is_some_and(|s| s.decided)
        ))
    );
    html.push_str("<h2>Leaderboard</h2><table><tr><th>#</th><th>bot</th><th>games</th><th>W</th><th>D</th><th>L</th><th>score [95%]</th><th>mean score [95%]</th><th>mean rank</th><th>rating [95%]</th><th>TrueSkill</th><th>Weng-Lin</th><th title=\"the 2014 contests' 4-player Elo, K=32, in schedule order: it follows the last games and is noisy\">2014 Elo*</th><th>faults</th></tr>");
    for row in &run.bots {
        let text = &row.text;
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"interval\">{}</td><td class=\"interval\">{}</td><td>{}</td><td class=\"interval\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            row.place,
            html_escape(&row.name),
            row.games,
            row.wins,
            row.draws,
            row.losses,
            html_escape(&text.score_rate),
            html_escape(&text.mean_score),
            html_escape(&text.mean_rank),
            html_escape(&text.rating),
            html_escape(&text.trueskill),
            html_escape(&text.weng_lin),
            html_escape(&text.elo_2014),
            html_escape(&text.faults),
        );
    }
    let _ = write!(
        html,
        "</table><p><small>score: points per game (a win 1, a shared first place ½, as in every table here); intervals measured between {}. {}.</small></p>",
        html_escape(&run.units),
        html_escape(&run.rating_note)
    );
    for note in &run.rating_bounds {
        let _ = write!(html, "<p><small>{}</small></p>", html_escape(note));
    }
    html.push_str("<p><small>* the 2014 contests' Elo (K = 32, games in schedule order): it follows the most recent games and is noisy; the ratings are the order-invariant fit.</small></p>");

    if let Some(sprt) = &run.sprt {
        let _ = write!(html, "<h2>SPRT</h2>{}", sprt_html(sprt));
    }

    html.push_str(&crate::timing::html(timing, html_escape));
    html.push_str("<h2>Ratings with 95% intervals</h2>");
    match &report.global_fit {
        Ok(_) => html.push_str(&ratings_svg(run)),
        Err(e) => {
            let _ = write!(html, "<p>No global fit: {}</p>", html_escape(e));
        }
    }

    html.push_str(
        "<h2>Pairwise: row's score against column, % ±95%</h2><table class=\"heat\"><tr><th></th>",
    );
    for column in &run.bots {
        let _ = write!(html, "<th>{}</th>", html_escape(&column.name));
    }
    html.push_str("</tr>");
    for (row, cells) in run.bots.iter().zip(&run.pairwise) {
        let _ = write!(html, "<tr><th>{}</th>", html_escape(&row.name));
        for cell in cells {
            match cell {
                Some(pair) => {
                    let score = pair.score.as_ref().map_or(0.5, |s| s.estimate);
                    let hue = (score * 120.0).round();
                    let _ = write!(
                        html,
                        "<td style=\"background:hsl({hue},65%,80%)\" title=\"{} games{}{}\">{}<br><small>{}-{}-{}</small></td>",
                        pair.games,
                        if pair.los_text.is_empty() { "" } else { ", " },
                        pair.los_text,
                        html_escape(&pair.text),
                        pair.wins,
                        pair.draws,
                        pair.losses
                    );
                }
                None => html.push_str("<td class=\"none\">-</td>"),
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");

    html.push_str("<h2>Score distributions</h2><div class=\"hists\">");
    for row in &run.bots {
        if let Some(histogram) = report.score_histograms.get(row.bot) {
            html.push_str(&histogram_svg(&row.name, histogram));
        }
    }
    html.push_str("</div>");

    let _ = write!(
        html,
        "<h2>Games</h2><p>{} shown of {}; every game is in <code>results.jsonl</code>. Open a replay with <code>arena view FILE</code> or browse them all with <code>arena serve --dir DIR</code>; games between built-in bots keep no file by default and are played again from their seed (<code>arena replay DIR N</code>, or the server).</p><table><tr><th>#</th><th>seed</th><th>seats</th><th>scores</th><th>winner</th><th>replay</th><th>play it again</th></tr>",
        games.len(),
        report.games
    );
    for game in games {
        let seats = game
            .bots
            .iter()
            .map(|b| html_escape(b))
            .collect::<Vec<_>>()
            .join(", ");
        let scores = game
            .scores
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let winner = game
            .winner
            .map_or("draw".into(), |w| html_escape(&game.bots[w]));
        let replay = match &game.replay {
            // The published viewer page loads the replay's bundle (folder::replay_bundle_script).
            Some(path) => format!(
                "<a href=\"{VIEWER_FILE}?game={:06}\">watch ▶</a> <a class=\"file\" href=\"{1}\">{1}</a>",
                game.index,
                html_escape(path)
            ),
            // Not stored: played again from its seed when watched (crate::rebuild).
            None if crate::rebuild::can_rebuild(plan, game.index) => format!(
                "<span title=\"built-in bots only: played again from the seed\"><code>arena replay DIR {}</code></span>",
                game.index
            ),
            None => "-".into(),
        };
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{seats}</td><td>{scores}</td><td>{winner}</td><td>{replay}</td><td><code class=\"command\">{}</code></td></tr>",
            game.index,
            game.seed,
            html_escape(&crate::reproduce::entry_command(plan, game))
        );
    }
    html.push_str("</table></body></html>\n");
    html
}

/// The SPRT statement as HTML paragraphs, one per line of its text (the same text the terminal
/// prints).
pub fn sprt_html(sprt: &SprtSummary) -> String {
    sprt.text
        .lines()
        .map(|line| format!("<p class=\"sprt\">{}</p>", html_escape(line.trim_start())))
        .collect()
}

fn ratings_svg(run: &RunSummary) -> String {
    let (mut low, mut high) = (-100.0f64, 100.0f64);
    for bot in run.bots.iter().filter_map(|row| row.rating.as_ref()) {
        let (l, h) = bot
            .rating_interval
            .as_ref()
            .map_or((bot.rating, bot.rating), |i| (i.low, i.high));
        low = low.min(l);
        high = high.max(h);
    }
    let row = 26.0;
    // The columns are as wide as their longest label (an estimate: SVG text is not measured
    // before it is drawn), so that neither a long bot name nor an unbounded rating's text is
    // clipped; a name past NAME_CHARS ends in an ellipsis and keeps the whole in a tooltip.
    let names: Vec<(String, bool)> = run.bots.iter().map(|b| short_name(&b.name)).collect();
    let labels: Vec<String> = run.bots.iter().map(rating_label).collect();
    let widest = |texts: &mut dyn Iterator<Item = &str>| {
        texts.map(|t| t.chars().count()).max().unwrap_or(0) as f64 * CHAR_WIDTH
    };
    let left = widest(&mut names.iter().map(|(n, _)| n.as_str())) + 16.0;
    let right = widest(&mut labels.iter().map(String::as_str)) + 16.0;
    let width = 520.0;
    let lines = run.bots.len() as f64;
    let x = |value: f64| left + (value - low) / (high - low).max(1.0) * width;
    let mut svg = format!(
        "<svg width=\"{}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">",
        (left + width + right).ceil(),
        row * lines + 30.0
    );
    let _ = write!(
        svg,
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"0\" y2=\"{1}\" stroke=\"#999\" stroke-dasharray=\"3\"/>",
        x(0.0),
        row * lines
    );
    for (line, bot) in run.bots.iter().enumerate() {
        let Some(rated) = &bot.rating else {
            continue;
        };
        let y = row * line as f64 + row / 2.0;
        let (name, shortened) = &names[line];
        let _ = write!(
            svg,
            "<text x=\"4\" y=\"{}\">{}{}</text>",
            y + 4.0,
            if *shortened {
                format!("<title>{}</title>", html_escape(&bot.name))
            } else {
                String::new()
            },
            html_escape(name)
        );
        if let Some(interval) = &rated.rating_interval {
            let _ = write!(
                svg,
                "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#36c\" stroke-width=\"3\"/>",
                x(interval.low),
                x(interval.high)
            );
        }
        let _ = write!(
            svg,
            "<circle cx=\"{}\" cy=\"{y}\" r=\"5\" fill=\"#124\"/><text x=\"{}\" y=\"{}\">{}</text>",
            x(rated.rating),
            left + width + 8.0,
            y + 4.0,
            html_escape(&labels[line]),
        );
    }
    // The axis' ends, each anchored inside the plot (the right one used to start 30 px before
    // the end and ran past it when long).
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\">{:.0}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0}</text></svg>",
        left,
        row * lines + 20.0,
        low,
        left + width,
        row * lines + 20.0,
        high
    );
    svg
}

/// A generous width of one character of the charts' 12 px sans-serif, in pixels: most glyphs
/// are 6-7 px, and a column a little too wide costs nothing where one too narrow clips.
const CHAR_WIDTH: f64 = 7.5;

/// Bot names longer than this are shortened in the ratings chart.
const NAME_CHARS: usize = 24;

/// The name as the chart shows it, and whether it was shortened.
fn short_name(name: &str) -> (String, bool) {
    if name.chars().count() <= NAME_CHARS {
        return (name.to_string(), false);
    }
    let mut short: String = name.chars().take(NAME_CHARS - 1).collect();
    short.push('…');
    (short, true)
}

/// The text right of a bot's line in the ratings chart: its rating and rank interval.
fn rating_label(bot: &BotRow) -> String {
    let rank = bot
        .rating
        .as_ref()
        .and_then(|rated| rated.rank_interval)
        .map_or(String::new(), |(a, b)| format!(" (rank {a}–{b})"));
    format!("{}{rank}", bot.text.rating)
}

fn histogram_svg(name: &str, histogram: &arena_stats::Histogram) -> String {
    let (width, height) = (260.0, 90.0);
    let most = histogram
        .bins
        .iter()
        .map(|b| b.count)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let bar = width / histogram.bins.len().max(1) as f64;
    let mut svg = format!(
        "<figure><svg width=\"{width}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"11\">",
        height + 16.0
    );
    for (i, bin) in histogram.bins.iter().enumerate() {
        let h = bin.count as f64 / most * height;
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#6a9\"><title>{}..{}: {}</title></rect>",
            i as f64 * bar,
            height - h,
            (bar - 1.0).max(1.0),
            bin.low,
            bin.high,
            bin.count
        );
    }
    let _ = write!(
        svg,
        "<text x=\"0\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></svg><figcaption>{}</figcaption></figure>",
        height + 13.0,
        histogram.min.map_or("-".into(), |v| format!("{v:.2}")),
        width,
        height + 13.0,
        histogram.max.map_or("-".into(), |v| format!("{v:.2}")),
        html_escape(name)
    );
    svg
}

const REPORT_CSS: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}td:nth-child(2){text-align:left}.heat td{text-align:center;min-width:70px}.none{background:#eee}.hists{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{text-align:center;font-size:13px}code{background:#f4f4f4;padding:1px 4px}";
