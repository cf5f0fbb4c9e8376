//! The fake node's answers to each call of the node API.

use super::*;

impl NodeApi for FakeNode {
    fn list_networks(&self) -> Result<Vec<NetworkView>, ApiError> {
        self.up()?;
        let hardware = self.hardware_names();
        let mut views: Vec<NetworkView> = self.docs.lock().unwrap().iter().map(view).collect();
        for v in &mut views {
            v.slot = hardware.iter().position(|n| *n == v.name);
        }
        Ok(views)
    }
    fn get_network(&self, name: &str) -> Result<NetworkDetail, ApiError> {
        self.up()?;
        let d = self.doc(name).ok_or_else(|| missing(name))?;
        Ok(NetworkDetail {
            network: view(&d),
            definition: d,
        })
    }
    fn add_network(&self, doc: NetworkDoc) -> Result<Changed, ApiError> {
        self.change()?;
        self.check(&doc)?;
        let mut docs = self.docs.lock().unwrap();
        if docs.iter().any(|d| d.name == doc.name) {
            return Err(ApiError::new(ErrorCode::Conflict, "exists"));
        }
        let hw = docs
            .iter()
            .filter(|d| d.tier == TierChoice::Hardware)
            .count();
        if doc.tier == TierChoice::Hardware && hw >= self.slots as usize {
            return Err(ApiError::new(ErrorCode::Capacity, "no free slot"));
        }
        let network = Some(view(&doc));
        docs.push(doc);
        Ok(Changed {
            result: "added".into(),
            network,
        })
    }
    fn replace_network(&self, name: &str, doc: NetworkDoc) -> Result<Changed, ApiError> {
        self.change()?;
        self.check(&doc)?;
        let mut docs = self.docs.lock().unwrap();
        let d = docs
            .iter_mut()
            .find(|d| d.name == name)
            .ok_or_else(|| missing(name))?;
        *d = doc;
        Ok(Changed {
            result: "replaced".into(),
            network: Some(view(d)),
        })
    }
    fn remove_network(&self, name: &str) -> Result<Changed, ApiError> {
        self.change()?;
        let mut docs = self.docs.lock().unwrap();
        let before = docs.len();
        docs.retain(|d| d.name != name);
        if docs.len() == before {
            return Err(missing(name));
        }
        Ok(Changed {
            result: "removed".into(),
            network: None,
        })
    }
    fn set_routes(&self, name: &str, _: RoutesBody) -> Result<Changed, ApiError> {
        Err(missing(name))
    }
    fn set_rules(&self, name: &str, _: RulesBody) -> Result<Changed, ApiError> {
        Err(missing(name))
    }
    fn set_rate_limit(&self, name: &str, _: RateLimitBody) -> Result<Changed, ApiError> {
        Err(missing(name))
    }
    fn set_tier(&self, name: &str, _: TierBody) -> Result<Changed, ApiError> {
        Err(missing(name))
    }
    fn counters(&self) -> Result<CounterSnapshot, ApiError> {
        self.up()?;
        let traffic = self.traffic.lock().unwrap();
        let networks = self
            .docs
            .lock()
            .unwrap()
            .iter()
            .map(|d| {
                traffic
                    .get(&d.name)
                    .cloned()
                    .unwrap_or_else(|| empty_counters(&d.name))
            })
            .collect();
        Ok(CounterSnapshot {
            rx_packets: 0,
            rx_bytes: 0,
            networks,
            unmapped_drops: Default::default(),
            stages: Vec::new(),
        })
    }
    fn ports(&self) -> Result<Vec<PortView>, ApiError> {
        Ok(Vec::new())
    }
    fn node(&self) -> Result<NodeInfo, ApiError> {
        self.up()?;
        Ok(NodeInfo {
            device: DEVICE.into(),
            ports: self.ports.clone(),
            software_interfaces: vec![false; self.ports.len()],
            io: "packet".into(),
            workers: 1,
            hardware_slots: SlotsInfo {
                total: self.slots,
                free: self.slots as usize,
            },
            desired_generation: self.desired_generation.load(Ordering::SeqCst),
            wan: self.wan.lock().unwrap().clone(),
            processing_port: self.processing_port.lock().unwrap().clone(),
        })
    }
    /// As a node does: fenced, planned and carried out by the node API's
    /// own `reconcile` functions, through this fake's per-network calls.
    fn put_desired(&self, body: DesiredState) -> Result<DesiredApplied, ApiError> {
        self.up()?;
        self.hold_if_asked();
        prism_node::control::plan::fence(
            self.desired_generation.load(Ordering::SeqCst),
            body.generation,
        )?;
        body.check()?;
        for doc in &body.networks {
            self.check(doc)?;
        }
        Ok(self.converge(body))
    }
    /// As a node does: the change made whole from the last state accepted
    /// (only its put documents checked: the rest were when they came).
    fn patch_desired(&self, body: DesiredChange) -> Result<DesiredApplied, ApiError> {
        self.up()?;
        let fence =
            |g| prism_node::control::plan::fence(self.desired_generation.load(Ordering::SeqCst), g);
        fence(body.generation)?;
        body.check()?;
        for doc in &body.put {
            self.check(doc)?;
        }
        let whole = body.apply_to(&mut self.last_desired.lock().unwrap());
        let whole = whole.inspect_err(|_| {
            self.patches_refused.fetch_add(1, Ordering::SeqCst);
        })?;
        self.patches.fetch_add(1, Ordering::SeqCst);
        self.hold_if_asked();
        fence(whole.generation)?;
        Ok(self.converge(whole).touched())
    }
    /// One record echoing the request: its count as the timestamp, "00" as
    /// the frame of a capture, the network asked for.
    fn tap(&self, name: Option<&str>, body: TapBody) -> Result<TapAnswer, ApiError> {
        self.up()?;
        if let Some(n) = name
            && self.doc(n).is_none()
        {
            return Err(missing(n));
        }
        Ok(TapAnswer {
            packets: vec![TapView {
                point: prism_node_api::TapPoint::Ingress,
                timestamp_ns: body.count as u64,
                port: format!("{name:?}"),
                network: name.map(str::to_string),
                len: 0,
                data: if body.capture {
                    "00".into()
                } else {
                    String::new()
                },
                stages: vec![],
            }],
            timed_out: false,
        })
    }
    /// Logs a started and a done event (the fake loads nothing: done at
    /// once, with a made-up measured time) and answers the started one.
    fn reconfigure(&self, name: &str, b: ReconfigureBody) -> Result<Reconfiguring, ApiError> {
        self.up()?;
        if self.doc(name).is_none() {
            return Err(missing(name));
        }
        let mut log = self.log.lock().unwrap();
        let started = event(log.len() as u64 + 1, name, b.strategy);
        let done = NodeEvent {
            seq: started.seq + 1,
            kind: EventKind::ReconfigurationDone,
            measured_ms: Some(612.5),
            ..started.clone()
        };
        log.extend([started.clone(), done]);
        Ok(Reconfiguring {
            event: started,
            network: None,
        })
    }
    /// The events logged above `since`.
    fn events(&self, since: u64) -> Result<Vec<NodeEvent>, ApiError> {
        self.up()?;
        let log = self.log.lock().unwrap();
        Ok(log.iter().filter(|e| e.seq > since).cloned().collect())
    }
    /// A region per slot: the hardware networks in order, 100 mW each
    /// (a fake's figure), the rest blank.
    fn read_map(&self, name: &str, map: &str) -> Result<prism_node_api::MapView, ApiError> {
        self.up()?;
        self.with_maps(name, |maps| prism_node::program_maps::read(name, maps, map))
    }

