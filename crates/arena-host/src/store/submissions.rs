//! Submissions (`submissions`): uploads and built-in bots, their builds, which one of a user's
//! plays, their ratings reset, their languages.

use sqlx::{Any, Row, Transaction};

use super::{SUBMISSION_COLUMNS, Store, db, now, submission_of};
use crate::HostError;
use crate::ladder::Rating;
use crate::records::Submission;

impl Store {
    /// Records a submission (state `building`, or `ready` for a built-in bot) in `league`, with a
    /// fresh rating. Returns its id.
    pub async fn add_submission(
        &self,
        user_id: i64,
        kind: &str,
        source_name: &str,
        source: Option<&[u8]>,
        source_sha256: &str,
        league: i64,
    ) -> Result<i64, HostError> {
        // Uploads get their language from their file's name (`set_language`); a zip is a folder.
        let language = if kind == "builtin" {
            "builtin"
        } else {
            "folder"
        };
        self.insert_submission(
            user_id,
            kind,
            source_name,
            source,
            source_sha256,
            league,
            language,
        )
        .await
    }

    /// Records an upload (state `building`) with its language, in one transaction: when it
    /// returns, the upload is committed whole, and an error means nothing was stored (a language
    /// set afterwards could fail on a full disk after the upload was kept, and its caller say
    /// "nothing was stored" of a submission left `building`).
    pub async fn add_upload(
        &self,
        user_id: i64,
        source_name: &str,
        source: &[u8],
        source_sha256: &str,
        league: i64,
        language: &str,
    ) -> Result<i64, HostError> {
        self.insert_submission(
            user_id,
            "upload",
            source_name,
            Some(source),
            source_sha256,
            league,
            language,
        )
        .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn insert_submission(
        &self,
        user_id: i64,
        kind: &str,
        source_name: &str,
        source: Option<&[u8]>,
        source_sha256: &str,
        league: i64,
        language: &str,
    ) -> Result<i64, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let id = Self::next_id(&mut tx, "submission").await?;
        let fresh = Rating::default();
        let state = if kind == "builtin" {
            "ready"
        } else {
            "building"
        };
        sqlx::query(
            "INSERT INTO submissions (id, user_id, kind, source_name, source, source_sha256, state, \
             build_log, active, league, mu, sigma, games, created_at, language) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, '', 0, $8, $9, $10, 0, $11, $12)",
        )
        .bind(id)
        .bind(user_id)
        .bind(kind)
        .bind(source_name)
        .bind(source.map(<[u8]>::to_vec))
        .bind(source_sha256)
        .bind(state)
        .bind(league)
        .bind(fresh.mu)
        .bind(fresh.sigma)
        .bind(now())
        .bind(language)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(id)
    }

