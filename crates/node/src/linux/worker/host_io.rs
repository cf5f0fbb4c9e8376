//! The worker's side of processing nodes' interfaces (`crate::linux::hosts`
//! decides where a frame goes; this sends it): frames between hosts on one
//! port and VLAN, and the pipeline's frames for them with the tag popped.

use super::{Slot, Source, Worker};
use crate::linux::dhcp;
use crate::linux::hosts::{Deliver, Host};
use prism_pipeline::{IoDrop, Packet, Pipeline};

/// Sends `data` to each of `to` but the host `from`, counting refusals.
fn send_hosts(
    slots: &mut [Slot],
    pipeline: &mut Pipeline,
    to: &[Host],
    from: Option<[u8; 6]>,
    data: &[u8],
) {
    for h in to.iter().filter(|h| Some(h.mac) != from) {
        if slots[h.slot].io.send_batch(std::iter::once(data)) == 0 {
            pipeline.io_drops(None, IoDrop::TxRefused, 1);
        }
    }
}

/// `data` without its outer 802.1Q tag, in `buf`.
fn untag<'a>(buf: &'a mut Vec<u8>, data: &[u8]) -> &'a [u8] {
    buf.clear();
    buf.extend_from_slice(&data[..12]);
    buf.extend_from_slice(&data[16..]);
    buf
}

impl Worker {
    /// Frames from the host on `port` and `vlan` whose slot is `from`
    /// (untagged): those for another host there go to it alone,
    /// broadcasts to the others too; what is left, tagged, stays in
    /// `batch` for the pipeline, in order.
    pub(super) fn switch_from_host(
        &mut self,
        from: usize,
        port: u16,
        vlan: u16,
        batch: &mut Vec<Packet>,
    ) {
        let sender = match self.slots[from].source {
            Source::Host { mac, .. } => Some(mac),
            _ => None,
        };
        let lease = self.slots[from].dhcp;
        let Self {
            hosts,
            slots,
            pipeline,
            keep,
            ..
        } = self;
        for mut p in batch.drain(..) {
            if let Some(l) = &lease
                && dhcp::is_request(p.data())
            {
                // The node is this link's DHCP server: the request is answered
                // here and goes no further.
                let mut reply = [0u8; dhcp::REPLY_LEN];
                if let Some(n) = dhcp::answer(p.data(), l, &mut reply)
                    && slots[from].io.send_batch(std::iter::once(&reply[..n])) == 0
                {
                    pipeline.io_drops(None, IoDrop::TxRefused, 1);
                }
                pipeline.pool.recycle(p);
                continue;
            }
            match hosts.from_host(port, vlan, p.data()) {
                Deliver::One(h) => {
                    send_hosts(slots, pipeline, &[h], sender, p.data());
                    pipeline.pool.recycle(p);
                    continue;
                }
                Deliver::Flood(hs) => send_hosts(slots, pipeline, hs, sender, p.data()),
                Deliver::Onward => {}
            }
            if p.push_c_tag(vlan) {
                keep.push(p);
            } else {
                pipeline.io_drop(p, None, IoDrop::NoHeadroom);
            }
        }
        std::mem::swap(batch, keep);
    }

    /// The frames of `out` (bound for wire port `port`) that are for hosts
    /// behind it go to them untagged, one send per run bound for the same
    /// host; the rest, and floods, stay in `out`.
    pub(super) fn send_to_hosts(&mut self, port: u16, out: &mut Vec<Packet>) {
        let Self {
            hosts,
            slots,
            pipeline,
            keep,
            to_hosts,
            untagged,
            ..
        } = self;
        for mut p in out.drain(..) {
            match hosts.egress(port, p.data()) {
                Deliver::Onward => keep.push(p),
                Deliver::One(h) => {
                    // The tag out in place; the packet's port, spent, names its host's slot.
                    p.remove_gap(12, 4);
                    p.port = h.slot as u16;
                    to_hosts.push(p);
                }
                Deliver::Flood(hs) => {
                    send_hosts(slots, pipeline, hs, None, untag(untagged, p.data()));
                    keep.push(p);
                }
            }
        }
        std::mem::swap(out, keep);
        let mut start = 0;
        while start < to_hosts.len() {
            let slot = to_hosts[start].port;
            let end = start
                + to_hosts[start..]
                    .iter()
                    .take_while(|p| p.port == slot)
                    .count();
            let frames = to_hosts[start..end].iter().map(Packet::data);
            let sent = slots[usize::from(slot)].io.send_batch(frames);
            if sent < end - start {
                pipeline.io_drops(None, IoDrop::TxRefused, (end - start - sent) as u64);
            }
            start = end;
        }
        pipeline.pool.recycle_all(to_hosts);
    }
}
