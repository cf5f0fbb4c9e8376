//! The one fake controller: the API's areas (`prism_controller_api::areas`)
//! in memory, so the server's handlers (its router, middleware, bodies
//! and errors) are tested without a database, and a client can be tested
//! against a controller it can inspect.
//!
//! What it models: users and logins, projects and their members' roles
//! (a role's operations as the controller's, 404 for a project the caller
//! is not in), service levels, bookings through their states with their
//! quota, the resource types, registered nodes and node keys, and the
//! audit log. What needs a node's data plane (counters, traces, captures,
//! hardware, events, heartbeats) or a pool the fake does not keep (public
//! addresses, the controller's client certificates) is refused with a
//! typed error (`node_failed`, `no_capacity`, `not_found`) saying so.

mod identity;
mod leases;
mod nodes;
mod shared_vlans;
mod storage;

use prism_controller_api::areas::{CallerId, Gate, NodeCaller, NodeRefused};
use prism_controller_api::{
    AuditEntry, Booking, Error, ErrorCode, NodeKeyView, NodeView, Operation, ResourceType, Role,
    ServiceLevel, UserView,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// A caller of the fake: the user a token was given to.
#[derive(Debug, Clone)]
pub struct FakeCaller {
    pub user: String,
    pub admin: bool,
    pub token: String,
}

impl CallerId for FakeCaller {
    fn credential_id(&self) -> &str {
        &self.token
    }

    fn user(&self) -> &str {
        &self.user
    }

    fn is_admin(&self) -> bool {
        self.admin
    }
}

/// A project: its service level and its members' roles.
#[derive(Debug, Clone)]
struct Project {
    id: String,
    level: String,
    members: BTreeMap<String, Role>,
    created_ms: i64,
}

#[derive(Debug, Default)]
struct State {
    /// User → (view, password).
    users: BTreeMap<String, (UserView, String)>,
    /// Token → user.
    tokens: BTreeMap<String, String>,
    levels: BTreeMap<String, ServiceLevel>,
    projects: BTreeMap<String, Project>,
    bookings: Vec<Booking>,
    types: Vec<ResourceType>,
    nodes: Vec<NodeView>,
    /// Node key (the secret) → its view.
    node_keys: BTreeMap<String, NodeKeyView>,
    audit: Vec<AuditEntry>,
    /// Shared VLAN booking id → the projects invited to it.
    vlan_members: BTreeMap<String, Vec<prism_controller_api::VlanMember>>,
    /// Booking id → its accepted changes.
    changes: BTreeMap<String, Vec<prism_controller_api::BookingChangeView>>,
    next_id: u64,
    now_ms: i64,
}

/// The fake controller: cheap to clone, every clone the same state.
#[derive(Debug, Clone)]
pub struct FakeController {
    state: Arc<Mutex<State>>,
}

impl FakeController {
    /// A fake with one administrator, `admin` with `password`, the
    /// standard service level and the built-in `network` type.
    pub fn new(admin: &str, password: &str) -> Self {
        let mut s = State {
            now_ms: 1_700_000_000_000,
            ..State::default()
        };
        let level = ServiceLevel::standard();
        s.levels.insert(level.name.clone(), level);
        s.types.push(ResourceType {
            name: "network".into(),
            description: "a virtual network (the fake's built-in type)".into(),
            schema: serde_json::json!({"type": "object"}),
            operations: Vec::new(),
            builtin: true,
        });
        let f = Self {
            state: Arc::new(Mutex::new(s)),
        };
        f.add_user(admin, password, true);
        f
    }

    /// Adds a user (what an administrator's `POST /v1/users` does).
    pub fn add_user(&self, name: &str, password: &str, admin: bool) -> UserView {
        let mut s = self.lock();
        let view = UserView {
            id: s.id("user"),
            name: name.into(),
            admin,
            created_ms: s.now_ms,
        };
        s.users.insert(name.into(), (view.clone(), password.into()));
        view
    }

    /// The audit log's entries, oldest first.
    pub fn audit_log(&self) -> Vec<AuditEntry> {
        self.lock().audit.clone()
    }

    /// Every booking, released ones included.
    pub fn bookings(&self) -> Vec<Booking> {
        self.lock().bookings.clone()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn id(&mut self, kind: &str) -> String {
        self.next_id += 1;
        format!("fake-{kind}-{}", self.next_id)
    }

    /// Project `name` if the caller may call `op` in it: 404 if they are
    /// not in it (another project's resources are invisible), 403 if
    /// their role does not allow `op`.
    fn project(&self, p: &FakeCaller, name: &str, op: Operation) -> Result<&Project, Error> {
        let project = self.projects.get(name);
        let role = project.and_then(|pr| pr.members.get(&p.user).copied());
        match (project, role) {
            (Some(pr), _) if p.admin => Ok(pr),
            (Some(pr), Some(r)) if Operation::of_role(r).contains(&op) => Ok(pr),
            (Some(_), Some(r)) => Err(Error::forbidden(format!(
                "a project's {} may not call {}",
                r.as_str(),
                op.as_str()
            ))),
            _ => Err(Error::not_found(format!("project {name}"))),
        }
    }

    fn booking_mut(&mut self, project: &str, id: &str) -> Result<&mut Booking, Error> {
        self.bookings
            .iter_mut()
            .find(|b| b.project == project && b.id == id)
            .ok_or_else(|| Error::not_found(format!("booking {id}")))
    }
}

fn admin_only(p: &FakeCaller) -> Result<(), Error> {
    match p.admin {
        true => Ok(()),
        false => Err(Error::forbidden("administrators only")),
    }
}

/// What the fake refuses for want of a node's data plane.
fn no_node(what: &str) -> Error {
    Error::new(
        ErrorCode::NodeFailed,
        format!("{what}: the fake controller drives no node"),
    )
}

impl Gate for FakeController {
    type Caller = FakeCaller;

    fn rate(&self) -> (f64, f64) {
        (10_000.0, 10_000.0)
    }

    fn now_ms(&self) -> i64 {
        self.lock().now_ms
    }

    async fn authenticate_in(
        &self,
        bearer: Option<&str>,
        _project: Option<&str>,
    ) -> Result<FakeCaller, Error> {
        let s = self.lock();
        let token = bearer.ok_or_else(|| Error::unauthorized("no credential"))?;
        let user = s
            .tokens
            .get(token)
            .ok_or_else(|| Error::unauthorized("an unknown or revoked token"))?;
        Ok(FakeCaller {
            user: user.clone(),
            admin: s.users.get(user).is_some_and(|(u, _)| u.admin),
            token: token.into(),
        })
    }

    async fn node_key(&self, bearer: &str) -> Result<NodeCaller, NodeRefused> {
        let s = self.lock();
        match s.node_keys.get(bearer) {
            Some(k) if k.revoked_ms.is_none() => Ok(NodeCaller {
                key_id: k.id.clone(),
                node: k.node.clone(),
            }),
            found => Err(NodeRefused {
                error: Error::unauthorized("an unknown or revoked node key"),
                node: found.map(|k| k.node.clone()),
            }),
        }
    }

    async fn audit_noted(
        &self,
        who: Option<&str>,
        method: &str,
        path: &str,
        status: u16,
        note: Option<String>,
    ) {
        let mut s = self.lock();
        let entry = AuditEntry {
            id: s.id("audit"),
            at_ms: s.now_ms,
            principal: who.unwrap_or("anonymous").into(),
            method: method.into(),
            path: path.into(),
            status: status.into(),
            note,
        };
        s.audit.push(entry);
    }
}
