//! Reading a capture as a stream: one record at a time, in bounded memory,
//! from any file a `read(2)` works on (a FIFO or a pipe too: nothing seeks).
//!
//! In: a pcap or pcapng file. Out: Ethernet frames (`crate::pcap::to_ethernet`
//! turns raw-IP and Linux cooked records into Ethernet), and, for a record
//! that cannot be read, a [`RecordError`] with its number and byte offset.
//! A bad record ends the stream: neither format lets a reader find the next
//! record after garbage. Obsolete pcapng Packet Blocks are read (their
//! timestamps taken in the default microseconds); other blocks are skipped.

use crate::pcap::{Frame, ReadStats, to_ethernet};
use pcap_file::DataLink;
use pcap_file::pcap::PcapParser;
use pcap_file::pcapng::{Block, PcapNgParser};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest record read; a longer one is a bad record.
pub const MAX_RECORD: usize = 16 << 20;

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: record {record} at byte {offset}: {msg}")]
pub struct RecordError {
    pub path: String,
    /// 1-based, counting every record (block) after the file header.
    pub record: u64,
    pub offset: u64,
    pub msg: String,
}

enum Format {
    Pcap(PcapParser),
    PcapNg(PcapNgParser),
}

/// A packet record, converted straight from the buffer.
struct Record {
    link: DataLink,
    timestamp_ns: u64,
    /// The frame as Ethernet (and whether it was converted), if its link
    /// type allows.
    frame: Option<(Vec<u8>, bool)>,
    captured: usize,
    original_len: usize,
}

impl Record {
    fn new(link: DataLink, timestamp_ns: u64, data: &[u8], original_len: usize) -> Self {
        Record {
            link,
            timestamp_ns,
            frame: to_ethernet(link, data),
            captured: data.len(),
            original_len,
        }
    }
}

impl Format {
    /// The next record at the start of `avail`: the bytes it used, and the
    /// packet if it is one (other pcapng blocks are none).
    fn next_record(
        &mut self,
        avail: &[u8],
    ) -> Result<(usize, Option<Record>), pcap_file::PcapError> {
        match self {
            Format::Pcap(p) => p.next_packet(avail).map(|(rest, pkt)| {
                let link = p.header().datalink;
                let ts = pkt.timestamp.as_nanos() as u64;
                let r = Record::new(link, ts, &pkt.data, pkt.orig_len as usize);
                (avail.len() - rest.len(), Some(r))
            }),
            Format::PcapNg(p) => p.next_block(avail).map(|(rest, block)| {
                let link_of = |p: &PcapNgParser, id: usize| {
                    p.interfaces()
                        .get(id)
                        .map_or(DataLink::ETHERNET, |i| i.linktype)
                };
                let r = match block {
                    Block::EnhancedPacket(b) => Some(Record::new(
                        link_of(p, b.interface_id as usize),
                        b.timestamp.as_nanos() as u64,
                        &b.data,
                        b.original_len as usize,
                    )),
                    Block::Packet(b) => Some(Record::new(
                        link_of(p, usize::from(b.interface_id)),
                        b.timestamp.saturating_mul(1000),
                        &b.data,
                        b.original_len as usize,
                    )),
                    Block::SimplePacket(b) => Some(Record::new(
                        link_of(p, 0),
                        0,
                        &b.data,
                        b.original_len as usize,
                    )),
                    _ => None,
                };
                (avail.len() - rest.len(), r)
            }),
        }
    }
}

pub struct CaptureReader {
    path: PathBuf,
    src: File,
    buf: Vec<u8>,
    /// Where in `buf` the next record starts.
    start: usize,
    /// The file offset of `buf[start]`.
    offset: u64,
    eof: bool,
    done: bool,
    /// Known once the file header is read.
    format: Option<Format>,
    record: u64,
    pub stats: ReadStats,
}

impl std::fmt::Debug for CaptureReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureReader")
            .field("path", &self.path)
            .field("record", &self.record)
            .field("offset", &self.offset)
            .finish()
    }
}

