//! The server in process (tower `oneshot`): pages, replays, and every kind of bad request.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

use arena_viewer::{ServeOptions, Server, ViewerError, export_html, router};

struct Answer {
    status: StatusCode,
    content_type: String,
    body: String,
}

async fn get(app: &axum::Router, uri: &str) -> Answer {
    let response = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
        .await
        .expect("infallible");
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    Answer {
        status,
        content_type,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn setup() -> (tempfile::TempDir, axum::Router) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("runs");
    std::fs::create_dir_all(&root).expect("mkdir");
    common::tournament_tree(&root);
    let app = router(&ServeOptions {
        games: common::games(),
        dirs: vec![root],
        files: vec![common::data_dir().join("negotiate.json")],
        port: 0,
        ..Default::default()
    })
    .expect("router");
    (dir, app)
}

#[tokio::test]
async fn index_lists_tournaments_replays_and_files() {
    let (_dir, app) = setup();
    let page = get(&app, "/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.body.contains("href=\"/t/0/lw\""), "{}", page.body);
    assert!(page.body.contains("href=\"/t/0/duels\""));
    assert!(page.body.contains("href=\"/g/0/loose.json\""));
    assert!(page.body.contains("href=\"/f/0\""));
}

#[tokio::test]
async fn tournament_page_has_leaderboard_pairs_and_games() {
    let (_dir, app) = setup();
    let page = get(&app, "/t/0/lw").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("Leaderboard"));
    assert!(page.body.contains("Head to head"));
    // Four games read, the damaged last line reported, not fatal.
    assert!(page.body.contains("4 games played of 10"), "{}", page.body);
    assert!(
        page.body
            .contains("1 line(s) of results.jsonl could not be read")
    );
    assert!(
        page.body
            .contains("href=\"/g/0/lw/replays/000000.json.gz\"")
    );
    assert!(page.body.contains("no replay"));
    assert!(page.body.contains("13/2"));
    assert!(
        page.body.contains("timeout 1"),
        "the slow bot's fault is counted"
    );
    // Filter by bot.
    let only = get(&app, "/t/0/lw?bot=slow").await;
    assert!(
        only.body.contains("1 game(s) with <b>slow</b>"),
        "{}",
        only.body
    );
    assert!(page.body.contains("href=\"/t/0/lw/report.html\""));
    // The runner's report, and its relative replay links resolved below the tournament.
    let report = get(&app, "/t/0/lw/report.html").await;
    assert_eq!(report.status, StatusCode::OK);
    assert!(report.body.contains("href=\"replays/000001.json.gz\""));
    let linked = get(&app, "/t/0/lw/replays/000001.json.gz").await;
    assert_eq!(linked.status, StatusCode::OK, "{}", linked.body);
    assert!(linked.body.contains("Arena.start();"));
    let duels = get(&app, "/t/0/duels").await;
    assert_eq!(duels.status, StatusCode::OK);
    assert!(duels.body.contains("planner"));
    // No plan, no statistics (the games are still listed).
    assert!(duels.body.contains("no statistics without the tournament"));
    let none = get(&app, "/api/summary/0/duels").await;
    assert_eq!(none.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn the_leaderboard_shows_the_runs_summary_strings() {
    let (_dir, app) = setup();
    let api = get(&app, "/api/summary/0/lw").await;
    assert_eq!(api.status, StatusCode::OK, "{}", api.body);
    let summary: serde_json::Value = serde_json::from_str(&api.body).expect("json");
    // No summary.json: computed from the four complete lines of the journal.
    assert_eq!(summary["source"], "computed");
    assert_eq!(summary["run"]["games"], 4);
    let page = get(&app, "/t/0/lw").await;
    assert!(page.body.contains("Computed now from the 4 games"));
    let bots = summary["run"]["bots"].as_array().expect("bots");
    assert_eq!(bots.len(), 6);
    for bot in bots {
        for field in ["score_rate", "mean_score", "rating", "trueskill", "faults"] {
            let text = bot["text"][field].as_str().expect("text");
            assert!(
                page.body.contains(&format!(">{text}<")),
                "{field} `{text}` of {} is on the page",
                bot["name"]
            );
        }
    }
}

#[tokio::test]
async fn every_game_opens_in_the_viewer() {
    let (_dir, app) = setup();
    for uri in [
        "/g/0/lw/replays/000000.json.gz",
        "/g/0/lw/replays/000001.json.gz",
        "/g/0/lw/replays/000002.json.gz",
        "/g/0/duels/replays/spring.json",
        "/g/0/duels/replays/coup.json.gz",
        "/g/0/loose.json",
        "/f/0",
    ] {
        let page = get(&app, uri).await;
        assert_eq!(page.status, StatusCode::OK, "{uri}: {}", page.body);
        assert!(page.body.contains("id=\"replay\""), "{uri}");
        assert!(page.body.contains("Arena.start();"), "{uri}");
    }
    let back = get(&app, "/g/0/lw/replays/000000.json.gz").await;
    assert!(
        back.body.contains("href=\"/t/0/lw\""),
        "link back to the tournament"
    );
    let raw = get(&app, "/raw/0/duels/replays/coup.json.gz").await;
    assert_eq!(raw.status, StatusCode::OK);
    assert_eq!(raw.content_type, "application/json");
    let record: serde_json::Value = serde_json::from_str(&raw.body).expect("decompressed JSON");
    assert_eq!(record["game"], "coup");
}

#[tokio::test]
async fn bad_requests_get_clear_4xx_pages() {
    let (dir, app) = setup();
    let root = dir.path().join("runs");
    // A symlink inside the served directory that leads outside it, and a secret next to the root.
    std::fs::write(dir.path().join("secret.json"), common::fixture("coup")).expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret.json"), root.join("link.json"))
            .expect("symlink");
        std::os::unix::fs::symlink(dir.path(), root.join("escape")).expect("symlink");
    }
    // Not a record of a known game.
    let mut chess: serde_json::Value =
        serde_json::from_str(&common::fixture("coup")).expect("json");
    chess["game"] = "chess".into();
    std::fs::write(root.join("chess.json"), chess.to_string()).expect("write");
    std::fs::write(root.join("broken.json.gz"), b"\x1f\x8bnot gzip").expect("write");
    std::fs::create_dir_all(root.join("dir.json")).expect("mkdir");

    let cases: &[(&str, StatusCode)] = &[
        ("/g/0/../../etc/passwd", StatusCode::BAD_REQUEST),
        ("/g/0/..%2F..%2Fetc%2Fpasswd", StatusCode::BAD_REQUEST),
        ("/g/0/lw/../../secret.json", StatusCode::BAD_REQUEST),
        ("/g/0/%2Fetc%2Fpasswd", StatusCode::BAD_REQUEST),
        ("/g/0//etc/hosts.json", StatusCode::BAD_REQUEST),
        ("/raw/0/../secret.json", StatusCode::BAD_REQUEST),
        ("/g/0/lw/results.jsonl", StatusCode::BAD_REQUEST),
        ("/g/0/lw/tournament.json", StatusCode::BAD_REQUEST),
        ("/g/0/missing.json", StatusCode::NOT_FOUND),
        ("/g/0/dir.json", StatusCode::NOT_FOUND),
        ("/g/7/loose.json", StatusCode::NOT_FOUND),
        ("/g/x/loose.json", StatusCode::NOT_FOUND),
        ("/g/0/chess.json", StatusCode::UNPROCESSABLE_ENTITY),
        ("/g/0/broken.json.gz", StatusCode::UNPROCESSABLE_ENTITY),
        ("/t/0/nothing", StatusCode::NOT_FOUND),
        ("/t/0/..", StatusCode::BAD_REQUEST),
        ("/t/9", StatusCode::NOT_FOUND),
        ("/t/0/lw?page=abc", StatusCode::BAD_REQUEST),
        ("/t/0/lw/../../secret.json", StatusCode::BAD_REQUEST),
        (
            "/t/0/lw/replays/../../../secret.json",
            StatusCode::BAD_REQUEST,
        ),
        ("/t/0/lw/missing.json", StatusCode::NOT_FOUND),
        ("/t/0/lw/results.jsonl", StatusCode::BAD_REQUEST),
        ("/t/0/duels/report.html", StatusCode::NOT_FOUND),
        ("/f/1", StatusCode::NOT_FOUND),
        ("/f/-1", StatusCode::NOT_FOUND),
        ("/etc/passwd", StatusCode::NOT_FOUND),
        ("/g/0/%ff.json", StatusCode::BAD_REQUEST),
    ];
    #[cfg(unix)]
    let symlinks: &[(&str, StatusCode)] = &[
        ("/g/0/link.json", StatusCode::FORBIDDEN),
        ("/raw/0/link.json", StatusCode::FORBIDDEN),
        ("/g/0/escape/secret.json", StatusCode::FORBIDDEN),
        ("/t/0/escape", StatusCode::FORBIDDEN),
    ];
    #[cfg(not(unix))]
    let symlinks: &[(&str, StatusCode)] = &[];
    for (uri, expected) in cases.iter().chain(symlinks) {
        let page = get(&app, uri).await;
        assert_eq!(page.status, *expected, "{uri}: {}", page.body);
        assert!(
            page.content_type.starts_with("text/html"),
            "{uri}: an HTML page, not {}",
            page.content_type
        );
        assert!(
            page.body.contains(&format!("<h1>{}", expected.as_u16())),
            "{uri}: {}",
            page.body
        );
        assert!(!page.body.contains("\"game\""), "{uri}: leaked a file");
    }
    // The symlinked escape is not listed either.
    let index = get(&app, "/").await;
    assert!(!index.body.contains("link.json"));
    assert!(!index.body.contains("escape"));
}

