//! The contest site in headless Chromium, walked as two contestants and an organiser use it:
//! registering, uploading (one build fails, its log on the page), reading a build log while the
//! page updates live, promotion past a league's boss, a scrimmage, a player page with its rating
//! chart, a game in the viewer and back, token rotation, and the organiser disabling an account.
//! A contestant never reads the other's code or stderr; no page logs a console error (a blocked
//! script or style would); the pages fit a phone's width. A screenshot of each page is kept in
//! `CARGO_TARGET_TMPDIR/site-screenshots` (and in `$ARENA_HOST_SCREENSHOTS` when set).

#[path = "../../arena-viewer/tests/webdriver/mod.rs"]
mod webdriver;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webdriver::Driver;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const ORG: &str = "organiser-token-0123456789abcdef";
const BOB: &str = "bob-token-0123456789abcdef012345";
const WAITER: &str = "waiter-token-0123456789abcdef01";

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

/// Polls `script` (JavaScript returning a boolean) until it is true, for at most three minutes
/// (games with Python bots run meanwhile, on a machine that may be loaded).
fn wait_until(driver: &Driver, script: &str) {
    let deadline = Instant::now() + Duration::from_secs(180);
    while driver.eval(script) != Value::Bool(true) {
        if Instant::now() > deadline {
            // What the page showed, for whoever reads the failure.
            let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("site-timeout.png");
            driver.screenshot(&shot);
            panic!(
                "timed out waiting for {script} (the page: {})",
                shot.display()
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Reloads the page until `script` is true (for pages without a live part to wait on).
fn reload_until(driver: &Driver, url: &str, script: &str) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        driver.goto(url);
        if driver.eval(script) == Value::Bool(true) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {script} on {url}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Screenshots kept as the test's artefacts.
struct Shots {
    dirs: Vec<PathBuf>,
}

impl Shots {
    fn new() -> Shots {
        let mut dirs = vec![PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("site-screenshots")];
        if let Some(extra) = std::env::var_os("ARENA_HOST_SCREENSHOTS") {
            dirs.push(PathBuf::from(extra));
        }
        for dir in &dirs {
            std::fs::create_dir_all(dir).expect("screenshot folder");
        }
        Shots { dirs }
    }
    fn take(&self, driver: &Driver, name: &str) {
        for dir in &self.dirs {
            driver.screenshot(&dir.join(format!("{name}.png")));
        }
    }
}

fn click(driver: &Driver, selector: &str) {
    driver.eval(&format!(
        "document.querySelector({}).click(); return true;",
        json!(selector)
    ));
}

fn sign_in(driver: &Driver, url: &str, token: &str) {
    driver.goto(&format!("{url}/signin"));
    driver.eval(&format!(
        "document.getElementById('token').value = {}; \
         document.querySelector('form[action=\"/signin\"]').submit(); return true;",
        json!(token)
    ));
    wait_until(
        driver,
        "return location.pathname === '/' && !!document.getElementById('board')",
    );
}

fn sign_out(driver: &Driver, url: &str) {
    driver.goto(&format!("{url}/account"));
    click(driver, "#signout");
    wait_until(driver, "return location.pathname === '/signin'");
}

/// Uploads `file` with the page's form and waits for the submission's page.
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
    click(driver, "form.upload button");
    wait_until(
        driver,
        "return location.pathname.startsWith('/submissions/') && !!document.getElementById('submission-live')",
    );
}

/// A request from the page with a bearer token: its status.
fn status_with_token(driver: &Driver, path: &str, token: &str) -> u64 {
    driver
        .eval(&format!(
            "const x = new XMLHttpRequest(); x.open('GET', {}, false); \
             x.setRequestHeader('Authorization', 'Bearer ' + {}); x.send(); return x.status;",
            json!(path),
            json!(token)
        ))
        .as_u64()
        .expect("status")
}

/// A same-origin GET with the page's session: its status.
fn status_of(driver: &Driver, path: &str) -> u64 {
    driver
        .eval(&format!(
            "const x = new XMLHttpRequest(); x.open('GET', {}, false); x.send(); return x.status;",
            json!(path)
        ))
        .as_u64()
        .expect("status")
}

fn no_console_errors(driver: &Driver, page: &str) {
    let errors = driver.console_errors();
    assert!(errors.is_empty(), "console errors on {page}: {errors:?}");
}

#[test]
fn two_contestants_and_an_organiser_walk_the_contest_site() {
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
open_registration = true

[ladder]
placement_games = 2
promotion_games = 3
max_games = 30

[[leagues]]
name = "wood1"
boss = "waiter"

[[leagues]]
name = "bronze"

[[organisers]]
name = "org"
token = "{ORG}"

[[contestants]]
name = "bob"
token = "{BOB}"

# The boss of wood1: a bot that always waits (uploaded below), so that promotion past it is sure.
[[contestants]]
name = "waiter"
token = "{WAITER}"
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
    let broken = dir.path().join("broken.cpp");
    std::fs::write(&broken, "int main() { this does not compile; }").expect("bot");
    let bob_bot = dir.path().join("bob.py");
    std::fs::write(&bob_bot, with_secret("bob-secret-stderr")).expect("bot");

    let waiter = dir.path().join("waiter.py");
    std::fs::write(&waiter, WAITER_BOT).expect("bot");

    let shots = Shots::new();
    let (_server, url) = start(dir.path());
    // The boss's bot, uploaded as `arena submit` does.
    let submitted = Command::new(ARENA)
        .args(["submit", "--server", &url, "--wait"])
        .arg(&waiter)
        .env("ARENA_TOKEN", WAITER)
        .output()
        .expect("arena submit");
    assert!(
        submitted.status.success(),
        "{}",
        String::from_utf8_lossy(&submitted.stderr)
    );
    let driver = Driver::start(&chromedriver, &chromium);

    // Alice registers on the page: her token is shown once, and she is signed in.
    driver.goto(&format!("{url}/"));
    wait_until(&driver, "return location.pathname === '/signin'");
    shots.take(&driver, "signin");
    click(&driver, "a[href='/register']");
    wait_until(&driver, "return !!document.getElementById('name')");
    driver.eval(
        "document.getElementById('name').value = 'alice'; \
         document.querySelector('form[action=\"/register\"]').submit(); return true;",
    );
    wait_until(&driver, "return !!document.getElementById('new-token')");
    let alice_token = driver
        .eval("return document.getElementById('new-token').textContent")
        .as_str()
        .expect("token")
        .to_string();
    assert_eq!(alice_token.len(), 64);
    shots.take(&driver, "registered");
    // Someone else cannot take her name with other letter case.
    sign_out_via_cookie(&driver);
    driver.goto(&format!("{url}/register"));
    driver.eval(
        "document.getElementById('name').value = 'ALICE'; \
         document.querySelector('form[action=\"/register\"]').submit(); return true;",
    );
    wait_until(
        &driver,
        "return !!document.querySelector('.error-text') && \
         document.querySelector('.error-text').textContent.includes('passes for alice')",
    );
    // (The refusal's 400 is in the console: expected.)
    let _ = driver.console_errors();
    sign_in(&driver, &url, &alice_token);

    // A bot that does not build: the compiler's output is on its page.
    upload(&driver, &broken);
    wait_until(
        &driver,
        "return document.querySelector('#submission-live .state.failed') !== null && \
         document.getElementById('build-log').open && \
         document.querySelector('#build-log pre').textContent.includes('error')",
    );
    let log = driver
        .eval("return document.querySelector('#build-log pre').textContent")
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        !log.contains(dir.path().to_str().expect("path")),
        "no server path in {log}"
    );
    shots.take(&driver, "build-failed");
    no_console_errors(&driver, "a failed build");

    // One that builds: the page turns to ready by itself; the reader opens the build log and it
    // stays open while the page updates around it.
    driver.goto(&format!("{url}/"));
    upload(&driver, &alice_bot);
    let alice_submission = driver
        .eval("return location.pathname.split('/')[2]")
        .as_str()
        .expect("id")
        .to_string();
    wait_until(
        &driver,
        "return document.querySelector('#submission-live .state.ready') !== null",
    );
    // Meanwhile the organiser stops her bot for a moment (a change the test makes, so that the
    // page has something to update however fast her games went): the part of the page holding
    // the log is replaced.
    let before = driver
        .eval(
            "document.getElementById('build-log').open = true; \
             return document.querySelector('#submission-live p').textContent",
        )
        .as_str()
        .expect("the summary")
        .to_string();
    let organiser_does = |action: &str| {
        ureq::post(&format!(
            "{url}/api/submissions/{alice_submission}/{action}"
        ))
        .header("Authorization", &format!("Bearer {ORG}"))
        .send_empty()
        .expect("the organiser's action");
    };
    organiser_does("stop");
    wait_until(
        &driver,
        &format!(
            "return document.querySelector('#submission-live p').textContent !== {} && \
             document.querySelectorAll('#games-live a.game').length > 0",
            json!(before)
        ),
    );
    assert_eq!(
        driver.eval("return document.getElementById('build-log').open"),
        json!(true),
        "the build log the reader opened stays open"
    );
    organiser_does("resume");
    wait_until(
        &driver,
        "return document.querySelector('#submission-live .state.ready') !== null",
    );
    shots.take(&driver, "submission");
    no_console_errors(&driver, "a submission");

    // Bob (from the contest file) signs in with his token and uploads.
    sign_out(&driver, &url);
    sign_in(&driver, &url, BOB);
    upload(&driver, &bob_bot);
    wait_until(
        &driver,
        "return document.querySelector('#submission-live .state.ready') !== null",
    );
    let bob_submission = driver
        .eval("return location.pathname.split('/')[2]")
        .as_str()
        .expect("id")
        .to_string();
    // Alice's code and her failed build are not his to read.
    assert_eq!(
        status_of(&driver, &format!("/submissions/{alice_submission}/source")),
        404
    );
    assert_eq!(
        status_with_token(
            &driver,
            &format!("/api/submissions/{alice_submission}/source"),
            BOB
        ),
        404
    );
    // (Those refusals are in the console: expected.)
    let _ = driver.console_errors();

    // Both beat the wood1 boss and are promoted to bronze: the leaderboard says so.
    driver.goto(&format!("{url}/"));
    wait_until(
        &driver,
        "const rows = [...document.querySelectorAll('#board h2')].find((h) => h.textContent.startsWith('bronze')); \
         if (!rows) return false; \
         const table = rows.nextElementSibling; \
         return !!table && ['alice', 'bob'].every((n) => table.textContent.includes(n))",
    );
    shots.take(&driver, "leaderboard");
    no_console_errors(&driver, "the leaderboard");

    // Bob asks for a scrimmage against Alice and watches it finish.
    driver.goto(&format!("{url}/scrimmages"));
    driver.eval(
        "document.getElementById('opponent').value = 'alice'; \
         document.querySelector('form[action=\"/scrimmages\"] input[name=games]').value = '2'; \
         document.querySelector('form[action=\"/scrimmages\"]').submit(); return true;",
    );
    wait_until(
        &driver,
        "return location.pathname === '/scrimmages' && \
         [...document.querySelectorAll('#scrimmages-live tbody tr')].filter((tr) => \
           tr.textContent.includes('alice') && tr.textContent.includes('done')).length >= 2",
    );
    shots.take(&driver, "scrimmages");
    no_console_errors(&driver, "the scrimmages");

    // Alice's page from the leaderboard: her rating chart and games; a game in the viewer, with
    // Bob's stderr hidden from him... and back.
    driver.goto(&format!("{url}/"));
    click(&driver, "#board a[href='/players/alice']");
    wait_until(&driver, "return location.pathname === '/players/alice'");
    wait_until(
        &driver,
        "return !!document.querySelector('figure.chart svg polyline')",
    );
    shots.take(&driver, "player");
    no_console_errors(&driver, "a player");
    driver.goto(&format!("{url}/submissions/{bob_submission}"));
    let link = driver
        .eval(
            "const a = [...document.querySelectorAll('#games-live tbody tr')].find((tr) => \
               tr.textContent.includes('alice') && tr.textContent.includes('done')); \
             return a ? a.querySelector('a.game').href : null",
        )
        .as_str()
        .expect("a finished game against alice")
        .to_string();
    driver.goto(&link);
    driver.wait_for("return !!window.arenaViewer && arenaViewer.count > 0");
    let page = driver
        .eval("return document.documentElement.outerHTML")
        .as_str()
        .expect("html")
        .to_string();
    assert!(
        page.contains("bob-secret-stderr"),
        "his own stderr is in his replay"
    );
    assert!(!page.contains("alice-secret-stderr"), "hers is not");
    shots.take(&driver, "viewer");
    no_console_errors(&driver, "the viewer");
    click(&driver, "a.back");
    wait_until(
        &driver,
        &format!("return location.pathname === '/submissions/{bob_submission}'"),
    );

    // Bob rotates his token: the old one stops working at once, the new one works.
    driver.goto(&format!("{url}/account"));
    click(&driver, "#rotate");
    wait_until(&driver, "return !!document.getElementById('new-token')");
    let new_token = driver
        .eval("return document.getElementById('new-token').textContent")
        .as_str()
        .expect("token")
        .to_string();
    shots.take(&driver, "account");
    assert_eq!(status_with_token(&driver, "/api/me", BOB), 401);
    assert_eq!(status_with_token(&driver, "/api/me", &new_token), 200);
    // (The old token's 401 is in the console: expected.)
    let _ = driver.console_errors();

    // The organiser's dashboard; Bob's account disabled from it.
    sign_out(&driver, &url);
    sign_in(&driver, &url, ORG);
    driver.goto(&format!("{url}/organiser"));
    wait_until(&driver, "return !!document.getElementById('accounts')");
    shots.take(&driver, "organiser");
    no_console_errors(&driver, "the organiser's dashboard");
    click(&driver, "button[data-name='bob'][value='disable']");
    wait_until(
        &driver,
        "return location.pathname === '/organiser' && \
         [...document.querySelectorAll('#accounts tr')].some((tr) => \
           tr.textContent.includes('bob') && tr.textContent.includes('disabled'))",
    );
    assert_eq!(status_with_token(&driver, "/api/me", &new_token), 403);
    // His bot leaves the leaderboard.
    reload_until(
        &driver,
        &format!("{url}/"),
        "return !document.querySelector('#board a[href=\"/players/bob\"]')",
    );

    // A phone: the pages fit its width (tables scroll inside their box).
    driver.call(
        "POST",
        "/window/rect",
        Some(json!({"width": 390, "height": 844})),
    );
    for page in [
        "/",
        "/players/alice",
        &format!("/submissions/{alice_submission}"),
        "/organiser",
    ] {
        driver.goto(&format!("{url}{page}"));
        let fits =
            driver.eval("return document.documentElement.scrollWidth <= window.innerWidth + 1");
        assert_eq!(fits, json!(true), "{page} is wider than a phone");
    }
    driver.goto(&format!("{url}/"));
    shots.take(&driver, "phone-leaderboard");
    // A missing page is a page.
    driver.goto(&format!("{url}/games/999999"));
    wait_until(
        &driver,
        "return document.querySelector('h1').textContent === 'Not found'",
    );
    shots.take(&driver, "not-found");
}

/// A Spring 2021 bot that reads every turn and always waits.
const WAITER_BOT: &str = "\
import sys
cells = int(input())
for _ in range(cells):
    input()
while True:
    try:
        day = int(input())
    except EOFError:
        break
    input(); input(); input()
    for _ in range(int(input())):
        input()
    for _ in range(int(input())):
        input()
    print('WAIT')
";

/// Drops the session cookie (the page's own sign-out needs a session; after registering, the
/// test goes on as a stranger).
fn sign_out_via_cookie(driver: &Driver) {
    driver.call("DELETE", "/cookie", None);
}
