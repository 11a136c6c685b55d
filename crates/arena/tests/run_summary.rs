//! One run, four views, one set of statistics: the terminal's leaderboard, `summary.json`,
//! `report.html` and `arena serve` show every bot's intervals, ratings and the SPRT verdict with
//! the same strings, to the last digit; and the server, computing a summary itself while the run
//! has written none, computes the very same one.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn run(args: &[&str]) -> Output {
    let output = Command::new(ARENA).args(args).output().expect("arena runs");
    assert!(
        output.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

fn path_text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("file")).expect("JSON")
}

/// `arena serve --dir DIR` on a free port, killed on drop.
struct Served {
    child: Child,
    addr: String,
}

impl Served {
    fn start(dir: &Path) -> Served {
        let mut child = Command::new(ARENA)
            .args(["serve", "--dir", path_text(dir), "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut first)
            .expect("the URL line");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .expect("an address")
            .to_string();
        Served { child, addr }
    }

    /// One HTTP/1.0 GET: the body of a 200 answer.
    fn get(&self, path: &str) -> String {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        write!(stream, "GET {path} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).expect("request");
        let mut response = Vec::new();
        stream.read_to_end(&mut response).expect("response");
        let split = response
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("headers end");
        let head = text(&response[..split]);
        assert!(
            head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
            "{path}: {head}"
        );
        text(&response[split + 4..])
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of an HTML fragment: tags dropped, the entities the pages write decoded.
fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The cells (as text) of the first table row of `html` after `heading` whose second cell is
/// `name`: a leaderboard row.
fn leaderboard_row(html: &str, heading: &str, name: &str) -> Vec<String> {
    let start = html
        .find(heading)
        .unwrap_or_else(|| panic!("{heading} in the page"));
    let table = &html[start..];
    let table = &table[..table.find("</table>").expect("table end")];
    table
        .split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| html_text(&format!("<td{}", cell.split("</td>").next().unwrap_or(""))))
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.get(1).is_some_and(|cell| cell == name))
        .unwrap_or_else(|| panic!("a row of {name} under {heading}"))
}

/// The terminal's leaderboard line of `name` (`place name games W-D-L ...`).
fn terminal_row<'a>(stdout: &'a str, place: u64, name: &str) -> &'a str {
    stdout
        .lines()
        .find(|line| {
            let mut words = line.split_whitespace();
            words.next() == Some(&place.to_string()) && words.next() == Some(name)
        })
        .unwrap_or_else(|| panic!("the terminal line of {name}:\n{stdout}"))
}

/// The texts `format` must give for a bot's raw figures in `stats`: the views' strings are
/// checked against the numbers, not only against each other.
fn expected_rate(interval: &Value) -> String {
    let number = |key: &str| 100.0 * interval[key].as_f64().expect("number");
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        number("estimate"),
        number("low"),
        number("high")
    )
}

fn expected_mean(interval: &Value) -> String {
    let number = |key: &str| interval[key].as_f64().expect("number");
    format!(
        "{:.2} ± {:.2}",
        number("estimate"),
        (number("high") - number("low")) / 2.0
    )
}

