//! The node API (`prism_node_api::NodeApi`) served by a node's control
//! side: every change, whole or partial (routes, rules, rate limit, tier),
//! becomes the network's new document and goes through `Control::apply`,
//! which checks it completely before it changes anything. A refused change
//! leaves everything as it was.
//!
//! Changes are made one at a time (the control side is behind a lock);
//! counters and port statistics come from the workers' reports, behind
//! another, so reads are not held up by a container starting.

use crate::control::Control;
use crate::linux::node::sum_counters;
use crate::linux::worker::WorkerReport;
use crate::runtime::NodeRuntime;
use crate::taps::TapSource;
use prism_netdoc::{NetworkDoc, Rate, RateLimitDoc};
use prism_node_api::CounterSnapshot;
use prism_node_api::{
    ApiError, Changed, DesiredApplied, DesiredChange, DesiredState, ErrorCode, NetworkDetail,
    NetworkView, NodeApi, NodeEvent, NodeInfo, PortView, PowerView, RateLimitBody, ReconfigureBody,
    Reconfiguring, RegionPowerView, RoutesBody, RulesBody, SlotsInfo, TapAnswer, TapBody, TapView,
    TierBody,
};
use prism_pipeline::TapRequest;
use std::sync::{Arc, Mutex, MutexGuard};

/// What the node says of itself beyond its networks.
#[derive(Debug, Clone)]
pub struct NodeFacts {
    pub software_interfaces: Vec<bool>,
    pub io: String,
    pub workers: usize,
    /// The WAN port, if the node has one.
    pub wan: Option<prism_node_api::WanInfo>,
    /// The port processing nodes are behind, if it runs them.
    pub processing_port: Option<String>,
}

#[derive(Debug)]
pub struct NodeApiServer<R: NodeRuntime> {
    pub control: Arc<Mutex<Control<R>>>,
    pub reports: Arc<Mutex<Vec<WorkerReport>>>,
    pub facts: NodeFacts,
    /// Where traces and captures are armed (`None`: not offered).
    pub taps: Option<Arc<dyn TapSource>>,
}

/// Limits of a trace or capture request.
pub const TAP_MAX_COUNT: usize = 100_000;
pub const TAP_MAX_SNAPLEN: usize = 2048;
pub const TAP_MAX_WAIT_MS: u64 = 60_000;
const TAP_DEFAULT_WAIT_MS: u64 = 10_000;

impl<R: NodeRuntime> NodeApiServer<R> {
    fn lock(&self) -> MutexGuard<'_, Control<R>> {
        // A panic while holding the lock leaves the control side as it
        // was before the change (checks come before changes).
        self.control.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `edit` to network `name`'s document (`None` if it has none)
    /// and converges to the result.
    fn change(
        &self,
        name: &str,
        edit: impl FnOnce(Option<NetworkDoc>) -> Result<Option<NetworkDoc>, ApiError>,
    ) -> Result<Changed, ApiError> {
        let mut c = self.lock();
        c.writable()?;
        let desired = edit(c.definition(name))?;
        let result = c.apply(name, desired).map_err(ApiError::from)?;
        Ok(Changed {
            result,
            network: c.view(name),
        })
    }

    fn existing(name: &str, doc: Option<NetworkDoc>) -> Result<NetworkDoc, ApiError> {
        doc.ok_or_else(|| ApiError::not_found(format!("no network `{name}`")))
    }
}

