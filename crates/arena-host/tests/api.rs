//! The API's security rules, each tested: authentication on every write, a contestant never reads
//! another's code, build log or stderr, organisers-only actions, upload size and rate limits, and
//! archives refused with a clear reason (zip bomb, path traversal, symbolic link), an unknown
//! language and a build failure reported as such.

use std::io::Write;
use std::sync::Arc;

use arena_host::{Contest, Host, HostOptions};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

const ORG: &str = "organiser-token-0123456789";
const ALICE: &str = "alice-token-0123456789ab";
const BOB: &str = "bob-token-0123456789abcd";

struct Fixture {
    host: Arc<Host>,
    _dir: tempfile::TempDir,
}

async fn fixture(extra: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let contest = Contest::parse(&format!(
        r#"
name = "api"
game = "spring2021"
format = "ladder"
workers = 1
# Python bots on a loaded test machine (a g++ build runs beside them): no answer may time out. A
# bot that times out on its first turn ends the game before the other is ever asked, and that one,
# frozen since its start, may not have written its stderr yet (seen twice at time_scale 1 and 20).
# Limits only bound stalls; they cost nothing when the bots answer.
time_scale = 100.0
{extra}

[ladder]
placement_games = 1
max_games = 1

[[contestants]]
name = "alice"
token = "{ALICE}"

[[contestants]]
name = "bob"
token = "{BOB}"

[[organisers]]
name = "org"
token = "{ORG}"
"#
    ))
    .expect("contest");
    let host = Host::open(HostOptions {
        contest,
        db: format!("sqlite://{}", dir.path().join("c.db").display()),
        schema: None,
        data_dir: dir.path().join("data"),
        game: Arc::from(arena_core::registry::stream_entry(
            arena_spring2021::definition(),
        )),
        // The sandbox's helper is the `arena` binary; the command's tests run the sandboxed path.
        sandbox: None,
        sandbox_factory: None,
        pin_cpus: false,
        workers: Default::default(),
    })
    .await
    .expect("host");
    Fixture { host, _dir: dir }
}

async fn call(
    host: &Arc<Host>,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Vec<u8>,
) -> (StatusCode, Vec<u8>) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if method == "POST" && (uri.starts_with("/api/freeze") || uri.starts_with("/api/scrimmages")) {
        request = request.header("content-type", "application/json");
    }
    let response = arena_host::api::router(Arc::clone(host))
        .oneshot(request.body(Body::from(body)).expect("request"))
        .await
        .expect("response");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 64 << 20)
        .await
        .expect("body");
    (status, bytes.to_vec())
}

/// A page as the holder of `token` sees it after signing in on the page (pages take the session
/// cookie, not the bearer token).
async fn page_as(host: &Arc<Host>, uri: &str, token: &str) -> (StatusCode, Vec<u8>) {
    let signed_in = arena_host::api::router(Arc::clone(host))
        .oneshot(
            Request::builder()
                .method("POST")
                .uri("/signin")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::from(format!("token={token}&next=/")))
                .expect("request"),
        )
        .await
        .expect("response");
    let cookie = signed_in
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_string();
    let response = arena_host::api::router(Arc::clone(host))
        .oneshot(
            Request::builder()
                .uri(uri)
                .header("cookie", cookie)
                .body(Body::empty())
                .expect("request"),
        )
        .await
        .expect("response");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 64 << 20)
        .await
        .expect("body");
    (status, bytes.to_vec())
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| panic!("JSON: {}", String::from_utf8_lossy(bytes)))
}

