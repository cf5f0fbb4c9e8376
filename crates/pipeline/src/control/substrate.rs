//! The substrate's control side: network specifications, their placement on
//! the hardware tier's slots, compilation into tables, and atomic publication
//! to the pipelines.
//!
//! Every change (add, remove, re-tier a network) checks capacities first and
//! changes nothing if it fails; on success it publishes a whole new
//! [`Dataplane`]. This is the object a live node's API drives; placement is a
//! run-time property so a later migration only calls [`Substrate::set_tier`].

pub use crate::control::compile::compile;
use crate::control::device::{DeviceProfile, HardwareTier, ModuleKind, PlacementError};
use crate::fast::dataplane::{Dataplane, Network, Next, SHARED_CHANNEL, SOFTWARE_CHANNELS, Tier};
use crate::fast::mapping::Mapping;
use arc_swap::ArcSwap;
use prism_tables::Rule;
use std::sync::Arc;

mod checks;
mod reconfigure;

pub use crate::control::spec::{
    ForwardingSpec, MappingRule, NetworkSpec, ProgramSpec, RuleSpec, SubstrateError, TunnelSpec,
};

/// The substrate: ports, device, networks, and the published dataplane.
#[derive(Debug)]
pub struct Substrate {
    ports: u16,
    hw: HardwareTier,
    specs: Vec<Option<NetworkSpec>>,
    compiled: Vec<Option<Arc<Network>>>,
    /// The design-select table published last; built again only when a
    /// change touches mapping rules.
    mapping: Arc<Mapping>,
    mapping_stale: bool,
    default_network: Option<u16>,
    generation: u64,
    published: Arc<ArcSwap<Dataplane>>,
    /// Network ids by name.
    index: std::collections::HashMap<String, u16>,
    /// Mapping rules over all networks (the design-select table's size).
    mapping_rules: usize,
    /// The ports that face the wide area ([`crate::wan::tunnels`]).
    wan_ports: Vec<u16>,
    /// The node's WAN address (NAT's external address) and its MAC.
    wan_address: Option<(prism_wire::Ipv4Address, prism_wire::EthernetAddress)>,
    /// While set, changes are not published (a scenario loading many
    /// networks publishes once at the end: `Self::batch`).
    deferred: bool,
    /// The networks changed since the last publication (`None`: anything
    /// may have, e.g. every slot's load time): the next data plane builds
    /// only their records ([`Dataplane::next`]).
    touched: Option<Vec<u16>>,
    /// The WAN side published last; built again only when a change
    /// touches tunnels or the WAN ports and address.
    wan: Arc<crate::wan::tunnels::WanTable>,
    wan_stale: bool,
    /// Data planes published before, kept until no pipeline holds them:
    /// the last reference is dropped here, so freeing a replaced network
    /// (megabytes for a rule table) happens on the control thread, never
    /// on a worker's fast path when it adopts the next one.
    retired: Vec<Arc<Dataplane>>,
}

impl Substrate {
    pub fn new(profile: DeviceProfile, ports: u16) -> Self {
        Self {
            ports,
            hw: HardwareTier::new(profile),
            specs: Vec::new(),
            compiled: Vec::new(),
            mapping: Arc::default(),
            mapping_stale: false,
            default_network: None,
            generation: 0,
            published: Arc::new(ArcSwap::from_pointee(Dataplane::empty(ports))),
            index: std::collections::HashMap::new(),
            mapping_rules: 0,
            wan_ports: Vec::new(),
            wan_address: None,
            deferred: false,
            touched: Some(Vec::new()),
            wan: Arc::default(),
            wan_stale: false,
            retired: Vec::new(),
        }
    }

