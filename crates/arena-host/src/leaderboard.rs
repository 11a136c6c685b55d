//! The contest's leaderboard, built in one place for the JSON API, the CSV export and the pages.

use serde::{Deserialize, Serialize};

use crate::HostError;
use crate::config::Format;
use crate::host::Host;
use crate::records::Submission;
use crate::store::{Role, User};

/// One table: a ladder's league, or a qualifier's (or final's, or KotH's) standings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct League {
    pub name: String,
    /// What `score` is: `Weng-Lin rating`, `4-player Elo`, `points`.
    pub measure: String,
    pub rows: Vec<Row>,
}

/// A player's line, best first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub rank: usize,
    pub user: String,
    pub submission: i64,
    pub score: f64,
    /// The ladder's rating uncertainty (Weng-Lin σ): the rating lies within `score ± 2σ` with
    /// about 95 % confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    pub games: i64,
}

/// The leaderboard; `frozen` when an organiser froze it and it is shown as it was then.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Board {
    pub leagues: Vec<League>,
    #[serde(default)]
    pub frozen: bool,
}

const FROZEN_SETTING: &str = "frozen_leaderboard";

/// The leaderboard as it is now, per league (best first): the ladder's Weng-Lin μ, the
/// qualifier's Elo, points in the final and KotH.
pub async fn live(host: &Host) -> Result<Board, HostError> {
    let mut leagues = Vec::new();
    if host.contest.format == Format::Ladder {
        let players = host.store.players().await?;
        for (index, league) in host.contest.leagues.iter().enumerate() {
            let mut rows: Vec<&Submission> = players
                .iter()
                .filter(|s| s.league == index as i64)
                .collect();
            rows.sort_by(|a, b| b.mu.total_cmp(&a.mu).then(a.id.cmp(&b.id)));
            leagues.push(League {
                name: league.name.clone(),
                measure: "Weng-Lin rating".into(),
                rows: rows
                    .iter()
                    .enumerate()
                    .map(|(rank, s)| Row {
                        rank: rank + 1,
                        user: s.user.clone(),
                        submission: s.id,
                        score: s.mu,
                        sigma: Some(s.sigma),
                        games: s.games,
                    })
                    .collect(),
            });
        }
        return Ok(Board {
            leagues,
            frozen: false,
        });
    }
    let names: std::collections::HashMap<i64, String> = host
        .store
        .submissions(None)
        .await?
        .into_iter()
        .map(|s| (s.id, s.user))
        .collect();
    let tables: &[(&str, &str)] = match host.contest.format {
        Format::Koth => &[("koth", "points")],
        _ => &[("final", "points"), ("qualifier", "4-player Elo")],
    };
    for (kind, measure) in tables {
        let rows = host.standings(kind).await?;
        if rows.is_empty() && *kind == "final" {
            continue;
        }
        leagues.push(League {
            name: kind.to_string(),
            measure: measure.to_string(),
            rows: rows
                .iter()
                .enumerate()
                .map(|(rank, (id, standing))| Row {
                    rank: rank + 1,
                    user: names.get(id).cloned().unwrap_or_default(),
                    submission: *id,
                    score: standing.value,
                    sigma: None,
                    games: standing.games,
                })
                .collect(),
        });
    }
    Ok(Board {
        leagues,
        frozen: false,
    })
}

/// The leaderboard as `user` may see it: the frozen one while it is frozen (organisers always
/// see the live one, marked frozen).
pub async fn for_user(host: &Host, user: &User) -> Result<Board, HostError> {
    let frozen = host.store.setting(FROZEN_SETTING).await?;
    let mut board = match (&frozen, user.role == Role::Organiser) {
        (Some(text), false) => serde_json::from_str(text)
            .map_err(|e| HostError::Database(format!("the frozen leaderboard: {e}")))?,
        _ => live(host).await?,
    };
    board.frozen = frozen.is_some();
    Ok(board)
}

/// Whether the leaderboard is frozen.
pub async fn is_frozen(host: &Host) -> Result<bool, HostError> {
    Ok(host.store.setting(FROZEN_SETTING).await?.is_some())
}

/// Freezes the leaderboard as it is now (contestants see this copy until it is thawed), or thaws.
pub async fn set_frozen(host: &Host, frozen: bool) -> Result<(), HostError> {
    if frozen {
        let board = live(host).await?;
        let text = serde_json::to_string(&board)
            .map_err(|e| HostError::Io(format!("the leaderboard: {e}")))?;
        host.store.set_setting(FROZEN_SETTING, Some(&text)).await
    } else {
        host.store.set_setting(FROZEN_SETTING, None).await
    }
}

/// The board as CSV (`league,rank,user,submission,score,sigma,games`).
pub fn csv(board: &Board) -> String {
    let mut text = String::from("league,rank,user,submission,score,sigma,games\n");
    for league in &board.leagues {
        for row in &league.rows {
            text.push_str(&format!(
                "{},{},{},{},{:.6},{},{}\n",
                league.name,
                row.rank,
                row.user,
                row.submission,
                row.score,
                row.sigma.map(|s| format!("{s:.6}")).unwrap_or_default(),
                row.games,
            ));
        }
    }
    text
}
