//! A tournament's output folder works as plain files: copied elsewhere and opened from disk in a real
//! headless browser, every replay link of `report.html` opens a working viewer (no server, no
//! arena), and a game whose replay was not stored says how to get it instead of a dead link.

#[path = "../../arena-viewer/tests/webdriver/mod.rs"]
mod webdriver;

use std::path::Path;
use std::process::{Command, Output};

use webdriver::{Driver, END};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "arena failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn a_copied_tournament_folder_opens_every_game_from_disk() {
    let Some((chromedriver, chromium)) = webdriver::browser() else {
        return;
    };
    let root = tempfile::tempdir().expect("temp dir");
    let made = root.path().join("made");
    let mut tournaments = Vec::new();
    for (name, args) in [
        ("lw2", &["langwars2", "--games", "8", "--seed", "21"][..]),
        (
            "spring",
            &["spring2021", "--games", "4", "--seed", "22"][..],
        ),
        ("coup", &["coup", "--games", "4", "--seed", "23"][..]),
    ] {
        let out = made.join(name);
        let mut all = vec!["tournament"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--replays", "all", "--out", out.to_str().expect("utf-8")]);
        succeeded(&arena(&all));
        tournaments.push(name);
    }
    // One more with the default: games between rule bots keep no replay file.
    let rebuilt = made.join("rebuilt");
    succeeded(&arena(&[
        "tournament",
        "langwars2",
        "--games",
        "4",
        "--bot",
        "random",
        "--bot",
        "spread",
        "--bot",
        "focus",
        "--bot",
        "greedy",
        "--out",
        rebuilt.to_str().expect("utf-8"),
    ]));
    let published = root.path().join("published");
    copy_dir(&made, &published);
    std::fs::remove_dir_all(&made).expect("the originals are gone");

    let driver = Driver::start(&chromedriver, &chromium);
    for name in tournaments {
        let report = published.join(name).join("report.html");
        driver.goto(&format!("file://{}", report.display()));
        let links = driver.eval(
            "return [...document.querySelectorAll('a')].map((a) => a.href).filter((h) => h.includes('viewer.html'))",
        );
        let links: Vec<String> = links
            .as_array()
            .expect("links")
            .iter()
            .map(|l| l.as_str().expect("href").to_string())
            .collect();
        let games = std::fs::read_to_string(published.join(name).join("results.jsonl"))
            .expect("journal")
            .lines()
            .count();
        assert_eq!(links.len(), games, "{name}: one viewer link per game");
        for link in links {
            driver.goto(&link);
            driver.wait_for("return !!window.arenaViewer && arenaViewer.count > 0");
            driver.press(END);
            let final_shown = driver.eval("return !document.getElementById('final').hidden");
            assert_eq!(final_shown, serde_json::json!(true), "{link}");
            let errors = driver.console_errors();
            assert!(errors.is_empty(), "{link}: console errors {errors:?}");
        }
    }
    // Without stored replays: no dead viewer link, the command that rebuilds the game instead.
    driver.goto(&format!(
        "file://{}",
        published.join("rebuilt/report.html").display()
    ));
    let text = driver.eval("return document.body.textContent");
    assert!(
        text.as_str()
            .unwrap_or_default()
            .contains("arena replay DIR 3")
    );
    let links = driver.eval(
        "return [...document.querySelectorAll('a')].filter((a) => a.href.includes('viewer.html')).length",
    );
    assert_eq!(links, serde_json::json!(0));
    // The viewer page says what is missing when a replay is not there.
    driver.goto(&format!(
        "file://{}?game=000002",
        published.join("rebuilt/viewer.html").display()
    ));
    driver.wait_for(
        "return document.getElementById('stage').textContent.includes('arena replay DIR 2')",
    );

    // One script holds the replays of a hundred games the report links (a file per game would
    // cost a file's creation per game).
    let scripts: Vec<String> = std::fs::read_dir(published.join("lw2/replays"))
        .expect("replays")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".js"))
        .collect();
    assert_eq!(scripts, ["bundle-000000.js"]);
    // Served by a plain static web server, a game no bundle holds opens from its `.json.gz`.
    std::fs::remove_file(published.join("lw2/replays/bundle-000000.js")).expect("the bundle");
    let server = StaticServer::start(&published);
    let before = driver.console_errors();
    assert!(
        before
            .iter()
            .all(|e| e.contains("rebuilt/replays/bundle-000000.js")),
        "console errors {before:?}"
    );
    driver.goto(&format!(
        "http://127.0.0.1:{}/lw2/viewer.html?game=000005",
        server.port
    ));
    driver.wait_for("return !!window.arenaViewer && arenaViewer.count > 0");
    driver.press(END);
    let final_shown = driver.eval("return !document.getElementById('final').hidden");
    assert_eq!(final_shown, serde_json::json!(true));
    let errors = driver.console_errors();
    assert!(
        errors.iter().all(|e| e.contains("bundle-000000.js")),
        "console errors {errors:?}"
    );
}