    /// Runs `f`, publishing its changes once at the end rather than one by
    /// one: loading n networks costs O(n) publications' work once, not n
    /// times. Readers see the data plane of before, then of after.
    pub fn batch<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let was = std::mem::replace(&mut self.deferred, true);
        let r = f(self);
        self.deferred = was;
        if !was {
            self.publish();
        }
        r
    }

    /// The handle pipelines read the configuration through.
    pub fn handle(&self) -> Arc<ArcSwap<Dataplane>> {
        self.published.clone()
    }

    pub fn hardware(&self) -> &HardwareTier {
        &self.hw
    }

    pub fn ports(&self) -> u16 {
        self.ports
    }

    /// Makes `ports` the node's WAN ports: what arrives on them goes
    /// through the WAN side's termination, never the mapping table.
    pub fn set_wan_ports(&mut self, ports: &[u16]) -> Result<(), SubstrateError> {
        if let Some(&port) = ports.iter().find(|p| **p >= self.ports) {
            return Err(SubstrateError::NoSuchPort {
                port,
                ports: self.ports,
            });
        }
        self.wan_ports = ports.to_vec();
        self.wan_stale = true;
        self.publish();
        Ok(())
    }

    /// The node's WAN address and MAC: the gateway's address for NAT, and
    /// what it answers ARP with ([`crate::wan::gateway`]).
    pub fn set_wan_address(
        &mut self,
        address: Option<(prism_wire::Ipv4Address, prism_wire::EthernetAddress)>,
    ) {
        self.wan_address = address;
        self.wan_stale = true;
        self.publish();
    }

    pub fn wan_ports(&self) -> &[u16] {
        &self.wan_ports
    }

    pub fn id(&self, name: &str) -> Option<u16> {
        self.index.get(name).copied()
    }

    pub fn spec(&self, name: &str) -> Option<&NetworkSpec> {
        self.id(name)
            .and_then(|i| self.specs[usize::from(i)].as_ref())
    }

    pub fn networks(&self) -> impl Iterator<Item = (u16, &NetworkSpec)> {
        self.specs
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i as u16, s)))
    }
    /// Everything a change to `spec` needs, computed without changing
    /// anything: its id (existing or the next free one), its compiled
    /// tables with their slot, and the hardware tier after placing it.
    fn prepare(&self, spec: &NetworkSpec) -> Result<(u16, Network, HardwareTier), SubstrateError> {
        self.check_actions(spec)?;
        let existing = self.id(&spec.name);
        let replaced = existing
            .and_then(|id| self.specs[usize::from(id)].as_ref())
            .map_or(0, |s| s.mapping.len());
        let mapping_total = self.mapping_rules - replaced + spec.mapping.len();
        self.hw
            .check_mapping(mapping_total)
            .map_err(|source| SubstrateError::Placement {
                network: spec.name.clone(),
                source,
            })?;
        let id = match existing {
            Some(id) => id,
            None => match self.specs.iter().position(Option::is_none) {
                Some(i) => i as u16,
                None if self.specs.len() < usize::from(u16::MAX) => self.specs.len() as u16,
                None => return Err(SubstrateError::TooManyNetworks),
            },
        };
        let before = existing.and_then(|id| {
            let i = usize::from(id);
            Some((self.specs[i].as_ref()?, self.compiled[i].as_deref()?))
        });
        let in_place =
            before.and_then(|(s, n)| crate::control::recompile::rules_changed(s, n, spec));
        let mut net = match in_place {
            Some(n) => n,
            None => compile(spec)?,
        };
        net.program = crate::control::compile::program_for(spec, before.map(|(_, n)| n));
        let mut hw = self.hw.clone();
        hw.release(id);
        net.slot = place(&mut hw, id, spec)?;
        Ok((id, net, hw))
    }

    /// Checks that `spec` could be added, or could replace the network of
    /// its name, without changing anything; returns the id it would have.
    pub fn check(&self, spec: &NetworkSpec) -> Result<u16, SubstrateError> {
        self.prepare(spec).map(|(id, _, _)| id)
    }

    fn commit(&mut self, id: u16, spec: NetworkSpec, net: Network, hw: HardwareTier) {
        let i = usize::from(id);
        if i == self.specs.len() {
            self.specs.push(None);
            self.compiled.push(None);
        }
        self.hw = hw;
        if let Some(old) = &self.specs[i] {
            self.mapping_rules -= old.mapping.len();
        }
        self.mapping_rules += spec.mapping.len();
        let old_mapping = self.specs[i].as_ref().map(|s| &s.mapping[..]);
        self.mapping_stale |= old_mapping.unwrap_or_default() != &spec.mapping[..];
        let old_tunnels = self.specs[i].as_ref().map(|s| &s.tunnels[..]);
        self.wan_stale |= old_tunnels.unwrap_or_default() != &spec.tunnels[..];
        self.touch(id);
        self.index.insert(spec.name.clone(), id);
        self.specs[i] = Some(spec);
        self.compiled[i] = Some(Arc::new(net));
        self.publish();
    }

    /// Adds a network, placing it on its tier. Nothing changes on error.
    pub fn add_network(&mut self, spec: NetworkSpec) -> Result<u16, SubstrateError> {
        if self.id(&spec.name).is_some() {
            return Err(SubstrateError::DuplicateName(spec.name));
        }
        let (id, net, hw) = self.prepare(&spec)?;
        self.commit(id, spec, net, hw);
        Ok(id)
    }

    /// Removes a network and frees its slot.
    pub fn remove_network(&mut self, name: &str) -> Result<(), SubstrateError> {
        let id = self
            .id(name)
            .ok_or_else(|| SubstrateError::UnknownNetwork(name.to_string()))?;
        if let Some(slot) = self.hw.release(id) {
            self.hw.blank(slot);
        }
        if let Some(old) = self.specs[usize::from(id)].take() {
            self.mapping_rules -= old.mapping.len();
            self.mapping_stale |= !old.mapping.is_empty();
            self.wan_stale |= !old.tunnels.is_empty();
        }
        self.touch(id);
        self.index.remove(name);
        self.compiled[usize::from(id)] = None;
        if self.default_network == Some(id) {
            self.default_network = None;
        }
        self.publish();
        Ok(())
    }

    /// Replaces a network's specification (routes, rules, rate, tier...),
    /// keeping its id. Nothing changes on error.
    pub fn replace_network(&mut self, spec: NetworkSpec) -> Result<(), SubstrateError> {
        if self.id(&spec.name).is_none() {
            return Err(SubstrateError::UnknownNetwork(spec.name));
        }
        let (id, net, hw) = self.prepare(&spec)?;
        self.commit(id, spec, net, hw);
        Ok(())
    }

    /// Moves a network to `tier`.
    pub fn set_tier(&mut self, name: &str, tier: Tier) -> Result<(), SubstrateError> {
        let mut spec = self
            .spec(name)
            .cloned()
            .ok_or_else(|| SubstrateError::UnknownNetwork(name.to_string()))?;
        spec.tier = tier;
        self.replace_network(spec)
    }

    /// Where unmatched packets go; `None` drops them as `no-network`.
    pub fn set_default_network(&mut self, name: Option<&str>) -> Result<(), SubstrateError> {
        self.default_network = match name {
            Some(n) => Some(
                self.id(n)
                    .ok_or_else(|| SubstrateError::UnknownNetwork(n.to_string()))?,
            ),
            None => None,
        };
        self.publish();
        Ok(())
    }

    /// Network `id` changed: its record is built again at publication.
    fn touch(&mut self, id: u16) {
        if let Some(t) = &mut self.touched {
            t.push(id);
        }
    }

    fn publish(&mut self) {
        if self.deferred {
            return;
        }
        self.generation += 1;
        if std::mem::take(&mut self.mapping_stale) {
            self.mapping = Arc::new(self.build_mapping());
        }
        if std::mem::take(&mut self.wan_stale) {
            let tunnels =
                (self.networks()).flat_map(|(id, spec)| spec.tunnels.iter().map(move |t| (*t, id)));
            let (ports, wan, address) = (self.ports, &self.wan_ports, self.wan_address);
            self.wan = Arc::new(crate::wan::tunnels::WanTable::new(
                ports, wan, address, tunnels,
            ));
        }
        let config = self.hw.config();
        let dark_until_ns = |n: &Network| n.slot.map_or(0, |s| config[s].ready_ns);
        let prev = self.published.load();
        let (generation, mapping) = (self.generation, self.mapping.clone());
        let dp = match self.touched.replace(Vec::new()) {
            Some(mut ids) => {
                ids.sort_unstable();
                ids.dedup();
                let changed: Vec<_> = (ids.into_iter())
                    .map(|id| (id, self.compiled[usize::from(id)].clone()))
                    .collect();
                let default_network = self.default_network;
                let g = Next {
                    generation,
                    mapping,
                    default_network,
                    changed: &changed,
                };
                prev.next(g, dark_until_ns)
            }
            None => Dataplane::new(
                generation,
                self.ports,
                mapping,
                self.default_network,
                self.compiled.clone(),
                dark_until_ns,
                Some(&prev),
            ),
        }
        .with_wan(self.wan.clone());
        drop(prev);
        let old = self.published.swap(Arc::new(dp));
        self.retired.push(old);
        self.retired.retain(|d| Arc::strong_count(d) > 1);
    }

    /// The design-select table of every network's mapping rules.
    fn build_mapping(&self) -> Mapping {
        let mut rules = Vec::with_capacity(self.mapping_rules);
        for (id, spec) in self.networks() {
            for m in &spec.mapping {
                rules.push(
                    Rule::new(rules.len() as u32, m.priority, m.fields, u32::from(id))
                        .with_ports(m.src_port, m.dst_port),
                );
            }
        }
        Mapping::new(&rules)
    }
}

