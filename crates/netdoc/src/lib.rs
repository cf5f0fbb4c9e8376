//! Prism's network documents: one typed schema for a virtual network's
//! definition, shared by scenario files, the node API's bodies and the
//! node's record of its desired state; its compilation into the pipeline's
//! `NetworkSpec`; scenario loading with errors located by file, line and
//! field; and the bridge from `tier = "auto"` to the placement library.
//!
//! No I/O: callers read files and pass their text.

mod auto_tier;
mod bridge;
mod compile;
mod doc;
mod error;
mod fields;
mod router;
mod scenario;
mod span;

pub use auto_tier::AutoPlacer;
pub use compile::{Compiled, MAX_NAME, MIN_BURST, compile, default_burst};
pub use doc::{
    ActionDoc, BridgeDoc, BridgePortDoc, CipherDoc, CipherName, Endpoints, ForwardingMode,
    MatchDoc, NetworkDoc, RateLimitDoc, RouteDoc, RouterDoc, RouterKind, RuleDoc, StaticMacDoc,
    TierChoice, TunnelDoc,
};
pub use error::{DocError, from_file, from_file_text, from_json};
pub use fields::{
    Addr, Mac, MacBlock, MacPool, PortRef, Ports, Prefix, Rate, Vlan, hex_key, parse_rate,
};
pub use router::RouterConfig;
pub use scenario::{
    PlacementDoc, PortDoc, Scenario, ScenarioDoc, ScenarioError, WanDoc, load, load_with_networks,
};
