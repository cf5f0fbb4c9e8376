//! Resource types (the registry): the SQL and the row mapping.

use super::{Pool, unique_violation};
use crate::error::{Error, Result};
use crate::model::ResourceType;
use sqlx::Row;

fn type_of(r: &sqlx::any::AnyRow) -> Result<ResourceType> {
    let schema: String = r.try_get("schema")?;
    let ops: String = r.try_get("operations")?;
    Ok(ResourceType {
        name: r.try_get("name")?,
        description: r.try_get("description")?,
        schema: serde_json::from_str(&schema).unwrap_or_default(),
        operations: serde_json::from_str(&ops).unwrap_or_default(),
        builtin: r.try_get::<i64, _>("builtin")? != 0,
    })
}

const INSERT_TYPE: &str = "INSERT INTO resource_types \
    (name, description, schema, operations, builtin, created_ms) VALUES ($1, $2, $3, $4, $5, $6)";

/// Runs `sql`, an insert of type `t`'s columns in [`INSERT_TYPE`]'s order.
async fn write_type(
    pool: &Pool,
    sql: &str,
    t: &ResourceType,
    now: i64,
) -> std::result::Result<(), sqlx::Error> {
    sqlx::query(sql)
        .bind(&t.name)
        .bind(&t.description)
        .bind(t.schema.to_string())
        .bind(serde_json::to_string(&t.operations).unwrap_or_default())
        .bind(t.builtin as i64)
        .bind(now)
        .execute(pool)
        .await
        .map(|_| ())
}

/// Inserts type `t`; refused at `name` if it exists.
pub(crate) async fn insert_type(pool: &Pool, t: &ResourceType, now: i64) -> Result<()> {
    write_type(pool, INSERT_TYPE, t, now).await.map_err(|e| {
        if unique_violation(&e) {
            Error::conflict(format!("a resource type `{}` exists", t.name)).with_field("name")
        } else {
            e.into()
        }
    })
}

/// Writes built-in type `t` as the code has it now, keeping its creation
/// time: one statement, so replicas starting at once on one database all
/// succeed, and the type is never absent in between.
pub(crate) async fn refresh_type(pool: &Pool, t: &ResourceType, now: i64) -> Result<()> {
    let sql = format!(
        "{INSERT_TYPE} ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
         schema = excluded.schema, operations = excluded.operations, builtin = excluded.builtin"
    );
    Ok(write_type(pool, &sql, t, now).await?)
}

pub(crate) async fn types(pool: &Pool) -> Result<Vec<ResourceType>> {
    let rows = sqlx::query("SELECT * FROM resource_types ORDER BY name")
        .fetch_all(pool)
        .await?;
    rows.iter().map(type_of).collect()
}

pub(crate) async fn resource_type(pool: &Pool, name: &str) -> Result<Option<ResourceType>> {
    sqlx::query("SELECT * FROM resource_types WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?
        .as_ref()
        .map(type_of)
        .transpose()
}
