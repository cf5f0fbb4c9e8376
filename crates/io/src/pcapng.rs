//! Writes frames seen on several interfaces, each way, as pcapng: one
//! Interface Description Block per interface (named, nanosecond
//! timestamps) and an Enhanced Packet Block per frame with its direction
//! in the `epb_flags` option (RFC draft-ietf-opsawg-pcapng, §4.3.1), so
//! that Wireshark and tshark show which port and which way.

use crate::pcap::PcapError;
use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which way a frame went through its interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Inbound,
    Outbound,
}

pub struct CaptureWriter {
    path: PathBuf,
    w: PcapNgWriter<BufWriter<File>>,
    interfaces: u32,
    pub written: usize,
}

impl std::fmt::Debug for CaptureWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter")
            .field("path", &self.path)
            .field("written", &self.written)
            .finish()
    }
}

impl CaptureWriter {
    /// A new file at `path` for frames of `interfaces` (by index later).
    pub fn create(path: &Path, interfaces: &[String]) -> Result<Self, PcapError> {
        let werr = |e: &dyn std::fmt::Display| PcapError::Write {
            path: path.to_path_buf(),
            msg: e.to_string(),
        };
        let f = File::create(path).map_err(|e| werr(&e))?;
        let mut w = PcapNgWriter::new(BufWriter::new(f)).map_err(|e| werr(&e))?;
        for name in interfaces {
            let idb = InterfaceDescriptionBlock {
                linktype: DataLink::ETHERNET,
                snaplen: 0,
                options: vec![
                    InterfaceDescriptionOption::IfName(Cow::Borrowed(name)),
                    InterfaceDescriptionOption::IfTsResol(9),
                ],
            };
            w.write_pcapng_block(idb).map_err(|e| werr(&e))?;
        }
        Ok(Self {
            path: path.to_path_buf(),
            w,
            interfaces: interfaces.len() as u32,
            written: 0,
        })
    }

    /// One frame: `data` (perhaps cut short) of a frame `len` bytes long.
    pub fn write(
        &mut self,
        interface: u32,
        timestamp_ns: u64,
        len: usize,
        data: &[u8],
        dir: Direction,
    ) -> Result<(), PcapError> {
        if interface >= self.interfaces {
            return Err(PcapError::Write {
                path: self.path.clone(),
                msg: format!("no interface {interface}"),
            });
        }
        let flags = match dir {
            Direction::Inbound => 1,
            Direction::Outbound => 2,
        };
        let epb = EnhancedPacketBlock {
            interface_id: interface,
            timestamp: Duration::from_nanos(timestamp_ns),
            original_len: len as u32,
            data: Cow::Borrowed(data),
            options: vec![EnhancedPacketOption::Flags(flags)],
        };
        self.w
            .write_pcapng_block(epb)
            .map_err(|e| PcapError::Write {
                path: self.path.clone(),
                msg: e.to_string(),
            })?;
        self.written += 1;
        Ok(())
    }

    /// Flushes to the file; errors name it.
    pub fn finish(self) -> Result<usize, PcapError> {
        let mut w = self.w.into_inner();
        w.flush().map_err(|e| PcapError::Write {
            path: self.path.clone(),
            msg: e.to_string(),
        })?;
        Ok(self.written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcapng::{Block, PcapNgReader};

    #[test]
    fn interfaces_directions_and_times_read_back() {
        let dir = std::env::temp_dir().join(format!("prism-pcapng-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.pcapng");
        let mut w = CaptureWriter::create(&path, &["a".into(), "b".into()]).unwrap();
        w.write(
            0,
            1_700_000_000_123_456_789,
            60,
            &[1; 60],
            Direction::Inbound,
        )
        .unwrap();
        w.write(
            1,
            1_700_000_000_123_457_000,
            60,
            &[2; 20],
            Direction::Outbound,
        )
        .unwrap();
        assert!(w.write(2, 0, 1, &[0], Direction::Inbound).is_err());
        assert_eq!(w.finish().unwrap(), 2);
        let mut r = PcapNgReader::new(File::open(&path).unwrap()).unwrap();
        let mut seen = Vec::new();
        while let Some(b) = r.next_block() {
            if let Block::EnhancedPacket(e) = b.unwrap() {
                let opts: Vec<_> = e.options.iter().map(|o| format!("{o:?}")).collect();
                seen.push((
                    e.interface_id,
                    e.timestamp.as_nanos(),
                    e.original_len,
                    e.data.len(),
                    opts,
                ));
            }
        }
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].0, 0);
        assert_eq!(seen[0].1, 1_700_000_000_123_456_789);
        assert_eq!((seen[1].2, seen[1].3), (60, 20));
        assert_eq!(seen[1].4, vec!["Flags(2)".to_string()]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
