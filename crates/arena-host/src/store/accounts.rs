//! Accounts that hold: names no one can pass off as another's, sessions of the pages with an
//! expiry, tokens rotated and revoked, accounts the organiser disables (`users`, `sessions`).

use sqlx::{Any, Row, Transaction};

use super::users::{User, name_key, user_of};
use super::{Store, db, now};
use crate::HostError;

/// A signed-in browser, as its cookie finds it.
#[derive(Clone, Debug)]
pub struct Session {
    pub user: User,
    /// What the session's forms carry and must give back (cross-site request forgery).
    pub csrf: String,
    pub expires_at: i64,
}

/// An account as the organiser's page lists it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub role: String,
    pub disabled: bool,
    /// From the contest file (its token is the file's until rotated) or registered.
    pub from_file: bool,
    pub created_at: i64,
    pub registered_from: Option<String>,
    pub sessions: i64,
}

impl Store {
    /// The name already there that `name` would pass for, if any.
    pub(super) async fn look_alike(
        tx: &mut Transaction<'_, Any>,
        name: &str,
    ) -> Result<Option<String>, HostError> {
        let row = sqlx::query("SELECT name FROM users WHERE name_key = $1 LIMIT 1")
            .bind(name_key(name))
            .fetch_optional(&mut **tx)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }

