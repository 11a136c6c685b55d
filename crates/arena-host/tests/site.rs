//! The contest site's accounts and headers, each rule tested through the router as a browser or
//! `arena submit` would meet it: security headers on every answer, names that cannot pass for
//! another's, registration limits, sessions (cookie, expiry, CSRF, other sites' forms), token
//! rotation and revocation (kept across restarts), disabled accounts, and error pages.

use std::sync::Arc;

use arena_host::store::NewGame;
use arena_host::{Contest, Host, HostOptions};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

const ORG: &str = "organiser-token-0123456789abcdef";
const ALICE: &str = "alice-token-0123456789abcdef0123";
const BOB: &str = "bob-token-0123456789abcdef012345";

fn contest(extra: &str, bob_token: &str) -> Contest {
    Contest::parse(&format!(
        r#"
name = "site"
game = "spring2021"
format = "ladder"
workers = 0
{extra}

[[contestants]]
name = "alice"
token = "{ALICE}"

[[contestants]]
name = "bob"
token = "{bob_token}"

[[organisers]]
name = "org"
token = "{ORG}"

[[bots]]
name = "house"
bot = "builtin:random"
"#
    ))
    .expect("contest")
}

async fn open(dir: &std::path::Path, contest: Contest) -> Arc<Host> {
    try_open(dir, contest).await.expect("host")
}

async fn try_open(
    dir: &std::path::Path,
    contest: Contest,
) -> Result<Arc<Host>, arena_host::HostError> {
    Host::open(HostOptions {
        contest,
        db: format!("sqlite://{}", dir.join("c.db").display()),
        schema: None,
        data_dir: dir.join("data"),
        game: Arc::from(arena_core::registry::stream_entry(
            arena_spring2021::definition(),
        )),
        sandbox: None,
        sandbox_factory: None,
        pin_cpus: false,
        workers: Default::default(),
    })
    .await
}

/// The house bot's submission.
async fn house_bot(host: &Arc<Host>) -> i64 {
    host.store
        .players()
        .await
        .expect("players")
        .into_iter()
        .find(|s| s.user == "house")
        .expect("the house bot")
        .id
}

/// Queues a ladder game of `seats` in the first league; its id.
async fn queue_ladder_game(host: &Arc<Host>, seats: Vec<i64>) -> i64 {
    host.store
        .schedule(
            &NewGame {
                kind: "ladder".into(),
                league: 0,
                variant: None,
                seats,
                round: 0,
            },
            1,
        )
        .await
        .expect("game")
}

/// One request through the router: its status, headers and body.
struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("JSON: {}", self.body))
    }
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
    /// The session cookie this answer sets (`arena_session=...`).
    fn cookie(&self) -> String {
        self.header("set-cookie")
            .split(';')
            .next()
            .expect("a cookie")
            .to_string()
    }
    /// The CSRF token of the page's forms.
    fn csrf(&self) -> String {
        let at = self
            .body
            .find("name=\"csrf\" value=\"")
            .expect("a form with a CSRF field")
            + "name=\"csrf\" value=\"".len();
        self.body[at..]
            .split('"')
            .next()
            .expect("value")
            .to_string()
    }
}

async fn send(host: &Arc<Host>, request: Request<Body>) -> Answer {
    let response = arena_host::api::router(Arc::clone(host))
        .oneshot(request)
        .await
        .expect("response");
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), 64 << 20)
        .await
        .expect("body");
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

async fn get(host: &Arc<Host>, uri: &str, cookie: Option<&str>) -> Answer {
    let mut request = Request::builder().uri(uri);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    send(host, request.body(Body::empty()).expect("request")).await
}

async fn api(host: &Arc<Host>, method: &str, uri: &str, token: &str, body: &str) -> Answer {
    send(
        host,
        Request::builder()
            .method(method)
            .uri(uri)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .expect("request"),
    )
    .await
}

/// A form posted from this server's page (`origin`: the `Origin` header a browser sends).
async fn post_form(
    host: &Arc<Host>,
    uri: &str,
    cookie: Option<&str>,
    form: &str,
    origin: Option<&str>,
) -> Answer {
    let mut request = Request::builder()
        .method("POST")
        .uri(uri)
        .header("host", "contest.example")
        .header("content-type", "application/x-www-form-urlencoded");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    send(host, request.body(Body::from(form.to_string())).expect("r")).await
}

