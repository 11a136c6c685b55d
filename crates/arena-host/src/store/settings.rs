//! The contest's settings (`settings`): named texts the organiser's commands keep.

use sqlx::Row;

use super::{Store, db};
use crate::HostError;

impl Store {
    pub async fn setting(&self, name: &str) -> Result<Option<String>, HostError> {
        let row = sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }

    pub async fn set_setting(&self, name: &str, value: Option<&str>) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("DELETE FROM settings WHERE name = $1")
            .bind(name)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        if let Some(value) = value {
            sqlx::query("INSERT INTO settings (name, value) VALUES ($1, $2)")
                .bind(name)
                .bind(value)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)
    }
}
