//! Users, sessions, API keys and authentication.

use crate::authz::{Operation, Principal, ops_from_json, ops_to_json};
use crate::controller::Controller;
use crate::error::{Error, Result};
use crate::secrets::{self, KEY_PREFIX, TOKEN_PREFIX};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::ToSchema;

/// A session's default and longest life (FABRIC's tokens last an hour).
pub const SESSION_TTL_S: i64 = 3600;
pub const SESSION_MAX_TTL_S: i64 = 24 * 3600;
/// The longest an API key may be given to live (found by schemathesis: a
/// bigger one overflowed the expiry).
pub const MAX_KEY_TTL_S: i64 = 10 * 365 * 24 * 3600;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub user: String,
    pub password: String,
    /// Scope the token to one project (recommended); without it the token
    /// acts in every project the user belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Seconds (default 3600, at most 86400).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TokenView {
    /// The bearer secret: shown once, kept by the controller only as a digest.
    pub token: String,
    pub id: String,
    pub expires_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UserRequest {
    pub name: String,
    pub password: String,
    #[serde(default)]
    pub admin: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UserView {
    pub id: String,
    pub name: String,
    pub admin: bool,
    pub created_ms: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WhoAmI {
    pub user: String,
    pub admin: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// An API key's operations; absent for a session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<Operation>>,
    pub credential: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyRequest {
    pub name: String,
    /// What the key may do: a subset of what its creator may.
    pub operations: Vec<Operation>,
    /// Seconds until it expires (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiKeyView {
    pub id: String,
    pub name: String,
    pub user: String,
    pub operations: Vec<Operation>,
    pub created_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_ms: Option<i64>,
    /// The secret: only in the answer that creates the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

pub(crate) fn unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}

pub(crate) fn check_name(field: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 48
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid("1 to 48 characters of a-z, A-Z, 0-9, `-`, `_`, `.`").with_field(field))
    }
}

impl Controller {
    /// Creates the first administrator; refused once one exists.
    pub async fn bootstrap_admin(&self, name: &str, password: &str) -> Result<UserView> {
        let n: i64 = sqlx::query("SELECT COUNT(*) FROM users WHERE is_admin = 1")
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        if n > 0 {
            return Err(Error::conflict("an administrator exists already"));
        }
        self.insert_user(name, password, true).await
    }

    async fn insert_user(&self, name: &str, password: &str, admin: bool) -> Result<UserView> {
        check_name("name", name)?;
        let hash = secrets::hash_password(password)
            .map_err(|m| Error::invalid(m).with_field("password"))?;
        let id = secrets::new_id();
        let now = self.now_ms();
        sqlx::query("INSERT INTO users (id, name, password_hash, is_admin, created_ms) VALUES ($1, $2, $3, $4, $5)")
            .bind(&id)
            .bind(name)
            .bind(&hash)
            .bind(admin as i64)
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(|e| {
                if unique_violation(&e) {
                    Error::conflict(format!("a user `{name}` exists")).with_field("name")
                } else {
                    e.into()
                }
            })?;
        Ok(UserView {
            id,
            name: name.into(),
            admin,
            created_ms: now,
        })
    }

    pub async fn create_user(&self, p: &Principal, r: UserRequest) -> Result<UserView> {
        p.require_admin()?;
        self.insert_user(&r.name, &r.password, r.admin).await
    }

    pub async fn list_users(&self, p: &Principal) -> Result<Vec<UserView>> {
        p.require_admin()?;
        let rows = sqlx::query("SELECT id, name, is_admin, created_ms FROM users ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                Ok(UserView {
                    id: r.try_get(0)?,
                    name: r.try_get(1)?,
                    admin: r.try_get::<i64, _>(2)? != 0,
                    created_ms: r.try_get(3)?,
                })
            })
            .collect()
    }

    pub(crate) async fn user_id(&self, name: &str) -> Result<String> {
        sqlx::query("SELECT id FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get(0))
            .transpose()?
            .ok_or_else(|| Error::not_found(format!("user `{name}`")))
    }

    pub async fn login(&self, r: LoginRequest) -> Result<TokenView> {
        let row = sqlx::query("SELECT id, password_hash FROM users WHERE name = $1")
            .bind(&r.user)
            .fetch_optional(&self.pool)
            .await?;
        let (user_id, hash): (Option<String>, String) = match &row {
            Some(row) => (Some(row.try_get(0)?), row.try_get(1)?),
            None => (None, secrets::dummy_hash().to_string()),
        };
        let password = r.password.clone();
        let ok = tokio::task::spawn_blocking(move || secrets::verify_password(&password, &hash))
            .await
            .unwrap_or(false);
        let refused = || Error::unauthorized("wrong user name or password");
        let user_id = match (ok, user_id) {
            (true, Some(id)) => id,
            _ => return Err(refused()),
        };
        let project_id = match &r.project {
            Some(name) => {
                let m = self.membership_of(&user_id, name).await?;
                // Not a member (or no such project): the same refusal, so a
                // login does not reveal which projects exist.
                Some(m.ok_or_else(refused)?)
            }
            None => None,
        };
        let ttl = r.ttl_s.unwrap_or(SESSION_TTL_S);
        if !(1..=SESSION_MAX_TTL_S).contains(&ttl) {
            return Err(
                Error::invalid(format!("1 to {SESSION_MAX_TTL_S} seconds")).with_field("ttl_s")
            );
        }
        let (token, digest) = secrets::new_secret(TOKEN_PREFIX);
        let id = secrets::new_id();
        let now = self.now_ms();
        let expires = now + ttl * 1000;
        sqlx::query("INSERT INTO credentials (id, digest, kind, name, user_id, project_id, operations, created_ms, expires_ms) VALUES ($1, $2, 'session', 'login', $3, $4, NULL, $5, $6)")
            .bind(&id)
            .bind(&digest)
            .bind(&user_id)
            .bind(&project_id)
            .bind(now)
            .bind(expires)
            .execute(&self.pool)
            .await?;
        Ok(TokenView {
            token,
            id,
            expires_ms: expires,
            project: r.project,
        })
    }

    /// The principal a bearer secret stands for; 401 unless it is a live
    /// session token or API key.
    pub async fn authenticate(&self, bearer: Option<&str>) -> Result<Principal> {
        let missing = || {
            Error::unauthorized(
                "this call needs `Authorization: Bearer <token or API key>` (`prism ctl login`)",
            )
        };
        let secret = bearer.ok_or_else(missing)?;
        if !(secret.starts_with(TOKEN_PREFIX) || secret.starts_with(KEY_PREFIX)) {
            return Err(missing());
        }
        let row = sqlx::query(
            "SELECT c.id, c.user_id, u.name, u.is_admin, c.project_id, c.operations, c.expires_ms, c.revoked_ms \
             FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.digest = $1",
        )
        .bind(secrets::digest(secret))
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::unauthorized("unknown token or API key"))?;
        let expires: Option<i64> = row.try_get(6)?;
        let revoked: Option<i64> = row.try_get(7)?;
        if revoked.is_some() {
            return Err(Error::unauthorized("this token or API key was revoked"));
        }
        if expires.is_some_and(|e| e <= self.now_ms()) {
            return Err(Error::unauthorized(
                "this token or API key has expired; log in again",
            ));
        }
        let ops: Option<String> = row.try_get(5)?;
        Ok(Principal {
            credential_id: row.try_get(0)?,
            user_id: row.try_get(1)?,
            user: row.try_get(2)?,
            is_admin: row.try_get::<i64, _>(3)? != 0,
            project_id: row.try_get(4)?,
            key_operations: ops.as_deref().map(ops_from_json),
        })
    }

    pub async fn logout(&self, p: &Principal) -> Result<()> {
        sqlx::query("UPDATE credentials SET revoked_ms = $1 WHERE id = $2")
            .bind(self.now_ms())
            .bind(&p.credential_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn whoami(&self, p: &Principal) -> Result<WhoAmI> {
        let project = match &p.project_id {
            Some(id) => sqlx::query("SELECT name FROM projects WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .map(|r| r.try_get(0))
                .transpose()?,
            None => None,
        };
        Ok(WhoAmI {
            user: p.user.clone(),
            admin: p.is_admin,
            project,
            operations: p.key_operations.clone(),
            credential: p.credential_id.clone(),
        })
    }

    pub async fn create_api_key(
        &self,
        p: &Principal,
        project: &str,
        r: ApiKeyRequest,
    ) -> Result<ApiKeyView> {
        let m = self.project_for(p, project, Operation::KeysManage).await?;
        check_name("name", &r.name)?;
        if r.operations.is_empty() {
            return Err(Error::invalid("at least one operation").with_field("operations"));
        }
        for (i, op) in r.operations.iter().enumerate() {
            // A key never carries more than its creator may do.
            p.may(&m, *op)
                .map_err(|e| e.with_field(format!("operations[{i}]")))?;
        }
        if let Some(t) = r.ttl_s
            && !(1..=MAX_KEY_TTL_S).contains(&t)
        {
            return Err(
                Error::invalid(format!("1 to {MAX_KEY_TTL_S} seconds (ten years)"))
                    .with_field("ttl_s"),
            );
        }
        let (key, digest) = secrets::new_secret(KEY_PREFIX);
        let id = secrets::new_id();
        let now = self.now_ms();
        let expires = r.ttl_s.map(|t| now + t * 1000);
        sqlx::query("INSERT INTO credentials (id, digest, kind, name, user_id, project_id, operations, created_ms, expires_ms) VALUES ($1, $2, 'api_key', $3, $4, $5, $6, $7, $8)")
            .bind(&id)
            .bind(&digest)
            .bind(&r.name)
            .bind(&p.user_id)
            .bind(&m.project_id)
            .bind(ops_to_json(&r.operations))
            .bind(now)
            .bind(expires)
            .execute(&self.pool)
            .await?;
        Ok(ApiKeyView {
            id,
            name: r.name,
            user: p.user.clone(),
            operations: r.operations,
            created_ms: now,
            expires_ms: expires,
            revoked_ms: None,
            key: Some(key),
        })
    }

    pub async fn list_api_keys(&self, p: &Principal, project: &str) -> Result<Vec<ApiKeyView>> {
        let m = self.project_for(p, project, Operation::KeysManage).await?;
        let rows = sqlx::query(
            "SELECT c.id, c.name, u.name, c.operations, c.created_ms, c.expires_ms, c.revoked_ms \
             FROM credentials c JOIN users u ON u.id = c.user_id \
             WHERE c.kind = 'api_key' AND c.project_id = $1 ORDER BY c.created_ms, c.id",
        )
        .bind(&m.project_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ApiKeyView {
                    id: r.try_get(0)?,
                    name: r.try_get(1)?,
                    user: r.try_get(2)?,
                    operations: ops_from_json(&r.try_get::<String, _>(3)?),
                    created_ms: r.try_get(4)?,
                    expires_ms: r.try_get(5)?,
                    revoked_ms: r.try_get(6)?,
                    key: None,
                })
            })
            .collect()
    }

    /// Revokes a key of the project: its creator's, or any for an owner.
    pub async fn revoke_api_key(&self, p: &Principal, project: &str, id: &str) -> Result<()> {
        let m = self.project_for(p, project, Operation::KeysManage).await?;
        let row = sqlx::query("SELECT user_id FROM credentials WHERE id = $1 AND project_id = $2 AND kind = 'api_key'")
            .bind(id)
            .bind(&m.project_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("such API key"))?;
        let owner: String = row.try_get(0)?;
        p.may_touch(&m, Operation::KeysManage, &owner)?;
        if owner != p.user_id && !p.is_admin && m.role != Some(crate::model::Role::Owner) {
            return Err(Error::forbidden(
                "only its creator or a project owner may revoke a key",
            ));
        }
        sqlx::query("UPDATE credentials SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL")
            .bind(self.now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