async fn sign_in(host: &Arc<Host>, token: &str) -> String {
    let answer = post_form(
        host,
        "/signin",
        None,
        &format!("token={token}&next=/"),
        Some("http://contest.example"),
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    answer.cookie()
}

#[tokio::test]
async fn every_answer_carries_the_security_headers_and_errors_are_pages() {
    let dir = tempfile::tempdir().expect("dir");
    let host = open(dir.path(), contest("", BOB)).await;
    let cookie = sign_in(&host, ALICE).await;
    for answer in [
        get(&host, "/", Some(&cookie)).await,
        get(&host, "/signin", None).await,
        get(&host, "/static/site.js", None).await,
        get(&host, "/no/such/page", Some(&cookie)).await,
        api(&host, "GET", "/api/leaderboard", ALICE, "").await,
        api(&host, "GET", "/api/nothing", ALICE, "").await,
    ] {
        let csp = answer.header("content-security-policy");
        assert!(
            csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
            "{csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "pages run no inline script");
        assert_eq!(answer.header("x-content-type-options"), "nosniff");
        assert_eq!(answer.header("x-frame-options"), "DENY");
        assert_eq!(answer.header("referrer-policy"), "same-origin");
    }
    // A page nobody has is a page, with its status; the API's is JSON.
    let missing = get(&host, "/no/such/page", Some(&cookie)).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(
        missing.body.contains("<h1>Not found</h1>"),
        "{}",
        missing.body
    );
    let missing = get(&host, "/players/nobody", Some(&cookie)).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.body.contains("<!DOCTYPE html>"));
    let missing = get(&host, "/games/999999", Some(&cookie)).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.body.contains("<!DOCTYPE html>"), "{}", missing.body);
    let missing = api(&host, "GET", "/api/nothing", ALICE, "").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.json()["error"].is_string());
    // Pages without a session send the reader to sign in, and back.
    let away = get(&host, "/games?player=alice", None).await;
    assert_eq!(away.status, StatusCode::SEE_OTHER);
    assert_eq!(
        away.header("location"),
        "/signin?next=/games%3Fplayer%3Dalice"
    );
}

