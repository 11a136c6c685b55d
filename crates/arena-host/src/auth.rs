//! Who is asking: a bearer token (the API, `arena submit`) or a session cookie (the pages).
//!
//! Tokens are long-lived secrets that the organiser gives or registration returns; they can be
//! rotated and revoked but do not expire. Signing in on the pages trades the token for a session:
//! a random cookie (`HttpOnly`, `SameSite=Strict`) that ends after the contest's `session_hours`,
//! on signing out, on rotation and when the account is disabled. A session's writes must carry its
//! CSRF token (forms hold it in a hidden field): the cookie alone never changes anything.

use std::net::SocketAddr;

use axum::http::{HeaderMap, header};

use serde_json::{Value, json};

use crate::HostError;
use crate::host::{Host, hex, sha256_hex};
use crate::records::Submission;
use crate::store::{Role, Session, User};

/// The pages' cookie.
pub const SESSION_COOKIE: &str = "arena_session";

/// Why a request has no user.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("sign in: send `Authorization: Bearer TOKEN` with the token the organiser gave you")]
    Missing,
    #[error("unknown token (rotated or revoked?): ask the organiser for a new one")]
    Unknown,
    #[error("this account was disabled by the contest's organiser")]
    Disabled,
    #[error("the form is out of date (signed in elsewhere since?): reload the page and try again")]
    BadCsrf,
    #[error(transparent)]
    Host(#[from] HostError),
}

/// A secret nobody can guess: 256 bits from the operating system's generator, as hex (a secret,
/// not a game's randomness: nothing to replay, so no seed).
pub fn fresh_secret() -> Result<String, HostError> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| HostError::Io(format!("cannot read /dev/urandom for a secret: {e}")))?;
    Ok(hex(&bytes))
}

/// The bearer token of a request, if it sends one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// The session cookie of a request, if it sends one.
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            pair.trim()
                .strip_prefix(SESSION_COOKIE)
                .and_then(|rest| rest.strip_prefix('='))
        })
        .filter(|t| !t.is_empty())
}

/// Whether `user` may read `submission`'s own things (source, build log, its bots' stderr): its
/// owner and the organisers.
pub fn may_read(user: &User, submission: &Submission) -> bool {
    submission.user_id == user.id || user.role == Role::Organiser
}

/// The user of a bearer token.
pub async fn by_token(host: &Host, token: &str) -> Result<User, AuthError> {
    let user = host
        .store
        .user_by_token(&sha256_hex(token.as_bytes()))
        .await?
        .ok_or(AuthError::Unknown)?;
    if user.disabled {
        return Err(AuthError::Disabled);
    }
    Ok(user)
}

/// The session of a request's cookie, with the cookie's hash (what the store knows it by).
pub async fn session(host: &Host, headers: &HeaderMap) -> Result<(Session, String), AuthError> {
    let cookie = session_cookie(headers).ok_or(AuthError::Missing)?;
    let hash = sha256_hex(cookie.as_bytes());
    let session = host.store.session(&hash).await?.ok_or(AuthError::Unknown)?;
    if session.user.disabled {
        return Err(AuthError::Disabled);
    }
    Ok((session, hash))
}

/// The user of an API request: its bearer token, or for reading (`read_only`) the pages' session
/// (a viewer link opened in a new tab carries only the cookie). A write needs the token: a
/// cross-site form cannot set the header.
pub async fn api_user(
    host: &Host,
    headers: &HeaderMap,
    read_only: bool,
) -> Result<User, AuthError> {
    if let Some(token) = bearer(headers) {
        return by_token(host, token).await;
    }
    if read_only && session_cookie(headers).is_some() {
        return Ok(session(host, headers).await?.0.user);
    }
    Err(AuthError::Missing)
}

/// Whether the request reached the server over HTTPS (a reverse proxy terminating TLS says so in
/// `X-Forwarded-Proto`): its cookie is then `Secure`, never sent over plain HTTP.
pub fn over_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

