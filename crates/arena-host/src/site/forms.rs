//! The pages' forms: signing in and out, registering, uploading, scrimmages, the account's token
//! and sessions.

use axum::extract::{Form, Multipart, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::data::{self, Filter};
use super::{PageError, PageResult, Shared, csrf_field, layout, poster, reader, same_origin, when};
use crate::HostError;
use crate::auth::{self, AuthError};
use crate::store::Role;

/// Where to go after signing in: a path of this server, never another site.
fn local_path(next: Option<&str>) -> String {
    next.filter(|n| n.starts_with('/') && !n.starts_with("//") && !n.contains('\\'))
        .unwrap_or("/")
        .to_string()
}

/// `response` that also sets (or clears) the session cookie.
fn with_cookie(response: impl IntoResponse, cookie: &str) -> Response {
    let mut response = response.into_response();
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// A redirect that also sets (or clears) the session cookie.
fn redirect_with_cookie(to: &str, cookie: &str) -> Response {
    with_cookie(Redirect::to(to), cookie)
}

#[derive(Deserialize)]
pub struct NextQuery {
    next: Option<String>,
}

fn signin_form(next: &str, error: Option<&str>, open_registration: bool) -> Markup {
    html! {
        h1 { "Sign in" }
        @if let Some(error) = error { p.error-text { (error) } }
        form.card method="post" action="/signin" {
            input type="hidden" name="next" value=(next);
            label { "Your token (from the organiser, or from registering): "
                input #token type="password" name="token" autocomplete="current-password" required; }
            button type="submit" { "Sign in" }
        }
        @if open_registration {
            p { "New here? " a href="/register" { "Register a name" } "." }
        }
    }
}

pub async fn signin_page(State(host): State<Shared>, Query(query): Query<NextQuery>) -> Markup {
    let next = local_path(query.next.as_deref());
    layout(
        "Sign in",
        None,
        signin_form(&next, None, host.contest.open_registration),
    )
}

#[derive(Deserialize)]
pub struct SignIn {
    token: String,
    next: Option<String>,
}

pub async fn signin(
    State(host): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<SignIn>,
) -> PageResult<Response> {
    same_origin(&headers)?;
    let next = local_path(form.next.as_deref());
    let user = match auth::by_token(&host, form.token.trim()).await {
        Ok(user) => user,
        Err(AuthError::Host(e)) => return Err(e.into()),
        Err(e) => {
            let page = layout(
                "Sign in",
                None,
                signin_form(&next, Some(&e.to_string()), host.contest.open_registration),
            );
            return Ok((StatusCode::UNAUTHORIZED, page).into_response());
        }
    };
    let cookie = auth::sign_in(&host, &user, &headers)
        .await
        .map_err(|e| PageError::Server(e.to_string()))?;
    Ok(redirect_with_cookie(&next, &cookie))
}

#[derive(Deserialize)]
pub struct CsrfOnly {
    csrf: String,
}

pub async fn signout(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<CsrfOnly>,
) -> PageResult<Response> {
    let reader = poster(&host, &headers, &uri, &form.csrf).await?;
    host.store.end_session(&reader.hash).await?;
    Ok(redirect_with_cookie("/signin", &auth::signed_out_cookie()))
}

fn register_form(error: Option<&str>) -> Markup {
    html! {
        h1 { "Register" }
        @if let Some(error) = error { p.error-text { (error) } }
        form.card method="post" action="/register" {
            label { "Your name on the leaderboard (letters, digits, _ - .): "
                input #name type="text" name="name" maxlength="40" required pattern="[A-Za-z0-9_][A-Za-z0-9_.\\-]*"; }
            button type="submit" { "Register" }
        }
        p.muted { "You get a token: it is your password here and for " code { "arena submit" } ". Keep it." }
    }
}

pub async fn register_page(State(host): State<Shared>) -> PageResult<Markup> {
    if !host.contest.open_registration {
        return Err(PageError::Forbidden(
            "this contest has no open registration: ask the organiser for a token".into(),
        ));
    }
    Ok(layout("Register", None, register_form(None)))
}

#[derive(Deserialize)]
pub struct Registration {
    name: String,
}

pub async fn register(
    State(host): State<Shared>,
    headers: HeaderMap,
    peer: auth::Peer,
    Form(form): Form<Registration>,
) -> PageResult<Response> {
    same_origin(&headers)?;
    let address = auth::client_address(&host, &headers, peer.0);
    let name = form.name.trim();
    let token = match auth::register(&host, name, &address).await {
        Ok(token) => token,
        Err(e @ (HostError::Refused(_) | HostError::Conflict(_) | HostError::TooMany(_))) => {
            let status = match e {
                HostError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::BAD_REQUEST,
            };
            let page = layout("Register", None, register_form(Some(&e.to_string())));
            return Ok((status, page).into_response());
        }
        Err(e) => return Err(e.into()),
    };
    let user = auth::by_token(&host, &token)
        .await
        .map_err(|e| PageError::Server(e.to_string()))?;
    let cookie = auth::sign_in(&host, &user, &headers)
        .await
        .map_err(|e| PageError::Server(e.to_string()))?;
    let page = layout(
        "Registered",
        None,
        html! {
            h1 { "Welcome, " (user.name) }
            section.card {
                p { "Your token (shown once: keep it; it signs you in here and " code { "arena submit" } " uses it):" }
                p { code #new-token.token { (token) } }
            }
            p { a href="/" { "Go to the contest" } }
        },
    );
    Ok(with_cookie(page, &cookie))
}

/// An upload from the page: a source file or a zipped folder, as `arena submit` sends it.
pub async fn upload(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    mut multipart: Multipart,
) -> PageResult<Response> {
    let limit = usize::try_from(host.contest.limits.upload_bytes).unwrap_or(usize::MAX);
    let mut csrf = String::new();
    let mut file: Option<(String, Vec<u8>)> = None;
    let bad = |e: axum::extract::multipart::MultipartError| {
        PageError::BadRequest(format!("the upload did not arrive whole: {e}"))
    };
    while let Some(mut field) = multipart.next_field().await.map_err(bad)? {
        match field.name() {
            Some("csrf") => csrf = field.text().await.map_err(bad)?,
            Some("file") => {
                let name = field
                    .file_name()
                    .map(|n| n.rsplit(['/', '\\']).next().unwrap_or(n).to_string())
                    .unwrap_or_default();
                let mut bytes = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(bad)? {
                    if bytes.len() + chunk.len() > limit {
                        return Err(PageError::BadRequest(format!(
                            "the file is larger than the contest's {} bytes",
                            host.contest.limits.upload_bytes
                        )));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                file = Some((name, bytes));
            }
            _ => {}
        }
    }
    let reader = poster(&host, &headers, &uri, &csrf).await?;
    if reader.user().role != Role::Contestant {
        return Err(PageError::Forbidden(
            "organisers enter bots in the contest file ([[bots]]), not by upload".into(),
        ));
    }
    let Some((name, bytes)) = file.filter(|(name, _)| !name.is_empty()) else {
        return Err(PageError::BadRequest("choose a file to upload".into()));
    };
    let id = host.submit(reader.user().id, &name, bytes).await?;
    Ok(Redirect::to(&format!("/submissions/{id}")).into_response())
}

/// The reader's scrimmages, and the form to ask for more.
pub async fn scrimmages_page(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
) -> PageResult<Markup> {
    let reader = reader(&host, &headers, &uri).await?;
    let opponents: Vec<String> = {
        let mut names: Vec<String> = host
            .store
            .players()
            .await?
            .into_iter()
            .map(|s| s.user)
            .filter(|n| *n != reader.user().name)
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let games = data::games(
        &host,
        &Filter {
            player: Some(reader.user().name.clone()),
            kind: Some("scrimmage".into()),
            ..Filter::default()
        },
    )
    .await?;
    let body = html! {
        h1 { "Scrimmages" }
        p.muted { "Games against an opponent you choose. They do not change anyone's rating." }
        @if reader.user().role == Role::Contestant {
            form.card method="post" action="/scrimmages" {
                (csrf_field(&reader))
                label { "Opponent "
                    select #opponent name="opponent" required {
                        @for name in &opponents { option value=(name) { (name) } }
                    }
                }
                label { " Games " input type="number" name="games" value="4" min="1" max="20"; }
                button type="submit" { "Play them" }
            }
        }
        section #scrimmages-live data-live {
            (super::pages::games_table(&host, &games, Some(&reader.user().name), "/scrimmages"))
        }
    };
    Ok(layout("Scrimmages", Some(&reader), body))
}

#[derive(Deserialize)]
pub struct ScrimmageForm {
    csrf: String,
    opponent: String,
    games: u32,
}

pub async fn scrimmage(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<ScrimmageForm>,
) -> PageResult<Response> {
    let reader = poster(&host, &headers, &uri, &form.csrf).await?;
    data::scrimmage(&host, reader.user(), &form.opponent, form.games).await?;
    Ok(Redirect::to("/scrimmages").into_response())
}

/// The account: the token (rotate it) and sessions (sign out here or everywhere else).
pub async fn account_page(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
) -> PageResult<Markup> {
    let reader = reader(&host, &headers, &uri).await?;
    Ok(layout(
        "Account",
        Some(&reader),
        account_body(&reader, None, None),
    ))
}

fn account_body(reader: &super::Reader, token: Option<&str>, note: Option<&str>) -> Markup {
    html! {
        h1 { (reader.user().name) }
        p.muted { (reader.user().role.as_str()) " · signed in here until " (when(reader.session.expires_at)) }
        @if let Some(note) = note { p.notice { (note) } }
        @if let Some(token) = token {
            section.card {
                p { "Your new token (shown once: keep it). The old one no longer works, and every other sign-in has ended:" }
                p { code #new-token.token { (token) } }
            }
        }
        section.card {
            h2 { "Token" }
            p { "Your token signs you in here and " code { "arena submit" } " sends it. If it may have leaked, make a new one: the old one stops working at once." }
            form method="post" action="/account/rotate" {
                (csrf_field(reader))
                button #rotate type="submit" { "Make a new token" }
            }
        }
        section.card {
            h2 { "Sign-ins" }
            form.inline method="post" action="/account/sessions" {
                (csrf_field(reader))
                button type="submit" { "Sign out everywhere else" }
            }
            form.inline method="post" action="/signout" {
                (csrf_field(reader))
                button #signout type="submit" { "Sign out" }
            }
        }
    }
}

pub async fn rotate(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<CsrfOnly>,
) -> PageResult<Markup> {
    let reader = poster(&host, &headers, &uri, &form.csrf).await?;
    let token = auth::fresh_secret()?;
    host.store
        .rotate_token(
            reader.user().id,
            &crate::host::sha256_hex(token.as_bytes()),
            Some(&reader.hash),
        )
        .await?;
    Ok(layout(
        "Account",
        Some(&reader),
        account_body(&reader, Some(&token), None),
    ))
}

pub async fn end_sessions(
    State(host): State<Shared>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<CsrfOnly>,
) -> PageResult<Markup> {
    let reader = poster(&host, &headers, &uri, &form.csrf).await?;
    let ended = host
        .store
        .end_sessions_of(reader.user().id, Some(&reader.hash))
        .await?;
    Ok(layout(
        "Account",
        Some(&reader),
        account_body(
            &reader,
            None,
            Some(&format!("{ended} other sign-ins ended.")),
        ),
    ))
}
