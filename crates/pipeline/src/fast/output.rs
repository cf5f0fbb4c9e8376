//! Output: per-network token buckets, then per-port queues served by
//! Deficit Round Robin between networks.
//!
//! In: forwarded packets with their network and egress port, and the current
//! time. Out: packets per port, in DRR order, when the caller transmits.
//!
//! Token buckets police each network to its guaranteed rate (paper 002
//! §5: bandwidth guarantees by rate limiting, each virtual node's sending
//! and receiving limited): one per port the network sends out of, so that
//! the rate holds each way of a link as a link's does (what a host
//! receives does not use up what it may send); a packet that finds too
//! few tokens is dropped as `rate-limited`. DRR (Shreedhar and Varghese, 1996)
//! then shares each port between the networks queued on it in proportion to
//! their quantum, so one network's burst cannot starve another's.
//!
//! Queues are bounded (`queue-full` past the bound). Their storage is
//! reserved when a network is configured, so enqueue and dequeue never
//! allocate.
//!
//! An uncontended port needs no DRR: while every packet queued on it since
//! it last emptied leaves at the next transmit, sharing decides nothing.
//! Such packets wait in one port-wide queue, in arrival order; a transmit
//! whose budget takes them all sends them in one move. Only when a budget
//! falls short, or the port-wide queue holds a network's bound, are they
//! dealt into their networks' queues (in arrival order, so each network's
//! queue and the round-robin order are what they would have been) and DRR
//! runs. With a thousand networks on a port, that is one queue's lines
//! touched per batch instead of one per network.

use crate::fast::packet::Packet;
use crate::fast::reasons::OutputDrop;
use std::collections::VecDeque;

/// A token bucket in bytes, refilled at `rate_bps` up to `burst_bytes`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenBucket {
    pub rate_bps: u64,
    pub burst_bytes: u64,
    tokens: f64,
    last_ns: u64,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(rate_bps: u64, burst_bytes: u64) -> Self {
        Self {
            rate_bps,
            burst_bytes,
            tokens: burst_bytes as f64,
            last_ns: 0,
        }
    }

    /// Takes `bytes` tokens at time `now_ns` if there are enough.
    #[inline]
    pub fn take(&mut self, bytes: usize, now_ns: u64) -> bool {
        if now_ns > self.last_ns {
            let add = (now_ns - self.last_ns) as f64 * self.rate_bps as f64 / 8e9;
            self.tokens = (self.tokens + add).min(self.burst_bytes as f64);
            self.last_ns = now_ns;
        }
        if self.tokens >= bytes as f64 {
            self.tokens -= bytes as f64;
            true
        } else {
            false
        }
    }
}

#[derive(Debug)]
struct NetQueue {
    packets: VecDeque<Packet>,
    /// Bytes of the packets queued.
    bytes: usize,
    deficit: usize,
    active: bool,
}

#[derive(Debug, Default)]
struct PortQueues {
    queues: Vec<NetQueue>,
    active: VecDeque<u16>,
    /// Packets in arrival order, held only while no network's queue holds
    /// any (`active` is empty), at most `queue_limit` of them. A `Vec`:
    /// it is only ever appended to and emptied whole.
    fifo: Vec<Packet>,
    fifo_bytes: usize,
}

impl PortQueues {
    /// Appends `pkt` to its network's queue, bounded by `limit`.
    #[inline]
    fn push(&mut self, pkt: Packet, limit: usize) -> Result<(), (Packet, OutputDrop)> {
        let net = pkt.network;
        let Some(q) = self.queues.get_mut(usize::from(net)) else {
            return Err((pkt, OutputDrop::NoSuchPort));
        };
        if q.packets.len() >= limit {
            return Err((pkt, OutputDrop::QueueFull));
        }
        q.bytes += pkt.len();
        q.packets.push_back(pkt);
        if !q.active {
            q.active = true;
            self.active.push_back(net);
        }
        Ok(())
    }

