//! Packet buffers with headroom, and the pool they come from.
//!
//! Every buffer is allocated once, when the pool is made; the data path only
//! moves buffers between the pool, batches and queues. Headroom in front of
//! the frame lets IPIP encapsulation and VLAN push prepend headers in place,
//! as DPDK's mbuf headroom does.

/// Bytes kept free in front of a received frame.
pub const HEADROOM: usize = 64;
/// Largest frame a buffer holds (standard Ethernet plus two tags and slack).
pub const MAX_FRAME: usize = 2048;
const BUF_SIZE: usize = HEADROOM + MAX_FRAME;

/// A buffer on a cache-line boundary, so a frame (at `HEADROOM`, a multiple
/// of 64) starts on one: a 64-byte frame then spans one line, not two, and
/// where it lies no longer depends on where the allocator put the buffer
/// (a source of run-to-run variance in the forwarding benchmark).
#[derive(Debug)]
#[repr(C, align(64))]
struct Buf([u8; BUF_SIZE]);

/// One packet: a buffer, where the frame lies in it, and pipeline metadata.
#[derive(Debug)]
pub struct Packet {
    buf: Box<Buf>,
    start: u16,
    len: u16,
    /// Ingress port on the way in; egress port once forwarded.
    pub port: u16,
    /// Network the mapping stage chose.
    pub network: u16,
    /// Receive time, nanoseconds on the caller's clock.
    pub timestamp_ns: u64,
    /// What the network's rate limit charges: the frame's length as it
    /// entered the network (after the WAN side took its tunnel off), so
    /// the substrate's own encapsulation is never charged to it.
    charged: u16,
}

