//! The learning bridge: delivery by destination MAC inside one network
//! (paper 002 §2.2's bridge service on a node; IEEE 802.1D's relay,
//! filtering and learning, per network).
//!
//! In: a frame of a `bridge` network, the port it came in by, and the time
//! in seconds. Out: the member of the network to send it to (an index into
//! the network's action table: the member's port and what a frame leaving
//! there gets, e.g. a WAN member's S-tag), a flood to every member but the
//! one it came from, or a named drop (`matching/not-member`: it came in by
//! a port that is not the network's; `matching/same-port`: its destination
//! sits behind the port it came from, so 802.1D filters it).
//!
//! Learning: a frame's unicast source is learned on the member it came in
//! by, unless a static entry names that MAC (static entries win, as a
//! bridge's management-set entries do). A learned entry unused for the
//! network's ageing time (802.1D's default 300 s) is unknown again: its
//! frames flood until the host speaks. Broadcast, multicast and unknown
//! unicast flood within the network only.
//!
//! State: the learned table is the pipeline's (each worker learns what it
//! sees; a MAC one worker has not yet seen is flooded by it, which is
//! safe), sized once; when full, entries past their ageing are reclaimed
//! and, if none are, the new MAC is not learned (its frames flood). A
//! learned entry keeps the port, not the member index, so a member set that
//! changes under it never sends a frame to the wrong port.

use crate::fast::action::Action;
use crate::fast::reasons::MatchDrop;
use hashbrown::HashMap;

/// Marks a flood in the action index the matching stage returns.
pub const FLOOD: u32 = u32::MAX;

/// Not a member: the value of `Bridge::member_of_port` for other ports.
const NOT_MEMBER: u16 = u16::MAX;

/// 802.1D's default ageing time, seconds.
pub const DEFAULT_AGEING_S: u32 = 300;

/// A bridge network's definition, as the substrate takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BridgeSpec {
    /// Each member: what a frame delivered to it gets (its output port,
    /// and for a member across the WAN the S-tag pushed).
    pub members: Vec<Action>,
    /// Static entries: (MAC, member index).
    pub statics: Vec<([u8; 6], u16)>,
    pub ageing_s: u32,
}

/// A bridge network's compiled table.
#[derive(Debug, Clone)]
pub struct Bridge {
    /// By ingress port: its member index, or `NOT_MEMBER`.
    member_of_port: Vec<u16>,
    /// By member: its port and its action's index in the network's table.
    members: Vec<(u16, u32)>,
    statics: HashMap<[u8; 6], u16>,
    ageing_s: u32,
}

impl Bridge {
    /// `actions[i]`: member `i`'s index in the network's action table.
    /// The spec was checked ([`BridgeSpec::check`]).
    pub fn new(spec: &BridgeSpec, actions: &[u32]) -> Self {
        let ports = spec.members.iter().filter_map(|m| m.out_port).max();
        let mut member_of_port = vec![NOT_MEMBER; ports.map_or(0, |p| usize::from(p) + 1)];
        let mut members = Vec::with_capacity(spec.members.len());
        for (i, (m, a)) in spec.members.iter().zip(actions).enumerate() {
            let port = m.out_port.unwrap_or(0);
            if let Some(slot) = member_of_port.get_mut(usize::from(port)) {
                *slot = i as u16;
            }
            members.push((port, *a));
        }
        Self {
            member_of_port,
            members,
            statics: spec.statics.iter().copied().collect(),
            ageing_s: spec.ageing_s,
        }
    }

    /// Member `i`'s port and action index.
    #[inline]
    pub fn member(&self, i: usize) -> Option<(u16, u32)> {
        self.members.get(i).copied()
    }

    pub fn members(&self) -> usize {
        self.members.len()
    }

    /// The member a frame entering by `port` came from.
    #[inline]
    pub fn member_of(&self, port: u16) -> Option<u16> {
        match self.member_of_port.get(usize::from(port)) {
            Some(&m) if m != NOT_MEMBER => Some(m),
            _ => None,
        }
    }

    pub fn statics(&self) -> usize {
        self.statics.len()
    }

    /// The decision with static entries only (what a caller without the
    /// pipeline's learned table can know): `FLOOD` for everything else.
    pub fn decide_static(&self, dst: [u8; 6], in_port: u16) -> Result<u32, MatchDrop> {
        let from = self.member_of(in_port).ok_or(MatchDrop::NotMember)?;
        match self.statics.get(&dst) {
            _ if is_group(dst) => Ok(FLOOD),
            Some(&m) if m == from => Err(MatchDrop::SamePort),
            Some(&m) => Ok(self.members[usize::from(m)].1),
            None => Ok(FLOOD),
        }
    }
}