impl<R: NodeRuntime> NodeApi for NodeApiServer<R>
where
    R::Router: Sync,
{
    fn list_networks(&self) -> Result<Vec<NetworkView>, ApiError> {
        let c = self.lock();
        Ok(c.substrate
            .networks()
            .filter_map(|(_, n)| c.view(&n.name))
            .collect())
    }

    fn get_network(&self, name: &str) -> Result<NetworkDetail, ApiError> {
        let c = self.lock();
        match (c.view(name), c.definition(name)) {
            (Some(network), Some(definition)) => Ok(NetworkDetail {
                network,
                definition,
            }),
            _ => Err(ApiError::not_found(format!("no network `{name}`"))),
        }
    }

    fn add_network(&self, doc: NetworkDoc) -> Result<Changed, ApiError> {
        let name = doc.name.clone();
        self.change(&name.clone(), move |cur| match cur {
            Some(_) => Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "a network named `{name}` already exists (PUT /v1/networks/{name} changes it)"
                ),
            )
            .with_field("name")),
            None => Ok(Some(doc)),
        })
    }

    fn replace_network(&self, name: &str, doc: NetworkDoc) -> Result<Changed, ApiError> {
        self.change(name, |cur| {
            Self::existing(name, cur)?;
            Ok(Some(doc))
        })
    }

    fn remove_network(&self, name: &str) -> Result<Changed, ApiError> {
        self.change(name, |cur| {
            Self::existing(name, cur)?;
            Ok(None)
        })
    }

    fn set_routes(&self, name: &str, body: RoutesBody) -> Result<Changed, ApiError> {
        self.change(name, |cur| {
            let mut d = Self::existing(name, cur)?;
            d.route = body.route;
            Ok(Some(d))
        })
    }

    fn set_rules(&self, name: &str, body: RulesBody) -> Result<Changed, ApiError> {
        self.change(name, |cur| {
            let mut d = Self::existing(name, cur)?;
            d.rule = body.rule;
            d.default_action = body.default_action;
            Ok(Some(d))
        })
    }

    fn set_rate_limit(&self, name: &str, body: RateLimitBody) -> Result<Changed, ApiError> {
        self.change(name, |cur| {
            let mut d = Self::existing(name, cur)?;
            d.rate_limit = body.rate_bps.map(|r| RateLimitDoc {
                rate: Rate(r),
                burst: body.burst_bytes,
            });
            Ok(Some(d))
        })
        .map_err(|e| prefix_field(e, "rate_limit.rate", "rate_bps"))
        .map_err(|e| prefix_field(e, "rate_limit.burst", "burst_bytes"))
    }

    fn set_tier(&self, name: &str, body: TierBody) -> Result<Changed, ApiError> {
        self.change(name, |cur| {
            let mut d = Self::existing(name, cur)?;
            d.tier = body.tier.into();
            Ok(Some(d))
        })
    }

    fn counters(&self) -> Result<CounterSnapshot, ApiError> {
        let r = self.reports.lock().unwrap_or_else(|e| e.into_inner());
        sum_counters(&r)
            .map(crate::api_views::counters)
            .ok_or_else(|| ApiError::new(ErrorCode::Unavailable, "no counters yet"))
    }

    fn ports(&self) -> Result<Vec<PortView>, ApiError> {
        let r = self.reports.lock().unwrap_or_else(|e| e.into_inner());
        Ok(r.iter()
            .enumerate()
            .flat_map(|(w, rep)| {
                rep.ports.iter().map(move |p| PortView {
                    worker: w,
                    name: p.name.clone(),
                    io: p.io.clone(),
                    rx: p.rx,
                    rx_frames: p.stats.rx_frames,
                    tx_frames: p.stats.tx_frames,
                    tx_errors: p.stats.tx_errors,
                    rx_ring_drops: p.stats.rx_ring_drops,
                })
            })
            .collect())
    }

    fn tap(&self, name: Option<&str>, body: TapBody) -> Result<TapAnswer, ApiError> {
        let (snaplen, wait) = tap_limits(&body)?;
        let Some(taps) = &self.taps else {
            return Err(ApiError::new(
                ErrorCode::Unavailable,
                "this node offers no trace or capture",
            ));
        };
        let (network, ports, names) = {
            let c = self.lock();
            let network = match name {
                Some(n) => Some(
                    c.substrate
                        .id(n)
                        .ok_or_else(|| ApiError::not_found(format!("no network `{n}`")))?,
                ),
                None => None,
            };
            let names: std::collections::BTreeMap<u16, String> = c
                .substrate
                .networks()
                .map(|(id, n)| (id, n.name.clone()))
                .collect();
            (network, c.port_names.clone(), names)
        };
        let req = TapRequest {
            network,
            count: body.count,
            capture: body.capture,
            snaplen,
        };
        let (records, timed_out) = taps
            .tap(req, std::time::Duration::from_millis(wait))
            .map_err(ApiError::internal)?;
        Ok(TapAnswer {
            packets: records
                .into_iter()
                .map(|r| tap_view(r, &ports, &names))
                .collect(),
            timed_out,
        })
    }

    fn reconfigure(&self, name: &str, body: ReconfigureBody) -> Result<Reconfiguring, ApiError> {
        let mut c = self.lock();
        c.writable()?;
        let event = c
            .reconfigure(
                name,
                body.definition,
                body.strategy.map(crate::api_views::strategy),
            )
            .map_err(|e| {
                let mut e = ApiError::from(e);
                if let Some(f) = &e.field
                    && !f.starts_with("definition")
                {
                    e.field = Some(format!("definition.{f}"));
                }
                e
            })?;
        Ok(Reconfiguring {
            event,
            network: c.view(name),
        })
    }

    fn events(&self, since: u64) -> Result<Vec<NodeEvent>, ApiError> {
        Ok(self.lock().events_since(since))
    }

    fn read_map(&self, name: &str, map: &str) -> Result<prism_node_api::MapView, ApiError> {
        let dp = self.lock().substrate.handle().load_full();
        crate::program_maps::read(name, crate::program_maps::maps_of(&dp, name)?, map)
    }

    fn write_map(
        &self,
        name: &str,
        map: &str,
        body: prism_node_api::MapWrite,
    ) -> Result<prism_node_api::MapView, ApiError> {
        let dp = self.lock().substrate.handle().load_full();
        crate::program_maps::write(name, crate::program_maps::maps_of(&dp, name)?, map, &body)
    }

    fn power(&self) -> Result<PowerView, ApiError> {
        let c = self.lock();
        let model = prism_pipeline::control::power::model(&c.device).ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("device `{}` has no power model", c.device),
            )
        })?;
        let names: std::collections::BTreeMap<u16, String> = c
            .substrate
            .networks()
            .map(|(id, n)| (id, n.name.clone()))
            .collect();
        let r = model.report(c.substrate.hardware());
        let regions: Vec<RegionPowerView> = r
            .regions
            .iter()
            .map(|g| RegionPowerView {
                slot: g.slot,
                state: g.state.as_str().to_string(),
                network: g.network.and_then(|n| names.get(&n).cloned()),
                mw: g.mw,
            })
            .collect();
        Ok(PowerView {
            kind: "model".into(),
            device: c.device.clone(),
            total_mw: r.total_mw,
            device_static_mw: r.device_static_mw,
            static_region_mw: r.static_region_mw,
            networks: regions
                .iter()
                .filter_map(|g| Some((g.network.clone()?, g.mw)))
                .collect(),
            regions,
            source: model.source.to_string(),
        })
    }

    fn node(&self) -> Result<NodeInfo, ApiError> {
        let c = self.lock();
        let hw = c.substrate.hardware();
        Ok(NodeInfo {
            device: c.device.clone(),
            ports: c.port_names.clone(),
            software_interfaces: self.facts.software_interfaces.clone(),
            io: self.facts.io.clone(),
            workers: self.facts.workers,
            hardware_slots: SlotsInfo {
                total: hw.profile.slots,
                free: hw.free_slots(),
            },
            desired_generation: c.desired_generation(),
            wan: self.facts.wan.clone(),
            processing_port: self.facts.processing_port.clone(),
        })
    }

    fn put_desired(&self, body: DesiredState) -> Result<DesiredApplied, ApiError> {
        let mut c = self.lock();
        c.writable()?;
        c.put_desired(body)
    }

    fn patch_desired(&self, body: DesiredChange) -> Result<DesiredApplied, ApiError> {
        let mut c = self.lock();
        c.writable()?;
        c.patch_desired(body)
    }

    fn put_processing(
        &self,
        body: prism_node_api::ProcessingState,
    ) -> Result<prism_node_api::ProcessingApplied, ApiError> {
        let mut c = self.lock();
        c.writable()?;
        c.runtime.put_processing(body)
    }

    fn list_processing(&self) -> Result<Vec<prism_node_api::ProcessingView>, ApiError> {
        self.lock().runtime.list_processing()
    }

    fn save_image(&self, name: &str) -> Result<prism_node_api::SavedImage, ApiError> {
        let mut c = self.lock();
        c.writable()?;
        c.runtime.save_image(name)
    }

    fn push_image(
        &self,
        body: prism_node_api::PushImage,
    ) -> Result<prism_node_api::PushedImage, ApiError> {
        self.lock().runtime.push_image(body)
    }
}