    fn write_map(
        &self,
        name: &str,
        map: &str,
        body: prism_node_api::MapWrite,
    ) -> Result<prism_node_api::MapView, ApiError> {
        self.up()?;
        self.with_maps(name, |maps| {
            prism_node::program_maps::write(name, maps, map, &body)
        })
    }

    fn power(&self) -> Result<PowerView, ApiError> {
        self.up()?;
        let hardware = self.hardware_names();
        let regions = (0..self.slots as usize)
            .map(|slot| prism_node_api::RegionPowerView {
                slot,
                state: if slot < hardware.len() {
                    "active"
                } else {
                    "blank"
                }
                .into(),
                network: hardware.get(slot).cloned(),
                mw: if slot < hardware.len() { 100.0 } else { 0.0 },
            })
            .collect();
        Ok(PowerView {
            kind: "model".into(),
            device: DEVICE.into(),
            total_mw: 1.5 + 100.0 * hardware.len() as f64,
            device_static_mw: 1.0,
            static_region_mw: 0.5,
            regions,
            networks: hardware.iter().map(|n| (n.clone(), 100.0)).collect(),
            source: "none".into(),
        })
    }

    /// As a node does (fenced, checked), keeping what it is told.
    fn put_processing(
        &self,
        body: prism_node_api::ProcessingState,
    ) -> Result<prism_node_api::ProcessingApplied, ApiError> {
        self.up()?;
        if self.processing_port.lock().unwrap().is_none() {
            return Err(ApiError::new(
                prism_node_api::ErrorCode::Unavailable,
                "this node runs no processing nodes",
            ));
        }
        let mut held = self.processing.lock().unwrap();
        let held_gen = held.as_ref().map_or(0, |h| h.generation);
        if body.generation < held_gen {
            return Err(prism_node_api::processing_stale(held_gen, body.generation));
        }
        body.check()?;
        let before = held.as_ref().map(|h| h.nodes.clone()).unwrap_or_default();
        let mut nodes: Vec<prism_node_api::ProcessingOutcome> = (before.iter())
            .filter(|d| !body.nodes.iter().any(|n| n.name == d.name))
            .map(|d| outcome(&d.name, prism_node_api::DesiredAction::Removed))
            .collect();
        for d in &body.nodes {
            let action = match before.iter().find(|b| b.name == d.name) {
                None => prism_node_api::DesiredAction::Added,
                Some(b) if b == d => prism_node_api::DesiredAction::Unchanged,
                Some(_) => prism_node_api::DesiredAction::Replaced,
            };
            nodes.push(outcome(&d.name, action));
        }
        let generation = body.generation;
        *held = Some(body);
        let starts = (nodes.iter()).any(|n| n.action == prism_node_api::DesiredAction::Added);
        let took = self
            .processing_start_ms
            .load(std::sync::atomic::Ordering::SeqCst);
        if starts && took > 0 {
            drop(held);
            std::thread::sleep(std::time::Duration::from_millis(took));
        }
        Ok(prism_node_api::ProcessingApplied { generation, nodes })
    }

