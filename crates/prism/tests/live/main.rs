//! The end-to-end tests in network namespaces, one binary: forwarding
//! through both tiers, the node API under traffic, bookings on two nodes
//! through the controller, the WAN and portal demos, trace, capture and
//! metrics, the multi-receiver path and routing daemons. They share
//! interface and namespace names, so each takes `common::SERIAL`; the
//! demos' names are their own, and `scripts/test-lanes` runs them in a
//! lane of their own beside the others.
//! Need root; without it they say so and pass, unless PRISM_REQUIRE_ROOT=1.

mod common;

mod live;
mod live_api;
mod live_controller;
mod live_faults;
mod live_observe;
mod live_paths;
mod live_portal;
mod live_processing;
mod live_processing_booked;
mod live_processing_demo;
mod live_processing_dhcp;
mod live_processing_image;
mod live_processing_node;
mod live_processing_span;
mod live_processing_ssh;
mod live_shared_vlan;
mod live_wan;
