//! The pipeline's integration tests, one binary (a binary per file cost CI
//! a link each): against independent implementations (etherparse, the
//! AEAD oracles), the fast paths against the staged loops, the default
//! network, keys built only when needed, the modelled reconfiguration.

mod aead_oracles;
mod against_etherparse;
mod arenas;
mod bridge;
mod chunks;
mod default_network;
mod gateway;
mod hop_fast_path;
mod keys_when_needed;
mod program;
mod public_mac;
mod reconfiguration;
mod routed_batch;
mod rule_tables;
mod wan;