/// A partial body's errors name the body's field, not the document's:
/// `rate_limit.rate` is the body's `rate_bps`.
fn prefix_field(mut e: ApiError, doc_field: &str, body_field: &str) -> ApiError {
    if let Some(f) = &e.field
        && let Some(rest) = f.strip_prefix(doc_field)
    {
        e.field = Some(format!("{body_field}{rest}"));
    }
    e
}

/// A tap request's snap length and wait, checked (a refusal names its
/// field).
fn tap_limits(body: &TapBody) -> Result<(usize, u64), ApiError> {
    let bad = |field: &str, m: String| ApiError::new(ErrorCode::InvalidInput, m).with_field(field);
    if body.count == 0 || body.count > TAP_MAX_COUNT {
        return Err(bad("count", format!("from 1 to {TAP_MAX_COUNT} packets")));
    }
    let snaplen = body.snaplen.unwrap_or(TAP_MAX_SNAPLEN);
    if !(14..=TAP_MAX_SNAPLEN).contains(&snaplen) {
        return Err(bad(
            "snaplen",
            format!("from 14 to {TAP_MAX_SNAPLEN} bytes"),
        ));
    }
    let wait = body.timeout_ms.unwrap_or(TAP_DEFAULT_WAIT_MS);
    if wait > TAP_MAX_WAIT_MS {
        return Err(bad("timeout_ms", format!("at most {TAP_MAX_WAIT_MS} ms")));
    }
    Ok((snaplen, wait))
}

/// A tap's record as the API shows it: ports and networks by name.
fn tap_view(
    r: prism_pipeline::TapRecord,
    ports: &[String],
    names: &std::collections::BTreeMap<u16, String>,
) -> TapView {
    TapView {
        point: crate::api_views::tap_point(r.point),
        timestamp_ns: r.timestamp_ns,
        port: ports
            .get(usize::from(r.port))
            .cloned()
            .unwrap_or_else(|| r.port.to_string()),
        network: r.network.and_then(|n| names.get(&n).cloned()),
        len: r.len,
        data: r.data,
        stages: r
            .stages
            .into_iter()
            .map(crate::api_views::stage_decision)
            .collect(),
    }
}
