//! The controller's integration tests, one binary (on SQLite; again on
//! PostgreSQL when PRISM_TEST_POSTGRES names a server): leases, quotas and
//! accounting; authorization, refusals included; nodes that register
//! themselves and their desired state; the Python SDK; schemathesis.

mod common;

mod api_fuzz;
mod authorization;
mod changes;
mod fake_controller;
mod full_disk;
mod gateway;
mod heartbeats;
mod hung_node;
mod images;
mod leases;
mod logins;
mod names;
mod node_identities;
mod one_process;
mod portal;
mod portal_browser;
mod processing;
mod programs;
mod python_sdk;
mod replicas;
mod round_trips;
mod shared_vlans;
mod span_changes;
mod spans;
mod storage;