impl CaptureReader {
    /// Opens `path` and reads its file header.
    pub fn open(path: &Path) -> Result<Self, RecordError> {
        let err = |offset, msg: String| RecordError {
            path: path.display().to_string(),
            record: 0,
            offset,
            msg,
        };
        let src = File::open(path).map_err(|e| err(0, e.to_string()))?;
        let mut r = Self {
            path: path.to_path_buf(),
            src,
            buf: Vec::with_capacity(1 << 16),
            start: 0,
            offset: 0,
            eof: false,
            done: false,
            format: None,
            record: 0,
            stats: ReadStats::default(),
        };
        loop {
            let avail = &r.buf[r.start..];
            let parsed = if avail.len() >= 4 && avail[..4] == [0x0a, 0x0d, 0x0d, 0x0a] {
                PcapNgParser::new(avail)
                    .map(|(rest, p)| (avail.len() - rest.len(), Format::PcapNg(p)))
            } else {
                PcapParser::new(avail).map(|(rest, p)| (avail.len() - rest.len(), Format::Pcap(p)))
            };
            match parsed {
                Ok((used, f)) => {
                    r.format = Some(f);
                    r.consume(used);
                    return Ok(r);
                }
                Err(pcap_file::PcapError::IncompleteBuffer) if !r.eof => {
                    r.fill().map_err(|e| err(r.offset, e.to_string()))?;
                }
                Err(e) => {
                    return Err(err(0, format!("not a pcap or pcapng file: {e}")));
                }
            }
        }
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.offset += n as u64;
    }

