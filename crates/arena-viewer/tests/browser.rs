//! The viewer in a real headless browser: Debian's `chromium` driven through `chromidriver`
//! (package `chromium-driver`) over the W3C WebDriver protocol, spoken here with a few lines of HTTP.
//!
//! For each of the five games' fixtures: the page loads with no console error, stepping forward with
//! the keyboard changes what is drawn, the last position shows the recorded final scores, and
//! screenshots are saved under `target/viewer-screenshots/`. The exported page is checked from a
//! `file://` URL as well (no server).
//!
//! Without a browser the test says so and passes, except under CI (`CI` set), where `scripts/test`
//! installs it and a missing browser is a failure.

mod common;
mod webdriver;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use webdriver::{Driver, END, HOME, RIGHT};

fn screenshot_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR is TARGET/tmp: keep the screenshots next to it, where CI keeps artefacts.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map(|target| target.join("viewer-screenshots"))
        .unwrap_or_else(|| PathBuf::from("viewer-screenshots"));
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    dir
}

fn score_text(score: &Value) -> String {
    match score {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// One viewer page: loads, steps, ends on the recorded scores, no console error.
fn check_viewer(driver: &Driver, url: &str, game: &str, shots: &Path, tag: &str) {
    driver.goto(url);
    driver.wait_for("return !!window.arenaViewer");
    assert_eq!(
        driver.eval("return arenaViewer.position()"),
        json!(0),
        "{game}: starts at the first position"
    );
    let drawn = "return document.getElementById('stage').innerHTML + document.getElementById('side').innerHTML";
    let before = driver.eval(drawn);
    driver.press(RIGHT);
    assert_eq!(
        driver.eval("return arenaViewer.position()"),
        json!(1),
        "{game}: → steps"
    );
    assert_eq!(
        driver.eval("return location.hash"),
        json!("#turn=2"),
        "{game}: the URL links to the position"
    );
    let after = driver.eval(drawn);
    assert_ne!(
        before, after,
        "{game}: stepping forward changes the drawing"
    );
    driver.press(RIGHT);
    driver.press(RIGHT);
    driver.screenshot(&shots.join(format!("{tag}-early.png")));
    // Every option of the renderer redraws without error.
    driver
        .eval("document.querySelectorAll('.toggles input').forEach((b) => b.click()); return true");
    driver
        .eval("document.querySelectorAll('.toggles input').forEach((b) => b.click()); return true");

    driver.press(END);
    let count = driver.eval("return arenaViewer.count");
    let last = count.as_u64().expect("count") - 1;
    assert_eq!(
        driver.eval("return arenaViewer.position()"),
        json!(last),
        "{game}: End goes to the last position"
    );
    let record: Value = serde_json::from_str(&common::fixture(game)).expect("json");
    let expected: Vec<String> = record["outcome"]["scores"]
        .as_array()
        .expect("scores")
        .iter()
        .map(score_text)
        .collect();
    let shown = driver.eval(
        "if (document.getElementById('final').hidden) return null; \
         return [...document.querySelectorAll('[data-final-score]')].map((e) => e.textContent)",
    );
    assert_eq!(
        shown,
        json!(expected),
        "{game}: the last position shows the recorded final scores"
    );
    driver.screenshot(&shots.join(format!("{tag}.png")));
    // u64 seeds survive the trip through JavaScript.
    let seed = record["seed"]
        .as_str()
        .map_or_else(|| record["seed"].to_string(), str::to_string);
    assert_eq!(
        driver.eval(&format!(
            "return document.getElementById('subtitle').textContent.includes('seed {seed} ')"
        )),
        json!(true),
        "{game}: the seed is shown exactly"
    );

    // Home, then a link to a given position.
    driver.press(HOME);
    assert_eq!(driver.eval("return arenaViewer.position()"), json!(0));
    driver.goto(&format!("{url}#turn=3"));
    driver.wait_for("return !!window.arenaViewer && arenaViewer.position() === 2");

    let errors = driver.console_errors();
    assert!(errors.is_empty(), "{game}: console errors: {errors:?}");
}

#[test]
fn viewer_pages_in_a_headless_browser() {
    let Some((chromedriver, chromium)) = webdriver::browser() else {
        return;
    };

    let dir = tempfile::tempdir().expect("tempdir");
    common::tournament_tree(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime
        .block_on(arena_viewer::Server::bind(arena_viewer::ServeOptions {
            games: common::games(),
            dirs: vec![dir.path().to_path_buf()],
            files: Vec::new(),
            port: 0,
            ..Default::default()
        }))
        .expect("bind");
    let base = server.url();
    runtime.spawn(server.run());

    let shots = screenshot_dir();
    let driver = Driver::start(&chromedriver, &chromium);

    // The console check itself: an error on a page must be seen.
    driver.goto("data:text/html,<script>console.error('probe-error')</script>");
    let probe = driver.console_errors();
    assert!(
        probe.iter().any(|m| m.contains("probe-error")),
        "console errors are not collected: {probe:?}"
    );

    // The front page and a tournament page.
    driver.goto(&base);
    driver.screenshot(&shots.join("index.png"));
    driver.goto(&format!("{base}t/0/lw"));
    assert_eq!(
        driver.eval("return document.querySelectorAll('table.board tbody tr').length"),
        json!(6),
        "one leaderboard row per bot"
    );
    driver.screenshot(&shots.join("tournament.png"));
    let errors = driver.console_errors();
    assert!(
        errors.is_empty(),
        "server pages: console errors: {errors:?}"
    );

    let pages = [
        ("langwars", "g/0/lw/replays/000000.json.gz"),
        ("langwars2", "g/0/lw/replays/000001.json.gz"),
        ("negotiate", "g/0/lw/replays/000002.json.gz"),
        ("spring2021", "g/0/duels/replays/spring.json"),
        ("coup", "g/0/duels/replays/coup.json.gz"),
    ];
    for (game, path) in pages {
        check_viewer(&driver, &format!("{base}{path}"), game, &shots, game);
    }

    // The exported page, opened from disk.
    for game in ["negotiate", "coup"] {
        let page =
            arena_viewer::export_html(&common::fixture(game), &common::games()).expect("export");
        let file = dir.path().join(format!("{game}.html"));
        std::fs::write(&file, page).expect("write");
        check_viewer(
            &driver,
            &format!("file://{}", file.display()),
            game,
            &shots,
            &format!("{game}-exported"),
        );
    }
    rare_events(&driver, dir.path(), &shots);
    drop(driver);
    runtime.shutdown_background();
}

/// Events the committed games do not have (an illegal action, a deactivation, a forfeit), written into
/// copies of the fixtures: the viewer must show them, without console errors.
fn rare_events(driver: &Driver, dir: &Path, shots: &Path) {
    let mut spring: Value = serde_json::from_str(&common::fixture("spring2021")).expect("json");
    let frames = spring["frames"].as_array_mut().expect("frames");
    let at = frames
        .iter()
        .position(|f| f["kind"] == "actions")
        .expect("an actions frame");
    frames[at]["illegal"] = json!([[0, "cell 26 is a hole"]]);
    frames[at]["deactivated"] = json!([[1, "timeout: no answer within 100 ms"]]);
    for frame in &mut frames[at..] {
        frame["active"] = json!([true, false]);
    }
    let file = dir.join("spring-events.html");
    std::fs::write(
        &file,
        arena_viewer::export_html(&spring.to_string(), &common::games()).expect("export"),
    )
    .expect("write");
    driver.goto(&format!("file://{}#turn={}", file.display(), at + 1));
    driver.wait_for("return !!window.arenaViewer");
    let side = driver.eval("return document.getElementById('side').textContent");
    let side = side.as_str().unwrap_or_default();
    assert!(side.contains("illegal: cell 26 is a hole"), "{side}");
    assert!(side.contains("deactivated: timeout"), "{side}");
    driver.screenshot(&shots.join("spring2021-events.png"));
    driver.press(RIGHT);
    let side = driver.eval("return document.getElementById('side').textContent");
    assert!(
        side.as_str().unwrap_or_default().contains("deactivated"),
        "a deactivated player stays marked"
    );

    let mut coup: Value = serde_json::from_str(&common::fixture("coup")).expect("json");
    let frames = coup["frames"].as_array_mut().expect("frames");
    let last = frames.len() - 1;
    frames[last]["event"] = json!({"kind": "forfeit", "reason": "the history file was modified"});
    frames[last]["wrote"] = json!("");
    let file = dir.join("coup-events.html");
    std::fs::write(
        &file,
        arena_viewer::export_html(&coup.to_string(), &common::games()).expect("export"),
    )
    .expect("write");
    driver.goto(&format!("file://{}", file.display()));
    driver.wait_for("return !!window.arenaViewer");
    driver.press(END);
    let stage = driver.eval("return document.getElementById('stage').textContent");
    assert!(
        stage
            .as_str()
            .unwrap_or_default()
            .contains("forfeits: the history file was modified"),
        "{stage}"
    );
    driver.screenshot(&shots.join("coup-forfeit.png"));

    // A process bot's call is shown as its arguments, the text it appended and its stdout, not as
    // the record's JSON encoding of them.
    let mut coup: Value = serde_json::from_str(&common::fixture("coup")).expect("json");
    let first_call = coup["frames"][0]["call"].as_u64().expect("call") as usize;
    coup["steps"][first_call]["input"] = json!(r#"["1", "1", "^~", "I\n", "F"]"#);
    coup["steps"][first_call]["output"] = json!(r#"{"wrote":"I\n","stdout":"thinking"}"#);
    let file = dir.join("coup-io.html");
    std::fs::write(
        &file,
        arena_viewer::export_html(&coup.to_string(), &common::games()).expect("export"),
    )
    .expect("write");
    driver.goto(&format!("file://{}", file.display()));
    driver.wait_for("return !!window.arenaViewer");
    driver.eval("document.querySelector('#io details').open = true; return true");
    let io = driver.eval("return document.getElementById('io').textContent");
    let io = io.as_str().unwrap_or_default();
    assert!(io.contains("appended to the history I⏎"), "{io}");
    assert!(io.contains("arguments 1 1 ^~ I⏎"), "{io}");
    assert!(io.contains("stdout thinking"), "{io}");
    assert!(!io.contains("{\"wrote\""), "no JSON encoding: {io}");

    // The Lang Wars score box: the 'if scored now' estimate is labelled so, and gone at the end
    // where only the final scores stand.
    let file = dir.join("langwars2-last.html");
    std::fs::write(
        &file,
        arena_viewer::export_html(&common::fixture("langwars2"), &common::games()).expect("export"),
    )
    .expect("write");
    driver.goto(&format!("file://{}", file.display()));
    driver.wait_for("return !!window.arenaViewer");
    let side = driver.eval("return document.getElementById('side').textContent");
    assert!(
        side.as_str()
            .unwrap_or_default()
            .contains("if scored now (estimate)"),
        "{side}"
    );
    driver.press(END);
    let side = driver.eval("return document.getElementById('side').textContent");
    assert!(
        !side.as_str().unwrap_or_default().contains("if scored now"),
        "no estimate beside the final scores: {side}"
    );

    // stderr per answer: each of the slow bot's answers carries its `turn N: thinking` (as arena
    // writes it now), shown beside the board at the position of that answer.
    let mut langwars: Value = serde_json::from_str(&common::fixture("langwars")).expect("json");
    langwars["players"][2]
        .as_object_mut()
        .expect("player")
        .remove("stderr");
    let mut answer = 0;
    for step in langwars["steps"].as_array_mut().expect("steps") {
        if step["player"] == 2 {
            answer += 1;
            step["stderr"] = json!(format!("turn {answer}: thinking\n"));
        }
    }
    let file = dir.join("langwars-stderr.html");
    std::fs::write(
        &file,
        arena_viewer::export_html(&langwars.to_string(), &common::games()).expect("export"),
    )
    .expect("write");
    driver.goto(&format!("file://{}", file.display()));
    driver.wait_for("return !!window.arenaViewer");
    let shown = driver.eval(
        "const texts = []; \
         for (let i = 0; i < arenaViewer.count; i++) { \
           arenaViewer.go(i); \
           const box = document.getElementById('step-stderr'); \
           texts.push(box ? box.textContent : ''); \
         } \
         return texts",
    );
    let shown: Vec<String> = serde_json::from_value(shown).expect("texts");
    for n in 1..=answer {
        let line = format!("turn {n}: thinking");
        let at: Vec<usize> = (0..shown.len())
            .filter(|&i| shown[i].contains(&line))
            .collect();
        assert_eq!(at.len(), 1, "{line} at one position: {shown:?}");
        assert!(shown[at[0]].contains("slow · stderr"), "{shown:?}");
    }
    driver.goto(&format!("file://{}#turn=2", file.display()));
    driver.wait_for("return !!window.arenaViewer && arenaViewer.position() === 1");
    driver.screenshot(&shots.join("langwars-step-stderr.png"));

    let errors = driver.console_errors();
    assert!(errors.is_empty(), "rare events: console errors: {errors:?}");
}
