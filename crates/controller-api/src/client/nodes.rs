//! The client's calls: nodes, node keys, the controller's certificates, heartbeats and resource types.

use super::*;

impl ControllerClient {
    pub async fn register_node(&self, r: &NodeRequest) -> Result<NodeView, ClientError> {
        self.call("POST", "/v1/nodes".into(), Some(r)).await
    }
    pub async fn list_nodes(&self) -> Result<Vec<NodeView>, ClientError> {
        self.call("GET", "/v1/nodes".into(), None::<&()>).await
    }
    pub async fn create_node_key(&self, node: &str) -> Result<NodeKeyView, ClientError> {
        let r = NodeKeyRequest { node: node.into() };
        self.call("POST", "/v1/node-keys".into(), Some(&r)).await
    }
    pub async fn list_node_keys(&self) -> Result<Vec<NodeKeyView>, ClientError> {
        self.call("GET", "/v1/node-keys".into(), None::<&()>).await
    }
    pub async fn revoke_node_key(&self, id: &str) -> Result<(), ClientError> {
        self.call("DELETE", format!("/v1/node-keys/{}", seg(id)), None::<&()>)
            .await
    }
    pub async fn controller_certificates(&self) -> Result<Vec<ControllerCertView>, ClientError> {
        self.call("GET", "/v1/controller-certificates".into(), None::<&()>)
            .await
    }
    pub async fn revoke_controller_certificate(&self, serial: &str) -> Result<(), ClientError> {
        let path = format!("/v1/controller-certificates/{}", seg(serial));
        self.call("DELETE", path, None::<&()>).await
    }
    /// A node's heartbeat; the client's token is the node key.
    pub async fn heartbeat(&self, h: &Heartbeat) -> Result<HeartbeatAnswer, ClientError> {
        self.call("POST", "/v1/nodes/heartbeat".into(), Some(h))
            .await
    }
    pub async fn register_type(&self, t: &ResourceType) -> Result<ResourceType, ClientError> {
        self.call("POST", "/v1/resource-types".into(), Some(t))
            .await
    }
}
