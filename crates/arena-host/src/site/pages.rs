//! The pages people read: the leaderboard, a player, a submission (its build log, games and
//! source), the games with filters, one game in the viewer, and the live-update stream.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};

use super::data::{self, Filter};
use super::{PageError, PageResult, Reader, Shared, chart, csrf_field, layout, reader, when};
use crate::config::Format;
use crate::host::Host;
use crate::leaderboard;
use crate::records::Submission;
use crate::store::GameListing;
use crate::store::Role;

/// The league's name of index `league`.
fn league_name(host: &Host, league: i64) -> String {
    usize::try_from(league)
        .ok()
        .and_then(|i| host.contest.leagues.get(i))
        .map(|l| l.name.clone())
        .unwrap_or_else(|| league.to_string())
}

/// A player's name as a link to their page.
fn player_link(name: &str) -> Markup {
    html! { a href={ "/players/" (name) } { (name) } }
}

/// What a submission's state says to people.
fn state_badge(state: &str) -> Markup {
    let (class, text) = match state {
        "building" => ("state building", "building…"),
        "ready" => ("state ready", "ready"),
        "failed" => ("state failed", "build failed"),
        "stopped" => ("state stopped", "stopped by the organiser"),
        other => ("state", other),
    };
    html! { span class=(class) { (text) } }
}

/// Whether a submission built and so plays or played (ready, or stopped by an organiser): what
/// others may see of it, and what has a league and a rating.
fn built(submission: &Submission) -> bool {
    submission.state == "ready" || submission.state == "stopped"
}

