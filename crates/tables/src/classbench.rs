//! Parsers for ClassBench filter sets and header traces, and for prefix
//! lists, from any reader (`prism_io::datasets` opens the files).
//!
//! Filter line: `@src/len<TAB>dst/len<TAB>lo : hi<TAB>lo : hi<TAB>proto/mask<TAB>flags/mask`.
//! Priority is line order, first line best; the flags column is ignored (a
//! wildcard). Trace line: `src dst sport dport proto flags ruleIdx`, integers;
//! `ruleIdx` is the rule the header was generated from, and the first
//! matching rule may come earlier.

use crate::prefix::Ipv4Prefix;
use crate::rule::{Key, PortRange, Rule, Ternary};
use std::io::BufRead;

/// An error with the file and line it was found at.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {msg}")]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

fn lines(
    reader: impl BufRead,
    file: &str,
) -> impl Iterator<Item = (usize, Result<String, ParseError>)> {
    reader.lines().enumerate().map(move |(i, l)| {
        (
            i + 1,
            l.map_err(|e| ParseError {
                file: file.to_string(),
                line: i + 1,
                msg: e.to_string(),
            }),
        )
    })
}

fn parse_range(s: &str) -> Option<PortRange> {
    let (lo, hi) = s.split_once(':')?;
    let (lo, hi) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
    (lo <= hi).then_some(PortRange { lo, hi })
}

fn parse_hex_u8(s: &str) -> Option<u8> {
    u8::from_str_radix(
        s.trim().trim_start_matches("0x").trim_start_matches("0X"),
        16,
    )
    .ok()
}

/// Parses one filter line into a rule with the given id and priority.
pub fn parse_filter(line: &str, id: u32, priority: u32) -> Result<Rule, String> {
    let body = line
        .trim()
        .strip_prefix('@')
        .ok_or("a filter line starts with '@'")?;
    let cols: Vec<&str> = body
        .split('\t')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    if cols.len() < 5 {
        return Err(format!(
            "expected at least 5 tab-separated columns, found {}",
            cols.len()
        ));
    }
    let src = Ipv4Prefix::parse_loose(cols[0]).map_err(|e| format!("source: {e}"))?;
    let dst = Ipv4Prefix::parse_loose(cols[1]).map_err(|e| format!("destination: {e}"))?;
    let sp = parse_range(cols[2])
        .ok_or_else(|| format!("source ports: `{}` is not `lo : hi`", cols[2]))?;
    let dp = parse_range(cols[3])
        .ok_or_else(|| format!("destination ports: `{}` is not `lo : hi`", cols[3]))?;
    let (pv, pm) = cols[4]
        .split_once('/')
        .ok_or_else(|| format!("protocol: `{}` is not value/mask", cols[4]))?;
    let (pv, pm) = (
        parse_hex_u8(pv).ok_or("protocol value is not hex")?,
        parse_hex_u8(pm).ok_or("protocol mask is not hex")?,
    );
    let fields = Ternary::ANY.src_ip(src).dst_ip(dst).proto(pv, pm);
    Ok(Rule::new(id, priority, fields, id).with_ports(sp, dp))
}

/// Reads a filter set from `reader` (`file` names it in errors). Rule `i`
/// (0-based line order) gets id `i`, action `i` and priority `n - i`, so
/// the first line wins.
pub fn parse_filters(reader: impl BufRead, file: &str) -> Result<Vec<Rule>, ParseError> {
    let mut raw = Vec::new();
    for (n, l) in lines(reader, file) {
        let l = l?;
        if !l.trim().is_empty() {
            raw.push((n, l));
        }
    }
    let total = raw.len() as u32;
    raw.iter()
        .enumerate()
        .map(|(i, (n, l))| {
            parse_filter(l, i as u32, total - i as u32).map_err(|msg| ParseError {
                file: file.to_string(),
                line: *n,
                msg,
            })
        })
        .collect()
}

/// One trace header and the rule it was generated from.
#[derive(Debug, Clone, Copy)]
pub struct TraceEntry {
    pub key: Key,
    pub generated_from: u32,
}

pub fn parse_trace_line(line: &str) -> Result<TraceEntry, String> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 5 {
        return Err(format!("expected at least 5 fields, found {}", f.len()));
    }
    let num = |i: usize, what: &str| {
        f[i].parse::<u64>()
            .map_err(|_| format!("{what}: `{}` is not a number", f[i]))
    };
    let src = u32::try_from(num(0, "source")?).map_err(|_| "source out of range")?;
    let dst = u32::try_from(num(1, "destination")?).map_err(|_| "destination out of range")?;
    let sp = u16::try_from(num(2, "source port")?).map_err(|_| "source port out of range")?;
    let dp =
        u16::try_from(num(3, "destination port")?).map_err(|_| "destination port out of range")?;
    let proto = u8::try_from(num(4, "protocol")?).map_err(|_| "protocol out of range")?;
    let generated_from = if f.len() >= 7 {
        num(6, "rule index")? as u32
    } else {
        u32::MAX
    };
    let key = Key::from_flow(&prism_wire::FlowKey {
        src_ip: src,
        dst_ip: dst,
        src_port: sp,
        dst_port: dp,
        proto,
        ..Default::default()
    });
    Ok(TraceEntry {
        key,
        generated_from,
    })
}

