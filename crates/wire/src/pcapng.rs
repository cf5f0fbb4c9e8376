//! Frames as a pcapng file: one Interface Description Block per port
//! (nanosecond timestamps) and an Enhanced Packet Block per frame with its
//! direction in the `epb_flags` option (draft-ietf-opsawg-pcapng §4.3.1:
//! 1 inbound, 2 outbound), so that Wireshark and tshark show which port
//! and which way. A node's and a booking's captures are written with it.

use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use std::borrow::Cow;
use std::time::Duration;

/// The media type of what [`write`] makes.
pub const CONTENT_TYPE: &str = "application/x-pcapng";

/// Which way a frame went through its port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Inbound,
    Outbound,
}

/// One captured frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'a> {
    pub port: &'a str,
    /// Unix time, ns.
    pub timestamp_ns: u64,
    /// Length on the wire (the frame may be cut to a snap length).
    pub original_len: usize,
    pub data: Vec<u8>,
    pub direction: Direction,
}

/// `frames` as a pcapng file, in their order.
pub fn write(frames: &[Frame<'_>]) -> Result<Vec<u8>, String> {
    let mut ports: Vec<&str> = frames.iter().map(|f| f.port).collect();
    ports.sort();
    ports.dedup();
    let err = |e: pcap_file::PcapError| format!("pcapng: {e}");
    let mut w = PcapNgWriter::new(Vec::new()).map_err(err)?;
    for name in &ports {
        let idb = InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Borrowed(name)),
                InterfaceDescriptionOption::IfTsResol(9),
            ],
        };
        w.write_pcapng_block(idb).map_err(err)?;
    }
    for f in frames {
        let epb = EnhancedPacketBlock {
            interface_id: ports.binary_search(&f.port).unwrap_or(0) as u32,
            timestamp: Duration::from_nanos(f.timestamp_ns),
            original_len: u32::try_from(f.original_len).unwrap_or(u32::MAX),
            data: Cow::Borrowed(&f.data),
            options: vec![EnhancedPacketOption::Flags(match f.direction {
                Direction::Inbound => 1,
                Direction::Outbound => 2,
            })],
        };
        w.write_pcapng_block(epb).map_err(err)?;
    }
    Ok(w.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcapng::{Block, PcapNgReader};

    fn frame<'a>(direction: Direction, t: u64, port: &'a str, data: &[u8]) -> Frame<'a> {
        Frame {
            port,
            timestamp_ns: t,
            original_len: 60,
            data: data.to_vec(),
            direction,
        }
    }

    #[test]
    fn ports_directions_times_and_lengths_read_back() {
        let frames = [
            frame(Direction::Inbound, 1_700_000_000_123_456_789, "b", &[1, 2]),
            frame(Direction::Outbound, 1_700_000_000_123_457_000, "a", &[255]),
        ];
        let bytes = write(&frames).unwrap();
        let mut r = PcapNgReader::new(&bytes[..]).unwrap();
        let (mut names, mut seen) = (Vec::new(), Vec::new());
        while let Some(b) = r.next_block() {
            match b.unwrap() {
                Block::InterfaceDescription(i) => names.push(format!("{:?}", i.options[0])),
                Block::EnhancedPacket(e) => seen.push((
                    e.interface_id,
                    e.timestamp.as_nanos(),
                    e.original_len,
                    e.data.to_vec(),
                    format!("{:?}", e.options),
                )),
                _ => {}
            }
        }
        assert_eq!(names, [r#"IfName("a")"#, r#"IfName("b")"#]);
        assert_eq!(
            seen[0],
            (
                1,
                1_700_000_000_123_456_789,
                60,
                vec![1, 2],
                "[Flags(1)]".into()
            )
        );
        assert_eq!(
            seen[1],
            (
                0,
                1_700_000_000_123_457_000,
                60,
                vec![255],
                "[Flags(2)]".into()
            )
        );
    }
}