/// The leaderboard, and the reader's own bot with the upload form.
pub async fn home(State(host): State<Shared>, headers: HeaderMap, uri: Uri) -> PageResult<Markup> {
    let reader = reader(&host, &headers, &uri).await?;
    let board = leaderboard::for_user(&host, reader.user()).await?;
    let mine = if reader.user().role == Role::Contestant {
        host.store.submissions(Some(reader.user().id)).await?
    } else {
        Vec::new()
    };
    let contest = &host.contest;
    let body = html! {
        h1 { (contest.name) }
        p.muted {
            (contest.game) " · " (contest.format.name())
            @if contest.format == Format::Ladder {
                " · leagues: "
                @for (i, league) in contest.leagues.iter().enumerate() {
                    @if i > 0 { " → " }
                    (league.name)
                }
            }
        }
        @if reader.user().role == Role::Contestant {
            section.card #mine data-live {
                h2 { "Your bot" }
                @match mine.iter().find(|s| s.active).or(mine.first()) {
                    Some(s) => {
                        p {
                            a href={ "/submissions/" (s.id) } { "Submission " (s.id) }
                            " (" (s.source_name) ") " (state_badge(&s.state))
                            @if built(s) {
                                " · league " (league_name(&host, s.league))
                                " · rating " (format!("{:.2}", s.mu)) " · " (s.games) " games"
                            }
                        }
                    }
                    None => p { "You have not uploaded a bot yet." }
                }
                (upload_form(&reader, &host))
            }
        }
        section #board data-live {
            @if board.frozen {
                p.notice {
                    "The leaderboard is frozen"
                    @if reader.is_organiser() { " for contestants (you see it live)" }
                    "."
                }
            }
            @for league in &board.leagues {
                h2 { (league.name) " " small.muted { (league.measure) } }
                @if league.rows.is_empty() {
                    p.muted { "Nobody here yet." }
                } @else {
                    div.scroll {
                        table.board {
                            thead { tr {
                                th { "#" } th { "Player" } th.num { "Score" }
                                @if league.rows.iter().any(|r| r.sigma.is_some()) {
                                    th.num { "95 % interval" }
                                }
                                th.num { "Games" } th { "Submission" }
                            } }
                            tbody {
                                @for row in &league.rows {
                                    tr.me[row.user == reader.user().name] {
                                        td { (row.rank) }
                                        td { (player_link(&row.user)) }
                                        td.num { (format!("{:.2}", row.score)) }
                                        @if let Some(sigma) = row.sigma {
                                            td.num { (format!("{:.1} – {:.1}", row.score - 2.0 * sigma, row.score + 2.0 * sigma)) }
                                        }
                                        td.num { (row.games) }
                                        td { a href={ "/submissions/" (row.submission) } { "#" (row.submission) } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(layout(&contest.name, Some(&reader), body))
}

/// The upload form (a source file or a zipped folder).
fn upload_form(reader: &Reader, host: &Host) -> Markup {
    html! {
        form.upload method="post" action="/upload" enctype="multipart/form-data" {
            (csrf_field(reader))
            label {
                "Upload a new version (a source file such as bot.py or bot.cpp, or a .zip of a folder; at most "
                (host.contest.limits.upload_bytes / 1024) " KiB): "
                input #file type="file" name="file" required;
            }
            button type="submit" { "Upload" }
        }
    }
}

/// A player's page: their bots, the current one's rating history, their latest games.
pub async fn player(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Path(name): Path<String>,
) -> PageResult<Markup> {
    let reader = reader(&host, &headers, &uri).await?;
    let account = host
        .store
        .account(&name)
        .await?
        .ok_or(PageError::NotFound)?;
    let own = account.id == reader.user().id || reader.is_organiser();
    let submissions: Vec<Submission> = host
        .store
        .submissions(Some(account.id))
        .await?
        .into_iter()
        // Others see the bots that played: not the ones still building or that failed.
        .filter(|s| own || built(s))
        .collect();
    let active = submissions.iter().find(|s| s.active);
    let history = match active {
        Some(s) => data::rating_history(&host, s.id, s.league).await?,
        None => Vec::new(),
    };
    let games = data::games(
        &host,
        &Filter {
            player: Some(account.name.clone()),
            ..Filter::default()
        },
    )
    .await?;
    let body = html! {
        h1 { (account.name) }
        p.muted {
            @match account.role {
                Role::House => "A house bot of the organiser.",
                Role::Organiser => "An organiser.",
                Role::Contestant => "A contestant.",
            }
            @if account.disabled { " " span.state.failed { "Disabled by the organiser." } }
        }
        @if account.id == reader.user().id && reader.user().role == Role::Contestant {
            section.card { (upload_form(&reader, &host)) }
        }
        @if reader.user().role == Role::Contestant && account.id != reader.user().id && active.is_some() {
            section.card {
                form method="post" action="/scrimmages" {
                    (csrf_field(&reader))
                    input type="hidden" name="opponent" value=(account.name);
                    label { "Scrimmage against " (account.name) ": "
                        input type="number" name="games" value="4" min="1" max="20";
                        " games " }
                    button type="submit" { "Play them" }
                    span.muted { " (unrated)" }
                }
            }
        }
        section #player-live data-live {
            @if let Some(s) = active {
                h2 { "Current bot: submission " a href={ "/submissions/" (s.id) } { (s.id) } }
                p { "League " (league_name(&host, s.league)) " · rating " (format!("{:.2} ± {:.2}", s.mu, 2.0 * s.sigma)) " · " (s.games) " games" }
                (chart::rating_chart(&history))
            }
            h2 { "Submissions" }
            @if submissions.is_empty() {
                p.muted { "None yet." }
            } @else {
                div.scroll { table {
                    thead { tr { th { "#" } th { "File" } th { "State" } th { "League" } th.num { "Rating" } th.num { "Games" } th { "Uploaded" } } }
                    tbody {
                        @for s in &submissions {
                            tr {
                                td { a href={ "/submissions/" (s.id) } { (s.id) } @if s.active { " (current)" } }
                                td { (s.source_name) }
                                td { (state_badge(&s.state)) }
                                @if built(s) {
                                    td { (league_name(&host, s.league)) }
                                    td.num { (format!("{:.2}", s.mu)) }
                                    td.num { (s.games) }
                                } @else {
                                    td { "—" } td.num { "—" } td.num { "—" }
                                }
                                td { (when(s.created_at)) }
                            }
                        }
                    }
                } }
            }
            h2 { "Latest games" }
            (games_table(&host, &games, Some(&account.name), &format!("/players/{}", account.name)))
            p { a href={ "/games?player=" (account.name) } { "All of " (account.name) "'s games, with filters" } }
        }
    };
    Ok(layout(&account.name, Some(&reader), body))
}

/// A submission's page: its state, build log (its owner's and organisers'), rating history and
/// games with filters.
pub async fn submission(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<i64>,
    Query(mut filter): Query<Filter>,
) -> PageResult<Markup> {
    let reader = reader(&host, &headers, &uri).await?;
    let s = host
        .store
        .submission(id)
        .await?
        .ok_or(PageError::NotFound)?;
    let own = crate::auth::may_read(reader.user(), &s);
    // Another's submission that never played is theirs alone (as the API's 404).
    if !own && !built(&s) {
        return Err(PageError::NotFound);
    }
    filter.submission = Some(s.id);
    filter.player = None;
    let games = data::games(&host, &filter).await?;
    let history = data::rating_history(&host, s.id, s.league).await?;
    let played = built(&s);
    let body = html! {
        h1 { "Submission " (s.id) " " small.muted { "by " (player_link(&s.user)) } }
        section #submission-live data-live {
            p {
                (s.source_name) " · " (state_badge(&s.state))
                @if s.active { " · current" }
                @if played {
                    " · league " (league_name(&host, s.league))
                    " · rating " (format!("{:.2} ± {:.2}", s.mu, 2.0 * s.sigma)) " · " (s.games) " games"
                }
                " · uploaded " (when(s.created_at))
            }
            @if own {
                details #build-log open[s.state == "failed" || s.state == "building"] {
                    summary {
                        @match s.state.as_str() {
                            "building" => "Build log (building…)",
                            "failed" => "Build log: the build failed",
                            _ => "Build log (the compiler's output)",
                        }
                    }
                    pre.log { @if s.build_log.is_empty() { "(nothing was printed)" } @else { (s.build_log) } }
                }
                @if s.kind == "upload" {
                    p { a href={ "/submissions/" (s.id) "/source" } { "See the source" } }
                }
            }
            @if played {
                h2 { "Rating" }
                (chart::rating_chart(&history))
            }
        }
        @if own && s.state == "failed" {
            p { a href="/" { "Upload a fixed version" } }
        }
        // A submission that never played has no games to filter (live: a build that ends well
        // brings them).
        section #games-live data-live {
            @if played || !games.is_empty() {
                h2 { "Games" }
                (filter_form(&format!("/submissions/{}", s.id), &filter, false))
                (games_table(&host, &games, Some(&s.user), &format!("/submissions/{}", s.id)))
                (pager(&format!("/submissions/{}", s.id), &filter, &games))
            }
        }
    };
    Ok(layout(&format!("Submission {}", s.id), Some(&reader), body))
}

/// A submission's source, for its owner and organisers: a text page (a zip: its download).
pub async fn source(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<i64>,
) -> PageResult<Response> {
    let reader = reader(&host, &headers, &uri).await?;
    let s = host
        .store
        .submission(id)
        .await?
        .ok_or(PageError::NotFound)?;
    if !crate::auth::may_read(reader.user(), &s) {
        return Err(PageError::NotFound);
    }
    let bytes = host.store.source(s.id).await?.unwrap_or_default();
    match String::from_utf8(bytes) {
        Ok(text) if !s.source_name.ends_with(".zip") => Ok(layout(
            &format!("Source of submission {}", s.id),
            Some(&reader),
            html! {
                h1 { (s.source_name) " " small.muted { "submission " a href={ "/submissions/" (s.id) } { (s.id) } } }
                pre.source { (text) }
            },
        )
        .into_response()),
        Ok(text) => Ok(download(&s.source_name, text.into_bytes())),
        Err(bytes) => Ok(download(&s.source_name, bytes.into_bytes())),
    }
}

fn download(name: &str, bytes: Vec<u8>) -> Response {
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    // Names are plain (check_name's letters); quotes cannot occur.
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// Every game, with filters and pages.
pub async fn games(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Query(filter): Query<Filter>,
) -> PageResult<Markup> {
    let reader = reader(&host, &headers, &uri).await?;
    let games = data::games(&host, &filter).await?;
    let body = html! {
        h1 { "Games" }
        (filter_form("/games", &filter, true))
        section #games-live data-live {
            (games_table(&host, &games, filter.player.as_deref(), "/games"))
            (pager("/games", &filter, &games))
        }
    };
    Ok(layout("Games", Some(&reader), body))
}

/// The filters of a game list (`with_player`: the list of every game may be narrowed to one
/// player; a submission's list is its own).
fn filter_form(action: &str, filter: &Filter, with_player: bool) -> Markup {
    let chosen = |value: &Option<String>, option: &str| value.as_deref() == Some(option);
    html! {
        form.filters method="get" action=(action) {
            @if with_player {
                label { "Player " input type="text" name="player" value=[filter.player.as_deref()] size="12"; }
            }
            label { "Opponent " input type="text" name="opponent" value=[filter.opponent.as_deref()] size="12"; }
            label { "Result "
                select name="result" {
                    option value="" { "any" }
                    option value="win" selected[chosen(&filter.result, "win")] { "won" }
                    option value="loss" selected[chosen(&filter.result, "loss")] { "lost" }
                    option value="draw" selected[chosen(&filter.result, "draw")] { "drawn" }
                }
            }
            label { "Faults "
                select name="fault" {
                    option value="" { "any" }
                    option value="yes" selected[chosen(&filter.fault, "yes")] { "with a fault" }
                    option value="no" selected[chosen(&filter.fault, "no")] { "without" }
                }
            }
            label { "Kind "
                select name="kind" {
                    option value="" { "any" }
                    @for kind in ["placement", "ladder", "scrimmage", "qualifier", "final", "koth"] {
                        option value=(kind) selected[chosen(&filter.kind, kind)] { (kind) }
                    }
                }
            }
            button type="submit" { "Show" }
        }
    }
}

/// The link to the next page of a game list (games are newest first; the next page starts
/// before the last one shown).
fn pager(action: &str, filter: &Filter, games: &[GameListing]) -> Markup {
    let next = (games.len() as i64 >= data::PAGE_SIZE)
        .then(|| games.last().map(|g| g.id))
        .flatten();
    let mut query: Vec<(String, String)> = Vec::new();
    for (key, value) in [
        ("player", &filter.player),
        ("opponent", &filter.opponent),
        ("result", &filter.result),
        ("fault", &filter.fault),
        ("kind", &filter.kind),
    ] {
        if let Some(value) = value.as_ref().filter(|v| !v.is_empty()) {
            query.push((key.into(), value.clone()));
        }
    }
    let link = |before: Option<i64>| {
        let mut parts: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", arena_viewer::url_path(v)))
            .collect();
        if let Some(before) = before {
            parts.push(format!("before={before}"));
        }
        if parts.is_empty() {
            action.to_string()
        } else {
            format!("{action}?{}", parts.join("&"))
        }
    };
    html! {
        nav.pager {
            @if filter.before.is_some() { a href=(link(None)) { "« Newest" } }
            @if let Some(next) = next { a #next-page href=(link(Some(next))) { "Older »" } }
        }
    }
}

/// Games as a table: players by name (`subject`'s seat marked), their ranks and faults; each
/// game opens in the viewer, whose way back leads to `back` (this page).
pub(super) fn games_table(
    host: &Host,
    games: &[GameListing],
    subject: Option<&str>,
    back: &str,
) -> Markup {
    html! {
        @if games.is_empty() {
            p.muted { "No games here." }
        } @else {
            div.scroll { table.games {
                thead { tr { th { "Game" } th { "Kind" } th { "League" } th { "Players (rank)" } th { "State" } th { "Finished" } } }
                tbody {
                    @for g in games {
                        tr {
                            td { a.game href={ "/games/" (g.id) "?back=" (arena_viewer::url_path(back)) } { "#" (g.id) } }
                            td { (g.kind) }
                            td { (league_name(host, g.league)) }
                            td {
                                @for (i, seat) in g.players.iter().enumerate() {
                                    @if i > 0 { " · " }
                                    span.seat.me[subject == Some(seat.user.as_str())] title={ "submission " (seat.submission) } {
                                        (player_link(&seat.user))
                                        @if let Some(rank) = seat.rank { " (" (rank) ")" }
                                        @if let Some(fault) = &seat.fault { " " span.fault title=(fault) { "fault" } }
                                    }
                                }
                            }
                            td { (g.state) @if let Some(error) = &g.error { " " span.fault title=(error) { "error" } } }
                            td { @if let Some(t) = g.finished_at { (when(t)) } }
                        }
                    }
                }
            } }
        }
    }
}

#[derive(serde::Deserialize)]
pub struct ViewerQuery {
    /// The page the game was opened from (this server's path), for the viewer's way back.
    back: Option<String>,
}

/// One game: in arena's viewer once played (with a way back), its players and state before.
pub async fn viewer(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<i64>,
    Query(query): Query<ViewerQuery>,
) -> PageResult<Response> {
    let reader = reader(&host, &headers, &uri).await?;
    let back_href = query
        .back
        .filter(|b| b.starts_with('/') && !b.starts_with("//") && !b.contains('\\'))
        .unwrap_or_else(|| "/games".into());
    match host.visible_replay(reader.user(), id).await? {
        Some(replay) => {
            let back = arena_viewer::Back {
                href: back_href,
                label: "back to the contest".into(),
                command: None,
            };
            let page =
                arena_viewer::viewer_html(&replay.to_string(), Some(&back), &host.viewer_games())
                    .map_err(|e| PageError::Server(format!("replay {id}: {e}")))?;
            // The viewer is one file with its script and style inline: its scripts alone may run,
            // by a nonce fresh for each answer (the replay's data is JSON, whose `<` is escaped, so
            // no tag in it can carry the nonce). Its drawing sets inline styles, which a nonce
            // would forbid: styles stay allowed inline (they run no code).
            let nonce = crate::auth::fresh_secret()?;
            let page = page
                .replacen("<script>", &format!("<script nonce=\"{nonce}\">"), 1)
                .replacen(
                    "<script type=\"application/json\"",
                    &format!("<script nonce=\"{nonce}\" type=\"application/json\""),
                    1,
                );
            let policy = format!(
                "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; \
                 img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; \
                 frame-ancestors 'none'; base-uri 'none'"
            );
            let mut response = axum::response::Html(page).into_response();
            if let Ok(value) = HeaderValue::from_str(&policy) {
                response
                    .headers_mut()
                    .insert(header::CONTENT_SECURITY_POLICY, value);
            }
            Ok(response)
        }
        None => {
            // Not played yet (or not at all): what there is to say about it. The newest game
            // below `id + 1` is this one if it exists: one row, not a page.
            let game = host
                .store
                .game_listing(&crate::store::GameFilter {
                    before: Some(id.saturating_add(1)),
                    limit: 1,
                    ..Default::default()
                })
                .await?
                .into_iter()
                .find(|g| g.id == id)
                .ok_or(PageError::NotFound)?;
            let body = html! {
                h1 { "Game " (id) }
                section #game-live data-live {
                    p { "This game is " strong { (game.state) } "; its replay shows here once it is played." }
                    (games_table(&host, std::slice::from_ref(&game), None, &back_href))
                }
                p { a href=(back_href) { "← back" } }
            };
            Ok(layout(&format!("Game {id}"), Some(&reader), body).into_response())
        }
    }
}

/// Server-sent events: `change` whenever the contest changed (games queued, started or
/// finished, submissions built, accounts disabled), with the store's change marker as its data; the
/// pages' script then refreshes their live parts. The first event comes at once. Needs a session,
/// as the pages do.
pub async fn events(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
) -> PageResult<Sse<impl futures::Stream<Item = Result<Event, Infallible>>>> {
    reader(&host, &headers, &uri).await?;
    let feed = host
        .live
        .get_or_init(|| live_feed(std::sync::Arc::downgrade(&host)))
        .clone();
    let stream = futures::stream::unfold((feed, true), |(mut feed, first)| async move {
        if !first && feed.changed().await.is_err() {
            return None;
        }
        let marker = feed.borrow_and_update().clone();
        let event = Event::default().event("change").data(marker);
        Some((Ok(event), (feed, false)))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// One task per host that looks at the store's change marker once a second while a page listens,
/// and tells every listener when it moved. It holds the host weakly: it ends with it.
fn live_feed(host: std::sync::Weak<Host>) -> tokio::sync::watch::Receiver<String> {
    let (tell, feed) = tokio::sync::watch::channel(String::new());
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let Some(host) = host.upgrade() else {
                return;
            };
            // The host keeps one receiver: more means a page listens.
            if tell.receiver_count() <= 1 {
                continue;
            }
            // A database error is skipped: the next look may do better.
            if let Ok(marker) = host.store.change_marker().await {
                tell.send_if_modified(|last| {
                    let moved = *last != marker;
                    *last = marker;
                    moved
                });
            }
        }
    });
    feed
}