    /// Deals the port-wide queue into the networks' queues. Each gets at
    /// most what the port-wide queue held, which is within its bound.
    fn spill(&mut self, limit: usize) {
        let mut fifo = std::mem::take(&mut self.fifo);
        for pkt in fifo.drain(..) {
            let pushed = self.push(pkt, limit);
            debug_assert!(
                pushed.is_ok(),
                "the port-wide queue holds at most one bound"
            );
        }
        self.fifo = fifo; // its storage, kept
        self.fifo_bytes = 0;
    }
}

/// Per-network settings the output stage needs.
#[derive(Debug, Clone, Copy)]
pub struct OutputConfig {
    pub quantum: usize,
    pub rate: Option<(u64, u64)>,
}

#[derive(Debug, Default)]
pub struct OutputStage {
    ports: Vec<PortQueues>,
    /// Whether network i has buckets: a byte per network, read for every
    /// packet, where the buckets (40 bytes each) are read only for the
    /// networks that have them. With a thousand networks that is 16 cache
    /// lines instead of 640.
    limited: Vec<bool>,
    /// Network n's bucket on port p at `n * ports + p`.
    buckets: Vec<Option<TokenBucket>>,
    quanta: Vec<usize>,
    queue_limit: usize,
}

impl OutputStage {
    pub fn new(ports: u16, queue_limit: usize) -> Self {
        Self {
            ports: (0..ports).map(|_| PortQueues::default()).collect(),
            limited: Vec::new(),
            buckets: Vec::new(),
            quanta: Vec::new(),
            queue_limit,
        }
    }

    /// Adopts a new network configuration. Existing queues and buckets of
    /// networks whose settings did not change are kept.
    pub fn configure(&mut self, nets: &[OutputConfig]) {
        self.configure_some(nets.len(), nets.iter().copied().enumerate());
    }

    /// Configures `len` networks, of which those in `nets` (by id) may
    /// have changed: a data plane's change costs its changed networks.
    pub fn configure_some(
        &mut self,
        len: usize,
        nets: impl Iterator<Item = (usize, OutputConfig)>,
    ) {
        let ports = self.ports.len();
        if self.limited.len() < len {
            self.buckets.resize(len * ports, None);
            self.limited.resize(len, false);
            self.quanta.resize(len, 1514);
        }
        for (i, n) in nets {
            let own = &mut self.buckets[i * ports..(i + 1) * ports];
            let same = |b: &Option<TokenBucket>| b.map(|b| (b.rate_bps, b.burst_bytes)) == n.rate;
            if !own.iter().all(same) {
                own.fill(n.rate.map(|(r, b)| TokenBucket::new(r, b)));
            }
            self.limited[i] = n.rate.is_some();
            self.quanta[i] = n.quantum.max(1);
        }
        let limit = self.queue_limit;
        for port in &mut self.ports {
            while port.queues.len() < len {
                if port.fifo.capacity() < limit {
                    port.fifo.reserve_exact(limit);
                }
                port.queues.push(NetQueue {
                    packets: VecDeque::with_capacity(limit),
                    bytes: 0,
                    deficit: 0,
                    active: false,
                });
            }
        }
    }

    pub fn ports(&self) -> usize {
        self.ports.len()
    }

    /// Polices and queues `pkt` of network `pkt.network` on port `pkt.port`.
    #[inline(always)]
    pub fn enqueue(&mut self, pkt: Packet, now_ns: u64) -> Result<(), (Packet, OutputDrop)> {
        let ports = self.ports.len();
        let Some(port) = self.ports.get_mut(usize::from(pkt.port)) else {
            return Err((pkt, OutputDrop::NoSuchPort));
        };
        let n = usize::from(pkt.network);
        if n >= port.queues.len() {
            // A network the stage was not configured with: the pipeline
            // configures it with every network it maps to, so this is a
            // caller's bug, refused rather than indexed.
            return Err((pkt, OutputDrop::NoSuchPort));
        }
        let at = n * ports + usize::from(pkt.port);
        if self.limited[n]
            && let Some(Some(b)) = self.buckets.get_mut(at)
            && !b.take(pkt.charged_len(), now_ns)
        {
            return Err((pkt, OutputDrop::RateLimited));
        }
        if port.active.is_empty() {
            if port.fifo.len() < self.queue_limit {
                port.fifo_bytes += pkt.len();
                port.fifo.push(pkt);
                return Ok(());
            }
            port.spill(self.queue_limit);
        }
        port.push(pkt, self.queue_limit)
    }

