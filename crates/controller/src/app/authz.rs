//! Authorization, twice (VANI §3.2): the resource must belong to the
//! caller's project (else 404: another project's resources are invisible),
//! then the caller must have the right to the operation: the member's role,
//! the project's service level and, for an API key, the key's own list must
//! all allow it. Then, for a change to one resource, the caller must be
//! its creator or a project owner. An administrator may do anything, in
//! any project (the operator's override), and each change they make
//! beyond their own membership's rights is audited as `admin-override`.

use crate::app::audit_scope::note_admin_override;
pub(crate) use crate::datastore::projects::{Membership, ProjectSeen};
use crate::error::{Error, Result};
use crate::model::Role;

pub use prism_controller_api::Operation;

/// Who is calling, as their credential says.
#[derive(Debug, Clone)]
pub struct Principal {
    pub user_id: String,
    pub user: String,
    pub is_admin: bool,
    /// The credential's id (for logout and audit).
    pub credential_id: String,
    /// A project-scoped credential acts only in that project.
    pub project_id: Option<String>,
    /// An API key's operations; `None` for a session token.
    pub key_operations: Option<Vec<Operation>>,
    /// The project the request's path names, read with the credential
    /// (`identity::authenticate_in`), so the request's project check
    /// asks the database nothing more.
    pub(crate) seen: Option<std::sync::Arc<SeenProject>>,
}

/// A project by name as a caller saw it: their membership and its
/// service level, or `None` if there is no such project.
#[derive(Debug)]
pub(crate) struct SeenProject {
    pub name: String,
    pub found: ProjectSeen,
}

impl Principal {
    /// Project `name` as read with the credential, if it was.
    pub(crate) fn seen(&self, name: &str) -> Option<&ProjectSeen> {
        self.seen
            .as_deref()
            .filter(|s| s.name == name)
            .map(|s| &s.found)
    }

    /// Whether the caller may see the project at all: 404 otherwise.
    pub fn sees(&self, m: Option<&Membership>) -> bool {
        let Some(m) = m else { return false };
        let scoped_ok = self.project_id.as_deref().is_none_or(|p| p == m.project_id);
        scoped_ok && (self.is_admin || m.role.is_some())
    }

    /// Checks `op` in the project `m`, which the caller sees. An
    /// administrator may call any operation in any project (the
    /// operator's override); one their membership would not allow is
    /// noted in the request's audit entry as `admin-override`.
    pub fn may(&self, m: &Membership, op: Operation) -> Result<()> {
        if let Some(ops) = &self.key_operations
            && !ops.contains(&op)
        {
            return Err(Error::forbidden(format!(
                "this API key does not allow `{}`",
                op.as_str()
            )));
        }
        match self.member_may(m, op) {
            Err(_) if self.is_admin => {
                note_admin_override(&m.project, None);
                Ok(())
            }
            r => r,
        }
    }

    /// What the caller's membership of `m` allows, administrator or not.
    fn member_may(&self, m: &Membership, op: Operation) -> Result<()> {
        let role = m.role.ok_or_else(|| Error::not_found("such project"))?;
        if !Operation::of_role(role).contains(&op) {
            return Err(Error::forbidden(format!(
                "a project {} may not call `{}`",
                role.as_str(),
                op.as_str()
            )));
        }
        if !m.service_level_ops.contains(&op) {
            return Err(Error::forbidden(format!(
                "the project's service level does not allow `{}`",
                op.as_str()
            )));
        }
        Ok(())
    }

    /// Checks `op` on one resource (`resource`: a booking, a key, a public
    /// address, named for the audit log) created by `booker_id`: VANI's
    /// per-resource rights, its creator's or a project owner's; an
    /// administrator's as an override, noted in the audit entry.
    pub fn may_touch(
        &self,
        m: &Membership,
        op: Operation,
        booker_id: &str,
        resource: &str,
    ) -> Result<()> {
        self.may(m, op)?;
        if m.role == Some(Role::Owner) || booker_id == self.user_id {
            return Ok(());
        }
        if self.is_admin {
            note_admin_override(&m.project, Some(resource));
            return Ok(());
        }
        Err(Error::forbidden(format!(
            "only its creator or a project owner may call `{}` on it",
            op.as_str()
        )))
    }

    pub fn require_admin(&self) -> Result<()> {
        if self.is_admin && self.key_operations.is_none() {
            Ok(())
        } else {
            Err(Error::forbidden(
                "this call needs an administrator's session",
            ))
        }
    }
}
