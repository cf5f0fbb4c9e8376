//! Processing nodes' interfaces as hosts behind a wire port: where a frame
//! goes between them, the pipeline and the wire (no I/O here).
//!
//! A processing node attached to a network is a host on that network's
//! VLAN behind one of the node's ports, as a machine behind a switch's
//! access port would be: its frames enter the pipeline on that port with
//! the VLAN tag pushed, and what the pipeline sends out of that port on
//! that VLAN reaches it with the tag popped. Between hosts on the same
//! port and VLAN the worker switches as the access switch would (a bridged
//! network filters a frame whose destination is behind the port it came
//! in by, 802.1D): broadcast and multicast reach the others and the
//! pipeline, unicast to another host goes to it alone. Routed traffic
//! between hosts (different subnets) goes through the pipeline.

use std::collections::HashMap;

/// One host: its MAC and the worker's slot that sends to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    pub mac: [u8; 6],
    pub slot: usize,
}

/// Where a frame goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deliver<'a> {
    /// Not a host's: the wire (egress) or the pipeline (from a host).
    Onward,
    /// To this host alone.
    One(Host),
    /// To every host of the list but the sender, and onward too
    /// (broadcast, multicast, unknown unicast).
    Flood(&'a [Host]),
}

/// The hosts of every (port, VLAN), built when the worker's slots change.
#[derive(Debug, Default, Clone)]
pub struct HostTable {
    by_vlan: HashMap<(u16, u16), Vec<Host>>,
    ports: Vec<bool>,
}

/// The VLAN ID of a frame's outer 802.1Q tag.
fn c_tag(data: &[u8]) -> Option<u16> {
    (data.len() >= 18 && data[12..14] == [0x81, 0x00])
        .then(|| u16::from_be_bytes([data[14], data[15]]) & 0x0fff)
}

/// Whether a frame carries a VLAN tag (802.1Q or 802.1ad) in its data.
pub fn tagged(data: &[u8]) -> bool {
    data.len() >= 14 && matches!([data[12], data[13]], [0x81, 0x00] | [0x88, 0xa8])
}

impl HostTable {
    /// The table of `hosts`: (port, VLAN, host).
    pub fn new(hosts: impl IntoIterator<Item = (u16, u16, Host)>) -> Self {
        let mut t = Self::default();
        for (port, vlan, h) in hosts {
            let p = usize::from(port);
            if t.ports.len() <= p {
                t.ports.resize(p + 1, false);
            }
            t.ports[p] = true;
            t.by_vlan.entry((port, vlan)).or_default().push(h);
        }
        t
    }

    /// Whether any host is behind `port`.
    pub fn on_port(&self, port: u16) -> bool {
        self.ports.get(usize::from(port)) == Some(&true)
    }

    fn pick<'a>(hosts: &'a [Host], dst: &[u8]) -> Deliver<'a> {
        if dst[0] & 1 == 0
            && let Some(h) = hosts.iter().find(|h| h.mac == dst[..6])
        {
            return Deliver::One(*h);
        }
        Deliver::Flood(hosts)
    }

    /// A (tagged) frame the pipeline sends out of `port`: to the hosts on
    /// its VLAN there, if any.
    pub fn egress(&self, port: u16, data: &[u8]) -> Deliver<'_> {
        match c_tag(data).and_then(|v| self.by_vlan.get(&(port, v))) {
            Some(hosts) => Self::pick(hosts, data),
            None => Deliver::Onward,
        }
    }

    /// An (untagged) frame from a host on `port` and `vlan`: to another
    /// host there, to all of them and onward, or onward only.
    pub fn from_host(&self, port: u16, vlan: u16, data: &[u8]) -> Deliver<'_> {
        let Some(hosts) = self.by_vlan.get(&(port, vlan)) else {
            return Deliver::Onward;
        };
        match Self::pick(hosts, data) {
            Deliver::Flood(_) if data[0] & 1 == 0 => Deliver::Onward,
            d => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [u8; 6] = [2, 0x70, 0, 0, 0, 1];
    const B: [u8; 6] = [2, 0x70, 0, 0, 0, 2];
    const C: [u8; 6] = [2, 0x70, 0, 0, 0, 3];
    const OUTSIDE: [u8; 6] = [2, 0, 0, 0, 0, 9];

    fn frame(dst: [u8; 6], vlan: Option<u16>) -> Vec<u8> {
        let mut f = dst.to_vec();
        f.extend_from_slice(&OUTSIDE);
        if let Some(v) = vlan {
            f.extend_from_slice(&[0x81, 0x00]);
            f.extend_from_slice(&v.to_be_bytes());
        }
        f.extend_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(&[0u8; 46]);
        f
    }

    fn table() -> HostTable {
        let h = |mac, slot| Host { mac, slot };
        HostTable::new([(3, 100, h(A, 7)), (3, 100, h(B, 8)), (3, 200, h(C, 9))])
    }

    #[test]
    fn the_pipelines_frames_reach_the_hosts_of_their_vlan_only() {
        let t = table();
        assert!(t.on_port(3) && !t.on_port(0) && !t.on_port(9));
        assert_eq!(
            t.egress(3, &frame(A, Some(100))),
            Deliver::One(Host { mac: A, slot: 7 })
        );
        // B's MAC on another VLAN is not B.
        match t.egress(3, &frame(B, Some(200))) {
            Deliver::Flood(hs) => assert_eq!(hs, [Host { mac: C, slot: 9 }]),
            d => panic!("{d:?}"),
        }
        let Deliver::Flood(hs) = t.egress(3, &frame([0xff; 6], Some(100))) else {
            panic!("a broadcast floods")
        };
        assert_eq!(hs.len(), 2);
        assert_eq!(t.egress(3, &frame(A, Some(300))), Deliver::Onward);
        assert_eq!(t.egress(3, &frame(A, None)), Deliver::Onward);
        assert_eq!(t.egress(2, &frame(A, Some(100))), Deliver::Onward);
    }

    #[test]
    fn hosts_of_one_vlan_reach_each_other_as_behind_a_switch() {
        let t = table();
        assert_eq!(
            t.from_host(3, 100, &frame(B, None)),
            Deliver::One(Host { mac: B, slot: 8 })
        );
        // C is on VLAN 200: unicast to it from VLAN 100 goes to the pipeline.
        assert_eq!(t.from_host(3, 100, &frame(C, None)), Deliver::Onward);
        assert_eq!(t.from_host(3, 100, &frame(OUTSIDE, None)), Deliver::Onward);
        assert!(matches!(
            t.from_host(3, 100, &frame([0xff; 6], None)),
            Deliver::Flood(h) if h.len() == 2
        ));
    }

    #[test]
    fn a_tag_of_either_kind_is_seen() {
        assert!(tagged(&frame(A, Some(5))));
        let mut qinq = frame(A, Some(5));
        qinq[12..14].copy_from_slice(&[0x88, 0xa8]);
        assert!(tagged(&qinq));
        assert!(!tagged(&frame(A, None)));
        assert!(!tagged(&[0u8; 10]));
    }
}
