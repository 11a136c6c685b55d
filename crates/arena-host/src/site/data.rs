//! What the pages read of the store, shaped for them: a page's filters (names, as people type
//! them) turned into the store's [`GameFilter`].

use crate::HostError;
use crate::host::Host;
use crate::store::{GameFilter, GameListing, Outcome, User};

/// Which games a list shows, as a page's query gives them.
#[derive(Default, Clone, serde::Deserialize)]
pub struct Filter {
    /// A player's name: their games (and the subject of `result` and `fault`).
    pub player: Option<String>,
    /// A submission: its games (the subject, when given).
    pub submission: Option<i64>,
    /// A player's name: games where they also play.
    pub opponent: Option<String>,
    /// `win`, `loss`, `draw`.
    pub result: Option<String>,
    /// `yes`: games the subject faulted in; `no`: finished games without.
    pub fault: Option<String>,
    pub kind: Option<String>,
    /// The last game of the previous page.
    pub before: Option<i64>,
}

/// Games a page lists at once.
pub const PAGE_SIZE: i64 = 50;

/// A text field of a query: empty means not given (a form sends every field).
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// The games `filter` lists, newest first, a page at a time; none when it names nobody known.
pub async fn games(host: &Host, filter: &Filter) -> Result<Vec<GameListing>, HostError> {
    let mut query = GameFilter {
        submission: filter.submission,
        kind: given(&filter.kind).map(str::to_string),
        before: filter.before,
        limit: PAGE_SIZE,
        ..GameFilter::default()
    };
    if let Some(name) = given(&filter.player) {
        match host.store.account_like(name).await? {
            Some(user) => query.user = Some(user.id),
            None => return Ok(Vec::new()),
        }
    }
    if let Some(name) = given(&filter.opponent) {
        match host.store.account_like(name).await? {
            Some(user) => query.opponent = Some(user.id),
            None => return Ok(Vec::new()),
        }
    }
    // Result and fault need a subject (a player or a submission): without one they are ignored.
    let subject = query.user.is_some() || query.submission.is_some();
    if subject {
        query.result = given(&filter.result).and_then(Outcome::parse);
        query.fault = match given(&filter.fault) {
            Some("yes") => Some(true),
            Some("no") => Some(false),
            _ => None,
        };
    }
    host.store.game_listing(&query).await
}

/// A submission's rating (μ, σ) after each rated game in its current league, oldest first.
pub async fn rating_history(
    host: &Host,
    submission: i64,
    league: i64,
) -> Result<Vec<(f64, f64)>, HostError> {
    Ok(host
        .store
        .rating_history(submission)
        .await?
        .into_iter()
        .filter(|p| p.league == league)
        .map(|p| (p.mu, p.sigma))
        .collect())
}

/// Asks for `games` unrated games of `user` against `opponent`.
pub async fn scrimmage(
    host: &Host,
    user: &User,
    opponent: &str,
    games: u32,
) -> Result<Vec<i64>, HostError> {
    Ok(host.request_scrimmage(user, opponent, games).await?)
}