/// Every bot's row is the same in the four views, and says what the raw statistics say.
fn check_views(dir: &Path, stdout: &str) -> Value {
    let summary = read_json(&dir.join("summary.json"));
    let run = &summary["run"];
    let stats = &summary["stats"];
    let report = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    let served = Served::start(dir);
    let page = served.get("/t/0");
    let api: Value = serde_json::from_str(&served.get("/api/summary/0")).expect("JSON");
    // The server shows the run's own summary, not one of its own making.
    assert_eq!(api["source"], "saved");
    assert_eq!(api["run"], *run);

    let bots = run["bots"].as_array().expect("bots");
    assert_eq!(bots.len(), stats["bots"].as_array().expect("bots").len());
    for bot in bots {
        let name = bot["name"].as_str().expect("name");
        let index = bot["bot"].as_u64().expect("index") as usize;
        let raw = &stats["summaries"][index];
        let texts = &bot["text"];
        let field = |key: &str| texts[key].as_str().expect("text").to_string();
        // The strings are the figures of stats, formatted as documented.
        assert_eq!(
            field("score_rate"),
            expected_rate(&raw["score_rate"]),
            "{name}"
        );
        assert_eq!(field("mean_score"), expected_mean(&raw["score"]), "{name}");
        let fit = &stats["global_fit"]["bots"][index];
        assert_eq!(bot["rating"], *fit, "{name}: the fit's rating");
        if fit["unbounded"].is_null() {
            let interval = &fit["rating_interval"];
            assert_eq!(
                field("rating"),
                format!(
                    "{:+.0} [{:+.0}, {:+.0}]",
                    fit["rating"].as_f64().expect("rating"),
                    interval["low"].as_f64().expect("low"),
                    interval["high"].as_f64().expect("high")
                ),
                "{name}"
            );
        }

        // The terminal prints them.
        let place = bot["place"].as_u64().expect("place");
        let line = terminal_row(stdout, place, name);
        for key in ["score_rate", "mean_score", "rating", "faults"] {
            assert!(
                line.contains(&format!(" {} ", field(key))) || line.ends_with(&field(key)),
                "terminal, {name}, {key}: `{}` not in\n{line}",
                field(key)
            );
        }

        // report.html and the server's page have the same leaderboard row, cell for cell:
        // place, bot, games, W, D, L, score, mean score, mean rank, rating, TrueSkill, Weng-Lin,
        // 2014 Elo, faults.
        let in_report = leaderboard_row(&report, "<h2>Leaderboard</h2>", name);
        let on_page = leaderboard_row(&page, "<h2>Leaderboard</h2>", name);
        assert_eq!(
            in_report, on_page,
            "{name}: report.html against arena serve"
        );
        let wanted: Vec<String> = [
            place.to_string(),
            name.to_string(),
            bot["games"].to_string(),
            bot["wins"].to_string(),
            bot["draws"].to_string(),
            bot["losses"].to_string(),
        ]
        .into_iter()
        .chain(
            [
                "score_rate",
                "mean_score",
                "mean_rank",
                "rating",
                "trueskill",
                "weng_lin",
                "elo_2014",
                "faults",
            ]
            .map(field),
        )
        .collect();
        assert_eq!(
            in_report, wanted,
            "{name}: report.html against summary.json"
        );
    }

    // The pairwise cells: the terminal's table, report.html and the page.
    for (row, cells) in bots
        .iter()
        .zip(run["pairwise"].as_array().expect("pairwise"))
    {
        let name = row["name"].as_str().expect("name");
        let line = terminal_row(
            stdout
                .split("row's score against column")
                .nth(1)
                .expect("pairwise table"),
            row["place"].as_u64().expect("place"),
            name,
        );
        for cell in cells
            .as_array()
            .expect("cells")
            .iter()
            .filter(|c| !c.is_null())
        {
            let cell_text = cell["text"].as_str().expect("text");
            assert!(
                line.contains(&format!(" {cell_text}")),
                "terminal pairwise {name}: {cell_text} in {line}"
            );
            assert!(
                report.contains(&format!(">{cell_text}<br>")),
                "report.html pairwise: {cell_text}"
            );
            assert!(
                page.contains(&format!(">{cell_text}<span")),
                "serve pairwise: {cell_text}"
            );
        }
    }

    // Rating model, units and the SPRT: one text everywhere.
    let rating_note = run["rating_note"].as_str().expect("note");
    assert!(stdout.contains(rating_note), "terminal: {rating_note}");
    assert!(
        html_text(&report).contains(rating_note),
        "report.html: {rating_note}"
    );
    assert!(
        html_text(&page).contains(rating_note),
        "serve: {rating_note}"
    );
    if let Some(sprt) = run["sprt"].as_object() {
        let statement = sprt["text"].as_str().expect("text");
        assert!(stdout.contains(statement), "terminal: {statement}");
        for line in statement.lines() {
            let line = format!("<p class=\"sprt\">{}</p>", line.trim_start());
            assert!(report.contains(&line), "report.html: {line}");
            assert!(page.contains(&line), "serve: {line}");
        }
    }
    summary
}

#[test]
fn every_view_shows_the_same_statistics() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    let output = run(&[
        "tournament",
        "langwars",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--bot",
        "spread",
        "--bot",
        "focus",
        "--games",
        "40",
        "--seed",
        "1",
        "--out",
        path_text(&dir),
    ]);
    let stdout = text(&output.stdout);
    let summary = check_views(&dir, &stdout);
    assert!(summary["run"]["sprt"].is_null());
    assert_eq!(summary["run"]["games"], 40);

    // A summary.json from before the run summary existed (or a run still going): the server
    // computes the summary from the journal, and by the same function, so to the same bits.
    let mut old = summary.clone();
    old.as_object_mut().expect("object").remove("run");
    std::fs::write(dir.join("summary.json"), old.to_string()).expect("write");
    let served = Served::start(&dir);
    let api: Value = serde_json::from_str(&served.get("/api/summary/0")).expect("JSON");
    assert_eq!(api["source"], "computed");
    assert_eq!(api["run"], summary["run"]);
    assert!(
        served
            .get("/t/0")
            .contains("Computed now from the 40 games")
    );
}

