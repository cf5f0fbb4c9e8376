//! Prism's network documents: one typed schema for a virtual network's
//! definition, shared by scenario files, the node API's bodies and the
//! node's record of its desired state, with errors located by field (and
//! in a scenario file by line). It depends on no pipeline, server or
//! crypto: a client builds it alone. `prism-compile` turns documents into
//! the pipeline's specifications and scenario files into a substrate.
//!
//! No I/O but `from_file`, which reads one spec file.

mod doc;
mod error;
mod fields;
mod location;
mod router;
mod scenario;

pub use doc::{
    ActionDoc, BridgeDoc, BridgePortDoc, CipherDoc, CipherName, Endpoints, ForwardingMode,
    MatchDoc, NetworkDoc, ProgramDoc, RateLimitDoc, ReconfigureChoice, RouteDoc, RouterDoc,
    RouterKind, RuleDoc, StaticMacDoc, TierChoice, TunnelDoc,
};
pub use error::{DocError, from_file, from_file_text, from_json};
pub use fields::{
    Addr, Mac, MacBlock, MacPool, PortRef, Ports, Prefix, Rate, Vlan, hex_key, parse_rate,
};
pub use router::{RouterConfig, check as check_router};
pub use scenario::{PlacementDoc, PortDoc, ScenarioDoc, ScenarioError, WanDoc, default_policy};
