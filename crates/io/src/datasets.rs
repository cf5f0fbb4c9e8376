//! Standard data sets from files: ClassBench filter sets and traces, and
//! prefix lists (plain or `.gz`). The parsing is `prism_tables::classbench`'s;
//! this opens the files and names them in errors.

use prism_tables::Ipv4Prefix;
use prism_tables::Rule;
use prism_tables::classbench::{self, ParseError, TraceEntry};
use std::io::{BufRead, BufReader};
use std::path::Path;

fn open(path: &Path) -> Result<Box<dyn BufRead>, ParseError> {
    let f = std::fs::File::open(path).map_err(|e| ParseError {
        file: path.display().to_string(),
        line: 0,
        msg: e.to_string(),
    })?;
    Ok(if path.extension().is_some_and(|e| e == "gz") {
        Box::new(BufReader::new(flate2::read::GzDecoder::new(f)))
    } else {
        Box::new(BufReader::new(f))
    })
}

/// A ClassBench filter file: rule `i` has id and action `i`, the first line wins.
pub fn read_filters(path: &Path) -> Result<Vec<Rule>, ParseError> {
    classbench::parse_filters(open(path)?, &path.display().to_string())
}

/// A ClassBench header trace.
pub fn read_trace(path: &Path) -> Result<Vec<TraceEntry>, ParseError> {
    classbench::parse_trace(open(path)?, &path.display().to_string())
}

/// A prefix list, one CIDR a line (`.gz` decompressed): the IPv4 prefixes
/// and the number of IPv6 lines skipped.
pub fn read_prefixes(path: &Path) -> Result<(Vec<Ipv4Prefix>, usize), ParseError> {
    classbench::parse_prefixes(open(path)?, &path.display().to_string())
}

/// The IPv6 prefixes of a prefix list (`.gz` decompressed).
pub fn read_prefixes6(path: &Path) -> Result<Vec<prism_tables::Ipv6Prefix>, ParseError> {
    classbench::parse_prefixes6(open(path)?, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gz_and_plain_lists_read_alike_and_errors_name_the_file() {
        let dir = std::env::temp_dir().join(format!("prism-datasets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("p.txt");
        std::fs::write(&plain, "10.0.0.0/8\n2001:db8::/32\n").unwrap();
        let gz = dir.join("p.txt.gz");
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::fast(),
        );
        e.write_all(b"10.0.0.0/8\n2001:db8::/32\n").unwrap();
        e.finish().unwrap();
        assert_eq!(read_prefixes(&plain).unwrap(), read_prefixes(&gz).unwrap());
        let e = read_filters(&dir.join("missing")).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
