//! The end-to-end tests in network namespaces, one binary: forwarding
//! through both tiers, the node API under traffic, automatic placement,
//! bookings on two nodes through the controller, trace, capture and
//! metrics, the multi-receiver path and routing daemons. They share
//! interface and namespace names, so each takes `common::SERIAL`.
//! Need root; without it they say so and pass, unless PRISM_REQUIRE_ROOT=1.

mod common;

mod live;
mod live_api;
mod live_auto;
mod live_controller;
mod live_faults;
mod live_observe;
mod live_paths;
mod live_portal;
mod live_wan;