#[tokio::test]
async fn bind_reports_the_address_and_serves_over_loopback() {
    let dir = tempfile::tempdir().expect("tempdir");
    common::tournament_tree(dir.path());
    let server = Server::bind(ServeOptions::view(
        common::data_dir().join("coup.json"),
        0,
        common::games(),
    ))
    .await
    .expect("bind");
    let addr = server.local_addr();
    assert!(addr.ip().is_loopback());
    assert_ne!(addr.port(), 0);
    assert_eq!(server.file_url(0), Some(format!("http://{addr}/f/0")));
    assert_eq!(server.file_url(1), None);
    let task = tokio::spawn(server.run());
    // A plain HTTP/1.0 request over loopback: the page comes back whole.
    let response = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        stream
            .write_all(b"GET /f/0 HTTP/1.0\r\nHost: localhost\r\n\r\n")
            .expect("write");
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("read");
        text
    })
    .await
    .expect("join");
    assert!(response.starts_with("HTTP/1.0 200"), "{response}");
    assert!(response.contains("Arena.start();"));
    task.abort();
}

#[tokio::test]
async fn bind_refuses_missing_inputs() {
    let missing = ServeOptions {
        games: common::games(),
        dirs: vec!["/definitely/not/here".into()],
        ..Default::default()
    };
    assert!(matches!(
        Server::bind(missing).await,
        Err(ViewerError::Io { .. })
    ));
    let file_as_dir = ServeOptions {
        games: common::games(),
        dirs: vec![common::data_dir().join("coup.json")],
        ..Default::default()
    };
    assert!(matches!(
        Server::bind(file_as_dir).await,
        Err(ViewerError::NotADirectory(_))
    ));
}

