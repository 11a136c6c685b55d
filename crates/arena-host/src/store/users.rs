//! The contest's people (`users`): from the contest file or registered, and signing in.

use sqlx::Row;

use super::{Store, db, now};
use crate::HostError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Contestant,
    Organiser,
    /// The organiser's built-in bots and bosses: no one signs in as them.
    House,
}

impl Role {
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::Contestant => "contestant",
            Role::Organiser => "organiser",
            Role::House => "house",
        }
    }
    pub(crate) fn parse(text: &str) -> Role {
        match text {
            "organiser" => Role::Organiser,
            "house" => Role::House,
            _ => Role::Contestant,
        }
    }
}

/// A name folded so that names that pass for each other fold alike: lowercased, then UTS #39's
/// skeleton (confusables.txt: `1` and `l`, `0` and `O`, `rn` and `m`, Cyrillic `а` and Latin
/// `a`, ...), lowercased again, and `i` taken as `l`: case and look-alikes mix (`AIice` with a
/// capital i passes for `alice`, and `ALlCE` for `ALICE`), so once case is gone `i` and `l` are one
/// letter. It refuses a few honest pairs (`bill` and `blil`), which is the safe side.
pub fn name_key(name: &str) -> String {
    let skeleton: String = unicode_security::skeleton(&name.to_lowercase()).collect();
    skeleton
        .to_lowercase()
        .chars()
        .map(|c| if c == 'i' { 'l' } else { c })
        .collect()
}

/// A user from a row whose first columns are `id, name, role, disabled`.
pub(super) fn user_of(row: &sqlx::any::AnyRow) -> Result<User, sqlx::Error> {
    Ok(User {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        role: Role::parse(&row.try_get::<String, _>(2)?),
        disabled: row.try_get::<i64, _>(3)? != 0,
    })
}

#[derive(Clone, Debug)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub role: Role,
    /// The organiser disabled the account: it may not sign in, its bots do not play.
    pub disabled: bool,
}

impl Store {
    /// Makes or updates the user `name` (the contest file is the authority on its people).
    pub async fn ensure_user(
        &self,
        name: &str,
        token_hash: &str,
        role: Role,
    ) -> Result<i64, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        // A write first: SQLite takes its write lock here, not halfway through.
        // A token the person rotated since (see `rotate_token`) stands until the file's own token
        // changes: the file gives the first token, not every later one.
        let updated = sqlx::query(
            "UPDATE users SET token_hash = CASE WHEN file_token_hash = $1 THEN token_hash ELSE $1 END, \
             file_token_hash = $1, role = $2, from_file = 1 WHERE name = $3 RETURNING id",
        )
        .bind(token_hash)
        .bind(role.as_str())
        .bind(name)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        let id = match updated {
            Some(row) => row.try_get(0).map_err(db)?,
            None => {
                let id = Self::next_id(&mut tx, "user").await?;
                sqlx::query(
                    "INSERT INTO users (id, name, token_hash, role, created_at, from_file, \
                     file_token_hash, name_key) VALUES ($1, $2, $3, $4, $5, 1, $3, $6)",
                )
                .bind(id)
                .bind(name)
                .bind(token_hash)
                .bind(role.as_str())
                .bind(now())
                .bind(name_key(name))
                .execute(&mut *tx)
                .await
                .map_err(db)?;
                id
            }
        };
        tx.commit().await.map_err(db)?;
        Ok(id)
    }

    /// Users of the contest file that it no longer lists (`keep`: the names it lists) can no
    /// longer sign in, and their submissions stop playing. Returns their names.
    pub async fn revoke_missing(&self, keep: &[String]) -> Result<Vec<String>, HostError> {
        let rows = sqlx::query("SELECT id, name FROM users WHERE from_file = 1")
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        let mut revoked = Vec::new();
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let name: String = row.try_get(1).map_err(db)?;
            if keep.contains(&name) {
                continue;
            }
            let mut tx = self.pool.begin().await.map_err(db)?;
            // No SHA-256 looks like this: the old token no longer matches anything.
            // Listed again later, the file's token counts again (`file_token_hash` forgotten).
            sqlx::query(
                "UPDATE users SET token_hash = $1, from_file = 0, file_token_hash = NULL WHERE id = $2",
            )
                .bind(format!("revoked:{name}"))
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            sqlx::query("UPDATE submissions SET active = 0 WHERE user_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            Self::cancel_queued_of_inactive(&mut tx).await?;
            tx.commit().await.map_err(db)?;
            revoked.push(name);
        }
        Ok(revoked)
    }

    /// A new contestant (open registration) registering from `address`: its id, or the name
    /// already there that `name` would pass for (the same ignoring case and look-alikes).
    pub async fn register(
        &self,
        name: &str,
        token_hash: &str,
        address: &str,
    ) -> Result<Result<i64, String>, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        // The counter's update comes first: it takes the write lock (SQLite) or the counter row's
        // lock (PostgreSQL), so two registrations of look-alike names cannot both pass the check.
        let id = Self::next_id(&mut tx, "user").await?;
        if let Some(taken) = Self::look_alike(&mut tx, name).await? {
            return Ok(Err(taken));
        }
        sqlx::query(
            "INSERT INTO users (id, name, token_hash, role, created_at, name_key, \
             registered_from) VALUES ($1, $2, $3, 'contestant', $4, $5, $6)",
        )
        .bind(id)
        .bind(name)
        .bind(token_hash)
        .bind(now())
        .bind(name_key(name))
        .bind(address)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(Ok(id))
    }

    pub async fn user_by_token(&self, token_hash: &str) -> Result<Option<User>, HostError> {
        let row = sqlx::query(
            "SELECT id, name, role, disabled FROM users WHERE token_hash = $1 AND role <> 'house'",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|row| user_of(&row)).transpose().map_err(db)
    }

    pub async fn user_by_name(&self, name: &str) -> Result<Option<i64>, HostError> {
        let row = sqlx::query("SELECT id FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }
}
