//! The gateway's flow table: the state of outgoing NAT (paper 002 §5.1,
//! Fig. 7: "all resources could send traffic to the wide area network using
//! the NAT functionality implemented in the gateway service").
//!
//! In: a flow's network, protocol, internal and remote endpoints (a packet
//! going out) or its protocol, remote endpoint and external port (a packet
//! coming back), and the time in seconds. Out: the flow's external port,
//! made on the first packet out; or the flow a packet coming back belongs
//! to; or a refusal (`nat/table-full`, `nat/no-port`).
//!
//! Mapping: one external address (the node's WAN address), and an external
//! port per flow kept unique per (protocol, remote address, remote port):
//! "address and port-dependent mapping" (RFC 4787 §4.1), as Linux conntrack
//! falls back to, which lets one address carry far more than 64k flows.
//! The internal port is kept when it is free and above 1023 (RFC 4787
//! REQ-3's port preservation). ICMP echo flows use the identifier as port.
//!
//! Timeouts (RFC 4787 REQ-5, RFC 5382 REQ-5, RFC 5508 REQ-1): UDP 300 s,
//! TCP 7,440 s established and 240 s after a FIN or RST, ICMP 60 s. A flow
//! past its time is reclaimed when met (a lookup, a port probe) and by a
//! sweep of a few slots each batch; the caller owns the clock.
//!
//! Config: the capacity, fixed at construction: every table is sized then,
//! so making or ending a flow allocates nothing. 1 Mi flows take about
//! 48 MiB (24-byte flows and two 4-byte index tables at 7/8 load).

use crate::fast::reasons::NatDrop;
use core::hash::BuildHasher;
use hashbrown::{DefaultHashBuilder, HashTable};
use prism_wire::protocol;

/// Timeouts and size of a NAT table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NatConfig {
    /// Concurrent flows at most; a new flow beyond is refused.
    pub capacity: u32,
    pub udp_s: u32,
    pub tcp_s: u32,
    pub tcp_closing_s: u32,
    pub icmp_s: u32,
}

impl Default for NatConfig {
    fn default() -> Self {
        Self {
            capacity: 1 << 20,
            udp_s: 300,
            tcp_s: 7440,
            tcp_closing_s: 240,
            icmp_s: 60,
        }
    }
}

/// One translated flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flow {
    pub net: u16,
    pub proto: u8,
    /// A FIN or RST was seen: the short TCP timeout applies.
    pub closing: bool,
    pub int_ip: u32,
    pub rem_ip: u32,
    pub int_port: u16,
    pub rem_port: u16,
    pub ext_port: u16,
    /// Slot in use.
    live: bool,
    pub last_s: u32,
}

/// A packet going out: its flow's endpoints as the network sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outbound {
    pub net: u16,
    pub proto: u8,
    pub int_ip: u32,
    pub int_port: u16,
    pub rem_ip: u32,
    pub rem_port: u16,
}

/// A packet coming back: its flow's endpoints as the wide area sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Inbound {
    pub proto: u8,
    pub rem_ip: u32,
    pub rem_port: u16,
    pub ext_port: u16,
}

impl Flow {
    fn outbound(&self) -> Outbound {
        Outbound {
            net: self.net,
            proto: self.proto,
            int_ip: self.int_ip,
            int_port: self.int_port,
            rem_ip: self.rem_ip,
            rem_port: self.rem_port,
        }
    }
    fn inbound(&self) -> Inbound {
        Inbound {
            proto: self.proto,
            rem_ip: self.rem_ip,
            rem_port: self.rem_port,
            ext_port: self.ext_port,
        }
    }
}

/// What the table has done, for reports and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NatStats {
    pub live: u32,
    pub created: u64,
    pub expired: u64,
}

/// The flow table (see the module text).
#[derive(Debug)]
pub struct NatTable {
    cfg: NatConfig,
    flows: Vec<Flow>,
    free: Vec<u32>,
    by_out: HashTable<u32>,
    by_in: HashTable<u32>,
    hasher: DefaultHashBuilder,
    sweep_at: usize,
    stats: NatStats,
}

/// First and last external port a flow may take.
const PORTS: (u16, u16) = (1024, 65535);
/// Ports tried for a new flow before it is refused as `nat/no-port`.
const PROBES: u32 = 64;

impl NatTable {
    pub fn new(cfg: NatConfig) -> Self {
        let cap = cfg.capacity as usize;
        Self {
            cfg,
            flows: Vec::with_capacity(cap),
            free: Vec::with_capacity(cap),
            by_out: HashTable::with_capacity(cap),
            by_in: HashTable::with_capacity(cap),
            hasher: DefaultHashBuilder::default(),
            sweep_at: 0,
            stats: NatStats::default(),
        }
    }

    pub fn config(&self) -> NatConfig {
        self.cfg
    }

    pub fn stats(&self) -> NatStats {
        self.stats
    }

