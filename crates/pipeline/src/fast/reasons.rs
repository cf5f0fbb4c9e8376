//! Drop reasons, one enum per stage, and the flat index counters use.

use prism_wire::{Malformed, reasons};

reasons! {
    /// Network mapping stage.
    MapDrop {
        /// No mapping rule matched and there is no default network.
        NoNetwork => "no-network",
    }
}

reasons! {
    /// The hardware tier's slots (modelled reconfiguration, `reconfig`).
    HardwareDrop {
        /// The network's slot is loading a module (partial or full
        /// reconfiguration): it forwards nothing until the load ends.
        Reconfiguring => "reconfiguring",
        /// The network's program returned `XDP_DROP`.
        ProgramDrop => "program-drop",
        /// The network's program returned `XDP_ABORTED`.
        ProgramAborted => "program-aborted",
        /// The network's program ran out of its instructions per packet.
        ProgramBudget => "program-budget",
        /// The network's program read or wrote outside the frame, its
        /// stack and its maps.
        ProgramOutOfBounds => "program-out-of-bounds",
        /// The network's program nested its functions too deep.
        ProgramCallDepth => "program-call-depth",
        /// The network's program gave a helper what it does not take.
        ProgramBadHelperArgument => "program-bad-helper-argument",
        /// The network's program returned a value that is no XDP action,
        /// or `XDP_REDIRECT` without `bpf_redirect`.
        ProgramBadAction => "program-bad-action",
        /// The network's program sent the frame to a port that is not its
        /// network's.
        ProgramForeignPort => "program-foreign-port",
    }
}

reasons! {
    /// Action matching (forwarding decision) stage.
    MatchDrop {
        /// The network routes on IPv4 and the frame is something else.
        NotIpv4 => "not-ipv4",
        /// No route or rule matched.
        NoRoute => "no-route",
        /// A bridge network's frame that came in by a port that is not one
        /// of its members.
        NotMember => "not-member",
        /// A bridge network's frame whose destination is behind the port
        /// it came in by (802.1D filtering).
        SamePort => "same-port",
    }
}

reasons! {
    /// Action processing stage.
    ActionDrop {
        /// The action result says drop.
        DropAction => "drop-action",
        /// The TTL reached zero.
        TtlExpired => "ttl-expired",
        /// A TTL, IPIP or address action on a frame that is not IPv4.
        NotIpv4 => "not-ipv4",
        /// IPIP decapsulation or tunnel rewrite of a packet that is not IPIP.
        NotIpip => "not-ipip",
        /// VLAN pop of an untagged frame.
        NotTagged => "not-tagged",
        /// No headroom left to push a header.
        NoHeadroom => "no-headroom",
        /// A VLAN push would exceed the tag depth Prism parses.
        TooManyTags => "too-many-tags",
        /// The action neither outputs nor hands to software.
        NoOutputPort => "no-output-port",
        /// A payload operation on a packet that is not plain IPv4/UDP.
        NotUdp => "not-udp",
        /// The transformed payload would not fit a packet buffer.
        PayloadTooLarge => "payload-too-large",
        /// AEAD decryption: the tag does not match (wrong key or tampering).
        AuthFailed => "auth-failed",
        /// DES decryption: bad padding or length.
        BadPadding => "bad-padding",
        /// LZ4 decompression failed.
        CorruptCompressed => "corrupt-compressed",
    }
}

reasons! {
    /// Software hand-off stage.
    SoftwareDrop {
        /// The channel toward the software router is full.
        ChannelFull => "channel-full",
        /// The software router returned the packet without an output port.
        NoOutputPort => "no-output-port",
    }
}

reasons! {
    /// Output stage.
    OutputDrop {
        /// The network's token bucket had too few tokens.
        RateLimited => "rate-limited",
        /// The network's queue on the port is full.
        QueueFull => "queue-full",
        /// The port is not one of the substrate's.
        NoSuchPort => "no-such-port",
        /// A bridge's flood found no free buffer for a copy: that member
        /// misses the frame.
        NoBuffer => "no-buffer",
    }
}

reasons! {
    /// The node's I/O around the pipeline (sockets, container links).
    IoDrop {
        /// No socket to leave by: a software network's frame entering on a
        /// port its container has no link for, or a port with no socket.
        NoLink => "no-link",
        /// The IPIP header could not be stripped at a container's boundary.
        BoundaryStrip => "boundary-strip",
        /// The socket refused the frame (its ring or buffer full): counted
        /// against the network on a container link (one network a send),
        /// against no network on a wire port (a send mixes networks, and
        /// the socket does not say which frames it refused).
        TxRefused => "tx-refused",
        /// A processing node's frame that carries a VLAN tag of its own:
        /// its interface is on its network's VLAN, which the node pushes.
        HostTagged => "host-tagged",
        /// No headroom to push a processing node's VLAN tag (the pool
        /// keeps room for one, so this counts a bug).
        NoHeadroom => "no-headroom",
    }
}

reasons! {
    /// The WAN side (frames arriving on a WAN port).
    WanDrop {
        /// IPIP whose outer source and destination are no network's tunnel
        /// (a node that holds no part of it, a released part, a spoofer).
        UnknownTunnel => "unknown-tunnel",
        /// An 802.1ad (Q-in-Q) frame whose S-tag is no bridged experiment's.
        UnknownSTag => "unknown-s-tag",
        /// Under a bridged experiment's S-tag, a frame whose C-tag is not
        /// that experiment's VLAN (another VLAN's, none, or more than
        /// one): an S-tag reaches its own network's VLAN only.
        WrongCTag => "wrong-c-tag",
        /// IPv4 that is not a tunnel: to no leased public address.
        NotLeased => "not-leased",
        /// Anything else (ARP, other EtherTypes): nothing on the WAN side
        /// answers it.
        Unexpected => "unexpected",
        /// Leaving by a WAN port untagged from a bridge network's host
        /// that holds no public MAC: it has no name on the wide area.
        NoPublicMac => "no-public-mac",
    }
}