#[tokio::test]
async fn sessions_expire_end_and_need_their_csrf_token_and_this_sites_origin() {
    let dir = tempfile::tempdir().expect("dir");
    let host = open(dir.path(), contest("", BOB)).await;
    let signed_in = post_form(
        &host,
        "/signin",
        None,
        &format!("token={ALICE}&next=/players/alice"),
        None,
    )
    .await;
    let set = signed_in.header("set-cookie").to_string();
    assert!(
        set.contains("HttpOnly")
            && set.contains("SameSite=Strict")
            && set.contains("Max-Age=604800"),
        "{set}"
    );
    assert!(!set.contains("Secure"), "plain HTTP: {set}");
    assert_eq!(signed_in.header("location"), "/players/alice");
    // Behind a proxy that terminates HTTPS, the cookie never travels over plain HTTP.
    let proxied = send(
        &host,
        Request::builder()
            .method("POST")
            .uri("/signin")
            .header("content-type", "application/x-www-form-urlencoded")
            .header("x-forwarded-proto", "https")
            .body(Body::from(format!("token={ALICE}")))
            .expect("r"),
    )
    .await;
    assert!(proxied.header("set-cookie").contains("; Secure"));
    let cookie = signed_in.cookie();
    // The cookie is not the token: the token is never stored in the browser.
    assert!(!cookie.contains(ALICE));
    // A wrong token is said on the page.
    let wrong = post_form(&host, "/signin", None, "token=nope&next=/", None).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.body.contains("unknown token"));
    // Another site's form cannot sign anyone in, nor act with the cookie.
    let foreign = post_form(
        &host,
        "/signin",
        None,
        &format!("token={ALICE}"),
        Some("https://evil.example"),
    )
    .await;
    assert_eq!(foreign.status, StatusCode::FORBIDDEN);
    let page = get(&host, "/account", Some(&cookie)).await;
    assert_eq!(page.status, StatusCode::OK);
    let csrf = page.csrf();
    let forged = post_form(
        &host,
        "/account/rotate",
        Some(&cookie),
        "csrf=guess",
        Some("http://contest.example"),
    )
    .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "a wrong CSRF token");
    let forged = post_form(
        &host,
        "/account/rotate",
        Some(&cookie),
        &format!("csrf={csrf}"),
        Some("https://evil.example"),
    )
    .await;
    assert_eq!(
        forged.status,
        StatusCode::FORBIDDEN,
        "another site's origin"
    );
    assert_eq!(
        api(&host, "GET", "/api/me", ALICE, "").await.status,
        StatusCode::OK
    );
    // The session reads the API but cannot write through it (no bearer token).
    let read = get(&host, "/api/me", Some(&cookie)).await;
    assert_eq!(read.status, StatusCode::OK);
    let write = send(
        &host,
        Request::builder()
            .method("POST")
            .uri("/api/token/rotate")
            .header("cookie", &cookie)
            .body(Body::empty())
            .expect("r"),
    )
    .await;
    assert_eq!(write.status, StatusCode::UNAUTHORIZED);
    // An expired session is no session.
    let alice = host
        .store
        .account("alice")
        .await
        .expect("db")
        .expect("alice");
    host.store
        .create_session(
            alice.id,
            &arena_host::host::sha256_hex(b"old-cookie"),
            "x",
            -1,
        )
        .await
        .expect("session");
    let expired = get(&host, "/", Some("arena_session=old-cookie")).await;
    assert_eq!(expired.status, StatusCode::SEE_OTHER);
    // Signing out ends it.
    let out = post_form(
        &host,
        "/signout",
        Some(&cookie),
        &format!("csrf={csrf}"),
        Some("http://contest.example"),
    )
    .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.header("set-cookie").contains("Max-Age=0"));
    assert_eq!(
        get(&host, "/", Some(&cookie)).await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn tokens_rotate_and_are_revoked_and_a_rotated_token_outlives_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let host = open(dir.path(), contest("", BOB)).await;
    // Rotation on the page: the old token and the other sessions end, this one stays.
    let here = sign_in(&host, BOB).await;
    let elsewhere = sign_in(&host, BOB).await;
    let page = get(&host, "/account", Some(&here)).await;
    let rotated = post_form(
        &host,
        "/account/rotate",
        Some(&here),
        &format!("csrf={}", page.csrf()),
        None,
    )
    .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.body);
    let at = rotated
        .body
        .find("id=\"new-token\"")
        .expect("the new token");
    let new_token: String = rotated.body[at..]
        .split('>')
        .nth(1)
        .expect("text")
        .split('<')
        .next()
        .expect("token")
        .to_string();
    assert_eq!(new_token.len(), 64);
    assert_eq!(
        api(&host, "GET", "/api/me", BOB, "").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api(&host, "GET", "/api/me", &new_token, "").await.status,
        StatusCode::OK
    );
    assert_eq!(get(&host, "/", Some(&here)).await.status, StatusCode::OK);
    assert_eq!(
        get(&host, "/", Some(&elsewhere)).await.status,
        StatusCode::SEE_OTHER
    );
    // Through the API too.
    let again = api(&host, "POST", "/api/token/rotate", &new_token, "").await;
    assert_eq!(again.status, StatusCode::OK);
    let third = again.json()["token"].as_str().expect("token").to_string();
    assert_eq!(
        api(&host, "GET", "/api/me", &new_token, "").await.status,
        StatusCode::UNAUTHORIZED
    );
    // A restart with the same contest file keeps the rotated token (the file gave the first one).
    host.store.close().await;
    drop(host);
    let host = open(dir.path(), contest("", BOB)).await;
    assert_eq!(
        api(&host, "GET", "/api/me", &third, "").await.status,
        StatusCode::OK
    );
    assert_eq!(
        api(&host, "GET", "/api/me", BOB, "").await.status,
        StatusCode::UNAUTHORIZED
    );
    // The organiser revokes it: nothing signs in as bob until he gets a new one.
    let revoked = api(&host, "POST", "/api/users/bob/revoke", ORG, "").await;
    assert_eq!(revoked.status, StatusCode::OK, "{}", revoked.body);
    assert_eq!(
        api(&host, "GET", "/api/me", &third, "").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api(&host, "POST", "/api/users/bob/revoke", ALICE, "")
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let handed = api(&host, "POST", "/api/users/bob/token", ORG, "").await;
    let handed = handed.json()["token"].as_str().expect("token").to_string();
    assert_eq!(
        api(&host, "GET", "/api/me", &handed, "").await.status,
        StatusCode::OK
    );
    // A new token in the contest file counts from the next start.
    host.store.close().await;
    drop(host);
    let changed = "bob-new-file-token-0123456789abcdef";
    let host = open(dir.path(), contest("", changed)).await;
    assert_eq!(
        api(&host, "GET", "/api/me", changed, "").await.status,
        StatusCode::OK
    );
    assert_eq!(
        api(&host, "GET", "/api/me", &handed, "").await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn names_that_pass_for_another_are_refused_and_registration_is_limited() {
    let dir = tempfile::tempdir().expect("dir");
    let host = open(
        dir.path(),
        contest(
            "open_registration = true\n[limits]\nregistrations_per_address_per_hour = 2\nregistrations_per_hour = 4\naddress_header = \"X-Forwarded-For\"",
            BOB,
        ),
    )
    .await;
    let register = |name: &str, from: &str| {
        let host = Arc::clone(&host);
        let request = Request::builder()
            .method("POST")
            .uri("/api/register")
            .header("content-type", "application/json")
            .header("x-forwarded-for", from)
            .body(Body::from(format!("{{\"name\":\"{name}\"}}")))
            .expect("r");
        async move { send(&host, request).await }
    };
    for (name, status) in [
        ("Alice", StatusCode::CONFLICT),
        ("ALICE", StatusCode::CONFLICT),
        ("a1ice", StatusCode::CONFLICT),
        ("AIice", StatusCode::CONFLICT),
        ("B0B", StatusCode::CONFLICT),
        ("Org", StatusCode::CONFLICT),
        ("HOUSE", StatusCode::CONFLICT),
        ("\u{0430}lice", StatusCode::BAD_REQUEST),
    ] {
        let answer = register(name, "10.0.0.9").await;
        assert_eq!(answer.status, status, "{name}: {}", answer.body);
    }
    // Refused names are not counted against the address.
    assert_eq!(register("ivan", "10.0.0.9").await.status, StatusCode::OK);
    // Two from one address, then 429; another address may still register, until the hour's 3.
    assert_eq!(register("carol", "10.0.0.1").await.status, StatusCode::OK);
    assert_eq!(register("dave", "10.0.0.1").await.status, StatusCode::OK);
    let third = register("erin", "10.0.0.1").await;
    assert_eq!(
        third.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        third.body
    );
    assert!(
        third.json()["error"]
            .as_str()
            .unwrap_or("")
            .contains("one address")
    );
    // A look-alike of a registered name is refused too.
    assert_eq!(
        register("CAROL", "10.0.0.2").await.status,
        StatusCode::CONFLICT
    );
    // The page's form says the same.
    let page = post_form(&host, "/register", None, "name=Carol", None).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert!(page.body.contains("passes for carol"), "{}", page.body);
    assert_eq!(register("frank", "10.0.0.2").await.status, StatusCode::OK);
    // ivan, carol, dave, frank: the hour's 4 from anywhere.
    let over = register("grace", "10.0.0.3").await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS, "{}", over.body);
    // The contest file may not list look-alikes either.
    let twice = Contest::parse(&format!(
        "name = \"x\"\ngame = \"spring2021\"\nformat = \"ladder\"\n[[contestants]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n[[contestants]]\nname = \"ALlCE\"\ntoken = \"{BOB}\"\n"
    ))
    .expect("parsed");
    let other = tempfile::tempdir().expect("dir");
    let error = try_open(other.path(), twice)
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("listed twice"), "{error}");
}