#[test]
fn export_inlines_everything() {
    for game in common::GAMES {
        let page = export_html(&common::fixture(game), &common::games()).expect("export");
        assert!(page.starts_with("<!doctype html>"));
        // Self-contained: no external script, style or fetch.
        assert!(!page.contains("src=\"http"), "{game}");
        assert!(!page.contains("<link rel=\"stylesheet\""), "{game}");
        assert!(!page.contains("fetch("), "{game}");
    }
}

#[tokio::test]
async fn a_page_of_another_domain_cannot_read_through_the_browser() {
    let (_dir, app) = setup();
    let with_host = |host: &str| {
        Request::get("/")
            .header("host", host)
            .body(Body::empty())
            .expect("request")
    };
    for host in [
        "127.0.0.1:8000",
        "localhost:8000",
        "[::1]:8000",
        "LOCALHOST",
    ] {
        let response = app
            .clone()
            .oneshot(with_host(host))
            .await
            .expect("infallible");
        assert_eq!(response.status(), StatusCode::OK, "{host}");
    }
    // DNS rebinding: the attacker's name, resolved to 127.0.0.1.
    for host in [
        "evil.example:8000",
        "127.0.0.1.evil.example",
        "localhost.evil:80",
    ] {
        let response = app
            .clone()
            .oneshot(with_host(host))
            .await
            .expect("infallible");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{host}");
    }
}

#[tokio::test]
async fn a_gzip_bomb_is_refused_without_inflating_it() {
    let (dir, app) = setup();
    let root = dir.path().join("runs");
    // 80 gzip members of 1 MB of zeros each (about 1 KB apiece): 80 MB once inflated, past the
    // cap, refused while streaming.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).expect("compress");
    let member = encoder.finish().expect("gzip");
    let bomb = member.repeat(80);
    assert!(bomb.len() < 1 << 20);
    std::fs::write(root.join("bomb.json.gz"), bomb).expect("write");
    let page = get(&app, "/g/0/bomb.json.gz").await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("larger than 64 MB"), "{}", page.body);
}

