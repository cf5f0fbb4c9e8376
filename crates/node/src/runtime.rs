//! The seam between the reconciler and the machine: everything the node's
//! control side does outside the substrate (containers, routers, the
//! workers' sockets) goes through [`NodeRuntime`], as omicron's sled-agent
//! reconciler reaches its side effects through a facilities trait. The
//! Linux implementation is `crate::linux::LinuxRuntime`; the reconciler's
//! tests use a fake that records what the data plane published at each call.

use prism_netdoc::{NetworkDoc, RouterConfig};
use prism_node_api::RouterView;
use prism_pipeline::NetworkSpec;

/// What kind of failure, so that the API answers the right status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeErrorKind {
    /// The network asks for what its router cannot do (the caller's to fix).
    Unsupported,
    /// The running router cannot take this change (a user command's routes).
    Conflict,
    /// The machine failed: a container, a process, a socket.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeError {
    pub kind: RuntimeErrorKind,
    pub message: String,
}

impl RuntimeError {
    pub fn failed(e: impl std::fmt::Display) -> Self {
        Self {
            kind: RuntimeErrorKind::Failed,
            message: e.to_string(),
        }
    }

    pub fn unsupported(e: impl std::fmt::Display) -> Self {
        Self {
            kind: RuntimeErrorKind::Unsupported,
            message: e.to_string(),
        }
    }

    pub fn conflict(e: impl std::fmt::Display) -> Self {
        Self {
            kind: RuntimeErrorKind::Conflict,
            message: e.to_string(),
        }
    }
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// A software network's router to start or change.
#[derive(Debug, Clone, Copy)]
pub struct RouterRequest<'a> {
    /// The network's id in the substrate.
    pub net: u16,
    /// Which of the network's two container names to use: a replacement
    /// starts beside the running router under the other one.
    pub variant: bool,
    pub spec: &'a NetworkSpec,
    pub router: &'a RouterConfig,
    pub doc: &'a NetworkDoc,
}

/// The two numbers a node keeps of its desired state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Generations {
    /// One more for every change applied, by any call.
    pub changes: u64,
    /// The control plane's generation of the last `PUT /v1/desired`
    /// accepted (0: none); an older one is refused.
    pub desired: u64,
}

pub trait NodeRuntime: Send + 'static {
    /// A running router, as the runtime tracks it.
    type Router: Send + std::fmt::Debug;

    /// Starts network `req.net`'s router and gives the workers its links,
    /// so that it receives once the substrate sends it traffic. On error,
    /// nothing of it is left.
    fn start_router(&mut self, req: RouterRequest<'_>) -> Result<Self::Router, RuntimeError>;

    /// Whether `r` can take `req` in place (same router, same links).
    fn can_update(&self, r: &Self::Router, req: RouterRequest<'_>) -> bool;

    /// Gives the running router a new table or rate limit.
    fn update_router(
        &mut self,
        r: &mut Self::Router,
        old: &NetworkSpec,
        req: RouterRequest<'_>,
    ) -> Result<(), RuntimeError>;

    /// Takes the router's links from the workers and removes it.
    fn stop_router(&mut self, r: Self::Router) -> Result<(), RuntimeError>;

    /// Which container name `r` uses (see [`RouterRequest::variant`]).
    fn variant(&self, r: &Self::Router) -> bool;

    /// How `r` runs, for the API.
    fn view(&self, r: &Self::Router) -> RouterView;

    /// Keeps the desired state (every network's document, under its
    /// generations) where a restarted node finds it.
    fn save(
        &mut self,
        generations: Generations,
        docs: &std::collections::BTreeMap<String, NetworkDoc>,
    ) -> Result<(), RuntimeError>;

    /// Whether a change could be saved now: `Err` says why not (its state
    /// directory's disk is full), and the change is refused before
    /// anything is done.
    fn room_to_save(&self) -> Result<(), String> {
        Ok(())
    }

    /// Removes what the runtime made besides routers (bridges), after the
    /// workers have stopped.
    fn shutdown(&mut self) -> Vec<RuntimeError>;

    /// The pipelines' clock, ns: a slot loading a module is dark until a
    /// time on it (`prism_pipeline::control::reconfig`).
    fn now_ns(&self) -> u64;

    /// Converges the processing nodes (`crate::control::processing` plans
    /// it); a runtime without containers refuses (503 `unavailable`).
    fn put_processing(
        &mut self,
        _state: prism_node_api::ProcessingState,
    ) -> Result<prism_node_api::ProcessingApplied, prism_node_api::ApiError> {
        Err(no_processing())
    }

    /// The processing nodes as they run.
    fn list_processing(
        &self,
    ) -> Result<Vec<prism_node_api::ProcessingView>, prism_node_api::ApiError> {
        Err(no_processing())
    }

    /// Saves processing node `name` as an image in the node's store.
    fn save_image(
        &mut self,
        _name: &str,
    ) -> Result<prism_node_api::SavedImage, prism_node_api::ApiError> {
        Err(no_processing())
    }

    /// Uploads blobs of the node's image store.
    fn push_image(
        &self,
        _body: prism_node_api::PushImage,
    ) -> Result<prism_node_api::PushedImage, prism_node_api::ApiError> {
        Err(no_processing())
    }
}

fn no_processing() -> prism_node_api::ApiError {
    prism_node_api::ApiError::new(
        prism_node_api::ErrorCode::Unavailable,
        "this node runs no processing nodes",
    )
}
