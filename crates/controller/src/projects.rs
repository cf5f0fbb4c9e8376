//! Projects (VANI's application plans), their members and roles, and
//! service levels (which operations a project may call and how much it may
//! book).

use crate::authz::{Membership, Operation, Principal, ops_from_json, ops_to_json};
use crate::controller::Controller;
use crate::error::{Error, Result};
use crate::identity::{check_name, unique_violation};
use crate::model::Role;
use crate::secrets;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::ToSchema;

/// A service level: allowed operations and quotas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceLevel {
    pub name: String,
    pub operations: Vec<Operation>,
    /// Networks in the hardware tier (one slot each).
    pub max_hw_networks: i64,
    pub max_sw_networks: i64,
    /// Total guaranteed bandwidth of the project's current bookings.
    pub max_bandwidth_mbps: i64,
    /// Hours booked by the project's current bookings, added up (FABRIC's
    /// quotas in resource-hours).
    pub max_lease_hours: i64,
    /// The longest a lease may run from now (a renewal is clamped to it).
    pub max_lease_s: i64,
    pub default_lease_s: i64,
    /// Public addresses the project holds at once (the gateway service).
    #[serde(default = "default_public_addresses")]
    pub max_public_addresses: i64,
}

fn default_public_addresses() -> i64 {
    4
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectRequest {
    pub name: String,
    pub service_level: String,
    /// The user who becomes its owner.
    pub owner: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProjectView {
    pub id: String,
    pub name: String,
    pub service_level: String,
    /// The caller's role (absent for an administrator who is not a member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    pub created_ms: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberRequest {
    pub role: Role,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MemberView {
    pub user: String,
    pub role: Role,
}

/// The service level every new controller has.
pub const STANDARD: &str = "standard";

impl ServiceLevel {
    pub fn standard() -> Self {
        Self {
            name: STANDARD.into(),
            operations: Operation::ALL.to_vec(),
            max_hw_networks: 4,
            max_sw_networks: 16,
            max_bandwidth_mbps: 1000,
            max_lease_hours: 24 * 60,
            // FABRIC: 24 h by default, at most 15 days.
            max_lease_s: 15 * 24 * 3600,
            default_lease_s: 24 * 3600,
            max_public_addresses: default_public_addresses(),
        }
    }

    fn check(&self) -> Result<()> {
        check_name("name", &self.name)?;
        for (f, v) in [
            ("max_hw_networks", self.max_hw_networks),
            ("max_sw_networks", self.max_sw_networks),
            ("max_bandwidth_mbps", self.max_bandwidth_mbps),
            ("max_lease_hours", self.max_lease_hours),
            ("max_public_addresses", self.max_public_addresses),
        ] {
            if v < 0 {
                return Err(Error::invalid("at least 0").with_field(f));
            }
        }
        if !(60..=crate::identity::MAX_KEY_TTL_S).contains(&self.max_lease_s) {
            return Err(Error::invalid("60 seconds to ten years").with_field("max_lease_s"));
        }
        if !(60..=self.max_lease_s).contains(&self.default_lease_s) {
            return Err(Error::invalid("60 seconds to max_lease_s").with_field("default_lease_s"));
        }
        Ok(())
    }
}

fn level_of(r: &sqlx::any::AnyRow) -> Result<ServiceLevel> {
    Ok(ServiceLevel {
        name: r.try_get("name")?,
        operations: ops_from_json(&r.try_get::<String, _>("operations")?),
        max_hw_networks: r.try_get("max_hw_networks")?,
        max_sw_networks: r.try_get("max_sw_networks")?,
        max_bandwidth_mbps: r.try_get("max_bandwidth_mbps")?,
        max_lease_hours: r.try_get("max_lease_hours")?,
        max_lease_s: r.try_get("max_lease_s")?,
        default_lease_s: r.try_get("default_lease_s")?,
        max_public_addresses: r.try_get("max_public_addresses")?,
    })
}

impl Controller {
    /// Adds or replaces a service level (administrators).
    pub async fn put_service_level(&self, p: &Principal, l: ServiceLevel) -> Result<ServiceLevel> {
        p.require_admin()?;
        self.upsert_service_level(&l).await?;
        Ok(l)
    }

    /// The standard level, on a new database.
    pub(crate) async fn seed_service_levels(&self) -> Result<()> {
        let n: i64 = sqlx::query("SELECT COUNT(*) FROM service_levels")
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        if n == 0 {
            self.upsert_service_level(&ServiceLevel::standard()).await?;
        }
        Ok(())
    }

    pub(crate) async fn upsert_service_level(&self, l: &ServiceLevel) -> Result<()> {
        l.check()?;
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM service_levels WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM projects WHERE service_level = $1)")
            .bind(&l.name)
            .execute(&mut *tx)
            .await?;
        let updated = sqlx::query("UPDATE service_levels SET operations = $2, max_hw_networks = $3, max_sw_networks = $4, max_bandwidth_mbps = $5, max_lease_hours = $6, max_lease_s = $7, default_lease_s = $8, max_public_addresses = $9 WHERE name = $1")
            .bind(&l.name)
            .bind(ops_to_json(&l.operations))
            .bind(l.max_hw_networks)
            .bind(l.max_sw_networks)
            .bind(l.max_bandwidth_mbps)
            .bind(l.max_lease_hours)
            .bind(l.max_lease_s)
            .bind(l.default_lease_s)
            .bind(l.max_public_addresses)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if updated == 0 {
            sqlx::query("INSERT INTO service_levels (name, operations, max_hw_networks, max_sw_networks, max_bandwidth_mbps, max_lease_hours, max_lease_s, default_lease_s, created_ms, max_public_addresses) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
                .bind(&l.name)
                .bind(ops_to_json(&l.operations))
                .bind(l.max_hw_networks)
                .bind(l.max_sw_networks)
                .bind(l.max_bandwidth_mbps)
                .bind(l.max_lease_hours)
                .bind(l.max_lease_s)
                .bind(l.default_lease_s)
                .bind(self.now_ms())
                .bind(l.max_public_addresses)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn list_service_levels(&self, _p: &Principal) -> Result<Vec<ServiceLevel>> {
        let rows = sqlx::query("SELECT * FROM service_levels ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(level_of).collect()
    }

    pub async fn create_project(&self, p: &Principal, r: ProjectRequest) -> Result<ProjectView> {
        p.require_admin()?;
        check_name("name", &r.name)?;
        let owner = self
            .user_id(&r.owner)
            .await
            .map_err(|e| e.with_field("owner"))?;
        let id = secrets::new_id();
        let now = self.now_ms();
        let mut tx = self.pool.begin().await?;
        let level = sqlx::query("SELECT name FROM service_levels WHERE name = $1")
            .bind(&r.service_level)
            .fetch_optional(&mut *tx)
            .await?;
        if level.is_none() {
            return Err(
                Error::not_found(format!("service level `{}`", r.service_level))
                    .with_field("service_level"),
            );
        }
        sqlx::query(
            "INSERT INTO projects (id, name, service_level, created_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(&id)
        .bind(&r.name)
        .bind(&r.service_level)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(|e| {
            if unique_violation(&e) {
                Error::conflict(format!("a project `{}` exists", r.name)).with_field("name")
            } else {
                e.into()
            }
        })?;
        sqlx::query("INSERT INTO members (project_id, user_id, role) VALUES ($1, $2, 'owner')")
            .bind(&id)
            .bind(&owner)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ProjectView {
            id,
            name: r.name,
            service_level: r.service_level,
            role: None,
            created_ms: now,
        })
    }

    /// The projects the caller sees: their own, or all for an admin.
    pub async fn list_projects(&self, p: &Principal) -> Result<Vec<ProjectView>> {
        let rows = sqlx::query(
            "SELECT p.id, p.name, p.service_level, p.created_ms, m.role FROM projects p \
             LEFT JOIN members m ON m.project_id = p.id AND m.user_id = $1 ORDER BY p.name",
        )
        .bind(&p.user_id)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for r in rows {
            let id: String = r.try_get(0)?;
            let role: Option<String> = r.try_get(4)?;
            let scoped_ok = p.project_id.as_deref().is_none_or(|s| s == id);
            if scoped_ok && (p.is_admin || role.is_some()) {
                out.push(ProjectView {
                    id,
                    name: r.try_get(1)?,
                    service_level: r.try_get(2)?,
                    created_ms: r.try_get(3)?,
                    role: role.as_deref().and_then(Role::parse),
                });
            }
        }
        Ok(out)
    }

    /// What `user_id` is in project `name`, if it exists.
    pub(crate) async fn membership_of(&self, user_id: &str, name: &str) -> Result<Option<String>> {
        Ok(sqlx::query("SELECT p.id FROM projects p JOIN members m ON m.project_id = p.id WHERE p.name = $1 AND m.user_id = $2")
            .bind(name)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get(0))
            .transpose()?)
    }

    /// The project `name` as the caller sees it, checked for `op`: 404 if
    /// it does not exist or the caller may not see it, 403 if they may see
    /// it but not call `op`.
    pub async fn project_for(
        &self,
        p: &Principal,
        name: &str,
        op: Operation,
    ) -> Result<Membership> {
        Ok(self.project_level_for(p, name, op).await?.0)
    }

    /// As [`Self::project_for`], with the project's service level (one query).
    pub(crate) async fn project_level_for(
        &self,
        p: &Principal,
        name: &str,
        op: Operation,
    ) -> Result<(Membership, ServiceLevel)> {
        let row = sqlx::query(
            "SELECT p.id AS project_id, m.role AS role, s.* FROM projects p JOIN service_levels s ON s.name = p.service_level \
             LEFT JOIN members m ON m.project_id = p.id AND m.user_id = $2 WHERE p.name = $1",
        )
        .bind(name)
        .bind(&p.user_id)
        .fetch_optional(&self.pool)
        .await?;
        let found = match row {
            Some(r) => {
                let level = level_of(&r)?;
                let m = Membership {
                    project_id: r.try_get("project_id")?,
                    project: name.to_string(),
                    service_level_ops: level.operations.clone(),
                    role: r
                        .try_get::<Option<String>, _>("role")?
                        .as_deref()
                        .and_then(Role::parse),
                };
                Some((m, level))
            }
            None => None,
        };
        if !p.sees(found.as_ref().map(|f| &f.0)) {
            return Err(Error::not_found(format!("project `{name}`")));
        }
        let (m, level) = found.ok_or_else(|| Error::not_found(format!("project `{name}`")))?;
        p.may(&m, op)?;
        Ok((m, level))
    }

    pub async fn get_project(&self, p: &Principal, name: &str) -> Result<ProjectView> {
        let m = self.project_for(p, name, Operation::BookingsRead).await?;
        let r = sqlx::query("SELECT service_level, created_ms FROM projects WHERE id = $1")
            .bind(&m.project_id)
            .fetch_one(&self.pool)
            .await?;
        Ok(ProjectView {
            id: m.project_id,
            name: m.project,
            service_level: r.try_get(0)?,
            created_ms: r.try_get(1)?,
            role: m.role,
        })
    }

    pub async fn list_members(&self, p: &Principal, project: &str) -> Result<Vec<MemberView>> {
        let m = self
            .project_for(p, project, Operation::BookingsRead)
            .await?;
        let rows = sqlx::query("SELECT u.name, m.role FROM members m JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 ORDER BY u.name")
            .bind(&m.project_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                Ok(MemberView {
                    user: r.try_get(0)?,
                    role: Role::parse(&r.try_get::<String, _>(1)?).unwrap_or(Role::Viewer),
                })
            })
            .collect()
    }

    pub async fn set_member(
        &self,
        p: &Principal,
        project: &str,
        user: &str,
        r: MemberRequest,
    ) -> Result<MemberView> {
        let m = self
            .project_for(p, project, Operation::MembersManage)
            .await?;
        let uid = self.user_id(user).await?;
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM members WHERE project_id = $1 AND user_id = $2")
            .bind(&m.project_id)
            .bind(&uid)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO members (project_id, user_id, role) VALUES ($1, $2, $3)")
            .bind(&m.project_id)
            .bind(&uid)
            .bind(r.role.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(MemberView {
            user: user.into(),
            role: r.role,
        })
    }

    pub async fn remove_member(&self, p: &Principal, project: &str, user: &str) -> Result<()> {
        let m = self
            .project_for(p, project, Operation::MembersManage)
            .await?;
        let uid = self.user_id(user).await?;
        let n = sqlx::query("DELETE FROM members WHERE project_id = $1 AND user_id = $2")
            .bind(&m.project_id)
            .bind(&uid)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(Error::not_found(format!("member `{user}`")));
        }
        Ok(())
    }
}
