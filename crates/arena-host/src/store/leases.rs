//! Named leases (`leases`): which host process schedules, on the database's clock.

use sqlx::Row;

use super::{Store, db};
use crate::HostError;

impl Store {
    /// Takes or renews the named lease for `holder` for `ms`: `true` when `holder` has it (it was
    /// free, ran out, or was already `holder`'s).
    pub async fn try_lease(&self, name: &str, holder: &str, ms: i64) -> Result<bool, HostError> {
        let now = self.now_ms_sql();
        let changed = sqlx::query(&format!(
            "INSERT INTO leases (name, holder, until_ms) VALUES ($1, $2, {now} + $3) \
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms \
             WHERE leases.holder = excluded.holder OR leases.until_ms < {now}"
        ))
        .bind(name)
        .bind(holder)
        .bind(ms)
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        Ok(changed == 1)
    }

    /// Who holds a named lease (whether or not it ran out).
    pub async fn lease_holder(&self, name: &str) -> Result<Option<String>, HostError> {
        let row = sqlx::query("SELECT holder FROM leases WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }

    /// Gives a named lease up (a host that stops lets another schedule at once).
    pub async fn release_lease(&self, name: &str, holder: &str) -> Result<(), HostError> {
        sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
            .bind(name)
            .bind(holder)
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }
}