#[tokio::test]
async fn a_disabled_account_cannot_sign_in_and_its_games_stop() {
    let dir = tempfile::tempdir().expect("dir");
    let host = open(dir.path(), contest("", BOB)).await;
    let bob_cookie = sign_in(&host, BOB).await;
    let bob = host.store.account("bob").await.expect("db").expect("bob");
    // Bob's bot, ready, with a game queued against the house bot.
    let bot = host
        .store
        .add_submission(bob.id, "builtin", "random", None, "-", 0)
        .await
        .expect("submission");
    host.store.activate(bob.id, bot).await.expect("active");
    let house = house_bot(&host).await;
    let game = queue_ladder_game(&host, vec![bot, house]).await;
    assert!(
        host.store
            .players()
            .await
            .expect("p")
            .iter()
            .any(|s| s.id == bot)
    );
    // Contestants cannot disable anyone; the organiser can, from the dashboard's form.
    assert_eq!(
        api(&host, "POST", "/api/users/bob/disable", ALICE, "")
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let org = sign_in(&host, ORG).await;
    let dashboard = get(&host, "/organiser", Some(&org)).await;
    assert_eq!(dashboard.status, StatusCode::OK);
    let done = post_form(
        &host,
        "/organiser/users/bob",
        Some(&org),
        &format!("csrf={}&action=disable", dashboard.csrf()),
        None,
    )
    .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    // Signed out everywhere, refused with the reason, his games cancelled, no longer a player.
    assert_eq!(
        get(&host, "/", Some(&bob_cookie)).await.status,
        StatusCode::SEE_OTHER
    );
    let refused = api(&host, "GET", "/api/me", BOB, "").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.body.contains("disabled"), "{}", refused.body);
    let signin = post_form(&host, "/signin", None, &format!("token={BOB}"), None).await;
    assert!(signin.body.contains("disabled"), "{}", signin.body);
    let games = api(&host, "GET", "/api/games", ORG, "").await.json();
    let state = games
        .as_array()
        .and_then(|g| g.iter().find(|g| g["id"] == game))
        .map(|g| g["state"].clone());
    assert_eq!(state, Some(Value::from("cancelled")));
    assert!(
        !host
            .store
            .players()
            .await
            .expect("p")
            .iter()
            .any(|s| s.id == bot)
    );
    let board = api(&host, "GET", "/api/leaderboard", ORG, "").await.json();
    assert!(!board.to_string().contains("\"bob\""), "{board}");
    // Organisers cannot be disabled; bob can be enabled again and plays.
    assert_eq!(
        api(&host, "POST", "/api/users/org/disable", ORG, "")
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    let enabled = api(&host, "POST", "/api/users/bob/enable", ORG, "").await;
    assert_eq!(enabled.json()["changed"], Value::Bool(true));
    assert_eq!(
        api(&host, "GET", "/api/me", BOB, "").await.status,
        StatusCode::OK
    );
    assert!(
        host.store
            .players()
            .await
            .expect("p")
            .iter()
            .any(|s| s.id == bot)
    );
}

#[test]
fn example_and_short_tokens_are_weak() {
    let example = Contest::parse(include_str!(
        "../../../examples/contest/spring2021-ladder.toml"
    ))
    .expect("the example");
    let weak = example.weak_tokens();
    assert!(
        weak.iter()
            .any(|w| w.contains("organiser") && w.contains("example")),
        "{weak:?}"
    );
    let short = contest("", "bob-short-token-0123");
    let weak = short.weak_tokens();
    assert_eq!(weak.len(), 1, "{weak:?}");
    assert!(weak[0].contains("bob") && weak[0].contains("shorter than 32"));
    assert!(contest("", BOB).weak_tokens().is_empty());
}

/// The pages' live feed: a first event at once, then one when the contest changes (a game queued
/// here), with a new marker; without a session, the sign-in page.
#[tokio::test]
async fn the_live_feed_says_when_the_contest_changed() {
    use futures::StreamExt;
    let dir = tempfile::tempdir().expect("dir");
    let host = open(dir.path(), contest("", BOB)).await;
    assert_eq!(
        get(&host, "/events", None).await.status,
        StatusCode::SEE_OTHER
    );
    let cookie = sign_in(&host, ALICE).await;
    let response = arena_host::api::router(Arc::clone(&host))
        .oneshot(
            Request::builder()
                .uri("/events")
                .header("cookie", &cookie)
                .body(Body::empty())
                .expect("r"),
        )
        .await
        .expect("response");
    assert_eq!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream")
    );
    let mut body = response.into_body().into_data_stream();
    // The next `change` event's data (keep-alive comments skipped), waiting at most a minute.
    async fn next_change(
        body: &mut (impl futures::Stream<Item = Result<axum::body::Bytes, axum::Error>> + Unpin),
    ) -> String {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut text = String::new();
        loop {
            let chunk = tokio::time::timeout_at(deadline, body.next())
                .await
                .expect("an event within a minute")
                .expect("the stream goes on")
                .expect("bytes");
            text.push_str(&String::from_utf8_lossy(&chunk));
            if let Some(at) = text.find("event: change\ndata: ") {
                let rest = &text[at + "event: change\ndata: ".len()..];
                if let Some(end) = rest.find('\n') {
                    return rest[..end].to_string();
                }
            }
        }
    }
    let mut marker = next_change(&mut body).await;
    // The feed starts empty and looks at the store within a second.
    if marker.is_empty() {
        marker = next_change(&mut body).await;
    }
    assert!(!marker.is_empty());
    let house = house_bot(&host).await;
    queue_ladder_game(&host, vec![house, house]).await;
    let moved = next_change(&mut body).await;
    assert_ne!(moved, marker, "a queued game moves the marker");
}