/// Python's `http.server` serving `dir` on a free port of 127.0.0.1 (what an organiser might use to
/// put a folder online; the test command installs Python). Stopped when dropped.
struct StaticServer {
    child: std::process::Child,
    port: u16,
}

impl StaticServer {
    fn start(dir: &Path) -> StaticServer {
        use std::io::BufRead;
        let mut child = Command::new("python3")
            .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
            .current_dir(dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 runs");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("python says where it serves");
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        let port = line
            .split_whitespace()
            .skip_while(|word| *word != "port")
            .nth(1)
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("python said {line:?}"));
        StaticServer { child, port }
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 31: a chart label of `report.html` was clipped (an unbounded rating's text past the
/// SVG's right edge). In a real browser every label of every chart lies inside its SVG, a bot
/// name ends before the plot starts, and a name too long for the chart is shortened with an
/// ellipsis and kept whole in a tooltip.
#[test]
fn every_chart_label_of_the_report_fits_its_chart() {
    let Some((chromedriver, chromium)) = webdriver::browser() else {
        return;
    };
    let root = tempfile::tempdir().expect("temp dir");
    let out = root.path().join("t");
    let long = "a_bot_with_a_remarkably_long_name_of_many_words";
    succeeded(&arena(&[
        "tournament",
        "langwars",
        "--bot",
        &format!("{long}=greedy"),
        "--bot",
        "spread",
        "--bot",
        "WWWWWWWWWWWWWWWWWWWWWWWW=focus",
        "--games",
        "24",
        "--seed",
        "3",
        "--out",
        out.to_str().expect("utf-8"),
    ]));
    let driver = Driver::start(&chromedriver, &chromium);
    driver.goto(&format!("file://{}", out.join("report.html").display()));
    let outside = driver.eval(
        "return [...document.querySelectorAll('svg text')].filter((t) => { \
           const b = t.getBBox(), s = t.ownerSVGElement; \
           return b.x < 0 || b.y < 0 || b.x + b.width > s.width.baseVal.value \
             || b.y + b.height > s.height.baseVal.value; \
         }).map((t) => t.textContent)",
    );
    assert_eq!(outside, serde_json::json!([]), "labels past their chart");
    let overlapping = driver.eval(
        "const svg = document.querySelector('svg'); \
         const plot = Math.min(...[...svg.querySelectorAll('circle')].map((c) => c.cx.baseVal.value - 5)); \
         return [...svg.querySelectorAll('text[x=\"4\"]')] \
           .filter((t) => { const b = t.getBBox(); return b.x + b.width > plot; }) \
           .map((t) => t.textContent)",
    );
    assert_eq!(overlapping, serde_json::json!([]), "names over the plot");
    let titles = driver.eval(
        "return [...document.querySelector('svg').querySelectorAll('text > title')].map((t) => t.textContent)",
    );
    assert_eq!(titles, serde_json::json!([long]));
}