    /// Reads more of the file behind what is buffered.
    fn fill(&mut self) -> std::io::Result<()> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let have = self.buf.len();
        self.buf.resize(have + (1 << 16), 0);
        let n = loop {
            match self.src.read(&mut self.buf[have..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(have);
                    return Err(e);
                }
                Ok(n) => break n,
            }
        };
        self.buf.truncate(have + n);
        self.eof = n == 0;
        Ok(())
    }

    fn bad(&mut self, msg: String) -> RecordError {
        self.done = true;
        RecordError {
            path: self.path.display().to_string(),
            record: self.record + 1,
            offset: self.offset,
            msg,
        }
    }

    /// The next frame; `None` at the end; an error ends the stream.
    pub fn next_frame(&mut self) -> Option<Result<Frame, RecordError>> {
        loop {
            if self.done {
                return None;
            }
            let avail = &self.buf[self.start..];
            if avail.is_empty() && self.eof {
                return None;
            }
            let parsed = self.format.as_mut()?.next_record(avail);
            match parsed {
                Ok((used, rec)) => {
                    self.consume(used);
                    self.record += 1;
                    if let Some(frame) = rec.and_then(|r| self.count(r)) {
                        return Some(Ok(frame));
                    }
                }
                Err(pcap_file::PcapError::IncompleteBuffer) if !self.eof => {
                    if self.buf.len() - self.start > MAX_RECORD {
                        return Some(Err(self.bad(format!("a record over {MAX_RECORD} bytes"))));
                    }
                    if let Err(e) = self.fill() {
                        return Some(Err(self.bad(e.to_string())));
                    }
                }
                Err(pcap_file::PcapError::IncompleteBuffer) => {
                    let left = self.buf.len() - self.start;
                    return Some(Err(
                        self.bad(format!("cut short: the file ends {left} bytes into it"))
                    ));
                }
                Err(e) => return Some(Err(self.bad(e.to_string()))),
            }
        }
    }

    /// A packet record counted in the reader's statistics: its frame, or
    /// none where its link type has no Ethernet form.
    fn count(&mut self, r: Record) -> Option<Frame> {
        self.stats.frames += 1;
        if r.original_len > r.captured {
            self.stats.truncated_by_snaplen += 1;
        }
        match r.frame {
            Some((data, converted)) => {
                self.stats.converted += usize::from(converted);
                Some(Frame {
                    timestamp_ns: r.timestamp_ns,
                    data,
                })
            }
            None => {
                self.stats.unsupported(r.link);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pcap::FrameWriter;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("prism-capture-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A pcap of three frames of 60, 70 and 80 bytes; returns its bytes.
    fn three(path: &Path) -> Vec<u8> {
        let mut w = FrameWriter::create(path).unwrap();
        for (i, n) in [60usize, 70, 80].iter().enumerate() {
            w.write(1000 * i as u64, &vec![i as u8; *n]).unwrap();
        }
        w.finish().unwrap();
        std::fs::read(path).unwrap()
    }

    fn all(path: &Path) -> (Vec<Frame>, Option<RecordError>) {
        let mut r = CaptureReader::open(path).unwrap();
        let mut v = Vec::new();
        while let Some(f) = r.next_frame() {
            match f {
                Ok(f) => v.push(f),
                Err(e) => return (v, Some(e)),
            }
        }
        (v, None)
    }

    #[test]
    fn a_cut_record_is_reported_after_the_good_ones() {
        let d = dir("cut");
        let p = d.join("t.pcap");
        let bytes = three(&p);
        std::fs::write(&p, &bytes[..bytes.len() - 10]).unwrap();
        let (frames, e) = all(&p);
        assert_eq!(frames.len(), 2);
        let e = e.unwrap();
        // 24-byte file header, 16-byte record headers.
        assert_eq!((e.record, e.offset), (3, 24 + 16 + 60 + 16 + 70));
        assert!(e.msg.contains("cut short"), "{e}");
        assert!(
            e.to_string().contains("t.pcap: record 3 at byte 186"),
            "{e}"
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn garbage_after_the_records_is_reported_where_it_starts() {
        let d = dir("junk");
        let p = d.join("t.pcap");
        let mut bytes = three(&p);
        let end = bytes.len() as u64;
        // A record header claiming 4 GB: not a record.
        bytes.extend_from_slice(&[0xff; 40]);
        std::fs::write(&p, &bytes).unwrap();
        let (frames, e) = all(&p);
        assert_eq!(frames.len(), 3);
        let e = e.unwrap();
        assert_eq!((e.record, e.offset), (4, end));
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_fifo_is_read_like_a_file() {
        let d = dir("fifo");
        let p = d.join("t.pcap");
        let bytes = three(&p);
        let fifo = d.join("in.fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let f2 = fifo.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut w = std::fs::OpenOptions::new().write(true).open(f2).unwrap();
            for chunk in bytes.chunks(7) {
                w.write_all(chunk).unwrap();
            }
        });
        let (frames, e) = all(&fifo);
        writer.join().unwrap();
        assert!(e.is_none(), "{e:?}");
        assert_eq!(
            frames.iter().map(|f| f.data.len()).collect::<Vec<_>>(),
            [60, 70, 80]
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn obsolete_pcapng_packet_blocks_are_read() {
        use pcap_file::pcapng::PcapNgWriter;
        use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
        use pcap_file::pcapng::blocks::packet::PacketBlock;
        let d = dir("ng");
        let p = d.join("t.pcapng");
        let mut w = PcapNgWriter::new(File::create(&p).unwrap()).unwrap();
        w.write_pcapng_block(InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0xffff,
            options: vec![],
        })
        .unwrap();
        let frame = [7u8; 64];
        w.write_pcapng_block(PacketBlock {
            interface_id: 0,
            drop_count: 0,
            timestamp: 1500,
            captured_len: 64,
            original_len: 64,
            data: frame[..].into(),
            options: vec![],
        })
        .unwrap();
        drop(w);
        let (frames, e) = all(&p);
        assert!(e.is_none(), "{e:?}");
        assert_eq!(frames.len(), 1);
        assert_eq!(
            (frames[0].timestamp_ns, frames[0].data.len()),
            (1_500_000, 64)
        );
        std::fs::remove_dir_all(d).unwrap();
    }
}
