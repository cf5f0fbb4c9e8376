//! The worker's sending half: the pipeline's output onto the wire, into
//! software routers' containers and to processing nodes (`host_io`).

use super::{NO_LINK, Worker};
use prism_pipeline::fast::dataplane::SOFTWARE_CHANNELS;
use prism_pipeline::{IoDrop, Packet, software::boundary};

impl Worker {
    /// Sends software channels' packets into their containers and drains
    /// the output queues onto the wire.
    pub(super) fn flush(&mut self, out: &mut Vec<Packet>) {
        for ch in 0..SOFTWARE_CHANNELS as u8 {
            self.pipeline.software_pop(ch, usize::MAX, out);
        }
        let mut i = 0;
        while i < out.len() {
            let p = &mut out[i];
            if self.terminate_ipip.get(usize::from(p.network)) == Some(&true)
                && boundary::strip_tunnel(p).is_err()
            {
                // The pipeline parsed it already; counted should it ever fail.
                // `remove`, not `swap_remove`: the rest keep their order.
                let p = out.remove(i);
                let net = p.network;
                self.pipeline.io_drop(p, Some(net), IoDrop::BoundaryStrip);
                continue;
            }
            i += 1;
        }
        self.send_to_links(out);
        for port in 0..self.ports {
            self.pipeline.transmit(port, usize::MAX, out);
            if out.is_empty() {
                continue;
            }
            if self.pipeline.tapping() {
                let now = self.epoch.elapsed().as_nanos() as u64;
                self.pipeline.tap_egress(out, now);
            }
            if self.hosts.on_port(port) {
                self.send_to_hosts(port, out);
            }
            match self.wire_tx[usize::from(port)] {
                Some(i) => {
                    let sent = self.slots[i].io.send_batch(out.iter().map(Packet::data));
                    if sent < out.len() {
                        let n = (out.len() - sent) as u64;
                        self.pipeline.io_drops(None, IoDrop::TxRefused, n);
                    }
                    self.pipeline.pool.recycle_all(out);
                }
                None => {
                    for p in out.drain(..) {
                        let net = p.network;
                        self.pipeline.io_drop(p, Some(net), IoDrop::NoLink);
                    }
                }
            }
        }
    }

    /// Sends `out` (software channels' packets) into their containers'
    /// links, one send per run bound for the same link, and empties it.
    fn send_to_links(&mut self, out: &mut Vec<Packet>) {
        // One send per run of packets bound for the same container link.
        let mut start = 0;
        while start < out.len() {
            let l = self.link(out[start].network, out[start].port);
            let end = start
                + out[start..]
                    .iter()
                    .take_while(|p| self.link(p.network, p.port) == l)
                    .count();
            match self.link_tx.get(l).copied().flatten() {
                Some(i) => {
                    let sent = self.slots[i]
                        .io
                        .send_batch(out[start..end].iter().map(Packet::data));
                    if sent < end - start {
                        let (net, n) = (out[start].network, (end - start - sent) as u64);
                        self.pipeline.io_drops(Some(net), IoDrop::TxRefused, n);
                    }
                }
                None => {
                    for p in &mut out[start..end] {
                        p.port = NO_LINK;
                    }
                }
            }
            start = end;
        }
        for p in out.drain(..) {
            if p.port == NO_LINK {
                let net = p.network;
                self.pipeline.io_drop(p, Some(net), IoDrop::NoLink);
            } else {
                self.pipeline.pool.recycle(p);
            }
        }
    }
}
