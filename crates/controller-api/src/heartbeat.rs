//! What a node tells the controller of itself (`POST /v1/nodes/heartbeat`
//! on the controller, authenticated by the node's key): the bodies. The
//! node's agent sends them with [`crate::ControllerClient::heartbeat`].

use prism_node_api::NodeInfo;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How often a node is asked to send a heartbeat (a node is down after
/// the controller's `node_timeout_ms` without one).
pub const HEARTBEAT_EVERY_MS: i64 = 2000;

/// What a node says of itself, every `every_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// Its name: the one its key was made for.
    pub name: String,
    /// Where the controller reaches its API (`host:port` of
    /// `prism node --api-listen`).
    pub address: String,
    /// Changes when the node's process restarts.
    pub boot_id: String,
    pub info: NodeInfo,
    /// Aggregate bandwidth of its tiers, Mbit/s; unchanged when absent
    /// (1000 and 100 for a new node, paper 000's figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hw_mbps: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sw_mbps: Option<i64>,
    /// A certificate request (PEM) for this node's name, when the node
    /// has no certificate or two thirds of its life are gone: the answer
    /// carries the certificate (docs/deploy.md, node identities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csr: Option<String>,
}

/// A certificate the controller's CA issued this node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeCertificate {
    /// The node's certificate then the CA's (PEM).
    pub chain_pem: String,
    /// The CA whose client certificates the node accepts (PEM): the
    /// controller's.
    pub ca_pem: String,
    /// When it ends (ms since the Unix epoch, wall clock).
    pub not_after_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HeartbeatAnswer {
    pub node_id: String,
    /// Registered by this heartbeat.
    pub registered: bool,
    /// The node's desired state's generation, and the last it reached.
    pub generation: i64,
    pub applied_generation: i64,
    /// When to send the next heartbeat.
    pub every_ms: i64,
    /// The certificate the heartbeat's `csr` asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<NodeCertificate>,
    /// Why none was issued (the controller holds no CA for nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate_refused: Option<String>,
    /// The CA's revocation list of the controller's client certificates
    /// (PEM): a certified node refuses the clients it names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_crl: Option<String>,
}
