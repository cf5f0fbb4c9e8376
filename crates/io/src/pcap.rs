//! Reading and writing capture files.
//!
//! Captures are read into Ethernet frames, whatever their link type:
//! Ethernet frames pass unchanged; raw IP (LINKTYPE_RAW, LINKTYPE_IPV4) and
//! Linux cooked captures (LINKTYPE_LINUX_SLL) get a synthetic Ethernet header
//! carrying the right EtherType, so tunnel-interface captures can be replayed
//! into a port. Other link types are skipped and counted, never guessed at.

use pcap_file::DataLink;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum PcapError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a pcap or pcapng file: {msg}")]
    Format { path: PathBuf, msg: String },
    #[error("{path}: writing failed: {msg}")]
    Write { path: PathBuf, msg: String },
}

/// One frame read from a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub timestamp_ns: u64,
    pub data: Vec<u8>,
}

/// What reading a capture found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadStats {
    pub frames: usize,
    /// Frames given a synthetic Ethernet header (raw IP, Linux cooked).
    pub converted: usize,
    /// Frames of a link type Prism cannot turn into Ethernet, by link type.
    pub unsupported_link: Vec<(String, usize)>,
    /// Frames cut short by the capture's snap length (passed on as captured).
    pub truncated_by_snaplen: usize,
}

impl ReadStats {
    pub(crate) fn unsupported(&mut self, link: DataLink) {
        let name = format!("{link:?}");
        match self.unsupported_link.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => self.unsupported_link.push((name, 1)),
        }
    }
}

const SYNTH_DST: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];
const SYNTH_SRC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];

