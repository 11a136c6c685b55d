//! The records the store keeps and the ladder's pure rules read or make: a submission, a game to
//! queue. Here, apart from the store, so that the ladder needs nothing of the database.

/// A submission as the pages and the scheduler see it (its source is read separately).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Submission {
    pub id: i64,
    pub user_id: i64,
    pub user: String,
    pub kind: String,
    pub source_name: String,
    pub source_sha256: String,
    pub state: String,
    pub build_log: String,
    pub active: bool,
    pub league: i64,
    pub mu: f64,
    pub sigma: f64,
    pub games: i64,
    pub created_at: i64,
}

/// A game to put in the queue.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub kind: String,
    pub league: i64,
    pub variant: Option<String>,
    /// Submission per seat.
    pub seats: Vec<i64>,
    /// The round (qualifier, final, koth); 0 in the ladder.
    pub round: i64,
}
