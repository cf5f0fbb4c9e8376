//! What a network's actions must satisfy before it is placed: ports that
//! exist, WAN ports only where the controller's documents put them, and
//! the operations the device's modules can do.

use super::*;

impl Substrate {
    /// Checks what `spec`'s actions, bridge, tunnels and software channel
    /// ask of the device and of the other networks.
    pub(super) fn check_actions(&self, spec: &NetworkSpec) -> Result<(), SubstrateError> {
        for a in spec.forwarding.actions() {
            if let Some(p) = a.out_port
                && p >= self.ports
            {
                return Err(SubstrateError::BadPort {
                    network: spec.name.clone(),
                    port: p,
                    ports: self.ports,
                });
            }
            if let Some(c) = a.to_software
                && usize::from(c) >= SOFTWARE_CHANNELS
            {
                return Err(SubstrateError::BadChannel {
                    network: spec.name.clone(),
                    channel: c,
                });
            }
        }
        if let ForwardingSpec::Bridge(b) = &spec.forwarding {
            let refused = |reason: String| SubstrateError::Bridge {
                network: spec.name.clone(),
                reason,
            };
            b.check(self.ports).map_err(refused)?;
            if spec.tier == Tier::Software {
                // The software routers route IP; a bridge learns and floods
                // in the pipeline, which both tiers' frames cross.
                return Err(refused(
                    "a bridge forwards in the hardware tier only".into(),
                ));
            }
        }
        self.check_tunnels(spec)?;
        if let Some(c) = spec.software_channel {
            if usize::from(c) >= SOFTWARE_CHANNELS {
                return Err(SubstrateError::BadChannel {
                    network: spec.name.clone(),
                    channel: c,
                });
            }
            if c != SHARED_CHANNEL
                && let Some((_, owner)) = self
                    .networks()
                    .find(|(_, s)| s.software_channel == Some(c) && s.name != spec.name)
            {
                return Err(SubstrateError::ChannelTaken {
                    network: spec.name.clone(),
                    channel: c,
                    owner: owner.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// No tunnel of `spec` is another network's (the same key on the WAN).
    fn check_tunnels(&self, spec: &NetworkSpec) -> Result<(), SubstrateError> {
        for t in &spec.tunnels {
            if let Some((_, owner)) = self.networks().find(|(_, s)| {
                s.name != spec.name
                    && s.tunnels
                        .iter()
                        .any(|o| crate::wan::tunnels::same_key(o, t))
            }) {
                return Err(SubstrateError::TunnelTaken {
                    network: spec.name.clone(),
                    tunnel: *t,
                    owner: owner.name.clone(),
                });
            }
        }
        Ok(())
    }
}