reasons! {
    /// The gateway's outgoing NAT ([`crate::wan::nat`], [`crate::wan::gateway`]).
    NatDrop {
        /// A new flow while the flow table is full: refused; flows in it
        /// go on.
        TableFull => "table-full",
        /// A new flow found no free external port towards its remote end.
        NoPort => "no-port",
        /// Coming back to the gateway's address in no flow (never made,
        /// timed out, or its network gone).
        NoFlow => "no-flow",
        /// A fragment after the first: its ports are not in it.
        Fragment => "fragment",
        /// Not TCP, UDP, ICMP echo or an ICMP error about one of those.
        Protocol => "protocol",
        /// Going out by a WAN port with no address to leave from: the
        /// network has public addresses but no NAT and the host none, or
        /// the node has no WAN address.
        NoAddress => "no-address",
    }
}

/// Any drop, tagged with its stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    Parse(Malformed),
    Map(MapDrop),
    Hardware(HardwareDrop),
    Match(MatchDrop),
    Action(ActionDrop),
    Software(SoftwareDrop),
    Output(OutputDrop),
    Io(IoDrop),
    Wan(WanDrop),
    Nat(NatDrop),
}

const OFF_MAP: usize = Malformed::COUNT;
const OFF_HARDWARE: usize = OFF_MAP + MapDrop::COUNT;
const OFF_MATCH: usize = OFF_HARDWARE + HardwareDrop::COUNT;
const OFF_ACTION: usize = OFF_MATCH + MatchDrop::COUNT;
const OFF_SOFTWARE: usize = OFF_ACTION + ActionDrop::COUNT;
const OFF_OUTPUT: usize = OFF_SOFTWARE + SoftwareDrop::COUNT;
const OFF_IO: usize = OFF_OUTPUT + OutputDrop::COUNT;
const OFF_WAN: usize = OFF_IO + IoDrop::COUNT;
const OFF_NAT: usize = OFF_WAN + WanDrop::COUNT;

impl DropReason {
    /// Number of distinct reasons over all stages.
    pub const COUNT: usize = OFF_NAT + NatDrop::COUNT;

    #[inline]
    pub const fn index(self) -> usize {
        match self {
            DropReason::Parse(r) => r.index(),
            DropReason::Map(r) => OFF_MAP + r.index(),
            DropReason::Hardware(r) => OFF_HARDWARE + r.index(),
            DropReason::Match(r) => OFF_MATCH + r.index(),
            DropReason::Action(r) => OFF_ACTION + r.index(),
            DropReason::Software(r) => OFF_SOFTWARE + r.index(),
            DropReason::Output(r) => OFF_OUTPUT + r.index(),
            DropReason::Io(r) => OFF_IO + r.index(),
            DropReason::Wan(r) => OFF_WAN + r.index(),
            DropReason::Nat(r) => OFF_NAT + r.index(),
        }
    }

    pub const fn stage(self) -> &'static str {
        match self {
            DropReason::Parse(_) => "parse",
            DropReason::Map(_) => "mapping",
            DropReason::Hardware(_) => "hardware",
            DropReason::Match(_) => "matching",
            DropReason::Action(_) => "action",
            DropReason::Software(_) => "software",
            DropReason::Output(_) => "output",
            DropReason::Io(_) => "io",
            DropReason::Wan(_) => "wan",
            DropReason::Nat(_) => "nat",
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            DropReason::Parse(r) => r.as_str(),
            DropReason::Map(r) => r.as_str(),
            DropReason::Hardware(r) => r.as_str(),
            DropReason::Match(r) => r.as_str(),
            DropReason::Action(r) => r.as_str(),
            DropReason::Software(r) => r.as_str(),
            DropReason::Output(r) => r.as_str(),
            DropReason::Io(r) => r.as_str(),
            DropReason::Wan(r) => r.as_str(),
            DropReason::Nat(r) => r.as_str(),
        }
    }

    /// Every reason, in index order.
    pub fn all() -> impl Iterator<Item = DropReason> {
        Malformed::ALL
            .iter()
            .map(|r| DropReason::Parse(*r))
            .chain(MapDrop::ALL.iter().map(|r| DropReason::Map(*r)))
            .chain(HardwareDrop::ALL.iter().map(|r| DropReason::Hardware(*r)))
            .chain(MatchDrop::ALL.iter().map(|r| DropReason::Match(*r)))
            .chain(ActionDrop::ALL.iter().map(|r| DropReason::Action(*r)))
            .chain(SoftwareDrop::ALL.iter().map(|r| DropReason::Software(*r)))
            .chain(OutputDrop::ALL.iter().map(|r| DropReason::Output(*r)))
            .chain(IoDrop::ALL.iter().map(|r| DropReason::Io(*r)))
            .chain(WanDrop::ALL.iter().map(|r| DropReason::Wan(*r)))
            .chain(NatDrop::ALL.iter().map(|r| DropReason::Nat(*r)))
    }
}

impl core::fmt::Display for DropReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}/{}", self.stage(), self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_dense_and_names_unique() {
        let all: Vec<_> = DropReason::all().collect();
        assert_eq!(all.len(), DropReason::COUNT);
        for (i, r) in all.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
        let mut names: Vec<String> = all.iter().map(|r| r.to_string()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), DropReason::COUNT);
    }
}
