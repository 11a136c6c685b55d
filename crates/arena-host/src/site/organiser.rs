//! The organiser's dashboard: workers, the queue, submissions, accounts, disk and database health,
//! and what an organiser does from there (accounts, submissions, freezing the leaderboard).

use std::time::Instant;

use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::{PageError, PageResult, Reader, Shared, csrf_field, layout, poster, reader, when};
use crate::host::Host;
use crate::leaderboard;

/// The reader, if an organiser.
fn organisers_only(reader: Reader) -> PageResult<Reader> {
    if !reader.is_organiser() {
        return Err(PageError::Forbidden(
            "only the contest's organisers may see this page or do that".into(),
        ));
    }
    Ok(reader)
}

/// An organiser's form post (see [`poster`]).
async fn organiser_poster(
    host: &Host,
    headers: &HeaderMap,
    uri: &Uri,
    csrf: &str,
) -> PageResult<Reader> {
    organisers_only(poster(host, headers, uri, csrf).await?)
}

/// Free and total bytes of the filesystem holding `path` (statvfs: std has no call for it).
fn disk_space(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a zeroed struct the call fills.
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    let block = stat.f_frsize as u64;
    Some((stat.f_bavail as u64 * block, stat.f_blocks as u64 * block))
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1 << 20) as f64)
}

pub async fn dashboard(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
) -> PageResult<Markup> {
    let reader = organisers_only(reader(&host, &headers, &uri).await?)?;
    let started = Instant::now();
    let queued = host.store.count_games("queued").await?;
    let database_ms = started.elapsed().as_secs_f64() * 1000.0;
    let running = host.store.count_games("running").await?;
    let done = host.store.count_games("done").await?;
    let failed = host.store.count_games("failed").await?;
    let workers = host.store.workers().await?;
    let accounts = host.store.accounts().await?;
    let submissions = host.store.submissions(None).await?;
    let frozen = leaderboard::is_frozen(&host).await?;
    let last_error = host.last_error.lock().ok().and_then(|e| e.clone());
    let disk = disk_space(host.data_dir());
    let body = html! {
        h1 { "Organiser" }
        section #organiser-live data-live {
            div.tiles {
                div.tile { strong { (queued) } " queued" }
                div.tile { strong { (running) } " running" }
                div.tile { strong { (done) } " done" }
                div.tile { strong { (failed) } " failed" }
                div.tile {
                    @match disk {
                        Some((free, total)) => {
                            strong.warn[free < total / 20] { (mib(free)) } " free of " (mib(total)) " (data folder)"
                        }
                        None => "disk: unknown",
                    }
                }
                div.tile {
                    "database (" (format!("{:?}", host.store.backend()).to_lowercase()) "): "
                    strong { (format!("{database_ms:.1} ms")) } " to count the queue"
                }
            }
            @if let Some(error) = last_error {
                p.notice { "Last database error the workers met (and retried): " (error) }
            }
            h2 { "Workers" }
            div.scroll { table {
                thead { tr { th { "Worker" } th { "State" } th.num { "Jobs" } th.num { "Heartbeat" } th.num { "Done" } th.num { "Failed" } th { "Holds" } } }
                tbody {
                    @for w in &workers {
                        tr {
                            td { (w.id) }
                            td { (w.state) @if !w.alive && w.state == "running" { " (silent: lost?)" } }
                            td.num { (w.jobs) }
                            td.num { (format!("{:.1} s ago", w.heartbeat_age_ms as f64 / 1000.0)) }
                            td.num { (w.games_done) }
                            td.num { (w.games_failed) }
                            td { @for g in &w.games_held { a href={ "/games/" (g) } { "#" (g) } " " } }
                        }
                    }
                }
            } }
            h2 { "Submissions" }
            div.scroll { table {
                thead { tr { th { "#" } th { "Player" } th { "File" } th { "State" } th.num { "Games" } th { "Uploaded" } th { "Act" } } }
                tbody {
                    @for s in submissions.iter().take(100) {
                        tr {
                            td { a href={ "/submissions/" (s.id) } { (s.id) } @if s.active { "*" } }
                            td { a href={ "/players/" (s.user) } { (s.user) } }
                            td { (s.source_name) }
                            td { (s.state) }
                            td.num { (s.games) }
                            td { (when(s.created_at)) }
                            td {
                                form.inline method="post" action={ "/organiser/submissions/" (s.id) } {
                                    (csrf_field(&reader))
                                    @if s.state == "ready" { button name="action" value="stop" { "stop" } }
                                    @if s.state == "stopped" { button name="action" value="resume" { "resume" } }
                                    @if s.state == "ready" { button name="action" value="rerun" { "rerun" } }
                                }
                            }
                        }
                    }
                }
            } }
        }
        h2 { "Accounts" }
        div.scroll { table #accounts {
            thead { tr { th { "Name" } th { "Role" } th { "From" } th.num { "Sign-ins" } th { "Made" } th { "Act" } } }
            tbody {
                @for a in &accounts {
                    tr {
                        td { a href={ "/players/" (a.name) } { (a.name) } @if a.disabled { " " span.state.failed { "disabled" } } }
                        td { (a.role) }
                        td { @if a.from_file { "contest file" } @else { "registered" (a.registered_from.as_deref().map(|r| format!(" from {r}")).unwrap_or_default()) } }
                        td.num { (a.sessions) }
                        td { (when(a.created_at)) }
                        td {
                            @if a.role == "contestant" {
                                form.inline method="post" action={ "/organiser/users/" (a.name) } {
                                    (csrf_field(&reader))
                                    @if a.disabled {
                                        button name="action" value="enable" { "enable" }
                                    } @else {
                                        button name="action" value="disable" data-name=(a.name) { "disable" }
                                    }
                                    button name="action" value="revoke" { "revoke token" }
                                    button name="action" value="token" { "new token" }
                                }
                            }
                        }
                    }
                }
            }
        } }
        h2 { "Leaderboard" }
        form method="post" action="/organiser/freeze" {
            (csrf_field(&reader))
            input type="hidden" name="frozen" value=(if frozen { "false" } else { "true" });
            button type="submit" { @if frozen { "Unfreeze the leaderboard" } @else { "Freeze the leaderboard for contestants" } }
        }
    };
    Ok(layout("Organiser", Some(&reader), body))
}

