//! The substrate's side of partial reconfiguration: the device's modelled
//! load times, a slot reserved and loaded for a network's module, and the
//! whole device reprogrammed.

use super::*;

impl Substrate {
    /// Models the device's reconfiguration times (`None`: modules load
    /// instantly, as before any of this existed).
    pub fn set_reconfig_timing(
        &mut self,
        bitstreams: Option<crate::control::reconfig::Bitstreams>,
    ) {
        self.hw.set_timing(bitstreams);
    }

    /// The caller's clock (the pipelines' `now_ns`), for the changes that
    /// follow: a slot loading a module is dark until its load ends.
    pub fn set_now(&mut self, now_ns: u64) {
        self.hw.set_now(now_ns);
    }

    /// When the slot of hardware network `name` is ready (`None`: not in
    /// hardware).
    pub fn slot_ready_ns(&self, name: &str) -> Option<u64> {
        let slot = self.hw.slot_of(self.id(name)?)?;
        Some(self.hw.config()[slot].ready_ns)
    }

    /// Keeps free `slot` for network `name` and starts loading `module`
    /// (and the program tagged, 0 for none) into it (the fallback strategy, while software serves the
    /// network); returns when the load ends.
    pub fn reserve_slot(
        &mut self,
        slot: usize,
        name: &str,
        module: (ModuleKind, u64),
    ) -> Result<u64, SubstrateError> {
        let id = self
            .id(name)
            .ok_or_else(|| SubstrateError::UnknownNetwork(name.to_string()))?;
        let r = self
            .hw
            .reserve(slot, id, module)
            .ok_or_else(|| SubstrateError::Placement {
                network: name.to_string(),
                source: PlacementError::NoFreeSlot {
                    device: self.hw.profile.name,
                    slots: self.hw.profile.slots,
                },
            })?;
        self.touched = None;
        self.publish();
        Ok(r)
    }

    /// Before software network `spec.name` moves to hardware as `spec`:
    /// if the slot it would get must first load its module, keeps that
    /// slot for it and starts the load; returns when it ends (`None`: the
    /// slot is ready, the move can be made at once). Make before break:
    /// the caller moves the network once the load has ended.
    pub fn load_for(&mut self, spec: &NetworkSpec) -> Result<Option<u64>, SubstrateError> {
        if self.id(&spec.name).is_none() {
            return Err(SubstrateError::UnknownNetwork(spec.name.clone()));
        }
        let (_, net, hw) = self.prepare(spec)?;
        let Some(slot) = net.slot else {
            return Ok(None);
        };
        if hw.config()[slot].ready_ns <= self.hw.timing().now_ns {
            return Ok(None);
        }
        let program = spec.program.as_ref().map_or(0, |p| p.tag());
        Ok(Some(self.reserve_slot(
            slot,
            &spec.name,
            (spec.forwarding.module(), program),
        )?))
    }

    /// Replaces hardware network `spec.name` by `spec` through a full
    /// reprogramming of the device (paper 003 §3.5): every slot is dark
    /// until the returned time. Nothing changes on error.
    pub fn reprogram_with(&mut self, spec: NetworkSpec) -> Result<u64, SubstrateError> {
        if self.id(&spec.name).is_none() {
            return Err(SubstrateError::UnknownNetwork(spec.name));
        }
        let module = spec.forwarding.module();
        let (id, net, mut hw) = self.prepare(&spec)?;
        let changes: Vec<(usize, ModuleKind)> = net.slot.map(|s| (s, module)).into_iter().collect();
        let end = hw.reprogram(&changes);
        // Every slot goes dark: every record is built again.
        self.touched = None;
        self.commit(id, spec, net, hw);
        Ok(end)
    }
}
