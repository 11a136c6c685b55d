//! What the pages read of the store, shaped for them.
//! TEMPORARY adapter until the scrimmage branch's game listing and rating history merge.

use crate::HostError;
use crate::host::Host;

/// A seat of a listed game.
pub struct SeatView {
    pub submission: i64,
    pub user: String,
    pub rank: Option<u32>,
    pub fault: Option<String>,
}

/// A listed game.
pub struct GameView {
    pub id: i64,
    pub kind: String,
    pub league: i64,
    pub state: String,
    pub finished_at: Option<i64>,
    pub error: Option<String>,
    pub seats: Vec<SeatView>,
}

/// Which games a list shows.
#[derive(Default, Clone, serde::Deserialize)]
pub struct Filter {
    pub player: Option<String>,
    pub submission: Option<i64>,
    pub opponent: Option<String>,
    /// `win`, `loss`, `draw`.
    pub result: Option<String>,
    /// `yes`: games the subject faulted in; `no`: without.
    pub fault: Option<String>,
    pub kind: Option<String>,
    pub before: Option<i64>,
}

pub const PAGE_SIZE: i64 = 50;

pub async fn games(host: &Host, filter: &Filter) -> Result<Vec<GameView>, HostError> {
    let rows = host.store.games(filter.submission, PAGE_SIZE).await?;
    let mut out = Vec::new();
    for row in rows {
        let mut seats = Vec::new();
        for (seat, id) in row.seats.iter().enumerate() {
            let user = host
                .store
                .submission(*id)
                .await?
                .map(|s| s.user)
                .unwrap_or_default();
            let rank = row
                .entry
                .as_ref()
                .and_then(|e| e["ranks"][seat].as_u64())
                .map(|r| r as u32);
            seats.push(SeatView {
                submission: *id,
                user,
                rank,
                fault: None,
            });
        }
        out.push(GameView {
            id: row.id,
            kind: row.kind,
            league: row.league,
            state: row.state,
            finished_at: None,
            error: row.error,
            seats,
        });
    }
    Ok(out)
}

/// A submission's rating after each of its rated games: (μ, σ).
pub async fn rating_history(_host: &Host, _submission: i64) -> Result<Vec<(f64, f64)>, HostError> {
    Ok(Vec::new())
}

/// Asks for `games` unrated games of `user` against `opponent`.
pub async fn scrimmage(
    _host: &Host,
    _user: &crate::store::User,
    _opponent: &str,
    _games: u32,
) -> Result<Vec<i64>, HostError> {
    Err(HostError::Refused("scrimmages are not merged yet".into()))
}
