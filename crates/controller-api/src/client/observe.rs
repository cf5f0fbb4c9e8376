//! The client's calls that look into what runs: a booking's counters,
//! trace and capture; a node's hardware tier and events.

use crate::bookings::BookingCounters;
use crate::client::{ClientError, ControllerClient, seg};
use crate::error::Error;
use crate::observe::{CaptureRequest, NodeHardware, TraceRequest};

impl ControllerClient {
    /// The next packets of the booking's network, each stage's decision.
    pub async fn trace_booking(
        &self,
        project: &str,
        id: &str,
        r: &TraceRequest,
    ) -> Result<prism_node_api::TapAnswer, ClientError> {
        let path = format!("/v1/projects/{}/bookings/{}/trace", seg(project), seg(id));
        self.call("POST", path, Some(r)).await
    }
    /// The next frames of the booking's network as a pcapng file.
    pub async fn capture_booking(
        &self,
        project: &str,
        id: &str,
        r: &CaptureRequest,
    ) -> Result<Vec<u8>, ClientError> {
        let path = format!("/v1/projects/{}/bookings/{}/capture", seg(project), seg(id));
        let body = serde_json::to_vec(r).ok();
        let (status, bytes) = self.raw("POST", &path, body).await?;
        if status == 200 {
            return Ok(bytes);
        }
        match serde_json::from_slice::<Error>(&bytes) {
            Ok(error) => Err(ClientError::Api {
                method: "POST",
                path,
                status,
                error,
            }),
            Err(_) => Err(ClientError::Unexpected {
                method: "POST",
                path,
                status,
                body: String::from_utf8_lossy(&bytes).into_owned(),
            }),
        }
    }
    /// Node `name`'s slots, what each holds and its power (model).
    pub async fn node_hardware(&self, name: &str) -> Result<NodeHardware, ClientError> {
        let path = format!("/v1/nodes/{}/hardware", seg(name));
        self.call("GET", path, None::<&()>).await
    }
    /// Node `name`'s events numbered above `since`.
    pub async fn node_events(
        &self,
        name: &str,
        since: u64,
    ) -> Result<Vec<prism_node_api::NodeEvent>, ClientError> {
        let path = format!("/v1/nodes/{}/events?since={since}", seg(name));
        self.call("GET", path, None::<&()>).await
    }
    /// A map of the booking's program.
    pub async fn read_map(
        &self,
        project: &str,
        id: &str,
        map: &str,
    ) -> Result<prism_node_api::MapView, ClientError> {
        let path = map_path(project, id, map);
        self.call("GET", path, None::<&()>).await
    }

    /// Sets (or, with no value, deletes) one entry of a map of the
    /// booking's program; the map after.
    pub async fn write_map(
        &self,
        project: &str,
        id: &str,
        map: &str,
        w: &prism_node_api::MapWrite,
    ) -> Result<prism_node_api::MapView, ClientError> {
        let path = map_path(project, id, map);
        self.call("PUT", path, Some(w)).await
    }

    /// What the booking's network has forwarded on its node.
    pub async fn booking_counters(
        &self,
        project: &str,
        id: &str,
    ) -> Result<BookingCounters, ClientError> {
        self.call(
            "GET",
            format!(
                "/v1/projects/{}/bookings/{}/counters",
                seg(project),
                seg(id)
            ),
            None::<&()>,
        )
        .await
    }
}

/// The path of map `map` of booking `id`'s program.
fn map_path(project: &str, id: &str, map: &str) -> String {
    format!(
        "/v1/projects/{}/bookings/{}/maps/{}",
        seg(project),
        seg(id),
        seg(map)
    )
}
