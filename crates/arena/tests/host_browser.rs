//! The contest server in headless Chromium, as people use it: the organiser's contest file, two
//! contestants who sign in on the page and upload bots (one that fails to build, with its build
//! log shown), games run, the leaderboard fills, a game opens in the viewer, and a contestant
//! cannot read the other's code or stderr.

#[path = "../../arena-viewer/tests/webdriver/mod.rs"]
mod webdriver;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webdriver::Driver;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const ORG: &str = "organiser-token-0123456789";
const ALICE: &str = "alice-token-0123456789ab";
const BOB: &str = "bob-token-0123456789abcd";

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(dir: &Path) -> (Server, String) {
    let mut child = Command::new(ARENA)
        .args(["host", "contest.toml", "--listen", "127.0.0.1:0"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena host starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("address");
    let url = line
        .trim()
        .strip_prefix("arena host: ")
        .expect("the address line")
        .trim_end_matches('/')
        .to_string();
    (Server(child), url)
}

/// Polls `script` (JavaScript returning a boolean) until it is true, for at most two minutes
/// (games with Python bots run meanwhile).
fn wait_until(driver: &Driver, script: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while driver.eval(script) != Value::Bool(true) {
        assert!(Instant::now() < deadline, "timed out waiting for {script}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn sign_in(driver: &Driver, token: &str) {
    driver.eval(&format!(
        "document.getElementById('signout').click(); \
         document.getElementById('token').value = {}; \
         document.querySelector('#signin-form button').click(); return true;",
        json!(token)
    ));
    wait_until(
        driver,
        "return !document.getElementById('app').classList.contains('hidden')",
    );
}

fn upload(driver: &Driver, file: &Path) {
    let element = driver.call(
        "POST",
        "/element",
        Some(json!({"using": "css selector", "value": "#file"})),
    );
    let id = element
        .as_object()
        .and_then(|o| o.values().next())
        .and_then(Value::as_str)
        .expect("the file input")
        .to_string();
    driver.call(
        "POST",
        &format!("/element/{id}/value"),
        Some(json!({"text": file.display().to_string()})),
    );
    driver.eval("document.querySelector('#upload-form button').click(); return true;");
}

/// A synchronous request from the page, with the signed-in token: (status, text).
fn fetch(driver: &Driver, path: &str) -> (u64, String) {
    let result = driver.eval(&format!(
        "const x = new XMLHttpRequest(); x.open('GET', {}, false); \
         x.setRequestHeader('Authorization', 'Bearer ' + localStorage.getItem('arena_token')); \
         x.send(); return [x.status, x.responseText];",
        json!(path)
    ));
    (
        result[0].as_u64().expect("status"),
        result[1].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn contestants_submit_play_and_watch_in_the_browser_and_see_only_their_own_stderr() {
    let Some((chromedriver, chromium)) = webdriver::browser() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("contest.toml"),
        format!(
            r#"
name = "Browser cup"
game = "spring2021"
format = "ladder"
workers = 2
time_scale = 50.0

[ladder]
placement_games = 2
max_games = 6

[[leagues]]
name = "bronze"

[[organisers]]
name = "org"
token = "{ORG}"

[[contestants]]
name = "alice"
token = "{ALICE}"

[[contestants]]
name = "bob"
token = "{BOB}"

[[bots]]
name = "house"
bot = "builtin:planner@50"
"#
        ),
    )
    .expect("contest file");
    let starter = include_str!("../../arena-spring2021/starters/bot.py");
    let with_secret = |secret: &str| {
        format!("import sys\nsys.stderr.write('{secret}\\n')\nsys.stderr.flush()\n{starter}")
    };
    let alice_bot = dir.path().join("alice.py");
    std::fs::write(&alice_bot, with_secret("alice-secret-stderr")).expect("bot");
    let bob_broken = dir.path().join("broken.cpp");
    std::fs::write(&bob_broken, "int main() { this does not compile; }").expect("bot");
    let bob_bot = dir.path().join("bob.py");
    std::fs::write(&bob_bot, with_secret("bob-secret-stderr")).expect("bot");

    let (_server, url) = start(dir.path());
    let driver = Driver::start(&chromedriver, &chromium);
    driver.goto(&format!("{url}/"));
    wait_until(
        &driver,
        "return document.getElementById('title').textContent === 'Browser cup'",
    );

    // Bob: a bot that does not build, its compiler's output on the page; then one that does.
    sign_in(&driver, BOB);
    upload(&driver, &bob_broken);
    wait_until(
        &driver,
        "return [...document.querySelectorAll('#submissions tbody tr')].some((tr) => \
         tr.textContent.includes('broken.cpp') && tr.textContent.includes('failed') && \
         tr.querySelector('pre') && tr.querySelector('pre').textContent.includes('error'))",
    );
    upload(&driver, &bob_bot);
    wait_until(
        &driver,
        "return [...document.querySelectorAll('#submissions tbody tr')].some((tr) => \
         tr.textContent.includes('bob.py') && tr.textContent.includes('ready'))",
    );
    let bob_id = driver.eval(
        "return Number([...document.querySelectorAll('#submissions tbody tr')] \
         .find((tr) => tr.textContent.includes('bob.py')).dataset.id)",
    );

    // Alice: her bot builds, games run, the leaderboard fills.
    sign_in(&driver, ALICE);
    upload(&driver, &alice_bot);
    wait_until(
        &driver,
        "return [...document.querySelectorAll('#submissions tbody tr')].some((tr) => \
         tr.textContent.includes('alice.py') && tr.textContent.includes('ready'))",
    );
    wait_until(
        &driver,
        "return [...document.querySelectorAll('#leaderboard tr')].some((tr) => \
         tr.textContent.includes('alice') && Number(tr.lastChild.textContent) >= 2)",
    );
    let names =
        driver.eval("return [...document.querySelectorAll('#submissions tbody tr')].length");
    assert_eq!(names, json!(1), "Alice lists only her own submission");

    // Bob's code and build logs are not hers to read.
    let (status, _) = fetch(&driver, &format!("/api/submissions/{bob_id}/source"));
    assert_eq!(status, 404);
    let (status, _) = fetch(&driver, &format!("/api/submissions/{bob_id}"));
    assert_eq!(status, 404);

    // A game between Alice and Bob opens in the viewer, with her stderr and not his.
    wait_until(
        &driver,
        "return [...document.querySelectorAll('#games tbody tr')].some((tr) => \
         tr.textContent.includes('alice') && tr.textContent.includes('bob') && tr.querySelector('a'))",
    );
    let link = driver.eval(
        "return [...document.querySelectorAll('#games tbody tr')].find((tr) => \
         tr.textContent.includes('alice') && tr.textContent.includes('bob') && tr.querySelector('a')) \
         .querySelector('a').href",
    );
    let link = link.as_str().expect("a viewer link").to_string();
    // The refused requests above are in the console; the viewer's page must add none.
    let _ = driver.console_errors();
    driver.goto(&link);
    driver.wait_for("return !!window.arenaViewer && arenaViewer.count > 0");
    let page = driver.eval("return document.documentElement.outerHTML");
    let page = page.as_str().expect("html");
    assert!(
        page.contains("alice-secret-stderr"),
        "her own stderr is in her replay"
    );
    assert!(!page.contains("bob-secret-stderr"), "his stderr is not");
    let errors = driver.console_errors();
    assert!(errors.is_empty(), "console errors {errors:?}");
    if let Some(shots) = std::env::var_os("ARENA_HOST_SCREENSHOTS") {
        driver.screenshot(&Path::new(&shots).join("viewer.png"));
        driver.goto(&format!("{url}/"));
        wait_until(
            &driver,
            "return document.querySelectorAll('#games tbody tr').length > 0",
        );
        driver.screenshot(&Path::new(&shots).join("page.png"));
    }
}
