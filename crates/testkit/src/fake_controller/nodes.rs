//! The fake's nodes, node keys and resource types.

use super::{FakeCaller, FakeController, admin_only, no_node};
use prism_controller_api::areas::{Answer, NodeCaller, NodesApi, RegistryApi};
use prism_controller_api::{
    ControllerCertView, Error, Heartbeat, HeartbeatAnswer, NodeHardware, NodeKeyRequest,
    NodeKeyView, NodeRequest, NodeView, ResourceType,
};
use prism_node_api::NodeEvent;

impl NodesApi for FakeController {
    async fn list_nodes(&self, _p: &FakeCaller) -> Answer<Vec<NodeView>> {
        Ok(self.lock().nodes.clone())
    }

    async fn register_node(&self, p: &FakeCaller, r: NodeRequest) -> Answer<NodeView> {
        admin_only(p)?;
        let mut s = self.lock();
        if s.nodes.iter().any(|n| n.name == r.name) {
            return Err(Error::conflict(format!("node {} exists", r.name)));
        }
        let n = NodeView {
            id: s.id("node"),
            name: r.name,
            address: r.address,
            device: "modelled".into(),
            hw_mbps: r.hw_mbps,
            sw_mbps: r.sw_mbps,
            slots: 0,
            ports: Vec::new(),
            generation: 0,
            applied_generation: 0,
            last_seen_ms: s.now_ms,
            up: true,
            last_error: None,
            wan: None,
            used_slots: 0,
            used_hw_mbps: 0,
            used_sw_mbps: 0,
        };
        s.nodes.push(n.clone());
        Ok(n)
    }

    async fn node_hardware(&self, _p: &FakeCaller, name: &str) -> Answer<NodeHardware> {
        Err(no_node(&format!("node {name}'s hardware")))
    }

    async fn node_events(&self, _p: &FakeCaller, name: &str, _: u64) -> Answer<Vec<NodeEvent>> {
        Err(no_node(&format!("node {name}'s events")))
    }

    async fn heartbeat(&self, node: &NodeCaller, _h: Heartbeat) -> Answer<HeartbeatAnswer> {
        Err(no_node(&format!("node {}'s heartbeat", node.node)))
    }

    async fn list_node_keys(&self, p: &FakeCaller) -> Answer<Vec<NodeKeyView>> {
        admin_only(p)?;
        let s = self.lock();
        let keys = s.node_keys.values().cloned();
        Ok(keys.map(|k| NodeKeyView { key: None, ..k }).collect())
    }

    async fn create_node_key(&self, p: &FakeCaller, r: NodeKeyRequest) -> Answer<NodeKeyView> {
        admin_only(p)?;
        let mut s = self.lock();
        let secret = format!("prn_{}", s.id("key"));
        let k = NodeKeyView {
            id: s.id("node-key"),
            node: r.node,
            created_ms: s.now_ms,
            last_used_ms: None,
            revoked_ms: None,
            key: Some(secret.clone()),
        };
        s.node_keys.insert(secret, k.clone());
        Ok(k)
    }

    async fn revoke_node_key(&self, p: &FakeCaller, id: &str) -> Answer<()> {
        admin_only(p)?;
        let mut s = self.lock();
        let now = s.now_ms;
        let k = s.node_keys.values_mut().find(|k| k.id == id);
        let k = k.ok_or_else(|| Error::not_found(format!("node key {id}")))?;
        k.revoked_ms = Some(now);
        Ok(())
    }

    async fn list_controller_certificates(
        &self,
        p: &FakeCaller,
    ) -> Answer<Vec<ControllerCertView>> {
        admin_only(p)?;
        Ok(Vec::new())
    }

    async fn revoke_controller_certificate(&self, p: &FakeCaller, serial: &str) -> Answer<()> {
        admin_only(p)?;
        Err(Error::not_found(format!("controller certificate {serial}")))
    }
}

impl RegistryApi for FakeController {
    async fn list_resource_types(&self, _p: &FakeCaller) -> Answer<Vec<ResourceType>> {
        Ok(self.lock().types.clone())
    }

    async fn register_resource_type(
        &self,
        p: &FakeCaller,
        t: ResourceType,
    ) -> Answer<ResourceType> {
        admin_only(p)?;
        let mut s = self.lock();
        if s.types.iter().any(|have| have.name == t.name) {
            return Err(Error::conflict(format!("type {} exists", t.name)));
        }
        let t = ResourceType {
            builtin: false,
            ..t
        };
        s.types.push(t.clone());
        Ok(t)
    }
}