fn with_ethernet(ethertype: u16, src: [u8; 6], payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(14 + payload.len());
    v.extend_from_slice(&SYNTH_DST);
    v.extend_from_slice(&src);
    v.extend_from_slice(&ethertype.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

/// Turns one captured record into an Ethernet frame, if its link type allows.
pub fn to_ethernet(link: DataLink, data: &[u8]) -> Option<(Vec<u8>, bool)> {
    match link {
        DataLink::ETHERNET => Some((data.to_vec(), false)),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => {
            let ethertype = match data.first().map(|b| b >> 4) {
                Some(6) => 0x86dd,
                _ => 0x0800, // version 4, or malformed: the parser will say which
            };
            Some((with_ethernet(ethertype, SYNTH_SRC, data), true))
        }
        DataLink::LINUX_SLL => {
            // 16-byte header: packet type, ARPHRD, address length, 8 address bytes, protocol.
            if data.len() < 16 {
                return Some((data.to_vec(), true)); // let the parser count it as truncated
            }
            let mut src = SYNTH_SRC;
            let alen = usize::from(u16::from_be_bytes([data[4], data[5]])).min(8);
            if alen == 6 {
                src.copy_from_slice(&data[6..12]);
            }
            let proto = u16::from_be_bytes([data[14], data[15]]);
            Some((with_ethernet(proto, src, &data[16..]), true))
        }
        _ => None,
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> PcapError + '_ {
    move |source| PcapError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes Ethernet frames to a pcap file (nanosecond timestamps).
#[derive(Debug)]
pub struct FrameWriter {
    path: PathBuf,
    w: PcapWriter<BufWriter<File>>,
    pub written: usize,
}

impl FrameWriter {
    pub fn create(path: &Path) -> Result<Self, PcapError> {
        let f = File::create(path).map_err(io_err(path))?;
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: pcap_file::TsResolution::NanoSecond,
            ..Default::default()
        };
        let w =
            PcapWriter::with_header(BufWriter::new(f), header).map_err(|e| PcapError::Format {
                path: path.to_path_buf(),
                msg: e.to_string(),
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            w,
            written: 0,
        })
    }

    pub fn write(&mut self, timestamp_ns: u64, data: &[u8]) -> Result<(), PcapError> {
        let p = PcapPacket::new(Duration::from_nanos(timestamp_ns), data.len() as u32, data);
        self.w.write_packet(&p).map_err(|e| PcapError::Write {
            path: self.path.clone(),
            msg: e.to_string(),
        })?;
        self.written += 1;
        Ok(())
    }

    /// Flushes what is buffered: a full disk or a closed pipe shows here at
    /// the latest, with the file's name, instead of being lost on drop.
    pub fn finish(self) -> Result<usize, PcapError> {
        let mut w = self.w.into_writer();
        std::io::Write::flush(&mut w).map_err(|e| PcapError::Write {
            path: self.path.clone(),
            msg: e.to_string(),
        })?;
        w.into_inner()
            .map_err(|e| PcapError::Write {
                path: self.path.clone(),
                msg: e.error().to_string(),
            })?
            .sync_all()
            .or_else(|e| {
                // Pipes and character devices cannot be synced; that is fine.
                if e.raw_os_error() == Some(libc::EINVAL) || e.raw_os_error() == Some(libc::EROFS) {
                    Ok(())
                } else {
                    Err(PcapError::Write {
                        path: self.path.clone(),
                        msg: e.to_string(),
                    })
                }
            })?;
        Ok(self.written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_frames(path: &Path) -> Result<(Vec<Frame>, ReadStats), String> {
        let mut r = crate::capture::CaptureReader::open(path).map_err(|e| e.to_string())?;
        let mut v = Vec::new();
        while let Some(f) = r.next_frame() {
            v.push(f.map_err(|e| e.to_string())?);
        }
        Ok((v, r.stats.clone()))
    }

    #[test]
    fn write_then_read() {
        let dir = std::env::temp_dir().join(format!("prism-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.pcap");
        let mut w = FrameWriter::create(&path).unwrap();
        w.write(1_500_000_123, &[1, 2, 3, 4]).unwrap();
        w.write(2_000_000_000, &[5; 60]).unwrap();
        drop(w);
        let (frames, stats) = read_frames(&path).unwrap();
        assert_eq!(stats.frames, 2);
        assert_eq!(
            frames[0],
            Frame {
                timestamp_ns: 1_500_000_123,
                data: vec![1, 2, 3, 4]
            }
        );
        assert_eq!(frames[1].data.len(), 60);
        std::fs::write(dir.join("bad.pcap"), b"not a capture at all").unwrap();
        let e = read_frames(&dir.join("bad.pcap")).unwrap_err();
        assert!(e.to_string().contains("bad.pcap"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn reads_pcapng() {
        use pcap_file::pcapng::PcapNgWriter;
        use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
        use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
        let dir = std::env::temp_dir().join(format!("prism-io-ng-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.pcapng");
        let mut w = PcapNgWriter::new(File::create(&path).unwrap()).unwrap();
        let idb = InterfaceDescriptionBlock {
            linktype: DataLink::RAW,
            snaplen: 0xffff,
            options: vec![],
        };
        w.write_pcapng_block(idb).unwrap();
        let ip = [
            0x45u8, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        let epb = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_micros(1500),
            original_len: 20,
            data: ip[..].into(),
            options: vec![],
        };
        w.write_pcapng_block(epb).unwrap();
        drop(w);
        let (frames, stats) = read_frames(&path).unwrap();
        assert_eq!((stats.frames, stats.converted), (1, 1));
        assert_eq!(frames[0].timestamp_ns, 1_500_000);
        assert_eq!(&frames[0].data[14..], &ip);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn link_types() {
        let ip = [0x45u8, 0, 0, 20];
        let (f, conv) = to_ethernet(DataLink::RAW, &ip).unwrap();
        assert!(conv);
        assert_eq!(&f[12..14], &[0x08, 0x00]);
        assert_eq!(&f[14..], &ip);
        let mut sll = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 7, 0, 0, 0x08, 0x06];
        sll.extend_from_slice(&[9; 28]);
        let (f, _) = to_ethernet(DataLink::LINUX_SLL, &sll).unwrap();
        assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 7]);
        assert_eq!(&f[12..14], &[0x08, 0x06]);
        assert!(to_ethernet(DataLink::IEEE802_11, &ip).is_none());
    }
}
