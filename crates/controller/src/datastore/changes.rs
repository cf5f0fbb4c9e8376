//! Changes to a live booking: its row updated under its generation, and
//! the history of changes (SQL only).

use super::{Pool, Tx};
use crate::error::Result;
use crate::model::BookingChangeView;
use sqlx::Row;

/// What a change sets in a booking's row.
pub(crate) struct Changed<'a> {
    pub spec: &'a serde_json::Value,
    pub mbps: i64,
    pub tier: Option<prism_placement::Tier>,
}

/// Sets booking `id`'s spec, bandwidth and tier and makes its generation
/// one more, if it is still at generation `from` (and live). Whether it
/// was.
pub(crate) async fn apply(tx: &mut Tx, id: &str, from: i64, r: &Changed<'_>) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE bookings SET spec = $3, bandwidth_mbps = $4, tier = $5, generation = generation + 1 \
         WHERE id = $1 AND generation = $2 AND released_ms IS NULL",
    )
    .bind(id)
    .bind(from)
    .bind(r.spec.to_string())
    .bind(r.mbps)
    .bind(r.tier.map(|t| t.as_str()))
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A change accepted, as its history keeps it.
pub(crate) struct NewChange<'a> {
    pub id: &'a str,
    pub booking_id: &'a str,
    pub generation: i64,
    pub user_id: &'a str,
    pub at_ms: i64,
    pub fields: &'a [String],
    pub before: &'a serde_json::Value,
    pub after: &'a serde_json::Value,
    /// A slot's module load: its strategy and modelled time.
    pub strategy: Option<&'a str>,
    pub modelled_us: Option<i64>,
}

pub(crate) async fn insert(tx: &mut Tx, c: &NewChange<'_>) -> Result<()> {
    sqlx::query(
        "INSERT INTO booking_changes (id, booking_id, generation, user_id, at_ms, fields, before_values, after_values, strategy, modelled_us) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(c.id)
    .bind(c.booking_id)
    .bind(c.generation)
    .bind(c.user_id)
    .bind(c.at_ms)
    .bind(serde_json::to_string(c.fields).unwrap_or_default())
    .bind(c.before.to_string())
    .bind(c.after.to_string())
    .bind(c.strategy)
    .bind(c.modelled_us)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Booking `id`'s changes, oldest first.
pub(crate) async fn list(pool: &Pool, id: &str) -> Result<Vec<BookingChangeView>> {
    let rows = sqlx::query(
        "SELECT c.generation, c.at_ms, u.name AS user_name, c.fields, c.before_values, c.after_values, c.strategy, c.modelled_us \
         FROM booking_changes c JOIN users u ON u.id = c.user_id \
         WHERE c.booking_id = $1 ORDER BY c.generation",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    let json = |r: &sqlx::any::AnyRow, c: &str| -> Result<serde_json::Value> {
        Ok(serde_json::from_str(&r.try_get::<String, _>(c)?).unwrap_or_default())
    };
    rows.iter()
        .map(|r| {
            Ok(BookingChangeView {
                generation: r.try_get("generation")?,
                at_ms: r.try_get("at_ms")?,
                user: r.try_get("user_name")?,
                fields: serde_json::from_value(json(r, "fields")?).unwrap_or_default(),
                before: json(r, "before_values")?,
                after: json(r, "after_values")?,
                strategy: r.try_get("strategy")?,
                modelled_ms: r
                    .try_get::<Option<i64>, _>("modelled_us")?
                    .map(|us| us as f64 / 1e3),
            })
        })
        .collect()
}