impl BridgeSpec {
    /// Refuses a member set a bridge cannot run: none, a port twice, a
    /// member that does not output, a static entry naming no member or a
    /// group MAC.
    pub fn check(&self, ports: u16) -> Result<(), String> {
        if self.members.is_empty() {
            return Err("a bridge needs at least one member port".into());
        }
        let mut seen = vec![false; usize::from(ports)];
        for (i, m) in self.members.iter().enumerate() {
            let Some(p) = m.out_port.filter(|p| *p < ports) else {
                return Err(format!("member {i} has no port of the node"));
            };
            if std::mem::replace(&mut seen[usize::from(p)], true) {
                return Err(format!("port {p} is a member twice"));
            }
        }
        for (mac, m) in &self.statics {
            if usize::from(*m) >= self.members.len() {
                return Err(format!(
                    "a static entry names member {m}, not one of the bridge's"
                ));
            }
            if is_group(*mac) {
                return Err("a static entry's MAC is a group (multicast) address".into());
            }
        }
        if self.ageing_s == 0 {
            return Err("an ageing time of 0 s learns nothing".into());
        }
        Ok(())
    }
}

/// A MAC from the key's 48-bit form.
#[inline]
pub fn mac_of(m: u64) -> [u8; 6] {
    let b = m.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// Whether `mac` is a group address (broadcast or multicast: the I/G bit).
#[inline]
fn is_group(mac: [u8; 6]) -> bool {
    mac[0] & 1 != 0
}

/// One learned MAC: the port it was last seen on, and when.
#[derive(Debug, Clone, Copy)]
struct Learned {
    port: u16,
    seen_s: u32,
}

/// Learned MACs, per (network, MAC): the pipeline's.
#[derive(Debug)]
pub struct BridgeState {
    table: HashMap<(u16, [u8; 6]), Learned>,
    capacity: usize,
    /// MACs not learned because the table was full of live entries.
    pub not_learned: u64,
}

impl BridgeState {
    /// A table for `capacity` MACs, allocated now: learning allocates nothing.
    pub fn new(capacity: usize) -> Self {
        Self {
            table: HashMap::with_capacity(capacity),
            capacity,
            not_learned: 0,
        }
    }

    pub fn learned(&self) -> usize {
        self.table.len()
    }

    /// Learns the frame's source and chooses where it goes: a member's
    /// action index, [`FLOOD`], or a drop.
    #[inline]
    pub fn decide(
        &mut self,
        net: u16,
        b: &Bridge,
        frame: &[u8],
        in_port: u16,
        now_s: u32,
    ) -> Result<u32, MatchDrop> {
        let Some((dst, src)) = frame.first_chunk::<12>().map(|m| {
            let (d, s) = m.split_at(6);
            (
                <[u8; 6]>::try_from(d).unwrap_or_default(),
                <[u8; 6]>::try_from(s).unwrap_or_default(),
            )
        }) else {
            return Err(MatchDrop::NotMember);
        };
        let from = b.member_of(in_port).ok_or(MatchDrop::NotMember)?;
        if !is_group(src) && !b.statics.contains_key(&src) {
            self.learn(net, src, in_port, now_s, b.ageing_s);
        }
        if is_group(dst) {
            return Ok(FLOOD);
        }
        let to = match b.statics.get(&dst) {
            Some(&m) => Some(m),
            None => self
                .table
                .get(&(net, dst))
                .filter(|l| now_s.wrapping_sub(l.seen_s) <= b.ageing_s)
                .and_then(|l| b.member_of(l.port)),
        };
        match to {
            Some(m) if m == from => Err(MatchDrop::SamePort),
            Some(m) => Ok(b.members[usize::from(m)].1),
            None => Ok(FLOOD),
        }
    }

    #[inline]
    fn learn(&mut self, net: u16, mac: [u8; 6], port: u16, now_s: u32, ageing_s: u32) {
        let fresh = Learned {
            port,
            seen_s: now_s,
        };
        if let Some(l) = self.table.get_mut(&(net, mac)) {
            *l = fresh;
            return;
        }
        if self.table.len() >= self.capacity {
            // Rare: reclaim what has aged out (with this network's ageing:
            // the bound is what matters, not each network's exact time).
            self.table
                .retain(|_, l| now_s.wrapping_sub(l.seen_s) <= ageing_s);
            if self.table.len() >= self.capacity {
                self.not_learned += 1;
                return;
            }
        }
        self.table.insert((net, mac), fresh);
    }

    /// Forgets what was learned in the networks `keep` refuses (a network
    /// removed, or its id given to another): called when a new data plane
    /// is adopted.
    pub fn forget_unless(&mut self, mut keep: impl FnMut(u16) -> bool) {
        self.table.retain(|(net, _), _| keep(*net));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [u8; 6] = [2, 0, 0, 0, 0, 0xa];
    const B: [u8; 6] = [2, 0, 0, 0, 0, 0xb];
    const C: [u8; 6] = [2, 0, 0, 0, 0, 0xc];
    const BCAST: [u8; 6] = [0xff; 6];

    fn frame(dst: [u8; 6], src: [u8; 6]) -> Vec<u8> {
        let mut f = dst.to_vec();
        f.extend_from_slice(&src);
        f.extend_from_slice(&[0x88, 0xb5, 0, 0]);
        f
    }

    /// Members on ports 0, 1 and 2 with action indices 10, 11, 12.
    fn bridge(statics: Vec<([u8; 6], u16)>, ageing_s: u32) -> Bridge {
        let out = |p| Action {
            out_port: Some(p),
            ..Action::default()
        };
        let spec = BridgeSpec {
            members: vec![out(0), out(1), out(2)],
            statics,
            ageing_s,
        };
        spec.check(4).unwrap();
        Bridge::new(&spec, &[10, 11, 12])
    }

    #[test]
    fn learns_then_delivers_and_filters() {
        let b = bridge(vec![], 300);
        let mut s = BridgeState::new(16);
        // Unknown destination: flood; A learned on port 0.
        assert_eq!(s.decide(1, &b, &frame(B, A), 0, 0), Ok(FLOOD));
        // B answers from port 1: delivered to A's member only.
        assert_eq!(s.decide(1, &b, &frame(A, B), 1, 1), Ok(10));
        assert_eq!(s.decide(1, &b, &frame(B, A), 0, 2), Ok(11));
        // A frame for B arriving by B's own port is filtered.
        assert_eq!(
            s.decide(1, &b, &frame(B, C), 1, 3),
            Err(MatchDrop::SamePort)
        );
        // Broadcast floods whatever is learned.
        assert_eq!(s.decide(1, &b, &frame(BCAST, A), 0, 4), Ok(FLOOD));
        // Another network learned nothing.
        assert_eq!(s.decide(2, &b, &frame(B, C), 2, 5), Ok(FLOOD));
        // Not a member.
        assert_eq!(
            s.decide(1, &b, &frame(B, A), 3, 6),
            Err(MatchDrop::NotMember)
        );
    }

    #[test]
    fn a_moved_host_is_learned_where_it_is_now() {
        let b = bridge(vec![], 300);
        let mut s = BridgeState::new(16);
        s.decide(1, &b, &frame(BCAST, A), 0, 0).unwrap();
        s.decide(1, &b, &frame(BCAST, A), 2, 1).unwrap();
        assert_eq!(s.decide(1, &b, &frame(A, B), 1, 2), Ok(12));
    }

    #[test]
    fn entries_age_out_and_floods_resume() {
        let b = bridge(vec![], 10);
        let mut s = BridgeState::new(16);
        s.decide(1, &b, &frame(BCAST, A), 0, 100).unwrap();
        assert_eq!(s.decide(1, &b, &frame(A, B), 1, 110), Ok(10));
        assert_eq!(s.decide(1, &b, &frame(A, B), 1, 111), Ok(FLOOD));
    }

    #[test]
    fn statics_win_over_learning() {
        let b = bridge(vec![(A, 2)], 300);
        let mut s = BridgeState::new(16);
        // A claims port 0, but its static entry says member 2.
        s.decide(1, &b, &frame(BCAST, A), 0, 0).unwrap();
        assert_eq!(s.decide(1, &b, &frame(A, B), 1, 1), Ok(12));
        assert_eq!(s.learned(), 1, "B only");
        assert_eq!(b.decide_static(A, 0), Ok(12));
        assert_eq!(b.decide_static(A, 2), Err(MatchDrop::SamePort));
        assert_eq!(b.decide_static(B, 0), Ok(FLOOD));
    }

    #[test]
    fn a_full_table_reclaims_aged_entries_or_floods() {
        let b = bridge(vec![], 10);
        let mut s = BridgeState::new(2);
        s.decide(1, &b, &frame(BCAST, A), 0, 0).unwrap();
        s.decide(1, &b, &frame(BCAST, B), 1, 0).unwrap();
        // Full of live entries: C is not learned, its frames flood.
        s.decide(1, &b, &frame(BCAST, C), 2, 5).unwrap();
        assert_eq!(s.not_learned, 1);
        assert_eq!(s.decide(1, &b, &frame(C, A), 0, 5), Ok(FLOOD));
        // Later A and B have aged: C takes a place.
        s.decide(1, &b, &frame(BCAST, C), 2, 20).unwrap();
        assert_eq!(s.decide(1, &b, &frame(C, A), 0, 20), Ok(12));
    }

    #[test]
    fn refuses_what_cannot_run() {
        let out = |p| Action {
            out_port: Some(p),
            ..Action::default()
        };
        let spec = |members, statics| BridgeSpec {
            members,
            statics,
            ageing_s: 300,
        };
        assert!(spec(vec![], vec![]).check(4).is_err());
        assert!(spec(vec![out(1), out(1)], vec![]).check(4).is_err());
        assert!(spec(vec![out(9)], vec![]).check(4).is_err());
        assert!(spec(vec![Action::default()], vec![]).check(4).is_err());
        assert!(spec(vec![out(1)], vec![(A, 1)]).check(4).is_err());
        assert!(spec(vec![out(1)], vec![(BCAST, 0)]).check(4).is_err());
        assert!(spec(vec![out(1)], vec![(A, 0)]).check(4).is_ok());
    }
}
