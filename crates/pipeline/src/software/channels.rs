//! Software hand-off: bounded channels toward the software routers.
//!
//! In: packets of software-tier networks, and packets of hardware networks
//! whose action result clears the forward bit. Out: the same packets, popped
//! by whoever serves the channel (the in-process software router offline, a
//! container's router over veth when live), then returned for output.
//!
//! As in paper 001's DMA engine there are four channels: 0, 1 and 2 are each
//! dedicated to one network, 3 is shared by the rest. A full channel drops
//! the packet as `channel-full` rather than block the pipeline.

use crate::fast::dataplane::SOFTWARE_CHANNELS;
use crate::fast::packet::Packet;
use std::collections::VecDeque;

#[derive(Debug)]
pub struct SoftwareChannels {
    queues: [VecDeque<Packet>; SOFTWARE_CHANNELS],
    capacity: usize,
}

impl SoftwareChannels {
    pub fn new(capacity: usize) -> Self {
        Self {
            queues: std::array::from_fn(|_| VecDeque::with_capacity(capacity)),
            capacity,
        }
    }

    /// Queues `pkt` on `channel`; gives it back if the channel is full.
    #[inline]
    pub fn push(&mut self, channel: u8, pkt: Packet) -> Result<(), Packet> {
        let ch = usize::from(channel).min(SOFTWARE_CHANNELS - 1);
        let q = &mut self.queues[ch];
        if q.len() >= self.capacity {
            return Err(pkt);
        }
        q.push_back(pkt);
        Ok(())
    }

    /// Moves up to `max` packets of `channel` into `out`.
    pub fn pop(&mut self, channel: u8, max: usize, out: &mut Vec<Packet>) -> usize {
        let q = &mut self.queues[usize::from(channel).min(SOFTWARE_CHANNELS - 1)];
        let n = max.min(q.len());
        out.extend(q.drain(..n));
        n
    }

    pub fn len(&self, channel: u8) -> usize {
        self.queues[usize::from(channel).min(SOFTWARE_CHANNELS - 1)].len()
    }

    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
}