/// Signs `user` in on the pages: a new session; returns its `Set-Cookie` header (`Secure` when
/// the request came over HTTPS).
pub async fn sign_in(host: &Host, user: &User, headers: &HeaderMap) -> Result<String, AuthError> {
    let cookie = fresh_secret()?;
    let csrf = fresh_secret()?;
    let seconds = i64::from(host.contest.limits.session_hours) * 3600;
    host.store
        .create_session(user.id, &sha256_hex(cookie.as_bytes()), &csrf, seconds)
        .await?;
    let secure = if over_https(headers) { "; Secure" } else { "" };
    Ok(format!(
        "{SESSION_COOKIE}={cookie}; Path=/; HttpOnly; SameSite=Strict; Max-Age={seconds}{secure}"
    ))
}

/// The `Set-Cookie` header that removes the session cookie.
pub fn signed_out_cookie() -> String {
    format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// The client's address, for the registration limit: the contest's `address_header` when it is
/// behind a proxy (`X-Forwarded-For`'s first address), else the connection's.
pub fn client_address(host: &Host, headers: &HeaderMap, peer: Option<SocketAddr>) -> String {
    if let Some(name) = &host.contest.limits.address_header
        && let Some(value) = headers.get(name.as_str()).and_then(|v| v.to_str().ok())
        && let Some(first) = value.split(',').next().map(str::trim)
        && !first.is_empty()
    {
        return first.to_string();
    }
    peer.map(|p| p.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Registers `name` from `address` (open registration), within the contest's limits; returns the
/// new token, shown once.
pub async fn register(host: &Host, name: &str, address: &str) -> Result<String, HostError> {
    if !host.contest.open_registration {
        return Err(HostError::Refused(
            "this contest has no open registration: ask the organiser for a token".into(),
        ));
    }
    crate::config::check_name(name).map_err(|e| HostError::Refused(e.to_string()))?;
    let limits = &host.contest.limits;
    let hour_ago = crate::store::now() - 3600;
    if host
        .store
        .registrations_since(Some(address), hour_ago)
        .await?
        >= i64::from(limits.registrations_per_address_per_hour)
    {
        return Err(HostError::TooMany(format!(
            "{} registrations an hour from one address at most: try again later",
            limits.registrations_per_address_per_hour
        )));
    }
    if host.store.registrations_since(None, hour_ago).await?
        >= i64::from(limits.registrations_per_hour)
    {
        return Err(HostError::TooMany(format!(
            "the contest takes {} registrations an hour at most: try again later",
            limits.registrations_per_hour
        )));
    }
    let token = fresh_secret()?;
    match host
        .store
        .register(name, &sha256_hex(token.as_bytes()), address)
        .await?
    {
        Ok(_) => Ok(token),
        Err(taken) if taken == name => Err(HostError::Conflict(format!(
            "the name {name} is taken: choose another"
        ))),
        Err(taken) => Err(HostError::Conflict(format!(
            "the name {name} passes for {taken}, who is already registered (names that differ \
             only in case or by look-alike letters are one name): choose another"
        ))),
    }
}

/// The connection's address, when the server was started with it (tests call the router
/// without one).
pub struct Peer(pub Option<std::net::SocketAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Peer(
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0),
        ))
    }
}

/// What an organiser does to an account (the API's and the organiser page's one path): `disable`,
/// `enable`, `revoke` (its token stops working) or `token` (a new token for it, returned).
pub async fn account_action(host: &Host, name: &str, action: &str) -> Result<Value, HostError> {
    let user = host
        .store
        .account(name)
        .await?
        .ok_or_else(|| HostError::Refused(format!("no account called {name}")))?;
    if user.role == Role::House {
        return Err(HostError::Refused(format!(
            "{name} is a house bot: the contest file enters and removes it"
        )));
    }
    let changed = match action {
        "disable" if user.role == Role::Organiser => {
            return Err(HostError::Refused(
                "an organiser cannot be disabled here: remove them from the contest file".into(),
            ));
        }
        "disable" | "enable" => {
            let changed = host
                .store
                .set_disabled(user.id, action == "disable")
                .await?;
            host.changed.notify_waiters();
            changed
        }
        "revoke" => host.store.revoke_token(user.id).await?,
        "token" => {
            let token = fresh_secret()?;
            host.store
                .rotate_token(user.id, &crate::host::sha256_hex(token.as_bytes()), None)
                .await?;
            return Ok(json!({ "name": name, "token": token }));
        }
        other => {
            return Err(HostError::Refused(format!(
                "no action {other}: disable, enable, revoke or token"
            )));
        }
    };
    Ok(json!({ "name": name, "action": action, "changed": changed }))
}