impl Packet {
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.buf.0[usize::from(self.start)..usize::from(self.start) + usize::from(self.len)]
    }
    #[inline]
    pub fn data_mut(&mut self) -> &mut [u8] {
        let s = usize::from(self.start);
        &mut self.buf.0[s..s + usize::from(self.len)]
    }
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn headroom(&self) -> usize {
        usize::from(self.start)
    }

    /// Replaces the frame with `frame`; false if it does not fit.
    #[inline]
    pub fn set_frame(&mut self, frame: &[u8]) -> bool {
        if frame.len() > MAX_FRAME {
            return false;
        }
        self.start = HEADROOM as u16;
        self.len = frame.len() as u16;
        self.charged = self.len;
        self.buf.0[HEADROOM..HEADROOM + frame.len()].copy_from_slice(frame);
        true
    }

    /// The length the network's rate limit charges (see the field).
    #[inline]
    pub fn charged_len(&self) -> usize {
        usize::from(self.charged)
    }

    /// Charges the frame as it is now: it has just entered its network.
    #[inline]
    pub fn charge_as_is(&mut self) {
        self.charged = self.len;
    }

    /// Opens `n` bytes at offset `at` of the frame by moving the `at` bytes
    /// before it into the headroom. False if the headroom is too small.
    pub fn insert_gap(&mut self, at: usize, n: usize) -> bool {
        let s = usize::from(self.start);
        if n > s || at > self.len() {
            return false;
        }
        move_front(&mut self.buf.0, s, s - n, at);
        self.start -= n as u16;
        self.len += n as u16;
        true
    }

    /// Puts back a VLAN tag the receiving NIC stripped into metadata
    /// (`tpid`, `tci`). False if there is no headroom for it.
    pub fn restore_vlan_tag(&mut self, tpid: u16, tci: u16) -> bool {
        use prism_wire::vlan::{FIRST_TAG_OFFSET, TAG_LEN, emit_stripped_tag};
        if !self.insert_gap(FIRST_TAG_OFFSET, TAG_LEN) {
            return false;
        }
        let gap = &mut self.data_mut()[FIRST_TAG_OFFSET..FIRST_TAG_OFFSET + TAG_LEN];
        emit_stripped_tag(gap.try_into().expect("4 bytes"), tpid, tci);
        true
    }

    /// Pushes an 802.1Q tag (TPID 0x8100) with VLAN ID `vid` on an
    /// untagged frame, as the network's side carries its frames. False if
    /// there is no headroom for it.
    pub fn push_c_tag(&mut self, vid: u16) -> bool {
        use prism_wire::{ethertype, vlan};
        if !self.insert_gap(12, vlan::TAG_LEN) {
            return false;
        }
        let d = self.data_mut();
        d[12..14].copy_from_slice(&ethertype::VLAN.to_be_bytes());
        d[14..16].copy_from_slice(&(vid & 0x0fff).to_be_bytes());
        true
    }

    /// Removes `n` bytes at offset `at` by moving the `at` bytes before them forward.
    pub fn remove_gap(&mut self, at: usize, n: usize) -> bool {
        if at + n > self.len() {
            return false;
        }
        let s = usize::from(self.start);
        move_front(&mut self.buf.0, s, s + n, at);
        self.start += n as u16;
        self.len -= n as u16;
        true
    }

    /// Moves the frame to the buffer's very start, leaving no headroom: for
    /// tests of what runs when the headroom has run out.
    #[cfg(test)]
    pub(crate) fn spend_headroom(&mut self) {
        let (s, len) = (usize::from(self.start), self.len());
        self.buf.0.copy_within(s..s + len, 0);
        self.start = 0;
    }

    /// Sets the frame length (growing into the buffer's tailroom); false if
    /// it would not fit.
    pub fn set_len(&mut self, len: usize) -> bool {
        if usize::from(self.start) + len > BUF_SIZE || len > MAX_FRAME {
            return false;
        }
        self.len = len as u16;
        true
    }

    /// Runs a researcher's program on the frame: it sees the whole buffer
    /// (headroom to push headers into, tailroom to grow into, up to
    /// `MAX_FRAME`) and may move the frame's bounds.
    pub fn run_program(
        &mut self,
        program: &prism_program::Program,
        scratch: &mut prism_program::Scratch,
    ) -> Result<prism_program::Verdict, prism_program::Trap> {
        let end = (usize::from(self.start) + MAX_FRAME).min(BUF_SIZE);
        let mut f = prism_program::Frame {
            buf: &mut self.buf.0[..end],
            start: usize::from(self.start),
            len: usize::from(self.len),
            ingress: u32::from(self.port),
            queue: 0,
        };
        let verdict = program.run(&mut f, scratch);
        (self.start, self.len) = (f.start as u16, f.len as u16);
        verdict
    }

    /// Cuts the frame to `len` bytes (to drop link-layer padding).
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.len = len as u16;
        }
    }
}

/// Moves `len` bytes from `src` to `dst` within `buf` (ranges may overlap).
/// L2 headers are short (12 to 22 bytes): those moves use two overlapping
/// fixed-size copies, both read before either is written, instead of a call
/// to memmove.
#[inline]
fn move_front(buf: &mut [u8], src: usize, dst: usize, len: usize) {
    if (8..=16).contains(&len) && src + 16 <= buf.len() && dst + 16 <= buf.len() {
        let a: [u8; 8] = buf[src..src + 8].try_into().expect("8 bytes");
        let b: [u8; 8] = buf[src + len - 8..src + len].try_into().expect("8 bytes");
        buf[dst..dst + 8].copy_from_slice(&a);
        buf[dst + len - 8..dst + len].copy_from_slice(&b);
    } else if (17..=32).contains(&len) && src + 32 <= buf.len() && dst + 32 <= buf.len() {
        let a: [u8; 16] = buf[src..src + 16].try_into().expect("16 bytes");
        let b: [u8; 16] = buf[src + len - 16..src + len].try_into().expect("16 bytes");
        buf[dst..dst + 16].copy_from_slice(&a);
        buf[dst + len - 16..dst + len].copy_from_slice(&b);
    } else {
        buf.copy_within(src..src + len, dst);
    }
}

/// A fixed set of packet buffers.
#[derive(Debug)]
pub struct PacketPool {
    free: Vec<Packet>,
    capacity: usize,
}