/// Reads a header trace from `reader` (`file` names it in errors).
pub fn parse_trace(reader: impl BufRead, file: &str) -> Result<Vec<TraceEntry>, ParseError> {
    let mut out = Vec::new();
    for (n, l) in lines(reader, file) {
        let l = l?;
        if l.trim().is_empty() {
            continue;
        }
        out.push(parse_trace_line(&l).map_err(|msg| ParseError {
            file: file.to_string(),
            line: n,
            msg,
        })?);
    }
    Ok(out)
}

/// Reads a prefix list (one CIDR per line; a `.gz` file is decompressed by
/// the caller's reader). IPv6 lines, blank lines and `#` comments are skipped;
/// host bits are cleared. Returns the prefixes and the number of IPv6 lines.
pub fn parse_prefixes(
    reader: impl BufRead,
    file: &str,
) -> Result<(Vec<Ipv4Prefix>, usize), ParseError> {
    let mut v4 = Vec::new();
    let mut v6 = 0;
    for (i, l) in reader.lines().enumerate() {
        let l = l.map_err(|e| ParseError {
            file: file.to_string(),
            line: i + 1,
            msg: e.to_string(),
        })?;
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.contains(':') {
            v6 += 1;
            continue;
        }
        let first = t.split_whitespace().next().unwrap_or(t);
        v4.push(Ipv4Prefix::parse_loose(first).map_err(|e| ParseError {
            file: file.to_string(),
            line: i + 1,
            msg: e.to_string(),
        })?);
    }
    Ok((v4, v6))
}

/// The IPv6 prefixes of a prefix list (one CIDR a line, as
/// [`parse_prefixes`] reads; IPv4 lines skipped), host bits cleared.
pub fn parse_prefixes6(
    reader: impl BufRead,
    file: &str,
) -> Result<Vec<crate::Ipv6Prefix>, ParseError> {
    let mut v6 = Vec::new();
    for (i, l) in reader.lines().enumerate() {
        let bad = |msg: String| ParseError {
            file: file.to_string(),
            line: i + 1,
            msg,
        };
        let l = l.map_err(|e| bad(e.to_string()))?;
        let first = l.split_whitespace().next().unwrap_or_default();
        if first.starts_with('#') || !first.contains(':') {
            continue;
        }
        v6.push(crate::Ipv6Prefix::parse_loose(first).map_err(|e| bad(e.to_string()))?);
    }
    Ok(v6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_line() {
        let r = parse_filter(
            "@91.89.244.16/29\t245.66.202.32/28\t88 : 88\t1024 : 65535\t0x11/0xFF\t0x0000/0x0000\t",
            3,
            7,
        )
        .unwrap();
        assert_eq!((r.id, r.priority, r.action), (3, 7, 3));
        assert_eq!(r.src_port, PortRange::exact(88));
        assert_eq!(
            r.dst_port,
            PortRange {
                lo: 1024,
                hi: 65535
            }
        );
        let e = parse_trace_line("1532621841\t4114795041\t88\t1500\t17\t0\t3").unwrap();
        assert!(r.matches(&e.key));
        assert_eq!(e.generated_from, 3);
        assert!(parse_filter("91.89.244.16/29", 0, 0).is_err());
        assert!(
            parse_filter("@1.2.3.4/29\t1.2.3.4/33\t0 : 1\t0 : 1\t0x11/0xFF", 0, 0)
                .unwrap_err()
                .contains("destination")
        );
        assert!(parse_trace_line("1 2 3").is_err());
    }

    #[test]
    fn prefix_list() {
        let text = "1.0.0.0/24\n2001:db8::/32\n\n# comment\n10.1.1.1/16\n";
        let (v4, v6) = parse_prefixes(text.as_bytes(), "t").unwrap();
        assert_eq!(
            v4,
            vec![
                Ipv4Prefix::new(0x0100_0000, 24),
                Ipv4Prefix::new(0x0a01_0000, 16)
            ]
        );
        assert_eq!(v6, 1);
        let e = parse_prefixes("1.0.0.0/24\n1.0.0.0/40\n".as_bytes(), "list.txt").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("list.txt", 2));
        let v6 = parse_prefixes6(text.as_bytes(), "t").unwrap();
        assert_eq!(v6, vec!["2001:db8::/32".parse().unwrap()]);
        let e = parse_prefixes6("2001:db8::/32\n2001:db8::/129\n".as_bytes(), "l").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