    /// Queues a whole batch of network `net`'s packets on `port` in one
    /// move, where `enqueue` packet by packet would put each at the end of
    /// the port-wide queue: the port uncontended (no network's queue holds
    /// any), the network without a rate limit, and room for them all.
    /// Otherwise it changes nothing and returns false. Every packet already
    /// carries `net` and `port`; `bytes` is the sum of their lengths.
    #[inline]
    pub fn enqueue_batch(
        &mut self,
        port: u16,
        net: u16,
        batch: &mut Vec<Packet>,
        bytes: usize,
    ) -> bool {
        let Some(p) = self.ports.get_mut(usize::from(port)) else {
            return false;
        };
        let n = usize::from(net);
        if n >= p.queues.len()
            || self.limited[n]
            || !p.active.is_empty()
            || p.fifo.len() + batch.len() > self.queue_limit
        {
            return false;
        }
        p.fifo_bytes += bytes;
        p.fifo.append(batch);
        true
    }

    /// Packets queued on `port`.
    pub fn queued(&self, port: u16) -> usize {
        self.ports.get(usize::from(port)).map_or(0, |p| {
            p.fifo.len() + p.queues.iter().map(|q| q.packets.len()).sum::<usize>()
        })
    }

    /// Dequeues from `port` in DRR order until `max_bytes` would be exceeded
    /// or the queues are empty; returns the bytes sent.
    pub fn dequeue(&mut self, port: u16, max_bytes: usize, out: &mut Vec<Packet>) -> usize {
        let Some(p) = self.ports.get_mut(usize::from(port)) else {
            return 0;
        };
        if !p.fifo.is_empty() {
            if p.fifo_bytes <= max_bytes {
                let sent = p.fifo_bytes;
                // In one copy; the queue keeps its storage.
                out.append(&mut p.fifo);
                p.fifo_bytes = 0;
                return sent;
            }
            p.spill(self.queue_limit);
        }
        let mut sent = 0;
        // One network alone on the port, and the budget takes all it has:
        // DRR would send every packet in order, one quantum after another,
        // so they go in one move (the common, uncontended case).
        if p.active.len() == 1 {
            let q = &mut p.queues[usize::from(p.active[0])];
            if q.bytes <= max_bytes {
                sent = q.bytes;
                // As a Vec, the queue's packets leave in one copy, where a
                // drain moves them one by one. Neither conversion allocates
                // (the deque starts at its buffer's front once emptied, so
                // it is not rotated either).
                let mut v = Vec::from(std::mem::take(&mut q.packets));
                out.append(&mut v);
                q.packets = VecDeque::from(v);
                q.bytes = 0;
                q.deficit = 0;
                q.active = false;
                p.active.clear();
                return sent;
            }
        }
        while let Some(&net) = p.active.front() {
            let q = &mut p.queues[usize::from(net)];
            q.deficit += self.quanta[usize::from(net)];
            while let Some(head) = q.packets.front() {
                let len = head.len();
                if len > q.deficit {
                    break;
                }
                if sent + len > max_bytes {
                    // Out of budget: keep the credit earned this round.
                    return sent;
                }
                q.deficit -= len;
                q.bytes -= len;
                sent += len;
                out.push(q.packets.pop_front().expect("front exists"));
            }
            p.active.pop_front();
            if q.packets.is_empty() {
                // Back to the front of its storage (`pop_front` leaves the
                // deque's head where the last packet was): the next packet
                // lands on the line this queue last wrote, not on a new one,
                // so a thousand networks' queues keep a thousand hot lines,
                // not a thousand wandering ones.
                q.packets.clear();
                q.deficit = 0;
                q.active = false;
            } else {
                p.active.push_back(net);
            }
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::packet::PacketPool;

    #[test]
    fn token_bucket_rate() {
        // 8 Mbit/s = 1 byte per microsecond, burst 1500.
        let mut b = TokenBucket::new(8_000_000, 1500);
        assert!(b.take(1500, 0));
        assert!(!b.take(100, 50_000)); // 50 µs: 50 bytes
        assert!(b.take(100, 100_000));
        assert!(b.take(1400, 10_000_000)); // refilled, capped at burst
        assert!(!b.take(200, 10_000_000));
    }

    #[test]
    fn drr_shares_by_quantum() {
        let mut pool = PacketPool::new(400);
        let mut out = OutputStage::new(1, 1000);
        out.configure(&[
            OutputConfig {
                quantum: 1000,
                rate: None,
            },
            OutputConfig {
                quantum: 3000,
                rate: None,
            },
        ]);
        for i in 0..400 {
            let mut p = pool.packet(&[0u8; 500], 0, 0).unwrap();
            p.network = (i % 2) as u16;
            out.enqueue(p, 0).unwrap();
        }
        let mut sent = Vec::new();
        let bytes = out.dequeue(0, 40_000, &mut sent);
        assert_eq!(bytes, 40_000);
        // Network 1 has three times the quantum: three quarters of the bytes.
        let n1 = sent.iter().filter(|p| p.network == 1).count();
        assert_eq!((sent.len() - n1, n1), (20, 60));
        // The rest drains completely, network 0 last.
        out.dequeue(0, usize::MAX, &mut sent);
        assert_eq!(sent.len(), 400);
        assert_eq!(out.queued(0), 0);
        assert_eq!(sent.last().unwrap().network, 0);
    }

    #[test]
    fn bounds_and_policing() {
        let mut pool = PacketPool::new(10);
        let mut out = OutputStage::new(2, 2);
        out.configure(&[
            OutputConfig {
                quantum: 1500,
                rate: Some((8_000, 1000)),
            },
            OutputConfig {
                quantum: 1500,
                rate: None,
            },
        ]);
        let pkt = |pool: &mut PacketPool, len: usize, port: u16, net: u16| {
            let mut p = pool.packet(&vec![0u8; len], port, 0).unwrap();
            p.network = net;
            p
        };
        assert!(out.enqueue(pkt(&mut pool, 600, 0, 0), 0).is_ok());
        let p = pkt(&mut pool, 600, 0, 0);
        assert_eq!(out.enqueue(p, 0).unwrap_err().1, OutputDrop::RateLimited);
        for _ in 0..2 {
            assert!(out.enqueue(pkt(&mut pool, 60, 1, 1), 0).is_ok());
        }
        let p = pkt(&mut pool, 60, 1, 1);
        assert_eq!(out.enqueue(p, 0).unwrap_err().1, OutputDrop::QueueFull);
        let p = pkt(&mut pool, 60, 7, 1);
        assert_eq!(out.enqueue(p, 0).unwrap_err().1, OutputDrop::NoSuchPort);
        // Network 0's rate holds on each port it sends out of: port 0's
        // bucket spent, port 1's is whole (each way of a link).
        assert!(out.enqueue(pkt(&mut pool, 600, 1, 0), 0).is_ok());
        let p = pkt(&mut pool, 600, 1, 0);
        assert_eq!(out.enqueue(p, 0).unwrap_err().1, OutputDrop::RateLimited);
    }

    /// The port-wide queue holds one network's bound; past it the packets
    /// go to their networks' queues, each still bounded on its own.
    #[test]
    fn bounds_hold_across_the_port_wide_queue() {
        let mut pool = PacketPool::new(10);
        let mut out = OutputStage::new(1, 2);
        out.configure(
            &[OutputConfig {
                quantum: 1500,
                rate: None,
            }; 2],
        );
        let mut send = |net: u16| {
            let mut p = pool.packet(&[0u8; 60], 0, 0).unwrap();
            p.network = net;
            out.enqueue(p, 0).map_err(|(_, r)| r)
        };
        // Two of network 0 fill the port-wide queue; one of network 1 deals
        // them out; network 1 has room for one more, network 0 for none.
        assert_eq!(
            (send(0), send(0), send(1), send(1)),
            (Ok(()), Ok(()), Ok(()), Ok(()))
        );
        assert_eq!(send(0), Err(OutputDrop::QueueFull));
        assert_eq!(send(1), Err(OutputDrop::QueueFull));
        let mut sent = Vec::new();
        out.dequeue(0, usize::MAX, &mut sent);
        // DRR order: network 0 arrived first.
        let nets: Vec<u16> = sent.iter().map(|p| p.network).collect();
        assert_eq!(nets, [0, 0, 1, 1]);
        assert_eq!(out.queued(0), 0);
    }

    /// Deficit Round Robin as Shreedhar and Varghese give it, packet by
    /// packet, with no shortcut: what `dequeue` must send, but for the one
    /// case where sharing decides nothing. When every packet queued since
    /// the port last emptied leaves in one transmit, they leave in the order
    /// they came (`arrivals`, cleared once a transmit leaves some behind).
    struct Model {
        queues: Vec<VecDeque<usize>>,
        deficit: Vec<usize>,
        active: VecDeque<usize>,
        quanta: Vec<usize>,
        arrivals: Option<Vec<(usize, usize)>>,
    }

    impl Model {
        fn enqueue(&mut self, net: usize, len: usize) {
            if self.active.is_empty() {
                self.arrivals = Some(Vec::new());
            }
            if let Some(a) = &mut self.arrivals {
                a.push((net, len));
            }
            self.queues[net].push_back(len);
            if !self.active.contains(&net) {
                self.active.push_back(net);
            }
        }
        fn dequeue(&mut self, max: usize, out: &mut Vec<(usize, usize)>) -> usize {
            if let Some(a) = self.arrivals.take() {
                let bytes: usize = a.iter().map(|&(_, len)| len).sum();
                if bytes <= max {
                    self.queues.iter_mut().for_each(VecDeque::clear);
                    self.deficit.iter_mut().for_each(|d| *d = 0);
                    self.active.clear();
                    out.extend(a);
                    return bytes;
                }
            }
            let mut sent = 0;
            while let Some(&net) = self.active.front() {
                self.deficit[net] += self.quanta[net];
                while let Some(&len) = self.queues[net].front() {
                    if len > self.deficit[net] {
                        break;
                    }
                    if sent + len > max {
                        return sent;
                    }
                    self.deficit[net] -= len;
                    sent += len;
                    out.push((net, len));
                    self.queues[net].pop_front();
                }
                self.active.pop_front();
                if self.queues[net].is_empty() {
                    self.deficit[net] = 0;
                } else {
                    self.active.push_back(net);
                }
            }
            sent
        }
    }

    proptest::proptest! {
        /// Whatever mix of networks and budgets, the output stage sends what
        /// packet-by-packet DRR sends, in the same order (its one-network
        /// shortcut included), but where every packet since the port last
        /// emptied leaves at once: then in arrival order.
        #[test]
        fn dequeue_is_drr(
            ops in proptest::collection::vec((0usize..3, 60usize..1500, 0u8..4, 0usize..6000), 1..200),
        ) {
            let quanta = [1514usize, 600, 3000];
            let mut pool = PacketPool::new(256);
            let mut out = OutputStage::new(1, 1000);
            out.configure(&quanta.map(|q| OutputConfig { quantum: q, rate: None }));
            let mut model = Model {
                queues: vec![VecDeque::new(); 3],
                deficit: vec![0; 3],
                active: VecDeque::new(),
                quanta: quanta.to_vec(),
                arrivals: None,
            };
            for (net, len, op, budget) in ops {
                if op > 0 {
                    // Mostly one network at a time, so the shortcut runs.
                    let net = if op == 1 { net } else { 0 };
                    if let Some(mut p) = pool.packet(&vec![0u8; len], 0, 0) {
                        p.network = net as u16;
                        out.enqueue(p, 0).unwrap();
                        model.enqueue(net, len);
                    }
                } else {
                    let budget = if budget > 5000 { usize::MAX } else { budget };
                    let (mut got, mut want) = (Vec::new(), Vec::new());
                    let a = out.dequeue(0, budget, &mut got);
                    let b = model.dequeue(budget, &mut want);
                    let got: Vec<(usize, usize)> =
                        got.into_iter().map(|p| { let r = (usize::from(p.network), p.len()); pool.recycle(p); r }).collect();
                    proptest::prop_assert_eq!(a, b);
                    proptest::prop_assert_eq!(got, want);
                }
            }
        }

        /// A batch queued in one move ends where `enqueue` packet by packet
        /// puts it, and a batch it refuses leaves everything as it was:
        /// two stages, one fed whole batches where it takes them, the
        /// other packet by packet, send the same packets and refuse the
        /// same ones. Network 2 is rate-limited; the bound is small, so
        /// batches meet full queues and ports the other networks contend.
        #[test]
        fn a_batch_in_one_move_is_packet_by_packet(
            ops in proptest::collection::vec((0u16..3, 0u16..2, 1usize..6, 0usize..3000), 1..120),
        ) {
            let cfg = [
                OutputConfig { quantum: 1514, rate: None },
                OutputConfig { quantum: 600, rate: None },
                OutputConfig { quantum: 1514, rate: Some((8_000, 2_000)) },
            ];
            let mut pool = PacketPool::new(512);
            let (mut whole, mut single) = (OutputStage::new(2, 8), OutputStage::new(2, 8));
            whole.configure(&cfg);
            single.configure(&cfg);
            let mut refused = (Vec::new(), Vec::new());
            for (i, (net, port, k, budget)) in ops.into_iter().enumerate() {
                if budget > 2_500 {
                    let budget = if budget > 2_900 { usize::MAX } else { budget };
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let sent = (whole.dequeue(port, budget, &mut a), single.dequeue(port, budget, &mut b));
                    proptest::prop_assert_eq!(sent.0, sent.1);
                    let ids = |v: Vec<Packet>, pool: &mut PacketPool| -> Vec<(u16, usize)> {
                        v.into_iter().map(|p| { let r = (p.network, p.len()); pool.recycle(p); r }).collect()
                    };
                    proptest::prop_assert_eq!(ids(a, &mut pool), ids(b, &mut pool));
                    continue;
                }
                let make = |pool: &mut PacketPool, j: usize| {
                    let mut p = pool.packet(&vec![i as u8; 60 + 100 * j], port, 0).expect("pool");
                    p.network = net;
                    p
                };
                let mut batch: Vec<Packet> = (0..k).map(|j| make(&mut pool, j)).collect();
                let bytes = batch.iter().map(Packet::len).sum();
                let before = (whole.queued(0), whole.queued(1));
                if !whole.enqueue_batch(port, net, &mut batch, bytes) {
                    proptest::prop_assert_eq!(batch.len(), k, "a refused batch is left whole");
                    proptest::prop_assert_eq!((whole.queued(0), whole.queued(1)), before);
                    for p in batch.drain(..) {
                        if let Err((p, r)) = whole.enqueue(p, 0) {
                            refused.0.push((i, r));
                            pool.recycle(p);
                        }
                    }
                }
                proptest::prop_assert!(batch.is_empty());
                for j in 0..k {
                    if let Err((p, r)) = single.enqueue(make(&mut pool, j), 0) {
                        refused.1.push((i, r));
                        pool.recycle(p);
                    }
                }
                proptest::prop_assert_eq!(&refused.0, &refused.1);
            }
        }
    }
}