/// Uploads and waits for the build; returns (id, state, log).
async fn upload(
    host: &Arc<Host>,
    token: &str,
    name: &str,
    bytes: Vec<u8>,
) -> (i64, String, String) {
    let (status, body) = call(
        host,
        "POST",
        &format!("/api/submissions?name={name}"),
        Some(token),
        bytes,
    )
    .await;
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let id = json(&body)["id"].as_i64().expect("id");
    for _ in 0..6000 {
        let (_, body) = call(
            host,
            "GET",
            &format!("/api/submissions/{id}"),
            Some(token),
            vec![],
        )
        .await;
        let s = json(&body);
        if s["state"] != "building" {
            return (
                id,
                s["state"].as_str().unwrap_or("").to_string(),
                s["build_log"].as_str().unwrap_or("").to_string(),
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the build of {name} never finished");
}

fn bot_saying(secret: &str) -> Vec<u8> {
    let starter = include_str!("../../arena-spring2021/starters/bot.py");
    format!("import sys\nsys.stderr.write('{secret}\\n')\nsys.stderr.flush()\n{starter}")
        .into_bytes()
}

fn zip_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        out.start_file(
            *name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .expect("entry");
        out.write_all(data).expect("data");
    }
    out.finish().expect("zip").into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_write_needs_a_token_and_organiser_actions_need_an_organiser() {
    let f = fixture("").await;
    let writes = [
        "/api/submissions?name=bot.py",
        "/api/submissions/1/stop",
        "/api/submissions/1/resume",
        "/api/submissions/1/rerun",
        "/api/freeze",
    ];
    for uri in writes {
        let (status, _) = call(&f.host, "POST", uri, None, b"{\"frozen\":true}".to_vec()).await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "POST {uri} without a token"
        );
        let (status, _) = call(
            &f.host,
            "POST",
            uri,
            Some("not-a-token-at-all"),
            b"{\"frozen\":true}".to_vec(),
        )
        .await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "POST {uri} with a wrong token"
        );
    }
    // The cookie the pages set is for reading only: a write with it alone is refused.
    let response = arena_host::api::router(Arc::clone(&f.host))
        .oneshot(
            Request::builder()
                .method("POST")
                .uri("/api/submissions?name=bot.py")
                .header("cookie", format!("arena_token={ALICE}"))
                .body(Body::from(bot_saying("x")))
                .expect("request"),
        )
        .await
        .expect("response");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    // Reads need a token too.
    for uri in [
        "/api/me",
        "/api/submissions",
        "/api/leaderboard",
        "/api/games",
        "/api/export/results.jsonl",
    ] {
        assert_eq!(
            call(&f.host, "GET", uri, None, vec![]).await.0,
            StatusCode::UNAUTHORIZED,
            "GET {uri}"
        );
    }
    for uri in [
        "/api/submissions/1/stop",
        "/api/submissions/1/rerun",
        "/api/freeze",
    ] {
        let (status, _) = call(
            &f.host,
            "POST",
            uri,
            Some(ALICE),
            b"{\"frozen\":true}".to_vec(),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "POST {uri} as a contestant");
    }
    for uri in ["/api/export/results.jsonl", "/api/export/leaderboard.csv"] {
        assert_eq!(
            call(&f.host, "GET", uri, Some(BOB), vec![]).await.0,
            StatusCode::FORBIDDEN,
            "GET {uri}"
        );
        assert_eq!(
            call(&f.host, "GET", uri, Some(ORG), vec![]).await.0,
            StatusCode::OK,
            "GET {uri}"
        );
    }
    let (status, body) = call(&f.host, "GET", "/api/me", Some(ORG), vec![]).await;
    assert_eq!(
        (status, json(&body)["role"].as_str()),
        (StatusCode::OK, Some("organiser"))
    );
    // Registration is closed unless the contest opens it.
    let (status, _) = call(
        &f.host,
        "POST",
        "/api/register",
        None,
        b"{\"name\":\"eve\"}".to_vec(),
    )
    .await;
    assert!(status == StatusCode::FORBIDDEN || status == StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contestant_never_reads_another_contestants_code_log_or_stderr() {
    let f = fixture("").await;
    let (a, state, log) = upload(
        &f.host,
        ALICE,
        "alice.py",
        bot_saying("alice-secret-stderr"),
    )
    .await;
    assert_eq!(state, "ready", "{log}");
    let (b, state, log) = upload(&f.host, BOB, "bob.py", bot_saying("bob-secret-stderr")).await;
    assert_eq!(state, "ready", "{log}");

    // Code and build logs: one's own only; someone else's is "not found", like a missing one.
    for (token, own, other) in [(ALICE, a, b), (BOB, b, a)] {
        assert_eq!(
            call(
                &f.host,
                "GET",
                &format!("/api/submissions/{own}/source"),
                Some(token),
                vec![]
            )
            .await
            .0,
            StatusCode::OK
        );
        for uri in [
            format!("/api/submissions/{other}"),
            format!("/api/submissions/{other}/source"),
        ] {
            assert_eq!(
                call(&f.host, "GET", &uri, Some(token), vec![]).await.0,
                StatusCode::NOT_FOUND,
                "{uri}"
            );
        }
        let (_, body) = call(
            &f.host,
            "GET",
            "/api/submissions?all=true",
            Some(token),
            vec![],
        )
        .await;
        let ids: Vec<i64> = json(&body)
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_i64().unwrap())
            .collect();
        assert_eq!(
            ids,
            vec![own],
            "a contestant lists only its own submissions, even asking for all"
        );
    }
    let (_, body) = call(
        &f.host,
        "GET",
        &format!("/api/submissions/{a}/source"),
        Some(ORG),
        vec![],
    )
    .await;
    assert_eq!(
        body,
        bot_saying("alice-secret-stderr"),
        "the organiser reads everything"
    );

    // One game between them.
    assert_eq!(f.host.schedule().await.expect("schedule"), 1);
    let host = Arc::clone(&f.host);
    let workers = host.spawn_workers(1, true);
    tokio::task::spawn_blocking(move || {
        for worker in workers {
            worker.join().expect("worker").expect("worker ran");
        }
    })
    .await
    .expect("joined");
    let (_, body) = call(&f.host, "GET", "/api/games", Some(ALICE), vec![]).await;
    let games = json(&body);
    let game = games[0]["id"].as_i64().expect("a game");
    assert_eq!(games[0]["state"], "done", "{games}");

    let replay_as = async |token| {
        let (status, body) = call(
            &f.host,
            "GET",
            &format!("/api/games/{game}/replay"),
            Some(token),
            vec![],
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        String::from_utf8(body).expect("text")
    };
    let alice_view = replay_as(ALICE).await;
    assert!(
        alice_view.contains("alice-secret-stderr") && !alice_view.contains("bob-secret-stderr")
    );
    let bob_view = replay_as(BOB).await;
    let bob_players = &serde_json::from_str::<Value>(&bob_view).expect("json")["players"];
    assert!(
        bob_view.contains("bob-secret-stderr") && !bob_view.contains("alice-secret-stderr"),
        "{bob_players:#}"
    );
    let org_view = replay_as(ORG).await;
    assert!(org_view.contains("bob-secret-stderr") && org_view.contains("alice-secret-stderr"));
    // The viewer page applies the same rule.
    let (status, page) = page_as(&f.host, &format!("/games/{game}"), ALICE).await;
    assert_eq!(status, StatusCode::OK);
    let page = String::from_utf8(page).expect("html");
    assert!(page.contains("<html") || page.contains("<!doctype") || page.contains("<!DOCTYPE"));
    assert!(!page.contains("bob-secret-stderr"));

    // The export: an `arena tournament` folder, organisers only, its files and nothing else.
    assert_eq!(
        call(&f.host, "POST", "/api/export", Some(ALICE), vec![])
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    let (status, body) = call(&f.host, "POST", "/api/export", Some(ORG), vec![]).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let export = json(&body);
    assert_eq!(export["games"], 1);
    let report = export["report"].as_str().expect("report link").to_string();
    let (status, page) = call(&f.host, "GET", &report, Some(ORG), vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        String::from_utf8_lossy(&page).contains("alice#"),
        "the report names the bots"
    );
    assert_eq!(
        call(&f.host, "GET", &report, Some(ALICE), vec![]).await.0,
        StatusCode::FORBIDDEN
    );
    let (status, summary) = call(&f.host, "GET", "/export/1/summary.json", Some(ORG), vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json(&summary)["stats"]["games"], 1);
    assert_eq!(
        call(
            &f.host,
            "GET",
            "/export/1/replays/000000.json.gz",
            Some(ORG),
            vec![]
        )
        .await
        .0,
        StatusCode::OK
    );
    // The published viewer page's bundle of the replays the report links.
    assert_eq!(
        call(
            &f.host,
            "GET",
            "/export/1/replays/bundle-000000.js",
            Some(ORG),
            vec![]
        )
        .await
        .0,
        StatusCode::OK
    );
    for uri in [
        "/export/1/../../c.db",
        "/export/1/replays/..%2F..%2Fc.db",
        "/export/1/replays/x.js",
    ] {
        assert_eq!(
            call(&f.host, "GET", uri, Some(ORG), vec![]).await.0,
            StatusCode::NOT_FOUND,
            "{uri}"
        );
    }

    // A frozen leaderboard is what contestants see; the organiser sees it live.
    assert_eq!(
        call(
            &f.host,
            "POST",
            "/api/freeze",
            Some(ORG),
            b"{\"frozen\":true}".to_vec()
        )
        .await
        .0,
        StatusCode::OK
    );
    let (_, body) = call(&f.host, "GET", "/api/leaderboard", Some(ALICE), vec![]).await;
    assert_eq!(json(&body)["frozen"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_are_limited_and_bad_archives_languages_and_builds_are_reported() {
    let f =
        fixture("[limits]\nupload_bytes = 200000\nuploads_per_hour = 6\narchive_ratio = 50").await;
    // Too big: refused before anything is stored.
    let (status, _) = call(
        &f.host,
        "POST",
        "/api/submissions?name=big.py",
        Some(ALICE),
        vec![b'#'; 200_001],
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    // A bad name.
    let (status, body) = call(
        &f.host,
        "POST",
        "/api/submissions?name=..%2F..%2Fetc",
        Some(ALICE),
        b"x".to_vec(),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{}",
        String::from_utf8_lossy(&body)
    );

    let traversal = zip_with(&[("../../evil.py", b"print(1)")]);
    let (_, state, log) = upload(&f.host, ALICE, "t.zip", traversal).await;
    assert_eq!(state, "failed");
    assert!(log.contains("outside the bot's folder"), "{log}");

    let bomb = zip_with(&[("bot.py", &vec![b' '; 4 << 20])]);
    assert!(bomb.len() < 100_000);
    let (_, state, log) = upload(&f.host, ALICE, "bomb.zip", bomb).await;
    assert_eq!(state, "failed");
    assert!(log.contains("zip bomb"), "{log}");

    let mut link = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    link.add_symlink(
        "bot.py",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .expect("link");
    let (_, state, log) = upload(
        &f.host,
        ALICE,
        "link.zip",
        link.finish().unwrap().into_inner(),
    )
    .await;
    assert_eq!(state, "failed");
    assert!(log.contains("symbolic link"), "{log}");

    let (_, state, log) = upload(&f.host, ALICE, "bot.xyz", b"whatever".to_vec()).await;
    assert_eq!(state, "failed");
    assert!(log.contains("unknown language"), "{log}");

    let (_, state, log) = upload(
        &f.host,
        ALICE,
        "bot.cpp",
        b"int main() { this is not C++ }".to_vec(),
    )
    .await;
    assert_eq!(state, "failed");
    assert!(
        log.contains("build failed") && log.contains("error"),
        "{log}"
    );

    let folder = zip_with(&[(
        "bot.py",
        include_bytes!("../../arena-spring2021/starters/bot.py"),
    )]);
    let (_, state, log) = upload(&f.host, ALICE, "folder.zip", folder).await;
    assert_eq!(state, "ready", "{log}");

    // That made 6 uploads (the too-big one and the bad name were never stored): the 7th is over
    // the hourly limit; Bob's quota is his own.
    let (status, body) = call(
        &f.host,
        "POST",
        "/api/submissions?name=bot.py",
        Some(ALICE),
        bot_saying("x"),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert!(
        json(&body)["error"]
            .as_str()
            .unwrap_or("")
            .contains("uploads an hour")
    );
    let (status, _) = call(
        &f.host,
        "POST",
        "/api/submissions?name=bot.py",
        Some(BOB),
        bot_saying("x"),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_registration_gives_a_working_token_once_per_name() {
    let f = fixture("open_registration = true").await;
    let register = |name: &str| {
        let host = Arc::clone(&f.host);
        let body = format!("{{\"name\":\"{name}\"}}").into_bytes();
        async move {
            let response = arena_host::api::router(host)
                .oneshot(
                    Request::builder()
                        .method("POST")
                        .uri("/api/register")
                        .header("content-type", "application/json")
                        .body(Body::from(body))
                        .expect("request"),
                )
                .await
                .expect("response");
            let status = response.status();
            let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .expect("body");
            (status, json(&bytes))
        }
    };
    let (status, body) = register("eve").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let token = body["token"].as_str().expect("a token").to_string();
    assert!(token.len() >= 32);
    let (status, me) = call(&f.host, "GET", "/api/me", Some(&token), vec![]).await;
    assert_eq!(
        (status, json(&me)["name"].clone()),
        (StatusCode::OK, Value::from("eve"))
    );
    assert_eq!(register("eve").await.0, StatusCode::CONFLICT, "a name once");
    assert_eq!(
        register("alice").await.0,
        StatusCode::CONFLICT,
        "the file's people too"
    );
    assert_eq!(register("../x").await.0, StatusCode::BAD_REQUEST);
    // A registered contestant uploads like any other.
    let (_, state, log) = upload(&f.host, &token, "eve.py", bot_saying("eve")).await;
    assert_eq!(state, "ready", "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_cut_short_by_a_restart_is_built_again() {
    let f = fixture("").await;
    let alice = f
        .host
        .store
        .user_by_name("alice")
        .await
        .unwrap()
        .expect("alice");
    // As a killed server leaves it: recorded, never built.
    let bytes = bot_saying("x");
    let id = f
        .host
        .store
        .add_submission(alice, "upload", "bot.py", Some(&bytes), "sha", 0)
        .await
        .unwrap();
    assert_eq!(f.host.resume_builds().await.unwrap(), 1);
    for _ in 0..6000 {
        let s = f.host.store.submission(id).await.unwrap().expect("it");
        if s.state != "building" {
            assert_eq!(s.state, "ready", "{}", s.build_log);
            assert!(s.active, "and it plays");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("never built");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn someone_removed_from_the_contest_file_is_signed_out_and_stops_playing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let open = |people: &str| {
        let contest = Contest::parse(&format!(
            "name = \"r\"\ngame = \"spring2021\"\nformat = \"ladder\"\n{people}"
        ))
        .expect("contest");
        Host::open(HostOptions {
            contest,
            db: format!("sqlite://{}", dir.path().join("c.db").display()),
            schema: None,
            data_dir: dir.path().join("data"),
            game: Arc::from(arena_core::registry::stream_entry(
                arena_spring2021::definition(),
            )),
            sandbox: None,
            sandbox_factory: None,
            pin_cpus: false,
            workers: Default::default(),
        })
    };
    let both = format!(
        "[[contestants]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n\
         [[contestants]]\nname = \"bob\"\ntoken = \"{BOB}\"\n\
         [[bots]]\nname = \"house\"\nbot = \"builtin:random\"\n"
    );
    let host = open(&both).await.expect("host");
    assert!(host.revoked.is_empty());
    let (_, state, log) = upload(&host, BOB, "bob.py", bot_saying("b")).await;
    assert_eq!(state, "ready", "{log}");
    assert_eq!(
        call(&host, "GET", "/api/me", Some(BOB), vec![]).await.0,
        StatusCode::OK
    );
    host.store.close().await;
    drop(host);

    let host = open(&format!(
        "[[contestants]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n"
    ))
    .await
    .expect("host again");
    let mut revoked = host.revoked.clone();
    revoked.sort();
    assert_eq!(revoked, vec!["bob".to_string(), "house".to_string()]);
    assert_eq!(
        call(&host, "GET", "/api/me", Some(BOB), vec![]).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        call(&host, "GET", "/api/me", Some(ALICE), vec![]).await.0,
        StatusCode::OK
    );
    assert!(
        host.store.players().await.expect("players").is_empty(),
        "bob's and the house bot's stop"
    );
    // Listed again, they are back (the file is the authority).
    host.store.close().await;
    drop(host);
    let host = open(&both).await.expect("host a third time");
    assert_eq!(
        call(&host, "GET", "/api/me", Some(BOB), vec![]).await.0,
        StatusCode::OK
    );
    let players: Vec<String> = host
        .store
        .players()
        .await
        .expect("players")
        .into_iter()
        .map(|p| p.user)
        .collect();
    assert_eq!(
        players,
        vec!["house".to_string()],
        "a house bot comes back; bob uploads again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_builds_but_cannot_start_is_refused_with_its_stderr() {
    let f = fixture("").await;
    let (_, state, log) = upload(
        &f.host,
        ALICE,
        "crash.py",
        b"import no_such_module_anywhere\n".to_vec(),
    )
    .await;
    assert_eq!(state, "failed", "{log}");
    assert!(
        log.contains("built as"),
        "the build itself went through: {log}"
    );
    assert!(log.contains("could not start"), "{log}");
    assert!(
        log.contains("no_such_module_anywhere"),
        "its stderr is in the log: {log}"
    );
    let (_, state, log) = upload(&f.host, ALICE, "ok.py", bot_saying("fine")).await;
    assert_eq!(state, "ready", "{log}");
    assert!(log.contains("answered its first turn"), "{log}");
}

/// The organiser sees every worker's health, capabilities and games (`/api/workers`); a
/// contestant does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_organiser_sees_the_workers_and_their_games() {
    let f = fixture("[[bots]]\nname = \"r1\"\nbot = \"builtin:random\"\n[[bots]]\nname = \"r2\"\nbot = \"builtin:random\"\n").await;
    f.host.schedule().await.expect("games queued");
    let threads = f.host.spawn_workers(1, true);
    let mut completed = 0;
    for thread in threads {
        let counts = tokio::task::spawn_blocking(move || thread.join())
            .await
            .expect("joined")
            .expect("no panic")
            .expect("no error");
        assert!(counts.completed >= 1, "{counts:?}");
        completed += counts.completed;
    }
    let (status, body) = call(&f.host, "GET", "/api/workers", Some(ALICE), vec![]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let _ = body;
    // The heartbeat task registers the worker and marks it stopped once its threads are gone.
    let mut listed = Value::Null;
    for _ in 0..500 {
        let (status, body) = call(&f.host, "GET", "/api/workers", Some(ORG), vec![]).await;
        assert_eq!(status, StatusCode::OK);
        listed = json(&body);
        if listed["workers"][0]["state"] == "stopped" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let worker = &listed["workers"][0];
    assert_eq!(worker["id"], f.host.worker_id.as_str(), "{listed}");
    assert_eq!(worker["state"], "stopped", "{listed}");
    assert_eq!(worker["jobs"], 1);
    // Every game counts on the worker's row, the first one too: the worker registers before
    // its first claim.
    assert_eq!(worker["games_done"].as_u64(), Some(completed), "{listed}");
    assert_eq!(worker["games_held"], serde_json::json!([]));
    let languages = worker["languages"].as_array().expect("languages");
    assert!(languages.contains(&Value::from("builtin")), "{listed}");

    // A game of built-in bots keeps no replay: it is played again when watched.
    let game = f
        .host
        .store
        .games(None, 100)
        .await
        .expect("games")
        .into_iter()
        .find(|g| g.state == "done")
        .expect("a finished game");
    assert_eq!(f.host.store.replay(game.id).await.expect("read"), None);
    let (status, body) = call(
        &f.host,
        "GET",
        &format!("/api/games/{}/replay", game.id),
        Some(ORG),
        vec![],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let replay = json(&body);
    let entry = game.entry.expect("its journal line");
    assert_eq!(
        replay["players"].as_array().map(Vec::len),
        Some(2),
        "{replay}"
    );
    assert_eq!(
        replay["seed"].to_string(),
        entry["seed"].to_string(),
        "the game's own seed"
    );
}

/// The contest file's `clock` is the clock its games are judged on (recorded in each replay), and
/// it is checked as `--clock` is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contest_set_to_the_cpu_clock_plays_on_it() {
    let f = fixture("clock = \"cpu\"").await;
    let (_, state, log) = upload(&f.host, ALICE, "alice.py", bot_saying("a")).await;
    assert_eq!(state, "ready", "{log}");
    let (_, state, log) = upload(&f.host, BOB, "bob.py", bot_saying("b")).await;
    assert_eq!(state, "ready", "{log}");
    assert_eq!(f.host.schedule().await.expect("schedule"), 1);
    let host = Arc::clone(&f.host);
    let workers = host.spawn_workers(1, true);
    tokio::task::spawn_blocking(move || {
        for worker in workers {
            worker.join().expect("worker").expect("worker ran");
        }
    })
    .await
    .expect("joined");
    let (_, body) = call(&f.host, "GET", "/api/games", Some(ORG), vec![]).await;
    let games = json(&body);
    assert_eq!(games[0]["state"], "done", "{games}");
    let game = games[0]["id"].as_i64().expect("a game");
    let (status, body) = call(
        &f.host,
        "GET",
        &format!("/api/games/{game}/replay"),
        Some(ORG),
        vec![],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json(&body)["clock"], "cpu", "the replay records the clock");

    let mut contest = f.host.contest.clone();
    contest.clock = Some("sundial".into());
    let refused = contest
        .run_rules()
        .expect_err("an unknown clock is refused");
    assert!(
        refused
            .to_string()
            .contains("unknown clock `sundial` (wall, cpu)"),
        "{refused}"
    );
}

/// Plays what is queued with one worker until the queue is empty.
async fn play_queued(host: &Arc<Host>) {
    let host = Arc::clone(host);
    let workers = host.spawn_workers(1, true);
    tokio::task::spawn_blocking(move || {
        for worker in workers {
            worker.join().expect("worker").expect("worker ran");
        }
    })
    .await
    .expect("joined");
}

/// Gives `name` the built-in random bot as its active submission (no build to wait for).
async fn builtin_bot_of(host: &Arc<Host>, name: &str) -> i64 {
    let user = host
        .store
        .user_by_name(name)
        .await
        .expect("read")
        .expect("the user");
    let id = host
        .store
        .add_submission(user, "builtin", "random", None, name, 0)
        .await
        .expect("a submission");
    host.store.activate(user, id).await.expect("activated");
    id
}

async fn ask(host: &Arc<Host>, token: Option<&str>, body: &str) -> (StatusCode, Value) {
    let (status, body) = call(
        host,
        "POST",
        "/api/scrimmages",
        token,
        body.as_bytes().to_vec(),
    )
    .await;
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scrimmage_plays_unrated_with_seats_swapped_and_is_rate_limited() {
    let f = fixture(
        "[limits]\nscrimmage_games_per_hour = 5\nscrimmage_games_per_request = 4\n\
         [[bots]]\nname = \"house\"\nbot = \"builtin:random\"\n",
    )
    .await;
    // Refusals before anyone has a bot.
    let (status, _) = ask(&f.host, None, r#"{"opponent":"bob","games":1}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = ask(&f.host, Some(ALICE), r#"{"opponent":"bob","games":1}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("upload a bot first"),
        "{body}"
    );
    let a = builtin_bot_of(&f.host, "alice").await;
    let (status, body) = ask(&f.host, Some(ALICE), r#"{"opponent":"bob","games":1}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("bob has no bot ready"),
        "{body}"
    );
    let b = builtin_bot_of(&f.host, "bob").await;
    let (status, body) = ask(&f.host, Some(ALICE), r#"{"opponent":"nobody","games":1}"#).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("no player named"),
        "{body}"
    );
    let (status, _) = ask(&f.host, Some(ALICE), r#"{"opponent":"alice","games":1}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not against oneself");
    for games in [0, 5] {
        let (status, body) = ask(
            &f.host,
            Some(ALICE),
            &format!(r#"{{"opponent":"bob","games":{games}}}"#),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{games} games: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap_or("")
                .contains("1 to 4 games"),
            "{body}"
        );
    }

    let before = |id: i64| {
        let host = Arc::clone(&f.host);
        async move {
            host.store
                .submission(id)
                .await
                .expect("read")
                .expect("there")
        }
    };
    let (alice_before, bob_before) = (before(a).await, before(b).await);
    let (_, board_before) = call(&f.host, "GET", "/api/leaderboard", Some(ORG), vec![]).await;
    let (status, body) = ask(&f.host, Some(ALICE), r#"{"opponent":"bob","games":4}"#).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let ids: Vec<i64> = body["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g.as_i64().expect("an id"))
        .collect();
    assert_eq!(ids.len(), 4, "{body}");
    // Queued games already name their players.
    let (_, listed) = call(&f.host, "GET", "/api/scrimmages", Some(ALICE), vec![]).await;
    let listed = json(&listed);
    assert_eq!(listed[0]["state"], "queued", "{listed}");
    assert_eq!(
        listed[0]["players"][0]["user"]
            .as_str()
            .map(|n| n == "alice" || n == "bob"),
        Some(true),
        "{listed}"
    );
    play_queued(&f.host).await;

    let (_, listed) = call(&f.host, "GET", "/api/scrimmages", Some(ALICE), vec![]).await;
    let listed = json(&listed);
    let mut games: Vec<&Value> = listed.as_array().expect("a list").iter().collect();
    games.reverse();
    assert_eq!(
        games
            .iter()
            .map(|g| g["id"].as_i64().unwrap_or(0))
            .collect::<Vec<_>>(),
        ids,
        "{listed}"
    );
    let first_seat: Vec<&str> = games
        .iter()
        .map(|g| g["players"][0]["user"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        first_seat,
        vec!["alice", "bob", "alice", "bob"],
        "seats swap every game"
    );
    for game in &games {
        assert_eq!(game["state"], "done", "{game}");
        assert_eq!(game["kind"], "scrimmage");
        assert!(game["players"][0]["rank"].as_u64().is_some(), "{game}");
        assert_eq!(game["seats"].as_array().map(Vec::len), Some(2), "{game}");
    }
    // Bob sees them too: they are his games.
    let (_, bobs) = call(&f.host, "GET", "/api/scrimmages", Some(BOB), vec![]).await;
    assert_eq!(json(&bobs).as_array().map(Vec::len), Some(4));

    // Nothing about the contest changed: ratings, games counted, leagues, the board, the
    // rating history, the contest's results.
    let (alice_after, bob_after) = (before(a).await, before(b).await);
    for (was, is) in [(&alice_before, &alice_after), (&bob_before, &bob_after)] {
        assert_eq!(
            (was.mu, was.sigma, was.games, was.league),
            (is.mu, is.sigma, is.games, is.league)
        );
    }
    let (_, board_after) = call(&f.host, "GET", "/api/leaderboard", Some(ORG), vec![]).await;
    assert_eq!(json(&board_before), json(&board_after));
    let (_, points) = call(
        &f.host,
        "GET",
        &format!("/api/submissions/{a}/ratings"),
        Some(ALICE),
        vec![],
    )
    .await;
    assert_eq!(json(&points)["points"], serde_json::json!([]));
    let (_, results) = call(
        &f.host,
        "GET",
        "/api/export/results.jsonl",
        Some(ORG),
        vec![],
    )
    .await;
    assert!(results.is_empty(), "{}", String::from_utf8_lossy(&results));
    assert!(f.host.store.promotions().await.expect("read").is_empty());

    // A house bot is an opponent too: the fifth game of the hour; the sixth is refused.
    let (status, body) = ask(&f.host, Some(ALICE), r#"{"opponent":"house","games":1}"#).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let (status, body) = ask(&f.host, Some(ALICE), r#"{"opponent":"bob","games":1}"#).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("at most 5 scrimmage games an hour"),
        "{body}"
    );
    // Bob's limit is his own.
    let (status, body) = ask(&f.host, Some(BOB), r#"{"opponent":"alice","games":1}"#).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    // A stopped bot asks for none.
    let (status, _) = call(
        &f.host,
        "POST",
        &format!("/api/submissions/{b}/stop"),
        Some(ORG),
        vec![],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = ask(&f.host, Some(BOB), r#"{"opponent":"alice","games":1}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"].as_str().unwrap_or("").contains("stopped"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_games_have_a_rating_history_and_games_list_by_player_and_result() {
    let f = fixture("").await;
    let a = builtin_bot_of(&f.host, "alice").await;
    builtin_bot_of(&f.host, "bob").await;
    assert_eq!(f.host.schedule().await.expect("schedule"), 1);
    play_queued(&f.host).await;
    let (status, body) = call(
        &f.host,
        "GET",
        &format!("/api/submissions/{a}/ratings"),
        Some(ALICE),
        vec![],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let points = json(&body)["points"].clone();
    let alice = f
        .host
        .store
        .submission(a)
        .await
        .expect("read")
        .expect("there");
    assert_eq!(points.as_array().map(Vec::len), Some(1), "{points}");
    assert_eq!(points[0]["mu"].as_f64(), Some(alice.mu));
    assert_eq!(points[0]["league"], 0);
    // Someone else's submission: as its page, 404.
    let (status, _) = call(
        &f.host,
        "GET",
        &format!("/api/submissions/{a}/ratings"),
        Some(BOB),
        vec![],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, all) = call(
        &f.host,
        "GET",
        "/api/games?user=alice&opponent=bob",
        Some(BOB),
        vec![],
    )
    .await;
    let all = json(&all);
    assert_eq!(all.as_array().map(Vec::len), Some(1), "{all}");
    let game = &all[0];
    let alice_rank = game["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["user"] == "alice")
        .and_then(|p| p["rank"].as_u64())
        .expect("alice's rank");
    let other_rank = game["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["user"] == "bob")
        .and_then(|p| p["rank"].as_u64())
        .expect("bob's rank");
    let expected = if alice_rank == 1 && other_rank == 1 {
        "draw"
    } else if alice_rank == 1 {
        "win"
    } else {
        "loss"
    };
    for result in ["win", "loss", "draw"] {
        let (status, listed) = call(
            &f.host,
            "GET",
            &format!("/api/games?submission={a}&result={result}"),
            Some(ALICE),
            vec![],
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            json(&listed).as_array().map(Vec::len),
            Some(usize::from(result == expected)),
            "{result} (alice ranked {alice_rank}, bob {other_rank})"
        );
    }
    for (uri, status) in [
        ("/api/games?user=nobody", StatusCode::NOT_FOUND),
        (
            "/api/games?result=maybe&user=alice",
            StatusCode::BAD_REQUEST,
        ),
        ("/api/games?result=win", StatusCode::BAD_REQUEST),
    ] {
        assert_eq!(
            call(&f.host, "GET", uri, Some(ALICE), vec![]).await.0,
            status,
            "{uri}"
        );
    }
}