async fn status_for_host(app: &axum::Router, host: &str) -> StatusCode {
    app.clone()
        .oneshot(
            Request::get("/")
                .header("host", host)
                .body(Body::empty())
                .expect("request"),
        )
        .await
        .expect("infallible")
        .status()
}

#[tokio::test]
async fn bound_to_a_network_the_server_answers_its_address_and_the_names_given() {
    let dir = tempfile::tempdir().expect("tempdir");
    common::tournament_tree(dir.path());
    let app_on = |bind: &str, names: &[&str]| {
        router(&ServeOptions {
            games: common::games(),
            dirs: vec![dir.path().to_path_buf()],
            bind: Some(bind.parse().expect("address")),
            allowed_hosts: names.iter().map(|n| n.to_string()).collect(),
            ..Default::default()
        })
        .expect("router")
    };
    let lan = app_on("192.168.1.5", &["Arena.LAN"]);
    for host in [
        "192.168.1.5:8000",
        "arena.lan:8000",
        "localhost",
        "[::1]:8000",
    ] {
        assert_eq!(status_for_host(&lan, host).await, StatusCode::OK, "{host}");
    }
    for host in ["evil.example", "10.0.0.7:8000", "arena.lan.evil.example"] {
        assert_eq!(
            status_for_host(&lan, host).await,
            StatusCode::FORBIDDEN,
            "{host}"
        );
    }
    // Every address of the machine: any address (an address cannot be rebound), no other name.
    let everywhere = app_on("0.0.0.0", &[]);
    for host in ["10.0.0.7:8000", "[fe80::1]:8000", "127.0.0.1"] {
        assert_eq!(
            status_for_host(&everywhere, host).await,
            StatusCode::OK,
            "{host}"
        );
    }
    assert_eq!(
        status_for_host(&everywhere, "evil.example").await,
        StatusCode::FORBIDDEN
    );
    // On loopback (the default) only the loopback names.
    let (_dir, local) = setup();
    assert_eq!(
        status_for_host(&local, "192.168.1.5").await,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn a_request_that_takes_too_long_is_answered_408() {
    let dir = tempfile::tempdir().expect("tempdir");
    common::tournament_tree(dir.path());
    let app = router(&ServeOptions {
        games: common::games(),
        dirs: vec![dir.path().to_path_buf()],
        // A rebuild that never finishes (game 3 of `lw` has no stored replay).
        rebuild: Some(arena_viewer::Rebuilder(std::sync::Arc::new(|_, _| {
            Box::pin(async {
                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                Err("never".to_string())
            })
        }))),
        request_timeout: Some(std::time::Duration::from_millis(200)),
        ..Default::default()
    })
    .expect("router");
    let page = get(&app, "/g/0/lw/replays/000003.json.gz").await;
    assert_eq!(page.status, StatusCode::REQUEST_TIMEOUT, "{}", page.body);
    assert!(page.body.contains("longer than 0.2 s"), "{}", page.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn silent_connections_are_closed() {
    let server = Server::bind(ServeOptions {
        games: common::games(),
        files: vec![common::data_dir().join("coup.json")],
        idle_timeout: Some(std::time::Duration::from_millis(300)),
        ..Default::default()
    })
    .await
    .expect("bind");
    let addr = server.local_addr();
    let task = tokio::spawn(server.run());
    let closed = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        // Generous: the server closes after 0.3 s; this only bounds a broken server.
        let limit = Some(std::time::Duration::from_secs(30));
        // Silent from the start.
        let mut silent = std::net::TcpStream::connect(addr).expect("connect");
        silent.set_read_timeout(limit).expect("timeout");
        let mut byte = [0u8; 1];
        let first = silent.read(&mut byte).expect("closed, not timed out");
        // Silent after one request on a kept-alive connection.
        let mut kept = std::net::TcpStream::connect(addr).expect("connect");
        kept.set_read_timeout(limit).expect("timeout");
        kept.write_all(b"GET /f/0/raw HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .expect("write");
        let mut response = Vec::new();
        let mut buffer = [0u8; 65536];
        loop {
            match kept.read(&mut buffer).expect("closed, not timed out") {
                0 => break,
                n => response.extend_from_slice(&buffer[..n]),
            }
        }
        (first, String::from_utf8_lossy(&response).into_owned())
    })
    .await
    .expect("join");
    assert_eq!(closed.0, 0, "a silent connection is closed");
    assert!(closed.1.starts_with("HTTP/1.1 200"), "{}", closed.1);
    task.abort();
}