#[test]
fn the_sprt_verdict_is_the_same_in_every_view() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    let output = run(&[
        "tournament",
        "langwars",
        "--bot",
        "greedy",
        "--bot",
        "spread",
        "--sprt",
        "0",
        "50",
        "--games",
        "400",
        "--seed",
        "5",
        "--out",
        path_text(&dir),
    ]);
    let stdout = text(&output.stdout);
    let summary = check_views(&dir, &stdout);
    let sprt = &summary["run"]["sprt"];
    assert_eq!(sprt["verdict"], "accept_h1");
    assert_eq!(sprt["decided"], true);
    assert_eq!(summary["stats"]["sprt"]["decision"]["verdict"], "accept_h1");
    assert!(
        stdout.contains("H1 accepted: greedy is stronger than spread"),
        "{stdout}"
    );

    // Issue 31: the report's header said "34 rounds" for a run the SPRT stopped after about a
    // hundred of its 408 games, and the SPRT paragraph ran its clauses together with colons.
    let report = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    let games = summary["run"]["games"].as_u64().expect("games");
    assert!(games < 408, "the SPRT stopped the run early: {games} games");
    let header = format!(
        "{games} of 408 planned games (34 rounds): the SPRT decided after {games} games and stopped the run"
    );
    assert!(report.contains(&header), "report.html header: {header}");
    assert!(
        !report.contains("34 rounds ·"),
        "the header counts games played"
    );
    let paragraphs: Vec<&str> = report
        .split("<p class=\"sprt\">")
        .skip(1)
        .map(|rest| rest.split("</p>").next().expect("a paragraph"))
        .collect();
    assert!(paragraphs.len() >= 2, "{paragraphs:?}");
    for paragraph in &paragraphs {
        assert!(
            paragraph.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
                && paragraph.ends_with('.'),
            "a paragraph of whole sentences: {paragraph}"
        );
    }
    assert!(
        paragraphs[0].ends_with(
            "(elo0 0, elo1 50, alpha 0.05, beta 0.05). H1 accepted: greedy is stronger than spread by about elo1 or more."
        ),
        "{}",
        paragraphs[0]
    );
    assert!(
        paragraphs[1].starts_with("After ") && paragraphs[1].contains("the LLR is "),
        "{}",
        paragraphs[1]
    );
}

/// Issue 31: a bot that wins every game has a rating unbounded above, the loser one unbounded
/// below; their bounds read `≥-21` and `≤+21` at 10–0. The winner's is a lower bound above the
/// loser's upper bound, and every view shows the same text.
#[test]
fn a_clean_sweep_bounds_the_winner_from_below_and_the_loser_from_above() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    let output = run(&[
        "tournament",
        "langwars",
        "--bot",
        "planner=greedy",
        "--bot",
        "spread",
        "--games",
        "10",
        "--seed",
        "1",
        "--out",
        path_text(&dir),
    ]);
    let stdout = text(&output.stdout);
    let summary = check_views(&dir, &stdout);
    let bots = summary["run"]["bots"].as_array().expect("bots");
    let rating = |name: &str| {
        let bot = bots.iter().find(|b| b["name"] == name).expect(name);
        assert_eq!(
            bot["losses"].as_u64().map(|l| l == 0),
            Some(name == "planner")
        );
        bot["text"]["rating"].as_str().expect("text").to_string()
    };
    let bound = |text: &str, sign: &str| -> f64 {
        let number = text
            .strip_prefix(sign)
            .and_then(|rest| rest.strip_suffix(" (unbounded)"))
            .unwrap_or_else(|| panic!("{sign}N (unbounded): {text}"));
        number.parse().expect("a number")
    };
    let (winner, loser) = (rating("planner"), rating("spread"));
    let (low, high) = (bound(&winner, "≥"), bound(&loser, "≤"));
    assert!(
        low > 0.0 && high < 0.0 && low > high,
        "{winner} against {loser}"
    );
}
