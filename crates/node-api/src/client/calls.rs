//! The node API's calls, typed: one method per operation of `NodeApi`.

use super::{ClientError, NodeClient, TAP_MAX_WAIT, error_of, net, seg};
use crate::counters::CounterSnapshot;
use crate::desired::{DesiredApplied, DesiredChange, DesiredState};
use crate::types::{
    Changed, NetworkDetail, NetworkView, NodeEvent, NodeInfo, PortView, PowerView, RateLimitBody,
    ReconfigureBody, Reconfiguring, RoutesBody, RulesBody, TapAnswer, TapBody, TierBody,
};
use prism_netdoc::NetworkDoc;

impl NodeClient {
    pub async fn list_networks(&self) -> Result<Vec<NetworkView>, ClientError> {
        self.call("GET", "/v1/networks".into(), None::<&()>).await
    }

    pub async fn get_network(&self, name: &str) -> Result<NetworkDetail, ClientError> {
        self.call("GET", net(name, ""), None::<&()>).await
    }

    pub async fn add_network(&self, doc: &NetworkDoc) -> Result<Changed, ClientError> {
        self.call("POST", "/v1/networks".into(), Some(doc)).await
    }

    pub async fn replace_network(
        &self,
        name: &str,
        doc: &NetworkDoc,
    ) -> Result<Changed, ClientError> {
        self.call("PUT", net(name, ""), Some(doc)).await
    }

    pub async fn remove_network(&self, name: &str) -> Result<Changed, ClientError> {
        self.call("DELETE", net(name, ""), None::<&()>).await
    }

    pub async fn set_routes(&self, name: &str, b: &RoutesBody) -> Result<Changed, ClientError> {
        self.call("PUT", net(name, "/routes"), Some(b)).await
    }

    pub async fn set_rules(&self, name: &str, b: &RulesBody) -> Result<Changed, ClientError> {
        self.call("PUT", net(name, "/rules"), Some(b)).await
    }

    pub async fn set_rate_limit(
        &self,
        name: &str,
        b: &RateLimitBody,
    ) -> Result<Changed, ClientError> {
        self.call("PUT", net(name, "/rate-limit"), Some(b)).await
    }

    pub async fn set_tier(&self, name: &str, b: &TierBody) -> Result<Changed, ClientError> {
        self.call("PUT", net(name, "/tier"), Some(b)).await
    }

    pub async fn counters(&self) -> Result<CounterSnapshot, ClientError> {
        self.call("GET", "/v1/counters".into(), None::<&()>).await
    }

    pub async fn ports(&self) -> Result<Vec<PortView>, ClientError> {
        self.call("GET", "/v1/ports".into(), None::<&()>).await
    }

    pub async fn node(&self) -> Result<NodeInfo, ClientError> {
        self.call("GET", "/v1/node".into(), None::<&()>).await
    }

    /// A trace (`capture` false) or capture of network `name`'s next
    /// packets; `None`: a trace of any packet.
    pub async fn tap(&self, name: Option<&str>, b: &TapBody) -> Result<TapAnswer, ClientError> {
        let path = match (name, b.capture) {
            (Some(n), true) => net(n, "/capture"),
            (Some(n), false) => net(n, "/trace"),
            (None, _) => "/v1/trace".into(),
        };
        let wait = b
            .timeout_ms
            .map_or(TAP_MAX_WAIT, std::time::Duration::from_millis)
            .min(TAP_MAX_WAIT);
        let client = self.clone().with_timeout(self.timeout + wait);
        client.call("POST", path, Some(b)).await
    }

    pub async fn reconfigure(
        &self,
        name: &str,
        b: &ReconfigureBody,
    ) -> Result<Reconfiguring, ClientError> {
        self.call("POST", net(name, "/reconfigure"), Some(b)).await
    }

    /// Follows the event log from `since` until network `name`'s
    /// reconfiguration is done or failed (that event), handing every event
    /// to `seen`; `None` if neither came within `timeout`.
    pub async fn wait_reconfigured(
        &self,
        name: &str,
        mut since: u64,
        timeout: std::time::Duration,
        mut seen: impl FnMut(&NodeEvent),
    ) -> Result<Option<NodeEvent>, ClientError> {
        use crate::types::EventKind;
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            for e in self.events(since).await? {
                since = e.seq;
                seen(&e);
                let last = matches!(
                    e.kind,
                    EventKind::ReconfigurationDone | EventKind::ReconfigurationFailed
                );
                if e.network == name && last {
                    return Ok(Some(e));
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        Ok(None)
    }

    /// Events numbered above `since`.
    pub async fn events(&self, since: u64) -> Result<Vec<NodeEvent>, ClientError> {
        self.call("GET", format!("/v1/events?since={since}"), None::<&()>)
            .await
    }

    /// A map of network `name`'s program.
    pub async fn read_map(&self, name: &str, map: &str) -> Result<crate::MapView, ClientError> {
        self.call(
            "GET",
            net(name, &format!("/maps/{}", seg(map))),
            None::<&()>,
        )
        .await
    }

    /// Sets or deletes one entry of a map of network `name`'s program.
    pub async fn write_map(
        &self,
        name: &str,
        map: &str,
        b: &crate::MapWrite,
    ) -> Result<crate::MapView, ClientError> {
        self.call("PUT", net(name, &format!("/maps/{}", seg(map))), Some(b))
            .await
    }

    pub async fn power(&self) -> Result<PowerView, ClientError> {
        self.call("GET", "/v1/power".into(), None::<&()>).await
    }

    /// Converges the scope's networks to `b` (`PUT /v1/desired`).
    pub async fn put_desired(&self, b: &DesiredState) -> Result<DesiredApplied, ClientError> {
        self.call("PUT", "/v1/desired".into(), Some(b)).await
    }

    /// Converges to a change of the state the node holds
    /// (`PATCH /v1/desired`).
    pub async fn patch_desired(&self, b: &DesiredChange) -> Result<DesiredApplied, ClientError> {
        self.call("PATCH", "/v1/desired".into(), Some(b)).await
    }

    /// Converges the scope's processing nodes to `b` (`PUT /v1/processing`).
    pub async fn put_processing(
        &self,
        b: &crate::ProcessingState,
    ) -> Result<crate::ProcessingApplied, ClientError> {
        self.call("PUT", "/v1/processing".into(), Some(b)).await
    }

    /// The processing nodes as they run (`GET /v1/processing`).
    pub async fn list_processing(&self) -> Result<Vec<crate::ProcessingView>, ClientError> {
        self.call("GET", "/v1/processing".into(), None::<&()>).await
    }

    /// Saves processing node `name` as an image in the node's store
    /// (`POST /v1/processing/{name}/image`).
    pub async fn save_image(&self, name: &str) -> Result<crate::SavedImage, ClientError> {
        let path = format!("/v1/processing/{}/image", super::seg(name));
        self.call("POST", path, None::<&()>).await
    }

    /// Uploads blobs of the node's store (`POST /v1/images/push`).
    pub async fn push_image(
        &self,
        b: &crate::PushImage,
    ) -> Result<crate::PushedImage, ClientError> {
        self.call("POST", "/v1/images/push".into(), Some(b)).await
    }

    /// The node's metrics, OpenMetrics text.
    pub async fn metrics(&self) -> Result<String, ClientError> {
        let (status, body) = self.raw("GET", "/metrics", None).await?;
        let text = String::from_utf8_lossy(&body).into_owned();
        if status == 200 {
            Ok(text)
        } else {
            Err(error_of("GET", "/metrics".into(), status, &body))
        }
    }
}
