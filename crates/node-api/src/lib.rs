//! The Prism node API: the [`NodeApi`] trait with typed bodies, the
//! [`ApiError`] body with a stable code (mapped to HTTP status in one
//! place), the HTTP server glue for any implementation (`server`), the
//! control plane's credential (`auth`), Prometheus metrics (`metrics`), the generated OpenAPI document
//! (`openapi`, checked in as docs/api/node.json) and a typed client.

mod api;
mod auth;
mod client;
mod counters;
mod desired;
mod error;
mod images;
mod maps;
#[cfg(feature = "server")]
mod metrics;
#[cfg(feature = "server")]
mod openapi;
mod processing;
#[cfg(feature = "server")]
mod server;
mod text;
mod types;

pub use api::NodeApi;
pub use auth::{Credential, MIN_SECRET_LEN, read_secret_file};
pub use client::{CALL_TIMEOUT, CONNECT_TIMEOUT, ClientError, Endpoint, NodeClient};
pub use counters::{
    CounterSnapshot, NamedCounters, NetworkCounters, StageDecision, StageReport, TapPoint,
};
pub use desired::{DesiredAction, DesiredApplied, DesiredChange, DesiredOutcome, DesiredState};
pub use error::{ApiError, ErrorCode};
pub use images::{BlobRef, BlobSource, PushImage, PushedImage, SavedImage, StoredImage, is_digest};
pub use maps::{MapEntry, MapView, MapWrite};
#[cfg(feature = "server")]
pub use metrics::{CONTENT_TYPE as METRICS_CONTENT_TYPE, NodeMetrics};
#[cfg(feature = "server")]
pub use openapi::{ApiDoc, check_checked_in_spec, spec_json};
pub use processing::{
    ImageRef, InterfaceDoc, MAX_NAME as MAX_PROCESSING_NAME, ProcessingApplied, ProcessingDoc,
    ProcessingOutcome, ProcessingState, ProcessingView, interface_mac as processing_mac,
    name_hash as processing_name_hash, processing_stale,
};
#[cfg(feature = "server")]
pub use server::{
    Body, Listener, MAX_BODY, PATHS, Refusals, router, router_with_body_limit, spawn,
};
pub use types::{
    Changed, EventKind, NetworkDetail, NetworkView, NodeEvent, NodeInfo, PortView, PowerView,
    RateLimitBody, ReconfigureBody, Reconfiguring, RegionPowerView, RouterView, RoutesBody,
    RulesBody, SlotsInfo, StrategyName, TapAnswer, TapBody, TapView, Tier, TierBody, WanInfo,
};
