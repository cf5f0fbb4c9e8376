//! The controller: its database, clock and settings, and what it does in
//! the background (the reaper, node convergence, resuming operations a
//! crash interrupted).

mod areas;
pub mod serve;

use crate::app::authz::Principal;
pub use crate::app::context::{
    Context, DB_CONNECTIONS, POOL_HOLD_DOWN_MS, Settings, StorageSettings, TUNNEL_POOL,
};
use crate::app::desired::Converged;
use crate::app::leader::Leader;
use crate::app::{audit, converge, desired_change, identity, leader, node_work};
use crate::app::{projects, registry, release};
use crate::error::Result;
use crate::infra::clock::{Clock, SystemClock};
use crate::infra::db::{self, Engine};
use prism_controller_api::{LoginRequest, TokenView, UserView};
use std::sync::Arc;

/// The controller: its context, and the API it serves (the traits of
/// `prism_controller_api::areas`, implemented in `areas` by calling
/// the application's functions).
#[derive(Debug, Clone)]
pub struct Controller {
    pub(crate) cx: Context,
}

impl Controller {
    /// Opens (creating and migrating) the database at `target`: a file
    /// path or an `sqlite:` or `postgres:` URL.
    pub async fn open(target: &str, settings: Settings) -> Result<Self> {
        Self::open_with_clock(target, settings, Arc::new(SystemClock)).await
    }

    pub async fn open_with_clock(
        target: &str,
        settings: Settings,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let (engine, pool, sqlite_lock) =
            db::open(target, settings.db_connections, settings.allow_readable_db).await?;
        // An unusable Argon2 cost is refused before anything is served.
        let dummy_hash = crate::infra::secrets::dummy_hash(settings.password_cost)
            .map_err(crate::error::Error::invalid)?;
        let cx = Context {
            pool,
            engine,
            clock,
            settings,
            types: Default::default(),
            node_locks: Default::default(),
            _sqlite_lock: sqlite_lock.map(Arc::new),
            dummy_hash: Arc::new(dummy_hash),
            replica: Arc::new(uuid::Uuid::new_v4().to_string()),
            work: Default::default(),
            change_mismatches: Default::default(),
            changes_pruned_ms: Default::default(),
            auth_cache: Default::default(),
            client_cert: Default::default(),
        };
        // What every controller has: the standard service level and the
        // built-in resource types.
        projects::seed_service_levels(&cx).await?;
        registry::seed_resource_types(&cx).await?;
        Ok(Self { cx })
    }

    pub fn engine(&self) -> Engine {
        self.cx.engine
    }

    /// The connections this replica's pool keeps at most (SQLite: one).
    pub fn db_connections(&self) -> u32 {
        self.cx.pool.options().get_max_connections()
    }

    /// The pool's connections idle now (diagnostics, tests).
    pub fn idle_db_connections(&self) -> usize {
        self.cx.pool.num_idle()
    }

    pub fn settings(&self) -> &Settings {
        &self.cx.settings
    }

    pub fn now_ms(&self) -> i64 {
        self.cx.now_ms()
    }

    /// The storage service's S3 endpoint over `backend`, its keys, quotas
    /// and shares this controller's (`None` without storage settings):
    /// what `prism controller serve --storage-listen` serves.
    pub fn storage_router(&self) -> Option<axum::Router> {
        let s = self.cx.settings.storage.as_ref()?;
        let (master, backend) = (s.master.clone(), s.backend.clone());
        let dir = crate::app::storage::ProjectsDirectory {
            cx: self.cx.clone(),
        };
        let svc =
            prism_storage::service(prism_storage::Storage::new(backend, Arc::new(dir)), master);
        let svc =
            axum::error_handling::HandleError::new(svc, |e: prism_storage::HttpError| async move {
                (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    format!("{e:?}"),
                )
            });
        Some(axum::Router::new().fallback_service(svc))
    }

    /// The operator's first administrator, made once (`prism controller
    /// init`): refused once any administrator exists.
    pub async fn bootstrap_admin(&self, name: &str, password: &str) -> Result<UserView> {
        identity::bootstrap_admin(&self.cx, name, password).await
    }

    /// A login from no known address (the lab's and the tests' own).
    pub async fn login(&self, r: LoginRequest) -> Result<TokenView> {
        identity::login(&self.cx, r).await
    }

    /// The caller a bearer credential stands for.
    pub async fn authenticate(&self, bearer: Option<&str>) -> Result<Principal> {
        identity::authenticate(&self.cx, bearer).await
    }

    /// Ends expired leases, holds and public addresses; the count ended.
    pub async fn reap(&self) -> Result<usize> {
        release::reap(&self.cx).await
    }

    /// Waits until no pass over any node is running or queued.
    pub async fn settle(&self) {
        node_work::settle(&self.cx).await
    }

    /// One convergence pass over every node, waited for.
    pub async fn converge_all(&self) {
        node_work::converge_all(&self.cx).await
    }

    /// One convergence pass over node `id`, now, in this task.
    pub async fn converge_node(&self, id: &str) -> Converged {
        converge::converge_node(&self.cx, id).await
    }

    /// Changes found to differ from the whole desired state
    /// (`Settings::check_changes`).
    pub fn change_mismatches(&self) -> usize {
        desired_change::change_mismatches(&self.cx)
    }

    /// This replica's name among replicas.
    pub fn replica(&self) -> &str {
        leader::replica(&self.cx)
    }

    /// The same controller as another replica named `replica`, sharing
    /// this one's database pool (tests of leadership in one process).
    pub fn as_replica(&self, replica: &str) -> Self {
        Self {
            cx: leader::as_replica(&self.cx, replica),
        }
    }

    /// Who holds the background lease.
    pub async fn leader(&self) -> Result<Option<Leader>> {
        leader::leader(&self.cx).await
    }

    /// Renews or claims the background lease: the fencing token if this
    /// replica holds it.
    pub async fn lead(&self) -> Result<Option<i64>> {
        leader::lead(&self.cx).await
    }

    /// Gives up the background lease, so another replica takes it at once.
    pub async fn step_down(&self) -> Result<()> {
        leader::step_down(&self.cx).await
    }

    /// Writes an entry of the audit log.
    pub async fn audit(&self, who: Option<&str>, method: &str, path: &str, status: u16) {
        audit::audit(&self.cx, who, method, path, status).await
    }

    /// Starts the background work where this replica leads it
    /// (`crate::app::leader`): on taking the lead, resumes interrupted
    /// operations; while leading, reaps expired leases and converges
    /// nodes on their periods.
    pub fn spawn_background(&self) -> tokio::task::JoinHandle<()> {
        let cx = self.cx.clone();
        tokio::spawn(async move {
            let every = |ms| {
                let mut i = tokio::time::interval(std::time::Duration::from_millis(ms));
                // Ticks missed while another replica led are not owed.
                i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                i
            };
            let mut lead = every(cx.settings.lead_every_ms);
            let mut reap = every(cx.settings.reaper_every_ms);
            let mut rec = every(cx.settings.converge_every_ms);
            let mut token = None;
            loop {
                tokio::select! {
                    _ = lead.tick() => token = leader::keep_lead(&cx, token).await,
                    _ = reap.tick(), if token.is_some() => {
                        if let Err(e) = release::reap(&cx).await {
                            eprintln!("prism controller: reaper: {e}");
                        }
                    }
                    _ = rec.tick(), if token.is_some() => {
                        node_work::kick_every_node(&cx).await;
                    }
                }
            }
        })
    }
}