impl PacketPool {
    pub fn new(capacity: usize) -> Self {
        let free = (0..capacity)
            .map(|_| Packet {
                buf: Box::new(Buf([0; BUF_SIZE])),
                start: HEADROOM as u16,
                len: 0,
                port: 0,
                network: 0,
                timestamp_ns: 0,
                charged: 0,
            })
            .collect();
        Self { free, capacity }
    }

    /// A buffer holding `frame`, or `None` if the pool is empty or the frame too long.
    #[inline]
    pub fn packet(&mut self, frame: &[u8], port: u16, timestamp_ns: u64) -> Option<Packet> {
        if frame.len() > MAX_FRAME {
            return None;
        }
        let mut p = self.free.pop()?;
        p.set_frame(frame);
        p.port = port;
        p.network = 0;
        p.timestamp_ns = timestamp_ns;
        Some(p)
    }

    /// A copy of `p` (its frame and metadata) in a buffer of the pool, or
    /// `None` if the pool is empty: a bridge's flood.
    #[inline]
    pub fn duplicate(&mut self, p: &Packet) -> Option<Packet> {
        let mut c = self.free.pop()?;
        c.set_frame(p.data());
        c.port = p.port;
        c.network = p.network;
        c.timestamp_ns = p.timestamp_ns;
        c.charged = p.charged;
        Some(c)
    }

    #[inline]
    pub fn recycle(&mut self, p: Packet) {
        self.free.push(p);
    }

    /// Takes back every buffer of `packets` (left empty) in one move, as a
    /// transmit that sent them all gives them back.
    #[inline]
    pub fn recycle_all(&mut self, packets: &mut Vec<Packet>) {
        self.free.append(packets);
    }

    pub fn available(&self) -> usize {
        self.free.len()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_moves_equal_memmove() {
        for len in 0..40 {
            for (src, dst) in [(20, 16), (20, 24), (20, 0), (4, 30)] {
                let orig: Vec<u8> = (0..100u8).collect();
                let mut a = orig.clone();
                let mut b = orig.clone();
                move_front(&mut a, src, dst, len);
                b.copy_within(src..src + len, dst);
                assert_eq!(a, b, "len {len} {src}->{dst}");
            }
        }
    }

    #[test]
    fn recycle_all_takes_every_buffer_back() {
        let mut pool = PacketPool::new(4);
        let mut v: Vec<Packet> = (0..3)
            .map(|i| pool.packet(&[i; 60], 0, 0).unwrap())
            .collect();
        assert_eq!(pool.available(), 1);
        pool.recycle_all(&mut v);
        assert!(v.is_empty());
        assert_eq!(pool.available(), 4);
        let again: Vec<Packet> = (0..4)
            .map(|_| pool.packet(&[9; 64], 0, 0).unwrap())
            .collect();
        assert!(again.iter().all(|p| p.data() == [9; 64]));
    }

    #[test]
    fn gaps_move_the_front() {
        let mut pool = PacketPool::new(1);
        let mut p = pool.packet(&[1, 2, 3, 4, 5, 6], 0, 0).unwrap();
        assert!(pool.packet(&[0], 0, 0).is_none());
        assert!(p.insert_gap(2, 3));
        p.data_mut()[2..5].copy_from_slice(&[9, 9, 9]);
        assert_eq!(p.data(), &[1, 2, 9, 9, 9, 3, 4, 5, 6]);
        assert!(p.remove_gap(2, 3));
        assert_eq!(p.data(), &[1, 2, 3, 4, 5, 6]);
        assert!(!p.insert_gap(0, HEADROOM + 1));
        assert!(!p.remove_gap(4, 3));
        p.truncate(2);
        assert_eq!(p.data(), &[1, 2]);
        pool.recycle(p);
        assert_eq!(pool.available(), 1);
        assert!(pool.packet(&vec![0; MAX_FRAME + 1], 0, 0).is_none());
    }
}