/// Takes a slot for `spec` if it is a hardware network.
fn place(
    hw: &mut HardwareTier,
    id: u16,
    spec: &NetworkSpec,
) -> Result<Option<usize>, SubstrateError> {
    if spec.tier != Tier::Hardware {
        return Ok(None);
    }
    let program = spec.program.as_ref().map_or(0, |p| p.tag());
    hw.place_with(
        id,
        (spec.forwarding.module(), program),
        spec.forwarding.entries(),
    )
    .map(Some)
    .map_err(|source| SubstrateError::Placement {
        network: spec.name.clone(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Changes network `net0`'s first route: a new data plane published.
    fn change(s: &mut Substrate, k: u8) {
        let mut spec = s.spec("net0").cloned().expect("net0");
        if let ForwardingSpec::Destination(routes) = &mut spec.forwarding
            && let Some((_, a)) = routes.first_mut()
        {
            a.set_dst_mac = Some(prism_wire::EthernetAddress([2, 0, 0, 0, 0, k]));
        }
        s.replace_network(spec).expect("replaced");
    }

    /// What a booking's table change (docs/customizing.md) relies on: a
    /// network's routes replaced keep its slot with its module loaded, so
    /// no reconfiguration time passes and the slot never goes dark.
    #[test]
    fn a_change_of_routes_keeps_the_slot_and_its_module_loaded() {
        let mut s = crate::fixtures::prefix_networks(2, 4);
        let id = s.id("net0").expect("net0");
        let slot = s.hardware().slot_of(id).expect("a hardware slot");
        let ready = s.hardware().config()[slot].ready_ns;
        change(&mut s, 7);
        assert_eq!(s.hardware().slot_of(id), Some(slot));
        assert_eq!(s.hardware().config()[slot].ready_ns, ready, "reconfigured");
    }

    #[test]
    fn a_replaced_data_plane_is_freed_by_the_control_thread() {
        let mut s = crate::fixtures::prefix_networks(2, 4);
        // A worker holding the data plane of now, as a pipeline does
        // until its next batch.
        let held = s.handle().load_full();
        let was = Arc::downgrade(&held);
        for k in 0..50 {
            change(&mut s, k);
        }
        // Kept for the worker; every other replaced one freed at once.
        assert!(s.retired.len() <= 2, "{} kept", s.retired.len());
        // The worker moves on: its drop is not the last reference, so the
        // freeing is not its own...
        drop(held);
        assert!(was.upgrade().is_some(), "freed by the worker's drop");
        // ...but the next publication's, on the control thread.
        change(&mut s, 99);
        assert!(
            was.upgrade().is_none(),
            "still held after the worker let go"
        );
    }
}
