//! Where packets leave the stages: the software channels and what their
//! routers return, the output queues, the tap's records, and the
//! pipeline's counters as they stand.

use super::*;

impl Pipeline {
    /// Takes up to `max` packets from a software channel, for its router.
    pub fn software_pop(&mut self, channel: u8, max: usize, out: &mut Vec<Packet>) -> usize {
        self.channels.pop(channel, max, out)
    }

    pub fn software_pending(&self) -> bool {
        !self.channels.is_empty()
    }

    /// Returns a packet from a software router: `out_port` is the port it
    /// chose, `None` if the router dropped it for `reason`.
    pub fn from_software(
        &mut self,
        mut pkt: Packet,
        verdict: Result<u16, DropReason>,
        now_ns: u64,
    ) {
        let net = pkt.network;
        if let Some(c) = self.counters.networks.get_mut(usize::from(net)) {
            c.from_software += 1;
        }
        match verdict {
            Ok(port) => {
                pkt.port = port;
                self.send_to_output(pkt, now_ns);
            }
            Err(r) => self.drop_packet(pkt, Some(net), r),
        }
    }

    /// Returns a batch of frames a software router sent out of `port` for
    /// network `net`. With `restore_tunnel` (a router that does not handle
    /// IPIP itself), each first gets back the tunnel header its route asks
    /// for ([`crate::software::boundary`]); one that cannot is dropped and counted.
    /// `batch` is left empty.
    pub fn from_router(
        &mut self,
        batch: &mut Vec<Packet>,
        net: u16,
        port: u16,
        restore_tunnel: bool,
        now_ns: u64,
    ) {
        self.refresh();
        let dp = self.current.clone();
        for mut p in batch.drain(..) {
            p.network = net;
            p.port = port;
            let verdict = if restore_tunnel {
                crate::software::boundary::restore_tunnel(&dp, &mut p, &mut self.services)
                    .map(|()| port)
            } else {
                Ok(port)
            };
            self.from_software(p, verdict, now_ns);
        }
    }

    /// Transmits from `port` in DRR order, at most `max_bytes`; counts tx.
    pub fn transmit(&mut self, port: u16, max_bytes: usize, out: &mut Vec<Packet>) -> usize {
        let start = out.len();
        let sent = self.output.dequeue(port, max_bytes, out);
        // Counted per run of one network's packets (DRR sends a network's
        // packets together): a sum in registers, where an add to its
        // counters per packet chained every packet to the last one's store.
        let mut run = (0u16, 0u64, 0u64);
        for p in &out[start..] {
            if p.network != run.0 {
                self.count_tx(run);
                run = (p.network, 0, 0);
            }
            run.1 += 1;
            run.2 += p.len() as u64;
        }
        self.count_tx(run);
        sent
    }

    /// Adds a run of `(network, packets, bytes)` sent to its counters.
    #[inline(always)]
    fn count_tx(&mut self, (net, packets, bytes): (u16, u64, u64)) {
        if packets > 0 {
            let c = &mut self.counters.networks[usize::from(net)];
            c.tx_packets += packets;
            c.tx_bytes += bytes;
        }
    }

    /// Arms a trace or capture (replacing one armed before).
    pub fn arm_tap(&mut self, req: TapRequest) {
        self.tap = Some(Box::new(Tap::new(req)));
    }

    /// Whether a tap is armed.
    #[inline]
    pub fn tapping(&self) -> bool {
        self.tap.is_some()
    }

    /// Whether the armed tap has taken all it asked for.
    pub fn tap_full(&self) -> bool {
        self.tap.as_ref().is_some_and(|t| t.full())
    }

    /// Disarms the tap; what it recorded.
    pub fn take_tap(&mut self) -> Vec<TapRecord> {
        self.tap.take().map(|t| t.records).unwrap_or_default()
    }

    /// Records frames leaving for the wire, if a capture is armed (the
    /// caller has the clock: `now_ns` is when they leave).
    pub fn tap_egress(&mut self, out: &[Packet], now_ns: u64) {
        if let Some(t) = self.tap.as_deref_mut() {
            t.egress(out, now_ns);
        }
    }

    pub fn queued(&self, port: u16) -> usize {
        self.output.queued(port)
    }

    /// The gateway's flow table, once a data plane needed it.
    pub fn nat_stats(&self) -> Option<crate::wan::nat::NatStats> {
        self.gateway.stats()
    }

    pub fn counters(&self) -> &Counters {
        &self.counters
    }
}
