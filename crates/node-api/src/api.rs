//! The node API as a trait: what a node answers, with typed bodies. The
//! node library implements it; `crate::server` serves any implementation
//! over HTTP, and `crate::openapi` describes it.
//!
//! Methods block (a change may start a container): the server runs each on
//! a blocking thread, so reads are not held up behind a slow change.

use crate::counters::CounterSnapshot;
use crate::desired::{DesiredApplied, DesiredChange, DesiredState};
use crate::error::ApiError;
use crate::images::{PushImage, PushedImage, SavedImage};
use crate::maps::{MapView, MapWrite};
use crate::processing::{ProcessingApplied, ProcessingState, ProcessingView};
use crate::types::{
    Changed, NetworkDetail, NetworkView, NodeEvent, NodeInfo, PortView, PowerView, RateLimitBody,
    ReconfigureBody, Reconfiguring, RoutesBody, RulesBody, TapAnswer, TapBody, TierBody,
};
use prism_netdoc::NetworkDoc;

pub trait NodeApi: Send + Sync + 'static {
    fn list_networks(&self) -> Result<Vec<NetworkView>, ApiError>;
    fn get_network(&self, name: &str) -> Result<NetworkDetail, ApiError>;
    /// Adds a network; 409 if one of that name exists.
    fn add_network(&self, doc: NetworkDoc) -> Result<Changed, ApiError>;
    /// Replaces a network's whole definition (any field, tier included).
    fn replace_network(&self, name: &str, doc: NetworkDoc) -> Result<Changed, ApiError>;
    fn remove_network(&self, name: &str) -> Result<Changed, ApiError>;
    fn set_routes(&self, name: &str, body: RoutesBody) -> Result<Changed, ApiError>;
    fn set_rules(&self, name: &str, body: RulesBody) -> Result<Changed, ApiError>;
    fn set_rate_limit(&self, name: &str, body: RateLimitBody) -> Result<Changed, ApiError>;
    fn set_tier(&self, name: &str, body: TierBody) -> Result<Changed, ApiError>;
    fn counters(&self) -> Result<CounterSnapshot, ApiError>;
    /// A map of network `name`'s program.
    fn read_map(&self, name: &str, map: &str) -> Result<MapView, ApiError>;
    /// Sets or deletes one entry of a map of network `name`'s program.
    fn write_map(&self, name: &str, map: &str, body: MapWrite) -> Result<MapView, ApiError>;
    fn ports(&self) -> Result<Vec<PortView>, ApiError>;
    fn node(&self) -> Result<NodeInfo, ApiError>;
    /// Traces (each stage's decision) or captures (frames at ingress and
    /// egress) the next `body.count` packets of network `name`, or of any
    /// network and none (`None`); answers when it has them or the time is up.
    fn tap(&self, name: Option<&str>, body: TapBody) -> Result<TapAnswer, ApiError>;
    /// Starts loading a hardware network's new module into its slot.
    fn reconfigure(&self, name: &str, body: ReconfigureBody) -> Result<Reconfiguring, ApiError>;
    /// Events numbered above `since`, oldest first.
    fn events(&self, since: u64) -> Result<Vec<NodeEvent>, ApiError>;
    /// The device's modelled power.
    fn power(&self) -> Result<PowerView, ApiError>;
    /// Converges the networks of `body.scope` to `body.networks` in one
    /// reconciliation; 409 `stale_generation` if `body.generation` is older
    /// than the last accepted (see `crate::desired`).
    fn put_desired(&self, body: DesiredState) -> Result<DesiredApplied, ApiError>;
    /// Converges to the state `body` makes of the last accepted one, as
    /// [`Self::put_desired`] of it; 409 `base_mismatch` if the node's last
    /// accepted state since it started is not `body.base`.
    fn patch_desired(&self, body: DesiredChange) -> Result<DesiredApplied, ApiError>;
    /// Converges the processing nodes of `body.scope` to `body.nodes`
    /// (their own generation, fenced as the networks'); 503 `unavailable`
    /// on a node that runs none.
    fn put_processing(&self, body: ProcessingState) -> Result<ProcessingApplied, ApiError>;
    /// The processing nodes as they run.
    fn list_processing(&self) -> Result<Vec<ProcessingView>, ApiError>;
    /// Saves processing node `name`'s file system as a new image in the
    /// node's store (one layer over its image): its manifest and blobs.
    fn save_image(&self, name: &str) -> Result<SavedImage, ApiError>;
    /// Uploads blobs of the node's store to the signed URLs given.
    fn push_image(&self, body: PushImage) -> Result<PushedImage, ApiError>;
}