    /// Fills the folded names of rows made before they existed (once, when the store opens).
    pub(super) async fn backfill_name_keys(&self) -> Result<(), HostError> {
        let rows = sqlx::query("SELECT id, name FROM users WHERE name_key IS NULL")
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let name: String = row.try_get(1).map_err(db)?;
            sqlx::query("UPDATE users SET name_key = $1 WHERE id = $2")
                .bind(name_key(&name))
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(db)?;
        }
        Ok(())
    }

    /// Registrations since `since` (seconds since 1970): from `address`, or from anywhere.
    pub async fn registrations_since(
        &self,
        address: Option<&str>,
        since: i64,
    ) -> Result<i64, HostError> {
        let row = match address {
            Some(address) => {
                sqlx::query(
                    "SELECT COUNT(*) FROM users WHERE registered_from = $1 AND created_at >= $2",
                )
                .bind(address)
                .bind(since)
                .fetch_one(&self.pool)
                .await
            }
            None => sqlx::query(
                "SELECT COUNT(*) FROM users WHERE registered_from IS NOT NULL AND created_at >= $1",
            )
            .bind(since)
            .fetch_one(&self.pool)
            .await,
        }
        .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// A session for `user` that ends `seconds` from now, under the cookie whose SHA-256 is
    /// `id_hash`; `csrf` is what its forms carry. Sessions that ended are removed on the way.
    pub async fn create_session(
        &self,
        user: i64,
        id_hash: &str,
        csrf: &str,
        seconds: i64,
    ) -> Result<i64, HostError> {
        let now = now();
        let expires = now.saturating_add(seconds);
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        sqlx::query(
            "INSERT INTO sessions (id_hash, user_id, csrf, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id_hash)
        .bind(user)
        .bind(csrf)
        .bind(now)
        .bind(expires)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(expires)
    }

    /// The session whose cookie hashes to `id_hash`, unless it ended (expired, signed out) or its
    /// account may no longer sign in (house bots never may).
    pub async fn session(&self, id_hash: &str) -> Result<Option<Session>, HostError> {
        let row = sqlx::query(
            "SELECT u.id, u.name, u.role, u.disabled, s.csrf, s.expires_at FROM sessions s \
             JOIN users u ON u.id = s.user_id \
             WHERE s.id_hash = $1 AND s.expires_at > $2 AND u.role <> 'house'",
        )
        .bind(id_hash)
        .bind(now())
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|row| {
            Ok(Session {
                user: user_of(&row)?,
                csrf: row.try_get(4)?,
                expires_at: row.try_get(5)?,
            })
        })
        .transpose()
        .map_err(db)
    }

    /// Ends one session (signing out).
    pub async fn end_session(&self, id_hash: &str) -> Result<(), HostError> {
        sqlx::query("DELETE FROM sessions WHERE id_hash = $1")
            .bind(id_hash)
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Ends every session of `user` but `keep` (the one asking, when it asks to stay signed in).
    pub async fn end_sessions_of(&self, user: i64, keep: Option<&str>) -> Result<u64, HostError> {
        let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2")
            .bind(user)
            .bind(keep.unwrap_or(""))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(done.rows_affected())
    }

    /// A new token for `user` (its SHA-256): the old one stops working at once, and so does every
    /// session but `keep`.
    pub async fn rotate_token(
        &self,
        user: i64,
        token_hash: &str,
        keep: Option<&str>,
    ) -> Result<bool, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let changed =
            sqlx::query("UPDATE users SET token_hash = $1 WHERE id = $2 AND role <> 'house'")
                .bind(token_hash)
                .bind(user)
                .execute(&mut *tx)
                .await
                .map_err(db)?
                .rows_affected();
        sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2")
            .bind(user)
            .bind(keep.unwrap_or(""))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(changed == 1)
    }

    /// The organiser revokes `user`'s token: it no longer signs in anywhere until it is given a
    /// new one (rotated by the organiser, or a changed token in the contest file).
    pub async fn revoke_token(&self, user: i64) -> Result<bool, HostError> {
        // No SHA-256 looks like this: nothing matches it.
        self.rotate_token(user, &format!("revoked:{user}:{}", now()), None)
            .await
    }

    /// The organiser disables an account (it cannot sign in, its sessions end, its queued games
    /// are cancelled and none are scheduled for it) or enables it again.
    pub async fn set_disabled(&self, user: i64, disabled: bool) -> Result<bool, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let changed = sqlx::query(
            "UPDATE users SET disabled = $1 WHERE id = $2 AND disabled <> $1 AND role <> 'organiser'",
        )
        .bind(i64::from(disabled))
        .bind(user)
        .execute(&mut *tx)
        .await
        .map_err(db)?
        .rows_affected();
        if disabled {
            sqlx::query("DELETE FROM sessions WHERE user_id = $1")
                .bind(user)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            Self::cancel_queued_of_inactive(&mut tx).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(changed == 1)
    }

    /// Every account, by name, with its live sessions counted.
    pub async fn accounts(&self) -> Result<Vec<Account>, HostError> {
        let rows = sqlx::query(
            "SELECT u.id, u.name, u.role, u.disabled, u.from_file, u.created_at, u.registered_from, \
             (SELECT COUNT(*) FROM sessions s WHERE s.user_id = u.id AND s.expires_at > $1) \
             FROM users u ORDER BY u.name",
        )
        .bind(now())
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|row| {
                Ok(Account {
                    id: row.try_get(0)?,
                    name: row.try_get(1)?,
                    role: row.try_get(2)?,
                    disabled: row.try_get::<i64, _>(3)? != 0,
                    from_file: row.try_get::<i64, _>(4)? != 0,
                    created_at: row.try_get(5)?,
                    registered_from: row.try_get(6)?,
                    sessions: row.try_get(7)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    /// The account whose name `name` passes for (the same ignoring case and look-alikes: what
    /// people type in a filter), if any.
    pub async fn account_like(&self, name: &str) -> Result<Option<User>, HostError> {
        let row = sqlx::query(
            "SELECT id, name, role, disabled FROM users WHERE name_key = $1 ORDER BY id LIMIT 1",
        )
        .bind(name_key(name))
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|row| user_of(&row)).transpose().map_err(db)
    }

    /// The account called `name` (exactly), if any.
    pub async fn account(&self, name: &str) -> Result<Option<User>, HostError> {
        let row = sqlx::query("SELECT id, name, role, disabled FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|row| user_of(&row)).transpose().map_err(db)
    }
}

#[cfg(test)]
mod tests {
    use super::name_key;

    fn same(a: &str, b: &str) -> bool {
        name_key(a) == name_key(b)
    }

    #[test]
    fn names_that_pass_for_others_fold_together() {
        for (a, b) in [
            ("alice", "Alice"),
            ("alice", "ALICE"),
            ("alice", "a1ice"),
            ("alice", "AIice"),
            ("alice", "aIice"),
            ("ALICE", "ALlCE"),
            ("alice", "ALlCE"),
            ("bob0", "bobO"),
            ("modern", "rnodern"),
            ("alice", "\u{0430}lice"), // Cyrillic а
        ] {
            assert!(same(a, b), "{a} and {b} should pass for each other");
        }
        for (a, b) in [("alice", "alicia"), ("bob", "rob"), ("ann", "anna")] {
            assert!(!same(a, b), "{a} and {b} are different names");
        }
    }
}