    fn list_processing(&self) -> Result<Vec<prism_node_api::ProcessingView>, ApiError> {
        Ok(Vec::new())
    }

    /// An image of three blobs named after the node saved (the same for
    /// the same name): its base's config and layer, and a layer its own.
    fn save_image(&self, name: &str) -> Result<prism_node_api::SavedImage, ApiError> {
        self.up()?;
        let held = self.processing.lock().unwrap();
        if !(held.iter().flat_map(|h| &h.nodes)).any(|d| d.name == name) {
            return Err(ApiError::not_found(format!("no processing node `{name}`")));
        }
        let blob = |s: &str, size| prism_node_api::BlobRef {
            digest: format!("sha256:{:064x}", crate::fake_node::fnv64(s)),
            size,
        };
        Ok(prism_node_api::SavedImage {
            manifest: blob(&format!("manifest {name}"), 400),
            blobs: vec![
                blob("base config", 600),
                blob("base layer", 5000),
                blob(name, 90),
            ],
        })
    }

    /// Keeps what it was asked to upload (it uploads nothing).
    fn push_image(
        &self,
        body: prism_node_api::PushImage,
    ) -> Result<prism_node_api::PushedImage, ApiError> {
        self.up()?;
        let bytes = body.blobs.iter().map(|b| b.size).sum();
        let blobs = body.blobs.len() as u32;
        self.pushed.lock().unwrap().extend(body.blobs);
        Ok(prism_node_api::PushedImage { blobs, bytes })
    }
}

fn outcome(name: &str, action: prism_node_api::DesiredAction) -> prism_node_api::ProcessingOutcome {
    prism_node_api::ProcessingOutcome {
        name: name.into(),
        action,
        error: None,
        ssh: None,
        host_keys: Vec::new(),
    }
}
