//! The Prism node API: the [`NodeApi`] trait with typed bodies, the
//! [`ApiError`] body with a stable code (mapped to HTTP status in one
//! place), the HTTP server glue for any implementation (`server`), the
//! control plane's credential (`auth`), Prometheus metrics (`metrics`), the generated OpenAPI document
//! (`openapi`, checked in as docs/api/node.json) and a typed client.

mod api;
mod auth;
mod client;
mod error;
mod metrics;
mod openapi;
mod server;
mod types;

pub use api::NodeApi;
pub use auth::{Credential, MIN_SECRET_LEN};
pub use client::{ClientError, Endpoint, NodeClient};
pub use error::{ApiError, ErrorCode};
pub use metrics::{CONTENT_TYPE as METRICS_CONTENT_TYPE, NodeMetrics};
pub use openapi::{ApiDoc, check_checked_in_spec, spec_json};
pub use server::{Body, Listener, MAX_BODY, PATHS, router, router_with_body_limit, spawn};
pub use types::{
    Changed, EventKind, NetworkDetail, NetworkView, NodeEvent, NodeInfo, PlacedTier, PortView,
    PowerView, RateLimitBody, ReconfigureBody, Reconfiguring, RegionPowerView, RouterView,
    RoutesBody, RulesBody, SlotsInfo, StrategyName, TapAnswer, TapBody, TapView, TierBody,
};
