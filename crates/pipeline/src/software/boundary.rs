//! The tunnel boundary of a software-tier container, for routers that
//! cannot handle IPIP themselves (Linux forwarding on a kernel with no IPIP
//! module, a user's program).
//!
//! In (towards the container): [`strip_tunnel`] removes the outer header of
//! an IPIP packet, so the router sees the virtual network's own packet and
//! routes it on the inner addresses, as the hardware tier does. Out (from
//! the container): [`restore_tunnel`] looks the packet up again in the
//! network's table and applies the tunnel part of the action found: `Encap`
//! and `Rewrite` wrap the packet in an outer header between the action's
//! endpoints (for `Rewrite` these are the next virtual hop's, which is what
//! a rewrite of the stripped header would have produced, except that the
//! outer TTL starts afresh at 64); `Decap` and no tunnel leave it plain.
//!
//! Example: a `kernel`-router network with
//! `route = [{ prefix = "192.168.1.0/24", action = { port = "b", ipip_rewrite = { src = "172.16.0.2", dst = "172.16.0.3" } } }]`
//! receives `172.16.0.1 → 172.16.0.2 [10.0.0.1 → 192.168.1.5]`; Linux in
//! the container sees `10.0.0.1 → 192.168.1.5`, routes it to `eth1` and
//! decrements its TTL; on `b` it leaves as `172.16.0.2 → 172.16.0.3 [10.0.0.1 → 192.168.1.5]`.

use crate::fast::action::{self, Action, IpipOp, Verdict};
use crate::fast::dataplane::Dataplane;
use crate::fast::matching;
use crate::fast::packet::Packet;
use crate::fast::payload::PayloadScratch;
use crate::fast::reasons::{ActionDrop, DropReason, MapDrop};
use prism_tables::Key;

/// Removes the outer header if `pkt` is an IPIP packet; returns whether it
/// was one. Other frames pass unchanged.
pub fn strip_tunnel(pkt: &mut Packet) -> Result<bool, DropReason> {
    let info = prism_wire::parse_frame(pkt.data(), pkt.port).map_err(DropReason::Parse)?;
    if !info.is_ipip() {
        return Ok(false);
    }
    let l3 = usize::from(info.l3_offset);
    pkt.truncate(usize::from(info.l3_end));
    pkt.remove_gap(l3, usize::from(info.inner_l3_offset) - l3);
    Ok(true)
}