    /// Bytes the table reserved at construction.
    pub fn reserved_bytes(&self) -> usize {
        let idx = |t: &HashTable<u32>| t.capacity() * 8 / 7 * (4 + 1);
        self.flows.capacity() * size_of::<Flow>()
            + self.free.capacity() * 4
            + idx(&self.by_out)
            + idx(&self.by_in)
    }

    fn timeout(&self, f: &Flow) -> u32 {
        match f.proto {
            protocol::TCP if f.closing => self.cfg.tcp_closing_s,
            protocol::TCP => self.cfg.tcp_s,
            protocol::UDP => self.cfg.udp_s,
            _ => self.cfg.icmp_s,
        }
    }

    fn expired(&self, f: &Flow, now_s: u32) -> bool {
        now_s.saturating_sub(f.last_s) > self.timeout(f)
    }

    fn find_in(&self, k: &Inbound) -> Option<u32> {
        let h = self.hasher.hash_one(k);
        self.by_in
            .find(h, |&i| self.flows[i as usize].inbound() == *k)
            .copied()
    }

    /// The external port of the flow `k` is the packet of, made if new.
    pub fn outbound(&mut self, k: Outbound, now_s: u32) -> Result<u16, NatDrop> {
        let h = self.hasher.hash_one(k);
        if let Some(&i) = self
            .by_out
            .find(h, |&i| self.flows[i as usize].outbound() == k)
        {
            let f = &mut self.flows[i as usize];
            f.last_s = now_s;
            return Ok(f.ext_port);
        }
        if self.stats.live >= self.cfg.capacity {
            self.sweep(now_s, PROBES as usize);
            if self.stats.live >= self.cfg.capacity {
                return Err(NatDrop::TableFull);
            }
        }
        let ext_port = self.free_port(&k, h, now_s).ok_or(NatDrop::NoPort)?;
        let flow = Flow {
            net: k.net,
            proto: k.proto,
            closing: false,
            int_ip: k.int_ip,
            rem_ip: k.rem_ip,
            int_port: k.int_port,
            rem_port: k.rem_port,
            ext_port,
            live: true,
            last_s: now_s,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.flows[i as usize] = flow;
                i
            }
            None => {
                self.flows.push(flow);
                (self.flows.len() - 1) as u32
            }
        };
        let (flows, hasher) = (&self.flows, &self.hasher);
        self.by_out
            .insert_unique(h, i, |&j| hasher.hash_one(flows[j as usize].outbound()));
        let hi = hasher.hash_one(flow.inbound());
        self.by_in
            .insert_unique(hi, i, |&j| hasher.hash_one(flows[j as usize].inbound()));
        self.stats.live += 1;
        self.stats.created += 1;
        Ok(ext_port)
    }

    /// A port for a new flow: its own when free and not privileged, else
    /// the first free one on a walk seeded by the flow's hash.
    fn free_port(&mut self, k: &Outbound, h: u64, now_s: u32) -> Option<u16> {
        let range = u32::from(PORTS.1 - PORTS.0) + 1;
        let mut at = (h % u64::from(range)) as u32;
        let stride = ((h >> 32) as u32 % range) | 1;
        let own = (k.int_port >= PORTS.0).then_some(k.int_port);
        let candidates = own.into_iter().chain((0..PROBES).map(|_| {
            at = (at + stride) % range;
            PORTS.0 + at as u16
        }));
        for port in candidates {
            let key = Inbound {
                proto: k.proto,
                rem_ip: k.rem_ip,
                rem_port: k.rem_port,
                ext_port: port,
            };
            match self.find_in(&key) {
                None => return Some(port),
                Some(i) if self.expired(&self.flows[i as usize], now_s) => {
                    self.remove(i);
                    return Some(port);
                }
                Some(_) => {}
            }
        }
        None
    }

    /// The flow a packet coming back belongs to, touched; `closing` when
    /// it carries a FIN or RST. A flow past its time is ended instead.
    pub fn inbound(&mut self, k: &Inbound, closing: bool, now_s: u32) -> Option<Flow> {
        let i = self.find_in(k)?;
        if self.expired(&self.flows[i as usize], now_s) {
            self.remove(i);
            return None;
        }
        let f = &mut self.flows[i as usize];
        f.last_s = now_s;
        f.closing |= closing;
        Some(*f)
    }

    /// The flow a packet coming back belongs to, not touched: an ICMP
    /// error about a flow does not keep it alive (RFC 5508 REQ-8).
    pub fn peek(&self, k: &Inbound, now_s: u32) -> Option<Flow> {
        let f = self.flows[self.find_in(k)? as usize];
        (!self.expired(&f, now_s)).then_some(f)
    }

    /// Marks the flow of `k` closing (a FIN or RST going out).
    pub fn closing(&mut self, k: Outbound) {
        let h = self.hasher.hash_one(k);
        if let Some(&i) = self
            .by_out
            .find(h, |&i| self.flows[i as usize].outbound() == k)
        {
            self.flows[i as usize].closing = true;
        }
    }

    fn remove(&mut self, i: u32) {
        let f = self.flows[i as usize];
        if !f.live {
            return;
        }
        let (ho, hi) = (
            self.hasher.hash_one(f.outbound()),
            self.hasher.hash_one(f.inbound()),
        );
        if let Ok(e) = self.by_out.find_entry(ho, |&j| j == i) {
            e.remove();
        }
        if let Ok(e) = self.by_in.find_entry(hi, |&j| j == i) {
            e.remove();
        }
        self.flows[i as usize].live = false;
        self.free.push(i);
        self.stats.live -= 1;
    }

    /// Ends the flows past their time among the next `budget` slots.
    pub fn sweep(&mut self, now_s: u32, budget: usize) {
        let n = self.flows.len();
        if n == 0 {
            return;
        }
        for _ in 0..budget.min(n) {
            self.sweep_at = (self.sweep_at + 1) % n;
            let i = self.sweep_at as u32;
            let f = self.flows[i as usize];
            if f.live && self.expired(&f, now_s) {
                self.remove(i);
                self.stats.expired += 1;
            }
        }
    }

    /// Ends every flow of network `net` (it was removed or replaced).
    pub fn forget(&mut self, net: u16) {
        for i in 0..self.flows.len() as u32 {
            if self.flows[i as usize].live && self.flows[i as usize].net == net {
                self.remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(int_port: u16, rem_ip: u32) -> Outbound {
        Outbound {
            net: 1,
            proto: protocol::UDP,
            int_ip: 0x0a01_0002,
            int_port,
            rem_ip,
            rem_port: 53,
        }
    }

    fn back(ext_port: u16, rem_ip: u32) -> Inbound {
        Inbound {
            proto: protocol::UDP,
            rem_ip,
            rem_port: 53,
            ext_port,
        }
    }

    fn small(capacity: u32) -> NatTable {
        NatTable::new(NatConfig {
            capacity,
            ..NatConfig::default()
        })
    }

    #[test]
    fn a_flow_keeps_its_port_and_is_found_coming_back() {
        let mut t = small(8);
        assert_eq!(t.outbound(out(5000, 9), 0), Ok(5000));
        assert_eq!(t.outbound(out(5000, 9), 1), Ok(5000));
        let f = t.inbound(&back(5000, 9), false, 2).unwrap();
        assert_eq!((f.int_ip, f.int_port, f.net), (0x0a01_0002, 5000, 1));
        assert_eq!(t.inbound(&back(5000, 8), false, 2), None, "another remote");
        assert_eq!(t.stats().live, 1);
    }

    #[test]
    fn a_privileged_or_taken_port_is_replaced() {
        let mut t = small(8);
        let p = t.outbound(out(53, 9), 0).unwrap();
        assert!(p >= 1024);
        let mut other = out(5000, 9);
        other.int_ip += 1;
        assert_eq!(t.outbound(out(5000, 9), 0), Ok(5000));
        let q = t.outbound(other, 0).unwrap();
        assert_ne!(q, 5000, "5000 towards this remote is taken");
        assert_eq!(
            t.inbound(&back(q, 9), false, 0).unwrap().int_ip,
            other.int_ip
        );
    }

    #[test]
    fn a_full_table_refuses_new_flows_and_keeps_the_old() {
        let mut t = small(2);
        t.outbound(out(5000, 1), 0).unwrap();
        t.outbound(out(5000, 2), 0).unwrap();
        assert_eq!(t.outbound(out(5000, 3), 1), Err(NatDrop::TableFull));
        assert_eq!(t.outbound(out(5000, 1), 1), Ok(5000));
        // Past UDP's time the old flows make room.
        assert_eq!(t.outbound(out(5000, 3), 400), Ok(5000));
        assert!(t.inbound(&back(5000, 3), false, 400).is_some());
    }

    #[test]
    fn flows_time_out_and_closing_tcp_sooner() {
        let mut t = small(8);
        t.outbound(out(5000, 1), 0).unwrap();
        assert!(t.inbound(&back(5000, 1), false, 300).is_some());
        assert!(t.inbound(&back(5000, 1), false, 601).is_none());
        assert_eq!(t.stats().live, 0);
        let mut k = out(6000, 1);
        k.proto = protocol::TCP;
        t.outbound(k, 0).unwrap();
        let b = Inbound {
            proto: protocol::TCP,
            ..back(6000, 1)
        };
        assert!(t.inbound(&b, false, 1000).is_some(), "established lasts");
        t.closing(k);
        t.sweep(1241, 8);
        assert_eq!(t.stats().live, 0);
        assert_eq!(t.stats().expired, 1);
    }

    #[test]
    fn forgetting_a_network_ends_its_flows_only() {
        let mut t = small(8);
        t.outbound(out(5000, 1), 0).unwrap();
        let mut k = out(5000, 2);
        k.net = 2;
        t.outbound(k, 0).unwrap();
        t.forget(1);
        assert!(t.inbound(&back(5000, 1), false, 0).is_none());
        assert!(t.inbound(&back(5000, 2), false, 0).is_some());
    }
}