    /// The outcome of a build. A submission that built becomes its user's active one (the others
    /// stop playing; their games already queued are cancelled).
    pub async fn finish_build(&self, id: i64, ok: bool, log: &str) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let row = sqlx::query(
            "UPDATE submissions SET state = $1, build_log = $2 WHERE id = $3 AND state = 'building' \
             RETURNING user_id",
        )
        .bind(if ok { "ready" } else { "failed" })
        .bind(log)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        if let (true, Some(row)) = (ok, row) {
            let user: i64 = row.try_get(0).map_err(db)?;
            Self::activate_in(&mut tx, user, id).await?;
        }
        tx.commit().await.map_err(db)
    }

    async fn activate_in(
        tx: &mut Transaction<'_, Any>,
        user: i64,
        id: i64,
    ) -> Result<(), HostError> {
        sqlx::query("UPDATE submissions SET active = 0 WHERE user_id = $1 AND id <> $2")
            .bind(user)
            .bind(id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        sqlx::query("UPDATE submissions SET active = 1 WHERE id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        Self::cancel_queued_of_inactive(tx).await
    }

    pub(super) async fn cancel_queued_of_inactive(
        tx: &mut Transaction<'_, Any>,
    ) -> Result<(), HostError> {
        sqlx::query(CANCEL_QUEUED_OF_INACTIVE)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Makes a submission active (a built-in bot at start-up).
    pub async fn activate(&self, user: i64, id: i64) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("UPDATE submissions SET active = active WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        Self::activate_in(&mut tx, user, id).await?;
        tx.commit().await.map_err(db)
    }

    /// An organiser stops a submission (`stopped`: it plays no more) or lets it play again.
    pub async fn set_stopped(&self, id: i64, stopped: bool) -> Result<bool, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let (from, to) = if stopped {
            ("ready", "stopped")
        } else {
            ("stopped", "ready")
        };
        let changed = sqlx::query("UPDATE submissions SET state = $1 WHERE id = $2 AND state = $3")
            .bind(to)
            .bind(id)
            .bind(from)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        Self::cancel_queued_of_inactive(&mut tx).await?;
        tx.commit().await.map_err(db)?;
        Ok(changed == 1)
    }

    /// Rerun: the submission's rating starts afresh in its league (its games stay in the record),
    /// and its rating history says so: a fresh point at the last completion (replacing that
    /// game's point, if it played it: the rating after that completion is the fresh one).
    pub async fn reset_rating(&self, id: i64) -> Result<bool, HostError> {
        let fresh = Rating::default();
        let mut tx = self.pool.begin().await.map_err(db)?;
        // The completion counter first (taking no number: its current value, locked), as
        // completions take it: a completion's ratings (read, then written back) never interleave
        // with a reset.
        let completion = Self::take_ids(&mut tx, "completion", 0).await?;
        let league: Option<i64> = sqlx::query(
            "UPDATE submissions SET mu = $1, sigma = $2, games = 0 WHERE id = $3 RETURNING league",
        )
        .bind(fresh.mu)
        .bind(fresh.sigma)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?
        .map(|row| row.try_get(0))
        .transpose()
        .map_err(db)?;
        let Some(league) = league else {
            return Ok(false);
        };
        sqlx::query(
            "INSERT INTO rating_history (submission_id, league, completion, recorded_at, mu, sigma) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (submission_id, completion, league) \
             DO UPDATE SET recorded_at = excluded.recorded_at, mu = excluded.mu, \
             sigma = excluded.sigma",
        )
        .bind(id)
        .bind(league)
        .bind(completion)
        .bind(now())
        .bind(fresh.mu)
        .bind(fresh.sigma)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    pub async fn submission(&self, id: i64) -> Result<Option<Submission>, HostError> {
        let row = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id WHERE s.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|r| submission_of(&r)).transpose().map_err(db)
    }

    /// Submissions of one user (`Some`) or of everyone, newest first.
    pub async fn submissions(&self, user: Option<i64>) -> Result<Vec<Submission>, HostError> {
        let rows = match user {
            Some(user) => sqlx::query(&format!(
                "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
                 WHERE s.user_id = $1 ORDER BY s.id DESC"
            ))
            .bind(user)
            .fetch_all(&self.pool)
            .await,
            None => sqlx::query(&format!(
                "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
                 ORDER BY s.id DESC"
            ))
            .fetch_all(&self.pool)
            .await,
        }
        .map_err(db)?;
        rows.iter()
            .map(submission_of)
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    /// The active, ready submissions: who plays.
    pub async fn players(&self) -> Result<Vec<Submission>, HostError> {
        let rows = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
             WHERE s.active = 1 AND s.state = 'ready' AND u.disabled = 0 ORDER BY s.id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(submission_of)
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    pub async fn source(&self, id: i64) -> Result<Option<Vec<u8>>, HostError> {
        let row = sqlx::query("SELECT source FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        Ok(row.and_then(|r| r.try_get::<Option<Vec<u8>>, _>(0).ok().flatten()))
    }

    /// Uploads by `user` since `since` (seconds): the rate limit counts these.
    pub async fn uploads_since(&self, user: i64, since: i64) -> Result<i64, HostError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FROM submissions WHERE user_id = $1 AND kind = 'upload' AND created_at >= $2",
        )
        .bind(user)
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// Gives uploads of an older arena (language `folder`, the migration's default) the language
    /// `language_of(kind, source_name)` says.
    pub async fn backfill_languages(
        &self,
        language_of: impl Fn(&str, &str) -> String,
    ) -> Result<(), HostError> {
        sqlx::query("UPDATE submissions SET language = 'builtin' WHERE kind = 'builtin' AND language <> 'builtin'")
            .execute(&self.pool)
            .await
            .map_err(db)?;
        let rows = sqlx::query(
            "SELECT id, kind, source_name FROM submissions WHERE language = 'folder' AND kind = 'upload'",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let kind: String = row.try_get(1).map_err(db)?;
            let name: String = row.try_get(2).map_err(db)?;
            let language = language_of(&kind, &name);
            if language != "folder" {
                self.set_language(id, &language).await?;
            }
        }
        Ok(())
    }

    /// A submission's language (what a worker must be able to run).
    pub async fn set_language(&self, id: i64, language: &str) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("UPDATE submissions SET language = $1 WHERE id = $2")
            .bind(language)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        // Its queued games' `needs` named the old language: they are checked through their seats.
        sqlx::query(
            "UPDATE games SET needs = NULL WHERE state = 'queued' AND needs IS NOT NULL \
             AND id IN (SELECT game_id FROM game_seats WHERE submission_id = $1)",
        )
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }
}

/// Cancels the queued games with a seat of a submission that no longer plays (replaced, not
/// ready, or its contestant disabled). From the queued games to their seats: the other way round
/// read every seat the inactive submissions ever played, a contest's whole history in the end.
pub(super) const CANCEL_QUEUED_OF_INACTIVE: &str = "UPDATE games SET state = 'cancelled' WHERE state = 'queued' AND EXISTS \
     (SELECT 1 FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
      JOIN users u ON u.id = s.user_id \
      WHERE gs.game_id = games.id AND (s.active = 0 OR s.state <> 'ready' OR u.disabled = 1))";