#[derive(Deserialize)]
pub struct Action {
    csrf: String,
    action: String,
}

pub async fn user_action(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Path(name): Path<String>,
    Form(form): Form<Action>,
) -> PageResult<Response> {
    let reader = organiser_poster(&host, &headers, &uri, &form.csrf).await?;
    let done = crate::auth::account_action(&host, &name, &form.action).await?;
    if let Some(token) = done.get("token").and_then(|t| t.as_str()) {
        return Ok(layout(
            "New token",
            Some(&reader),
            html! {
                h1 { "A new token for " (name) }
                p { "Hand it to them; their old token and sign-ins no longer work." }
                p { code #new-token.token { (token) } }
                p { a href="/organiser" { "Back to the dashboard" } }
            },
        )
        .into_response());
    }
    Ok(Redirect::to("/organiser").into_response())
}

pub async fn submission_action(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<i64>,
    Form(form): Form<Action>,
) -> PageResult<Response> {
    organiser_poster(&host, &headers, &uri, &form.csrf).await?;
    match form.action.as_str() {
        "stop" => {
            host.store.set_stopped(id, true).await?;
        }
        "resume" => {
            host.store.set_stopped(id, false).await?;
        }
        "rerun" => {
            host.store.reset_rating(id).await?;
        }
        other => return Err(PageError::BadRequest(format!("no action {other}"))),
    }
    host.changed.notify_waiters();
    Ok(Redirect::to("/organiser").into_response())
}

#[derive(Deserialize)]
pub struct Freeze {
    csrf: String,
    frozen: bool,
}

pub async fn freeze(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<Freeze>,
) -> PageResult<Response> {
    organiser_poster(&host, &headers, &uri, &form.csrf).await?;
    leaderboard::set_frozen(&host, form.frozen).await?;
    Ok(Redirect::to("/organiser").into_response())
}