/// Puts back the tunnel header the network's table asks for (see the
/// module text); a packet that matches no entry passes unchanged. `pkt.network` and `pkt.port` (the output port) are set.
pub fn restore_tunnel(
    dp: &Dataplane,
    pkt: &mut Packet,
    scratch: &mut PayloadScratch,
) -> Result<(), DropReason> {
    let info = prism_wire::parse_frame(pkt.data(), pkt.port).map_err(DropReason::Parse)?;
    if !info.is_ipv4() {
        return Ok(());
    }
    let net = dp
        .network(pkt.network)
        .ok_or(DropReason::Map(MapDrop::NoNetwork))?;
    let tunnels = |a: &Action| matches!(a.ipip, IpipOp::Encap { .. } | IpipOp::Rewrite { .. });
    if !net.actions.iter().any(tunnels) {
        return Ok(());
    }
    let key = Key::from_flow(&info.key);
    // The router chose the route (by the table, a connected subnet or a
    // routing daemon's route); with no entry of the table behind it the
    // packet has no tunnel to get back and leaves as it is.
    let Ok(a) = matching::decide(&net.forwarding, &info, &key) else {
        return Ok(());
    };
    let (src, dst) = match net.actions[a as usize].ipip {
        IpipOp::Encap { src, dst } | IpipOp::Rewrite { src, dst } => (src, dst),
        IpipOp::Decap | IpipOp::None => return Ok(()),
    };
    let encap = Action {
        out_port: Some(pkt.port),
        ipip: IpipOp::Encap { src, dst },
        ..Action::default()
    };
    match action::apply(&encap, pkt, &info, scratch) {
        Verdict::Output(_) => Ok(()),
        Verdict::Drop(r) => Err(DropReason::Action(r)),
        Verdict::Software(_) => Err(DropReason::Action(ActionDrop::NoOutputPort)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::device;
    use crate::control::substrate::{ForwardingSpec, NetworkSpec, Substrate};
    use crate::fast::dataplane::Tier;
    use crate::fast::packet::PacketPool;
    use prism_wire::Ipv4Address;

    /// Ethernet + IPv4 (20 bytes, given proto) + 8 bytes of payload.
    fn ipv4(src: [u8; 4], dst: [u8; 4], proto: u8, payload: &[u8]) -> Vec<u8> {
        let total = 20 + payload.len();
        let mut h = vec![
            0x45,
            0,
            (total >> 8) as u8,
            total as u8,
            0,
            1,
            0x40,
            0,
            64,
            proto,
            0,
            0,
        ];
        h.extend(src);
        h.extend(dst);
        let c = prism_wire::checksum::checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h.extend(payload);
        h
    }

    fn frame(l3: &[u8]) -> Vec<u8> {
        let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
        f.extend(l3);
        f
    }

    #[test]
    fn strip_then_restore_gives_the_next_hops_tunnel() {
        let inner = ipv4(
            [10, 0, 0, 1],
            [192, 168, 1, 5],
            17,
            &[0, 1, 0, 2, 0, 8, 0, 0],
        );
        let outer = frame(&ipv4([172, 16, 0, 1], [172, 16, 0, 2], 4, &inner));
        let mut pool = PacketPool::new(4);
        let mut p = pool.packet(&outer, 0, 0).unwrap();
        assert!(strip_tunnel(&mut p).unwrap());
        assert_eq!(p.data(), frame(&inner).as_slice(), "outer header removed");

        let mut sub = Substrate::new(device::profile("alveo-u280").unwrap().clone(), 2);
        let next = Action {
            out_port: Some(1),
            ipip: IpipOp::Rewrite {
                src: Ipv4Address([172, 16, 0, 2]),
                dst: Ipv4Address([172, 16, 0, 3]),
            },
            ..Action::default()
        };
        let id = sub
            .add_network(NetworkSpec {
                name: "v".into(),
                tier: Tier::Software,
                mapping: vec![],
                forwarding: ForwardingSpec::Destination(vec![(
                    "192.168.1.0/24".parse().unwrap(),
                    next,
                )]),
                rate_limit: None,
                software_channel: None,
                quantum: 1514,
                tunnels: Vec::new(),
                program: None,
            })
            .unwrap();
        p.network = id;
        p.port = 1;
        let dp = sub.handle().load_full();
        restore_tunnel(&dp, &mut p, &mut PayloadScratch::new(1)).unwrap();
        let want = frame(&ipv4([172, 16, 0, 2], [172, 16, 0, 3], 4, &inner));
        // The encapsulation copies DF and DSCP from the inner header and
        // numbers the outer header itself: compare addresses, protocol,
        // length, TTL and the untouched inner packet.
        let d = p.data();
        assert_eq!(&d[..14], &want[..14]);
        assert_eq!(d[14 + 9], 4, "outer protocol IPIP");
        assert_eq!(
            &d[14 + 12..14 + 20],
            &want[14 + 12..14 + 20],
            "next hop's endpoints"
        );
        assert_eq!(&d[14 + 2..14 + 4], &want[14 + 2..14 + 4], "total length");
        assert_eq!(&d[34..], inner.as_slice(), "inner packet intact");
        assert_eq!(
            prism_wire::checksum::checksum(&d[14..34]),
            0,
            "outer checksum"
        );

        // A packet no entry of the table covers (a connected subnet's, a
        // routing daemon's) leaves as the router sent it.
        let mut q = pool
            .packet(
                &frame(&ipv4([10, 0, 0, 1], [8, 8, 8, 8], 17, &[0; 8])),
                1,
                0,
            )
            .unwrap();
        q.network = id;
        let before = q.data().to_vec();
        restore_tunnel(&dp, &mut q, &mut PayloadScratch::new(1)).unwrap();
        assert_eq!(q.data(), before.as_slice());
        // Non-IPIP frames pass the inbound side unchanged.
        assert!(!strip_tunnel(&mut q).unwrap());
        assert_eq!(q.data(), before.as_slice());
    }
}
