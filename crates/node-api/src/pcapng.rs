//! A capture's frames (a [`TapAnswer`] with `capture`) as pcapng bytes:
//! one Interface Description Block per port named in it (nanosecond
//! timestamps) and an Enhanced Packet Block per frame with its direction
//! in the `epb_flags` option (draft-ietf-opsawg-pcapng §4.3.1: 1 inbound,
//! 2 outbound), so that Wireshark and tshark show which port and which
//! way. `prism ctl capture` writes these bytes to a file; the controller
//! hands them to a browser.

use crate::counters::TapPoint;
use crate::types::TapAnswer;
use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use std::borrow::Cow;
use std::time::Duration;

/// The media type of what [`capture_pcapng`] makes.
pub const PCAPNG_CONTENT_TYPE: &str = "application/x-pcapng";

/// `answer`'s frames as a pcapng file, in its order; an error names the
/// frame that is not hex.
pub fn capture_pcapng(answer: &TapAnswer) -> Result<Vec<u8>, String> {
    let mut ports: Vec<&str> = answer.packets.iter().map(|p| p.port.as_str()).collect();
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
    for (i, p) in answer.packets.iter().enumerate() {
        let data = hex::decode(&p.data)
            .ok()
            .ok_or_else(|| format!("frame {i} of the capture is not hex"))?;
        let epb = EnhancedPacketBlock {
            interface_id: ports.binary_search(&p.port.as_str()).unwrap_or(0) as u32,
            timestamp: Duration::from_nanos(p.timestamp_ns),
            original_len: u32::try_from(p.len).unwrap_or(u32::MAX),
            data: Cow::Owned(data),
            options: vec![EnhancedPacketOption::Flags(match p.point {
                TapPoint::Ingress => 1,
                TapPoint::Egress => 2,
            })],
        };
        w.write_pcapng_block(epb).map_err(err)?;
    }
    Ok(w.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::TapView;
    use pcap_file::pcapng::{Block, PcapNgReader};

    fn frame(point: TapPoint, t: u64, port: &str, len: usize, data: &str) -> TapView {
        TapView {
            point,
            timestamp_ns: t,
            port: port.into(),
            network: None,
            len,
            data: data.into(),
            stages: Vec::new(),
        }
    }

    #[test]
    fn ports_directions_times_and_lengths_read_back() {
        let answer = TapAnswer {
            packets: vec![
                frame(
                    TapPoint::Ingress,
                    1_700_000_000_123_456_789,
                    "b",
                    60,
                    "0102",
                ),
                frame(TapPoint::Egress, 1_700_000_000_123_457_000, "a", 60, "ff"),
            ],
            timed_out: false,
        };
        let bytes = capture_pcapng(&answer).unwrap();
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

    #[test]
    fn a_frame_that_is_not_hex_is_named() {
        let answer = TapAnswer {
            packets: vec![frame(TapPoint::Ingress, 1, "a", 1, "zz")],
            timed_out: false,
        };
        assert_eq!(
            capture_pcapng(&answer).unwrap_err(),
            "frame 0 of the capture is not hex"
        );
    }
}
